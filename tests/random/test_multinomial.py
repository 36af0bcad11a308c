"""random.multinomial: counts add up to n; the sample distribution matches the
multinomial pmf (chi-square over every outcome for small n) and its moments (means and
covariances -n p_i p_j for large n, where the binomials take the BTRS path), with
tolerances from the sample size; jit and vmap give the eager values."""

import itertools
import math

import numpy as np
import pytest
import scipy.stats

import tjit
import tjit.numpy as jnp
from tjit import random

KEY = random.key(0)


def test_small_n_matches_the_pmf_by_chi_square():
    n, p, draws = 3, np.array([0.2, 0.3, 0.5]), 30000
    x = np.asarray(random.multinomial(KEY, n, jnp.asarray(p), shape=(draws, 3)))
    assert x.shape == (draws, 3) and x.dtype == np.float32
    np.testing.assert_array_equal(x.sum(-1), n)
    outcomes = [c for c in itertools.product(range(n + 1), repeat=3) if sum(c) == n]
    observed = np.array([np.all(x == c, axis=1).sum() for c in outcomes])
    pmf = np.array([math.factorial(n) / np.prod([math.factorial(k) for k in c])
                    * np.prod(p ** np.array(c)) for c in outcomes])
    stat = ((observed - draws * pmf) ** 2 / (draws * pmf)).sum()
    # 10 outcomes: 9 degrees of freedom; a correct sampler fails with probability 1e-4
    assert scipy.stats.chi2.sf(stat, len(outcomes) - 1) > 1e-4, stat


def test_large_n_moments():
    n, p, draws = 50.0, np.array([0.1, 0.2, 0.3, 0.4]), 20000
    x = np.asarray(random.multinomial(random.key(1), n, jnp.asarray(p), shape=(draws, 4)),
                   np.float64)
    np.testing.assert_array_equal(x.sum(-1), n)
    var = n * p * (1 - p)
    # 5 standard errors of the sample mean
    assert np.all(np.abs(x.mean(0) - n * p) < 5 * np.sqrt(var / draws))
    cov = np.cov(x, rowvar=False)
    want = -n * np.outer(p, p) + np.diag(n * p)
    # standard error of a sample covariance of near-normal counts: sqrt((vi vj + c^2) / N)
    se = np.sqrt((np.outer(var, var) + want ** 2) / draws)
    assert np.all(np.abs(cov - want) < 5 * se), (cov, want)


def test_batched_n_zero_probabilities_and_dtype():
    p = jnp.asarray([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    x = np.asarray(random.multinomial(KEY, jnp.asarray([4.0, 7.0]), p, dtype=jnp.int32))
    assert x.dtype == np.int32
    np.testing.assert_array_equal(x.sum(-1), [4, 7])
    assert x[0, 0] == 0 and list(x[1]) == [7, 0, 0]
    with pytest.raises(ValueError, match=r"p of shape \(3,\) does not broadcast to \(4,\)"):
        random.multinomial(KEY, 10, jnp.asarray([0.2, 0.3, 0.5]), shape=(4,))


def test_jit_and_vmap_give_the_eager_values():
    p = jnp.asarray([0.2, 0.3, 0.5])
    eager = random.multinomial(KEY, 10, p)
    np.testing.assert_array_equal(np.asarray(tjit.jit(
        lambda k: random.multinomial(k, 10, p))(KEY)), np.asarray(eager))
    keys = random.split(KEY, 4)
    batched = tjit.vmap(lambda k: random.multinomial(k, 6, p))(keys)
    loop = np.stack([np.asarray(random.multinomial(k, 6, p)) for k in keys])
    np.testing.assert_array_equal(np.asarray(batched), loop)
