"""jvp, transpose and batching rules of the shape primitives (iota, broadcast_in_dim,
reshape, transpose, squeeze, expand_dims) and batching of threefry2x32.

Oracles: float64 central finite differences (``check_grads``), explicit transposes
written in NumPy (the adjoint of each linear op), and a Python loop + stack
(``check_vmap``).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import structural as st
from tjit.primitives.random_bits import threefry2x32_p, threefry2x32_rounds
from tjit.tracing.jaxpr import subjaxprs
from tests.transforms.check import check_grads, check_vmap


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# (name, function, operand shape, NumPy adjoint: ct -> operand cotangent)
LINEAR = [
    ("bid_scalar", lambda x: lax.broadcast_in_dim(x, (2, 3), ()), (),
     lambda ct: ct.sum()),
    ("bid_row", lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), (3,),
     lambda ct: ct.sum(0)),
    ("bid_expand", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), (2, 1),
     lambda ct: ct.sum(1).sum(1, keepdims=True)),
    ("bid_keep_unit", lambda x: lax.broadcast_in_dim(x, (4, 1, 3), (1, 2)), (1, 3),
     lambda ct: ct.sum(0)),
    ("reshape", lambda x: lax.reshape(x, (3, 2, 2)), (2, 6),
     lambda ct: ct.reshape(2, 6)),
    ("reshape_flat", lambda x: lax.reshape(x, (24,)), (2, 3, 4),
     lambda ct: ct.reshape(2, 3, 4)),
    ("transpose", lambda x: lax.transpose(x, (2, 0, 1)), (2, 3, 4),
     lambda ct: np.transpose(ct, np.argsort((2, 0, 1)))),
    ("transpose2", lambda x: lax.transpose(x, (1, 0)), (3, 5),
     lambda ct: ct.T),
    ("squeeze", lambda x: lax.squeeze(x, (0, 2)), (1, 3, 1, 2),
     lambda ct: ct.reshape(1, 3, 1, 2)),
    ("expand_dims", lambda x: lax.expand_dims(x, (0, 3)), (3, 2),
     lambda ct: ct.reshape(3, 2)),
]
IDS = [r[0] for r in LINEAR]


@pytest.mark.parametrize("name,fn,shape,adjoint", LINEAR, ids=IDS)
def test_linear_grads(name, fn, shape, adjoint):
    check_grads(fn, (_x(shape),), order=2)
    # composed with a nonlinear op, so the transpose sees residuals
    check_grads(lambda x: lax.sin(fn(lax.tanh(x))) * fn(x), (_x(shape, 1),))


@pytest.mark.parametrize("name,fn,shape,adjoint", LINEAR, ids=IDS)
def test_transpose_matches_numpy_adjoint(name, fn, shape, adjoint):
    x = _x(shape)
    out, vjp_fn = tjit.vjp(fn, x)
    ct = _x(np.shape(out), 2)
    (got,) = vjp_fn(ct)
    np.testing.assert_allclose(np.asarray(got), adjoint(ct), rtol=1e-6, atol=1e-6)
    assert np.shape(got) == shape
    # jvp of a linear op is the op itself
    _, t = tjit.jvp(fn, (x,), (_x(shape, 3),))
    np.testing.assert_allclose(np.asarray(t), np.asarray(fn(_x(shape, 3))), rtol=1e-6)


# (name, function, per-example shape)
BATCHED = [
    ("bid_scalar", lambda x: lax.broadcast_in_dim(x, (2, 3), ()), ()),
    ("bid_row", lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), (3,)),
    ("bid_expand", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), (2, 1)),
    ("reshape", lambda x: lax.reshape(x, (3, 2, 2)), (2, 6)),
    ("reshape_flat", lambda x: lax.reshape(x, (12,)), (3, 4)),
    ("transpose", lambda x: lax.transpose(x, (2, 0, 1)), (2, 3, 4)),
    ("transpose2", lambda x: lax.transpose(x, (1, 0)), (3, 5)),
    ("squeeze", lambda x: lax.squeeze(x, (0, 2)), (1, 3, 1, 2)),
    ("squeeze_last", lambda x: lax.squeeze(x, (1,)), (3, 1)),
    ("expand_dims", lambda x: lax.expand_dims(x, (0, 3)), (3, 2)),
    ("expand_dims_end", lambda x: lax.expand_dims(x, (1,)), (3,)),
]


def _batched(shape, axis, size=4, seed=0):
    full = list(shape)
    full.insert(axis, size)
    return _x(tuple(full), seed)


@pytest.mark.parametrize("name,fn,shape", BATCHED, ids=[b[0] for b in BATCHED])
def test_vmap(name, fn, shape):
    for axis in range(len(shape) + 1):  # every position of the batch axis
        check_vmap(fn, (_batched(shape, axis),), in_axes=axis)
    check_vmap(fn, (_batched(shape, 0),), in_axes=0, out_axes=-1)


@pytest.mark.parametrize("name,fn,shape", BATCHED, ids=[b[0] for b in BATCHED])
def test_nested_vmap_and_unbatched_operand(name, fn, shape):
    x = _x((2, 3) + shape)
    check_vmap(tjit.vmap(fn, in_axes=0), (x,), in_axes=1)
    # an unbatched operand combined with a batched one
    y = _batched((), 0, 5)
    check_vmap(lambda s, a: fn(a) * s, (y, _x(shape)), in_axes=(0, None))


def test_vmap_of_grad_through_broadcast_and_reshape():
    def f(v):
        m = lax.broadcast_in_dim(v, (2, 3), (1,))
        return jnp.sum(lax.sin(lax.reshape(lax.transpose(m, (1, 0)), (6,))) * jnp.arange(6.0))
    x = _x((5, 3))
    got = tjit.vmap(tjit.grad(f))(x)
    want = np.stack([np.asarray(tjit.grad(f)(r)) for r in x])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    w = np.arange(6.0).reshape(3, 2)  # reshape(transpose(m)) puts m[j, i] at 2 i + j
    np.testing.assert_allclose(np.asarray(got), (np.cos(x)[:, :, None] * w).sum(-1),
                               rtol=1e-5)


def test_iota_rules():
    io = lambda: lax.broadcasted_iota(np.float32, (2, 3), 1)  # noqa: E731
    check_grads(lambda x: x * io() + lax.sin(x), (_x((2, 3)),))
    check_vmap(lambda x: x * io(), (_x((4, 2, 3)),), in_axes=0)
    out = tjit.vmap(lambda: lax.iota(np.int32, 5), axis_size=3)()
    np.testing.assert_array_equal(np.asarray(out), np.tile(np.arange(5), (3, 1)))
    assert st.iota_p.jvp is not None and st.iota_p.batch is not None


def test_structural_grad_under_jit_is_one_jaxpr():
    def f(x):
        y = lax.reshape(lax.transpose(lax.expand_dims(x, (0,)), (0, 2, 1)), (3, 2))
        return jnp.sum(lax.squeeze(lax.broadcast_in_dim(lax.tanh(y), (1, 3, 2), (1, 2)),
                                   (0,)) ** 2)
    x = _x((2, 3))
    g = tjit.grad(f)
    closed = tjit.make_jaxpr(tjit.jit(g))(x)
    # flat, but for tanh's slope: a custom_jvp_call whose own derivative is a second rule
    # (primitives/elementwise.py, _slope_call; the compiler inlines it)
    assert [e.params["name"] for e in closed.jaxpr.eqns
            if e.primitive.name == "custom_jvp_call"] == ["tanh_slope"]
    assert len(list(subjaxprs(closed.jaxpr))) == 1
    names = {e.primitive.name for e in closed.jaxpr.eqns}
    assert {"transpose", "reshape", "expand_dims", "squeeze"} <= names
    np.testing.assert_allclose(np.asarray(tjit.jit(g)(x)), np.asarray(g(x)), rtol=1e-6)
    check_grads(f, (x,), order=2)


def test_structural_rules_with_symbolic_shapes():
    def f(x):
        out, vjp_fn = tjit.vjp(
            lambda a: lax.reshape(lax.transpose(lax.broadcast_in_dim(a, (2,) + a.shape,
                                                                     (1, 2)), (0, 2, 1)),
                                  (2 * a.shape[0] * a.shape[1],)), x)
        batched = tjit.vmap(lambda r: lax.expand_dims(lax.squeeze(
            lax.expand_dims(r, (0,)), (0,)), (1,)), in_axes=1)(x)
        return vjp_fn(out)[0], batched
    closed = tjit.make_jaxpr(f, polymorphic_shapes=["(b, 3)"])(_x((2, 3)))
    assert "b" in str(closed.jaxpr)
    x = _x((5, 3))
    got = tjit.jit(f, polymorphic_shapes=["(b, 3)"])(x)
    np.testing.assert_allclose(np.asarray(got[0]), 2 * x, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got[1]), x.T[:, :, None], rtol=1e-6)


# -- threefry2x32 ------------------------------------------------------------------------------
def _u32(shape, seed):
    return np.random.default_rng(seed).integers(0, 2 ** 32, shape, dtype=np.uint32)


def _hash_np(k1, k2, x1, x2):
    args = np.broadcast_arrays(*[np.asarray(a, np.uint32) for a in (k1, k2, x1, x2)])
    with np.errstate(over="ignore"):
        o1, o2 = threefry2x32_rounds(*[a.reshape(-1) for a in args])
    return o1.reshape(args[0].shape), o2.reshape(args[0].shape)


THREEFRY_AXES = [((0, 0, 0, 0), [(4, 3)] * 4), ((None, None, 0, 0), [(), (), (4, 3), (4, 3)]),
                 ((0, 0, None, None), [(4,), (4,), (3,), (3,)]),
                 ((0, None, 1, None), [(4,), (), (3, 4), (3,)]),
                 ((None, 0, None, 0), [(), (4,), (), (4,)])]


@pytest.mark.parametrize("axes", THREEFRY_AXES, ids=str)
def test_threefry_vmap(axes):
    in_axes, shapes = axes
    args = tuple(_u32(s, i) for i, s in enumerate(shapes))
    f = lambda *a: threefry2x32_p.bind(*[jnp.asarray(v) for v in a])  # noqa: E731
    got = check_vmap(f, args, in_axes=in_axes, rtol=0, atol=0)
    # independent reference: the hash on NumPy arrays, slice by slice
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    for i in range(size):
        sl = [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]
        for g, w in zip(got, _hash_np(*sl)):
            np.testing.assert_array_equal(np.asarray(g)[i], w)


def test_threefry_nested_vmap_and_jit():
    k1, k2, x1, x2 = _u32((), 0), _u32((), 1), _u32((3, 4), 2), _u32((3, 4), 3)
    f = lambda a, b: threefry2x32_p.bind(jnp.asarray(k1), jnp.asarray(k2), a, b)  # noqa
    inner = tjit.vmap(f, in_axes=(0, 0))
    got = tjit.jit(tjit.vmap(inner, in_axes=(1, 1)))(jnp.asarray(x1), jnp.asarray(x2))
    want = _hash_np(k1, k2, x1.T, x2.T)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_every_structural_primitive_has_rules():
    for p in (st.iota_p, st.broadcast_in_dim_p, st.reshape_p, st.transpose_p, st.squeeze_p,
              st.expand_dims_p):
        assert p.jvp is not None and p.batch is not None, p.name
        assert p is st.iota_p or p.transpose is not None, p.name
    assert threefry2x32_p.batch is not None
    assert threefry2x32_p.not_differentiable and threefry2x32_p.jvp is None
