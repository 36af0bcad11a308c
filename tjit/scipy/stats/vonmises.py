"""The von Mises distribution on the circle (``jax.scipy.stats.vonmises``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import promote as _promote


def logpdf(x, kappa):
    """``kappa cos(x) - log(2 pi I0(kappa))``, with I0 scaled (``i0e``) so large
    ``kappa`` does not overflow; NaN for kappa <= 0 (as JAX)."""
    x, kappa = _promote("vonmises.logpdf", x, kappa)
    out = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * special.i0e(kappa))
    return jnp.where(kappa > 0, out, np.nan)


def pdf(x, kappa):
    """Density of the von Mises distribution."""
    return jnp.exp(logpdf(x, kappa))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
