"""The Bernoulli distribution (``jax.scipy.stats.bernoulli``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    integral_shift as _integral_shift,
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpmf(k, p, loc=0):
    """``log p`` at k = 1, ``log(1 - p)`` at k = 0 (shifted by ``loc``), -inf elsewhere."""
    k, p, loc = _promote("bernoulli.logpmf", k, p, loc)
    integral = _integral_shift(k, loc)
    k = k - loc
    log_probs = special.xlogy(k, p) + special.xlog1py(1 - k, -p)
    return jnp.where(((k == 0) | (k == 1)) & integral, log_probs,
                     jnp.where(jnp.isnan(k), np.nan, -np.inf))


def pmf(k, p, loc=0):
    """Probability mass function."""
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    """0 below 0, ``1 - p`` on [0, 1), 1 from 1 on; NaN for p outside [0, 1]."""
    k, p = _promote("bernoulli.cdf", k, p)
    out = jnp.where(k < 0, 0.0, jnp.where(k < 1, 1 - p, 1.0))
    return jnp.where((p < 0) | (p > 1) | jnp.isnan(k), np.nan, out)


def ppf(q, p):
    """The smallest k with ``cdf(k) >= q``: -1 at q = 0 (SciPy's convention), 0 up to
    ``1 - p``, 1 above; NaN for q or p outside [0, 1]."""
    q, p = _promote("bernoulli.ppf", q, p)
    # (of q's dtype: the Python-float choices alone would be x64's float64)
    out = jnp.where(q == 0, -1.0, jnp.where(q <= 1 - p, 0.0, 1.0)).astype(q.dtype)
    return jnp.where((q < 0) | (q > 1) | (p < 0) | (p > 1) | jnp.isnan(q), np.nan, out)

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda p, **_: (p >= 0) & (p <= 1))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
