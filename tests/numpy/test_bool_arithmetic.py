"""Arithmetic on bool operands: JAX promotes bools to the default int for remainder,
fmod, floor_divide, divmod, power, square and shifts, and takes a bool ``ldexp``
exponent as 0/1; values against NumPy (which computes them in int8), eager and jit."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

# every pair of bools
A = np.array([False, False, True, True])
B = np.array([False, True, False, True])
NONZERO = B  # divisors where floor division is defined (int x // 0: see floor_divide)

BINARY = ["mod", "remainder", "fmod", "power", "left_shift", "right_shift",
          "bitwise_left_shift", "bitwise_right_shift"]


def _both(f, *args):
    return [f(*args), tjit.jit(f)(*args)]


@pytest.mark.parametrize("name", BINARY)
def test_bool_operands_are_default_ints(name):
    want = getattr(np, name)(A, B)
    for got in _both(getattr(jnp, name), A, B):
        assert got.dtype == np.int32, (name, got.dtype)
        np.testing.assert_array_equal(np.asarray(got), want.astype(np.int32))
    # Python bools with a bool array, on either side
    for x, y in ((True, B), (A, False)):
        got = getattr(jnp, name)(x, y)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), getattr(np, name)(x, y))


def test_floor_divide_and_divmod_of_bools():
    a, b = A[NONZERO], B[NONZERO]
    for got in _both(jnp.floor_divide, a, b):
        assert got.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), np.floor_divide(a, b))
    q, r = jnp.divmod(a, b)
    wq, wr = np.divmod(a, b)
    assert q.dtype == r.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(q), wq)
    np.testing.assert_array_equal(np.asarray(r), wr)


def test_square_of_bools():
    for got in _both(jnp.square, A):
        assert got.dtype == np.int32
        np.testing.assert_array_equal(np.asarray(got), np.square(A))


def test_ldexp_bool_exponent_and_mantissa():
    x = np.array([1.5, -2.0, 3.0, 0.25], np.float32)
    for got in _both(jnp.ldexp, x, B):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(got), np.ldexp(x, B))
    got = jnp.ldexp(A, B)  # a bool mantissa: the default float (NumPy: float16)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got), np.ldexp(A, B).astype(np.float32))


def test_bool_operand_errors_stay_clear():
    with pytest.raises(TypeError, match="ldexp: the exponent must have an integer dtype"):
        jnp.ldexp(np.float32(1), np.float32(2))
    with pytest.raises(TypeError, match="negative: not supported for bool"):
        jnp.negative(A)
