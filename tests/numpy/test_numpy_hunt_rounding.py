"""jnp.round/around of integer arrays with negative decimals: NumPy rounds to tens,
hundreds, ... with halves to even (rint(a / 10**k) * 10**k, wrapping past the dtype);
tjit raised NotImplementedError (as JAX does). References: NumPy on the same dtype."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

CASES = [
    (np.array([15, 25, -15, -25, 149, 150, 151, -150, 5, -5, 0, 14, -14, 35, 45],
              np.int32), [-1, -2, -3]),
    (np.array([255, 250, 245, 5, 15, 0], np.uint8), [-1, -2, -3]),
    (np.array([125, 127, -128, -125, 100, 50, 49, 51, -50], np.int8), [-1, -2, -3]),
    (np.array([32767, -32768, 15000, -25000, 5000], np.int16), [-3, -4, -5]),
    (np.array([65535, 50000, 49999], np.uint16), [-4, -5]),
    (np.array([2**31 - 1, 1500000000, -1500000000, 2500000000 // 2], np.int32), [-8, -9, -10]),
    (np.array([4000000000, 3500000000, 15], np.uint32), [-1, -9]),
]


@pytest.mark.parametrize("x,decimals", [(x, d) for x, ds in CASES for d in ds])
def test_integer_round_to_tens_matches_numpy(x, decimals):
    expected = np.round(x, decimals)
    for fn in (jnp.round, jnp.around):
        for got in [fn(x, decimals), tjit.jit(lambda v: fn(v, decimals))(x)]:
            assert got.dtype == x.dtype
            np.testing.assert_array_equal(got, expected)


def test_integer_round_keeps_weak_type_and_refuses_bool():
    got = jnp.round(jnp.asarray(149), -1)
    assert int(got) == 150 and got.weak_type
    with pytest.raises(TypeError, match="round"):
        jnp.round(np.array([True, False]), -1)
