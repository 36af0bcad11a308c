"""``tjit.scipy.ndimage``: ``map_coordinates`` with nearest (order 0) and linear
(order 1) interpolation, as ``jax.scipy.ndimage``.

Each output point is a weighted sum over the ``2**ndim`` (order 1) or one (order 0)
neighbouring grid points, each read with one gather, so the result is differentiable in
the input (and, for order 1, in the coordinates) and batches under ``vmap``. Out-of-range
neighbours are mapped back by the boundary mode, or count as ``cval`` in 'constant'.
As in JAX, the modes mean what SciPy documents: 'constant' and 'wrap' give what SciPy
computes under 'grid-constant' and 'grid-wrap' (its 'constant' does not interpolate
towards cval, and its 'wrap' has period size - 1).
"""

import functools
import itertools
import operator

from tjit.tracing import dtypes
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike


def _mirror(index, size):
    # a triangular wave of half-period size - 1: ... 2 1 0 1 2 ... (size-1) (size-2) ...
    s = size - 1
    if s == 0:
        return jnp.zeros_like(index)
    return jnp.abs((index + s) % (2 * s) - s)


def _reflect(index, size):
    # the mirror of the doubled grid halved: ... 1 0 0 1 ... (size-1) (size-1) ...
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS = {
    "constant": lambda index, size: jnp.clip(index, 0, size - 1),  # masked by validity
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away_from_zero(x):
    return jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5) if dtypes.is_float(x.dtype) else x


def _nearest(coordinate):
    return [(_round_half_away_from_zero(coordinate).astype(jnp.int32), None)]


def _linear(coordinate):
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(jnp.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
    """Values of ``input`` at the given (fractional) coordinates, by interpolation.

    Args:
      input: an N-D array.
      coordinates: a sequence of N arrays of one shape: the points' coordinates along
        each axis of ``input``.
      order: 0 (nearest; halves round away from zero) or 1 (linear).
      mode: how points beyond the edges are read: 'constant' (as ``cval``), 'nearest'
        (the edge value), 'wrap' (periodic), 'mirror' (reflected about the edge points)
        or 'reflect' (reflected about the edges, repeating the edge point).
      cval: the value outside the input in 'constant' mode.

    Returns:
      An array of the coordinates' shape and the input's dtype (integer results are
      rounded half away from zero).
    """
    check_arraylike("scipy.ndimage.map_coordinates", input)
    x = jnp.asarray(input)
    if isinstance(coordinates, (list, tuple)):
        check_arraylike("scipy.ndimage.map_coordinates", *coordinates)
        coords = [jnp.asarray(c) for c in coordinates]
    else:
        check_arraylike("scipy.ndimage.map_coordinates", coordinates)
        coords = list(jnp.asarray(coordinates))
    if len(coords) != x.ndim:
        raise ValueError(f"scipy.ndimage.map_coordinates: coordinates must be a sequence of "
                         f"length input.ndim = {x.ndim} (one array per axis of input "
                         f"{tuple(x.shape)}), got {len(coords)}")
    shapes = {tuple(c.shape) for c in coords}
    if len(shapes) > 1:
        raise ValueError(f"scipy.ndimage.map_coordinates: the coordinate arrays must have "
                         f"one shape, got {sorted(shapes)}")
    if mode not in _INDEX_FIXERS:
        raise NotImplementedError(f"scipy.ndimage.map_coordinates: mode={mode!r} is not "
                                  f"supported; use one of {sorted(_INDEX_FIXERS)}")
    if order not in (0, 1):
        raise NotImplementedError(f"scipy.ndimage.map_coordinates: order={order!r}; only "
                                  f"order 0 (nearest) and 1 (linear) are supported, as JAX")
    work = dtypes.to_inexact(x.dtype)
    coords = [c.astype(work) if not dtypes.is_inexact(c.dtype) else c for c in coords]
    fixer, interp = _INDEX_FIXERS[mode], (_nearest if order == 0 else _linear)

    per_axis = []
    for c, size in zip(coords, x.shape):
        nodes = []
        for index, weight in interp(c):
            valid = ((index >= 0) & (index < size)) if mode == "constant" else None
            nodes.append((fixer(index, size), valid, weight))
        per_axis.append(nodes)

    # gathered in the working float dtype, so that an integer input interpolates towards
    # the float cval before the result is rounded (as SciPy; cval is not cast first)
    x_work = x.astype(work)
    outputs = []
    for items in itertools.product(*per_axis):
        indices, valids, weights = zip(*items)
        value = x_work[tuple(indices)]
        if mode == "constant":
            ok = functools.reduce(operator.and_, valids)
            value = jnp.where(ok, value, jnp.asarray(cval, work))
        weights = [w for w in weights if w is not None]
        if weights:
            value = functools.reduce(operator.mul, weights) * value
        outputs.append(value)
    result = functools.reduce(operator.add, outputs)
    if dtypes.is_int(x.dtype) or dtypes.is_bool(x.dtype):
        result = _round_half_away_from_zero(result)
    return result.astype(x.dtype)


__all__ = ["map_coordinates"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
