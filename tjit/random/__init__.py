"""``tjit.random``: JAX's functional PRNG API on the Threefry-2x32 counter hash.

Keys are values, not state: ``key = random.key(0)``; ``k1, k2 = random.split(key)``;
``x = random.normal(k1, (3,))``. ``key`` gives a typed key array (dtype ``key<fry>``,
a ``tjit.dtypes.prng_key``; ``key_data``/``wrap_key_data`` convert), ``PRNGKey`` JAX's
legacy raw ``uint32[2]`` key; every function takes both, with the same values, keys go
into and out of jit, vmap, scan and cond, and every function here traces.

Matches JAX's default ``threefry2x32`` implementation (partitionable mode, JAX's default
since 0.5): ``key``/``PRNGKey``, ``split``, ``fold_in``, ``bits``, ``uniform``,
``randint``, ``bernoulli``, ``rademacher``, ``permutation`` and ``choice`` without
``p`` give JAX's values exactly, ``choice`` with ``p`` and ``categorical`` too except
where a last-ulp difference decides a near tie (the tests compare with values produced
by JAX); the log/tan-based samplers (gumbel, exponential, laplace, logistic, cauchy) and
``uniform`` with non-default bounds agree to about one ulp; ``normal``,
``truncated_normal`` (except beyond +-2, where JAX's values lose the distribution),
``orthogonal`` and ``multivariate_normal`` to a few ulps (their
``erf_inv`` comes from SciPy rather than XLA). ``gamma``/``loggamma``/``beta``/
``dirichlet``, ``poisson`` and ``binomial`` use vectorized rejection loops: JAX's
distributions, different values; so does ``multinomial`` (JAX's binomial per outcome). ``pareto``, ``maxwell``, ``double_sided_maxwell``,
``weibull_min``, ``lognormal``, ``triangular``, ``wald``, ``rayleigh`` and ``geometric``
transform those samplers as JAX does (JAX's values to a few ulps); ``t``, ``chisquare``, ``f``,
``generalized_normal`` and ``ball`` go through ``gamma`` (JAX's distributions).
"""

from tjit.primitives.random_bits import threefry2x32_p  # noqa: F401
from tjit.random._keys import (  # noqa: F401
    PRNGKey, key, key_data, wrap_key_data, key_impl, key_dtype, clone, split, fold_in, bits,
    threefry_2x32)
from tjit.random._samplers import (  # noqa: F401
    uniform, normal, truncated_normal, exponential, laplace, logistic, cauchy, gumbel,
    multivariate_normal, orthogonal)
from tjit.random._gamma import gamma, loggamma, beta, dirichlet  # noqa: F401
from tjit.random._counts import poisson, binomial  # noqa: F401
from tjit.random._multinomial import multinomial  # noqa: F401
from tjit.random._discrete import (  # noqa: F401
    bernoulli, rademacher, randint, permutation, shuffle, choice, categorical)
from tjit.random._transformed import (  # noqa: F401
    pareto, t, chisquare, f, maxwell, double_sided_maxwell, weibull_min, generalized_normal,
    ball, rayleigh, wald, geometric, triangular, lognormal)

# JAX's samplers take out_sharding= (checked against the result; one device places nothing)
from tjit.lax._annotations import accepts_out_sharding as _accepts_out_sharding  # noqa: E402
for _name in ("ball", "bernoulli", "beta", "bits", "categorical", "cauchy", "chisquare",
              "dirichlet", "exponential", "f", "gamma", "generalized_normal", "geometric",
              "gumbel", "laplace", "loggamma", "logistic", "lognormal", "maxwell",
              "multivariate_normal", "normal", "orthogonal", "pareto", "permutation",
              "poisson", "rademacher", "randint", "rayleigh", "t", "triangular",
              "truncated_normal", "uniform", "wald"):
    globals()[_name] = _accepts_out_sharding(globals()[_name], f"random.{_name}")
del _name

__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "key_impl", "key_dtype", "clone",
           "split", "fold_in", "bits", "threefry_2x32", "threefry2x32_p", "uniform", "normal",
           "truncated_normal", "exponential", "laplace", "logistic", "cauchy", "gumbel",
           "multivariate_normal", "orthogonal", "bernoulli", "rademacher", "randint", "permutation",
           "shuffle", "choice", "categorical", "gamma", "loggamma", "beta", "dirichlet",
           "poisson", "binomial", "multinomial", "pareto", "t", "chisquare", "f", "maxwell",
           "double_sided_maxwell", "weibull_min", "generalized_normal", "ball", "rayleigh",
           "wald", "geometric", "triangular", "lognormal"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
