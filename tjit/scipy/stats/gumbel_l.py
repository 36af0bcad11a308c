"""The left-skewed Gumbel distribution (``jax.scipy.stats.gumbel_l``): the minimum
extreme value distribution, ``sf = exp(-exp(y))`` with ``y = (x - loc) / scale``."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, loc=0, scale=1):
    """``y - exp(y) - log(scale)``."""
    x, loc, scale = _promote("gumbel_l.logpdf", x, loc, scale)
    y = (x - loc) / scale
    return y - jnp.exp(y) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """Density of the left-skewed Gumbel distribution."""
    return jnp.exp(logpdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """``-exp(y)``."""
    x, loc, scale = _promote("gumbel_l.logsf", x, loc, scale)
    return -jnp.exp((x - loc) / scale)


def sf(x, loc=0, scale=1):
    """Survival function ``exp(-exp(y))``."""
    return jnp.exp(logsf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``-expm1(-exp(y))``: accurate in the lower tail."""
    x, loc, scale = _promote("gumbel_l.cdf", x, loc, scale)
    return -jnp.expm1(-jnp.exp((x - loc) / scale))


def logcdf(x, loc=0, scale=1):
    """``log1p(-sf)`` where the survival function is small (the upper tail),
    ``log(-expm1(-exp(y)))`` below, and ``y`` where exp(y) underflows (y < -30)."""
    x, loc, scale = _promote("gumbel_l.logcdf", x, loc, scale)
    y = (x - loc) / scale
    s = jnp.exp(-jnp.exp(y))
    out = jnp.where(s < 0.5, jnp.log1p(-s), jnp.log(-jnp.expm1(-jnp.exp(y))))
    return jnp.where(y < -30, y, out)


def ppf(p, loc=0, scale=1):
    """Quantile ``loc + scale log(-log1p(-p))``: -inf at 0, inf at 1, NaN outside
    [0, 1] (SciPy's)."""
    p, loc, scale = _promote("gumbel_l.ppf", p, loc, scale)
    out = loc + scale * jnp.log(-jnp.log1p(-p))
    return jnp.where((p >= 0) & (p <= 1), out, np.nan)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda scale, **_: scale > 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
