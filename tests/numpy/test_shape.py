"""Tests of tjit.numpy's shape functions against NumPy: eager and under jit, over 0-d,
empty and n-d shapes, f32/i32/bool, negative axes; symbolic shapes via make_jaxpr and
polymorphic jit; error messages; a hypothesis test of random op sequences."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tjit
import tjit.numpy as jnp
from tjit.tracing import dtypes
from tjit.tracing.errors import ConcretizationTypeError, ShapeError
from tjit.tracing.shapes import symbol

SHAPES = [(), (0,), (5,), (2, 3), (2, 0, 4), (2, 3, 4), (3, 1, 2)]
DTYPES = [np.float32, np.int32, np.bool_]


def needs(*names):
    """Skip until the sibling jnp functions a case relies on exist."""
    missing = [n for n in names if not hasattr(jnp, n)]
    return pytest.mark.skipif(bool(missing), reason=f"jnp.{', '.join(missing)} not yet there")


def make(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    return rng.integers(-9, 10, shape).astype(dtype)


def head(m, x, axis):
    """``x`` restricted to its first entry along ``axis`` (without indexing)."""
    return m.split(x, [1], axis=axis)[0]


def _leaves(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def assert_matches(actual, expected, what=""):
    """Same structure, shape, (canonicalized) dtype and values."""
    acts, exps = _leaves(actual), _leaves(expected)
    assert len(acts) == len(exps), f"{what}: {len(acts)} outputs, expected {len(exps)}"
    for a, e in zip(acts, exps):
        assert isinstance(a, tjit.Array), f"{what}: got {type(a).__name__}"
        e = np.asarray(e)
        a = np.asarray(a)
        assert a.shape == e.shape, f"{what}: shape {a.shape} != {e.shape}"
        assert a.dtype == dtypes.canonicalize(e.dtype), f"{what}: dtype {a.dtype} != {e.dtype}"
        np.testing.assert_array_equal(a, e, err_msg=what)


def check(case, *xs, jit=True):
    """``case(module, *arrays)`` with module=np vs jnp (eager and jitted)."""
    try:
        expected = case(np, *xs)
    except (ValueError, IndexError, TypeError) as e:  # NumPy rejects it: so must we
        kinds = tuple(k for k in (ValueError, IndexError, TypeError) if isinstance(e, k))
        with pytest.raises(kinds):
            case(jnp, *[jnp.asarray(x) for x in xs])
        return
    assert_matches(case(jnp, *[jnp.asarray(x) for x in xs]), expected, "eager")
    if jit:
        out = tjit.jit(lambda *a: case(jnp, *a))(*[jnp.asarray(x) for x in xs])
        assert_matches(out, expected, "jit")


# -- table of single-array cases, chosen by rank ------------------------------------------------
def unary_cases(shape):
    nd = len(shape)
    c = {
        "ravel": lambda m, x: m.ravel(x),
        "ravel_F": lambda m, x: m.ravel(x, order="F"),
        "reshape_-1": lambda m, x: m.reshape(x, (-1,)),
        "reshape_1s": lambda m, x: m.reshape(x, (1,) + x.shape + (1,)),
        "transpose": lambda m, x: m.transpose(x),
        "flip": lambda m, x: m.flip(x),
        "atleast_1d": lambda m, x: m.atleast_1d(x),
        "atleast_2d": lambda m, x: m.atleast_2d(x),
        "atleast_3d": lambda m, x: m.atleast_3d(x),
        "atleast_multi": lambda m, x: m.atleast_2d(x, x),
        "expand_dims_0": lambda m, x: m.expand_dims(x, 0),
        "expand_dims_-1": lambda m, x: m.expand_dims(x, -1),
        "expand_dims_tuple": lambda m, x: m.expand_dims(x, (0, -1)),
        "squeeze": lambda m, x: m.squeeze(x),
        "broadcast_to": lambda m, x: m.broadcast_to(x, (2,) + x.shape),
        "broadcast_arrays": lambda m, x: m.broadcast_arrays(x, m.expand_dims(x, 0)),
        "tile_2": lambda m, x: m.tile(x, 2),
        "tile_21": lambda m, x: m.tile(x, (2, 1, 3)),
        "repeat_2": lambda m, x: m.repeat(x, 2),
        "resize_7": lambda m, x: m.resize(x, (7,)),
        "resize_25": lambda m, x: m.resize(x, (2, 5)),
        "pad_1": lambda m, x: m.pad(x, 1),
        "pad_cv": lambda m, x: m.pad(x, (1, 2), constant_values=1),
        "roll_2": lambda m, x: m.roll(x, 2),
        "roll_-3": lambda m, x: m.roll(x, -3),
        "stack_0": lambda m, x: m.stack([x, x]),
        "stack_-1": lambda m, x: m.stack([x, x, x], axis=-1),
        "append": lambda m, x: m.append(x, x),
        "concat_None": lambda m, x: m.concatenate([x, x], axis=None),
        "block": lambda m, x: m.block(x),
        "vstack": lambda m, x: m.vstack([x, x]),
        "hstack": lambda m, x: m.hstack([x, x]),
        "dstack": lambda m, x: m.dstack([x, x]),
        "rot_noop": lambda m, x: m.flip(x, ()),
    }
    if nd >= 1:
        rev = tuple(range(-1, -nd - 1, -1))
        c.update({
            "reshape_F": lambda m, x: m.reshape(x, x.shape[::-1], order="F"),
            "transpose_neg": lambda m, x: m.transpose(x, rev),
            "permute_dims": lambda m, x: m.permute_dims(x, (nd - 1,) + tuple(range(nd - 1))),
            "flip_-1": lambda m, x: m.flip(x, -1),
            "flipud": lambda m, x: m.flipud(x),
            "concat_-1": lambda m, x: m.concatenate([x, head(m, x, -1)], axis=-1),
            "concat_array": lambda m, x: m.concat([x, x], axis=0),
            "array_split": lambda m, x: m.array_split(x, 3, axis=-1),
            "split_idx": lambda m, x: m.split(x, [1, -1, 10], axis=-1),
            "split_1": lambda m, x: m.split(x, 1, axis=0),
            "repeat_-1": lambda m, x: m.repeat(x, 3, axis=-1),
            "roll_axis": lambda m, x: m.roll(x, (1, 7), axis=(-1, 0)),
            "diff": lambda m, x: m.diff(x),
            "diff_2_pre": lambda m, x: m.diff(x, 2, axis=0, prepend=head(m, x, 0),
                                             append=0),
            "pad_pairs": lambda m, x: m.pad(x, [(i % 2, (i + 1) % 3) for i in range(nd)],
                                            constant_values=[(1, 0)] * nd),
            "swapaxes": lambda m, x: m.swapaxes(x, 0, -1),
            "moveaxis": lambda m, x: m.moveaxis(x, 0, -1),
            "rollaxis": lambda m, x: m.rollaxis(x, -1),
            "insert_scalar": lambda m, x: m.insert(x, 1, 1, axis=0),
            "insert_list": lambda m, x: m.insert(x, [0, 0, -1] if x.shape[-1] else [0, 0], 1,
                                                   axis=-1),
            "insert_flat": lambda m, x: m.insert(x, slice(0, None, 2), 0),
            "delete": lambda m, x: m.delete(x, [0, -1], axis=-1) if x.shape[-1] else x,
            "delete_slice": lambda m, x: m.delete(x, slice(1, None, 2)),
            "unstack": lambda m, x: m.unstack(x),
            "stack_array": lambda m, x: m.stack(x, axis=-1),
            "concatenate_array": lambda m, x: m.concatenate(x) if nd > 1 else x,
        })
        if all(shape):
            for mode in ("edge", "reflect", "symmetric", "wrap"):
                c[f"pad_{mode}"] = (lambda mo: lambda m, x: m.pad(x, (2, 3), mode=mo))(mode)
                c[f"pad_{mode}_wide"] = (lambda mo: lambda m, x: m.pad(x, 7, mode=mo))(mode)
    if nd <= 2:
        c["column_stack"] = lambda m, x: m.column_stack([x, x]) if nd else x
    if nd >= 2:
        c.update({
            "matrix_transpose": lambda m, x: m.matrix_transpose(x),
            "fliplr": lambda m, x: m.fliplr(x),
            "hsplit": lambda m, x: m.hsplit(x, [1]),
            "vsplit": lambda m, x: m.vsplit(x, [1]),
            "rot90": lambda m, x: m.rot90(x),
            "rot90_2": lambda m, x: m.rot90(x, 2, axes=(-1, 0)),
            "rot90_-1": lambda m, x: m.rot90(x, -1, axes=(1, 0)),
            "diagonal": lambda m, x: m.diagonal(x),
            "diagonal_1": lambda m, x: m.diagonal(x, 1),
            "diagonal_-1": lambda m, x: m.diagonal(x, -1, -1, 0),
            "diagonal_big": lambda m, x: m.diagonal(x, 5),
        })
    if nd >= 3:
        c["dsplit"] = lambda m, x: m.dsplit(x, [1, 2])
        c["diagonal_3d"] = lambda m, x: m.diagonal(x, 0, 2, 0)
    return c


UNARY = [(shape, name) for shape in SHAPES for name in unary_cases(shape)]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,name", UNARY, ids=[f"{n}-{s}" for s, n in UNARY])
def test_unary_cases_match_numpy(shape, name, dtype):
    check(unary_cases(shape)[name], make(shape, dtype))


@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 0, 4), (2, 3, 4)])
def test_ediff1d(shape):
    x = make(shape, np.int32)
    check(lambda m, a: m.ediff1d(a), x)
    check(lambda m, a: m.ediff1d(a, to_end=[7, 8], to_begin=-1), x)


@needs("sum")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,args", [((3, 3), ()), ((2, 4), (1,)), ((4, 2), (-1,)),
                                        ((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (1, -1, 0))])
def test_trace(shape, args, dtype):
    check(lambda m, a: m.trace(a, *args), make(shape, dtype))


# -- joining: dtype promotion and scalars ------------------------------------------------------
def test_concatenate_promotes_dtypes():
    i, f, b = make((2,), np.int32), make((3,), np.float32), make((1,), np.bool_)
    assert jnp.concatenate([i, f]).dtype == np.float32
    assert jnp.concatenate([b, i]).dtype == np.int32
    assert jnp.concatenate([jnp.asarray(b), jnp.asarray(b)]).dtype == np.bool_
    out = jnp.concatenate([jnp.asarray(i), jnp.asarray(f), jnp.asarray(b)])
    np.testing.assert_array_equal(np.asarray(out), np.concatenate([i, f, b]).astype(np.float32))
    assert jnp.concatenate([jnp.asarray(i), jnp.asarray(i)], dtype=jnp.float32).dtype == \
        np.float32
    j = tjit.jit(lambda a, c: jnp.hstack([a, c]))(jnp.asarray(i), jnp.asarray(f))
    assert j.dtype == np.float32 and j.shape == (5,)


def test_stack_scalars_and_weak_types():
    out = jnp.stack([1.5, jnp.asarray(np.float32(2))])
    assert out.dtype == np.float32 and out.shape == (2,) and not out.weak_type
    out = jnp.stack([1, 2])
    assert out.dtype == np.int32 and out.weak_type  # Python scalars stay weak, as in JAX
    out = tjit.jit(lambda a, b: jnp.asarray([a, b]))(jnp.asarray(np.int32(3)), 4)
    np.testing.assert_array_equal(np.asarray(out), [3, 4])


def test_block_nested_and_mixed_rank():
    a, b = np.ones((2, 2), np.float32), np.zeros((2, 3), np.float32)
    c, d = np.full((1, 5), 2, np.float32), np.arange(5, dtype=np.float32)
    check(lambda m, a, b, c, d: m.block([[a, b], [c], [d]]), a, b, c, d)
    check(lambda m, a: m.block([[[a]], [[a]]]), np.float32(3))
    check(lambda m, a: m.block([1, 2, a]), np.arange(3, dtype=np.int32))


def test_column_and_row_stack():
    x, y = make((4,), np.int32), make((4, 2), np.int32)
    check(lambda m, a, b: m.column_stack([a, b, a]), x, y)
    np.testing.assert_array_equal(np.asarray(jnp.row_stack([x, x])), np.vstack([x, x]))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack_axes(axis):
    x, y = make((2, 3), np.float32), make((2, 3), np.float32, seed=1)
    check(lambda m, a, b: m.stack((a, b, a), axis=axis), x, y)
    check(lambda m, a: m.stack(a, axis=axis), make((4, 2, 3), np.int32))


# -- repeat, roll, pad with non-trivial arguments --------------------------------------------------
@needs("take")
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_repeat_array_counts(axis):
    x = make((3, 3), np.float32)
    reps = [2, 0, 3]
    check(lambda m, a: m.repeat(a, reps, axis=axis) if axis is not None else
          m.repeat(m.ravel(head(m, a, 0)), reps), x)
    check(lambda m, a: m.repeat(a, np.array([1, 1, 1]), axis=0), x)


@needs("take", "cumsum", "sum")
@pytest.mark.parametrize("total", [3, 5, 8])
def test_repeat_traced_counts_with_total_length(total):
    x, reps = make((4, 2), np.float32), np.array([2, 0, 1, 2], np.int32)
    f = tjit.jit(lambda a, r: jnp.repeat(a, r, axis=0, total_repeat_length=total))
    ref = np.repeat(x, reps, axis=0)
    ref = np.concatenate([ref, np.repeat(ref[-1:], max(total - len(ref), 0), 0)])[:total]
    np.testing.assert_array_equal(np.asarray(f(x, reps)), ref)


def test_repeat_static_total_repeat_length_matches():
    x = make((3,), np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.repeat(x, 2, total_repeat_length=6)),
                                  np.repeat(x, 2))


@pytest.mark.parametrize("shift", [-13, -1, 0, 2, 5, 17])
def test_roll_traced_shift(shift):
    x = make((3, 5), np.float32)
    f = tjit.jit(lambda a, s: jnp.roll(a, s, axis=1))
    np.testing.assert_array_equal(np.asarray(f(x, shift)), np.roll(x, shift, axis=1))
    g = tjit.jit(lambda a, s: jnp.roll(a, s, axis=(0, 1)))
    s2 = np.array([shift, -2 * shift], np.int32)
    np.testing.assert_array_equal(np.asarray(g(x, s2)), np.roll(x, tuple(s2), axis=(0, 1)))


def test_roll_same_axis_twice_accumulates():
    check(lambda m, a: m.roll(a, (1, 2), axis=(1, 1)), make((2, 5), np.int32))


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_pad_reflect_odd_and_small_axes(mode, n):
    x = make((n, 3), np.float32)
    check(lambda m, a: m.pad(a, ((4, 6), (2, 1)), mode=mode, reflect_type="odd"), x)
    check(lambda m, a: m.pad(a, ((5, 1), (0, 7)), mode=mode), x)


def test_pad_traced_constant_values():
    x = make((2, 3), np.float32)
    f = tjit.jit(lambda a, c: jnp.pad(a, ((1, 0), (2, 1)), constant_values=c))
    np.testing.assert_array_equal(np.asarray(f(x, np.float32(7.5))),
                                  np.pad(x, ((1, 0), (2, 1)), constant_values=7.5))


def test_pad_per_axis_constants_and_cast():
    x = make((2, 3), np.int32)
    cv = ((1.9, 2), (3, 4))
    np.testing.assert_array_equal(np.asarray(jnp.pad(x, ((1, 2), (2, 1)), constant_values=cv)),
                                  np.pad(x, ((1, 2), (2, 1)), constant_values=cv))
    check(lambda m, a: m.pad(a, 2, mode="empty") * 0, x)


# -- insert / delete / trim_zeros / resize -------------------------------------------------------
def test_insert_variants():
    x = make((3, 4), np.float32)
    check(lambda m, a: m.insert(a, [1, 3, 1], [[5.0], [6.0], [7.0]], axis=1), x)
    check(lambda m, a: m.insert(a, 2, [9, 8, 7, 6], axis=0), x)
    check(lambda m, a: m.insert(a, [2], [[9], [8], [7]], axis=1), x)
    check(lambda m, a: m.insert(a, -1, 5), x)
    check(lambda m, a: m.insert(a, [], 5, axis=1), x)


def test_delete_variants():
    x = make((3, 4), np.int32)
    check(lambda m, a: m.delete(a, 1, axis=0), x)
    check(lambda m, a: m.delete(a, np.array([True, False, True, False]), axis=1), x)
    check(lambda m, a: m.delete(a, [0, 1, 2], axis=0), x)
    check(lambda m, a: m.delete(a, [], axis=1), x)


@pytest.mark.parametrize("trim", ["fb", "f", "b", "FB"])
@pytest.mark.parametrize("vals", [[0, 0, 1, 2, 0, 3, 0], [0, 0, 0], [4, 5], []])
def test_trim_zeros(vals, trim):
    v = np.array(vals, np.float32)
    out = jnp.trim_zeros(jnp.asarray(v), trim)
    np.testing.assert_array_equal(np.asarray(out), np.trim_zeros(v, trim))


def test_trim_zeros_nd():
    v = np.zeros((4, 5), np.int32)
    v[1, 2], v[2, 3] = 1, 2
    for axis in (None, 0, -1):
        np.testing.assert_array_equal(np.asarray(jnp.trim_zeros(jnp.asarray(v), axis=axis)),
                                      np.trim_zeros(v, axis=axis))


def test_resize_empty_input_gives_zeros():
    out = jnp.resize(jnp.asarray(np.zeros((0,), np.int32)), (2, 2))
    np.testing.assert_array_equal(np.asarray(out), np.resize(np.zeros((0,), np.int32), (2, 2)))
    check(lambda m, a: m.resize(a, (0, 3)), make((4,), np.int32))


def test_results_do_not_alias_inputs():
    base = np.arange(6, dtype=np.float32)
    x = jnp.asarray(base)
    out = jnp.reshape(x, (2, 3))
    base[0] = 100.0
    assert float(np.asarray(out)[0, 0]) == 0.0


def test_broadcast_shapes_and_order_F_roundtrip():
    assert jnp.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    assert jnp.broadcast_shapes(5, (1,)) == (5,)
    x = make((2, 3, 4), np.int32)
    y = jnp.reshape(jnp.reshape(x, (4, 6), order="F"), (2, 3, 4), order="F")
    np.testing.assert_array_equal(np.asarray(y), x)


def test_split_symbolic_unequal_indices_keep_python_semantics():
    x = make((10,), np.int32)
    for idx in ([3, 3], [5, 2], [-2], [0, 12], np.array([4, 7])):
        check(lambda m, a: m.split(a, idx), x)


# -- symbolic shapes ----------------------------------------------------------------------------
b = symbol("b")
# (name, function, spec, concrete shapes it is run at (first one traced), expected shapes)
SYMBOLIC = [
    ("reshape", lambda a: jnp.reshape(a, (-1, 784)), "(b*784,)", [(784,), (3 * 784,)],
     [(b, 784)]),
    ("ravel_F", lambda a: jnp.ravel(a, order="F"), "(b, 3)", [(2, 3), (5, 3)], [(3 * b,)]),
    ("concat", lambda a: jnp.concatenate([a, a, head(jnp, a, 0)], axis=0), "(b, 3)",
     [(2, 3), (4, 3)], [(2 * b + 1, 3)]),
    ("concat_arr", lambda a: jnp.concatenate(a, axis=1), "(2, b, 3)", [(2, 4, 3), (2, 1, 3)],
     [(b, 6)]),
    ("stack", lambda a: jnp.stack([a, a], axis=-1), "(b, 3)", [(2, 3), (1, 3)], [(b, 3, 2)]),
    ("vstack", lambda a: jnp.vstack([a, a]), "(b, 3)", [(2, 3), (3, 3)], [(2 * b, 3)]),
    ("hstack", lambda a: jnp.hstack([a, a]), "(b, 3)", [(2, 3), (3, 3)], [(b, 6)]),
    ("transpose", lambda a: jnp.transpose(a), "(b, 3)", [(2, 3), (4, 3)], [(3, b)]),
    ("moveaxis", lambda a: jnp.moveaxis(a, 0, -1), "(b, 3, 4)", [(2, 3, 4), (1, 3, 4)],
     [(3, 4, b)]),
    ("expand", lambda a: jnp.expand_dims(a, (0, -1)), "(b,)", [(2,), (5,)], [(1, b, 1)]),
    ("squeeze", lambda a: jnp.squeeze(a), "(b, 1)", [(2, 1), (3, 1)], [(b,)]),
    ("broadcast_to", lambda a: jnp.broadcast_to(a, (a.shape[0], 5, 3)), "(b, 1, 3)",
     [(2, 1, 3), (4, 1, 3)], [(b, 5, 3)]),
    ("split", lambda a: jnp.split(a, 2, axis=0), "(2*b, 3)", [(4, 3), (6, 3)],
     [(b, 3), (b, 3)]),
    ("split_idx", lambda a: jnp.split(a, [1]), "(b, 3)", [(3, 3), (5, 3)],
     [(1, 3), (b - 1, 3)]),
    ("tile", lambda a: jnp.tile(a, (2, 3)), "(b, 3)", [(2, 3), (3, 3)], [(2 * b, 9)]),
    ("repeat", lambda a: jnp.repeat(a, 2, axis=0), "(b, 3)", [(2, 3), (3, 3)], [(2 * b, 3)]),
    ("flip", lambda a: jnp.flip(a), "(b, 3)", [(2, 3), (4, 3)], [(b, 3)]),
    ("rot90", lambda a: jnp.rot90(a), "(b, 3)", [(2, 3), (4, 3)], [(3, b)]),
    ("pad", lambda a: jnp.pad(a, ((1, 2), (0, 1))), "(b, 3)", [(2, 3), (4, 3)], [(b + 3, 4)]),
    ("pad_edge", lambda a: jnp.pad(a, 1, mode="edge"), "(b, 3)", [(2, 3), (1, 3)],
     [(b + 2, 5)]),
    ("diff", lambda a: jnp.diff(a, axis=0), "(b, 3)", [(2, 3), (5, 3)], [(b - 1, 3)]),
    ("diagonal", lambda a: jnp.diagonal(a, 1), "(b, b)", [(3, 3), (5, 5)], [(b - 1,)]),
    ("diagonal_0", lambda a: jnp.diagonal(a), "(b, b)", [(3, 3), (1, 1)], [(b,)]),
    ("roll", lambda a: jnp.roll(a, 1, axis=1), "(b, 3)", [(2, 3), (4, 3)], [(b, 3)]),
    ("atleast_3d", lambda a: jnp.atleast_3d(a), "(b, 3)", [(2, 3), (4, 3)], [(b, 3, 1)]),
    ("unstack", lambda a: jnp.unstack(a, axis=1), "(b, 2)", [(3, 2), (1, 2)], [(b,), (b,)]),
]


@pytest.mark.parametrize("name,f,spec,shapes,expected", SYMBOLIC, ids=[s[0] for s in SYMBOLIC])
def test_symbolic_shapes(name, f, spec, shapes, expected):
    closed = tjit.make_jaxpr(f, polymorphic_shapes=[spec])(make(shapes[0], np.float32))
    assert [tuple(a.shape) for a in closed.out_avals] == [tuple(e) for e in expected]
    jf = tjit.jit(f, polymorphic_shapes=[spec])
    for shape in shapes:  # one trace serves every size
        x = make(shape, np.float32)
        want = [np.asarray(w) for w in _leaves(f(jnp.asarray(x)))]
        assert_matches(jf(x), want, f"{name} at {shape}")
    assert jf.trace_count == 1


def test_symbolic_shape_errors_are_clear():
    with pytest.raises(ShapeError, match=r"diagonal: cannot tell which of the symbolic sizes"):
        tjit.make_jaxpr(jnp.diagonal, polymorphic_shapes=["(b, 3)"])(make((2, 3), np.float32))
    with pytest.raises(ShapeError, match=r"split: cannot divide symbolic size b evenly by 2"):
        tjit.make_jaxpr(lambda a: jnp.split(a, 2), polymorphic_shapes=["(b,)"])(
            make((4,), np.float32))
    with pytest.raises(ShapeError, match=r"unstack: axis 0 has symbolic size b"):
        tjit.make_jaxpr(jnp.unstack, polymorphic_shapes=["(b,)"])(make((4,), np.float32))


# -- error messages -----------------------------------------------------------------------------
X = make((2, 3), np.float32)
ERRORS = [
    (lambda: jnp.squeeze(X, 0), ShapeError,
     r"squeeze: cannot select an axis to squeeze out which has size not equal to one: axis 0 "
     r"has size 2 in an array of shape \(2, 3\)"),
    (lambda: jnp.squeeze(jnp.asarray(np.float32(1)), 0), ShapeError, r"out of bounds"),
    (lambda: jnp.broadcast_to(X, (4, 3, 2)), ShapeError,
     r"cannot broadcast an array of shape \(2, 3\) to the requested shape \(4, 3, 2\)"),
    (lambda: jnp.broadcast_to(X, (3,)), ShapeError, r"shape \(2, 3\) to the requested shape"),
    (lambda: jnp.broadcast_shapes((2, 3), (4, 3)), ShapeError,
     r"broadcast_shapes: shapes \(2, 3\), \(4, 3\) cannot be broadcast"),
    (lambda: jnp.split(X, 2, axis=1), ValueError,
     r"array split does not result in an equal division: axis 1 of size 3"),
    (lambda: jnp.split(X, 0), ValueError, r"number of sections must be larger than 0"),
    (lambda: jnp.concatenate([X, make((2, 4), np.float32)]), ShapeError,
     r"along dimension 1, the array at index 0 has shape \(2, 3\) and the array at index 1 "
     r"has shape \(2, 4\)"),
    (lambda: jnp.concatenate([X, make((3,), np.float32)]), ShapeError,
     r"array at index 0 has 2 dimension\(s\) and the array at index 1 has 1 dimension"),
    (lambda: jnp.concatenate([jnp.asarray(np.float32(1))]), ShapeError,
     r"zero-dimensional arrays cannot be concatenated"),
    (lambda: jnp.concatenate([]), ValueError, r"need at least one array"),
    (lambda: jnp.concatenate([X, [1, 2, 3]]), TypeError, r"concatenate requires ndarray"),
    (lambda: jnp.stack([X, make((3, 2), np.float32)]), ShapeError,
     r"stack: all input arrays must have the same shape, but the array at index 0 has shape "
     r"\(2, 3\) and the array at index 1 has shape \(3, 2\)"),
    (lambda: jnp.stack([X], out=X), NotImplementedError, r"'out' argument"),
    (lambda: jnp.reshape(X, (4, 2)), ShapeError, r"cannot reshape array of shape \(2, 3\)"),
    (lambda: jnp.reshape(X, (6,), order="K"), ValueError, r"order must be 'C', 'F' or 'A'"),
    (lambda: jnp.transpose(X, (0,)), ShapeError, r"transpose: axes \(0,\) don't match"),
    (lambda: jnp.transpose(X, (0, 0)), ShapeError, r"repeated axis"),
    (lambda: jnp.moveaxis(X, (0, 1), 0), ValueError, r"same number of elements"),
    (lambda: jnp.swapaxes(X, 0, 2), ShapeError, r"axis 2 is out of bounds for an array of rank"),
    (lambda: jnp.expand_dims(X, (0, 0)), ShapeError, r"repeated axis"),
    (lambda: jnp.matrix_transpose(make((3,), np.float32)), ShapeError, r"at least 2 dim"),
    (lambda: jnp.fliplr(make((3,), np.float32)), ShapeError, r"fliplr: the input must be at "),
    (lambda: jnp.rot90(X, axes=(1, 1)), ValueError, r"rot90: axes must be different"),
    (lambda: jnp.rot90(X, axes=(0,)), ValueError, r"len\(axes\) must be 2"),
    (lambda: jnp.vsplit(jnp.asarray(np.float32(1)), 1), ShapeError, r"vsplit only works on "
     r"arrays of 1 or more dimensions"),
    (lambda: jnp.hsplit(jnp.asarray(np.float32(1)), 1), ShapeError, r"hsplit only works"),
    (lambda: jnp.dsplit(X, 1), ShapeError, r"dsplit only works on arrays of 3"),
    (lambda: jnp.pad(X, -1), ValueError, r"pad_width can't contain negative values"),
    (lambda: jnp.pad(X, ((1, 2, 3),)), ValueError, r"pad_width of shape \(1, 3\) cannot be "
     r"broadcast to \(2, 2\)"),
    (lambda: jnp.pad(X, 1.5), TypeError, r"pad_width must be of integral type"),
    (lambda: jnp.pad(X, 1, mode="median", stat_length=0), ValueError,
     r"pad: stat_length of 0 yields no value for padding"),
    (lambda: jnp.pad(X, 1, mode="mean", stat_length=-1), ValueError,
     r"pad: stat_length can't contain negative values"),
    (lambda: jnp.pad(X, 1, mode="maximum", reflect_type="odd"), ValueError,
     r"unsupported keyword arguments for mode 'maximum'"),
    (lambda: jnp.pad(X, 1, mode="linear_ramp", end_values=((1, 2, 3),)), ValueError,
     r"end_values of shape \(1, 3\) cannot be broadcast to \(2, 2\)"),
    (lambda: jnp.pad(X, 1, mode="bogus"), ValueError, r"mode 'bogus' is not supported"),
    (lambda: jnp.pad(X, 1, mode="edge", constant_values=3), ValueError,
     r"unsupported keyword arguments for mode 'edge'"),
    (lambda: jnp.pad(X, 1, mode="reflect", reflect_type="weird"), ValueError,
     r"reflect_type must be 'even' or 'odd'"),
    (lambda: jnp.pad(make((0, 3), np.float32), 1, mode="edge"), ValueError,
     r"can't extend empty axis 0 using modes other than 'constant'"),
    (lambda: jnp.diff(X, -1), ValueError, r"order must be non-negative but got -1"),
    (lambda: jnp.diff(jnp.asarray(np.float32(1))), ShapeError, r"at least one dimensional"),
    (lambda: jnp.diagonal(X, 0, 1, -1), ValueError, r"axis1 and axis2 cannot be the same"),
    (lambda: jnp.diagonal(make((3,), np.float32)), ShapeError, r"at least two dimensions"),
    (lambda: jnp.repeat(X, [1, 2], axis=1), ShapeError,
     r"repeat: got 2 repeats for an axis of size 3"),
    (lambda: jnp.repeat(X, -1), ValueError, r"repeats may not contain negative values"),
    (lambda: jnp.repeat(X, 1.5), TypeError, r"repeats must be an int"),
    (lambda: jnp.tile(X, -1), ValueError, r"tile: reps must be non-negative"),
    (lambda: jnp.resize(X, (-1, 2)), ValueError, r"new_shape` must be non-negative"),
    (lambda: jnp.insert(X, 3, 1.0, axis=0), IndexError,
     r"insert: index 3 is out of bounds for axis 0 with size 2"),
    (lambda: jnp.insert(X, [[0]], 1.0), ValueError, r"must be one dimensional or scalar"),
    (lambda: jnp.delete(X, [0, 5], axis=1), IndexError,
     r"delete: index 5 is out of bounds for axis 1 with size 3"),
    (lambda: jnp.delete(X, np.array([True, False]), axis=1), ValueError,
     r"boolean mask of shape \(2,\) does not match axis 1 of size 3"),
    (lambda: jnp.trim_zeros(make((3,), np.float32), "x"), ValueError,
     r"unexpected character\(s\) in `trim`"),
    (lambda: jnp.block([[X], X]), ValueError, r"list depths are mismatched"),
    (lambda: jnp.block([X, []]), ValueError, r"lists cannot be empty \(arrays\[1\] is \[\]\)"),
    (lambda: jnp.block((X, X)), TypeError, r"is a tuple. Only lists can be used"),
    (lambda: jnp.rollaxis(X, 0, 5), ShapeError, r"'start' arg requires -2 <= start < 3"),
    (lambda: jnp.roll(X, (1, 2), axis=(0, 1, 0)), ValueError, r"should be scalars or 1-D"),
    (lambda: jnp.reshape([1, 2], (2,)), TypeError, r"reshape requires ndarray"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_error_messages(i):
    fn, exc, pattern = ERRORS[i]
    with pytest.raises(exc, match=pattern):
        fn()


def test_errors_under_jit_name_the_fix():
    with pytest.raises(ConcretizationTypeError, match=r"total_repeat_length"):
        tjit.jit(lambda a, r: jnp.repeat(a, r))(X, np.array([1, 2, 3, 1, 1, 1], np.int32))
    with pytest.raises(ConcretizationTypeError, match=r"trim_zeros"):
        tjit.jit(jnp.trim_zeros)(make((4,), np.float32))
    with pytest.raises(ConcretizationTypeError, match=r"split"):
        tjit.jit(lambda a, i: jnp.split(a, i))(make((4,), np.float32),
                                               np.array([1, 2], np.int32))
    with pytest.raises(ConcretizationTypeError, match=r"pad_width"):
        tjit.jit(lambda a, p: jnp.pad(a, p))(X, np.array(1, np.int32))


# -- hypothesis: random sequences of shape ops agree with NumPy -----------------------------------
@st.composite
def op_sequences(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
    ops = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["reshape", "transpose", "concatenate", "flip",
                                     "swapaxes", "expand", "tile", "pad"]))
        ops.append((kind, draw(st.integers(0, 10 ** 6))))
    return shape, ops


def _apply(m, x, kind, seed):
    """One op, its static arguments drawn from ``seed`` (identically for np and jnp)."""
    r = np.random.default_rng(seed)
    nd, shape = x.ndim, tuple(x.shape)
    if kind == "reshape":
        size = int(np.prod(shape))
        divs = [d for d in range(1, size + 1) if size % d == 0] or [1]
        first = int(r.choice(divs))
        return m.reshape(x, (first, -1) if size else (0, 1), order=r.choice(["C", "F"]))
    if kind == "transpose":
        return m.transpose(x, tuple(int(i) - nd for i in r.permutation(nd)))
    if kind == "concatenate" and nd:
        axis = int(r.integers(-nd, nd))
        return m.concatenate([x, m.flip(x, axis)], axis=axis)
    if kind == "flip" and nd:
        return m.flip(x, int(r.integers(-nd, nd)))
    if kind == "swapaxes" and nd:
        return m.swapaxes(x, int(r.integers(nd)), int(r.integers(-nd, 0)))
    if kind == "expand" and nd < 4:
        return m.expand_dims(x, int(r.integers(-nd - 1, nd + 1)))
    if kind == "tile" and x.size < 64:
        return m.tile(x, tuple(int(k) for k in r.integers(1, 3, size=r.integers(1, 3))))
    if kind == "pad" and nd:
        return m.pad(x, [(int(r.integers(3)), int(r.integers(3))) for _ in range(nd)],
                     mode=r.choice(["constant", "edge", "symmetric", "reflect", "wrap"]))
    return x


@given(op_sequences())
def test_random_op_sequences_match_numpy(case):
    shape, ops = case
    x = make(shape, np.int32)

    def run(m, a):
        for kind, seed in ops:
            a = _apply(m, a, kind, seed)
        return a
    expected = run(np, x)
    assert_matches(run(jnp, jnp.asarray(x)), expected, f"eager {shape} {ops}")
    assert_matches(tjit.jit(lambda a: run(jnp, a))(x), expected, f"jit {shape} {ops}")


def test_x64_dtypes_survive(x64):
    i = np.arange(6, dtype=np.int64).reshape(2, 3)
    f = np.linspace(0, 1, 6).reshape(3, 2)
    check(lambda m, a: m.concatenate([a, a], axis=-1), i)
    check(lambda m, a: m.pad(m.diagonal(m.tile(a, 2)), 2, mode="wrap"), f)
    check(lambda m, a, c: m.vstack([a, m.transpose(c)]), i, f)


def test_vsplit_of_a_1d_array_splits_axis_0_as_jax():
    # JAX's vsplit docs split a 1-D array; NumPy refuses. The reference: np.split on axis 0
    x = np.arange(6, dtype=np.float32)
    for sections in (2, 3, [1, 4]):
        got = jnp.vsplit(x, sections)
        want = np.split(x, sections, axis=0)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), w)
