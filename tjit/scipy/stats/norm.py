"""The normal distribution (``jax.scipy.stats.norm``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)

_HALF_LOG_2PI = float(0.5 * np.log(2 * np.pi))  # (np.float64 would promote float32)


def logpdf(x, loc=0, scale=1):
    """Log of the normal density with mean ``loc`` and standard deviation ``scale``."""
    x, loc, scale = _promote("norm.logpdf", x, loc, scale)
    y = (x - loc) / scale
    return -0.5 * y * y - jnp.log(scale) - _HALF_LOG_2PI


def pdf(x, loc=0, scale=1):
    """The normal density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The normal CDF (``ndtr`` of the standardized value)."""
    x, loc, scale = _promote("norm.cdf", x, loc, scale)
    return special.ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    """``log(cdf)``, accurate in both tails (``log_ndtr``)."""
    x, loc, scale = _promote("norm.logcdf", x, loc, scale)
    return special.log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    """The survival function ``1 - cdf``, computed as ``ndtr(-y)`` (no cancellation)."""
    x, loc, scale = _promote("norm.sf", x, loc, scale)
    return special.ndtr(-(x - loc) / scale)


def logsf(x, loc=0, scale=1):
    """``log(sf)``."""
    x, loc, scale = _promote("norm.logsf", x, loc, scale)
    return special.log_ndtr(-(x - loc) / scale)


def ppf(q, loc=0, scale=1):
    """The quantile function, inverse of :func:`cdf`."""
    q, loc, scale = _promote("norm.ppf", q, loc, scale)
    return loc + scale * special.ndtri(q)


def isf(q, loc=0, scale=1):
    """The inverse survival function, ``ppf(1 - q)`` without rounding ``1 - q``."""
    q, loc, scale = _promote("norm.isf", q, loc, scale)
    return loc - scale * special.ndtri(q)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda scale, **_: scale > 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
