"""Gradients of gamma-family samples with respect to their shape parameters.

As in JAX, a sample moves with ``alpha`` so that its CDF value stays fixed (implicit
reparameterization), so the reference for each sample ``x`` is a central difference of
SciPy's inverse CDF, ``gammaincinv(alpha +- h, gammainc(alpha, x))``, in float64.
Beta/Dirichlet/chi-square gradients are checked for unbiasedness: the mean of the
per-sample gradients against the derivative of the distribution's mean.
"""

import numpy as np
import pytest
import scipy.special as sp

import tjit
from tjit import lax, random

KEY = random.key(3)


def _dx_dalpha(alpha, x):
    """d x / d alpha at fixed u = P(alpha, x), by central differences of the inverse."""
    x = np.asarray(x, np.float64)
    u = sp.gammainc(alpha, x)
    h = 1e-5 * alpha
    return (sp.gammaincinv(alpha + h, u) - sp.gammaincinv(alpha - h, u)) / (2 * h)


@pytest.mark.parametrize("alpha", [1e-3, 0.3, 2.5, 30.0, 1e4, 1e7])
def test_random_gamma_grad_matches_inverse_cdf_differences(alpha):
    x = np.asarray(sp.gammaincinv(alpha, np.array([0.01, 0.3, 0.5, 0.9, 0.999])))
    x = x.astype(np.float32)
    a = np.full_like(x, alpha)
    want = _dx_dalpha(alpha, x)
    np.testing.assert_allclose(lax.random_gamma_grad(a, x), want, rtol=2e-4)
    np.testing.assert_allclose(tjit.jit(lax.random_gamma_grad)(a, x), want, rtol=2e-4)
    by_row = tjit.vmap(lax.random_gamma_grad)(a, x)
    np.testing.assert_allclose(by_row, want, rtol=2e-4)


def test_random_gamma_grad_edges():
    got = np.asarray(lax.random_gamma_grad(np.float32([2.0, 2.0, 0.0, np.nan]),
                                           np.float32([0.0, -1.0, 1.0, 1.0])))
    assert got[0] == 0.0  # x = 0: as JAX
    assert np.all(np.isnan(got[1:]))  # outside the domain


@pytest.mark.parametrize("alpha", [0.05, 0.3, 2.5, 300.0])
def test_gamma_sample_grad_is_implicit_reparameterization(alpha):
    def f(a):
        return random.gamma(KEY, a, (64,))

    x = np.asarray(f(alpha))
    want = _dx_dalpha(alpha, x)
    np.testing.assert_allclose(tjit.jacfwd(f)(alpha), want, rtol=1e-4, atol=1e-30)
    np.testing.assert_allclose(tjit.jacrev(f)(alpha), want, rtol=1e-4, atol=1e-30)
    np.testing.assert_allclose(tjit.jit(tjit.jacrev(f))(alpha), want, rtol=1e-4, atol=1e-30)


def test_grad_under_vmap_over_alphas_and_keys_matches_a_loop():
    alphas = np.float32([0.2, 1.0, 4.0, 50.0])
    keys = random.split(KEY, 4)
    per_elem = tjit.vmap(tjit.grad(lambda k, a: random.gamma(k, a), argnums=1))
    got = per_elem(keys, alphas)
    one = tjit.grad(lambda a, k: random.gamma(k, a))
    want = [float(one(a, k)) for k, a in zip(keys, alphas)]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    x = np.asarray(tjit.vmap(random.gamma)(keys, alphas))
    np.testing.assert_allclose(got, [_dx_dalpha(float(a), xi) for a, xi in zip(alphas, x)],
                               rtol=1e-4)


def test_loggamma_grad_where_the_sample_underflows():
    # alpha = 0.005: most float32 samples exp(log x) are below the smallest normal float
    alpha = 0.005

    def f(a):
        return random.loggamma(KEY, a, (32,))

    log_x = np.asarray(f(alpha), np.float64)
    # the reference needs x normal in float64: 2/3 of these are, and most of those are
    # below float32's smallest normal number
    ok = log_x > np.log(1e-300)
    assert ok.sum() > 20 and np.mean(log_x[ok] < np.log(np.finfo(np.float32).tiny)) > 0.5
    u = sp.gammainc(alpha, np.exp(log_x[ok]))
    h = 1e-6 * alpha
    want = (np.log(sp.gammaincinv(alpha + h, u)) - np.log(sp.gammaincinv(alpha - h, u))) / (2 * h)
    np.testing.assert_allclose(np.asarray(tjit.jacfwd(f)(alpha))[ok], want, rtol=1e-4)


N = 200_000  # mean gradients: standard errors ~1e-3 relative


def _mean_grad(sample, at):
    return float(tjit.grad(lambda p: sample(p).mean())(at))


def test_mean_gradients_are_unbiased():
    k = random.key(11)
    # d E[Gamma(a)] / da = 1, also for a < 1 (boosted samples)
    assert _mean_grad(lambda a: random.gamma(k, a, (N,)), 0.3) == pytest.approx(1, abs=5e-3)
    # E[Beta(a, b)] = a / (a + b)
    a, b = 0.7, 2.0
    got = _mean_grad(lambda p: random.beta(k, p, b, (N,)), a)
    assert got == pytest.approx(b / (a + b) ** 2, rel=1e-2)
    # E[Dirichlet(alpha)_0] = alpha_0 / sum(alpha)
    rest = np.float32([1.0, 2.0])
    got = _mean_grad(
        lambda p: random.dirichlet(k, tjit.numpy.concatenate([p[None], rest]), (N,))[:, 0],
        np.float32(0.5))
    assert got == pytest.approx(3.0 / 3.5 ** 2, rel=1e-2)
    # E[chi2(df)] = df
    assert _mean_grad(lambda d: random.chisquare(k, d, (N,)), 3.0) == pytest.approx(1, abs=5e-3)


def test_second_derivative_raises_clearly():
    with pytest.raises(ValueError, match="random_gamma_grad"):
        tjit.grad(tjit.grad(lambda a: random.gamma(KEY, a)))(2.0)
