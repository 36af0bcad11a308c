"""lax.shape_as_value: a shape as an int array, concrete and under shape polymorphism
(one trace, several sizes) against NumPy's shapes; x64's int64; bad dims named."""

import numpy as np
import pytest

import tjit
from tjit import lax


def test_concrete_shapes():
    for shape in [(2, 3), (), (0, 7), [np.int64(4)]]:
        got = lax.shape_as_value(shape)
        assert got.dtype == np.int32 and got.shape == (len(shape),)
        np.testing.assert_array_equal(np.asarray(got), np.array(shape, np.int64))
    with tjit.enable_x64(True):
        assert lax.shape_as_value((5,)).dtype == np.int64


def test_symbolic_dims_are_bound_at_run_time():
    f = tjit.jit(lambda x: lax.shape_as_value(x.shape) * 10 + 1,
                 polymorphic_shapes=["(n, m)"])
    for shape in [(5, 3), (8, 1), (2, 9)]:
        np.testing.assert_array_equal(np.asarray(f(np.ones(shape, np.float32))),
                                      np.array(shape) * 10 + 1)


def test_a_non_integer_dim_is_named():
    with pytest.raises(TypeError, match="lax.shape_as_value: shape must be an integer"):
        lax.shape_as_value((2.5,))
