"""Index tricks and clip against NumPy where a differential sweep found tjit wrong:
jnp.ogrid gave each axis its own dtype (ogrid[0:1:3j, 2:-1:-1] had an int32 axis; NumPy
and JAX make every axis the common type, as mgrid does), and jnp.clip of an integer array
with a Python int bound beyond the dtype on its own side (np.clip(uint8, -1, 300)) raised
OverflowError where NumPy returns the array."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

_CANON = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32}


@pytest.mark.parametrize("key", [np.s_[0:1:3j, 2:-1:-1], np.s_[0:3, 0:1:0.5],
                                 np.s_[0:3, 0:2], np.s_[-1:1:4j, 0:2, 0:3:2]])
def test_ogrid_axes_share_one_dtype(key):
    expected = np.ogrid[key]
    got = jnp.ogrid[key]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == _CANON[e.dtype] and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-6)
    np.testing.assert_allclose(jnp.mgrid[key], np.mgrid[key], rtol=1e-6)


@pytest.mark.parametrize("dtype,lo,hi", [(np.uint8, -1, 300), (np.uint8, -1, 3),
                                         (np.int8, -1000, 1000), (np.int8, -3, 1000),
                                         (np.uint16, None, 70000), (np.int32, -2**40, 7)])
def test_clip_with_python_int_bounds_beyond_the_dtype(dtype, lo, hi):
    info = np.iinfo(dtype)
    x = np.array([info.min, 0, 5, info.max], dtype)
    expected = np.clip(x, lo, hi)
    for got in [jnp.clip(x, lo, hi), tjit.jit(lambda v: jnp.clip(v, lo, hi))(x)]:
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, expected)


def test_clip_bound_beyond_the_dtype_that_would_clip_still_raises():
    with pytest.raises(OverflowError):
        jnp.clip(np.array([0, 5], np.uint8), 300, None)
