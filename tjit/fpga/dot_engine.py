"""One shared matrix-multiply engine for a design's dots, or a grid per dot.

A dot stage in the matrix-multiply template (``lower/c/tiled_dot.py``) is a P x Q grid
of multiply-add PEs. ``dot_grid.py`` gives each dot of a design a grid of its own,
sharing ``DOT_DSP_SHARE`` of the part's DSPs; those grids run at once only where the
dots can overlap. In a training step they mostly cannot: each dot waits for the buffer
that the stages before it fill (forward dots, then backward dots), so at any time one
grid works and the others' DSPs idle.

:func:`plan_dots` decides from the design's dataflow graph (step ``j`` depends on step
``i`` when it reads, directly or through other steps, a value ``i`` writes) between

* **grids**: a grid per dot (``dot_grid.dot_grids``); the dots' time is the longest
  path through the graph, each dot taking its grid's steps;
* **one engine**: the dots (of one dtype: a PE multiplies and adds that dtype) run one
  after another, in the design's order (a topological order), on ONE grid sized from
  the whole share (``dot_grid.grid_for``); the dots' time is the sum of their steps.

It takes the engine when that is at least ``ENGINE_GAIN`` faster (the engine's muxes
and sequencing are not free): always for a dependency chain (the grids of a chain
split the DSPs yet run one at a time), never for dots of the same size that can all
overlap (their grids already use every DSP at once). A dot's steps are the grid's
pipelined steps of ``tiled_dot``'s plan at that grid: ``tiles x K x NC x RM`` a batch
point (``estimate.py`` adds the tile loads and epilogues).

**Order**: the engine runs its dots in the design's order, and the design puts them
in the order of a list schedule (:func:`engine_order`): whenever the engine is free it
takes, of the dots whose inputs are computed, the one whose inputs are ready first, so
a dot that waits for a slow stage (a transpose of one element a step) does not hold
back one that is ready (the MLP step's weight-gradient dots).

How the engine is built (``design.py``): one dataflow stage runs its dots in order,
each dot its template at the engine's grid with its own loads and fused epilogue
(inlined into the engine), waiting for its input buffers' tokens and posting its
outputs' as the separate stages did; ``#pragma HLS ALLOCATION`` limits the engine's
multipliers and adders to one grid's worth (plus the largest epilogue's), so the dots'
sequential loops share the PEs. Each dot's summation order is the template's (every
output in increasing k from 0: the same bits as the plain loop, whatever the grid).
Values an engine dot writes or reads are buffers, never streams: a stream between the
engine and a stage that also waits for a later engine dot would deadlock.
"""

import numpy as np

from tjit.fpga.dot_grid import DOT_DSP_SHARE, dot_grids, grid_for, mac_dsp
from tjit.fpga.op_costs import PARTS
from tjit.lower.c import tiled_dot
from tjit.lower.loops import plan_axes, prod

__all__ = ["ENGINE_GAIN", "DotPlanChoice", "dot_steps", "engine_order", "engine_tiles",
           "plan_dots"]

#: The engine must take at most this fraction of the grids' time (10% faster).
ENGINE_GAIN = 0.9


class DotPlanChoice:
    """What :func:`plan_dots` chose: ``grids`` ``{step: (P, Q)}`` for every dot of the
    template; ``engine`` the steps that share one engine, in order (empty: a grid per
    dot); ``engine_steps``/``grid_steps``: the dots' time (grid steps) either way."""

    def __init__(self, grids, engine, engine_steps, grid_steps):
        self.grids, self.engine = grids, engine
        self.engine_steps, self.grid_steps = engine_steps, grid_steps

    def __repr__(self):
        return (f"DotPlanChoice(engine={self.engine}, grids={self.grids}, "
                f"engine_steps={self.engine_steps}, grid_steps={self.grid_steps})")


def dot_steps(kernel, grid):
    """Pipelined steps of the PE grid for dot ``kernel`` at ``grid`` (P, Q):
    ``batch x tiles x K x NC x RM`` (``tiled_dot._size_grid`` clamps the grid)."""
    plan = plan_axes(kernel)
    dp = tiled_dot.match(kernel, plan, grid=grid)
    batch = prod(int(plan.extents[g]) for g in dp.batch)
    return batch * dp.tiles * dp.k * dp.nc * dp.rm


def _depends(steps):
    """``after[j]``: the steps ``j`` depends on (transitively)."""
    produced = {v: n for n, s in enumerate(steps) for v in s.outs if v is not None}
    after = []
    for j, s in enumerate(steps):
        deps = set()
        for v in s.ins:
            i = produced.get(v)
            if i is not None and i < j:
                deps |= {i} | after[i]
        after.append(deps)
    return after


def plan_dots(steps, part="u280"):
    """A :class:`DotPlanChoice` for kernel steps ``steps`` (one design, in order:
    ``KernelStep``-like, with ``kernel``, ``ins``, ``outs``) on ``part``."""
    part = PARTS[part.lower()] if isinstance(part, str) else part
    kernels = [s.kernel for s in steps]
    grids = dot_grids(kernels, part)
    if len(grids) < 2:
        return DotPlanChoice(grids, [], 0, 0)
    dts = {np.dtype(kernels[i].stages[0].dtype) for i in grids}
    if len(dts) > 1:    # (a PE multiplies and adds one dtype)
        return DotPlanChoice(grids, [], 0, 0)
    after = _depends(steps)
    finish = {}         # the longest path of grid steps ending at each step
    for j in range(len(steps)):
        t = max((finish[i] for i in after[j]), default=0)
        finish[j] = t + (dot_steps(kernels[j], grids[j]) if j in grids else 0)
    separate = max(finish.values())
    pes = DOT_DSP_SHARE * part.dsp // max(1, mac_dsp(dts.pop()))
    order = sorted(grids)
    m = max(tiled_dot.match(kernels[i], plan_axes(kernels[i])).m for i in order)
    n = max(tiled_dot.match(kernels[i], plan_axes(kernels[i])).n for i in order)
    grid = grid_for(m, n, pes)
    shared = sum(dot_steps(kernels[i], grid) for i in order)
    if shared > ENGINE_GAIN * separate:
        return DotPlanChoice(grids, [], shared, separate)
    return DotPlanChoice({i: grid for i in order}, order, shared, separate)


def engine_tiles(plans):
    """The engine's shared A tile and accumulators for its dots' ``tiled_dot.DotPlan``
    at its grid: ``(TM, K, NP, widest)``: ``at[TM][K]`` and ``acc[TM][NP]`` as large
    as the largest dot needs along each axis (a dot uses its corner), and a DotPlan
    with the largest P, Q and WA (read along k) to partition them for every dot."""
    along_k = [d.wa for d in plans if d.a_along == "k"]
    widest = tiled_dot.DotPlan(0, 0, 0, [], None, None, 0, 0, 0,
                               p=max(d.p for d in plans), q=max(d.q for d in plans),
                               wa=max(along_k, default=1))
    return (max(d.tm for d in plans), max(d.k for d in plans),
            max(d.nc * d.q for d in plans), widest)


def engine_order(steps, choice):
    """A topological order of ``steps`` (indices) in which the engine's dots
    (``choice``, :func:`plan_dots`) come as a list schedule takes them: stages other
    than the engine's run as soon as their inputs are computed (one point a step:
    ``prod(kernel.shape)``), the engine one dot at a time (``dot_steps`` at its
    grid), always taking the ready dot whose inputs were ready first (then the
    earlier one). Other steps keep their relative order where times tie."""
    after = _depends(steps)
    direct = []
    produced = {v: n for n, s in enumerate(steps) for v in s.outs if v is not None}
    for s in steps:
        direct.append({produced[v] for v in s.ins if v in produced})
    engine = set(choice.engine)
    start, finish = {}, {}
    free = 0            # when the engine is next free
    while len(finish) < len(steps):
        progressed = False
        for j, s in enumerate(steps):       # (stages off the engine: no waiting)
            if j in finish or j in engine or not direct[j] <= finish.keys():
                continue
            start[j] = max((finish[i] for i in direct[j]), default=0)
            finish[j] = start[j] + int(prod(s.kernel.shape))
            progressed = True
        ready = [(max((finish[i] for i in direct[j]), default=0), j) for j in engine
                 if j not in finish and direct[j] <= finish.keys()]
        if ready:
            t, j = min(ready)
            start[j] = max(t, free)
            finish[j] = free = start[j] + dot_steps(steps[j].kernel, choice.grids[j])
        elif not progressed:
            raise ValueError("dot engine: the design's steps have a cycle")
    order = sorted(range(len(steps)), key=lambda j: (start[j], j))
    assert all(order.index(i) < order.index(j) for j in range(len(steps)) for i in after[j])
    return order
