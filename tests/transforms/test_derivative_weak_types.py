"""A derivative has its primal's type, weak type included (as in JAX): the gradient of a
Python float is weakly typed, so it does not promote a bfloat16 or float16 array it
meets later. Before, grad/vjp/jvp/linearize/jacobians returned strong float32 here and
``grad(f)(3.0) * half`` silently became float32."""
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def _cube(x):
    return x * x * x


# name -> (derivative, its value: d/dx x^3 = 27 at 3, the hessian 6x = 18)
DERIVATIVES = {
    "grad": (lambda: tjit.grad(_cube)(3.0), 27.0),
    "grad_of_product_with_strong":
        (lambda: tjit.grad(lambda x, y: x * y)(3.0, jnp.float32(2)), 2.0),
    "value_and_grad": (lambda: tjit.value_and_grad(_cube)(3.0)[1], 27.0),
    "vjp_with_strong_cotangent": (lambda: tjit.vjp(_cube, 3.0)[1](jnp.float32(1))[0], 27.0),
    "jvp_with_strong_tangent": (lambda: tjit.jvp(_cube, (3.0,), (jnp.float32(1),))[1], 27.0),
    "linearize": (lambda: tjit.linearize(_cube, 3.0)[1](jnp.float32(1)), 27.0),
    "jacfwd": (lambda: tjit.jacfwd(_cube)(3.0), 27.0),
    "jacrev": (lambda: tjit.jacrev(_cube)(3.0), 27.0),
    "hessian": (lambda: tjit.hessian(_cube)(3.0), 18.0),
    "jit_of_grad": (lambda: tjit.jit(tjit.grad(_cube))(3.0), 27.0),
}


@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_derivative_of_a_python_float_is_weak_and_keeps_half_precision(name):
    derivative, expected = DERIVATIVES[name]
    d = derivative()
    assert d.dtype == np.float32 and d.weak_type, name
    np.testing.assert_allclose(float(d), expected, rtol=1e-6)
    assert (d * jnp.ones(3, jnp.float16)).dtype == np.float16, name  # weak: takes f16


@pytest.mark.parametrize("name", ["grad", "vjp"])
def test_derivative_of_a_strong_array_stays_strong(name):
    x = jnp.float32(3)
    d = tjit.grad(_cube)(x) if name == "grad" else tjit.vjp(_cube, x)[1](1.0)[0]
    assert not d.weak_type
    assert (d * jnp.ones(3, jnp.float16)).dtype == np.float32
