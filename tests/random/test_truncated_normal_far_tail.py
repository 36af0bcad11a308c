"""truncated_normal far in the tails (beyond where ndtr of the bounds underflows: ~13
sigma in float32, ~37 in float64): samples in bounds, distinct, following the tail law
(KS against scipy.stats.truncnorm) and each equal to the exact inverse of the truncated
CDF at its uniform (mpmath, 50 digits)."""

import mpmath
import numpy as np
import pytest
import scipy.stats

import tjit
from tjit import random

INF = np.inf


# (the tail's scale is 1 / |bound|: how many float32 values it spans bounds the number of
# distinct samples; the old inversion gave 1)
@pytest.mark.parametrize("lower,upper,distinct", [(15.0, 20.0, 15_000), (-20.0, -15.0, 15_000),
                                                  (30.0, INF, 12_000), (-INF, -50.0, 8_000)])
def test_float32_far_tails_follow_the_distribution(lower, upper, distinct):
    x = np.asarray(random.truncated_normal(random.key(2), lower, upper, (20_000,)))
    assert x.dtype == np.float32
    assert np.all((x > lower) & (x < upper))
    assert np.unique(x).size > distinct
    dist = scipy.stats.truncnorm(lower, upper)
    assert scipy.stats.kstest(x.astype(np.float64), dist.cdf).pvalue > 1e-3


def _exact_inverse(u, a, b):
    """x in (a, b) with (Q(a) - Q(x)) = u (Q(a) - Q(b)), Q the normal survival function."""
    def q(x):
        return mpmath.erfc(x / mpmath.sqrt(2)) / 2 if x != INF else mpmath.mpf(0)
    qa, qb = q(mpmath.mpf(a)), q(mpmath.mpf(b) if b != INF else INF)
    target = qa - mpmath.mpf(u) * (qa - qb)
    hi = b if b != INF else a + 60 / a
    return mpmath.findroot(lambda x: mpmath.log(q(x)) - mpmath.log(target),
                           (mpmath.mpf(a), mpmath.mpf(hi)), solver="anderson")


@pytest.mark.parametrize("lower,upper,dtype", [(40.0, 45.0, np.float64), (15.0, INF, np.float32),
                                               (-1e4, -2.0, np.float64), (2.0, 2.5, np.float64),
                                               (1e3, INF, np.float32)])
def test_samples_are_the_exact_inverse_of_the_tail_cdf(lower, upper, dtype, x64):
    # the tail's uniform is uniform(key) itself; the left tail is the mirror of the right
    key = random.key(7)
    x = np.asarray(random.truncated_normal(key, lower, upper, (12,), dtype), np.float64)
    u = np.asarray(random.uniform(key, (12,), dtype), np.float64)
    a, b, sign = (lower, upper, 1) if lower > 0 else (-upper, -lower, -1)
    with mpmath.workdps(50):
        want = np.array([sign * float(_exact_inverse(v, a, b)) for v in u])
    np.testing.assert_allclose(x, want, rtol=4 * np.finfo(dtype).eps)


def test_far_tail_jit_vmap_and_grad():
    k = random.key(2)
    f = lambda k: random.truncated_normal(k, 15.0, 20.0, (3,))
    np.testing.assert_allclose(tjit.jit(f)(k), f(k), rtol=1e-6)
    keys = random.split(k, 3)
    loop = np.stack([np.asarray(random.truncated_normal(kk, 15.0, 20.0, ())) for kk in keys])
    np.testing.assert_allclose(
        tjit.vmap(lambda kk: random.truncated_normal(kk, 15.0, 20.0, ()))(keys), loop, rtol=1e-6)
    # d E[x] / d lower, from many samples, against SciPy's mean by differences
    g = float(tjit.grad(lambda lo: random.truncated_normal(k, lo, 20.0, (100_000,)).mean())(15.0))
    h = 1e-3
    want = (scipy.stats.truncnorm(15 + h, 20).mean() -
            scipy.stats.truncnorm(15 - h, 20).mean()) / (2 * h)
    assert g == pytest.approx(want, rel=1e-3)
