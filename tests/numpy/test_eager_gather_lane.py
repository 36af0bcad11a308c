"""The eager advanced-indexing lane (``x[i]``, ``x[:, i]``, ``x[i, 2]``, ``x[i, j]``,
masks, ``jnp.take``) against two references: the general gather path (the lane
disabled, and the reference interpreter under ``jit``) and a NumPy expression written
from JAX's documented rules (negative indices wrap, out-of-bounds ones clamp for ``x[i]``
and fill for ``take``). Values, dtype, shape and weak type must all match."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.numpy import _eager_gather, _index_routines, _indexing

_RNG = np.random.default_rng(14)


def _jc(i, n):
    """JAX's ``x[i]`` index rule along a dim of size ``n``, in int64: wrap, then clamp."""
    i = np.asarray(i)
    if i.dtype == np.uint64:
        i = np.minimum(i, np.uint64(2**62))
    i = i.astype(np.int64)
    return np.clip(np.where(i < 0, i + n, i), 0, n - 1)


def _take_fill(xn, i, axis):
    """JAX's ``take`` (mode 'fill'): wrap negatives; out of bounds gives the fill value
    (NaN, the int min, the uint max, True)."""
    n = xn.shape[axis]
    i = np.asarray(i).astype(np.int64)
    i = np.where(i < 0, i + n, i)
    ok = (i >= 0) & (i < n)
    out = np.take(xn, np.clip(i, 0, n - 1), axis)
    ok = ok.reshape((1,) * axis + ok.shape + (1,) * (xn.ndim - axis - 1))
    return np.where(ok, out, _fill_of(xn.dtype))


def _fill_of(dt):
    """JAX's gather fill value: NaN, the int min, the uint max, True."""
    if dt.kind in "fc":
        return np.asarray(np.nan, dt)
    if dt.kind in "iu":
        return np.asarray(np.iinfo(dt).min if dt.kind == "i" else np.iinfo(dt).max, dt)
    return np.asarray(True)


def _arr(shape, dtype):
    v = _RNG.normal(size=shape) * 10
    if np.dtype(dtype).kind == "c":
        v = v + 1j * _RNG.normal(size=shape)
    return np.asarray(v).astype(dtype)


_F = np.float32
_IDX = np.array([1, 5, -1, 30, -30, 0])           # in bounds, negative, both ways out
_IDX2 = np.array([[0, -2], [7, 3]])


def _cases():
    """(name, x (NumPy), tjit index builder from x's NumPy value, NumPy reference)."""
    c = []
    for idt in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64):
        i = _IDX.astype(idt) if np.dtype(idt).kind == "i" else np.abs(_IDX).astype(idt)
        c.append((f"a[i] {np.dtype(idt).name} index", _arr((10, 3), _F),
                  lambda x, i=i: jnp.asarray(i) if i.dtype.itemsize <= 4 else i,
                  lambda xn, i=i: xn[_jc(i, 10)]))
    c.append(("a[u64 huge]", _arr((10, 3), _F), lambda x: np.array([2**64 - 1], np.uint64),
              lambda xn: xn[[9]]))
    for dt in (np.float16, np.int8, np.bool_, np.complex64, np.uint16):
        c.append((f"a[i] of {np.dtype(dt).name}", _arr((10, 3), dt),
                  lambda x: jnp.asarray(_IDX), lambda xn: xn[_jc(_IDX, 10)]))
        c.append((f"a[:, i] of {np.dtype(dt).name}", _arr((3, 10), dt),
                  lambda x: (slice(None), jnp.asarray(_IDX)),
                  lambda xn: xn[:, _jc(_IDX, 10)]))
    c += [
        ("a[..., i]", _arr((2, 3, 10), _F), lambda x: (Ellipsis, jnp.asarray(_IDX)),
         lambda xn: xn[..., _jc(_IDX, 10)]),
        ("a[i, 2]", _arr((10, 4), _F), lambda x: (jnp.asarray(_IDX), 2),
         lambda xn: xn[_jc(_IDX, 10), 2]),
        ("a[i, -1]", _arr((10, 4), _F), lambda x: (jnp.asarray(_IDX), -1),
         lambda xn: xn[_jc(_IDX, 10), 3]),
        ("a[i, 5] (a static int beside arrays clamps)", _arr((10, 4), _F),
         lambda x: (jnp.asarray(_IDX), 5), lambda xn: xn[_jc(_IDX, 10), 3]),
        ("a[i, -7]", _arr((10, 4), _F), lambda x: (jnp.asarray(_IDX), -7),
         lambda xn: xn[_jc(_IDX, 10), 0]),
        ("a[2d i]", _arr((10, 4), _F), lambda x: jnp.asarray(_IDX2),
         lambda xn: xn[_jc(_IDX2, 10)]),
        ("a[i, j]", _arr((10, 4), _F), lambda x: (jnp.asarray(_IDX), jnp.asarray(_IDX[::-1])),
         lambda xn: xn[_jc(_IDX, 10), _jc(_IDX[::-1], 4)]),
        ("a[i, :, j] (adv dims first)", _arr((10, 3, 4), _F),
         lambda x: (jnp.asarray(_IDX2), slice(None), jnp.asarray([1, -1])),
         lambda xn: xn[_jc(_IDX2, 10), :, _jc([1, -1], 4)]),
        ("a[None, i, 1:3]", _arr((10, 4), _F),
         lambda x: (None, jnp.asarray(_IDX), slice(1, 3)),
         lambda xn: xn[None, _jc(_IDX, 10), 1:3]),
        ("a[0-d i, j]", _arr((10, 4), _F), lambda x: (jnp.asarray(-3), jnp.asarray([0, 9])),
         lambda xn: xn[7, _jc([0, 9], 4)]),
        ("a[0-d int64 i, j]", _arr((10, 4), _F),
         lambda x: (np.array(-3), np.array([0, 9])), lambda xn: xn[7, _jc([0, 9], 4)]),
        ("a[list]", _arr((10, 4), _F), lambda x: [0, 2, -1, -10],
         lambda xn: xn[[0, 2, 9, 0]]),
        ("a[:, nested list]", _arr((3, 4), _F), lambda x: (slice(None), [[3], [-4]]),
         lambda xn: xn[:, [[3], [0]]]),
        ("a[[1, True]]", _arr((3, 4), _F), lambda x: [1, True], lambda xn: xn[[1, 1]]),
        ("a[empty i]", _arr((10, 4), _F), lambda x: jnp.zeros((0,), jnp.int32),
         lambda xn: xn[np.zeros((0,), np.int64)]),
        ("a[i] of (5, 0)", _arr((5, 0), _F), lambda x: jnp.asarray([1, -1, 9]),
         lambda xn: xn[[1, 4, 4]]),
        ("non-contiguous a[::2][:, i]", _arr((20, 10), _F),
         lambda x: (slice(None), jnp.asarray(_IDX)),
         lambda xn: xn[:, _jc(_IDX, 10)]),
        ("a[a > 0]", _arr((6, 5), _F), lambda x: jnp.asarray(x > 0), lambda xn: xn[xn > 0]),
        ("a[:, m]", _arr((6, 5), _F), lambda x: (slice(None), np.array([1, 0, 1, 1, 0], bool)),
         lambda xn: xn[:, [0, 2, 3]]),
        ("a[m] all False", _arr((6, 5), np.int8), lambda x: jnp.zeros((6, 5), bool),
         lambda xn: xn[np.zeros((6, 5), bool)]),
    ]
    return c


_CASES = _cases()


def _x(name, xn):
    x = jnp.asarray(xn)
    return x[::2] if name.startswith("non-contiguous") else x


def _same(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.weak_type == want.weak_type
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


@pytest.fixture
def no_lane(monkeypatch):
    """Runs a thunk with the eager advanced-indexing lane switched off."""
    def run(thunk):
        with monkeypatch.context() as m:
            m.setattr(_indexing, "eager_getitem", lambda *a: None)
            m.setattr(_index_routines, "eager_take", lambda *a: None)
            return thunk()
    return run


@pytest.mark.parametrize("name,xn,make,ref", _CASES, ids=[c[0] for c in _CASES])
@pytest.mark.parametrize("weak", [False, True])
def test_getitem_lane_matches_general_path_and_numpy(name, xn, make, ref, weak, no_lane):
    x = _x(name, xn)
    if weak:
        x = tjit.tracing.core.Array(np.asarray(x), True) if x.dtype.kind in "fc" else x
    idx = make(np.asarray(x))
    got = x[idx]
    assert _eager_gather.eager_getitem(x, idx) is not None  # the lane serves the case
    assert not isinstance(idx, list) or _eager_gather.eager_getitem(x, [99]) is None
    _same(got, no_lane(lambda: x[idx]))
    if not name.startswith(("a[a > 0]", "a[:, m]", "a[m]")):  # masks need concrete values
        _same(got, tjit.jit(lambda y: y[idx], backend="interpreter")(x))
    want = ref(np.asarray(x))
    assert got.dtype == want.dtype and got.weak_type == x.weak_type
    np.testing.assert_array_equal(np.asarray(got), want)


_TAKE = [(dt, axis, mode) for dt in (np.float32, np.float16, np.int8, np.uint8, np.bool_,
                                     np.complex64)
         for axis in (0, 1, -1, None) for mode in (None, "fill", "clip")]


@pytest.mark.parametrize("dt,axis,mode", _TAKE)
@pytest.mark.parametrize("idt", [np.int32, np.int8, np.uint8])
def test_take_lane_matches_general_path_and_numpy(dt, axis, mode, idt, no_lane):
    x = jnp.asarray(_arr((4, 6), dt))
    raw = np.array([[0, 3, -1], [-4, 9, 5]]) if idt != np.uint8 else np.array([0, 3, 200])
    i = jnp.asarray(raw.astype(idt))
    got = jnp.take(x, i, axis=axis, mode=mode)
    assert _eager_gather.eager_take(x, i, axis, mode, None) is not None
    _same(got, no_lane(lambda: jnp.take(x, i, axis=axis, mode=mode)))
    _same(got, tjit.jit(lambda y, j: jnp.take(y, j, axis=axis, mode=mode),
                        backend="interpreter")(x, i))
    xn = np.asarray(x) if axis is not None else np.asarray(x).reshape(-1)
    ax = 0 if axis is None else axis % 2
    if mode == "clip":
        want = np.take(xn, np.asarray(i).astype(np.int64), ax, mode="clip")
    else:
        want = _take_fill(xn, np.asarray(i), ax)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_take_lane_0d_index_and_empty(no_lane):
    x = jnp.arange(12.0).reshape(3, 4)
    for i, axis in ((jnp.asarray(-1), 1), (jnp.asarray(7), 0), (jnp.zeros((0,), int), 1)):
        got = jnp.take(x, i, axis=axis)
        _same(got, no_lane(lambda i=i, axis=axis: jnp.take(x, i, axis=axis)))


def test_lane_leaves_errors_to_the_general_path():
    x = jnp.ones((4, 3))
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[jnp.asarray([True, False])]
    with pytest.raises(IndexError):
        x[jnp.asarray([0]), jnp.asarray([0]), jnp.asarray([0])]
    with pytest.raises((IndexError, ValueError)):
        x[jnp.asarray([0, 1]), jnp.asarray([0, 1, 2])]
    with pytest.raises(IndexError, match="size 0"):
        jnp.ones((0, 3))[jnp.asarray([0])]


# -- x.at[i].set/add/subtract/multiply with an index array ---------------------------------
_OPS = {"set": lambda old, new: new, "add": np.add, "subtract": np.subtract,
        "multiply": np.multiply}


def _scatter_loop(xn, i, yn, op):
    """JAX's scatter as a Python loop over the updates in order: negative indices wrap,
    out-of-bounds updates are dropped, duplicates combine one after another."""
    out = xn.copy()
    n = xn.shape[0]
    i = np.asarray(i).astype(np.int64)
    yb = np.broadcast_to(yn, i.shape + xn.shape[1:])
    with np.errstate(all="ignore"):
        for p in np.ndindex(*i.shape):
            k = i[p] + n if i[p] < 0 else i[p]
            if 0 <= k < n:
                out[k] = _OPS[op](out[k], yb[p]).astype(xn.dtype)
    return out


_UFUNCS = {"set": None, "add": np.add, "subtract": np.subtract, "multiply": np.multiply}
_SCATTER = []
for _dt in (np.float32, np.float16, np.int8, np.uint8, np.complex64, np.bool_):
    for _op in (("set",) if _dt == np.bool_ else tuple(_OPS)):
        for _vals in ("scalar int", "scalar float", "array", "row", "leading 1"):
            if _vals == "scalar float" and np.dtype(_dt).kind not in "fc":
                continue
            _SCATTER.append((_dt, _op, _vals))


def _scatter_values(dt, vals, ishape, rest):
    if vals == "scalar int":
        return True if dt == np.bool_ else 3
    if vals == "scalar float":
        return 0.1
    shape = {"array": ishape + rest, "row": rest, "leading 1": (1,) + ishape + rest}[vals]
    return jnp.asarray(_arr(shape, dt))


@pytest.mark.parametrize("dt,op,vals", _SCATTER)
@pytest.mark.parametrize("idt", [np.int32, np.int8, np.uint8, np.int64])
def test_at_update_lane_matches_general_path_and_loop(dt, op, vals, idt, monkeypatch):
    x = jnp.asarray(_arr((6, 3), dt))
    raw = np.array([[1, -1, 7], [1, 0, -9]]) if idt != np.uint8 else np.array([[1, 5, 7]])
    i = raw.astype(idt) if idt == np.int64 else jnp.asarray(raw.astype(idt))
    y = _scatter_values(dt, vals, raw.shape, (3,))
    got = getattr(x.at[i], op)(y)
    lane = _eager_gather.eager_scatter(np.asarray(x), i, np.asarray(y) if
                                       isinstance(y, tjit.Array) else y, _UFUNCS[op])
    assert lane is not None or (dt in (np.float16, np.complex64) and
                                (vals == "scalar float" or op == "multiply"))
    _same(got, tjit.jit(lambda a, b: getattr(a.at[i], op)(b), backend="interpreter")(x, y)
          if isinstance(y, tjit.Array) else
          tjit.jit(lambda a: getattr(a.at[i], op)(y), backend="interpreter")(x))
    with monkeypatch.context() as m:
        m.setattr(_indexing, "eager_scatter", lambda *a: None)
        _same(got, getattr(x.at[i], op)(y))
    yn = np.asarray(y)
    if yn.ndim > raw.ndim + 1:
        yn = yn[0]
    want = _scatter_loop(np.asarray(x), np.asarray(i), yn.astype(np.asarray(x).dtype), op)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_at_update_lane_2d_rows_and_empty(monkeypatch):
    x = jnp.asarray(_arr((5, 2, 3), np.float32))
    for i in (jnp.asarray([4, -5, 4, 2]), jnp.zeros((0,), jnp.int32)):
        got = x.at[i].add(1.5)
        with monkeypatch.context() as m:
            m.setattr(_indexing, "eager_scatter", lambda *a: None)
            _same(got, x.at[i].add(1.5))


# -- take_along_axis -------------------------------------------------------------------------
def _along_ref(xn, k, axis, mode):
    """JAX's take_along_axis: wrap negatives; out of bounds fills, or clamps for 'clip'."""
    n = xn.shape[axis]
    k = np.asarray(k).astype(np.int64)
    k = np.where(k < 0, k + n, k)
    out = np.take_along_axis(xn, np.clip(k, 0, n - 1), axis)
    if mode == "clip":
        return out
    ok = (k >= 0) & (k < n)
    return np.where(ok, out, _fill_of(xn.dtype))


_ALONG = [("2-d axis 1", (4, 6), (4, 3), 1), ("2-d axis 0", (4, 6), (2, 6), 0),
          ("broadcast a", (1, 6), (3, 2), 1), ("broadcast i", (4, 6), (1, 5), 1),
          ("3-d axis -1", (2, 3, 5), (2, 3, 4), -1), ("axis None", (3, 4), (5,), None),
          ("empty", (4, 6), (4, 0), 1)]


@pytest.mark.parametrize("name,shape,ishape,axis", _ALONG, ids=[c[0] for c in _ALONG])
@pytest.mark.parametrize("mode", [None, "clip"])
@pytest.mark.parametrize("dt,idt", [(np.float32, np.int32), (np.int8, np.int8),
                                    (np.bool_, np.uint8), (np.float16, np.int16)])
def test_take_along_axis_lane(name, shape, ishape, axis, mode, dt, idt, no_lane,
                              monkeypatch):
    x = jnp.asarray(_arr(shape, dt))
    n = int(np.prod(shape)) if axis is None else shape[axis]
    raw = _RNG.integers(-2 * n, 2 * n, size=ishape)
    i = jnp.asarray((np.abs(raw) if np.dtype(idt).kind == "u" else raw).astype(idt))
    got = jnp.take_along_axis(x, i, axis=axis, mode=mode)
    assert _eager_gather.eager_take_along_axis(x, i, axis, mode, None) is not None
    with monkeypatch.context() as m:
        m.setattr(_index_routines, "eager_take_along_axis", lambda *a: None)
        _same(got, jnp.take_along_axis(x, i, axis=axis, mode=mode))
    _same(got, tjit.jit(lambda y, j: jnp.take_along_axis(y, j, axis=axis, mode=mode),
                        backend="interpreter")(x, i))
    xn = np.asarray(x).reshape(-1) if axis is None else np.asarray(x)
    want = _along_ref(xn, np.asarray(i), 0 if axis is None else axis, mode)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_take_along_axis_lane_in_bounds_and_errors():
    x = jnp.asarray(_arr((4, 6), np.float32))
    i = jnp.asarray(np.argsort(np.asarray(x), axis=1).astype(np.int32))
    np.testing.assert_array_equal(np.asarray(jnp.take_along_axis(x, i, axis=1)),
                                  np.sort(np.asarray(x), axis=1))
    with pytest.raises(ValueError):
        jnp.take_along_axis(x, jnp.zeros((3, 2), jnp.int32), axis=1)  # 4 vs 3
    with pytest.raises(ValueError, match="same number of dims"):
        jnp.take_along_axis(x, jnp.zeros((2,), jnp.int32), axis=1)


@pytest.mark.parametrize("op", ["set", "add", "multiply"])
def test_at_update_lane_keeps_weak_type(op, monkeypatch):
    x = tjit.tracing.core.Array(np.arange(5, dtype=np.float32), True)
    i = jnp.asarray([0, 3, 3, -1])
    for y in (jnp.asarray(np.full(4, 1.5, np.float32)), 2.0):
        got = getattr(x.at[i], op)(y)
        with monkeypatch.context() as m:
            m.setattr(_indexing, "eager_scatter", lambda *a: None)
            _same(got, getattr(x.at[i], op)(y))
