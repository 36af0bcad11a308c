"""Dtype arguments given as NumPy scalar types: jnp.finfo(np.float32), jnp.iinfo(np.int8)
and concatenate/stack/hstack/vstack(..., dtype=np.float32) raised ('Cannot
interpret <attribute 'dtype' of 'numpy.generic' objects>'): they read ``x.dtype`` off the
argument, which on a NumPy type is a class attribute descriptor. References: NumPy."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


@pytest.mark.parametrize("t", [np.float16, np.float32, np.float64, np.complex64, "float32",
                               np.dtype(np.float32), jnp.float32, jnp.bfloat16])
def test_finfo_of_every_dtype_spelling(t):
    expected = np.finfo(np.float32 if t is jnp.float32 else np.dtype(t) if t is not
                        jnp.bfloat16 else np.float32)
    got = jnp.finfo(t)
    if t is jnp.bfloat16:
        assert got.eps == 2.0 ** -7
    else:
        assert got.eps == expected.eps and got.max == expected.max


@pytest.mark.parametrize("t", [np.int8, np.uint16, np.int32, np.uint64, "int16", jnp.int8])
def test_iinfo_of_every_dtype_spelling(t):
    expected = np.iinfo(np.int8 if t is jnp.int8 else np.dtype(t))
    got = jnp.iinfo(t)
    assert (got.min, got.max, got.bits) == (expected.min, expected.max, expected.bits)


def test_finfo_iinfo_of_values():
    assert jnp.finfo(np.ones(2, np.float16)).eps == np.finfo(np.float16).eps
    assert jnp.finfo(jnp.ones(2)).eps == np.finfo(np.float32).eps
    assert jnp.iinfo(jnp.arange(3)).max == np.iinfo(np.int32).max


@pytest.mark.parametrize("fn", ["concatenate", "stack", "hstack", "vstack"])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, jnp.int16, "float32"])
def test_joining_with_a_dtype_type(fn, dtype):
    a = np.arange(6).reshape(2, 3)
    b = -np.arange(6).reshape(2, 3)
    expected = getattr(np, fn)([a, b], dtype=dtype if dtype is not jnp.int16 else np.int16)
    f = lambda x, y: getattr(jnp, fn)([x, y], dtype=dtype)  # noqa: E731
    for got in [f(a, b), tjit.jit(f)(a, b)]:
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
