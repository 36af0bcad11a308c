"""The chi-squared distribution (``jax.scipy.stats.chi2``): gamma(df / 2, scale 2)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats import _log_igamma
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, df, loc=0, scale=1):
    """Log density with ``df`` degrees of freedom; -inf below ``loc``."""
    x, df, loc, scale = _promote("chi2.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    k = 0.5 * df
    log_probs = special.xlogy(k - 1, y) - 0.5 * y - special.gammaln(k) - k * float(np.log(2.0)) - \
        jnp.log(scale)
    return jnp.where(y < 0, -np.inf, log_probs)


def pdf(x, df, loc=0, scale=1):
    """Density of the chi-squared distribution."""
    return jnp.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    """CDF ``P(df / 2, y / 2)``."""
    x, df, loc, scale = _promote("chi2.cdf", x, df, loc, scale)
    return special.gammainc(0.5 * df, jnp.maximum(0.5 * (x - loc) / scale, 0))


def logcdf(x, df, loc=0, scale=1):
    """``log(cdf)``; ``log1p(-sf)`` where the CDF is near 1, finite where it underflows."""
    x, df, loc, scale = _promote("chi2.logcdf", x, df, loc, scale)
    return _log_igamma.log_gammainc(0.5 * df, jnp.maximum(0.5 * (x - loc) / scale, 0))


def sf(x, df, loc=0, scale=1):
    """Survival function ``Q(df / 2, y / 2)``."""
    x, df, loc, scale = _promote("chi2.sf", x, df, loc, scale)
    return special.gammaincc(0.5 * df, jnp.maximum(0.5 * (x - loc) / scale, 0))


def logsf(x, df, loc=0, scale=1):
    """``log(sf)``; ``log1p(-cdf)`` where the survival function is near 1, finite where
    it underflows."""
    x, df, loc, scale = _promote("chi2.logsf", x, df, loc, scale)
    return _log_igamma.log_gammaincc(0.5 * df, jnp.maximum(0.5 * (x - loc) / scale, 0))


# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda df, scale, **_: (df > 0) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
