"""A custom_jvp/custom_vjp function called inside its own rule under grad, at concrete
points, runs eagerly, so the function and the rule may branch on values in Python (the
Custom_derivative_rules_for_Python_code notebook of JAX's docs). Expected values are the
rules' own formulas and finite differences of the primal branches."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


@tjit.custom_jvp
def branchy(x):
    if x > 0:
        return jnp.sin(x)
    return jnp.cos(x)


@branchy.defjvp
def _branchy_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    ans = branchy(x)  # the function itself, inside the rule
    return ans, (2.0 if x > 0 else 3.0) * x_dot


@tjit.custom_vjp
def clipped_sqrt(x):
    return jnp.sqrt(x) if x > 0 else 0.0 * x


def _clipped_sqrt_fwd(x):
    return clipped_sqrt(x), x


def _clipped_sqrt_bwd(x, g):
    return ((0.5 / np.sqrt(float(x)) if x > 0 else 0.0) * g,)


clipped_sqrt.defvjp(_clipped_sqrt_fwd, _clipped_sqrt_bwd)


@pytest.mark.parametrize("x", [1.3, -0.7])
def test_custom_jvp_rule_branches_under_grad(x):
    slope = 2.0 if x > 0 else 3.0
    assert float(tjit.grad(branchy)(x)) == slope
    # product rule around it: d/dx (branchy(x) * x) = slope * x + branchy(x)
    want = slope * x + (np.sin(x) if x > 0 else np.cos(x))
    np.testing.assert_allclose(float(tjit.grad(lambda v: branchy(v) * v)(x)), want,
                               rtol=1e-6)
    np.testing.assert_allclose(float(tjit.value_and_grad(branchy)(x)[0]),
                               np.sin(x) if x > 0 else np.cos(x), rtol=1e-6)


@pytest.mark.parametrize("x", [2.0, 0.25, -1.0])
def test_custom_vjp_fwd_calls_the_function_under_grad(x):
    eps = 1e-3
    fd = (np.sqrt(max(x + eps, 0)) - np.sqrt(max(x - eps, 0))) / (2 * eps) if x > 0 else 0.0
    np.testing.assert_allclose(float(tjit.grad(clipped_sqrt)(x)), fd, rtol=1e-4)
    np.testing.assert_allclose(float(tjit.grad(lambda v: clipped_sqrt(v) * 3.0)(x)), 3 * fd,
                               rtol=1e-4)


def test_branching_on_a_traced_value_still_refused_under_jit():
    with pytest.raises(tjit.errors.TracerBoolConversionError):
        tjit.jit(tjit.grad(branchy))(1.0)
