"""jnp.setxor1d, the set operation jax.numpy has beside setdiff1d/union1d/intersect1d,
against NumPy: values, dtype promotion, assume_unique, size padding and the refusal
under jit (output size depends on values)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import ConcretizationTypeError


@pytest.mark.parametrize("a,b", [
    (np.array([5, 1, 3, 3, 9, 1], np.int32), np.array([3, 4, 9, 9], np.int32)),
    (np.array([2.5, -1.0, 2.5], np.float32), np.array([-1.0, 7.0], np.float32)),
    (np.array([[1, 2], [3, 4]], np.int32), np.array([4, 5], np.int32)),   # ravelled
    (np.array([1, 2], np.int32), np.array([1, 2], np.int32)),             # empty result
])
def test_setxor1d_matches_numpy(a, b):
    got = jnp.setxor1d(a, b)
    want = np.setxor1d(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_setxor1d_assume_unique_promotion_and_size():
    a, b = np.array([4, 1, 7], np.int32), np.array([7, 0], np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.setxor1d(a, b, assume_unique=True)),
                                  np.setxor1d(a, b, assume_unique=True))
    mixed = jnp.setxor1d(a, np.array([0.5], np.float32))
    assert mixed.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(mixed), [0.5, 1, 4, 7])
    np.testing.assert_array_equal(np.asarray(jnp.setxor1d(a, b, size=5)), [0, 1, 4, 0, 0])
    np.testing.assert_array_equal(np.asarray(jnp.setxor1d(a, b, size=5, fill_value=-1)),
                                  [0, 1, 4, -1, -1])
    np.testing.assert_array_equal(np.asarray(jnp.setxor1d(a, b, size=2)), [0, 1])


def test_setxor1d_under_jit_names_the_fix():
    with pytest.raises(ConcretizationTypeError, match="setxor1d.*outside jit"):
        tjit.jit(jnp.setxor1d)(np.array([1, 2]), np.array([2, 3]))
