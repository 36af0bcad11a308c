"""Integer binary ufuncs give the weak type of JAX's promotion lattice.

The class of defect this guards: an integer ufunc written as a composite of lax ops
whose strong constants drop the weak flag (fmod's zero-divisor guard did): bool array
fmod 3 gave a strong int32, so ``jnp.fmod(mask, 3) + int8_array`` became int32
instead of int8. JAX's lattice (its type-promotion docs): bool joined with a Python int
is the weak int ``i*`` (int32, weakly typed); int8 joined with it stays a strong int8.
Every integer binary ufunc, eager and jit, both operand orders.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

OPS = ["add", "subtract", "multiply", "floor_divide", "remainder", "mod", "fmod",
       "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
       "maximum", "minimum"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("use_jit", [False, True])
@pytest.mark.parametrize("order", ["array_first", "scalar_first"])
@pytest.mark.parametrize("dt,want", [(np.bool_, (np.int32, True)),
                                     (np.int8, (np.int8, False))])
def test_weak_type_follows_the_lattice(op, use_jit, order, dt, want):
    f = getattr(jnp, op)
    g = (lambda a: f(a, 3)) if order == "array_first" else (lambda a: f(3, a))
    out = (tjit.jit(g) if use_jit else g)(jnp.asarray(np.array([True, False]).astype(dt)))
    assert (out.dtype, out.weak_type) == (np.dtype(want[0]), want[1])
