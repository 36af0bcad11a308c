"""tjit.scipy.special against scipy.special in float64 (values over tails and edges: 0,
negative, huge, inf, NaN), gradients against float64 finite differences (check_grads)
and JAX's conventions at edges, jit against eager and vmap against a Python loop on a
representative subset."""

import mpmath
import numpy as np
import pytest
import scipy.special as ss

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads, check_vmap
from tjit.scipy import special as S

INF, NAN = np.inf, np.nan
REALS = np.array([-1e300, -800, -40, -37.5, -25, -10.5, -9.5, -5, -3, -2.5, -1, -0.5,
                  -1e-300, -0.0, 0.0, 5e-324, 1e-300, 1e-8, 0.3, 0.5, 1, 2.5, 5, 7.9, 9.5, 12,
                  40, 171.5, 800, 1e300, INF, -INF, NAN])
POS = REALS[REALS > 0]
UNIT = np.array([0.0, 5e-324, 1e-300, 1e-20, 1e-8, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-12,
                 1 - 2 ** -53, 1.0, 1.5, -0.1, INF, NAN])


def assert_close(got, want, rtol, atol=0.0):
    """Relative closeness, with the same NaN/inf pattern and (for results 0 or inf)
    the same values."""
    got, want = np.broadcast_arrays(np.asarray(got, np.float64), np.asarray(want, np.float64))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg="NaN pattern")
    fin = np.isfinite(want)
    np.testing.assert_array_equal(got[~fin], want[~fin], err_msg="inf values")
    np.testing.assert_allclose(got[fin], want[fin], rtol=rtol, atol=atol)


def _erfc_mpmath(x):
    """erfc at 40 digits (SciPy's own is off by up to ~270 ulps for x in 9..26: it
    exponentiates the rounded x**2); SciPy's 0 and 2 beyond |x| = 30, where mpmath's
    series overflow for huge x."""
    with mpmath.workdps(40):
        out = [float(mpmath.erfc(v)) if abs(v) <= 30 else float(ss.erfc(v)) for v in x.tolist()]
    return np.array(out)


UNARY = {  # name -> (inputs, reference, rtol)
    "erf": (REALS, ss.erf, 1e-15), "erfc": (REALS, _erfc_mpmath, 1e-15),
    "erfinv": (2 * UNIT - 1, ss.erfinv, 1e-15), "ndtr": (REALS, ss.ndtr, 1e-14),
    "log_ndtr": (REALS, ss.log_ndtr, 1e-13), "ndtri": (UNIT, ss.ndtri, 1e-15),
    "logit": (UNIT, ss.logit, 1e-15), "expit": (REALS, ss.expit, 1e-15),
    # (SciPy's gammaln gives inf below 1/DBL_MAX, where the true value is -log|x|)
    "gammaln": (REALS, lambda x: np.where((np.abs(x) < 2.0 ** -1022) & (x != 0),
                                          -np.log(np.abs(x)), ss.gammaln(x)), 1e-15),
    "gamma": (REALS, ss.gamma, 3e-13),  # exp(gammaln): ~eps * |gammaln|
    "gammasgn": (REALS, ss.gammasgn, 0), "digamma": (REALS, ss.digamma, 1e-15),
    "i0": (REALS, ss.i0, 1e-14), "i0e": (REALS, ss.i0e, 1e-15),
    "i1": (REALS, ss.i1, 1e-14), "i1e": (REALS, ss.i1e, 1e-15),
    "entr": (REALS, ss.entr, 1e-15),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_scipy(name, x64):
    x, ref, rtol = UNARY[name]
    with np.errstate(all="ignore"):
        want = ref(x)
    assert_close(getattr(S, name)(x), want, rtol)


A = np.array([1e-3, 0.1, 0.5, 1, 2.5, 10, 100, 1e4])
X = np.array([0, 1e-5, 0.3, 1, 3, 20, 200, 2e4, INF, NAN])
AG, XG = (g.ravel() for g in np.meshgrid(A, X))


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma(name, x64):
    assert_close(getattr(S, name)(AG, XG), getattr(ss, name)(AG, XG), 1e-15)
    # a <= 0 and x < 0 are outside the domain
    assert_close(getattr(S, name)(np.array([-1.0, 1.0]), np.array([1.0, -1.0])),
                 getattr(ss, name)(np.array([-1.0, 1.0]), np.array([1.0, -1.0])), 0)


def test_betainc_betaln(x64):
    a, b, x = (g.ravel() for g in np.meshgrid([0.1, 1, 2.5, 50], [0.3, 1, 7, 200],
                                              [0, 1e-10, 0.2, 0.5, 0.9, 1, NAN]))
    assert_close(S.betainc(a, b, x), ss.betainc(a, b, x), 1e-13)
    ab = np.array([1e-3, 0.1, 1, 2.5, 9.9, 10, 50, 1e3, 1e10, 1e300, INF, NAN])
    a, b = (g.ravel() for g in np.meshgrid(ab, ab))
    # B(a, inf) = 0 for finite a > 0 (SciPy's NaN at a = 1e300 is its overflow, not a
    # limit); betaln(inf, inf) is NaN, as in SciPy and JAX
    one_inf = (np.isinf(a) ^ np.isinf(b)) & (np.minimum(a, b) > 0)
    want = np.where(one_inf, -INF, ss.betaln(a, b))
    # finite values against 40-digit mpmath: SciPy's own sum of gammalns is off by up to
    # 4e-13 (betaln(0.1, 1000)), which tjit's Stirling difference is not
    # (320 digits: loggamma(1e300) cancels ~300 of them)
    fin = np.isfinite(a) & np.isfinite(b)
    with mpmath.workdps(320):
        lg = mpmath.loggamma
        want[fin] = [float(lg(x) + lg(y) - lg(mpmath.mpf(x) + y)) for x, y in zip(a[fin], b[fin])]
    assert_close(S.betaln(a, b), want, 2e-15, atol=1e-15)


def test_polygamma_zeta_multigammaln_factorial(x64):
    n, x = (g.ravel() for g in np.meshgrid([0, 1, 2, 5], [-2.5, 0.1, 1, 7.5, 100, 0, NAN]))
    assert_close(S.polygamma(n, x), ss.polygamma(n, x), 1e-13)
    s, q = (g.ravel() for g in np.meshgrid([1.0, 1.5, 2, 10, 50], [0.2, 1, 3.5, 100]))
    assert_close(S.zeta(s, q), ss.zeta(s, q), 1e-14)
    s = np.array([2.0, 3.0, 50.0, 1.0, 1 - 1e-9, 0.9, 0.5, 1e-3, 0.0, -0.5, -3.0, -7.5, -40.5,
                  NAN])
    assert_close(S.zeta(s), ss.zeta(s), 1e-13)
    a = np.array([1.6, 2.0, 5.5, 40.0])
    for d in (1, 3):
        assert_close(S.multigammaln(a, d), [ss.multigammaln(v, d) for v in a], 1e-14)
    k = np.array([-2.0, 0, 1, 5, 20, 170, 171])
    assert_close(S.factorial(k), ss.factorial(k), 3e-13)  # exp(gammaln): ~eps * |gammaln|
    with pytest.raises(NotImplementedError, match="exact"):
        S.factorial(3, exact=True)
    with pytest.raises(ValueError, match="d must be"):
        S.multigammaln(a, 0)


def test_xlogy_family(x64):
    x, y = (g.ravel() for g in np.meshgrid([0.0, -0.0, 1e-300, 0.5, 3, -2, INF, NAN],
                                           [0.0, 1e-300, 0.5, 3, -1, -2, INF, NAN]))
    with np.errstate(all="ignore"):
        for name in ("xlogy", "xlog1py", "rel_entr", "kl_div"):
            assert_close(getattr(S, name)(x, y), getattr(ss, name)(x, y), 1e-15)


def test_logsumexp_softmax(x64, rng):
    a = rng.normal(size=(3, 4)) * 30
    b = rng.uniform(-1, 2, size=(3, 4))
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            assert_close(S.logsumexp(a, axis=axis, keepdims=keepdims),
                         ss.logsumexp(a, axis=axis, keepdims=keepdims), 1e-14)
        out, sign = S.logsumexp(a, axis=axis, b=b, return_sign=True)
        want, wsign = ss.logsumexp(a, axis=axis, b=b, return_sign=True)
        assert_close(out, want, 1e-12)
        np.testing.assert_array_equal(sign, wsign)
    a[0, :2] = -INF
    assert_close(S.logsumexp(a, axis=1), ss.logsumexp(a, axis=1), 1e-14)
    assert_close(S.logsumexp(np.full(3, -INF)), -INF, 0)
    assert_close(S.softmax(a), ss.softmax(a), 1e-14)
    assert_close(S.softmax(a, axis=0), ss.softmax(a, axis=0), 1e-14)
    # (mpmath: SciPy's log_softmax rounds 1 + a tiny rest to 1, as tjit's did, losing up to
    # ~1e-8 relative here where a row's other entries are 16..37 below its maximum)
    with mpmath.workdps(40):
        want = [[float(v - mpmath.log(mpmath.fsum(mpmath.exp(w) for w in row))) if v > -INF
                 else -INF for v in row] for row in a.tolist()]
    assert_close(S.log_softmax(a, axis=1), np.array(want), 1e-14)


def test_float32_and_bad_input():
    x = np.array([-3.0, 0.5, 2.0], np.float32)
    out = S.log_ndtr(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ss.log_ndtr(x.astype(np.float64)), rtol=1e-6)
    np.testing.assert_allclose(S.log_ndtr(np.float32([-30.0, -12.0])),
                               ss.log_ndtr([-30.0, -12.0]), rtol=1e-6)
    assert S.gammainc(np.int32(2), 1.5).dtype == np.float32  # ints promote to floats
    with pytest.raises(TypeError, match="complex"):
        S.erf(np.array([1 + 1j]))
    with pytest.raises(ValueError, match="series_order"):
        S.log_ndtr(1.0, series_order=-1)


# -- gradients --------------------------------------------------------------------------
GRADS = {  # name -> (function of float64 arrays, inputs); finite differences in float64
    "log_ndtr": (S.log_ndtr, (np.array([-50.0, -30, -5, -0.5, 0.7, 4, 9]),)),
    "ndtr": (S.ndtr, (np.array([-5.0, -0.6, 0.2, 3]),)),
    "ndtri": (S.ndtri, (np.array([1e-3, 0.02, 0.4, 0.97]),)),
    "logit_expit": (lambda x: S.logit(S.expit(x) * 0.5 + 0.2), (np.array([-3.0, 0.1, 2]),)),
    "gamma": (S.gamma, (np.array([-2.5, -0.5, 0.3, 4.2]),)),
    "polygamma": (lambda x: S.polygamma(2.0, x), (np.array([0.4, 3.0, 12.0]),)),
    "gammainc": (S.gammainc, (np.array([0.3, 2.0, 10.0, 3.0]), np.array([0.5, 1.5, 12.0, 0.1]))),
    "gammaincc": (S.gammaincc, (np.array([0.3, 2.0, 10.0]), np.array([0.5, 4.0, 12.0]))),
    "betainc_x": (lambda x: S.betainc(2.5, 0.7, x), (np.array([0.1, 0.5, 0.9]),)),
    "zeta_q": (lambda q: S.zeta(3.0, q), (np.array([0.5, 2.0, 10.0]),)),
    "i0_i1": (lambda x: S.i0(x) * S.i1e(x) + S.i1(x) - S.i0e(x),
              (np.array([-3.0, -0.2, 0.4, 5.0]),)),
    "betaln_multigammaln": (lambda a, b: S.betaln(a, b) + S.multigammaln(a + 1, 3),
                            (np.array([0.5, 3.0, 15.0]), np.array([2.0, 0.3, 40.0]))),
    "xlogy": (S.xlogy, (np.array([0.5, 2.0, -1.0]), np.array([0.3, 4.0, 2.0]))),
    "xlog1py": (S.xlog1py, (np.array([0.5, 2.0, -1.0]), np.array([-0.3, 4.0, 2.0]))),
    "entropies": (lambda p, q: S.entr(p) + S.rel_entr(p, q) + S.kl_div(q, p),
                  (np.array([0.2, 0.5, 3.0]), np.array([0.4, 0.1, 1.0]))),
    "logsumexp_b": (lambda a, b: S.logsumexp(a, axis=1, b=b),
                    (np.array([[0.1, 2.0, -1.0], [3.0, 0.0, 1.0]]), np.full((2, 3), 0.7))),
    "softmax": (lambda a: S.softmax(a) * np.arange(6.0).reshape(2, 3),
                (np.array([[0.1, 2.0, -1.0], [3.0, 0.0, 1.0]]),)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_against_finite_differences(name):
    fn, args = GRADS[name]
    check_grads(fn, args, eps=1e-6, rtol=1e-5, atol=1e-8)


def test_igamma_grad_a_accuracy(x64):
    """d/da P(a, x) against float64 central differences of scipy.special.gammainc
    (of gammaincc where Q is the smaller), where the step error is ~1e-10."""
    a, x = (g.ravel() for g in np.meshgrid([1e-3, 0.5, 2, 30, 500], [1e-4, 0.5, 3, 40, 600]))
    got = np.asarray(tjit.vmap(tjit.grad(S.gammainc))(a, x))
    h = 1e-5 * np.minimum(a, 1)
    q = x > a + 1
    f = lambda aa: np.where(q, -ss.gammaincc(aa, x), ss.gammainc(aa, x))
    want = (f(a + h) - f(a - h)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-300)
    assert np.all(got <= 0)  # P decreases in a


def test_jax_gradient_conventions(x64):
    g = tjit.grad
    # xlogy at x = 0: value 0 for any y; d/dx = log(y), d/dy = x / y (JAX's rule)
    assert float(S.xlogy(0.0, 0.0)) == 0.0
    assert float(g(S.xlogy)(0.0, 2.0)) == np.log(2.0)
    assert float(g(S.xlogy, 1)(0.0, 2.0)) == 0.0
    assert float(g(S.xlog1py)(0.0, 1.0)) == np.log(2.0)
    # entr: derivative -(log x + 1), -inf... +inf at 0
    assert float(g(S.entr)(0.5)) == pytest.approx(-(np.log(0.5) + 1))
    assert float(g(S.entr)(0.0)) == INF
    # logsumexp: -inf entries get zero gradient, the rest softmax weights
    a = jnp.asarray([-INF, 0.0, np.log(3.0)])
    np.testing.assert_allclose(g(S.logsumexp)(a), [0.0, 0.25, 0.75], rtol=1e-15)
    # log_ndtr: stable far in the lower tail (d/dx ~ -x), 0 far in the upper one
    x = np.array([-1e4, -200.0, 40.0])
    d = tjit.vmap(g(S.log_ndtr))(jnp.asarray(x))
    want = np.exp(-0.5 * x[:2] ** 2 - 0.5 * np.log(2 * np.pi) - ss.log_ndtr(x[:2]))
    # (exp of a difference of two ~-5e7 logs: ~1e-8 relative at -1e4, as in JAX)
    np.testing.assert_allclose(d[:2], want, rtol=2e-8)
    assert 0 <= float(d[2]) < 1e-300
    # derivatives JAX leaves undefined raise
    for fn, msg in [(lambda a: S.betainc(a, 2.0, 0.5), "betainc"),
                    (lambda s: S.zeta(s, 2.0), "zeta"),
                    (lambda n: S.polygamma(n, 2.0), "polygamma")]:
        with pytest.raises(ValueError, match=msg):
            g(fn)(1.5)
    # i1e at 0: 1/2
    assert float(g(S.i1e)(0.0)) == 0.5


# -- jit and vmap -----------------------------------------------------------------------------
def test_jit_matches_eager(x64):
    x = np.array([-40.0, -3, -0.2, 0.4, 6, 30])
    p = np.array([1e-10, 0.1, 0.5, 0.8, 0.999, 1 - 1e-10])

    def f(x, p):
        return [S.log_ndtr(x), S.ndtr(x), S.ndtri(p), S.gammaln(x), S.gamma(x), S.i0e(x),
                S.i1(x), S.erfinv(2 * p - 1), S.xlogy(p, x), S.entr(p), S.logit(p),
                S.gammainc(p + 1, jnp.abs(x)), S.gammaincc(p + 1, jnp.abs(x)),
                S.betainc(p + 1, 2.0, p), S.zeta(p + 2, jnp.abs(x) + 1),
                S.polygamma(3.0, jnp.abs(x) + 0.1), S.digamma(x), S.logsumexp(x)]
    # (5e-14: under jit erfc is a fused kernel op, within 3.5 ulp; eager is SciPy's erfc,
    # itself up to ~500 ulp off in its tail: log_ndtr(30) differs by 2.3e-14)
    for got, want in zip(tjit.jit(f)(x, p), f(x, p)):
        assert_close(got, want, 5e-14)


def test_vmap_matches_loop(rng):
    a = rng.uniform(0.5, 3, (4, 3)).astype(np.float32)
    x = rng.uniform(0.1, 0.9, (4, 3)).astype(np.float32)
    check_vmap(lambda a, x: S.gammainc(a, x) + S.betainc(a, 2.0, x) + S.log_ndtr(a - 3),
               (a, x), rtol=1e-5)
    check_vmap(lambda a: S.logsumexp(a, b=a) + S.softmax(a)[0], (a,), rtol=1e-5)
    check_vmap(lambda a, x: S.xlogy(x, a) * S.zeta(a + 1, x), (a.T, x), in_axes=(1, 0),
               rtol=1e-5)
    check_vmap(lambda x: S.ndtri(x) + S.i1e(x) + S.polygamma(1.0, x), (x,), rtol=1e-5)


def test_logit_near_one_half(x64):
    """2 atanh(2x - 1) where log(x / (1 - x)) cancels (SciPy's logit loses ~1e-8 at
    x = 0.5 + 1e-9); reference: 30-digit mpmath."""
    x = np.array([0.5 + 1e-9, 0.5 - 3e-12, 0.26, 0.74, 0.2, 0.9])
    def ref(x):
        with mpmath.workdps(30):
            return [float(mpmath.log(mpmath.mpf(float(v)) / (1 - mpmath.mpf(float(v)))))
                    for v in x]
    assert_close(S.logit(x), ref(x), 2e-16)
    x32 = np.float32([0.5 + 2 ** -20, 0.5 - 2 ** -24, 0.26, 0.74, 0.2, 0.9])
    np.testing.assert_allclose(S.logit(x32), ref(x32), rtol=3e-7)
