"""The uniform distribution on ``[loc, loc + scale]`` (``jax.scipy.stats.uniform``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, loc=0, scale=1):
    """``-log(scale)`` inside the interval, -inf outside."""
    x, loc, scale = _promote("uniform.logpdf", x, loc, scale)
    inside = (x >= loc) & (x <= loc + scale)
    return jnp.where(inside, -jnp.log(scale), jnp.where(jnp.isnan(x), np.nan, -np.inf))


def pdf(x, loc=0, scale=1):
    """Density of the uniform distribution."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF: the standardized x clipped to [0, 1]."""
    x, loc, scale = _promote("uniform.cdf", x, loc, scale)
    return jnp.clip((x - loc) / scale, 0, 1)


def ppf(q, loc=0, scale=1):
    """Quantile function; NaN for q outside [0, 1]."""
    q, loc, scale = _promote("uniform.ppf", q, loc, scale)
    return jnp.where((q >= 0) & (q <= 1), loc + q * scale, np.nan)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda scale, **_: scale > 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
