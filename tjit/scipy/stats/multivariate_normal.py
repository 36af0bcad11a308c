"""The multivariate normal distribution (``jax.scipy.stats.multivariate_normal``)."""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.scipy.stats._util import cast_inexact as _cast_inexact

_LOG_2PI = float(np.log(2 * np.pi))  # (a Python float: np.float64 would promote float32)


def logpdf(x, mean, cov, allow_singular=None):
    """Log density of ``x`` (shape (..., n)) for ``mean`` (..., n) and ``cov`` (..., n, n)
    (a scalar ``cov`` is a multiple of the identity; with a scalar ``mean`` everything
    is one-dimensional). Uses the Cholesky factor of ``cov``."""
    if allow_singular is not None:
        raise NotImplementedError("multivariate_normal.logpdf: allow_singular is not "
                                  "supported (as in JAX)")
    x, mean, cov = _cast_inexact("multivariate_normal.logpdf", x, mean, cov)
    if mean.ndim == 0:
        y = x - mean
        return -0.5 * y * y / cov - 0.5 * (_LOG_2PI + jnp.log(cov))
    n = mean.shape[-1]
    y = x - mean
    if cov.ndim == 0:
        return -0.5 * jnp.sum(y * y, axis=-1) / cov - n / 2 * (_LOG_2PI + jnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError(f"multivariate_normal.logpdf: cov must have shape (..., {n}, {n}) "
                         f"to match mean's last dim {n}, got {cov.shape}")
    L = jnp.linalg.cholesky(cov)
    batch = jnp.broadcast_shapes(y.shape[:-1], L.shape[:-2])
    L = jnp.broadcast_to(L, batch + (n, n))
    y = jnp.broadcast_to(y, batch + (n,))
    z = lax.linalg.triangular_solve(L, y[..., None], left_side=True, lower=True)[..., 0]
    log_det = jnp.sum(jnp.log(jnp.diagonal(L, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * jnp.sum(z * z, axis=-1) - log_det - n / 2 * _LOG_2PI


def pdf(x, mean, cov):
    """Density of the multivariate normal."""
    return jnp.exp(logpdf(x, mean, cov))

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
