"""Whether the CUDA backend can possibly run here, learned without importing it.

``jit`` without a backend asks :func:`~tjit.devices.backend.default_backend`, whose
order starts with CUDA. Importing ``tjit.devices.cuda`` brings the C renderer, NVRTC
compile and CUDA graph modules (~30-50 ms of a CPU user's first call, measured with
``benchmarks/bench_first_compile.py``), so the registry first asks this module, which
needs neither CuPy's import nor tjit's CUDA code: no CuPy installed, or no NVIDIA driver
that loads, means no GPU. When both are there, the backend's own probe
(``cuda.unavailable_reason``: a device, NVRTC) decides.
"""

import ctypes
import functools
import importlib.util
import sys

INSTALL = 'pip install "tjit[cuda]"'

#: The NVIDIA driver's library, per OS (macOS has none).
DRIVER_LIBRARY = {"win32": "nvcuda.dll", "darwin": None}.get(sys.platform, "libcuda.so.1")


def driver_missing():
    """Why the NVIDIA driver cannot be loaded (None: it loads). A dlopen costs about a
    millisecond, where importing CuPy costs 0.3-1 s."""
    if DRIVER_LIBRARY is None:
        return f"CUDA has no driver on {sys.platform}"
    try:
        ctypes.CDLL(DRIVER_LIBRARY)
    except OSError as e:
        return f"{DRIVER_LIBRARY} cannot be loaded: {e}"
    return None


def quick_reason():
    """Why CUDA cannot run here, from the checks that import nothing (CuPy installed,
    the driver loads), or None when it may (the backend's full probe then decides)."""
    try:
        found = importlib.util.find_spec("cupy") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        return f"CuPy is not installed (No module named cupy); install tjit's CUDA extra: {INSTALL}"
    missing = driver_missing()
    if missing is not None:
        return f"no NVIDIA driver found ({missing}); install the NVIDIA driver"
    return None


@functools.cache
def cached_quick_reason():
    """:func:`quick_reason`, asked once per process (``default_backend`` runs per ``jit``)."""
    return quick_reason()
