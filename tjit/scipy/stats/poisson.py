"""The Poisson distribution (``jax.scipy.stats.poisson``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import integral_shift, nan_outside_parameter_domain, promote


def logpmf(k, mu, loc=0):
    """``k log mu - mu - log k!`` for integer k >= 0 (shifted by ``loc``), -inf else."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    y = k - loc
    log_probs = special.xlogy(y, mu) - special.gammaln(y + 1) - mu
    return jnp.where((y >= 0) & integral_shift(k, loc), log_probs,
                     jnp.where(jnp.isnan(y), np.nan, -np.inf))  # (NaN k or loc)


def pmf(k, mu, loc=0):
    """Probability mass function."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """``Q(floor(k) + 1, mu)`` (the upper regularized gamma), 0 below ``loc``."""
    k, mu, loc = promote("poisson.cdf", k, mu, loc)
    y = jnp.floor(k - loc)
    return jnp.where(y < 0, 0.0, special.gammaincc(jnp.maximum(y, 0) + 1, mu))

# SciPy's parameter domain; NaN outside it.
nan_outside_parameter_domain(globals(), lambda mu, **_: mu >= 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
