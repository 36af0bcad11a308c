"""Structural primitives (iota, broadcast_in_dim, reshape, transpose, squeeze,
expand_dims) and their lax wrappers: op records against NumPy, symbolic shape rules,
and error messages that name the op and the shapes, eagerly and under jit."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import structural as st
from tjit.tracing.errors import ShapeError
from tests.primitives.harness import OpRecord, check_record

F32, F64, I32, U8, BOOL, C64 = "float32", "float64", "int32", "uint8", "bool", "complex64"

RECORDS = []
X64_RECORDS = []


def rec(name, fn, ref, args, prims, x64=False, **kw):
    (X64_RECORDS if x64 else RECORDS).append(
        OpRecord(name, fn, ref, tuple(args), tuple(prims), **kw))


def _np_broadcast_in_dim(x, shape, dims):
    """Independent reference: index arithmetic over the output."""
    out = np.empty(shape, x.dtype)
    for idx in np.ndindex(*shape):
        out[idx] = x[tuple(0 if x.shape[k] == 1 else idx[d] for k, d in enumerate(dims))]
    return out


# -- iota -------------------------------------------------------------------------------------
for dt, n in [(I32, 5), (F32, 7), (U8, 4), (I32, 0), (C64, 3)]:
    rec(f"iota_{dt}_{n}", lambda dt=dt, n=n: lax.iota(dt, n),
        lambda dt=dt, n=n: np.arange(n).astype(dt), [], ["iota"])
for shape, dim in [((3, 4), 0), ((3, 4), 1), ((2, 0, 3), 2), ((1,), 0), ((2, 3, 4), 1)]:
    rec(f"broadcasted_iota_{shape}_{dim}", lambda s=shape, d=dim: lax.broadcasted_iota(I32, s, d),
        lambda s=shape, d=dim: np.indices(s, dtype=np.int32)[d] if s else None, [], ["iota"])
rec("broadcasted_iota_negative_dim", lambda: lax.broadcasted_iota(F32, (2, 3), -1),
    lambda: np.tile(np.arange(3, dtype=np.float32), (2, 1)), [], ["iota"])
rec("iota_f64", lambda: lax.iota(F64, 6), lambda: np.arange(6, dtype=np.float64), [], ["iota"],
    x64=True)

# -- broadcast_in_dim -------------------------------------------------------------------------
BCAST = [((), (3, 4), ()), ((4,), (3, 4), (1,)), ((3,), (3, 4), (0,)), ((3, 1), (3, 4), (0, 1)),
         ((1, 4), (2, 3, 4), (0, 2)), ((5,), (5,), (0,)), ((0,), (2, 0), (1,)),
         ((1,), (0, 3), (1,)), ((2, 1, 3), (2, 5, 3), (0, 1, 2)), ((1,), (3, 2), (0,))]
for shape, out, dims in BCAST:
    for dt in (F32, BOOL) if shape == (3, 1) else (F32,):
        rec(f"broadcast_in_dim_{shape}_{out}_{dims}_{dt}",
            lambda x, o=out, d=dims: lax.broadcast_in_dim(x, o, d),
            lambda x, o=out, d=dims: _np_broadcast_in_dim(x, o, d), [(shape, dt)],
            ["broadcast_in_dim"])
rec("broadcast_in_dim_python_scalar", lambda: lax.broadcast_in_dim(2.5, (2, 2), ()),
    lambda: np.full((2, 2), 2.5, np.float32), [], ["broadcast_in_dim"])
rec("broadcast_leading", lambda x: lax.broadcast(x, (2, 3)),
    lambda x: np.broadcast_to(x, (2, 3) + x.shape), [((4,), I32)], ["broadcast_in_dim"])
rec("broadcast_in_dim_c64", lambda x: lax.broadcast_in_dim(x, (2, 5), (1,)),
    lambda x: np.broadcast_to(x, (2, 5)), [((5,), C64)], ["broadcast_in_dim"])
rec("broadcast_in_dim_f64", lambda x: lax.broadcast_in_dim(x, (2, 5), (1,)),
    lambda x: np.broadcast_to(x, (2, 5)), [((5,), F64)], ["broadcast_in_dim"], x64=True)

# -- reshape ----------------------------------------------------------------------------------
RESHAPES = [((3, 4), (12,)), ((3, 4), (2, 6)), ((12,), (2, 2, 3)), ((), (1, 1)), ((1,), ()),
            ((0, 3), (3, 0)), ((0, 3), (0,)), ((2, 3, 4), (4, -1)), ((5,), (5, 1))]
for shape, new in RESHAPES:
    for dt in (F32, I32) if shape == (3, 4) else (F32,):
        rec(f"reshape_{shape}_{new}_{dt}", lambda x, n=new: lax.reshape(x, n),
            lambda x, n=new: np.reshape(x, n), [(shape, dt)], ["reshape"])
rec("reshape_with_dimensions", lambda x: lax.reshape(x, (4, 3), dimensions=(1, 0)),
    lambda x: np.reshape(x.T, (4, 3)), [((3, 4), F32)], ["reshape", "transpose"])
rec("reshape_bool", lambda x: lax.reshape(x, (6,)), lambda x: x.reshape(6), [((2, 3), BOOL)],
    ["reshape"])

# -- transpose --------------------------------------------------------------------------------
for shape, perm in [((3, 4), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 2, 1)),
                    ((0, 3), (1, 0)), ((5,), (0,)), ((), ()), ((1, 2, 1, 3), (3, 2, 1, 0))]:
    rec(f"transpose_{shape}_{perm}", lambda x, p=perm: lax.transpose(x, p),
        lambda x, p=perm: np.transpose(x, p), [(shape, F32)], ["transpose"])
rec("transpose_u8", lambda x: lax.transpose(x, (1, 0)), lambda x: x.T, [((3, 4), U8)],
    ["transpose"])

# -- squeeze / expand_dims ----------------------------------------------------------------------
for shape, dims in [((1, 3, 1), (0, 2)), ((1, 3, 1), (-1,)), ((1,), (0,)), ((3, 1, 4), (1,)),
                    ((1, 0), (0,)), ((3, 4), ())]:
    rec(f"squeeze_{shape}_{dims}", lambda x, d=dims: lax.squeeze(x, d),
        lambda x, d=dims: np.squeeze(x, d) if d else x, [(shape, F32)], ["squeeze"])
for shape, dims in [((3,), (0,)), ((3,), (1,)), ((3,), (-1,)), ((), (0, 1)), ((3, 4), (0, 3)),
                    ((0, 3), (1,)), ((2, 3), (1, 2))]:
    rec(f"expand_dims_{shape}_{dims}", lambda x, d=dims: lax.expand_dims(x, d),
        lambda x, d=dims: np.expand_dims(x, d), [(shape, I32)], ["expand_dims"])

# -- full / full_like (compositions of the above) ------------------------------------------------
rec("full_weak", lambda: lax.full((2, 3), 1.5), lambda: np.full((2, 3), 1.5, np.float32), [],
    ["broadcast_in_dim"])
rec("full_dtype", lambda: lax.full((4,), 7, U8), lambda: np.full(4, 7, np.uint8), [],
    ["broadcast_in_dim", "convert_element_type"])
rec("full_like", lambda x: lax.full_like(x, 3), lambda x: np.full_like(x, 3), [((3, 4), I32)],
    ["broadcast_in_dim"])
rec("full_like_shape", lambda x: lax.full_like(x, 0.5, shape=(2,)),
    lambda x: np.full((2,), 0.5, np.float32), [((3, 4), F32)], ["broadcast_in_dim"])


@pytest.mark.parametrize("record", RECORDS, ids=str)
def test_record(record):
    closed = check_record(record)
    assert closed.out_avals[0].dtype == np.dtype(record.ref(*[np.zeros(s[0], s[1])
                                                               for s in record.args]).dtype)


@pytest.mark.parametrize("record", X64_RECORDS, ids=str)
def test_record_x64(record, x64):
    check_record(record)


def test_every_structural_primitive_has_records():
    covered = {p for r in RECORDS for p in r.primitives}
    defined = {v.name for v in vars(st).values() if isinstance(v, tjit.tracing.core.Primitive)}
    assert defined - covered == set()


def test_weak_types_pass_through():
    w = jnp.asarray(2.0)
    assert w.weak_type
    assert lax.broadcast_in_dim(w, (3,), ()).weak_type
    assert lax.reshape(lax.broadcast(w, (2, 2)), (4,)).weak_type
    assert lax.full((2,), 1.0).weak_type and not lax.full((2,), 1.0, np.float32).weak_type
    assert not lax.iota(np.int32, 3).weak_type
    assert not lax.full((2,), True).weak_type


def test_identity_wrappers_do_not_bind():
    x = jnp.asarray(np.ones((2, 3), np.float32))
    jaxpr = tjit.make_jaxpr(lambda v: (lax.reshape(v, (2, 3)), lax.transpose(v, (0, 1)),
                                       lax.broadcast_in_dim(v, (2, 3), (0, 1)),
                                       lax.squeeze(v, ()), lax.expand_dims(v, ())))(x)
    assert not jaxpr.jaxpr.eqns


def test_results_do_not_alias_user_buffers():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = lax.reshape(a, (2, 3))        # no-op reshape of a NumPy input
    a[0, 0] = 100.0
    assert float(np.asarray(out)[0, 0]) == 0.0


# -- symbolic shapes ------------------------------------------------------------------------------
def _poly(fn, spec, shape, dtype=np.float32):
    return tjit.make_jaxpr(fn, polymorphic_shapes=[spec])(np.ones(shape, dtype))


def test_symbolic_shape_rules():
    j = _poly(lambda x: lax.reshape(x, (-1,)), "(b, 3)", (2, 3))
    assert str(j.out_avals[0].shape[0]) == "3*b"
    j = _poly(lambda x: lax.transpose(lax.expand_dims(x, (0,)), (2, 1, 0)), "(b, 3)", (2, 3))
    assert [str(d) for d in j.out_avals[0].shape] == ["3", "b", "1"]
    j = _poly(lambda x: lax.broadcast_in_dim(x, (x.shape[0], 4, 3), (0, 2)), "(b, 3)", (2, 3))
    assert [str(d) for d in j.out_avals[0].shape] == ["b", "4", "3"]
    j = _poly(lambda x: lax.squeeze(lax.reshape(x, (x.shape[0], 1, 3)), (1,)), "(b, 3)", (2, 3))
    assert [str(d) for d in j.out_avals[0].shape] == ["b", "3"]
    j = _poly(lambda x: lax.broadcasted_iota(np.int32, x.shape, 0), "(b, 3)", (2, 3))
    assert str(j.out_avals[0].shape[0]) == "b"


def test_symbolic_jit_runs_for_several_sizes():
    f = tjit.jit(lambda x: lax.transpose(lax.reshape(x, (x.shape[0], 2, 3)), (2, 1, 0)),
                 polymorphic_shapes=["(b, 6)"])
    for n in (1, 3):
        x = np.arange(6 * n, dtype=np.float32).reshape(n, 6)
        np.testing.assert_array_equal(np.asarray(f(x)), x.reshape(n, 2, 3).transpose(2, 1, 0))


def test_symbolic_errors():
    with pytest.raises(ShapeError, match=r"reshape: cannot reshape array of shape \(b, 3\)"):
        _poly(lambda x: lax.reshape(x, (4, 2)), "(b, 3)", (2, 3))
    with pytest.raises(ShapeError, match=r"squeeze: cannot squeeze dimension 0 of size b"):
        _poly(lambda x: lax.squeeze(x, (0,)), "(b, 3)", (1, 3))


# -- errors: eager and jit alike ------------------------------------------------------------------
X34 = np.ones((3, 4), np.float32)
BAD = [
    (lambda x: lax.broadcast_in_dim(x, (3, 5), (0, 1)), ShapeError,
     r"broadcast_in_dim: operand of shape \(3, 4\) cannot be broadcast to \(3, 5\)"),
    (lambda x: lax.broadcast_in_dim(x, (4, 4), (1, 1)), ShapeError,
     r"broadcast_in_dim: broadcast_dimensions \(1, 1\) must be strictly increasing"),
    (lambda x: lax.broadcast_in_dim(x, (3, 4, 5), (0,)), ShapeError,
     r"broadcast_in_dim: operand of shape \(3, 4\) needs 2 broadcast_dimensions"),
    (lambda x: lax.broadcast_in_dim(x, (3, 4), (0, 2)), ShapeError,
     r"broadcast_in_dim: dimension 2 out of range for shape \(3, 4\)"),
    (lambda x: lax.reshape(x, (5, 2)), ShapeError,
     r"reshape: cannot reshape array of shape \(3, 4\) \(size 12\) into shape \(5, 2\)"),
    (lambda x: lax.reshape(x, (-1, -1)), ShapeError,
     r"reshape: can only specify one unknown dimension"),
    (lambda x: lax.transpose(x, (0, 0)), ShapeError,
     r"transpose: permutation \(0, 0\) is not a permutation of the dims of an operand of "
     r"shape \(3, 4\)"),
    (lambda x: lax.squeeze(x, (0,)), ShapeError,
     r"squeeze: cannot squeeze dimension 0 of size 3 \(shape \(3, 4\)\)"),
    (lambda x: lax.squeeze(x, (2,)), ShapeError, r"squeeze: axis 2 is out of bounds"),
    (lambda x: lax.expand_dims(x, (5,)), ShapeError, r"expand_dims: axis 5 is out of bounds"),
    (lambda x: lax.broadcasted_iota(np.int32, (2, 3), 2), ShapeError,
     r"iota: axis 2 is out of bounds"),
    (lambda x: lax.iota(np.bool_, 3), TypeError, r"iota: dtype bool is not supported"),
    (lambda x: lax.iota("float128", 3), TypeError,
     r"iota: dtype float128 is not supported by tjit"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_errors_eager_and_jit(i):
    fn, exc, match = BAD[i]
    with pytest.raises(exc, match=match):
        fn(jnp.asarray(X34))
    with pytest.raises(exc, match=match):
        tjit.jit(fn)(X34)


ZERO_SIZE = np.zeros((1, 0), np.float32)


@pytest.mark.parametrize("prim,params,match", [
    (st.squeeze_p, dict(dimensions=(0, 0)), r"squeeze: dimensions \(0, 0\) are not unique"),
    (st.squeeze_p, dict(dimensions=(1,)), r"squeeze: cannot squeeze dimension 1 of size 0"),
    (st.reshape_p, dict(new_sizes=(-1,)), r"reshape: new_sizes must be fully specified"),
    (st.broadcast_in_dim_p, dict(shape=(1, 0), broadcast_dimensions=(1, 0)),
     r"broadcast_in_dim: broadcast_dimensions \(1, 0\) must be strictly increasing"),
    (st.expand_dims_p, dict(dimensions=(0, 0)), r"expand_dims: bad dimensions \(0, 0\)"),
])
def test_direct_binds_checked_eagerly(prim, params, match):
    """Binding a primitive directly gets the abstract rule's checks eagerly too (NumPy
    would accept some of these for zero-size arrays)."""
    x = jnp.asarray(ZERO_SIZE)
    with pytest.raises(ShapeError, match=match):
        prim.bind(x, **params)
    with pytest.raises(ShapeError, match=match):
        tjit.jit(lambda v: prim.bind(v, **params))(ZERO_SIZE)
