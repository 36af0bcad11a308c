"""method='inverted_cdf' with and without weights (quantile, nanquantile, percentile,
nanpercentile) against NumPy 2's weighted quantiles."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

_Q = np.array([0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0])


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_weighted_inverted_cdf_against_numpy(axis, keepdims):
    rng = np.random.default_rng(9)
    a = rng.integers(0, 5, (4, 6)).astype(np.float64)  # ties
    w = rng.integers(0, 3, (4, 6)).astype(np.float64)  # zero weights
    w[:, 0] = 1  # no all-zero slice
    for weights in (w, None):
        want = np.quantile(a, _Q, axis=axis, weights=weights, method="inverted_cdf",
                           keepdims=keepdims)
        got = jnp.quantile(a, _Q, axis=axis, weights=weights, method="inverted_cdf",
                           keepdims=keepdims)
        assert got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), want.astype(np.float32))
        got_p = jnp.percentile(a, 100 * _Q, axis=axis, weights=weights,
                               method="inverted_cdf", keepdims=keepdims)
        np.testing.assert_array_equal(
            np.asarray(got_p), np.percentile(a, 100 * _Q, axis=axis, weights=weights,
                                             method="inverted_cdf", keepdims=keepdims))


def test_weights_1d_along_an_axis_nans_and_jit():
    rng = np.random.default_rng(10)
    a = rng.normal(size=(3, 5)).astype(np.float32)
    w = rng.random(5).astype(np.float32)
    want = np.quantile(a, _Q, axis=1, weights=w, method="inverted_cdf")
    np.testing.assert_array_equal(
        np.asarray(jnp.quantile(a, _Q, axis=1, weights=w, method="inverted_cdf")), want)
    f = tjit.jit(lambda x, v: jnp.quantile(x, 0.4, axis=1, weights=v, method="inverted_cdf"))
    np.testing.assert_array_equal(
        np.asarray(f(a, np.broadcast_to(w, a.shape))),
        np.quantile(a, 0.4, axis=1, weights=np.broadcast_to(w, a.shape),
                    method="inverted_cdf"))
    a[1, 2] = np.nan
    ww = np.broadcast_to(w, a.shape)
    got = jnp.nanquantile(a, _Q, axis=1, weights=ww, method="inverted_cdf")
    np.testing.assert_array_equal(
        np.asarray(got), np.nanquantile(a, _Q, axis=1, weights=ww, method="inverted_cdf"))
    got = np.asarray(jnp.quantile(a, 0.5, axis=1, weights=ww, method="inverted_cdf"))
    assert np.isnan(got[1]) and not np.isnan(got[[0, 2]]).any()  # NaN slice -> NaN


def test_weights_errors():
    a = jnp.arange(4.0)
    with pytest.raises(NotImplementedError, match="Only method 'inverted_cdf' supports"):
        jnp.quantile(a, 0.5, weights=jnp.ones(4))
    with pytest.raises(ValueError, match="non-negative"):
        jnp.quantile(a, 0.5, weights=-jnp.ones(4), method="inverted_cdf")
    with pytest.raises(TypeError, match="jnp.quantile: axis must be specified"):
        jnp.quantile(jnp.ones((2, 3)), 0.5, weights=jnp.ones(2), method="inverted_cdf")
    with pytest.raises(ValueError, match="length of weights 2"):
        jnp.quantile(jnp.ones((2, 3)), 0.5, axis=1, weights=jnp.ones(2),
                     method="inverted_cdf")
