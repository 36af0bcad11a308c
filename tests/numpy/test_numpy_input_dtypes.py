"""NumPy arrays and scalars of every dtype tjit supports enter tjit as they are.

The class of defect this guards: an input check that sorts NumPy dtypes by their
``kind`` letter. ml_dtypes' bfloat16 (the dtype of ``jnp.bfloat16``, as in JAX) has kind
``"V"``, the letter of structured voids, so ``jnp.asarray(np_bf16_array)`` was refused
as "structured" while ``jnp.arange(3, dtype=jnp.bfloat16)`` worked. Every supported
dtype goes through each way a NumPy value enters (asarray, array, a ufunc operand, a jit
argument, an .at[] update) and must keep its dtype and values (the float64 reference).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing import dtypes

_NARROW = {np.dtype("int64"): np.int32, np.dtype("uint64"): np.uint32,
           np.dtype("float64"): np.float32, np.dtype("complex128"): np.complex64}
DTYPES = sorted(dtypes.SUPPORTED, key=str)
VALUES = [0, 1, 3, 7]   # exact in every dtype, bool and the narrow types aside


def _numpy_value(dt):
    if dtypes.is_small(dt):   # int4 and float4_e2m1fn lack 7, float8_e8m0fnu has no 0
        if dtypes.is_int(dt):
            info = dtypes.iinfo(dt)
            return np.asarray([info.min, 0, info.max, info.max]).astype(dt)
        return np.asarray([0.5, 1, 2, 4]).astype(dt)
    return np.asarray([v % 2 if dt == np.bool_ else v for v in VALUES]).astype(dt)


def _expected_dtype(dt):
    return np.dtype(_NARROW.get(dt, dt))  # x64 is off in the suite


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("enter", ["asarray", "array", "ufunc", "jit", "at_set"])
def test_numpy_values_enter_with_their_dtype(dt, enter):
    v = _numpy_value(dt)
    ref = v.astype(np.float64 if dt.kind != "c" else np.complex128)
    if enter == "asarray":
        out = jnp.asarray(v)
    elif enter == "array":
        out = jnp.array(v)
    elif enter == "ufunc":
        out = jnp.multiply(v, jnp.ones(v.shape, _expected_dtype(dt)))
    elif enter == "jit":
        out = tjit.jit(lambda a: a)(v)
    else:
        out = jnp.zeros(v.shape, _expected_dtype(dt)).at[:].set(v)
    assert out.dtype == _expected_dtype(dt)
    np.testing.assert_array_equal(np.asarray(out).astype(ref.dtype), ref)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_numpy_scalars_enter_strongly_typed(dt):
    s = _numpy_value(dt)[1]   # a NumPy scalar (np.generic), as JAX: not weak
    out = jnp.asarray(s)
    assert out.dtype == _expected_dtype(dt) and not out.weak_type
    assert complex(np.asarray(out)) == complex(np.asarray(s))
