"""Automatic rematerialization under a memory budget (``jit(f, memory_budget=bytes)``).

Given a budget in bytes, the compiler decides which values of the early part of a
program (the forward pass of a training step) to keep for the late part (the backward
pass) and which to recompute there, so that the plan's peak memory
(``memory_analysis().peak_memory_in_bytes``: arguments + outputs - aliases + temporary
buffers) stays within the budget with the fewest recomputed flops. Without a budget
nothing here runs and plans are unchanged.

Where it runs, and why there. On the HLO graph after ``simplify`` and before fusion
(``compile.compile_program``): a Jaxpr-level rewrite would be undone by HLO CSE, which
merges a recomputed copy back into its original; after fusion, a recomputed value
could no longer be folded into the backward kernels that read it. Here a recomputed
elementwise value is a new instruction that fusion inlines into its consumer (no
buffer at all), and a recomputed ``dot`` is a new BLAS call. Only the top-level
program is rewritten; control-flow bodies keep their plans.

The algorithm (cut -> schedule -> measure, over a family of cuts, split after split):

1. *Boundary.* The program's instructions, in order, are split at the position where
   the bytes of live temporaries peak: those that hold memory of their own in the
   current plan (fused values take none, nor do values the plan keeps in an output's
   buffer before the output is written, ``plan.host_temporaries``; outputs have
   buffers of their own). For ``jit(grad(f))`` this is the end of the forward pass.
   The values made before it and read after it are the *residuals*. The *window* of
   the split runs from the last valley of live bytes before the peak (walking back,
   the lowest point before they climb back a quarter of the way to the peak: the end
   of an earlier phase, such as a previous training step) to the peak; values made
   before the window are kept, never recomputed (recomputing a previous step's
   weights update would keep that step's whole forward and backward pass alive).
2. *Min-cut.* As in torch.compile's min-cut partitioner
   (``torch/_functorch/partitioners.py``, ``min_cut_rematerialization_partition``),
   each early instruction ``v`` that a residual depends on becomes two nodes
   ``v_in -> v_out`` whose capacity is ``bytes(v)`` (keeping ``v`` for the late part);
   ``source -> v_in`` costs ``flops(v)`` in units far below a byte when ``v`` may be
   recomputed (a tie-break: among the cuts of fewest kept bytes, the one of fewest
   recomputed flops; integer capacities, so the max-flow is exact) and is
   infinite when it may not (parameters, constants, outputs and values kept in output
   buffers are kept at no cost; library and control-flow results and values before
   the window cannot be recomputed); ``u_out -> v_in`` is infinite for each operand
   ``u`` (recomputing ``v`` needs its operands) and ``residual_out -> sink`` is
   infinite. A minimum cut (max-flow, Edmonds-Karp, below) keeps the values whose
   ``in -> out`` edge it cuts and recomputes those whose ``v_in`` lies on the sink side.
3. *A family of cuts.* The min-cut counts kept bytes, not the values that recomputation
   itself holds alive in the late part (a chain recomputed at once is live at once),
   so one cut is not enough. The family: (a) ``dot`` may not be recomputed (torch's
   default: only cheap ops are recomputed, which fusion makes nearly free); (b) every
   op of the window may be, with checkpoints every ``tau`` bytes along it (the scheme
   of Chen et al. 2016, "Training deep nets with sublinear memory cost"): a checkpoint
   is kept at no cost, so the cut recomputes each segment from its checkpoint; ``tau``
   runs over the halvings of the window's bytes (about ``sqrt(n)`` segments of ``n``
   layers is the smallest peak).
4. *Schedule and measure.* Each cut is applied in two ways. Shared: every recomputed
   value gets one copy, placed just before its first late reader (its operands first),
   and later readers read that copy too (a segment recomputed once, live until its
   last reader: ``sqrt(n)`` memory for ``n`` layers). Per reader: each late reader gets
   copies of its own just before it (a segment recomputed for every layer of it:
   quadratic flops in the segment's length, but no recomputed value outlives its
   reader, so the peak falls to a few activations). Early copies nobody reads any more
   are dropped. The result is fused and planned like any program, with one rule
   added: kernels of different phases (early, late, the copies, or each reader's
   copies; and those of earlier splits) are never merged, since a sibling merge of a
   recomputed kernel with the forward kernel that reads the same bias would move the
   recomputation back into the forward pass (and one with a late kernel, ahead of
   where it is needed). The peak is measured from the real buffer assignment.
5. *Split after split* (greedy, up to ``MAX_SPLITS``). When no plan of the family is
   within the budget, the next split starts from the plan that lowered the *hill* of
   the phase just split most (the most bytes live at once from the window's start to
   the last reader of a residual or a recomputed copy: the program's peak may be
   another phase's), then the one of the lowest peak, then of the fewest flops, and
   cuts again at its peak, wherever that is now: the other hill of a program with two
   (two training steps in one jit), or what is left of the same one. It stops at a
   plan within the budget (the one of the fewest flops of that round) or when a split
   lowers neither the peak nor its hill; then :class:`MemoryBudgetError` says the
   smallest peak reached.

What is covered: the top-level program of a ``jit``, concrete shapes, any number of
peaks (one split each, greedily ordered), forward values recomputed in the late part
from kept checkpoints, with shared or per-reader copies. Not covered: the bodies of
``while``/``scan``/``cond`` (they keep their plans, and a loop's carry buffers are not
counted as recomputable: a scan over layers is not rematerialized here; when no plan
fits, ``jit`` traces the function again with every scan body checkpointed, then with
scans split into checkpointed chunks, ``transforms/loop_remat.py``, and plans those here; see also
``checkpoint``/``while_loop_checkpoints`` for the AD-level choices); the reverse sweeps of
``while`` loops are planned at their least (a snapshot: the initial state) and, once a plan
is chosen, get what the budget leaves as their allowance (``sweep_memory.py``: a tape
while it fits, else Revolve: the peak holds for any trip count); one plan for every size
of a polymorphic program (its peak depends on its sizes: under automatic dynamic shapes
the dynamic program is planned plain and serves the sizes where its peak fits; a larger
size has it planned here at that size, ``budget_scope(bytes, sizes)``, and that plan
serves every size where its own peak fits); an optimal schedule (Revolve's
binomial schedule or an ILP over all splits at once is not attempted: checkpoints are
spaced by bytes and splits are chosen greedily, so a budget can be reported
unreachable that a joint schedule would meet); recomputing library calls or values
made before a split's window.

Measured (``benchmarks/bench_remat.py``, 16-layer tanh MLP ``value_and_grad``, CPU,
2 loaded cores, so step times are rough). 16-layer tanh MLP ``value_and_grad``,
width 2048, batch 512: since temporaries live in output buffers (``plan``), the plain
plan's peak is 520.3 MiB of which 4.0 MiB temporaries (was 584.3 / 68.0; JAX: 524.3 /
8.0), step 8989 ms beside JAX's 7863 ms (median of 3); the activations wait in the
buffers of the gradients written last, so recomputation has nothing left to save:
every budget under 520.3 MiB is unreachable (arguments and outputs alone take 516.3;
the 4 MiB left are the delta a gradient's gemm reads while writing it). (Before,
recomputation took the temporaries to 32 / 16 MiB at 1.1x / 7.0x the step.) Two SGD
steps in one jit (``--two-steps``; 8 layers, width 128, batch 1024; the outputs
are too small to hold the activations): peak 7.0 MiB, 4.5 of it temporaries (JAX:
the same); the smallest peak reachable is 7.0 MiB with one split, 6.5 MiB with the
split sequence. Width 64, batch 512 (loss summed): temporaries 1.26 MiB; a budget of
75 % of them is met with three splits, not with one (smallest 0.88 MiB).

Costs: two extra plans (fusion + buffer assignment, no code generation) per cut, about
10-20 cuts per split: about 2-4 s per split for the 16-layer MLP; an unreachable budget
runs every split that still lowers the peak.
"""

import collections
import contextlib
import contextvars
import math
import re

from tjit._sympy import sympy
from tjit.xla_like import hlo, sweep_memory
from tjit.xla_like.fusion import FusionDecision
from tjit.xla_like.plan import LibraryStep, build_program, concrete, memory_stats
from tjit.xla_like.simplify import dce

_BUDGET = contextvars.ContextVar("tjit_memory_budget", default=None)
# the sizes a program with size symbols is planned at ({symbol: int}; None: no symbols)
_SIZES = contextvars.ContextVar("tjit_memory_budget_sizes", default=None)
#: An uncuttable edge (Python ints are exact; no cut of a finite edge set reaches it).
INF = 1 << 200
#: Instructions whose results cannot be recomputed (effects, sub-programs, host calls).
_NOT_RECOMPUTABLE = frozenset({"parameter", "constant", "library", "control", "get"})
#: Split points tried one after another, each at the peak the previous one left.
MAX_SPLITS = 6
_UNITS = {"": 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12,
          "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}


class MemoryBudgetError(ValueError):
    """No plan found keeps the program's peak memory within the budget;
    ``smallest_peak``: the smallest peak (bytes) of the plans tried."""

    def __init__(self, message, smallest_peak):
        super().__init__(message)
        self.smallest_peak = smallest_peak


def parse_budget(value, where="memory_budget"):
    """Bytes of a budget given as an int or a string: ``"2GB"``, ``"512MiB"``, ``"1e9"``.

    Raises ValueError/TypeError naming ``where`` for anything else (and for budgets <= 0).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"{where}: expected a number of bytes or a string such as '2GB' "
                        f"or '512MiB', got {type(value).__name__} {value!r:.60}")
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*", value)
        unit = m and _UNITS.get(m.group(2).lower())
        if not unit:
            raise ValueError(f"{where}: cannot read {value!r} as a memory size; write bytes "
                             f"(e.g. '1000000') or a number with a unit: "
                             + ", ".join(u for u in ("KB", "MB", "GB", "TB", "KiB", "MiB",
                                                     "GiB", "TiB")))
        value = float(m.group(1)) * unit
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{where}: a memory budget must be a positive number of bytes, "
                         f"got {value!r}")
    return int(value)


@contextlib.contextmanager
def budget_scope(nbytes, sizes=None):
    """Compiles inside this scope plan within ``nbytes`` (None: no budget); a program
    with size symbols is planned at ``sizes`` ({symbol: int}): its recomputation is
    chosen for them, and it serves the other sizes where its peak fits too."""
    tokens = _BUDGET.set(nbytes), _SIZES.set(sizes)
    try:
        yield
    finally:
        _BUDGET.reset(tokens[0])
        _SIZES.reset(tokens[1])


def budget_bytes():
    """The byte budget of the compiles in progress (``budget_scope``), or None."""
    return _BUDGET.get()


def current_budget():
    """The budget of the compiles in progress: bytes, with the sizes a polymorphic
    program is planned at (``(bytes, ((name, size), ...))``), or None."""
    budget, sizes = _BUDGET.get(), _SIZES.get()
    if budget is None or not sizes:
        return budget
    return budget, tuple(sorted((s.name, v) for s, v in sizes.items()))


def _count(d):
    """A byte or element count (an int, or an expression of the planned sizes) as an int."""
    return d if type(d) is int else concrete(d, _SIZES.get() or {})


def peak_bytes(prog):
    """The peak memory of a planned program, as ``memory_analysis`` reports it (at the
    planned sizes), with the reverse sweeps of while loops at their least (their
    allowances are given once a plan is chosen: :func:`_with_sweeps`)."""
    size = _size_of()
    return (memory_stats(prog, _SIZES.get()).peak_memory_in_bytes
            - sweep_memory.counted_bytes(prog, size) + sweep_memory.least_bytes(prog, size))


def _size_of():
    sizes = _SIZES.get() or {}
    return lambda d: concrete(d, sizes)


def _with_sweeps(prog, budget):
    """``prog`` (its peak within ``budget``) with the budget's remaining bytes given to
    the reverse sweeps of its while loops (``sweep_memory``: their tapes, or Revolve's
    snapshots, stay within them for any trip count)."""
    return sweep_memory.fit_sweeps(prog, budget - peak_bytes(prog), _size_of())


def peak_function(prog):
    """(symbols, fn): the peak bytes of the plan ``prog`` as one Python function of its
    size symbols' values (``memory_stats`` with the counts kept as expressions, compiled
    once): a dynamic program's peak at a new size in ~1 us, where ``memory_stats`` at
    those sizes evaluates every count on its own (~200 us for an 8-layer MLP's step).
    The peak is :data:`INF` at every size when a while loop's reverse sweep keeps a tape
    without a byte limit (its size follows the trip count: ``sweep_memory``)."""
    if any(s.attrs["checkpoints"] is None and s.attrs.get("sweep_bytes") is None
           for s in sweep_memory.sweeps(prog)):
        return [], lambda: INF    # (a tape that grows with the trip count: no bound)
    peak = sympy.sympify(memory_stats(prog, size=sympy.sympify).peak_memory_in_bytes)
    symbols = sorted(peak.free_symbols, key=str)
    return symbols, sympy.lambdify(symbols, peak, modules="math")


def plan_within_budget(module, budget, donated, target):
    """The plan of ``module`` whose peak is at most ``budget`` bytes with the fewest
    recomputed flops (the plain plan when it fits), at the sizes of ``budget_scope``
    when it has size symbols. Raises MemoryBudgetError."""
    if isinstance(budget, tuple):   # (current_budget's form with sizes)
        budget = budget[0]
    _check_concrete(module)
    base = build_program(module, donated, target)
    if sweep_memory.unbounded_library_sweeps(base):
        raise ValueError(
            f"memory_budget: reverse mode through a while_loop keeps a tape of every trip, "
            f"and on the {target.name} backend its sweep runs as a library call whose tape "
            f"no budget can limit (its size follows the trip count). Use the cpu or cuda "
            f"backend (their sweeps fit the budget), or bound the tape by hand with "
            f"tjit.config.update('while_loop_checkpoints', k) (k loop states, counted in "
            f"the peak).")
    base_peak = peak_bytes(base)
    if base_peak <= budget:
        return _with_sweeps(base, budget)
    smallest, current = base_peak, _Plan(module, base, {}, program_flops(module))
    for _ in range(MAX_SPLITS):
        tried, hill_before = _split_once(current, donated, target)
        fits = [t for t in tried if t.peak <= budget]
        if fits:
            return _with_sweeps(min(fits, key=lambda t: t.work).prog, budget)
        if not tried:
            break
        # the next split starts from the plan that lowered the hill of the phase just
        # split most (the peak may be another phase's now), then the lowest peak, then
        # the fewest flops; none lowered either: the splits went as far as they can
        after = min(tried, key=lambda t: (t.hill, t.peak, t.work))
        if after.peak >= current.peak and after.hill >= hill_before:
            break
        smallest, current = min(smallest, after.peak), after
    raise MemoryBudgetError(
        f"memory_budget={budget} bytes cannot be met: the smallest peak reachable by "
        f"recomputation is {smallest} bytes ({smallest / 2 ** 20:.1f} MiB; without "
        f"recomputation {base_peak}), of which arguments and outputs take "
        f"{_fixed_bytes(base)}{_sweeps_note(base)}. Raise the budget to at least "
        f"{smallest} bytes, or shrink the program (a smaller batch, fewer parameters).",
        smallest)


def _sweeps_note(prog):
    least = sweep_memory.least_bytes(prog, _size_of())
    return (f" and the reverse sweeps of while loops at least {least} (each: the loop "
            f"states stepped from and to, one trip's record, the accumulated cotangents)"
            ) if least else ""


class _Plan:
    """A (rewritten) module, its plan, the phase of each instruction (for fusion: see
    :func:`_phased_fusion`) and its flops."""

    def __init__(self, module, prog, phases, work, hill=0):
        self.module, self.prog, self.phases, self.work = module, prog, phases, work
        self.peak = peak_bytes(prog)
        self.hill = hill     # (the most bytes live at once in the phase just split)


def _split_once(plan, donated, target):
    """The plans of one more split, at the peak of ``plan``: every cut of the family,
    each scheduled shared and per reader (steps 1-4); and the hill of the phase split
    before the split."""
    joint = _JointGraph(plan.module, plan.prog)
    before = {i.id for i in plan.module.instrs[:joint.start]}   # (kept as they are)
    tried = []
    for recompute in joint.candidate_cuts():
        if not recompute:
            continue
        for shared in (True, False):
            rewritten, phases = joint.rewrite(recompute, shared, plan.phases)
            prog = build_program(rewritten, donated, target, _phased_fusion(phases))
            kept = set(joint.copied) | {r.id for r in joint.residuals}
            tried.append(_Plan(rewritten, prog, phases, program_flops(rewritten),
                               _hill(prog, before, kept)))
    return tried, _hill(plan.prog, before, {r.id for r in joint.residuals})


def _hill(prog, before, kept):
    """The most bytes of temporaries with memory of their own live at once in the phase
    of a split: from the first step that computes something not in ``before`` to the
    last that reads a value of ``kept`` (its residuals and recomputed copies)."""
    last, made = {}, []
    for n, s in enumerate(prog.steps):
        for v in s.ins:
            last[v] = n
        made.extend((v, n) for v in s.outs if v in prog.slot_of)
    first = next((n for n, s in enumerate(prog.steps)
                  if any(v is not None and v not in before for v in s.outs)), 0)
    end = max((last[v] for v in kept if v in last), default=len(prog.steps) - 1)
    delta = [0] * (len(prog.steps) + 1)
    for v, n in made:
        if last.get(v, n) >= first and n <= end:
            delta[max(n, first)] += _count(prog.values[v].nbytes)
            delta[min(last.get(v, n), end) + 1] -= _count(prog.values[v].nbytes)
    live = top = 0
    for d in delta:
        live += d
        top = max(top, live)
    return top


def _fixed_bytes(prog):
    s = memory_stats(prog, _SIZES.get())
    return s.argument_size_in_bytes + s.output_size_in_bytes - s.alias_size_in_bytes


def _check_concrete(module):
    bound = set(_SIZES.get() or ())
    for i in module.instrs:
        for d in i.shape:
            if not isinstance(d, int) and d.free_symbols - bound:
                raise ValueError(f"memory_budget: the program has symbolic shapes (e.g. "
                                 f"{i.shape}) and no sizes to plan them at; a memory "
                                 f"budget needs concrete shapes: drop polymorphic_shapes "
                                 f"or the budget")


def nbytes(i):
    n = i.dtype.itemsize
    for d in i.shape:
        n *= d
    return _count(n)


def program_flops(module):
    """Flops of a whole program: what recomputation adds, less the forward work that
    only fed values now recomputed where they are read."""
    return sum(flops(i) for i in module.instrs if i.opcode not in _NOT_RECOMPUTABLE)


def flops(i):
    """Floating-point operations of recomputing ``i``: ``2*M*N*K`` for a dot, one per
    result element otherwise."""
    n = 1
    for d in i.shape:
        n *= d
    n = _count(n)
    if i.opcode == "dot":
        (lc, _), _ = i.attrs["dimension_numbers"]
        k = 1
        for d in lc:
            k *= _count(i.operands[0].shape[d])
        return 2 * n * k
    return n


def _valley(profile, peak_at):
    """Where the phase that peaks at ``peak_at`` starts: walking back from the peak, the
    lowest point of live bytes once they fell below half the peak and before they climb
    back by a quarter of the way from that low to the peak (an earlier phase, e.g. a
    previous training step, has its own hill there); 0 when they never do."""
    peak = profile[peak_at] if profile else 0
    low, at = peak, 0
    for n in range(peak_at, -1, -1):
        if profile[n] <= low:
            low, at = profile[n], n
        elif low <= peak / 2 and profile[n] - low >= (peak - low) / 4:
            break
    return at


class _JointGraph:
    """The program split at its peak of live temporary bytes into early and late parts
    (the temporaries that hold memory of their own in ``prog``, its plan: fused values
    and those hosted in output buffers take none)."""

    def __init__(self, module, prog):
        self.module = module
        instrs = module.instrs
        self.pos = {i.id: n for n, i in enumerate(instrs)}
        self.outputs = {o.id for o in module.outputs}
        # kept for free: a value that lives in an output's buffer costs no memory
        self.hosted = set(prog.hosted)
        resident = set(prog.slot_of) | {
            v for s in prog.steps if isinstance(s, LibraryStep) for v in s.outs
            if v is not None and prog.values[v].kind == "temp"}
        last = {}
        for n, i in enumerate(instrs):
            for o in i.operands:
                last[o.id] = n
        delta = [0] * (len(instrs) + 2)
        for n, i in enumerate(instrs):
            if i.id not in resident or i.id not in last:
                continue
            delta[n + 1] += nbytes(i)           # live after it is made ...
            delta[last[i.id] + 1] -= nbytes(i)  # ... through its last reader
        live, profile, best, self.boundary = 0, [], -1, len(instrs)
        for n in range(len(instrs)):
            live += delta[n]
            profile.append(live)
            if live > best:
                best, self.boundary = live, n
        self.start = _valley(profile, self.boundary)
        early = instrs[:self.boundary]
        late_reads = {o.id for i in instrs[self.boundary:] for o in i.operands}
        self.residuals = [i for i in early if i.id in late_reads]
        # the early instructions the residuals depend on
        need, stack = {}, list(self.residuals)
        while stack:
            i = stack.pop()
            if i.id in need:
                continue
            need[i.id] = i
            stack.extend(o for o in i.operands if self.pos[o.id] < self.boundary)
        self.nodes = sorted(need.values(), key=lambda i: self.pos[i.id])

    def _free(self, i):
        return i.opcode in ("parameter", "constant") or i.id in self.outputs or \
            i.id in self.hosted

    def candidate_cuts(self):
        """Recompute sets, from the least recomputation to the most (step 3)."""
        window = [i for i in self.nodes if self.pos[i.id] >= self.start]
        cheap = [i for i in window if i.opcode != "dot"]
        yield self.min_cut(allowed=cheap, checkpoints=())
        heavy = [i for i in window if not self._free(i) and
                 i.opcode not in _NOT_RECOMPUTABLE]
        total = sum(nbytes(i) for i in heavy)
        smallest = min((nbytes(i) for i in heavy), default=1) or 1
        tau, seen = total, set()
        while tau >= smallest:
            checkpoints = self._checkpoints(heavy, tau)
            key = frozenset(i.id for i in checkpoints)
            if key not in seen:
                seen.add(key)
                yield self.min_cut(allowed=window, checkpoints=checkpoints)
            tau /= 2 ** 0.5

    @staticmethod
    def _checkpoints(heavy, tau):
        out, run = [], 0
        for i in heavy:
            run += nbytes(i)
            if run >= tau:
                out.append(i)
                run = 0
        return out

    def min_cut(self, allowed, checkpoints):
        """The early instructions to recompute (step 2): ids whose ``v_in`` is on the
        sink side of a minimum cut."""
        allowed = {i.id for i in allowed}
        free = {i.id for i in checkpoints}
        # integer capacities (exact max-flow): a kept byte costs more than all the
        # recomputation together, which only breaks ties between cuts of equal bytes
        per_byte = sum(flops(i) for i in self.nodes) + 1
        g = _FlowGraph()
        for i in self.nodes:
            vin, vout = ("in", i.id), ("out", i.id)
            if self._free(i) or i.opcode in _NOT_RECOMPUTABLE or i.id not in allowed:
                g.add("s", vin, INF)
            else:
                g.add("s", vin, flops(i))
            g.add(vin, vout, 0 if (self._free(i) or i.id in free) else nbytes(i) * per_byte)
            for o in i.operands:
                if self.pos[o.id] < self.boundary:
                    g.add(("out", o.id), vin, INF)
        for r in self.residuals:
            g.add(("out", r.id), "t", INF)
        source_side = g.min_cut("s", "t")
        return {i.id for i in self.nodes if ("in", i.id) not in source_side}

    def rewrite(self, recompute, shared=True, phases=None):
        """(module, {instr id: phase}): late readers of recomputed values read a copy
        made just before the first of them (step 4); ``shared=False``: each late reader
        gets copies of its own, made just before it (more flops, and nothing recomputed
        stays alive from one reader to the next). ``phases``: those of an earlier split
        (absent: 0), which each instruction's phase of this split refines."""
        phases = phases or {}
        by_id = {i.id: i for i in self.nodes}
        vmap, copies, instrs = {}, {}, []
        self._original = {}     # copy's id -> the id of the instruction it recomputes
        self.copied = self._original

        def copy_of(root):
            stack = [root]
            while stack:
                i = stack[-1]
                if i.id in copies:
                    stack.pop()
                    continue
                todo = [o for o in i.operands if o.id in recompute and o.id not in copies]
                if todo:
                    stack.extend(todo)
                    continue
                stack.pop()
                ops = tuple(copies[o.id] if o.id in recompute else vmap.get(o.id, o)
                            for o in i.operands)
                c = hlo.Instr(i.opcode, ops, i.shape, i.dtype, **i.attrs)
                instrs.append(c)
                copies[i.id] = c
                self._original[c.id] = i.id
            return copies[root.id]

        late = {}    # id of an instruction -> its phase
        for n, i in enumerate(self.module.instrs):
            before = phases.get(i.id, 0)
            mark = len(instrs)
            if not shared:
                copies = {}
            if n >= self.boundary:
                ops = tuple(copy_of(by_id[o.id]) if o.id in recompute else vmap.get(o.id, o)
                            for o in i.operands)
            else:
                ops = tuple(vmap.get(o.id, o) for o in i.operands)
            cur = i if all(a is b for a, b in zip(ops, i.operands)) else \
                hlo.Instr(i.opcode, ops, i.shape, i.dtype, **i.attrs)
            vmap[i.id] = cur
            instrs.append(cur)
            if n >= self.boundary:   # copies: a phase of their own (per reader if unshared)
                late.update((c.id, (phases.get(self._original[c.id], 0),
                                    2 if shared else (2, n))) for c in instrs[mark:-1])
                late[cur.id] = (before, 1)
            elif before:
                late[cur.id] = before
        outs = [vmap.get(o.id, o) for o in self.module.outputs]
        module, _ = dce(hlo.HloModule(self.module.name, self.module.params, instrs, outs))
        return module, late


def _phased_fusion(late):
    """A FusionDecision that merges kernels of one phase only (``late``: instr id ->
    phase; early instructions are phase 0): a sibling merge of a recomputed kernel with
    the forward kernel of the same layer (they read the same bias) would run the
    recomputation in the forward pass again and keep its result alive throughout; the
    same holds between the copies made for two different late readers."""

    class PhasedFusion(FusionDecision):
        def _can_merge(self, a, b):
            phase_a = {late.get(r.id, 0) for r in self.groups[a]}
            phase_b = {late.get(r.id, 0) for r in self.groups[b]}
            return phase_a == phase_b and super()._can_merge(a, b)

    return PhasedFusion


class _FlowGraph:
    """A directed graph with integer capacities; :meth:`min_cut` by Edmonds-Karp (BFS
    augmenting paths). Small graphs (two nodes per early instruction)."""

    def __init__(self):
        self.cap = collections.defaultdict(dict)

    def add(self, u, v, c):
        self.cap[u][v] = self.cap[u].get(v, 0) + c
        self.cap[v].setdefault(u, 0)

    def min_cut(self, s, t):
        """The nodes on the source side of a minimum s-t cut."""
        cap = self.cap
        while True:
            parent = {s: None}
            queue = collections.deque([s])
            while queue and t not in parent:
                u = queue.popleft()
                for v, c in cap[u].items():
                    if c > 0 and v not in parent:
                        parent[v] = u
                        queue.append(v)
            if t not in parent:
                return set(parent)
            path, v = [], t
            while parent[v] is not None:
                path.append((parent[v], v))
                v = parent[v]
            push = min(cap[u][v] for u, v in path)
            if push >= INF:
                raise RuntimeError("remat: infinite cut (a late reader of a value that "
                                   "cannot be kept)")  # pragma: no cover
            for u, v in path:
                cap[u][v] -= push
                cap[v][u] += push


__all__ = ["MemoryBudgetError", "budget_scope", "current_budget", "parse_budget",
           "peak_function", "plan_within_budget"]
