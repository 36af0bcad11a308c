"""jnp sort/argsort/lexsort/partition/searchsorted/unique against NumPy: stability with
ties, NaNs last, descending order, unique's optional outputs and its size= padding under
jit, searchsorted on both sides."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import ConcretizationTypeError, ShapeError


def _nan_data(rng, shape, dtype=np.float32):
    x = rng.integers(-3, 4, shape).astype(dtype)
    x[rng.random(shape) < 0.2] = np.nan
    return x


def _check_eager_and_jit(fn, *args):
    """fn on tjit arrays, eagerly and under jit (the two must agree); returns eager."""
    eager = fn(*[jnp.asarray(a) for a in args])
    jitted = tjit.jit(fn)(*args)
    for e, j in zip(eager if isinstance(eager, tuple) else (eager,),
                    jitted if isinstance(jitted, tuple) else (jitted,)):
        assert e.dtype == j.dtype
        np.testing.assert_array_equal(np.asarray(e), np.asarray(j))
    return eager


@pytest.mark.parametrize("shape,axis", [((10,), -1), ((4, 6), 0), ((4, 6), 1), ((3, 4, 5), 1),
                                        ((4, 6), None), ((0, 3), 0), ((5,), None)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_sort_and_argsort_match_numpy(shape, axis, dtype):
    rng = np.random.default_rng(0)
    x = _nan_data(rng, shape) if dtype == np.float32 else \
        rng.integers(0, 3, shape).astype(dtype)  # many ties
    s = _check_eager_and_jit(lambda a: jnp.sort(a, axis=axis), x)
    np.testing.assert_array_equal(np.asarray(s), np.sort(x, axis=axis))
    i = _check_eager_and_jit(lambda a: jnp.argsort(a, axis=axis), x)
    np.testing.assert_array_equal(np.asarray(i), np.argsort(x, axis=axis, kind="stable"))
    assert i.dtype == np.int32


def test_argsort_is_stable_with_ties_and_signed_zeros():
    x = np.array([0.0, -0.0, 1.0, 0.0, -0.0, 1.0, np.nan, -1.0, np.nan], np.float32)
    idx = np.asarray(jnp.argsort(x))
    np.testing.assert_array_equal(idx, [7, 0, 1, 3, 4, 2, 5, 6, 8])
    s = np.asarray(jnp.sort(x))
    assert np.isnan(s[-2:]).all() and not np.isnan(s[:-2]).any()


def _descending_ref(x, axis):
    """Stable descending order with NaNs first (JAX's descending=True), by Python sort."""
    x = np.moveaxis(x, axis, -1)
    out = np.zeros(x.shape, np.int64)
    for idx in np.ndindex(*x.shape[:-1]):
        row = x[idx]
        out[idx] = sorted(range(len(row)),
                          key=lambda i: (0, 0) if row[i] != row[i] else (1, -row[i]))
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_descending(dtype):
    rng = np.random.default_rng(1)
    x = _nan_data(rng, (3, 9)) if dtype == np.float32 else rng.integers(0, 3, (3, 9)).astype(
        dtype)
    idx = _check_eager_and_jit(lambda a: jnp.argsort(a, axis=1, descending=True), x)
    np.testing.assert_array_equal(np.asarray(idx), _descending_ref(x, 1))
    s = _check_eager_and_jit(lambda a: jnp.sort(a, axis=1, descending=True), x)
    np.testing.assert_array_equal(np.asarray(s), np.take_along_axis(x, _descending_ref(x, 1), 1))


def test_sort_method_and_order_argument():
    x = jnp.asarray(np.array([3, 1, 2], np.int32))
    np.testing.assert_array_equal(x.sort(), [1, 2, 3])
    np.testing.assert_array_equal(x.argsort(), [1, 2, 0])
    with pytest.raises(NotImplementedError, match="sort: the `order` argument"):
        jnp.sort(x, order="f")
    with pytest.raises(ShapeError, match="out of bounds for a 0-d array"):
        jnp.sort(jnp.asarray(1.0))


def test_lexsort():
    rng = np.random.default_rng(2)
    k1, k2 = rng.integers(0, 3, (2, 12)).astype(np.int32)
    k3 = _nan_data(rng, (12,))
    out = _check_eager_and_jit(lambda a, b, c: jnp.lexsort([a, b, c]), k1, k2, k3)
    np.testing.assert_array_equal(np.asarray(out), np.lexsort([k1, k2, k3]))
    keys = rng.integers(0, 2, (3, 4, 5)).astype(np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.lexsort(jnp.asarray(keys), axis=0)),
                                  np.lexsort(keys, axis=0))
    with pytest.raises(ValueError, match=r"all keys need to be the same shape, got \(3,\), "
                                         r"\(4,\)"):
        jnp.lexsort([jnp.asarray(np.zeros(3)),
                     jnp.asarray(np.zeros(4))])
    with pytest.raises(TypeError, match="need a sequence of keys with len > 0"):
        jnp.lexsort([])


@pytest.mark.parametrize("kth", [0, 3, -1])
def test_partition_and_argpartition(kth):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 7)).astype(np.float32)
    p = np.asarray(jnp.partition(x, kth, axis=1))
    ref = np.partition(x, kth, axis=1)
    np.testing.assert_array_equal(p[:, kth], ref[:, kth])
    assert (p[:, :kth % 7] <= p[:, [kth]]).all() and (p[:, kth % 7:] >= p[:, [kth]]).all()
    np.testing.assert_array_equal(np.sort(p, 1), np.sort(x, 1))
    ip = np.asarray(jnp.argpartition(x, kth, axis=1))
    np.testing.assert_array_equal(np.take_along_axis(x, ip, 1)[:, kth], ref[:, kth])
    with pytest.raises(ValueError, match=r"partition: kth\(=7\) out of bounds"):
        jnp.partition(x, 7)


def test_sort_complex():
    x = np.array([3, 1 + 2j, 1 - 1j, 2], np.complex64)
    np.testing.assert_array_equal(np.asarray(jnp.sort_complex(x)), np.sort_complex(x))
    out = jnp.sort_complex(np.array([3, 1, 2], np.int32))
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(np.asarray(out), [1, 2, 3])


# -- searchsorted ---------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("method", ["scan", "sort", "compare_all"])
def test_searchsorted_matches_numpy(side, method):
    rng = np.random.default_rng(4)
    a = np.sort(_nan_data(rng, (15,)))
    v = np.concatenate([_nan_data(rng, (9,)), [-10, 10, np.nan, 0.5]]).astype(np.float32)
    v = v.reshape(13, 1)
    out = _check_eager_and_jit(lambda a, v: jnp.searchsorted(a, v, side=side, method=method),
                               a, v)
    assert out.dtype == np.int32 and out.shape == (13, 1)
    np.testing.assert_array_equal(np.asarray(out), np.searchsorted(a, v, side=side))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_ints_sorter_scalar_and_empty(side):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 5, 11).astype(np.int32)
    sorter = np.argsort(a, kind="stable")
    v = np.arange(-1, 7, dtype=np.int32)
    out = _check_eager_and_jit(lambda a, v, s: jnp.searchsorted(a, v, side, sorter=s),
                               a, v, sorter)
    np.testing.assert_array_equal(np.asarray(out), np.searchsorted(a, v, side, sorter=sorter))
    s = jnp.searchsorted(np.sort(a), 3, side)
    assert s.shape == () and int(s) == np.searchsorted(np.sort(a), 3, side)
    e = jnp.searchsorted(np.zeros(0, np.float32), np.array([1.0, 2.0], np.float32), side)
    np.testing.assert_array_equal(np.asarray(e), [0, 0])
    # mixed dtypes promote: int array, float queries
    m = jnp.searchsorted(np.array([1, 2, 3], np.int32), np.array([1.5, 3.0], np.float32), side)
    np.testing.assert_array_equal(np.asarray(m), np.searchsorted([1, 2, 3], [1.5, 3.0], side))


def test_searchsorted_errors():
    with pytest.raises(ShapeError, match=r"searchsorted: a must be 1-D, got shape \(2, 2\)"):
        jnp.searchsorted(np.zeros((2, 2), np.float32), 1.0)
    with pytest.raises(ValueError, match="side must be 'left' or 'right'"):
        jnp.searchsorted(np.zeros(2, np.float32), 1.0, side="middle")
    with pytest.raises(ValueError, match="method must be one of"):
        jnp.searchsorted(np.zeros(2, np.float32), 1.0, method="bisect")


# -- unique ---------------------------------------------------------------------------------
def _np_unique(x, **kw):
    out = np.unique(x, **kw)
    return out if isinstance(out, tuple) else (out,)


def _assert_tuple_equal(got, expected):
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape, (g.shape, e.shape)
        np.testing.assert_array_equal(np.asarray(g), e)


@pytest.mark.parametrize("flags", [{}, {"return_counts": True}, {"return_inverse": True},
                                   {"return_index": True, "return_inverse": True,
                                    "return_counts": True}])
@pytest.mark.parametrize("case", ["ints_2d", "floats_nan", "bool", "empty", "single"])
def test_unique_matches_numpy(flags, case):
    rng = np.random.default_rng(6)
    x = {"ints_2d": rng.integers(0, 5, (4, 6)).astype(np.int32),
         "floats_nan": _nan_data(rng, (17,)),
         "bool": rng.random(7) < 0.5,
         "empty": np.zeros((0,), np.float32),
         "single": np.array([2.5], np.float32)}[case]
    _assert_tuple_equal(jnp.unique(x, **flags), _np_unique(x, **flags))


def test_unique_equal_nan_false_and_signed_zero():
    x = np.array([np.nan, 1.0, np.nan, -0.0, 0.0, 1.0], np.float32)
    got = jnp.unique(x, return_counts=True, equal_nan=False)
    _assert_tuple_equal(got, _np_unique(x, return_counts=True, equal_nan=False))
    vals, counts = jnp.unique_counts(x)
    assert vals.shape == (4,) and list(np.asarray(counts)) == [2, 2, 1, 1]
    all_ = jnp.unique_all(np.array([3, 1, 3], np.int32))
    _assert_tuple_equal(all_, _np_unique(np.array([3, 1, 3]), return_index=True,
                                         return_inverse=True, return_counts=True))


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse",
                                  "unique_all"])
@pytest.mark.parametrize("case", ["nans", "all_nan", "ints", "zeros_2d"])
def test_array_api_unique_functions_keep_nans_apart(name, case):
    """NumPy 2's unique_* (the Array API's) never merge NaNs: each is its own value."""
    x = {"nans": np.array([2., np.nan, 1, 2, np.nan, -0.0, 0.0, 1], np.float32),
         "all_nan": np.full(3, np.nan, np.float32),
         "ints": np.array([3, 1, 3, 0], np.int32),
         "zeros_2d": np.array([[0., np.nan], [-0.0, np.nan]], np.float32)}[case]
    want = getattr(np, name)(x)
    want = tuple(want) if isinstance(want, tuple) else (want,)
    _assert_tuple_equal(getattr(jnp, name)(x), want)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unique_axis(axis):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2, (6, 3)).astype(np.int32)
    x = np.concatenate([x, x[:2]], 0) if axis == 0 else np.concatenate([x, x[:, :1]], 1)
    flags = dict(return_index=True, return_inverse=True, return_counts=True)
    _assert_tuple_equal(jnp.unique(x, axis=axis, **flags), _np_unique(x, axis=axis, **flags))
    y = rng.integers(0, 2, (2, 4, 3)).astype(np.float32)
    _assert_tuple_equal(jnp.unique(y, axis=1, return_counts=True),
                        _np_unique(y, axis=1, return_counts=True))


def test_unique_under_jit_requires_size():
    x = np.array([3, 4, 1, 3, 1], np.int32)
    with pytest.raises(ConcretizationTypeError, match=r"(?s)jnp.unique\(\) without a size "
                                                      r"argument.*Fix: pass a static size"):
        tjit.jit(jnp.unique)(x)


def test_unique_size_padding_under_jit():
    x = np.array([3, 4, 1, 3, 1], np.int32)
    f = tjit.jit(lambda x: jnp.unique(x, return_index=True, return_inverse=True,
                                      return_counts=True, size=5))
    vals, idx, inv, counts = f(x)
    np.testing.assert_array_equal(np.asarray(vals), [1, 3, 4, 1, 1])   # pad: smallest value
    np.testing.assert_array_equal(np.asarray(idx), [2, 0, 1, 2, 2])    # pad: its first index
    np.testing.assert_array_equal(np.asarray(inv), [1, 2, 0, 1, 0])
    np.testing.assert_array_equal(np.asarray(counts), [2, 2, 1, 0, 0])
    g = tjit.jit(lambda x: jnp.unique(x, size=4, fill_value=-7))
    np.testing.assert_array_equal(np.asarray(g(x)), [1, 3, 4, -7])
    h = tjit.jit(lambda x: jnp.unique(x, size=2, return_counts=True))  # truncates
    _assert_tuple_equal(h(x), (np.array([1, 3]), np.array([2, 2])))
    # the same traced program serves other data
    _assert_tuple_equal(g(np.array([5, 5, 5, 5, 5], np.int32)), (np.array([5, -7, -7, -7]),))


def test_unique_size_eager_and_errors():
    x = np.array([2.0, np.nan, 2.0, np.nan], np.float32)
    vals = np.asarray(jnp.unique(x, size=3, fill_value=0.0))
    np.testing.assert_array_equal(vals, [2.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="empty input with a nonzero size, fill_value must"):
        jnp.unique(np.zeros(0, np.float32), size=2)
    np.testing.assert_array_equal(np.asarray(jnp.unique(np.zeros(0, np.float32), size=2,
                                                        fill_value=1.0)), [1.0, 1.0])
    with pytest.raises(ShapeError, match="out of bounds for a 0-d array"):
        jnp.unique(np.float32(1), axis=0)
