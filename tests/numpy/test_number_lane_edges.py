"""The Python-number lane's per-number choices (tjit/numpy/_scalar_lane.py): which call
it makes (IEEE max/min as NumPy's plain ufunc when the number has no zero) and whether
NumPy's warnings are switched off around it (integer and bool arrays cast to float with
a number that cannot overflow or underflow them). Each number, near and past those
limits, on both sides, gives the reference interpreter's bits, dtype and weak flag on
every call, and never a NumPy warning (JAX's inf/NaN are silent)."""

import operator
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

_ARRAYS = {
    "b1": np.array([True, False, True]),
    "i1": np.array([-128, 0, 127], np.int8),
    "u1": np.array([0, 1, 255], np.uint8),
    "i4": np.array([-2**31, 0, 7, 2**31 - 1], np.int32),
    "f4": np.array([-0.0, 0.0, -3.5, np.inf, -np.inf, np.nan, 2.0], np.float32),
}
# around float32's limits (max 3.4e38, smallest normal 1.2e-38), zeros of both signs
_NUMBERS = [2.0, 0.0, -0.0, 1e38, -3e38, 1e30, 1e-30, 1e-38, 1e-40, 1e-50, -1e-50,
            1e300, float("inf"), float("nan"), 0.5, -0.0, 0.0, 2.0, 3, 0, -7, 2**31 - 1]
_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "<": operator.lt, "==": operator.eq, "max": jnp.maximum, "min": jnp.minimum}


def _interp(fn, number, side):
    if side:
        return tjit.jit(lambda a: fn(a, number), backend="interpreter")
    return tjit.jit(lambda a: fn(number, a), backend="interpreter")


@pytest.mark.parametrize("op", sorted(_OPS))
@pytest.mark.parametrize("a", sorted(_ARRAYS))
def test_numbers_at_the_limits_give_the_interpreters_bits_silently(op, a):
    fn, arr = _OPS[op], jnp.asarray(_ARRAYS[a])
    for number in _NUMBERS:
        for side in (1, 0):
            try:
                want = _interp(fn, number, side)(arr)
            except (TypeError, OverflowError):
                continue  # refused: tests/numpy/test_python_number_lane.py checks errors
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                for _ in range(3):  # the general path, then the replays of its plan
                    got = fn(arr, number) if side else fn(number, arr)
                    where = (a, op, number, side)
                    assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), where
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), where


def test_replay_serves_every_shape_of_a_signature():
    """Plans are per dtype, weak flag and number type: a new shape replays one made
    for another and gets its own shape, NumPy's values."""
    for shape in [(3,), (2, 2), (), (0,), (1, 5)]:
        x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
        for _ in range(2):
            got = jnp.asarray(x) * 2.5
            want = _interp(operator.mul, 2.5, 1)(jnp.asarray(x))
            assert (got.shape, got.dtype, got.weak_type) == (shape, want.dtype, want.weak_type)
            np.testing.assert_array_equal(np.asarray(got), x.astype(np.float32) * np.float32(2.5))
            m = jnp.maximum(jnp.asarray(x.astype(np.float32)), 1.0)
            assert m.shape == shape
            np.testing.assert_array_equal(np.asarray(m), np.maximum(x, 1).astype(np.float32))


def test_numpy_error_state_of_the_user_is_not_changed():
    """The lane switches warnings off around its own call only."""
    k = jnp.asarray(np.arange(3, dtype=np.int32))
    before = np.geterr()
    for number in (2.0, 1e38, 0.0):
        k * number, k / number, jnp.maximum(k, number)
    assert np.geterr() == before
    with np.errstate(all="raise"), pytest.raises(FloatingPointError):
        np.float32(1e38) * np.float32(10)  # NumPy's own state still applies to NumPy
