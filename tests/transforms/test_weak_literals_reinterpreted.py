"""A Python scalar in a traced function stays weakly typed when a transformation
interprets the traced jaxpr again (checkpoint and cond under jvp / vjp / linearize /
value_and_grad, vmap of those): ``y * 2.0 + 1.0`` on a weak input is weak, as when it
runs directly, so adding it to a bfloat16 array gives bfloat16.

Re-binding used to hand the equations a jaxpr literal as a bare NumPy scalar, which is
strongly typed: ``jvp(checkpoint(f), (3.0,), (1.0,))`` gave a float32 primal that
promoted the bfloat16 array to float32.

Oracles: values from NumPy in float64; the weak flag from the same function run
directly on the Python scalar (no transformation), and JAX's promotion rule
(weak float32 + bfloat16 -> bfloat16).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _f(y):
    return y * 2.0 + 1.0


def _f64(y):
    return y * 2.0 + 1.0


def _cond(y):
    return lax.cond(True, _f, lambda z: z, y)


def _switch(y):
    return lax.switch(1, [lambda z: z, _f], y)


WRAPPED = {  # name -> (function of x giving a list of outputs, outputs' float64 values)
    "jvp of checkpoint": (lambda x: tjit.jvp(tjit.checkpoint(_f), (x,), (1.0,)),
                          lambda x: [_f64(x), 2.0]),
    "jvp of cond": (lambda x: tjit.jvp(_cond, (x,), (1.0,)), lambda x: [_f64(x), 2.0]),
    "jvp of switch": (lambda x: tjit.jvp(_switch, (x,), (1.0,)), lambda x: [_f64(x), 2.0]),
    "vjp of checkpoint": (lambda x: [tjit.vjp(tjit.checkpoint(_f), x)[0]],
                          lambda x: [_f64(x)]),
    "linearize of checkpoint": (lambda x: [tjit.linearize(tjit.checkpoint(_f), x)[0]],
                                lambda x: [_f64(x)]),
    "value_and_grad of checkpoint": (lambda x: tjit.value_and_grad(tjit.checkpoint(_f))(x),
                                     lambda x: [_f64(x), 2.0]),
    "value_and_grad of cond": (lambda x: tjit.value_and_grad(_cond)(x),
                               lambda x: [_f64(x), 2.0]),
    "jvp of jit of checkpoint": (
        lambda x: tjit.jvp(tjit.jit(tjit.checkpoint(_f)), (x,), (1.0,)),
        lambda x: [_f64(x), 2.0]),
    "vmap of jvp of checkpoint, primal": (
        lambda x: [tjit.vmap(lambda t: tjit.jvp(tjit.checkpoint(_f), (x,), (t,))[0])(
            np.float32([1.0, 2.0]))],
        lambda x: [np.full(2, _f64(x))]),
}


@pytest.mark.parametrize("name", list(WRAPPED))
def test_weak_python_scalar_stays_weak(name):
    run, want = WRAPPED[name]
    x = 3.0
    direct = jnp.multiply(x, 2.0) + 1.0  # the same arithmetic, run without transformation
    assert direct.weak_type
    bf16 = jnp.ones((2,), jnp.bfloat16)
    for got, value in zip(run(x), want(x)):
        assert got.dtype == np.float32 and got.weak_type == direct.weak_type, name
        assert (got + bf16).dtype == jnp.bfloat16, name
        np.testing.assert_allclose(np.asarray(got, np.float64), value, rtol=1e-6)


def test_strong_literal_stays_strong():
    # an explicitly typed constant is not weak, before or after re-binding
    def g(y):
        return y * np.float32(2.0)
    out, tan = tjit.jvp(tjit.checkpoint(g), (3.0,), (1.0,))
    assert not out.weak_type and (out + jnp.ones((2,), jnp.bfloat16)).dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), 6.0)
