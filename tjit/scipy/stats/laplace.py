"""The Laplace distribution (``jax.scipy.stats.laplace``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, loc=0, scale=1):
    """``-|y| - log(2 scale)``."""
    x, loc, scale = _promote("laplace.logpdf", x, loc, scale)
    return -jnp.abs((x - loc) / scale) - float(np.log(2.0)) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    """Density of the Laplace distribution."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """CDF ``exp(y) / 2`` below loc and ``1 - exp(-y) / 2`` above."""
    x, loc, scale = _promote("laplace.cdf", x, loc, scale)
    y = (x - loc) / scale
    half = 0.5 * jnp.exp(-jnp.abs(y))
    return jnp.where(y < 0, half, 1 - half)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda scale, **_: scale > 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
