"""Loop facts of a kernel that every renderer shares: loop axes and stage levels.

**Loop axes** (:func:`plan_axes`): extent-1 axes are dropped and adjacent axes merge
when every index map of the kernel (loads, gathers, iotas, the hyperplane's offset,
stores) sees them as one linear axis (``coef[a] == coef[a+1] * shape[a+1]``, decided
with sympy for symbolic sizes), never across the reduce/keep boundary. A (B, H, C)
elementwise kernel is then one flat loop: no index decomposition (no integer division
on GPUs) and a vectorizable loop. A backend that splits one axis over CPU threads
(``lower/llvm/split.py``) passes it as ``split``: that axis is kept even at extent 1
and always starts its loop axis (later axes may still merge into it).

**Stage levels** (:func:`stage_levels`): the row-style stages grouped so that stages of
one level depend only on earlier levels; a renderer folds each level in one pass.

**Reused values** (:func:`reused_value`): a stage's costly value that an inner store
needs again, kept in the output between the stage loop and the store loop.
"""

import dataclasses

import numpy as np

from tjit._sympy import sympy
from tjit.xla_like import kernel_ir as K

__all__ = ["AxisPlan", "ceil_div", "index_maps", "plan_axes", "prod", "reused_value", "same",
           "stage_levels"]


@dataclasses.dataclass(frozen=True)
class AxisPlan:
    """``groups[g]``: the original axes merged into loop axis ``g`` (outer to inner);
    ``reduce[g]``: whether it is reduced; ``extents[g]``: its trip count (int or sympy);
    ``parallel``: the loop axis holding the ``split`` axis (first in its group) or None."""
    groups: tuple
    reduce: tuple
    extents: tuple
    parallel: object = None


def same(x, y):
    """``x == y`` for ints or sympy expressions (expanded difference is zero)."""
    if isinstance(x, (int, np.integer)) and isinstance(y, (int, np.integer)):
        return x == y
    if x == y:
        return True
    return sympy.expand(sympy.sympify(x) - sympy.sympify(y)) == 0


def prod(dims):
    """The product of ints or sympy expressions (1 for none)."""
    out = 1
    for d in dims:
        out = out * d
    return out


def ceil_div(n, m):
    """``ceil(n / m)`` for an int or sympy ``n`` and a positive int ``m``."""
    if isinstance(n, (int, np.integer)):
        return -(-int(n) // m)
    return sympy.ceiling(sympy.sympify(n) / m)


def index_maps(k):
    """Every affine map of kernel ``k``: its loads', gathers', iotas' (the hyperplane
    offset's included) and its stores'."""
    nodes = K.all_nodes(k)
    if k.hyperplane is not None:
        nodes += K.walk(k.hyperplane[1])
    maps = [n.index for n in nodes if isinstance(n, (K.Load, K.IndexedLoad, K.IndexValue))]
    return maps + [st.index for st in k.stores]


def plan_axes(k, split=None):
    """The loop axes of kernel ``k`` (see the module docstring).

    Args:
      k: a ``kernel_ir.Kernel``.
      split: an axis that must start its own loop axis (a CPU thread split), or None.
    Returns:
      an :class:`AxisPlan`.
    """
    red = set(k.reduce_axes)
    maps = index_maps(k)
    groups = []
    for a, n in enumerate(k.shape):
        if n == 1 and a != split:
            continue  # its index is always 0 (the hyperplane's is the plane)
        if groups and a != split:
            prev = groups[-1][-1]
            if (prev in red) == (a in red) and all(
                    same(m.coefs[prev], m.coefs[a] * n) for m in maps):
                groups[-1].append(a)
                continue
        groups.append([a])
    extents = [prod(k.shape[a] for a in g) for g in groups]
    par = next((g for g, axes in enumerate(groups) if split in axes), None)
    return AxisPlan(tuple(tuple(g) for g in groups), tuple(g[0] in red for g in groups),
                    tuple(extents), par)


def stage_levels(k):
    """Row-style stages by level: ``[[j, ...], ...]``, level L's stages using only
    stages of earlier levels. Raises ValueError when a stage uses a later one."""
    level = []
    for j, s in enumerate(k.stages):
        deps = {n.k for n in K.walk(s.expr) if isinstance(n, K.Stage)}
        if any(dep >= j for dep in deps):
            raise ValueError(f"kernel {k.name}: stage {j} uses a later stage")
        level.append(1 + max((level[dep] for dep in deps), default=-1))
    return [[j for j, lv in enumerate(level) if lv == L]
            for L in range(max(level, default=-1) + 1)]


def reused_value(k, inner_stores, costly):
    """``(node, store, stage)``: a value that stage ``stage`` computes at every inner
    point of a row-style kernel and an inner store needs again (softmax's
    ``exp(x - max)``), containing an op for which ``costly(op_name)`` holds. A renderer
    leaves it in the store's output in the stage loop and loads it back in the store
    loop instead of computing it twice: the same bits, as the value is stored in its
    own dtype. The output must have the value's dtype, be written once per inner point
    by this store only, and not be read through (in place); the thread that computes a
    point in the stage loop must be the one that stores it. None when there is no such
    value."""
    in_stage = {}
    for j, s in enumerate(k.stages):
        for n in K.walk(s.expr):
            in_stage.setdefault(id(n), j)
    through = {o for _, o in k.inplace}
    for st in inner_stores:
        if st.arg in through or sum(s.arg == st.arg for s in k.stores) != 1 or \
                any(same(st.index.coefs[a], 0) for a in k.reduce_axes):
            continue
        dt = np.dtype(k.args[st.arg].dtype)
        found = None
        for n in K.walk(st.expr):     # post-order: the last match is the largest
            if id(n) in in_stage and isinstance(n, K.Op) and np.dtype(n.dtype) == dt \
                    and any(isinstance(m, K.Op) and costly(m.op) for m in K.walk(n)):
                found = n
        if found is not None:
            return found, st, in_stage[id(found)]
    return None
