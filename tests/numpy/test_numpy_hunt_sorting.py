"""Searching with a Python int that does not fit the array's integer dtype: it was made
an int32 array first and then wrapped into the dtype, so searchsorted(uint8_array, -1)
searched for 255 and answered len(a) - 1 (NumPy: 0), isin(uint8_array, -1) matched 255.
They now raise OverflowError, as tjit's operators do for such scalars (NumPy 2 raises
too for its ufuncs); scalars that fit, and arrays, are searched as before (references:
NumPy)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

A = np.array([0, 5, 200, 255], np.uint8)


@pytest.mark.parametrize("v", [-1, 256, 300, -129])
def test_out_of_range_python_int_raises_instead_of_wrapping(v):
    with pytest.raises(OverflowError):
        jnp.searchsorted(A, v)
    with pytest.raises(OverflowError):
        tjit.jit(lambda a: jnp.searchsorted(a, v))(A)
    with pytest.raises(OverflowError):
        jnp.digitize(v, A)
    with pytest.raises(OverflowError):
        jnp.isin(A, v)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("v", [0, 5, 6, 255, 2.5, -1.5, 300.0])
def test_in_range_scalars_and_wider_arrays_are_searched_as_numpy(side, v):
    for got in [jnp.searchsorted(A, v, side=side),
                tjit.jit(lambda a: jnp.searchsorted(a, v, side=side))(A)]:
        assert int(got) == np.searchsorted(A, v, side=side)
    wide = np.array([-1, 300, 5])  # an int64 array promotes with uint8 to a wider type
    np.testing.assert_array_equal(jnp.searchsorted(A, wide, side=side),
                                  np.searchsorted(A, wide, side=side))
    np.testing.assert_array_equal(jnp.digitize(wide, A, right=side == "right"),
                                  np.digitize(wide, A, right=side == "right"))
    if float(v).is_integer() and 0 <= v <= 255:
        np.testing.assert_array_equal(jnp.isin(A, int(v)), np.isin(A, int(v)))
