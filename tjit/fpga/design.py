"""A run of fused kernels as one HLS dataflow design: stages, streams, buffers, source.

:func:`build_design` takes consecutive kernel steps of a planned
:class:`~tjit.xla_like.plan.Program` and makes them the stages of one top function
under ``#pragma HLS DATAFLOW`` (the stages run at once, each a pipelined loop nest):

* **ports**: the values the run reads from outside it and the values it leaves for
  later steps or returns are ``m_axi`` pointers, each in its own bundle
  (``max_widen_bitwidth=512``); size symbols are ``s_axilite`` int64 registers. Each
  stage that touches a port's memory has a port of its own (an ``alias`` of the first:
  the host passes the same buffer again, and ``connectivity.cfg`` puts it in the same
  bank), since Vitis rejects one m_axi port used by several stages of a dataflow
  region;
* **streams**: a value that its producer writes once per element in order and every
  consumer reads once per element in order (``lower/c/streams.py``) flows through
  ``hls::stream<T, depth>``: a reader stage turns an input port into streams, a writer
  stage a stream into an output port, a fork stage copies a stream to several
  consumers. A value no one reads is discarded in its producer;
* **lanes**: a stage takes W points a pipelined step where ``lower/c/lanes.py`` allows
  (16 float32 / 8 float64 lanes: a 512-bit beat), its streams carrying W-lane packets;
  readers and writers move a beat a step (contiguous, so Vitis bursts the port at 512
  bits). A length that is not a concrete multiple of W (ragged or symbolic) keeps the
  wide lanes: ``ceil(n / W)`` steps, the last beat masked (its lanes past ``n`` are
  zeros in the packet and never stored; the port is then a pointer to elements, read
  and written lane by lane within the beat). A ragged or symbolic row of a row-style
  stage cuts the packets of its streams per row (``Stage.row``, ``lanes.packet_row``):
  its readers, writers, forks and pointwise neighbours move ``ceil(N / W)`` beats a
  row, the last masked; where two row stages joined by streams cut differently, the
  ragged ones take one lane. A symbolic row is buffered up to
  ``streams.SYMBOLIC_ROW_CAP`` elements: the top checks that the rows fit
  (``TJ_REQUIRE``). Stream depths count packets;
* **row inputs**: a value a row (layernorm's mean; ``streams.row_inputs``) flows as
  a stream of one element a row that its consumer reads at each row's start, so the
  stages of a chain of row reductions overlap a row or two apart instead of waiting
  for a buffer of the whole run; such a stream is as deep as the rows its consumer
  lags behind (2 + that lag in elements, at the faster of its producer's pace and
  the consumer's rows), a stage reading it cuts its packets per row;
* **depths**: a consumer that first holds back data (a row-style kernel reads a row
  of ``N`` before it writes, a stage waiting for a buffer waits for its producer's
  whole run) makes the other streams into it wait; each stream is
  ``2 + start(consumer) - ready(stream)`` deep, where ``ready`` is the element count
  its producer must take in before the stream's first element (the longest such
  path from the ports, counting a row per row-style stage and a whole run per buffer;
  a stage finishes no earlier than the producers of its streams: a fork after a row
  reduction runs as long as the reduction). No stream is deeper than its whole run
  (then it never blocks its producer). A W-lane row-style stage runs its passes on
  several rows at once (``row_passes.py``): it takes in ``row_lag`` elements before
  its first output. A depth that depends on one symbolic row length (a row-style
  stage's whole row) is the most it needs over rows of 1 .. ``SYMBOLIC_ROW_CAP``
  elements, and the top requires rows that short (``TJ_REQUIRE``); a stream that would
  need another symbolic depth or more than ``MAX_STREAM_DEPTH`` becomes a buffer
  instead;
* **dots**: a dot stage in the matrix-multiply template (``lower/c/tiled_dot.py``) is
  a grid of P x Q multiply-add PEs sized from ``part``'s DSPs (``dot_grid.py``: the
  design's dots share ``DOT_DSP_SHARE`` of them), ``Stage.grid``; a dot's output that
  no stage of the design reads is written to its port by the dot (Q outputs a step)
  rather than streamed to a writer (one a step). Dots that cannot overlap share ONE
  engine instead (``dot_engine.py``: one grid from the whole share, one stage that
  runs them in a list-scheduled order, the design's steps reordered to match; their
  values are buffers);
* **buffers**: other intermediates are on-chip arrays while their sizes fit
  ``onchip_budget`` bytes (BRAM/URAM; default ``ONCHIP_BUDGET``), else DRAM scratch
  ports the host allocates. A buffer's consumers start when its producer has finished
  (Vitis' ping-pong handshake; in C simulation a token stream of depth 1 per reader).

Control flow the design cannot pipeline (a data-dependent ``while``, ``cond``,
``scan``), library calls and host dots are not stages: the runtime (``devices/hls.py``)
runs them on the host between design invocations, as an FPGA host program does.
"""

import dataclasses
import math

import numpy as np

from tjit._sympy import sympy
from tjit.fpga.dot_engine import engine_order, engine_tiles, plan_dots
from tjit.fpga.row_passes import row_lag, row_slack
from tjit.lower.c import HLS, render, tiled_dot
from tjit.lower.c import lanes as L
from tjit.lower.c import streams as S
from tjit.lower.c.hls_dialect import trip_hint
from tjit.lower.c.sizes import Sizes, param_name
from tjit.lower.loops import ceil_div, plan_axes, prod, same

__all__ = [
    "MAX_STREAM_DEPTH",
    "ONCHIP_BUDGET",
    "Buffer",
    "Design",
    "Stage",
    "Stream",
    "build_design",
    "mover_steps",
]

#: On-chip bytes a design may use for intermediate buffers (of an Alveo U280's ~41 MB
#: of BRAM + URAM: a quarter, leaving room for FIFOs, row buffers and the shell).
ONCHIP_BUDGET = 8 << 20
#: The deepest stream a design uses; a deeper one becomes a buffer.
MAX_STREAM_DEPTH = 4096


@dataclasses.dataclass
class Stream:
    name: str
    value: int              # the program value it carries
    dtype: np.dtype
    depth: int
    producer: str           # stage names
    consumer: str
    length: object          # elements (int or sympy)
    lanes: int = 1          # elements a packet (hls::vector<T, lanes> when > 1)
    row: int = None         # packets cut per row of this many elements (lanes.packet_row)
    per_row: int = None     # its consumer reads it once per row of this many points


@dataclasses.dataclass
class Buffer:
    name: str
    value: int
    dtype: np.dtype
    length: object
    where: str              # "onchip" | "dram" | "port" (an output read back)
    producer: str
    consumers: list


@dataclasses.dataclass
class Stage:
    name: str
    kind: str               # "read" | "kernel" | "write" | "fork"
    kernel: object = None   # kernel_ir.Kernel of a "kernel" stage
    value: int = None       # the value a read/write/fork stage moves
    length: object = 0      # elements it moves (read/write/fork)
    reads: tuple = ()       # values a kernel stage reads from memory (ports, buffers)
    lanes: int = 1          # elements a pipelined step (lower/c/lanes.py)
    row: int = None         # its packets cut per row of this many elements (a ragged row)
    grid: tuple = None      # a dot's (P, Q) multiply-add PEs (dot_grid.py, tiled_dot.py)
    ins: tuple = ()         # a kernel stage's input values, in argument order
    engine: str = None      # a dot run by the design's shared engine (dot_engine.py)
    overlapped: bool = False  # a row stage whose passes overlap (lanes.overlapped_rows)


@dataclasses.dataclass
class Design:
    """One dataflow design: ``text`` (HLS C++ of its stages and ``top``), the ports in
    call order (``ports``: (value, "in"|"out"|"scratch"|"alias", dtype, length); an
    ``alias`` is another port onto the memory of the value's first port, which the
    caller passes again) and their C names (``port_names``), the size ``symbols``, and
    its ``stages``, ``streams`` and ``buffers``."""
    top: str
    text: str
    ports: list
    symbols: tuple
    stages: list
    streams: list
    buffers: list
    port_names: list = dataclasses.field(default_factory=list)
    port_lanes: list = dataclasses.field(default_factory=list)   # >1: hls::vector<T, W> *

    @property
    def dram_intermediates(self):
        """Intermediates that go through DRAM: scratch buffers, and outputs that a stage
        of the design reads back from their port."""
        return [b for b in self.buffers if b.where in ("dram", "port")]

    def summary(self):
        return (f"design {self.top}: {len(self.stages)} stages, {len(self.streams)} "
                f"streams, {len(self.buffers)} buffers ({len(self.dram_intermediates)} "
                f"in DRAM)")


def _elements(prog, v):
    return prod(prog.values[v].shape)


def _const(x):
    return isinstance(x, (int, np.integer)) or not sympy.sympify(x).free_symbols


def build_design(prog, steps, live_out, top="tjit_design", onchip_budget=ONCHIP_BUDGET,
                 depths=None, part="u280"):
    """The :class:`Design` of kernel steps ``steps`` (consecutive ``KernelStep`` of
    ``prog``).

    Args:
      prog: the planned Program.
      steps: its kernel steps that form the design, in order.
      live_out: value ids the design must leave in memory (read later, or outputs).
      top: the top function's name.
      onchip_budget: bytes of on-chip buffers before intermediates go to DRAM.
      depths: ``{stream name: depth}`` overriding computed depths (tests: an
        under-sized stream).
      part: the card whose DSPs size the dots' PE grids (``dot_grid.py``).
    """
    dots = plan_dots(steps, part)
    if dots.engine:     # (the engine's dots in the order it takes them: dot_engine.py)
        order = engine_order(steps, dots)
        if order != sorted(order):
            steps = [steps[i] for i in order]
            dots = plan_dots(steps, part)
    produced = {v: n for n, s in enumerate(steps) for v in s.outs if v is not None}
    readers = {}
    for n, s in enumerate(steps):
        for j, v in enumerate(s.ins):
            readers.setdefault(v, []).append((n, j))
    ok = [S.stream_args(s.kernel) for s in steps]
    kname = [f"st{n}_{s.kernel.name}" for n, s in enumerate(steps)]

    def streams_ok(v):
        """Whether value ``v`` can flow as a stream to every reader in the run."""
        n_el = _elements(prog, v)
        rs = readers.get(v, [])
        if len({n for n, _ in rs}) != len(rs):     # one kernel reads it twice
            return False
        for n, j in rs:
            k = steps[n].kernel
            if ok[n].get(j) not in ("in", "row") or \
                    not _same(S.stream_length(k, j), n_el):
                return False
        if v in produced:
            n = produced[v]
            s = steps[n]
            a = len(s.ins) + s.outs.index(v)
            if ok[n].get(a) != "out" or not _same(S.stream_length(s.kernel, a), n_el):
                return False
        return True

    inputs = [v for v in dict.fromkeys(v for s in steps for v in s.ins) if v not in produced]
    outputs = [v for v in produced if v in live_out]
    grids = dots.grids
    # (a dot's output that no stage of the run reads goes straight to its port, Q
    # outputs a step, not through a writer at one element a step; an engine dot's
    # values are buffers: dot_engine.py)
    on_engine = {v for n in dots.engine for v in (*steps[n].ins, *steps[n].outs)}
    streamed = {v for v in set(inputs) | set(produced) if streams_ok(v) and (
        readers.get(v) or (v in produced and v in live_out and produced[v] not in grids))
        and v not in on_engine}
    while True:
        d = _Layout(prog, steps, kname, produced, readers, inputs, outputs, streamed,
                    onchip_budget, depths or {}, top, grids, dots.engine)
        bad = d.plan_depths()
        if not bad:
            return d.design(top)
        streamed -= bad


def _same(a, b):
    return a == b or sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0


class _Layout:
    """Stages, streams and buffers for one choice of streamed values; renders them."""

    def __init__(self, prog, steps, kname, produced, readers, inputs, outputs, streamed,
                 budget, depth_override, top, grids, engine=()):
        self.prog, self.steps, self.kname = prog, steps, kname
        self.grids = grids     # step -> a dot's PE grid
        self.engine = list(engine)  # the steps the shared dot engine runs, in order
        self.top = top
        self.produced, self.readers = produced, readers
        self.inputs, self.outputs, self.streamed = inputs, outputs, streamed
        self.override = depth_override
        self.stages = []
        self.streams = []
        self.buffers = []
        self.edges = {}        # (value, consumer stage or "sink") -> stream
        self.mem = {}          # value -> C name of its memory (port, buffer, scratch)
        self.ports = []
        for v in inputs:
            self.ports.append((v, "in", prog.values[v].dtype, _elements(prog, v)))
            self.mem[v] = f"p{v}"
        for v in outputs:
            self.ports.append((v, "out", prog.values[v].dtype, _elements(prog, v)))
        used = 0
        for v in produced:
            if v in streamed or v in outputs or not readers.get(v):
                continue
            n_el = _elements(prog, v)
            nbytes = n_el * prog.values[v].dtype.itemsize
            where = "onchip" if _const(nbytes) and used + int(nbytes) <= budget else "dram"
            if where == "onchip":
                used += int(nbytes)
            else:
                self.ports.append((v, "scratch", prog.values[v].dtype, n_el))
            self.buffers.append(Buffer(f"b{v}" if where == "onchip" else f"d{v}", v,
                                       prog.values[v].dtype, n_el, where,
                                       kname[produced[v]],
                                       [kname[n] for n, _ in readers[v]]))
            self.mem[v] = self.buffers[-1].name
        for v in outputs:
            self.mem[v] = f"p{v}"
            if v not in streamed and readers.get(v):   # read back from its port
                self.buffers.append(Buffer(f"p{v}", v, prog.values[v].dtype,
                                           _elements(prog, v), "port",
                                           kname[produced[v]],
                                           [kname[n] for n, _ in readers[v]]))
        self._wire()
        self._assign_lanes()
        self._alias_ports()

    def fn(self, stage):
        """The C function of stage ``stage`` (unique in a translation unit of designs)."""
        return f"{self.top}_{stage}"

    def _stream(self, v, producer, consumer):
        s = Stream(f"s{len(self.streams)}_{v}", v, self.prog.values[v].dtype, 2, producer,
                   consumer, _elements(self.prog, v))
        self.streams.append(s)
        return s

    def _wire(self):
        prog = self.prog
        for v in self.inputs:
            if v in self.streamed:
                rd = f"rd_p{v}"
                self.stages.append(Stage(rd, "read", value=v, length=_elements(prog, v)))
                for n, _ in self.readers[v]:
                    self.edges[(v, self.kname[n])] = self._stream(v, rd, self.kname[n])
        for n, s in enumerate(self.steps):
            self.stages.append(Stage(self.kname[n], "kernel", kernel=s.kernel, reads=tuple(
                v for v in dict.fromkeys(s.ins) if v not in self.streamed),
                grid=self.grids.get(n), ins=tuple(s.ins),
                engine=f"{self.top}_mm_engine" if n in self.engine else None))
            for v in s.outs:
                if v is None or v not in self.streamed:
                    continue
                sinks = [self.kname[m] for m, _ in self.readers.get(v, [])]
                if v in self.outputs:
                    sinks.append(f"wr_p{v}")
                src = self.kname[n]
                if len(sinks) > 1:
                    fk = f"fk_{v}"
                    self.edges[(v, src)] = self._stream(v, src, fk)
                    self.stages.append(Stage(fk, "fork", value=v, length=_elements(prog, v)))
                    src = fk
                for sink in sinks:
                    self.edges[(v, sink)] = self._stream(v, src, sink)
                if v in self.outputs:
                    self.stages.append(Stage(f"wr_p{v}", "write", value=v,
                                             length=_elements(prog, v)))
        # (forks and writers were appended after their producer: a topological order)

    def _alias_ports(self):
        """A port of its own for every stage after the first that reads or writes a
        port's memory (``self.port_of``: (value, stage) -> the port's C name)."""
        self.port_of = {}
        names = {v: (f"p{v}" if role != "scratch" else self.mem[v])
                 for v, role, *_ in self.ports}
        users = {}
        for st in self.stages:
            if st.kind in ("read", "write"):
                touched = [st.value]
            elif st.kind == "kernel":
                n = self.kname.index(st.name)
                s = self.steps[n]
                touched = list(st.reads) + [v for v in s.outs if v is not None and
                                            v not in self.streamed and v in names]
            else:
                touched = []
            for v in dict.fromkeys(touched):
                if v in names:
                    users.setdefault(v, []).append(st.name)
        self.port_names = [names[v] for v, *_ in self.ports]
        user = {names[v]: stages[0] for v, stages in users.items()}
        for v, stages in users.items():
            for r, name in enumerate(stages[1:], 1):
                alias = f"{names[v]}_a{r}"
                self.port_of[(v, name)] = alias
                user[alias] = name
                self.ports.append((v, "alias", self.prog.values[v].dtype,
                                   _elements(self.prog, v)))
                self.port_names.append(alias)
        # a port that only a wide reader/writer touches is a pointer to 512-bit beats
        kind = {st.name: (st.kind, st.lanes) for st in self.stages}
        # (whole beats only: a ragged port is read and written a masked beat a step)
        length = {name: n for name, (_, _, _, n) in zip(self.port_names, self.ports)}
        rows = {st.name: st.row for st in self.stages}
        self.port_lanes = [kind[user[p]][1] if p in user and kind[user[p]][0] in (
            "read", "write") and _whole_beats(length[p], kind[user[p]][1]) and
            rows[user[p]] is None else 1 for p in self.port_names]

    def _assign_lanes(self):
        """Elements a step of each stage: a kernel stage takes ``lanes.kernel_lanes``, a
        reader/writer/fork a 512-bit beat (the last one masked where the length is
        ragged); a stream carries packets of the lanes both its ends agree on (``lanes.arg_lanes``: one
        element for a value stored once per row), else the wider end (and, in turn,
        its other streams) goes back to one element a step."""
        lanes = {}
        for st in self.stages:
            if st.kind == "kernel":
                n = self.kname.index(st.name)
                lanes[st.name] = L.kernel_lanes(st.kernel, self._io(n, self.steps[n]))
            else:       # (any length: a ragged or symbolic one ends in a masked beat)
                lanes[st.name] = L.beat_lanes(self.prog.values[st.value].dtype)
        by_name = {st.name: st for st in self.stages}

        def end(name, v, out):      # the lanes of v's packets at stage ``name``
            st = by_name[name]
            if st.kind != "kernel":
                return lanes[name]
            s = self.steps[self.kname.index(name)]
            arg = len(s.ins) + s.outs.index(v) if out else s.ins.index(v)
            return L.arg_lanes(s.kernel, arg, lanes[name])

        def cut(name):              # a kernel's packet rows (None: the flat run)
            st = by_name[name]
            return L.packet_row(st.kernel, lanes[name]) if st.kind == "kernel" else None

        changed = True
        while changed:
            changed = False
            for s in self.streams:
                p, c = end(s.producer, s.value, True), end(s.consumer, s.value, False)
                if p != c:
                    for name, x in ((s.producer, p), (s.consumer, c)):
                        if x > min(p, c):
                            lanes[name] = 1
                    changed = True
            rows, bad = self._packet_rows(by_name, end, cut)
            for name in bad:        # (ends that cut their packets differently)
                lanes[name] = 1
                changed = True
        for st in self.stages:
            st.lanes = lanes[st.name]
            st.row = rows.get(st.name)
            if st.kind == "kernel":     # (its row passes overlap: row_passes.py)
                n = self.kname.index(st.name)
                st.overlapped = L.overlapped_rows(st.kernel, self._io(n, self.steps[n]),
                                                  st.lanes)
        for s in self.streams:
            s.lanes = end(s.producer, s.value, True)
            s.row = rows.get(s.producer) if s.lanes > 1 else None

    def _packet_rows(self, by_name, end, cut):
        """``({stage: packet row}, {stages to narrow})``. A row-style stage's cut is
        fixed (``lanes.packet_row``); movers and pointwise stages on streams only take
        the cut of the fixed stages their wide streams join (a pointwise stage then
        masks the last step of each row). Where the fixed stages of one joined group
        cut differently, its ragged row stages go back to one lane."""
        def flexible(name):     # (a stage that reads a value a row cuts at its rows)
            st = by_name[name]
            if st.kind != "kernel":
                return True
            n = self.kname.index(name)
            io = self._io(n, self.steps[n])
            rows = S.row_inputs(st.kernel)
            return not st.kernel.reduce_axes and all(
                io.get(i) in ("stream", "discard") for i in range(len(st.kernel.args))) \
                and not any(io.get(a) == "stream" for a in rows)

        group = {name: {name} for name in by_name}      # wide-stream-joined stages
        for s in self.streams:
            if min(end(s.producer, s.value, True), end(s.consumer, s.value, False)) == 1:
                continue
            a, b = group[s.producer], group[s.consumer]
            if a is not b:
                a |= b
                for name in b:
                    group[name] = a
        rows, bad, seen = {}, set(), set()
        for members in group.values():
            if id(members) in seen:
                continue
            seen.add(id(members))
            fixed = {n: cut(n) for n in members if not flexible(n)}
            cuts = set(fixed.values())
            if len(cuts) > 1:
                bad |= {n for n, c in fixed.items() if c is not None}
                continue
            row = next(iter(cuts), None)
            for n in members:
                rows[n] = row
        return rows, bad

    # -- depths ---------------------------------------------------------------------------
    def plan_depths(self):
        """Set every stream's depth (see the module docstring); returns the values whose
        streams would need a symbolic or too deep FIFO (to become buffers), else {}."""
        ready = {}          # stream name -> elements taken in before its first element
        start, done = {}, {}
        by_consumer = {}
        for s in self.streams:
            by_consumer.setdefault(s.consumer, []).append(s)
        buf_of = {b.value: b for b in self.buffers}
        for st in self.stages:
            ins = by_consumer.get(st.name, [])
            t = [ready[s.name] for s in ins]
            if st.kind == "kernel":
                n = self.kname.index(st.name)
                for v in self.steps[n].ins:
                    if v in buf_of:
                        t.append(done[buf_of[v].producer])
                if n in self.engine[1:]:    # (the engine's previous dot finished)
                    t.append(done[self.kname[self.engine[self.engine.index(n) - 1]]])
            begin = _max(t)
            start[st.name] = begin
            lag, run = 0, st.length
            if st.kind == "kernel":
                k = st.kernel
                red = prod(k.shape[a] for a in k.reduce_axes) if k.reduce_axes else 0
                lag, run = red, prod(k.shape)
                if st.overlapped:       # (its passes overlap: several rows in flight)
                    lag = row_lag(k, st.lanes, red)
                elif not k.row_style and k.reduce_axes and self._in_order(st):
                    lag = run           # (render_columns: its kept points at the end)
            # (a stage cannot finish before the producers of its streams: a fork or
            # a pointwise stage after a reduction runs as long as the reduction)
            done[st.name] = _max([begin + run] + [done[s.producer] for s in ins])
            for s in self.streams:
                if s.producer == st.name:
                    ready[s.name] = begin + lag
        bad = set()
        self.bounded = set()    # row symbols whose cap the depths assume (_requires)
        for s in self.streams:
            need = sympy.expand(sympy.sympify(2 + start[s.consumer] - ready[s.name]))
            s.per_row = self._row_input_len(s)
            packets = self._packets(s, need)
            if packets is None:
                bad.add(s.value)
                continue
            depth = self.override.get(s.name, max(2, packets))
            if depth > MAX_STREAM_DEPTH and s.name not in self.override:
                bad.add(s.value)
            s.depth = depth
        return bad

    def _in_order(self, st):
        """Whether accumulate-style stage ``st`` walks its points in row-major order
        (``lanes.render_columns``: W lanes, or streamed inputs), so that its kept
        points come out after its whole run."""
        n = self.kname.index(st.name)
        io = self._io(n, self.steps[n])
        return st.lanes > 1 or any(io.get(i) == "stream" for i, a in
                                   enumerate(st.kernel.args) if a.role == "in")

    def _packets(self, s, need):
        """The packets stream ``s`` must hold for ``need`` elements of lag: a value a row
        counts the rows the consumer lags (at the faster of its producer's pace and the
        consumer's rows), a stream cut per row whole rows of packets; never more than
        its whole run (then it never blocks its producer). Where these depend on one
        symbolic row length n (a row-style stage's, whose rows the design requires to
        be at most ``SYMBOLIC_ROW_CAP``: ``_requires``), the most over n = 1 .. cap;
        None where they depend on another size (the stream becomes a buffer)."""
        pace = self._points_per_element(s) if s.per_row else 0
        exprs = [sympy.sympify(e) for e in (need, s.per_row or 0, pace, s.row or 0)]
        whole = sympy.sympify(s.length)
        free = set().union(*(e.free_symbols for e in exprs))
        if not free:
            return _packets_of(s.lanes, *map(int, exprs), int(whole) if _const(whole)
                               else None)
        sym = next(iter(free))
        if len(free) > 1 or sym not in self._row_symbols():
            return None
        self.bounded.add(sym)
        fn = sympy.lambdify([sym], exprs + [whole if whole.free_symbols <= free else -1],
                            "math")
        most = 0
        for n in range(1, S.SYMBOLIC_ROW_CAP + 1):
            vals = [math.ceil(v) for v in fn(n)]
            most = max(most, _packets_of(s.lanes, *vals[:4], None if vals[4] < 0
                                         else vals[4]))
        return most

    def _row_symbols(self):
        """Size symbols that are a row-style stage's whole row (``streams.row_buffered_len``
        a symbol): at most ``SYMBOLIC_ROW_CAP``, as the design checks."""
        rows = (S.row_buffered_len(s.kernel) for s in self.steps)
        return {r for r in rows if isinstance(r, sympy.Symbol)}

    def _points_per_element(self, s):
        """The fewest points of the design's clock between two elements of stream
        ``s``: its producer's points per element written (a row reduction of N: N), or
        more where the producer reads a slower stream (a pointwise stage after a row
        reduction keeps the reduction's pace); through a fork, its input's pace; a
        reader, a symbolic ratio, or a producer that may write a burst (an accumulate
        style reduction's kept points at its end, a row style one's inner stores after
        its row): 1. (Fewer points: more elements per lag, a deeper stream.)"""
        st = next(t for t in self.stages if t.name == s.producer)
        ins = [t for t in self.streams if t.consumer == st.name]
        if st.kind == "fork":
            return self._points_per_element(ins[0])
        if st.kind != "kernel":
            return 1
        n = self.kname.index(st.name)
        k = self.steps[n].kernel
        j = len(self.steps[n].ins) + self.steps[n].outs.index(s.value)
        out = sympy.sympify(S.stream_length(k, j))
        if k.reduce_axes and (not k.row_style or same(out, prod(k.shape))):
            return 1
        paces = [sympy.sympify(prod(k.shape)) / out]
        for t in ins:       # (t's elements read between two of s's, at t's pace)
            paces.append(self._points_per_element(t) * sympy.sympify(t.length) / out)
        if all(not p.free_symbols for p in paces):
            return max([1] + [int(p) for p in paces])
        return sympy.Max(1, *paces)

    def _row_input_len(self, s):
        """Points a row of the consumer of stream ``s`` where it reads ``s`` once per
        row (``streams.row_inputs``, a concrete row), else None."""
        if s.consumer not in self.kname:
            return None
        n = self.kname.index(s.consumer)
        k = self.steps[n].kernel
        j = self.steps[n].ins.index(s.value)
        row = S.row_inputs(k).get(j) if S.stream_args(k).get(j) == "row" else None
        return int(row) if row is not None and _const(row) else row

    # -- source ---------------------------------------------------------------------------
    def design(self, top):
        symbols = sorted({str(x) for s in self.steps for x in s.kernel.size_symbols} |
                         {str(x) for v, *_ in self.ports for x in
                          sympy.sympify(_elements(self.prog, v)).free_symbols})
        parts = self._engine_tiles()
        for n, s in enumerate(self.steps):
            parts.append(self._kernel_stage(n, s))
        for st in self.stages:
            if st.kind != "kernel":
                parts.append(self._mover(st, symbols))
        decls, body = self._top_body(symbols)
        text = "\n".join([HLS.prelude, '#include "tjit_dataflow.h"'] + parts +
                         self.engine_fns + [self._top(top, symbols, decls, body)]) + "\n"
        return Design(top, text, list(self.ports), tuple(symbols), self.stages,
                      self.streams, self.buffers, list(self.port_names),
                      list(self.port_lanes))

    def _io(self, n, s):
        io = {}
        for j, v in enumerate(s.ins):
            if v in self.streamed:
                io[j] = "stream"
        for j, v in enumerate(s.outs, len(s.ins)):
            if v is None or (v not in self.streamed and v not in self.mem):
                io[j] = "discard"
            elif v in self.streamed:
                io[j] = "stream"
        return io

    def _kernel_stage(self, n, s):
        self.srcs = getattr(self, "srcs", {})
        lanes = next(st.lanes for st in self.stages if st.name == self.kname[n])
        row = next(st.row for st in self.stages if st.name == self.kname[n])
        st = next(st for st in self.stages if st.name == self.kname[n])
        slack = row_slack(s.kernel, lanes) if st.overlapped else None
        src = render(s.kernel, HLS, self.fn(self.kname[n]), io=self._io(n, s), top=False,
                     lanes=lanes, packet_row=row if not s.kernel.reduce_axes else None,
                     row_slack=slack,
                     dot_grid=self.grids.get(n) if n not in self.engine else
                     tiled_dot.EngineGrid(self.grids[n], *self.engine_arrays))
        self.srcs[n] = src
        if n in self.engine:    # (its loops become the engine's: one set of PEs)
            head = f"void {src.entry}("
            at = src.body.index("{\n", src.body.index(head)) + 2
            return src.body[:at] + "#pragma HLS INLINE\n" + src.body[at:]
        return src.body

    def _mover(self, st, symbols):
        """A read, write or fork stage's function."""
        dt = self.prog.values[st.value].dtype
        t = HLS.mem_type(dt)
        w = st.lanes
        pt = L.packet_type(HLS, dt, w)      # a stream's element: T or W lanes of T
        sizes = Sizes(symbols, "int64_t", lambda: "tj_floordiv")
        n = sizes(st.length)
        outs = [s for s in self.streams if s.producer == st.name]
        ins = [s for s in self.streams if s.consumer == st.name]
        # (as port_lanes: whole beats of an uncut run, else a pointer to T, the last
        # beat of the run or of each cut row masked)
        whole = _whole_beats(st.length, w) and st.row is None
        mt = pt if whole else t                 # the port's element
        args = ([f"const {mt} *__restrict src"] if st.kind == "read" else
                [f"hls::stream<{pt}> &{ins[0].name}"])
        args += [f"hls::stream<{pt}> &{s.name}" for s in outs]
        if st.kind == "write":
            args.append(f"{mt} *__restrict dst")
        args += [f"int64_t {param_name(x)}" for x in symbols]
        at, end = ("i", n) if st.row is None else ("b + j", f"b + {sizes(st.row)}")

        def masked(access):     # the lanes of a beat inside the length (or the row)
            return (f"        for (int ln = 0; ln < {w}; ln++) {{\n#pragma HLS UNROLL\n"
                    f"            if ({at} + ln < {end}) {access};\n        }}")
        if w == 1:
            get = "src[i]" if st.kind == "read" else f"{ins[0].name}.read()"
            body = [f"        const {t} v = {get};"]
        elif st.kind == "read" and whole:     # one 512-bit beat: W contiguous elements
            body = [f"        const {pt} v = src[i / {w}];"]
        elif st.kind == "read":
            body = [f"        {pt} v{{}};", masked(f"v[ln] = src[{at} + ln]")]
        else:
            body = [f"        const {pt} v = {ins[0].name}.read();"]
        body += [f"        {s.name}.write(v);" for s in outs]
        if st.kind == "write":
            body.append("        dst[i] = v;" if w == 1 else f"        dst[i / {w}] = v;"
                        if whole else masked(f"dst[{at} + ln] = v[ln]"))
        lines = [f"static void {self.fn(st.name)}({', '.join(args)}) {{"]
        lines += ["    " + d for d in sizes.decls()]
        steps = mover_steps(st)
        if st.row is None:
            lines += [f"    for (int64_t i = 0; i < {n}; i += {w}) {{"]
        else:   # one flat loop over the rows' packets: row b's element b + j
            row = sizes(st.row)
            lines += ["    int64_t j = 0;", f"    for (int64_t b = 0; b < {n}; ) {{"]
            body += [f"        j += {w};", f"        if (j >= {row}) {{ j = 0; b += {row}; }}"]
        lines.append("#pragma HLS PIPELINE II=1")
        if not isinstance(st.length, (int, np.integer)):
            h = max(1, trip_hint(steps))
            lines.append(f"#pragma HLS LOOP_TRIPCOUNT min=1 max={h} avg={h}")
        lines += body + ["    }", "}"]
        text = "\n".join(lines)
        if "tj_floordiv" in text:     # (value sizes are products of symbols and ints)
            raise NotImplementedError(f"hls design: a floor division in the size of "
                                      f"value {st.value}")
        return text

    def _top_body(self, symbols):
        decls = []
        for s in self.streams:
            t = L.packet_type(HLS, s.dtype, s.lanes)
            decls.append(f"hls::stream<{t}, {s.depth}> {s.name}(\"{s.name}\");")
            decls.append(f"#pragma HLS STREAM variable={s.name} depth={s.depth}")
        tokens = {}
        for b in self.buffers:
            if b.where == "onchip":
                decls.append(f"TJ_BUFFER({HLS.mem_type(b.dtype)}, {b.name}, {b.length});")
                w = max(st.lanes for st in self.stages if st.name in [b.producer, *b.consumers])
                if w > 1:       # (a wide stage takes W elements of it a cycle)
                    decls.append(f"#pragma HLS ARRAY_PARTITION variable={b.name} cyclic "
                                 f"factor={w}")
            for c in b.consumers:
                name = f"t_{b.name}_{c}"
                tokens.setdefault(b.producer, []).append(name)
                tokens.setdefault(("wait", c), []).append(name)
                decls.append(f"hls::stream<bool, 1> {name}(\"{name}\");")
        sizes = ", ".join(param_name(x) for x in symbols)
        body = []
        self.engine_fns = []
        for st in self.stages:
            if st.kind == "kernel" and st.engine is not None:
                if self.kname.index(st.name) != self.engine[0]:
                    continue        # (run by the engine's stage)
                fn, call = self._engine(st.engine, tokens)
                self.engine_fns.append(fn)
                body.append(f'TJ_STAGE("{st.engine}", {call});')
                continue
            if st.kind == "kernel":
                n = self.kname.index(st.name)
                call = self._kernel_call(n, tokens)
            else:
                port = self.port_of.get((st.value, st.name), f"p{st.value}")
                args = [port] if st.kind == "read" else \
                    [next(s.name for s in self.streams if s.consumer == st.name)]
                args += [s.name for s in self.streams if s.producer == st.name]
                if st.kind == "write":
                    args.append(port)
                call = f"{self.fn(st.name)}({', '.join(args + ([sizes] if sizes else []))})"
            body.append(f'TJ_STAGE("{st.name}", {call});')
        self.tokens = tokens
        return decls, body

    def _kernel_call(self, n, tokens):
        src, name = self.srcs[n], self.kname[n]
        call = f"{src.entry}({', '.join(self._kernel_args(n))})"
        waits = tokens.get(("wait", name), [])
        posts = tokens.get(name, [])
        if not waits and not posts:
            return call
        pre = "".join(f"{t}.read(); " for t in waits)
        post = "".join(f" {t}.write(true);" for t in posts)
        return f"{{ {pre}{call};{post} }}"

    def _kernel_args(self, n):
        """The C names step ``n``'s stage function is called with."""
        s, src = self.steps[n], self.srcs[n]
        name = self.kname[n]
        args = []
        for p in src.params:
            if p.kind == "size":
                args.append(p.name)
                continue
            j = int(p.name[1:])
            v = s.ins[j] if j < len(s.ins) else s.outs[j - len(s.ins)]
            if p.kind == "stream":
                args.append(self.edges[(v, name)].name if j < len(s.ins) else
                            self._out_stream(v, name))
            else:
                args.append(self.port_of.get((v, name), self.mem[v]))
        return args

    def _engine_tiles(self):
        """The engine's A tile and accumulators (``tiled_dot.EngineGrid``): one pair of
        arrays at file scope, as large as its largest dot needs along each axis (a
        dot uses its corner), partitioned for its widest dot (``self.engine_pragmas``,
        in the engine's function). Returns their declarations ([] without an engine)."""
        self.engine_arrays, self.engine_pragmas = None, []
        if not self.engine:
            return []
        plans = []
        for n in self.engine:
            k = self.steps[n].kernel
            plans.append(tiled_dot.match(k, plan_axes(k), grid=self.grids[n]))
        at, acc = f"{self.top}_at", f"{self.top}_acc"
        self.engine_arrays = (at, acc)
        t = HLS.type(np.dtype(self.steps[self.engine[0]].kernel.stages[0].dtype))
        tm, kk, cols, widest = engine_tiles(plans)
        self.engine_pragmas = tiled_dot.tile_pragmas(widest, at, acc)
        return ["// the dot engine's A tile and accumulators (fpga/dot_engine.py); in tjit's",
                "// C simulation each call's engine thread has its own (calls may overlap)",
                "#ifndef TJ_ENGINE_TILE",
                "#if !defined(__SYNTHESIS__) && defined(TJIT_SIM_HLS_STREAM_H)",
                "#define TJ_ENGINE_TILE static thread_local",
                "#else", "#define TJ_ENGINE_TILE static", "#endif", "#endif",
                f"TJ_ENGINE_TILE {t} {at}[{tm}][{kk}];",
                f"TJ_ENGINE_TILE {t} {acc}[{tm}][{cols}];"]

    def _engine(self, name, tokens):
        """The shared dot engine's function (``dot_engine.py``): its dots in order,
        each waiting for its input buffers' tokens and posting its outputs'; the
        multipliers and adders limited to one grid's (and the largest epilogue's).
        Returns (its text, the top's call)."""
        params, written = {}, set()     # C name -> its declaration; memory written
        for n in self.engine:
            src = self.srcs[n]
            waits, posts = tokens.get(("wait", self.kname[n]), []), tokens.get(self.kname[n], [])
            for t in waits + posts:
                params[t] = f"hls::stream<bool> &{t}"
            for p, a in zip(src.params, self._kernel_args(n)):
                if p.kind == "size":
                    params[a] = f"int64_t {a}"
                elif p.kind == "stream":    # (none: dot_engine.py)
                    raise ValueError(f"dot engine {name}: stream {a} at an engine dot")
                else:
                    written |= {a} if p.role != "in" else set()
                    params[a] = (p.dtype, a)
        for a, decl in params.items():
            if isinstance(decl, tuple):
                const = "" if a in written else "const "
                params[a] = f"{const}{HLS.mem_type(decl[0])} *{a}"
        calls = [self._kernel_call(n, tokens) for n in self.engine]
        p, q = self.grids[self.engine[0]]
        dt = np.dtype(self.steps[self.engine[0]].kernel.stages[0].dtype)
        epi = max(sum(1 for _ in self.steps[n].kernel.stores) for n in self.engine)
        limit = p * q + epi * q     # (the grid's, and an epilogue's Q lanes)
        ops = ("fmul", "fadd") if dt.kind == "f" else ("mul", "add")
        lines = [f"static void {name}({', '.join(params.values())}) {{",
                 (f"    // one {p}x{q} grid of multiply-add PEs runs the design's "
                  f"{len(self.engine)} dots in order (fpga/dot_engine.py)")]
        lines += [f"#pragma HLS ALLOCATION operation instances={op} limit={limit}"
                  for op in ops]
        lines += self.engine_pragmas
        lines += [f"    {c};" for c in calls] + ["}"]
        return "\n".join(lines), f"{name}({', '.join(params)})"

    def _requires(self, symbols):
        """``TJ_REQUIRE`` lines: a row-style stage that buffers a symbolic row needs
        rows of at most ``streams.SYMBOLIC_ROW_CAP`` elements."""
        sizes = Sizes(symbols, "int64_t", lambda: "tj_floordiv")
        checks = []
        for n, s in enumerate(self.steps):
            row = S.row_buffered_len(s.kernel)
            streamed = any(h == "stream" and s.kernel.args[a].role == "in"
                           for a, h in self._io(n, s).items())
            if row is None or _const(row) or not streamed:
                continue
            cap = S.SYMBOLIC_ROW_CAP
            msg = (f"stage {self.kname[n]}: its rows of {row} elements must be at most "
                   f"{cap} (the row buffer of a symbolic row, lower/c/streams.py "
                   "SYMBOLIC_ROW_CAP): jit it without polymorphic_shapes for rows this long")
            checks.append((sizes(row), msg))
        for x in sorted(getattr(self, "bounded", ()), key=str):
            msg = (f"rows of {x} elements must be at most {S.SYMBOLIC_ROW_CAP} (the "
                   "design's stream depths hold rows up to lower/c/streams.py "
                   "SYMBOLIC_ROW_CAP): jit it without polymorphic_shapes for rows this long")
            checks.append((sizes(x), msg))
        return sizes.decls() + [f'TJ_REQUIRE({c} <= {S.SYMBOLIC_ROW_CAP}, "{m}");'
                                for c, m in checks]

    def _out_stream(self, v, producer):
        return next(s.name for s in self.streams if s.value == v and s.producer == producer)

    def _top(self, top, symbols, decls, body):
        params, pragmas = [], []
        for n, ((v, role, dt, _), name) in enumerate(zip(self.ports, self.port_names)):
            t = L.packet_type(HLS, dt, self.port_lanes[n])
            const = role == "in" or (role == "alias" and v in self.inputs)
            params.append(f"{'const ' if const else ''}{t} *{name}")
            pragmas.append(f"#pragma HLS INTERFACE m_axi port={name} bundle=gmem{n} "
                           "offset=slave max_widen_bitwidth=512")
        for x in symbols:
            params.append(f"int64_t {param_name(x)}")
            pragmas.append(f"#pragma HLS INTERFACE s_axilite port={param_name(x)}")
        pragmas.append("#pragma HLS INTERFACE s_axilite port=return")
        lines = [f'extern "C" void {top}({", ".join(params)}) {{'] + pragmas
        lines += ["    " + r for r in self._requires(symbols)]
        lines += ["#pragma HLS DATAFLOW", f'    TJ_REGION("{top}");']
        lines += ["    " + d if not d.startswith("#") else d for d in decls]
        lines += ["    " + b for b in body] + ["    TJ_END();", "}"]
        return "\n".join(lines)


def mover_steps(st):
    """Pipelined steps of a read/write/fork stage: a beat of ``st.lanes`` elements a
    step, ``ceil(length / lanes)``, or per row ``ceil(row / lanes)`` where its packets
    cut rows (``Stage.row``)."""
    if st.row is None:
        return ceil_div(st.length, st.lanes)
    rows = sympy.sympify(st.length) / st.row
    rows = int(rows) if rows.is_Integer else rows
    return rows * ceil_div(st.row, st.lanes)


def _packets_of(lanes, need, per_row, pace, row, whole):
    """``_Layout._packets`` at concrete sizes (``per_row``/``row`` 0: none; ``whole``:
    the run's elements, or None)."""
    if per_row:
        step = min(per_row, pace)
        packets = 2 + -(-need // step) if step else 2
    elif not row:
        packets = -(-need // lanes)
    else:               # (whole rows of packets)
        packets = -(-need // row) * -(-row // lanes)
    if whole is not None:
        whole = -(-whole // lanes) if not row else -(-whole // row) * -(-row // lanes)
        packets = min(packets, whole)
    return packets


def _whole_beats(length, w):
    """Whether ``length`` elements are whole beats of ``w``: a concrete multiple."""
    return isinstance(length, (int, np.integer)) and length % w == 0


def _max(xs):
    xs = [x for x in xs]
    if not xs:
        return 0
    if all(isinstance(x, (int, np.integer)) for x in xs):
        return max(xs)
    return sympy.Max(*xs)
