"""nn.relu6: values vs NumPy's clip, and its custom_jvp (derivative 1 on (0, 6), 0 elsewhere
including both kinks, as jax.nn.relu6) under grad, jvp, vmap and jit."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import nn
from tests.transforms.check import check_grads, check_vmap

POINTS = np.array([-1.0, 0.0, 3.0, 6.0, 7.0], np.float32)
# the derivative JAX documents: 1 strictly inside (0, 6), 0 at the kinks and outside
WANT_GRAD = np.array([0.0, 0.0, 1.0, 0.0, 0.0], np.float32)


@pytest.mark.parametrize("x,want", list(zip(POINTS.tolist(), WANT_GRAD.tolist())))
def test_grad_at_points(x, want):
    assert float(tjit.grad(nn.relu6)(x)) == want
    assert float(tjit.jit(tjit.grad(nn.relu6))(x)) == want


def test_values_match_clip():
    x = np.linspace(-3, 9, 25).astype(np.float32)
    got = nn.relu6(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(got), np.clip(x, 0, 6))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(tjit.jit(nn.relu6)(x)), np.clip(x, 0, 6))


def test_jvp_scales_tangent():
    t = np.full(5, 2.5, np.float32)
    out, t_out = tjit.jvp(nn.relu6, (jnp.asarray(POINTS),), (jnp.asarray(t),))
    np.testing.assert_array_equal(np.asarray(out), np.clip(POINTS, 0, 6))
    np.testing.assert_array_equal(np.asarray(t_out), 2.5 * WANT_GRAD)


def test_vmap_of_grad_and_jit():
    g = tjit.vmap(tjit.grad(nn.relu6))
    np.testing.assert_array_equal(np.asarray(g(POINTS)), WANT_GRAD)
    np.testing.assert_array_equal(np.asarray(tjit.jit(g)(POINTS)), WANT_GRAD)
    # the kinks survive being batched inside jit (custom_jvp_call's batching rule)
    np.testing.assert_array_equal(
        np.asarray(tjit.grad(lambda x: tjit.jit(tjit.vmap(nn.relu6))(x).sum())(POINTS)),
        WANT_GRAD)


def test_vmap_matches_loop():
    x = np.array([[-1.0, 0.5, 6.5], [2.0, 5.9, -0.1]], np.float32)
    check_vmap(nn.relu6, (x,), in_axes=1)
    check_vmap(nn.relu6, (x,), in_axes=0)


def test_grads_match_finite_differences_off_kinks():
    x = np.array([-2.0, -0.3, 0.4, 3.1, 5.7, 6.6, 9.0])
    check_grads(nn.relu6, (x,), order=2)


def test_hard_sigmoid_kinks_use_relu6_rule():
    # hard_sigmoid(x) = relu6(x + 3) / 6: zero slope at x = -3 and 3, 1/6 inside
    g = tjit.vmap(tjit.grad(nn.hard_sigmoid))(jnp.array([-3.0, 0.0, 3.0]))
    np.testing.assert_allclose(np.asarray(g), [0.0, 1 / 6, 0.0], rtol=1e-6)


def test_non_array_input_rejected():
    with pytest.raises(TypeError, match="relu6"):
        nn.relu6("abc")
