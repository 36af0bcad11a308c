"""The beta distribution (``jax.scipy.stats.beta``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpdf(x, a, b, loc=0, scale=1):
    """Log density on ``[loc, loc + scale]``; -inf outside."""
    x, a, b, loc, scale = _promote("beta.logpdf", x, a, b, loc, scale)
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
    x, a, b, loc, scale = _promote("beta.cdf", x, a, b, loc, scale)
    return special.betainc(a, b, jnp.clip((x - loc) / scale, 0, 1))


def logcdf(x, a, b, loc=0, scale=1):
    """``log(cdf)``; ``log1p(-sf)`` where the CDF is near 1; where the CDF underflows (y
    below half the mean), the log of ``I_y(a, b) = y^a (1 - y)^b / (a B(a, b)) * 2F1(a + b,
    1; a + 1; y)`` (A&S 26.5.23 with 15.3.3), its terms in logs: log(0) was -inf, float64
    logcdf(1e-12, 50, 0.5) (true -1384.08; SciPy and JAX -inf too)."""
    x, a, b, loc, scale = _promote("beta.logcdf", x, a, b, loc, scale)
    c = cdf(x, a, b, loc, scale)
    y = jnp.clip((x - loc) / scale, 0, 1)
    half_mean = 0.5 * a / (a + b)
    underflows = (c < jnp.finfo(c.dtype).tiny) & (y > 0) & (y < half_mean)
    tail = _log_lower_series(jnp.where(underflows, y, 0.5 * half_mean), a, b)
    small = c < 0.5
    log_c = jnp.log(jnp.where(small & ~underflows, c, 0.25))  # (unused branches: 1/4, as
    log1m = jnp.log1p(-jnp.where(small, 0.25, sf(x, a, b, loc, scale)))  # log's slope at 0
    return jnp.where(underflows, tail, jnp.where(small, log_c, log1m))  # would make NaNs)


def _log_lower_series(y, a, b):
    """log I_y(a, b) for 0 < y < a / (2 (a + b)): the hypergeometric series' term ratio
    (a + b + n) y / (a + 1 + n) stays below 1/2 there, so 64 terms leave < 1e-19."""
    term, total = jnp.ones_like(y), jnp.ones_like(y)
    for n in range(64):
        term = term * ((a + b + n) / (a + 1 + n)) * y
        total = total + term
    return (a * jnp.log(y) + b * jnp.log1p(-y) - jnp.log(a) - special.betaln(a, b)
            + jnp.log(total))


def sf(x, a, b, loc=0, scale=1):
    """Survival function, ``I_{1-y}(b, a)`` or ``1 - I_y(a, b)``, whichever is the more
    accurate here. ``I_{1-y}(b, a)`` has no cancellation, but its argument ``1 - y``
    rounds (float32 ``y = 3e-11`` is lost: ``I_1 = 1`` for an sf of 0.033 when ``a`` is
    0.0014; JAX 0.10.2 gives that 1 too); ``1 - I_y(a, b)`` cancels where the CDF nears 1
    (an sf of 3e-16 at ``y = 0.3``, ``a = 1``, ``b = 100`` became 0). Their relative
    errors are about ``eps / sf`` and ``pdf(y) * |round(1 - y) - (1 - y)| / sf``; the
    latter is first order, so ``I_{1-y}(b, a)`` is corrected by ``pdf(y)`` times that
    rounding (float64 sf(0.9999, 50, 50)'s log was 53 ulps off, float32 at y = 0.316,
    a = 0.5, b = 50 30 ulps), leaving the second-order term
    ``pdf(y) * lost**2 * |d log pdf / dy|`` as its error estimate."""
    x, a, b, loc, scale = _promote("beta.sf", x, a, b, loc, scale)
    y = jnp.clip((x - loc) / scale, 0, 1)
    t = 1 - y
    lost = (1 - t) - y  # (1 - y) - t, exactly (Sterbenz for y <= 1/2)
    density = jnp.exp(logpdf(jnp.where(lost != 0, y, 0.5), a, b))
    by_complement = special.betainc(b, a, t) + jnp.where(lost != 0, density * lost, 0)
    by_cdf = 1 - special.betainc(a, b, y)
    safe_y = jnp.where(lost != 0, y, 0.5)
    slope = jnp.abs(a - 1) / safe_y + jnp.abs(b - 1) / (1 - safe_y)   # |d log pdf / dy|
    second = jnp.abs(lost) * jnp.minimum(1.0, jnp.abs(lost) * slope)
    err_complement = jnp.where(lost != 0, density * second, 0) / by_complement
    err_cdf = jnp.finfo(y.dtype).eps / by_cdf
    return jnp.where((y >= 0.5) | (err_complement <= err_cdf), by_complement, by_cdf)


def logsf(x, a, b, loc=0, scale=1):
    """``log(sf)``; ``log1p(-cdf)`` where the survival function is near 1."""
    s = sf(x, a, b, loc, scale)
    return jnp.where(s < 0.5, jnp.log(s), jnp.log1p(-cdf(x, a, b, loc, scale)))

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda a, b, scale, **_: (a > 0) & (b > 0) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
