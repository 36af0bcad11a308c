"""Window reductions and the max-pool gradient's select primitives lower to fused
kernels for every window geometry: tiled pooling windows as reshape + reduce (the
selection as compares and selects), any other window (overlapping, strided, padded,
dilated) as gathers of constant window tables (``primitives/window_gather.py``).
Against the reference interpreter, with ties, NaN and signed zeros, which pick the first
offset as XLA's select does."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.primitives.test_reduce_window import CASES, _params, np_reduce_window
from tjit import lax

WINDOWS = [((1, 2, 2, 1), (2, 6, 8, 3)), ((3, 1), (9, 5)), ((2, 2, 2), (4, 6, 2))]


def _tricky(shape, seed=0):
    """Values on a coarse grid (many ties), some signed zeros and a few NaNs."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-2, 3, shape).astype(np.float32)
    x[rng.random(shape) < 0.2] = -0.0
    x[rng.random(shape) < 0.05] = np.nan
    return x


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)            # NaN positions included
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("window,shape", WINDOWS)
@pytest.mark.parametrize("kind", ["max", "min", "sum"])
def test_tiled_reduce_window_matches_interpreter(window, shape, kind):
    comp, init = {"max": (lax.max, -np.inf), "min": (lax.min, np.inf),
                  "sum": (lax.add, 0.0)}[kind]

    def f(x):
        return lax.reduce_window(x, init, comp, window, window, "VALID")
    x = _tricky(shape)
    _same(tjit.jit(f)(x), tjit.jit(f, backend="interpreter")(x))
    assert ("library", f"reduce_window_{kind}") not in \
        tjit.jit(f).lower(x).compile().fusion_summary()


@pytest.mark.parametrize("window,shape", WINDOWS)
@pytest.mark.parametrize("select_prim", ["ge", "le"])
def test_tiled_select_and_scatter_matches_interpreter(window, shape, select_prim):
    x = _tricky(shape, 1)
    out_shape = tuple(d // w for d, w in zip(shape, window))
    src = np.random.default_rng(2).standard_normal(out_shape).astype(np.float32)

    def f(s, x):
        return lax.select_and_scatter_add(s, x, select_prim, window, window,
                                          ((0, 0),) * len(shape))
    _same(tjit.jit(f)(src, x), tjit.jit(f, backend="interpreter")(src, x))
    assert ("library", "select_and_scatter_add") not in \
        tjit.jit(f).lower(src, x).compile().fusion_summary()
    xi = (np.arange(x.size).reshape(shape) % 3).astype(np.int32)   # integer ties
    si = (src * 10).astype(np.int32)
    _same(tjit.jit(f)(si, xi), tjit.jit(f, backend="interpreter")(si, xi))


def test_max_pool_gradient_matches_interpreter():
    x = _tricky((2, 8, 8, 3), 3)
    x = np.where(np.isnan(x), 1.0, x).astype(np.float32)   # finite: a gradient to compare
    w = np.random.default_rng(4).standard_normal((2, 4, 4, 3)).astype(np.float32)

    def loss(x):
        return jnp.sum(lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                                         "VALID") * w)
    _same(tjit.jit(tjit.grad(loss))(x), tjit.jit(tjit.grad(loss), backend="interpreter")(x))


def test_untiled_windows_still_run():
    x = _tricky((2, 7, 7, 3))   # 7 is not a multiple of 2: gathered, not tiled

    def f(x):
        return lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    _same(tjit.jit(f)(x), tjit.jit(f, backend="interpreter")(x))


def _library_steps(fn, *args):
    return [name for kind, name in tjit.jit(fn).lower(*args).compile().fusion_summary()
            if kind == "library"]


# test_reduce_window's geometries, and windowed dims apart (gathered through a transpose)
GEOMETRIES = CASES + [("windowed dims apart", (5, 4, 6, 3), (2, 1, 3, 1), (2, 1, 1, 1),
                       ((1, 0), (0, 0), (1, 1), (0, 0)), None, (1, 1, 2, 1))]


@pytest.mark.parametrize("case", GEOMETRIES, ids=lambda c: c[0])
def test_every_window_geometry_compiles_to_kernels(case):
    """Each geometry of test_reduce_window's table (overlapping, strided, padded,
    negatively padded, base- and window-dilated, 1-d): the three reductions, both select
    primitives and max pooling's gradient run as kernels, no library step, and give the
    interpreter's values bit for bit on ties, NaNs and signed zeros (integers too)."""
    p = _params(case)
    x = _tricky(case[1], 7)
    xi = (np.arange(x.size).reshape(x.shape) % 3).astype(np.int32)   # integer ties
    out_shape = np_reduce_window(np.zeros(case[1]), 0.0, np.sum, *p).shape
    rng = np.random.default_rng(8)
    src = rng.standard_normal(out_shape).astype(np.float32)
    t = rng.standard_normal(case[1]).astype(np.float32)
    for kind, (comp, init) in {"max": (lax.max, -np.inf), "min": (lax.min, np.inf),
                               "sum": (lax.add, 0.0)}.items():
        def f(x, comp=comp, init=init):
            return lax.reduce_window(x, x.dtype.type(init) if x.dtype.kind == "f" else
                                     {"max": np.iinfo(np.int32).min, "min":
                                      np.iinfo(np.int32).max, "sum": 0}[kind], comp, *p)
        for operand in (x, xi):
            _same(tjit.jit(f)(operand), tjit.jit(f, backend="interpreter")(operand))
        assert _library_steps(f, x) == []
    for sel in ("ge", "le"):
        def scatter(s, x, sel=sel):
            return lax.select_and_scatter_add(s, x, sel, *p)

        def gather(t, x, sel=sel):
            return lax.select_and_gather_add(t, x, sel, *p)
        # several windows add into one element: the sums' order may differ by an ulp
        np.testing.assert_allclose(tjit.jit(scatter)(src, x),
                                   tjit.jit(scatter, backend="interpreter")(src, x),
                                   rtol=1e-6, atol=1e-6)
        _same(tjit.jit(scatter)((src * 10).astype(np.int32), xi),
              tjit.jit(scatter, backend="interpreter")((src * 10).astype(np.int32), xi))
        _same(tjit.jit(gather)(t, x), tjit.jit(gather, backend="interpreter")(t, x))
        assert _library_steps(scatter, src, x) == [] and _library_steps(gather, t, x) == []


def test_overlapping_max_pool_gradient_per_example():
    """vmap(grad) of a stride-1 2x2 max pool (stax.MaxPool((2, 2), (1, 1)), DP-SGD's
    per-example gradients) against a Python loop of float64 NumPy gradients: the first
    maximum of each window receives its cotangent."""
    rng = np.random.default_rng(9)
    xs = rng.permutation(5 * 6 * 6 * 3).reshape(5, 1, 6, 6, 3).astype(np.float32) * 0.5
    w = rng.standard_normal((1, 5, 5, 3)).astype(np.float32)

    def loss(x):
        return jnp.sum(lax.reduce_window(x, -np.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1),
                                         "VALID") * w)
    got = np.asarray(tjit.jit(tjit.vmap(tjit.grad(loss)))(xs))
    for x, g in zip(xs, got):
        want = np.zeros(x.shape)
        for i, j, c in np.ndindex(5, 5, 3):
            win = x[0, i:i + 2, j:j + 2, c].astype(np.float64)
            a, b = np.unravel_index(np.argmax(win), win.shape)
            want[0, i + a, j + b, c] += w[0, i, j, c]
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6)


def _np_window_reduce(x, window, kind):
    """NumPy float64 reference, stride 1, VALID; a zero max is +0 when any +0 is in the
    window (a zero min -0 when any -0 is)."""
    v = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), window)
    axes = tuple(range(x.ndim, 2 * x.ndim))
    if kind == "sum":
        return v.sum(axis=axes)
    r = (v.max if kind == "max" else v.min)(axis=axes)
    pos_zero = ((v == 0) & ~np.signbit(v)).any(axis=axes)
    neg_zero = ((v == 0) & np.signbit(v)).any(axis=axes)
    neg = ~pos_zero if kind == "max" else neg_zero
    return np.where(r == 0, np.where(neg, -0.0, 0.0), r)


@pytest.mark.parametrize("kind", ["max", "min", "sum"])
def test_large_overlapping_windows_against_numpy(kind):
    """More than ``FOLD_MAX_OFFSETS`` offsets: one reduction over the window view."""
    comp, init = {"max": (lax.max, -np.inf), "min": (lax.min, np.inf),
                  "sum": (lax.add, 0.0)}[kind]
    x = _tricky((3, 9, 8), 5)
    x[0, 0, 0] = np.nan
    window = (1, 5, 4)   # 20 offsets

    def f(x):
        return lax.reduce_window(x, init, comp, window, (1, 1, 1), "VALID")
    want = _np_window_reduce(x, window, kind)
    for got in (f(x), tjit.jit(f)(x)):
        got = np.asarray(got)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        if kind != "sum":
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
