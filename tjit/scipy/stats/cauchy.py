"""The Cauchy distribution (``jax.scipy.stats.cauchy``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, loc=0, scale=1):
    """``-log(pi scale) - log1p(y**2)``."""
    x, loc, scale = _promote("cauchy.logpdf", x, loc, scale)
    y = (x - loc) / scale
    return -float(np.log(np.pi)) - jnp.log(scale) - jnp.log1p(y * y)


def pdf(x, loc=0, scale=1):
    """Density of the Cauchy distribution."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``atan2(1, -y) / pi``: equal to ``1/2 + atan(y) / pi`` but accurate in the
    lower tail, where the sum would cancel."""
    x, loc, scale = _promote("cauchy.cdf", x, loc, scale)
    return jnp.arctan2(1.0, -(x - loc) / scale) / np.pi


def logcdf(x, loc=0, scale=1):
    """``log(cdf)``; ``log1p(-sf)`` where the CDF is near 1."""
    c = cdf(x, loc, scale)
    return jnp.where(c < 0.5, jnp.log(c), jnp.log1p(-sf(x, loc, scale)))


def sf(x, loc=0, scale=1):
    """Survival function ``atan2(1, y) / pi``."""
    x, loc, scale = _promote("cauchy.sf", x, loc, scale)
    return jnp.arctan2(1.0, (x - loc) / scale) / np.pi


def logsf(x, loc=0, scale=1):
    """``log(sf)``; ``log1p(-cdf)`` where the survival function is near 1."""
    s = sf(x, loc, scale)
    return jnp.where(s < 0.5, jnp.log(s), jnp.log1p(-cdf(x, loc, scale)))


def _std_ppf(q):
    """tan(pi (q - 1/2)) as -1/tan(pi q) below 1/2 and 1/tan(pi (1 - q)) above (1 - q is
    exact there): ``q - 1/2`` would lose a small q entirely."""
    lower = q < 0.5
    t = jnp.tan(np.pi * jnp.where(lower, q, 1 - q))
    out = jnp.where(lower, -1 / t, 1 / t)
    out = jnp.where(q == 0.5, 0.0, out)
    return jnp.where((q >= 0) & (q <= 1), out, np.nan)


def ppf(q, loc=0, scale=1):
    """Quantile function ``loc + scale tan(pi (q - 1/2))``; NaN outside [0, 1]."""
    q, loc, scale = _promote("cauchy.ppf", q, loc, scale)
    return loc + scale * _std_ppf(q)


def isf(q, loc=0, scale=1):
    """Inverse survival function ``ppf(1 - q)``, without rounding ``1 - q``."""
    q, loc, scale = _promote("cauchy.isf", q, loc, scale)
    return loc - scale * _std_ppf(q)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda scale, **_: scale > 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
