"""The generalized normal distribution (``jax.scipy.stats.gennorm``): density
``beta / (2 Gamma(1/beta)) exp(-|y|**beta)``; beta = 2 is a normal, 1 a Laplace.
``loc`` and ``scale`` are SciPy's (JAX's functions take ``x`` and ``beta`` only)."""


from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, beta, loc=0, scale=1):
    """``log(beta / 2) - gammaln(1 / beta) - |y|**beta - log(scale)``."""
    x, beta, loc, scale = _promote("gennorm.logpdf", x, beta, loc, scale)
    y = (x - loc) / scale
    return (jnp.log(0.5 * beta) - special.gammaln(1 / beta) - jnp.abs(y) ** beta
            - jnp.log(scale))


def pdf(x, beta, loc=0, scale=1):
    """Density of the generalized normal distribution."""
    return jnp.exp(logpdf(x, beta, loc, scale))


def cdf(x, beta, loc=0, scale=1):
    """CDF ``Q(1/beta, |y|**beta) / 2`` below ``loc`` (no cancellation in the lower
    tail) and ``1/2 + P(1/beta, y**beta) / 2`` above."""
    x, beta, loc, scale = _promote("gennorm.cdf", x, beta, loc, scale)
    y = (x - loc) / scale
    t = jnp.abs(y) ** beta
    lower = 0.5 * special.gammaincc(1 / beta, t)
    return jnp.where(y < 0, lower, 0.5 + 0.5 * special.gammainc(1 / beta, t))

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda beta, scale, **_: (beta > 0) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
