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

Two dialect choices give a thread more loads in flight (``Dialect.chunk_vectors``,
``Dialect.chunk_unroll``; both 1 by default, which renders the kernel above):

* ``chunk_vectors = V``: a chunk is ``V * W`` consecutive points, read and written as
  ``V`` adjacent 16-byte vectors (one alignment check covers them all);
* ``chunk_unroll = U``: a grid-stride step takes ``U`` chunks a grid apart (chunk ``f``,
  ``f + G``, ... for ``G`` threads in the grid: each load instruction of a warp still
  reads consecutive vectors). Where all ``U`` chunks are whole and aligned, every load
  of every chunk is issued before the first store; otherwise each chunk runs alone
  (vectors or points, as above). A chunk past the end of the iteration space takes
  the step's first chunk's indices, so nothing out of range is ever addressed, and
  stores nothing.

The values are the same bits as the scalar kernel's in every case (each point's
expression computed by the same helpers); only the order in which threads visit
chunks changes, and pointwise stores never overlap.
"""

import contextlib

import numpy as np

from tjit.lower.loops import ceil_div, prod, same
from tjit.xla_like import kernel_ir as K

__all__ = ["VectorPlan", "render", "vector_plan"]


class VectorPlan:
    """Loop axis ``g`` (innermost), original axis ``a`` (its innermost), lanes ``w``,
    vector type ``vt``, element dtype ``dt``, the vectorized ``loads``, vectors per
    chunk ``v`` (``points = v * w``) and chunks per grid-stride step ``u``."""

    def __init__(self, g, a, w, vt, dt, loads, v=1, u=1):
        self.g, self.a, self.w, self.vt, self.dt, self.loads = g, a, w, vt, dt, loads
        self.v, self.u = v, u
        self.points = v * w


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
    v = d.chunk_vectors     # (rows shorter than two wide chunks: one vector a chunk)
    if isinstance(n, (int, np.integer)) and n < 2 * w * v:
        v = 1
    return VectorPlan(g, a, w, vt, dt, loads, v, d.chunk_unroll)


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


class _Chunk:
    """One chunk of a grid-stride step: its loop indices ``idx``, first point ``base``,
    invariant values ``shared``, vector addresses ``ptrs`` (node id -> C expression),
    the conditions of its vector path ``conds`` and, for a step's later chunks, the
    name of the flag ``live`` (the chunk lies inside the iteration space)."""

    def __init__(self, idx, base, shared, ptrs, conds, live):
        self.idx, self.base, self.shared, self.ptrs = idx, base, shared, ptrs
        self.conds, self.live = conds, live


def render(r, vp):
    """Emit the pointwise kernel of renderer ``r`` by chunks of ``vp.points`` points;
    returns the number of chunks (``LaunchSpec.work``)."""
    d, g = r.d, vp.g
    axes = list(range(len(r.plan.groups)))
    ext = {x: r.plan.extents[x] for x in axes}
    n = ext[g]
    ext[g] = ceil_div(n, vp.points)
    inv = _invariant(r.k, vp.a)
    if vp.u == 1:
        with r.strided(axes, d.global_id, d.global_size, ext):
            ch = _chunk(r, vp, n, inv, None)
            with r.block(f"if ({' && '.join(ch.conds)})"):
                _vector_chunks(r, vp, [ch])
            with r.block("else"):
                _point_chunk(r, vp, ch, n)
    else:
        _unrolled(r, vp, axes, ext, n, inv)
    return prod(ext.values())


def _chunk(r, vp, n, inv, live):
    """Declare the chunk at the current loop indices: its first point, its invariant
    values and the conditions of its vector path."""
    g, w = vp.g, vp.points
    base = r.var("e")
    r.emit(f"const {r.i64} {base} = {r.idx[g]} * {w};")
    r.idx[g] = base
    shared = {}
    for st in r.k.stores:
        for node in K.walk(st.expr):
            if id(node) in inv and not isinstance(node, K.Const):
                r.value(node, shared)
    ptrs = {id(ld): f"a{ld.arg} + {r.affine(ld.index)}" for ld in vp.loads}
    ptrs.update({id(st): f"a{st.arg} + {r.affine(st.index)}" for st in r.k.stores})
    u64 = r.d.type(np.uint64)
    conds = ([live] if live else []) + [f"{base} + {w} <= {r.sizes(n)}"] + \
        [f"(({u64})({p}) & 15) == 0" for p in dict.fromkeys(ptrs.values())]
    return _Chunk(dict(r.idx), base, shared, ptrs, conds, live)


def _unrolled(r, vp, axes, ext, n, inv):
    """The grid-stride loop taking ``vp.u`` chunks a step, a grid apart."""
    d, i64, u = r.d, r.i64, vp.u
    total = r.sizes(prod(ext[x] for x in axes))
    f = r.var("f")
    with r.block(f"for ({i64} {f} = {d.global_id}; {f} < {total}; "
                 f"{f} += {u} * {d.global_size})"):
        r.pragmas(True, prod(ext[x] for x in axes))
        chunks = []
        for c in range(u):
            flat, live = f, None
            if c:       # (past the end: chunk f's indices again, never stored to)
                nxt = f"{f} + {c} * {d.global_size}"
                live, flat = r.var("live"), r.var("f")
                r.emit(f"const bool {live} = {nxt} < {total};")
                r.emit(f"const {i64} {flat} = {live} ? {nxt} : {f};")
            r.decompose(flat, axes, ext, suffix=f"_{c}")
            chunks.append(_chunk(r, vp, n, inv, live))
        with r.block(f"if ({' && '.join(c for ch in chunks for c in ch.conds)})"):
            _vector_chunks(r, vp, chunks)
        with r.block("else"):
            for ch in chunks:
                with r.block(f"if ({ch.live})") if ch.live else contextlib.nullcontext():
                    r.idx.update(ch.idx)
                    with r.block(f"if ({' && '.join(ch.conds)})"):
                        _vector_chunks(r, vp, [ch])
                    with r.block("else"):
                        _point_chunk(r, vp, ch, n)
    for x in axes:
        r.idx[x] = "0"


def _point_chunk(r, vp, ch, n):
    """Chunk ``ch`` point by point (a row's tail, misaligned addresses)."""
    lane = r.var("l")
    with r.block(f"for (int {lane} = 0; {lane} < {vp.points} && {ch.base} + {lane} < "
                 f"{r.sizes(n)}; {lane}++)"):
        r.idx.update(ch.idx)
        r.idx[vp.g] = f"({ch.base} + {lane})"
        scope = dict(ch.shared)
        for st in r.k.stores:
            r.store(st, scope)


def _vector_chunks(r, vp, chunks):
    """Whole, aligned ``chunks``: every vector load of every chunk, then each chunk's
    points lane by lane and its vector stores."""
    d, w = r.d, vp.w
    vecs = []
    for ch in chunks:
        mine = {}
        for ld in vp.loads:
            mine[id(ld)] = []
            for j in range(vp.v):
                q = r.var("q")
                mine[id(ld)].append(q)
                ptr = ch.ptrs[id(ld)] + (f" + {j * w}" if j else "")
                r.emit(f"const {vp.vt} {q} = {d.vload.format(vt=vp.vt, n=w, ptr=ptr)};")
        vecs.append(mine)
    for ch, mine in zip(chunks, vecs):
        r.idx.update(ch.idx)
        lanes = {id(st): [] for st in r.k.stores}
        for lane in range(vp.points):
            r.idx[vp.g] = f"({ch.base} + {lane})" if lane else ch.base
            scope = dict(ch.shared)
            for ld in vp.loads:
                scope[id(ld)] = f"{mine[id(ld)][lane // w]}.{d.lanes[lane % w]}"
            for st in r.k.stores:
                lanes[id(st)].append(r.value(st.expr, scope))
        for st in r.k.stores:
            for j in range(vp.v):
                v = d.vmake.format(vt=vp.vt, args=", ".join(lanes[id(st)][j * w:(j + 1) * w]))
                ptr = ch.ptrs[id(st)] + (f" + {j * w}" if j else "")
                r.emit(d.vstore.format(vt=vp.vt, n=w, ptr=ptr, value=v))
