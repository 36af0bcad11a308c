"""The Dirichlet distribution (``jax.scipy.stats.dirichlet``). As in SciPy, ``x``'s
first axis holds the K components (or K - 1, the last then being 1 - their sum)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import cast_inexact as _cast_inexact


def logpdf(x, alpha):
    """Log density of ``x`` (shape (K, ...) or (K-1, ...)) given ``alpha`` of shape (K,);
    -inf off the open simplex."""
    x, alpha = _cast_inexact("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"dirichlet.logpdf: alpha must be 1-D, got shape {alpha.shape}")
    k = alpha.shape[0]
    if x.ndim == 0 or x.shape[0] not in (k, k - 1):
        raise ValueError(f"dirichlet.logpdf: x must have {k} or {k - 1} entries along its "
                         f"first axis to match alpha's {k}, got shape {x.shape}")
    if x.shape[0] == k - 1:
        x = jnp.concatenate([x, 1 - jnp.sum(x, axis=0, keepdims=True)], axis=0)
    alpha = jnp.reshape(alpha, (k,) + (1,) * (x.ndim - 1))
    normalize = jnp.sum(special.gammaln(alpha), axis=0) - special.gammaln(jnp.sum(alpha, axis=0))
    log_probs = jnp.sum(special.xlogy(alpha - 1, x), axis=0) - normalize
    # x on the open simplex: positive entries summing to 1 (to rounding)
    tol = 1e-6 if x.dtype == np.float32 else 1e-10
    on_simplex = jnp.all(x > 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1) < tol)
    return jnp.where(on_simplex, log_probs, -np.inf)


def pdf(x, alpha):
    """Density of the Dirichlet distribution."""
    return jnp.exp(logpdf(x, alpha))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
