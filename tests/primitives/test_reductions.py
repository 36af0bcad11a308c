"""Reductions, arg-reductions, cumulative ops and sort: op records against NumPy (with
independent references for wrapping, identities and stability), symbolic shapes and
error messages."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.primitives import reductions as rd
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import symbol
from tests.primitives.harness import OpRecord, check_record

F32, F64, I32, I8, U8, BOOL = "float32", "float64", "int32", "int8", "uint8", "bool"
A = tjit.numpy.asarray


def with_nans(rng, shape):
    v = rng.standard_normal(shape)
    v[rng.random(shape) < 0.3] = np.nan
    return v


def ties(rng, shape):
    return rng.integers(0, 3, shape)


def signed_zeros(rng, shape):
    return rng.choice([-0.0, 0.0, 1.0, -1.0, np.nan], shape)


RECORDS = []


def rec(name, fn, ref, args, prims, **kw):
    RECORDS.append(OpRecord(name, fn, ref, tuple(args), tuple(prims), **kw))


def _identity_ref(np_fn, ident):
    """NumPy reduction that returns ``ident`` on empty reductions (NumPy may raise)."""
    def ref(x, axes):
        if any(x.shape[a] == 0 for a in axes):
            return np.full([d for i, d in enumerate(x.shape) if i not in axes], ident(x.dtype),
                           x.dtype)
        return np_fn(x, axis=axes)
    return ref


def _low(dt):
    return False if dt == np.bool_ else (np.iinfo(dt).min if dt.kind in "iu" else -np.inf)


def _high(dt):
    return True if dt == np.bool_ else (np.iinfo(dt).max if dt.kind in "iu" else np.inf)


_REDUCERS = {
    "reduce_sum": (lax.reduce_sum, lambda x, axes: np.sum(x, axis=axes, dtype=x.dtype)),
    "reduce_prod": (lax.reduce_prod, lambda x, axes: np.prod(x, axis=axes, dtype=x.dtype)),
    "reduce_max": (lax.reduce_max, _identity_ref(np.max, _low)),
    "reduce_min": (lax.reduce_min, _identity_ref(np.min, _high)),
    "reduce_and": (lax.reduce_and, lambda x, axes: np.bitwise_and.reduce(
        x, axis=axes) if x.dtype != np.bool_ else np.all(x, axis=axes)),
    "reduce_or": (lax.reduce_or, lambda x, axes: np.bitwise_or.reduce(
        x, axis=axes) if x.dtype != np.bool_ else np.any(x, axis=axes)),
    "reduce_xor": (lax.reduce_xor, lambda x, axes: np.bitwise_xor.reduce(
        x, axis=axes) if x.dtype != np.bool_ else np.sum(x, axis=axes) % 2 == 1),
}
_CASES = {
    "reduce_sum": [((3, 4), (1,), F32), ((3, 4), (0, 1), I32), ((2, 3, 4), (0, 2), F32),
                   ((0, 4), (0,), F32), ((0, 4), (1,), I32), ((), (), F32), ((5,), (0,), I8)],
    "reduce_prod": [((3, 4), (1,), F32), ((2, 3), (0,), I32), ((0, 3), (0,), F32)],
    "reduce_max": [((3, 4), (1,), F32, with_nans), ((3, 4), (0, 1), I32), ((0, 3), (0,), F32),
                   ((0, 3), (0,), I8), ((4, 5), (1,), BOOL), ((0,), (0,), BOOL),
                   ((), (), I32)],
    "reduce_min": [((3, 4), (0,), F32, with_nans), ((3, 4), (1,), I32), ((0, 3), (0,), F32),
                   ((2, 0), (1,), U8), ((4, 5), (0, 1), BOOL)],
    "reduce_and": [((4, 5), (1,), BOOL), ((4, 5), (0, 1), I32), ((0, 3), (0,), U8),
                   ((0, 3), (0,), BOOL), ((3, 2), (0,), I8)],
    "reduce_or": [((4, 5), (0,), BOOL), ((4, 5), (1,), I32), ((0, 3), (0,), I32)],
    "reduce_xor": [((4, 5), (1,), BOOL), ((4, 5), (0, 1), U8), ((0, 2), (0,), I32)],
}
for _name, _cases in _CASES.items():
    _fn, _ref = _REDUCERS[_name]
    for _shape, _axes, _dt, *_kind in _cases:
        _spec = (_shape, _dt, _kind[0]) if _kind else (_shape, _dt)
        rec(f"{_name}_{_shape}_{_axes}_{_dt}", lambda x, f=_fn, a=_axes: f(x, a),
            lambda x, r=_ref, a=_axes: r(x, a), [_spec], [_name] if _axes else [])

rec("reduce_sum_int8_wraps", lambda x: lax.reduce_sum(x, (0,)),
    lambda x: np.int8((int(x.astype(np.int64).sum()) + 128) % 256 - 128),
    [((8,), I8, lambda rng, s: rng.integers(100, 127, s))], ["reduce_sum"])
rec("reduce_prod_int32_wraps", lambda x: lax.reduce_prod(x, (0,)),
    lambda x: np.int32((int(np.prod([int(v) for v in x], dtype=object)) + 2 ** 31) % 2 ** 32
                       - 2 ** 31),
    [((12,), I32, lambda rng, s: rng.integers(1000, 3000, s))], ["reduce_prod"])
rec("reduce_sum_f16_accumulates", lambda x: lax.reduce_sum(x, (0,)),
    lambda x: np.float16(x.astype(np.float64).sum()),
    [((4000,), "float16", lambda rng, s: rng.uniform(0.5, 1.0, s))], ["reduce_sum"],
    rtol=2e-3)
rec("reduce_negative_axis", lambda x: lax.reduce_max(x, (-1,)), lambda x: x.max(-1),
    [((3, 4), F32)], ["reduce_max"])
rec("lax_reduce_monoid", lambda x: lax.reduce(x, 10.0, lax.add, (0,)),
    lambda x: x.sum(0) + 10, [((3, 4), F32)], ["reduce_sum", "add"])
rec("lax_reduce_max_init", lambda x: lax.reduce(x, 0, lax.max, (1,)),
    lambda x: np.maximum(x.max(1), 0), [((3, 4), I32)], ["reduce_max", "max"])


# -- argmax / argmin ---------------------------------------------------------------------------
def _first_arg(x, axis, pick):
    """Loop reference: first index of the max/min, NaN counting as the extreme."""
    x = np.moveaxis(x, axis, -1)
    out = np.zeros(x.shape[:-1], np.int32)
    for idx in np.ndindex(*x.shape[:-1]):
        row = list(x[idx])
        nan = [i for i, v in enumerate(row) if v != v]
        out[idx] = nan[0] if nan else row.index(pick(row))
    return out


for _shape, _axis, _dt, *_kind in [((3, 6), 1, F32, with_nans), ((5,), 0, F32, with_nans),
                                   ((4, 7), 0, I32, ties), ((4, 5), 1, BOOL),
                                   ((2, 3, 4), 1, F32), ((3, 0), 0, I32)]:
    _spec = (_shape, _dt, _kind[0]) if _kind else (_shape, _dt)
    for _name, _fn, _pick in [("argmax", lax.argmax, max), ("argmin", lax.argmin, min)]:
        rec(f"{_name}_{_shape}_{_axis}_{_dt}",
            lambda x, f=_fn, a=_axis: f(x, a, np.int32),
            lambda x, a=_axis, p=_pick: _first_arg(x, a, p), [_spec], [_name])
rec("argmax_index_dtype_int8", lambda x: lax.argmax(x, 0, np.int8),
    lambda x: np.argmax(x, 0).astype(np.int8), [((6, 2), F32)], ["argmax"])


# -- cumulative -------------------------------------------------------------------------------
def _cum_ref(op, x, axis, reverse):
    """Python-loop scan along ``axis``."""
    x = np.moveaxis(x, axis, -1)
    out = np.empty_like(x)
    for idx in np.ndindex(*x.shape[:-1]):
        row = x[idx][::-1] if reverse else x[idx]
        acc, vals = None, []
        for v in row:
            acc = v if acc is None else op(acc, v)
            vals.append(acc)
        out[idx] = vals[::-1] if reverse else vals
    return np.moveaxis(out, -1, axis)


def _nanmax(a, b):
    return a if a != a else (b if b != b else max(a, b))


def _nanmin(a, b):
    return a if a != a else (b if b != b else min(a, b))


_CUMS = {"cumsum": (lax.cumsum, lambda a, b: a + b), "cumprod": (lax.cumprod, lambda a, b: a * b),
         "cummax": (lax.cummax, _nanmax), "cummin": (lax.cummin, _nanmin)}
for _name, (_fn, _op) in _CUMS.items():
    for _shape, _axis, _rev, _dt, *_kind in [
            ((6,), 0, False, F32), ((3, 5), 1, True, F32), ((4, 3), 0, True, I32),
            ((0, 3), 0, False, F32), ((2, 0), 1, True, I32), ((2, 3, 4), 2, False, F32)]:
        _spec = (_shape, _dt, _kind[0]) if _kind else (_shape, _dt)
        rec(f"{_name}_{_shape}_{_axis}_{_rev}_{_dt}",
            lambda x, f=_fn, a=_axis, r=_rev: f(x, a, r),
            lambda x, o=_op, a=_axis, r=_rev: _cum_ref(o, x, a, r), [_spec], [_name],
            rtol=1e-5)
rec("cummax_nan", lambda x: lax.cummax(x, 1), lambda x: _cum_ref(_nanmax, x, 1, False),
    [((3, 6), F32, with_nans)], ["cummax"])
rec("cummin_nan_reverse", lambda x: lax.cummin(x, 0, reverse=True),
    lambda x: _cum_ref(_nanmin, x, 0, True), [((6, 2), F32, with_nans)], ["cummin"])
rec("cummax_bool", lambda x: lax.cummax(x, 0), lambda x: _cum_ref(max, x, 0, False),
    [((7,), BOOL)], ["cummax"])
rec("cumsum_int8_wraps", lambda x: lax.cumsum(x),
    lambda x: ((np.cumsum(x.astype(np.int64)) + 128) % 256 - 128).astype(np.int8),
    [((6,), I8, lambda rng, s: rng.integers(90, 127, s))], ["cumsum"])


# -- sort -------------------------------------------------------------------------------------
def _stable_order(keys, axis):
    """Loop reference of a stable lexicographic sort: Python's sorted on tuples, NaN last."""
    def k(v):
        return (1, 0.0) if v != v else (0, v)
    moved = [np.moveaxis(key, axis, -1) for key in keys]
    perm = np.zeros(moved[0].shape, np.int64)
    for idx in np.ndindex(*moved[0].shape[:-1]):
        n = moved[0].shape[-1]
        perm[idx] = sorted(range(n), key=lambda i: tuple(k(m[idx][i]) for m in moved))
    return np.moveaxis(perm, -1, axis)


def _sort_ref(operands, axis, num_keys):
    perm = _stable_order(operands[:num_keys], axis)
    return [np.take_along_axis(o, perm, axis) for o in operands]


for _shapes, _dts, _axis, _nk, _kinds in [
        ([(7,)], [F32], 0, 1, [with_nans]),
        ([(4, 6)], [I32], 1, 1, [ties]),
        ([(5, 3)], [F32], 0, 1, [None]),
        ([(9,), (9,)], [F32, I32], 0, 1, [signed_zeros, None]),   # stability with -0.0/0.0
        ([(8,), (8,), (8,)], [I32, F32, I32], 0, 2, [ties, with_nans, None]),
        ([(3, 6), (3, 6)], [BOOL, I32], 1, 1, [None, None]),
        ([(3, 0)], [F32], 1, 1, [None]),
        ([(2, 5), (2, 5)], [I8, U8], 1, 2, [ties, ties])]:
    _specs = [(s, d, k) if k else (s, d) for s, d, k in zip(_shapes, _dts, _kinds)]
    rec(f"sort_{_shapes}_{_dts}_{_axis}_{_nk}",
        lambda *xs, a=_axis, k=_nk: rd.sort_p.bind(*xs, dimension=a, is_stable=True,
                                                   num_keys=k),
        lambda *xs, a=_axis, k=_nk: _sort_ref(xs, a, k), _specs, ["sort"])
rec("sort_key_val_indices", lambda x: lax.sort_key_val(
    x, lax.broadcasted_iota(np.int32, x.shape, 0))[1],
    lambda x: _stable_order([x], 0).astype(np.int32), [((12,), F32, signed_zeros)], ["sort"])
rec("lax_sort_single", lambda x: lax.sort(x, dimension=0), lambda x: np.sort(x, 0),
    [((6, 3), F32, with_nans)], ["sort"])


def _np_top_k(x, k):
    """Loop reference: NaNs first, then descending values; ties keep ascending index."""
    n = x.shape[-1]
    rows = x.reshape(-1, n)
    idx = np.array([sorted(range(n),
                           key=lambda i, r=r: (0, 0) if r[i] != r[i] else (1, -float(r[i])))
                    for r in rows]).reshape(x.shape)[..., :k].astype(np.int32)
    return [np.take_along_axis(x, idx, -1), idx]


def _np_top_k_axis(x, k, axis):
    vals, idx = _np_top_k(np.moveaxis(x, axis, -1), k)
    return [np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)]


def many_ties(rng, shape):
    """Ties across the k-th largest value (the selection must take the lowest indices)."""
    return rng.choice([-0.0, 0.0, 1.0, 2.0, np.inf, -np.inf], shape)


rec("top_k", lambda x: lax.top_k(x, 3), lambda x: _np_top_k(x, 3),
    [((4, 7), F32, with_nans)], ["top_k"])
rec("top_k_ties", lambda x: lax.top_k(x, 4), lambda x: _np_top_k(x, 4),
    [((2, 6), I32, ties)], ["top_k"])
for _name, _k, _axis, _spec in [
        ("f32_signed_zeros", 5, -1, ((3, 11), F32, signed_zeros)),
        ("f32_many_ties", 4, -1, ((5, 9), F32, many_ties)),
        ("f64_nans", 2, -1, ((3, 8), F64, with_nans)),
        ("i8_ties_axis0", 3, 0, ((7, 4), I8, ties)),
        ("u8", 2, 1, ((2, 5, 3), U8)),
        ("bool", 3, -1, ((4, 6), BOOL)),
        ("k0", 0, -1, ((3, 4), F32)),
        ("k_all", 6, -1, ((2, 6), F32, with_nans)),
        ("axis0_3d", 2, 0, ((5, 2, 3), F32, many_ties)),
        ("empty_rows", 2, -1, ((0, 4), F32))]:
    rec(f"top_k_{_name}", lambda x, k=_k, a=_axis: lax.top_k(x, k, axis=a),
        lambda x, k=_k, a=_axis: _np_top_k_axis(x, k, a), [_spec], ["top_k"])


@pytest.mark.parametrize("record", RECORDS, ids=str)
def test_record(record):
    check_record(record)


def test_f64_records(x64):
    for r in [OpRecord("sum_f64", lambda x: lax.reduce_sum(x, (0,)), lambda x: x.sum(0),
                       (((5, 3), F64),), rtol=1e-12),
              OpRecord("cumsum_f64", lambda x: lax.cumsum(x, 1, True),
                       lambda x: np.cumsum(x[:, ::-1], 1)[:, ::-1], (((2, 5), F64),)),
              OpRecord("sort_f64", lambda x: lax.sort(x), lambda x: np.sort(x),
                       (((9,), F64, with_nans),)),
              OpRecord("argmax_i64", lambda x: lax.argmax(x, 0, np.int64),
                       lambda x: np.argmax(x), (((9,), F64, with_nans),))]:
        closed = check_record(r)
        assert closed.out_avals[0].dtype in (np.float64, np.int64)


def test_weak_types():
    w = lax.broadcast(A(2.0), (3,))  # weakly typed f32
    assert w.weak_type
    assert lax.reduce_sum(w, (0,)).weak_type
    assert lax.cumsum(w).weak_type
    assert not lax.argmax(w, 0, np.int32).weak_type
    k, v = lax.sort_key_val(w, A(np.arange(3, dtype=np.int32)))
    assert k.weak_type and not v.weak_type
    k, v = tjit.jit(lambda w, i: lax.sort_key_val(w, i))(w, A(np.arange(3, dtype=np.int32)))
    assert k.weak_type and not v.weak_type


# -- symbolic shapes ----------------------------------------------------------------------------
b = symbol("b")


def _out_avals(fn, specs, *args):
    return tjit.make_jaxpr(fn, polymorphic_shapes=specs)(*args).out_avals


def test_symbolic_reduce_sum_batch():
    x = np.zeros((2, 784), np.float32)
    (out,) = _out_avals(lambda x: lax.reduce_sum(x, (1,)), ["(b, 784)"], x)
    assert out.shape == (b,)
    (out,) = _out_avals(lambda x: lax.reduce_max(x, (0,)), ["(b, 784)"], x)
    assert out.shape == (784,)


def test_symbolic_arg_cum_sort():
    x = np.zeros((3, 10), np.float32)
    (am,) = _out_avals(lambda x: lax.argmax(x, 1, np.int32), ["(b, 10)"], x)
    assert am.shape == (b,) and am.dtype == np.int32
    (c,) = _out_avals(lambda x: lax.cumsum(x, 0), ["(b, 10)"], x)
    assert c.shape == (b, 10)
    s, i = _out_avals(lambda x: lax.sort_key_val(x, lax.convert_element_type(x, np.int32), 0),
                      ["(b, 10)"], x)
    assert s.shape == i.shape == (b, 10) and i.dtype == np.int32


def test_symbolic_jit_runs_for_several_sizes():
    f = tjit.jit(lambda x: (lax.reduce_sum(x, (1,)), lax.sort(x, 0), lax.argmin(x, 0, np.int32)),
                 polymorphic_shapes=["(b, 4)"])
    rng = np.random.default_rng(1)
    for n in (1, 3, 6):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        s, srt, am = f(x)
        np.testing.assert_allclose(s, x.sum(1), rtol=1e-6)
        np.testing.assert_array_equal(srt, np.sort(x, 0))
        np.testing.assert_array_equal(am, np.argmin(x, 0))
    assert f.trace_count == 1


# -- errors -------------------------------------------------------------------------------------
def test_reduce_errors():
    x = A(np.zeros((3, 4), np.float32))
    with pytest.raises(ShapeError, match=r"reduce_sum: axis 2 is out of bounds for an array "
                                         r"of rank 2"):
        lax.reduce_sum(x, (2,))
    with pytest.raises(ShapeError, match=r"reduce_sum: axes \(1, 1\) must be unique ints"):
        rd.reduce_sum_p.bind(x, axes=(1, 1))
    with pytest.raises(TypeError, match=r"reduce_and: operand must have an integer or bool "
                                        r"dtype, got float32"):
        lax.reduce_and(x, (0,))
    with pytest.raises(TypeError, match=r"reduce_sum: operand must have a numeric \(non-bool\)"):
        lax.reduce_sum(A(np.zeros(3, bool)), (0,))
    with pytest.raises(TypeError, match=r"lax.reduce: computation must return"):
        lax.reduce(x, 0.0, lambda a, b: (a, b), (0,))


def test_argmax_errors():
    with pytest.raises(ShapeError, match=r"argmax: the reduced dimension 0 of shape \(0, 3\) "
                                         r"is empty"):
        lax.argmax(A(np.zeros((0, 3), np.float32)), 0, np.int32)
    with pytest.raises(TypeError, match=r"argmin: index_dtype must be an integer dtype"):
        lax.argmin(A(np.zeros(3, np.float32)), 0, np.float32)


def test_cumulative_errors():
    with pytest.raises(ShapeError, match=r"cumsum: needs an operand of rank >= 1"):
        lax.cumsum(A(np.float32(1)))
    with pytest.raises(ShapeError, match=r"cummax: axis 1 is out of range for an operand "
                                         r"of shape \(3,\)"):
        rd.cummax_p.bind(A(np.zeros(3, np.float32)), axis=1, reverse=False)


def test_sort_errors():
    with pytest.raises(ShapeError, match=r"sort: all operands must have the same shape, got "
                                         r"\(3,\), \(4,\)"):
        lax.sort([A(np.zeros(3)), A(np.zeros(4))])
    with pytest.raises(ValueError, match=r"num_keys must be between 1 and the number of "
                                         r"operands \(2\), got 3"):
        lax.sort([A(np.zeros(3)), A(np.zeros(3))], num_keys=3)
    with pytest.raises(ShapeError, match=r"sort: operands must have rank >= 1"):
        lax.sort(A(np.float32(0)))
    with pytest.raises(ValueError, match=r"top_k: k=5 must be between 0 and the size 4"):
        lax.top_k(A(np.zeros(4)), 5)


def test_argmax_first_nan_and_ties_direct():
    x = A(np.array([1.0, 3.0, np.nan, 3.0, np.nan], np.float32))
    assert int(lax.argmax(x, 0, np.int32)) == 2
    assert int(lax.argmin(x, 0, np.int32)) == 2
    y = A(np.array([2, 5, 5, 1, 1], np.int32))
    assert int(lax.argmax(y, 0, np.int32)) == 1 and int(lax.argmin(y, 0, np.int32)) == 3
