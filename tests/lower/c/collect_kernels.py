"""A pytest plugin that records every kernel the planner compiles, for ``sweep.py``.

    PYTHONPATH=. python -m pytest -q -p tests.lower.c.collect_kernels tests/nn tests/test_jit.py

writes the distinct kernels (by ``kernel_ir.kernel_hash``), added to those already
there, to ``$TJIT_KERNELS`` (default: tjit-kernels.pkl in the temp folder).
"""

import os
import pickle
import tempfile

from tjit.devices import kernel_cache
from tjit.xla_like import kernel_ir as K

PATH = os.environ.get("TJIT_KERNELS", os.path.join(tempfile.gettempdir(),
                                                   "tjit-kernels.pkl"))
_seen = {}
_compile = kernel_cache.compile_kernel


def _recording(kernel):
    _seen.setdefault(K.kernel_hash(kernel), kernel)
    return _compile(kernel)


kernel_cache.compile_kernel = _recording


def pytest_sessionfinish(session):
    old = []
    if os.path.exists(PATH):
        with open(PATH, "rb") as f:
            old = pickle.load(f)
    have = {K.kernel_hash(k) for k in old}
    kernels = old + [k for h, k in _seen.items() if h not in have]
    with open(PATH, "wb") as f:
        pickle.dump(kernels, f)
    print(f"\ncollect_kernels: {len(_seen)} kernels seen, {len(kernels)} in {PATH}")
