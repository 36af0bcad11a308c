"""NumPy-style indexing (``x[idx]``, ``x.at[idx]``) and the indexing routines of
``tjit.numpy``, against NumPy as the reference: fixed cases, random index expressions
(hypothesis), traced indices under jit, out-of-bounds rules and error messages."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import NonConcreteBooleanIndexError
from tjit._sympy import sympy
from tjit.tracing.shapes import symbol

X = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
_S = np.s_

# Every indexing form: basic, advanced (broadcast, separated, mixed with ints/None/...),
# boolean masks, scalar bools, lists, empty selections.
CASES = [
    _S[0], _S[-1], _S[1, 2, 3], _S[-2, -3, -4], _S[:, 1], _S[..., 2], _S[..., ::-2],
    _S[None, 1:, ::2], _S[1, ::-1, 2:0:-1], _S[::-1, ::-2, ::-3], _S[5:], _S[:, 3:1],
    _S[()], _S[...], _S[None], _S[:, None, ..., None, 1], _S[0, ..., None],
    _S[[0, 1]], _S[[1, 0, 1]], _S[[-1, 0]], _S[[[0], [1]]], _S[[]],
    _S[[0, 1], :, [2, 3]], _S[:, [0, 2], [1, 3]], _S[0, :, [0, 1]], _S[:, 0, [0, 1]],
    _S[:, [[0], [1]], [0, 1, 2]], _S[:, [0, 1], None, [0, 1]], _S[..., [0, 1], 1],
    _S[[0], ..., [0]], _S[None, [0, 1], :, [0, 1]], _S[1, [2, 0], ::-2],
    _S[np.array([[1, 0]]), ..., np.array([3, -1])], _S[:, [0, 2], 1:3], _S[[1], [2], [3]],
    _S[X[..., 0] > 5], _S[X > 10], _S[:, [True, False, True]], _S[[True, False]],
    _S[1, [True, False, True], 1:], _S[1, X[0] > 3], _S[True], _S[False], _S[0, True],
    _S[:, True, [0, 1], 0], _S[[0, 1], True, [0, 1]], _S[..., False], _S[np.int64(1)],
    _S[np.array(1)], _S[np.array([1, 0]), np.array(2)], _S[(0, 1),], _S[np.array([], int)],
]


def _ids(c):
    return repr(c).replace(" ", "")[:60]


@pytest.mark.parametrize("idx", CASES, ids=_ids)
def test_getitem_matches_numpy_eager_and_jit(idx):
    expected = X[idx]
    got = jnp.asarray(X)[idx]
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    jitted = tjit.jit(lambda a: a[idx])(X)
    np.testing.assert_array_equal(jitted, expected)


def _split(idx):
    """Index arrays become jit arguments (traced); the rest of the index stays static."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    pos = [i for i, e in enumerate(idx) if isinstance(e, np.ndarray) and e.dtype != bool]

    def f(a, *arrays):
        full = list(idx)
        for p, v in zip(pos, arrays):
            full[p] = v
        return a[tuple(full)]
    return f, [idx[p] for p in pos]


@pytest.mark.parametrize("idx", [_S[np.array([1, -1, 0])], _S[:, np.array([[0], [2]]),
                                                              np.array([1, -3])],
                                 _S[np.array([1, 0]), 1:, np.array(3)],
                                 _S[np.array(-1), :, np.array([0, 3])],
                                 _S[None, np.array([0, 1]), ..., np.array(1)]], ids=_ids)
def test_traced_index_arrays(idx):
    f, arrays = _split(idx)
    np.testing.assert_array_equal(tjit.jit(f)(X, *arrays), X[idx])


def test_traced_integer_scalars():
    f = tjit.jit(lambda a, i, j: a[i, :, j])
    for i, j in [(0, 0), (1, 3), (-1, -2), (-2, 1)]:
        np.testing.assert_array_equal(f(X, i, j), X[i, :, j])
    g = tjit.jit(lambda a, i: a[i, i + 1])
    np.testing.assert_array_equal(g(X, 1), X[1, 2])


# -- random index expressions ---------------------------------------------------------------
_KINDS = ["int", "slice", "slice", "none", "ellipsis", "array", "array", "mask"]


@st.composite
def index_expressions(draw):
    """An int32 array of a random shape (zero sizes included) and a random NumPy index
    expression for it: ints, slices, None, one ellipsis, int arrays of broadcastable
    shapes, and boolean masks (which may fail to broadcast, as in NumPy)."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    adv_shape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    kinds, widths, free = [], [], len(shape)
    for kind in draw(st.lists(st.sampled_from(_KINDS), min_size=1, max_size=len(shape) + 2)):
        if kind == "ellipsis" and "ellipsis" in kinds:
            continue
        width = 0 if kind in ("none", "ellipsis") else \
            draw(st.integers(1, max(free, 1))) if kind == "mask" else 1
        if width > free:
            continue
        kinds.append(kind)
        widths.append(width)
        free -= width
    # entries after the ellipsis index the trailing dims
    cut = kinds.index("ellipsis") if "ellipsis" in kinds else len(kinds)
    dims = list(np.cumsum([0] + widths[:cut])[:-1])
    dims += list(len(shape) - np.cumsum(widths[cut:][::-1])[::-1])
    entries = []
    for kind, width, d in zip(kinds, widths, dims):
        n = shape[d] if width else None
        if kind in ("none", "ellipsis"):
            entries.append(None if kind == "none" else Ellipsis)
        elif kind == "int" and n:
            entries.append(draw(st.integers(-n, n - 1)))
        elif kind == "array" and n:
            entries.append(rng.integers(-n, n, adv_shape[draw(st.integers(0, len(adv_shape))):]))
        elif kind == "mask":
            entries.append(rng.random(shape[d:d + width]) < 0.5)
        else:
            step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            entries.append(slice(draw(st.integers(-6, 6) | st.none()),
                                 draw(st.integers(-6, 6) | st.none()), step))
    return x, tuple(entries)


def _numpy_or_error(fn):
    try:
        return fn(), None
    except IndexError as e:
        return None, e


@given(index_expressions())
def test_random_index_expressions_match_numpy(case):
    x, idx = case
    expected, err = _numpy_or_error(lambda: x[idx])
    if err is not None:  # e.g. index arrays that do not broadcast together
        with pytest.raises(IndexError, match="shape mismatch"):
            jnp.asarray(x)[idx]
        return
    got = jnp.asarray(x)[idx]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    f, arrays = _split(idx)
    np.testing.assert_array_equal(tjit.jit(f)(x, *arrays), expected)


@given(index_expressions())
def test_random_index_updates_match_numpy(case):
    x, idx = case
    expected = x.copy()
    if _numpy_or_error(lambda: np.add.at(expected, idx, 5))[1]:  # ufunc.at: every duplicate
        return
    f, arrays = _split(idx)

    def upd(a, *arrs):
        full = list(idx)
        for p, v in zip([i for i, e in enumerate(idx) if isinstance(e, np.ndarray) and
                         e.dtype != bool], arrs):
            full[p] = v
        return a.at[tuple(full)].add(5)
    np.testing.assert_array_equal(tjit.jit(upd)(x, *arrays), expected)


# -- .at[] ------------------------------------------------------------------------------------
_DUP = np.array([0, 2, 2, 4, 0, 2])
_VALS = np.array([1.5, -2.0, 3.0, 0.5, 4.0, 2.5], np.float32)


@pytest.mark.parametrize("method, ufunc", [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("mul", np.multiply),
    ("min", np.minimum), ("max", np.maximum)])
def test_at_ops_with_duplicates(method, ufunc):
    x = np.linspace(-1, 1, 5).astype(np.float32)
    expected = x.copy()
    ufunc.at(expected, _DUP, _VALS)
    got = getattr(jnp.asarray(x).at[_DUP], method)(_VALS)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    jitted = tjit.jit(lambda a, i, v: getattr(a.at[i], method)(v))(x, _DUP, _VALS)
    np.testing.assert_allclose(jitted, expected, rtol=1e-6)


def test_at_set_divide_power_apply_get():
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    idx = _S[1:, [0, 3]]
    ref = x.copy()
    ref[idx] = np.array([7, 8], np.float32)
    np.testing.assert_array_equal(jnp.asarray(x).at[idx].set(np.array([7, 8])), ref)
    ref = x.copy()
    ref[idx] /= 4
    np.testing.assert_allclose(jnp.asarray(x).at[idx].divide(4), ref)
    ref = x.copy()
    ref[idx] **= 2
    np.testing.assert_allclose(jnp.asarray(x).at[idx].power(2), ref)
    ref = x.copy()
    ref[idx] = np.sqrt(ref[idx])
    np.testing.assert_allclose(jnp.asarray(x).at[idx].apply(jnp.sqrt), ref, rtol=1e-6)
    np.testing.assert_array_equal(jnp.asarray(x).at[idx].get(), x[idx])


def test_at_values_broadcast_and_cast_to_array_dtype():
    x = jnp.zeros((3, 4), jnp.int32)
    out = x.at[:, 1:3].set(np.array([[1.9], [2.2], [-3.7]]))
    assert out.dtype == jnp.int32
    ref = np.zeros((3, 4), np.int32)
    ref[:, 1:3] = np.array([[1], [2], [-3]])
    np.testing.assert_array_equal(out, ref)
    ref = np.zeros((3, 4), np.int32)
    ref[0] = 1
    np.testing.assert_array_equal(x.at[None, 0].set(np.ones((1, 1, 4))), ref)
    with pytest.raises(ValueError, match=r"values of shape \(3,\) cannot be broadcast to "
                                         r"the indexed shape \(3, 2\)|\(2,\)"):
        x.at[:, 1:3].set(np.ones(3))


def test_at_weak_type_follows_array():
    x = jnp.zeros(3) + 1.0
    y = x.at[0].set(5)
    assert y.dtype == x.dtype and y.weak_type == x.weak_type
    w = jnp.asarray(2.0)
    assert w.weak_type and w.at[()].set(3.0).weak_type


def test_at_with_mask_and_scalar_bool():
    x = np.arange(6.0, dtype=np.float32)
    ref = x.copy()
    ref[x > 2] = -1
    np.testing.assert_array_equal(jnp.asarray(x).at[x > 2].set(-1), ref)
    np.testing.assert_array_equal(jnp.asarray(x).at[True].add(1), x + 1)
    np.testing.assert_array_equal(jnp.asarray(x).at[False].add(1), x)


# -- out of bounds ---------------------------------------------------------------------------
def test_out_of_bounds_get():
    x = jnp.arange(5.0)
    # static Python ints are clamped as JAX's gather clamps ("sharp bits": arange(10)[11]
    # is 9), eager and under jit alike; NumPy's IndexError is not JAX's behaviour
    for f in (lambda a: a[5], tjit.jit(lambda a: a[5])):
        np.testing.assert_array_equal(f(x), 4.0)
    for f in (lambda a: a[-6], tjit.jit(lambda a: a[-6])):
        np.testing.assert_array_equal(f(x), 0.0)
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        jnp.zeros((0, 3))[0]
    # array / traced indices are clamped (JAX's default gather)
    np.testing.assert_array_equal(x[jnp.array([7, -9, -1])], [4, 0, 4])
    np.testing.assert_array_equal(tjit.jit(lambda a, i: a[i])(x, 11), 4.0)
    # explicit modes
    got = x.at[jnp.array([7, -1, -6, 2])].get(mode="fill", fill_value=-1.0)
    np.testing.assert_array_equal(got, [-1, 4, -1, 2])
    assert np.isnan(x.at[9].get(mode="fill")).all()
    np.testing.assert_array_equal(x.at[jnp.array([9, -9])].get(mode="clip"), [4, 0])


def test_concrete_array_index_clamps_like_traced_one():
    x = jnp.arange(5.0)
    for i in (7, -9, -2):
        eager = x[jnp.asarray(i)]
        np.testing.assert_array_equal(eager, tjit.jit(lambda a, j: a[j])(x, jnp.asarray(i)))
        np.testing.assert_array_equal(eager, x[min(max(i + 5 if i < 0 else i, 0), 4)])
    assert "gather" not in _prims(lambda a: a[jnp.asarray(1)], x)  # still a static slice


def test_index_dtypes(x64):
    x = np.arange(10.0)
    for dt in (np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64):
        i = np.array([9, 0, 3], dt)
        np.testing.assert_array_equal(jnp.asarray(x)[i], x[i])
        np.testing.assert_array_equal(tjit.jit(lambda a, j: a[j])(x, i), x[i])
        np.testing.assert_array_equal(jnp.asarray(x).at[i].add(1.0), x + np.isin(
            np.arange(10), i))
    assert jnp.asarray(x)[np.array([1])].dtype == np.float64


def test_out_of_bounds_updates_are_dropped_or_clipped():
    x = jnp.zeros(4)
    np.testing.assert_array_equal(x.at[jnp.array([1, 4, -5, -1])].set(7), [0, 7, 0, 7])
    np.testing.assert_array_equal(x.at[10].add(1), np.zeros(4))
    np.testing.assert_array_equal(x.at[jnp.array([6, -6])].add(1, mode="clip"), [1, 0, 0, 1])
    f = tjit.jit(lambda a, i: a.at[i].set(1.0))
    np.testing.assert_array_equal(f(x, 4), np.zeros(4))
    np.testing.assert_array_equal(f(x, -4), [1, 0, 0, 0])


# -- errors -----------------------------------------------------------------------------------
def test_boolean_mask_under_jit_raises():
    with pytest.raises(NonConcreteBooleanIndexError, match=r"traced mask bool\[2,3,4\].*shape "
                                                           r"\(2, 3, 4\).*jnp.where\(mask, x, "
                                                           r"0\).*size=N"):
        tjit.jit(lambda a: a[a > 3])(X)
    with pytest.raises(NonConcreteBooleanIndexError, match="jnp.where"):
        tjit.jit(lambda a: a.at[a > 3].set(0))(X)
    with pytest.raises(IndexError):  # also an IndexError, as in JAX
        tjit.jit(lambda a, m: a[m])(X, X > 3)


def test_setitem_raises_with_hint():
    x = jnp.zeros(3)
    with pytest.raises(TypeError, match=r"immutable: use x = x.at\[idx\].set\(value\)"):
        x[0] = 1.0


@pytest.mark.parametrize("idx, exc, match", [
    (_S[0, 0, 0, 0], IndexError, "too many indices for array: array is 3-dimensional, but 4"),
    (_S[..., 0, ...], IndexError, "single ellipsis"),
    (_S[1.0], TypeError, "Indexer must be an int, slice"),
    (_S[np.array([1.0])], TypeError, "Indexer must have integer or boolean type, got "
                                     "indexer with type float64"),
    (_S[np.array([True, False, True])], IndexError, "boolean index did not match indexed "
                                                    "array along axis 0; size of axis is 2 but "
                                                    "size of corresponding boolean axis is 3"),
    (_S[:, np.array([True, False])], IndexError, "size of axis is 3 but size of "
                                                 "corresponding boolean axis is 2"),
    (_S["a"], TypeError, "of type str"),
    (_S[::0], ValueError, "slice step cannot be zero"),
    ([0, slice(None)], TypeError, r"non-tuple sequence .* use arr\[tuple\(seq\)\]"),
])
def test_index_errors(idx, exc, match):
    with pytest.raises(exc, match=match):
        jnp.asarray(X)[idx]


def test_traced_slice_bound_raises():
    with pytest.raises(IndexError, match="static start/stop/step.*lax.dynamic_slice"):
        tjit.jit(lambda a, i: a[i:i + 2])(X, 0)


# -- lowering and symbolic shapes -------------------------------------------------------------
def _prims(f, *args, **kw):
    return [e.primitive.name for e in tjit.make_jaxpr(f, **kw)(*args).jaxpr.eqns]


def test_basic_indexing_lowers_to_slices_not_gather():
    prims = _prims(lambda a: a[1, ::-1, 1:3], X)
    assert "gather" not in prims and {"slice", "rev", "squeeze"} <= set(prims)
    assert _prims(lambda a: a[...], X) == []
    assert "gather" in _prims(lambda a, i: a[i], X, 0)


def test_symbolic_shapes():
    b = symbol("b")
    spec = tjit.ShapeDtypeStruct((5, 3), np.float32)
    shape = lambda f: tjit.make_jaxpr(f, polymorphic_shapes=["(b, 3)"])(spec).out_avals[0].shape
    assert shape(lambda a: a[1:, 0]) == (b - 1,)
    assert shape(lambda a: a[::-1, None]) == (b, 1, 3)
    assert shape(lambda a: a[:-1, [0, 2]]) == (b - 1, 2)
    assert shape(lambda a: a[-1]) == (3,)
    # empty at b = 1: JAX's dim b - min(b, 2) (tests/test_shape_poly_slices.py runs it)
    assert shape(lambda a: a[2:]) == (b - sympy.Min(b, 2), 3)
    f = tjit.jit(lambda a, i: a[i], polymorphic_shapes=["(b, 3)", None])
    for n in (2, 5):
        a = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_array_equal(f(a, -1), a[-1])  # wraps by the runtime size of b
        np.testing.assert_array_equal(f(a, np.array([0, -2])), a[[0, -2]])


def test_symbolic_advanced_indexing_updates_and_routines():
    f = tjit.jit(lambda a: a[::-1, [0, 2]], polymorphic_shapes=["(b, 3)"])
    g = tjit.jit(lambda a, i: a.at[i, 1:].add(1.0), polymorphic_shapes=["(b, 3)", None])
    h = tjit.jit(lambda a: jnp.nonzero(a, size=3)[0], polymorphic_shapes=["(b,)"])
    t = tjit.jit(lambda a, i: jnp.take_along_axis(a, i, 1),
                 polymorphic_shapes=["(b, 3)", "(b, 2)"])
    for n in (2, 4):
        a = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_array_equal(f(a), a[::-1, [0, 2]])
        ref = a.copy()
        ref[-1, 1:] += 1
        np.testing.assert_array_equal(g(a, -1), ref)
        m = np.arange(n) % 2
        np.testing.assert_array_equal(h(m), np.pad(np.nonzero(m)[0], (0, 3))[:3])
        i = np.array([[2, 0]] * n)
        np.testing.assert_array_equal(t(a, i), np.take_along_axis(a, i, 1))


def test_zero_dim_array_indexing():
    x = jnp.asarray(3.0)
    for idx in (None, Ellipsis, (), True, False, (None, ...)):
        assert x[idx].shape == np.asarray(3.0)[idx].shape
    with pytest.raises(IndexError, match="array is 0-dimensional, but 1 were indexed"):
        x[0]


# -- take / take_along_axis / put -----------------------------------------------------------
def test_take():
    a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    i = np.array([[2, -1], [0, 1]])
    for axis in (None, 0, 1, -1):
        np.testing.assert_array_equal(jnp.take(a, i, axis=axis), np.take(a, i, axis=axis))
    np.testing.assert_array_equal(jnp.take(a, np.array([5, -5, 1]), axis=1, mode="wrap"),
                                  np.take(a, [5, -5, 1], axis=1, mode="wrap"))
    np.testing.assert_array_equal(jnp.take(a, np.array([5, -5]), axis=1, mode="clip"),
                                  a[:, [3, 0]])
    filled = jnp.take(a, np.array([4, -5, 2]), axis=1)  # default 'fill': NaN out of bounds
    assert np.isnan(filled[:, :2]).all() and (filled[:, 2] == a[:, 2]).all()
    np.testing.assert_array_equal(jnp.take(a, np.array([12]), fill_value=-1.0), [-1.0])
    np.testing.assert_array_equal(jnp.take(a, 3, axis=1), a[:, 3])
    assert jnp.take(a, np.zeros((0,), int), axis=0).shape == (0, 4)
    with pytest.raises(NotImplementedError, match="mode='raise' is not supported"):
        jnp.take(a, i, mode="raise")
    with pytest.raises(TypeError, match="indices must have an integer dtype"):
        jnp.take(a, np.array([0.5]))
    np.testing.assert_array_equal(jnp.asarray(a).take(np.array([1, 0]), axis=0), a[[1, 0]])


def test_take_along_axis():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    for axis in (0, 1, 2, -1):
        idx = np.argsort(a, axis=axis)
        np.testing.assert_array_equal(jnp.take_along_axis(a, idx, axis),
                                      np.take_along_axis(a, idx, axis))
    idx = rng.integers(-4, 4, (1, 2, 5))  # broadcasts against a's first dim
    idx[0, 0, 0] = 7
    wrapped_then_clipped = np.clip(np.where(idx < 0, idx + 4, idx), 0, 3)
    np.testing.assert_array_equal(jnp.take_along_axis(a, idx, 1, mode="clip"),
                                  np.take_along_axis(a, wrapped_then_clipped, 1))
    flat = np.array([0, 59, -1])
    np.testing.assert_array_equal(jnp.take_along_axis(a, flat, None),
                                  np.take_along_axis(a, flat, None))
    oob = jnp.take_along_axis(a, np.full((3, 1, 5), 9), 1)
    assert np.isnan(oob).all()
    f = tjit.jit(lambda x, i: jnp.take_along_axis(x, i, 2))
    idx = np.argsort(a, axis=2)
    np.testing.assert_array_equal(f(a, idx), np.take_along_axis(a, idx, 2))
    with pytest.raises(ValueError, match="same number of dims"):
        jnp.take_along_axis(a, np.zeros((3, 4), int), 1)


def test_put_and_put_along_axis():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    ref = a.copy()
    np.put(ref, [0, 4, 7], [10, 20], mode="clip")
    np.testing.assert_array_equal(jnp.put(a, np.array([0, 4, 7]), np.array([10, 20]),
                                          mode="clip", inplace=False), ref)
    ref = a.copy()
    np.put(ref, [1, -1, 8], [5], mode="wrap")
    np.testing.assert_array_equal(jnp.put(a, np.array([1, -1, 8]), 5, mode="wrap",
                                          inplace=False), ref)
    with pytest.raises(ValueError, match="cannot modify arrays in-place.*inplace=False"):
        jnp.put(a, 0, 1)
    idx = np.array([[2], [0]])
    ref = a.copy()
    np.put_along_axis(ref, idx, -1, axis=1)
    np.testing.assert_array_equal(jnp.put_along_axis(a, idx, -1, 1, inplace=False), ref)


# -- nonzero and friends -----------------------------------------------------------------------
M = np.array([[0, 3, 0, 1], [2, 0, 0, 5], [0, 0, 7, 0]], np.int32)


def test_nonzero_eager_and_sized():
    for got, ref in zip(jnp.nonzero(M), np.nonzero(M)):
        np.testing.assert_array_equal(got, ref)
    rows, cols = jnp.nonzero(M, size=7, fill_value=(-1, -2))
    np.testing.assert_array_equal(rows, [0, 0, 1, 1, 2, -1, -1])
    np.testing.assert_array_equal(cols, [1, 3, 0, 3, 2, -2, -2])
    rows, _ = jnp.nonzero(M, size=2)
    np.testing.assert_array_equal(rows, [0, 0])
    with pytest.raises(ValueError, match="nonzero on 0d arrays"):
        jnp.nonzero(jnp.asarray(3))


def test_nonzero_family_under_jit():
    f = tjit.jit(lambda m: jnp.nonzero(m, size=7, fill_value=-1))
    np.testing.assert_array_equal(f(M)[0], [0, 0, 1, 1, 2, -1, -1])
    np.testing.assert_array_equal(f(M)[1], [1, 3, 0, 3, 2, -1, -1])
    g = tjit.jit(lambda m: jnp.nonzero(m, size=3))
    np.testing.assert_array_equal(g(M)[1], [1, 3, 0])
    np.testing.assert_array_equal(tjit.jit(lambda m: jnp.flatnonzero(m, size=6))(M),
                                  [1, 3, 4, 7, 10, 0])
    np.testing.assert_array_equal(tjit.jit(lambda m: jnp.argwhere(m, size=5))(M),
                                  np.argwhere(M))
    with pytest.raises(tjit.ConcretizationTypeError, match="size argument of jnp.nonzero must "
                                                           "be statically specified"):
        tjit.jit(jnp.nonzero)(M)


def test_argwhere_flatnonzero_compress_extract():
    np.testing.assert_array_equal(jnp.argwhere(M), np.argwhere(M))
    assert jnp.argwhere(jnp.asarray(5)).shape == np.argwhere(np.array(5)).shape
    np.testing.assert_array_equal(jnp.flatnonzero(M), np.flatnonzero(M))
    cond = np.array([True, False, True])
    np.testing.assert_array_equal(jnp.compress(cond, M, axis=0), np.compress(cond, M, axis=0))
    np.testing.assert_array_equal(jnp.compress(cond[:2], M, axis=1),
                                  np.compress(cond[:2], M, axis=1))
    np.testing.assert_array_equal(jnp.compress(cond, M), np.compress(cond, M))
    got = tjit.jit(lambda c, m: jnp.compress(c, m, axis=1, size=4, fill_value=-9))(
        np.array([False, True, True, False]), M)
    ref = np.full((3, 4), -9)
    ref[:, :2] = M[:, 1:3]
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(jnp.extract(M % 2, M), np.extract(M % 2, M))
    np.testing.assert_array_equal(tjit.jit(lambda m: jnp.extract(m > 2, m, size=4))(M),
                                  [3, 5, 7, 0])


def test_place_and_choose():
    a = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    mask = a % 3 == 0
    ref = a.copy()
    np.place(ref, mask, [10, 20])
    np.testing.assert_array_equal(jnp.place(a, mask, np.array([10, 20]), inplace=False), ref)
    np.testing.assert_array_equal(tjit.jit(lambda m: jnp.place(a, m, np.array([10, 20]),
                                                               inplace=False))(mask), ref)
    choices = [np.arange(4) * k for k in range(1, 4)]
    sel = np.array([0, 2, 1, 2])
    np.testing.assert_array_equal(jnp.choose(sel, choices), np.choose(sel, choices))
    np.testing.assert_array_equal(jnp.choose(np.array([4, -1]), [[1, 2], [3, 4]], mode="wrap"),
                                  np.choose([4, -1], [[1, 2], [3, 4]], mode="wrap"))
    np.testing.assert_array_equal(jnp.choose(np.array([4, -1]), [[1, 2], [3, 4]], mode="clip"),
                                  np.choose([4, -1], [[1, 2], [3, 4]], mode="clip"))
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        jnp.choose(np.array([3]), choices)
    with pytest.raises(tjit.ConcretizationTypeError, match="mode='wrap' or mode='clip'"):
        tjit.jit(lambda s: jnp.choose(s, choices))(sel)


# -- index helpers -----------------------------------------------------------------------------
def test_index_helpers():
    for got, ref in zip(jnp.diag_indices(3, 3), np.diag_indices(3, 3)):
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(jnp.diag_indices_from(np.zeros((4, 4)))[0], np.arange(4))
    with pytest.raises(ValueError, match="all dims of equal length"):
        jnp.diag_indices_from(np.zeros((2, 3)))
    for fn, np_fn in [(jnp.tril_indices, np.tril_indices), (jnp.triu_indices, np.triu_indices)]:
        for got, ref in zip(fn(4, 1, 5), np_fn(4, 1, 5)):
            np.testing.assert_array_equal(got, ref)
    a = np.zeros((3, 5))
    for got, ref in zip(jnp.triu_indices_from(a, -1), np.triu_indices_from(a, -1)):
        np.testing.assert_array_equal(got, ref)
    for got, ref in zip(jnp.tril_indices_from(a), np.tril_indices_from(a)):
        np.testing.assert_array_equal(got, ref)
    ix = jnp.ix_([0, 2], np.array([True, False, True, True]))
    np.testing.assert_array_equal(jnp.asarray(X[0])[ix], X[0][np.ix_([0, 2], [True, False,
                                                                             True, True])])
    assert jnp.s_[1:2] == np.s_[1:2] and jnp.index_exp[0] == (0,)
