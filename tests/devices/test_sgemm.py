"""tjit's own sgemm (``devices/sgemm.py``) called directly, each register tile, against
float64 NumPy: every operand layout, sizes around the tile and block edges, alpha/beta,
X read in place of C, and C not read when beta is 0."""

import ctypes

import numpy as np
import pytest

from tjit.devices import sgemm
from tjit.lower.llvm import target

pytestmark = pytest.mark.skipif(not sgemm.available(), reason="needs AVX-512F")

_P, _I, _F = ctypes.c_void_p, ctypes.c_int64, ctypes.c_float


@pytest.fixture(scope="module")
def entries():
    names = [sgemm.entry(t) for t in sgemm.TILES]
    return target.compile_ir(sgemm.kernel_ir(), names)


@pytest.fixture(params=sorted(sgemm.TILES))
def gemm(request, entries):
    """Each tile's entry point, as gemm(a, b, c, alpha, beta, x=None)."""
    addr = entries[sgemm.entry(request.param)]
    fn = ctypes.CFUNCTYPE(None, _P, _P, _P, _P, _P, _I, _I, _I, _I, _I, _I, _I, _I, _F,
                          _F)(addr)
    raw = np.zeros(sgemm.WORKSPACE_FLOATS + 16, np.float32)
    ws = raw[(-raw.ctypes.data % 64) // 4:]

    def call(a, b, c, alpha, beta, x=None):
        (m, k), n = a.shape, b.shape[1]
        item = 4
        x = c if x is None else x
        assert x.strides == c.strides
        fn(a.ctypes.data, b.ctypes.data, x.ctypes.data, c.ctypes.data, ws.ctypes.data, m, n, k,
           a.strides[0] // item, a.strides[1] // item, b.strides[0] // item,
           b.strides[1] // item, c.strides[0] // item, alpha, beta)
    return call


def _operand(rng, rows, cols, layout):
    """A rows x cols float32 view: row-major, transposed (column-major) or strided."""
    if layout == "rows":
        return rng.standard_normal((rows, cols)).astype(np.float32)
    if layout == "cols":
        return rng.standard_normal((cols, rows)).astype(np.float32).T
    return rng.standard_normal((rows, 2 * cols)).astype(np.float32)[:, ::2]


SIZES = [(1, 1, 1), (6, 64, 16), (5, 63, 5), (7, 65, 17), (37, 101, 29),
         (sgemm.MC + 3, sgemm.NC + 50, sgemm.KC + 7),      # several blocks of each loop
         (16, 96, 2 * sgemm.KC)]                            # whole tiles, two K slices


@pytest.mark.parametrize("m,n,k", SIZES)
@pytest.mark.parametrize("a_layout", ["rows", "cols", "strided"])
@pytest.mark.parametrize("b_layout", ["rows", "cols", "strided"])
def test_product_matches_numpy(gemm, m, n, k, a_layout, b_layout):
    rng = np.random.default_rng(m * 1000 + n + k)
    a, b = _operand(rng, m, k, a_layout), _operand(rng, k, n, b_layout)
    c = np.full((m, n), np.nan, np.float32)      # beta = 0: C is never read
    gemm(a, b, c, 1.0, 0.0)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))


@pytest.mark.parametrize("alpha,beta", [(-0.25, 1.0), (2.0, 0.5), (1.0, -1.0)])
@pytest.mark.parametrize("m,n,k", [(13, 50, 300), (64, 96, 32)])
def test_alpha_and_beta(gemm, alpha, beta, m, n, k):
    rng = np.random.default_rng(3)
    a, b = _operand(rng, m, k, "rows"), _operand(rng, k, n, "cols")
    c0 = rng.standard_normal((m, n)).astype(np.float32)
    c = c0.copy()
    gemm(a, b, c, alpha, beta)
    want = alpha * (a.astype(np.float64) @ b) + beta * c0.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("m,n,k", [(13, 50, 300), (64, 96, 1100)])
def test_beta_term_read_from_a_separate_x(gemm, m, n, k):
    """A folded epilogue: C = alpha * A @ B + beta * X with X elsewhere (C garbage on
    entry, X untouched), over one or several K slices."""
    rng = np.random.default_rng(6)
    a, b = _operand(rng, m, k, "rows"), _operand(rng, k, n, "rows")
    x = rng.standard_normal((m, n)).astype(np.float32)
    x0 = x.copy()
    c = np.full((m, n), np.nan, np.float32)
    gemm(a, b, c, -0.5, 0.75, x=x)
    want = -0.5 * (a.astype(np.float64) @ b) + 0.75 * x0.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(x, x0)


def test_writes_only_its_tile_of_a_bigger_c(gemm):
    """C with a row stride larger than n (a block of a bigger product): nothing outside
    the m x n window changes."""
    rng = np.random.default_rng(4)
    big = np.full((40, 120), 7.0, np.float32)
    window = big[3:33, 10:81]
    a, b = _operand(rng, 30, 20, "rows"), _operand(rng, 20, 71, "rows")
    gemm(a, b, window, 1.0, 0.0)
    np.testing.assert_allclose(window, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    outside = np.ones(big.shape, bool)
    outside[3:33, 10:81] = False
    assert (big[outside] == 7.0).all()


def test_nan_and_inf_propagate(gemm):
    a = np.ones((8, 4), np.float32)
    b = np.ones((4, 48), np.float32)
    a[2, 1], b[3, 5] = np.nan, np.inf
    c = np.zeros((8, 48), np.float32)
    gemm(a, b, c, 1.0, 0.0)
    assert np.isnan(c[2]).all()
    assert np.isposinf(np.delete(c[:, 5], 2)).all()
    assert (c[0, :5] == 4.0).all()


def test_kernel_uses_512_bit_fmas():
    asm = target.assembly(sgemm.kernel_ir())
    assert "vfmadd231ps\t%zmm" in asm or "vfmadd231ps %zmm" in asm
