"""The binomial distribution (``jax.scipy.stats.binom``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import integral_shift, nan_outside_parameter_domain, promote


def logpmf(k, n, p, loc=0):
    """``log C(n, k) + k log p + (n - k) log(1 - p)`` for integer k in [0, n] (shifted
    by ``loc``), -inf elsewhere."""
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb = special.gammaln(n + 1) - special.gammaln(y + 1) - special.gammaln(n - y + 1)
    log_probs = comb + special.xlogy(y, p) + special.xlog1py(n - y, -p)
    return jnp.where((y >= 0) & (y <= n) & integral_shift(k, loc), log_probs,
                     jnp.where(jnp.isnan(y), np.nan, -np.inf))  # (NaN k or loc)


def pmf(k, n, p, loc=0):
    """Probability mass function."""
    return jnp.exp(logpmf(k, n, p, loc))

# SciPy's parameter domain; NaN outside it.
nan_outside_parameter_domain(globals(), lambda n, p, **_: (n >= 0) & (n == jnp.floor(n)) & (p >= 0) & (p <= 1))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
