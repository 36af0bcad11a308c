"""Which kernel arguments can be FIFO streams: read or written once per element, in
order (the ``io`` of ``render``; the HLS dataflow designs of ``tjit/fpga``).

A stream has no addresses: a consumer gets the elements in the order the producer
wrote them, once. So an argument may be a stream only where the rendered loops (the
non-threaded dialects' in-order nests) touch each of its elements exactly once, in
row-major order:

* an **input** of a pointwise kernel (no reduced axes) whose every load is the
  row-major index of the whole iteration space (no broadcast, no transpose, no gather)
  and reachable from a store: one read per point;
* an **input** of a row-style kernel with reduced axes, loaded the same way, whose row
  (the inner points of one outer point) has a concrete length of at most ``MAX_ROW``
  or a symbolic one (a buffer of ``SYMBOLIC_ROW_CAP``, checked when the design starts):
  each row is read once, into an on-chip row buffer that the stage and store loops then
  index (``row_buffered_len``), or where its passes overlap (``lanes.render_rows``) a
  packet a step that delay lines hand to the later passes; a kernel that folds its row
  once (``one_pass``: a full reduction) needs no buffer, at any row length;
* an **input** of an accumulate-style kernel walked in row-major order
  (``walks_in_order``: reduced axes leading, the kept points' accumulators on chip,
  ``lanes.render_columns``), loaded the same way: one read per point;
* a **row input** (``"row"``, ``row_inputs``) of a row-style kernel (pointwise or
  with reduced axes) or of an accumulate-style one walked in order: every load's
  index row-major over the leading axes before some axis ``p`` and constant over the
  rest (a value per row: layernorm's mean), read once per row of ``prod(shape[p:])``
  points (``row_split``: a row-style reduction's first reduced axis, or within the
  row of a one-pass full reduction; an accumulate-style kernel's first kept axis);
* an **output** with one store whose index is row-major over the points where it is
  written: every point (pointwise; row style's inner stores), the outer points (row
  style's outer stores) or the kept points (accumulate style).

Kernels with a hyperplane or in-place pairs keep every argument in memory.
"""

import numpy as np

from tjit.lower.loops import prod, same, stage_levels
from tjit.xla_like import kernel_ir as K

__all__ = [
    "MAX_ROW",
    "SYMBOLIC_ROW_CAP",
    "one_pass",
    "row_buffered_len",
    "row_capacity",
    "row_inputs",
    "row_split",
    "stream_args",
    "stream_length",
    "walks_in_order",
]

#: The longest row a row-style kernel buffers on chip for a streamed input (elements).
MAX_ROW = 1 << 16
#: The row buffer of a symbolic row length (elements): a design checks when it starts
#: that its rows fit (``fpga/design.py``), else the row-style stage reads memory.
SYMBOLIC_ROW_CAP = 8192


def _row_major(shape, axes):
    """Coefficients of the row-major index over ``axes`` (others 0)."""
    coefs = [0] * len(shape)
    stride = 1
    for a in reversed(axes):
        coefs[a] = stride
        stride = stride * shape[a]
    return coefs


def _is(index, coefs, shape=None):
    """Whether affine ``index`` has offset 0 and coefficients ``coefs`` (those of
    extent-1 axes of ``shape`` ignored: their index is always 0)."""
    return same(index.offset, 0) and all(
        same(c, w) or (shape is not None and same(shape[a], 1))
        for a, (c, w) in enumerate(zip(index.coefs, coefs)))


def _reachable(k):
    roots = [st.expr for st in k.stores] + [s.expr for s in k.stages]
    seen, nodes = set(), []
    for r in roots:
        nodes += K.walk(r, seen)
    return nodes


def stream_args(k):
    """``{arg: "in" | "row" | "out"}``: the arguments of kernel ``k`` that may be
    streams (``"row"``: read once per row, ``row_inputs``)."""
    if k.hyperplane is not None or k.inplace:
        return {}
    n = len(k.shape)
    full = _row_major(k.shape, list(range(n)))
    out = {}
    if not k.reduce_axes or k.row_style or walks_in_order(k):
        ok_in = not k.reduce_axes or not k.row_style or row_buffered_len(k) is not None \
            or one_pass(k)      # (a row read once, a packet a step: no row buffer)
        nodes = _reachable(k)
        loaded = {}
        for node in K.all_nodes(k):
            if isinstance(node, K.IndexedLoad):
                loaded.setdefault(node.arg, []).append(None)
            elif isinstance(node, K.Load):
                loaded.setdefault(node.arg, []).append(node.index)
        live = {node.arg for node in nodes if isinstance(node, K.Load)}
        rows = row_inputs(k)
        for arg, idxs in loaded.items():
            if ok_in and arg in live and k.args[arg].role == "in" and \
                    all(i is not None and _is(i, full, k.shape) for i in idxs):
                out[arg] = "in"
            elif arg in rows and arg in live:
                out[arg] = "row"
    if k.row_style:
        outer = list(range(n - len(k.reduce_axes)))
    else:
        outer = [a for a in range(n) if a not in k.reduce_axes]
    for arg, a in enumerate(k.args):
        sts = [st for st in k.stores if st.arg == arg]
        if a.role != "out" or len(sts) != 1:
            continue
        st = sts[0]
        if k.reduce_axes and (not k.row_style or st.level == "outer"):
            want = _row_major(k.shape, outer)
        else:
            want = full
        if _is(st.index, want, k.shape):
            out[arg] = "out"
    return out


def walks_in_order(k):
    """Whether accumulate-style kernel ``k`` may be walked in row-major order, each
    kept point's accumulator on chip (``lanes.render_columns``): its reduced axes all
    before its kept ones, the kept points a concrete count of at most ``MAX_ROW``."""
    if k.row_style or not k.reduce_axes or k.hyperplane is not None or k.inplace:
        return False
    kept = [a for a in range(len(k.shape)) if a not in k.reduce_axes]
    nk = prod(k.shape[a] for a in kept)
    return bool(kept) and max(k.reduce_axes) < min(kept) and \
        isinstance(nk, (int, np.integer)) and nk <= MAX_ROW


def row_split(k):
    """The first axis of a row of kernel ``k`` whose row inputs (``row_inputs``) are
    read once per row: a row-style kernel's first reduced axis, or where that is its
    first axis and it makes one pass over its row (one stage level, no inner stores:
    a full reduction), the last axis of extent > 1 (its row inputs then change within
    its row, every ``prod(shape[p:])`` points); a pointwise kernel's last axis of
    extent > 1 (a row is the innermost axis); an accumulate-style kernel walked in
    order (``walks_in_order``) its first kept axis; None: none."""
    if k.hyperplane is not None or k.inplace or not k.shape:
        return None
    if not k.row_style:
        return min(a for a in range(len(k.shape)) if a not in k.reduce_axes) \
            if walks_in_order(k) else None
    big = [a for a, e in enumerate(k.shape) if not same(e, 1)]
    if k.reduce_axes and (min(k.reduce_axes) > 0 or not one_pass(k)):
        return min(k.reduce_axes)
    return big[-1] if big else None


def one_pass(k):
    """A row-style kernel with reduced axes that folds its row once and stores values
    a row only (``lanes.render_rows`` reads its streamed inputs a packet a step, with
    no row buffer, at any row length)."""
    if not (k.reduce_axes and k.row_style):
        return False
    return len(stage_levels(k)) == 1 and all(st.level == "outer" for st in k.stores)


def row_inputs(k):
    """``{arg: points a row}``: the inputs of row-style kernel ``k`` that every load
    reads at the row-major index of the axes before ``row_split(k)`` (constant over
    the row's axes): one element a row, a stream read at each row's start."""
    p = row_split(k)
    if p is None or p == 0:
        return {}
    want = _row_major(k.shape, list(range(p)))
    loads = {}
    for node in K.all_nodes(k):
        if isinstance(node, K.IndexedLoad):
            loads.setdefault(node.arg, []).append(None)
        elif isinstance(node, K.Load):
            loads.setdefault(node.arg, []).append(node.index)
    n = prod(k.shape[a] for a in range(p, len(k.shape)))
    full = _row_major(k.shape, list(range(len(k.shape))))
    return {arg: n for arg, idxs in loads.items() if k.args[arg].role == "in" and
            all(i is not None and _is(i, want, k.shape) for i in idxs) and
            not all(_is(i, full, k.shape) for i in idxs)}   # (rows of one point: "in")


def row_buffered_len(k):
    """The row length a row-style kernel with reduced axes buffers per streamed input:
    an int <= MAX_ROW, a size expression (a symbolic row, buffered up to
    ``SYMBOLIC_ROW_CAP``: ``row_capacity``), or None when it cannot (too long)."""
    if not (k.reduce_axes and k.row_style):
        return None
    n = prod(k.shape[a] for a in k.reduce_axes)
    if not isinstance(n, (int, np.integer)):
        return n
    return int(n) if n <= MAX_ROW else None


def row_capacity(k):
    """The elements of a row buffer of ``k`` (``row_buffered_len``; a symbolic row:
    ``SYMBOLIC_ROW_CAP``), or None."""
    n = row_buffered_len(k)
    if n is None or isinstance(n, (int, np.integer)):
        return n
    return SYMBOLIC_ROW_CAP




def stream_length(k, arg):
    """How many elements the kernel reads/writes on stream ``arg`` (int or sympy)."""
    if k.args[arg].role == "in":
        rows = row_inputs(k)
        return prod(k.shape) if arg not in rows else \
            prod(k.shape[a] for a in range(row_split(k)))
    if not k.reduce_axes:
        return prod(k.shape)
    st = next(st for st in k.stores if st.arg == arg)
    if k.row_style and st.level != "outer":
        return prod(k.shape)
    return prod(k.shape[a] for a in range(len(k.shape)) if a not in k.reduce_axes)
