"""C-family renderer of the kernel IR: C (host compiler, loops), OpenCL C, CUDA C and
Vitis HLS C++ (``hls``: pipelined loops, AXI ports, streams; ``hls_dialect.py``).

``render(kernel, dialect, name) -> CSource``; the dialects are attribute tables in
``dialects.py``, the ops with tjit's semantics in ``scalar.py``, size expressions in
``sizes.py``, loop axes in ``axes.py``. ``tests/lower/c`` runs the conformance corpus
(``tests/lower/kernel_corpus.py``) through cc, PoCL and NVRTC/CUDA.
"""

from tjit.lower.c.dialects import CUDA, DIALECTS, HLS, OPENCL, C, Dialect
from tjit.lower.c.renderer import CSource, LaunchSpec, Param, render

__all__ = ["CUDA", "DIALECTS", "HLS", "OPENCL", "C", "CSource", "Dialect", "LaunchSpec", "Param",
           "render"]
