"""C-family renderer of the kernel IR: C (host compiler, loops), OpenCL C and CUDA C.

``render(kernel, dialect, name) -> CSource``; the dialects are attribute tables in
``dialects.py``, the ops with tjit's semantics in ``scalar.py``.
"""

from tjit.lower.c.dialects import CUDA, DIALECTS, OPENCL, C, Dialect
from tjit.lower.c.renderer import CSource, LaunchSpec, Param, render

__all__ = [
           "CUDA",
           "DIALECTS",
           "OPENCL",
           "C",
           "CSource",
           "Dialect",
           "LaunchSpec",
           "Param",
           "render",
]
