"""tjit.test_util.check_grads (jax.test_util's): passes correct derivatives, catches wrong
ones in each mode. The wrong ones are custom rules that disagree with the function, so
the finite differences, not tjit's AD, are the reference."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.test_util import check_grads


def _logistic_loss(W, b):
    rng = np.random.RandomState(2)
    inputs, targets = rng.randn(4, 3).astype(np.float32), np.array([1, 0, 1, 1], np.float32)
    p = tjit.nn.sigmoid(inputs @ W[:, 0] + b)
    return -jnp.sum(jnp.log(p * targets + (1 - p) * (1 - targets)))


def test_correct_derivatives_pass_to_second_order(x64):
    # float64, as JAX's own check_grads tests run: a second-order central difference in
    # float32 carries ~1e-3 of rounding, the size of float32's default tolerance, so
    # whether it passed depended on the host's float32 exp/log (it failed on a Zen 5 host)
    W = np.random.RandomState(1).randn(3, 2)
    check_grads(_logistic_loss, (W, np.float64(0.3)), order=2)
    check_grads(lambda d: {"s": jnp.sin(d["x"]) * d["y"]},
                ({"x": np.float64(0.4), "y": np.arange(3.0)},), order=2)
    check_grads(lambda z: jnp.abs(z) ** 2, (np.array([1 + 2j, -0.5j], np.complex64),),
                order=1, modes=("rev",))


@tjit.custom_jvp
def _sin_wrong_jvp(x):
    return jnp.sin(x)


_sin_wrong_jvp.defjvp(lambda p, t: (jnp.sin(p[0]), 2 * jnp.cos(p[0]) * t[0]))


@tjit.custom_vjp
def _sin_wrong_vjp(x):
    return jnp.sin(x)


_sin_wrong_vjp.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (-jnp.cos(x) * g,))


@pytest.mark.parametrize("f, mode", [(_sin_wrong_jvp, "fwd"), (_sin_wrong_vjp, "rev")])
def test_wrong_derivatives_are_caught(f, mode):
    x = np.array([0.5, 1.0], np.float32)
    with pytest.raises(AssertionError, match="JVP|VJP"):
        check_grads(f, (x,), order=1, modes=(mode,))
    check_grads(jnp.sin, (x,), order=1, modes=(mode,))  # the honest function passes
