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


# -- the derivative rules benchmarks/diff_grad_accuracy.py flagged (s21) ----------------------
# Reference numbers: mpmath at 60 digits at the float value of each point, from closed forms
# (tanh' = sech^2, expm1' = exp, asinh' = 1/sqrt(x^2 + 1), psi(1, x), I1' = I0 - I1/x,
# d/dx e^-|x| I0 = (I1 - sign(x) I0) e^-|x|, spence' = log(x) / (1 - x)); second derivatives
# by mpmath.diff of the closed form.
def _derivs(f, xs, dtype, order=1):
    x = jnp.asarray(np.asarray(xs, dtype))

    def d1(v):
        return tjit.grad(lambda u: jnp.sum(f(u)))(v)
    g = d1(x) if order == 1 else tjit.grad(lambda v: jnp.sum(d1(v)))(x)
    assert g.dtype == dtype
    return np.asarray(g, np.float64)


def _assert_ulps(got, want, dtype, ulps):
    fi = np.finfo(dtype)
    np.testing.assert_allclose(got, want, rtol=ulps * fi.eps,
                               atol=ulps * float(fi.smallest_subnormal))


_TANH_SLOPE = {0.25: 0.940014848806378, 0.75: 0.5965858082813315, 5.0: 1.815832309438067e-4,
               10.0: 8.244614455767397e-09, 20.0: 1.6993417021166355e-17,
               40.0: 7.219405551381661e-35}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tanh_slope_from_its_output_and_its_bound_in_the_tail(dtype, x64):
    # tanh' is (1 + t)(1 - t) from t = tanh(x) only (a first-order pass keeps t, not x): within
    # a few ulps while 1 - t is exact and t's rounding small beside it (|x| < 1/2); past that
    # the bound is absolute, (1 + t) |t's rounding| <= eps for a tanh within 2 ulps (float32
    # tanh'(5) ~2e3 ulps off, tanh'(10) = 0, true 8.2e-9, as JAX's and PyTorch's). The
    # relative accuracy there needs exp(-2|x|) and x in every backward pass: given up for cost.
    fi = np.finfo(dtype)
    near = [0.25]
    _assert_ulps(_derivs(jnp.tanh, near + [-x for x in near], dtype),
                 [_TANH_SLOPE[0.25]] * 2, dtype, 4)
    xs = sorted(_TANH_SLOPE)
    want = np.array([_TANH_SLOPE[x] for x in xs])
    for f in (jnp.tanh, tjit.nn.tanh):
        got = _derivs(f, xs + [-x for x in xs], dtype)
        np.testing.assert_allclose(got, np.r_[want, want], rtol=0, atol=float(fi.eps))
    x = jnp.asarray(np.asarray([5.0], dtype))
    _, t = tjit.jvp(jnp.tanh, (x,), (jnp.ones_like(x),))
    np.testing.assert_allclose(np.asarray(t, np.float64), [_TANH_SLOPE[5.0]], rtol=0,
                               atol=float(fi.eps))
    # grad of grad is -2 t tanh' (the product's own derivative (1 - t) - (1 + t) cancelled:
    # float64 at 1e-8 3e6 ulps off, at 1e-20 0)
    _assert_ulps(_derivs(jnp.tanh, [1e-8, 1e-20, 0.3], dtype, order=2),
                 [-1.9999999999999997e-08, -2e-20, -0.5331818782014544], dtype, 8)


def test_expm1_and_asinh_acosh_slopes_in_the_tails(x64):
    f32 = np.float32
    # ans + 1 kept ulp(1): float32 grad(expm1)(-20) gave 0 (JAX shares)
    _assert_ulps(_derivs(jnp.expm1, [-10.0, -20.0, -60.0], f32),
                 [4.5399929762484854e-05, 2.061153622438558e-09, 8.75651076269652e-27], f32, 4)
    # rsqrt(x*x + 1) with x*x overflowing: float32 grad(arcsinh)(1e20) gave 0 (JAX shares)
    _assert_ulps(_derivs(jnp.arcsinh, [1e4, 1e20, -1e30, 3e38], f32),
                 [9.999999950000001e-05, 9.99999979959123e-21, 9.99999984952534e-31,
                  3.333333327224716e-39], f32, 4)
    _assert_ulps(_derivs(jnp.arccosh, [1e20, 3e38], f32),
                 [9.99999979959123e-21, 3.333333327224716e-39], f32, 4)
    _assert_ulps(_derivs(jnp.arcsinh, [1e160, 1e300], np.float64), [1e-160, 1e-300],
                 np.float64, 4)
    # the 1/|x| lane's own derivative is inf at 0: grad of grad there was NaN
    g2 = _derivs(jnp.arcsinh, [0.0, 1e-30, 1e3], f32, order=2)
    _assert_ulps(g2, [0.0, -1e-30, -9.99998500002625e-07], f32, 8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trigamma_is_digammas_slope_near_poles_and_in_float64(dtype, x64):
    # pi**2 / sin(pi x)**2 with pi x rounded: float32 at -1 + 2**-23 was 6.5e13 (true 7.04e13);
    # float64 psi1(1) was 988 ulps off (series at z = 7, terms to B_12); JAX is right
    if dtype == np.float32:
        xs = [-1 + 2.0 ** -23, -1 - 2.0 ** -22, 1.0]
        want = [70368744177666.64, 17592186044418.645, 1.6449340668482264]
    else:
        xs = [0.5, 1.0, 2.0, 7.5, -1 + 2.0 ** -20, -0.5, -1e-20]
        want = [4.934802200544679, 1.6449340668482264, 0.6449340668482264, 0.1426158966967038,
                1099511627778.645, 8.934802200544679, 1.0000000000000002e+40]
    _assert_ulps(_derivs(tjit.jit(sp.digamma), xs, dtype), want, dtype, 8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_i0e_slope_for_large_x(dtype, x64):
    # i1e - sign(x) i0e cancels ~2|x|-fold: float32 at 1e5 gave -6.286e-9 (true -6.308e-9),
    # at -1e8 0 (true 2e-13; JAX -3.6)
    if dtype == np.float32:
        xs, want = [11.0, 1e5, -1e8, 1e20], [-0.005672409996699403, -6.307854959639557e-09,
                                            1.9947114094873313e-13, -1.994711342043515e-31]
    else:
        xs, want = [26.0, 1e5, -1e8], [-0.0015271274703474971, -6.307854959639557e-09,
                                       1.9947114094873313e-13]
    _assert_ulps(_derivs(sp.i0e, xs, dtype), want, dtype, 16)


def test_i0_i1_slopes_near_zero_and_near_overflow(x64):
    f32 = np.float32
    # exp(|x|) i0e(x)'s product rule: grad(sp.i0)(1e-8) gave 0, at 0 1 (true 0; JAX 1), at
    # 89.3 -inf (true 2.5e37); tjit.numpy.i0's Chebyshev form gave -6e-8 at 1e-8 (JAX 0)
    want = [0.0, 4.999999969612645e-09, 0.2578943053908963, 2.5477031875906355e+37,
            -2.5477031875906355e+37]
    xs = [0.0, 1e-8, 0.5, 89.3, -89.3]
    for f in (sp.i0, jnp.i0):
        _assert_ulps(_derivs(f, xs, f32), want, f32, 8)
    _assert_ulps(_derivs(sp.i1, [1e-8, 0.5, 89.3], f32),
                 [0.5, 0.5476947599595309, 2.5335594999281323e+37], f32, 8)
    _assert_ulps(_derivs(sp.i1, [1e-10, 1e-3, 3.0, 700.0], np.float64),
                 [0.5, 0.5000001875000131, 3.5630025133974876, 1.5274097756858254e+302],
                 np.float64, 8)
    # i1e's Maclaurin slope 1/2 - |x| + 15 x^2 / 16: grad of grad at 1e-8 was -1 (true -1 + 1.9e-8)
    _assert_ulps(_derivs(sp.i1e, [1e-9, 1e-8], np.float64, order=2),
                 [-0.999999998125, -0.9999999812500002], np.float64, 8)


def test_spence_slope(x64):
    # the rational approximation's own derivative: float64 spence'(1e-20) was -47.05 (true
    # -46.05), spence'(1) 0 (true -1), NaN from 1e20 (JAX: the same, NaN on (1, 2])
    _assert_ulps(_derivs(sp.spence, [1e-20, 0.5, 0.999, 1.0, 1.25, 2.0, 1e30], np.float64),
                 [-46.051701859880914, -1.3862943611198906, -1.0005003335835334, -1.0,
                  -0.8925742052568391, -0.6931471805599453, -6.907755278982137e-29],
                 np.float64, 8)
    _assert_ulps(_derivs(sp.spence, [1e-30, 1 - 2.0 ** -20, 1 + 2.0 ** -20, 1e20], np.float32),
                 [-69.07755278665029, -1.0000004768374613, -0.999999523163145,
                  -4.60517009570053e-19], np.float32, 8)
    _assert_ulps(_derivs(sp.spence, [1 - 2.0 ** -30, 1.1, 0.9], np.float64, order=2),
                 [0.5000000006208817, 0.44010888952339505, 0.5750595453284809], np.float64, 16)


def test_divide_slope_in_the_denominator_where_y_squared_overflows(x64):
    # -x / (y * y): float32 d(1e30 / y)/dy at 1e20 gave 0 (true -1e-10; JAX shares)
    _assert_ulps(_derivs(lambda y: np.float32(1e30) / y, [1e20], np.float32),
                 [-9.999999599182465e-11], np.float32, 4)


@pytest.mark.parametrize("call, want", [
    # JAX 0.10's value unless the comment says otherwise
    (lambda: tjit.grad(jnp.abs)(0.0), 1.0),
    (lambda: tjit.grad(tjit.nn.relu)(0.0), 0.0),
    (lambda: tjit.grad(tjit.nn.relu6)(6.0), 0.0),
    (lambda: tjit.grad(jnp.sqrt)(0.0), np.inf),
    (lambda: tjit.grad(jnp.cbrt)(0.0), np.inf),
    (lambda: tjit.grad(jnp.sign)(0.0), 0.0),
    (lambda: tjit.grad(lambda x: jnp.maximum(x, 1.0))(1.0), 0.5),
    (lambda: tjit.grad(lambda x: jnp.clip(x, 0.0, 1.0))(1.0), 0.5),
    # JAX's FAQ where() trap: the unselected sqrt'(0) = inf times a zero cotangent is NaN...
    (lambda: tjit.grad(lambda x: jnp.where(x > 0, jnp.sqrt(x), 0.0))(0.0), np.nan),
    # ... and the documented fix, a safe value in the unused lane, gives 0
    (lambda: tjit.grad(lambda x: jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0))(0.0),
     0.0),
    (lambda: tjit.grad(sp.logit)(0.0), np.inf),  # was NaN through logit's where
    (lambda: tjit.grad(sp.spence)(1.0), -1.0),   # JAX 0; the slope log(x)/(1-x) -> -1
    (lambda: tjit.grad(sp.i0)(0.0), 0.0),        # JAX 1 (abs'(0) = 1 in its product rule)
    (lambda: tjit.grad(jnp.i0)(0.0), 0.0),
])
def test_derivative_conventions_at_exact_points(call, want):
    np.testing.assert_equal(float(call()), want)


def test_second_derivatives_of_mirrored_products_near_zero(x64):
    # (1 + x)(1 - x) and s(x) s(-x) as first derivatives: their derivatives subtract two
    # near-equal terms, float32 grad(grad(arctanh))(1e-8) and grad(grad(expit))(1e-8) gave 0
    # (JAX shares); mpmath: 2x / (1 - x^2)^2 and s'(x) (1 - 2 s(x))
    f32 = np.float32
    xs = [1e-8, 1e-3, 0.75, -0.3]
    _assert_ulps(_derivs(jnp.arctanh, xs, f32, order=2),
                 [1.9999999878450584e-08, 0.0020000040950014725, 7.836734693877551,
                  -0.7245502152805245], f32, 8)
    want = [-1.2499999924031613e-09, -0.00012499996427051767, -0.07808428307814441,
            0.03639618531576479]
    for f in (sp.expit, tjit.nn.sigmoid):
        _assert_ulps(_derivs(f, xs, f32, order=2), want, f32, 8)


def test_slopes_near_one_and_in_the_tails_of_nn_and_special(x64):
    f32 = np.float32
    # rsqrt(1 - x*x) keeps ulp(1) of 1 - x**2: float32 grad(arcsin)(0.999999) was 3.4e4 ulps off
    want = [702.4583826903138, 702.4583826903138, 2.294157079614739]
    _assert_ulps(_derivs(jnp.arcsin, [0.999999, -0.999999, 0.9], f32), want, f32, 4)
    _assert_ulps(-_derivs(jnp.arccos, [0.999999, -0.999999, 0.9], f32), want, f32, 4)
    # the quotient rule of x / (|x| + 1) cancels: float32 grad at 1e8 gave 0 (JAX shares)
    _assert_ulps(_derivs(tjit.nn.soft_sign, [1e3, -1e5, 1e8, 0.5], f32),
                 [9.98002996004994e-07, 9.99980000299996e-11, 9.999999800000003e-17,
                  0.4444444444444444], f32, 4)
    # (x + sqrt(x**2 + 4)) / 2 cancels for x < 0: float32 value at -30 was 55 ulps off
    xs = [-30.0, -40.0, -1e3, 2.0]
    _assert_ulps(np.asarray(tjit.nn.squareplus(np.asarray(xs, f32)), np.float64),
                 [0.03329637837290827, 0.02498439450078573, 0.000999999000002,
                  2.414213562373095], f32, 4)
    _assert_ulps(_derivs(tjit.nn.squareplus, xs, f32),
                 [0.001107421071695522, 0.0006238305610776627, 9.9999700001e-07,
                  0.8535533905932737], f32, 8)
    # exp(x) / x with exp(x) overflowing first: float32 grad(expi)(89.3) was inf (JAX shares)
    _assert_ulps(_derivs(sp.expi, [89.3, 50.0], f32),
                 [6.786519254411026e+36, 1.0369411057174145e+20], f32, 8)
    # (t * x) / y transposed through 1/y: float32 d/dy xlogy(1e-20, y) at 4.2e-45 was inf
    _assert_ulps(_derivs(lambda y: sp.xlogy(f32(1e-20), y), [4.203895392974451e-45], f32),
                 [2.3787460790216668e+24], f32, 4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ndtr_slope_is_the_normal_pdf(dtype, x64):
    # through erfc's rule exp(-z**2) with z = x/sqrt(2) rounded: float64 ndtr'(30) was 352
    # ulps off (JAX shares); the unused lower-tail lane's square pair made grad(ndtr)(1e5) NaN
    xs = [-30.0, -12.5, 20.0, 1.0, 1e5, -1e30]
    want = [1.4736461348785476e-196, 4.695195357975146e-35, 5.520948362159764e-88,
            0.24197072451914334, 0.0, 0.0]  # mpmath npdf at 40 digits
    if dtype == np.float32:
        xs, want = xs[1:], want[1:]
    _assert_ulps(_derivs(sp.ndtr, xs, dtype), want, dtype, 8)


# (tanh'' = -2 tanh tanh', logistic'' = -tanh(x/2) logistic', mpmath at 60 digits)
_SECOND = {"tanh": [-1.9999999878450578e-8, -0.53318189446525025, 0.019634494363042436],
           "sigmoid": [-1.2499999924031612e-9, -0.036396185315764786, 0.040891574660943479]}


@pytest.mark.parametrize("name", sorted(_SECOND))
def test_second_derivative_of_a_slope_in_every_composition(name):
    # first-order slopes are cheap formulas whose own derivative is a separate rule: every
    # way of differentiating twice must reach that rule (a plain formula's derivative
    # cancels: float32 at 1e-8 gave 0)
    f = {"tanh": jnp.tanh, "sigmoid": tjit.nn.sigmoid}[name]
    xs = np.asarray([1e-8, 0.3, -3.0], np.float32)
    want = np.asarray(_SECOND[name])
    eps = np.finfo(np.float32).eps
    # relative within 8 ulps; tanh's at -3 inherits tanh''s absolute bound in the tail
    tol = 8 * eps * np.abs(want) + np.array([0, 0, 2 * eps if name == "tanh" else 0])

    def d1(v):
        return tjit.grad(lambda u: jnp.sum(f(u)))(v)
    ways = {
        "grad grad": lambda v: tjit.grad(lambda u: jnp.sum(d1(u)))(v),
        "jit": tjit.jit(lambda v: tjit.grad(lambda u: jnp.sum(d1(u)))(v)),
        "grad of jit grad": lambda v: tjit.grad(lambda u: jnp.sum(tjit.jit(d1)(u)))(v),
        "jvp of grad": lambda v: tjit.jvp(d1, (v,), (jnp.ones_like(v),))[1],
        "vmap": tjit.vmap(tjit.grad(tjit.grad(f))),
        "hessian": lambda v: jnp.diagonal(tjit.hessian(lambda u: jnp.sum(f(u)))(v)),
    }
    for way, g in ways.items():
        got = np.asarray(g(jnp.asarray(xs)), np.float64)
        assert np.all(np.abs(got - want) <= tol), (way, got, want)


# erf'(x) = 2/sqrt(pi) exp(-x**2) and -erfc'(x) at float points whose square rounds
# (mpmath at 60 digits; second row x -> -2 x erf'(x)). exp of the rounded x*x was off by up
# to x**2 eps/2 relative: float64 erf'(23.7) 203 ulps, erf'(-17.9) 163; float32 erf'(-8.9)
# 28, (9.1) 24 (JAX shares)
_ERF_SLOPES = {
    np.float64: ([-26.3, -17.9, -5.3, 11.3, 23.7],
                 [4.5217325541611525e-301, 7.946211361717212e-140, 7.130550543752623e-13,
                  3.957242503859959e-56, 1.2989352990630326e-244],
                 [2.3784313234887663e-299, 2.8447436674947614e-138, 7.55838357637778e-12,
                  -8.943368058723508e-55, -6.156953317558775e-243]),
    np.float32: ([-8.9, -7.3, 3.3, 9.1],
                 [4.4873722371895767e-35, 8.107760462193574e-24, 2.103721706425491e-05,
                  1.226100297225701e-36],
                 [7.987522239838114e-34, 1.1837330584089134e-22, -0.00013884563061781704,
                  -2.2315026344948047e-35]),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erf_and_erfc_slopes_square_x_exactly(dtype, x64):
    # float64 squares x exactly; float32 keeps the rounded square (its cost is the first-
    # order training path's), off by up to x**2 eps/2: 28 ulps at -8.9
    xs, slope, curvature = _ERF_SLOPES[dtype]
    ulps, ulps2 = (2, 4) if dtype == np.float64 else (32, 34)
    _assert_ulps(_derivs(tjit.lax.erf, xs, dtype), slope, dtype, ulps)
    _assert_ulps(_derivs(tjit.lax.erfc, xs, dtype), [-s for s in slope], dtype, ulps)
    _assert_ulps(_derivs(sp.erf, xs, dtype), slope, dtype, ulps)
    # the second derivative is its own rule, -2 x erf', in every composition
    x = jnp.asarray(np.asarray(xs, dtype))
    d1 = tjit.grad(lambda u: jnp.sum(tjit.lax.erf(u)))
    ways = {"grad grad": tjit.grad(lambda u: jnp.sum(d1(u))),
            "jit": tjit.jit(tjit.grad(lambda u: jnp.sum(d1(u)))),
            "jvp of grad": lambda v: tjit.jvp(d1, (v,), (jnp.ones_like(v),))[1],
            "vmap": tjit.vmap(tjit.grad(tjit.grad(tjit.lax.erf)))}
    for way, g in ways.items():
        _assert_ulps(np.asarray(g(x), np.float64), curvature, dtype, ulps2)


def test_exact_gelu_slope_in_the_lower_tail(x64):
    # float64 gelu(approximate=False)' at -30 / -20 was 137 / 84 ulps off (JAX 330 / 175):
    # erfc's slope took exp of a rounded square; mpmath Phi(x) + x phi(x)
    got = _derivs(lambda u: tjit.nn.gelu(u, approximate=False), [-30.0, -20.0], np.float64)
    _assert_ulps(got, [-4.416031690708495e-195, -1.1014360483133464e-86], np.float64, 4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erf_slopes_at_infinities_huge_and_nan(dtype, x64):
    # the square pair is taken of x clamped to +-28: unclamped, inf and x*x's overflow made
    # inf - inf; grad of grad at inf is 0 (-2 x erf'(x) -> 0), and of exact gelu at 1e30
    big = 1e300 if dtype == np.float64 else 1e30
    xs = [-np.inf, -big, big, np.inf, np.nan]
    for f in (tjit.lax.erf, tjit.lax.erfc):
        g = _derivs(f, xs, dtype)
        np.testing.assert_array_equal(g[:4], 0.0)
        assert np.isnan(g[4])
        np.testing.assert_array_equal(_derivs(f, xs[:4], dtype, order=2), 0.0)
    gelu = lambda u: tjit.nn.gelu(u, approximate=False)  # noqa: E731
    np.testing.assert_array_equal(_derivs(gelu, [-big, big], dtype, order=2), 0.0)
    # erf_inv' is inf at +-1 (exp(y**2) of y = +-inf), NaN outside
    np.testing.assert_array_equal(_derivs(tjit.lax.erf_inv, [-1.0, 1.0], dtype), np.inf)
