"""Counting and binning against NumPy where a differential sweep found tjit wrong:
jnp.bincount refused boolean input (NumPy and JAX count False/True as 0/1); linspace and
histogram edges were computed in float32 from Python-number endpoints (below)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def test_bincount_of_booleans():
    x = np.array([True, False, True, True])
    w = np.array([0.5, 2.0, 1.0, 4.0], np.float32)
    np.testing.assert_array_equal(jnp.bincount(x), np.bincount(x))
    np.testing.assert_allclose(jnp.bincount(x, weights=w),
                               np.bincount(x, weights=w.astype(np.float64)))
    np.testing.assert_array_equal(jnp.bincount(x, minlength=4), np.bincount(x, minlength=4))
    got = tjit.jit(lambda v: jnp.bincount(v, length=3))(x)
    np.testing.assert_array_equal(got, np.bincount(x, minlength=3))
    assert jnp.bincount(x).dtype == np.int32


# -- linspace and histogram edges from Python-number endpoints --------------------------------
# NumPy computes them in float64 and rounds once; tjit computed in float32, an ulp off in
# between (linspace(0, 1, 11)[9] was 0.90000004), so gridded data on an edge was counted in
# the neighbouring bin: histogram(linspace(0, 1, 101), 10, (0, 1)) gave [.. 11, 10].
@pytest.mark.parametrize("start,stop,num", [(0, 1, 11), (-3.3, 7.7, 11), (-3.3, 7.7, 101),
                                            (0.1, 0.7, 13), (1e-3, 2.5, 7), (5, -2, 9)])
def test_linspace_of_python_numbers_is_numpys_rounded_once(start, stop, num):
    expected = np.linspace(start, stop, num).astype(np.float32)
    for got in [jnp.linspace(start, stop, num),
                tjit.jit(lambda: jnp.linspace(start, stop, num))()]:
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, expected)
    got, step = jnp.linspace(start, stop, num, endpoint=False, retstep=True)
    e, estep = np.linspace(start, stop, num, endpoint=False, retstep=True)
    np.testing.assert_array_equal(got, e.astype(np.float32))
    assert step == np.float32(estep)


@pytest.mark.parametrize("bins", [3, 7, 10, 13, 100])
@pytest.mark.parametrize("range_", [None, (0, 1), (-3.3, 7.7), (0.1, 0.7)])
def test_histogram_of_gridded_data_matches_numpy(bins, range_):
    for data in [np.linspace(0, 1, 101).astype(np.float32),
                 np.linspace(-3.3, 7.7, 1001).astype(np.float32),
                 (np.arange(1000) * 0.1).astype(np.float32)]:
        counts, edges = np.histogram(data, bins=bins, range=range_)
        got_counts, got_edges = jnp.histogram(data, bins=bins, range=range_)
        np.testing.assert_array_equal(got_edges, edges)
        np.testing.assert_array_equal(got_counts, counts)
        np.testing.assert_array_equal(
            jnp.histogram_bin_edges(data, bins=bins, range=range_), edges)
        if range_ is not None:  # concrete range: jit computes the same edges
            got = tjit.jit(lambda d: jnp.histogram(d, bins=bins, range=range_)[0])(data)
            np.testing.assert_array_equal(got, counts)


@pytest.mark.parametrize("range_", [(1, 0), (np.nan, 1), (0, np.inf)])
def test_histogram_refuses_reversed_or_infinite_ranges_as_numpy(range_):
    with pytest.raises(ValueError):
        np.histogram(np.arange(3.0), 3, range=range_)
    with pytest.raises(ValueError, match="jnp.histogram"):
        jnp.histogram(np.arange(3.0), 3, range=range_)
