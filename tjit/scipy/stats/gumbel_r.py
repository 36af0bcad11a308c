"""The right-skewed Gumbel distribution (``jax.scipy.stats.gumbel_r``): the maximum
extreme value distribution, ``cdf = exp(-exp(-y))`` with ``y = (x - loc) / scale``."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, loc=0, scale=1):
    """``-y - exp(-y) - log(scale)``."""
    x, loc, scale = _promote("gumbel_r.logpdf", x, loc, scale)
    y = (x - loc) / scale
    return -y - jnp.exp(-y) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """Density of the right-skewed Gumbel distribution."""
    return jnp.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """``-exp(-y)``."""
    x, loc, scale = _promote("gumbel_r.logcdf", x, loc, scale)
    return -jnp.exp(-(x - loc) / scale)


def cdf(x, loc=0, scale=1):
    """CDF ``exp(-exp(-y))``."""
    return jnp.exp(logcdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    """Survival function ``-expm1(-exp(-y))``: accurate in the upper tail, where
    ``1 - cdf`` would cancel."""
    x, loc, scale = _promote("gumbel_r.sf", x, loc, scale)
    return -jnp.expm1(-jnp.exp(-(x - loc) / scale))


def logsf(x, loc=0, scale=1):
    """``log1p(-cdf)`` where the CDF is small (the lower tail, where sf rounds to 1),
    ``log(-expm1(-exp(-y)))`` above, and ``-y`` where exp(-y) underflows (y > 30: the
    next term, exp(-y) / 2, is below y's rounding)."""
    x, loc, scale = _promote("gumbel_r.logsf", x, loc, scale)
    y = (x - loc) / scale
    c = jnp.exp(-jnp.exp(-y))
    out = jnp.where(c < 0.5, jnp.log1p(-c), jnp.log(-jnp.expm1(-jnp.exp(-y))))
    return jnp.where(y > 30, -y, out)


def ppf(p, loc=0, scale=1):
    """Quantile ``loc - scale log(-log(p))``: -inf at 0, inf at 1, NaN outside [0, 1]
    (SciPy's)."""
    p, loc, scale = _promote("gumbel_r.ppf", p, loc, scale)
    out = loc - scale * jnp.log(-jnp.log(p))
    return jnp.where((p >= 0) & (p <= 1), out, np.nan)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda scale, **_: scale > 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
