"""Gather and scatter primitives with XLA/``jax.lax`` semantics.

``gather(operand, indices)`` takes one slice of ``operand`` per index vector; the index
vector is always the *last* dim of ``indices`` (JAX's convention). For an output index
``Out``, the batch position ``G`` is ``Out`` at the dims not in ``offset_dims``, the
start is ``indices[G]`` scattered into the operand dims named by ``start_index_map``
(operand batching dims take ``G`` at the matching ``start_indices_batching_dims``), and
the offset within the slice comes from ``Out`` at ``offset_dims`` (operand dims that are
neither collapsed nor batching, in increasing order).

``scatter*(operand, indices, updates)`` is the mirror image: ``update_window_dims`` of
``updates`` are window dims, the others walk over ``indices.shape[:-1]``.

Out-of-bounds starts follow :class:`GatherScatterMode`:

* ``CLIP``: the start is clamped so the whole window is in bounds.
* ``FILL_OR_DROP``: a gather window that is not entirely in bounds is filled with
  ``fill_value``; a scatter window that is not entirely in bounds is dropped.
* ``PROMISE_IN_BOUNDS``: the caller promises in-bounds indices; like XLA, gathers clamp
  and scatters drop.

Duplicate indices: ``scatter_add/sub/mul/min/max`` combine every update (NumPy's
``ufunc.at``); plain ``scatter`` (set) with duplicates is last-update-wins here, which
XLA leaves implementation-defined. ``scatter_min/max`` order -0.0 below +0.0, as ``min``/
``max`` do (IEEE 754-2019), whatever the order of the updates.

Transformation rules (end of the file); indices never get a tangent. gather is linear
in the operand (transpose: scatter-add into zeros; filled windows are constants).
scatter-add/sub are linear (the updates' cotangent is a gather, 0 where dropped).
scatter (set) uses JAX's id trick unless ``unique_indices``: the scatter is replayed on
update ids to find each place's winner, so primal and tangent agree on it. scatter-mul
is exact with duplicates and zero updates (JAX needs unique indices). scatter-min/max
split the derivative evenly among tied values (JAX's rule). Batching folds the mapped
axis into the dimension numbers: a window dim when only operand/updates are mapped, a
pair of operand/indices batching dims when the indices are.
"""

import enum
from typing import NamedTuple

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import (definitely_equal, dim_str, greater_equal, shape_str,
                                 substitute)
from tjit.primitives import ieee_minmax
from tjit.primitives.base import new_primitive


class GatherScatterMode(enum.Enum):
    """How gather/scatter treat out-of-bounds indices (see the module docstring)."""

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s):
        """Parse ``'clip'``, ``'fill'``/``'drop'`` (or None), ``'promise_in_bounds'``."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f"Unknown gather/scatter mode {s!r}; use 'clip', 'fill', 'drop' "
                         f"or 'promise_in_bounds'")


class GatherDimensionNumbers(NamedTuple):
    """Dimension numbers of a gather (XLA's, with the index vector dim last)."""

    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    """Dimension numbers of a scatter (XLA's, with the index vector dim last)."""

    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


def gather_dnums(dn):
    """Canonical GatherDimensionNumbers (tuples of ints) from any 5- or 3-tuple."""
    return GatherDimensionNumbers(*(tuple(int(d) for d in f) for f in dn))


def scatter_dnums(dn):
    """Canonical ScatterDimensionNumbers (tuples of ints) from any 5- or 3-tuple."""
    return ScatterDimensionNumbers(*(tuple(int(d) for d in f) for f in dn))


def _as_type(cls, dn):
    # Params may arrive as plain tuples (shape specialization rebuilds tuples).
    return dn if type(dn) is cls else cls(*dn)


def default_fill_value(dtype):
    """JAX's gather fill: NaN (inexact), min (signed), max (unsigned), True (bool)."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return float("nan")
    if dtypes.is_unsigned(dtype):
        return int(dtypes.iinfo(dtype).max)
    if dtypes.is_int(dtype):
        return int(dtypes.iinfo(dtype).min)
    return True


# -- shared checks --------------------------------------------------------------------------
def _check_dims(op, what, dims, bound, *, sorted_=True):
    if len(set(dims)) != len(dims):
        raise ShapeError(f"{op}: {what} {dims} must not contain repeated dims")
    if sorted_ and list(dims) != sorted(dims):
        raise ShapeError(f"{op}: {what} {dims} must be sorted in increasing order")
    for d in dims:
        if not 0 <= d < bound:
            raise ShapeError(f"{op}: {what} {dims} has dim {d} out of range [0, {bound})")


def _check_indices(op, indices, index_map, batch_dims, operand_batch, operand):
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"{op}: indices must have an integer dtype, got {indices.dtype} "
                        f"({indices.str_short()}); convert with astype(jnp.int32)")
    if indices.ndim < 1:
        raise ShapeError(f"{op}: indices must have rank >= 1 (the last dim is the index "
                         f"vector), got shape {shape_str(indices.shape)}; add a trailing "
                         f"dim with indices[..., None]")
    if not definitely_equal(indices.shape[-1], len(index_map)):
        raise ShapeError(f"{op}: the index vector (last dim of indices, shape "
                         f"{shape_str(indices.shape)}) has size {dim_str(indices.shape[-1])} "
                         f"but the index map {index_map} names {len(index_map)} dims")
    _check_dims(op, "the index map", index_map, operand.ndim, sorted_=False)
    if set(index_map) & set(operand_batch):
        raise ShapeError(f"{op}: the index map {index_map} must not contain operand batching "
                         f"dims {operand_batch}")
    if len(batch_dims) != len(operand_batch):
        raise ShapeError(f"{op}: operand batching dims {operand_batch} and indices batching "
                         f"dims {batch_dims} must have the same length")
    _check_dims(op, "operand batching dims", operand_batch, operand.ndim)
    _check_dims(op, "indices batching dims", batch_dims, indices.ndim - 1, sorted_=False)
    for od, bd in zip(operand_batch, batch_dims):
        if not definitely_equal(operand.shape[od], indices.shape[bd]):
            raise ShapeError(f"{op}: operand batching dim {od} (size "
                             f"{dim_str(operand.shape[od])}, operand "
                             f"{shape_str(operand.shape)}) must match indices dim {bd} (size "
                             f"{dim_str(indices.shape[bd])}, indices "
                             f"{shape_str(indices.shape)})")


# -- gather -----------------------------------------------------------------------------------
gather_p = new_primitive("gather")


def batching_slice_size(size):
    """The slice size of an operand batching dim of ``size``: its one row, or 0 in an empty
    batch (vmap over zero examples), since no slice may be longer than its dim."""
    return 0 if definitely_equal(size, 0) else 1


def gather_shape(operand, indices, dn, slice_sizes, op="gather"):
    """Output shape of a gather; raises ShapeError naming the shapes on bad input."""
    _check_indices(op, indices, dn.start_index_map, dn.start_indices_batching_dims,
                   dn.operand_batching_dims, operand)
    if len(slice_sizes) != operand.ndim:
        raise ShapeError(f"{op}: slice_sizes {tuple(slice_sizes)} must have one entry per "
                         f"operand dim (operand {shape_str(operand.shape)})")
    for d, (s, n) in enumerate(zip(slice_sizes, operand.shape)):
        if (type(s) is int and s < 0) or not greater_equal(n, s):
            raise ShapeError(f"{op}: slice size {dim_str(s)} for dim {d} must be in [0, "
                             f"{dim_str(n)}] (operand {shape_str(operand.shape)}, slice_sizes "
                             f"{tuple(slice_sizes)})")
    _check_dims(op, "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim)
    if set(dn.collapsed_slice_dims) & set(dn.operand_batching_dims):
        raise ShapeError(f"{op}: collapsed_slice_dims {dn.collapsed_slice_dims} and operand "
                         f"batching dims {dn.operand_batching_dims} must be disjoint")
    for d in dn.collapsed_slice_dims + dn.operand_batching_dims:
        if not (type(slice_sizes[d]) is int and slice_sizes[d] <= 1):
            raise ShapeError(f"{op}: slice size of collapsed/batching dim {d} must be 1, got "
                             f"{dim_str(slice_sizes[d])} (slice_sizes {tuple(slice_sizes)})")
    n_offset = operand.ndim - len(dn.collapsed_slice_dims) - len(dn.operand_batching_dims)
    if len(dn.offset_dims) != n_offset:
        raise ShapeError(f"{op}: offset_dims {dn.offset_dims} must name {n_offset} output dims "
                         f"(operand rank {operand.ndim} minus collapsed "
                         f"{dn.collapsed_slice_dims} minus batching {dn.operand_batching_dims})")
    out_rank = indices.ndim - 1 + n_offset
    _check_dims(op, "offset_dims", dn.offset_dims, out_rank)
    skip = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offset_sizes = iter([s for d, s in enumerate(slice_sizes) if d not in skip])
    batch_sizes = iter(indices.shape[:-1])
    return tuple(next(offset_sizes) if i in dn.offset_dims else next(batch_sizes)
                 for i in range(out_rank))


@gather_p.def_abstract_eval
def _gather_abstract(operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value,
                     indices_are_sorted=False, unique_indices=False):
    dn = gather_dnums(dimension_numbers)
    return ShapedArray(gather_shape(operand, indices, dn, tuple(slice_sizes)), operand.dtype)


def _on_dims(xp, a, positions, rank):
    """View ``a`` (dims = ``positions`` of a rank-``rank`` array, in order) for broadcasting."""
    shape = [1] * rank
    for p, s in zip(positions, a.shape):
        shape[p] = s
    return xp.reshape(a, shape)


def _batch_iota(xp, batch_shape, dim):
    n = batch_shape[dim]
    return xp.reshape(xp.arange(n), [n if i == dim else 1 for i in range(len(batch_shape))])


def _window_starts(xp, operand_shape, indices, index_map, window, clamp, check):
    """Per operand dim: the (clamped) start over the batch dims, and the in-bounds mask."""
    idx = xp.asarray(indices)
    if idx.dtype == np.uint64:  # keep huge unsigned values out of bounds in int64
        idx = xp.minimum(idx, np.uint64(np.iinfo(np.int64).max))
    idx = idx.astype(np.int64)
    starts, ok = {}, None
    for k, d in enumerate(index_map):
        s = idx[..., k]
        hi = operand_shape[d] - window[d]
        if check:
            good = (s >= 0) & (s <= hi)
            ok = good if ok is None else ok & good
        starts[d] = xp.clip(s, 0, hi) if clamp else s
    return starts, ok


def _take_axis(dn, slice_sizes, operand_shape, indices_shape):
    """The axis of a gather that is ``take(operand, indices[..., 0], axis)`` (whole slices
    along one axis, batch dims where the axis was), else None."""
    if len(dn.start_index_map) != 1 or dn.operand_batching_dims or \
            tuple(dn.collapsed_slice_dims) != tuple(dn.start_index_map) or \
            indices_shape[-1:] != (1,):
        return None
    (axis,) = dn.start_index_map
    if slice_sizes[axis] != 1 or operand_shape[axis] == 0 or any(
            s != n for d, (s, n) in enumerate(zip(slice_sizes, operand_shape)) if d != axis):
        return None
    nb, rank = len(indices_shape) - 1, len(operand_shape) + len(indices_shape) - 2
    if tuple(dn.offset_dims) != tuple(range(axis)) + tuple(range(axis + nb, rank)):
        return None
    return axis


def _take_gather(xp, operand, indices, axis, fill, fill_value):
    """The single-axis gather of :func:`_take_axis` by ``xp.take`` on clamped indices
    (the general impl's values, without its broadcast index arrays)."""
    starts, ok = _window_starts(xp, operand.shape, indices, (axis,), (1,) * operand.ndim,
                                clamp=True, check=fill)
    out = xp.take(operand, starts[axis], axis)
    if fill and ok is not None:
        fv = default_fill_value(operand.dtype) if fill_value is None else fill_value
        ok = xp.reshape(ok, (1,) * axis + ok.shape + (1,) * (operand.ndim - axis - 1))
        out = xp.where(ok, out, xp.asarray(fv, operand.dtype))
    return xp.asarray(out, operand.dtype)


@gather_p.def_impl
def _gather_impl(xp, operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value,
                 indices_are_sorted=False, unique_indices=False):
    # Shapes were checked by the abstract rule (eager calls and tracing both run it).
    dn = _as_type(GatherDimensionNumbers, dimension_numbers)
    operand, indices = xp.asarray(operand), xp.asarray(indices)
    mode = GatherScatterMode.from_any(mode)
    axis = _take_axis(dn, slice_sizes, operand.shape, indices.shape)
    if axis is not None:
        return _take_gather(xp, operand, indices, axis, mode == GatherScatterMode.FILL_OR_DROP,
                            fill_value)
    batch_shape = indices.shape[:-1]
    rank = len(batch_shape) + len(dn.offset_dims)
    batch_pos = [i for i in range(rank) if i not in dn.offset_dims]
    skip = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offset_operand_dims = [d for d in range(operand.ndim) if d not in skip]
    out_shape = [0] * rank
    for p, s in zip(batch_pos, batch_shape):
        out_shape[p] = s
    for p, d in zip(dn.offset_dims, offset_operand_dims):
        out_shape[p] = slice_sizes[d]
    fill = mode == GatherScatterMode.FILL_OR_DROP
    starts, ok = _window_starts(xp, operand.shape, indices, dn.start_index_map, slice_sizes,
                                clamp=True, check=fill)
    for od, bd in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        starts[od] = _batch_iota(xp, batch_shape, bd)
    full = []
    for d in range(operand.ndim):
        comp = _on_dims(xp, starts[d], batch_pos, rank) if d in starts else 0
        if d in offset_operand_dims:
            p = dn.offset_dims[offset_operand_dims.index(d)]
            comp = comp + _on_dims(xp, xp.arange(slice_sizes[d]), [p], rank)
        full.append(xp.broadcast_to(xp.asarray(comp, np.int64), out_shape))
    out = xp.broadcast_to(operand[tuple(full)], out_shape)
    if fill and ok is not None:
        fv = default_fill_value(operand.dtype) if fill_value is None else fill_value
        out = xp.where(_on_dims(xp, ok, batch_pos, rank), out, xp.asarray(fv, operand.dtype))
    return xp.asarray(out, operand.dtype)


gather_p.def_weak_type(lambda operand_weak, indices_weak, **_: operand_weak)


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes, mode,
                     fill_value, indices_are_sorted=False, unique_indices=False):
    """Gathers of whole slices along one axis (``x[i]``, ``x[idx]``, ``take``) become a
    fusible ``take`` (see ``xla_like/hlo.py``), and so do batched ones
    (``take_along_axis``, a vmapped ``x[i]``: batch dims shared by operand and indices,
    whose slices are single elements); any other gather stays a library call."""
    dn = _as_type(GatherDimensionNumbers, dimension_numbers)
    if len(dn.start_index_map) > 1:
        return _multi_index_lowering(ctx, operand, indices, dn, slice_sizes, mode, fill_value)
    if len(dn.start_index_map) != 1 or \
            tuple(dn.collapsed_slice_dims) != tuple(dn.start_index_map) or \
            indices.dtype == np.uint64 or not definitely_equal(indices.shape[-1], 1):
        return NotImplemented
    (axis,) = dn.start_index_map
    shared = dict(zip(dn.start_indices_batching_dims, dn.operand_batching_dims))
    whole = [d for d in range(operand.ndim) if d != axis and d not in dn.operand_batching_dims]
    if not (type(slice_sizes[axis]) is int and slice_sizes[axis] == 1) or not all(
            definitely_equal(slice_sizes[d], operand.shape[d]) for d in whole):
        return NotImplemented
    batch_shape = tuple(indices.shape[:-1])
    idx = ctx.add("reshape", (indices,), batch_shape, indices.dtype)
    rank = len(batch_shape) + len(whole)
    offset_operand_dims = iter(whole)
    batch = iter(range(len(batch_shape)))
    # ("b", j): index dim j; ("o", d): operand dim d; ("s", j, d): both (a batch dim)
    out_dims = []
    for k in range(rank):
        if k in dn.offset_dims:
            out_dims.append(("o", next(offset_operand_dims)))
        else:
            j = next(batch)
            out_dims.append(("s", j, shared[j]) if j in shared else ("b", j))
    fill = None
    if GatherScatterMode.from_any(mode) == GatherScatterMode.FILL_OR_DROP:
        fill = default_fill_value(operand.dtype) if fill_value is None else fill_value
        fill = np.asarray(fill, operand.dtype).item()
    shape = tuple(operand.shape[t[1]] if t[0] == "o" else batch_shape[t[1]] for t in out_dims)
    return ctx.add("take", (operand, idx), shape, operand.dtype, axis=axis,
                   out_dims=tuple(out_dims), fill=fill)


def _multi_index_lowering(ctx, operand, indices, dn, slice_sizes, mode, fill_value):
    """A gather of single elements along several adjacent axes (``x[i, j]``,
    ``x[jnp.arange(n)[:, None], idx]``) is a gather along one axis of the operand with
    those axes merged, at the row-major position of the clamped indices; in fill mode a
    point with any index out of range reads position -1, which the take fills."""
    axes = tuple(dn.start_index_map)
    first, m = axes[0], len(axes)
    sizes = [operand.shape[d] for d in axes]
    if axes != tuple(range(first, first + m)) or tuple(dn.collapsed_slice_dims) != axes or \
            any(type(n) is not int or n == 0 for n in sizes) or \
            any(slice_sizes[d] != 1 for d in axes) or indices.dtype == np.uint64 or \
            not definitely_equal(indices.shape[-1], m):
        return NotImplemented
    fill = GatherScatterMode.from_any(mode) == GatherScatterMode.FILL_OR_DROP
    merged = int(np.prod(sizes))
    pos = np.dtype(np.int64 if merged > np.iinfo(np.int32).max else np.int32)
    idt, batch_shape = indices.dtype, tuple(indices.shape[:-1])
    top = np.iinfo(idt).max
    linear = ok = None
    for k, n in enumerate(sizes):
        c = ctx.add("slice", (indices,), batch_shape + (1,), idt,
                    start=(0,) * len(batch_shape) + (k,), limit=batch_shape + (k + 1,),
                    strides=(1,) * (len(batch_shape) + 1))
        if fill:
            inside = ctx.elementwise("ge", [c, ctx.constant(0, idt)])
            if n - 1 < top:     # (else no value of idt is past the end)
                inside = ctx.elementwise("and", [inside, ctx.elementwise(
                    "lt", [c, ctx.constant(n, idt)])])
            ok = inside if ok is None else ctx.elementwise("and", [ok, inside])
        c = ctx.elementwise("min", [ctx.elementwise("max", [c, ctx.constant(0, idt)]),
                                    ctx.constant(min(n - 1, top), idt)])
        if c.dtype != pos:
            c = ctx.add("convert", (c,), c.shape, pos)
        stride = int(np.prod(sizes[k + 1:]))
        if stride != 1:
            c = ctx.elementwise("mul", [c, ctx.constant(stride, pos)])
        linear = c if linear is None else ctx.elementwise("add", [linear, c])
    if fill:
        linear = ctx.elementwise("select", [ok, linear, ctx.constant(-1, pos)])
    shape = tuple(operand.shape[:first]) + (merged,) + tuple(operand.shape[first + m:])
    flat = ctx.add("reshape", (operand,), shape, operand.dtype)
    after = lambda d: d if d < first else d - (m - 1)  # noqa: E731  (dims past the merge)
    one = GatherDimensionNumbers(
        offset_dims=dn.offset_dims, collapsed_slice_dims=(first,), start_index_map=(first,),
        operand_batching_dims=tuple(after(d) for d in dn.operand_batching_dims),
        start_indices_batching_dims=dn.start_indices_batching_dims)
    sizes_one = tuple(slice_sizes[:first]) + (1,) + tuple(slice_sizes[first + m:])
    return _gather_lowering(ctx, flat, linear, dimension_numbers=one, slice_sizes=sizes_one,
                            mode=GatherScatterMode.FILL_OR_DROP if fill else
                            GatherScatterMode.CLIP, fill_value=fill_value)


gather_p.lowering = _gather_lowering


# -- scatter ------------------------------------------------------------------------------------
def scatter_check(operand, indices, updates, dn, op="scatter"):
    """Check a scatter's operands; returns the window size of every operand dim."""
    if updates.dtype != operand.dtype:
        raise TypeError(f"{op}: updates dtype {updates.dtype} must equal the operand dtype "
                        f"{operand.dtype}; convert with lax.convert_element_type")
    _check_indices(op, indices, dn.scatter_dims_to_operand_dims,
                   dn.scatter_indices_batching_dims, dn.operand_batching_dims, operand)
    _check_dims(op, "update_window_dims", dn.update_window_dims, updates.ndim)
    _check_dims(op, "inserted_window_dims", dn.inserted_window_dims, operand.ndim)
    if set(dn.inserted_window_dims) & set(dn.operand_batching_dims):
        raise ShapeError(f"{op}: inserted_window_dims {dn.inserted_window_dims} and operand "
                         f"batching dims {dn.operand_batching_dims} must be disjoint")
    n_window = operand.ndim - len(dn.inserted_window_dims) - len(dn.operand_batching_dims)
    if len(dn.update_window_dims) != n_window:
        raise ShapeError(f"{op}: update_window_dims {dn.update_window_dims} must name "
                         f"{n_window} dims of updates (operand {shape_str(operand.shape)} "
                         f"minus inserted {dn.inserted_window_dims} minus batching "
                         f"{dn.operand_batching_dims})")
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    if len(scatter_dims) != indices.ndim - 1 or not all(
            definitely_equal(updates.shape[u], i)
            for u, i in zip(scatter_dims, indices.shape[:-1])):
        raise ShapeError(f"{op}: updates {shape_str(updates.shape)} must have the batch dims "
                         f"of indices {shape_str(indices.shape[:-1])} (indices "
                         f"{shape_str(indices.shape)}) besides window dims "
                         f"{dn.update_window_dims}")
    skip = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_operand_dims = [d for d in range(operand.ndim) if d not in skip]
    window = [1] * operand.ndim
    for d, u in zip(window_operand_dims, dn.update_window_dims):
        window[d] = updates.shape[u]
        if not greater_equal(operand.shape[d], updates.shape[u]):
            raise ShapeError(f"{op}: window size {dim_str(updates.shape[u])} (updates dim {u} "
                             f"of {shape_str(updates.shape)}) exceeds operand dim {d} of "
                             f"{shape_str(operand.shape)}")
    return window


def _scatter_abstract(name):
    def abstract(operand, indices, updates, *, dimension_numbers, mode,
                 indices_are_sorted=False, unique_indices=False):
        if name == "scatter-sub" and dtypes.is_bool(operand.dtype):
            raise TypeError(f"{name}: bool operands are not supported ({operand.str_short()})"
                            f"; use scatter with logical ops instead")
        scatter_check(operand, indices, updates, scatter_dnums(dimension_numbers), name)
        return ShapedArray(operand.shape, operand.dtype)
    return abstract


def _scatter_targets(xp, operand, indices, updates, dn, mode):
    """Flat operand positions and values of the updates that land (after mode rules)."""
    rank, batch_shape = updates.ndim, indices.shape[:-1]
    scatter_pos = [d for d in range(rank) if d not in dn.update_window_dims]
    skip = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_operand_dims = [d for d in range(operand.ndim) if d not in skip]
    window = [1] * operand.ndim
    for d, u in zip(window_operand_dims, dn.update_window_dims):
        window[d] = updates.shape[u]
    clip = mode == GatherScatterMode.CLIP
    starts, ok = _window_starts(xp, operand.shape, indices, dn.scatter_dims_to_operand_dims,
                                window, clamp=clip, check=not clip)
    for od, bd in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
        starts[od] = _batch_iota(xp, batch_shape, bd)
    full = []
    for d in range(operand.ndim):
        comp = _on_dims(xp, starts[d], scatter_pos, rank) if d in starts else 0
        if d in window_operand_dims:
            u = dn.update_window_dims[window_operand_dims.index(d)]
            comp = comp + _on_dims(xp, xp.arange(window[d]), [u], rank)
        full.append(xp.broadcast_to(xp.asarray(comp, np.int64), updates.shape))
    values = updates
    if ok is not None:
        mask = xp.broadcast_to(_on_dims(xp, ok, scatter_pos, rank), updates.shape)
        full = [f[mask] for f in full]
        values = updates[mask]
    if operand.ndim == 0:
        flat = xp.zeros(values.shape, np.int64)
    else:
        flat = xp.ravel_multi_index(tuple(full), operand.shape) if full[0].size else \
            xp.zeros(full[0].shape, np.int64)
    return flat.reshape(-1), xp.reshape(values, -1)


#: Rows of a row scatter (see _scatter_rows) with more updates than this are folded by
#: ``ufunc.accumulate`` (add/subtract/multiply; other scatters then take the element-wise
#: path); the others are applied in this many rounds at most, one update per row a round.
ROW_SCATTER_MAX_ROUNDS = 8


def is_row_scatter(dn, operand_shape, indices_shape, updates_shape):
    """Whether a scatter with dimension numbers ``dn`` writes whole rows of the operand's
    leading axis, one row per index (``x.at[ids].add(v)``, ``segment_sum``, the gradient
    of an embedding lookup): the form of :func:`_scatter_rows` and of the CPU's compiled
    row scatter (``lower/llvm/scatter_rows.py``)."""
    if tuple(dn.scatter_dims_to_operand_dims) != (0,) or \
            tuple(dn.inserted_window_dims) != (0,) or dn.operand_batching_dims or \
            tuple(indices_shape[-1:]) != (1,) or not operand_shape:
        return False
    n_window, rank = len(operand_shape) - 1, len(updates_shape)
    return tuple(dn.update_window_dims) == tuple(range(rank - n_window, rank)) and \
        tuple(updates_shape[rank - n_window:]) == tuple(operand_shape[1:])


def _scatter_rows(xp, out, indices, updates, dn, mode, ufunc_name):
    """The scatter of whole leading-axis rows, one per index (``x.at[idx].add(v)``,
    the gradient of an embedding lookup), into ``out`` in place, in rounds: each round
    applies the first remaining update of every row with one fancy-indexed
    read-modify-write of whole rows, so a row's updates still combine in order (the
    bits of a sequential loop), without the element-wise positions of the general path
    (4M int64s for 8192 rows of 512); a row repeated more often is folded by
    :func:`_fold_repeated_rows`. False (nothing written) when the scatter is not of this
    form, or repeats a row too often for a combine that cannot be folded."""
    if not is_row_scatter(dn, out.shape, indices.shape, updates.shape):
        return False
    clip = mode == GatherScatterMode.CLIP
    starts, ok = _window_starts(xp, out.shape, indices, (0,), (1,) + out.shape[1:],
                                clamp=clip, check=not clip)
    rows = xp.reshape(starts[0], (-1,))
    window = int(np.prod(out.shape[1:], dtype=np.int64))  # not -1: ambiguous when empty
    vals = xp.reshape(updates, (rows.shape[0], window))
    if ok is not None and not bool(ok.all()):
        keep = xp.reshape(ok, (-1,))
        rows, vals = rows[keep], vals[keep]
    counts = xp.bincount(rows) if rows.size else None
    table = xp.reshape(out, (out.shape[0], window))
    combine = None if ufunc_name is None else ieee_minmax.combiner(xp, ufunc_name)
    if counts is None:
        return True
    with np.errstate(all="ignore"):  # NaN/overflow stay silent, as in JAX
        if int(counts.max()) == 1:              # no row twice: all at once
            table[rows] = vals if combine is None else combine(table[rows], vals)
            return True
        g = _RowGroups(xp, rows, table.shape[0])
        many = g.counts > ROW_SCATTER_MAX_ROUNDS
        if bool(many.any()):
            if ufunc_name not in _FOLDING_UFUNCS or xp is not np:   # (NumPy's ufunc API)
                return False
            _fold_repeated_rows(xp, table, g, many, vals, ufunc_name)
        # the other rows in rounds: round j applies every row's j-th update
        light = xp.nonzero(~many[g.group])[0]
        ranks = g.rank[light].astype(np.int16)           # (< ROW_SCATTER_MAX_ROUNDS)
        light = light[xp.argsort(ranks, kind="stable")]
        bounds = xp.searchsorted(g.rank[light], xp.arange(ROW_SCATTER_MAX_ROUNDS + 1))
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
            now = g.order[light[lo:hi]]
            r = rows[now]
            table[r] = vals[now] if combine is None else combine(table[r], vals[now])
    return True


class _RowGroups:
    """The updates of a row scatter grouped by row: ``order`` (update positions sorted
    by row, each row's in update order), ``rows_sorted``, per group its ``start`` in that
    order, ``counts`` and ``row``, and per sorted update its ``group`` and ``rank`` (the
    how-many-th update of its row it is)."""

    def __init__(self, xp, rows, n_rows):
        # 16-bit keys take NumPy's radix sort (8192 ids: 20 us, int64 153 us)
        keys = rows.astype(np.int16) if n_rows <= np.iinfo(np.int16).max else rows
        self.order = xp.argsort(keys, kind="stable")
        self.rows_sorted = rows[self.order]
        first = xp.ones(rows.shape[0], bool)
        first[1:] = self.rows_sorted[1:] != self.rows_sorted[:-1]
        self.start = xp.nonzero(first)[0]
        self.counts = xp.diff(xp.concatenate([self.start, xp.asarray([rows.shape[0]])]))
        self.row = self.rows_sorted[self.start]
        self.group = xp.cumsum(first) - 1
        self.rank = xp.arange(rows.shape[0]) - self.start[self.group]


#: Scatter combines whose NumPy ufunc folds a row's updates in order with ``accumulate``,
#: and the value that pads a chain without changing any result's bits (-0.0 + x is x).
_FOLDING_UFUNCS = {"add": -0.0, "subtract": 0.0, "multiply": 1.0}


def _fold_repeated_rows(xp, table, g, many, vals, ufunc_name):
    """Apply the updates of the groups ``many`` of ``g`` (rows that repeat many times:
    k-means' segment sums, an embedding gradient over text with a padding id): each
    row's value followed by its updates in order, folded by ``ufunc.accumulate``
    (sequential by definition, so the bits of a loop; ``reduce``/``reduceat`` may sum
    pairwise). Rows whose counts share a power of two are folded together, as one
    (rows, longest chain, window) array padded with the ufunc's identity (under 2x
    padding)."""
    ufunc = getattr(xp, ufunc_name)
    pad = _FOLDING_UFUNCS[ufunc_name]
    if table.dtype.kind in "iub":
        pad = int(abs(pad))
    size_class = xp.where(many, xp.floor(xp.log2(g.counts)).astype(np.int64), -1)
    slot = xp.zeros(g.counts.shape[0], np.int64)            # a group's place in its class
    for c in xp.unique(size_class[many]).tolist():
        members = xp.nonzero(size_class == c)[0]
        slot[members] = xp.arange(members.shape[0])
        chain = xp.full((members.shape[0], int(g.counts[members].max()) + 1, table.shape[1]),
                        pad, table.dtype)
        chain[:, 0] = table[g.row[members]]
        mine = xp.nonzero(size_class[g.group] == c)[0]      # sorted updates in the class
        chain[slot[g.group[mine]], g.rank[mine] + 1] = vals[g.order[mine]]
        table[g.row[members]] = ufunc.accumulate(chain, axis=1, dtype=table.dtype)[:, -1]


def _scatter_apply(xp, out, indices, updates, dn, mode, ufunc_name):
    """Scatter ``updates`` into ``out`` (C-contiguous: written through reshaped views)
    in place."""
    if _scatter_rows(xp, out, indices, updates, dn, mode, ufunc_name):
        return
    flat, values = _scatter_targets(xp, out, indices, updates, dn, mode)
    out = out.reshape(-1)
    if ufunc_name is None:
        out[flat] = values  # duplicates: the last update wins
    else:
        with np.errstate(all="ignore"):  # NaN/overflow stay silent, as in JAX
            ieee_minmax.ufunc_at(xp, ufunc_name, out, flat, values)


def _scatter_impl(ufunc_name):
    def impl(xp, operand, indices, updates, *, dimension_numbers, mode,
             indices_are_sorted=False, unique_indices=False):
        operand, indices = xp.asarray(operand), xp.asarray(indices)
        updates = xp.asarray(updates, operand.dtype)
        out = xp.array(operand, copy=True, order="C")   # (reshaped in place below)
        _scatter_apply(xp, out, indices, updates,
                       _as_type(ScatterDimensionNumbers, dimension_numbers),
                       GatherScatterMode.from_any(mode), ufunc_name)
        return out
    return impl


def _scatter_primitive(name, ufunc_name):
    p = new_primitive(name)
    p.def_abstract_eval(_scatter_abstract(name))
    p.def_impl(_scatter_impl(ufunc_name))
    p.def_weak_type(lambda operand_weak, indices_weak, updates_weak, **_: operand_weak)
    p.ufunc_name = ufunc_name   # (NumPy's combiner: the lowering's library path uses it)
    return p


scatter_p = _scatter_primitive("scatter", None)
scatter_add_p = _scatter_primitive("scatter-add", "add")
scatter_sub_p = _scatter_primitive("scatter-sub", "subtract")
scatter_mul_p = _scatter_primitive("scatter-mul", "multiply")
scatter_min_p = _scatter_primitive("scatter-min", "minimum")
scatter_max_p = _scatter_primitive("scatter-max", "maximum")


def _scatter_lowering(prim, combine):
    """``x.at[i].set/add/...(v)`` with one index along one axis, ``v`` the whole slice:
    ``select(iota == i, combine(x, v), x)``, an elementwise kernel over ``x`` (fusible,
    and native inside loops; the library impl copies ``x`` too). Out-of-range indices
    match no row (dropped) or are clamped (clip mode). Other scatters stay library calls,
    into a fresh zero array when ``x`` is zeros (the gradient of a gather); a call that
    scatters whole rows says so (``fn.row_scatter``, a :class:`RowScatter`), and the CPU
    runs it as a compiled loop over the ids (``devices/cpu_scatter.py``)."""
    def lowering(ctx, operand, indices, updates, **params):
        out = _single_index_scatter(ctx, combine, operand, indices, updates, **params)
        if out is NotImplemented:
            out = _scatter_into_zeros(ctx, prim.ufunc_name, operand, indices, updates,
                                      **params)
        if out is NotImplemented and is_row_scatter(
                _as_type(ScatterDimensionNumbers, params["dimension_numbers"]),
                operand.shape, indices.shape, updates.shape):
            fn = ctx.rebuildable(_row_scatter_fn, prim, params)
            out = ctx.library(prim.name, fn, (operand, indices, updates),
                              [(tuple(operand.shape), operand.dtype)], primitive=prim,
                              params=params)[0]
        return out
    return lowering


class RowScatter(NamedTuple):
    """What a library call that scatters whole rows (:func:`is_row_scatter`) computes,
    for a runtime that has a compiled form of it: ``combine`` (the NumPy ufunc name; None
    sets), ``clip`` (clamp out-of-range ids; else they are dropped) and ``into_zeros``
    (the call's operands are ``(indices, updates)`` and the operand is zeros; else
    ``(operand, indices, updates)``)."""
    combine: object
    clip: bool
    into_zeros: bool


def _row_scatter_fn(prim, params):
    """The library function of a row scatter into an operand: the primitive's impl,
    marked with its :class:`RowScatter`."""
    impl = prim.impl

    def fn(xp, env, operand, indices, updates):
        return [impl(xp, operand, indices, updates, **params)]
    clip = GatherScatterMode.from_any(params["mode"]) == GatherScatterMode.CLIP
    fn.row_scatter = RowScatter(prim.ufunc_name, clip, False)
    return fn


def _scatter_into_zeros(ctx, ufunc_name, operand, indices, updates, *, dimension_numbers,
                        mode, indices_are_sorted=False, unique_indices=False):
    """A library call that scatters into a new ``np.zeros`` array: the zeros are not
    written by a kernel and then copied (100 MB twice for a 50,000 x 512 embedding's
    gradient), and the pages the updates never touch stay the kernel's zero pages."""
    if operand.opcode != "broadcast" or operand.operands[0].opcode != "constant":
        return NotImplemented
    zero = np.asarray(operand.operands[0].attrs["value"])
    if zero.ndim or zero != 0 or (dtypes.is_float(zero.dtype) and np.signbit(zero)):
        return NotImplemented
    dn = _as_type(ScatterDimensionNumbers, dimension_numbers)
    mode = GatherScatterMode.from_any(mode)
    shape, dtype = tuple(operand.shape), operand.dtype
    rows = is_row_scatter(dn, shape, indices.shape, updates.shape)
    fn = ctx.rebuildable(_scatter_into_zeros_fn, ufunc_name, shape, dtype, dn, mode, rows)
    name = "scatter" if ufunc_name is None else f"scatter-{ufunc_name}"
    return ctx.library(f"{name} into zeros", fn, (indices, updates), [(shape, dtype)])[0]


def _scatter_into_zeros_fn(ufunc_name, shape, dtype, dn, mode, rows=False):
    def fn(xp, env, indices, updates):
        out = xp.zeros(tuple(int(substitute(d, env)) for d in shape), dtype)
        _scatter_apply(xp, out, xp.asarray(indices), xp.asarray(updates, dtype), dn, mode,
                       ufunc_name)
        return [out]
    if rows:
        fn.row_scatter = RowScatter(ufunc_name, mode == GatherScatterMode.CLIP, True)
    return fn


def _single_index_scatter(ctx, combine, operand, indices, updates, *, dimension_numbers, mode,
                          indices_are_sorted=False, unique_indices=False):
    dn = _as_type(ScatterDimensionNumbers, dimension_numbers)
    axes = tuple(dn.scatter_dims_to_operand_dims)
    if len(axes) != 1 or tuple(dn.inserted_window_dims) != axes or \
            dn.operand_batching_dims or indices.shape != (1,) or \
            indices.dtype == np.uint64 or (operand.dtype == np.bool_ and combine):
        return NotImplemented
    (axis,) = axes
    window = [d for d in range(operand.ndim) if d != axis]
    if tuple(dn.update_window_dims) != tuple(range(updates.ndim)) or not all(
            definitely_equal(updates.shape[k], operand.shape[d])
            for k, d in enumerate(window)):
        return NotImplemented
    n = operand.shape[axis]
    clip = GatherScatterMode.from_any(mode) == GatherScatterMode.CLIP
    if clip and type(n) is not int:
        return NotImplemented
    dt = np.dtype(np.int64 if indices.dtype.itemsize >= 4 else np.int32)
    i = ctx.convert(ctx.add("reshape", (indices,), (), indices.dtype), dt)
    if clip:
        i = ctx.clamp(i, 0, n - 1)
    shape = tuple(operand.shape)
    rows = ctx.add("iota", (), shape, dt, dimension=axis)
    mask = ctx.elementwise("eq", [rows, ctx.broadcast(i, shape)])
    new = ctx.broadcast(updates, shape, tuple(window))
    if combine:
        new = ctx.elementwise(combine, [operand, new])
    return ctx.add("select", (mask, new, operand), shape, operand.dtype)


for _p, _c in ((scatter_p, None), (scatter_add_p, "add"), (scatter_sub_p, "sub"),
               (scatter_mul_p, "mul"), (scatter_min_p, "min"), (scatter_max_p, "max")):
    _p.lowering = _scatter_lowering(_p, _c)


# -- transformation rules ---------------------------------------------------------------------
# (jvp / transpose / batching; see primitives/rules.py for the contracts). Indices are
# integers: they never get a tangent. Every rule binds primitives only, so it is itself
# transformable (jvp of vmap, grad of grad, ...).
from tjit.primitives import rules as _r  # noqa: E402
from tjit.primitives.elementwise import (  # noqa: E402
    add_p, and_p, convert_element_type_p, div_p, eq_p, max_p, mul_p, neg_p, select_n_p)
from tjit.primitives.structural import broadcast_in_dim_p, iota_p  # noqa: E402
from tjit.tracing.core import get_aval as _aval  # noqa: E402

_CLIP, _FILL = GatherScatterMode.CLIP, GatherScatterMode.FILL_OR_DROP


def _zero_fill(dtype):
    return np.zeros((), dtype).item()


def _full(shape, value, dtype):
    """A constant array (a broadcast literal under tracing)."""
    c = np.asarray(value, dtype)
    if not shape:
        return c
    return broadcast_in_dim_p.bind(c, shape=tuple(shape), broadcast_dimensions=())


def _select(pred, on_false, on_true):
    return select_n_p.bind(pred, on_false, on_true)


def _as_dtype(x, dtype):
    return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=False)


def _scatter_as_gather(dn):
    """The gather dimension numbers that read back what a scatter with ``dn`` wrote."""
    return GatherDimensionNumbers(dn.update_window_dims, dn.inserted_window_dims,
                                  dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                                  dn.scatter_indices_batching_dims)


def _gather_as_scatter(dn):
    """The scatter dimension numbers that write where a gather with ``dn`` reads."""
    return ScatterDimensionNumbers(dn.offset_dims, dn.collapsed_slice_dims,
                                   dn.start_index_map, dn.operand_batching_dims,
                                   dn.start_indices_batching_dims)


def gather_back(x, indices, dn, updates_shape, mode, unique_indices=False):
    """``updates``-shaped values of ``x`` (operand-shaped) at the places a scatter with
    dimension numbers ``dn`` and ``mode`` writes each update element; 0 for updates the
    scatter drops. This is the exact transpose of scatter-add in ``updates``: a
    clipping scatter is read back by a clipping gather, a dropping scatter (fill/drop
    and promise_in_bounds, whose reference drops) by a zero-filling gather."""
    dn = _as_type(ScatterDimensionNumbers, dn)
    skip = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window = iter(dn.update_window_dims)
    sizes = tuple(1 if d in skip else updates_shape[next(window)]
                  for d in range(len(_aval(x).shape)))
    clip = GatherScatterMode.from_any(mode) == _CLIP
    return gather_p.bind(x, indices, dimension_numbers=_scatter_as_gather(dn),
                         slice_sizes=sizes, mode=_CLIP if clip else _FILL,
                         fill_value=None if clip else _zero_fill(_aval(x).dtype),
                         indices_are_sorted=False, unique_indices=bool(unique_indices))


# gather ---------------------------------------------------------------------------------------
def _gather_jvp(primals, tangents, *, dimension_numbers, slice_sizes, mode, fill_value,
                indices_are_sorted=False, unique_indices=False):
    params = dict(dimension_numbers=dimension_numbers, slice_sizes=slice_sizes, mode=mode,
                  fill_value=fill_value, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices)
    operand, indices = primals
    out = gather_p.bind(operand, indices, **params)
    g = tangents[0]
    if type(g) is _r.Zero:
        return out, _r.Zero.from_value(out)
    if GatherScatterMode.from_any(mode) == _FILL:
        # Filled (out-of-bounds) windows hold a constant: their tangent is 0, not the fill.
        params["fill_value"] = _zero_fill(_aval(g).dtype)
    return out, gather_p.bind(g, indices, **params)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes, mode,
                      fill_value, indices_are_sorted=False, unique_indices=False):
    if _r.is_undefined_primal(indices):
        raise ValueError("gather: cannot transpose with respect to the indices")
    if type(ct) is _r.Zero:
        return [_r.Zero(operand.aval), None]
    dn = _as_type(GatherDimensionNumbers, dimension_numbers)
    # A gather clamps unless it fills; the scatter-add that adjoins it clips or drops alike.
    smode = _FILL if GatherScatterMode.from_any(mode) == _FILL else _CLIP
    zeros = _r.zeros_like_aval(ShapedArray(operand.aval.shape, operand.aval.dtype))
    out = scatter_add_p.bind(zeros, indices, ct, dimension_numbers=_gather_as_scatter(dn),
                             mode=smode, indices_are_sorted=indices_are_sorted,
                             unique_indices=unique_indices)
    return [out, None]


def _shift(dims, by=1):
    return tuple(d + by for d in dims)


def _gather_batch(args, dims, *, dimension_numbers, slice_sizes, mode, fill_value,
                  indices_are_sorted=False, unique_indices=False):
    """Fold the mapped axis into the gather: an operand-only batch axis becomes a full
    window (offset) dim; an indices-only batch axis becomes a batch dim of the indices;
    both batched become a pair of operand/indices batching dims."""
    operand, indices = args
    od, idim = dims
    dn = _as_type(GatherDimensionNumbers, dimension_numbers)
    params = dict(mode=mode, fill_value=fill_value, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices)
    if idim is None:
        operand = _r.moveaxis(operand, od, 0)
        new = GatherDimensionNumbers((0,) + _shift(dn.offset_dims),
                                     _shift(dn.collapsed_slice_dims),
                                     _shift(dn.start_index_map),
                                     _shift(dn.operand_batching_dims),
                                     dn.start_indices_batching_dims)
        sizes = (_aval(operand).shape[0],) + tuple(slice_sizes)
    elif od is None:
        indices = _r.moveaxis(indices, idim, 0)
        new = GatherDimensionNumbers(_shift(dn.offset_dims), dn.collapsed_slice_dims,
                                     dn.start_index_map, dn.operand_batching_dims,
                                     _shift(dn.start_indices_batching_dims))
        sizes = tuple(slice_sizes)
        # different batch members may read the same place
        params.update(indices_are_sorted=False, unique_indices=False)
    else:
        operand = _r.moveaxis(operand, od, 0)
        indices = _r.moveaxis(indices, idim, 0)
        new = GatherDimensionNumbers(_shift(dn.offset_dims), _shift(dn.collapsed_slice_dims),
                                     _shift(dn.start_index_map),
                                     (0,) + _shift(dn.operand_batching_dims),
                                     (0,) + _shift(dn.start_indices_batching_dims))
        sizes = (batching_slice_size(_aval(operand).shape[0]),) + tuple(slice_sizes)
        params["indices_are_sorted"] = False
    return gather_p.bind(operand, indices, dimension_numbers=new, slice_sizes=sizes,
                         **params), 0


gather_p.jvp, gather_p.transpose, gather_p.batch = _gather_jvp, _gather_transpose, _gather_batch


# scatters: batching (one rule for all) --------------------------------------------------------
def _scatter_batch_rule(prim):
    def rule(args, dims, *, dimension_numbers, mode, indices_are_sorted=False,
             unique_indices=False):
        """The mapped axis becomes a window dim of operand and updates (indices not
        batched) or a pair of operand/indices batching dims (indices batched); an
        unbatched operand or updates is broadcast along it."""
        operand, indices, updates = args
        od, idim, ud = dims
        size = next(_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
        operand = _r.bdim_at_front(operand, od, size)
        updates = _r.bdim_at_front(updates, ud, size)
        dn = _as_type(ScatterDimensionNumbers, dimension_numbers)
        if idim is None:
            new = ScatterDimensionNumbers((0,) + _shift(dn.update_window_dims),
                                          _shift(dn.inserted_window_dims),
                                          _shift(dn.scatter_dims_to_operand_dims),
                                          _shift(dn.operand_batching_dims),
                                          dn.scatter_indices_batching_dims)
        else:
            indices = _r.moveaxis(indices, idim, 0)
            new = ScatterDimensionNumbers(_shift(dn.update_window_dims),
                                          _shift(dn.inserted_window_dims),
                                          _shift(dn.scatter_dims_to_operand_dims),
                                          (0,) + _shift(dn.operand_batching_dims),
                                          (0,) + _shift(dn.scatter_indices_batching_dims))
            indices_are_sorted = False
        # Batch members write disjoint operand slices: uniqueness is preserved.
        return prim.bind(operand, indices, updates, dimension_numbers=new, mode=mode,
                         indices_are_sorted=indices_are_sorted,
                         unique_indices=unique_indices), 0
    prim.batch = rule
    return rule


for _p in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
           scatter_max_p):
    _scatter_batch_rule(_p)


# scatter-add / scatter-sub: linear in operand and updates ---------------------------------
def _scatter_linear_jvp(prim):
    def jvp(primals, tangents, **params):
        operand, indices, updates = primals
        g_op, _, g_up = tangents
        out = prim.bind(operand, indices, updates, **params)
        if type(g_up) is _r.Zero:  # adding nothing: the operand's tangent passes through
            return out, g_op if type(g_op) is not _r.Zero else _r.Zero.from_value(out)
        return out, prim.bind(_r.instantiate(g_op), indices, g_up, **params)
    prim.jvp = jvp
    return jvp


def _scatter_linear_transpose(negate):
    def transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                  indices_are_sorted=False, unique_indices=False):
        if _r.is_undefined_primal(indices):
            raise ValueError("scatter: cannot transpose with respect to the indices")
        op_ct = up_ct = None
        if _r.is_undefined_primal(operand):
            op_ct = ct
        if _r.is_undefined_primal(updates):
            if type(ct) is _r.Zero:
                up_ct = _r.Zero(updates.aval)
            else:
                up_ct = gather_back(ct, indices, dimension_numbers, updates.aval.shape, mode,
                                    unique_indices)
                up_ct = neg_p.bind(up_ct) if negate else up_ct
        return [op_ct, None, up_ct]
    return transpose


_scatter_linear_jvp(scatter_add_p)
_scatter_linear_jvp(scatter_sub_p)
scatter_add_p.transpose = _scatter_linear_transpose(False)
scatter_sub_p.transpose = _scatter_linear_transpose(True)


# scatter-mul -----------------------------------------------------------------------------------
def _scatter_mul_jvp(primals, tangents, **params):
    """``out[p] = x[p] * prod_k y[k]`` over the updates k landing on p. In ``x`` the map
    is linear (a scatter-mul of the tangent). In ``y``: ``x[p] * sum_k g[k] *
    prod_{j != k} y[j]``, computed without dividing by zero: with Z[p] zero updates and
    Q[p] the product of the non-zero ones, update k's coefficient is Q/y[k] when Z == 0,
    Q when y[k] is the only zero, else 0 (JAX supports only unique indices here). This
    is exact to first order everywhere; its own derivative (second order) is exact
    unless an update is exactly zero (the zero-count branches are constants)."""
    x, indices, y = primals
    g_x, _, g_y = tangents
    out = scatter_mul_p.bind(x, indices, y, **params)
    t = _r.Zero.from_value(out)
    if type(g_x) is not _r.Zero:
        t = scatter_mul_p.bind(g_x, indices, y, **params)
    if type(g_y) is _r.Zero:
        return out, t
    xa, ya = _aval(x), _aval(y)
    dn, mode = params["dimension_numbers"], params["mode"]
    if params.get("unique_indices"):
        coef_g = g_y
    else:
        one, zero = np.ones((), ya.dtype), np.zeros((), ya.dtype)
        is0 = eq_p.bind(y, zero)
        y_nz = _select(is0, y, one)
        q = scatter_mul_p.bind(_full(xa.shape, 1, xa.dtype), indices, y_nz, **params)
        z = scatter_add_p.bind(_full(xa.shape, 0, xa.dtype), indices, _as_dtype(is0, ya.dtype),
                               **params)
        q_k = gather_back(q, indices, dn, ya.shape, mode)
        z_k = gather_back(z, indices, dn, ya.shape, mode)
        only_zero = and_p.bind(is0, eq_p.bind(z_k, one))
        coef = _select(eq_p.bind(z_k, zero), _select(only_zero, zero, q_k), div_p.bind(q_k, y_nz))
        coef_g = mul_p.bind(g_y, coef)
    summed = scatter_add_p.bind(_full(xa.shape, 0, xa.dtype), indices, coef_g, **params)
    return out, _r.add_tangents(t, mul_p.bind(x, summed))


def _scatter_mul_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                           indices_are_sorted=False, unique_indices=False):
    params = dict(dimension_numbers=dimension_numbers, mode=mode,
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    if _r.is_undefined_primal(indices):
        raise ValueError("scatter-mul: cannot transpose with respect to the indices")
    if _r.is_undefined_primal(operand) and _r.is_undefined_primal(updates):
        raise ValueError("scatter-mul is not linear in operand and updates together")
    if _r.is_undefined_primal(operand):
        if type(ct) is _r.Zero:
            return [_r.Zero(operand.aval), None, None]
        return [scatter_mul_p.bind(ct, indices, updates, **params), None, None]
    if not unique_indices:
        raise NotImplementedError(
            "scatter-mul: the transpose in `updates` needs unique_indices=True (with "
            "duplicate indices the map is not linear in the updates)")
    if type(ct) is _r.Zero:
        return [None, None, _r.Zero(updates.aval)]
    return [None, None, gather_back(mul_p.bind(ct, operand), indices, dimension_numbers,
                                    updates.aval.shape, mode, True)]


scatter_mul_p.jvp, scatter_mul_p.transpose = _scatter_mul_jvp, _scatter_mul_transpose


# scatter-min / scatter-max -----------------------------------------------------------------------
def _scatter_extremal_jvp(prim):
    def jvp(primals, tangents, **params):
        """JAX's rule: the tangent at a place is the average of the tangents of all the
        values that tie for the result there (the operand's own value included), so
        ties split the derivative evenly, as ``max``/``min`` do."""
        x, indices, y = primals
        g_x, _, g_y = tangents
        out = prim.bind(x, indices, y, **params)
        if type(g_x) is _r.Zero and type(g_y) is _r.Zero:
            return out, _r.Zero.from_value(out)
        g_x, g_y = _r.instantiate(g_x), _r.instantiate(g_y)
        xa, ya = _aval(x), _aval(y)
        dn, mode = params["dimension_numbers"], params["mode"]

        def back(a):
            return gather_back(a, indices, dn, ya.shape, mode)
        one = np.ones((), ya.dtype)
        target = back(out)
        won = _as_dtype(eq_p.bind(y, target), ya.dtype)          # this update is a winner
        kept = _as_dtype(eq_p.bind(back(x), target), ya.dtype)   # the operand ties too
        zeros_x = _full(xa.shape, 0, xa.dtype)
        n_won = back(scatter_add_p.bind(zeros_x, indices, won, **params))
        n_refs = back(scatter_add_p.bind(zeros_x, indices, _full(ya.shape, 1, ya.dtype),
                                         **params))
        # Guard the divisions (dropped updates read 0 counts): every coefficient is finite.
        share = div_p.bind(one, max_p.bind(add_p.bind(n_won, kept), one))
        up_coef = mul_p.bind(won, share)
        # Each of the n_refs updates at a place moves the operand's tangent from 1 to its
        # share: x_coef sums to (kept * share - 1) there.
        x_coef = div_p.bind(add_p.bind(mul_p.bind(kept, share), np.asarray(-1, ya.dtype)),
                            max_p.bind(n_refs, one))
        t_up = add_p.bind(mul_p.bind(back(g_x), x_coef), mul_p.bind(g_y, up_coef))
        return out, scatter_add_p.bind(g_x, indices, t_up, **params)
    prim.jvp = jvp
    return jvp


_scatter_extremal_jvp(scatter_min_p)
_scatter_extremal_jvp(scatter_max_p)


# scatter (set) --------------------------------------------------------------------------------
def _update_ids(updates_shape, dn):
    """int32 ids 1, 2, ... per scatter position of ``updates`` (equal across a window)."""
    window = set(dn.update_window_dims)
    ids, stride = np.ones((), np.int32), 1
    for d in reversed([d for d in range(len(updates_shape)) if d not in window]):
        term = iota_p.bind(dtype=np.dtype(np.int32), shape=tuple(updates_shape), dimension=d)
        if stride != 1:
            term = mul_p.bind(term, np.asarray(stride, np.int32))
        ids = add_p.bind(term, ids)
        stride = stride * updates_shape[d]
    if type(stride) is int and stride >= 2 ** 31 - 1:
        raise NotImplementedError(f"scatter: differentiating a scatter of {stride} updates "
                                  f"with possibly duplicate indices is not supported (ids "
                                  f"overflow int32); pass unique_indices=True if they are "
                                  f"unique")
    return ids if _aval(ids).shape == tuple(updates_shape) else \
        _full(updates_shape, 1, np.int32)


def _scatter_winners(operand_shape, indices, updates_shape, **params):
    """Which update elements land (the winners among duplicates) and which operand
    elements survive, decided by scattering ids with the very same scatter."""
    dn = _as_type(ScatterDimensionNumbers, params["dimension_numbers"])
    ids = _update_ids(tuple(updates_shape), dn)
    placed = scatter_p.bind(_full(operand_shape, 0, np.int32), indices, ids, **params)
    won = eq_p.bind(ids, gather_back(placed, indices, dn, updates_shape, params["mode"]))
    kept = eq_p.bind(placed, np.zeros((), np.int32))
    return won, kept


def _scatter_jvp(primals, tangents, **params):
    """With ``unique_indices`` the tangent is the same scatter of the tangents. Otherwise
    (JAX's id trick) the scatter is replayed on update ids to find, for every element,
    which update won; primal and tangent are then scatter-adds of the masked values, so
    both agree on the winner even where the backend's choice among duplicates is
    arbitrary (here the last update wins)."""
    x, indices, y = primals
    g_x, _, g_y = tangents
    if type(g_x) is _r.Zero and type(g_y) is _r.Zero:
        out = scatter_p.bind(x, indices, y, **params)
        return out, _r.Zero.from_value(out)
    if params.get("unique_indices"):
        return (scatter_p.bind(x, indices, y, **params),
                scatter_p.bind(_r.instantiate(g_x), indices, _r.instantiate(g_y), **params))
    xa, ya = _aval(x), _aval(y)
    won, kept = _scatter_winners(xa.shape, indices, ya.shape, **params)
    zero = np.zeros((), xa.dtype)
    out = scatter_add_p.bind(_select(kept, zero, x), indices, _select(won, zero, y), **params)
    t_x = _r.Zero(xa) if type(g_x) is _r.Zero else _select(kept, zero, g_x)
    if type(g_y) is _r.Zero:
        return out, t_x
    t = scatter_add_p.bind(_r.instantiate(t_x), indices, _select(won, zero, g_y), **params)
    return out, t


def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                       indices_are_sorted=False, unique_indices=False):
    """Scatter is linear in (operand, updates) for a fixed choice of winners: the operand
    gets ``ct`` where nothing was written, each winning update its place's ``ct``."""
    params = dict(dimension_numbers=dimension_numbers, mode=mode,
                  indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    if _r.is_undefined_primal(indices):
        raise ValueError("scatter: cannot transpose with respect to the indices")
    op_u, up_u = _r.is_undefined_primal(operand), _r.is_undefined_primal(updates)
    oa = operand.aval if op_u else _aval(operand)
    ua = updates.aval if up_u else _aval(updates)
    if type(ct) is _r.Zero:
        return [_r.Zero(oa) if op_u else None, None, _r.Zero(ua) if up_u else None]
    won, kept = _scatter_winners(oa.shape, indices, ua.shape, **params)
    zero = np.zeros((), _aval(ct).dtype)
    op_ct = _select(kept, zero, ct) if op_u else None
    up_ct = None
    if up_u:
        up_ct = gather_back(ct, indices, dimension_numbers, ua.shape, mode, unique_indices)
        if not unique_indices:
            up_ct = _select(won, zero, up_ct)
    return [op_ct, None, up_ct]


scatter_p.jvp, scatter_p.transpose = _scatter_jvp, _scatter_transpose
