"""tjit.numpy.random (NumPy's stateful API on tjit.random keys) and the poisson/binomial
samplers of tjit.random: reproducible per seed, moments and frequencies within
statistical bounds (fixed seeds, bounds of 5 standard errors or more), the error inside
jit."""

import numpy as np
import pytest
import scipy.stats as st

import tjit
import tjit.numpy as jnp
from tjit import random as jr

N = 20000


def _mean_ok(x, mean, var, k=5.0):
    x = np.asarray(x, np.float64)
    assert abs(x.mean() - mean) < k * np.sqrt(var / x.size), (x.mean(), mean)


def _freq_ok(x, pmf, support):
    """Observed frequencies of each value within 5 binomial standard errors (+1e-3)."""
    x = np.asarray(x)
    for v in support:
        p = pmf(v)
        f = np.mean(x == v)
        assert abs(f - p) < 5 * np.sqrt(p * (1 - p) / x.size) + 1e-3, (v, f, p)


def test_same_seed_same_sequence_and_different_seeds_differ():
    a, b = jnp.random.default_rng(7), jnp.random.default_rng(7)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(a.normal(size=5)), np.asarray(b.normal(size=5)))
        np.testing.assert_array_equal(np.asarray(a.integers(0, 9, 5)),
                                      np.asarray(b.integers(0, 9, 5)))
    x1, x2 = a.random(4), a.random(4)  # the state advances
    assert not np.array_equal(np.asarray(x1), np.asarray(x2))
    assert not np.array_equal(np.asarray(jnp.random.default_rng(8).random(4)),
                              np.asarray(jnp.random.default_rng(9).random(4)))
    jnp.random.seed(3)
    u = jnp.random.rand(2, 3)
    jnp.random.seed(3)
    np.testing.assert_array_equal(np.asarray(jnp.random.rand(2, 3)), np.asarray(u))
    assert u.shape == (2, 3) and u.dtype == jnp.float32
    assert jnp.random.default_rng(a) is a


def test_shapes_dtypes_and_broadcasting():
    rng = jnp.random.default_rng(0)
    assert rng.random().shape == () and rng.random(3).shape == (3,)
    assert rng.normal(jnp.zeros((2, 1)), jnp.ones(3)).shape == (2, 3)
    assert rng.uniform(0, 1, size=(4, 2)).shape == (4, 2)
    assert rng.integers(5, size=3).dtype == jnp.int32
    assert rng.binomial(10, 0.5, 3).dtype == jnp.int32
    assert rng.choice(jnp.arange(10.0), (2, 2)).shape == (2, 2)
    p = rng.permutation(10)
    assert sorted(np.asarray(p).tolist()) == list(range(10))
    x = np.arange(12).reshape(4, 3)
    s = rng.shuffle(x)  # a new array; the input is untouched
    assert sorted(map(tuple, np.asarray(s).tolist())) == sorted(map(tuple, x.tolist()))
    np.testing.assert_array_equal(x, np.arange(12).reshape(4, 3))
    q = np.asarray(rng.permuted(x, axis=1))
    assert all(sorted(r) == sorted(o) for r, o in zip(q.tolist(), x.tolist()))
    c = np.asarray(rng.choice(6, 6, replace=False))
    assert sorted(c.tolist()) == list(range(6))
    e = np.asarray(rng.integers(1, 3, size=2000, endpoint=True))
    assert set(e.tolist()) == {1, 2, 3}


@pytest.mark.parametrize("name,args,mean,var", [
    ("random", (), 0.5, 1 / 12), ("standard_normal", (), 0.0, 1.0),
    ("normal", (2.0, 3.0), 2.0, 9.0), ("uniform", (-1.0, 3.0), 1.0, 16 / 12),
    ("exponential", (2.0,), 2.0, 4.0), ("gamma", (3.0, 0.5), 1.5, 0.75),
    ("beta", (2.0, 5.0), 2 / 7, 10 / (49 * 8)), ("poisson", (4.0,), 4.0, 4.0),
    ("binomial", (30, 0.2), 6.0, 4.8), ("integers", (0, 10), 4.5, 99 / 12)])
def test_generator_moments(name, args, mean, var):
    x = np.asarray(getattr(jnp.random.default_rng(11), name)(*args, size=N), np.float64)
    _mean_ok(x, mean, var)
    # the variance within 5 standard errors (kurtosis-free bound, loose but can fail)
    assert abs(x.var() - var) < 5 * var * np.sqrt(2.0 / N) + 0.05 * var, (x.var(), var)


def test_legacy_functions():
    jnp.random.seed(0)
    assert jnp.random.randn(3, 2).shape == (3, 2)
    _mean_ok(jnp.random.random(N), 0.5, 1 / 12)
    _mean_ok(jnp.random.normal(1.0, 2.0, N), 1.0, 4.0)
    _mean_ok(jnp.random.uniform(2.0, 4.0, N), 3.0, 4 / 12)
    r = np.asarray(jnp.random.randint(3, 7, size=N))
    assert r.min() == 3 and r.max() == 6
    assert np.asarray(jnp.random.choice(5, 4)).max() < 5
    assert sorted(np.asarray(jnp.random.permutation(5)).tolist()) == list(range(5))
    for fn, args in [(jnp.random.exponential, (1.0,)), (jnp.random.poisson, (2.0,)),
                     (jnp.random.binomial, (4, 0.5)), (jnp.random.beta, (1.0, 1.0)),
                     (jnp.random.gamma, (2.0,))]:
        assert fn(*args, size=3).shape == (3,)


def test_error_inside_transformations():
    rng = jnp.random.default_rng(0)
    with pytest.raises(tjit.TjitError, match=r"outside jit/grad/vmap.*tjit\.random\.key"):
        tjit.jit(lambda x: x + jnp.random.randn(3))(jnp.ones(3))
    with pytest.raises(tjit.TjitError, match="tjit.numpy.random.normal"):
        tjit.grad(lambda m: rng.normal(m))(1.0)
    with pytest.raises(tjit.TjitError, match="tjit.numpy.random.random"):
        tjit.vmap(lambda x: x * rng.random())(jnp.ones(2))
    with pytest.raises(NotImplementedError, match="out= is not supported"):
        rng.random(3, out=np.zeros(3))


@pytest.mark.parametrize("lam", [0.7, 6.0, 10.0, 37.5])
def test_poisson_frequencies(lam):
    x = jr.poisson(jr.key(1), lam, (N,))
    assert x.dtype == jnp.int32
    lo, hi = int(st.poisson.ppf(0.01, lam)), int(st.poisson.ppf(0.99, lam))
    _freq_ok(x, lambda v: st.poisson.pmf(v, lam), range(lo, hi + 1))
    _mean_ok(x, lam, lam)


@pytest.mark.parametrize("n,p", [(12, 0.3), (40, 0.8), (200, 0.5), (5000, 0.03)])
def test_binomial_frequencies(n, p):
    x = jr.binomial(jr.key(2), n, p, (N,))
    assert x.dtype == jnp.float32
    lo, hi = int(st.binom.ppf(0.01, n, p)), int(st.binom.ppf(0.99, n, p))
    _freq_ok(x, lambda v: st.binom.pmf(v, n, p), range(lo, hi + 1))


def test_count_samplers_edges_and_jit():
    k = jr.key(0)
    np.testing.assert_array_equal(np.asarray(jr.poisson(k, jnp.array([-1.0, np.nan, 0.0]))),
                                  [-1, -1, 0])
    b = np.asarray(jr.binomial(k, jnp.array([-1.0, 3, 3, 0, 5, 5]),
                               jnp.array([0.5, 1.5, np.nan, 0.5, 0.0, 1.0])))
    assert np.isnan(b[:3]).all()
    np.testing.assert_array_equal(b[3:], [0, 0, 5])
    f = tjit.jit(lambda k: jr.poisson(k, 3.0, (4,)))
    np.testing.assert_array_equal(np.asarray(f(k)), np.asarray(jr.poisson(k, 3.0, (4,))))
    v = tjit.vmap(lambda kk: jr.binomial(kk, 10, 0.5))(jr.split(k, 3))
    assert v.shape == (3,)
    with pytest.raises(ValueError, match="not broadcast-compatible"):
        jr.poisson(k, jnp.ones(3), (2,))
