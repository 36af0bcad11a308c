"""``tjit.scipy.interpolate``: ``RegularGridInterpolator``, as
``jax.scipy.interpolate`` (linear and nearest interpolation on a rectilinear grid).

The interpolator is a pytree (grid, values and fill value are its leaves), so it can be
built outside ``jit`` and passed in, or built from traced values inside.
"""

import itertools

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import concrete_value, is_concrete
from tjit.tracing.shapes import shape_str
from tjit.tracing.tree_util import register_pytree_node
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact

_METHODS = ("linear", "nearest")


class RegularGridInterpolator:
    """Interpolation of ``values`` given on the grid ``points`` (one strictly ascending or
    descending 1-D array per leading dim of ``values``), as
    ``scipy.interpolate.RegularGridInterpolator``.

    Args:
      points: a tuple of 1-D strictly monotonic arrays, the grid's coordinates per dim
        (checked when concrete; a traced grid is assumed monotonic).
      values: the data on the grid, shape ``(len(p) for p in points) + trailing``.
      method: 'linear' or 'nearest'.
      bounds_error: must be False (a traced point cannot raise); points outside the grid
        get ``fill_value``.
      fill_value: the value outside the grid; None extrapolates.
    """

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        if method not in _METHODS:
            raise ValueError(f"RegularGridInterpolator: method must be 'linear' or "
                             f"'nearest', got {method!r}")
        if bounds_error:
            raise NotImplementedError("RegularGridInterpolator: bounds_error=True is not "
                                      "supported (points may be traced); out-of-grid points "
                                      "get fill_value")
        check_arraylike("RegularGridInterpolator", values, *points)
        (values,) = promote_dtypes_inexact(jnp.asarray(values))
        if len(points) > values.ndim:
            raise ValueError(f"RegularGridInterpolator: {len(points)} point arrays but "
                             f"values has {values.ndim} dims (shape "
                             f"{shape_str(values.shape)})")
        grid = tuple(jnp.asarray(p) for p in points)
        for d, g in enumerate(grid):
            if g.ndim != 1 or g.shape[0] != values.shape[d]:
                raise ValueError(f"RegularGridInterpolator: points[{d}] of shape "
                                 f"{shape_str(g.shape)} must be 1-D with values.shape[{d}] "
                                 f"= {values.shape[d]} entries")
            if g.shape[0] < 2:
                raise ValueError(f"RegularGridInterpolator: points[{d}] needs at least 2 "
                                 f"entries, got {g.shape[0]}")
            _check_monotonic(d, g)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if dtypes.is_complex(fill_value.dtype) and not dtypes.is_complex(values.dtype):
                raise ValueError("RegularGridInterpolator: fill_value must be None or "
                                 "castable to values' dtype, got a complex fill_value "
                                 "for real values")
        self.method, self.bounds_error, self.fill_value = method, bounds_error, fill_value
        self.grid, self.values = grid, values

    def __call__(self, xi, method=None):
        """Interpolate at ``xi``: shape (..., ndim), or a tuple of ndim broadcastable
        coordinate arrays. Returns shape ``xi.shape[:-1] + values.shape[ndim:]``."""
        method = self.method if method is None else method
        if method not in _METHODS:
            raise ValueError(f"RegularGridInterpolator: method must be 'linear' or "
                             f"'nearest', got {method!r}")
        ndim = len(self.grid)
        xi = _coordinates(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f"RegularGridInterpolator: the points xi have dimension "
                             f"{xi.shape[-1]} (shape {shape_str(xi.shape)}), but the grid "
                             f"has dimension {ndim}")
        lead = xi.shape[:-1]
        xi = xi.reshape(-1, ndim)
        indices, fractions, outside = self._locate(xi)
        if method == "linear":
            result = self._linear(indices, fractions)
        else:
            result = self.values[tuple(_nearest_index(g, i, t)
                                       for g, i, t in zip(self.grid, indices, fractions))]
        trailing = (1,) * (result.ndim - 1)
        if self.fill_value is not None:
            mask = outside.reshape(outside.shape + trailing)
            result = jnp.where(mask, self.fill_value.astype(result.dtype), result)
        # a NaN coordinate gives NaN whatever the method and fill value (as SciPy; the
        # nearest method would otherwise pick a grid value)
        nans = jnp.any(jnp.isnan(xi), axis=-1).reshape((-1,) + trailing)
        result = jnp.where(nans, jnp.asarray(np.nan, result.dtype), result)
        return result.reshape(lead + self.values.shape[ndim:])

    def _locate(self, xi):
        """Per dim, the cell's lower index, the fraction across the cell, and whether
        the point is outside the grid (SciPy's ``_find_indices``)."""
        indices, fractions = [], []
        outside = jnp.zeros((xi.shape[0],), dtype=bool)
        for d, g in enumerate(self.grid):
            x = xi[:, d]
            # a descending grid is searched negated (ascending); the cell fraction and the
            # corner weights read the same either way
            flip = _descending(g)
            i = jnp.searchsorted(jnp.where(flip, -g, g), jnp.where(flip, -x, x))
            i = jnp.clip(i - 1, 0, g.shape[0] - 2)
            indices.append(i)
            fractions.append((x - g[i]) / (g[i + 1] - g[i]))
            lo, hi = jnp.minimum(g[0], g[-1]), jnp.maximum(g[0], g[-1])
            outside = outside | (x < lo) | (x > hi)
        return indices, fractions, outside

    def _linear(self, indices, fractions):
        """The weighted sum over the 2**ndim corners of each point's cell."""
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        result = 0.0
        for corner in itertools.product((0, 1), repeat=len(indices)):
            weight = 1.0
            for up, t in zip(corner, fractions):
                weight = weight * (t if up else 1 - t)
            idx = tuple(i + up for i, up in zip(indices, corner))
            result = result + self.values[idx] * weight[trailing]
        return result


def _descending(g):
    return g[-1] < g[0]


def _nearest_index(g, i, t):
    """The nearer corner of each cell; a tie goes to the smaller coordinate (SciPy flips a
    descending grid to ascending order, where a tie takes the lower index)."""
    return jnp.where(jnp.where(_descending(g), t < 0.5, t <= 0.5), i, i + 1)


def _check_monotonic(d, g):
    """SciPy's check that a (concrete) grid is strictly ascending or descending."""
    if not is_concrete(g):
        return
    steps = np.diff(np.asarray(concrete_value(g)))
    if not (np.all(steps > 0) or np.all(steps < 0)):
        raise ValueError(f"RegularGridInterpolator: the points in dimension {d} must be "
                         f"strictly ascending or descending, got {np.asarray(g)}")


def _coordinates(xi, ndim):
    """``xi`` as an array of shape (..., ndim): a tuple of coordinate arrays is
    broadcast and stacked on the last axis (SciPy's ``_ndim_coords_from_arrays``)."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        check_arraylike("RegularGridInterpolator", *xi)
        parts = promote_dtypes_inexact(*[jnp.asarray(p) for p in xi])
        return jnp.stack(jnp.broadcast_arrays(*parts), axis=-1)
    check_arraylike("RegularGridInterpolator", xi)
    (xi,) = promote_dtypes_inexact(jnp.asarray(xi))
    return xi.reshape(-1, ndim) if xi.ndim == 1 else xi


register_pytree_node(
    RegularGridInterpolator,
    lambda r: ((r.grid, r.values, r.fill_value), (r.method, r.bounds_error)),
    lambda aux, children: RegularGridInterpolator(children[0], children[1], *aux,
                                                  children[2]))

__all__ = ["RegularGridInterpolator"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
