"""``tjit.lax`` gather and scatter: ``gather``, ``scatter``, ``scatter_add``,
``scatter_sub``, ``scatter_mul``, ``scatter_min``, ``scatter_max`` with ``jax.lax``'s
signatures, dimension-number types and :class:`GatherScatterMode`.

Defaults follow JAX: ``gather`` assumes in-bounds indices (``PROMISE_IN_BOUNDS``, which
clamps), scatters drop out-of-bounds updates (``FILL_OR_DROP``). Most code should use
NumPy-style indexing (``x[idx]``, ``x.at[idx].add(y)``) instead.
"""

import numpy as np

from tjit.tracing.core import concrete_value
from tjit.tracing.shapes import canonical_shape
from tjit.primitives import indexing as ix
from tjit.primitives.indexing import (  # noqa: F401  (re-exported names)
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers)
from tjit.lax._elementwise import asarray_for_lax


def _fill_value(fill_value, dtype):
    if fill_value is None:
        return ix.default_fill_value(dtype)
    fill_value = concrete_value(fill_value, "the fill_value of gather")
    if np.ndim(fill_value) != 0:
        raise ValueError(f"gather: fill_value must be a scalar, got shape "
                         f"{np.shape(fill_value)}")
    try:
        return np.asarray(fill_value).astype(dtype).item()
    except (TypeError, ValueError) as e:
        raise TypeError(f"gather: fill_value {fill_value!r} cannot be converted to the "
                        f"operand dtype {dtype}: {e}") from None


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """XLA's gather: one slice of ``operand`` per index vector of ``start_indices``.

    Args:
      operand: the array to take slices from.
      start_indices: integer array; its last dim is the index vector.
      dimension_numbers: a :class:`GatherDimensionNumbers`.
      slice_sizes: size of the slice along every operand dim.
      unique_indices, indices_are_sorted: promises that may speed up backends.
      mode: ``'clip'``, ``'fill'`` or ``'promise_in_bounds'`` (default; clamps).
      fill_value: value of out-of-bounds slices in ``'fill'`` mode (default NaN for
        inexact, min/max int for signed/unsigned, True for bool).

    Returns:
      The gathered array.
    """
    operand = asarray_for_lax(operand)
    start_indices = asarray_for_lax(start_indices)
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else \
        GatherScatterMode.from_any(mode)
    fill = _fill_value(fill_value, operand.dtype) \
        if mode == GatherScatterMode.FILL_OR_DROP else None
    return ix.gather_p.bind(
        operand, start_indices, dimension_numbers=ix.gather_dnums(dimension_numbers),
        slice_sizes=canonical_shape(slice_sizes, "gather"), mode=mode, fill_value=fill,
        indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices))


def _scatter(prim, doc):
    def f(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
          unique_indices=False, mode=None):
        operand = asarray_for_lax(operand)
        return prim.bind(
            operand, asarray_for_lax(scatter_indices),
            asarray_for_lax(updates, operand.dtype),
            dimension_numbers=ix.scatter_dnums(dimension_numbers),
            mode=GatherScatterMode.from_any(mode),
            indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices))
    f.__name__ = prim.name.replace("-", "_")
    f.__doc__ = doc + """

    Args:
      operand: the array to update.
      scatter_indices: integer array; its last dim is the index vector.
      updates: values, with the batch dims of ``scatter_indices`` and window dims.
      dimension_numbers: a :class:`ScatterDimensionNumbers`.
      indices_are_sorted, unique_indices: promises that may speed up backends.
      mode: ``'drop'``/``'fill'`` (default: out-of-bounds windows are skipped),
        ``'clip'`` (indices clamped) or ``'promise_in_bounds'``.

    Returns:
      The updated copy of ``operand``.
    """
    return f


scatter = _scatter(ix.scatter_p, "Scatter-set: write ``updates`` into ``operand`` (with "
                                 "duplicate indices the last update wins).")
scatter_add = _scatter(ix.scatter_add_p, "Scatter-add: add ``updates`` into ``operand`` "
                                         "(duplicates accumulate).")
scatter_sub = _scatter(ix.scatter_sub_p, "Scatter-sub: subtract ``updates`` from ``operand``.")
scatter_mul = _scatter(ix.scatter_mul_p, "Scatter-mul: multiply ``operand`` by ``updates``.")
scatter_min = _scatter(ix.scatter_min_p, "Scatter-min: elementwise minimum with ``updates``.")
scatter_max = _scatter(ix.scatter_max_p, "Scatter-max: elementwise maximum with ``updates``.")

__all__ = ["gather", "scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min",
           "scatter_max", "GatherDimensionNumbers", "ScatterDimensionNumbers",
           "GatherScatterMode"]
