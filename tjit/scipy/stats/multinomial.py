"""The multinomial distribution (``jax.scipy.stats.multinomial``): counts ``x`` (last
axis) of n draws among categories with probabilities ``p`` (last axis)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import cast_inexact as _cast_inexact


def logpmf(x, n, p):
    """``gammaln(n + 1) + sum(x log p - gammaln(x + 1))`` over the last axis where the
    counts are non-negative integers summing to n, -inf elsewhere; NaN where ``n < 0``
    or a probability is outside [0, 1] (SciPy's domain).

    Args:
      x: counts, shape (..., k); integer dtype, or integer values of a float dtype.
      n: the number of draws, broadcast against ``x``'s batch shape.
      p: probabilities, shape (..., k), used as given (SciPy replaces the last one by
        ``1 - sum(others)``; pass normalized probabilities for equal results).
    """
    x, n, p = _cast_inexact("multinomial.logpmf", x, n, p)
    if x.ndim == 0 or p.ndim == 0:
        raise ValueError(f"multinomial.logpmf: x and p need a category axis (the last), "
                         f"got shapes {x.shape} and {p.shape}")
    if x.shape[-1] != p.shape[-1]:
        raise ValueError(f"multinomial.logpmf: x {x.shape} and p {p.shape} must have the "
                         f"same number of categories (last axis)")
    logprobs = special.gammaln(n + 1) + jnp.sum(special.xlogy(x, p) - special.gammaln(x + 1),
                                                axis=-1)
    counts_ok = (jnp.all((x >= 0) & (x == jnp.floor(x)), axis=-1)
                 & (jnp.sum(x, axis=-1) == n))
    out = jnp.where(counts_ok, logprobs, -np.inf)
    domain = (n >= 0) & jnp.all((p >= 0) & (p <= 1), axis=-1)
    return jnp.where(domain, out, np.nan)


def pmf(x, n, p):
    """Probability mass function; see :func:`logpmf`."""
    return jnp.exp(logpmf(x, n, p))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
