"""tjit.numpy reductions vs NumPy: a parametrized table over shapes (0-d and empty
included), axes, keepdims and dtypes, each case also run under ``tjit.jit``; then the
dtype rules, where=/initial=, NaN variants, quantiles, cumulative ops, symbolic shapes
and error messages."""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import ConcretizationTypeError


def _close(got, want, rtol=1e-5, atol=1e-6, what=""):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype == bool or np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=what)


def _check(jfn, npfn, *arrays, rtol=1e-5, atol=1e-6, jit=True):
    """Eager tjit vs NumPy, then jit vs eager. ``jfn`` takes only array arguments."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = npfn(*arrays)
    got = jfn(*[jnp.asarray(a) for a in arrays])
    outs = got if isinstance(got, tuple) else (got,)
    wants = want if isinstance(want, tuple) else (want,)
    for g, w in zip(outs, wants):
        assert isinstance(g, tjit.Array)
        _close(g, w, rtol, atol, "eager vs NumPy")
    if jit:
        jitted = tjit.jit(jfn)(*[jnp.asarray(a) for a in arrays])
        jouts = jitted if isinstance(jitted, tuple) else (jitted,)
        for j, g in zip(jouts, outs):
            assert j.dtype == g.dtype, f"jit dtype {j.dtype} vs eager {g.dtype}"
            _close(j, g, 1e-6, 1e-6, "jit vs eager")
    return got


def _data(shape, dtype, seed=0, lo=-3, hi=3):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else lo
        return rng.integers(lo, hi, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


SHAPES = [(), (5,), (3, 4), (2, 3, 4), (0, 3)]
AXES = [None, 0, -1, (0, 1), (0, 2)]


def _axis_ok(shape, axis):
    if axis is None:
        return True
    axes = axis if isinstance(axis, tuple) else (axis,)
    n = max(len(shape), 1)
    return len(shape) > 0 and all(-n <= a < n for a in axes)


# name, tjit fn, numpy fn, dtypes, needs non-empty reduction
_RED = [
    ("sum", jnp.sum, np.sum, (np.float32, np.int32, np.bool_), False),
    ("prod", jnp.prod, np.prod, (np.float32, np.int32), False),
    ("max", jnp.max, np.max, (np.float32, np.int32, np.bool_), True),
    ("min", jnp.min, np.min, (np.float32, np.int16), True),
    ("mean", jnp.mean, np.mean, (np.float32, np.int32), False),
    ("var", jnp.var, np.var, (np.float32, np.int32), False),
    ("std", jnp.std, np.std, (np.float32,), False),
    ("all", jnp.all, np.all, (np.float32, np.bool_), False),
    ("any", jnp.any, np.any, (np.int32, np.bool_), False),
    ("ptp", jnp.ptp, np.ptp, (np.float32, np.int32), True),
    ("count_nonzero", jnp.count_nonzero, np.count_nonzero, (np.float32, np.bool_), False),
    ("nansum", jnp.nansum, np.nansum, (np.float32,), False),
    ("nanmean", jnp.nanmean, np.nanmean, (np.float32,), False),
]


def _red_cases():
    for name, jf, nf, dts, nonempty in _RED:
        for shape in SHAPES:
            for axis in AXES:
                if not _axis_ok(shape, axis):
                    continue
                if nonempty and 0 in shape and (axis is None or shape[axis if isinstance(
                        axis, int) else axis[0]] == 0 or isinstance(axis, tuple)):
                    continue
                for keepdims in (False, True):
                    for dt in dts:
                        yield pytest.param(jf, nf, shape, axis, keepdims, dt,
                                           id=f"{name}-{shape}-{axis}-{keepdims}-"
                                              f"{np.dtype(dt).name}")


@pytest.mark.parametrize("jf,nf,shape,axis,keepdims,dt", list(_red_cases()))
def test_reduction_table(jf, nf, shape, axis, keepdims, dt):
    x = _data(shape, dt)
    got = _check(lambda a: jf(a, axis=axis, keepdims=keepdims),
                 lambda a: nf(a, axis=axis, keepdims=keepdims), x)
    if jf in (jnp.mean, jnp.var, jnp.std) and np.dtype(dt).kind in "iu":
        assert got.dtype == np.float32  # means of ints are default floats
    if jf in (jnp.all, jnp.any):
        assert got.dtype == np.bool_


@pytest.mark.parametrize("jf,nf", [(jnp.argmax, np.argmax), (jnp.argmin, np.argmin)])
@pytest.mark.parametrize("shape,axis", [((5,), None), ((5,), 0), ((3, 4), None), ((3, 4), 1),
                                        ((2, 3, 4), -2), ((), None)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin(jf, nf, shape, axis, keepdims):
    x = _data(shape, np.float32)
    got = _check(lambda a: jf(a, axis=axis, keepdims=keepdims),
                 lambda a: nf(a, axis=axis, keepdims=keepdims), x)
    assert got.dtype == np.int32


def test_argmax_nan_and_ties():
    x = np.array([1.0, 3.0, np.nan, 3.0, np.nan], np.float32)
    assert int(jnp.argmax(x)) == np.argmax(x) == 2
    assert int(jnp.argmin(x)) == np.argmin(x) == 2
    y = np.array([[1, 5, 5], [7, 7, 0]], np.int32)
    _close(jnp.argmax(y, axis=1), np.argmax(y, axis=1))
    _close(jnp.argmin(y, axis=0), np.argmin(y, axis=0))


# -- dtype rules ----------------------------------------------------------------------------
@pytest.mark.parametrize("dt,expected", [(np.int8, np.int32), (np.int16, np.int32),
                                         (np.uint8, np.uint32), (np.bool_, np.int32),
                                         (np.int32, np.int32), (np.float16, np.float16),
                                         (np.float32, np.float32)])
def test_sum_prod_promote_like_jax(dt, expected):
    x = jnp.asarray(_data((4,), dt, lo=-2, hi=3))
    assert jnp.sum(x).dtype == expected
    assert jnp.prod(x).dtype == expected
    assert jnp.cumulative_sum(x).dtype == expected
    # JAX's cumsum/cumprod keep an integer dtype (only bool widens)
    assert jnp.cumsum(x).dtype == (expected if dt == np.bool_ else dt)
    assert not jnp.sum(x).weak_type


def test_sum_promotes_to_int64_under_x64(x64):
    x = jnp.asarray(np.array([100, 100, 100], np.int8))
    assert jnp.sum(x).dtype == np.int64
    assert int(jnp.sum(x)) == 300  # no int8 wrap-around
    # the mean of integers up to 32 bits is float32 even under x64, as JAX's (its
    # to_inexact_dtype); 64-bit integers give float64
    assert jnp.mean(x).dtype == np.float32
    assert jnp.mean(jnp.asarray(np.array([1, 2], np.int64))).dtype == np.float64


def test_dtype_argument():
    x = jnp.asarray(np.array([1, 2, 3], np.int32))
    for d in (jnp.float32, np.float32, "float32", float):
        r = jnp.sum(x, dtype=d)
        assert r.dtype == np.float32 and float(r) == 6.0
    assert jnp.sum(x, dtype=jnp.int16).dtype == np.int16
    assert jnp.mean(x, dtype=jnp.float16).dtype == np.float16
    assert jnp.sum(jnp.ones(3, jnp.float16)).dtype == np.float16
    with pytest.raises(TypeError, match="not a valid dtype|not supported"):
        jnp.sum(x, dtype="not-a-dtype")


def test_var_of_complex_is_real():
    z = (_data((6,), np.float32) + 1j * _data((6,), np.float32, seed=1)).astype(np.complex64)
    got = _check(lambda a: jnp.var(a), np.var, z)
    assert got.dtype == np.float32
    _check(lambda a: jnp.mean(a, 0), lambda a: np.mean(a, 0), z)


def test_python_scalars_and_lists():
    assert float(jnp.sum(2.5)) == 2.5
    assert jnp.sum(3).dtype == np.int32
    with pytest.raises(TypeError, match="sum requires ndarray or scalar"):
        jnp.sum([1, 2, 3])


# -- where= / initial= ---------------------------------------------------------------------
@pytest.mark.parametrize("jf,nf,kw", [
    (jnp.sum, np.sum, {}), (jnp.prod, np.prod, {}), (jnp.mean, np.mean, {}),
    (jnp.var, np.var, {}), (jnp.std, np.std, {"ddof": 1}),
    (jnp.max, np.max, {"initial": -10.0}), (jnp.min, np.min, {"initial": 10.0}),
    (jnp.all, np.all, {}), (jnp.any, np.any, {}),
    (jnp.nansum, np.nansum, {}), (jnp.nanmean, np.nanmean, {}),
    (jnp.nanmax, np.nanmax, {"initial": -10.0})])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_where_mask(jf, nf, kw, axis):
    x = _data((4, 5), np.float32)
    x[1, 2] = np.nan if jf in (jnp.nansum, jnp.nanmean, jnp.nanmax) else x[1, 2]
    mask = _data((4, 5), np.bool_, seed=3)
    mask[:, 0] = True  # every slice keeps an element
    _check(lambda a, m: jf(a, axis=axis, where=m, **kw),
           lambda a, m: nf(a, axis=axis, where=m, **kw), x, mask)
    # a mask that broadcasts from a row
    row = mask[0]
    _check(lambda a, m: jf(a, axis=axis, where=m, **kw),
           lambda a, m: nf(a, axis=axis, where=m, **kw), x, row)


@pytest.mark.parametrize("jf,nf,init", [(jnp.sum, np.sum, 2.5), (jnp.prod, np.prod, -2.0),
                                        (jnp.max, np.max, 0.5), (jnp.min, np.min, -0.5),
                                        (jnp.max, np.max, 100.0)])
@pytest.mark.parametrize("shape,axis", [((3, 4), 0), ((3, 4), None), ((0, 3), 0)])
def test_initial(jf, nf, init, shape, axis):
    x = _data(shape, np.float32)
    _check(lambda a: jf(a, axis=axis, initial=init), lambda a: nf(a, axis=axis, initial=init),
           x)


def test_int_max_with_initial_and_where():
    x = np.array([[3, -1, 7], [2, 2, 9]], np.int32)
    m = np.array([True, False, False])
    _close(jnp.max(x, axis=1, initial=-5, where=m), np.max(x, axis=1, initial=-5, where=m))
    _close(jnp.min(x, axis=0, initial=4), np.min(x, axis=0, initial=4))


# -- errors ------------------------------------------------------------------------------------
def test_empty_max_min_errors():
    e = jnp.zeros((0, 3))
    with pytest.raises(ValueError, match="zero-size array to reduction operation max which "
                                         "has no identity"):
        jnp.max(e)
    with pytest.raises(ValueError, match="zero-size array to reduction operation min"):
        jnp.min(e, axis=0)
    assert jnp.max(e, axis=1).shape == (0,)  # the reduced axis is not empty
    _close(jnp.max(e, axis=0, initial=1.0), np.max(np.zeros((0, 3)), axis=0, initial=1.0))
    with pytest.raises(ValueError, match="does not have an identity, so to use a where mask"):
        jnp.max(jnp.ones(3), where=jnp.asarray([True, False, True]))
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        jnp.argmax(jnp.zeros((0,)))


def test_other_errors():
    x = jnp.ones((2, 3))
    with pytest.raises(NotImplementedError, match="'out' argument to jnp.sum is not supported"):
        jnp.sum(x, out=np.zeros(3))
    with pytest.raises(NotImplementedError, match="jnp.mean"):
        jnp.mean(x, out=np.zeros(3))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        jnp.sum(x, axis=2)
    with pytest.raises(ValueError, match="repeated axis"):
        jnp.sum(x, axis=(0, 0))
    with pytest.raises(ValueError, match="initial value must be a scalar"):
        jnp.sum(x, initial=jnp.ones(2))
    with pytest.raises(ValueError, match="does not broadcast|cannot be broadcast"):
        jnp.sum(x, where=jnp.ones((4, 3), bool))
    with pytest.raises(ValueError, match="ddof and correction"):
        jnp.var(x, ddof=1, correction=1)


def test_traced_axis_is_rejected():
    with pytest.raises(ConcretizationTypeError, match="axis"):
        tjit.jit(lambda a, ax: jnp.sum(a, axis=ax))(jnp.ones((2, 3)), jnp.asarray(0))


# -- moments ------------------------------------------------------------------------------------
@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_std_ddof_correction(ddof, x64):
    x = _data((5, 6), np.float64)
    _check(lambda a: jnp.var(a, axis=1, ddof=ddof), lambda a: np.var(a, axis=1, ddof=ddof), x,
           rtol=1e-12)
    _check(lambda a: jnp.std(a, axis=0, correction=ddof),
           lambda a: np.std(a, axis=0, ddof=ddof), x, rtol=1e-12)


def test_var_accuracy_float64(x64):
    # large mean, small spread: the two-pass algorithm keeps float64 accuracy
    x = 1e6 + _data((1000,), np.float64, seed=5)
    _check(lambda a: jnp.var(a), np.var, x, rtol=1e-10)
    _check(lambda a: jnp.mean(a), np.mean, x, rtol=1e-14)


@pytest.mark.parametrize("axis,wshape", [(None, (3, 4)), (1, (4,)), (0, (3,)), (1, (3, 4))])
@pytest.mark.parametrize("returned", [False, True])
def test_average(axis, wshape, returned):
    x = _data((3, 4), np.float32)
    w = np.abs(_data(wshape, np.float32, seed=2)) + 0.1
    _check(lambda a, ww: jnp.average(a, axis, ww, returned),
           lambda a, ww: np.average(a, axis, ww, returned), x, w)
    _check(lambda a: jnp.average(a, axis, returned=returned),
           lambda a: np.average(a, axis, returned=returned), x)


def test_average_errors():
    x = jnp.ones((3, 4))
    with pytest.raises(TypeError, match="axis must be specified"):
        jnp.average(x, weights=jnp.ones(4))
    with pytest.raises(ValueError, match="length of weights"):
        jnp.average(x, axis=0, weights=jnp.ones(4))


# -- NaN variants -------------------------------------------------------------------------------
def _with_nans(shape, seed=0):
    x = _data(shape, np.float32, seed)
    x.flat[::3] = np.nan
    return x


NAN_FNS = [(jnp.nansum, np.nansum), (jnp.nanprod, np.nanprod), (jnp.nanmax, np.nanmax),
           (jnp.nanmin, np.nanmin), (jnp.nanmean, np.nanmean), (jnp.nanvar, np.nanvar),
           (jnp.nanstd, np.nanstd), (jnp.nanmedian, np.nanmedian)]


@pytest.mark.parametrize("jf,nf", NAN_FNS)
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_nan_reductions(jf, nf, axis, keepdims):
    x = _with_nans((4, 5))
    x[2, :] = np.nan  # an all-NaN row
    _check(lambda a: jf(a, axis=axis, keepdims=keepdims),
           lambda a: nf(a, axis=axis, keepdims=keepdims), x)


@pytest.mark.parametrize("ddof", [0, 1])
def test_nanvar_ddof(ddof):
    x = _with_nans((3, 7))
    _check(lambda a: jnp.nanvar(a, axis=1, ddof=ddof), lambda a: np.nanvar(a, axis=1, ddof=ddof),
           x)


@pytest.mark.parametrize("jf,nf", [(jnp.nanargmax, np.nanargmax),
                                   (jnp.nanargmin, np.nanargmin)])
def test_nanargmax(jf, nf):
    x = _with_nans((4, 5))
    _check(lambda a: jf(a, axis=1), lambda a: nf(a, axis=1), x)
    _check(lambda a: jf(a), lambda a: nf(a), x)
    x[1, :] = np.nan
    got = jf(x, axis=1)
    assert int(got[1]) == -1  # JAX's answer for an all-NaN slice (NumPy raises)
    _close(np.delete(np.asarray(got), 1), nf(np.delete(x, 1, 0), axis=1))


def test_nan_functions_on_ints_are_plain():
    x = _data((3, 4), np.int32)
    _close(jnp.nanmax(x, 0), np.nanmax(x, 0))
    _close(jnp.nansum(x), np.nansum(x))
    _close(jnp.nanargmin(x, 1), np.nanargmin(x, 1))


# -- quantiles ---------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("shape,axis", [((7,), None), ((4, 6), 1), ((4, 6), 0),
                                        ((3, 4, 5), (0, 2)), ((2, 3), None)])
@pytest.mark.parametrize("q", [0.5, [0.0, 0.25, 0.33, 0.5, 1.0], [[0.1, 0.9]]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_quantile(method, shape, axis, q, keepdims, x64):
    x = _data(shape, np.float64)
    _check(lambda a, qq: jnp.quantile(a, qq, axis=axis, method=method, keepdims=keepdims),
           lambda a, qq: np.quantile(a, qq, axis=axis, method=method, keepdims=keepdims),
           x, np.asarray(q), rtol=1e-12, atol=1e-12)


def test_quantile_ties_ints_and_percentile():
    x = np.array([[3, 1, 2, 2, 5, 5], [0, 0, 0, 1, 1, 9]], np.int32)
    got = _check(lambda a: jnp.quantile(a, 0.4, axis=1), lambda a: np.quantile(a, 0.4, axis=1),
                 x)
    assert got.dtype == np.float32
    _check(lambda a: jnp.percentile(a, 40, axis=1), lambda a: np.percentile(a, 40, axis=1), x)
    _check(lambda a: jnp.percentile(a, jnp.asarray([10, 90])),
           lambda a: np.percentile(a, [10, 90]), x)
    _check(lambda a: jnp.median(a), np.median, x)
    _check(lambda a: jnp.median(a, axis=1, keepdims=True),
           lambda a: np.median(a, axis=1, keepdims=True), x)


@pytest.mark.parametrize("name,q", [("quantile", 0.3), ("nanquantile", 0.3),
                                    ("percentile", 30.0), ("nanpercentile", 30),
                                    ("percentile", 30), ("median", None), ("nanmedian", None)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8])
def test_quantile_dtype_with_python_number_q(name, q, dtype, x64):
    """A Python-number q is weak: the result keeps a float input's dtype (NumPy 2, JAX),
    eagerly and under jit; integers up to 32 bits give float32 even under x64, as JAX's
    (NumPy: float64)."""
    x = np.array([[4, 1, 3, 9], [2, 2, 7, 0]], dtype)
    args = () if q is None else (q,)
    want = getattr(np, name)(x, *args, axis=1)
    want_dtype = np.dtype(np.float32) if np.dtype(dtype).kind in "iu" else want.dtype
    def f(a):
        return getattr(jnp, name)(a, *args, axis=1)
    for got in (f(x), tjit.jit(f)(x)):
        assert got.dtype == want_dtype, (name, q, dtype, got.dtype, want_dtype)
        np.testing.assert_allclose(np.asarray(got, np.float64), want.astype(np.float64),
                                   rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("name", ["nanmean", "nanvar", "nanstd", "nansum", "nanprod"])
@pytest.mark.parametrize("a_dtype", [np.float16, np.float32, np.int32])
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.float32])
def test_nan_statistics_dtype_rule(name, a_dtype, dtype):
    """NumPy: nanmean/nanvar/nanstd of inexact data need an inexact dtype (TypeError,
    never an all-NaN slice cast to an integer); nansum/nanprod take any dtype."""
    a = np.array([[1.5, 2.0], [np.nan if np.dtype(a_dtype).kind != "i" else 3, 4.0]])
    a = a.astype(a_dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(np, name)(a, axis=0, dtype=dtype)
    except TypeError:  # (NumPy's nanstd of ints into an int dtype fails in its sqrt;
        # tjit refuses the dtype up front with JAX's ValueError)
        error = ValueError if np.dtype(a_dtype).kind == "i" else TypeError
        with pytest.raises(error, match=f"{name}.*dtype must be inexact"):
            getattr(jnp, name)(a, axis=0, dtype=dtype)
        return
    got = getattr(jnp, name)(a, axis=0, dtype=dtype)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got, np.complex128), want, rtol=1e-3)


@pytest.mark.parametrize("jf,nf", [(jnp.nanquantile, np.nanquantile),
                                   (jnp.nanpercentile, np.nanpercentile)])
@pytest.mark.parametrize("method", ["linear", "nearest", "midpoint"])
def test_nanquantile(jf, nf, method):
    x = _with_nans((5, 7))
    x[3] = np.nan
    q = [0.2, 0.5] if jf is jnp.nanquantile else [20.0, 50.0]
    _check(lambda a: jf(a, jnp.asarray(q), axis=1, method=method),
           lambda a: nf(a, q, axis=1, method=method), x)


def test_quantile_propagates_nan_and_checks_q():
    x = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]], np.float32)
    _close(jnp.quantile(x, 0.5, axis=1), np.quantile(x, 0.5, axis=1))
    _close(jnp.median(x, axis=1), np.median(x, axis=1))
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        jnp.quantile(x, 1.5)
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        jnp.percentile(x, -1)
    with pytest.raises(ValueError, match="method must be one of"):
        jnp.quantile(x, 0.5, method="bogus")


# -- cumulative ---------------------------------------------------------------------------------
@pytest.mark.parametrize("jf,nf", [(jnp.cumsum, np.cumsum), (jnp.cumprod, np.cumprod),
                                   (jnp.nancumsum, np.nancumsum),
                                   (jnp.nancumprod, np.nancumprod)])
@pytest.mark.parametrize("shape,axis", [((6,), None), ((6,), 0), ((3, 4), None), ((3, 4), 1),
                                        ((2, 3, 4), -2), ((0, 3), 0), ((), None)])
def test_cumulative(jf, nf, shape, axis):
    x = _data(shape, np.float32)
    if x.size:
        x.flat[::4] = np.nan if jf in (jnp.nancumsum, jnp.nancumprod) else x.flat[::4]
    _check(lambda a: jf(a, axis=axis), lambda a: nf(a, axis=axis), x)


def test_cumulative_dtypes():
    b = np.array([True, True, False, True])
    got = _check(lambda a: jnp.cumsum(a), np.cumsum, b)
    assert got.dtype == np.int32
    i8 = np.array([100, 100, 100], np.int8)
    # JAX's cumsum/cumprod keep a narrow int's dtype (wrapping); cumulative_sum widens
    got = jnp.cumsum(i8)
    assert got.dtype == np.int8
    _close(got, np.cumsum(i8, dtype=np.int8))
    assert jnp.cumprod(i8).dtype == np.int8
    _close(jnp.cumulative_sum(i8), np.cumsum(i8.astype(np.int32)))
    assert jnp.cumulative_sum(i8).dtype == np.int32
    assert jnp.cumulative_prod(i8).dtype == np.int8
    got = jnp.cumsum(i8, dtype=jnp.float32)
    assert got.dtype == np.float32


@pytest.mark.parametrize("jf,nf,init", [(jnp.cumulative_sum, np.cumsum, 0),
                                        (jnp.cumulative_prod, np.cumprod, 1)])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_array_api(jf, nf, init, include_initial):
    x = _data((3, 4), np.float32)

    def ref(a, axis):
        r = nf(a, axis=axis)
        if include_initial:
            pad = [(0, 0)] * a.ndim
            pad[axis] = (1, 0)
            r = np.pad(r, pad, constant_values=init)
        return r

    _check(lambda a: jf(a, axis=1, include_initial=include_initial), lambda a: ref(a, 1), x)
    _check(lambda a: jf(a[0], include_initial=include_initial), lambda a: ref(a[0], 0), x)
    with pytest.raises(ValueError, match="axis must be given"):
        jf(x)
    with pytest.raises(ValueError, match="non-scalar"):
        jf(jnp.asarray(1.0))


# -- methods, symbolic shapes -------------------------------------------------------------------
def test_array_methods_dispatch_here():
    x = _data((3, 4), np.float32)
    a = jnp.asarray(x)
    _close(a.sum(axis=0), x.sum(axis=0))
    _close(a.mean(), x.mean())
    _close(a.max(axis=1, keepdims=True), x.max(axis=1, keepdims=True))
    _close(a.argmax(axis=0), x.argmax(axis=0))
    _close(a.cumsum(axis=1), x.cumsum(axis=1))
    _close(a.std(ddof=1), x.std(ddof=1))
    _close(a.ptp(axis=0), np.ptp(x, axis=0))


def test_symbolic_shapes_one_trace_many_sizes():
    def f(x):
        return (jnp.mean(x, axis=0), jnp.var(x), jnp.median(x, axis=0), jnp.std(x, axis=0),
                jnp.sum(x, axis=0, keepdims=True), jnp.argmax(x, axis=0),
                jnp.quantile(x, 0.3, axis=0))

    closed = tjit.make_jaxpr(f, polymorphic_shapes=["(b, 3)"])(np.ones((4, 3), np.float32))
    assert "f32[b,3]" in str(closed)  # traced with a symbolic batch dim
    g = tjit.jit(f, polymorphic_shapes=["(b, 3)"])
    for n in (1, 2, 7):
        x = _data((n, 3), np.float32, seed=n)
        out = g(x)
        _close(out[0], x.mean(0))
        _close(out[1], x.var())
        _close(out[2], np.median(x, 0))
        _close(out[3], x.std(0))
        _close(out[4], x.sum(0, keepdims=True))
        _close(out[5], x.argmax(0))
        _close(out[6], np.quantile(x, 0.3, axis=0))
    assert g.trace_count == 1


def test_mean_with_symbolic_where_count():
    g = tjit.jit(lambda x, m: jnp.mean(x, axis=1, where=m), polymorphic_shapes=["(b, n)",
                                                                                 "(b, n)"])
    for shape in ((2, 3), (4, 5)):
        x = _data(shape, np.float32)
        m = _data(shape, np.bool_, seed=1)
        m[:, 0] = True
        _close(g(x, m), np.mean(x, axis=1, where=m))
