"""Dots as a tiled matrix-multiply template with partitioned buffers (HLS dialect).

An FPGA has no BLAS: a dot is the row-style reduce kernel ``out[.., m, n] =
epilogue(sum_k A[.., m, k] * B[.., k, n])`` that ``xla_like`` makes of it. Rendered as
a plain loop nest it does one multiply-add per cycle; a dialect with ``tiled_dots``
renders a kernel of that form (:func:`match`) as the usual FPGA template instead, for
each batch point and each tile of ``TM`` rows of ``m``::

    at[TM][K]  <- the tile's rows of A          (partitioned by row: TM reads a cycle)
    acc[TM][N] <- the sum's identity            (partitioned by row)
    for k: for n (pipelined, II=1): b = B[k, n]; acc[i][n] += at[i][k] * b, i < TM
    for i, n (pipelined): the epilogue of acc[i][n] (the kernel's outer stores)

``TM`` multiply-adds per cycle; each accumulator is updated once every ``N``
iterations, so the adder's latency does not limit the II when ``N`` >= the latency;
every output sums its products in increasing ``k``, the order of a sequential loop
(bit for bit the ``c`` dialect's result). The template needs concrete ``M``, ``N``,
``K`` with buffers of at most ``MAX_BUFFER`` elements; other dots stay loop nests.
"""

import dataclasses

import numpy as np

from tjit.lower.loops import same
from tjit.xla_like import kernel_ir as K

__all__ = ["MAX_BUFFER", "TILE_M", "DotPlan", "match", "render"]

#: Rows of A per tile: multiply-adds per cycle.
TILE_M = 16
#: The largest ``TM * K`` or ``TM * N`` buffer (elements) the template allocates.
MAX_BUFFER = 1 << 16


@dataclasses.dataclass
class DotPlan:
    g_m: int          # loop axes (plan groups) of m, n, k
    g_n: int
    g_k: int
    batch: list       # the other outer loop axes
    a: object         # the Load of A (depends on m and k)
    b: object         # the Load of B (depends on k and n)
    m: int
    n: int
    k: int
    tm: int


def _uses(load, axes):
    return any(not same(load.index.coefs[a], 0) for a in axes)


def match(k, plan):
    """A :class:`DotPlan` when kernel ``k`` (loop axes ``plan``) is a dot of the
    template's form, else None."""
    if not (k.row_style and k.reduce_axes and len(k.stages) == 1) or k.hyperplane or \
            k.inplace:
        return None
    st = k.stages[0]
    dt = np.dtype(st.dtype)
    if st.monoid != "sum" or dt.kind != "f" or not isinstance(st.expr, K.Op) or \
            st.expr.op != "mul" or any(not isinstance(x, K.Load) for x in st.expr.args):
        return None
    if any(np.dtype(x.dtype) != dt for x in st.expr.args):
        return None
    red = [g for g, r in enumerate(plan.reduce) if r]
    outer = [g for g, r in enumerate(plan.reduce) if not r]
    if len(red) != 1 or len(outer) < 2 or any(s.level != "outer" for s in k.stores):
        return None
    g_m, g_n, g_k = outer[-2], outer[-1], red[0]
    ax_m, ax_n = plan.groups[g_m], plan.groups[g_n]
    x, y = st.expr.args
    for a, b in ((x, y), (y, x)):
        if not _uses(a, ax_n) and not _uses(b, ax_m):
            break
    else:
        return None
    ext = [plan.extents[g] for g in (g_m, g_n, g_k)]
    if not all(isinstance(e, (int, np.integer)) for e in ext):
        return None
    m, n, kk = (int(e) for e in ext)
    tm = min(TILE_M, m)
    if tm * kk > MAX_BUFFER or tm * n > MAX_BUFFER or n < 2:
        return None
    return DotPlan(g_m, g_n, g_k, outer[:-2], a, b, m, n, kk, tm)


def render(r, dp):
    """Emit the template for renderer ``r`` (``renderer._Renderer``); returns nothing
    (the caller's LaunchSpec is the row kernel's)."""
    d, st = r.d, r.k.stages[0]
    t = d.type(st.dtype)
    ident = r.s.identity(st.monoid, st.dtype)
    with r.nest(dp.batch, innermost=False):
        m0 = r.var("m0")
        with r.block(f"for ({r.i64} {m0} = 0; {m0} < {dp.m}; {m0} += {dp.tm})"):
            at, acc = r.var("at"), r.var("acc")
            r.emit(f"{t} {at}[{dp.tm}][{dp.k}];")
            r.emit(f"#pragma HLS ARRAY_PARTITION variable={at} complete dim=1")
            r.emit(f"{t} {acc}[{dp.tm}][{dp.n}];")
            r.emit(f"#pragma HLS ARRAY_PARTITION variable={acc} complete dim=1")
            i, kv, nv = r.var("ii"), r.var("k"), r.var("n")
            # the tile of A (rows past M read as the identity: never stored)
            with r.block(f"for ({r.i64} {kv} = 0; {kv} < {dp.k}; {kv}++)"), \
                    r.block(f"for (int {i} = 0; {i} < {dp.tm}; {i}++)"):
                r.pragmas(True, dp.k * dp.tm)
                r.idx[dp.g_m], r.idx[dp.g_k] = f"({m0} + {i})", kv
                with r.block(f"if ({m0} + {i} < {dp.m})"):
                    r.emit(f"{at}[{i}][{kv}] = {r.value(dp.a, {})};")
                r.emit(f"else {at}[{i}][{kv}] = {ident};")
            with r.block(f"for ({r.i64} {nv} = 0; {nv} < {dp.n}; {nv}++)"):
                r.pragmas(True, dp.n)
                with r.block(f"for (int {i} = 0; {i} < {dp.tm}; {i}++)"):
                    r.emit("#pragma HLS UNROLL")
                    r.emit(f"{acc}[{i}][{nv}] = {ident};")
            with r.block(f"for ({r.i64} {kv} = 0; {kv} < {dp.k}; {kv}++)"), \
                    r.block(f"for ({r.i64} {nv} = 0; {nv} < {dp.n}; {nv}++)"):
                r.pragmas(True, dp.n)
                r.emit(f"#pragma HLS DEPENDENCE variable={acc} inter distance={dp.n} true")
                r.idx[dp.g_m], r.idx[dp.g_k], r.idx[dp.g_n] = "0", kv, nv
                bv = r.value(dp.b, {})
                with r.block(f"for (int {i} = 0; {i} < {dp.tm}; {i}++)"):
                    r.emit("#pragma HLS UNROLL")
                    prod = f"{at}[{i}][{kv}] * {bv}" if dp.a is st.expr.args[0] \
                        else f"{bv} * {at}[{i}][{kv}]"
                    r.emit(f"{acc}[{i}][{nv}] = {acc}[{i}][{nv}] + {prod};")
            with r.block(f"for (int {i} = 0; {i} < {dp.tm}; {i}++)"), \
                    r.block(f"for ({r.i64} {nv} = 0; {nv} < {dp.n}; {nv}++)"):
                r.pragmas(True, dp.n)
                r.idx[dp.g_m], r.idx[dp.g_n], r.idx[dp.g_k] = f"({m0} + {i})", nv, "0"
                with r.block(f"if ({m0} + {i} < {dp.m})"):
                    r.stage_vals[0] = r._bind(f"{acc}[{i}][{nv}]", st.dtype)
                    scope = {}
                    for s in r.k.stores:
                        r.store(s, scope)
    for g in (dp.g_m, dp.g_n, dp.g_k):
        r.idx[g] = "0"
