"""Vectorized pointwise kernels for the threaded C dialects: 16-byte loads and stores.

A pointwise kernel (no reduced axes, no stages) whose stores all walk the innermost
loop axis contiguously (coefficient 1), one store per output, is rendered with each
thread taking a chunk of ``W`` consecutive innermost points, ``W`` = 16 bytes / the
stores' element size (float4, double2, int4, ... from ``Dialect.vectors``). A chunk
whose ``W`` points lie inside the row and whose every vector address is 16-byte
aligned -- **checked at run time**, per chunk, so buffers at any offset (sub-buffers,
views, odd row lengths) stay correct without the launcher promising anything -- reads
each contiguous load of the stores' element size as one vector, computes the
expression lane by lane with the scalar helpers (the same ops, so the same bits as the
scalar kernel) and writes each store as one vector. Other chunks (a row's tail,
misaligned addresses) run their points one by one. Values the innermost axis does not
move (broadcast loads, per-row factors) are computed once per chunk.
"""

import numpy as np

from tjit.lower.loops import ceil_div, prod, same
from tjit.xla_like import kernel_ir as K

__all__ = ["VectorPlan", "render", "vector_plan"]


class VectorPlan:
    """Loop axis ``g`` (innermost), original axis ``a`` (its innermost), lanes ``w``,
    vector type ``vt``, element dtype ``dt`` and the vectorized ``loads``."""

    def __init__(self, g, a, w, vt, dt, loads):
        self.g, self.a, self.w, self.vt, self.dt, self.loads = g, a, w, vt, dt, loads


def vector_plan(k, plan, d):
    """A :class:`VectorPlan` for pointwise kernel ``k`` (loop axes ``plan``) in dialect
    ``d``, or None when the kernel does not qualify (see the module docstring)."""
    if not (d.threaded and d.vectors and plan.groups and k.stores) or k.stages:
        return None
    g = len(plan.groups) - 1
    a = plan.groups[g][-1]
    dts = {np.dtype(k.args[st.arg].dtype).name for st in k.stores}
    if len(dts) != 1 or len({st.arg for st in k.stores}) != len(k.stores):
        return None
    dt = dts.pop()
    if dt not in d.vectors:
        return None
    vt, w = d.vectors[dt]
    n = plan.extents[g]
    if isinstance(n, (int, np.integer)) and n < 2 * w:
        return None
    for st in k.stores:   # contiguous, and no axis ignored (no last-point guards)
        if not same(st.index.coefs[a], 1) or any(
                same(st.index.coefs[axes[-1]], 0) for axes in plan.groups):
            return None
    loads = [n for n in K.all_nodes(k) if isinstance(n, K.Load)
             and np.dtype(n.dtype).name == dt and same(n.index.coefs[a], 1)]
    return VectorPlan(g, a, w, vt, dt, loads)


def _invariant(k, a):
    """ids of the store expressions' nodes whose value the innermost axis ``a`` does not
    move (no load, gather or iota under them steps along it)."""
    inv = set()
    for st in k.stores:
        for n in K.walk(st.expr):
            if isinstance(n, (K.Load, K.IndexValue)):
                ok = same(n.index.coefs[a], 0)
            elif isinstance(n, K.IndexedLoad):
                ok = same(n.index.coefs[a], 0) and id(n.offset) in inv
            elif isinstance(n, K.Op):
                ok = all(id(x) in inv for x in n.args)
            else:
                ok = isinstance(n, K.Const)
            if ok:
                inv.add(id(n))
    return inv


def render(r, vp):
    """Emit the pointwise kernel of renderer ``r`` by chunks of ``vp.w`` points; returns
    the number of work items (chunks)."""
    d, g, w = r.d, vp.g, vp.w
    axes = list(range(len(r.plan.groups)))
    ext = {x: r.plan.extents[x] for x in axes}
    n = ext[g]
    ext[g] = ceil_div(n, w)
    inv = _invariant(r.k, vp.a)
    with r.strided(axes, d.global_id, d.global_size, ext):
        base = r.var("e")
        r.emit(f"const {r.i64} {base} = i{g} * {w};")
        r.idx[g] = base
        shared = {}
        for st in r.k.stores:
            for node in K.walk(st.expr):
                if id(node) in inv and not isinstance(node, K.Const):
                    r.value(node, shared)
        vstores = list(r.k.stores)
        ptrs = {id(ld): f"a{ld.arg} + {r.affine(ld.index)}" for ld in vp.loads}
        ptrs.update({id(st): f"a{st.arg} + {r.affine(st.index)}" for st in vstores})
        u64 = d.type(np.uint64)
        conds = [f"{base} + {w} <= {r.sizes(n)}"] + \
            [f"(({u64})({p}) & 15) == 0" for p in dict.fromkeys(ptrs.values())]
        with r.block(f"if ({' && '.join(conds)})"):
            _vector_chunk(r, vp, base, shared, ptrs, vstores)
        with r.block("else"):
            lane = r.var("l")
            with r.block(f"for (int {lane} = 0; {lane} < {w} && {base} + {lane} < "
                         f"{r.sizes(n)}; {lane}++)"):
                r.idx[g] = f"({base} + {lane})"
                scope = dict(shared)
                for st in r.k.stores:
                    r.store(st, scope)
    return prod(ext.values())


def _vector_chunk(r, vp, base, shared, ptrs, vstores):
    d = r.d
    vecs = {}
    for ld in vp.loads:
        vecs[id(ld)] = r.var("q")
        r.emit(f"const {vp.vt} {vecs[id(ld)]} = "
               f"{d.vload.format(vt=vp.vt, n=vp.w, ptr=ptrs[id(ld)])};")
    lanes = {id(st): [] for st in vstores}
    for lane in range(vp.w):
        r.idx[vp.g] = f"({base} + {lane})" if lane else base
        scope = dict(shared)
        for ld in vp.loads:
            scope[id(ld)] = f"{vecs[id(ld)]}.{d.lanes[lane]}"
        for st in vstores:
            lanes[id(st)].append(r.value(st.expr, scope))
    for st in vstores:
        v = d.vmake.format(vt=vp.vt, args=", ".join(lanes[id(st)]))
        r.emit(d.vstore.format(vt=vp.vt, n=vp.w, ptr=ptrs[id(st)], value=v))
