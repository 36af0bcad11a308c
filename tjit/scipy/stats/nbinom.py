"""The negative binomial distribution (``jax.scipy.stats.nbinom``): the number of
failures before the n-th success of Bernoulli(p) trials,
``pmf(k) = C(k + n - 1, k) p**n (1 - p)**k`` for k = 0, 1, ... (n may be real)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import (
    integral_shift as _integral_shift,
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpmf(k, n, p, loc=0):
    """``log C(k + n - 1, k) + n log p + k log1p(-p)`` for integer k >= 0 (shifted by
    ``loc``), -inf elsewhere."""
    k, n, p, loc = _promote("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    # log C(y + n - 1, y) = -log(y + n) - betaln(n, y + 1): betaln's Stirling differences,
    # where JAX's gammaln(y + n) - gammaln(n) - gammaln(y + 1) cancelled (float32 at
    # n = 1e6 the sum was off by ~1: logpmf(1, 1e6, 0.999999) -1.82, true -1.00009)
    comb = jnp.where(y == 0, 0.0, -jnp.log(y + n) - special.betaln(n, y + 1))
    log_probs = comb + special.xlogy(n, p) + special.xlog1py(y, -p)
    return jnp.where((y >= 0) & _integral_shift(k, loc), log_probs,
                     jnp.where(jnp.isnan(y), np.nan, -np.inf))  # (NaN k or loc)


def pmf(k, n, p, loc=0):
    """Probability mass function."""
    return jnp.exp(logpmf(k, n, p, loc))

# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda n, p, **_: (n > 0) & (p >= 0) & (p <= 1))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
