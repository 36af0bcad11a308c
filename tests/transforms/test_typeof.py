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


def test_typeof_prints_as_jax():
    # JAX 0.10.2's documented forms (docs/array.md: print(jax.typeof(x)) -> float32[3,3]);
    # a weak type is marked ~, the repr names weak_type; jaxprs keep the short f32[3]
    assert str(tjit.typeof(jnp.ones((3, 3)))) == "float32[3,3]"
    assert repr(tjit.typeof(jnp.ones((3, 3)))) == "ShapedArray(float32[3,3])"
    assert str(tjit.typeof(1.0)) == "~float32[]"
    assert repr(tjit.typeof(1.0)) == "ShapedArray(float32[], weak_type=True)"
    assert str(tjit.typeof(jnp.ones(2, jnp.bfloat16))) == "bfloat16[2]"
    assert str(tjit.typeof(jnp.ones(2, jnp.uint32))) == "uint32[2]"
    assert tjit.typeof(jnp.ones(2)).str_short() == "f32[2]"
    assert "f32[2]" in str(tjit.make_jaxpr(jnp.sin)(jnp.ones(2)))
