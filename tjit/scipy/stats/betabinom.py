"""The beta-binomial distribution (``jax.scipy.stats.betabinom``): a binomial(n, p)
with p drawn from Beta(a, b); ``pmf(k) = C(n, k) B(k + a, n - k + b) / B(a, b)`` for
k = 0, ..., n."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    integral_shift as _integral_shift,
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpmf(k, n, a, b, loc=0):
    """Log mass for integer k in [0, n] (shifted by ``loc``), -inf elsewhere;
    ``log C(n, k)`` as ``-log1p(n) - betaln(n - k + 1, k + 1)``."""
    k, n, a, b, loc = _promote("betabinom.logpmf", k, n, a, b, loc)
    y = k - loc
    inside = (y >= 0) & (y <= n) & _integral_shift(k, loc)
    ys = jnp.where(inside, y, 0.0)  # keeps betaln's arguments positive off the support
    log_comb = -jnp.log1p(n) - special.betaln(n - ys + 1, ys + 1)
    log_probs = log_comb + special.betaln(ys + a, n - ys + b) - special.betaln(a, b)
    return jnp.where(inside, log_probs, jnp.where(jnp.isnan(y), np.nan, -np.inf))


def pmf(k, n, a, b, loc=0):
    """Probability mass function."""
    return jnp.exp(logpmf(k, n, a, b, loc))

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(
    globals(), lambda n, a, b, **_: (n >= 0) & (n == jnp.floor(n)) & (a > 0) & (b > 0))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
