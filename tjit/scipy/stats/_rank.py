"""``mode`` and ``rankdata`` (``jax.scipy.stats.mode`` / ``rankdata``), built on sorts."""

import collections

import numpy as np

from tjit import numpy as jnp
from tjit.tracing.errors import AxisError, static_index
from tjit.tracing.shapes import normalize_axis
from tjit.transforms.batching import vmap

ModeResult = collections.namedtuple("ModeResult", ["mode", "count"])


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along ``axis`` (the smallest among ties) and its count.

    Args:
      a: input array. axis: int or None (flattened). nan_policy: only "propagate"
      (NaNs count as distinct values, as JAX). keepdims: keep ``axis`` as size 1.
    """
    if nan_policy != "propagate":
        raise NotImplementedError(f"mode: nan_policy={nan_policy!r} is not supported; "
                                  f"only 'propagate' (as in JAX)")
    a = jnp.asarray(a)
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = static_index(axis, "axis", "scipy.stats.mode")
    if a.ndim == 0:
        a, axis = jnp.reshape(a, (1,)), 0
    x = jnp.moveaxis(a, axis, -1)
    if x.shape[-1] == 0:
        raise ValueError("mode: the reduced axis is empty")
    counts = jnp.sum(x[..., :, None] == x[..., None, :], axis=-1)
    best = jnp.max(counts, axis=-1, keepdims=True)
    # among the values of maximal count, the smallest (SciPy's choice)
    # (the int max as a NumPy scalar of x's dtype: uint32's is no Python int jnp takes)
    fill = jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else \
        np.asarray(jnp.iinfo(x.dtype).max, x.dtype)
    m = jnp.min(jnp.where(counts == best, x, fill), axis=-1)
    c = best[..., 0]
    if keepdims:
        m, c = jnp.expand_dims(m, axis % a.ndim), jnp.expand_dims(c, axis % a.ndim)
    return ModeResult(m, c)


_METHODS = ("average", "min", "max", "dense", "ordinal")


def _rank_1d(x, method):
    n = x.shape[0]
    order = jnp.argsort(x, stable=True)
    if method == "ordinal":
        return jnp.zeros(n, jnp.int32).at[order].set(jnp.arange(1, n + 1, dtype=jnp.int32))
    s = x[order]
    if method == "dense":
        new = jnp.concatenate([jnp.ones(1, bool), s[1:] != s[:-1]])
        dense = jnp.cumsum(new.astype(jnp.int32))
        return jnp.zeros(n, jnp.int32).at[order].set(dense)
    lo = jnp.searchsorted(s, x, side="left") + 1  # 1 + number of smaller elements
    hi = jnp.searchsorted(s, x, side="right")  # number of elements <= x
    if method == "min":
        return lo
    if method == "max":
        return hi
    return (lo + hi) / 2  # the default float dtype, as SciPy's float64


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks (1-based) of ``a``'s elements, ties resolved by ``method`` ("average",
    "min", "max", "dense", "ordinal"), over the flattened array or along ``axis``.
    With ``nan_policy="propagate"`` a row holding NaN ranks as all NaN (SciPy)."""
    if method not in _METHODS:
        raise ValueError(f"rankdata: unknown method {method!r}; one of {_METHODS}")
    if nan_policy not in ("propagate", "omit"):
        raise ValueError(f"rankdata: nan_policy must be 'propagate' or 'omit', got "
                         f"{nan_policy!r}")
    if nan_policy == "omit":
        raise NotImplementedError("rankdata: nan_policy='omit' is not supported (as in JAX)")
    a = jnp.asarray(a)
    if axis is None:
        x = jnp.ravel(a)
        out = _rank_1d(x, method)
        return _nan_rows(x, out, None) if jnp.issubdtype(a.dtype, jnp.floating) else out
    # checked, not wrapped: axis=4 of a rank-2 array is an error (SciPy's, JAX's)
    if a.ndim == 0:
        raise AxisError(f"rankdata: axis {axis} is out of bounds for a 0-d array; use "
                        f"axis=None")
    axis = normalize_axis(axis, a.ndim, "rankdata")
    x = jnp.moveaxis(a, axis, -1)
    flat = jnp.reshape(x, (-1, x.shape[-1]))
    out = vmap(lambda r: _rank_1d(r, method))(flat)
    if jnp.issubdtype(a.dtype, jnp.floating):
        out = _nan_rows(flat, out, -1)
    return jnp.moveaxis(jnp.reshape(out, x.shape), -1, axis)


def _nan_rows(x, ranks, axis):
    has_nan = jnp.any(jnp.isnan(x), axis=axis, keepdims=axis is not None)
    return jnp.where(has_nan, np.nan, ranks)
