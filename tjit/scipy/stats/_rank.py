"""``mode`` and ``rankdata`` (``jax.scipy.stats.mode`` / ``rankdata``), built on sorts."""

import collections
import math

import numpy as np

from tjit.tracing import dtypes
from tjit import numpy as jnp
from tjit.tracing.errors import AxisError, static_index
from tjit.tracing.shapes import normalize_axis
from tjit.transforms.batching import vmap

ModeResult = collections.namedtuple("ModeResult", ["mode", "count"])


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along ``axis`` (the smallest among ties) and its count.

    Args:
      a: input array. axis: int or None (flattened). nan_policy: only "propagate"
      (NaNs count as one value, ranked above every number, as SciPy's and JAX's
      ``unique``). keepdims: keep the reduced axis (every axis for ``axis=None``) as
      size 1.

    Returns:
      ``ModeResult(mode, count)``; along an empty axis NaN and 0 in the default float
      dtype (JAX's; SciPy's are float64 too).
    """
    if nan_policy != "propagate":
        raise NotImplementedError(f"mode: nan_policy={nan_policy!r} is not supported; "
                                  f"only 'propagate' (as in JAX)")
    a = jnp.atleast_1d(jnp.asarray(a))
    if axis is None:
        kept_shape = (1,) * a.ndim
        a, axis = jnp.ravel(a), 0
    else:
        axis = normalize_axis(static_index(axis, "axis", "scipy.stats.mode"), a.ndim,
                              "scipy.stats.mode")
        kept_shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
    x = jnp.moveaxis(a, axis, -1)
    if x.shape[-1] == 0:
        m = jnp.full(x.shape[:-1], np.nan, dtypes.default_float())
        c = jnp.zeros(x.shape[:-1], dtypes.default_float())
    else:
        m, c = _mode_last_axis(x)
    if keepdims:
        m, c = jnp.reshape(m, kept_shape), jnp.reshape(c, kept_shape)
    return ModeResult(m, c)


def _mode_last_axis(x):
    """Mode and count along the last (non-empty) axis, NaNs equal to each other."""
    same = x[..., :, None] == x[..., None, :]
    if jnp.issubdtype(x.dtype, jnp.inexact):
        nan = jnp.isnan(x)
        same = same | (nan[..., :, None] & nan[..., None, :])
    counts = jnp.sum(same, axis=-1)
    best = jnp.max(counts, axis=-1, keepdims=True)
    # among the values of maximal count the smallest, NaN last (sorted-unique order):
    # sort each row with NaN last and take the first element of maximal count
    order = jnp.argsort(x, axis=-1, stable=True)
    ranked_counts = jnp.take_along_axis(counts, order, axis=-1)
    first = jnp.argmax(ranked_counts == best, axis=-1, keepdims=True)
    m = jnp.take_along_axis(jnp.take_along_axis(x, order, axis=-1), first, axis=-1)
    return m[..., 0], best[..., 0]


_METHODS = ("average", "min", "max", "dense", "ordinal")


def _rank_1d(x, method):
    """Ranks of a 1-D array as the default float dtype, as JAX's rankdata (SciPy's are
    float64 for 'average', int64 otherwise)."""
    n = x.shape[0]
    out_dtype = dtypes.default_float()
    order = jnp.argsort(x, stable=True)
    if method == "ordinal":
        return jnp.zeros(n, out_dtype).at[order].set(jnp.arange(1, n + 1, dtype=out_dtype))
    s = x[order]
    if method == "dense":
        new = jnp.concatenate([jnp.ones(1, bool), s[1:] != s[:-1]])
        dense = jnp.cumsum(new.astype(out_dtype))
        return jnp.zeros(n, out_dtype).at[order].set(dense)
    lo = (jnp.searchsorted(s, x, side="left") + 1).astype(out_dtype)  # 1 + # smaller
    hi = jnp.searchsorted(s, x, side="right").astype(out_dtype)  # number <= x
    if method == "min":
        return lo
    if method == "max":
        return hi
    return (lo + hi) / 2


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
    # the row count spelled out: -1 cannot be inferred when the ranked axis is empty
    flat = jnp.reshape(x, (math.prod(x.shape[:-1]), x.shape[-1]))
    out = vmap(lambda r: _rank_1d(r, method))(flat)
    if jnp.issubdtype(a.dtype, jnp.floating):
        out = _nan_rows(flat, out, -1)
    return jnp.moveaxis(jnp.reshape(out, x.shape), -1, axis)


def _nan_rows(x, ranks, axis):
    has_nan = jnp.any(jnp.isnan(x), axis=axis, keepdims=axis is not None)
    return jnp.where(has_nan, np.nan, ranks)
