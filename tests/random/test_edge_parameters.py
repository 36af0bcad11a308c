"""tjit.random at the edges of its parameters: invalid or infinite shape parameters of
the gamma family (which must not hang the rejection loop), infinite Poisson rates and
binomial trial counts, and bfloat16 uniforms (JAX draws 8 random bits for mantissas
shorter than 8 bits)."""

import threading

import numpy as np
import pytest
import scipy.stats

import tjit
import tjit.numpy as jnp
from tjit import random

K = random.key(7)
NAN, INF = np.nan, np.inf


def _within(seconds, fn):
    """``fn()``, failing the test (instead of hanging it) if it runs past ``seconds``."""
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("v", fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert "v" in out, f"did not finish within {seconds} s (a rejection loop never ends?)"
    return out["v"]


ALPHAS = np.float32([0.0, -1.0, NAN, INF, -INF, 2.0])
GAMMA_LIMITS = [0.0, NAN, NAN, INF, NAN]  # for the first five alphas


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_gamma_family_with_invalid_or_infinite_parameters_ends(jit):
    wrap = tjit.jit if jit else (lambda f: f)
    g = _within(60, lambda: np.asarray(wrap(lambda a: random.gamma(K, a))(ALPHAS)))
    np.testing.assert_array_equal(g[:5], GAMMA_LIMITS)
    assert np.isfinite(g[5]) and g[5] > 0  # valid entries still sample
    lg = _within(60, lambda: np.asarray(wrap(lambda a: random.loggamma(K, a))(ALPHAS)))
    np.testing.assert_array_equal(lg[:5], [-INF, NAN, NAN, INF, NAN])
    assert np.isfinite(lg[5])
    b = _within(60, lambda: np.asarray(wrap(lambda a: random.beta(K, a, 2.0))(ALPHAS)))
    np.testing.assert_array_equal(b[[0, 1, 2, 4]], [0.0, NAN, NAN, NAN])
    assert 0 < b[5] < 1
    d = _within(60, lambda: np.asarray(random.dirichlet(K, jnp.asarray([0.0, 1.0, 2.0]))))
    assert d[0] == 0 and d.sum() == pytest.approx(1, abs=1e-6)
    d = _within(60, lambda: np.asarray(random.dirichlet(K, jnp.asarray([-1.0, 1.0]))))
    assert np.all(np.isnan(d))
    c = _within(60, lambda: np.asarray(random.chisquare(K, jnp.asarray([NAN, -2.0, 3.0]))))
    assert np.all(np.isnan(c[:2])) and c[2] > 0
    t = _within(60, lambda: np.asarray(random.t(K, jnp.asarray([NAN, -2.0, 3.0]))))
    assert np.all(np.isnan(t[:2])) and np.isfinite(t[2])


def test_poisson_infinite_rate_gives_the_largest_value():
    lam = jnp.asarray([INF, NAN, -1.0, 0.0, 1e10])
    got = _within(60, lambda: np.asarray(random.poisson(K, lam)))
    np.testing.assert_array_equal(got, [2 ** 31 - 1, -1, -1, 0, 2 ** 31 - 1])
    got = np.asarray(random.poisson(K, INF, (3,), dtype=jnp.int8))
    np.testing.assert_array_equal(got, [127, 127, 127])


def test_binomial_infinite_trials():
    got = _within(60, lambda: np.asarray(random.binomial(K, INF, jnp.asarray(
        [0.0, 0.3, 0.9, 1.0, NAN]))))
    np.testing.assert_array_equal(got, [0.0, INF, INF, INF, NAN])
    got = np.asarray(random.binomial(K, jnp.asarray([-1.0, NAN, 5.0]), 0.0))
    np.testing.assert_array_equal(got, [NAN, NAN, 0.0])


def test_bfloat16_uniform_and_normal_match_jax():
    # printed by jax 0.10.2: jax.random.uniform / normal(PRNGKey(0), (8,), bfloat16)
    k = random.PRNGKey(0)
    u = random.uniform(k, (8,), jnp.bfloat16)
    assert u.dtype == jnp.bfloat16
    np.testing.assert_array_equal(np.asarray(u, np.float32), [
        0.6484375, 0.5703125, 0.15625, 0.203125, 0.7109375, 0.2578125, 0.484375, 0.9921875])
    n = random.normal(k, (8,), jnp.bfloat16)
    np.testing.assert_array_equal(np.asarray(n, np.float32), [
        0.38671875, 0.1826171875, -1.0, -0.82421875, 0.5625, -0.64453125, -0.034423828125,
        2.515625])


def test_bfloat16_uniform_takes_each_of_its_128_values_equally_often():
    u = np.asarray(random.uniform(random.key(1), (64_000,), jnp.bfloat16), np.float32)
    counts = np.bincount(np.round(u * 128).astype(int), minlength=128)
    assert counts.size == 128 and counts.min() > 0  # exactly the values j / 128
    assert scipy.stats.chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize("lower,upper", [(3.0, 8.0), (5.0, 6.0), (10.0, 12.0),
                                         (-12.0, -10.0), (2.0, INF), (-INF, -4.0)])
def test_truncated_normal_far_tails_follow_the_distribution(lower, upper):
    # erf(lower / sqrt 2) rounds to 1 in float32 beyond ~5 sigma: the erf_inv formula gave
    # 10 distinct values on (5, 6) and only `upper` on (10, 12)
    x = np.asarray(random.truncated_normal(random.key(1), lower, upper, (20_000,)))
    assert np.all((x > lower) & (x < upper))
    dist = scipy.stats.truncnorm(lower, upper)
    assert scipy.stats.kstest(x, dist.cdf).pvalue > 1e-3
    assert np.unique(x).size > 15_000


def test_truncated_normal_tails_dtypes_broadcasting_jit_and_grad():
    k = random.key(2)
    x = np.asarray(random.truncated_normal(k, jnp.asarray([-1.0, 5.0]), 6.0, (4000, 2)))
    assert x[:, 1].min() > 5 and x[:, 1].mean() == pytest.approx(
        scipy.stats.truncnorm(5, 6).mean(), abs=0.01)
    for dt in (jnp.float16, jnp.bfloat16):
        y = np.asarray(random.truncated_normal(k, 5.0, 6.0, (4000,), dt), np.float32)
        assert y.min() > 5 and y.max() < 6 and np.unique(y).size > 20
    f = lambda k: random.truncated_normal(k, 5.0, 6.0, (3,))
    np.testing.assert_allclose(tjit.jit(f)(k), f(k), rtol=1e-6)
    # d E[x] / d lower, from many samples, against SciPy's mean by differences
    g = float(tjit.grad(lambda lo: random.truncated_normal(k, lo, 6.0, (100_000,)).mean())(5.0))
    h = 1e-3
    want = (scipy.stats.truncnorm(5 + h, 6).mean() - scipy.stats.truncnorm(5 - h, 6).mean()) / (2 * h)
    assert g == pytest.approx(want, rel=0.01)
