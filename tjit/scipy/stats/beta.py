"""The beta distribution (``jax.scipy.stats.beta``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import nan_outside_parameter_domain, promote


def logpdf(x, a, b, loc=0, scale=1):
    """Log density on ``[loc, loc + scale]``; -inf outside."""
    x, a, b, loc, scale = promote("beta.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    # xlogy/xlog1py: a = 1 (or b = 1) gives a finite density at the end points
    log_probs = special.xlogy(a - 1, y) + special.xlog1py(b - 1, -y) - \
        special.betaln(a, b) - jnp.log(scale)
    return jnp.where((y < 0) | (y > 1), -np.inf, log_probs)


def pdf(x, a, b, loc=0, scale=1):
    """Density of the beta distribution."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    """CDF: the regularized incomplete beta function of the clipped standardized x."""
    x, a, b, loc, scale = promote("beta.cdf", x, a, b, loc, scale)
    return special.betainc(a, b, jnp.clip((x - loc) / scale, 0, 1))


def logcdf(x, a, b, loc=0, scale=1):
    """``log(cdf)``; ``log1p(-sf)`` where the CDF is near 1."""
    c = cdf(x, a, b, loc, scale)
    return jnp.where(c < 0.5, jnp.log(c), jnp.log1p(-sf(x, a, b, loc, scale)))


def sf(x, a, b, loc=0, scale=1):
    """Survival function, ``I_{1-y}(b, a)`` or ``1 - I_y(a, b)``, whichever is the more
    accurate here. ``I_{1-y}(b, a)`` has no cancellation, but its argument ``1 - y``
    rounds (float32 ``y = 3e-11`` is lost: ``I_1 = 1`` for an sf of 0.033 when ``a`` is
    0.0014; JAX 0.10.2 gives that 1 too); ``1 - I_y(a, b)`` cancels where the CDF nears 1
    (an sf of 3e-16 at ``y = 0.3``, ``a = 1``, ``b = 100`` became 0). Their relative
    errors are about ``eps / sf`` and ``pdf(y) * |round(1 - y) - (1 - y)| / sf``."""
    x, a, b, loc, scale = promote("beta.sf", x, a, b, loc, scale)
    y = jnp.clip((x - loc) / scale, 0, 1)
    t = 1 - y
    lost = jnp.abs((1 - t) - y)  # the rounding of 1 - y (exact: Sterbenz for y <= 1/2)
    by_complement = special.betainc(b, a, t)
    by_cdf = 1 - special.betainc(a, b, y)
    density = jnp.exp(logpdf(jnp.where(lost > 0, y, 0.5), a, b))
    err_complement = jnp.where(lost > 0, density * lost, 0) / by_complement
    err_cdf = jnp.finfo(y.dtype).eps / by_cdf
    return jnp.where((y >= 0.5) | (err_complement <= err_cdf), by_complement, by_cdf)


def logsf(x, a, b, loc=0, scale=1):
    """``log(sf)``; ``log1p(-cdf)`` where the survival function is near 1."""
    s = sf(x, a, b, loc, scale)
    return jnp.where(s < 0.5, jnp.log(s), jnp.log1p(-cdf(x, a, b, loc, scale)))

# SciPy's parameter domain; NaN outside it.
nan_outside_parameter_domain(globals(), lambda a, b, scale, **_: (a > 0) & (b > 0) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
