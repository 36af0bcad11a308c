"""Bin edges out of order: NumPy raises for histogram* (edges must increase) and digitize
(bins must be monotonic); tjit does the same for concrete edges instead of returning
counts or indices from a binning that does not exist. Ordered edges (repeats included)
still give NumPy's values."""

import warnings

import numpy as np
import pytest

import tjit.numpy as jnp

X = np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0])
BINS = {"increasing": [0.0, 1.0, 2.0], "repeat": [0.0, 1.0, 1.0, 2.0],
        "decreasing": [2.0, 1.0, 0.0], "constant": [1.0, 1.0, 1.0],
        "up_down": [0.0, 2.0, 1.0], "down_up": [2.0, 0.0, 1.0]}
FUNCS = {
    "histogram": lambda m, b: m.histogram(X, bins=b)[0],
    "histogram_bin_edges": lambda m, b: m.histogram_bin_edges(X, bins=b),
    "histogram2d": lambda m, b: m.histogram2d(X, X, bins=[b, 2])[0],
    "histogramdd": lambda m, b: m.histogramdd(np.stack([X, X], 1), bins=[b, b])[0],
    "digitize": lambda m, b: m.digitize(X, b),
    "digitize_right": lambda m, b: m.digitize(X, b, right=True),
}


@pytest.mark.parametrize("bins", sorted(BINS))
@pytest.mark.parametrize("func", sorted(FUNCS))
def test_bin_edges_order_like_numpy(func, bins):
    b = np.array(BINS[bins])
    f = FUNCS[func]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = f(np, b)
    except ValueError:
        with pytest.raises(ValueError, match="monotonic"):
            f(jnp, b)
        with pytest.raises(ValueError, match="monotonic"):
            f(jnp, jnp.asarray(b))
        return
    np.testing.assert_allclose(np.asarray(f(jnp, b), np.float64), want)
