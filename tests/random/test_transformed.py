"""tjit.random's transformed distributions (pareto ... lognormal, f): values against
jax.random 0.10.2's for the same keys (those not built on gamma), distributions against
scipy.stats (KS tests, fixed keys), shapes/dtypes, jit == eager, vmap == a loop, grads
against finite differences, errors."""

import numpy as np
import pytest
import scipy.stats

import tjit
import tjit.numpy as jnp
from tjit import random

K0 = random.PRNGKey(0)
K42 = random.PRNGKey(42)
N = 20000
ULPS = {"rtol": 2e-6, "atol": 0}


# values printed by jax 0.10.2 (jax.random.<name>(PRNGKey(0 or 42), ...)), float32
JAX_VALUES = [
    ("pareto", lambda: random.pareto(K0, 2.0, (4,)),
     [4.371315956115723, 6.832647800445557, 1.2237889766693115, 1.3718833923339844]),
    ("maxwell", lambda: random.maxwell(K0, (4,)),
     [2.631096601486206, 0.9910328388214111, 0.9649305939674377, 3.078275203704834]),
    ("double_sided_maxwell", lambda: random.double_sided_maxwell(K42, 1.0, 2.0, (4,)),
     [-1.7620434761047363, -0.3513779640197754, 5.444042682647705, 2.351099967956543]),
    # JAX's rule: an empty shape with parameters of shape P gives shape P + P
    ("double_sided_maxwell_P", lambda: random.double_sided_maxwell(K42, jnp.zeros(3), 2.0),
     [[-2.7620434761047363, -1.3513779640197754, 4.444042682647705],
      [1.3510998487472534, 3.354111671447754, 1.666670560836792],
      [4.963901519775391, 2.7097482681274414, 4.033296585083008]]),
    ("weibull_min", lambda: random.weibull_min(K0, 2.0, 1.5, (4,)),
     [4.113933563232422, 4.9072957038879395, 1.0928194522857666, 1.4734783172607422]),
    ("weibull_min_bcast", lambda: random.weibull_min(K0, jnp.array([1., 2., 3.]), 1.5),
     [2.056966781616211, 4.113933563232422, 6.170900344848633]),
    ("lognormal", lambda: random.lognormal(K0, 0.5, (4,)),
     [2.2508795261383057, 2.752837896347046, 0.8050932288169861, 0.961453914642334]),
    ("triangular", lambda: random.triangular(K0, -1.0, 0.5, 2.0, (5,)),
     [1.5147181749343872, 1.6895318031311035, 0.22282934188842773, 0.452242374420166,
      0.6087771654129028]),
    ("wald", lambda: random.wald(K0, 1.5, (4,)),
     [0.4688202738761902, 0.5198179483413696, 0.6178595423698425, 0.39529651403427124]),
    ("rayleigh", lambda: random.rayleigh(K0, 2.0, (4,)),
     [0.6557566523551941, 0.41620054841041565, 2.9688284397125244, 2.4622910022735596]),
]


@pytest.mark.parametrize("name,f,want", JAX_VALUES, ids=[v[0] for v in JAX_VALUES])
def test_values_match_jax(name, f, want):
    got = f()
    assert got.dtype == np.float32 and got.shape == np.shape(want)
    np.testing.assert_allclose(got, np.float32(want), **ULPS)


def test_geometric_matches_jax():
    g = random.geometric(K0, 0.3, (6,))
    assert g.dtype == np.int32
    np.testing.assert_array_equal(g, [1, 1, 4, 3, 2, 6])
    g16 = random.geometric(K0, 0.3, (6,), jnp.int16)
    assert g16.dtype == np.int16
    np.testing.assert_array_equal(g16, [1, 1, 4, 3, 2, 6])


def _ks(x, dist, *args):
    return scipy.stats.kstest(np.asarray(x, np.float64), dist, args=args).pvalue


def test_distributions_ks():
    k = [random.PRNGKey(100 + i) for i in range(12)]
    assert _ks(random.pareto(k[0], 2.5, (N,)), "pareto", 2.5) > 1e-3
    assert _ks(random.t(k[1], 3.0, (N,)), "t", 3.0) > 1e-3
    assert _ks(random.t(k[1], 0.7, (N,)), "t", 0.7) > 1e-3
    assert _ks(random.chisquare(k[2], 3.0, (N,)), "chi2", 3.0) > 1e-3
    assert _ks(random.chisquare(k[2], 0.3, (N,)), "chi2", 0.3) > 1e-3
    assert _ks(random.maxwell(k[3], (N,)), "maxwell") > 1e-3
    dsm = np.asarray(random.double_sided_maxwell(k[4], 1.0, 2.0, (N,)))
    assert _ks(np.abs(dsm - 1.0) / 2.0, "maxwell") > 1e-3
    assert abs(np.mean(dsm > 1.0) - 0.5) < 0.02
    assert _ks(random.weibull_min(k[5], 2.0, 1.5, (N,)), "weibull_min", 1.5, 0, 2.0) > 1e-3
    assert _ks(random.generalized_normal(k[6], 1.5, (N,)), "gennorm", 1.5) > 1e-3
    assert _ks(random.rayleigh(k[7], 2.0, (N,)), "rayleigh", 0, 2.0) > 1e-3
    assert _ks(random.wald(k[8], 1.5, (N,)), "invgauss", 1.5) > 1e-3
    assert _ks(random.triangular(k[9], -1.0, 0.5, 2.0, (N,)), "triang", 0.5, -1.0,
               3.0) > 1e-3
    assert _ks(random.lognormal(k[10], 0.5, (N,)), "lognorm", 0.5) > 1e-3
    for dfnum, dfden in [(3.0, 7.0), (0.5, 0.8), (40.0, 2.5)]:
        assert _ks(random.f(k[0], dfnum, dfden, (N,)), "f", dfnum, dfden) > 1e-3
    g = np.asarray(random.geometric(k[11], 0.3, (N,)))
    counts = np.bincount(g, minlength=40)[1:40]
    pmf = scipy.stats.geom.pmf(np.arange(1, 40), 0.3) * N
    keep = pmf > 5
    assert g.min() >= 1
    assert scipy.stats.chisquare(counts[keep], pmf[keep] * counts[keep].sum()
                                 / pmf[keep].sum()).pvalue > 1e-3


@pytest.mark.parametrize("p", [1.0, 2.0, 4.0])
def test_ball_uniform(p):
    d = 3
    x = np.asarray(random.ball(random.PRNGKey(7), d, p, (N,)), np.float64)
    assert x.shape == (N, d)
    r = np.sum(np.abs(x) ** p, axis=-1) ** (1 / p)
    assert r.max() <= 1 + 1e-6
    # uniform in the ball: P(r <= s) = s**d
    assert scipy.stats.kstest(r ** d, "uniform").pvalue > 1e-3


def test_shapes_dtypes_and_defaults():
    assert random.pareto(K0, jnp.ones((2, 3))).shape == (2, 3)
    assert random.t(K0, jnp.ones(4, jnp.float16), dtype=jnp.float16).dtype == np.float16
    assert random.chisquare(K0, 2.0, (5, 1)).shape == (5, 1)
    assert random.f(K0, jnp.ones((2, 1)), jnp.ones(3)).shape == (2, 3)
    assert random.f(K0, 2.0, 3.0, dtype=jnp.float16).dtype == np.float16
    assert random.triangular(K0, 0.0, jnp.array([0.2, 0.5]), 1.0).shape == (2,)
    assert random.ball(K0, 4, shape=(2, 5)).shape == (2, 5, 4)
    assert random.ball(K0, 0, shape=(3,)).shape == (3, 0)
    assert random.lognormal(K0).shape == ()
    assert random.lognormal(K0, shape=(2,), dtype=jnp.complex64).dtype == np.complex64
    assert random.maxwell(K0, (2,), jnp.float16).dtype == np.float16


def test_x64_dtypes(x64):
    assert random.pareto(K0, 2.0, (3,)).dtype == np.float64
    assert random.f(K0, 2.0, 3.0, (3,)).dtype == np.float64
    assert random.geometric(K0, 0.5, (3,)).dtype == np.int64
    w = random.wald(K0, 1.0, (3,))
    assert w.dtype == np.float64 and np.all(np.asarray(w) > 0)


TRACED = {
    "pareto": lambda k: random.pareto(k, 2.0, (5,)),
    "t": lambda k: random.t(k, 4.0, (5,)),
    "chisquare": lambda k: random.chisquare(k, 2.0, (5,)),
    "f": lambda k: random.f(k, 2.0, 5.0, (5,)),
    "maxwell": lambda k: random.maxwell(k, (5,)),
    "double_sided_maxwell": lambda k: random.double_sided_maxwell(k, 0.5, 2.0, (5,)),
    "weibull_min": lambda k: random.weibull_min(k, 2.0, 0.7, (5,)),
    "generalized_normal": lambda k: random.generalized_normal(k, 3.0, (5,)),
    "ball": lambda k: random.ball(k, 2, 1.5, (3,)),
    "rayleigh": lambda k: random.rayleigh(k, 1.0, (5,)),
    "wald": lambda k: random.wald(k, 2.0, (5,)),
    "geometric": lambda k: random.geometric(k, 0.2, (5,)),
    "triangular": lambda k: random.triangular(k, 0.0, 0.3, 1.0, (5,)),
    "lognormal": lambda k: random.lognormal(k, 1.0, (5,)),
}


@pytest.mark.parametrize("name", sorted(TRACED))
def test_jit_and_vmap(name):
    f = TRACED[name]
    keys = random.split(random.PRNGKey(5), 3)
    eager = f(keys[0])
    jitted = tjit.jit(f)(keys[0])
    assert jitted.shape == eager.shape and jitted.dtype == eager.dtype
    tol = {"rtol": 2e-5, "atol": 1e-6}
    np.testing.assert_allclose(jitted, eager, **tol)
    batched = tjit.vmap(f)(keys)
    np.testing.assert_allclose(batched, np.stack([np.asarray(f(k)) for k in keys]), **tol)


@pytest.mark.parametrize("name,f", [
    ("pareto", lambda b: random.pareto(K0, b, (4,))),
    ("rayleigh", lambda s: random.rayleigh(K0, s, (4,))),
    ("lognormal", lambda s: random.lognormal(K0, s, (4,))),
    ("weibull_min", lambda c: random.weibull_min(K0, 2.0, c, (4,))),
    ("triangular", lambda m: random.triangular(K0, 0.0, m, 1.0, (4,))),
])
def test_grad_matches_finite_differences(name, f, x64):
    x, h = 0.7, 1e-6
    g = tjit.grad(lambda v: jnp.sum(f(v)))(x)
    fd = (np.sum(np.asarray(f(x + h))) - np.sum(np.asarray(f(x - h)))) / (2 * h)
    np.testing.assert_allclose(float(g), fd, rtol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="dtype argument to `pareto` must be a float"):
        random.pareto(K0, 1.0, (2,), jnp.int32)
    with pytest.raises(ValueError, match="geometric` must be an int"):
        random.geometric(K0, 0.5, (2,), jnp.float32)
    with pytest.raises(ValueError, match="dtype argument to `f` must be a float"):
        random.f(K0, 1.0, 2.0, (2,), jnp.int32)
    with pytest.raises(ValueError, match="f: parameter shapes"):
        random.f(K0, jnp.ones(3), 2.0, (2,))
    with pytest.raises(ValueError, match="wald"):
        random.wald(K0, jnp.ones(3), (2,))
    with pytest.raises(TypeError, match=r"ball: d \(the dimension\) must be an integer"):
        random.ball(K0, 2.5)
    with pytest.raises(ValueError, match="ball: d must be non-negative"):
        random.ball(K0, -1)
