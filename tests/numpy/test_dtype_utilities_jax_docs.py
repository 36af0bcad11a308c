"""issubdtype, isscalar and size as JAX's documentation states them (examples of its
docstrings that ported programs run), checked against NumPy where NumPy agrees."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

_NAMES = ["bool", "int8", "int32", "int64", "uint8", "uint32", "float16", "float32",
          "float64", "complex64", "complex128"]
_KINDS = [np.generic, np.number, np.inexact, np.floating, np.complexfloating, np.integer,
          np.signedinteger, np.unsignedinteger]


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("name", _NAMES)
def test_issubdtype_strings_and_types_as_numpy(name, kind):
    assert jnp.issubdtype(name, kind) == np.issubdtype(name, kind)
    assert jnp.issubdtype(np.dtype(name), kind) == np.issubdtype(np.dtype(name), kind)


@pytest.mark.parametrize("spelled", ["bfloat16", jnp.bfloat16, np.dtype(jnp.bfloat16)])
def test_issubdtype_bfloat16_is_floating_however_spelled(spelled):
    # ml_dtypes' bfloat16 is a float (its finfo has a mantissa); JAX says so for any spelling
    for kind in (np.floating, np.inexact, np.number, np.generic):
        assert jnp.issubdtype(spelled, kind)
    for kind in (np.integer, np.complexfloating, np.unsignedinteger):
        assert not jnp.issubdtype(spelled, kind)


def test_isscalar_as_jax_zero_d_arrays_included():
    for v in (1, 1.5, 2j, True, "s", np.float32(1), np.int8(3)):
        assert jnp.isscalar(v) == np.isscalar(v) == True  # noqa: E712
    for v in ([1], (1,), None, np.ones(2), jnp.ones(2), jnp.ones((1, 1))):
        assert not jnp.isscalar(v)
    # JAX's documented difference from NumPy: every 0-d array is a scalar
    assert jnp.isscalar(np.array(1.0)) and jnp.isscalar(jnp.array(1.0))
    assert tjit.jit(lambda x: jnp.isscalar(x) * x)(jnp.float32(2.0)) == 2.0


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0,), (1,), (0, 2), (0, 1, 2), [2, 0], ()])
def test_size_over_axes_is_the_product_of_their_lengths(axis):
    x = np.zeros((2, 3, 5))
    axes = range(3) if axis is None else ([axis] if isinstance(axis, int) else axis)
    want = int(np.prod([x.shape[a] for a in axes]))
    assert jnp.size(jnp.asarray(x), axis=axis) == want
    assert jnp.size(x, axis=axis) == want
