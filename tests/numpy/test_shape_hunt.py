"""Regressions from the array creation/manipulation differential hunt
(benchmarks/diff_numpy_shape.py), each checked against NumPy: eager and under jit."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


@pytest.mark.parametrize("cond, axis", [
    ([False, False, True, True, False], None),  # longer than the flattened (1, 4) array
    ([True, False, True, False, False, False], 0),
    ([False, True, True, False, False], 1),
    ([True, False], 1),  # shorter: the array is cut to its length
])
def test_compress_condition_longer_than_axis_with_false_tail(cond, axis):
    a = np.arange(12).reshape(3, 4) if axis is not None else np.arange(4).reshape(1, 4)
    cond = np.asarray(cond)
    want = np.compress(cond, a, axis=axis)
    np.testing.assert_array_equal(jnp.compress(cond, a, axis=axis), want)
    size = want.shape[0 if axis is None else axis]
    got = tjit.jit(lambda c, x: jnp.compress(c, x, axis=axis, size=size))(cond, a)
    np.testing.assert_array_equal(got, want)


def test_compress_condition_true_past_the_axis_is_an_error():
    with pytest.raises(IndexError, match="compress.*length 5.*size 4"):
        jnp.compress(np.array([False, False, True, True, True]), np.arange(4))
