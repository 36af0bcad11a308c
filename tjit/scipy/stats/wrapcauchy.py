"""The wrapped Cauchy distribution (``jax.scipy.stats.wrapcauchy``): density
``(1 - c**2) / (2 pi (1 + c**2 - 2 c cos y))`` on ``0 <= y <= 2 pi``. ``loc`` and
``scale`` are SciPy's (JAX's functions take ``x`` and ``c`` only)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, c, loc=0, scale=1):
    """Log density; -inf outside ``[0, 2 pi]`` (after standardizing)."""
    x, c, loc, scale = _promote("wrapcauchy.logpdf", x, c, loc, scale)
    y = (x - loc) / scale
    out = (jnp.log1p(-c * c) - float(np.log(2 * np.pi)) - jnp.log1p(c * c - 2 * c * jnp.cos(y))
           - jnp.log(scale))
    return jnp.where((y >= 0) & (y <= 2 * np.pi), out,
                     jnp.where(jnp.isnan(y), np.nan, -np.inf))


def pdf(x, c, loc=0, scale=1):
    """Density of the wrapped Cauchy distribution."""
    return jnp.exp(logpdf(x, c, loc, scale))

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda c, scale, **_: (c > 0) & (c < 1)
                             & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
