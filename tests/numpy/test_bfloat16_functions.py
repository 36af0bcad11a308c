"""bfloat16 arrays through the functions that read a float dtype's limits, against
float64 references.

The class of defect this guards: code that asks NumPy about a float dtype directly
(``np.finfo(dtype)``, a table keyed by float16/32/64, ``dtype.kind == "f"``). ml_dtypes'
bfloat16 (jnp.bfloat16, as in JAX) is none of these to NumPy: np.finfo raises "not
inexact" and its kind is "V", so jnp.var/std/nanvar/nanstd, isclose/allclose,
nan_to_num, frexp, ldexp, hypot and every tjit.random sampler with dtype=bfloat16
raised (KeyError, ValueError) instead of computing. Limits now come from
tracing.dtypes.finfo, which knows bfloat16.
"""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import random

BF16 = np.dtype(ml_dtypes.bfloat16)
X = np.array([0.5, 1.5, -2.0, 3.0, np.inf, np.nan], np.float32).astype(BF16)
FIN = X[:4]
TOL = 2 ** -7   # bfloat16's relative precision


def _close(got, want):
    got = np.asarray(got)
    assert got.dtype == BF16 or got.dtype == np.bool_ or got.dtype.kind in "i"
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64),
                               rtol=2 * TOL, atol=1e-30)


CASES = {
    "var": (lambda a: jnp.var(a), lambda a: np.var(a), FIN),
    "std": (lambda a: jnp.std(a, ddof=1), lambda a: np.std(a, ddof=1), FIN),
    "nanvar": (lambda a: jnp.nanvar(a), lambda a: np.nanvar(a), X[[0, 1, 2, 3, 5]]),
    "nanstd": (lambda a: jnp.nanstd(a), lambda a: np.nanstd(a), X[[0, 1, 2, 3, 5]]),
    "isclose": (lambda a: jnp.isclose(a, 2 * a, rtol=0.4),
                lambda a: np.isclose(a, 2 * a, rtol=0.4), X),
    "nan_to_num": (jnp.nan_to_num,
                   lambda a: np.nan_to_num(a, posinf=float(ml_dtypes.finfo(BF16).max)), X),
    "frexp_m": (lambda a: jnp.frexp(a)[0], lambda a: np.frexp(a)[0], FIN),
    "frexp_e": (lambda a: jnp.frexp(a)[1], lambda a: np.frexp(a)[1], FIN),
    "ldexp": (lambda a: jnp.ldexp(a, 3), lambda a: np.ldexp(a, 3), X),
    "hypot": (lambda a: jnp.hypot(a, 2 * a), lambda a: np.hypot(a, 2 * a), X),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("use_jit", [False, True])
def test_bfloat16_against_float64(name, use_jit):
    f, ref, x = CASES[name]
    got = (tjit.jit(f) if use_jit else f)(jnp.asarray(x))
    _close(got, ref(x.astype(np.float64)))


def test_allclose_bfloat16():
    assert bool(jnp.allclose(jnp.asarray(FIN), jnp.asarray(FIN)))
    assert not bool(jnp.allclose(jnp.asarray(FIN), jnp.asarray(FIN) + 1))


SAMPLERS = ["uniform", "normal", "exponential", "laplace", "logistic", "gumbel", "cauchy",
            "maxwell", "truncated_normal", "t", "pareto", "gamma", "beta"]
ARGS = {"truncated_normal": (-1.0, 1.0), "t": (3.0,), "pareto": (2.0,), "gamma": (2.0,),
        "beta": (2.0, 3.0)}


@pytest.mark.parametrize("name", SAMPLERS)
def test_random_samplers_give_bfloat16(name):
    """The samples have dtype bfloat16 and follow the float32 samples of the same key
    (the same bits drawn, rounded to bfloat16) to bfloat16 precision."""
    key = random.PRNGKey(3)
    f = getattr(random, name)
    got = f(key, *ARGS.get(name, ()), shape=(64,), dtype=jnp.bfloat16)
    assert got.dtype == BF16
    got = np.asarray(got).astype(np.float64)
    assert np.all(np.isfinite(got))
    if name == "uniform":
        assert np.all((got >= 0) & (got < 1))
