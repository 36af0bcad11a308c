"""tjit.scipy.stats against scipy.stats in float64: every function of every distribution
on values covering the support's ends, the tails, inf and NaN, with loc/scale; gradients
against float64 finite differences; jit and vmap on a subset; gaussian_kde, mode and
rankdata against SciPy's."""

import numpy as np
import pytest
import scipy.stats as st

import tjit
import tjit.numpy as jnp
from tests.scipy.test_special import assert_close
from tests.transforms.check import check_grads, check_vmap
from tjit.scipy import stats as S

INF, NAN = np.inf, np.nan
X = np.array([-1e3, -50, -8, -1, -0.3, 0, 0.05, 0.1, 0.2, 0.5, 0.99, 1, 1.4, 2, 7, 40, 1e3,
              INF, -INF, NAN])
Q = np.array([0, 1e-300, 1e-10, 0.3, 0.5, 0.9, 1 - 1e-12, 1, 1.2, -0.1, NAN])
LOC, SCALE = 0.1, 1.3

CONTINUOUS = {  # name -> (shape args, rtol)
    "norm": ((), 1e-13), "t": ((3.5,), 1e-13), "beta": ((2.0, 0.7), 1e-12),
    "gamma": ((2.5,), 1e-13), "chi2": ((3.0,), 1e-13), "uniform": ((), 1e-15),
    "expon": ((), 4e-15), "laplace": ((), 4e-15), "logistic": ((), 1e-14),
    "cauchy": ((), 1e-14), "truncnorm": ((-1.0, 2.0), 1e-13),
}
FUNCS = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_against_scipy(name, x64):
    args, rtol = CONTINUOUS[name]
    mod, ref = getattr(S, name), getattr(st, name)
    tested = 0
    for fn in FUNCS:
        if not hasattr(mod, fn):
            continue
        pts = Q if fn in ("ppf", "isf") else X
        with np.errstate(all="ignore"):
            want = getattr(ref, fn)(pts, *args, loc=LOC, scale=SCALE)
        if (name, fn) == ("laplace", "logpdf"):  # SciPy takes log(pdf), -inf at |x| = 1e3
            want = -np.abs((pts - LOC) / SCALE) - np.log(2 * SCALE)
        if (name, fn) == ("gamma", "logsf"):  # SciPy takes log(sf), -inf at x = 1e3 (mpmath)
            want = np.where(pts == 1e3, -759.46864294972536, want)
        assert_close(getattr(mod, fn)(pts, *args, loc=LOC, scale=SCALE), want, rtol,
                     atol=1e-300)
        tested += 1
    assert tested >= 2


def test_tails_keep_accuracy(x64):
    """Far tails where a naive formula rounds to 0, 1 or log(1) = 0."""
    x = np.array([-30.0, -8, 8, 30])
    assert_close(S.norm.logsf(x), st.norm.logsf(x), 1e-13)
    assert_close(S.norm.logcdf(x), st.norm.logcdf(x), 1e-13)
    assert_close(S.norm.isf(np.array([1e-300, 1e-20])), st.norm.isf([1e-300, 1e-20]), 1e-14)
    assert_close(S.gamma.logcdf(np.array([40.0, 80.0]), 2.0), st.gamma.logcdf([40.0, 80.0], 2.0),
                 1e-12)
    assert_close(S.cauchy.cdf(np.array([-1e10, -1e200])), st.cauchy.cdf([-1e10, -1e200]), 1e-14)
    assert_close(S.cauchy.ppf(np.array([1e-300, 1e-12])), st.cauchy.ppf([1e-300, 1e-12]), 1e-14)
    # truncation windows far in either tail (log(ndtr(b) - ndtr(a)) would be log(0))
    for a, b in [(10.0, 12.0), (-40.0, -38.0), (-1.0, 30.0)]:
        x = np.array([a, (a + b) / 2, b - 1e-3])
        for fn in ("logpdf", "logcdf", "logsf"):
            assert_close(getattr(S.truncnorm, fn)(x, a, b), getattr(st.truncnorm, fn)(x, a, b),
                         1e-9, atol=1e-12)


def test_discrete_against_scipy(x64):
    k = np.array([-1.0, 0, 1, 2, 3, 2.5, 10, 11, 1e4, NAN])
    for fn in ("logpmf", "pmf"):
        assert_close(getattr(S.bernoulli, fn)(k, 0.3), getattr(st.bernoulli, fn)(k, 0.3), 1e-15)
        assert_close(getattr(S.bernoulli, fn)(k, 0.3, loc=1),
                     getattr(st.bernoulli, fn)(k, 0.3, loc=1), 1e-15)
        assert_close(getattr(S.binom, fn)(k, 10, 0.3), getattr(st.binom, fn)(k, 10, 0.3), 1e-13)
        assert_close(getattr(S.binom, fn)(k, 10, 0.0), getattr(st.binom, fn)(k, 10, 0.0), 1e-13)
        assert_close(getattr(S.poisson, fn)(k, 2.5), getattr(st.poisson, fn)(k, 2.5), 1e-13)
        assert_close(getattr(S.poisson, fn)(k, 2.5, loc=2),
                     getattr(st.poisson, fn)(k, 2.5, loc=2), 1e-13)
    assert_close(S.bernoulli.cdf(k, 0.3), st.bernoulli.cdf(k, 0.3), 1e-15)
    assert_close(S.poisson.cdf(k, 2.5), st.poisson.cdf(k, 2.5), 1e-14)
    q = np.array([0, 0.5, 0.7, 0.71, 1, NAN, -1])
    assert_close(S.bernoulli.ppf(q, 0.3), st.bernoulli.ppf(q, 0.3), 0)


def test_multivariate(x64, rng):
    A = rng.normal(size=(3, 3))
    cov, mean, x = A @ A.T + np.eye(3), rng.normal(size=3), rng.normal(size=(4, 3))
    for c in (cov, 2.0):
        assert_close(S.multivariate_normal.logpdf(x, mean, c),
                     st.multivariate_normal.logpdf(x, mean, c), 1e-13)
    assert_close(S.multivariate_normal.pdf(x, mean, cov), st.multivariate_normal.pdf(x, mean, cov),
                 1e-13)
    assert_close(S.multivariate_normal.logpdf(0.3, 0.1, 2.0),
                 st.multivariate_normal.logpdf(0.3, 0.1, 2.0), 1e-14)
    with pytest.raises(ValueError, match="cov must have shape"):
        S.multivariate_normal.logpdf(x, mean, np.eye(2))
    alpha = np.array([0.5, 2.0, 3.0])
    xs = rng.dirichlet(alpha, size=4).T
    assert_close(S.dirichlet.logpdf(xs, alpha), st.dirichlet.logpdf(xs, alpha), 1e-13)
    assert_close(S.dirichlet.pdf(xs[:2], alpha), st.dirichlet.pdf(xs, alpha), 1e-12)
    assert float(S.dirichlet.logpdf(np.array([0.5, 0.6, -0.1]), alpha)) == -INF
    with pytest.raises(ValueError, match="entries along its"):
        S.dirichlet.logpdf(xs[:1], alpha)
    th = np.array([-3.0, -1, 0, 0.5, 3])
    for kappa in (0.1, 2.0, 500.0):
        assert_close(S.vonmises.logpdf(th, kappa), st.vonmises.logpdf(th, kappa), 1e-12)
        assert_close(S.vonmises.pdf(th, kappa), st.vonmises.pdf(th, kappa), 1e-12)


def test_gaussian_kde(x64, rng):
    data, w, pts = rng.normal(size=(2, 30)), rng.uniform(size=30), rng.normal(size=(2, 5))
    for bw in (None, "silverman", 0.4, lambda k: 0.5):
        k, r = S.gaussian_kde(data, bw_method=bw, weights=w), st.gaussian_kde(data, bw, w)
        assert_close(k.evaluate(pts), r.evaluate(pts), 1e-13)
        assert_close(k(pts), r(pts), 1e-13)
        assert_close(k.logpdf(pts), r.logpdf(pts), 1e-13)
        assert_close(k.integrate_gaussian(np.zeros(2), np.eye(2)),
                     r.integrate_gaussian(np.zeros(2), np.eye(2)), 1e-13)
    k1, r1 = S.gaussian_kde(data[0]), st.gaussian_kde(data[0])
    k2, r2 = S.gaussian_kde(data[1]), st.gaussian_kde(data[1])
    assert_close(k1.integrate_box_1d(-0.5, 1.0), r1.integrate_box_1d(-0.5, 1.0), 1e-13)
    assert_close(k1.integrate_kde(k2), r1.integrate_kde(r2), 1e-13)
    assert_close(k1.logpdf(np.array([50.0])), r1.logpdf([50.0]), 1e-12)  # pdf underflows
    s = k1.resample(tjit.random.PRNGKey(0), (2000,))
    assert s.shape == (1, 2000)
    assert abs(float(jnp.mean(s)) - float(np.mean(data[0]))) < 0.1
    # a kde is a pytree: built, passed and evaluated under jit
    kj = tjit.jit(lambda d, p: S.gaussian_kde(d).logpdf(p))(data, pts)
    assert_close(kj, st.gaussian_kde(data).logpdf(pts), 1e-13)
    assert_close(tjit.jit(lambda k, p: k(p))(k1, pts[0]), r1(pts[0]), 1e-13)
    with pytest.raises(ValueError, match="bw_method"):
        S.gaussian_kde(data, bw_method="wide")
    with pytest.raises(ValueError, match="dimension"):
        k1.evaluate(pts[:, None])


def test_mode_and_rankdata(x64, rng):
    a = rng.integers(0, 4, size=(5, 7)).astype(float)
    for axis in (0, 1, None):
        m, r = S.mode(a, axis=axis), st.mode(a, axis=axis)
        np.testing.assert_array_equal(m.mode, r.mode)
        np.testing.assert_array_equal(m.count, r.count)
    m, r = S.mode(a, axis=1, keepdims=True), st.mode(a, axis=1, keepdims=True)
    np.testing.assert_array_equal(m.mode, r.mode)
    for method in ("average", "min", "max", "dense", "ordinal"):
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(S.rankdata(a, method, axis=axis),
                                          st.rankdata(a, method, axis=axis))
    b = a.copy()
    b[1, 2] = NAN
    np.testing.assert_array_equal(S.rankdata(b, axis=1), st.rankdata(b, axis=1))
    with pytest.raises(ValueError, match="unknown method"):
        S.rankdata(a, "mean")


GRADS = {  # finite differences in float64
    "norm": (lambda x, m, s: S.norm.logpdf(x, m, s) + S.norm.logcdf(x, m, s) + S.norm.ppf(
        S.norm.cdf(x) * 0.9 + 0.05, m, s), (np.array([-9.0, 0.3, 2.0]), 0.2, 1.5)),
    "t": (lambda x, df: S.t.logpdf(x, df, 0.1, 2.0), (np.array([-3.0, 0.4, 7.0]), 4.5)),
    "beta": (lambda x, a, b: S.beta.logpdf(x, a, b) + S.beta.cdf(x, 2.0, 3.0),
             (np.array([0.1, 0.5, 0.8]), 2.0, 0.7)),
    "gamma": (lambda x, a: S.gamma.logpdf(x, a, 0.0, 2.0) + S.gamma.cdf(x, a) + S.chi2.logsf(x, a),
              (np.array([0.3, 2.0, 9.0]), 2.5)),
    "others": (lambda x: S.expon.logcdf(x) + S.laplace.cdf(x) + S.logistic.logpdf(x) +
               S.cauchy.logsf(x) + S.truncnorm.logcdf(x, -1.0, 2.5) + S.vonmises.logpdf(x, 3.0),
               (np.array([0.2, 0.8, 1.7]),)),
    "discrete": (lambda p, mu: S.binom.logpmf(3.0, 10.0, p) + S.poisson.logpmf(4.0, mu) +
                 S.bernoulli.logpmf(1.0, p), (np.array([0.2, 0.6]), np.array([0.5, 7.0]))),
    "mvn": (lambda x, m: S.multivariate_normal.logpdf(x, m, np.array([[2.0, 0.3], [0.3, 1.0]])),
            (np.array([[0.3, -1.0], [2.0, 0.5]]), np.array([0.1, 0.2]))),
    "dirichlet": (lambda x, a: S.dirichlet.logpdf(jnp.stack([x, 1 - x]), a),
                  (np.array([0.2, 0.7]), np.array([1.5, 3.0]))),
    "kde": (lambda p: S.gaussian_kde(np.array([[0.0, 1.0, 2.5], [1.0, 0.0, 0.5]])).logpdf(p),
            (np.array([[0.3, 1.0], [2.0, -1.0]]),)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_against_finite_differences(name):
    fn, args = GRADS[name]
    check_grads(fn, args, eps=1e-6, rtol=1e-5, atol=1e-8)


def test_jit_and_vmap(x64, rng):
    x = np.array([-3.0, 0.2, 0.6, 4.0])

    def f(x):
        return [S.norm.logcdf(x), S.t.pdf(x, 3.0), S.beta.logsf(x, 2.0, 3.0),
                S.gamma.sf(x, 2.0), S.truncnorm.logpdf(x, -1.0, 1.0), S.cauchy.ppf(x / 5 + 0.5),
                S.poisson.logpmf(jnp.abs(jnp.round(x)), 2.0), S.expon.logsf(x)]
    for got, want in zip(tjit.jit(f)(x), f(x)):
        assert_close(got, want, 1e-14)
    xs = rng.uniform(0.1, 0.9, (4, 3)).astype(np.float32)
    check_vmap(lambda x, a: S.beta.logpdf(x, a, 2.0) + S.gamma.cdf(x, a) + S.norm.isf(x),
               (xs, xs + 1), rtol=1e-5)
    check_vmap(lambda x: S.multivariate_normal.logpdf(x, jnp.zeros(3), jnp.eye(3) * 2.0),
               (xs,), rtol=1e-5)
