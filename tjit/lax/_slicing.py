"""``tjit.lax`` slicing functions: rev, pad, concatenate, static slices and dynamic
slices/updates with JAX's signatures.

Dynamic start indices follow ``jax.lax``: a negative index counts from the end of the
dimension (``allow_negative_indices=True``), and every start is then clamped so the
window lies inside the operand.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import ConcretizationTypeError, ShapeError, static_index
from tjit.tracing.shapes import (
    broadcast_shapes, canonical_dim, canonical_shape, dim_str, greater_equal, is_symbolic,
    normalize_axis, static_ints)
from tjit.primitives import slicing as sl
from tjit.lax._elementwise import add, asarray_for_lax, convert_element_type, lt, select
from tjit.lax._structural import (
    broadcast_in_dim, dim_value, expand_dims, full, reshape, squeeze)

_INT32 = np.iinfo(np.int32)


def rev(operand, dimensions):
    """Reverse ``operand`` along each dim in ``dimensions``."""
    operand = asarray_for_lax(operand)
    dims = tuple(sorted(normalize_axis(d, operand.ndim, "rev") for d in dimensions))
    if not dims:
        return operand
    return sl.rev_p.bind(operand, dimensions=dims)


def pad(operand, padding_value, padding_config):
    """Pad ``operand`` with ``padding_value``.

    Args:
      operand: the array to pad.
      padding_value: a scalar of ``operand``'s dtype (Python scalars are converted).
      padding_config: one ``(low, high, interior)`` triple of ints per dimension; negative
        ``low``/``high`` remove elements, ``interior`` inserts values between elements.
    """
    operand = asarray_for_lax(operand)
    padding_value = asarray_for_lax(padding_value, dtypes.canonicalize(operand.dtype))
    if any(is_symbolic(canonical_dim(v, "pad")) for cfg in padding_config for v in cfg[:2]):
        return _pad_by_sizes(operand, padding_value, padding_config)
    config = tuple(static_ints(cfg, "padding_config", "pad") for cfg in padding_config)
    if all(c == (0, 0, 0) for c in config) and len(config) == operand.ndim:
        return operand
    return sl.pad_p.bind(operand, padding_value, padding_config=config)


def _pad_by_sizes(operand, padding_value, padding_config):
    """``pad`` whose low/high widths include size expressions of polymorphic dims (as
    JAX's): the int widths by pad_p, then blocks of ``padding_value`` joined on for the
    symbolic ones (pad_p takes int widths)."""
    ints = [tuple(0 if is_symbolic(canonical_dim(v)) else int(v) for v in cfg)
            for cfg in padding_config]
    out = pad(operand, padding_value, ints)
    for axis, cfg in enumerate(padding_config):
        parts = [out]
        for at, w in ((0, canonical_dim(cfg[0])), (1, canonical_dim(cfg[1]))):
            if not is_symbolic(w):
                continue
            if not greater_equal(w, 0):
                raise ShapeError(f"pad: the width {dim_str(w)} in padding_config "
                                 f"{padding_config} is negative")
            shape = out.shape[:axis] + (w,) + out.shape[axis + 1:]
            block = broadcast_in_dim(padding_value, shape, ())
            parts.insert(at * len(parts), block)
        out = concatenate(parts, axis) if len(parts) > 1 else out
    return out


def concatenate(operands, dimension):
    """Join a sequence of arrays (same dtype and rank) along ``dimension``."""
    operands = [asarray_for_lax(o) for o in operands]
    if not operands:
        raise ValueError("concatenate: requires a non-empty sequence of arrays")
    if len(operands) == 1:
        return operands[0]
    dim = normalize_axis(dimension, max(operands[0].ndim, 1), "concatenate")
    return sl.concatenate_p.bind(*operands, dimension=dim)


def _static_dims(values, what, op):
    for v in values:
        if isinstance(v, Tracer):
            raise ConcretizationTypeError(
                f"{op}: {what} must be static (Python ints or dims), got a traced value "
                f"{v.aval.str_short()}; use lax.dynamic_slice for traced start indices")
    return tuple(canonical_dim(v, op) for v in values)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    """``operand[start:limit:stride]`` in every dimension (static, non-negative bounds)."""
    operand = asarray_for_lax(operand)
    start = _static_dims(start_indices, "start_indices", "slice")
    limit = _static_dims(limit_indices, "limit_indices", "slice")
    strides = None if strides is None else static_ints(strides, "strides", "slice")
    if strides is not None and all(s == 1 for s in strides):
        strides = None
    if all(type(s) is int and s == 0 for s in start) and limit == tuple(operand.shape) \
            and strides is None:
        return operand
    return sl.slice_p.bind(operand, start_indices=start, limit_indices=limit, strides=strides)


# Ops that take a traced index, named in the error for a traced static one.
_TRACED_INDEX_OPS = "lax.dynamic_slice / dynamic_index_in_dim"


def _python_index(i, what, op):
    """A static slice bound: a Python int or a symbolic dim (None passes through)."""
    if i is None:
        return None
    return static_index(i, what, op, dims=True, alternative=_TRACED_INDEX_OPS)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """``operand[..., start:limit:stride, ...]`` along ``axis``; None and negative
    bounds are interpreted as in Python slicing."""
    operand = asarray_for_lax(operand)
    axis = normalize_axis(axis, operand.ndim, "slice_in_dim")
    n = operand.shape[axis]
    start = _python_index(start_index, "start_index", "slice_in_dim")
    limit = _python_index(limit_index, "limit_index", "slice_in_dim")
    start = 0 if start is None else start
    limit = n if limit is None else limit
    if type(start) is int and start < 0:
        start = sl.simplify_dim(start + n)
    if type(limit) is int and limit < 0:
        limit = sl.simplify_dim(limit + n)
    starts = [0] * operand.ndim
    limits = list(operand.shape)
    strides = [1] * operand.ndim
    starts[axis], limits[axis], strides[axis] = start, limit, int(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """The static ``index``-th slice along ``axis`` (kept as size 1 if ``keepdims``)."""
    operand = asarray_for_lax(operand)
    axis = normalize_axis(axis, operand.ndim, "index_in_dim")
    index = _python_index(index, "index", "index_in_dim")
    n = operand.shape[axis]
    if type(n) is int and not -n <= index < n:
        raise IndexError(f"index_in_dim: index {index} is out of bounds for axis {axis} "
                         f"with size {n}")
    if index < 0:
        index = sl.simplify_dim(index + n)
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def stack(operands, axis=0):
    """Join arrays of one shape and dtype along a new ``axis``, as ``jax.lax.stack``.

    Args:
      operands: a non-empty sequence of arrays (or scalars) of the same shape and dtype.
      axis: where the new axis goes in the result (negative counts from the end).
    """
    operands = [asarray_for_lax(o) for o in operands]
    if not operands:
        raise ValueError("lax.stack: requires a non-empty sequence of arrays")
    first = operands[0]
    for o in operands[1:]:
        if o.dtype != first.dtype:
            raise TypeError(f"lax.stack requires arguments to have the same dtypes, got "
                            f"{first.dtype}, {o.dtype}; convert with "
                            f"lax.convert_element_type first")
        if tuple(o.shape) != tuple(first.shape):
            raise ShapeError(f"lax.stack requires arguments of the same shape, got "
                             f"{tuple(first.shape)} and {tuple(o.shape)}")
    axis = normalize_axis(axis, first.ndim + 1, "lax.stack")
    return concatenate([expand_dims(o, (axis,)) for o in operands], axis)


def unstack(x, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple (``jax.lax.unstack``)."""
    x = asarray_for_lax(x)
    axis = normalize_axis(axis, x.ndim, "lax.unstack")
    n = x.shape[axis]
    if type(n) is not int:
        raise ConcretizationTypeError(f"lax.unstack: axis {axis} has symbolic size "
                                      f"{dim_str(n)}; the number of outputs must be static")
    return tuple(index_in_dim(x, i, axis, keepdims=False) for i in range(n))


def tile(operand, reps):
    """``operand`` repeated ``reps[i]`` times along each dim ``i`` (``jax.lax.tile``;
    ``len(reps)`` must equal the rank, unlike ``jnp.tile``)."""
    operand = asarray_for_lax(operand)
    reps = tuple(reps)
    if len(reps) != operand.ndim:
        raise TypeError(f"lax.tile: reps length must be equal to the ndim of x, got "
                        f"len(reps)={len(reps)} and x.ndim={operand.ndim}; use jnp.tile to "
                        f"tile with fewer or more reps")
    reps = [canonical_dim(r, "lax.tile") for r in reps]
    # (r0, d0, r1, d1, ...) with each dim broadcast over its repeats, then merged
    shape = [s for r, d in zip(reps, operand.shape) for s in (r, d)]
    wide = broadcast_in_dim(operand, tuple(shape), tuple(range(1, 2 * operand.ndim, 2)))
    return reshape(wide, tuple(r * d for r, d in zip(reps, operand.shape)))


def broadcast_like(arr, like_arr):
    """``arr`` broadcast (NumPy's rules) to the shape of ``like_arr``
    (``jax.lax.broadcast_like``)."""
    arr = asarray_for_lax(arr)
    shape = tuple(like_arr.shape) if hasattr(like_arr, "shape") else ()
    if broadcast_shapes(tuple(arr.shape), shape) != shape:
        raise ShapeError(f"lax.broadcast_like: cannot broadcast shape {tuple(arr.shape)} "
                         f"to {shape}")
    lead = len(shape) - arr.ndim
    keep = [i for i, d in enumerate(arr.shape) if d != 1 or shape[lead + i] == 1]
    squeezed = squeeze(arr, tuple(i for i in range(arr.ndim) if i not in keep))
    return broadcast_in_dim(squeezed, shape, tuple(lead + i for i in keep))


# -- dynamic slices ------------------------------------------------------------------------
def _index_list(start_indices, op):
    """Scalar start indices from a sequence or a 1-D array of them."""
    if isinstance(start_indices, (Array, Tracer, np.ndarray)):
        arr = asarray_for_lax(start_indices)
        if arr.ndim != 1:
            raise ShapeError(f"{op}: start_indices must be a sequence of scalars or a 1-D "
                             f"array, got shape {tuple(arr.shape)}")
        if isinstance(arr, Array):
            return [int(i) for i in np.asarray(arr._value)]
        return [squeeze(slice(arr, (i,), (i + 1,)), (0,)) for i in range(arr.shape[0])]
    return list(start_indices)


def _normalize_start(i, dim, allow_negative, op):
    """One start index as a 0-d integer array, with negatives counted from the end."""
    if isinstance(i, Array):
        i = int(i._value) if dtypes.is_int(i.dtype) and i.ndim == 0 else i
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
        i = int(i)
        if allow_negative and i < 0 and type(dim) is not int:
            return add(Array(np.asarray(max(i, _INT32.min), np.int32), False),
                       dim_value(dim, np.int32))
        if allow_negative and i < 0:
            i += dim
        # Clamping happens anyway; first bring huge Python ints into int32 range.
        return Array(np.asarray(min(max(i, _INT32.min), _INT32.max), np.int32), False)
    i = asarray_for_lax(i)
    if i.ndim != 0 or not dtypes.is_int(i.dtype):
        raise TypeError(f"{op}: start indices must be integer scalars, got "
                        f"{i.aval.str_short()}")
    if not allow_negative or dtypes.is_unsigned(i.dtype):
        return i
    if type(dim) is not int:  # the size is known at run time only: a traced value
        if i.dtype.itemsize < 4:
            i = convert_element_type(i, np.int32)
        return select(lt(i, 0), add(i, dim_value(dim, i.dtype)), i)
    if dim > np.iinfo(i.dtype).max:
        i = convert_element_type(i, dtypes.default_int())
    return select(lt(i, 0), add(i, dim), i)


def _starts(operand, start_indices, allow_negative_indices, op):
    idx = _index_list(start_indices, op)
    if len(idx) != operand.ndim:
        raise ShapeError(f"{op}: an operand of shape {tuple(map(dim_str, operand.shape))} "
                         f"needs {operand.ndim} start indices, got {len(idx)}")
    allow = allow_negative_indices
    allow = [allow] * operand.ndim if isinstance(allow, bool) else list(allow)
    return [_normalize_start(i, d, a, op) for i, d, a in zip(idx, operand.shape, allow)]


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """A ``slice_sizes`` window of ``operand`` at traced ``start_indices``.

    Args:
      operand: the array to slice.
      start_indices: one scalar index per dimension (ints or traced arrays); starts are
        clamped so the window fits inside ``operand``.
      slice_sizes: static window size per dimension.
      allow_negative_indices: negative indices count from the end of the dimension.
    """
    operand = asarray_for_lax(operand)
    starts = _starts(operand, start_indices, allow_negative_indices, "dynamic_slice")
    sizes = canonical_shape(slice_sizes, "dynamic_slice")
    return sl.dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    """``dynamic_slice`` along one axis (full extent in the others)."""
    operand = asarray_for_lax(operand)
    axis = normalize_axis(axis, operand.ndim, "dynamic_slice_in_dim")
    starts = [0] * operand.ndim
    sizes = list(operand.shape)
    starts[axis], sizes[axis] = start_index, canonical_dim(slice_size, "dynamic_slice")
    allow = [False] * operand.ndim
    allow[axis] = bool(allow_negative_indices)
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    """The traced ``index``-th slice along ``axis`` (size 1 kept if ``keepdims``)."""
    operand = asarray_for_lax(operand)
    axis = normalize_axis(axis, operand.ndim, "dynamic_index_in_dim")
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with ``update`` written at traced ``start_indices`` (clamped so the
    update fits)."""
    operand = asarray_for_lax(operand)
    update = asarray_for_lax(update, dtypes.canonicalize(operand.dtype))
    starts = _starts(operand, start_indices, allow_negative_indices, "dynamic_update_slice")
    return sl.dynamic_update_slice_p.bind(operand, update, *starts)


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    """``dynamic_update_slice`` with a traced start along ``axis`` only."""
    operand = asarray_for_lax(operand)
    axis = normalize_axis(axis, operand.ndim, "dynamic_update_slice_in_dim")
    starts = [0] * operand.ndim
    starts[axis] = start_index
    allow = [False] * operand.ndim
    allow[axis] = bool(allow_negative_indices)
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow)


def dynamic_update_index_in_dim(operand, update, index, axis, *,
                                allow_negative_indices=True):
    """Write ``update`` (with or without the size-1 ``axis``) at traced ``index``."""
    operand = asarray_for_lax(operand)
    update = asarray_for_lax(update, dtypes.canonicalize(operand.dtype))
    axis = normalize_axis(axis, operand.ndim, "dynamic_update_index_in_dim")
    if update.ndim == operand.ndim - 1:
        update = expand_dims(update, (axis,))
    elif update.ndim != operand.ndim:
        raise ShapeError(f"dynamic_update_index_in_dim: update of rank {update.ndim} does not "
                         f"fit an operand of rank {operand.ndim} (needs rank {operand.ndim} "
                         f"or {operand.ndim - 1})")
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


def shape_as_value(shape):
    """``shape`` as a 1-D array of the default int dtype (``jax.lax.shape_as_value``):
    under shape polymorphism its symbolic dims become values computed when the sizes
    are bound.

    >>> lax.shape_as_value((2, 3))
    Array([2, 3], dtype=int32)
    """
    dims = canonical_shape(shape, "lax.shape_as_value")
    if not dims:
        return full((0,), 0, dtypes.default_int())
    return concatenate([expand_dims(dim_value(d), (0,)) for d in dims], 0)


__all__ = ["rev", "pad", "concatenate", "slice", "slice_in_dim", "index_in_dim", "stack",
           "unstack", "tile", "broadcast_like",
           "dynamic_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim",
           "dynamic_update_slice", "dynamic_update_slice_in_dim",
           "dynamic_update_index_in_dim", "shape_as_value"]
