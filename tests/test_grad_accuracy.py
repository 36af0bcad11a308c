"""Derivative accuracy near special points against mpmath (see benchmarks/diff_grad_accuracy.py)."""

import mpmath as mp
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
import tjit.scipy.special as sp


def _i1e_slope(x):
    """d/dx of exp(-|x|) I1(x) at the float x, from mpmath's closed form at 50 digits."""
    with mp.workdps(50):
        t = mp.mpf(float(x))
        if t == 0:
            return 0.5
        # I1' = I0 - I1 / x
        d = (mp.besseli(0, t) - mp.besseli(1, t) / t - mp.sign(t) * mp.besseli(1, t))
        return float(d * mp.exp(-abs(t)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_i1e_slope_near_zero_and_subnormal(dtype, x64):
    # 1/x overflowed at subnormal x: float32 grad at 4.2e-45 was -inf (true 0.5; JAX 0.5)
    fi = np.finfo(dtype)
    mags = [0.0, float(fi.smallest_subnormal) * 3, float(fi.tiny) / 4, float(fi.tiny),
            1e-30, 1e-12, 1e-9, 1e-6, 1e-4, 3e-4, 1e-3, 0.1, 1.0, 5.0]
    xs = np.array(sorted(set(mags + [-m for m in mags])), dtype)
    g = tjit.vmap(tjit.grad(sp.i1e))(jnp.asarray(xs))
    assert g.dtype == dtype
    g = np.asarray(g, np.float64)
    want = np.array([_i1e_slope(x) for x in xs])
    np.testing.assert_allclose(g, want, rtol=64 * fi.eps, atol=0)  # a few ulps of i0e - i1e - i1e/x


def _check_slopes(f, slope, xs, dtype, ulps):
    """grad(f) at the float points xs (dtype) within ulps of slope (an mpmath closed form)."""
    xs = np.asarray(xs, dtype)
    g = tjit.vmap(tjit.grad(f))(jnp.asarray(xs))
    assert g.dtype == dtype
    with mp.workdps(60):
        want = np.array([float(slope(mp.mpf(float(x)))) for x in xs])
    fi = np.finfo(dtype)  # (a subnormal slope is good to its spacing, smallest_subnormal)
    np.testing.assert_allclose(np.asarray(g, np.float64), want, rtol=ulps * fi.eps,
                               atol=ulps * float(fi.smallest_subnormal))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_expit_slope_where_expit_rounds_to_one(dtype, x64):
    # s (1 - s) with s rounded to 1: float32 grad at 60 was 0 (true 8.76e-27; JAX 0)
    xs = [-700.0, -100.0, -60.0, -17.0, -1.0, 0.0, 0.5, 3.0, 17.0, 30.0, 60.0, 100.0, 700.0]
    if dtype == np.float32:
        xs = [x for x in xs if abs(x) <= 100]
    slope = lambda x: mp.exp(-abs(x)) / (1 + mp.exp(-abs(x))) ** 2  # noqa: E731
    _check_slopes(sp.expit, slope, xs, dtype, ulps=8)
    _check_slopes(tjit.nn.sigmoid, slope, xs, dtype, ulps=8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_ndtr_slope_in_the_lower_tail(dtype, x64):
    # exp(log_phi - log_ndtr) loses ulp(x**2 / 2): float32 at -1e3 gave 998.5 (true 1000),
    # at -1e5 1, at -1e20 NaN (JAX shares all)
    xs = [-1e30, -1e20, -1e5, -1e3, -40.0, -37.5, -10.5, -5.5, -5.0, -4.5, -2.0, -0.5, 0.0,
          1.0, 3.0]
    if dtype == np.float32:
        xs = [x for x in xs if x > -1e20] + [-1e19, -3e38]

    def slope(x):  # below -1e8 mpmath's erfc fails; there pdf/cdf = -x - 1/x + 2/x^3 + O(x^-5)
        return -x - 1 / x + 2 / x ** 3 if x < -1e8 else mp.npdf(x) / mp.ncdf(x)
    _check_slopes(sp.log_ndtr, slope, xs, dtype, ulps=16)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erfcx_slope_for_large_x(dtype, x64):
    # 2 x erfcx - 2/sqrt(pi) cancels: float32 at 1e5 gave -1.19e-7 (true -5.64e-11; JAX shares)
    xs = [-3.0, -0.5, 0.0, 0.5, 1.0, 1.999, 2.0, 2.5, 3.0, 3.5, 6.0, 30.0, 1e3, 1e5, 1e10, 1e15]

    def slope(x):  # erfcx = exp(x^2) erfc(x); mpmath keeps the huge exponent exactly
        e = mp.exp(x * x) * mp.erfc(x)
        return 2 * x * e - 2 / mp.sqrt(mp.pi)
    with mp.workdps(120):  # the subtraction above loses ~2 log10(x) digits
        _check_slopes(sp.erfcx, slope, xs, dtype, ulps=16)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dawsn_slope_for_large_x(dtype, x64):
    # 1 - 2 x dawsn cancels: float32 at 1e3 and 1e5 was far off (JAX shares); the slope there
    # is -c in dawsn = (1 + c) / (2x)
    xs = [3.5, 5.0, 6.25, 7.0, 19.99, 20.0, 25.0, 30.0, 99.0, 100.0, 300.0, 1e3, 1e5, 1e10, 1e15, 1e19, 1e30]
    xs = xs + [-x for x in xs]

    def slope(x):  # dawsn = sqrt(pi)/2 exp(-x^2) erfi(x); that cancels past 120 digits
        if abs(x) > 1e10:  # beyond 1e10, the series -1/(2x^2) - 3/(4x^4) - O(x^-6)
            return -1 / (2 * x * x) - 3 / (4 * x ** 4)
        return 1 - 2 * x * mp.sqrt(mp.pi) / 2 * mp.exp(-x * x) * mp.erfi(x)
    with mp.workdps(120):
        _check_slopes(sp.dawsn, slope, xs, dtype, ulps=16)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_i1e_slope_for_large_x(dtype, x64):
    # i0e - i1e - i1e/x cancels ~2|x|-fold (float32 at 1e5 gave -6.40e-9, true -6.31e-9; JAX shares); past
    # 10 (float32) / 25 (float64) the slope is the asymptotic series
    xs = [9.99, 10.01, 24.99, 25.01, 40.0, 100.0, 1e3, 1e5, 1e10, 1e20]
    xs = xs + [-x for x in xs]

    def slope(t):
        if abs(t) > 1e15:  # mpmath's besseli is slow there; -(2 pi x)^(-1/2) (1/2 + 3/(16x)) / x
            a = abs(t)
            return -(1 / mp.sqrt(2 * mp.pi * a)) * (mp.mpf(1) / 2 + mp.mpf(3) / (16 * a)) / a
        return _i1e_slope(t)
    # within 2|x| ulps below the switch, the cancellation the switch avoids beyond it
    ulps = 64 if dtype == np.float64 else 16
    _check_slopes(sp.i1e, slope, xs, dtype, ulps=ulps)
