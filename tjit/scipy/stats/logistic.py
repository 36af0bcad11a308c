"""The logistic distribution (``jax.scipy.stats.logistic``)."""

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, loc=0, scale=1):
    """``-|y| - 2 log1p(exp(-|y|)) - log(scale)`` (symmetric, no overflow)."""
    x, loc, scale = _promote("logistic.logpdf", x, loc, scale)
    a = jnp.abs((x - loc) / scale)
    return -a - 2 * jnp.log1p(jnp.exp(-a)) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """Density of the logistic distribution."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``expit(y)``."""
    x, loc, scale = _promote("logistic.cdf", x, loc, scale)
    return special.expit((x - loc) / scale)


def sf(x, loc=0, scale=1):
    """Survival function ``expit(-y)``."""
    x, loc, scale = _promote("logistic.sf", x, loc, scale)
    return special.expit(-(x - loc) / scale)


def ppf(q, loc=0, scale=1):
    """Quantile function ``loc + scale * logit(q)``."""
    q, loc, scale = _promote("logistic.ppf", q, loc, scale)
    return loc + scale * special.logit(q)


def isf(q, loc=0, scale=1):
    """Inverse survival function ``loc - scale * logit(q)``."""
    q, loc, scale = _promote("logistic.isf", q, loc, scale)
    return loc - scale * special.logit(q)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda scale, **_: scale > 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
