"""The exponential distribution (``jax.scipy.stats.expon``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, loc=0, scale=1):
    """``-y - log(scale)`` for y = (x - loc) / scale >= 0, -inf below."""
    x, loc, scale = _promote("expon.logpdf", x, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, -np.inf, -y - jnp.log(scale))


def pdf(x, loc=0, scale=1):
    """Density of the exponential distribution."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``-expm1(-y)`` (accurate for small y), 0 below ``loc``."""
    x, loc, scale = _promote("expon.cdf", x, loc, scale)
    return -jnp.expm1(-jnp.maximum((x - loc) / scale, 0))


def logcdf(x, loc=0, scale=1):
    """``log(1 - exp(-y))`` without cancellation; -inf at and below ``loc``."""
    x, loc, scale = _promote("expon.logcdf", x, loc, scale)
    y = jnp.maximum((x - loc) / scale, 0)
    small = y < np.log(2.0)
    return jnp.where(small, jnp.log(-jnp.expm1(-y)), jnp.log1p(-jnp.exp(-y)))


def sf(x, loc=0, scale=1):
    """Survival function ``exp(-y)``, 1 below ``loc``."""
    return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """``-y``, 0 below ``loc``."""
    x, loc, scale = _promote("expon.logsf", x, loc, scale)
    return -jnp.maximum((x - loc) / scale, 0)


def ppf(q, loc=0, scale=1):
    """Quantile function ``-log1p(-q)``; NaN outside [0, 1]."""
    q, loc, scale = _promote("expon.ppf", q, loc, scale)
    return jnp.where((q >= 0) & (q <= 1), loc - scale * jnp.log1p(-q), np.nan)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda scale, **_: scale > 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
