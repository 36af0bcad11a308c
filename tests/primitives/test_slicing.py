"""rev, pad, concatenate, slice, dynamic_slice, dynamic_update_slice: op records against
independent NumPy references (loops for XLA's pad and clamping), symbolic shape rules and
error messages."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.primitives import slicing as sl
from tjit.tracing.errors import ConcretizationTypeError, InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import symbol
from tests.primitives.harness import OpRecord, check_record

F32, I32, BOOL, I8, F64 = "float32", "int32", "bool", "int8", "float64"


def _np_pad(x, val, config):
    """XLA Pad by index arithmetic: element i lands at lo + i * (interior + 1)."""
    out_shape = [lo + hi + d + max(d - 1, 0) * it for d, (lo, hi, it) in zip(x.shape, config)]
    out = np.full(out_shape, val, x.dtype)
    for idx in np.ndindex(*x.shape):
        pos = tuple(lo + i * (it + 1) for i, (lo, _, it) in zip(idx, config))
        if all(0 <= p < n for p, n in zip(pos, out_shape)):
            out[pos] = x[idx]
    return out


def _clamp(i, n, size):
    return min(max(int(i), 0), n - size)


def _np_dynamic_slice(x, starts, sizes):
    st = [_clamp(i, n, s) for i, n, s in zip(starts, x.shape, sizes)]
    return x[tuple(slice(a, a + s) for a, s in zip(st, sizes))]


def _np_dynamic_update(x, upd, starts):
    st = [_clamp(i, n, s) for i, n, s in zip(starts, x.shape, upd.shape)]
    out = x.copy()
    out[tuple(slice(a, a + s) for a, s in zip(st, upd.shape))] = upd
    return out


def _idx(v):
    """Arg spec: a 0-d int32 index with value v."""
    return ((), I32, lambda rng, shape: np.asarray(v))


def _neg(i, n):
    return i + n if i < 0 else i


RECORDS = []


def rec(name, fn, ref, args, prims, **kw):
    RECORDS.append(OpRecord(name, fn, ref, tuple(args), tuple(prims), **kw))


# -- rev ------------------------------------------------------------------------------------
for shape, dims, dt in [((5,), (0,), F32), ((3, 4), (0, 1), I32), ((2, 0, 3), (1,), F32),
                        ((2, 3, 4), (2,), BOOL), ((3, 4), (1,), I8)]:
    rec(f"rev_{shape}_{dims}_{dt}", lambda x, d=dims: lax.rev(x, d),
        lambda x, d=dims: np.flip(x, d), [(shape, dt)], ["rev"])

# -- pad ------------------------------------------------------------------------------------
for shape, cfg, dt in [((4,), ((1, 2, 0),), F32),
                       ((3, 4), ((1, -1, 1), (0, 2, 2)), F32),
                       ((0, 3), ((1, 1, 0), (0, 0, 0)), I32),
                       ((3,), ((-2, 1, 1),), I32),
                       ((5,), ((-6, 0, 1),), F32),   # crops into the interior padding
                       ((2, 2), ((0, 0, 3), (-1, -1, 0)), BOOL),
                       ((), (), F32)]:
    rec(f"pad_{shape}_{cfg}_{dt}", lambda x, v, c=cfg: sl.pad_p.bind(x, v, padding_config=c),
        lambda x, v, c=cfg: _np_pad(x, v, c), [(shape, dt), ((), dt)], ["pad"])
rec("pad_wrapper_scalar", lambda x: lax.pad(x, 7, ((2, 1, 1),)),
    lambda x: _np_pad(x, 7, ((2, 1, 1),)), [((4,), I32)], ["pad"])

# -- concatenate ------------------------------------------------------------------------------
for shapes, dim, dt in [([(2, 3), (4, 3)], 0, F32), ([(2, 3), (2, 0), (2, 5)], 1, I32),
                        ([(1,), (1,), (3,)], 0, BOOL), ([(2, 2, 2), (2, 2, 1)], 2, F32),
                        ([(0, 2), (0, 2)], 0, F32)]:
    rec(f"concatenate_{shapes}_{dim}_{dt}",
        lambda *xs, d=dim: lax.concatenate(xs, d),
        lambda *xs, d=dim: np.concatenate(xs, d), [(s, dt) for s in shapes], ["concatenate"])

# -- slice ----------------------------------------------------------------------------------
for shape, start, limit, strides, dt in [
        ((10,), (2,), (8,), (3,), F32), ((4, 5), (1, 0), (3, 5), (1, 2), I32),
        ((3, 3), (1, 1), (1, 3), None, F32), ((6, 4), (0, 1), (6, 4), None, BOOL),
        ((7,), (0,), (7,), (7,), F32), ((2, 0), (1, 0), (2, 0), None, I32)]:
    rec(f"slice_{shape}_{start}_{limit}_{strides}_{dt}",
        lambda x, a=start, b=limit, s=strides: lax.slice(x, a, b, s),
        lambda x, a=start, b=limit, s=strides: x[tuple(
            slice(i, j, k) for i, j, k in zip(a, b, s or (1,) * len(a)))],
        [(shape, dt)], ["slice"])
rec("slice_0d", lambda x: sl.slice_p.bind(x, start_indices=(), limit_indices=(), strides=None),
    lambda x: x, [((), F32)], ["slice"])
rec("slice_in_dim_neg", lambda x: lax.slice_in_dim(x, -4, None, 2, axis=1),
    lambda x: x[:, -4::2], [((3, 9), F32)], ["slice"])
rec("index_in_dim", lambda x: lax.index_in_dim(x, -1, axis=0, keepdims=False),
    lambda x: x[-1], [((3, 4), I32)], ["slice", "squeeze"])

# -- dynamic_slice ----------------------------------------------------------------------------
for shape, starts, sizes, dt in [((10,), (7,), (5,), F32), ((10,), (-3,), (2,), I32),
                                 ((6, 4), (2, 9), (3, 2), F32), ((6, 4), (-100, 1), (6, 0), BOOL),
                                 ((3, 3), (1, 1), (0, 0), F32), ((5,), (2 ** 31 - 1,), (2,), F32)]:
    # traced start indices (wrapper normalizes negatives with a select, then clamping)
    rec(f"dynamic_slice_{shape}_{starts}_{sizes}_{dt}",
        lambda x, *idx, s=sizes: lax.dynamic_slice(x, idx, s),
        lambda x, *idx, s=sizes: _np_dynamic_slice(
            x, [_neg(int(i), n) for i, n in zip(idx, x.shape)], s),
        [(shape, dt)] + [_idx(i) for i in starts], ["dynamic_slice"])
    # static Python start indices
    rec(f"dynamic_slice_static_{shape}_{starts}_{sizes}_{dt}",
        lambda x, st=starts, s=sizes: lax.dynamic_slice(x, st, s),
        lambda x, st=starts, s=sizes: _np_dynamic_slice(
            x, [_neg(i, n) for i, n in zip(st, x.shape)], s), [(shape, dt)], ["dynamic_slice"])
rec("dynamic_slice_primitive_clamps_negative",
    lambda x, i: sl.dynamic_slice_p.bind(x, i, slice_sizes=(2,)),
    lambda x, i: _np_dynamic_slice(x, [int(i)], (2,)), [((5,), F32), _idx(-2)],
    ["dynamic_slice"])
rec("dynamic_slice_no_negative",
    lambda x, i: lax.dynamic_slice(x, (i,), (2,), allow_negative_indices=False),
    lambda x, i: _np_dynamic_slice(x, [int(i)], (2,)), [((5,), F32), _idx(-1)],
    ["dynamic_slice"])
rec("dynamic_slice_0d", lambda x: lax.dynamic_slice(x, (), ()), lambda x: x, [((), I32)],
    ["dynamic_slice"])
rec("dynamic_index_in_dim", lambda x, i: lax.dynamic_index_in_dim(x, i, 1, keepdims=False),
    lambda x, i: x[:, int(i)], [((3, 5), F32), _idx(-2)], ["dynamic_slice", "squeeze"])
rec("dynamic_slice_in_dim", lambda x, i: lax.dynamic_slice_in_dim(x, i, 3, axis=0),
    lambda x, i: x[3:6], [((6, 2), I32), _idx(4)], ["dynamic_slice"])
rec("dynamic_slice_int8_index", lambda x, i: lax.dynamic_slice(x, (i,), (10,)),
    lambda x, i: x[190:200], [((200,), F32), ((), I8, lambda r, s: np.asarray(-10))],
    ["dynamic_slice"])

# -- dynamic_update_slice -------------------------------------------------------------------------
for oshape, ushape, starts, dt in [((6, 4), (2, 3), (5, -1), F32), ((8,), (3,), (2,), I32),
                                   ((4,), (0,), (2,), F32), ((3, 3), (3, 3), (1, 1), BOOL),
                                   ((), (), (), F32)]:
    rec(f"dynamic_update_slice_{oshape}_{ushape}_{starts}_{dt}",
        lambda x, u, *idx: lax.dynamic_update_slice(x, u, idx),
        lambda x, u, *idx: _np_dynamic_update(
            x, u, [_neg(int(i), n) for i, n in zip(idx, x.shape)]),
        [(oshape, dt), (ushape, dt)] + [_idx(i) for i in starts], ["dynamic_update_slice"])
rec("dynamic_update_index_in_dim",
    lambda x, u, i: lax.dynamic_update_index_in_dim(x, u, i, 0),
    lambda x, u, i: _np_dynamic_update(x, u[None], [_neg(int(i), 4), 0]),
    [((4, 3), F32), ((3,), F32), _idx(-1)], ["dynamic_update_slice", "expand_dims"])
rec("dynamic_update_slice_in_dim",
    lambda x, u, i: lax.dynamic_update_slice_in_dim(x, u, i, 1),
    lambda x, u, i: _np_dynamic_update(x, u, [0, int(i)]),
    [((2, 5), I32), ((2, 2), I32), _idx(3)], ["dynamic_update_slice"])


@pytest.mark.parametrize("record", RECORDS, ids=str)
def test_record(record):
    check_record(record)


def test_f64_records(x64):
    for r in [OpRecord("pad_f64", lambda x, v: sl.pad_p.bind(x, v, padding_config=((1, 1, 1),)),
                       lambda x, v: _np_pad(x, v, ((1, 1, 1),)), (((3,), F64), ((), F64))),
              OpRecord("concat_f64", lambda a, b: lax.concatenate([a, b], 0),
                       lambda a, b: np.concatenate([a, b]), (((2,), F64), ((3,), F64))),
              OpRecord("dus_f64", lambda x, u, i: lax.dynamic_update_slice(x, u, (i,)),
                       lambda x, u, i: _np_dynamic_update(x, u, [int(i)]),
                       (((5,), F64), ((2,), F64), _idx(9)))]:
        closed = check_record(r)
        assert closed.out_avals[0].dtype == np.float64


def test_weak_types_follow_operand():
    x = tjit.numpy.asarray(2.0)  # weak f32 scalar
    assert lax.pad(lax.broadcast(x, (3,)), 0.0, ((1, 0, 0),)).weak_type
    y = tjit.numpy.asarray(np.zeros(4, np.float32))
    assert not lax.dynamic_slice(y, (tjit.numpy.asarray(1),), (2,)).weak_type
    assert not lax.dynamic_update_slice(y, lax.broadcast(x, (1,)), (1,)).weak_type


# -- symbolic shapes ----------------------------------------------------------------------------
b = symbol("b")
f32 = np.zeros((2, 3), np.float32)


def _out_avals(fn, specs, *args):
    return tjit.make_jaxpr(fn, polymorphic_shapes=specs)(*args).out_avals


def test_symbolic_concatenate_gives_2b():
    (out,) = _out_avals(lambda x, y: lax.concatenate([x, y], 0), ["(b, 3)", "(b, 3)"], f32, f32)
    assert out.shape == (2 * b, 3)
    (out,) = _out_avals(lambda x, y: lax.concatenate([x, y, x], 1), ["(b, 3)", "(b, 3)"],
                        f32, f32)
    assert out.shape == (b, 9)


def test_symbolic_pad_slice_and_dynamic_slice():
    x = np.zeros((4, 5), np.float32)
    (p,) = _out_avals(lambda x: lax.pad(x, 0.0, ((1, 2, 1), (0, 0, 0))), ["(b, 5)"], x)
    assert p.shape == (2 * b + 2, 5)
    (s,) = _out_avals(lambda x: lax.slice_in_dim(x, 1, None, axis=0), ["(b, 5)"], x)
    assert s.shape == (b - 1, 5)
    (s,) = _out_avals(lambda x: lax.slice(x, (0, 1), (x.shape[0], 3)), ["(b, 5)"], x)
    assert s.shape == (b, 2)
    (s,) = _out_avals(lambda x: lax.slice(x, (0, 0), (x.shape[0], 5), (2, 1)), ["(b, 5)"], x)
    assert s.shape[1] == 5 and {s.shape[0].subs(b, n) for n in (1, 2, 3, 4)} == {1, 2}
    (d,) = _out_avals(lambda x, i: lax.dynamic_slice(x, (i, 0), (1, 5)), ["(b, 5)", None],
                      x, np.int32(0))
    assert d.shape == (1, 5)
    (u,) = _out_avals(lambda x, i: lax.dynamic_update_index_in_dim(
        x, lax.index_in_dim(x, 0), i, 0), ["(b, 5)", None], x, np.int32(0))
    assert u.shape == (b, 5)


def test_symbolic_jit_runs_for_several_sizes():
    f = tjit.jit(lambda x, y: lax.concatenate([lax.rev(x, (0,)), y], 0),
                 polymorphic_shapes=["(b, 3)", "(b, 3)"])
    for n in (1, 2, 5):
        x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        np.testing.assert_array_equal(f(x, x + 1), np.concatenate([x[::-1], x + 1]))
    assert f.trace_count == 1


def test_symbolic_inconclusive_slice_bound():
    x = np.zeros((4,), np.float32)
    with pytest.raises(InconclusiveDimensionError, match=r"slice: cannot decide.*3 <= b"):
        _out_avals(lambda x: lax.slice(x, (0,), (3,)), ["(b,)"], x)


# -- errors -------------------------------------------------------------------------------------
A = tjit.numpy.asarray


def test_concatenate_shape_mismatch():
    with pytest.raises(ShapeError, match=r"concatenate: operands of shapes \(2, 3\), "
                                         r"\(2, 4\) must agree on every dim except dimension 0"):
        lax.concatenate([A(np.zeros((2, 3))), A(np.zeros((2, 4)))], 0)


def test_concatenate_dtype_and_rank_errors():
    with pytest.raises(TypeError, match=r"concatenate: operand dtypes must be equal, got "
                                        r"float32, int32"):
        lax.concatenate([A(np.zeros(2, np.float32)), A(np.zeros(2, np.int32))], 0)
    with pytest.raises(ShapeError, match=r"same rank"):
        sl.concatenate_p.bind(A(np.zeros(2)), A(np.zeros((2, 1))), dimension=0)
    with pytest.raises(ValueError, match="non-empty"):
        lax.concatenate([], 0)


def test_slice_errors():
    x = A(np.zeros((4, 4)))
    with pytest.raises(ShapeError, match=r"slice: .*requires 5 <= 4"):
        lax.slice(x, (0, 0), (5, 4))
    with pytest.raises(ShapeError, match=r"slice: .*requires 3 <= 2"):
        lax.slice(x, (3, 0), (2, 4))
    with pytest.raises(ShapeError, match=r"slice: limit_indices \(4,\) must have one entry"):
        lax.slice(x, (0, 0), (4,))
    with pytest.raises(ShapeError, match=r"strides must be positive"):
        lax.slice(x, (0, 0), (4, 4), (0, 1))
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 1 with size 4"):
        lax.index_in_dim(x, 4, axis=1)


def test_slice_bounds_must_be_static():
    def f(x, i):
        return lax.slice(x, (i,), (3,))
    with pytest.raises(ConcretizationTypeError, match=r"slice: start_indices must be static "
                                                      r".*use lax.dynamic_slice"):
        tjit.jit(f)(np.zeros(4, np.float32), 1)


def test_dynamic_slice_errors():
    x = A(np.zeros((4, 4), np.float32))
    with pytest.raises(ShapeError, match=r"dynamic_slice: .*slice_sizes \(5, 1\) for an "
                                         r"operand of shape \(4, 4\) requires 5 <= 4"):
        lax.dynamic_slice(x, (0, 0), (5, 1))
    with pytest.raises(ShapeError, match=r"needs 2 start indices, got 1"):
        lax.dynamic_slice(x, (0,), (1, 1))
    with pytest.raises(TypeError, match=r"start indices must be integer scalars, got f32\[\]"):
        lax.dynamic_slice(x, (A(np.float32(1)), 0), (1, 1))
    with pytest.raises(TypeError, match=r"dynamic_slice: start index 0 must be an integer "
                                        r"scalar, got f32\[\]"):
        sl.dynamic_slice_p.bind(x, A(np.float32(0)), A(np.int32(0)), slice_sizes=(1, 1))


def test_dynamic_update_slice_errors():
    x = A(np.zeros((4, 4), np.float32))
    with pytest.raises(ShapeError, match=r"update of shape \(5, 1\) fitting in an operand "
                                         r"of shape \(4, 4\) requires 5 <= 4"):
        lax.dynamic_update_slice(x, A(np.zeros((5, 1), np.float32)), (0, 0))
    with pytest.raises(TypeError, match="dynamic_update_slice: operand dtypes must be equal"):
        lax.dynamic_update_slice(x, A(np.zeros((1, 1), np.int32)), (0, 0))
    with pytest.raises(ShapeError, match=r"must have the rank"):
        lax.dynamic_update_slice(x, A(np.zeros((1,), np.float32)), (0, 0))


def test_pad_errors():
    x = A(np.zeros((3,), np.float32))
    with pytest.raises(ShapeError, match=r"pad: the padded size .* requires 0 <= -1"):
        lax.pad(x, 0.0, ((-2, -2, 0),))
    with pytest.raises(ShapeError, match=r"interior padding must be >= 0"):
        lax.pad(x, 0.0, ((0, 0, -1),))
    with pytest.raises(ShapeError, match=r"padding_value must be a scalar"):
        sl.pad_p.bind(x, A(np.zeros(2, np.float32)), padding_config=((0, 0, 0),))
    with pytest.raises(ShapeError, match=r"padding_config \(\(0, 0, 0\), \(0, 0, 0\)\) must "
                                         r"have one entry per dimension"):
        lax.pad(x, 0.0, ((0, 0, 0), (0, 0, 0)))


def test_rev_errors():
    with pytest.raises(ShapeError, match=r"axis 2 is out of bounds for an array of rank 2"):
        lax.rev(A(np.zeros((2, 2))), (2,))
    with pytest.raises(ShapeError, match=r"rev: dimensions \(0, 0\) must be unique"):
        sl.rev_p.bind(A(np.zeros((2, 2))), dimensions=(0, 0))


def test_dynamic_slice_traced_index_under_jit():
    f = tjit.jit(lambda x, i: lax.dynamic_slice_in_dim(x, i, 2))
    x = np.arange(6, dtype=np.float32)
    for i in (-7, -1, 0, 3, 5, 100):
        np.testing.assert_array_equal(f(x, np.int32(i)), _np_dynamic_slice(x, [_neg(i, 6)], (2,)))
