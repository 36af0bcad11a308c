"""tjit.numpy miscellaneous functions vs NumPy (where/select/clip, comparisons,
convolution, interpolation, counting, statistics, sets, index conversions), each also
under ``tjit.jit`` where its output size is static, plus error messages."""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import ConcretizationTypeError


def _close(got, want, rtol=1e-5, atol=1e-6, dtype=None):
    assert isinstance(got, tjit.Array), type(got)
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    if dtype is not None:
        assert got.dtype == np.dtype(dtype), f"dtype {got.dtype} != {dtype}"
    if want.dtype == bool or np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _check(jfn, npfn, *arrays, rtol=1e-5, atol=1e-6, jit=True):
    """Eager vs NumPy, then jit vs eager; ``jfn`` takes only array arguments."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = npfn(*arrays)
    got = jfn(*[jnp.asarray(a) for a in arrays])
    outs = got if isinstance(got, (tuple, list)) else (got,)
    wants = want if isinstance(want, (tuple, list)) else (want,)
    assert len(outs) == len(wants)
    for g, w in zip(outs, wants):
        _close(g, w, rtol, atol)
    if jit:
        j = tjit.jit(jfn)(*[jnp.asarray(a) for a in arrays])
        for jj, g in zip(j if isinstance(j, (tuple, list)) else (j,), outs):
            assert jj.dtype == g.dtype
            _close(jj, g, 1e-6, 1e-6)
    return got


def _rand(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, shape).astype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    return rng.standard_normal(shape).astype(dtype)


# -- where / select / clip --------------------------------------------------------------------
@pytest.mark.parametrize("cshape,xshape,yshape", [((4,), (4,), (4,)), ((3, 1), (1, 4), ()),
                                                  ((), (2, 3), (2, 3)), ((0,), (0,), ())])
def test_where_three_args(cshape, xshape, yshape):
    c = _rand(cshape, np.bool_)
    x, y = _rand(xshape, seed=1), _rand(yshape, np.int32, seed=2)
    got = _check(jnp.where, np.where, c, x, y)
    assert got.dtype == np.float32
    # integer conditions count as bools; Python scalars are weak
    _close(jnp.where(jnp.asarray([0, 2, -1]), 1.5, 2), np.where([0, 2, -1], 1.5, 2.0),
           dtype=np.float32)
    assert jnp.where(jnp.asarray([True]), jnp.ones(1, jnp.float16), 0).dtype == np.float16


def test_where_one_arg_is_nonzero():
    x = np.array([[0, 3, 0], [4, 0, 5]], np.int32)
    got = jnp.where(x)
    for g, w in zip(got, np.nonzero(x)):
        _close(g, w, dtype=np.int32)
    with pytest.raises(ConcretizationTypeError, match="pass size="):
        tjit.jit(lambda a: jnp.where(a))(x)
    with pytest.raises(ValueError, match="both or neither"):
        jnp.where(x, 1)


@pytest.mark.parametrize("size,fill", [(3, None), (8, None), (8, -1), (2, (7, 9))])
def test_where_one_arg_with_size(size, fill):
    x = np.array([[0, 3, 0], [4, 0, 5], [1, 0, 0]], np.int32)
    idx = np.nonzero(x)
    fills = (0, 0) if fill is None else np.broadcast_to(fill, (2,))
    want = [np.concatenate([i[:size], np.full(max(0, size - i.size), f)]) for i, f in
            zip(idx, fills)]
    f = tjit.jit(lambda a: jnp.where(a, size=size, fill_value=fill))
    for g, w in zip(f(x), want):
        _close(g, w)
    for g, w in zip(jnp.where(x, size=size, fill_value=fill), want):
        _close(g, w)


def test_select():
    x = _rand((5,), seed=3)
    conds = [x < -0.5, x > 0.5, np.abs(x) < 0.1]
    choices = [x * 2, np.ones(5, np.float32), -x]
    _check(lambda a, b, c, d, e, f: jnp.select([a, b, c], [d, e, f], -7.0),
           lambda a, b, c, d, e, f: np.select([a, b, c], [d, e, f], -7.0),
           *conds, *choices)
    with pytest.raises(ValueError, match="same length"):
        jnp.select([jnp.asarray([True])], [])
    with pytest.raises(TypeError, match="must be boolean"):
        jnp.select([jnp.asarray([1])], [jnp.asarray([2])])


@pytest.mark.parametrize("lo,hi", [(-0.5, 0.5), (None, 0.0), (0.0, None), (1.0, -1.0)])
def test_clip(lo, hi):
    x = _rand((3, 4))
    x[0, 0] = np.nan
    _check(lambda a: jnp.clip(a, lo, hi), lambda a: np.clip(a, lo, hi), x)
    _check(lambda a: jnp.clip(a, a_min=lo, a_max=hi), lambda a: np.clip(a, lo, hi), x)
    _check(lambda a: a.clip(lo, hi), lambda a: np.clip(a, lo, hi), x)


def test_clip_arrays_and_ints():
    x = _rand((3, 4), np.int32)
    lo, hi = _rand((4,), np.int32, 1) - 2, _rand((3, 1), np.int32, 2) + 3
    got = _check(lambda a, b, c: jnp.clip(a, b, c), np.clip, x, lo, hi)
    assert got.dtype == np.int32
    assert jnp.clip(jnp.asarray(x), 0.5, 2).dtype == np.float32  # promotes as a ufunc would
    with pytest.raises(TypeError, match="min or a_min"):
        jnp.clip(x, 0, a_min=1)


# -- comparisons ------------------------------------------------------------------------------
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_allclose(equal_nan):
    a = np.array([1.0, 1.0, np.inf, np.inf, -np.inf, np.nan, np.nan, 0.0, 1e-9, 100.0],
                 np.float32)
    b = np.array([1.0 + 1e-6, 1.1, np.inf, -np.inf, -np.inf, np.nan, 1.0, 1e-9, 0.0, 100.001],
                 np.float32)
    _check(lambda x, y: jnp.isclose(x, y, equal_nan=equal_nan),
           lambda x, y: np.isclose(x, y, equal_nan=equal_nan), a, b)
    _check(lambda x, y: jnp.isclose(x, y, rtol=0.2, atol=0.0),
           lambda x, y: np.isclose(x, y, rtol=0.2, atol=0.0), a, b)
    assert bool(jnp.allclose(a[:3], a[:3])) and not bool(jnp.allclose(a, b))
    assert bool(jnp.allclose(a, a, equal_nan=True)) and not bool(jnp.allclose(a, a))
    ints = np.array([1, 5, 100000000]), np.array([1, 6, 100000001])
    _close(jnp.isclose(*ints), np.isclose(*ints))
    z = np.array([1 + 1j, 2 - 1j], np.complex64)
    _close(jnp.isclose(z, z + 1e-7), np.isclose(z, z + 1e-7))


def test_array_equal_equiv():
    a = np.array([[1.0, np.nan], [2.0, 3.0]], np.float32)
    assert bool(jnp.array_equal(a, a.copy(), equal_nan=True))
    assert not bool(jnp.array_equal(a, a.copy()))
    assert not bool(jnp.array_equal(a, a[0]))
    assert bool(jnp.array_equal(np.arange(3), np.arange(3.0)))
    assert bool(jnp.array_equiv(np.ones(3), np.ones((2, 3))))
    assert not bool(jnp.array_equiv(np.ones(3), np.ones((2, 4))))
    assert jnp.array_equal(a, a).dtype == np.bool_
    f = tjit.jit(lambda x, y: jnp.array_equal(x, y))
    assert bool(f(a[1], a[1])) and not bool(f(a[1], a[1] + 1))


def test_iscomplexobj_isrealobj_nan_to_num():
    assert jnp.iscomplexobj(jnp.ones(2, jnp.complex64)) and not jnp.iscomplexobj(jnp.ones(2))
    assert jnp.isrealobj(np.ones(2)) and not jnp.isrealobj(1j)
    x = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    _check(jnp.nan_to_num, np.nan_to_num, x)
    _check(lambda a: jnp.nan_to_num(a, nan=-1.0, posinf=9.0, neginf=-9.0),
           lambda a: np.nan_to_num(a, nan=-1.0, posinf=9.0, neginf=-9.0), x)
    z = np.array([complex(np.nan, np.inf), 1 + 2j], np.complex64)
    _check(jnp.nan_to_num, np.nan_to_num, z)
    _close(jnp.nan_to_num(np.arange(3)), np.arange(3))


# -- convolution ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("m", [1, 3, 4, 9])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(n, m, mode, x64):
    a, v = _rand((n,), np.float64, 1), _rand((m,), np.float64, 2)
    _check(lambda x, y: jnp.convolve(x, y, mode), lambda x, y: np.convolve(x, y, mode), a, v,
           rtol=1e-12, atol=1e-12)
    _check(lambda x, y: jnp.correlate(x, y, mode), lambda x, y: np.correlate(x, y, mode), a, v,
           rtol=1e-12, atol=1e-12)


def test_convolve_dtypes_complex_and_errors():
    a, v = np.array([1, 2, 3], np.int32), np.array([0, 1, 2], np.int32)
    # JAX: integer and bool inputs convolve to the default float unless
    # preferred_element_type says otherwise
    for f in (jnp.convolve, jnp.correlate):
        want = getattr(np, f.__name__)(a, v, "full")
        _close(f(a, v, "full"), want, dtype=np.float32)
        _close(f(a, v, "full", preferred_element_type=jnp.int32), want, dtype=np.int32)
        _close(tjit.jit(lambda x, y: f(x, y, "same"))(a, v),
               getattr(np, f.__name__)(a, v, "same"), dtype=np.float32)
        b = np.array([True, False, True])
        _close(f(b, b, "full"), getattr(np, f.__name__)(b.astype(int), b.astype(int), "full"),
               dtype=np.float32)
    _close(jnp.convolve(a, v.astype(np.float16)), np.convolve(a, v), dtype=np.float16)
    z = (_rand((5,), seed=1) + 1j * _rand((5,), seed=2)).astype(np.complex64)
    w = (_rand((3,), seed=3) - 1j * _rand((3,), seed=4)).astype(np.complex64)
    for mode in ("full", "same", "valid"):
        _check(lambda x, y: jnp.correlate(x, y, mode), lambda x, y: np.correlate(x, y, mode),
               z, w)
    with pytest.raises(ValueError, match="only 1-D inputs"):
        jnp.convolve(jnp.ones((2, 2)), jnp.ones(2))
    with pytest.raises(ValueError, match="cannot be empty"):
        jnp.convolve(jnp.ones(0), jnp.ones(2))
    with pytest.raises(ValueError, match="mode must be"):
        jnp.convolve(jnp.ones(3), jnp.ones(2), "circular")


# -- interpolation, cross, polynomials --------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"left": -1.0}, {"right": 9.0}, {"left": 0.0, "right": 0.0}])
def test_interp(kw):
    x = np.linspace(-1, 6, 23).astype(np.float32)
    xp = np.array([0.0, 1.0, 1.5, 3.0, 5.0], np.float32)
    fp = np.array([1.0, 3.0, -2.0, 0.5, 4.0], np.float32)
    _check(lambda a, b, c: jnp.interp(a, b, c, **kw), lambda a, b, c: np.interp(a, b, c, **kw),
           x, xp, fp)
    x2 = np.concatenate([xp, [np.nan]]).astype(np.float32).reshape(2, 3)
    _check(lambda a, b, c: jnp.interp(a, b, c, **kw), lambda a, b, c: np.interp(a, b, c, **kw),
           x2, xp, fp)


def test_interp_period_and_errors():
    x = np.linspace(-400, 400, 17)
    xp = np.array([190.0, -190.0, 350.0, -350.0])
    fp = np.array([5.0, 10.0, 3.0, 4.0])
    _check(lambda a, b, c: jnp.interp(a, b, c, period=360),
           lambda a, b, c: np.interp(a, b, c, period=360), x, xp, fp, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="same non-zero length"):
        jnp.interp(jnp.ones(2), jnp.ones(3), jnp.ones(2))


@pytest.mark.parametrize("ashape,bshape,kw", [((3,), (3,), {}), ((4, 3), (3,), {}),
                                              ((2, 1, 3), (4, 3), {}), ((3, 4), (3, 4),
                                                                        {"axis": 0}),
                                              ((3, 2), (2, 3), {"axisa": 0, "axisc": 0}),
                                              ((5, 2), (5, 3), {})])
def test_cross(ashape, bshape, kw):
    a, b = _rand(ashape, seed=1), _rand(bshape, seed=2)
    _check(lambda x, y: jnp.cross(x, y, **kw), lambda x, y: np.cross(x, y, **kw), a, b)


def test_cross_2d_vectors_and_errors():
    a, b = _rand((4, 2), seed=1), _rand((4, 2), seed=2)
    want = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    _check(jnp.cross, lambda x, y: want, a, b)
    with pytest.raises(ValueError, match="must be 2 or 3"):
        jnp.cross(jnp.ones(4), jnp.ones(3))


@pytest.mark.parametrize("p", [[3.0], [1.0, -2.0, 0.5], [2, 0, 1, 4]])
def test_polyval(p):
    x = _rand((2, 3), seed=5)
    p = np.asarray(p, np.float32 if isinstance(p[0], float) else np.int32)
    _check(jnp.polyval, np.polyval, p, x, rtol=1e-5)


@pytest.mark.parametrize("n,increasing", [(None, False), (4, True), (2, False), (0, False)])
def test_vander(n, increasing):
    x = np.array([1.5, -2.0, 3.0, 0.5], np.float32)
    _check(lambda a: jnp.vander(a, n, increasing), lambda a: np.vander(a, n, increasing), x)
    xi = np.array([2, 3, -1], np.int32)
    _close(jnp.vander(xi, n, increasing), np.vander(xi, n, increasing), dtype=np.int32)


@pytest.mark.parametrize("shape,axis,with_x", [((6,), -1, False), ((4, 5), 0, False),
                                               ((4, 5), 1, True), ((3, 4, 5), -1, True)])
def test_trapezoid(shape, axis, with_x):
    y = _rand(shape)
    if with_x:
        x = np.sort(_rand((shape[axis],), seed=3))
        _check(lambda a, b: jnp.trapezoid(a, b, axis=axis),
               lambda a, b: np.trapezoid(a, b, axis=axis), y, x)
    else:
        _check(lambda a: jnp.trapezoid(a, dx=0.5, axis=axis),
               lambda a: np.trapezoid(a, dx=0.5, axis=axis), y)
    assert jnp.trapz is jnp.trapezoid


# -- gradient / unwrap / piecewise ------------------------------------------------------------
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(edge_order, x64):
    f1 = _rand((7,), np.float64)
    _check(lambda a: jnp.gradient(a, edge_order=edge_order),
           lambda a: np.gradient(a, edge_order=edge_order), f1, rtol=1e-12)
    _check(lambda a: jnp.gradient(a, 0.3, edge_order=edge_order),
           lambda a: np.gradient(a, 0.3, edge_order=edge_order), f1, rtol=1e-12)
    xs = np.cumsum(np.abs(_rand((7,), np.float64, 4)) + 0.1)
    _check(lambda a, b: jnp.gradient(a, b, edge_order=edge_order),
           lambda a, b: np.gradient(a, b, edge_order=edge_order), f1, xs, rtol=1e-10)
    f2 = _rand((4, 5), np.float64, 2)
    _check(lambda a: jnp.gradient(a, edge_order=edge_order),
           lambda a: tuple(np.gradient(a, edge_order=edge_order)), f2, rtol=1e-12)
    _check(lambda a: jnp.gradient(a, 2.0, axis=1, edge_order=edge_order),
           lambda a: np.gradient(a, 2.0, axis=1, edge_order=edge_order), f2, rtol=1e-12)
    _check(lambda a: jnp.gradient(a, 1.0, 0.5, edge_order=edge_order),
           lambda a: tuple(np.gradient(a, 1.0, 0.5, edge_order=edge_order)), f2, rtol=1e-12)


def test_gradient_errors_and_ints():
    _close(jnp.gradient(np.array([1, 4, 9, 16])), np.gradient(np.array([1, 4, 9, 16])))
    with pytest.raises(ValueError, match="too small"):
        jnp.gradient(jnp.ones(2), edge_order=2)


@pytest.mark.parametrize("axis", [1, (1,), [1], (0, 1)])
def test_gradient_result_is_an_array_for_one_axis(axis):
    # NumPy and JAX return the array, not a 1-tuple, for a one-entry axis tuple or list
    # (a 2-D array with axis=(1,) came back as a tuple)
    f2 = np.arange(12.0).reshape(3, 4) ** 2
    got, want = jnp.gradient(f2, axis=axis), np.gradient(f2, axis=axis)
    assert isinstance(got, tuple) == isinstance(want, tuple)
    for g, w in zip(got if isinstance(got, tuple) else [got],
                    want if isinstance(want, tuple) else [want]):
        _close(g, w)


@pytest.mark.parametrize("kw", [{}, {"discont": 4.0}, {"period": 6.0}, {"axis": 0}])
def test_unwrap(kw):
    p = np.cumsum(_rand((5, 6), seed=7) * 2.5, axis=-1 if "axis" not in kw else 0)
    wrapped = np.mod(p + np.pi, 2 * np.pi) - np.pi
    _check(lambda a: jnp.unwrap(a, **kw), lambda a: np.unwrap(a, **kw), wrapped.astype(np.float32),
           rtol=1e-4, atol=1e-4)


def test_piecewise():
    x = np.linspace(-2, 2, 9).astype(np.float32)
    _check(lambda a: jnp.piecewise(a, [a < 0, a > 1], [lambda t: -t, lambda t: t * t, 0.5]),
           lambda a: np.piecewise(a, [a < 0, a > 1], [lambda t: -t, lambda t: t * t, 0.5]), x)
    _check(lambda a: jnp.piecewise(a, [a < 0, a >= 0], [-1, 1]),
           lambda a: np.piecewise(a, [a < 0, a >= 0], [-1, 1]), x)
    with pytest.raises(ValueError, match="functions are expected"):
        jnp.piecewise(x, [x < 0], [1, 2, 3])


# -- counting ---------------------------------------------------------------------------------
@pytest.mark.parametrize("minlength", [0, 3, 12])
@pytest.mark.parametrize("weighted", [False, True])
def test_bincount(minlength, weighted):
    x = np.array([0, 1, 1, 3, 7, 3, 3], np.int32)
    w = _rand((7,), seed=2)
    args = (x, w) if weighted else (x,)
    got = jnp.bincount(*args, minlength=minlength)
    _close(got, np.bincount(*args, minlength=minlength),
           dtype=np.float32 if weighted else np.int32)
    n = max(8, minlength)
    f = tjit.jit(lambda *a: jnp.bincount(*a, length=n))
    _close(f(*args), np.bincount(*args, minlength=minlength))


def test_bincount_errors_and_jax_rules():
    with pytest.raises(ConcretizationTypeError, match="pass length="):
        tjit.jit(jnp.bincount)(np.array([1, 2]))
    with pytest.raises(TypeError, match="integer dtype"):
        jnp.bincount(jnp.ones(3))
    with pytest.raises(ValueError, match="only 1-D"):
        jnp.bincount(jnp.ones((2, 2), jnp.int32))
    # as JAX: values past `length` are dropped, negative values count as 0
    _close(jnp.bincount(np.array([0, 5, 1, -2]), length=3), np.array([2, 1, 0]))
    _close(jnp.bincount(np.array([], np.int32)), np.bincount(np.array([], np.int64)))


@pytest.mark.parametrize("kw", [{}, {"bins": 4}, {"bins": 5, "range": (-1.0, 1.0)},
                                {"density": True}, {"bins": [-3.0, -1.0, 0.0, 0.5, 3.0]},
                                {"weights": True}, {"bins": 3, "weights": True,
                                                    "density": True}])
def test_histogram(kw):
    a = _rand((40,), seed=11)
    a[:3] = [a.max(), a.min(), 5.0]
    kw = dict(kw)
    args = (a,)
    if kw.pop("weights", False):
        w = np.abs(_rand((40,), seed=12))
        args = (a, w)

    def j(x, *ww):
        return jnp.histogram(x, weights=ww[0] if ww else None, **kw)

    def n(x, *ww):
        return np.histogram(x, weights=ww[0] if ww else None, **kw)

    _check(j, n, *args, rtol=1e-5, atol=1e-6)


def test_histogram_edges_constant_and_int_data():
    _close(jnp.histogram_bin_edges(np.full(4, 2.0), 2), np.histogram_bin_edges(np.full(4, 2.0),
                                                                               2))
    got, edges = jnp.histogram(np.array([1, 2, 2, 3, 9]), bins=4)
    want, wedges = np.histogram(np.array([1, 2, 2, 3, 9]), bins=4)
    _close(got, want)
    assert got.dtype == np.float32  # counts are floats, as in JAX
    _close(edges, wedges)
    # NumPy's bin estimators work on concrete data (tests/numpy/test_fft_poly_hunt.py)
    _close(jnp.histogram(np.ones(3), bins="auto")[0], np.histogram(np.ones(3), bins="auto")[0])


@pytest.mark.parametrize("bins", [[0.0, 1.0, 2.5, 4.0], [4.0, 2.5, 1.0, 0.0], [1.0]])
@pytest.mark.parametrize("right", [False, True])
def test_digitize(bins, right):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 3.0, 4.0, 7.0, np.nan], np.float32)
    b = np.asarray(bins, np.float32)
    _check(lambda a, bb: jnp.digitize(a, bb, right), lambda a, bb: np.digitize(a, bb, right),
           x, b)


# -- statistics -------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"rowvar": False}, {"bias": True}, {"ddof": 0},
                                {"ddof": 2}, {"fweights": True}, {"aweights": True},
                                {"fweights": True, "aweights": True},
                                {"aweights": True, "ddof": 0}])
def test_cov(kw, x64):
    m = _rand((3, 6), np.float64)
    kw = dict(kw)
    extra = {}
    if kw.pop("fweights", False):
        extra["fweights"] = np.array([1, 2, 1, 3, 1, 1])
    if kw.pop("aweights", False):
        extra["aweights"] = np.array([0.5, 1.0, 2.0, 1.0, 0.25, 1.0])
    if kw.get("rowvar") is False:
        m = m.T
        extra = {}
    names = list(extra)

    def j(x, *w):
        return jnp.cov(x, **kw, **dict(zip(names, w)))

    def n(x, *w):
        return np.cov(x, **kw, **dict(zip(names, w)))

    _check(j, n, m, *extra.values(), rtol=1e-12, atol=1e-12)


def test_cov_shapes_and_corrcoef():
    x, y = _rand((5,), seed=1), _rand((5,), seed=2)
    _check(jnp.cov, np.cov, x)
    _check(lambda a, b: jnp.cov(a, b), np.cov, x, y)
    m = _rand((4, 8), seed=3)
    _check(jnp.corrcoef, np.corrcoef, m)
    _check(lambda a: jnp.corrcoef(a, rowvar=False), lambda a: np.corrcoef(a, rowvar=False),
           m.T)
    _check(lambda a, b: jnp.corrcoef(a, b), np.corrcoef, x, y)
    z = (m + 1j * _rand((4, 8), seed=4)).astype(np.complex64)
    _check(jnp.cov, np.cov, z)
    _check(jnp.corrcoef, np.corrcoef, z)
    with pytest.raises(ValueError, match="more than 2 dimensions"):
        jnp.cov(jnp.ones((2, 2, 2)))


# -- sets ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("invert", [False, True])
def test_isin(invert):
    e = _rand((3, 4), np.int32)
    t = np.array([[0, 2], [-5, 9]], np.int32)
    _check(lambda a, b: jnp.isin(a, b, invert=invert), lambda a, b: np.isin(a, b, invert=invert),
           e, t)
    _check(lambda a, b: jnp.in1d(a, b, invert=invert),
           lambda a, b: np.isin(a.ravel(), b, invert=invert), e, t)
    _close(jnp.isin(np.ones(2), np.ones(0)), np.isin(np.ones(2), np.ones(0)))


def test_set_operations():
    a = np.array([5, 1, 3, 3, 9, 1], np.int32)
    b = np.array([3, 4, 9, 9], np.int32)
    _close(jnp.setdiff1d(a, b), np.setdiff1d(a, b), dtype=np.int32)
    _close(jnp.union1d(a, b), np.union1d(a, b), dtype=np.int32)
    _close(jnp.intersect1d(a, b), np.intersect1d(a, b), dtype=np.int32)
    got = jnp.intersect1d(a, b, return_indices=True)
    for g, w in zip(got, np.intersect1d(a, b, return_indices=True)):
        _close(g, w)
    _close(jnp.setdiff1d(a, b, size=5), np.array([1, 5, 0, 0, 0]))
    _close(jnp.setdiff1d(a, b, size=1), np.array([1]))
    _close(jnp.union1d(a, b, size=8, fill_value=-1), np.array([1, 3, 4, 5, 9, -1, -1, -1]))
    _close(jnp.intersect1d(a, b, size=4), np.array([3, 9, 3, 3]))
    _close(jnp.union1d(a, np.array([0.5])), np.union1d(a, [0.5]), dtype=np.float32)
    with pytest.raises(ConcretizationTypeError, match="outside jit"):
        tjit.jit(jnp.union1d)(a, b)


# -- index conversions --------------------------------------------------------------------------
@pytest.mark.parametrize("dims,order", [((3, 4), "C"), ((3, 4), "F"), ((2, 3, 5), "C"),
                                        ((7,), "C")])
def test_ravel_unravel_roundtrip(dims, order):
    rng = np.random.default_rng(0)
    coords = tuple(rng.integers(0, d, 6).astype(np.int32) for d in dims)
    _check(lambda *c: jnp.ravel_multi_index(c, dims, order=order),
           lambda *c: np.ravel_multi_index(c, dims, order=order), *coords, jit=False)
    _check(lambda *c: jnp.ravel_multi_index(c, dims, mode="clip", order=order),
           lambda *c: np.ravel_multi_index(c, dims, order=order), *coords)
    flat = rng.integers(0, int(np.prod(dims)), (2, 3)).astype(np.int32)
    _check(lambda f: jnp.unravel_index(f, dims), lambda f: np.unravel_index(f, dims), flat)


def test_ravel_multi_index_modes():
    c = (np.array([-1, 3, 5]), np.array([0, 7, 2]))
    for mode in ("wrap", "clip"):
        _check(lambda a, b: jnp.ravel_multi_index((a, b), (3, 4), mode=mode),
               lambda a, b: np.ravel_multi_index((a, b), (3, 4), mode=mode), *c)
    with pytest.raises(ValueError, match="invalid entry in coordinates"):
        jnp.ravel_multi_index(c, (3, 4))
    with pytest.raises(ConcretizationTypeError, match="mode='wrap'"):
        tjit.jit(lambda a, b: jnp.ravel_multi_index((a, b), (3, 4)))(*c)


def test_unravel_index_clips_like_jax():
    got = jnp.unravel_index(np.array([-1, 12, 100, -100]), (3, 4))
    # -1 counts from the end; 12 and 100 clip to the last element, -100 to the first
    _close(got[0], np.array([2, 2, 2, 0]))
    _close(got[1], np.array([3, 3, 3, 0]))
    scalar = jnp.unravel_index(5, (2, 3))
    assert [int(s) for s in scalar] == [1, 2]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.int32])
@pytest.mark.parametrize("compiled", [False, True])
def test_unravel_index_keeps_the_indices_dtype_and_weak_type(dtype, compiled):
    """As JAX: the coordinates have the indices' dtype (and a Python int's weak type);
    the values are NumPy's for in-range indices, and clipped (JAX's rule) beyond."""
    flat = np.array([0, 5, 11, 12, 100], dtype)
    f = tjit.jit(lambda i: jnp.unravel_index(i, (3, 4))) if compiled else \
        (lambda i: jnp.unravel_index(i, (3, 4)))
    got = f(flat)
    want = np.unravel_index(np.minimum(flat.astype(np.int64), 11), (3, 4))
    for g, w in zip(got, want):
        assert g.dtype == dtype and not g.weak_type
        np.testing.assert_array_equal(np.asarray(g), w)
    weak = jnp.unravel_index(7, (3, 4))
    assert all(c.weak_type and c.dtype == np.int32 for c in weak)
    assert [int(c) for c in weak] == [1, 3]
