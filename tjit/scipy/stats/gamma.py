"""The gamma distribution (``jax.scipy.stats.gamma``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats import _log_igamma
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, a, loc=0, scale=1):
    """Log density with shape ``a``; -inf below ``loc``."""
    x, a, loc, scale = _promote("gamma.logpdf", x, a, loc, scale)
    y = (x - loc) / scale
    log_probs = special.xlogy(a - 1, y) - y - special.gammaln(a) - jnp.log(scale)
    return jnp.where(y < 0, -np.inf, log_probs)


def pdf(x, a, loc=0, scale=1):
    """Density of the gamma distribution."""
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    """CDF ``P(a, y)``."""
    x, a, loc, scale = _promote("gamma.cdf", x, a, loc, scale)
    return special.gammainc(a, jnp.maximum((x - loc) / scale, 0))


def logcdf(x, a, loc=0, scale=1):
    """``log(cdf)``; ``log1p(-sf)`` where the CDF is near 1, and P's series summed in
    logs where the CDF underflows (x=1e-20, a=3.5 is e**-163.6, 0 in float32)."""
    x, a, loc, scale = _promote("gamma.logcdf", x, a, loc, scale)
    return _log_igamma.log_gammainc(a, jnp.maximum((x - loc) / scale, 0))


def sf(x, a, loc=0, scale=1):
    """Survival function ``Q(a, y)``, accurate where the CDF rounds to 1."""
    x, a, loc, scale = _promote("gamma.sf", x, a, loc, scale)
    return special.gammaincc(a, jnp.maximum((x - loc) / scale, 0))


def logsf(x, a, loc=0, scale=1):
    """``log(sf)``; ``log1p(-cdf)`` where the survival function is near 1, and Q's
    continued fraction in logs where it underflows (x=316, a=0.1 is e**-323.7)."""
    x, a, loc, scale = _promote("gamma.logsf", x, a, loc, scale)
    return _log_igamma.log_gammaincc(a, jnp.maximum((x - loc) / scale, 0))


# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda a, scale, **_: (a > 0) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
