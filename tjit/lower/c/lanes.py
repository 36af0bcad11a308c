"""W-lane stages of HLS dataflow designs: W points per pipelined step.

A kernel whose every argument is a stream (or a discarded output) handles W
consecutive points (row-major) per iteration of its pipelined loops
(``kernel_lanes``): each stream moves one packet of W lanes (``hls::vector<T, W>``) a
step and the loop body is unrolled over the lanes. W is 512 bits over the widest
streamed element (16 float32 lanes, 8 float64: a 512-bit beat of the memory ports),
so the reader and writer stages that feed the design move one beat a cycle.

* **pointwise**: lane l of step f is point ``W*f + l``, the scalar loop's points in
  its order; nothing is folded, so the results are bit-identical to one point a step.
  A point count that is not a concrete multiple of W (a ragged or symbolic size) takes
  ``ceil(n / W)`` steps, the last one masked: its lanes past ``n`` compute nothing,
  and the packets it writes hold zeros there (every stream of the design is cut into
  packets the same way, so the lanes line up). A masked step needs every argument to
  be a stream (or discarded): a memory access must be one aligned beat;
* **row style** (a row of at most ``streams.MAX_ROW``, or symbolic): each row is read
  into its row buffer a packet a step (the buffer partitioned
  cyclically by W) by the first stage level's pass; each stage level takes W points of the row a step, folds them
  pairwise in a fixed tree (``(x0 + x1) + (x2 + x3)``, ... lane order) and adds that to
  the step's interleaved accumulator (``hls_dialect.PARTIALS``, folded as stated
  there), so a float sum is the same sum reassociated, reproducibly; the store pass
  writes W points a step; a value stored once per row (outer stores) is a stream of
  one element a step. A row that is not a concrete multiple of W (ragged or symbolic)
  takes ``ceil(N / W)`` steps a pass, the last one of each row masked: its lanes past
  the row hold the monoid's identity in the fold tree (so the tree's shape and order
  stay fixed) and store nothing; the packets of its streams are cut per row
  (``packet_row``: every row starts a packet), and a W-lane pointwise stage on the same
  streams cuts its packets the same way (``render`` with ``r.packet_row``: one flat
  loop over the rows' steps). Such a stage needs every argument to be a stream.

* **accumulate style** (column sums: the reduced loop axes lead, K kept points a
  concrete multiple of W, at most ``streams.MAX_ROW``): ``render_columns``, W kept
  points a step in row-major order into on-chip accumulators, each kept point folding
  its terms in increasing reduced index (bit for bit the sequential loop);
* a row-style kernel whose row is too long to buffer and that reads no stream takes
  W points a step of the whole row straight from memory (``row_len``).

Kernels that do not qualify (a memory access that is not an aligned beat, a count or
row that is not a multiple of W with a memory argument, a dot in the tiled template)
keep one point a step, and so do the streams into them.
"""

import contextlib

import numpy as np
import sympy

from tjit.lower.c import streams, tiled_dot
from tjit.lower.loops import ceil_div, plan_axes, prod, stage_levels
from tjit.xla_like import kernel_ir as K

__all__ = ["BEAT_BITS", "arg_lanes", "beat_lanes", "kernel_lanes", "packet_row", "packet_type",
           "render", "render_columns", "render_rows", "row_len"]

#: The width of a memory beat and of a wide stream's packet.
BEAT_BITS = 512


def beat_lanes(dtype):
    """Elements of ``dtype`` in one 512-bit beat."""
    return max(1, BEAT_BITS // (8 * np.dtype(dtype).itemsize))


def packet_type(dialect, dtype, lanes):
    """The C++ type of a stream element: ``T`` or ``hls::vector<T, lanes>``."""
    t = dialect.mem_type(dtype)
    return t if lanes == 1 else f"hls::vector<{t}, {lanes}>"


def kernel_lanes(k, io):
    """The lanes kernel ``k`` with ``io`` (``{arg: "stream" | "discard"}``, others in
    memory) can handle a step: W (see the module docstring), else 1."""
    if k.hyperplane is not None or k.inplace:
        return 1
    w = min(beat_lanes(a.dtype) for i, a in enumerate(k.args) if io.get(i) != "discard")
    if not k.row_style:
        return w if _columns_fit(k, io, w) else 1
    n = prod(k.shape) if not k.reduce_axes else row_len(k, io)
    if n is None:
        return 1
    rows = streams.row_inputs(k)
    if not k.reduce_axes and any(io.get(a) == "stream" for a in rows) and \
            all(io.get(i) in ("stream", "discard") for i in range(len(k.args))):
        return w    # (a value a row: W lanes a step within a row, cut per row if ragged)
    if not _multiple(n, w):     # a masked last step (of the run, or of each row):
        # stages on streams only (a memory access must be one aligned beat)
        streamed = all(io.get(i) in ("stream", "discard") for i in range(len(k.args)))
        return w if streamed else 1
    plan = plan_axes(k)
    if k.reduce_axes and tiled_dot.match(k, plan) is not None:
        return 1
    inner = plan.groups[-1][-1] if plan.groups else None
    if inner is not None and not _multiple(plan.extents[-1], w):
        return 1
    for node in K.all_nodes(k):
        if isinstance(node, K.IndexedLoad):
            return 1
        if isinstance(node, K.Load) and io.get(node.arg) != "stream" and \
                not _aligned(node.index, inner, w, (0, 1)):
            return 1
    for st in k.stores:         # (a row's outer store: one element a row)
        if k.reduce_axes and st.level == "outer":
            continue
        if io.get(st.arg) is None and not _aligned(st.index, inner, w, (1,)):
            return 1
    return w


def row_len(k, io):
    """The row a W-lane row-style kernel steps through: its buffered row
    (``streams.row_buffered_len``), or, where no input is streamed (nothing to buffer:
    every access is a beat of memory), its reduced points when concrete; else None."""
    n = streams.row_buffered_len(k)
    if n is None and not any(io.get(i) == "stream" for i, a in enumerate(k.args)
                             if a.role == "in"):
        n = prod(k.shape[a] for a in k.reduce_axes)
        return int(n) if isinstance(n, (int, np.integer)) else None
    return n


def _columns_fit(k, io, w):
    """Whether accumulate-style kernel ``k`` can take W kept points a step
    (``render_columns``): its reduced loop axes all before its kept ones, the kept
    points a concrete multiple of W of at most ``streams.MAX_ROW`` (their accumulators
    on chip), every memory access an aligned beat or a lane broadcast, no gather."""
    plan = plan_axes(k)
    red = list(plan.reduce)
    if not red or not any(red) or all(red) or red != sorted(red, reverse=True):
        return False
    nkept = prod(e for e, x in zip(plan.extents, red) if not x)
    if not _multiple(nkept, w) or nkept > streams.MAX_ROW or \
            not _multiple(plan.extents[-1], w):
        return False
    inner = plan.groups[-1][-1]
    for node in K.all_nodes(k):
        if isinstance(node, K.IndexedLoad) or isinstance(node, K.Load) and \
                io.get(node.arg) != "stream" and not _aligned(node.index, inner, w, (0, 1)):
            return False
    return all(io.get(st.arg) is not None or _aligned(st.index, inner, w, (1,))
               for st in k.stores)


def _multiple(x, w):
    return isinstance(x, (int, np.integer)) and x % w == 0


def _aligned(index, inner, w, inner_coefs):
    """Whether the W lanes of a step touch one aligned 512-bit beat (innermost
    coefficient 1, every other coefficient and the offset multiples of W) or one
    element (innermost coefficient 0): a memory access a wide stage may make."""
    if inner is None or index.coefs[inner] not in inner_coefs:
        return False
    if index.coefs[inner] == 0:
        return True
    others = [c for a, c in enumerate(index.coefs) if a != inner]
    return all(_multiple(c, w) for c in others + [index.offset])


def packet_row(k, lanes):
    """The elements of a row whose packets a W-lane row-style kernel ``k`` cuts per
    row (each row ``ceil(N / W)`` packets, the last one masked), or None where its
    packets cut the flat run (a pointwise kernel, a row of whole beats, one lane)."""
    n = streams.row_buffered_len(k) if k.reduce_axes else \
        next(iter(streams.row_inputs(k).values()), None)
    if lanes == 1 or n is None or _multiple(n, lanes):
        return None
    return n


def arg_lanes(k, arg, lanes):
    """The lanes of argument ``arg``'s packets in kernel ``k`` taking ``lanes`` a step:
    1 for a value stored once per row (a row-style kernel's outer stores)."""
    if k.reduce_axes and k.row_style and \
            any(st.arg == arg and st.level == "outer" for st in k.stores):
        return 1
    if k.args[arg].role == "in" and arg in streams.row_inputs(k):
        return 1
    return lanes


def render(r):
    """The W-lane loop of renderer ``r`` (``renderer._Renderer`` with ``r.lanes`` > 1);
    returns its point count. A count that is not a concrete multiple of W ends in a
    masked step (the module docstring)."""
    w = r.lanes
    axes = list(range(len(r.plan.groups)))
    total = prod(r.plan.extents)
    if r.packet_row is not None:
        return _render_row_cut(r, axes, total)
    tail = not _multiple(total, w)
    count = r.row_input_decls()     # (rows of whole steps here: packet_row)
    f = r.var("f")
    with r.block(f"for ({r.i64} {f} = 0; {f} < {r.sizes(total)}; {f} += {w})"):
        r.pragmas(True, ceil_div(total, w))
        if count is not None:
            r.row_input_reads(f"{count} == 0")
            r.emit(f"{count} = {count} + {w} == {r._row_points()} ? 0 : {count} + {w};")
        packets = _read_packets(r, w)
        with _lanes(r, w, axes), _masked(r, f"{f} + ln < {r.sizes(total)}" if tail else None):
            _indices(r, f"({f} + ln)", axes)
            r.lane = {i: f"{p}[ln]" for i, p in packets.items()}
            r.point_body(axes)
        r.lane = {}
        _write_packets(r, packets)
    return total


def _render_row_cut(r, axes, total):
    """A W-lane pointwise loop whose packets cut rows of ``r.packet_row`` points (the
    streams of a ragged row-style stage): one flat pipelined loop over the rows' steps,
    the last step of each row masked; point ``b + j + ln`` of row ``b / N``."""
    w, n = r.lanes, r.sizes(r.packet_row)
    steps = sympy.sympify(total) / r.packet_row
    steps = (int(steps) if steps.is_Integer else steps) * ceil_div(r.packet_row, w)
    r.row_input_decls(count=False)     # (j counts the row's points)
    r.emit(f"{r.i64} j = 0;")
    with r.block(f"for ({r.i64} b = 0; b < {r.sizes(total)}; )"):   # (rows * N points)
        r.pragmas(True, steps)
        r.row_input_reads("j == 0")
        packets = _read_packets(r, w)
        with _lanes(r, w, axes), _masked(r, f"j + ln < {n}"):
            _indices(r, "(b + j + ln)", axes)
            r.lane = {i: f"{p}[ln]" for i, p in packets.items()}
            r.point_body(axes)
        r.lane = {}
        _write_packets(r, packets)
        r.emit(f"j += {w};")
        r.emit(f"if (j >= {n}) {{ j = 0; b += {n}; }}")
    return total


def _read_packets(r, w):
    """This step's packet of each streamed argument: read (inputs) or zeroed (outputs);
    row inputs are read at the row's start (``row_input_reads``)."""
    packets = {}
    for i, a in enumerate(r.k.args):
        if r.io.get(i) != "stream" or i in r.row_in:
            continue
        packets[i] = r.var("pk")
        t = packet_type(r.d, a.dtype, w)
        if a.role == "in":
            r.emit(f"const {t} {packets[i]} = a{i}.read();")
        else:
            r.emit(f"{t} {packets[i]}{{}};")
    return packets


def _write_packets(r, packets):
    for i, p in packets.items():
        if r.k.args[i].role != "in":
            r.emit(f"a{i}.write({p});")


def render_rows(r):
    """The row-style kernel of renderer ``r`` at ``r.lanes`` > 1 (module docstring);
    returns the number of rows."""
    k, w = r.k, r.lanes
    n = row_len(k, r.io)
    mask = None if _multiple(n, w) else f"j + ln < {r.sizes(n)}"   # a ragged row's last
    outer = [g for g, red in enumerate(r.plan.reduce) if not red]
    row_in = {a: f"{buf}[j + ln]" for a, buf in r.rowbuf.items()}
    for buf in r.rowbuf.values():
        r.shared.append(f"#pragma HLS ARRAY_PARTITION variable={buf} cyclic factor={w}")
    levels = stage_levels(k)
    with r.nest(outer, innermost=False):
        r.row_input_reads()
        for a, buf in r.rowbuf.items() if not levels else ():   # a row, a packet a step
            with _steps(r, n, w):
                pk = r.var("pk")
                r.emit(f"const {packet_type(r.d, k.args[a].dtype, w)} {pk} = a{a}.read();")
                with _lanes(r, w):
                    r.emit(f"{buf}[j + ln] = {pk}[ln];")
        later = [k.stages[j].expr for js in levels[1:] for j in js] + \
            [st.expr for st in k.stores if st.level != "outer"]
        kept = {node.arg for e in later for node in K.walk(e) if isinstance(node, K.Load)}
        for lv, js in enumerate(levels):     # (the first level fills the row buffers)
            _fold_level(r, js, n, w, row_in, fill=kept if lv == 0 else None, mask=mask)
        for a in r.rowbuf.keys() - kept if levels else ():
            r.emit(f"(void){r.rowbuf[a]};")      # (its row is used by the first level only)
        scope = {}
        for st in k.stores:
            if st.level == "outer":
                r.store(st, scope, outer)
        inner_st = [st for st in k.stores if st.level != "outer"]
        if inner_st:
            with _steps(r, n, w):
                packets = {}
                for st in inner_st:
                    if r.io.get(st.arg) == "stream":
                        packets[st.arg] = r.var("pk")
                        t = packet_type(r.d, k.args[st.arg].dtype, w)
                        r.emit(f"{t} {packets[st.arg]}{{}};")
                inner = [g for g, red in enumerate(r.plan.reduce) if red]
                with _lanes(r, w, inner), _masked(r, mask):
                    _indices(r, "(j + ln)", inner)
                    r.lane = {**row_in, **{a: f"{p}[ln]" for a, p in packets.items()}}
                    scope = {}
                    for st in inner_st:
                        r.store(st, scope, outer)
                r.lane = {}
                for a, p in packets.items():
                    r.emit(f"a{a}.write({p});")
    return prod(r.plan.extents[g] for g in outer)


def render_columns(r):
    """The accumulate-style kernel of renderer ``r`` at ``r.lanes`` > 1: W kept points
    a step (``_columns_fit``). The kept points' accumulators are on-chip arrays
    (partitioned cyclically by W); one flat pipelined loop walks the iteration space
    in row-major order (the reduced axes lead), lane l of step f adding point f + l to
    the accumulator of its kept point, so each kept point folds its terms in
    increasing reduced index: bit for bit the sequential loop, with no partials (a
    kept point comes back every ``nkept / W`` steps, its dependence distance); then a
    pass stores W kept points a step. Returns the kept point count."""
    k, w = r.k, r.lanes
    groups = list(range(len(r.plan.groups)))
    kept = [g for g, x in enumerate(r.plan.reduce) if not x]
    nk = prod(r.plan.extents[g] for g in kept)
    total = prod(r.plan.extents)
    accs = {}
    for j, st in enumerate(k.stages):
        accs[j] = r.var("acc")
        r.shared.append(f"{r.d.type(st.dtype)} {accs[j]}[{nk}];")
        r.shared.append(f"#pragma HLS ARRAY_PARTITION variable={accs[j]} cyclic factor={w}")
    c = r.var("c")
    with _steps(r, nk, w, c), _lanes(r, w):
        for j, st in enumerate(k.stages):
            r.emit(f"{accs[j]}[{c} + ln] = {r.s.identity(st.monoid, st.dtype)};")
    f = r.var("f")
    with r.block(f"for ({r.i64} {f} = 0; {f} < {r.sizes(total)}; {f} += {w})"):
        r.pragmas(True, ceil_div(total, w))
        for a in accs.values():
            r.emit(f"#pragma HLS DEPENDENCE variable={a} inter distance={nk // w} true")
        r.emit(f"const {r.i64} {c} = {f} % {nk};")
        with _lanes(r, w, groups):
            _indices(r, f"({f} + ln)", groups)
            scope = {}
            for j, st in enumerate(k.stages):
                x = r.typed(st.expr, st.dtype, scope)
                ref = f"{accs[j]}[{c} + ln]"
                r.emit(f"{ref} = {r.s.combine(st.monoid, ref, x, st.dtype)};")
    with _steps(r, nk, w, c):
        packets = _read_packets(r, w)
        with _lanes(r, w, kept):
            _indices(r, f"({c} + ln)", kept)
            for j, st in enumerate(k.stages):
                r.stage_vals[j] = r._bind(f"{accs[j]}[{c} + ln]", st.dtype)
            r.lane = {i: f"{p}[ln]" for i, p in packets.items()}
            scope = {}
            for st in k.stores:
                r.store(st, scope, kept)
        r.lane = {}
        _write_packets(r, packets)
    return nk


def _indices(r, flat, gs):
    """The loop indices of loop axes ``gs`` at flat point ``flat``, where memory
    accesses or iota need them (a lane reads streams by its packet's lane)."""
    if any(isinstance(n, (K.IndexValue, K.Load)) and r.io.get(n.arg if isinstance(
            n, K.Load) else None) != "stream" for n in K.all_nodes(r.k)) or \
            any(r.io.get(st.arg) is None for st in r.k.stores):
        r.decompose(flat, gs, {g: r.plan.extents[g] for g in gs})
        for g in gs:
            r.emit(f"(void)i{g};")


def _fold_level(r, js, n, w, row_in, fill=None, mask=None):
    """Stages ``js`` over the row: per step, W lanes folded pairwise, then into the
    step's interleaved accumulator; ``fill`` (the first level): the step reads the
    streamed inputs' packets, takes its lanes from them and keeps those of the inputs
    in ``fill`` (read again later) in their row buffers (padded to whole steps).
    ``mask``: the condition of the lanes inside a ragged row; the others hold the
    monoid's identity, so the fold tree keeps its shape and order."""
    ks = r.k.stages
    inner = [g for g, red in enumerate(r.plan.reduce) if red]
    accs = {}
    for j in js:
        accs[j] = r.var("acc")
        r.emit(f"{r.d.type(ks[j].dtype)} {accs[j]} = "
               f"{r.s.identity(ks[j].monoid, ks[j].dtype)};")
    part = r._partials(js)
    with _steps(r, n, w):
        packets = {}
        for a in r.rowbuf if fill is not None else ():
            packets[a] = r.var("pk")
            r.emit(f"const {packet_type(r.d, r.k.args[a].dtype, w)} {packets[a]} = "
                   f"a{a}.read();")
        lane_vals = {}
        for j in js:
            lane_vals[j] = r.var("lx")
            r.emit(f"{r.d.type(ks[j].dtype)} {lane_vals[j]}[{w}];")
            r.emit(f"#pragma HLS ARRAY_PARTITION variable={lane_vals[j]} complete")
        with _lanes(r, w, inner):
            for a, p in packets.items():
                if a in fill:
                    r.emit(f"{r.rowbuf[a]}[j + ln] = {p}[ln];")
            if mask is not None:
                for j in js:
                    r.emit(f"{lane_vals[j]}[ln] = {r.s.identity(ks[j].monoid, ks[j].dtype)};")
            with _masked(r, mask):
                _indices(r, "(j + ln)", inner)
                r.lane = {**row_in, **{a: f"{p}[ln]" for a, p in packets.items()}}
                scope = {}
                for j in js:
                    r.emit(f"{lane_vals[j]}[ln] = "
                           f"{r.typed(ks[j].expr, ks[j].dtype, scope)};")
        r.lane = {}
        for j in js:
            vals = [f"{lane_vals[j]}[{ln}]" for ln in range(w)]
            while len(vals) > 1:
                nxt = []
                for a, b in zip(vals[::2], vals[1::2]):
                    name = r.var("lf")
                    r.emit(f"const {r.d.type(ks[j].dtype)} {name} = "
                           f"{r.s.combine(ks[j].monoid, a, b, ks[j].dtype)};")
                    nxt.append(name)
                vals = nxt
            r._accumulate(j, accs[j], vals[0], part)
        r._advance(part)
    r._fold_partials(accs, part)
    for j in js:
        r.stage_vals[j] = r._bind(accs[j], ks[j].dtype)


@contextlib.contextmanager
def _steps(r, n, w, j="j"):
    """``for (j = 0; j < n; j += w)``, pipelined at II=1."""
    with r.block(f"for ({r.i64} {j} = 0; {j} < {r.sizes(n)}; {j} += {w})"):
        r.pragmas(True, ceil_div(n, w))
        yield


@contextlib.contextmanager
def _masked(r, cond):
    """The lanes of a masked step: only those where ``cond`` holds (no mask: None)."""
    if cond is None:
        yield
        return
    with r.block(f"if ({cond})"):
        yield


@contextlib.contextmanager
def _lanes(r, w, gs=()):
    """The lane loop, unrolled: W copies of its body a step; the indices of loop axes
    ``gs`` are the lane's inside it only."""
    with r.block(f"for (int ln = 0; ln < {w}; ln++)"):
        r.emit("#pragma HLS UNROLL")
        yield
    for g in gs:
        r.idx[g] = "0"
