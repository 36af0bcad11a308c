"""Structural primitives that select, reverse, pad or join array data without arithmetic:
rev, pad, concatenate, slice, dynamic_slice and dynamic_update_slice.

Semantics follow XLA: ``pad`` accepts negative low/high padding (it crops) and interior
padding between elements; ``dynamic_slice`` / ``dynamic_update_slice`` clamp their start
indices so the window lies inside the operand (they never read or write out of bounds).

Shape rules accept symbolic dims: concatenating ``(b, 3)`` with ``(b, 3)`` on axis 0 gives
``(2*b, 3)``; static slice bounds may be ints or dims (e.g. ``x.shape[0]``).

Transformation rules (end of file): all six are linear in their array operands (start
indices get no tangent). Transposes: rev -> rev, slice -> zero padding (strides become
interior padding), pad -> un-padding slice (+ the sum of the padding region for the
padding value), concatenate -> slices, dynamic_slice <-> dynamic_update_slice. Batching
keeps the batch dim; per-example start indices turn dynamic_slice into a gather and
dynamic_update_slice into a scatter.
"""

from tjit._sympy import simplify_dim, sympy
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import InconclusiveDimensionError, OperandShapeError, ShapeError
from tjit.tracing.shapes import (
    definitely_equal, dim_str, greater_equal, shape_str)
from tjit.primitives.base import new_primitive, same_dtypes


def _check_le(op, a, b, what):
    """Raise ShapeError unless a <= b (decided for symbolic dims where possible)."""
    try:
        ok = greater_equal(b, a)
    except InconclusiveDimensionError:
        raise InconclusiveDimensionError(
            f"{op}: cannot decide whether {what} ({dim_str(a)} <= {dim_str(b)}) holds for "
            f"every value of the symbolic dims; express the bound with the symbolic dims "
            f"(e.g. x.shape[0] - 1) or use concrete shapes") from None
    if not ok:
        raise ShapeError(f"{op}: {what} requires {dim_str(a)} <= {dim_str(b)}")


def _check_one_per_dim(op, name, values, ndim, shape):
    if len(values) != ndim:
        raise ShapeError(f"{op}: {name} {tuple(values)} must have one entry per dimension "
                         f"of the operand of shape {shape_str(shape)} ({ndim} entries)")


# -- rev ------------------------------------------------------------------------------------
rev_p = new_primitive("rev")


@rev_p.def_abstract_eval
def _rev_abstract(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions) or any(
            not 0 <= d < x.ndim for d in dimensions):
        raise ShapeError(f"rev: dimensions {dimensions} must be unique and in range for an "
                         f"operand of shape {shape_str(x.shape)}")
    return ShapedArray(x.shape, x.dtype)


@rev_p.def_impl
def _rev_impl(xp, x, *, dimensions):
    x = xp.asarray(x)
    return xp.flip(x, axis=dimensions) if dimensions else x


# -- pad ------------------------------------------------------------------------------------
pad_p = new_primitive("pad")


def _padded_dim(d, lo, hi, interior):
    if type(d) is int:
        return lo + hi + d + max(d - 1, 0) * interior
    return simplify_dim(lo + hi + d + (d - 1) * interior)  # symbolic dims are >= 1


@pad_p.def_abstract_eval
def _pad_abstract(x, padding_value, *, padding_config):
    if padding_value.shape != ():
        raise ShapeError(f"pad: padding_value must be a scalar, got shape "
                         f"{shape_str(padding_value.shape)}")
    same_dtypes("pad", (x, padding_value))
    _check_one_per_dim("pad", "padding_config", padding_config, x.ndim, x.shape)
    out = []
    for d, cfg in zip(x.shape, padding_config):
        if len(cfg) != 3:
            raise ShapeError(f"pad: each padding_config entry must be (low, high, interior), "
                             f"got {cfg}")
        lo, hi, interior = cfg
        if interior < 0:
            raise ShapeError(f"pad: interior padding must be >= 0, got {padding_config}")
        n = _padded_dim(d, lo, hi, interior)
        _check_le("pad", 0, n, f"the padded size of a dim of shape {shape_str(x.shape)} "
                               f"with config {cfg}")
        out.append(n)
    return ShapedArray(tuple(out), x.dtype)


@pad_p.def_impl
def _pad_impl(xp, x, padding_value, *, padding_config):
    x = xp.asarray(x)
    # Pad every positive amount first, then crop the negative ones: XLA applies negative
    # padding to the array that already holds the interior and positive padding.
    full_shape, place, crop = [], [], []
    for d, (lo, hi, interior) in zip(x.shape, padding_config):
        inner = d + max(d - 1, 0) * interior
        lo_p, hi_p = max(lo, 0), max(hi, 0)
        full_shape.append(lo_p + inner + hi_p)
        place.append(slice(lo_p, lo_p + inner, interior + 1))
        crop.append(slice(max(-lo, 0), lo_p + inner + hi_p - max(-hi, 0)))
    out = xp.full(full_shape, padding_value, dtype=x.dtype)
    out[tuple(place)] = x
    return out[tuple(crop)]


pad_p.def_weak_type(lambda w_operand, w_pad, **_: w_operand)

# -- concatenate ----------------------------------------------------------------------------
concatenate_p = new_primitive("concatenate")


@concatenate_p.def_abstract_eval
def _concatenate_abstract(*operands, dimension):
    if not operands:
        raise ShapeError("concatenate: needs at least one operand")
    s0 = operands[0].shape
    shapes = ", ".join(shape_str(o.shape) for o in operands)
    if not 0 <= dimension < len(s0) or any(o.ndim != len(s0) for o in operands):
        raise ShapeError(f"concatenate: operands of shapes {shapes} must all have the same "
                         f"rank >= 1 and dimension {dimension} must be in range")
    dt = same_dtypes("concatenate", operands)
    for o in operands[1:]:
        for i, (a, b) in enumerate(zip(o.shape, s0)):
            if i != dimension and not definitely_equal(a, b):
                raise OperandShapeError(f"concatenate: operands of shapes {shapes} must agree on "
                                        f"every dim except dimension {dimension}; reshape or "
                                        f"broadcast them first")
    total = 0
    for o in operands:
        total = total + o.shape[dimension]
    return ShapedArray(s0[:dimension] + (simplify_dim(total),) + s0[dimension + 1:], dt)


@concatenate_p.def_impl
def _concatenate_impl(xp, *operands, dimension):
    return xp.concatenate([xp.asarray(o) for o in operands], axis=dimension)


# -- slice ----------------------------------------------------------------------------------
slice_p = new_primitive("slice")


def _sliced_dim(start, limit, stride):
    n = limit - start
    if stride == 1:
        return simplify_dim(n)
    if type(n) is int:
        return max(0, -(-n // stride))
    return simplify_dim(sympy.floor((n + stride - 1) / sympy.Integer(stride)))


@slice_p.def_abstract_eval
def _slice_abstract(x, *, start_indices, limit_indices, strides=None):
    _check_one_per_dim("slice", "start_indices", start_indices, x.ndim, x.shape)
    _check_one_per_dim("slice", "limit_indices", limit_indices, x.ndim, x.shape)
    strides = (1,) * x.ndim if strides is None else strides
    _check_one_per_dim("slice", "strides", strides, x.ndim, x.shape)
    out = []
    for d, s, l, st in zip(x.shape, start_indices, limit_indices, strides):
        if type(st) is not int or st < 1:
            raise ShapeError(f"slice: strides must be positive ints, got {strides}")
        where = (f"start_indices {start_indices} / limit_indices {limit_indices} for an "
                 f"operand of shape {shape_str(x.shape)}")
        _check_le("slice", 0, s, where)
        _check_le("slice", s, l, where)
        _check_le("slice", l, d, where)
        out.append(_sliced_dim(s, l, st))
    return ShapedArray(tuple(out), x.dtype)


@slice_p.def_impl
def _slice_impl(xp, x, *, start_indices, limit_indices, strides=None):
    strides = (1,) * len(start_indices) if strides is None else strides
    idx = tuple(slice(s, l, st) for s, l, st in zip(start_indices, limit_indices, strides))
    return xp.asarray(x)[idx]


# -- dynamic_slice / dynamic_update_slice -----------------------------------------------------
dynamic_slice_p = new_primitive("dynamic_slice")
dynamic_update_slice_p = new_primitive("dynamic_update_slice")


def _check_start_indices(op, x, indices):
    if len(indices) != x.ndim:
        raise ShapeError(f"{op}: an operand of shape {shape_str(x.shape)} needs {x.ndim} "
                         f"start indices, got {len(indices)}")
    for i, a in enumerate(indices):
        if a.shape != () or not dtypes.is_int(a.dtype):
            raise TypeError(f"{op}: start index {i} must be an integer scalar, got "
                            f"{a.str_short()}; pass one scalar index per dimension")


def _clamped_starts(indices, shape, sizes):
    """XLA semantics: each start is clamped into [0, dim - size]."""
    return [min(max(int(i), 0), d - s) for i, d, s in zip(indices, shape, sizes)]


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract(x, *indices, slice_sizes):
    _check_start_indices("dynamic_slice", x, indices)
    _check_one_per_dim("dynamic_slice", "slice_sizes", slice_sizes, x.ndim, x.shape)
    for d, s in zip(x.shape, slice_sizes):
        where = f"slice_sizes {shape_str(slice_sizes)} for an operand of shape " \
                f"{shape_str(x.shape)}"
        _check_le("dynamic_slice", 0, s, where)
        _check_le("dynamic_slice", s, d, where)
    return ShapedArray(tuple(slice_sizes), x.dtype)


@dynamic_slice_p.def_impl
def _dynamic_slice_impl(xp, x, *indices, slice_sizes):
    x = xp.asarray(x)
    starts = _clamped_starts(indices, x.shape, slice_sizes)
    return x[tuple(slice(s, s + n) for s, n in zip(starts, slice_sizes))]


dynamic_slice_p.def_weak_type(lambda w_operand, *w_indices, **_: w_operand)


def _dynamic_slice_lowering(ctx, x, *indices, slice_sizes):
    """A window that is partial along at most one (concrete) axis becomes a ``take``
    of ``clamp(start) + iota`` along it (fusible; minibatches in a loop); the whole
    operand is the operand itself. Other windows stay a library call."""
    partial = [d for d, (s, n) in enumerate(zip(slice_sizes, x.shape))
               if not (type(s) is int and type(n) is int and s == n)]
    if not partial:
        return x
    if len(partial) > 1:
        return NotImplemented
    (axis,) = partial
    start, n, size = indices[axis], x.shape[axis], slice_sizes[axis]
    if type(n) is not int or type(size) is not int or start.dtype == np.uint64:
        return NotImplemented
    dt = _position_dtype(n)
    if start.dtype.itemsize >= dt.itemsize:  # clamp before narrowing: a cast would wrap
        s0 = ctx.convert(ctx.clamp(start, 0, n - size), dt)  # (uint32 2**31, int64 2**32)
    else:
        s0 = ctx.clamp(ctx.convert(start, dt), 0, n - size)
    idx = ctx.elementwise("add", [ctx.add("iota", (), (size,), dt, dimension=0), s0])
    out_dims = tuple(("b", 0) if d == axis else ("o", d) for d in range(x.ndim))
    shape = tuple(size if d == axis else x.shape[d] for d in range(x.ndim))
    return ctx.add("take", (x, idx), shape, x.dtype, axis=axis, out_dims=out_dims, fill=None)


dynamic_slice_p.lowering = _dynamic_slice_lowering


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract(x, update, *indices):
    _check_start_indices("dynamic_update_slice", x, indices)
    same_dtypes("dynamic_update_slice", (x, update))
    if update.ndim != x.ndim:
        raise ShapeError(f"dynamic_update_slice: update of shape {shape_str(update.shape)} "
                         f"must have the rank of the operand of shape {shape_str(x.shape)}")
    for d, u in zip(x.shape, update.shape):
        _check_le("dynamic_update_slice", u, d,
                  f"an update of shape {shape_str(update.shape)} fitting in an operand of "
                  f"shape {shape_str(x.shape)}")
    return ShapedArray(x.shape, x.dtype)


@dynamic_update_slice_p.def_impl
def _dynamic_update_slice_impl(xp, x, update, *indices):
    x, update = xp.asarray(x), xp.asarray(update)
    starts = _clamped_starts(indices, x.shape, update.shape)
    out = x.copy()
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return out


dynamic_update_slice_p.def_weak_type(lambda w_operand, w_update, *w_idx, **_: w_operand)


__all__ = ["rev_p", "pad_p", "concatenate_p", "slice_p", "dynamic_slice_p",
           "dynamic_update_slice_p", "simplify_dim"]
# -- transformation rules -------------------------------------------------------------------
# (jvp / transpose / batching; see primitives/rules.py for the helpers' contracts). Every
# primitive here is linear in its array operands; start indices are never differentiated.
import numpy as np  # noqa: E402

from tjit.tracing.core import get_aval as _aval  # noqa: E402
from tjit.primitives import rules as _r  # noqa: E402
from tjit.primitives.elementwise import (  # noqa: E402
    convert_element_type_p, min_p, select_n_p, sub_p)
from tjit.primitives.structural import broadcast_in_dim_p  # noqa: E402


def _shape(x):
    return tuple(_aval(x).shape)


def _zero_ct(args):
    """Cotangents for a symbolic-zero output cotangent: zero for every linear input."""
    return [_r.Zero(a.aval) if _r.is_undefined_primal(a) else None for a in args]


def _zero_scalar(dtype):
    return np.zeros((), dtype)


def _batch_size(args, dims):
    return next(_shape(a)[d] for a, d in zip(args, dims) if d is not None)


def _sum_all(x):
    from tjit.primitives.reductions import reduce_sum_p
    nd = len(_shape(x))
    return reduce_sum_p.bind(x, axes=tuple(range(nd))) if nd else x


# rev: its own transpose; batching renumbers the reversed dims around the batch dim.
_r.deflinear(rev_p, lambda ct, x, *, dimensions: _zero_ct([x]) if type(ct) is _r.Zero
             else [rev_p.bind(ct, dimensions=dimensions)])


def _rev_batch(args, dims, *, dimensions):
    (x,), (d,) = args, dims
    return rev_p.bind(x, dimensions=tuple(a + (a >= d) for a in dimensions)), d


rev_p.batch = _rev_batch


# pad: linear in the operand and the padding value jointly.
def _pad_transpose(ct, x, padding_value, *, padding_config):
    if type(ct) is _r.Zero:
        return _zero_ct([x, padding_value])
    # Undo low/high padding (negative amounts re-grow the cropped border as zeros), then
    # step over the interior padding: what is left are the operand's positions.
    unpad = tuple((-lo, -hi, 0) for lo, hi, _ in padding_config)
    unpadded = pad_p.bind(ct, _zero_scalar(_aval(ct).dtype), padding_config=unpad)
    shape = _shape(unpadded)
    t_x = slice_p.bind(unpadded, start_indices=(0,) * len(shape), limit_indices=shape,
                       strides=tuple(i + 1 for _, _, i in padding_config))
    t_pv = None
    if _r.is_undefined_primal(padding_value):
        # Every output element not holding an operand element holds the padding value.
        t_pv = sub_p.bind(_sum_all(ct), _sum_all(t_x))
    return [t_x if _r.is_undefined_primal(x) else None, t_pv]


_r.deflinear(pad_p, _pad_transpose)


def _pad_batch(args, dims, *, padding_config):
    (x, pv), (dx, dpv) = args, dims
    if dpv is None:
        cfg = padding_config[:dx] + ((0, 0, 0),) + padding_config[dx:]
        return pad_p.bind(x, pv, padding_config=cfg), dx
    # A batched padding value: pad with zeros, then select the padding value outside the
    # operand's positions (a mask padded the same way).
    size = _batch_size(args, dims)
    x = _r.bdim_at_front(x, dx, size)
    dt = _aval(x).dtype
    padded = pad_p.bind(x, _zero_scalar(dt), padding_config=((0, 0, 0),) + padding_config)
    inner = _shape(x)[1:]
    ones = broadcast_in_dim_p.bind(np.asarray(True), shape=inner, broadcast_dimensions=())
    mask = pad_p.bind(ones, np.asarray(False), padding_config=padding_config)
    full = _shape(padded)
    mask = broadcast_in_dim_p.bind(mask, shape=full,
                                   broadcast_dimensions=tuple(range(1, len(full))))
    pv = broadcast_in_dim_p.bind(pv, shape=full, broadcast_dimensions=(0,))
    return select_n_p.bind(mask, pv, padded), 0


pad_p.batch = _pad_batch


# concatenate: the transpose slices the cotangent back into the operands' pieces.
def _concatenate_transpose(ct, *operands, dimension):
    if type(ct) is _r.Zero:
        return _zero_ct(operands)
    shape = _shape(ct)
    out, start = [], 0
    for o in operands:
        n = (o.aval if _r.is_undefined_primal(o) else _aval(o)).shape[dimension]
        stop = simplify_dim(start + n)
        if _r.is_undefined_primal(o):
            lo = tuple(start if i == dimension else 0 for i in range(len(shape)))
            hi = tuple(stop if i == dimension else d for i, d in enumerate(shape))
            out.append(slice_p.bind(ct, start_indices=lo, limit_indices=hi, strides=None))
        else:
            out.append(None)
        start = stop
    return out


_r.deflinear(concatenate_p, _concatenate_transpose)


def _concatenate_batch(args, dims, *, dimension):
    size = _batch_size(args, dims)
    ops = [_r.bdim_at_front(a, d, size) for a, d in zip(args, dims)]
    return concatenate_p.bind(*ops, dimension=dimension + 1), 0


concatenate_p.batch = _concatenate_batch


# slice: the transpose pads the cotangent with zeros (strides become interior padding).
def _slice_transpose(ct, x, *, start_indices, limit_indices, strides=None):
    if type(ct) is _r.Zero:
        return _zero_ct([x])
    strides = (1,) * len(start_indices) if strides is None else strides
    cfg = []
    for d, s, n, st in zip(x.aval.shape, start_indices, _shape(ct), strides):
        # one past the last element read (not limit_indices: a stride may stop short)
        real_limit = s if type(n) is int and n == 0 else simplify_dim(s + (n - 1) * st + 1)
        cfg.append((s, simplify_dim(d - real_limit), st - 1))
    return [pad_p.bind(ct, _zero_scalar(_aval(ct).dtype), padding_config=tuple(cfg))]


_r.deflinear(slice_p, _slice_transpose)


def _slice_batch(args, dims, *, start_indices, limit_indices, strides=None):
    (x,), (d,) = args, dims
    n = _shape(x)[d]
    strides = None if strides is None else strides[:d] + (1,) + strides[d:]
    return slice_p.bind(x, start_indices=start_indices[:d] + (0,) + start_indices[d:],
                        limit_indices=limit_indices[:d] + (n,) + limit_indices[d:],
                        strides=strides), d


slice_p.batch = _slice_batch


# dynamic_slice / dynamic_update_slice: linear in the operand (and update); the start
# indices get no tangent. Both clamp their starts identically, so each transposes into
# the other at the same indices.
def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *idx = primals
    out = dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
    t = tangents[0]
    if type(t) is _r.Zero:
        return out, _r.Zero.from_value(out)
    return out, dynamic_slice_p.bind(t, *idx, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, x, *idx, slice_sizes):
    if any(_r.is_undefined_primal(i) for i in idx):
        raise ValueError("dynamic_slice: cannot transpose with respect to the start indices "
                         "(they are not linear inputs)")
    if type(ct) is _r.Zero:
        return [_r.Zero(x.aval)] + [None] * len(idx)
    zeros = _r.zeros_like_aval(x.aval)
    return [dynamic_update_slice_p.bind(zeros, ct, *idx)] + [None] * len(idx)


dynamic_slice_p.jvp = _dynamic_slice_jvp
dynamic_slice_p.transpose = _dynamic_slice_transpose


def _dynamic_update_slice_jvp(primals, tangents):
    x, u, *idx = primals
    out = dynamic_update_slice_p.bind(x, u, *idx)
    tx, tu = tangents[:2]
    if type(tx) is _r.Zero and type(tu) is _r.Zero:
        return out, _r.Zero.from_value(out)
    return out, dynamic_update_slice_p.bind(_r.instantiate(tx), _r.instantiate(tu), *idx)


def _dynamic_update_slice_transpose(ct, x, u, *idx):
    if any(_r.is_undefined_primal(i) for i in idx):
        raise ValueError("dynamic_update_slice: cannot transpose with respect to the start "
                         "indices (they are not linear inputs)")
    if type(ct) is _r.Zero:
        return _zero_ct([x, u]) + [None] * len(idx)
    t_x = t_u = None
    if _r.is_undefined_primal(x):
        t_x = dynamic_update_slice_p.bind(ct, _r.zeros_like_aval(u.aval if
                                                                  _r.is_undefined_primal(u)
                                                                  else _aval(u)), *idx)
    if _r.is_undefined_primal(u):
        t_u = dynamic_slice_p.bind(ct, *idx, slice_sizes=tuple(u.aval.shape))
    return [t_x, t_u] + [None] * len(idx)


dynamic_update_slice_p.jvp = _dynamic_update_slice_jvp
dynamic_update_slice_p.transpose = _dynamic_update_slice_transpose


def _index_dtype(idx):
    """One integer dtype able to hold every start index (for stacking them)."""
    wide = any(np.dtype(_aval(i).dtype).itemsize > 4 for i in idx)
    return np.dtype(np.int64 if wide else np.int32)


def _stacked_starts(idx, dims, size):
    """The start indices as one ``(size, n)`` array (row b: example b's starts)."""
    dt = _index_dtype(idx)
    cols = []
    for i, d in zip(idx, dims):
        src = np.dtype(_aval(i).dtype)
        if src.kind == "u" and src.itemsize >= dt.itemsize:
            # a cast would wrap 2**31 (uint32) negative; the gather clamps to the last
            # window anyway, so bounding the start by dt's max keeps its meaning
            i = min_p.bind(i, np.asarray(np.iinfo(dt).max, src))
        if src != dt:
            i = convert_element_type_p.bind(i, new_dtype=dt, weak_type=False)
        dims_ = (0,) if d is not None else ()
        cols.append(broadcast_in_dim_p.bind(i, shape=(size, 1), broadcast_dimensions=dims_))
    return cols[0] if len(cols) == 1 else concatenate_p.bind(*cols, dimension=1)


def _front_index(idx):
    return np.zeros((), _aval(idx[0]).dtype if idx else np.int32)


def _dynamic_slice_batch(args, dims, *, slice_sizes):
    from tjit.primitives.indexing import (GatherDimensionNumbers, GatherScatterMode,
                                         batching_slice_size, gather_p)
    x, *idx = args
    dx, *didx = dims
    if all(d is None for d in didx):  # the batch dim is sliced whole, from index 0
        n = _shape(x)[dx]
        sizes = slice_sizes[:dx] + (n,) + slice_sizes[dx:]
        return dynamic_slice_p.bind(x, *idx[:dx], _front_index(idx), *idx[dx:],
                                    slice_sizes=sizes), dx
    # Per-example starts: one gather window per example (CLIP clamps like dynamic_slice).
    size = _batch_size(args, dims)
    starts = _stacked_starts(idx, didx, size)
    n = len(idx)
    if dx is None:
        dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)),
                                    collapsed_slice_dims=(), start_index_map=tuple(range(n)))
        sizes = tuple(slice_sizes)
    else:
        x = _r.moveaxis(x, dx, 0)
        dn = GatherDimensionNumbers(offset_dims=tuple(range(1, n + 1)),
                                    collapsed_slice_dims=(),
                                    start_index_map=tuple(range(1, n + 1)),
                                    operand_batching_dims=(0,), start_indices_batching_dims=(0,))
        sizes = (batching_slice_size(size),) + tuple(slice_sizes)
    return gather_p.bind(x, starts, dimension_numbers=dn, slice_sizes=sizes,
                         mode=GatherScatterMode.CLIP, fill_value=None,
                         indices_are_sorted=False, unique_indices=False), 0


dynamic_slice_p.batch = _dynamic_slice_batch


def _dynamic_update_slice_batch(args, dims):
    from tjit.primitives.indexing import GatherScatterMode, ScatterDimensionNumbers, scatter_p
    x, u, *idx = args
    dx, du, *didx = dims
    size = _batch_size(args, dims)
    x, u = _r.bdim_at_front(x, dx, size), _r.bdim_at_front(u, du, size)
    if all(d is None for d in didx):
        return dynamic_update_slice_p.bind(x, u, _front_index(idx), *idx), 0
    # Per-example starts: a scatter of one window per example (CLIP clamps like
    # dynamic_update_slice, and the windows of different examples never overlap).
    n = len(idx)
    dn = ScatterDimensionNumbers(update_window_dims=tuple(range(1, n + 1)),
                                 inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=tuple(range(1, n + 1)),
                                 operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
    starts = _stacked_starts(idx, didx, size)
    return scatter_p.bind(x, starts, u, dimension_numbers=dn, mode=GatherScatterMode.CLIP,
                          indices_are_sorted=True, unique_indices=True), 0


dynamic_update_slice_p.batch = _dynamic_update_slice_batch


# -- lowering to the HLO-like graph (ctx: xla_like.hlo.Builder) -----------------------------
def _position_dtype(largest):
    """The dtype of a kernel's positions (iotas, offsets) up to ``largest``: int32 unless
    they pass its max."""
    return np.dtype(np.int64 if largest > np.iinfo(np.int32).max else np.int32)


def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides=None):
    strides = (1,) * len(start_indices) if strides is None else tuple(strides)
    return ctx.add("slice", (x,), ctx.avals_out[0].shape, x.dtype, start=tuple(start_indices),
                   limit=tuple(limit_indices), strides=strides)


slice_p.lowering = _slice_lowering


def _rev_lowering(ctx, x, *, dimensions):
    """A fusible ``rev``: a kernel reads its operand at ``n - 1 - i`` along the reversed
    dims (an index map, like a transpose), so a flip fuses with its producer and its
    consumers (the flipped kernel in a convolution's input gradient)."""
    if not dimensions:
        return x
    return ctx.add("rev", (x,), x.shape, x.dtype, dims=tuple(dimensions))


rev_p.lowering = _rev_lowering


def _pad_lowering(ctx, x, padding_value, *, padding_config):
    """Padding along concrete axes becomes one fusible ``take`` per padded axis, so a pad
    fuses into its consumer (the gradient of a slice is one: loop bodies over sliced
    gates stay kernels, which native loops run). Output position ``o`` of a padded axis
    reads the operand at ``(o - lo) / (interior + 1)`` and holds the padding value where
    that is not an operand position: the take's fill for a constant padding value
    without interior padding, else a select on the positions' mask. Several padded axes
    chain takes (each one's operand is materialized). Empty operands and padded
    symbolic axes stay a library call."""
    axes = [d for d, cfg in enumerate(padding_config) if tuple(cfg) != (0, 0, 0)]
    if not axes:
        return x
    out_shape = tuple(ctx.avals_out[0].shape)
    if any(type(x.shape[d]) is not int or type(out_shape[d]) is not int for d in axes) or \
            any(type(n) is int and n == 0 for n in tuple(x.shape) + out_shape):
        return NotImplemented
    fill = None
    if padding_value.opcode == "constant":
        fill = np.asarray(padding_value.attrs["value"], x.dtype).item()
    y = x
    for d in axes:
        y = _pad_axis(ctx, y, padding_value, fill, d, padding_config[d], out_shape[d])
    return y


def _pad_axis(ctx, x, padding_value, fill, axis, cfg, size):
    """``x`` padded along ``axis`` alone (to ``size``), as a take of ``x``."""
    lo, _, interior = cfg
    n, step = x.shape[axis], interior + 1
    dt = _position_dtype(max(size, n * step) + abs(lo))
    rel = ctx.elementwise("sub", [ctx.add("iota", (), (size,), dt, dimension=0),
                                  ctx.constant(lo, dt)])
    idx = rel if step == 1 else ctx.elementwise("div", [rel, ctx.constant(step, dt)])
    shape = tuple(size if d == axis else x.shape[d] for d in range(x.ndim))
    out_dims = tuple(("b", 0) if d == axis else ("o", d) for d in range(x.ndim))
    masked = step != 1 or fill is None
    taken = ctx.add("take", (x, idx), shape, x.dtype, axis=axis, out_dims=out_dims,
                    fill=None if masked else fill)
    if not masked:
        return taken
    # the operand's positions: 0 <= rel <= (n - 1) * step and rel a multiple of step
    ok = ctx.elementwise("and", [
        ctx.elementwise("ge", [rel, ctx.constant(0, dt)]),
        ctx.elementwise("le", [rel, ctx.constant((n - 1) * step, dt)])])
    if step != 1:
        ok = ctx.elementwise("and", [ok, ctx.elementwise("eq", [
            ctx.elementwise("rem", [rel, ctx.constant(step, dt)]), ctx.constant(0, dt)])])
    mask = ctx.broadcast(ok, shape, (axis,))
    return ctx.elementwise("select", [mask, taken, ctx.broadcast(padding_value, shape, ())])


pad_p.lowering = _pad_lowering


#: most operands a concatenation fuses (each output element reads every part's take)
_FUSED_CONCAT_PARTS = 4


def _concatenate_lowering(ctx, *operands, dimension):
    """A fusible concatenation: each operand is a ``take`` along ``dimension`` at
    ``o - offset`` (out-of-range positions read the take's fill), and a chain of selects
    on the output position picks the operand whose range holds it. So a concatenation
    fuses with its producers and consumers (one kernel instead of a library copy; loop
    bodies that concatenate stay kernels, which native loops run). Symbolic sizes along
    ``dimension``, empty results and more than ``_FUSED_CONCAT_PARTS`` operands (every
    output element reads each operand's take: a long list is cheaper as a copy) stay a
    library call; empty operands drop out."""
    out_shape = tuple(ctx.avals_out[0].shape)
    if type(out_shape[dimension]) is not int or \
            any(type(n) is int and n == 0 for n in out_shape) or \
            any(type(x.shape[dimension]) is not int for x in operands):
        return NotImplemented
    parts = [x for x in operands if x.shape[dimension] != 0]
    if len(parts) == 1:
        return parts[0]
    if len(parts) > _FUSED_CONCAT_PARTS:
        return NotImplemented
    size = out_shape[dimension]
    dt = _position_dtype(size)
    position = ctx.add("iota", (), (size,), dt, dimension=0)
    out_dims = tuple(("b", 0) if d == dimension else ("o", d) for d in range(len(out_shape)))
    fill = np.zeros((), parts[0].dtype).item()
    taken, offset = [], 0
    rest = tuple(d for d in range(len(out_shape)) if d != dimension)
    for x in parts:
        if x.shape[dimension] == 1:
            # the selects pick this part at one position only, where it is its one slice:
            # that slice broadcast along ``dimension`` (no take, so x need not be a
            # buffer: index columns stacked for x[i, j] fuse with their producers)
            row = ctx.add("reshape", (x,), tuple(x.shape[d] for d in rest), x.dtype)
            taken.append((offset, ctx.broadcast(row, out_shape, rest)))
            offset += 1
            continue
        idx = position if offset == 0 else ctx.elementwise(
            "sub", [position, ctx.constant(offset, dt)])
        taken.append((offset, ctx.add("take", (x, idx), out_shape, x.dtype, axis=dimension,
                                      out_dims=out_dims, fill=fill)))
        offset += x.shape[dimension]
    result = taken[-1][1]
    for (_, part), (start_of_next, _) in zip(reversed(taken[:-1]), reversed(taken[1:])):
        before = ctx.elementwise("lt", [position, ctx.constant(start_of_next, dt)])
        result = ctx.elementwise("select", [ctx.broadcast(before, out_shape, (dimension,)),
                                            part, result])
    return result


concatenate_p.lowering = _concatenate_lowering
