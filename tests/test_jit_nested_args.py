"""jit called inside a transformation (grad, jvp, vmap) runs its function on arrays of
the types a compiled call would use: a NumPy float64 argument the transformation does
not trace is float32 (64-bit types off), a Python float weak.

It used to call the function on the raw arguments there, so NumPy computed on them:
``grad(lambda a, b: (sum(f(a, b)), f(a, b)[1]), has_aux=True)`` with ``f = jit(lambda
a, b: (a * 2, b * 2.0))`` gave a float64 ndarray aux where the compiled call (and JAX)
give float32.

Oracles: the dtype and weak type of the same jitted function called on its own (the
compiled path); values from NumPy in float64.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.core import Array

X64 = np.array([1.0, -2.0, 0.5])
F = tjit.jit(lambda a, b: (a * 2.0, b * 2.0 + 1.0))
F_STATIC = tjit.jit(lambda a, b, n: (a * n, b * n), static_argnums=2)

CASES = {
    "grad has_aux, untraced float64 argument": (
        lambda b: tjit.grad(lambda a: (jnp.sum(F(a, b)[0]), F(a, b)[1]), has_aux=True)(X64)[1],
        lambda b: F(X64, b)[1], lambda b: b * 2.0 + 1.0),
    "jvp closing over a float64 array": (
        lambda b: tjit.jvp(lambda a: F(a, b)[1], (X64,), (X64,))[0],
        lambda b: F(X64, b)[1], lambda b: b * 2.0 + 1.0),
    "vmap with the argument unmapped": (
        lambda b: tjit.vmap(lambda a: F(a, b)[1])(np.stack([X64, X64])),
        lambda b: F(X64, b)[1], lambda b: np.stack([b * 2.0 + 1.0] * 2)),
    "static argument kept": (
        lambda b: tjit.jvp(lambda a: F_STATIC(a, b, 3)[1], (X64,), (X64,))[0],
        lambda b: F_STATIC(X64, b, 3)[1], lambda b: b * 3),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("b", [X64, np.float64(0.25), 0.25, np.array([1, 2, 3])],
                         ids=["float64 array", "float64 scalar", "Python float", "int64"])
def test_nested_jit_sees_arrays_of_jit_types(name, b):
    nested, compiled, numpy_value = CASES[name]
    got, want = nested(b), compiled(b)
    assert isinstance(got, Array), f"{name}: got a {type(got).__name__}"
    assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), name
    np.testing.assert_allclose(np.asarray(got, np.float64),
                               numpy_value(np.asarray(b, np.float64)), rtol=1e-6)
