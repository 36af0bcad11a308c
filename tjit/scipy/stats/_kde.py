"""Gaussian kernel density estimation (``jax.scipy.stats.gaussian_kde``)."""

import numpy as np

from tjit import lax, random
from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._util import cast_inexact
from tjit.tracing.tree_util import register_pytree_node_class


@register_pytree_node_class
class gaussian_kde:
    """A Gaussian KDE of ``dataset`` (shape (d, n), or (n,) for d = 1).

    Args:
      dataset: the n points.
      bw_method: "scott" (default), "silverman", a scalar factor or a callable of the kde.
      weights: optional non-negative weights of the points (normalized to sum 1).

    The kernel covariance is the weighted data covariance times ``factor**2``. A kde is a
    pytree (of its arrays), so it can be passed to and returned from jitted functions.
    """

    _FIELDS = ("neff", "dataset", "weights", "factor", "covariance", "inv_cov")

    def tree_flatten(self):
        return tuple(getattr(self, f) for f in self._FIELDS), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        kde = object.__new__(cls)
        for f, v in zip(cls._FIELDS, children):
            setattr(kde, f, v)
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def __init__(self, dataset, bw_method=None, weights=None):
        dataset = jnp.atleast_2d(cast_inexact("gaussian_kde", dataset)[0])
        d, n = dataset.shape
        if n < 2:
            raise ValueError(f"gaussian_kde: the dataset needs more than one point, got "
                             f"shape {dataset.shape}")
        if weights is None:
            weights = jnp.full((n,), 1.0 / n, dtype=dataset.dtype)
        else:
            weights = jnp.atleast_1d(jnp.asarray(weights, dtype=dataset.dtype))
            if weights.shape != (n,):
                raise ValueError(f"gaussian_kde: weights must have shape ({n},), got "
                                 f"{weights.shape}")
            weights = weights / jnp.sum(weights)
        self.dataset, self.weights = dataset, weights
        self.neff = 1.0 / jnp.sum(weights * weights)
        if bw_method is None or bw_method == "scott":
            factor = self.neff ** (-1.0 / (d + 4))
        elif bw_method == "silverman":
            factor = (self.neff * (d + 2) / 4.0) ** (-1.0 / (d + 4))
        elif callable(bw_method):
            factor = bw_method(self)
        elif np.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        else:
            raise ValueError(f"gaussian_kde: bw_method must be 'scott', 'silverman', a "
                             f"scalar or a callable, got {bw_method!r}")
        self.factor = factor
        mean = jnp.sum(dataset * weights, axis=1, keepdims=True)
        centered = dataset - mean
        # SciPy's weighted unbiased covariance (np.cov with aweights)
        data_cov = (centered * weights) @ centered.T / (1 - jnp.sum(weights * weights))
        self.covariance = data_cov * factor ** 2
        self.inv_cov = jnp.linalg.inv(self.covariance)

    def _log_kernel_sums(self, points, cov):
        """log sum_i w_i N(points_j; data_i, cov) for each point j."""
        points = jnp.atleast_2d(cast_inexact("gaussian_kde", points)[0]).astype(
            self.dataset.dtype)
        if points.shape[0] != self.d:
            if points.shape == (1, self.d):
                points = points.T
            else:
                raise ValueError(f"gaussian_kde: points have dimension {points.shape[0]}, "
                                 f"the dataset {self.d}")
        L = jnp.linalg.cholesky(cov)
        diff = self.dataset[:, :, None] - points[:, None, :]  # (d, n, m)
        z = lax.linalg.triangular_solve(L, jnp.reshape(diff, (self.d, -1)), left_side=True,
                                        lower=True)
        energy = 0.5 * jnp.sum(jnp.reshape(z * z, diff.shape), axis=0)  # (n, m)
        log_norm = jnp.sum(jnp.log(jnp.diagonal(L))) + 0.5 * self.d * float(np.log(2 * np.pi))
        return special.logsumexp(-energy, axis=0, b=self.weights[:, None]) - log_norm

    def evaluate(self, points):
        """The density at ``points`` (shape (d, m), or (m,) for d = 1)."""
        return jnp.exp(self._log_kernel_sums(points, self.covariance))

    __call__ = evaluate
    pdf = evaluate

    def logpdf(self, points):
        """The log density at ``points``, stable where the density underflows."""
        return self._log_kernel_sums(points, self.covariance)

    def integrate_gaussian(self, mean, cov):
        """The integral of the kde times the Gaussian N(mean, cov)."""
        mean = jnp.reshape(jnp.asarray(mean, dtype=self.dataset.dtype), (self.d, 1))
        cov = jnp.reshape(jnp.asarray(cov, dtype=self.dataset.dtype), (self.d, self.d))
        return jnp.exp(self._log_kernel_sums(mean, self.covariance + cov))[0]

    def integrate_box_1d(self, low, high):
        """The kde's mass on ``[low, high]`` (one-dimensional data only)."""
        if self.d != 1:
            raise ValueError("gaussian_kde.integrate_box_1d: the data must be 1-D")
        std = jnp.sqrt(self.covariance[0, 0])
        lo = special.ndtr((low - self.dataset[0]) / std)
        hi = special.ndtr((high - self.dataset[0]) / std)
        return jnp.sum(self.weights * (hi - lo))

    def integrate_kde(self, other):
        """The integral of the product of this kde and ``other``."""
        if other.d != self.d:
            raise ValueError(f"gaussian_kde.integrate_kde: dimensions differ ({self.d} and "
                             f"{other.d})")
        dens = jnp.exp(self._log_kernel_sums(other.dataset, self.covariance + other.covariance))
        return jnp.sum(other.weights * dens)

    def resample(self, key, shape=()):
        """``shape`` samples (returned with shape (d,) + shape): a weighted choice of data
        points plus kernel noise."""
        shape = tuple(shape)
        size = int(np.prod(shape)) if shape else 1
        k1, k2 = random.split(key)
        idx = random.choice(k1, self.n, shape=(size,), p=self.weights)
        noise = random.normal(k2, (self.d, size), dtype=self.dataset.dtype)
        out = self.dataset[:, idx] + jnp.linalg.cholesky(self.covariance) @ noise
        return jnp.reshape(out, (self.d,) + shape)
