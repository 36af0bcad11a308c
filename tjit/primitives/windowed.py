"""Windowed reductions: XLA's ReduceWindow for the add/max/min monoids (the pooling layers
of stax and flax), and the two primitives their derivatives need, as in JAX:

* ``reduce_window_sum``, ``reduce_window_max``, ``reduce_window_min`` (operand; params
  ``window_dimensions``, ``window_strides``, ``padding`` (low, high) pairs,
  ``base_dilation``, ``window_dilation``): the operand is dilated and padded with the
  monoid's identity (0, -inf / the int minimum, +inf / the int maximum) and each output
  is the reduction of one window. Max/min propagate NaN and order -0.0 below +0.0.
* ``select_and_gather_add(tangents, operand, select_prim=ge|le, ...)``: per window, the
  tangent at the position the operand's max (``ge``) or min (``le``) was taken from, the
  first such position in row-major window order (XLA's select ``>=`` keeps the earlier
  element at a tie). It is max pooling's jvp, linear in ``tangents``.
* ``select_and_scatter_add(source, operand, ...)``: its transpose, adding each window's
  ``source`` value into the selected position of an operand-shaped zero array.

Reference implementations fold one strided slice of the framed operand per window offset
(a few: each a fast ufunc pass; max/min through ``ieee_minmax.fold``), or, for large
windows, reduce a strided view with the offsets as extra dims (``conv.window_view``).
Windows that tile the operand (pooling) lower to fused kernels: a reshape that gives
each window its own dims, a reduce, and for the max-pool gradient's scatter compares and
selects. Any other window of concrete shape (overlapping, strided, padded, dilated: e.g.
stax's ``MaxPool((2, 2), (1, 1))``) lowers to gathers of constant window tables
(``window_gather``): reductions over each output's gathered window, and the scatter as a
gather per operand element of what each window holding it selected (the NumPy impls ran
as library steps, ~10x slower in a per-example gradient). Rules: sum is linear, its transpose a
sum window over the cotangent padded with stride holes (JAX's
``_reduce_window_sum_transpose_rule``; for tiled windows a broadcast of the cotangent over
each window); max/min's jvp gathers the tangents with ``select_and_gather_add``; gather
and scatter transpose into each other. Every primitive batches with a window of 1 over
the mapped axis.
"""

import numpy as np

from tjit.primitives import ieee_minmax, window_gather
from tjit.primitives.base import new_primitive, same_dtypes
from tjit.primitives.conv import (
    conv_out_dim,
    dilate_dim,
    frame,
    window_slices,
    window_view,
)
from tjit.primitives.elementwise import _quiet
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import is_symbolic, shape_str

reduce_window_sum_p = new_primitive("reduce_window_sum")
reduce_window_max_p = new_primitive("reduce_window_max")
reduce_window_min_p = new_primitive("reduce_window_min")
select_and_gather_add_p = new_primitive("select_and_gather_add")
select_and_scatter_add_p = new_primitive("select_and_scatter_add")


def window_shape(name, x, window_dimensions, window_strides, padding, base_dilation,
                 window_dilation):
    """Output shape of a window reduction of ``x`` (a symbolic dim is taken to fit the
    window)."""
    nd = x.ndim
    for what, v in (("window_dimensions", window_dimensions),
                    ("window_strides", window_strides), ("padding", padding),
                    ("base_dilation", base_dilation), ("window_dilation", window_dilation)):
        if len(v) != nd:
            raise ShapeError(f"{name}: {what} {tuple(v)} needs one entry per dim of the "
                             f"operand of shape {shape_str(x.shape)}")
    for what, v in (("window_dimensions", window_dimensions),
                    ("window_strides", window_strides), ("base_dilation", base_dilation),
                    ("window_dilation", window_dilation)):
        if any(type(s) is not int or s < 1 for s in v):
            raise ShapeError(f"{name}: {what} must be positive ints, got {tuple(v)} for an "
                             f"operand of shape {shape_str(x.shape)}")
    if any(len(p) != 2 for p in padding):
        raise ShapeError(f"{name}: padding must be (low, high) pairs, got {padding}")
    return tuple(conv_out_dim(*a) for a in zip(x.shape, window_dimensions, window_strides,
                                               padding, base_dilation, window_dilation))


def _identity(kind, dt):
    dt = np.dtype(dt)
    if kind == "sum":
        return dt.type(0)
    if dtypes.is_bool(dt):
        return dt.type(kind == "min")
    if dtypes.is_int(dt):
        info = dtypes.iinfo(dt)
        return dt.type(info.min if kind == "max" else info.max)
    return dt.type(-np.inf if kind == "max" else np.inf)


def _window_view(xp, x, fill, params):
    """(output shape, strided view of the framed ``x``: output dims then window dims)."""
    out_sp = tuple(conv_out_dim(*a) for a in zip(
        x.shape, params["window_dimensions"], params["window_strides"], params["padding"],
        params["base_dilation"], params["window_dilation"]))
    framed = frame(xp, x, fill, params["padding"], params["base_dilation"], 0)
    return out_sp, window_view(xp, framed, 0, params["window_dimensions"], out_sp,
                               params["window_strides"], params["window_dilation"])


#: up to this many window offsets a reduction folds one strided slice per offset (each
#: pass is a fast contiguous-ish ufunc); above it one reduction over the window view
FOLD_MAX_OFFSETS = 16


def _window_slices(xp, x, fill, params):
    """(output shape, the framed ``x``'s strided slices: one per window offset)."""
    out_sp = tuple(conv_out_dim(*a) for a in zip(
        x.shape, params["window_dimensions"], params["window_strides"], params["padding"],
        params["base_dilation"], params["window_dilation"]))
    framed = frame(xp, x, fill, params["padding"], params["base_dilation"], 0)
    return out_sp, [framed[s] for s in window_slices(
        0, params["window_dimensions"], out_sp, params["window_strides"],
        params["window_dilation"])]


def _reducer_impl(kind):
    def impl(xp, x, **params):
        x = xp.asarray(x)
        ident = _identity(kind, x.dtype)
        if int(np.prod(params["window_dimensions"])) > FOLD_MAX_OFFSETS:
            out_sp, view = _window_view(xp, x, ident, params)
            if 0 in out_sp:
                return xp.zeros(out_sp, x.dtype)
            axes = tuple(range(x.ndim, 2 * x.ndim))
            if kind == "sum":   # (+ 0: the fold starts at its identity, so -0s sum to +0)
                return xp.asarray(xp.sum(view, axis=axes, dtype=x.dtype) + ident,
                                  dtype=x.dtype)
            return xp.asarray(ieee_minmax.reduce(xp, view, axes, kind == "max"),
                              dtype=x.dtype)
        out_sp, parts = _window_slices(xp, x, ident, params)
        if 0 in out_sp:
            return xp.zeros(out_sp, x.dtype)
        if kind == "sum":
            # (starting at the identity, as kernels and JAX do: -0 + -0 windows give +0)
            acc = parts[0] + ident
            for part in parts[1:]:
                acc += part
            return acc
        return xp.asarray(ieee_minmax.fold(xp, parts, kind == "max"), dtype=x.dtype)
    return _quiet(impl)


def _reducer_abstract(name):
    def abstract(x, **params):
        if name != "reduce_window_sum" or not dtypes.is_bool(x.dtype):
            return ShapedArray(window_shape(name, x, **params), x.dtype)
        raise TypeError(f"{name}: bool operands have no sum; convert to an integer dtype")
    return abstract


for _p, _kind in ((reduce_window_sum_p, "sum"), (reduce_window_max_p, "max"),
                  (reduce_window_min_p, "min")):
    _p.def_abstract_eval(_reducer_abstract(_p.name))
    _p.def_impl(_reducer_impl(_kind))


def _select_abstract(name):
    def abstract(t, x, *, select_prim, **params):
        same_dtypes(name, (t, x))
        if select_prim not in ("ge", "le"):
            raise ValueError(f"{name}: select_prim must be 'ge' (max) or 'le' (min), got "
                             f"{select_prim!r}")
        out = window_shape(name, x, **params)
        if name == "select_and_gather_add":
            if tuple(t.shape) != tuple(x.shape):
                raise ShapeError(f"{name}: tangents and operand need the same shape, got "
                                 f"{shape_str(t.shape)} and {shape_str(x.shape)}")
            return ShapedArray(out, x.dtype)
        if tuple(t.shape) != out:
            raise ShapeError(f"{name}: source shape {shape_str(t.shape)} must be the window "
                             f"reduction's output shape {shape_str(out)} for an operand of "
                             f"shape {shape_str(x.shape)}")
        return ShapedArray(tuple(x.shape), x.dtype)
    return abstract


select_and_gather_add_p.def_abstract_eval(_select_abstract("select_and_gather_add"))
select_and_scatter_add_p.def_abstract_eval(_select_abstract("select_and_scatter_add"))


def _selected_offsets(xp, x, select_prim, params):
    """(output shape, index of the selected window offset per output (row-major over the
    window), the offsets' slices). NaN counts as the extreme (first NaN wins), as
    reduce_window_max; at a tie the first offset wins (XLA's select ``>=`` / ``<=``)."""
    kind = "max" if select_prim == "ge" else "min"
    out_sp, parts = _window_slices(xp, x, _identity(kind, x.dtype), params)
    slices = list(window_slices(0, params["window_dimensions"], out_sp,
                                params["window_strides"], params["window_dilation"]))
    if 0 in out_sp or not slices:
        return out_sp, None, slices
    best = parts[0]
    for p in parts[1:]:
        best = (xp.maximum if kind == "max" else xp.minimum)(best, p)   # NaN propagates
    # the first offset holding the extreme (or a NaN, where the extreme is NaN): walked
    # from the last offset to the first, the last write is the first match
    idx = xp.zeros(out_sp, np.int32)
    for k in range(len(parts) - 1, -1, -1):
        hit = parts[k] == best
        if dtypes.is_float(x.dtype):   # (bfloat16 too, whose NumPy kind is "V")
            hit |= parts[k] != parts[k]   # a NaN: best is NaN there
        xp.copyto(idx, k, where=hit)
    return out_sp, idx, slices


def _gather_impl(xp, t, x, *, select_prim, **params):
    t, x = xp.asarray(t), xp.asarray(x)
    out_sp, idx, slices = _selected_offsets(xp, x, select_prim, params)
    if idx is None:
        return xp.zeros(out_sp, t.dtype)
    _, tview = _window_view(xp, t, 0, params)
    windows = tview.reshape(out_sp + (len(slices),))
    return xp.take_along_axis(windows, idx[..., None], axis=-1)[..., 0]


def _scatter_impl(xp, src, x, *, select_prim, **params):
    src, x = xp.asarray(src), xp.asarray(x)
    _, idx, slices = _selected_offsets(xp, x, select_prim, params)
    if idx is None:
        return xp.zeros(x.shape, src.dtype)
    # accumulate in the framed (dilated, padded) coordinates, then read the operand's
    # positions back out of them; for one offset the slice's positions are distinct
    full, place = [], []
    for d, (lo, hi), r in zip(x.shape, params["padding"], params["base_dilation"]):
        inner = dilate_dim(d, r)
        lo_p, hi_p = max(lo, 0), max(hi, 0)
        full.append(lo_p + inner + hi_p)
        place.append(slice(lo_p, lo_p + inner, r))
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0))
                 for n, (lo, hi) in zip(full, params["padding"]))
    acc = xp.zeros(tuple(full), src.dtype)
    view = acc[crop]
    zero = src.dtype.type(0)
    for k, s in enumerate(slices):
        view[s] += xp.where(idx == k, src, zero)
    return acc[tuple(place)]


select_and_gather_add_p.def_impl(_quiet(_gather_impl))
select_and_scatter_add_p.def_impl(_quiet(_scatter_impl))


# -- transformation rules ----------------------------------------------------------------------
from tjit.primitives import rules as _r
from tjit.primitives.conv import _vjp_lhs_padding
from tjit.primitives.slicing import pad_p
from tjit.primitives.structural import broadcast_in_dim_p, reshape_p
from tjit.tracing.core import Array as _Array
from tjit.tracing.core import get_aval as _aval


def _sum_transpose(ct, x, *, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
    shape = x.aval.shape
    if type(ct) is _r.Zero:
        return [_r.Zero(x.aval)]
    split = _tiled_split(shape, {"window_dimensions": window_dimensions,
                                 "window_strides": window_strides, "padding": padding,
                                 "base_dilation": base_dilation,
                                 "window_dilation": window_dilation})
    if split is not None:
        # tiled windows: every element of a window gets its window's cotangent
        spread = broadcast_in_dim_p.bind(ct, shape=split,
                                         broadcast_dimensions=tuple(range(0, len(split), 2)))
        return [reshape_p.bind(spread, new_sizes=tuple(shape), dimensions=None)]
    pads = _vjp_lhs_padding(shape, window_dimensions, window_strides, _aval(ct).shape,
                            padding, base_dilation, window_dilation)
    cfg = tuple((lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides))
    zero = _Array(np.zeros((), _aval(ct).dtype), False)
    padded = pad_p.bind(ct, zero, padding_config=cfg)
    ones = (1,) * len(shape)
    out = reduce_window_sum_p.bind(padded, window_dimensions=tuple(window_dimensions),
                                   window_strides=tuple(base_dilation),
                                   padding=((0, 0),) * len(shape), base_dilation=ones,
                                   window_dilation=tuple(window_dilation))
    return [out]


_r.deflinear(reduce_window_sum_p, _sum_transpose)


def _minmax_jvp(select_prim):
    def jvp(g, x, **params):
        return select_and_gather_add_p.bind(g, x, select_prim=select_prim, **params)
    return jvp


_r.defjvp(reduce_window_max_p, _minmax_jvp("ge"))
_r.defjvp(reduce_window_min_p, _minmax_jvp("le"))


def _gather_transpose(ct, t, x, *, select_prim, **params):
    assert _r.is_undefined_primal(t) and not _r.is_undefined_primal(x)
    if type(ct) is _r.Zero:
        return [_r.Zero(t.aval), None]
    return [select_and_scatter_add_p.bind(ct, x, select_prim=select_prim, **params), None]


def _scatter_transpose(ct, s, x, *, select_prim, **params):
    assert _r.is_undefined_primal(s) and not _r.is_undefined_primal(x)
    if type(ct) is _r.Zero:
        return [_r.Zero(s.aval), None]
    return [select_and_gather_add_p.bind(ct, x, select_prim=select_prim, **params), None]


# linear in the first operand; the operand only chooses positions (no derivative)
_r.defjvp(select_and_gather_add_p,
          lambda g, t, x, **p: select_and_gather_add_p.bind(g, x, **p), None)
_r.defjvp(select_and_scatter_add_p,
          lambda g, s, x, **p: select_and_scatter_add_p.bind(g, x, **p), None)
select_and_gather_add_p.transpose = _gather_transpose
select_and_scatter_add_p.transpose = _scatter_transpose


def _with_unit_window(bdim, params):
    """Params with a trivial window inserted at the batch axis ``bdim``."""
    new = dict(params)
    for key, unit in (("window_dimensions", 1), ("window_strides", 1), ("padding", (0, 0)),
                      ("base_dilation", 1), ("window_dilation", 1)):
        v = list(params[key])
        v.insert(bdim, unit)
        new[key] = tuple(v)
    return new


def _reducer_batch(prim):
    def rule(args, dims, **params):
        (x,), (d,) = args, dims
        return prim.bind(x, **_with_unit_window(d, params)), d
    return rule


for _p in (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p):
    _p.batch = _reducer_batch(_p)


def _select_batch(prim):
    def rule(args, dims, **params):
        a, x = args
        da, dx = dims
        size = _aval(a).shape[da] if da is not None else _aval(x).shape[dx]
        a = _r.bdim_at_front(a, da, size)
        x = _r.bdim_at_front(x, dx, size)
        return prim.bind(a, x, **_with_unit_window(0, params)), 0
    return rule


select_and_gather_add_p.batch = _select_batch(select_and_gather_add_p)
select_and_scatter_add_p.batch = _select_batch(select_and_scatter_add_p)


# -- lowerings to the HLO-like graph (ctx: xla_like.hlo.Builder) --------------------------------
def _tiled_split(shape, params):
    """``shape`` with each dim split into (windows, window) when the windows tile it
    exactly (pooling: window = stride, no padding or dilation, sizes divisible), so that a
    window is a reshape's trailing-per-dim block; else None."""
    wd, ws = params["window_dimensions"], params["window_strides"]
    if (any(is_symbolic(d) for d in shape) or tuple(wd) != tuple(ws)
            or any(tuple(p) != (0, 0) for p in params["padding"])
            or any(r != 1 for r in params["base_dilation"])
            or any(r != 1 for r in params["window_dilation"])
            or any(d % w for d, w in zip(shape, wd))):
        return None
    return tuple(v for d, w in zip(shape, wd) for v in (d // w, w))


def _reducer_lowering(monoid):
    def rule(ctx, x, **params):
        if x.dtype == np.bool_ or any(is_symbolic(d) for d in x.shape):
            return NotImplemented
        split = _tiled_split(x.shape, params)
        if split is None:
            return _gathered_reduction(ctx, x, monoid, params)
        xs = ctx.add("reshape", (x,), split, x.dtype)
        return ctx.add("reduce", (xs,), ctx.avals_out[0].shape, x.dtype,
                       axes=tuple(range(1, len(split), 2)), monoid=monoid)
    return rule


def _gathered_reduction(ctx, x, monoid, params):
    """Any other window (overlapping, strided, padded, dilated): each output's window
    gathered by a constant index (padding and holes read the monoid's identity, the
    gather's fill), then reduced; one fused kernel where the operand is in memory."""
    layout = window_gather.reduction_layout(x.shape, **params)
    if layout is None:
        return NotImplemented
    cols = _windows_of(ctx, x, layout, _identity(monoid, x.dtype))
    red = ctx.add("reduce", (cols,), layout.gathered_shape(layout.P), x.dtype,
                  axes=(layout.lead + 1,), monoid=monoid)
    return window_gather.from_gathered(ctx, red, layout, layout.out_sp)


def _windows_of(ctx, x, layout, fill):
    """``pre + (P, K) + post``: every output's window of ``x``, ``fill`` off the operand."""
    table = window_gather.window_index(layout.in_sp, layout.out_sp, layout.k_sp,
                                       *layout.geometry)
    return window_gather.take_windows(ctx, window_gather.to_gathered(ctx, x, layout),
                                      table, layout, x.dtype.type(fill).item())


def _first_selected(ctx, x, select_prim, layout):
    """int32 ``pre + (P,) + post``: per window the first row-major offset holding its
    extreme (a NaN counts as the extreme), as ``_selected_offsets``; padding and holes
    hold the monoid's identity, so they are chosen only where every element equals it
    and an earlier offset is padding."""
    kind = "max" if select_prim == "ge" else "min"
    cols = _windows_of(ctx, x, layout, _identity(kind, x.dtype))
    wide = layout.gathered_shape(layout.P, layout.K)
    narrow = layout.gathered_shape(layout.P)
    axis = layout.lead + 1
    keep = tuple(d for d in range(len(wide)) if d != axis)
    best = ctx.add("reduce", (cols,), narrow, x.dtype, axes=(axis,), monoid=kind)
    hit = ctx.elementwise("eq", [cols, ctx.broadcast(best, wide, keep)])
    if x.dtype.kind == "f":
        hit = ctx.elementwise("or", [hit, ctx.elementwise("ne", [cols, cols])])
    pos = window_gather.offset_iota(ctx, layout, layout.P)
    none = ctx.constant(layout.K, np.dtype(np.int32))
    return ctx.add("reduce", (ctx.elementwise("select", [hit, pos, none]),), narrow,
                   np.dtype(np.int32), axes=(axis,), monoid="min")


def _gathered_scatter(ctx, src, x, select_prim, params):
    """select_and_scatter_add of any window as gathers, no scatter-add: per operand
    element and window offset ``k``, the one window that reads the element at ``k``
    (``window_owners``); its ``src`` value counts where that window selected ``k``; the
    element's result is the sum over ``k``."""
    layout = window_gather.reduction_layout(x.shape, **params)
    if layout is None:
        return NotImplemented
    first = _first_selected(ctx, x, select_prim, layout)
    owners = window_gather.window_owners(layout.in_sp, layout.out_sp, layout.k_sp,
                                         *layout.geometry)
    src_flat = window_gather.to_gathered(ctx, src, layout)
    their_src = window_gather.take_windows(ctx, src_flat, owners, layout,
                                           src.dtype.type(0).item())
    # (an element no window reads at k: the source's fill 0 whatever first says)
    their_first = window_gather.take_windows(ctx, first, owners, layout, None)
    chosen = ctx.elementwise("eq", [their_first,
                                    window_gather.offset_iota(ctx, layout, layout.S)])
    parts = ctx.elementwise("select", [chosen, their_src, ctx.constant(0, src.dtype)])
    out = ctx.add("reduce", (parts,), layout.gathered_shape(layout.S), src.dtype,
                  axes=(layout.lead + 1,), monoid="sum")
    return window_gather.from_gathered(ctx, out, layout, layout.in_sp)


def _gather_lowering(ctx, t, x, *, select_prim, **params):
    """select_and_gather_add (max pooling's jvp): per window the tangent at its first
    extreme, as a gather of the tangents' windows and a select of that offset."""
    if x.dtype.kind not in "fiu" or any(is_symbolic(d) for d in x.shape):
        return NotImplemented
    layout = window_gather.reduction_layout(x.shape, **params)
    if layout is None:
        return NotImplemented
    first = _first_selected(ctx, x, select_prim, layout)
    wide = layout.gathered_shape(layout.P, layout.K)
    axis = layout.lead + 1
    keep = tuple(d for d in range(len(wide)) if d != axis)
    chosen = ctx.elementwise("eq", [window_gather.offset_iota(ctx, layout, layout.P),
                                    ctx.broadcast(first, wide, keep)])
    parts = ctx.elementwise("select", [chosen, _windows_of(ctx, t, layout, 0),
                                       ctx.constant(0, t.dtype)])
    out = ctx.add("reduce", (parts,), layout.gathered_shape(layout.P), t.dtype,
                  axes=(axis,), monoid="sum")
    return window_gather.from_gathered(ctx, out, layout, layout.out_sp)


def _scatter_lowering(ctx, src, x, *, select_prim, **params):
    """Tiled windows: fused kernels instead of a library step. Per window the extreme,
    then the first row-major offset holding it (or a NaN), which receives ``src``."""
    if x.dtype.kind not in "fiu" or any(is_symbolic(d) for d in x.shape):
        return NotImplemented
    split = _tiled_split(x.shape, params)
    if split is None:
        return _gathered_scatter(ctx, src, x, select_prim, params)
    nd = len(split)
    win, outer = tuple(range(1, nd, 2)), tuple(range(0, nd, 2))
    xs = ctx.add("reshape", (x,), split, x.dtype)
    best = ctx.add("reduce", (xs,), src.shape, x.dtype, axes=win,
                   monoid="max" if select_prim == "ge" else "min")
    hit = ctx.elementwise("eq", [xs, ctx.broadcast(best, split, outer)])
    if x.dtype.kind == "f":
        hit = ctx.elementwise("or", [hit, ctx.elementwise("ne", [xs, xs])])
    # each element's row-major offset inside its window (computed at the window's
    # shape, a few elements, and broadcast)
    i32 = np.dtype(np.int32)
    wshape = tuple(split[a] for a in win)
    pos, step = None, 1
    for axis in reversed(range(len(wshape))):
        term = ctx.add("iota", (), wshape, i32, dimension=axis)
        if step != 1:
            term = ctx.elementwise("mul", [term, ctx.constant(step, i32)])
        pos = term if pos is None else ctx.elementwise("add", [pos, term])
        step *= wshape[axis]
    pos = ctx.broadcast(pos, split, win)
    none = ctx.constant(step, i32)   # past every offset
    first = ctx.add("reduce", (ctx.elementwise("select", [hit, pos, none]),), src.shape,
                    i32, axes=win, monoid="min")
    chosen = ctx.elementwise("eq", [pos, ctx.broadcast(first, split, outer)])
    out = ctx.elementwise("select", [chosen, ctx.broadcast(src, split, outer),
                                     ctx.constant(0, src.dtype)])
    return ctx.add("reshape", (out,), tuple(x.shape), src.dtype)


reduce_window_sum_p.lowering = _reducer_lowering("sum")
reduce_window_max_p.lowering = _reducer_lowering("max")
reduce_window_min_p.lowering = _reducer_lowering("min")
select_and_scatter_add_p.lowering = _scatter_lowering
select_and_gather_add_p.lowering = _gather_lowering
