"""Record every kernel tjit compiles or renders, by ``kernel_ir.kernel_hash``.

The entries watched: ``kernel_cache.compile_kernel`` (the CPU backend's LLVM kernels)
and the ``render`` calls of the OpenCL runtime, the CUDA runtime and the FPGA design
builder (those backends render the kernel IR themselves and never reach
``compile_kernel``). :func:`install` wraps them once; :func:`listen` adds a callback
called with ``(hash, kernel)`` for every new kernel (``nvrtc_check`` uses it).

As a pytest plugin of its own,

    PYTHONPATH=. python -m pytest -q -p tests.lower.c.collect_kernels tests/nn tests/test_jit.py

writes the distinct kernels, added to those already there, to ``$TJIT_KERNELS``
(default: tjit-kernels.pkl in the temp folder), for ``sweep.py``.
"""

import os
import pickle
import tempfile
import threading

from tjit.devices import cuda, kernel_cache, opencl
from tjit.fpga import design
from tjit.xla_like import kernel_ir as K

PATH = os.environ.get("TJIT_KERNELS", os.path.join(tempfile.gettempdir(),
                                                   "tjit-kernels.pkl"))
SEEN = {}                 # kernel hash -> kernel, in the order first seen
_LISTENERS = []
_LOCK = threading.Lock()
_installed = False


def record(kernel):
    """Remember ``kernel`` and tell the listeners, once per distinct kernel."""
    h = K.kernel_hash(kernel)
    with _LOCK:
        if h in SEEN:
            return
        SEEN[h] = kernel
        listeners = list(_LISTENERS)
    for f in listeners:
        f(h, kernel)


def listen(callback):
    """Call ``callback(hash, kernel)`` for every kernel recorded from now on."""
    with _LOCK:
        _LISTENERS.append(callback)


def _recording_compile(compile_kernel):
    def compile_and_record(kernel, *args, **kwargs):
        fn = compile_kernel(kernel, *args, **kwargs)
        record(kernel)       # (after: a kernel LLVM rejects is that test's failure)
        return fn
    return compile_and_record


def _recording_render(render):
    def render_and_record(kernel, *args, **kwargs):
        src = render(kernel, *args, **kwargs)
        record(kernel)
        return src
    return render_and_record


def install():
    """Wrap the compile and render entries (idempotent)."""
    global _installed
    with _LOCK:
        if _installed:
            return
        _installed = True
    kernel_cache.compile_kernel = _recording_compile(kernel_cache.compile_kernel)
    for module in (opencl, cuda, design):
        module.render = _recording_render(module.render)


install()


def pytest_sessionfinish(session):
    old = []
    if os.path.exists(PATH):
        with open(PATH, "rb") as f:
            old = pickle.load(f)
    have = {K.kernel_hash(k) for k in old}
    kernels = old + [k for h, k in SEEN.items() if h not in have]
    with open(PATH, "wb") as f:
        pickle.dump(kernels, f)
    print(f"\ncollect_kernels: {len(SEEN)} kernels seen, {len(kernels)} in {PATH}")
