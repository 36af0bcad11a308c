"""Dots as an output-stationary grid of multiply-adds (HLS) or a tiled kernel (OpenCL).

An FPGA has no BLAS: a dot is the row-style reduce kernel ``out[.., m, n] =
epilogue(sum_k A[.., m, k] * B[.., k, n])`` that ``xla_like`` makes of it. Rendered as
a plain loop nest it does one multiply-add per cycle; a dialect with ``tiled_dots``
renders a kernel of that form (:func:`match`) as a **grid of P x Q multiply-add PEs**
(the output-stationary systolic form of Vitis' and DaCe's GEMM examples), for each
batch point and each tile of ``TM = P * RM`` rows of ``m`` (all ``N`` columns)::

    at[TM][K]   <- the tile's rows of A   (ARRAY_PARTITION cyclic P on rows: a PE row
                   each; cyclic WA on k when A is read along k: WA elements a cycle)
    acc[TM][NP] (NP = NC * Q >= N; cyclic P on rows, cyclic Q on columns: a PE's RM * NC
                 accumulators in its own bank)
    for k: for c < NC: for rm < RM (one flattened pipeline, II=1):
        rm == 0: bv[q] = B[k, c Q + q], q < Q      (Q values, reused for RM cycles)
        acc[rm P + p][c Q + q] = (k == 0 ? 0 : acc[..]) + at[rm P + p][k] * bv[q]
                                                     (p < P, q < Q unrolled: P Q PEs)
    for i < TM: for c < NC (pipelined): the epilogue (the kernel's outer stores) of
        acc[i][c Q + q], q < Q unrolled, n < N

Where B is contiguous along k but not along n (``x @ w.T``: its port cannot give the
Q values of a row of B in a step), B is **staged in panels** instead: per column group
``c``, ``bp[K][Q] = B[:, c Q : c Q + Q]`` read a 512-bit beat along k a step
(``b_panel``), then ``for k: for rm`` (II=1) the P x Q PEs fold ``at[..][k] *
bp[k][q]``; an accumulator comes back every RM >= ``ACC_DISTANCE`` cycles. A dot of a
shared engine (``fpga/dot_engine.py``; an :class:`EngineGrid`) uses the engine's A tile
and accumulators instead of its own.

``P * Q`` multiply-adds a cycle. The grid (``P``, ``Q``) comes from the caller
(``fpga/dot_grid.py`` sizes it from the part's DSP budget; :data:`DEFAULT_GRID`
otherwise); ``P`` is clamped to the rows the buffers hold and ``Q`` to ``N``. Each
accumulator comes back every ``NC * RM`` cycles, at least :data:`ACC_DISTANCE` (the
latency of a float add: ``hls_dialect.PARTIALS``), so the adder's latency never lowers
the II and no partial sums are needed. **Summation order**: every output folds its
products in increasing ``k`` from the sum's identity, one sequential sum: bit for bit
the ``c`` dialect's loop (and the interpreter's float32 loop), for every grid, tile,
panel and engine.
Rows past ``M`` (a ragged last tile) hold the identity in ``at`` and columns past ``N``
a zero ``bv``: their accumulators are never stored. The template needs concrete ``M``,
``N``, ``K``, the A tile and the accumulators within :data:`MAX_TILE_BYTES` each (a
tile of as many rows as fit, so B is read ``ceil(M / TM)`` times); other dots stay loop
nests. The source's comment states the grid, tiles and order.

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

from tjit.lower.c.hls_dialect import PARTIALS
from tjit.lower.loops import ceil_div, prod, same
from tjit.xla_like import kernel_ir as K

__all__ = ["ACC_DISTANCE", "DEFAULT_GRID", "MAX_TILE_BYTES", "PORT_BYTES", "REG_M", "REG_N",
           "TILE_K", "DotPlan", "EngineGrid", "match", "render", "thread_tile"]

#: HLS: the PE grid (rows P of ``m``, columns Q of ``n``) when the caller gives none.
DEFAULT_GRID = (16, 16)
#: HLS: the most bytes the A tile or the accumulators may take (each; on a C-simulation
#: stage thread's stack too); a dot whose one row of either needs more stays a loop nest.
MAX_TILE_BYTES = 1 << 20
#: HLS: the fewest cycles between two updates of one accumulator (>= a float add's
#: latency at 300 MHz: the interleaved partials' count, ``hls_dialect.PARTIALS``).
ACC_DISTANCE = PARTIALS
#: HLS: bytes an m_axi port moves a cycle (a 512-bit beat): the A tile is read this
#: many bytes a step along A's contiguous axis.
PORT_BYTES = 64
#: Threaded dialects: each work-item's register block (at most ``RM x RN`` outputs;
#: less along a short axis of concrete size) ...
REG_M, REG_N = 8, 8
#: ... and the contraction indices staged in local memory per step.
TILE_K = 16


class EngineGrid(tuple):
    """A grid (P, Q) whose dot runs on a shared engine (``fpga/dot_engine.py``): its A
    tile and accumulators are the engine's arrays ``at`` (``[TM][K]`` at most) and
    ``acc`` (``[TM][NP]``), named by the design and declared (and partitioned) once
    for all the engine's dots, which use their own corner of them."""

    def __new__(cls, grid, at, acc):
        self = super().__new__(cls, tuple(grid))
        self.at, self.acc = at, acc
        return self


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
    p: int = 0        # HLS: PE rows, PE columns
    q: int = 0
    rm: int = 0       # HLS: rounds of P rows a tile (TM = P * RM)
    nc: int = 0       # HLS: column groups of Q (NP = NC * Q >= N)
    wa: int = 1       # HLS: A elements read a step into the tile
    a_along: str = "k"  # HLS: the axis of A the tile is read along ("k" or "m")
    b_lanes: int = 1  # HLS: B elements its port gives a cycle (contiguous along n: a beat)
    b_panel: int = 0  # HLS: B staged a column group at a time, this many k a step (B
    #                   contiguous along k only); 0: B read in the grid's loop

    @property
    def tm(self):
        return self.p * self.rm

    @property
    def b_arg(self):
        """The kernel argument B is read from."""
        return _load_of(self.b).arg

    @property
    def tiles(self):
        """Tiles of ``TM`` rows a batch point."""
        return ceil_div(self.m, self.tm)


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


def match(k, plan, threaded=False, grid=None):
    """A :class:`DotPlan` when kernel ``k`` (loop axes ``plan``) is a dot of the
    template's form, else None. ``threaded``: for a threaded dialect's tiling (symbolic
    sizes allowed; an output updated in place may be read by the epilogue, not by the
    product); otherwise the HLS template's limits apply (concrete sizes, rows within
    ``MAX_TILE_BYTES``, no in-place outputs) and ``grid`` (P, Q; default
    ``DEFAULT_GRID``) sizes its PE grid, clamped to the dot (whether a kernel matches
    does not depend on the grid)."""
    if not (k.row_style and k.reduce_axes and len(k.stages) == 1) or k.hyperplane:
        return None
    if k.inplace and not threaded:
        return None
    st = k.stages[0]
    dt = np.dtype(st.dtype)
    if st.monoid != "sum" or dt.kind not in "fiu" or not isinstance(st.expr, K.Op) or \
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
        if dt.kind != "f":
            return None
        return DotPlan(g_m, g_n, g_k, outer[:-2], a, b, *ext)
    if not all(isinstance(e, (int, np.integer)) for e in ext):
        return None
    m, n, kk = (int(e) for e in ext)
    most = MAX_TILE_BYTES // dt.itemsize
    if min(m, n, kk) < 1 or kk > most or n > most // 2:
        return None
    dp = DotPlan(g_m, g_n, g_k, outer[:-2], a, b, m, n, kk)
    return dp if _size_grid(dp, plan, dt, grid or DEFAULT_GRID) else None


def _size_grid(dp, plan, dt, grid):
    """Fill in the HLS grid and tiles of ``dp`` for the requested ``grid`` (P, Q).

    * Q at most N; RM at least ``ACC_DISTANCE / NC`` rounds (an accumulator comes back
      every ``ACC_DISTANCE`` cycles or more) and, where the buffers allow, at least
      ``Q / b_lanes`` (B's port gives the next Q values in RM steps); P at most the rows that need PEs and
      the rows the buffers hold (``MAX_TILE_BYTES``);
    * tiles: as few as the buffers allow (B is read once a tile), but while B is
      smaller than A (N < M) up to ``M / N`` of them (B's re-reads then move at most
      A's bytes again) so a dot with few columns keeps a small A tile; the rows spread
      evenly over the tiles (a ragged last tile wastes at most P rows);
    * WA, A's elements read a step into the tile: the fewest (a power of two, at most a
      512-bit beat) that read the tile in at most 1/8 of the grid's steps
      (``P / (WA NC)``), each its own bank.

    False: the buffers cannot hold ``ACC_DISTANCE`` rows (a very long row)."""
    p, q = (max(1, int(x)) for x in grid)
    q = min(q, dp.n)
    dp.q, dp.nc = q, ceil_div(dp.n, q)
    w = max(1, PORT_BYTES // dt.itemsize)
    dp.b_lanes = min(w, q) if _contiguous_along(dp.b, plan.groups[dp.g_n]) else 1
    rows = MAX_TILE_BYTES // dt.itemsize // max(dp.k, dp.nc * q)
    rm_min = ceil_div(ACC_DISTANCE, dp.nc)
    if dp.b_lanes == 1 and q > 1 and _contiguous_along(dp.b, plan.groups[dp.g_k]) and \
            dp.k * q * dt.itemsize <= MAX_TILE_BYTES:
        dp.b_panel = min(w, dp.k)   # (a column group's panel, a beat along k a step)
        rm_min = ACC_DISTANCE       # (an accumulator comes back every RM steps)
    if rows < rm_min:
        return False
    if not dp.b_panel and rows // ceil_div(q, dp.b_lanes) >= 1:
        rm_min = max(rm_min, ceil_div(q, dp.b_lanes))   # (B's Q values every RM steps)
    p = max(1, min(p, ceil_div(dp.m, rm_min), rows // rm_min))
    tiles = max(ceil_div(dp.m, rows // p * p),
                min(ceil_div(dp.m, p * rm_min), max(1, dp.m // dp.n)))
    dp.p = p
    dp.rm = max(rm_min, ceil_div(ceil_div(dp.m, tiles), p))
    need = 1 << max(0, ceil_div(8 * p, dp.nc) - 1).bit_length()
    if _contiguous_along(dp.a, plan.groups[dp.g_k]):
        dp.a_along, dp.wa = "k", min(w, dp.k, need)
    elif _contiguous_along(dp.a, plan.groups[dp.g_m]):
        dp.a_along, dp.wa = "m", min(w, p, need)
    else:
        dp.a_along, dp.wa = "k", 1
    return True


def render(r, dp):
    """Emit the template for renderer ``r`` (``renderer._Renderer``; threaded dialects:
    the work-group tiling). Returns the launch's work items: work-groups' blocks
    (threaded), else the outer points."""
    if r.d.threaded:
        return _render_threaded(r, dp)
    d, st = r.d, r.k.stages[0]
    t = d.type(st.dtype)
    r.emit(f"// dot {dp.m}x{dp.k} @ {dp.k}x{dp.n}: an output-stationary grid of {dp.p}x"
           f"{dp.q} multiply-add PEs; tiles of TM={dp.tm} rows (RM={dp.rm} rounds of "
           f"{dp.p}) x all N in NC={dp.nc} groups of {dp.q} columns; each output sums "
           f"its products in increasing k (0..{dp.k - 1}) from 0: a sequential sum")
    with r.nest(dp.batch, innermost=False):
        m0 = r.var("m0")
        with r.block(f"for ({r.i64} {m0} = 0; {m0} < {dp.m}; {m0} += {dp.tm})"):
            if isinstance(r.dot_grid, EngineGrid):     # (the engine's arrays)
                at, acc = r.dot_grid.at, r.dot_grid.acc
            else:
                at, acc = r.var("at"), r.var("acc")
                r.emit(f"{t} {at}[{dp.tm}][{dp.k}];")
                r.emit(f"{t} {acc}[{dp.tm}][{dp.nc * dp.q}];")
                for line in tile_pragmas(dp, at, acc):
                    r.emit(line)
            _load_a_tile(r, dp, at, m0)
            if dp.b_panel:
                _multiply_panels(r, dp, at, acc)
            else:
                _multiply(r, dp, at, acc)
            _hls_epilogue(r, dp, acc, m0)
    for g in (dp.g_m, dp.g_n, dp.g_k):
        r.idx[g] = "0"
    return prod(r.plan.extents[g] for g, red in enumerate(r.plan.reduce) if not red)


def tile_pragmas(dp, at, acc):
    """The partitioning of A tile ``at`` (cyclic P on rows: a PE row each; cyclic WA
    on k when read along k) and accumulators ``acc`` (cyclic P on rows, Q on columns:
    a PE's own bank)."""
    lines = [f"#pragma HLS ARRAY_PARTITION variable={at} cyclic factor={dp.p} dim=1"]
    if dp.a_along == "k" and dp.wa > 1:
        lines.append(f"#pragma HLS ARRAY_PARTITION variable={at} cyclic factor={dp.wa} "
                     "dim=2")
    lines.append(f"#pragma HLS ARRAY_PARTITION variable={acc} cyclic factor={dp.p} dim=1")
    lines.append(f"#pragma HLS ARRAY_PARTITION variable={acc} cyclic factor={dp.q} dim=2")
    return lines


def _load_a_tile(r, dp, at, m0):
    """``at[i][k] = A[m0 + i, k]`` (the identity on rows past M), ``wa`` elements a
    pipelined step along A's contiguous axis."""
    ident = r.s.identity("sum", r.k.stages[0].dtype)
    i, kv, w, step = r.var("i"), r.var("k"), r.var("w"), r.var("s")
    if dp.a_along == "k":     # (row by row, WA consecutive k a step)
        outer = r.block(f"for (int {i} = 0; {i} < {dp.tm}; {i}++)")
        inner = r.block(f"for ({r.i64} {step} = 0; {step} < {dp.k}; {step} += {dp.wa})")
        at_lane, trip = f"const {r.i64} {kv} = {step} + {w};", ceil_div(dp.k, dp.wa)
    else:                     # (k by k, WA consecutive rows a step)
        outer = r.block(f"for ({r.i64} {kv} = 0; {kv} < {dp.k}; {kv}++)")
        inner = r.block(f"for (int {step} = 0; {step} < {dp.tm}; {step} += {dp.wa})")
        at_lane, trip = f"const int {i} = {step} + {w};", ceil_div(dp.tm, dp.wa)
    with outer, inner:
        r.pragmas(True, trip)
        with r.block(f"for (int {w} = 0; {w} < {dp.wa}; {w}++)"):
            r.emit("#pragma HLS UNROLL")
            r.emit(at_lane)
            with r.block(f"if ({i} < {dp.tm} && {kv} < {dp.k})"):
                r.idx[dp.g_m], r.idx[dp.g_k] = f"({m0} + {i})", kv
                with r.block(f"if ({m0} + {i} < {dp.m})"):
                    r.emit(f"{at}[{i}][{kv}] = {r.value(dp.a, {})};")
                r.emit(f"else {at}[{i}][{kv}] = {ident};")


def _multiply(r, dp, at, acc):
    """The PE grid: per ``k`` and column group, Q values of B read once and used for
    RM cycles; every cycle P x Q multiply-adds, each into its own accumulator."""
    st = r.k.stages[0]
    dt = np.dtype(st.dtype)
    t = r.d.type(dt)
    ident = r.s.identity("sum", dt)
    bv = r.var("bv")
    r.emit(f"{t} {bv}[{dp.q}] = {{}};")
    r.emit(f"#pragma HLS ARRAY_PARTITION variable={bv} complete")
    kv, c, rm, p, q = (r.var(x) for x in ("k", "c", "rm", "p", "q"))
    with r.block(f"for ({r.i64} {kv} = 0; {kv} < {dp.k}; {kv}++)"), \
            r.block(f"for (int {c} = 0; {c} < {dp.nc}; {c}++)"), \
            r.block(f"for (int {rm} = 0; {rm} < {dp.rm}; {rm}++)"):
        r.pragmas(True, dp.rm)
        r.emit(f"#pragma HLS DEPENDENCE variable={acc} inter distance={dp.nc * dp.rm} true")
        with r.block(f"if ({rm} == 0)"), r.block(f"for (int {q} = 0; {q} < {dp.q}; {q}++)"):
            r.emit("#pragma HLS UNROLL")
            n, v = r.var("n"), r.var("b")
            r.emit(f"const {r.i64} {n} = {c} * {dp.q} + {q};")
            r.emit(f"{t} {v} = {ident};")
            r.idx[dp.g_m], r.idx[dp.g_k], r.idx[dp.g_n] = "0", kv, n
            with r.block(f"if ({n} < {dp.n})"):
                r.emit(f"{v} = {r.value(dp.b, {})};")
            r.emit(f"{bv}[{q}] = {v};")
        with r.block(f"for (int {p} = 0; {p} < {dp.p}; {p}++)"):
            r.emit("#pragma HLS UNROLL")
            with r.block(f"for (int {q} = 0; {q} < {dp.q}; {q}++)"):
                r.emit("#pragma HLS UNROLL")
                _pe(r, dp, at, acc, bv, (kv, c, rm, p, q))


def _multiply_panels(r, dp, at, acc):
    """The PE grid with B staged a column group at a time (B contiguous along k only,
    so its port cannot give Q values of a row of B in a step): per group ``c`` the
    panel ``bp[k][q] = B[k, c Q + q]`` (zero past N) read ``b_panel`` k a step, then
    per ``k`` and round every cycle P x Q multiply-adds, an accumulator coming back
    every RM cycles. The same sums in the same order as ``_multiply``."""
    st = r.k.stages[0]
    dt = np.dtype(st.dtype)
    t = r.d.type(dt)
    ident = r.s.identity("sum", dt)
    bp = r.var("bp")
    r.emit(f"{t} {bp}[{dp.k}][{dp.q}];")
    r.emit(f"#pragma HLS ARRAY_PARTITION variable={bp} complete dim=2")
    if dp.b_panel > 1:
        r.emit(f"#pragma HLS ARRAY_PARTITION variable={bp} cyclic factor={dp.b_panel} dim=1")
    c, q, s_, w = r.var("c"), r.var("q"), r.var("s"), r.var("w")
    with r.block(f"for (int {c} = 0; {c} < {dp.nc}; {c}++)"):
        with r.block(f"for (int {q} = 0; {q} < {dp.q}; {q}++)"), \
                r.block(f"for ({r.i64} {s_} = 0; {s_} < {dp.k}; {s_} += {dp.b_panel})"):
            r.pragmas(True, ceil_div(dp.k, dp.b_panel))
            with r.block(f"for (int {w} = 0; {w} < {dp.b_panel}; {w}++)"):
                r.emit("#pragma HLS UNROLL")
                kv, n, v = r.var("k"), r.var("n"), r.var("b")
                r.emit(f"const {r.i64} {kv} = {s_} + {w};")
                r.emit(f"const {r.i64} {n} = {c} * {dp.q} + {q};")
                with r.block(f"if ({kv} < {dp.k})"):
                    r.emit(f"{t} {v} = {ident};")
                    r.idx[dp.g_m], r.idx[dp.g_k], r.idx[dp.g_n] = "0", kv, n
                    with r.block(f"if ({n} < {dp.n})"):
                        r.emit(f"{v} = {r.value(dp.b, {})};")
                    r.emit(f"{bp}[{kv}][{q}] = {v};")
        kv, rm, p = r.var("k"), r.var("rm"), r.var("p")
        with r.block(f"for ({r.i64} {kv} = 0; {kv} < {dp.k}; {kv}++)"), \
                r.block(f"for (int {rm} = 0; {rm} < {dp.rm}; {rm}++)"):
            r.pragmas(True, dp.rm)
            r.emit(f"#pragma HLS DEPENDENCE variable={acc} inter distance={dp.rm} true")
            with r.block(f"for (int {p} = 0; {p} < {dp.p}; {p}++)"):
                r.emit("#pragma HLS UNROLL")
                with r.block(f"for (int {q} = 0; {q} < {dp.q}; {q}++)"):
                    r.emit("#pragma HLS UNROLL")
                    _pe(r, dp, at, acc, f"{bp}[{kv}]", (kv, c, rm, p, q))


def _pe(r, dp, at, acc, bv, idx):
    """One PE's multiply-add at (k, column group, round, PE row, PE column) ``idx``;
    its accumulator starts from the sum's identity at k = 0."""
    st = r.k.stages[0]
    dt = np.dtype(st.dtype)
    t, ident = r.d.type(dt), r.s.identity("sum", dt)
    kv, c, rm, p, q = idx
    row, col = f"{rm} * {dp.p} + {p}", f"{c} * {dp.q} + {q}"
    x, y = f"{at}[{row}][{kv}]", f"{bv}[{q}]"
    if dp.a is not st.expr.args[0]:
        x, y = y, x
    term, prev = r.var("pr"), r.var("s")
    r.emit(f"const {t} {term} = {r.s.op('mul', [x, y], [dt, dt], dt)};")
    r.emit(f"const {t} {prev} = {kv} == 0 ? {ident} : {acc}[{row}][{col}];")
    r.emit(f"{acc}[{row}][{col}] = {r.s.combine('sum', prev, term, dt)};")


def _hls_epilogue(r, dp, acc, m0):
    """The kernel's outer stores at each output of the tile, row by row and Q columns
    a pipelined step (in row-major order: a streamed output stays in order)."""
    i, c, q, n = r.var("i"), r.var("c"), r.var("q"), r.var("n")
    with r.block(f"for (int {i} = 0; {i} < {dp.tm}; {i}++)"), \
            r.block(f"for (int {c} = 0; {c} < {dp.nc}; {c}++)"):
        r.pragmas(True, dp.nc)
        with r.block(f"for (int {q} = 0; {q} < {dp.q}; {q}++)"):
            r.emit("#pragma HLS UNROLL")
            r.emit(f"const {r.i64} {n} = {c} * {dp.q} + {q};")
            r.idx[dp.g_m], r.idx[dp.g_n], r.idx[dp.g_k] = f"({m0} + {i})", n, "0"
            with r.block(f"if ({m0} + {i} < {dp.m} && {n} < {dp.n})"):
                r.stage_vals[0] = r._bind(f"{acc}[{i}][{n}]", r.k.stages[0].dtype)
                scope = {}
                for s in r.k.stores:
                    r.store(s, scope)


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
