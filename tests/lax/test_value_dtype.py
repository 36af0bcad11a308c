"""lax.dtype (jax.lax.dtype): values and types to the dtype tjit gives them, with and
without x64, against a table of JAX 0.10.2's answers; the errors for what has no dtype."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

# (value, dtype with x64 off, with x64 on): JAX 0.10.2's lax.dtype gives the same
CASES = [
    (1.0, "float32", "float64"), (1, "int32", "int64"), (2**40, "int32", "int64"),
    (True, "bool", "bool"), (1j, "complex64", "complex128"),
    (float, "float32", "float64"), (int, "int32", "int64"), (bool, "bool", "bool"),
    (complex, "complex64", "complex128"),
    (np.float64(1), "float32", "float64"), (np.float16(1), "float16", "float16"),
    (np.ones(2), "float32", "float64"), (np.ones(2, np.int64), "int32", "int64"),
    (np.ones(2, np.uint8), "uint8", "uint8"),
    (np.dtype("complex128"), "complex64", "complex128"), ("bfloat16", "bfloat16", "bfloat16"),
    (np.int64, "int32", "int64"), ("float16", "float16", "float16"),
]


def _want(name):
    return jnp.bfloat16 if name == "bfloat16" else np.dtype(name)


@pytest.mark.parametrize("x64", [False, True])
def test_values_and_types(x64):
    with tjit.enable_x64(x64):
        for value, off, on in CASES:
            want = _want(on if x64 else off)
            assert lax.dtype(value) == want, (value, lax.dtype(value), want)


def test_tjit_arrays_tracers_keys_and_structs_keep_their_dtype():
    assert lax.dtype(jnp.ones(2, jnp.float16)) == np.float16
    assert lax.dtype(tjit.ShapeDtypeStruct((2,), jnp.int8)) == np.int8
    key = tjit.random.key(0)
    assert lax.dtype(key) == key.dtype
    seen = []
    tjit.jit(lambda x: seen.append(lax.dtype(x)) or x)(np.float32(1))
    assert seen == [np.dtype("float32")]


def test_what_has_no_dtype_is_named():
    with pytest.raises(TypeError, match=r"lax.dtype: cannot determine the dtype of \[1, 2\]"):
        lax.dtype([1, 2])
    with pytest.raises(ValueError, match="lax.dtype: None has no dtype"):
        lax.dtype(None)
    with pytest.raises(TypeError, match="lax.dtype: cannot determine the dtype of <object"):
        lax.dtype(object())
