"""The BLAS shims are built per dtype on first use (``blas._Shims``): a float32 program
does not compile the float64 shim; each dtype's entry still calls its own gemm (the
dots through them, float32 and float64, are checked against NumPy in test_blas.py)."""

import numpy as np
import pytest

from tjit.devices import blas
from tjit.devices.lazy import _UNSET, Lazy


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


def _plan_with(monkeypatch, lib, m, n, k=32):
    """A fresh (uncached) float32 plan of an m x k @ k x n product, BLAS shims ``lib``."""
    monkeypatch.setattr(blas, "_LIBRARY", Lazy(lambda: lib))
    f32 = np.dtype(np.float32)
    return blas._plan.__wrapped__((m, k), (k, n), (1, m, k, n), f32, (0, 1), (0, 1),
                                  1.0, 0.0, False, 1, True)


def test_own_sgemm_product_leaves_the_blas_shim_unbuilt(shims, monkeypatch):
    """A product the own sgemm takes (at least one 6 x 64 tile) does not build the
    float32 BLAS shim; a thinner one does, and calls BLAS's sgemm through it."""
    if not blas.own_sgemm_used():
        pytest.skip("no own sgemm on this host (AVX-512F): float32 dots use BLAS")
    lib, (set_threads, gemms) = shims
    f32 = np.dtype(np.float32)
    own = _plan_with(monkeypatch, lib, 256, 64)
    assert own is not None and own.sizes[0] == 0      # the own sgemm: no BLAS gemm address
    assert lib._entries[f32]._value is _UNSET
    thin = _plan_with(monkeypatch, lib, 4, 64)
    assert thin is not None and thin.sizes[0] == gemms[f32]
    assert lib._entries[f32]._value is not _UNSET


def test_own_sgemm_and_blas_products_match_numpy():
    """A float32 program with one product on the own sgemm and one through BLAS (too
    thin for its tile), jitted, against NumPy in float64 and the reference interpreter."""
    import tjit
    rng = np.random.default_rng(3)
    x = rng.standard_normal((256, 32)).astype(np.float32)
    c = rng.standard_normal((64, 32)).astype(np.float32)
    thin = rng.standard_normal((4, 32)).astype(np.float32)

    def f(x, c, thin):
        return -2 * x @ c.T, thin @ c.T
    got = tjit.jit(f)(x, c, thin)
    ref = tjit.jit(f, backend="interpreter")(x, c, thin)
    want = (-2 * x.astype(np.float64) @ c.T.astype(np.float64),
            thin.astype(np.float64) @ c.T.astype(np.float64))
    for g, r, w in zip(got, ref, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-5, atol=1e-4)
