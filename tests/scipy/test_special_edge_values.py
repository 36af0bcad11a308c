"""tjit.scipy.special at edge values found by the differential hunt
(benchmarks/diff_scipy_nn.py), against SciPy in float64."""

import warnings

import numpy as np
import scipy.special as ss

from tjit.scipy import special as ts


def test_polygamma_non_integer_order_is_nan_in_float32():
    # in float32 n + 1 rounded 1e-8 to an integer order: -inf where SciPy gives NaN
    n = np.array([1e-8, 0.5, 2.5, 1.0, 2.0, 3.0], np.float32)
    x = np.array([-2.5, 1.0, 2.0, 2.0, 0.3, -1.5], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = ss.polygamma(n.astype(np.float64), x.astype(np.float64))
    got = ts.polygamma(n, x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got, np.float64), ref, rtol=1e-6)


def test_betaln_negative_small_argument_large_other_float32():
    # lo < 0 with hi >= 10 took the plain lgamma(a) + lgamma(b) - lgamma(a + b), which
    # cancels |lgamma(966)| * eps = 3e-4 in float32; Stirling's difference keeps 1e-7
    a = np.array([-0.5, -3.7, -9.5, -12.3, -0.99], np.float32)
    b = np.array([966.22864, 50.0, 19.6, 30.1, 10.0], np.float32)
    ref = ss.betaln(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(np.asarray(ts.betaln(a, b), np.float64), ref, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ts.betaln(b, a), np.float64), ref, rtol=1e-6)


def test_beta_negative_small_argument_large_other_float32():
    # beta is exp(betaln) with the signs: beta(1e10, -0.0116) came out -1 for -113.5
    a = np.array([1e10, -0.00042111, -0.5], np.float32)
    b = np.array([-0.01158287, 1e4, 966.2], np.float32)
    ref = ss.beta(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(np.asarray(ts.beta(a, b), np.float64), ref, rtol=1e-5)


def test_betainc_large_parameters_float32():
    # SciPy's float32 loop (Boost in float) overflows to inf for large a, b; eager and
    # jit evaluate SciPy's float64 routine and round the result
    import tjit
    a = np.array([1000.0, 1000.0, 30.0, 30.0, 0.5], np.float32)
    b = np.array([30.0, 30.0, 1000.0, 1000.0, 0.1], np.float32)
    x = np.array([0.3, 0.7, 0.5, 0.9999999, 0.7], np.float32)
    ref = ss.betainc(a.astype(np.float64), b.astype(np.float64), x.astype(np.float64))
    for fn in (ts.betainc, tjit.jit(ts.betainc)):
        got = fn(a, b, x)
        assert got.dtype == np.float32
        np.testing.assert_allclose(np.asarray(got, np.float64), ref, rtol=1e-6, atol=1e-37)


def test_kl_div_close_arguments_float32():
    # p log(p/q) - p + q cancels where p ~ q; subtracting p - q (exact there) last keeps
    # the float32 rounding of p log(p/q) only (the median error fell from 5e-6 to 4e-6)
    rng = np.random.default_rng(0)
    p = rng.uniform(0.5, 5, 4000).astype(np.float32)
    q = (p * rng.uniform(0.8, 1.2, 4000)).astype(np.float32)
    ref = ss.kl_div(p.astype(np.float64), q.astype(np.float64))
    err = np.abs(np.asarray(ts.kl_div(p, q), np.float64) - ref) / ref
    assert np.median(err) < 4.5e-6

