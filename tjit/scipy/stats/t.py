"""Student's t distribution (``jax.scipy.stats.t``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import nan_outside_parameter_domain, promote


def logpdf(x, df, loc=0, scale=1):
    """Log density of Student's t with ``df`` degrees of freedom."""
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    norm = special.gammaln(0.5 * (df + 1)) - special.gammaln(0.5 * df) - \
        0.5 * jnp.log(df * np.pi) - jnp.log(scale)
    return norm - 0.5 * (df + 1) * jnp.log1p(y * y / df)


def pdf(x, df, loc=0, scale=1):
    """Density of Student's t."""
    return jnp.exp(logpdf(x, df, loc, scale))

# SciPy's parameter domain; NaN outside it.
nan_outside_parameter_domain(globals(), lambda df, scale, **_: (df > 0) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
