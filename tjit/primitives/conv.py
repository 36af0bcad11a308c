"""``conv_general_dilated``: XLA's ConvGeneralDilated (the primitive behind ``lax.conv``,
``conv_transpose`` and every stax/flax convolution), with its transformation rules.

Params (all normalized by ``tjit.lax``): ``window_strides``, ``padding`` (one (low, high)
pair per spatial dim, negative values crop), ``lhs_dilation``, ``rhs_dilation``,
``dimension_numbers`` (a :class:`ConvDimensionNumbers` of three int tuples: where the
batch, feature and spatial dims sit in lhs / rhs / out, as in JAX), ``feature_group_count``,
``batch_group_count``, ``precision``, ``preferred_element_type``.

Semantics, with lhs in (N, C, spatial) and rhs in (O, I, spatial) order: lhs is dilated
(``lhs_dilation - 1`` zeros between elements), padded, and each output position is the
dot product of a window of it (window elements ``rhs_dilation`` apart, windows
``window_strides`` apart) with the kernel. ``feature_group_count = G`` splits C into G
groups of I channels and O into G groups; ``batch_group_count = B`` splits N into B groups
(group-major) and O into B groups; at most one of them may exceed 1.

The reference implementation is im2col: one copy out of a strided view of every window
of the padded input (:func:`window_view`), handed to one batched ``xp.matmul`` (BLAS /
cuBLAS), so no Python loop runs over output positions or kernel offsets. In a compiled
program a float convolution of concrete shapes lowers to HLO ops instead: the im2col as a
fused gather kernel (``take`` of a constant window index, padding and dilation holes
reading the gather's zero fill), then a ``dot`` (the target's gemm: tjit's own threaded
one on the CPU, not OpenBLAS's thread pool, which stalls for milliseconds on a loaded
machine) whose result's reshape and transposes fuse into the consumers; other dtypes and
symbolic sizes run the impl as a library step. With lhs dilation (conv_transpose, the
input gradient of a strided convolution) most window entries are holes: the output
positions are split into phase classes that read at the same offsets, and one batched
dot over the classes multiplies only those (``window_gather.phase_tables``; a quarter
of the work at stride 2 in 2-D).

Rules: the jvp is bilinear; the transposes are JAX's (``_conv_general_dilated_transpose_lhs``
/ ``_rhs``): the lhs cotangent is a convolution of the cotangent with the spatially flipped
kernel, strides and lhs dilation exchanged; the rhs cotangent a convolution of lhs with the
cotangent, strides and rhs dilation exchanged and feature groups turned into batch groups.
Batching folds the mapped axis into the batch dim, the feature dim or the groups
(JAX's ``_conv_general_dilated_batch_rule``).
"""

import itertools
from typing import NamedTuple

import numpy as np

from tjit._sympy import sympy
from tjit.primitives.base import new_primitive
from tjit.primitives.dot import dot_general_dtype
from tjit.primitives.elementwise import _quiet
from tjit.primitives.slicing import simplify_dim
from tjit.primitives.window_gather import (
    MAX_TABLE_ENTRIES,
    dilate_dim,
    out_dim,
    phase_tables,
    volume,
    window_index,
)
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import definitely_equal, dim_str, is_symbolic, shape_str

NAME = "conv_general_dilated"


class ConvDimensionNumbers(NamedTuple):
    """Positions of (batch, feature, *spatial) in lhs, (out feature, in feature, *spatial)
    in rhs and (batch, feature, *spatial) in the output (as ``jax.lax``)."""

    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


conv_general_dilated_p = new_primitive(NAME)


def conv_out_dim(in_dim, k, stride, pad, lhs_dil, rhs_dil):
    """One spatial output size (0 when the window does not fit). With symbolic sizes
    (taken to be >= 1) the window is assumed to fit."""
    if type(in_dim) is int and type(k) is int:
        return out_dim(in_dim, k, stride, pad, lhs_dil, rhs_dil)
    span = lhs_dil * (in_dim - 1) + pad[0] + pad[1] - rhs_dil * (k - 1)
    if stride == 1:
        return simplify_dim(span + 1)
    return simplify_dim(sympy.floor(span / sympy.Integer(stride)) + 1)


def _err(msg, lhs, rhs):
    return ShapeError(f"{NAME}: {msg} (lhs shape {shape_str(lhs.shape)}, rhs shape "
                      f"{shape_str(rhs.shape)})")


def _check_params(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                  dimension_numbers, feature_group_count, batch_group_count):
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise _err("lhs and rhs need the same rank, at least 2", lhs, rhs)
    nsp = lhs.ndim - 2
    for spec, nd, which in zip(dimension_numbers, (lhs.ndim, rhs.ndim, lhs.ndim),
                               ("lhs", "rhs", "out")):
        if sorted(spec) != list(range(nd)):
            raise _err(f"{which} dimension numbers {tuple(spec)} are not a permutation of "
                       f"range({nd})", lhs, rhs)
    for what, v in (("window_strides", window_strides), ("padding", padding),
                    ("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
        if len(v) != nsp:
            raise _err(f"{what} {tuple(v)} needs one entry per spatial dim ({nsp})", lhs, rhs)
    for what, v in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                    ("rhs_dilation", rhs_dilation)):
        if any(type(s) is not int or s < 1 for s in v):
            raise _err(f"{what} must be positive ints, got {tuple(v)}", lhs, rhs)
    if any(len(p) != 2 for p in padding):
        raise _err(f"padding must be (low, high) pairs, got {padding}", lhs, rhs)
    G, B = feature_group_count, batch_group_count
    if type(G) is not int or type(B) is not int or G < 1 or B < 1:
        raise _err(f"feature_group_count and batch_group_count must be positive ints, got "
                   f"{G} and {B}", lhs, rhs)
    if G > 1 and B > 1:
        raise _err(f"at most one of feature_group_count ({G}) and batch_group_count ({B}) "
                   f"may exceed 1", lhs, rhs)


def conv_shape(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count, batch_group_count):
    """Output shape for avals ``lhs``, ``rhs`` (symbolic dims allowed, except where a
    group count divides them)."""
    _check_params(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                  dimension_numbers, feature_group_count, batch_group_count)
    lspec, rspec, ospec = dimension_numbers
    N, C = lhs.shape[lspec[0]], lhs.shape[lspec[1]]
    O, I = rhs.shape[rspec[0]], rhs.shape[rspec[1]]
    in_sp = [lhs.shape[d] for d in lspec[2:]]
    k_sp = [rhs.shape[d] for d in rspec[2:]]
    G, B = feature_group_count, batch_group_count
    try:
        same = definitely_equal(C, I * G)
    except InconclusiveDimensionError:
        raise _err(f"cannot decide whether the lhs feature dim ({dim_str(C)}) equals the "
                   f"rhs input feature dim ({dim_str(I)}) times feature_group_count ({G}); "
                   f"use related size symbols", lhs, rhs) from None
    if not same:
        raise _err(f"lhs feature dim ({dim_str(C)}) must equal rhs input feature dim "
                   f"({dim_str(I)}) times feature_group_count ({G})", lhs, rhs)
    for count, what in ((G, "feature_group_count"), (B, "batch_group_count")):
        if count > 1 and (is_symbolic(O) or O % count):
            raise _err(f"rhs output feature dim ({dim_str(O)}) must be a multiple of {what} "
                       f"({count})", lhs, rhs)
    if B > 1:
        if is_symbolic(N) or N % B:
            raise _err(f"lhs batch dim ({N}) must be a multiple of batch_group_count ({B})",
                       lhs, rhs)
        N = N // B
    for d, (lo, hi), ld in zip(in_sp, padding, lhs_dilation):
        if type(d) is int and dilate_dim(d, ld) + lo + hi < 0:
            raise _err(f"negative padding {tuple(padding)} crops more than the (dilated) "
                       f"spatial size {dilate_dim(d, ld)} of the lhs; crop less", lhs, rhs)
    out_sp = [conv_out_dim(*a) for a in zip(in_sp, k_sp, window_strides, padding,
                                              lhs_dilation, rhs_dilation)]
    canon = [N, O] + out_sp
    out = [None] * len(canon)
    for i, d in enumerate(ospec):
        out[d] = canon[i]
    return tuple(out)


@conv_general_dilated_p.def_abstract_eval
def _conv_abstract(lhs, rhs, *, precision=None, preferred_element_type=None, **params):
    if dtypes.is_bool(lhs.dtype) or dtypes.is_bool(rhs.dtype):
        raise TypeError(f"{NAME}: bool operands are not supported (got {lhs.dtype} and "
                        f"{rhs.dtype}); convert them to a numeric dtype first")
    dt = dot_general_dtype(lhs, rhs, preferred_element_type, name=NAME)
    src = np.dtype(lhs.dtype)
    if dt.itemsize < src.itemsize or (dtypes.is_int(src) and not dtypes.is_unsigned(src)
                                      and dtypes.is_unsigned(dt)):
        # as JAX's conv (unlike its dot_general): no narrowing, no change of signedness
        raise TypeError(f"{NAME}: preferred_element_type {dt} must be at least as wide as "
                        f"the operands' dtype {src} and keep its signedness; pass None "
                        f"or a wider type, and convert the result afterwards")
    return ShapedArray(conv_shape(lhs, rhs, **params), dt)


@conv_general_dilated_p.def_weak_type
def _conv_weak(lw, rw, *, preferred_element_type=None, **_):
    return lw and rw and preferred_element_type is None


def frame(xp, x, fill, padding, dilation, first_axis):
    """``x`` with its dims ``first_axis .. first_axis + len(padding) - 1`` dilated
    (``fill`` in the holes) and padded (negative padding crops), as XLA's pad with
    interior padding; the other dims are kept."""
    if all(tuple(p) == (0, 0) for p in padding) and all(r == 1 for r in dilation):
        return x
    lead = [slice(None)] * first_axis
    full, place, crop = list(x.shape[:first_axis]), list(lead), list(lead)
    for d, (lo, hi), r in zip(x.shape[first_axis:], padding, dilation):
        inner = dilate_dim(d, r)
        lo_p, hi_p = max(lo, 0), max(hi, 0)
        full.append(lo_p + inner + hi_p)
        place.append(slice(lo_p, lo_p + inner, r))
        crop.append(slice(max(-lo, 0), lo_p + inner + hi_p - max(-hi, 0)))
    full += x.shape[first_axis + len(padding):]
    out = xp.full(tuple(full), fill, dtype=x.dtype)
    out[tuple(place)] = x
    return out[tuple(crop)]


def window_slices(first_axis, k_sp, out_sp, strides, dilation):
    """For each window offset (row-major over ``k_sp``): the index tuple of the strided
    slice of a framed array that holds that window element of every output position."""
    lead = (slice(None),) * first_axis
    for offs in itertools.product(*(range(k) for k in k_sp)):
        yield lead + tuple(slice(o * r, o * r + (n - 1) * s + 1, s)
                           for o, r, n, s in zip(offs, dilation, out_sp, strides))


def window_view(xp, x, first_axis, k_sp, out_sp, strides, dilation):
    """A strided view (never written to) of the framed ``x`` with the dims ``first_axis ..`` split
    into (output position, window offset): shape ``x.shape[:first_axis] + out_sp + k_sp +
    x.shape[first_axis + len(k_sp):]``, element [.., o, k, ..] = x[.., o * stride + k *
    dilation, ..]. No copy: a reduction over its window dims, or one reshape of it (an
    im2col), reads every window in one pass instead of one slice per offset."""
    nsp = len(k_sp)
    st = x.strides
    sp = range(first_axis, first_axis + nsp)
    shape = (tuple(x.shape[:first_axis]) + tuple(out_sp) + tuple(k_sp)
             + tuple(x.shape[first_axis + nsp:]))
    strides = (st[:first_axis] + tuple(st[d] * s for d, s in zip(sp, strides))
               + tuple(st[d] * r for d, r in zip(sp, dilation)) + st[first_axis + nsp:])
    return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


class _Geometry(NamedTuple):
    """A convolution as a batched gemm: (B, G) batches of (Nb * P, K * I) @ (K * I, Og)."""

    B: int
    G: int
    Nb: int
    I: int
    Og: int
    k_sp: tuple
    out_sp: tuple

    @property
    def P(self):
        return volume(self.out_sp)

    @property
    def K(self):
        return volume(self.k_sp)

    @property
    def empty(self):
        return self.P == 0 or self.K == 0 or self.Nb == 0 or self.I == 0


def _geometry(lhs_shape, rhs_shape, p):
    lspec, rspec, _ = p["dimension_numbers"]
    G, B = p["feature_group_count"], p["batch_group_count"]
    N, O, I = lhs_shape[lspec[0]], rhs_shape[rspec[0]], rhs_shape[rspec[1]]
    k_sp = tuple(rhs_shape[d] for d in rspec[2:])
    out_sp = tuple(conv_out_dim(*a) for a in zip(
        (lhs_shape[d] for d in lspec[2:]), k_sp, p["window_strides"], p["padding"],
        p["lhs_dilation"], p["rhs_dilation"]))
    return _Geometry(B, G, N // B, I, O // (B * G), k_sp, out_sp)


def _im2col(xp, lhs, g, p):
    """The (B, G, Nb * P, K * I) patch matrix of ``lhs`` (a fresh array): row = (batch,
    output position), column = (window offset, input channel)."""
    nsp = len(g.k_sp)
    x = xp.transpose(lhs, p["dimension_numbers"][0])   # (N, C, *spatial)
    # channels last, groups first: (B, G, Nb, *spatial, I), so that a window's
    # channels are contiguous columns
    x = x.reshape((g.B, g.Nb, g.G, g.I) + x.shape[2:])
    x = xp.transpose(x, (0, 2, 1) + tuple(range(4, 4 + nsp)) + (3,))
    x = frame(xp, x, 0, p["padding"], p["lhs_dilation"], 3)
    cols = xp.empty((g.B, g.G, g.Nb * g.P, g.K * g.I), dtype=x.dtype)
    # one copy out of the strided view of all windows, written through a view of
    # ``cols`` so that ``cols`` itself owns its memory (a library step keeps it as is)
    cols.reshape((g.B, g.G, g.Nb) + g.out_sp + g.k_sp + (g.I,))[...] = window_view(
        xp, x, 3, g.k_sp, g.out_sp, p["window_strides"], p["rhs_dilation"])
    return cols


def _kernel_matrix(xp, rhs, g, p):
    """The (B, G, K * I, Og) kernel matrix matching :func:`_im2col`'s columns."""
    w = xp.transpose(rhs, p["dimension_numbers"][1])   # (O, I, *kernel)
    w = w.reshape(g.B, g.G, g.Og, g.I, g.K)
    out = xp.empty((g.B, g.G, g.K * g.I, g.Og), dtype=w.dtype)   # (owns its memory)
    out.reshape(g.B, g.G, g.K, g.I, g.Og)[...] = xp.transpose(w, (0, 1, 4, 3, 2))
    return out


def _out_layout(g, ospec):
    """(shape after the gemm's (B, G, Nb * P, Og) result is split, permutation to
    (Nb, B, G, Og, *out_sp), the (Nb, O, *out_sp) shape, permutation to the output
    spec)."""
    nsp = len(g.out_sp)
    split = (g.B, g.G, g.Nb) + g.out_sp + (g.Og,)
    perm = (2, 0, 1, 3 + nsp) + tuple(range(3, 3 + nsp))
    canon = (g.Nb, g.B * g.G * g.Og) + g.out_sp
    return split, perm, canon, tuple(int(i) for i in np.argsort(ospec))


def _conv_impl(xp, lhs, rhs, **p):
    lhs, rhs = xp.asarray(lhs), xp.asarray(rhs)
    pet = p.get("preferred_element_type")
    out_dtype = lhs.dtype if pet is None else np.dtype(pet)
    if out_dtype != lhs.dtype and (np.promote_types(lhs.dtype, out_dtype) == out_dtype or
                                   not dtypes.is_inexact(lhs.dtype)):
        lhs, rhs = lhs.astype(out_dtype), rhs.astype(out_dtype)  # accumulate wide
    g = _geometry(lhs.shape, rhs.shape, p)
    split, perm, canon, to_out = _out_layout(g, p["dimension_numbers"][2])
    if g.empty:
        out = xp.zeros(canon, dtype=lhs.dtype)
    else:
        out = xp.matmul(_im2col(xp, lhs, g, p), _kernel_matrix(xp, rhs, g, p))
        out = xp.transpose(out.reshape(split), perm).reshape(canon)
    out = xp.transpose(out, to_out)
    return out if out.dtype == out_dtype else out.astype(out_dtype)


conv_general_dilated_p.def_impl(_quiet(_conv_impl))


#: the compiled im2col's window index is a (P, K) constant of the program; beyond this
#: many entries (64 MiB: long 1-d signals with long kernels) the impl runs instead
MAX_WINDOW_INDEX = MAX_TABLE_ENTRIES


def _conv_lowering(ctx, lhs, rhs, **p):
    """A float convolution of concrete shapes in a compiled program: im2col as a fused
    gather kernel (``take`` of a constant window index; padding and dilation holes read
    its zero fill), then a ``dot`` (the target's gemm: on the CPU tjit's own, threaded on
    its pool) and its result's reshape/transposes, which fuse into the consumers. Other
    cases (integers, mixed or widened dtypes, symbolic sizes) run the impl as a library
    step."""
    out = ctx.avals_out[0]
    dt = np.dtype(out.dtype)
    if (dt.kind != "f" or lhs.dtype != dt or rhs.dtype != dt or
            any(is_symbolic(d) for d in tuple(lhs.shape) + tuple(rhs.shape))):
        return NotImplemented
    g = _geometry(lhs.shape, rhs.shape, p)
    if g.empty or g.P * g.K > MAX_WINDOW_INDEX:
        return NotImplemented
    lspec, rspec, ospec = p["dimension_numbers"]
    nsp = len(g.k_sp)

    def transpose(x, perm):
        perm = tuple(perm)
        if perm == tuple(range(len(perm))):
            return x
        return ctx.add("transpose", (x,), tuple(x.shape[i] for i in perm), dt, perm=perm)

    def reshape(x, shape):
        shape = tuple(shape)
        return x if shape == tuple(x.shape) else ctx.add("reshape", (x,), shape, dt)

    # lhs as (B, G, Nb, flat spatial, I): channels last, groups first; one transpose
    # where there are no groups to split out
    in_sp = tuple(lhs.shape[d] for d in lspec[2:])
    S = volume(in_sp)
    if g.B == g.G == 1:
        x = transpose(lhs, (lspec[0],) + tuple(lspec[2:]) + (lspec[1],))
    else:
        x = reshape(transpose(lhs, lspec), (g.B, g.Nb, g.G, g.I) + in_sp)
        x = transpose(x, (0, 2, 1) + tuple(range(4, 4 + nsp)) + (3,))
    x = reshape(x, (g.B, g.G, g.Nb, S, g.I))
    # kernel (B, G, K, I, Og)
    if g.B == g.G == 1:
        wm = transpose(rhs, tuple(rspec[2:]) + (rspec[1], rspec[0]))
    else:
        w = reshape(transpose(rhs, rspec), (g.B, g.G, g.Og, g.I, g.K))
        wm = transpose(w, (0, 1, 4, 3, 2))
    wm = reshape(wm, (g.B, g.G, g.K, g.I, g.Og))
    window = (in_sp, g.out_sp, g.k_sp, p["window_strides"], p["padding"],
              p["lhs_dilation"], p["rhs_dilation"])
    phases = phase_tables(*window)
    if phases is None:
        # im2col (B, G, Nb, P, K, I), contracted over (K, I) by the dot as it is
        idx = ctx.constant(window_index(*window))
        cols = ctx.add("take", (x, idx), (g.B, g.G, g.Nb, g.P, g.K, g.I), dt, axis=3,
                       out_dims=(("o", 0), ("o", 1), ("o", 2), ("b", 0), ("b", 1), ("o", 4)),
                       fill=0.0)
        y = ctx.add("dot", (cols, wm), (g.B, g.G, g.Nb, g.P, g.Og), dt,
                    dimension_numbers=(((4, 5), (2, 3)), ((0, 1), (0, 1))))
    else:
        y = _phased_gemm(ctx, x, wm, g, phases, dt)
    split, perm, canon, to_out = _out_layout(g, ospec)
    y = reshape(transpose(reshape(y, split), perm), canon)
    return transpose(y, to_out)


def _phased_gemm(ctx, x, wm, g, phases, dt):
    """The (B, G, Nb, P, Og) gemm result of an lhs-dilated convolution (a transposed one,
    or a strided one's input gradient) without the dilation holes: per phase class (C of
    them, ``window_gather.phase_tables``) an im2col of the offsets that read elements and
    those offsets' rows of the kernel, one batched dot over the classes, and a take that
    puts each output position back in order (a zero where its window reads only holes)."""
    C, Pm, Km = phases.index.shape
    cols = ctx.add("take", (x, ctx.constant(phases.index)), (g.B, g.G, C, g.Nb, Pm, Km, g.I),
                   dt, axis=3, fill=0.0, out_dims=(("o", 0), ("o", 1), ("b", 0), ("o", 2),
                                                   ("b", 1), ("b", 2), ("o", 4)))
    wsel = ctx.add("take", (wm, ctx.constant(phases.offsets)), (g.B, g.G, C, Km, g.I, g.Og),
                   dt, axis=2, fill=0.0, out_dims=(("o", 0), ("o", 1), ("b", 0), ("b", 1),
                                                   ("o", 3), ("o", 4)))
    y = ctx.add("dot", (cols, wsel), (g.B, g.G, C, g.Nb, Pm, g.Og), dt,
                dimension_numbers=(((5, 6), (3, 4)), ((0, 1, 2), (0, 1, 2))))
    y = ctx.add("transpose", (y,), (g.B, g.G, g.Nb, C, Pm, g.Og), dt, perm=(0, 1, 3, 2, 4, 5))
    y = ctx.add("reshape", (y,), (g.B, g.G, g.Nb, C * Pm, g.Og), dt)
    return ctx.add("take", (y, ctx.constant(phases.back)), (g.B, g.G, g.Nb, g.P, g.Og), dt,
                   axis=3, fill=0.0, out_dims=(("o", 0), ("o", 1), ("o", 2), ("b", 0),
                                                ("o", 4)))


conv_general_dilated_p.lowering = _conv_lowering


# -- transformation rules ----------------------------------------------------------------------
from tjit.primitives import rules as _r
from tjit.primitives.elementwise import convert_element_type_p
from tjit.primitives.slicing import rev_p
from tjit.primitives.structural import reshape_p, transpose_p
from tjit.tracing.core import get_aval as _aval


def _bind(lhs, rhs, **params):
    return conv_general_dilated_p.bind(lhs, rhs, **params)


def _astype(x, dtype):
    if _aval(x).dtype == dtype:
        return x
    return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=False)


def _reshape_axis_out_of(src, size1, x):
    """Split axis ``src`` of ``x`` into (size1, rest), size1 major."""
    shape = list(_aval(x).shape)
    shape[src:src + 1] = [size1, shape[src] // size1]
    return reshape_p.bind(x, new_sizes=tuple(shape), dimensions=None)


def _reshape_axis_into(src, dst, x):
    """Merge axis ``src`` of ``x`` into axis ``dst`` (numbered without ``src``), ``src``
    major."""
    shape = list(_aval(x).shape)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    if perm != list(range(len(shape))):
        x = transpose_p.bind(x, permutation=tuple(perm))
    new = [shape[p] for p in perm]
    new[dst:dst + 2] = [new[dst] * new[dst + 1]]
    return reshape_p.bind(x, new_sizes=tuple(new), dimensions=None)


def _spec_transpose(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _vjp_lhs_padding(in_shape, k_shape, strides, out_shape, padding, lhs_dil, rhs_dil):
    pads = []
    for i, k, s, o, (lo, _), ld, rd in zip(in_shape, k_shape, strides, out_shape, padding,
                                           lhs_dil, rhs_dil):
        before = dilate_dim(k, rd) - lo - 1
        after = dilate_dim(i, ld) + dilate_dim(k, rd) - 1 - dilate_dim(o, s) - before
        pads.append((before, after))
    return tuple(pads)


def _vjp_rhs_padding(in_shape, k_shape, strides, out_shape, padding, lhs_dil, rhs_dil):
    pads = []
    for i, k, s, o, (lo, _), ld, rd in zip(in_shape, k_shape, strides, out_shape, padding,
                                           lhs_dil, rhs_dil):
        hi = (dilate_dim(o, s) - dilate_dim(i, ld)) + (dilate_dim(k, rd) - lo - 1)
        pads.append((lo, hi))
    return tuple(pads)


def _transpose_lhs(g, lhs_aval, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type):
    lspec, rspec, ospec = dimension_numbers
    G, B = feature_group_count, batch_group_count
    if G > 1 or B > 1:
        # the group axis moves from the kernel's output features into its input features
        rhs = _reshape_axis_out_of(rspec[0], max(G, B), rhs)
        rhs = _reshape_axis_into(rspec[0], rspec[1], rhs)
    k_shape = [_aval(rhs).shape[d] for d in rspec[2:]]
    pads = _vjp_lhs_padding([lhs_aval.shape[d] for d in lspec[2:]], k_shape, window_strides,
                            [_aval(g).shape[d] for d in ospec[2:]], padding, lhs_dilation,
                            rhs_dilation)
    rhs = rev_p.bind(rhs, dimensions=tuple(rspec[2:]))
    dn = ConvDimensionNumbers(tuple(ospec), _spec_transpose(rspec), tuple(lspec))
    out = _bind(g, rhs, window_strides=tuple(lhs_dilation), padding=pads,
                lhs_dilation=tuple(window_strides), rhs_dilation=tuple(rhs_dilation),
                dimension_numbers=dn, feature_group_count=max(G, B), batch_group_count=1,
                precision=precision, preferred_element_type=None)
    if B > 1:
        out = _reshape_axis_out_of(lspec[1], B, out)
        out = _reshape_axis_into(lspec[1], lspec[0], out)
    return out


def _transpose_rhs(g, lhs, rhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type):
    lspec, rspec, ospec = dimension_numbers
    G, B = feature_group_count, batch_group_count
    # feature groups of the forward conv are batch groups of this one, and vice versa
    G, B = (B, 1) if B > 1 else (1, G)
    pads = _vjp_rhs_padding([_aval(lhs).shape[d] for d in lspec[2:]],
                            [rhs_aval.shape[d] for d in rspec[2:]], window_strides,
                            [_aval(g).shape[d] for d in ospec[2:]], padding, lhs_dilation,
                            rhs_dilation)
    dn = ConvDimensionNumbers(_spec_transpose(lspec), _spec_transpose(ospec),
                              _spec_transpose(rspec))
    return _bind(lhs, g, window_strides=tuple(rhs_dilation), padding=pads,
                 lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
                 dimension_numbers=dn, feature_group_count=G, batch_group_count=B,
                 precision=precision, preferred_element_type=None)


def _conv_transpose_rule(ct, lhs, rhs, **params):
    l_undef, r_undef = _r.is_undefined_primal(lhs), _r.is_undefined_primal(rhs)
    if l_undef and r_undef:
        raise ValueError(f"{NAME} is bilinear, not linear: cannot transpose with respect to "
                         f"both operands at once")
    if type(ct) is _r.Zero:
        return [_r.Zero(lhs.aval) if l_undef else None, _r.Zero(rhs.aval) if r_undef else None]
    if l_undef:
        ct = _astype(ct, _aval(rhs).dtype)  # a preferred_element_type result
        return [_astype(_transpose_lhs(ct, lhs.aval, rhs, **params), lhs.aval.dtype), None]
    ct = _astype(ct, _aval(lhs).dtype)
    return [None, _astype(_transpose_rhs(ct, lhs, rhs.aval, **params), rhs.aval.dtype)]


_r.defjvp(conv_general_dilated_p,
          lambda g, lhs, rhs, **params: _bind(g, rhs, **params),
          lambda g, lhs, rhs, **params: _bind(lhs, g, **params))
conv_general_dilated_p.transpose = _conv_transpose_rule


def _conv_batch(args, dims, **params):
    """JAX's ``_conv_general_dilated_batch_rule``."""
    lhs, rhs = args
    ld, rd = dims
    lspec, rspec, ospec = params["dimension_numbers"]
    G, B = params["feature_group_count"], params["batch_group_count"]
    size = _aval(lhs).shape[ld] if ld is not None else _aval(rhs).shape[rd]
    if type(size) is int and size == 0:
        # folding an empty batch into the batch or feature dims would make a group count 0
        # (as JAX: the result is zeros of the per-example shape, none of them)
        return _empty_batch_conv(lhs, rhs, ld, rd, params), 0
    if ld is not None and rd is not None:
        if B > 1:
            lhs = _reshape_axis_into(ld, lspec[0], lhs)
            params = dict(params, batch_group_count=B * size)
        else:
            lhs = _reshape_axis_into(ld, lspec[1], lhs)
            params = dict(params, feature_group_count=G * size)
        rhs = _reshape_axis_into(rd, rspec[0], rhs)
        out = _bind(lhs, rhs, **params)
        return _reshape_axis_out_of(ospec[1], size, out), ospec[1]
    if ld is not None:
        size = _aval(lhs).shape[ld]
        if B == 1:
            out = _bind(_reshape_axis_into(ld, lspec[0], lhs), rhs, **params)
            return _reshape_axis_out_of(ospec[0], size, out), ospec[0]
        # the batch groups stay outermost in the lhs batch dim: mapped axis goes inside
        new = _reshape_axis_out_of(lspec[0] + int(ld <= lspec[0]), B, lhs)
        new = _reshape_axis_into(ld + int(lspec[0] < ld), lspec[0] + 1, new)
        new = _reshape_axis_into(lspec[0], lspec[0], new)
        out = _bind(new, rhs, **params)
        return _reshape_axis_out_of(ospec[0], size, out), ospec[0]
    size = _aval(rhs).shape[rd]
    if G == 1 and B == 1:
        out = _bind(lhs, _reshape_axis_into(rd, rspec[0], rhs), **params)
        return _reshape_axis_out_of(ospec[1], size, out), ospec[1]
    # groups stay outermost in the kernel's output features; the mapped axis goes inside
    groups = max(G, B)
    new = _reshape_axis_out_of(rspec[0] + int(rd <= rspec[0]), groups, rhs)
    new = _reshape_axis_into(rd + int(rspec[0] < rd), rspec[0] + 1, new)
    new = _reshape_axis_into(rspec[0], rspec[0], new)
    out = _bind(lhs, new, **params)
    out = _reshape_axis_out_of(ospec[1], groups, out)
    out = _reshape_axis_out_of(ospec[1] + 1, size, out)
    out = _reshape_axis_into(ospec[1], ospec[1] + 1, out)
    return out, ospec[1]


def _empty_batch_conv(lhs, rhs, ld, rd, params):
    def one(x, d):
        a = _aval(x)
        return a if d is None else ShapedArray(a.shape[:d] + a.shape[d + 1:], a.dtype)
    out = _conv_abstract(one(lhs, ld), one(rhs, rd), **params)
    return _r.zeros_like_aval(ShapedArray((0,) + tuple(out.shape), out.dtype))


conv_general_dilated_p.batch = _conv_batch
