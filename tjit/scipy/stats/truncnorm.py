"""The normal distribution truncated to ``[a, b]`` in standardized units
(``jax.scipy.stats.truncnorm``). Probabilities are computed in logs from ``log_ndtr``
on the side of 0 where the mass lies, so bounds far in a tail keep full accuracy."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats import norm
from tjit.scipy.stats._util import (
    log_diff_exp as _log_diff_exp,
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def _log_gauss_mass(a, b):
    """``log(ndtr(b) - ndtr(a))`` for a <= b (JAX's and SciPy's case split)."""
    # both bounds right of 0: use the upper tail; both left: the lower; else the middle
    right = a > 0
    left = b < 0
    mid = jnp.log1p(-special.ndtr(jnp.where(right | left, 0.0, a)) -
                    special.ndtr(-jnp.where(right | left, 0.0, b)))
    a_r, b_r = jnp.where(right, a, 1.0), jnp.where(right, b, 2.0)
    a_l, b_l = jnp.where(left, a, -2.0), jnp.where(left, b, -1.0)
    on_right = _log_diff_exp(special.log_ndtr(-a_r), special.log_ndtr(-b_r))
    on_left = _log_diff_exp(special.log_ndtr(b_l), special.log_ndtr(a_l))
    return jnp.where(right, on_right, jnp.where(left, on_left, mid))


def _log_cdf_and_sf(y, a, b):
    """``(log cdf, log sf)`` at standardized ``y`` in [a, b]. Each as a ratio of masses,
    except near 0 (above -0.1), where the ratio's rounding (the mass of [a, y] is that
    of [a, b] to the last bit when y is far in the upper tail) would leave 0 for a log
    of -1e-29: there ``log1p(-exp(other))``, as SciPy and JAX do."""
    log_ab = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, y) - log_ab
    log_sf = _log_gauss_mass(y, b) - log_ab
    return (jnp.where(log_cdf > -0.1, jnp.log1p(-jnp.exp(log_sf)), log_cdf),
            jnp.where(log_sf > -0.1, jnp.log1p(-jnp.exp(log_cdf)), log_sf))


def logpdf(x, a, b, loc=0, scale=1):
    """Log density on ``[loc + a scale, loc + b scale]``, -inf outside."""
    x, a, b, loc, scale = _promote("truncnorm.logpdf", x, a, b, loc, scale)
    y = (x - loc) / scale
    out = norm.logpdf(y) - _log_gauss_mass(a, b) - jnp.log(scale)
    return jnp.where((y < a) | (y > b), -np.inf, out)


def pdf(x, a, b, loc=0, scale=1):
    """Density of the truncated normal."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x, a, b, loc=0, scale=1):
    """``log(cdf)``: the log mass of [a, y] over that of [a, b]."""
    x, a, b, loc, scale = _promote("truncnorm.logcdf", x, a, b, loc, scale)
    y = jnp.clip((x - loc) / scale, a, b)
    out = _log_cdf_and_sf(y, a, b)[0]
    return jnp.where(y <= a, -np.inf, jnp.where(y >= b, 0.0, out))


def cdf(x, a, b, loc=0, scale=1):
    """CDF of the truncated normal."""
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    """``log(sf)``: the log mass of [y, b] over that of [a, b]."""
    x, a, b, loc, scale = _promote("truncnorm.logsf", x, a, b, loc, scale)
    y = jnp.clip((x - loc) / scale, a, b)
    out = _log_cdf_and_sf(y, a, b)[1]
    return jnp.where(y >= b, -np.inf, jnp.where(y <= a, 0.0, out))


def sf(x, a, b, loc=0, scale=1):
    """Survival function of the truncated normal."""
    return jnp.exp(logsf(x, a, b, loc, scale))

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda a, b, scale, **_: (a < b) & (scale > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
