"""Random differential testing of ``tjit.numpy`` against NumPy: hypothesis picks a
reduction, shape or indexing function, an input array (dtype and shape) and random
arguments (axes, keepdims, ddof, index expressions, ...), then checks that tjit gives
NumPy's values and shape, eagerly and under ``jit``, with JAX's dtype (float32 and int32
defaults, sums of small ints widened to int32, means of ints in float32).

Deterministic: the "ci" hypothesis profile of tests/conftest.py is derandomized.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tjit
import tjit.numpy as jnp

DTYPES = [np.float32, np.int32, np.bool_, np.int8, np.uint8, np.float16]
SHAPES = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        lo = 0 if np.dtype(dtype).kind == "u" else -4
        return rng.integers(lo, 5, shape).astype(dtype)
    # Distinct values: no ties, so argmax/argsort/median agree exactly with NumPy.
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.25 - 1.0).astype(dtype)


# -- dtype rules (JAX's, not NumPy's 64-bit ones) ------------------------------------------
def _sum_dtype(dt):
    dt = np.dtype(dt)
    if dt == np.bool_ or (dt.kind == "i" and dt.itemsize < 4):
        return np.dtype(np.int32)
    if dt.kind == "u" and dt.itemsize < 4:
        return np.dtype(np.uint32)
    return dt


def _inexact_dtype(dt):
    return np.dtype(dt) if np.dtype(dt).kind in "fc" else np.dtype(np.float32)


def _same(dt):
    return np.dtype(dt)


def _int32(dt):
    return np.dtype(np.int32)


def _bool(dt):
    return np.dtype(np.bool_)


# -- strategies for arguments --------------------------------------------------------------
def _axis(draw, ndim, allow_tuple=True, allow_none=True):
    choices = ["int"] + (["none"] if allow_none else []) + (["tuple"] if allow_tuple else [])
    kind = draw(st.sampled_from(choices))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-ndim, ndim - 1))
    axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return tuple(a - ndim if draw(st.booleans()) else a for a in axes)


def _reduction_case(draw, name, x):
    kw = {"axis": _axis(draw, x.ndim)}
    if name not in ("argmax", "argmin", "cumsum", "cumprod", "median"):
        kw["keepdims"] = draw(st.booleans())
    if name in ("var", "std"):
        kw["ddof"] = draw(st.integers(0, 1))
    if name in ("argmax", "argmin", "cumsum", "cumprod"):
        kw["axis"] = _axis(draw, x.ndim, allow_tuple=False)
    if name in ("max", "min") and draw(st.booleans()):
        kw["initial"] = draw(st.sampled_from([0, 1, 2]))
        kw["where"] = _data(x.shape, np.bool_, draw(st.integers(0, 9)))
    if name in ("sum", "prod", "mean") and draw(st.booleans()):
        kw["where"] = _data(x.shape, np.bool_, draw(st.integers(0, 9)))
    return kw


REDUCTIONS = {
    "sum": _sum_dtype, "prod": _sum_dtype, "cumsum": _sum_dtype, "cumprod": _sum_dtype,
    "mean": _inexact_dtype, "var": _inexact_dtype, "std": _inexact_dtype,
    "median": _inexact_dtype, "max": _same, "min": _same, "ptp": _same,
    "argmax": _int32, "argmin": _int32, "any": _bool, "all": _bool,
    "count_nonzero": _int32,
}


@st.composite
def reduction_cases(draw):
    name = draw(st.sampled_from(sorted(REDUCTIONS)))
    dtype = draw(st.sampled_from(DTYPES))
    if name in ("ptp",) and dtype == np.bool_:  # NumPy: no subtraction of bools
        dtype = np.int32
    if name in ("prod", "cumprod") and dtype in (np.int8, np.uint8, np.float16):
        dtype = np.int32  # overflow in the narrow type would differ from NumPy's int64
    shape = draw(SHAPES)
    x = _data(shape, dtype, draw(st.integers(0, 99)))
    kw = _reduction_case(draw, name, x)
    if name == "count_nonzero":
        kw.pop("keepdims", None)
    return name, x, kw


def _numpy_reduction(name, x, kw):
    kw = dict(kw)
    if name == "ptp":
        return np.ptp(x, **kw)
    if name in ("mean", "var", "std", "median") and x.dtype.kind not in "fc":
        x = x.astype(np.float64)
    if name in ("sum", "prod", "cumsum", "cumprod", "mean", "var", "std") and \
            x.dtype == np.float16:
        x = x.astype(np.float32)  # tjit (as JAX) accumulates float16 in float32
    return getattr(np, name)(x, **kw)


@given(reduction_cases())
def test_random_reductions_match_numpy(case):
    name, x, kw = case
    want = _numpy_reduction(name, x, kw)
    want_dtype = REDUCTIONS[name](x.dtype)
    jkw = {k: (jnp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    eager = getattr(jnp, name)(jnp.asarray(x), **jkw)
    jitted = tjit.jit(lambda a, w: getattr(jnp, name)(a, **dict(jkw, **w)))(
        jnp.asarray(x), {"where": jkw["where"]} if "where" in jkw else {})
    for got in (eager, jitted):
        _compare(got, want, want_dtype, f"jnp.{name}(x: {x.dtype}{x.shape}, {kw})")


def _compare(got, want, want_dtype, what):
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != NumPy's {want.shape}"
    assert got.dtype == want_dtype, f"{what}: dtype {got.dtype} != {want_dtype}"
    tol = 2e-3 if want_dtype == np.float16 else 1e-5
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), want.astype(np.float64),
                               rtol=tol, atol=tol, err_msg=what)


# -- shape functions -----------------------------------------------------------------------
def _perm(draw, n):
    return tuple(draw(st.permutations(range(n))))


def _split_point_list(draw, n):
    return sorted(draw(st.lists(st.integers(0, n), max_size=3)))


SHAPE_OPS = {
    "transpose": lambda d, x: ((_perm(d, x.ndim),), {}),
    "moveaxis": lambda d, x: ((d(st.integers(-x.ndim, x.ndim - 1)),
                               d(st.integers(-x.ndim, x.ndim - 1))), {}),
    "swapaxes": lambda d, x: ((d(st.integers(-x.ndim, x.ndim - 1)),
                               d(st.integers(-x.ndim, x.ndim - 1))), {}),
    "flip": lambda d, x: ((), {"axis": _axis(d, x.ndim)}),
    "roll": lambda d, x: ((d(st.integers(-7, 7)),), {"axis": d(st.sampled_from(
        [None] + list(range(x.ndim))))}),
    "tile": lambda d, x: ((tuple(d(st.lists(st.integers(0, 3), min_size=1, max_size=3))),), {}),
    "repeat": lambda d, x: ((d(st.integers(0, 3)),), {"axis": d(st.sampled_from(
        [None] + list(range(x.ndim))))}),
    "expand_dims": lambda d, x: ((d(st.integers(-x.ndim - 1, x.ndim)),), {}),
    "ravel": lambda d, x: ((), {"order": d(st.sampled_from(["C", "F"]))}),
    "reshape": lambda d, x: ((_factor_shape(d, x.size),), {"order": d(st.sampled_from(
        ["C", "F"]))}),
    "diff": lambda d, x: ((), {"n": d(st.integers(0, 2)), "axis": d(st.integers(
        -x.ndim, x.ndim - 1))}),
    "pad": lambda d, x: ((tuple((d(st.integers(0, 3)), d(st.integers(0, 3)))
                                for _ in range(x.ndim)),),
                         {"mode": d(st.sampled_from(["constant", "edge", "reflect",
                                                     "symmetric", "wrap"]))}),
    "array_split": lambda d, x: ((_split_point_list(d, x.shape[0]),), {"axis": 0}),
    "rot90": lambda d, x: ((d(st.integers(-3, 4)),), {}),
    "diagonal": lambda d, x: ((d(st.integers(-2, 2)),), {}),
    "trace": lambda d, x: ((d(st.integers(-2, 2)),), {}),
    "sort": lambda d, x: ((), {"axis": d(st.sampled_from([None] + list(range(x.ndim))))}),
    "argsort": lambda d, x: ((), {"axis": d(st.integers(-x.ndim, x.ndim - 1)),
                                  "kind": "stable"}),
    "squeeze": lambda d, x: ((), {}),
    "atleast_3d": lambda d, x: ((), {}),
    "triu": lambda d, x: ((d(st.integers(-2, 2)),), {}),
    "tril": lambda d, x: ((d(st.integers(-2, 2)),), {}),
}
_NEEDS_2D = ("rot90", "diagonal", "trace", "triu", "tril")


def _factor_shape(draw, n):
    dims = []
    while n > 1:
        f = draw(st.sampled_from([k for k in range(1, n + 1) if n % k == 0]))
        dims.append(f)
        n //= f
    dims = dims or [1]
    if draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    return tuple(dims)


@st.composite
def shape_cases(draw):
    name = draw(st.sampled_from(sorted(SHAPE_OPS)))
    dtype = draw(st.sampled_from(DTYPES))
    if name == "diff" and dtype == np.uint8:
        dtype = np.int8  # NumPy wraps uint8 differences the same way, but keep it simple
    shape = draw(SHAPES)
    if name in _NEEDS_2D and len(shape) < 2:
        shape = shape + (draw(st.integers(1, 4)),)
    x = _data(shape, dtype, draw(st.integers(0, 99)))
    args, kw = SHAPE_OPS[name](draw, x)
    return name, x, args, kw


def _shape_dtype(name, dt):
    if name == "trace":
        return _sum_dtype(dt)
    if name == "argsort":
        return np.dtype(np.int32)
    return np.dtype(dt)


@given(shape_cases())
def test_random_shape_functions_match_numpy(case):
    name, x, args, kw = case
    want = getattr(np, name)(x, *args, **kw)
    if name == "trace" and x.dtype == np.float16:
        want = np.trace(x.astype(np.float32), *args, **kw)
    what = f"jnp.{name}(x: {x.dtype}{x.shape}, *{args}, **{kw})"
    eager = getattr(jnp, name)(jnp.asarray(x), *args, **kw)
    jitted = tjit.jit(lambda a: getattr(jnp, name)(a, *args, **kw))(jnp.asarray(x))
    for got in (eager, jitted):
        if isinstance(want, list):
            assert len(got) == len(want), what
            for g, w in zip(got, want):
                _compare(g, w, np.dtype(x.dtype), what)
        else:
            _compare(got, want, _shape_dtype(name, x.dtype), what)


# -- indexing ------------------------------------------------------------------------------
@st.composite
def index_exprs(draw, shape):
    """A NumPy index for ``shape``: ints, slices, None, one Ellipsis, int arrays (in
    bounds, possibly negative) and at most one boolean mask."""
    idx, dim, used_ellipsis, used_mask = [], 0, False, False
    while dim < len(shape) and draw(st.integers(0, 4)) > 0:
        n = shape[dim]
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "array", "ellipsis",
                                     "mask"]))
        if kind == "int":
            idx.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            b = st.one_of(st.none(), st.integers(-n - 2, n + 2))
            step = draw(st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2])))
            idx.append(slice(draw(b), draw(b), step))
        elif kind == "none":
            idx.append(None)
            continue
        elif kind == "array":
            size = draw(st.integers(0, 3))
            idx.append(np.array(draw(st.lists(st.integers(-n, n - 1), min_size=size,
                                              max_size=size)), np.int32))
        elif kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            idx.append(Ellipsis)
            dim = len(shape) - sum(1 for e in idx[:-1] if e is not None and e is not Ellipsis)
            continue
        elif kind == "mask" and not used_mask:
            used_mask = True
            idx.append(_data((n,), np.bool_, draw(st.integers(0, 9))))
        else:
            idx.append(slice(None))
        dim += 1
    return tuple(idx)


@st.composite
def index_cases(draw):
    shape = draw(SHAPES)
    x = _data(shape, draw(st.sampled_from([np.float32, np.int32])), draw(st.integers(0, 99)))
    return x, draw(index_exprs(shape))


def _np_set(x, idx, v):
    y = x.copy()
    y[idx] = v
    return y


def _np_add(x, idx, v):
    y = x.copy()
    np.add.at(y, idx, v)
    return y


@given(index_cases())
def test_random_indexing_matches_numpy(case):
    x, idx = case
    what = f"x{x.shape}[{idx}]"
    try:
        want = x[idx]
    except IndexError:  # e.g. index arrays that do not broadcast: tjit must refuse too
        with pytest.raises(IndexError):
            jnp.asarray(x)[idx]
        return
    has_mask = any(isinstance(e, np.ndarray) and e.dtype == np.bool_ for e in idx)
    _compare(jnp.asarray(x)[idx], want, x.dtype, what)
    if not has_mask:  # boolean masks are concrete-only
        _compare(tjit.jit(lambda a: a[idx])(jnp.asarray(x)), want, x.dtype, what)
    v = np.arange(want.size, dtype=x.dtype).reshape(want.shape) + 1
    _compare(jnp.asarray(x).at[idx].add(v), _np_add(x, idx, v), x.dtype, what + " .at.add")
    # set with duplicates is order-dependent in NumPy too: check it with a scalar only
    _compare(jnp.asarray(x).at[idx].set(7), _np_set(x, idx, 7), x.dtype, what + " .at.set")


# -- take / take_along_axis ----------------------------------------------------------------
@st.composite
def take_cases(draw):
    shape = draw(SHAPES)
    x = _data(shape, np.float32, draw(st.integers(0, 99)))
    axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    n = x.size if axis is None else shape[axis]
    ind = np.array(draw(st.lists(st.integers(-n, n - 1), max_size=5)), np.int32)
    ind = ind.reshape(draw(st.sampled_from([(-1,), (1, -1)])))
    return x, ind, axis


@given(take_cases())
def test_random_take_matches_numpy(case):
    x, ind, axis = case
    want = np.take(x, ind, axis=axis)
    what = f"jnp.take(x{x.shape}, {ind.tolist()}, axis={axis})"
    _compare(jnp.take(jnp.asarray(x), ind, axis=axis), want, x.dtype, what)
    _compare(tjit.jit(lambda a, i: jnp.take(a, i, axis=axis))(x, ind), want, x.dtype, what)
    if axis is not None:
        order = np.argsort(-x, axis=axis)
        want = np.take_along_axis(x, order, axis=axis)
        got = tjit.jit(lambda a: jnp.take_along_axis(a, jnp.argsort(-a, axis=axis), axis))(x)
        _compare(got, want, x.dtype, f"take_along_axis(x{x.shape}, argsort, {axis})")


# -- NaN-aware reductions and quantiles (float data with NaNs) -----------------------------
NAN_REDUCTIONS = ("nansum", "nanmean", "nanmax", "nanmin", "nanvar", "nanstd", "nanargmax",
                  "nanargmin", "nanmedian", "nancumsum", "nanprod", "quantile", "percentile",
                  "nanquantile")


@st.composite
def nan_cases(draw):
    name = draw(st.sampled_from(NAN_REDUCTIONS))
    shape = draw(SHAPES)
    x = _data(shape, np.float32, draw(st.integers(0, 99)))
    if name.startswith("nan"):
        holes = _data(shape, np.bool_, draw(st.integers(0, 9)))
        x[holes & (np.arange(x.size).reshape(shape) % 3 == 0)] = np.nan
    single = name in ("nanargmax", "nanargmin", "nancumsum")
    kw = {"axis": _axis(draw, x.ndim, allow_tuple=not single, allow_none=True)}
    if name in ("nanargmax", "nanargmin"):
        # all-NaN slices raise in NumPy and give -1 in JAX: keep one value per slice
        x[(0,) * x.ndim] = 0.5
        x = np.where(np.isnan(x).all(axis=kw["axis"], keepdims=True), 0.5, x)
    elif not single:
        kw["keepdims"] = draw(st.booleans())
    if name in ("nanvar", "nanstd"):
        kw["ddof"] = draw(st.integers(0, 1))
    q = None
    if name in ("quantile", "nanquantile", "percentile"):
        q = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0, [0.1, 0.9]]))
        q = np.asarray(q, np.float32) * (100 if name == "percentile" else 1)
        kw["method"] = draw(st.sampled_from(["linear", "lower", "higher", "midpoint",
                                             "nearest"]))
    return name, x, q, kw


@given(nan_cases())
def test_random_nan_reductions_and_quantiles_match_numpy(case):
    name, x, q, kw = case
    args = () if q is None else (q,)
    with warnings.catch_warnings():  # all-NaN slices warn in NumPy
        warnings.simplefilter("ignore")
        want = getattr(np, name)(x.astype(np.float64), *args, **kw)
    want_dtype = np.dtype(np.int32) if "arg" in name else np.dtype(np.float32)
    what = f"jnp.{name}(x{x.shape}, {args}, {kw})"
    _compare(getattr(jnp, name)(jnp.asarray(x), *args, **kw), want, want_dtype, what)
    got = tjit.jit(lambda a: getattr(jnp, name)(a, *args, **kw))(x)
    _compare(got, want, want_dtype, what)

