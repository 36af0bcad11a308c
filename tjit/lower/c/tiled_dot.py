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

**Threaded dialects** (OpenCL: there is no BLAS on PoCL or most OpenCL devices) render
a dot kernel (:func:`match` with ``threaded=True``; symbolic sizes allowed) as the
usual GPU tiling instead of one work-group per output: a work-group computes a
``TM x TN`` block of outputs of one batch point (a group-stride loop over the blocks),
its ``local_size`` work-items laid out ``TY x TX``, each holding an ``RM x RN`` register
block of accumulators (8 x 8, fewer along a short axis of concrete size) for the
outputs ``(m0 + ty RM + i, n0 + tx RN + j)``: consecutive in local memory, which PoCL
turns into vector loads (3x faster there than blocks interleaved across work-items).
Per slice of ``TK`` contraction indices the
group stages A's ``TM x TK`` and B's ``TK x TN`` tiles in local memory (read through
the kernel's own index maps: a transposed or broadcast operand is read in place, never
copied; each tile is read along whichever of its axes is contiguous in memory), then
every work-item folds them into its block. **Summation order**: every output folds its
products in increasing ``k`` from the sum's identity, one sequential sum, so results
are bit for bit the ``c`` dialect's and independent of the launch. The epilogue is the
kernel's outer stores at each output (bias, activation, an SGD update ``w - lr * dot``
that fusion folded in: no pass over the product), guarded by ``m < M``, ``n < N``.
"""

import dataclasses

import numpy as np

from tjit.lower.loops import ceil_div, prod, same
from tjit.xla_like import kernel_ir as K

__all__ = ["MAX_BUFFER", "REG_M", "REG_N", "TILE_K", "TILE_M", "DotPlan", "match",
           "render", "thread_tile"]

#: Rows of A per tile: multiply-adds per cycle.
TILE_M = 16
#: The largest ``TM * K`` or ``TM * N`` buffer (elements) the template allocates.
MAX_BUFFER = 1 << 16
#: Threaded dialects: each work-item's register block (at most ``RM x RN`` outputs;
#: less along a short axis of concrete size) ...
REG_M, REG_N = 8, 8
#: ... and the contraction indices staged in local memory per step.
TILE_K = 16


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


def _load_of(x):
    """The Load an operand of the product reads: the operand itself, or the Load under
    a widening float convert (a float16 dot multiplies in float32: ``simplify``); else
    None."""
    if isinstance(x, K.Load):
        return x
    if isinstance(x, K.Op) and x.op == "convert" and isinstance(x.args[0], K.Load):
        src, dst = np.dtype(x.args[0].dtype), np.dtype(x.dtype)
        if src.kind == dst.kind == "f" and src.itemsize < dst.itemsize:
            return x.args[0]
    return None


def _uses(load, axes):
    return any(not same(_load_of(load).index.coefs[a], 0) for a in axes)


def match(k, plan, threaded=False):
    """A :class:`DotPlan` when kernel ``k`` (loop axes ``plan``) is a dot of the
    template's form, else None. ``threaded``: for a threaded dialect's tiling (symbolic
    sizes allowed; an output updated in place may be read by the epilogue, not by the
    product); otherwise the HLS template's limits apply (concrete sizes, buffers of at
    most ``MAX_BUFFER`` elements, no in-place outputs)."""
    if not (k.row_style and k.reduce_axes and len(k.stages) == 1) or k.hyperplane:
        return None
    if k.inplace and not threaded:
        return None
    st = k.stages[0]
    dt = np.dtype(st.dtype)
    if st.monoid != "sum" or dt.kind != "f" or not isinstance(st.expr, K.Op) or \
            st.expr.op != "mul" or any(_load_of(x) is None for x in st.expr.args):
        return None
    if any(np.dtype(x.dtype) != dt for x in st.expr.args):
        return None
    if {_load_of(x).arg for x in st.expr.args} & {o for _, o in k.inplace}:
        return None     # (the product would read values the epilogue overwrites)
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
    if threaded:
        return DotPlan(g_m, g_n, g_k, outer[:-2], a, b, *ext, tm=0)
    if not all(isinstance(e, (int, np.integer)) for e in ext):
        return None
    m, n, kk = (int(e) for e in ext)
    tm = min(TILE_M, m)
    if tm * kk > MAX_BUFFER or tm * n > MAX_BUFFER or n < 2:
        return None
    return DotPlan(g_m, g_n, g_k, outer[:-2], a, b, m, n, kk, tm)


def render(r, dp):
    """Emit the template for renderer ``r`` (``renderer._Renderer``; threaded dialects:
    the work-group tiling). Returns the launch's work items: work-groups' blocks
    (threaded), else the outer points."""
    if r.d.threaded:
        return _render_threaded(r, dp)
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
                    term = f"{at}[{i}][{kv}] * {bv}" if dp.a is st.expr.args[0] \
                        else f"{bv} * {at}[{i}][{kv}]"
                    r.emit(f"{acc}[{i}][{nv}] = {acc}[{i}][{nv}] + {term};")
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
    return prod(r.plan.extents[g] for g, red in enumerate(r.plan.reduce) if not red)


def thread_tile(local_size):
    """``(TY, TX)``: a work-group's work-items as TY rows of TX (TX >= TY, both powers
    of two for a power-of-two ``local_size``)."""
    tx = 1 << ((int(local_size).bit_length()) // 2)
    return max(1, local_size // tx), tx


def _contiguous_along(load, axes):
    """Whether ``load`` steps by one element along the last of loop axis ``axes``."""
    c = _load_of(load).index.coefs[axes[-1]]
    return isinstance(c, (int, np.integer)) and c == 1


def _render_threaded(r, dp):
    """The work-group tiling (see the module docstring)."""
    d, st, i64 = r.d, r.k.stages[0], r.i64
    dt = np.dtype(st.dtype)
    t = d.type(dt)
    ident = r.s.identity("sum", dt)
    ty, tx = thread_tile(d.local_size)
    rm, rn = _register_block(dp.m, ty, REG_M), _register_block(dp.n, tx, REG_N)
    tm, tn, tk = ty * rm, tx * rn, TILE_K
    M, N, Kc = (r.sizes(e) for e in (dp.m, dp.n, dp.k))
    nbm, nbn = ceil_div(dp.m, tm), ceil_div(dp.n, tn)
    blocks = prod(r.plan.extents[g] for g in dp.batch) * nbm * nbn
    # (an empty axis leaves no blocks: keep C from dividing by 0 in the unrun loop)
    nbm, nbn = (max(1, e) if isinstance(e, int) else e for e in (nbm, nbn))
    lid = d.local_id
    a_s, b_s = r.var("As"), r.var("Bs")
    r.shared.append(f"{d.shared_qual} {d.shared_type(dt)} {a_s}[{tk * tm}];")
    r.shared.append(f"{d.shared_qual} {d.shared_type(dt)} {b_s}[{tk * tn}];")
    wy, wx = r.var("ty"), r.var("tx")
    r.emit(f"const {i64} {wy} = {lid} / {tx};")
    r.emit(f"const {i64} {wx} = {lid} % {tx};")
    blk = r.var("blk")
    with r.block(f"for ({i64} {blk} = {d.group_id}; {blk} < {r.sizes(blocks)}; "
                 f"{blk} += {d.num_groups})"):
        bn, rest, bm = r.var("bn"), r.var("r"), r.var("bm")
        r.emit(f"const {i64} {bn} = {blk} % {r.sizes(nbn)};")
        r.emit(f"const {i64} {rest} = {blk} / {r.sizes(nbn)};")
        r.emit(f"const {i64} {bm} = {rest} % {r.sizes(nbm)};")
        if dp.batch:
            batch = r.var("b")
            r.emit(f"const {i64} {batch} = {rest} / {r.sizes(nbm)};")
            r.decompose(batch, dp.batch, {g: r.plan.extents[g] for g in dp.batch})
        m0, n0 = r.var("m0"), r.var("n0")
        r.emit(f"const {i64} {m0} = {bm} * {tm};")
        r.emit(f"const {i64} {n0} = {bn} * {tn};")
        acc = r.var("acc")
        r.emit(f"{t} {acc}[{rm}][{rn}];")
        i, j = r.var("i"), r.var("j")
        with r.block(f"for (int {i} = 0; {i} < {rm}; {i}++)"), \
                r.block(f"for (int {j} = 0; {j} < {rn}; {j}++)"):
            r.emit(f"{acc}[{i}][{j}] = {ident};")
        _fold_tiles(r, dp, acc, (a_s, b_s), (m0, n0), (wy, wx), (rm, rn), (M, N, Kc), t)
        _epilogue(r, dp, acc, (f"{m0} + {wy} * {rm}", f"{n0} + {wx} * {rn}"), (rm, rn),
                  (M, N))
    for g in (dp.g_m, dp.g_n, dp.g_k, *dp.batch):
        r.idx[g] = "0"
    return blocks


def _fold_tiles(r, dp, acc, bufs, origin, w, block, extents, t):
    """Over the contraction in slices of ``TILE_K``: stage A's and B's tiles in local
    memory, then fold every product of the slice into the register block, ``k`` in
    increasing order."""
    d, st, i64 = r.d, r.k.stages[0], r.i64
    dt = np.dtype(st.dtype)
    ident = r.s.identity("sum", dt)
    (a_s, b_s), (m0, n0), (wy, wx), (rm, rn), (M, N, Kc) = bufs, origin, w, block, extents
    ty, tx = thread_tile(d.local_size)
    tm, tn, tk = ty * rm, tx * rn, TILE_K
    k0, kn, kk = r.var("k0"), r.var("kn"), r.var("kk")
    i, j = r.var("i"), r.var("j")
    with r.block(f"for ({i64} {k0} = 0; {k0} < {Kc}; {k0} += {tk})"):
        r.emit(f"const {i64} {kn} = {Kc} - {k0} < {tk} ? {Kc} - {k0} : {tk};")
        _stage_tile(r, dp.a, a_s, dp.g_m, tm, m0, M, dp.g_k, k0, kn, ident, t)
        _stage_tile(r, dp.b, b_s, dp.g_n, tn, n0, N, dp.g_k, k0, kn, ident, t)
        r.emit(d.barrier)
        with r.block(f"for ({i64} {kk} = 0; {kk} < {kn}; {kk}++)"):
            av, bv = r.var("av"), r.var("bv")
            r.emit(f"{t} {av}[{rm}], {bv}[{rn}];")
            with r.block(f"for (int {i} = 0; {i} < {rm}; {i}++)"):
                r.emit(f"{av}[{i}] = {a_s}[{kk} * {tm} + {wy} * {rm} + {i}];")
            with r.block(f"for (int {j} = 0; {j} < {rn}; {j}++)"):
                r.emit(f"{bv}[{j}] = {b_s}[{kk} * {tn} + {wx} * {rn} + {j}];")
            x, y = (f"{av}[{i}]", f"{bv}[{j}]") if dp.a is st.expr.args[0] else \
                (f"{bv}[{j}]", f"{av}[{i}]")
            with r.block(f"for (int {i} = 0; {i} < {rm}; {i}++)"), \
                    r.block(f"for (int {j} = 0; {j} < {rn}; {j}++)"):
                # (the product is its own statement: OpenCL's default FP_CONTRACT may
                # fuse ``acc + a * b`` in one expression into an FMA)
                term = r.var("p")
                r.emit(f"const {t} {term} = {r.s.op('mul', [x, y], [dt, dt], dt)};")
                r.emit(f"{acc}[{i}][{j}] = {r.s.combine('sum', f'{acc}[{i}][{j}]', term, dt)};")
        r.emit(d.barrier)


def _stage_tile(r, load, buf, g_free, width, base, extent, g_k, k0, kn, ident, t):
    """``buf[kk * width + f] = load`` at (free index ``base + f``, contraction index
    ``k0 + kk``) for the tile's ``TILE_K x width`` points, the identity past the
    operand's end; the group's work-items share the points, consecutive ones reading
    along the axis that is contiguous in memory."""
    d, i64 = r.d, r.i64
    e, f, kk = r.var("e"), r.var("f"), r.var("kk")
    n = TILE_K * width
    with r.block(f"for ({i64} {e} = {d.local_id}; {e} < {n}; {e} += {d.local_size})"):
        if _contiguous_along(load, r.plan.groups[g_k]) and \
                not _contiguous_along(load, r.plan.groups[g_free]):
            r.emit(f"const {i64} {kk} = {e} % {TILE_K};")
            r.emit(f"const {i64} {f} = {e} / {TILE_K};")
        else:
            r.emit(f"const {i64} {f} = {e} % {width};")
            r.emit(f"const {i64} {kk} = {e} / {width};")
        v = r.var("ld")
        r.emit(f"{t} {v} = {ident};")
        r.idx[g_free], r.idx[g_k] = f"({base} + {f})", f"({k0} + {kk})"
        with r.block(f"if ({base} + {f} < {extent} && {kk} < {kn})"):
            r.emit(f"{v} = {r.value(load, {})};")
        r.emit(f"{buf}[{kk} * {width} + {f}] = {v};")


def _epilogue(r, dp, acc, first, block, extents):
    """The kernel's outer stores at each output of the work-item's register block
    (``block`` outputs from ``first``, an (m, n) pair of C expressions)."""
    i64 = r.i64
    (m0, n0), (rm, rn), (M, N) = first, block, extents
    outer = [g for g, red in enumerate(r.plan.reduce) if not red]
    i, j = r.var("i"), r.var("j")
    im, in_ = f"i{dp.g_m}", f"i{dp.g_n}"     # (the names ``store``'s guard uses)
    r.idx[dp.g_k] = "0"
    with r.block(f"for (int {i} = 0; {i} < {rm}; {i}++)"):
        r.emit(f"const {i64} {im} = {m0} + {i};")
        with r.block(f"for (int {j} = 0; {j} < {rn}; {j}++)"):
            r.emit(f"const {i64} {in_} = {n0} + {j};")
            r.idx[dp.g_m], r.idx[dp.g_n] = im, in_
            with r.block(f"if ({im} < {M} && {in_} < {N})"):
                r.stage_vals[0] = r._bind(f"{acc}[{i}][{j}]", r.k.stages[0].dtype)
                scope = {}
                for s in r.k.stores:
                    r.store(s, scope, outer)


def _register_block(extent, threads, most):
    """Outputs per work-item along an axis of ``extent`` split over ``threads``: at
    most ``most``, fewer (a power of two) when a concrete extent needs fewer, so a
    short axis (10 classes) does not leave most work-items idle."""
    if not isinstance(extent, (int, np.integer)):
        return most
    need = max(1, -(-int(extent) // threads))
    return min(most, 1 << (need - 1).bit_length())
