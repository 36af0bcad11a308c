"""``sem`` (``jax.scipy.stats.sem``): the standard error of the mean."""

from tjit import numpy as jnp
from tjit.numpy._core import promote_args_inexact
from tjit.tracing.shapes import normalize_axis


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """Standard error of the mean, ``std(a, ddof) / sqrt(n)``, as ``scipy.stats.sem``.

    Args:
      a: input array (integers are promoted to the default float).
      axis: the axis to reduce; None flattens the input first.
      ddof: delta degrees of freedom of the standard deviation.
      nan_policy: "propagate" (a NaN makes its result NaN) or "omit" (NaNs are left out
        of both the deviation and the count), the two JAX supports.
      keepdims: keep the reduced axis with size 1.

    Returns:
      the standard error along ``axis``.

    >>> import tjit.scipy.stats
    >>> tjit.scipy.stats.sem(jnp.array([2.0, 4.0, 1.0, 1.0, 3.0]))
    Array(0.58309513, dtype=float32)
    """
    b, = promote_args_inexact("scipy.stats.sem", a)
    if nan_policy not in ("propagate", "omit"):
        raise ValueError(f"scipy.stats.sem: nan_policy={nan_policy!r} is not supported; "
                         f"use 'propagate' or 'omit' (as in jax.scipy.stats.sem)")
    if axis is not None:
        axis = normalize_axis(axis, b.ndim, "scipy.stats.sem")
    if nan_policy == "omit":
        count = jnp.sum(~jnp.isnan(b), axis=axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(
            b.dtype)
    size = b.size if axis is None else b.shape[axis]
    return jnp.std(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(
        jnp.asarray(size, b.dtype))
