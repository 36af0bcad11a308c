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
    "f4": np.array([-0.0, 0.0, -3.5, np.inf, -np.inf, np.nan, 2.0, 3.4028235e38,
                    -3.4028235e38, 1e-45], np.float32),
    "f2": np.array([-0.0, 0.0, 65504.0, -65504.0, np.inf, np.nan, 6e-8], np.float16),
}
# around float32's limits (max 3.4e38, a quarter of its ulp 5.07e30, smallest normal
# 1.2e-38) and float16's (max 65504, a quarter of its ulp 8), zeros of both signs
_NUMBERS = [2.0, 0.0, -0.0, 1e38, -3e38, 1e30, 5e30, 6e30, 1e-30, 1e-38, 1e-40, 1e-50,
            -1e-50, 1e300, float("inf"), float("nan"), 0.5, -0.0, 0.0, 2.0, 3, 0, -7,
            2**31 - 1, 7.9, 8.0, 16.0, -17]
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


_PAIR_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.uint32, np.int32, np.float16,
                np.float32, np.complex64]
_PAIR_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "<": operator.lt, "!=": operator.ne, "max": jnp.maximum, "&": operator.and_,
             "arctan2": jnp.arctan2}


def _pair_operand(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    v = rng.integers(-3, 4, shape) * 0.5
    v.flat[0] = 0.0
    if np.dtype(dtype).kind in "bu":
        v = np.abs(v)
    return np.asarray(v).astype(dtype)


@pytest.mark.parametrize("op", sorted(_PAIR_OPS))
def test_two_arrays_that_need_promotion_or_broadcasting_replay_the_interpreter(op):
    """float32 * int32, m + row, int32 / int32, a weak 0-d array with a strong one: the
    first call takes the general path, later ones its plan (tjit/numpy/_mixed_lane.py);
    every call gives the interpreter's bits, dtype and weak flag, or its error."""
    fn = _PAIR_OPS[op]
    ref = tjit.jit(fn, backend="interpreter")
    for i, dx in enumerate(_PAIR_DTYPES):
        for j, dy in enumerate(_PAIR_DTYPES):
            for sx, sy in [((4,), (4,)), ((2, 4), (4,)), ((3, 1), (1, 2))]:
                x = jnp.asarray(_pair_operand(dx, sx, i))
                y = jnp.asarray(_pair_operand(dy, sy, 10 + j))
                try:
                    want = ref(x, y)
                except TypeError as e:
                    for _ in range(2):
                        with pytest.raises(TypeError) as info:
                            fn(x, y)
                        assert str(info.value) == str(e)
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    outs = [fn(x, y) for _ in range(3)]
                for got in outs:
                    where = (op, np.dtype(dx).name, np.dtype(dy).name, sx, sy)
                    assert (got.shape, got.dtype, got.weak_type) == \
                        (want.shape, want.dtype, want.weak_type), where
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), where


def test_weak_zero_d_arrays_and_the_x64_switch():
    """A weak 0-d Array (jnp.asarray(2.0)) with a strong one keeps the strong dtype; plans
    made under one x64 setting do not serve the other."""
    w = jnp.asarray(2.0)
    i = jnp.asarray(np.array([1, 2], np.int32))
    u = jnp.asarray(np.array([1, 2], np.uint32))
    for _ in range(2):
        assert (i * w).dtype == np.float32 and (i * w).weak_type
        assert (i + u).dtype == np.int32
    tjit.config.update("enable_x64", True)
    try:
        for _ in range(2):
            assert (i + u).dtype == np.int64
            np.testing.assert_array_equal(np.asarray(i + u), [2, 4])
    finally:
        tjit.config.update("enable_x64", False)
    for _ in range(2):
        assert (i + u).dtype == np.int32


def test_broadcast_of_one_dtype_across_the_x64_switch():
    """m + row of one dtype keeps the same-shape call as its plan (no cast, no x64
    check): plans made under one x64 setting give, under the other, the interpreter's
    dtype, weak flag and bits there; both operands weak (a default dtype decides) and an
    inexact function of a 64-bit dtype are not served by that plan."""
    ops = {"+": operator.add, "/": operator.truediv, "max": jnp.maximum,
           "<": operator.lt}

    def operands():
        f4 = np.arange(8, dtype=np.float32).reshape(2, 4) - 2.5
        return [(jnp.asarray(f4), jnp.asarray(f4[1])),
                (jnp.asarray(f4.astype(np.int32)), jnp.asarray(np.arange(1, 5, dtype=np.int32))),
                (jnp.broadcast_to(jnp.asarray(3), (2, 4)), jnp.asarray(2)),
                (jnp.broadcast_to(jnp.asarray(1.5), (2, 4)), jnp.asarray(0.5))]

    def check(pairs):
        for name, fn in ops.items():
            ref = tjit.jit(fn, backend="interpreter")
            for x, y in pairs:
                want = ref(x, y)
                for _ in range(2):
                    got = fn(x, y)
                    where = (name, x.dtype, x.weak_type, y.shape, tjit.config.enable_x64)
                    assert (got.shape, got.dtype, got.weak_type) == \
                        (want.shape, want.dtype, want.weak_type), where
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), where

    narrow = operands()
    check(narrow)  # plans made under x32
    tjit.config.update("enable_x64", True)
    try:
        wide = operands()
        check(narrow)
        wide.append((jnp.asarray(np.arange(8.0).reshape(2, 4)), jnp.asarray(np.arange(1.0, 5.0))))
        check(wide)
    finally:
        tjit.config.update("enable_x64", False)
    check(narrow)
    check(wide)
