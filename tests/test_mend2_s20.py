"""Regressions of the second mend list: the cached integer ranges and the Python-int
fast path with x64, custom_linear_solve's lazy transpose, helpers_ahead's thread cap."""

import ml_dtypes
import numpy as np
import pytest

import tjit.numpy as jnp
from tjit import lax
from tjit.numpy import _core
from tjit.tracing import dtypes

_INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
         ml_dtypes.int4, ml_dtypes.uint4]


@pytest.mark.parametrize("dt", _INTS + [np.float32, np.bool_, np.complex64])
def test_int_range_matches_iinfo(dt):
    got = dtypes.int_range(np.dtype(dt))
    if np.dtype(dt).kind in "iu" or dt in (ml_dtypes.int4, ml_dtypes.uint4):
        info = ml_dtypes.iinfo(dt)
        assert got == (int(info.min), int(info.max))
        assert all(type(b) is int for b in got)
    else:
        assert got is None


@pytest.mark.parametrize("v", [2**31, 2**40 + 3, 2**63 - 1, -2**63, -2**31 - 1, 7])
@pytest.mark.parametrize("dt", [np.int64, np.float64, np.float32])
def test_x64_python_int_fast_path_agrees_with_numpy(x64, v, dt):
    """With x64 a Python int is a weak int64: ints beyond int32 keep the array's dtype
    (the fast path of promote_args) and equal NumPy's float64/int64 result."""
    base = np.array([1, -2, 5], dt)
    for a, b in ((jnp.asarray(base), v), (v, jnp.asarray(base))):
        x, y = _core.promote_args("test", a, b)
        assert x.dtype == y.dtype == np.dtype(dt)
    got = np.asarray(lax.max(jnp.asarray(base), jnp.asarray(np.asarray(v, dt))))
    np.testing.assert_array_equal(np.asarray(jnp.maximum(jnp.asarray(base), v)), got)
    np.testing.assert_array_equal(got, np.maximum(base, np.asarray(v, dt)))


@pytest.mark.parametrize("a_dt, v", [(np.int32, 2**31), (np.int32, -2**31 - 1),
                                     (np.int64, 2**63), (np.float32, -2**63 - 1),
                                     (np.int16, 2**15)])
def test_x64_python_int_overflow_still_raises(x64, a_dt, v):
    a = jnp.asarray(np.array([1, 2], a_dt))
    with pytest.raises(OverflowError, match="too large to convert"):
        _core.promote_args("test", a, v)
    with pytest.raises(OverflowError, match="too large to convert"):
        _core.promote_args("test", v, a)


def test_lax_python_int_range_checked():
    with pytest.raises(OverflowError, match="int32"):
        lax.add(jnp.ones(2, jnp.float32), 2**40)
    with pytest.raises(OverflowError, match="int8"):
        lax.add(jnp.ones(2, jnp.int8), 128)
    np.testing.assert_array_equal(np.asarray(lax.add(jnp.ones(2, jnp.int8), -128)),
                                  np.array([-127, -127], np.int8))
