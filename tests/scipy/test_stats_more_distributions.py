"""The distributions jax.scipy.stats has beyond the first set (gumbel_r, gumbel_l,
pareto, gennorm, wrapcauchy, geom, nbinom, betabinom, multinomial) and
poisson.entropy, against scipy.stats in float64: fixed edge points and random
parameters; jit against eager; gradients against finite differences; parameters
outside the domain give NaN, as SciPy."""

import warnings

import numpy as np
import pytest
import scipy.stats as st

import tjit
from tests.scipy.test_special import assert_close
from tests.transforms.check import check_grads, check_vmap
from tjit.scipy import stats as S

INF, NAN = np.inf, np.nan
X = np.array([-1e3, -50, -8, -1, -0.3, 0, 0.05, 0.5, 1, 1.4, 2, 3, 7, 40, 1e3, INF, -INF,
              NAN])
Q = np.array([0, 1e-300, 1e-10, 0.3, 0.5, 0.9, 1 - 1e-12, 1, 1.2, -0.1, NAN])
RNG = np.random.default_rng(7)

CONTINUOUS = {  # name -> (function names, shape-parameter sampler, rtol)
    "gumbel_r": (("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"),
                 lambda: (), 1e-12),
    "gumbel_l": (("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"),
                 lambda: (), 1e-12),
    "pareto": (("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"),
               lambda: (RNG.uniform(0.3, 4.0),), 1e-12),
    "gennorm": (("logpdf", "pdf", "cdf"), lambda: (RNG.uniform(0.5, 4.0),), 1e-11),
    "wrapcauchy": (("logpdf", "pdf"), lambda: (RNG.uniform(0.05, 0.95),), 1e-12),
}


def _scipy(ref, fn, pts, args, loc, scale):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(ref, fn)(pts, *args, loc=loc, scale=scale)
    # SciPy takes the log of a probability that underflows (-inf); the log itself is
    # -|y| to float64 rounding there
    y = (pts - loc) / scale
    if (ref, fn) == (st.gumbel_r, "logsf"):
        want = np.where(np.isfinite(y) & (y > 700), -y, want)
    if (ref, fn) == (st.gumbel_l, "logcdf"):
        want = np.where(np.isfinite(y) & (y < -700), y, want)
    return want


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_continuous_against_scipy(name, x64):
    fns, sample, rtol = CONTINUOUS[name]
    mod, ref = getattr(S, name), getattr(st, name)
    for trial in range(3):
        args = sample()
        loc, scale = (0.0, 1.0) if trial == 0 else (RNG.uniform(-1, 1), RNG.uniform(0.5, 2))
        for fn in fns:
            pts = Q if fn == "ppf" else X
            got = getattr(mod, fn)(pts, *args, loc=loc, scale=scale)
            assert_close(got, _scipy(ref, fn, pts, args, loc, scale), rtol, atol=1e-300)


def test_tails(x64):
    """Tails where ``1 - exp(..)`` or ``log(1 - ..)`` would round away."""
    x = np.array([-40.0, -5, 5, 40, 700])
    for name in ("gumbel_r", "gumbel_l"):
        for fn in ("cdf", "logcdf", "sf", "logsf"):
            assert_close(getattr(getattr(S, name), fn)(x), getattr(getattr(st, name), fn)(x),
                         1e-12, atol=1e-300)
    x = 1 + np.array([1e-12, 1e-6, 1e3])
    assert_close(S.pareto.cdf(x, 2.0), st.pareto.cdf(x, 2.0), 1e-9)
    assert_close(S.gennorm.cdf(np.array([-6.0, -3]), 2.0), st.gennorm.cdf([-6.0, -3], 2.0),
                 1e-11)


def test_parameters_outside_domain_are_nan(x64):
    assert np.isnan(S.gumbel_r.logpdf(1.0, scale=-1.0))
    assert np.isnan(S.gumbel_l.cdf(1.0, scale=0.0))
    assert np.isnan(S.pareto.pdf(2.0, -1.0))
    assert np.isnan(S.gennorm.cdf(1.0, 0.0))
    for c in (0.0, 1.0, 1.5):
        assert np.isnan(S.wrapcauchy.pdf(1.0, c))
    assert np.isnan(S.geom.pmf(2, 1.5))
    assert np.isnan(S.nbinom.pmf(2, -1.0, 0.5))
    assert np.isnan(S.betabinom.pmf(2, 5.5, 1.0, 1.0))
    assert np.isnan(S.multinomial.pmf(np.array([1, 1]), 2, np.array([1.5, -0.5])))
    assert np.isnan(S.poisson.entropy(-1.0))


K = np.array([-1.0, 0, 1, 2, 3, 2.5, 7, 10, 11, 200, NAN])


def test_discrete_against_scipy(x64):
    for trial in range(4):
        p = RNG.uniform(0.05, 0.95)
        n_real, n_int = RNG.uniform(0.3, 8.0), float(RNG.integers(0, 12))
        a, b = RNG.uniform(0.2, 5.0), RNG.uniform(0.2, 5.0)
        loc = 0.0 if trial < 2 else float(RNG.integers(-2, 3))
        for fn in ("logpmf", "pmf"):
            cases = [(S.geom, st.geom, (p,)), (S.nbinom, st.nbinom, (n_real, p)),
                     (S.betabinom, st.betabinom, (n_int, a, b))]
            for mod, ref, args in cases:
                with np.errstate(all="ignore"):
                    want = getattr(ref, fn)(K, *args, loc=loc)
                assert_close(getattr(mod, fn)(K, *args, loc=loc), want, 1e-11, atol=1e-300)
    # the support's edges: p = 1 (geom, nbinom) and n = 0 (betabinom)
    assert_close(S.geom.pmf(K, 1.0), st.geom.pmf(K, 1.0), 1e-15)
    assert_close(S.nbinom.logpmf(K, 3.0, 1.0), st.nbinom.logpmf(K, 3.0, 1.0), 1e-15)
    assert_close(S.betabinom.pmf(K, 0.0, 2.0, 3.0), st.betabinom.pmf(K, 0.0, 2.0, 3.0), 1e-15)


def test_multinomial_against_scipy(x64):
    p = RNG.dirichlet(np.ones(4), size=3)  # (3, 4)
    x = np.array([[1, 0, 2, 3], [0, 0, 6, 0], [2, 2, 1, 1]])
    n = x.sum(-1)
    for fn in ("logpmf", "pmf"):
        assert_close(getattr(S.multinomial, fn)(x, n, p), getattr(st.multinomial, fn)(x, n, p),
                     1e-12)
        # counts not summing to n, negative or non-integer counts: probability 0
        bad = np.array([[1.0, 0, 2, 2], [-1, 1, 6, 0], [2.5, 1.5, 1, 1]])
        with np.errstate(all="ignore"):
            want = getattr(st.multinomial, fn)(bad, n, p)
        assert_close(getattr(S.multinomial, fn)(bad, n, p), want, 1e-12)
    with pytest.raises(ValueError, match="multinomial.logpmf: x .* and p .* categories"):
        S.multinomial.logpmf(x, n, p[:, :3])


def test_poisson_entropy(x64):
    mu = np.array([0.0, 1e-8, 0.3, 1.0, 5.0, 10.0, 49.9, 50.0, 99.0, 100.0, 150.0, 1e4,
                   1e6])
    # SciPy's sum stops converging for large mu (1e4: 6.0216; 1e8: 0.41): the reference
    # there is the float64 sum of -p log p over mu +- 40 standard deviations
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "expect(): sum did not converge"
        want = st.poisson.entropy(mu)
    for i in (-2, -1):
        k = np.arange(max(0, int(mu[i] - 40 * mu[i] ** 0.5)), int(mu[i] + 40 * mu[i] ** 0.5))
        logp = st.poisson.logpmf(k, mu[i])
        want[i] = -np.sum(np.exp(logp) * logp)
    assert_close(S.poisson.entropy(mu), want, 1e-9, atol=1e-300)
    assert_close(S.poisson.entropy(mu, loc=3), want, 1e-9, atol=1e-300)
    assert S.poisson.entropy(mu[:, None], np.zeros(2)).shape == (13, 2)
    got32 = S.poisson.entropy(mu.astype(np.float32))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, want, rtol=2e-5, atol=1e-6)


def test_jit_float32_grad_vmap():
    x = np.linspace(-2.0, 5.0, 9)
    cases = [(S.gumbel_r.logcdf, (x,)), (S.gumbel_l.logsf, (x,)),
             (S.pareto.logpdf, (x + 4, 2.5)), (S.gennorm.cdf, (x, 1.7)),
             (S.wrapcauchy.logpdf, (np.abs(x), 0.4)), (S.geom.logpmf, (np.arange(1.0, 6), 0.3)),
             (S.nbinom.logpmf, (np.arange(6.0), 2.5, 0.4)),
             (S.betabinom.logpmf, (np.arange(6.0), 6.0, 1.5, 2.5)),
             (S.poisson.entropy, (np.array([0.5, 4.0, 70.0]),))]
    for fn, args in cases:
        args32 = tuple(np.asarray(a, np.float32) for a in args)
        eager = fn(*args32)
        assert eager.dtype == np.float32
        np.testing.assert_allclose(tjit.jit(fn)(*args32), eager, rtol=2e-6, atol=1e-6)
        check_vmap(fn, args32, in_axes=(0,) + (None,) * (len(args) - 1), rtol=2e-6,
                   atol=1e-6)
    check_grads(lambda loc: S.gumbel_r.logpdf(x, loc, 1.5), (0.3,))
    check_grads(lambda b: S.pareto.logsf(x + 4, b), (2.5,))
    check_grads(lambda beta: S.gennorm.logpdf(x, beta), (1.7,))
    check_grads(lambda p: S.nbinom.logpmf(np.arange(6.0), 2.5, p), (0.4,))
    check_grads(lambda a: S.betabinom.logpmf(np.arange(6.0), 6.0, a, 2.5), (1.5,))
    check_grads(lambda p: S.multinomial.logpmf(np.array([1, 2, 3]), 6, p),
                (np.array([0.2, 0.3, 0.5]),))
    check_grads(S.poisson.entropy, (np.array([0.5, 4.0, 70.0]),))
