"""The PE grids of a design's dots, sized from the part's DSP budget.

A dot stage in the matrix-multiply template (``lower/c/tiled_dot.py``) is a grid of
P x Q multiply-add PEs, each one multiplier and one adder of the dot's dtype
(``op_costs``: float32 3 + 2 = 5 DSPs, float64 10 + 3 = 13, int32 4 + 0 = 4). The dots
of one design share ``DOT_DSP_SHARE`` of the part's DSPs (the rest is left for its other
stages: a layer's bias, activation and softmax stages use a few hundred, and for the
shell), split in proportion to the square root of each dot's multiply-adds: the dots of
a training step mostly run one after another (each waits for the buffer its producer
fills), and for a total time ``sum W_i / D_i`` under ``sum D_i = D`` the split
``D_i ~ sqrt(W_i)`` is the optimum. Within its share a dot takes Q (columns of ``n``,
B's values shared along a PE column) the largest power of two up to the square root
of its PEs and at most ``N``, then P (rows of ``m``) from the rest, at most ``M``, then
any PEs left to Q again (a dot of 10 columns takes 10 and puts the rest in rows).
``tiled_dot`` may clamp P further to the rows its buffers hold.
"""

import math

import numpy as np

from tjit.fpga.op_costs import PARTS, cost
from tjit.lower.c import tiled_dot
from tjit.lower.loops import plan_axes, prod

__all__ = ["DOT_DSP_SHARE", "dot_grids", "grid_for", "mac_dsp"]

#: The share of the part's DSPs the dots of one design may use together.
DOT_DSP_SHARE = 0.75


def mac_dsp(dtype):
    """DSPs of one multiply-add PE on ``dtype`` (``op_costs``: a multiplier and an
    adder)."""
    dt = np.dtype(dtype)
    return cost("mul", dt).dsp + cost("add", dt).dsp


def grid_for(m, n, pes):
    """(P, Q) of at most ``pes`` PEs for an ``m`` x ``n`` output (see the module
    docstring)."""
    pes = max(1, int(pes))
    q = min(n, 1 << (math.isqrt(pes).bit_length() - 1))
    p = max(1, min(m, pes // q))
    return p, max(1, min(n, pes // p))


def dot_grids(kernels, part="u280"):
    """``{index: (P, Q)}`` for the kernels (of one design) that are dots in the
    template, sharing ``DOT_DSP_SHARE`` of ``part``'s DSPs (a key of
    ``op_costs.PARTS`` or a ``Part``)."""
    part = PARTS[part.lower()] if isinstance(part, str) else part
    dots = {}
    for i, k in enumerate(kernels):
        plan = plan_axes(k)
        dp = tiled_dot.match(k, plan)
        if dp is not None:
            batch = prod(int(plan.extents[g]) for g in dp.batch)
            dots[i] = (dp, batch * dp.m * dp.n * dp.k, k.stages[0].dtype)
    weight = sum(math.sqrt(w) for _, w, _ in dots.values())
    out = {}
    for i, (dp, w, dt) in dots.items():
        dsp = DOT_DSP_SHARE * part.dsp * math.sqrt(w) / weight
        out[i] = grid_for(dp.m, dp.n, dsp // max(1, mac_dsp(dt)))
    return out
