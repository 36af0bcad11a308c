"""Resource and latency estimate of dataflow designs on an UltraScale+ card.

:func:`report` gives, per stage of each design (``design.py``): its trip count (the
points its innermost pipelined loops visit), initiation interval (II: 1, every
innermost loop is pipelined and reductions use interleaved partials), pipeline depth
(the longest chain of operator latencies in its loop body, from ``op_costs.COSTS``,
plus a cycle to read and one to write), cycles, and DSP/BRAM/LUT/FF; and per design:

* **latency**: stages overlap (DATAFLOW). A stage starts when its inputs have their
  first elements: a stream after its producer's start + the data it holds back (a row
  for a row-style stage) + its pipeline depth; a buffer after its producer has
  finished. A stage finishes at its start + cycles, and no earlier than the producers
  of its streams. The design's latency is the latest finish;
* **card bound**: the bytes the design moves through DRAM (each port read once per
  stage that reads it, outputs and DRAM intermediates written once) over the card's
  total bandwidth (``op_costs.PARTS``: U280 HBM2 460 GB/s, U250 DDR4 77 GB/s);
* **port bound**: one m_axi port moves at most one 512-bit beat (``PORT_BYTES`` = 64
  B) a kernel clock: 19.2 GB/s at 300 MHz, far below the card's total (a U280 needs
  24 ports busy at once to reach its 460 GB/s; each of its 32 HBM pseudo-channels
  gives ~14.4 GB/s). Every stage that touches a value's memory has a port of its own
  (``design.py``), so each port moves that value's bytes once; the ports run at
  once, and the busiest port's bytes / (64 B x clock) bound the design;
* which of the three **binds** (the largest time: pipeline latency, the busiest
  port, or the card's bandwidth) at ``clock_mhz``, and a warning (``ResourceWarning``
  and in the text) when the designs exceed the part's resources.

Cycle counts of one stage: pointwise ``trip + depth``, where a W-lane stage
(``lower/c/lanes.py``: 16 float32 or 8 float64 points a step) has trip = ceil(points / W)
(the masked last step of a ragged count included) and
W copies of its operators, and a reader/writer/fork moving 512-bit beats likewise
(W times its LUT/FF); a W-lane row-style stage is one loop of ``ceil(N / W)`` steps a
row whose passes (stage levels, store pass) overlap on different rows
(``row_passes.py``): ``rows x S + delay_last + ready_last`` cycles, each level with a
pairwise tree of W - 1 combines (log2 W levels of latency) before its accumulator; a
one-lane row-style stage, per outer
point, a row read into its buffer (``N + 2``), then per stage level ``N + depth +
fold`` (fold: the partials' pairwise tree, 3 levels of the combine's latency) and the
store pass ``N + depth``; accumulate style per kept point ``R + depth + fold``, or
at W lanes (``lanes.render_columns``: the reduced axes lead, K kept points on chip)
``K / W`` steps to reset, ``points / W`` steps at II ``ceil(latency / (K / W))`` (a
kept point's accumulator comes back every ``K / W`` steps) and ``K / W`` to store.
Resources: each pass instantiates the operators of its loop body (a pipelined loop
does not share them), plus per m_axi port an AXI adapter (2 BRAM18K, 1200 LUT, 1800
FF), FIFOs deeper than 32 in BRAM18K, row buffers in BRAM18K (2304 bytes each),
on-chip buffers (ping-pong: twice) in BRAM18K, or in URAM288 (36 KiB each) from 64
KiB up. Symbolic sizes take ``sizes`` or ``TRIPCOUNT_HINT``.

**Dots** (the P x Q grid of ``lower/c/tiled_dot.py``), per batch point and tile of
``TM = P RM`` rows (``tiles = ceil(M / TM)``):

* cycles = tiles x (load + K NC RM x II + depth + epilogue): A's tile ``TM K / WA``
  steps (+ 2), the grid's ``K NC RM`` steps (II = 1, or ``ceil(Q / (RM x b_lanes))``
  when B's port cannot give Q values every RM steps: B not contiguous along n; where B
  is contiguous along k its panels are staged instead: II = 1, and the load adds per
  column group ``Q K / b_panel`` steps (+ 2) and a pipeline's depth), depth
  = mul + add latency + 2, the epilogue ``TM NC`` steps of Q outputs (II = Q when its
  output is a one-element stream, else ``ceil(Q / W)``: a port's beat) + its stores'
  latency + 2;
* DSP = P Q x (mul + add DSPs of the dtype) + the stores' operators x Q (unrolled);
  the A tile in ``P x WA`` banks, each in URAM288 (36 KiB) where it fills at least
  half of one, else in BRAM18K (2304 B); each PE's ``RM NC`` accumulators in LUTRAM
  up to ``LUTRAM_MAX`` bytes (a LUT a 64 bits), else BRAM18K;
* B is read once per tile: its port and the card move its bytes ``tiles`` times;
* a **shared engine** (``dot_engine.py``: one grid runs the design's dots in order):
  each of its dots takes the cycles above at the engine's grid, and starts no earlier
  than the engine's previous dot finishes (the sequencing); the engine's DSP, LUT and
  FF are its largest dot's (one grid of PEs and one epilogue's operators, shared),
  its A tile and accumulators one pair for all its dots, as large as its largest dot
  needs along each axis (``dot_engine.engine_tiles``).
"""

import dataclasses
import math
import warnings

import numpy as np

from tjit._sympy import sympy
from tjit.fpga.design import mover_steps
from tjit.fpga.dot_engine import engine_tiles
from tjit.fpga.op_costs import PARTS, cost
from tjit.fpga.op_costs import combine_cost as _combine
from tjit.fpga.op_costs import path_cost as _body
from tjit.fpga.row_passes import level_pass, row_passes
from tjit.lower.c import lanes as L
from tjit.lower.c import streams as S
from tjit.lower.c import tiled_dot
from tjit.lower.c.hls_dialect import TRIPCOUNT_HINT
from tjit.lower.loops import plan_axes

__all__ = ["DesignEstimate", "Report", "StageEstimate", "report", "stage_estimate"]

BRAM_BYTES = 2304           # one BRAM18K
URAM_BYTES = 36864          # one URAM288 (UltraRAM)
URAM_MIN = 1 << 16          # on-chip buffers of at least this many bytes go to URAM
AXI_PORT = (2, 1200, 1800)  # BRAM18K, LUT, FF of one m_axi adapter with burst buffers
SRL_FIFO_MAX = 32           # FIFOs up to this depth are shift registers (LUTs)
LUTRAM_MAX = 1024           # a dot PE's accumulators up to these bytes are LUTRAM
PORT_BYTES = 64             # one 512-bit m_axi beat a kernel clock: a port's peak


@dataclasses.dataclass
class StageEstimate:
    name: str
    kind: str
    trip: int
    ii: int
    depth: int
    cycles: int
    dsp: int = 0
    bram: int = 0
    lut: int = 0
    ff: int = 0
    hold: int = 0           # steps it takes in before its first output (a row)
    uram: int = 0


@dataclasses.dataclass
class DesignEstimate:
    name: str
    stages: list
    streams: int
    latency_cycles: int
    dram_bytes: int
    dsp: int
    bram: int
    lut: int
    ff: int
    compute_s: float
    memory_s: float
    uram: int = 0
    port_s: float = 0.0     # the busiest m_axi port's bytes / (PORT_BYTES x clock)
    port_bytes: int = 0     # the bytes through that port
    port: str = ""          # its C name

    @property
    def binds(self):
        """Which bound is the largest: "pipeline latency", "m_axi port <name>" or
        "memory bandwidth" (the card's total)."""
        bounds = [(self.compute_s, "pipeline latency"),
                  (self.port_s, f"m_axi port {self.port}"),
                  (self.memory_s, "memory bandwidth")]
        return max(bounds, key=lambda b: b[0])[1]

    @property
    def time_s(self):
        return max(self.compute_s, self.port_s, self.memory_s)


@dataclasses.dataclass
class Report:
    part: object
    clock_mhz: float
    designs: list
    warnings: list
    cpu_ms: float = None
    gpu_ms: float = None
    gpu_note: str = ""

    @property
    def totals(self):
        return {r: sum(getattr(d, r) for d in self.designs)
                for r in ("dsp", "bram", "uram", "lut", "ff")}

    @property
    def time_s(self):
        return sum(d.time_s for d in self.designs)

    def __str__(self):
        p = self.part
        lines = [(f"HLS estimate for {p.name} ({p.device}, {p.memory} {p.mem_gbs:g} "
                  f"GB/s) at {self.clock_mhz:g} MHz")]
        for d in self.designs:
            lines.append(f"design {d.name}: {len(d.stages)} stages, {d.streams} streams")
            lines.append(f"  {'stage':28s} {'trip':>9s} {'II':>3s} {'depth':>5s} "
                         f"{'cycles':>10s} {'DSP':>5s} {'BRAM':>5s} {'LUT':>7s} {'FF':>7s}")
            for s in d.stages:
                lines.append(f"  {s.name[:28]:28s} {s.trip:9d} {s.ii:3d} {s.depth:5d} "
                             f"{s.cycles:10d} {s.dsp:5d} {s.bram:5d} {s.lut:7d} {s.ff:7d}")
            lines.append(f"  latency {d.latency_cycles} cycles = {d.compute_s * 1e6:.2f} us; "
                         f"DRAM {d.dram_bytes} bytes = {d.memory_s * 1e6:.2f} us at "
                         f"{p.mem_gbs:g} GB/s; busiest port {d.port or '-'} "
                         f"{d.port_bytes} bytes = {d.port_s * 1e6:.2f} us at "
                         f"{PORT_BYTES * self.clock_mhz / 1e3:g} GB/s; "
                         f"binds: {d.binds}; DSP {d.dsp}, BRAM18K "
                         f"{d.bram}, URAM {d.uram}, LUT {d.lut}, FF {d.ff}")
        t = self.totals
        lines.append(f"total: {self.time_s * 1e3:.4f} ms; DSP {t['dsp']}/{p.dsp}, BRAM18K "
                     f"{t['bram']}/{p.bram18k}, URAM {t['uram']}/{p.uram}, LUT "
                     f"{t['lut']}/{p.lut}, FF {t['ff']}/{p.ff}")
        if self.cpu_ms is not None:
            lines.append(f"beside: tjit CPU (measured) {self.cpu_ms:.4f} ms")
        if self.gpu_ms is not None:
            lines.append(f"beside: GPU {self.gpu_ms:.4f} ms {self.gpu_note}".rstrip())
        lines += [f"WARNING: {w}" for w in self.warnings]
        return "\n".join(lines)


def _n(x, env):
    if isinstance(x, (int, np.integer)):
        return int(x)
    e = sympy.sympify(x)
    return int(e.subs({s: env.get(str(s), TRIPCOUNT_HINT) for s in e.free_symbols}))


def _prod(xs, env):
    out = 1
    for x in xs:
        out *= _n(x, env)
    return out


def stage_estimate(kernel, name, env=None, streamed_inputs=None, lanes=1, row=None,
                   grid=None, streamed_out=False, overlapped=None):
    """The :class:`StageEstimate` of one kernel stage (see the module docstring);
    ``streamed_inputs``: how many of its inputs are streams (row buffers; None: all);
    ``lanes``: points a step (``lower/c/lanes.py``; its operators replicated per lane);
    ``row``: a pointwise stage's packets cut rows of this many points (``Stage.row``);
    ``grid``: a dot's PE grid (``Stage.grid``); ``streamed_out``: it writes a stream;
    ``overlapped``: a row stage whose passes overlap (``Stage.overlapped``; None: one
    of W lanes)."""
    env = env or {}
    k = kernel
    io = 2                              # a cycle to read, one to write
    if not k.reduce_axes:
        points = _prod(k.shape, env)    # (a masked last step, of the run or a row, counts)
        cut = None if row is None else _n(row, env)
        trip = -(-points // lanes) if not cut else points // cut * -(-cut // lanes)
        lat, dsp, lut, ff = _body([st.expr for st in k.stores] + [s.expr for s in k.stages])
        depth = lat + io
        return StageEstimate(name, "kernel", trip, 1, depth, trip + depth, dsp * lanes, 0,
                             lut * lanes, ff * lanes)
    red = _prod([k.shape[a] for a in k.reduce_axes], env)
    outer = _prod([k.shape[a] for a in range(len(k.shape)) if a not in k.reduce_axes], env)
    dot = tiled_dot.match(k, plan_axes(k), grid=grid)
    if dot is not None:
        return _tiled_dot(k, dot, name, outer, io, streamed_out)
    if not k.row_style and lanes > 1:
        return _wide_columns(k, name, env, lanes, io)
    if overlapped or overlapped is None and lanes > 1 and k.row_style:
        return _overlapped_rows(k, name, red, outer, lanes, streamed_inputs != 0)
    steps = red                         # (one lane: one point a step)
    per, bram = 0, 0
    row = S.row_capacity(k)
    n_in = sum(1 for a in k.args if a.role == "in") if streamed_inputs is None \
        else streamed_inputs
    if row is not None and n_in:        # a row buffer per streamed input, filled by
        per += steps + io               # a pass of its own
        bram += n_in * math.ceil(row * 4 / BRAM_BYTES)
    passes = row_passes(k, 1) if k.row_style else \
        [level_pass(k, tuple(range(len(k.stages))), 1)]   # (accumulate: one level)
    per += sum(steps + p.ready for p in passes)     # (the passes one after another)
    return StageEstimate(name, "kernel", outer * steps, 1, max(p.depth for p in passes),
                         outer * per, sum(p.dsp for p in passes), bram,
                         sum(p.lut for p in passes), sum(p.ff for p in passes), hold=steps)


def _overlapped_rows(k, name, red, outer, w, streamed):
    """``lanes.render_rows``: one loop at II=1 of ``outer * S`` steps (S = ceil(N / W),
    at least 1) whose passes overlap, pass p ``delay_p`` steps behind the first
    (``row_passes.py``): ``outer * S + delay_last + ready_last`` cycles; each pass's
    operators; a delay line (W banks of BRAM18K) into each later pass for each
    streamed input a pass from there on reads, of ``S_max + slack + 1`` packets
    (``S_max``: a symbolic row's ``SYMBOLIC_ROW_CAP``)."""
    passes = row_passes(k, w)
    steps = max(-(-red // w), 1)
    slack = [p.ready for p in passes[:-1]]
    delay = (len(passes) - 1) * steps + sum(slack)
    bram = 0
    if streamed and len(passes) > 1:
        longest = -(-S.row_capacity(k) // w)
        ins = [a for a, how in S.stream_args(k).items() if how == "in"]
        for a in ins:
            last = max([p for p in range(len(passes)) if a in L.pass_loads(k, p)],
                       default=0)
            for p in range(1, last + 1):
                nbytes = (longest + slack[p - 1] + 1) * w * np.dtype(k.args[a].dtype).itemsize
                bram += max(w, math.ceil(nbytes / BRAM_BYTES))
    last_level = passes[-1].stages is not None
    return StageEstimate(name, "kernel", outer * steps, 1, max(p.depth for p in passes),
                         outer * steps + delay + passes[-1].ready,
                         sum(p.dsp for p in passes), bram, sum(p.lut for p in passes),
                         sum(p.ff for p in passes), hold=delay + steps * last_level)


def _wide_columns(k, name, env, w, io):
    """``lanes.render_columns``: the accumulators' reset (``K / W`` steps), one
    pipelined pass of ``points / W`` steps whose II is 1 when a kept point's
    accumulator comes back (every ``K / W`` steps) after the combine's latency, and the
    store pass (``K / W``); accumulator arrays in W banks."""
    nk = _prod([k.shape[a] for a in range(len(k.shape)) if a not in k.reduce_axes], env)
    steps = -(-_prod(k.shape, env) // w)
    lat, d_, l_, f_ = _body([s.expr for s in k.stages])
    comb = [_combine(s.monoid, s.dtype) for s in k.stages]
    clat = max((c.latency for c in comb), default=1)
    ii = max(1, math.ceil(clat / max(1, nk // w)))
    slat, sd, sl, sf = _body([st.expr for st in k.stores])
    depth = lat + clat + io
    cycles = (nk // w + io) + (steps * ii + depth) + (nk // w + slat + io)
    bram = sum(max(w, math.ceil(nk * np.dtype(s.dtype).itemsize / BRAM_BYTES))
               for s in k.stages)
    return StageEstimate(name, "kernel", steps, ii, depth, cycles,
                         (d_ + sum(c.dsp for c in comb) + sd) * w, bram,
                         (l_ + sum(c.lut for c in comb) + sl) * w,
                         (f_ + sum(c.ff for c in comb) + sf) * w, hold=steps + nk // w)


def _tiled_dot(k, dp, name, outer, io, streamed_out=False):
    """The PE grid of ``lower/c/tiled_dot.py`` (module docstring: "Dots"), per batch
    point and tile of ``TM`` rows."""
    st = k.stages[0]
    dt = np.dtype(st.dtype)
    mul, add = cost("mul", dt), cost("add", dt)
    w = max(1, tiled_dot.PORT_BYTES // dt.itemsize)
    tiles = dp.tiles * (outer // (dp.m * dp.n))
    load = (dp.tm * -(-dp.k // dp.wa) if dp.a_along == "k" else
            dp.k * -(-dp.tm // dp.wa)) + io
    steps = dp.k * dp.nc * dp.rm
    ii = max(1, -(-dp.q // (dp.rm * dp.b_lanes)))    # (B's port: Q values every RM steps)
    depth = mul.latency + add.latency + io
    if dp.b_panel:      # (B staged per column group: its panels, then II = 1)
        ii = 1
        load += dp.nc * (dp.q * -(-dp.k // dp.b_panel) + io + depth)
    lat, d_, l_, f_ = _body([s.expr for s in k.stores])
    epi_ii = dp.q if streamed_out else -(-dp.q // w)  # (Q outputs a step: a port's beat)
    epilogue = dp.tm * dp.nc * epi_ii + lat + io
    pes = dp.p * dp.q
    bram, uram, acc_lut = _tile_memory(dp, dt, dp.tm, dp.k, dp.nc * dp.q)
    return StageEstimate(name, "kernel", tiles * steps, ii, depth,
                         tiles * (load + steps * ii + depth + epilogue),
                         pes * (mul.dsp + add.dsp) + d_ * dp.q, bram,
                         pes * (mul.lut + add.lut) + l_ * dp.q + acc_lut,
                         pes * (mul.ff + add.ff) + f_ * dp.q, hold=load + steps * ii,
                         uram=uram)


def _tile_memory(dp, dt, tm, k, cols):
    """``(BRAM18K, URAM, LUT)`` of a grid's A tile ``[tm][k]`` and accumulators
    ``[tm][cols]`` partitioned as ``dp`` says (``tiled_dot.tile_pragmas``): each PE's
    accumulators in LUTRAM up to ``LUTRAM_MAX`` bytes, else BRAM18K; the A tile's
    banks (P x WA) each in URAM288 where a bank fills at least half of one, else in
    BRAM18K (a bank of a few KiB in a 36 KiB URAM wastes it)."""
    pes = dp.p * dp.q
    bank = -(-tm // dp.p) * -(-cols // dp.q) * dt.itemsize   # one PE's accumulators
    acc_bram = pes * math.ceil(bank / BRAM_BYTES) if bank > LUTRAM_MAX else 0
    acc_lut = pes * math.ceil(bank * 8 / 64) if bank <= LUTRAM_MAX else 0
    banks = dp.p * (dp.wa if dp.a_along == "k" else 1)
    per_bank = -(-tm * k * dt.itemsize // banks)
    if 2 * per_bank >= URAM_BYTES:
        return acc_bram, banks * math.ceil(per_bank / URAM_BYTES), acc_lut
    return acc_bram + banks * math.ceil(per_bank / BRAM_BYTES), 0, acc_lut


def dot_rereads(st):
    """``{value: times}``: the input values a dot stage (``design.Stage``) reads more
    than once (B, once per tile of ``TM`` rows)."""
    if st.kind != "kernel" or not st.kernel.reduce_axes or not st.ins:
        return {}
    dp = tiled_dot.match(st.kernel, plan_axes(st.kernel), grid=st.grid)
    if dp is None or dp.tiles < 2:
        return {}
    return {st.ins[dp.b_arg]: dp.tiles}


def _mover(st, env):
    n = _n(mover_steps(st), env)    # a beat of ``lanes`` elements a step, the last (of
    #                                 the run or of each row: ragged) one masked
    return StageEstimate(st.name, st.kind, n, 1, 3, n + 3, 0, 0, 60 * st.lanes,
                         90 * st.lanes)


def _engine_shared(d, ests):
    """``{"dsp", "lut", "ff", "bram", "uram": n}``: what the dots of a shared engine
    (``dot_engine.py``) count too often when summed: one grid of PEs and one
    epilogue's operators serve them all (``ALLOCATION``), so an engine counts its
    largest dot's DSP/LUT/FF, and one A tile and accumulators
    (``dot_engine.engine_tiles``) instead of one per dot."""
    out = {"dsp": 0, "lut": 0, "ff": 0, "bram": 0, "uram": 0}
    groups = {}
    for st, e in zip(d.stages, ests):
        if getattr(st, "engine", None) is not None:
            groups.setdefault(st.engine, []).append((st, e))
    for pairs in groups.values():
        plans = [tiled_dot.match(st.kernel, plan_axes(st.kernel), grid=st.grid)
                 for st, _ in pairs]
        dt = np.dtype(pairs[0][0].kernel.stages[0].dtype)
        own = [_tile_memory(dp, dt, dp.tm, dp.k, dp.nc * dp.q) for dp in plans]
        tm, k, cols, widest = engine_tiles(plans)
        bram, uram, lut = _tile_memory(widest, dt, tm, k, cols)
        for r in ("dsp", "ff"):
            vals = [getattr(e, r) for _, e in pairs]
            out[r] += sum(vals) - max(vals)
        logic = [e.lut - x for (_, e), (_, _, x) in zip(pairs, own)]   # (no tiles)
        out["lut"] += sum(e.lut for _, e in pairs) - max(logic) - lut
        out["bram"] += sum(b for b, _, _ in own) - bram
        out["uram"] += sum(u for _, u, _ in own) - uram
    return out


def design_estimate(d, part, clock_mhz, env):
    by_name = {}
    ests = []
    for st in d.stages:
        n_in = sum(1 for s in d.streams if s.consumer == st.name and s.per_row is None)
        e = stage_estimate(st.kernel, st.name, env, n_in, st.lanes, st.row, st.grid,
                           any(s.producer == st.name for s in d.streams), st.overlapped) \
            if st.kind == "kernel" \
            else \
            _mover(st, env)
        ests.append(e)
        by_name[st.name] = e
    start, finish = {}, {}
    engine_last = {}    # a shared dot engine -> its dot that ran last
    for st, e in zip(d.stages, ests):
        ins = [s for s in d.streams if s.consumer == st.name]
        t = [start[s.producer] + by_name[s.producer].hold + by_name[s.producer].depth
             for s in ins]
        t += [finish[b.producer] for b in d.buffers if st.name in b.consumers]
        if getattr(st, "engine", None) is not None:   # (its engine runs one dot at a time)
            if st.engine in engine_last:
                t.append(finish[engine_last[st.engine]])
            engine_last[st.engine] = st.name
        start[st.name] = max(t, default=0)
        # (a stage finishes no earlier than the producers of its streams: a per-row
        # stage after a row reduction runs as long as the reduction, and a buffer it
        # fills is ready only then, as design.py's depth model counts)
        finish[st.name] = max([start[st.name] + e.cycles] +
                              [finish[s.producer] + 1 for s in ins])
    latency = max(finish.values(), default=0)
    dram = 0
    for v, role, dt, length in d.ports:    # written once (outputs, scratch) and read
        if role == "alias":                 # (another stage's port onto the same bytes)
            continue
        nbytes = _n(length, env) * np.dtype(dt).itemsize   # by each stage that reads it
        readers = sum(v in st.reads for st in d.stages) + \
            sum(st.kind == "read" and st.value == v for st in d.stages)
        dram += nbytes * ((role != "in") + readers)
    # each port (aliases included) belongs to one stage, which moves the value once
    port_bytes = [(_n(length, env) * np.dtype(dt).itemsize, name)
                  for (v, role, dt, length), name in zip(
                      d.ports, d.port_names or [f"port{i}" for i in range(len(d.ports))])]
    names = dict(zip((p[0] for p in d.ports), d.port_names or []))
    for st in d.stages:     # (a dot reads B once per tile: its port moves B that often)
        for v, times in dot_rereads(st).items():
            length, dt = next(((n, t) for u, _, t, n in d.ports if u == v), (None, None))
            if length is not None:
                nbytes = _n(length, env) * np.dtype(dt).itemsize
                dram += nbytes * (times - 1)
                port_bytes.append((nbytes * times, f"{names.get(v, v)} (in {st.name})"))
    busiest, port = max(port_bytes, default=(0, ""))
    shared = _engine_shared(d, ests)
    bram = sum(e.bram for e in ests) + AXI_PORT[0] * len(d.ports) - shared["bram"]
    for s in d.streams:
        if s.depth > SRL_FIFO_MAX:
            bram += math.ceil(s.depth * s.lanes * np.dtype(s.dtype).itemsize / BRAM_BYTES)
    uram = sum(e.uram for e in ests) - shared["uram"]
    for b in d.buffers:     # (ping-pong: twice the bytes)
        if b.where == "onchip":
            nbytes = _n(b.length, env) * np.dtype(b.dtype).itemsize
            if nbytes >= URAM_MIN:
                uram += 2 * math.ceil(nbytes / URAM_BYTES)
            else:
                bram += 2 * math.ceil(nbytes / BRAM_BYTES)
    lut = sum(e.lut for e in ests) + AXI_PORT[1] * len(d.ports) - shared["lut"]
    ff = sum(e.ff for e in ests) + AXI_PORT[2] * len(d.ports) - shared["ff"]
    return DesignEstimate(d.top, ests, len(d.streams), latency, dram,
                          sum(e.dsp for e in ests) - shared["dsp"], bram, lut, ff,
                          latency / (clock_mhz * 1e6), dram / (part.mem_gbs * 1e9), uram,
                          busiest / (PORT_BYTES * clock_mhz * 1e6), busiest, port)


def report(designs, part="u280", clock_mhz=300, sizes=None, cpu_ms=None, gpu_ms=None,
           gpu_note=""):
    """The :class:`Report` of ``designs`` (``design.Design`` objects).

    Args:
      designs: the designs of one program (``HlsExecutable.designs``).
      part: a key of ``op_costs.PARTS`` ("u280", "u250") or a ``Part``.
      clock_mhz: the kernel clock.
      sizes: ``{symbol name: int}`` for symbolic sizes (others: ``TRIPCOUNT_HINT``).
      cpu_ms, gpu_ms, gpu_note: times to print beside the estimate.
    Returns:
      a :class:`Report` (``str()`` is the table); warns (``ResourceWarning``) when
      the designs exceed the part's resources.
    """
    if isinstance(part, str):
        try:
            part = PARTS[part.lower()]
        except KeyError:
            raise ValueError(f"hls_report: unknown part {part!r}; known: "
                             f"{', '.join(PARTS)}") from None
    env = {str(k): int(v) for k, v in (sizes or {}).items()}
    ests = [design_estimate(d, part, clock_mhz, env) for d in designs]
    r = Report(part, clock_mhz, ests, [], cpu_ms, gpu_ms, gpu_note)
    t = r.totals
    for res, have in (("dsp", part.dsp), ("bram", part.bram18k), ("uram", part.uram),
                      ("lut", part.lut), ("ff", part.ff)):
        if t[res] > have:
            msg = (f"the designs need {t[res]} {res.upper()} but {part.name} has {have}: "
                   f"they do not fit (split the program, or use a bigger part)")
            r.warnings.append(msg)
            warnings.warn(msg, ResourceWarning, stacklevel=2)
    return r
