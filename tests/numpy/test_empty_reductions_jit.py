"""Reductions under jit of arrays with a zero-size dim beside the reduced axis (the
result has no elements; a zero stride must not read as a racing accumulator), against
NumPy."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

SHAPES = [(3, 2, 0), (3, 0, 2), (0, 3, 2), (4, 2, 0, 3), (2, 0)]
REDUCTIONS = ["sum", "max", "min", "prod", "mean", "argmax", "cumsum", "all", "any"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_jit_reduction_over_arrays_with_an_empty_dim(shape, name):
    x = np.zeros(shape, np.float32)
    for axis in range(len(shape)):
        if shape[axis] == 0 and name in ("max", "min", "argmax"):
            continue  # NumPy raises: no identity
        with np.errstate(invalid="ignore"):
            want = getattr(np, name)(x, axis=axis)
        got = tjit.jit(lambda a: getattr(jnp, name)(a, axis=axis, keepdims=False)
                       if name != "cumsum" else jnp.cumsum(a, axis=axis))(x)
        assert got.shape == want.shape, (axis, got.shape, want.shape)
        np.testing.assert_array_equal(np.asarray(got), want)


def test_jit_pad_statistics_of_arrays_with_an_empty_dim():
    x = np.zeros((3, 1, 0), np.uint8)
    f = tjit.jit(lambda a: jnp.pad(a, [(2, 3), (0, 1), (0, 0)], mode="maximum"))
    assert f(x).shape == np.pad(x, [(2, 3), (0, 1), (0, 0)], mode="maximum").shape
