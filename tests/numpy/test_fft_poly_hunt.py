"""Defects found by the differential hunt benchmarks/diff_fft_poly.py (jnp.fft, polynomials,
quantiles and NumPy's numerical functions), each checked against NumPy in float64."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def test_poly_of_no_roots_is_the_scalar_one():
    # NumPy (and JAX) return the empty product as a 0-d 1.0, not a length-1 polynomial
    want = np.poly(np.zeros((0,)))
    for got in (jnp.poly(jnp.zeros((0,))), tjit.jit(jnp.poly)(jnp.zeros((0,)))):
        assert np.shape(got) == np.shape(want) == ()
        np.testing.assert_array_equal(np.asarray(got), want)
