"""Size bindings of a polymorphic CUDA program that run a program compiled for their
exact sizes.

A program traced with size symbols (``jit(polymorphic_shapes=...)``, or automatic
dynamic shapes from a function's second set of shapes) serves every binding of its
symbols without a compile. Its kernels are the same for every binding, so a reduction
over a symbolic axis keeps one pass: the GPU splits of ``simplify`` (column sums of tall
arrays into partials, full reductions into rows) need the axis length. Where few points
are kept (a column sum of 32 columns; a full sum: one), that pass runs a handful of
thread groups over the whole axis: a weighted column sum over (2^20, 32) float32 took
5-6.5 ms on an H100/H200 from the symbolic program and 0.05 ms from the program of its
sizes.

So a binding where such a reduction is large (:func:`wants_own_program`) gets the
program compiled for its sizes (``tracing.jaxpr.specialize``, then the usual compile,
kernels from the disk cache when seen before), kept with the binding's runner; the
other bindings, small ones included (they would gain nothing from a split and lose
their CUDA graphs to it), keep the symbolic program and compile nothing.
"""

import math

from tjit.xla_like.plan import concrete
from tjit.xla_like.target import CUDA_COLUMN_SPLIT_MIN, CUDA_RESIDENT_THREADS

__all__ = ["wants_own_program"]


def wants_own_program(program, env):
    """True when a kernel of ``program`` (top level: loop bodies are sub-programs that
    run their own kernels) reduces over an axis whose extent is symbolic, keeps fewer
    than half the GPU's resident threads' worth of points, and reads at least
    ``CUDA_COLUMN_SPLIT_MIN`` elements at the sizes ``env`` (a concrete program's column
    reductions of fewer run one pass too): the binding's own program splits it."""
    for step in program.steps:
        k = getattr(step, "kernel", None)
        if k is None or not k.reduce_axes:
            continue
        if k.row_style and len(k.reduce_axes) < len(k.shape):
            continue    # (rows: a thread group each, as many groups as rows)
        if not any(_symbolic(k.shape[a]) for a in k.reduce_axes):
            continue    # (its extent is fixed: the plan split it already if it pays)
        dims = [concrete(d, env) for d in k.shape]
        reduced = math.prod(dims[a] for a in k.reduce_axes)
        kept = math.prod(d for a, d in enumerate(dims) if a not in k.reduce_axes)
        if 2 * kept < CUDA_RESIDENT_THREADS and reduced * kept >= CUDA_COLUMN_SPLIT_MIN:
            return True
    return False


def _symbolic(d):
    return bool(getattr(d, "free_symbols", None))
