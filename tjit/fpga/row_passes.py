"""The schedule of a W-lane row-style stage's overlapping passes on the clock: the
slack the design hands the renderer (``lower/c/lanes.render_rows``), the lag its
stream depths count, and the cycles the estimate counts.

Such a stage is one loop pipelined at II=1 whose passes over each row (its stage
levels, then its store pass: ``lanes.row_passes``) run at once on different rows:
pass p runs ``delay_p`` steps behind pass 0, with

    delay_0 = 0,   delay_p = delay_(p-1) + S + slack_(p-1),   S = max(ceil(N / W), 1)

steps a row of N points. ``slack_p`` is :attr:`RowPass.ready`: the cycles after its
last step of a row until the row's values are ready (the step's pipeline depth --
a cycle to read, its operators, the lanes' pairwise tree and the accumulate, a
cycle to write -- plus the fold of its interleaved partials). So pass p + 1 starts
row q only when pass p's values of row q are out of the pipeline: every value carried
between iterations is read at least its latency after it was written, and the loop
keeps II=1. A stage of R rows takes ``R * S + delay_last + ready_last`` cycles, about
one pass over its rows (the passes were one after another: ``R * sum(S + ready_p)``).
"""

import dataclasses
import math

import numpy as np

from tjit._sympy import sympy
from tjit.fpga.op_costs import combine_cost, path_cost
from tjit.lower.c import lanes as L
from tjit.lower.c.hls_dialect import PARTIALS

__all__ = ["RowPass", "level_pass", "row_lag", "row_passes", "row_slack"]

IO = 2      # a cycle to read a step's packets, one to write its results


@dataclasses.dataclass(frozen=True)
class RowPass:
    """One pass of a row-style stage at ``lanes`` points a step: ``stages`` (its stage
    level; None: the store pass), ``depth`` (cycles of a step's pipeline), ``ready``
    (cycles after a row's last step until its values are ready), and the DSP/LUT/FF
    of its operators (W lanes of its expressions, its combines)."""
    stages: tuple
    depth: int
    ready: int
    dsp: int
    lut: int
    ff: int


def row_passes(k, lanes):
    """The :class:`RowPass` list of row-style kernel ``k`` (with reduced axes) taking
    ``lanes`` points a step (at one lane: its passes one after another)."""
    out = []
    for js in L.row_passes(k):
        if js is None:
            lat, dsp, lut, ff = path_cost([st.expr for st in k.stores if st.level != "outer"])
            out.append(RowPass(None, lat + IO, lat + IO, dsp * lanes, lut * lanes,
                               ff * lanes))
        else:
            out.append(level_pass(k, js, lanes))
    return out


def level_pass(k, js, lanes):
    """The :class:`RowPass` of stages ``js`` of ``k`` folded together over a row (or
    over an accumulate-style kernel's reduced points) at ``lanes`` points a step."""
    tree = math.ceil(math.log2(lanes)) if lanes > 1 else 0
    fold = math.ceil(math.log2(PARTIALS))
    lat, d_, l_, f_ = path_cost([k.stages[j].expr for j in js])
    comb = [combine_cost(k.stages[j].monoid, k.stages[j].dtype) for j in js]
    clat = max((c.latency for c in comb), default=0)
    lat += clat * (1 + tree)            # the lanes' tree, then the accumulate
    folded = max((c.latency * fold for c, j in zip(comb, js)
                  if k.stages[j].monoid in ("sum", "prod")), default=0)
    ncomb = 2 + (lanes - 1)     # the loop's combine, the partials' fold, the lanes' tree
    return RowPass(tuple(js), lat + IO, lat + IO + folded,
                   d_ * lanes + sum(c.dsp for c in comb) * ncomb,
                   l_ * lanes + sum(c.lut for c in comb) * ncomb,
                   f_ * lanes + sum(c.ff for c in comb) * ncomb)


def row_slack(k, lanes):
    """``slack_p`` of every pass but the last (the renderer's ``row_slack``)."""
    return tuple(p.ready for p in row_passes(k, lanes)[:-1])


def row_lag(k, lanes, n):
    """The points of its input that the stage takes in before its first output, for
    rows of ``n`` points (an int or a size expression): pass 0 has read ``delay_last``
    steps (a step within a row takes W points, a row's last one the rest) when the
    last pass starts, and one row more when that pass stores a value a row at the
    row's end (a stage level)."""
    passes = row_passes(k, lanes)
    extra = sum(row_slack(k, lanes))
    rows = len(passes) - 1 + (passes[-1].stages is not None)
    if isinstance(n, (int, np.integer)):
        s = max(-(-int(n) // lanes), 1)
        return (rows + extra // s) * int(n) + min(extra % s * lanes, int(n))
    s = sympy.Max(sympy.ceiling(sympy.sympify(n) / lanes), 1)
    return (rows + sympy.floor(extra / s)) * n + sympy.Min(sympy.Mod(extra, s) * lanes, n)
