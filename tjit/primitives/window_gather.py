"""Windows of any geometry (strides, padding, dilations, overlapping windows) as gathers
in a compiled program: the index tables and the HLO-like ops shared by the lowerings of
``conv_general_dilated`` and the window reductions (``windowed.py``).

A window geometry over the spatial dims ``in_sp`` (kernel/window ``k_sp``, output
``out_sp``, ``strides``, ``padding`` (low, high) pairs, ``lhs_dilation`` (holes between
operand elements, XLA's base dilation) and ``rhs_dilation`` (between window elements))
gives two constant tables:

* :func:`window_index` (P, K): per output position and window offset, the flat operand
  position it reads, or ``S = prod(in_sp)`` (out of range) for padding and holes: a
  ``take`` with that table is the im2col, its fill standing for the padding value;
* :func:`window_owners` (S, K): per operand position and window offset ``k``, the
  output position whose window reads it at offset ``k``, or ``P`` (none): a ``take``
  with it gathers, for each operand element, what every window holding it says about it
  (the scatter of a window reduction's gradient written as a gather, with no
  scatter-add).
"""

import itertools
from typing import NamedTuple

import numpy as np

#: the tables are constants of the program; beyond this many entries (64 MiB of int32:
#: long 1-d signals with long windows) the primitive's impl runs as a library step
MAX_TABLE_ENTRIES = 1 << 24


def volume(sizes):
    """Number of elements in a block of ``sizes`` (1 for no dims), as a Python int."""
    return int(np.prod(sizes, dtype=np.int64))


def dilate_dim(d, dilation):
    """Size of a dim of size ``d`` with ``dilation - 1`` holes between elements."""
    return 0 if d == 0 else 1 + dilation * (d - 1)


def window_index(in_sp, out_sp, k_sp, strides, padding, lhs_dilation, rhs_dilation):
    """(P, K) int32: for each output position and window offset (both row-major) the flat
    (row-major) operand position it reads, or ``prod(in_sp)`` where it reads padding or
    a dilation hole."""
    ndim = len(in_sp)
    P, K = volume(out_sp), volume(k_sp)
    o = np.indices(out_sp).reshape(ndim, P, 1)
    k = np.indices(k_sp).reshape(ndim, 1, K)
    flat = np.zeros((P, K), np.int64)
    valid = np.ones((P, K), bool)
    for d in range(ndim):
        c = o[d] * strides[d] + k[d] * rhs_dilation[d] - padding[d][0]   # dilated coords
        ld = lhs_dilation[d]
        valid &= (c >= 0) & (c < dilate_dim(in_sp[d], ld)) & (c % ld == 0)
        flat = flat * in_sp[d] + np.clip(c // ld, 0, in_sp[d] - 1)
    return np.where(valid, flat, volume(in_sp)).astype(np.int32)


def window_owners(in_sp, out_sp, k_sp, strides, padding, lhs_dilation, rhs_dilation):
    """(S, K) int32: for each operand position (row-major over ``in_sp``) and window offset
    ``k``, the flat output position whose window reads that element at offset ``k``, or
    ``prod(out_sp)`` where none does. (For a fixed offset at most one window reads an
    element: ``w * stride = q * lhs_dilation + low - k * rhs_dilation`` fixes ``w``.)"""
    ndim = len(in_sp)
    flat = np.zeros((1,) * (2 * ndim), np.int64)
    valid = np.ones((1,) * (2 * ndim), bool)
    for d in range(ndim):
        shape = [1] * (2 * ndim)
        shape[d], shape[ndim + d] = in_sp[d], k_sp[d]
        q = np.arange(in_sp[d]).reshape(-1, 1)
        k = np.arange(k_sp[d]).reshape(1, -1)
        num = q * lhs_dilation[d] + padding[d][0] - k * rhs_dilation[d]
        w = num // strides[d]
        ok = (num % strides[d] == 0) & (w >= 0) & (w < out_sp[d])
        valid = valid & ok.reshape(shape)
        flat = flat * out_sp[d] + np.clip(w, 0, max(out_sp[d] - 1, 0)).reshape(shape)
    S, K = volume(in_sp), volume(k_sp)
    P = volume(out_sp)
    return np.where(valid, flat, P).reshape(S, K).astype(np.int32)


class WindowLayout(NamedTuple):
    """How an operand's windowed dims are gathered: the operand transposed by ``perm``
    (the windowed dims together, at ``lead``) and its windowed dims flattened into one
    axis, so that shape ``pre + (S,) + post`` becomes ``pre + (P, K) + post``."""

    perm: tuple      # operand dims -> gathered order (identity when already together)
    pre: tuple       # sizes of the kept dims before the windowed ones
    post: tuple      # sizes of the kept dims after them
    in_sp: tuple
    out_sp: tuple
    k_sp: tuple
    geometry: tuple  # (strides, padding, lhs_dilation, rhs_dilation) of the windowed dims

    @property
    def lead(self):
        return len(self.pre)

    @property
    def P(self):
        return volume(self.out_sp)

    @property
    def K(self):
        return volume(self.k_sp)

    @property
    def S(self):
        return volume(self.in_sp)

    def gathered_shape(self, *middle):
        return self.pre + tuple(middle) + self.post

    def inverse_perm(self):
        return tuple(int(i) for i in np.argsort(self.perm))


def reduction_layout(shape, window_dimensions, window_strides, padding, base_dilation,
                     window_dilation):
    """The :class:`WindowLayout` of a window reduction over an operand of concrete
    ``shape``: windowed dims are those whose window is not a plain (size 1, stride 1,
    unpadded, undilated) one; the rest are kept as they are. None when nothing is
    windowed or a table would pass ``MAX_TABLE_ENTRIES``."""
    nd = len(shape)
    moving = [d for d in range(nd) if (window_dimensions[d], window_strides[d],
                                       tuple(padding[d]), base_dilation[d]) != (1, 1, (0, 0), 1)]
    if not moving:
        return None
    first = moving[0]
    kept_before = [d for d in range(first) if d not in moving]
    kept_after = [d for d in range(first, nd) if d not in moving]
    perm = tuple(kept_before + moving + kept_after)
    pick = lambda seq: tuple(seq[d] for d in moving)   # noqa: E731
    in_sp, k_sp = pick(shape), pick(window_dimensions)
    geometry = (pick(window_strides), pick(tuple(tuple(p) for p in padding)),
                pick(base_dilation), pick(window_dilation))
    out_sp = tuple(out_dim(*a) for a in zip(in_sp, k_sp, *geometry))
    layout = WindowLayout(perm, tuple(shape[d] for d in kept_before),
                          tuple(shape[d] for d in kept_after), in_sp, out_sp, k_sp, geometry)
    if 0 in out_sp or layout.S == 0 or \
            max(layout.P, layout.S) * layout.K > MAX_TABLE_ENTRIES:
        return None
    return layout


def out_dim(n, k, stride, pad, lhs_dil, rhs_dil):
    """A window's output size along a dim of concrete size ``n`` (0 when the window,
    ``k`` dilated, does not fit the dilated, padded operand)."""
    padded = dilate_dim(n, lhs_dil) + pad[0] + pad[1]
    window = dilate_dim(k, rhs_dil)
    return (padded - window) // stride + 1 if padded >= window else 0


def to_gathered(ctx, x, layout):
    """``x`` (in the primitive's dim order: the operand, or an array of the output's
    shape) as ``pre + (n,) + post``, its windowed dims flattened into ``n``."""
    if layout.perm != tuple(range(len(layout.perm))):
        x = ctx.add("transpose", (x,), tuple(x.shape[d] for d in layout.perm), x.dtype,
                    perm=layout.perm)
    inner = x.shape[layout.lead:x.ndim - len(layout.post)]
    shape = layout.gathered_shape(volume(inner))
    return x if tuple(x.shape) == shape else ctx.add("reshape", (x,), shape, x.dtype)


def from_gathered(ctx, y, layout, spatial):
    """``y`` of shape ``pre + (prod(spatial),) + post`` back in the primitive's dim order,
    its windowed dims of sizes ``spatial``."""
    shape = layout.gathered_shape(*spatial)
    if tuple(y.shape) != shape:
        y = ctx.add("reshape", (y,), shape, y.dtype)
    inv = layout.inverse_perm()
    if inv != tuple(range(len(inv))):
        y = ctx.add("transpose", (y,), tuple(y.shape[d] for d in inv), y.dtype, perm=inv)
    return y


def take_windows(ctx, flat, table, layout, fill):
    """``take`` of ``flat`` (``pre + (n,) + post``) along its windowed axis at the rows of
    ``table`` (R, K): ``pre + (R, K) + post``; ``fill`` where a row entry is out of range
    (None: clamped)."""
    lead = layout.lead
    idx = ctx.constant(table)
    out_dims = (tuple(("o", d) for d in range(lead)) + (("b", 0), ("b", 1))
                + tuple(("o", lead + 1 + j) for j in range(len(layout.post))))
    return ctx.add("take", (flat, idx), layout.gathered_shape(*table.shape), flat.dtype,
                   axis=lead, out_dims=out_dims, fill=fill)


def offset_iota(ctx, layout, rows):
    """int32 ``pre + (rows, K) + post``: each element's window offset."""
    i32 = np.dtype(np.int32)
    k = ctx.add("iota", (), (layout.K,), i32, dimension=0)
    return ctx.broadcast(k, layout.gathered_shape(rows, layout.K), (layout.lead + 1,))


class PhaseTables(NamedTuple):
    """A window geometry with lhs (base) dilation split into phase classes: output
    positions whose windows read operand elements (not holes) at the same window
    offsets. Rows and offsets past a class's own are padding (out of range)."""

    index: np.ndarray     # (C, Pmax, Kmax): window_index restricted to each class
    offsets: np.ndarray   # (C, Kmax): the class's window offsets (flat), K past them
    back: np.ndarray      # (P,): each output position's row c * Pmax + p in the classes,
    #                       C * Pmax (out of range: a zero) where its window reads no element


def phase_tables(in_sp, out_sp, k_sp, strides, padding, lhs_dilation, rhs_dilation):
    """The :class:`PhaseTables` of a geometry, or None when no dim is lhs-dilated (or no
    window reads an element). Along a dim of lhs dilation ``ld`` the output ``o`` reads
    an element (not a hole) at offset ``k`` exactly when ``(o * stride - low + k *
    rhs_dilation) % ld == 0``: grouped by ``(o * stride - low) % ld`` the positions share
    their offsets, about ``1 / ld`` of them (a strided convolution's input gradient: a
    quarter of a 2-D window at stride 2), so a gemm per class skips the holes the plain
    im2col multiplies by. The product of the dims' groups gives the classes."""
    if all(ld == 1 for ld in lhs_dilation):
        return None
    per_dim = []    # per dim: list of (positions, offsets)
    for n, k, s, (lo, _), ld, rd in zip(out_sp, k_sp, strides, padding, lhs_dilation,
                                        rhs_dilation):
        groups = {}
        for o in range(n):
            groups.setdefault((o * s - lo) % ld, []).append(o)
        per_dim.append([(pos, [j for j in range(k) if (r + j * rd) % ld == 0])
                        for r, pos in sorted(groups.items())])
    full = window_index(in_sp, out_sp, k_sp, strides, padding, lhs_dilation, rhs_dilation)
    S = volume(in_sp)
    K = volume(k_sp)
    classes = []    # (positions, offsets); positions whose windows read only holes
    for combo in itertools.product(*per_dim):     # are in none: their outputs are 0
        if all(offs for _, offs in combo):
            classes.append(tuple(np.ravel_multi_index(np.ix_(*part), sp).ravel()
                                 for part, sp in zip(zip(*combo), (out_sp, k_sp))))
    if not classes:
        return None
    p_max = max(len(p) for p, _ in classes)
    k_max = max(len(o) for _, o in classes)
    index = np.full((len(classes), p_max, k_max), S, np.int32)
    offsets = np.full((len(classes), k_max), K, np.int32)
    back = np.full(volume(out_sp), len(classes) * p_max, np.int32)
    for c, (pos, off) in enumerate(classes):
        index[c, :len(pos), :len(off)] = full[np.ix_(pos, off)]
        offsets[c, :len(off)] = off
        back[pos] = c * p_max + np.arange(len(pos))
    return PhaseTables(index, offsets, back)
