"""``lax.split``, ``collapse``, ``broadcast_shapes``, ``empty`` and ``index_take``: shape
utilities of ``jax.lax`` written on existing primitives (slices, reshape, gather)."""

import itertools
import math

import numpy as np

from tjit.tracing.errors import static_index
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer, get_aval
from tjit.tracing.shapes import broadcast_shapes as _broadcast_shapes, normalize_axis, static_ints
from tjit.lax._elementwise import asarray_for_lax, convert_element_type, rem
from tjit.lax._indexing import GatherDimensionNumbers, gather
from tjit.lax._slicing import concatenate, slice_in_dim
from tjit.lax._structural import broadcast_in_dim, expand_dims, full, reshape


def _operand(x):
    return x if isinstance(x, (Array, Tracer)) else asarray_for_lax(x)


def broadcast_shapes(*shapes):
    """The shape NumPy broadcasting gives ``shapes``, as ``jax.lax.broadcast_shapes``.

    Args:
      shapes: one or more tuples of ints.

    Returns:
      A tuple of ints; raises ValueError when the shapes do not broadcast.
    """
    shapes = [tuple(static_index(d, "shapes", "lax.broadcast_shapes", dims=True) for d in s)
              for s in shapes]
    return _broadcast_shapes(*shapes, op="lax.broadcast_shapes") if shapes else ()


def split(operand, sizes, axis=0):
    """Split ``operand`` along ``axis`` into pieces of ``sizes``, as ``jax.lax.split``.

    Args:
      operand: an array.
      sizes: the pieces' lengths; they must add up to ``operand.shape[axis]``.
      axis: the axis to split.

    Returns:
      A list of ``len(sizes)`` arrays.
    """
    operand = _operand(operand)
    shape = tuple(get_aval(operand).shape)
    axis = normalize_axis(axis, len(shape), "lax.split")
    sizes = static_ints(sizes, "sizes", "lax.split")
    if any(s < 0 for s in sizes) or sum(sizes) != shape[axis]:
        raise ValueError(f"lax.split: sizes {tuple(sizes)} must be non-negative and add up to "
                         f"the size {shape[axis]} of axis {axis} of an operand of shape "
                         f"{shape}")
    starts = np.cumsum([0, *sizes])
    return [slice_in_dim(operand, int(a), int(b), axis=axis)
            for a, b in itertools.pairwise(starts)]


def collapse(operand, start_dimension, stop_dimension=None):
    """Merge dimensions ``[start_dimension, stop_dimension)`` into one (row-major), as
    ``jax.lax.collapse``: ``collapse(x, 0, 2)`` of a (2, 3, 4) array is (6, 4).

    Args:
      operand: an array.
      start_dimension: the first dimension merged.
      stop_dimension: one past the last (None: through the last dimension).
    """
    operand = _operand(operand)
    shape = tuple(get_aval(operand).shape)
    start_dimension = static_index(start_dimension, "start_dimension", "lax.collapse")
    if stop_dimension is not None:
        stop_dimension = static_index(stop_dimension, "stop_dimension", "lax.collapse")
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def empty(shape, dtype, *, out_sharding=None):
    """An array of ``shape`` and ``dtype`` whose values are not to be relied on, as
    ``jax.lax.empty`` (tjit fills it with zeros).

    Args:
      shape: an int or a tuple of ints.
      dtype: the element type.
      out_sharding: accepted for JAX's signature; tjit places it like any new array.
    """
    del out_sharding  # one device: nothing to lay out
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return full(shape, 0, dtypes.check_dtype(dtype, "lax.empty"))


def index_take(src, idxs, axes):
    """``src`` gathered at the points ``(idxs[0][i], idxs[1][i], ...)`` of its ``axes``,
    as ``jax.lax.index_take``: indices wrap modulo the axis size (-1 is the last).

    Args:
      src: an array.
      idxs: one integer index array per axis of ``axes``, all of one shape (N,).
      axes: the axes of ``src`` the indices select along.

    Returns:
      An array of shape ``(N,)`` + the shape of ``src`` without ``axes``.
    """
    src = _operand(src)
    shape = tuple(get_aval(src).shape)
    axes = tuple(normalize_axis(a, len(shape), "lax.index_take") for a in axes)
    idxs = [_operand(i) for i in idxs]
    if len(idxs) != len(axes):
        raise ValueError(f"lax.index_take: {len(idxs)} index arrays for {len(axes)} axes "
                         f"{axes}; give one index array per axis")
    if any(not dtypes.is_int(get_aval(i).dtype) for i in idxs):
        raise TypeError("lax.index_take: index arrays must be integers, got "
                        f"{[str(get_aval(i).dtype) for i in idxs]}")
    idx_dtype = dtypes.result_type(*[(get_aval(i).dtype, False) for i in idxs])[0]
    indices = concatenate([expand_dims(convert_element_type(i, idx_dtype), (1,))
                           for i in idxs], 1)
    sizes = broadcast_in_dim(asarray_for_lax(np.array([shape[a] for a in axes], idx_dtype)),
                             tuple(get_aval(indices).shape), (1,))
    indices = rem(rem(indices, sizes) + sizes, sizes)  # Python's modulo: -1 is the last
    slice_sizes = tuple(1 if d in axes else n for d, n in enumerate(shape))
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, len(shape) - len(axes) + 1)),
                                   collapsed_slice_dims=axes, start_index_map=axes)
    return gather(src, indices, dimension_numbers=dnums, slice_sizes=slice_sizes)


__all__ = ["broadcast_shapes", "split", "collapse", "empty", "index_take"]
