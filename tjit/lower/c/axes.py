"""Loop axes of a kernel for the C renderer: extent-1 axes dropped, linear runs merged.

Adjacent axes merge when every index map of the kernel (loads, gathers, iotas, stores)
sees them as one linear axis (``coef[a] == coef[a+1] * shape[a+1]``, decided with
sympy for symbolic sizes), never across the reduce/keep boundary. A (B, H, C)
elementwise kernel is then one flat loop: no index decomposition (no integer division
on GPUs) and a vectorizable C loop.

This is ``lower/llvm/codegen.py``'s ``plan_axes`` without the CPU thread-split axis
(``lower/llvm/split.py``, which the C renderer does not need); both should become one
``lower/loops.py`` when the backend seam is refactored (BACKENDS.md, L5).
"""

import dataclasses

import numpy as np
import sympy

from tjit.xla_like import kernel_ir as K

__all__ = ["AxisPlan", "plan_axes"]


@dataclasses.dataclass(frozen=True)
class AxisPlan:
    """``groups[g]``: the original axes merged into loop axis g (outer to inner);
    ``reduce[g]``: whether it is reduced; ``extents[g]``: its trip count."""
    groups: tuple
    reduce: tuple
    extents: tuple


def same(x, y):
    """``x == y`` for ints or sympy expressions (expanded difference is zero)."""
    if isinstance(x, (int, np.integer)) and isinstance(y, (int, np.integer)):
        return x == y
    if x == y:
        return True
    return sympy.expand(sympy.sympify(x) - sympy.sympify(y)) == 0


def _index_maps(k):
    nodes = K.all_nodes(k)
    if k.hyperplane is not None:
        nodes += K.walk(k.hyperplane[1])
    maps = [n.index for n in nodes if isinstance(n, (K.Load, K.IndexedLoad, K.IndexValue))]
    return maps + [st.index for st in k.stores]


def plan_axes(k):
    """The loop axes of kernel ``k`` (see the module docstring)."""
    red = set(k.reduce_axes)
    maps = _index_maps(k)
    groups = []
    for a, n in enumerate(k.shape):
        if n == 1:
            continue  # its index is always 0 (the hyperplane's is the plane)
        if groups:
            prev = groups[-1][-1]
            if (prev in red) == (a in red) and all(
                    same(m.coefs[prev], m.coefs[a] * n) for m in maps):
                groups[-1].append(a)
                continue
        groups.append([a])
    extents = []
    for g in groups:
        e = 1
        for a in g:
            e = e * k.shape[a]
        extents.append(e)
    return AxisPlan(tuple(tuple(g) for g in groups), tuple(g[0] in red for g in groups),
                    tuple(extents))
