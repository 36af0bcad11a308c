"""The BLAS shims are built per dtype on first use (``blas._Shims``): a float32 program
does not compile the float64 shim; each dtype's entry still calls its own gemm (the
dots through them, float32 and float64, are checked against NumPy in test_blas.py)."""

import numpy as np
import pytest

from tjit.devices import blas
from tjit.devices.lazy import _UNSET


@pytest.fixture
def shims():
    found = blas._openblas()
    if found is None:
        pytest.skip("NumPy's OpenBLAS not found: dots use np.matmul")
    return blas._Shims(*found), found


def test_float32_entry_leaves_float64_unbuilt(shims):
    lib, (set_threads, gemms) = shims
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    shim, gemm, threads, pool = lib.get(f32)
    assert callable(shim) and (gemm, threads, pool) == (gemms[f32], set_threads, 0)
    assert lib._entries[f64]._value is _UNSET
    assert lib.get(f64)[1] == gemms[f64]
    assert lib.get(f32) is lib.get(f32)         # built once
    assert lib.get(np.dtype(np.int32)) is None  # no gemm: the caller falls back
