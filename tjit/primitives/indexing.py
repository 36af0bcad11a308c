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
XLA leaves implementation-defined.
"""

import enum
from typing import NamedTuple

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import definitely_equal, dim_str, greater_equal, shape_str
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
        return int(np.iinfo(dtype).max)
    if dtypes.is_int(dtype):
        return int(np.iinfo(dtype).min)
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


@gather_p.def_impl
def _gather_impl(xp, operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value,
                 indices_are_sorted=False, unique_indices=False):
    # Shapes were checked by the abstract rule (eager calls and tracing both run it).
    dn = _as_type(GatherDimensionNumbers, dimension_numbers)
    operand, indices = xp.asarray(operand), xp.asarray(indices)
    mode = GatherScatterMode.from_any(mode)
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


def _scatter_impl(ufunc_name):
    def impl(xp, operand, indices, updates, *, dimension_numbers, mode,
             indices_are_sorted=False, unique_indices=False):
        operand, indices = xp.asarray(operand), xp.asarray(indices)
        updates = xp.asarray(updates, operand.dtype)
        flat, values = _scatter_targets(xp, operand, indices, updates,
                                        _as_type(ScatterDimensionNumbers, dimension_numbers),
                                        GatherScatterMode.from_any(mode))
        out = xp.array(operand, copy=True).reshape(-1)
        if ufunc_name is None:
            out[flat] = values  # duplicates: the last update wins
        else:
            with np.errstate(all="ignore"):  # NaN/overflow stay silent, as in JAX
                getattr(xp, ufunc_name).at(out, flat, values)
        return out.reshape(operand.shape)
    return impl


def _scatter_primitive(name, ufunc_name):
    p = new_primitive(name)
    p.def_abstract_eval(_scatter_abstract(name))
    p.def_impl(_scatter_impl(ufunc_name))
    p.def_weak_type(lambda operand_weak, indices_weak, updates_weak, **_: operand_weak)
    return p


scatter_p = _scatter_primitive("scatter", None)
scatter_add_p = _scatter_primitive("scatter-add", "add")
scatter_sub_p = _scatter_primitive("scatter-sub", "subtract")
scatter_mul_p = _scatter_primitive("scatter-mul", "multiply")
scatter_min_p = _scatter_primitive("scatter-min", "minimum")
scatter_max_p = _scatter_primitive("scatter-max", "maximum")
