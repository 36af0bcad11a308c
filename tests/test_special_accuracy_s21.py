"""Accuracy of the error-function family where a rounded square used to be exponentiated,
against mpmath at 40 digits (exact binary inputs), in ulps of the result dtype, eager and
jit. The bounds are diff_accuracy.py's (4 float32 / 8 float64 ulps).

Regressions (tjit before -> true): float64 ndtr(-36) under jit 4.18262406579663e-284 (1,100
ulps; 0.5 erfc(x/sqrt 2) exponentiates the rounded (x/sqrt 2)**2), float32 ndtr(-12)
1.7764938e-33 (63 ulps; true 1.7764821e-33); eager float64 erfc (SciPy's) 35-270 ulps at x
in 9..26 and 0 from 26.55 (erfc(27) = 5.237e-319); log_ndtr(-38) -726.5572160188442
(212 ulps; true -726.55721601882013, the 3-term series); erfcx(-25.1189) 294 ulps.
JAX shares all but the eager erfc one (its erfc has no eager path of its own)."""

import mpmath as mp
import numpy as np
import pytest

import tjit
import tjit.nn as tnn
import tjit.numpy as tnp
import tjit.scipy.special as tsp

mp.mp.dps = 40
DTYPES = [np.float32, np.float64]
BOUND = {np.float32: 4.0, np.float64: 8.0}


def _ulps(got, true, dtype):
    """|got - true| in ulps of true rounded to dtype (the subnormal spacing below)."""
    tiny = float(np.finfo(dtype).smallest_subnormal)
    out = []
    for g, t in zip(np.asarray(got, np.float64).ravel(), true):
        if not np.isfinite(g):
            out.append(np.inf)
            continue
        spacing = max(float(np.spacing(np.abs(dtype(float(t))))), tiny)
        out.append(float(abs(mp.mpf(float(g)) - t)) / spacing)
    return np.array(out)


def _check(fn, ref, xs, dtype):
    xs = np.asarray(xs, np.float64).astype(dtype)
    true = [ref(mp.mpf(float(x))) for x in xs]
    got = {}
    for f, mode in ((fn, "eager"), (tjit.jit(fn), "jit")):
        got[mode] = np.asarray(f(tnp.asarray(xs)), np.float64)
        err = _ulps(got[mode], true, dtype)
        worst = int(np.argmax(err))
        assert err[worst] <= BOUND[dtype], (
            f"{mode} {np.dtype(dtype).name}: {err[worst]:.3g} ulp at x={xs[worst]!r} "
            f"(got {got[mode][worst]!r}, true {mp.nstr(true[worst], 17)})")
    return got


def _erfcx(x):
    """exp(x**2) erfc(x); from 1e3 on erfc's continued fraction sqrt(pi) erfcx(x) =
    1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), 30 levels (relative error < 1e-80 there;
    mpmath's erfc overflows its exponent range at x ~ 1e150)."""
    if x < 1000:
        return mp.exp(x * x) * mp.erfc(x)
    d = x
    for k in range(30, 0, -1):
        d = x + mp.mpf(k) / 2 / d
    return 1 / (mp.sqrt(mp.pi) * d)


def _log_ndtr(x):
    """log(ndtr(x)); below -1e3 as -x**2/2 + log(erfcx(-x/sqrt 2)/2) (x**2 is exact at
    40 digits)."""
    if x > -1000:
        return mp.log(mp.ncdf(x))
    return -x * x / 2 + mp.log(_erfcx(-x / mp.sqrt(2)) / 2)


def _lower_tail(dtype):
    """non-round points (at half-integers (x/sqrt 2)**2 rounds back to x**2/2, hiding the
    loss) from -1 to where ndtr underflows, denormal results included."""
    end = -38.4 if dtype == np.float64 else -14.0
    return np.concatenate([np.linspace(-1.05, end, 61) + 0.0123, [end]])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_ndtr_lower_tail(x64, dtype):
    _check(tsp.ndtr, mp.ncdf, _lower_tail(dtype), dtype)
    got = np.asarray(tsp.ndtr(tnp.asarray(np.array([-np.inf, -1e30, np.nan], dtype))))
    assert got[0] == 0 and got[1] == 0 and np.isnan(got[2])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_gelu_exact_lower_tail(x64, dtype):
    # x/2 erfc(-x/sqrt 2) had ndtr's loss (float32 gelu(-5.736) 26 ulps off)
    _check(lambda x: tnn.gelu(x, approximate=False), lambda x: x * mp.ncdf(x),
           _lower_tail(dtype), dtype)
    for half in (np.float16, tnp.bfloat16):  # the pairs work in the half types too
        got = np.asarray(tnn.gelu(tnp.asarray(np.array([-2.3, -3.3], half)), approximate=False),
                         np.float64)
        want = [float(x * mp.ncdf(x)) for x in np.array([-2.3, -3.3], half).astype(np.float64)]
        np.testing.assert_allclose(got, want, rtol=2 * float(tnp.finfo(half).eps))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_log_ndtr_far_tail(x64, dtype):
    # past the switch from log(ndtr) to the erfcx form, out to where -x**2/2 nears -max
    edge = np.sqrt(2.0) * np.sqrt(float(np.finfo(dtype).max))
    top = np.log10(edge)
    xs = np.concatenate([_lower_tail(dtype), -np.logspace(1.2, top - 0.01, 30)])
    _check(tsp.log_ndtr, _log_ndtr, xs, dtype)
    got = np.asarray(tsp.log_ndtr(tnp.asarray(np.array([-np.inf, -1.01 * edge], dtype))))
    assert np.all(got == -np.inf)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_erfc_right_half_eager_and_jit_agree(x64, dtype):
    # up to where erfc underflows (float64 27.3: denormal results from 26.55; float32 10.1)
    end = 27.3 if dtype == np.float64 else 10.1
    xs = np.concatenate([np.linspace(0.45, end, 70) + 0.0071, [27.0 if dtype == np.float64
                                                                else 9.5]])
    got = _check(tsp.erfc, mp.erfc, xs, dtype)
    gap = _ulps(got["eager"], [mp.mpf(float(g)) for g in got["jit"]], dtype)
    assert gap.max() <= BOUND[dtype], gap.max()


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_erfcx_both_signs(x64, dtype):
    # negative x up to erfcx's own overflow (2 exp(x**2)), positive across the switch to
    # the asymptotic series and out to float32's denormal results
    neg = -np.linspace(0.3, 26.6 if dtype == np.float64 else 9.3, 40) - 0.0037
    pos = np.concatenate([np.linspace(0.3, 30.0, 40) + 0.0041,
                          np.logspace(1.5, 38.5 if dtype == np.float32 else 300, 12)])
    _check(tsp.erfcx, _erfcx, np.concatenate([neg, pos]), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_expi_through_its_root(x64, dtype):
    # Ei's zero x0 = 0.3725...: gamma + log x + sum x^k/(k k!) cancelled to nothing there
    x0 = 0.37250741078136663
    near = np.concatenate([x0 + np.logspace(-12, -1, 12), x0 - np.logspace(-12, -1, 12)])
    # the neighbours of x0 in the dtype, and the whole series range up to 40
    adjacent = [np.nextafter(dtype(x0), dtype(k)) for k in (-1, 2)] + [dtype(x0)]
    xs = np.concatenate([near, adjacent, np.logspace(-20, -3, 8)])
    _check(tsp.expi, mp.ei, xs, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_expi_up_to_overflow(x64, dtype):
    # the series below 2, each octave's Chebyshev series to 64 (its ends included), the
    # tail polynomial up to where Ei overflows (exp(x) alone overflows a little earlier)
    logmax = np.log(float(np.finfo(dtype).max))
    top = logmax + np.log(logmax) - 0.05
    edges = [v * (1 + d) for v in (2.0, 4.0, 8.0, 16.0, 32.0, 64.0) for d in (-1e-6, 0, 1e-6)]
    xs = np.concatenate([np.linspace(1e-3, 64.0, 60) + 0.0013, edges,
                         np.linspace(64.0, top, 20)])
    _check(tsp.expi, mp.ei, xs, dtype)
    assert np.asarray(tsp.expi(tnp.asarray(np.array([top + 1.0, np.inf], dtype)))).tolist() \
        == [np.inf, np.inf]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_exp1_continued_fraction(x64, dtype):
    # above 1 the continued fraction, out to where E1 underflows; expi(-x) = -E1(x)
    xs = np.concatenate([np.linspace(1.0, 8.0, 40) + 0.0031, np.logspace(0.9, 2.85, 15)])
    _check(tsp.exp1, mp.e1, xs, dtype)
    _check(lambda x: tsp.expi(-x), lambda x: mp.ei(-x), xs[:40], dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_rounding_of_the_difference(x64, dtype, name):
    # x - y rounded reached the result e^-|x-y|-fold where max(x, y) and the log1p term
    # cancel (float32 logaddexp(-13.895, -5.18e-7) was 12-14 ulps off)
    # (y = -c b^x, c in [0.2, 0.5]: the result is ~(1 - c) b^x, cancelling at most 2-fold,
    # while ulp(x - y) ~ |x| eps is large; nearer total cancellation exp's and log1p's own
    # roundings are magnified as much, whatever x - y's accuracy)
    rng = np.random.default_rng(21)
    x = np.concatenate([-rng.uniform(2, 30, 40), [-13.894954681396484]])
    base = np.e if name == "logaddexp" else 2.0
    y = np.concatenate([-rng.uniform(0.2, 0.5, 40) * base ** x[:40], [-5.179474555916386e-07]])
    ref = (lambda a, b: mp.log(mp.exp(a) + mp.exp(b))) if name == "logaddexp" else \
        (lambda a, b: mp.log(2 ** a + 2 ** b, 2))
    x, y = x.astype(dtype), y.astype(dtype)
    true = [ref(mp.mpf(float(a)), mp.mpf(float(b))) for a, b in zip(x, y)]
    fn = getattr(tnp, name)
    for f, mode in ((fn, "eager"), (tjit.jit(fn), "jit")):
        for a, b in ((x, y), (y, x)):  # symmetric
            err = _ulps(f(tnp.asarray(a), tnp.asarray(b)), true, dtype)
            assert err.max() <= BOUND[dtype], (mode, err.max(), x[err.argmax()], y[err.argmax()])
    specials = np.array([np.inf, -np.inf, np.nan, 0.0], dtype)
    got = np.asarray(fn(tnp.asarray(specials), tnp.asarray(specials[[1, 1, 0, 1]])))
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2]) and got[3] == 0


def _check_many(fn, ref, args, dtype):
    """_check for functions of several arguments (columns of ``args``)."""
    args = [np.asarray(a, np.float64).astype(dtype) for a in args]
    true = [ref(*[mp.mpf(float(v)) for v in point]) for point in zip(*args)]
    for f, mode in ((fn, "eager"), (tjit.jit(fn), "jit")):
        err = _ulps(f(*[tnp.asarray(a) for a in args]), true, dtype)
        worst = int(np.argmax(err))
        assert err[worst] <= BOUND[dtype], (mode, err[worst], [a[worst] for a in args])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_poisson_logpmf_large_counts(x64, dtype):
    # k log mu - mu - log k! cancelled for large k (float32 logpmf(1e6, 1e6) gave -7, true
    # -7.8267); k/mu on both sides of the saddle-point series' range (1/3, 3)
    import tjit.scipy.stats as tst
    k = np.array([0, 1, 5, 15, 16, 300, 3e4, 3e4, 1e6, 1e6, 1e6, 1e6, 2e7, 7])
    mu = np.array([0.3, 2.5, 5.0, 40.0, 15.5, 1e3, 42169.65, 1e4, 1e6, 1e6 + 3e3, 3.3e5, 3.1e6,
                   2e7 - 5e3, 1e-4])
    _check_many(tst.poisson.logpmf, lambda k, m: k * mp.log(m) - m - mp.loggamma(k + 1),
                (k, mu), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_binom_logpmf_large_n(x64, dtype):
    # log C(n, k) from three log-gammas cancelled (float32 logpmf(1, 1e4, 4.64e-5) was 5e3
    # ulps off); the ends k = 0 and k = n keep their direct form
    import tjit.scipy.stats as tst
    k = np.array([1, 1, 7, 50, 5e3, 9999, 0, 1e4, 3, 20, 17])
    n = np.array([1e4, 50, 1e4, 1e4, 1e4, 1e4, 1e4, 1e4, 30, 20, 1e6])
    p = np.array([4.641588748199865e-05, 0.3, 6.8e-9, 0.316, 0.5, 0.9999, 1e-3, 0.99, 0.1,
                  0.7, 1.7e-5])
    ref = lambda k, n, p: mp.log(mp.binomial(n, k)) + k * mp.log(p) + (n - k) * mp.log1p(-p)  # noqa: E731
    _check_many(tst.binom.logpmf, ref, (k, n, p), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_log_softmax_and_logsumexp_keep_a_tiny_rest(x64, dtype):
    # the maxima add exactly 1 each; 1 + rest rounded the rest away (float32
    # log_softmax([-20.93, 0])[1] was 0, true -8.2e-10)
    x = np.array([[-20.926164627075195, 0.0], [-5.0, 0.0], [-30.0, -31.0],
                  [0.0, 0.0], [-1e-3, 0.0]], dtype)
    for mode, ls, lse in (("eager", tnn.log_softmax, tnn.logsumexp),
                          ("jit", tjit.jit(tnn.log_softmax),
                           tjit.jit(lambda v: tnn.logsumexp(v, axis=-1)))):
        got_ls = np.asarray(ls(tnp.asarray(x)), np.float64)
        got_lse = np.asarray(lse(tnp.asarray(x)) if mode == "jit"
                             else lse(tnp.asarray(x), axis=-1), np.float64)
        for i, row in enumerate(x.astype(np.float64).tolist()):
            total = mp.log(mp.fsum(mp.exp(mp.mpf(v)) for v in row))
            assert _ulps([got_lse[i]], [total], dtype)[0] <= BOUND[dtype], (mode, row)
            errs = _ulps(got_ls[i], [mp.mpf(v) - total for v in row], dtype)
            assert errs.max() <= BOUND[dtype], (mode, row, got_ls[i])
    # slopes stay finite at a tie of maxima (softmax weights)
    g = np.asarray(tjit.grad(lambda v: tnn.logsumexp(v))(tnp.asarray(np.zeros(2, dtype))))
    np.testing.assert_allclose(g, [0.5, 0.5])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_gammaln_next_to_its_zeros(x64, dtype):
    # eager gammaln was SciPy's, which loses the relative accuracy next to 1 and 2 (float64
    # at 2 - 1.1e-15: -3.33e-16, true -4.69e-16; at 1 - 1e-9 1.8e9 ulps) while jit's
    # kernel kept it: eager and jit disagreed
    xs = np.concatenate([c + s * np.logspace(-15, np.log10(0.6), 24)
                         for c in (1.0, 2.0) for s in (-1, 1)] + [np.linspace(0.7, 2.6, 30)])
    xs = xs[(xs.astype(dtype) != 1) & (xs.astype(dtype) != 2)]
    _check(tsp.gammaln, mp.loggamma, xs, dtype)
    got = np.asarray(tsp.gammaln(tnp.asarray(np.array([1.0, 2.0], dtype))))
    assert got.tolist() == [0.0, 0.0] and not np.signbit(got).any()


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_sinc_near_and_at_integers(x64, dtype):
    # sin of pi x rounded: float32 sinc(1) was -2.8e-8 (true 0), sinc(1e5) 5.1e-8, sinc of
    # the largest floats NaN; near 3 - 1e-6 float64 1.7e5 ulps (NumPy's too)
    ints = np.array([1.0, -1.0, 2.0, 3.0, -7.0, 1e5, -1e5, 2.0 ** 30, float(np.finfo(dtype).max)])
    got = np.asarray(tnp.sinc(tnp.asarray(ints.astype(dtype))))
    assert (got == 0).all(), got
    xs = np.concatenate([c + s * np.logspace(-12, -1, 8) for c in (1.0, 3.0, -2.0, 1e3)
                         for s in (-1, 1)] + [np.linspace(0.3, 40.0, 25)])
    _check(tnp.sinc, lambda x: mp.sinpi(x) / (mp.pi * x), xs, dtype)
    # the slope at an integer: cos(pi n) / n
    g = float(tjit.grad(tnp.sinc)(tnp.asarray(dtype(3.0))))
    np.testing.assert_allclose(g, -1 / 3, rtol=4 * float(np.finfo(dtype).eps))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_beta_logcdf_where_the_cdf_underflows(x64, dtype):
    # log(0) was -inf: float64 logcdf(1e-12, 50, 0.5) (true -1384.08; SciPy and JAX -inf)
    import tjit.scipy.stats as tst
    x = np.array([1e-12, 1e-12, 1e-30, 1e-3, 1e-8, 2e-4, 1e-6, 0.01])
    a = np.array([50.0, 50.0, 3.0, 200.0, 50.0, 300.0, 40.0, 2e3])
    b = np.array([0.5, 3.0, 2.0, 0.7, 50.0, 5.0, 1e3, 1.5])
    ref = lambda x, a, b: mp.log(mp.betainc(a, b, 0, x, regularized=True))  # noqa: E731
    _check_many(tst.beta.logcdf, ref, (x, a, b), dtype)
    g = np.asarray(tjit.grad(tst.beta.logcdf)(tnp.asarray(dtype(1e-12)), dtype(50.0), dtype(0.5)))
    np.testing.assert_allclose(g, 50 / 1e-12, rtol=1e-3)   # ~a/x there


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_beta_sf_corrects_the_rounding_of_one_minus_y(x64, dtype):
    # I_{1-y}(b, a) at 1 - y rounded: float32 logcdf(0.316, 0.5, 50) was 30 ulps off
    import tjit.scipy.stats as tst
    y = np.array([0.3162277638912201, 0.3162277638912201, 0.1234567, 0.4321, 3e-11])
    a = np.array([0.5, 2.0, 3.0, 0.7, 0.0014])
    b = np.array([50.0, 50.0, 80.0, 30.0, 1.0])
    ref = lambda y, a, b: mp.betainc(a, b, y, 1, regularized=True)  # noqa: E731
    # float64 sf is limited by the incomplete beta function's own accuracy (~20 ulps here)
    xs = [np.asarray(v, np.float64).astype(dtype) for v in (y, a, b)]
    true = [ref(*[mp.mpf(float(v)) for v in p]) for p in zip(*xs)]
    for f in (tst.beta.sf, tjit.jit(tst.beta.sf)):
        err = _ulps(f(*[tnp.asarray(v) for v in xs]), true, dtype)
        assert err.max() <= (4.0 if dtype == np.float32 else 32.0), err


def test_hyp1f1_tiny_b_is_its_limit(x64):
    """1F1(a; b; x) for tiny nonzero b is 1 + (a x / b) 1F1(a + 1; 2; x) to O(b): SciPy
    took ~20 ms a point at subnormal b and gave +inf or NaN where the value is -inf
    (1F1(-1.5; -5e-324; -1.5) = -6.08e323 overflows to -inf; JAX +inf), and 1.0 for
    1F1(1e-310; 5e-324; 1e-15) = 1.0202402253307 (a / b kept apart from the product)."""
    pts = [(-1.5, -5e-324, -1.5), (2.5, -5e-324, 1.0), (2.5, 5e-324, -0.5),
           (-2.0, 5e-324, 5e-324), (1e-300, -5e-324, 1e-10), (1e-310, 5e-324, 1e-15),
           (3.0, 1e-31, 2.0), (3.0, -1e-31, -2.0), (-1.5, -1e-300, 0.5), (0.5, 1e-18, 1e-300),
           (0.0, 5e-324, 3.0), (4.0, -5e-324, 0.0)]
    a, b, x = (np.array(v, np.float64) for v in zip(*pts))
    with mp.workdps(80):   # (hypsum's default precision does not converge at 1e-300)
        true = [+mp.hyp1f1(*map(mp.mpf, p)) for p in pts]
    for f, mode in ((tsp.hyp1f1, "eager"), (tjit.jit(tsp.hyp1f1), "jit")):
        got = np.asarray(f(a, b, x), np.float64)
        for g, t, p in zip(got, true, pts):
            if abs(t) > np.finfo(np.float64).max:
                assert g == (np.inf if t > 0 else -np.inf), (mode, p, g)
            else:
                assert abs(mp.mpf(float(g)) - t) <= 4 * np.spacing(abs(float(t))), (mode, p, g, t)


def _ndtri_slope(p):
    """1/npdf(ndtri(p)), the root found on log ncdf of the smaller tail."""
    q = min(p, 1 - p)
    x = mp.findroot(lambda t: mp.log(mp.ncdf(t)) - mp.log(q),
                    -mp.sqrt(-2 * mp.log(q)) if q < 0.3 else mp.mpf(-0.2))
    return 1 / mp.npdf(x)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_ndtri_slope_in_the_tails(x64, dtype):
    """ndtri' = sqrt(pi/2) erfcx(|x|/sqrt 2) / min(p, 1 - p): sqrt(2 pi) exp(x**2 / 2) moves
    by x**2 times the rounding of x = ndtri(p) (float64 ndtri'(1e-100) 4.6903754148375e98
    was 262 ulps off, 354 even with x**2 exact; float32 ndtri'(1e-20) 52; JAX 1.5 / 0.6).
    Subnormal p: the slope overflows (true 5.26e321 at 5e-324), p = 0 and 1: inf."""
    tiny = [1e-300, 1e-100, 1e-50, 1e-20] if dtype == np.float64 else [1e-38, 1e-30, 1e-20]
    ps = np.array(tiny + [1e-10, 1e-5, 0.3, 0.5, 0.7, 0.999, 1 - 2.0 ** -20], dtype)
    with mp.workdps(50):
        true = [_ndtri_slope(mp.mpf(float(p))) for p in ps]
    slope = tjit.vmap(tjit.grad(tsp.ndtri))
    for f, mode in ((slope, "eager"), (tjit.jit(slope), "jit")):
        got = np.asarray(f(tnp.asarray(ps)), np.float64)
        err = _ulps(got, true, dtype)
        worst = int(np.argmax(err))
        assert err[worst] <= BOUND[dtype], (mode, ps[worst], got[worst], err[worst])
        edges = np.asarray(f(tnp.asarray(np.array([0.0, 1.0, 5e-324 if dtype == np.float64
                                                   else 1e-45], dtype))))
        assert np.all(edges == np.inf), (mode, edges)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_ndtri_second_derivative(x64, dtype):
    """ndtri'' = x ndtri'**2 (x = ndtri(p)) by the slope's own rule: the derivative of
    erfcx(|x|/sqrt 2) / q cancels to it (float64 at 0.5 + 2**-20 2.6e5 ulps, near 0.5 1e14)
    and overflowed into NaN at tiny float32 p (true -8.6e58 at 1e-30: -inf)."""
    tiny = [1e-150, 1e-50] if dtype == np.float64 else [1e-15, 1e-10]
    ps = np.array(tiny + [0.3, 0.5 - 2.0 ** -20, 0.5 + 2.0 ** -20, 0.5 + 2.0 ** -8, 0.9],
                  dtype)
    with mp.workdps(50):
        true = []
        for p in ps:
            s = _ndtri_slope(mp.mpf(float(p)))
            true.append(-mp.sqrt(2 * mp.log(s / mp.sqrt(2 * mp.pi))) * s * s
                        if p < 0.5 else mp.sqrt(2 * mp.log(s / mp.sqrt(2 * mp.pi))) * s * s)
    grad2 = tjit.vmap(tjit.grad(tjit.grad(tsp.ndtri)))
    for f, mode in ((grad2, "eager"), (tjit.jit(grad2), "jit")):
        got = np.asarray(f(tnp.asarray(ps)), np.float64)
        err = _ulps(got, true, dtype)
        worst = int(np.argmax(err))
        assert err[worst] <= 2 * BOUND[dtype], (mode, ps[worst], got[worst], err[worst])
        at = np.asarray(f(tnp.asarray(np.array([0.5, 1e-30 if dtype == np.float32 else 1e-300,
                                                0.0], dtype))))
        assert at[0] == 0 and at[2] == -np.inf and not np.isnan(at[1]), (mode, at)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("approximate", [False, True])
def test_gelu_slope_for_huge_inputs(x64, dtype, approximate):
    """gelu's slope tends to 1 (x -> inf) and 0 (x -> -inf): the exact form's unused
    correction branch squared huge x into a NaN pair (float32 grad at 1e20, float64 at
    1e300 were NaN; JAX 1), the tanh form's x**3 overflowed into 0 * inf (float32 grad
    at 1e13 NaN; JAX NaN too). Values there: x and -0."""
    big = np.finfo(dtype).max
    xs = np.array([1e5, 1e13, 1e20, 1e30, big, -1e5, -1e13, -1e20, -big], dtype)
    want = np.where(xs > 0, 1.0, 0.0)
    f = tjit.vmap(tjit.grad(lambda x: tnn.gelu(x, approximate=approximate)))
    for g, mode in ((f, "eager"), (tjit.jit(f), "jit")):
        np.testing.assert_array_equal(np.asarray(g(tnp.asarray(xs))), want, err_msg=mode)
    vals = np.asarray(tnn.gelu(tnp.asarray(xs), approximate=approximate))
    np.testing.assert_array_equal(vals, np.where(xs > 0, xs, -0.0))
    # and near the clip (|x| = 30) the slope is the formula's, vs mpmath
    for x in (29.5, 30.5, -5.0, 3.0):
        u = mp.sqrt(2 / mp.pi) * (x + mp.mpf(0.044715) * x ** 3)
        true = (_gelu_exact_slope(mp.mpf(x)) if not approximate else
                (1 + mp.tanh(u)) / 2 + x / 2 * (1 - mp.tanh(u) ** 2) * mp.sqrt(2 / mp.pi)
                * (1 + 3 * mp.mpf(0.044715) * x ** 2))
        got = float(tjit.grad(lambda v: tnn.gelu(v, approximate=approximate))(dtype(x)))
        assert abs(got - float(true)) <= 8 * np.finfo(dtype).eps * max(1.0, abs(float(true)))


def _gelu_exact_slope(x):
    return mp.ncdf(x) + x * mp.npdf(x)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_slopes_far_apart(x64, dtype, name):
    """The slopes sigmoid(s (x - y)) near 0 are ~e^(s (x - y)) and take the roundings of
    x - y and of its product with ln 2 as relative errors: float64 logaddexp2'(-710.28, 50)
    was 1.35549598e-229 510 ulps off, grad of grad 354; logaddexp2'(-1000, -50) 216 (JAX
    the same). Now the roundings (TwoSum, Dekker) are added back to first order."""
    base = mp.mpf(2) if name == "logaddexp2" else mp.e
    far = [-1000.0, -710.282713, -709.772713, -700.1234567891, -60.123456789, -30.3, -2.5,
           0.75, 30.3, 700.123456789] if dtype == np.float64 else \
        [-60.28271, -45.123456, -30.3, -2.5, 0.75, 30.3, 55.123456]  # (results stay normal)
    others = [50.0, -50.0, 0.1234567] if dtype == np.float64 else [20.0, -20.0, 0.1234567]
    fn = getattr(tnp, name)
    for y in others:
        xs = np.array(far, dtype)
        yv = dtype(y)
        exact = [(mp.mpf(float(x)) - mp.mpf(float(yv))) * mp.log(base) for x in xs]
        w = [1 / (1 + mp.exp(-t)) for t in exact]      # d/dx
        true = {"grad": w, "grad2": [mp.log(base) / ((1 + mp.exp(t)) * (1 + mp.exp(-t)))
                                     for t in exact]}
        slope = tjit.grad(fn)
        cases = {"grad": tjit.vmap(slope, (0, None)),
                 "grad2": tjit.vmap(tjit.grad(slope), (0, None))}
        for kind, f in cases.items():
            for g, mode in ((f, "eager"), (tjit.jit(f), "jit")):
                got = np.asarray(g(tnp.asarray(xs), yv), np.float64)
                err = _ulps(got, true[kind], dtype)
                worst = int(np.argmax(err))
                bound = BOUND[dtype] * (2 if kind == "grad2" else 1)
                assert err[worst] <= bound, (kind, mode, xs[worst], y, got[worst], err[worst])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_digamma_eager_is_the_kernels_algorithm(x64, dtype):
    """Eager digamma runs the compiled kernels' algorithm (primitives/digamma_reference):
    SciPy's, used before, lost the relative accuracy next to the negative poles (float64
    digamma(-3 + 1e-9) and its neighbours up to 8.6e8 ulps; the kernels 3). Errors for
    x < 0 are in ulps of the larger reflection term, max(|psi(x)|, |psi(1 - x)|), as
    mathlib_special states them; eager and jit within 2 ulps of each other; SciPy's special
    values (+-0: -+inf, poles and -inf: NaN)."""
    rng = np.random.default_rng(21)
    poles = -np.arange(1.0, 12.0)
    xs = np.concatenate([rng.uniform(-20, 20, 40), poles + 1e-9, poles - 1e-7,
                         poles + rng.uniform(-1e-3, 1e-3, 11),
                         [-0.5040830082644554, -1.5734984731623904, 1.4616321449683622,
                          9.999999999, 10.0, 1e-300 if dtype == np.float64 else 1e-30,
                          1e10, -2.0 ** 52 - 1.5]]).astype(dtype)
    xs = xs[(xs > 0) | (xs != np.floor(xs))]      # (float32 rounds some onto the poles)
    true = [mp.digamma(mp.mpf(float(x))) for x in xs]
    ulp = np.array([float(np.spacing(dtype(float(
        max(abs(t), abs(mp.digamma(1 - mp.mpf(float(x))))) if x < 0 else abs(t)))))
        for x, t in zip(xs, true)])
    got = {}
    for f, mode in ((tsp.digamma, "eager"), (tjit.jit(tsp.digamma), "jit")):
        got[mode] = np.asarray(f(tnp.asarray(xs)), np.float64)
        for x, g, t, u in zip(xs, got[mode], true, ulp):
            err = float(abs(mp.mpf(float(g)) - t)) / u
            assert err <= BOUND[dtype], (mode, x, g, mp.nstr(t, 17), err)
    gap = np.abs(got["eager"] - got["jit"]) / ulp
    assert gap.max() <= 2, xs[int(np.argmax(gap))]
    special = np.array([0.0, -0.0, -1.0, -7.0, -np.inf, np.inf, np.nan], dtype)
    want = np.array([-np.inf, np.inf, np.nan, np.nan, np.nan, np.inf, np.nan])
    for f in (tsp.digamma, tjit.jit(tsp.digamma)):
        np.testing.assert_array_equal(np.asarray(f(tnp.asarray(special)), np.float64), want)
