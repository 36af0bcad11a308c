"""jvp, transpose and batching rules of the slicing primitives (rev, pad, concatenate,
slice, dynamic_slice, dynamic_update_slice).

Oracles: float64 central finite differences for jvp / vjp (``check_grads``), a Python loop
over the batch for vmap (``check_vmap``), and NumPy for a few hand-checked transposes.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import rules
from tjit.primitives.slicing import dynamic_slice_p, dynamic_update_slice_p, pad_p
from tjit.tracing.avals import ShapedArray
from tests.transforms.check import check_grads, check_vmap


def arr(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def ds(x, *starts, sizes):
    return lax.dynamic_slice(x, starts, sizes, allow_negative_indices=False)


def dus(x, u, *starts):
    return lax.dynamic_update_slice(x, u, starts, allow_negative_indices=False)


# -- gradients: (id, function, args) ------------------------------------------------------
GRAD_CASES = [
    ("rev0", lambda x: lax.rev(x, (0,)), (arr((4, 3)),)),
    ("rev01", lambda x: lax.rev(x, (0, 1)), (arr((4, 3)),)),
    ("rev_scalar", lambda x: lax.rev(x, ()), (arr(()),)),
    ("pad_lo_hi", lambda x, p: lax.pad(x, p, ((1, 2, 0), (0, 1, 0))),
     (arr((3, 4)), np.float32(0.5))),
    ("pad_interior", lambda x, p: lax.pad(x, p, ((0, 0, 2), (1, 0, 1))),
     (arr((3, 4)), np.float32(-1.5))),
    ("pad_negative", lambda x, p: lax.pad(x, p, ((-1, 2, 1), (2, -3, 0))),
     (arr((3, 4)), np.float32(2.0))),
    ("pad_crop_all_interior", lambda x, p: lax.pad(x, p, ((-2, -1, 2),)),
     (arr((3,)), np.float32(2.0))),
    ("pad_empty", lambda x, p: lax.pad(x, p, ((2, 1, 3),)), (arr((0,)), np.float32(1.0))),
    ("pad_scalar", lambda x, p: lax.pad(x, p, ()), (arr(()), np.float32(1.0))),
    ("concat0", lambda x, y: lax.concatenate([x, y], 0), (arr((2, 3)), arr((4, 3), 1))),
    ("concat1_three", lambda x, y: lax.concatenate([y, x, y], 1),
     (arr((3, 2)), arr((3, 1), 1))),
    ("concat_with_const", lambda x: lax.concatenate([x, jnp.ones((1, 3), x.dtype), x], 0),
     (arr((2, 3)),)),
    ("slice", lambda x: lax.slice(x, (1, 0), (3, 4)), (arr((4, 5)),)),
    ("slice_strided", lambda x: lax.slice(x, (0, 1), (4, 5), (3, 2)), (arr((4, 6)),)),
    ("slice_strided_short", lambda x: lax.slice(x, (1,), (6,), (4,)), (arr((7,)),)),
    ("slice_empty", lambda x: lax.slice(x, (2, 0), (2, 3)), (arr((4, 3)),)),
    ("dynamic_slice", lambda x: ds(x, 1, 2, sizes=(2, 2)), (arr((4, 5)),)),
    ("dynamic_slice_clamped", lambda x: ds(x, 3, 9, sizes=(2, 3)), (arr((4, 5)),)),
    ("dynamic_slice_scalar", lambda x: dynamic_slice_p.bind(x, slice_sizes=()),
     (arr(()),)),
    ("dus", lambda x, u: dus(x, u, 1, 2), (arr((4, 5)), arr((2, 2), 1))),
    ("dus_clamped", lambda x, u: dus(x, u, 5, 4), (arr((4, 5)), arr((2, 3), 1))),
    ("dus_full", lambda x, u: dus(x, u, 0), (arr((3,)), arr((3,), 1))),
]


@pytest.mark.parametrize("name,f,args", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_grads(name, f, args):
    check_grads(f, args)


SECOND_ORDER = [
    ("pad", lambda x, p: lax.pad(jnp.sin(x), p * p, ((1, -1, 1), (0, 2, 0))),
     (arr((3, 2)), np.float32(0.7))),
    ("slice_concat", lambda x: lax.slice(lax.concatenate([jnp.sin(x), x * x], 0),
                                         (1, 0), (5, 2), (2, 1)), (arr((3, 2)),)),
    ("dynamic", lambda x, u: ds(dus(jnp.sin(x), u * u, 1, 0), 0, 1, sizes=(3, 2)),
     (arr((4, 3)), arr((2, 3), 1))),
    ("rev", lambda x: lax.rev(x * jnp.sin(x), (1,)), (arr((2, 3)),)),
]


@pytest.mark.parametrize("name,f,args", SECOND_ORDER, ids=[c[0] for c in SECOND_ORDER])
def test_second_order(name, f, args):
    check_grads(f, args, order=2)


def test_pad_transpose_by_hand():
    x, p = jnp.asarray(np.array([1., 2., 3.], np.float32)), jnp.asarray(np.float32(0.))
    # ((1, 0, 2),): out = [p, x0, p, p, x1, p, p, x2]
    _, vjp = tjit.vjp(lambda x, p: lax.pad(x, p, ((1, 0, 2),)), x, p)
    gx, gp = vjp(jnp.asarray(np.arange(1, 9, dtype=np.float32)))
    np.testing.assert_array_equal(np.asarray(gx), [2., 5., 8.])
    assert float(gp) == 1 + 3 + 4 + 6 + 7
    # ((-1, -1, 2),): [x0, p, p, x1, p, p, x2] cropped by one each side = [p, p, x1, p, p]
    _, vjp = tjit.vjp(lambda x, p: lax.pad(x, p, ((-1, -1, 2),)), x, p)
    gx, gp = vjp(jnp.asarray(np.arange(1, 6, dtype=np.float32)))
    np.testing.assert_array_equal(np.asarray(gx), [0., 3., 0.])
    assert float(gp) == 1 + 2 + 4 + 5


def test_slice_transpose_is_zero_padding():
    x = arr((5, 7))
    _, vjp = tjit.vjp(lambda x: lax.slice(x, (1, 2), (5, 7), (2, 3)), jnp.asarray(x))
    ct = arr((2, 2), 3)
    (g,) = vjp(jnp.asarray(ct))
    want = np.zeros((5, 7), np.float32)
    want[1:5:2, 2:7:3] = ct
    np.testing.assert_array_equal(np.asarray(g), want)


def test_dynamic_slice_transpose_clamps_like_forward():
    x = arr((6,))
    _, vjp = tjit.vjp(lambda x: ds(x, 5, sizes=(3,)), jnp.asarray(x))  # start clamps to 3
    (g,) = vjp(jnp.asarray(np.array([1., 2., 3.], np.float32)))
    np.testing.assert_array_equal(np.asarray(g), [0, 0, 0, 1, 2, 3])


def test_transpose_wrt_indices_is_an_error():
    ct = jnp.ones((2,), jnp.float32)
    x = rules.UndefinedPrimal(ShapedArray((4,), np.dtype(np.float32)))
    i = rules.UndefinedPrimal(ShapedArray((), np.dtype(np.int32)))
    with pytest.raises(ValueError, match="dynamic_slice: cannot transpose.*start indices"):
        dynamic_slice_p.transpose(ct, x, i, slice_sizes=(2,))
    with pytest.raises(ValueError, match="dynamic_update_slice: cannot transpose"):
        dynamic_update_slice_p.transpose(jnp.ones((4,), jnp.float32), x, jnp.ones((2,)), i)


def test_symbolic_zero_cotangent():
    x = rules.UndefinedPrimal(ShapedArray((3,), np.dtype(np.float32)))
    p = rules.UndefinedPrimal(ShapedArray((), np.dtype(np.float32)))
    out = pad_p.transpose(rules.Zero(ShapedArray((5,), np.dtype(np.float32))), x, p,
                          padding_config=((1, 1, 0),))
    assert all(type(o) is rules.Zero for o in out)


def test_integer_indices_get_no_tangent():
    # jvp with respect to the operand only; integer starts are ordinary (non-diff) inputs.
    x = jnp.asarray(arr((5,)))
    out, t = tjit.jvp(lambda x: ds(x, jnp.asarray(2), sizes=(2,)), (x,), (jnp.ones(5),))
    np.testing.assert_array_equal(np.asarray(t), [1, 1])


# -- batching: (id, function, args, in_axes) -----------------------------------------------
IDX = np.array([0, 2, 7, 1, 3], np.int32)  # 7 is out of range: clamped
VMAP_CASES = [
    ("rev_0", lambda x: lax.rev(x, (0,)), (arr((3, 4, 5)),), 0),
    ("rev_1", lambda x: lax.rev(x, (0, 1)), (arr((3, 4, 5)),), 1),
    ("rev_2", lambda x: lax.rev(x, (1,)), (arr((3, 4, 5)),), 2),
    ("pad_x", lambda x, p: lax.pad(x, p, ((1, -1, 1), (0, 2, 0))),
     (arr((3, 4, 5)), np.float32(9.0)), (1, None)),
    ("pad_both", lambda x, p: lax.pad(x, p, ((1, -1, 1), (0, 2, 0))),
     (arr((3, 4, 5)), arr((4,), 1)), (1, 0)),
    ("pad_value_only", lambda x, p: lax.pad(x, p, ((2, -1, 1), (-1, 2, 2))),
     (arr((3, 4)), arr((5,), 1)), (None, 0)),
    ("pad_scalar_operand", lambda x, p: lax.pad(x, p, ()), (arr((4,)), arr((4,), 1)), (0, 0)),
    ("concat_mixed", lambda x, y, z: lax.concatenate([x, y, z], 0),
     (arr((2, 4, 3)), arr((1, 3)), arr((4, 2, 3))), (1, None, 0)),
    ("concat_axis1", lambda x, y: lax.concatenate([x, y], 1),
     (arr((4, 2, 3)), arr((4, 1))), (2, None)),
    ("slice", lambda x: lax.slice(x, (1, 0), (3, 5), (1, 2)), (arr((3, 4, 5)),), 0),
    ("slice_mid", lambda x: lax.slice(x, (0, 1), (3, 5), (2, 3)), (arr((3, 4, 5)),), 1),
    ("ds_operand", lambda x: ds(x, 1, 2, sizes=(2, 2)), (arr((4, 5, 3)),), 2),
    ("ds_both", lambda x, i: ds(x, i, 1, sizes=(2, 3)), (arr((4, 5, 5)), IDX), (1, 0)),
    ("ds_indices", lambda x, i, j: ds(x, i, j, sizes=(3, 2)),
     (arr((5, 4)), IDX, IDX[::-1].copy()), (None, 0, 0)),
    ("ds_mixed_dtypes", lambda x, i, j: ds(x, i, j, sizes=(3, 2)),
     (arr((5, 4)), IDX.astype(np.int64), np.int8(1)), (None, 0, None)),
    ("dus_operand", lambda x, u: dus(x, u, 1, 2), (arr((4, 5, 3)), arr((2, 2), 1)), (0, None)),
    ("dus_update", lambda x, u: dus(x, u, 3, 0), (arr((4, 5)), arr((3, 2, 2), 1)), (None, 0)),
    ("dus_all", lambda x, u, i: dus(x, u, i, 1), (arr((4, 5, 5)), arr((2, 5, 2), 1), IDX),
     (1, 1, 0)),
    ("dus_indices_only", lambda x, u, i: dus(x, u, 1, i), (arr((4, 5)), arr((2, 2), 1), IDX),
     (None, None, 0)),
    ("dus_update_indices", lambda x, u, i: dus(x, u, i), (arr((6,)), arr((2, 5), 1), IDX),
     (None, 1, 0)),
]


@pytest.mark.parametrize("name,f,args,in_axes", VMAP_CASES, ids=[c[0] for c in VMAP_CASES])
def test_vmap(name, f, args, in_axes):
    check_vmap(f, args, in_axes)


@pytest.mark.parametrize("out_axes", [0, 1])
def test_vmap_out_axes_and_jit(out_axes):
    f = lambda x, p: lax.pad(lax.rev(x, (0,)), p, ((1, 1, 1),))  # noqa: E731
    args = (arr((5, 3)), arr((5,), 1))
    want = check_vmap(f, args, (0, 0), out_axes)
    got = tjit.jit(tjit.vmap(f, (0, 0), out_axes))(*args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))


def test_nested_vmap():
    def f(x, y, p):
        z = lax.concatenate([lax.slice(x, (1,), (3,)), y], 0)
        return lax.pad(lax.rev(z, (0,)), p, ((1, 0, 1),))
    x, y, p = arr((4, 5, 3)), arr((3, 2)), arr((4,), 2)
    inner = tjit.vmap(f, in_axes=(1, 0, None))
    got = tjit.vmap(inner, in_axes=(0, None, 0))(x, y, p)
    want = np.stack([np.stack([np.asarray(f(jnp.asarray(x[i, :, j]), jnp.asarray(y[j]),
                                            jnp.asarray(p[i])))
                               for j in range(3)]) for i in range(4)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_grad_of_vmap_and_vmap_of_grad():
    def f(x, p):
        return jnp.sum(jnp.sin(lax.pad(lax.slice(x, (1,), (5,), (2,)), p, ((1, 1, 1),))))
    x, p = arr((3, 6)), arr((3,), 1)
    per_example = tjit.vmap(tjit.grad(f, argnums=(0, 1)))(x, p)
    for i in range(3):
        gx, gp = tjit.grad(f, argnums=(0, 1))(jnp.asarray(x[i]), jnp.asarray(p[i]))
        np.testing.assert_allclose(np.asarray(per_example[0][i]), np.asarray(gx), rtol=1e-6)
        np.testing.assert_allclose(float(per_example[1][i]), float(gp), rtol=1e-6)
    check_grads(lambda x, p: tjit.vmap(f)(x, p), (x, p))


def test_grad_of_vmap_with_unbatched_indices():
    f = lambda x, u: dus(x, u * u, 2, 1)  # noqa: E731
    check_grads(lambda x, u: tjit.vmap(f, in_axes=(0, None))(x, u),
                (arr((3, 5, 4)), arr((2, 2), 1)))


# -- jnp-level programs ---------------------------------------------------------------------
JNP_PROGRAMS = [
    ("getitem", lambda x: x[1:3] * x[2:4]),
    ("getitem_step", lambda x: x[::2, 1:4:2]),
    ("getitem_negative", lambda x: x[-1, 2:]),
    ("concatenate", lambda x: jnp.concatenate([x, jnp.sin(x)], axis=1)),
    ("stack", lambda x: jnp.stack([x[0], x[1] * 2.0])),
    ("pad_constant", lambda x: jnp.pad(x, ((1, 2), (0, 1)), constant_values=0.5)),
    ("pad_reflect", lambda x: jnp.pad(x, 2, mode="reflect")),
    ("pad_edge", lambda x: jnp.pad(x, 1, mode="edge")),
    ("roll", lambda x: jnp.roll(x, 2, axis=1) * x),
    ("roll_flat", lambda x: jnp.roll(x, -3)),
    ("flip", lambda x: jnp.flip(x, 0) + x),
    ("split", lambda x: jnp.split(x, [1, 3], axis=0)[1]),
]


@pytest.mark.parametrize("name,f", JNP_PROGRAMS, ids=[c[0] for c in JNP_PROGRAMS])
def test_jnp_programs(name, f):
    x = arr((4, 5))
    check_grads(f, (x,))
    check_vmap(f, (arr((4, 5, 3)),), 2)


def test_jit_grad_is_one_jaxpr_and_symbolic():
    def f(x):
        y = lax.slice(x, (1, 0), (x.shape[0], 3), (2, 1))
        z = lax.concatenate([x, jnp.sin(x)], 0)
        p = lax.pad(x, np.float32(1), ((1, -1, 1), (0, 0, 0)))
        return jnp.sum(y) + jnp.sum(z * z) + jnp.sum(jnp.sin(p)) + jnp.sum(lax.rev(x, (0,)))
    x = arr((5, 3))
    jaxpr = tjit.make_jaxpr(tjit.grad(f))(x)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert "pad" in names and "slice" in names  # the backward pass is in the same jaxpr
    want = tjit.grad(f)(x)
    np.testing.assert_allclose(np.asarray(tjit.jit(tjit.grad(f))(x)), np.asarray(want),
                               rtol=1e-6)
    poly = tjit.jit(tjit.grad(f), polymorphic_shapes=["(b, 3)"])
    np.testing.assert_allclose(np.asarray(poly(x)), np.asarray(want), rtol=1e-6)
    x7 = arr((7, 3), 1)
    np.testing.assert_allclose(np.asarray(poly(x7)), np.asarray(tjit.grad(f)(x7)), rtol=1e-6)
    text = str(tjit.make_jaxpr(tjit.grad(f), polymorphic_shapes=["(b, 3)"])(x))
    assert "b" in text


def test_grad_through_batched_start_indices():
    # vmap with per-example starts becomes a gather / scatter; their own rules take over.
    idx = np.array([0, 2, 7, 1, 3], np.int32)
    x = arr((5, 4, 3))

    def f(x, i):
        return ds(x, i, 1, sizes=(2, 2))

    def g(x, u, i):
        return dus(x, u, i, 1)
    check_grads(lambda x: tjit.vmap(f, in_axes=(0, 0))(x, idx), (x,))
    check_grads(lambda x: tjit.vmap(f, in_axes=(None, 0))(x, idx), (x[0],))
    check_grads(lambda x, u: tjit.vmap(g, in_axes=(0, None, 0))(x, u, idx),
                (x, x[0, :2, :2]))
    check_grads(lambda x, u: tjit.vmap(g, in_axes=(None, 0, 0))(x, u, idx),
                (x[0], x[:, :2, :2]))


def test_nested_vmap_batched_indices():
    x, i, j = arr((3, 6, 5)), np.array([0, 4, 2], np.int32), np.array([1, 3], np.int32)

    def f(x, i, j):
        return ds(x, i, j, sizes=(2, 2))
    got = tjit.vmap(tjit.vmap(f, in_axes=(None, None, 0)), in_axes=(0, 0, None))(x, i, j)
    want = np.stack([np.stack([np.asarray(f(jnp.asarray(x[a]), i[a], j[b]))
                               for b in range(2)]) for a in range(3)])
    np.testing.assert_array_equal(np.asarray(got), want)
