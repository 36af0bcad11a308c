"""The Pareto distribution (``jax.scipy.stats.pareto``): density ``b / y**(b + 1)`` on
``y = (x - loc) / scale >= 1``."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, b, loc=0, scale=1):
    """``log(b) - (b + 1) log(y) - log(scale)``; -inf below ``loc + scale``."""
    x, b, loc, scale = _promote("pareto.logpdf", x, b, loc, scale)
    y = (x - loc) / scale
    out = jnp.log(b) - (b + 1) * jnp.log(y) - jnp.log(scale)
    return jnp.where(y < 1, -np.inf, out)


def pdf(x, b, loc=0, scale=1):
    """Density of the Pareto distribution."""
    return jnp.exp(logpdf(x, b, loc, scale))


def logsf(x, b, loc=0, scale=1):
    """``-b log(y)``; 0 below ``loc + scale``."""
    x, b, loc, scale = _promote("pareto.logsf", x, b, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 1, 0.0, -b * jnp.log(jnp.maximum(y, 1)))


def sf(x, b, loc=0, scale=1):
    """Survival function ``y**-b``."""
    return jnp.exp(logsf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """CDF ``-expm1(-b log y)`` (``1 - y**-b`` without cancelling near the support's
    start)."""
    return -jnp.expm1(logsf(x, b, loc, scale))


def logcdf(x, b, loc=0, scale=1):
    """``log(cdf)``, or ``log1p(-sf)`` where the CDF is near 1; -inf below
    ``loc + scale``."""
    s = sf(x, b, loc, scale)
    return jnp.where(s < 0.5, jnp.log1p(-s), jnp.log(cdf(x, b, loc, scale)))


def ppf(q, b, loc=0, scale=1):
    """Quantile ``loc + scale (1 - q)**(-1/b)``; NaN outside [0, 1]."""
    q, b, loc, scale = _promote("pareto.ppf", q, b, loc, scale)
    out = loc + scale * jnp.exp(-jnp.log1p(-q) / b)
    return jnp.where((q >= 0) & (q <= 1), out, np.nan)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda b, scale, **_: (b > 0) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
