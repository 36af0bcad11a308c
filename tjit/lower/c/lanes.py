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
* **row style** (a row of at most ``streams.MAX_ROW``, or symbolic): its passes over
  a row (each stage level, then the store pass: ``row_passes``) are **one pipelined
  loop** over all rows' steps, and they overlap: pass p works on a later row than pass
  p + 1, ``delay_p`` steps ahead of it (``render_rows``; ``delay_p = delay_(p-1) + S +
  slack_(p-1)``, S the steps of a row, the slacks the design's ``row_slack``:
  ``fpga/row_passes.py``). Pass 0 reads each streamed input a packet a step and hands
  it on through a **delay line** (a circular array of ``S_max + slack + 1`` packets)
  to each later pass that reads it; the values a row (stage results, row inputs) are
  kept for the rows in flight in small circular register arrays. Each stage level
  takes W points of a row a step, folds them pairwise in a fixed tree (``(x0 + x1) +
  (x2 + x3)``, ... lane order) and adds that to the step's interleaved accumulator
  (``hls_dialect.PARTIALS``, folded pairwise at the row's last step as stated there),
  so a float sum is the same sum reassociated, reproducibly, and in the same order as
  when the passes ran one after another; the store pass writes W points a step; a
  value stored once per row (outer stores) is a stream of one element a row, written
  at the last pass's row end (a level) or row start (the store pass). A row that is not
  a concrete multiple of W (ragged or symbolic) takes ``ceil(N / W)`` steps a pass
  (a row of no points one step), the last one of each row masked: its lanes past the
  row hold the monoid's identity in the fold tree (so the tree's shape and order stay
  fixed) and store nothing; the packets of its streams are cut per row
  (``packet_row``: every row starts a packet), and a W-lane pointwise stage on the same
  streams cuts its packets the same way (``render`` with ``r.packet_row``: one flat
  loop over the rows' steps). Such a stage needs every argument to be a stream.

* **accumulate style** (column sums: the reduced loop axes lead, K kept points a
  concrete multiple of W, at most ``streams.MAX_ROW``): ``render_columns``, W kept
  points a step in row-major order (so its inputs may be streams, and a value a row
  of the reduced axes is read at each run of K kept points: the layernorm backward's
  weight gradient) into on-chip accumulators, each kept point folding
  its terms in increasing reduced index (bit for bit the sequential loop);
* a row-style kernel whose row is too long to buffer and that reads no stream takes
  W points a step of the whole row straight from memory (``row_len``).

Kernels that do not qualify (a memory access that is not an aligned beat, a count or
row that is not a multiple of W with a memory argument, a dot in the tiled template,
a full reduction whose values a row change within a step) keep one point a step, and
so do the streams into them; a one-point-a-step kernel that reads streams keeps the
forms above where its streams need their order (``overlapped_rows``; accumulate style
with streamed inputs: ``render_columns``), its packets one element each.
"""

import contextlib

import numpy as np

from tjit._sympy import sympy
from tjit.lower.c import streams, tiled_dot
from tjit.lower.loops import ceil_div, plan_axes, prod, stage_levels
from tjit.xla_like import kernel_ir as K

__all__ = [
    "BEAT_BITS",
    "arg_lanes",
    "beat_lanes",
    "kernel_lanes",
    "overlapped_rows",
    "packet_row",
    "packet_type",
    "pass_loads",
    "render",
    "render_columns",
    "render_rows",
    "row_len",
    "row_passes",
    "sub_rows",
]

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
    if k.reduce_axes and any(io.get(a) == "stream" and not _same_size(m, n) and
                             not _multiple(m, w) for a, m in rows.items()):
        return 1    # (a value every m points of a full reduction: whole steps of them)
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
    if n is None and streams.one_pass(k):   # (no row buffer: any length)
        return prod(k.shape[a] for a in k.reduce_axes)
    if n is None and not any(io.get(i) == "stream" for i, a in enumerate(k.args)
                             if a.role == "in"):
        n = prod(k.shape[a] for a in k.reduce_axes)
        return int(n) if isinstance(n, (int, np.integer)) else None
    return n


def overlapped_rows(k, io, lanes):
    """Whether row-style kernel ``k`` (``io``, ``lanes`` points a step) is rendered as
    one loop of overlapping passes (``render_rows``): it has reduced axes and takes W
    lanes or reads a stream, and is no dot of the matrix-multiply template."""
    if not (k.reduce_axes and k.row_style) or k.hyperplane is not None or k.inplace:
        return False
    streamed = any(io.get(i) == "stream" for i, a in enumerate(k.args) if a.role == "in")
    return (lanes > 1 or streamed) and tiled_dot.match(k, plan_axes(k)) is None


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
    if r.row_in and not (_const_int(r.packet_row) and r.packet_row > 0):
        with r.block(f"if ({n} == 0)"):     # (rows of no points: their values unread)
            i = r.var("i")
            with r.block(f"for ({r.i64} {i} = 0; {i} < {r.sizes(_rows_of(r))}; {i}++)"):
                for a in r.row_in:
                    r.emit(f"(void)a{a}.read();")
    return total


def _rows_of(r):
    """The rows of a pointwise kernel with row inputs: the points before its row split
    (``streams.row_split``)."""
    return prod(r.k.shape[a] for a in range(streams.row_split(r.k)))


def _const_int(x):
    return isinstance(x, (int, np.integer))


def _read_packets(r, w, inputs=True, outputs=True):
    """This step's packet of each streamed argument: read (inputs) or zeroed (outputs);
    row inputs are read at the row's start (``row_input_reads``)."""
    packets = {}
    for i, a in enumerate(r.k.args):
        if r.io.get(i) != "stream" or i in r.row_in or \
                not (inputs if a.role == "in" else outputs):
            continue
        packets[i] = r.var("pk")
        t = packet_type(r.d, a.dtype, w)
        if a.role == "in":
            r.emit(f"const {t} {packets[i]} = a{i}.read();")
        else:
            r.emit(f"{t} {packets[i]}{{}};")
    return packets


def _ln(packet, w):
    """The current lane of a packet (a one-lane stream's element is the value)."""
    return f"{packet}[ln]" if w > 1 else packet


def sub_rows(r):
    """Whether row-style kernel ``r.k`` streams row inputs that change within its row
    (``streams.row_split`` of a full reduction: read every ``r.row_in[a]`` points)."""
    n = streams.row_buffered_len(r.k)
    return any(not _same_size(m, n) for m in r.row_in.values())


def _same_size(a, b):
    return a == b or (a is not None and b is not None and
                      sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0)


def _write_packets(r, packets):
    for i, p in packets.items():
        if r.k.args[i].role != "in":
            r.emit(f"a{i}.write({p});")


def row_passes(k):
    """The passes of W-lane row-style kernel ``k`` over each row (``render_rows``):
    its stage levels (``loops.stage_levels``), then a store pass where it has inner
    stores (or no level at all): ``[(stage indices) or None, ...]``."""
    passes = [tuple(js) for js in stage_levels(k)]
    if any(st.level != "outer" for st in k.stores) or not passes:
        passes.append(None)
    return passes


def render_rows(r):
    """The row-style kernel of renderer ``r`` (``overlapped_rows``: W lanes, or one
    lane reading streams) as one pipelined loop whose passes overlap (module
    docstring, "row style"); returns the number of rows."""
    k, w = r.k, r.lanes
    n = row_len(k, r.io)
    outer = [g for g, red in enumerate(r.plan.reduce) if not red]
    passes = row_passes(k)
    npass = len(passes)
    slack = tuple(r.row_slack) if r.row_slack is not None else (0,) * (npass - 1)
    if len(slack) != npass - 1:
        raise ValueError(f"kernel {k.name}: {npass} row passes need {npass - 1} slacks, "
                         f"got {slack}")
    streamed = list(r.rowbuf)           # (read a packet a step: no row buffers here)
    last = {a: max([p for p in range(npass) if a in pass_loads(k, p)],
                   default=0) for a in streamed}
    nc, rows = r.sizes(n), r.sizes(prod(r.plan.extents[g] for g in outer))
    i64 = r.i64
    if isinstance(n, (int, np.integer)):
        spr = spr_max = max(ceil_div(n, w), 1)
    else:               # (a row of 0 points still takes one step: its outer stores)
        spr = "spr"     # (delay lines, npass > 1: a row buffered up to its capacity)
        spr_max = ceil_div(streams.row_capacity(k), w) if npass > 1 else None
        r.emit(f"const {i64} spr = {nc} > 0 ? ({nc} + {w - 1}) / {w} : 1;")
    # rows in flight between the first pass and the last: a power of two above them
    ahead = npass + (sum(slack) if not isinstance(spr, int) else ceil_div(sum(slack), spr))
    depth = 1 << ahead.bit_length()
    whole = _multiple(n, w) and n > 0       # (else a masked last step a row)
    guard = None if isinstance(n, (int, np.integer)) and n > 0 else f"{nc} > 0"
    dl = ["0"]
    for p in range(1, npass):
        dl.append(r.var("dl"))
        r.emit(f"const {i64} {dl[p]} = {dl[p - 1]} + {spr} + {slack[p - 1]};")
    vals = _row_values(r, passes, depth)
    lines, ptr = {}, {}     # delay lines into pass p: (write, read pointer, packets)
    for p in range(1, npass):
        into = [a for a in streamed if last[a] >= p]
        if not into:
            continue
        ptr[p] = (r.var("wp"), r.var("rp"), spr_max + slack[p - 1] + 1)
        r.emit(f"{i64} {ptr[p][0]} = 0, {ptr[p][1]} = 0;")
        for a in into:
            lines[a, p] = r.var("dly")
            r.emit(f"{packet_type(r.d, k.args[a].dtype, w)} {lines[a, p]}[{ptr[p][2]}];")
    state = [(r.var("q"), r.var("j")) for _ in passes]
    for q, j in state:
        r.emit(f"{i64} {q} = 0, {j} = 0;")
    accs = [_level_accumulators(r, js) if js is not None else None for js in passes]
    t = r.var("t")
    trip = prod(r.plan.extents[g] for g in outer) * ceil_div(n, w) + \
        (npass - 1) * ceil_div(n, w) + sum(slack)
    with r.block(f"for ({i64} {t} = 0; {t} < {rows} * {spr} + {dl[-1]}; {t}++)"):
        r.pragmas(True, trip)
        for name in [*lines.values()] + ([v for v in vals.values()]
                                         if r.row_slack is not None else []):
            r.emit(f"#pragma HLS DEPENDENCE variable={name} inter false")
        for p, js in enumerate(passes):
            q, j = state[p]
            with r.block(f"if ({t} >= {dl[p]} && {q} < {rows})"):
                mask = None if whole else f"{j} + ln < {nc}"
                _row_pass(r, p, js, passes, state[p], vals, depth, accs[p], lines, ptr,
                          streamed, last, nc, mask, guard)
    return prod(r.plan.extents[g] for g in outer)


def pass_loads(k, p):
    """The arguments pass ``p`` of ``row_passes(k)`` loads (the last pass: the outer
    stores' too)."""
    passes = row_passes(k)
    js = passes[p]
    roots = [k.stages[j].expr for j in js] if js is not None else \
        [st.expr for st in k.stores if st.level != "outer"]
    if p == len(passes) - 1:
        roots += [st.expr for st in k.stores if st.level == "outer"]
    seen, found = set(), set()
    for e in roots:
        found |= {n.arg for n in K.walk(e, seen) if isinstance(n, K.Load)}
    return found


def _row_values(r, passes, depth):
    """``{("stage", j) | ("row", arg): array}``: each stage's and row input's value of
    the last ``depth`` rows (indexed by row & (depth - 1)), registers."""
    vals = {}
    for js in passes:
        for j in js or ():
            vals["stage", j] = r.var("sv")
            r.emit(f"{r.d.type(r.k.stages[j].dtype)} {vals['stage', j]}[{depth}];")
    for a in r.row_in:
        vals["row", a] = r.var("rv")
        r.emit(f"{r.d.mem_type(r.k.args[a].dtype)} {vals['row', a]}[{depth}];")
    for v in vals.values():
        r.emit(f"#pragma HLS ARRAY_PARTITION variable={v} complete")
    return vals


def _level_accumulators(r, js):
    """A level's accumulators (one a stage) and interleaved partials, declared before
    the loop; reset at each row's first step."""
    ks = r.k.stages
    accs = {}
    for j in js:
        accs[j] = r.var("acc")
        r.emit(f"{r.d.type(ks[j].dtype)} {accs[j]} = "
               f"{r.s.identity(ks[j].monoid, ks[j].dtype)};")
    return accs, r._partials(js)


def _row_pass(r, p, js, passes, qj, vals, depth, accs, lines, ptr, streamed, last, nc,
              mask, guard):
    """One step of pass ``p`` (stage level ``js``, or the store pass: None) at its row
    ``q`` and the row's point ``j``."""
    k, w = r.k, r.lanes
    q, j = qj
    outer = [g for g, red in enumerate(r.plan.reduce) if not red]
    inner = [g for g, red in enumerate(r.plan.reduce) if red]
    at = f"({q} & {depth - 1})"
    _indices(r, q, outer)
    if p == 0:
        for a, m in r.row_in.items():   # (a value a row, read at the row's first step;
            # a full reduction's value of each m points: every m / W steps)
            cond = f"{j} == 0" if not sub_rows(r) else f"{j} % {r.sizes(m)} == 0"
            r.emit(f"if ({cond}) {vals['row', a]}[{at}] = a{a}.read();")
    r.row_vals = {a: f"{vals['row', a]}[{at}]" for a in r.row_in}
    for (kind, s), v in vals.items():
        if kind == "stage" and any(s in (passes[m] or ()) for m in range(p)):
            r.stage_vals[s] = f"{v}[{at}]"
    packets = {}
    for a in streamed:
        if p > last[a] or (p > 0 and (a, p) not in lines):
            continue
        packets[a] = r.var("pk")
        pt = packet_type(r.d, k.args[a].dtype, w)
        if p > 0:
            r.emit(f"const {pt} {packets[a]} = {lines[a, p]}[{ptr[p][1]}];")
        elif guard is None:
            r.emit(f"const {pt} {packets[a]} = a{a}.read();")
        else:           # (a symbolic row of 0 points has no packets)
            r.emit(f"{pt} {packets[a]}{{}};")
            r.emit(f"if ({guard}) {packets[a]} = a{a}.read();")
        if (a, p + 1) in lines:
            r.emit(f"{lines[a, p + 1]}[{ptr[p + 1][0]}] = {packets[a]};")
        r.emit(f"(void){packets[a]};")
    for m, end in ((p + 1, 0), (p, 1)):     # (this pass writes p + 1's lines, reads p's)
        if m in ptr and m > 0:
            v, size = ptr[m][end], ptr[m][2]
            r.emit(f"{v} = {v} + 1 == {size} ? 0 : {v} + 1;")
    end = r.var("end")
    r.emit(f"const bool {end} = {j} + {w} >= {nc};")
    if js is not None:
        _level_step(r, js, accs, packets, mask, inner, j, end, vals, at)
    else:
        _store_step(r, packets, mask, inner, outer, j, guard)
    if p == len(passes) - 1 and js is not None:
        with r.block(f"if ({end})"):
            scope = {}
            for st in k.stores:
                r.store(st, scope, outer)
    r.emit(f"if ({end}) {{ {j} = 0; {q} = {q} + 1; }} else {{ {j} = {j} + {w}; }}")
    r.lane, r.row_vals = {}, {}
    for g in outer:
        r.idx[g] = "0"


def _level_step(r, js, accs, packets, mask, inner, j, end, vals, at):
    """A level's step: its stages at the W lanes (masked lanes hold the identity), the
    lanes folded pairwise in lane order, added to the step's partial accumulator; at
    the row's end the partials are folded and the stages' values kept for the row."""
    ks = r.k.stages
    acc, part = accs
    with r.block(f"if ({j} == 0)"):
        for x in js:
            r.emit(f"{acc[x]} = {r.s.identity(ks[x].monoid, ks[x].dtype)};")
        for x, arr in part.items():
            if x is not None:
                ident = r.s.identity(ks[x].monoid, ks[x].dtype)
                for i in range(r.d.partials):
                    r.emit(f"{arr}[{i}] = {ident};")
        if part:
            r.emit(f"{part[None]} = 0;")
    lane_vals = {}
    for x in js:
        lane_vals[x] = r.var("lx")
        r.emit(f"{r.d.type(ks[x].dtype)} {lane_vals[x]}[{r.lanes}];")
        r.emit(f"#pragma HLS ARRAY_PARTITION variable={lane_vals[x]} complete")
    with _lanes(r, r.lanes, inner):
        if mask is not None:
            for x in js:
                r.emit(f"{lane_vals[x]}[ln] = {r.s.identity(ks[x].monoid, ks[x].dtype)};")
        with _masked(r, mask):
            _indices(r, f"({j} + ln)", inner)
            r.lane = {a: _ln(pk, r.lanes) for a, pk in packets.items()}
            scope = {}
            for x in js:
                r.emit(f"{lane_vals[x]}[ln] = {r.typed(ks[x].expr, ks[x].dtype, scope)};")
    r.lane = {}
    for x in js:
        folded = r.fold_pairwise([f"{lane_vals[x]}[{ln}]" for ln in range(r.lanes)],
                                 ks[x].monoid, ks[x].dtype, "lf")
        r._accumulate(x, acc[x], folded, part)
    r._advance(part)
    with r.block(f"if ({end})"):
        r._fold_partials(acc, part)
        for x in js:
            r.emit(f"{vals['stage', x]}[{at}] = {acc[x]};")
            r.stage_vals[x] = f"{vals['stage', x]}[{at}]"


def _store_step(r, packets, mask, inner, outer, j, guard):
    """The store pass's step: outer stores at the row's first step, the inner stores
    of the W lanes (masked lanes store nothing) into this step's output packets."""
    k, w = r.k, r.lanes
    outer_st = [st for st in k.stores if st.level == "outer"]
    if outer_st:
        with r.block(f"if ({j} == 0)"):
            scope = {}
            for st in outer_st:
                r.store(st, scope, outer)
    inner_st = [st for st in k.stores if st.level != "outer"]
    out = {}
    for st in inner_st:
        if r.io.get(st.arg) == "stream":
            out[st.arg] = r.var("pk")
            r.emit(f"{packet_type(r.d, k.args[st.arg].dtype, w)} {out[st.arg]}{{}};")
    with _lanes(r, w, inner), _masked(r, mask):
        _indices(r, f"({j} + ln)", inner)
        r.lane = {**{a: _ln(pk, w) for a, pk in packets.items()},
                  **{a: _ln(pk, w) for a, pk in out.items()}}
        scope = {}
        for st in inner_st:
            r.store(st, scope, outer)
    r.lane = {}
    for a, pk in out.items():
        r.emit(f"a{a}.write({pk});" if guard is None else f"if ({guard}) a{a}.write({pk});")


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
    r.row_input_decls(count=False)      # (a value a run of the kept points)
    with r.block(f"for ({r.i64} {f} = 0; {f} < {r.sizes(total)}; {f} += {w})"):
        r.pragmas(True, ceil_div(total, w))
        for a in accs.values():
            r.emit(f"#pragma HLS DEPENDENCE variable={a} inter distance={nk // w} true")
        r.emit(f"const {r.i64} {c} = {f} % {nk};")
        r.row_input_reads(f"{c} == 0")
        packets = _read_packets(r, w, outputs=False)
        with _lanes(r, w, groups):
            _indices(r, f"({f} + ln)", groups)
            r.lane = {i: _ln(p, w) for i, p in packets.items()}
            scope = {}
            for j, st in enumerate(k.stages):
                x = r.typed(st.expr, st.dtype, scope)
                ref = f"{accs[j]}[{c} + ln]"
                r.emit(f"{ref} = {r.s.combine(st.monoid, ref, x, st.dtype)};")
        r.lane = {}
    r.row_vals = {}
    with _steps(r, nk, w, c):
        packets = _read_packets(r, w, inputs=False)
        with _lanes(r, w, kept):
            _indices(r, f"({c} + ln)", kept)
            for j, st in enumerate(k.stages):
                r.stage_vals[j] = r._bind(f"{accs[j]}[{c} + ln]", st.dtype)
            r.lane = {i: _ln(p, w) for i, p in packets.items()}
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
