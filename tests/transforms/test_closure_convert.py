"""closure_convert: closed-over traced floats become arguments (JAX's rule: concrete
arrays and integers stay closed over), so a higher-order custom_vjp can differentiate
through them. References: NumPy float64 and finite differences."""

from functools import partial

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.custom_derivatives import closure_convert


def test_hoists_traced_floats_only():
    seen = {}

    def outer(a):
        w = jnp.arange(3.0) * a        # traced float: hoisted
        n = jnp.int32(2)              # integer: stays closed over
        c = jnp.array([1.0, 2.0, 3.0])  # concrete: stays closed over

        def g(x):
            return jnp.sum(jnp.sin(x * w) * c) + n
        conv, hoisted = closure_convert(g, jnp.ones(3))
        seen["shapes"] = [h.shape for h in hoisted]
        return conv(jnp.full(3, 0.5), *hoisted)

    def ref(a):
        return np.sum(np.sin(0.5 * np.arange(3.0) * a) * [1, 2, 3]) + 2
    np.testing.assert_allclose(outer(1.5), ref(1.5), rtol=1e-6)
    assert seen["shapes"] == []                     # eager: nothing traced
    h = 1e-6
    fd = (ref(1.5 + h) - ref(1.5 - h)) / (2 * h)
    np.testing.assert_allclose(tjit.grad(outer)(1.5), fd, rtol=1e-4)
    assert seen["shapes"] == [(3,)]
    np.testing.assert_allclose(tjit.jit(outer)(1.5), ref(1.5), rtol=1e-6)


def test_converted_function_checks_the_argument_structure():
    conv, hoisted = tjit.closure_convert(lambda x, y: x * y, 2.0, 3.0)
    assert hoisted == [] and float(conv(4.0, 5.0)) == 20.0
    with pytest.raises(TypeError, match="same Pytree structure as the example arguments"):
        conv((4.0, 5.0))


def test_fixed_point_with_custom_vjp_differentiates_through_the_closure():
    # the pattern of JAX's closure_convert docstring: a solver taking a function, its
    # custom_vjp taking the closed-over values as arguments
    def fixed_point(f, x0):
        conv, consts = closure_convert(f, x0)
        return _fixed_point(conv, x0, *consts)

    @partial(tjit.custom_vjp, nondiff_argnums=(0,))
    def _fixed_point(f, x0, *consts):
        def body(carry):
            _, x = carry
            return x, f(x, *consts)
        return lax.while_loop(lambda c: jnp.abs(c[0] - c[1]) > 1e-6, body,
                              (x0, f(x0, *consts)))[1]

    def fwd(f, x0, *consts):
        x = _fixed_point(f, x0, *consts)
        return x, (x, consts)

    def bwd(f, res, g):
        x, consts = res
        _, vjp_x = tjit.vjp(lambda z: f(z, *consts), x)
        _, vjp_c = tjit.vjp(lambda *c: f(x, *c), *consts)
        # w = g + w df/dx, solved by iteration (|df/dx| < 1 here)
        w = lax.fori_loop(0, 200, lambda i, w: g + vjp_x(w)[0], g)
        return (jnp.zeros_like(x), *vjp_c(w))

    _fixed_point.defvjp(fwd, bwd)

    def sqrt_by_fixed_point(a):   # x = (x + a / x) / 2 converges to sqrt(a)
        return fixed_point(lambda x: 0.5 * (x + a / x), 1.0)
    np.testing.assert_allclose(sqrt_by_fixed_point(2.0), np.sqrt(2.0), rtol=1e-5)
    np.testing.assert_allclose(tjit.grad(sqrt_by_fixed_point)(2.0), 0.5 / np.sqrt(2.0),
                               rtol=1e-4)
