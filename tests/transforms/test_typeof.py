"""tjit.typeof (jax.typeof): the abstract value of arrays, scalars and tracers."""

import numpy as np

import tjit
import tjit.numpy as jnp


def test_typeof_concrete_values():
    for value, shape, dtype, weak in [
            (np.zeros((2, 3), np.int8), (2, 3), np.int8, False),
            (jnp.ones(4, jnp.float32), (4,), np.float32, False),
            (np.float32(2), (), np.float32, False),
            (2.5, (), np.float32, True),    # Python numbers are weakly typed
            (7, (), np.int32, True),
            (True, (), np.bool_, False)]:
        t = tjit.typeof(value)
        assert (tuple(t.shape), np.dtype(t.dtype), bool(t.weak_type)) == \
            (shape, np.dtype(dtype), weak), value


def test_typeof_inside_transformations_sees_the_traced_value():
    seen = []

    def f(x):
        seen.append(tjit.typeof(x))
        return x * 2

    x = np.ones((5, 3), np.float32)
    tjit.jit(f)(x)
    tjit.vmap(f)(x)
    tjit.grad(lambda v: jnp.sum(f(v)))(x)
    assert [tuple(t.shape) for t in seen] == [(5, 3), (3,), (5, 3)]
    assert all(np.dtype(t.dtype) == np.float32 for t in seen)
