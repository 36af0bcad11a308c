"""Bit-exact comparison for the eager lanes' tests: a lane must give what the traced
path gives, dtype, shape and weak type included, not merely close values."""

import numpy as np


def assert_same(got, want):
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    assert got.weak_type == want.weak_type
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
