"""Student's t distribution (``jax.scipy.stats.t``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, df, loc=0, scale=1):
    """Log density of Student's t with ``df`` degrees of freedom (the normal's at
    ``df = inf``, as SciPy).

    The normalization ``gammaln((df + 1) / 2) - gammaln(df / 2)`` is taken as
    ``log(pi) / 2 - betaln(df / 2, 1 / 2)``: the difference of two gammalns cancels for
    large df (float32 lost all digits at df = 1e10), betaln's Stirling branch does not.
    """
    x, df, loc, scale = _promote("t.logpdf", x, df, loc, scale)
    y = (x - loc) / scale
    finite = jnp.isfinite(df)
    df_s = jnp.where(finite, df, 1.0)  # (the t branch sees finite df only)
    log_t = -special.betaln(0.5 * df_s, 0.5) - 0.5 * jnp.log(df_s) - \
        0.5 * (df_s + 1) * jnp.log1p(y * y / df_s)
    log_normal = -0.5 * y * y - float(0.5 * np.log(2 * np.pi))
    return jnp.where(finite | jnp.isnan(df), log_t, log_normal) - jnp.log(scale)


def pdf(x, df, loc=0, scale=1):
    """Density of Student's t."""
    return jnp.exp(logpdf(x, df, loc, scale))

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda df, scale, **_: (df > 0) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
