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
  each row is read once into an on-chip row buffer that the stage and store loops then
  index (``row_buffered_len``);
* an **output** with one store whose index is row-major over the points where it is
  written: every point (pointwise; row style's inner stores), the outer points (row
  style's outer stores) or the kept points (accumulate style).

Kernels with a hyperplane or in-place pairs keep every argument in memory.
"""

import numpy as np

from tjit.lower.loops import prod, same
from tjit.xla_like import kernel_ir as K

__all__ = ["MAX_ROW", "SYMBOLIC_ROW_CAP", "row_buffered_len", "row_capacity", "stream_args",
           "stream_length"]

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


def _is(index, coefs):
    return same(index.offset, 0) and all(same(c, w) for c, w in zip(index.coefs, coefs))


def _reachable(k):
    roots = [st.expr for st in k.stores] + [s.expr for s in k.stages]
    seen, nodes = set(), []
    for r in roots:
        nodes += K.walk(r, seen)
    return nodes


def stream_args(k):
    """``{arg: "in" | "out"}``: the arguments of kernel ``k`` that may be streams."""
    if k.hyperplane is not None or k.inplace:
        return {}
    n = len(k.shape)
    full = _row_major(k.shape, list(range(n)))
    out = {}
    if not k.reduce_axes or k.row_style:
        ok_in = not k.reduce_axes or row_buffered_len(k) is not None
        nodes = _reachable(k)
        loaded = {}
        for node in K.all_nodes(k):
            if isinstance(node, K.IndexedLoad):
                loaded.setdefault(node.arg, []).append(None)
            elif isinstance(node, K.Load):
                loaded.setdefault(node.arg, []).append(node.index)
        live = {node.arg for node in nodes if isinstance(node, K.Load)}
        for arg, idxs in loaded.items():
            if ok_in and arg in live and k.args[arg].role == "in" and \
                    all(i is not None and _is(i, full) for i in idxs):
                out[arg] = "in"
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
        if _is(st.index, want):
            out[arg] = "out"
    return out


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
    if k.args[arg].role == "in" or not k.reduce_axes:
        return prod(k.shape)
    st = next(st for st in k.stores if st.arg == arg)
    if k.row_style and st.level != "outer":
        return prod(k.shape)
    return prod(k.shape[a] for a in range(len(k.shape)) if a not in k.reduce_axes)
