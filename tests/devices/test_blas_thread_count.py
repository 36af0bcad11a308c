"""NumPy's OpenBLAS thread count after tjit's parallel gemm blocks (devices/blas.py): the
shim sets it to 1 around each block's BLAS call; the count is process-wide in the
wheels' pthreads builds, so overlapping blocks must not leave it at 1."""

import numpy as np
import pytest

import tjit
from tjit.devices import blas
from tjit.primitives import lapack_threads


def _numpy_setter():
    fns = lapack_threads.setters("numpy")
    return fns[0] if fns else None


@pytest.mark.skipif(_numpy_setter() is None or not blas.available(),
                    reason="NumPy's OpenBLAS not found")
def test_parallel_float64_gemm_restores_numpys_thread_count(x64):
    fn = _numpy_setter()
    before = fn(2)
    try:
        a = np.random.default_rng(0).standard_normal((400, 400))
        product = tjit.jit(lambda a, b: a @ b)
        counts = []
        for _ in range(100):     # blocks on two threads overlap in most calls
            out = product(a, a).block_until_ready()
            now = fn(2)
            counts.append(now)
        np.testing.assert_allclose(out, a @ a, rtol=1e-12, atol=1e-10)
        assert counts == [2] * len(counts)
    finally:
        fn(before)


@pytest.mark.skipif(_numpy_setter() is None, reason="NumPy's OpenBLAS not found")
def test_small_call_limit_leaves_a_users_single_thread_alone():
    fn = _numpy_setter()
    before = fn(1)               # the user asked for one thread
    try:
        with lapack_threads.blas_threads(np, 1):
            pass
        assert fn(1) == 1
    finally:
        fn(before)
