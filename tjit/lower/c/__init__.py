"""C-family renderer of the kernel IR: C (host compiler, loops), OpenCL C and CUDA C.

``render(kernel, dialect, name) -> CSource``; the dialects are attribute tables in
``dialects.py``, the ops with tjit's semantics in ``scalar.py``.
"""

from tjit.lower.c.dialects import C, CUDA, DIALECTS, OPENCL, Dialect
from tjit.lower.c.renderer import CSource, LaunchSpec, Param, render

__all__ = ["C", "CSource", "CUDA", "DIALECTS", "Dialect", "LaunchSpec", "OPENCL", "Param",
           "render"]
