"""tjit.scipy.stats at edge values found by the differential hunt
(benchmarks/diff_scipy_nn.py): log-probabilities next to 0, NaN in ``loc``."""

import numpy as np
import pytest
import scipy.stats as sst

from tjit.scipy import stats as ts


def _check_truncnorm_log_cdf_sf(dtype, tol):
    # y far in the upper tail of [a, b]: log cdf is -1e-29, which the ratio of masses
    # rounds to 0; SciPy (and JAX) take log1p(-sf) there
    a, b = dtype(-0.2567682), dtype(17.997)
    y = np.array([11.3, 9.0, 6.0, 2.0], dtype)
    ref_cdf = sst.truncnorm.logcdf(y.astype(np.float64), a, b)
    ref_sf = sst.truncnorm.logsf(-y.astype(np.float64), -b, -a)
    got_cdf = ts.truncnorm.logcdf(y, a, b)
    got_sf = ts.truncnorm.logsf(-y, -b, -a)
    assert got_cdf.dtype == dtype
    np.testing.assert_allclose(np.asarray(got_cdf, np.float64), ref_cdf, rtol=tol)
    np.testing.assert_allclose(np.asarray(got_sf, np.float64), ref_sf, rtol=tol)


def test_truncnorm_log_cdf_sf_near_zero_float32():
    _check_truncnorm_log_cdf_sf(np.float32, 1e-4)


def test_truncnorm_log_cdf_sf_near_zero_float64(x64):
    _check_truncnorm_log_cdf_sf(np.float64, 1e-10)


@pytest.mark.parametrize("dist,args", [("poisson", (2.0, 0.7)), ("binom", (2.0, 5.0, 0.3))])
def test_discrete_pmf_nan_loc_is_nan(dist, args):
    # the support test saw k, not k - loc, so a NaN loc gave pmf 0 / logpmf -inf
    for fn in ("pmf", "logpmf"):
        ref = getattr(getattr(sst, dist), fn)(*args, np.nan)
        got = getattr(getattr(ts, dist), fn)(*args, np.nan)
        assert np.isnan(ref) and np.isnan(np.asarray(got)), (dist, fn, got)


def test_t_logpdf_large_and_infinite_df():
    # gammaln((df + 1) / 2) - gammaln(df / 2) cancelled: -12.1 for -0.92 at df = 1e10 in
    # float32; df = inf is the normal distribution (SciPy)
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0], np.float32)
    for df in (1e4, 1e7, 1e10, np.inf):
        ref = sst.t.logpdf(x.astype(np.float64), df, 0.25, 1.5)
        got = ts.t.logpdf(x, np.float32(df), np.float32(0.25), np.float32(1.5))
        np.testing.assert_allclose(np.asarray(got, np.float64), ref, rtol=2e-6, err_msg=df)
    # small and moderate df keep their accuracy
    for df in (0.3, 1.0, 3.0, 30.0):
        ref = sst.t.logpdf(x.astype(np.float64), df)
        np.testing.assert_allclose(np.asarray(ts.t.logpdf(x, np.float32(df)), np.float64), ref,
                                   rtol=2e-6, err_msg=df)


def test_truncnorm_infinite_bound_at_huge_argument():
    # both log masses underflow to -inf at y = -1e30 in float32: log_diff_exp gave
    # -inf - -inf = NaN where the cdf is 0
    x = np.array([-1e30, -40.0, -1.0], np.float32)
    a, b = np.float32(-np.inf), np.float32(0.0)
    for fn in ("cdf", "sf", "logsf"):
        ref = getattr(sst.truncnorm, fn)(x.astype(np.float64), -np.inf, 0.0)
        got = np.asarray(getattr(ts.truncnorm, fn)(x, a, b), np.float64)
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=0, err_msg=fn)
    assert np.asarray(ts.truncnorm.logcdf(x, a, b))[0] == -np.inf


@pytest.mark.parametrize("dist,k,params,loc", [
    ("poisson", -1e-8, (10.36,), -53.0), ("poisson", 1e-8, (0.04,), -6.0),
    ("binom", 1e-8, (5.0, 0.3), -2.0), ("bernoulli", 1e-8, (0.3,), -1.0)])
def test_discrete_non_integer_k_with_integer_loc_float32(dist, k, params, loc):
    # k - loc rounds to an integer in float32 (-1e-8 + 53 == 53): SciPy's pmf is 0 there
    f32 = np.float32
    ref = getattr(sst, dist).pmf(k, *params, loc=loc)
    got = getattr(ts, dist).pmf(f32(k), *map(f32, params), f32(loc))
    assert ref == 0 and float(got) == 0, (dist, got)
    # an integer k - loc with a non-integer loc keeps its mass
    ref = getattr(sst, dist).pmf(1.5, *params, loc=0.5)
    got = getattr(ts, dist).pmf(f32(1.5), *map(f32, params), f32(0.5))
    np.testing.assert_allclose(float(got), ref, rtol=1e-5)
