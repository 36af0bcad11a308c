"""Counting and binning against NumPy where a differential sweep found tjit wrong:
jnp.bincount refused boolean input (NumPy and JAX count False/True as 0/1)."""

import numpy as np

import tjit
import tjit.numpy as jnp


def test_bincount_of_booleans():
    x = np.array([True, False, True, True])
    w = np.array([0.5, 2.0, 1.0, 4.0], np.float32)
    np.testing.assert_array_equal(jnp.bincount(x), np.bincount(x))
    np.testing.assert_allclose(jnp.bincount(x, weights=w),
                               np.bincount(x, weights=w.astype(np.float64)))
    np.testing.assert_array_equal(jnp.bincount(x, minlength=4), np.bincount(x, minlength=4))
    got = tjit.jit(lambda v: jnp.bincount(v, length=3))(x)
    np.testing.assert_array_equal(got, np.bincount(x, minlength=3))
    assert jnp.bincount(x).dtype == np.int32
