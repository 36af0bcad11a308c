"""The geometric distribution (``jax.scipy.stats.geom``): the number of Bernoulli(p)
trials up to the first success, ``pmf(k) = (1 - p)**(k - 1) p`` for k = 1, 2, ..."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    integral_shift as _integral_shift,
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpmf(k, p, loc=0):
    """``(k - 1) log1p(-p) + log p`` for integer k >= 1 (shifted by ``loc``), -inf
    elsewhere."""
    k, p, loc = _promote("geom.logpmf", k, p, loc)
    y = k - loc
    log_probs = special.xlog1py(y - 1, -p) + jnp.log(p)
    return jnp.where((y >= 1) & _integral_shift(k, loc), log_probs,
                     jnp.where(jnp.isnan(y), np.nan, -np.inf))  # (NaN k or loc)


def pmf(k, p, loc=0):
    """Probability mass function."""
    return jnp.exp(logpmf(k, p, loc))

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda p, **_: (p > 0) & (p <= 1))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
