"""tjit.custom_gradient (jax.custom_gradient): the function's own vjp is used, closures
over forward values included; references are the stated vjp formulas (NumPy) and a Python
loop for vmap."""

import numpy as np

import tjit
import tjit.numpy as jnp


@tjit.custom_gradient
def _square_with_half_grad(x):
    return x ** 2, lambda g: (g * x,)  # deliberately not 2x: the rule must win


@tjit.custom_gradient
def _mul(x, y):
    return x * y, lambda g: (g * y, g * x)


@tjit.custom_gradient
def _sin_clipped_grad(x):
    s, c = jnp.sin(x), jnp.cos(x)  # c: a forward intermediate the vjp closes over
    return s, lambda g: jnp.clip(g * c, -0.1, 0.1)


def test_value_and_stated_gradient():
    assert float(_square_with_half_grad(3.0)) == 9.0
    assert float(tjit.grad(_square_with_half_grad)(3.0)) == 3.0
    gx, gy = tjit.grad(_mul, argnums=(0, 1))(3.0, 4.0)
    assert (float(gx), float(gy)) == (4.0, 3.0)


def test_closure_over_forward_values_under_jit_and_vmap():
    x = np.linspace(-2, 2, 7).astype(np.float32)
    want = np.clip(5 * np.cos(x), -0.1, 0.1)
    loss = lambda v: 5 * _sin_clipped_grad(v)  # noqa: E731
    for grad in (tjit.grad(loss), tjit.jit(tjit.grad(loss))):
        got = [float(grad(v)) for v in x]
        np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tjit.vmap(tjit.grad(loss))(x)), want, rtol=1e-6)
    # a pytree output: cotangent structure follows it
    f = tjit.custom_gradient(lambda a: ((a, 2 * a), lambda g: (g[0] + 10 * g[1],)))
    np.testing.assert_allclose(float(tjit.grad(lambda a: f(a)[0] + f(a)[1])(1.0)), 11.0)
