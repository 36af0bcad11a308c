"""Row-style kernels on the threaded C dialects: row segments of ``L`` lanes with the
row held in registers.

A row-style kernel (stages folded over the reduced axes, then per-row and per-point
stores) whose row length ``n`` is a static int is rendered with each row handled by a
*segment* of ``L`` consecutive threads of a work-group (``L`` a power of two; a group
holds ``G = local_size / L`` rows):

* short rows (``ceil(n / warp) * itemsize <= LANE_BYTES``, i.e. up to 1024 float32 or
  512 float64 elements on CUDA) take one warp per row, or fewer lanes when the row is
  shorter than a warp (``L = min(warp, next power of two >= n)``): a row of 7 takes 8
  lanes and a group of 256 threads handles 32 rows; longer static rows (up to
  ``local_size * LANE_BYTES / itemsize``) take the whole group (``L = local_size``);
  longer or symbolic rows keep the renderer's group-per-row loops;
* lane ``l`` owns the points ``f = l, l + L, l + 2L, ...`` (``E = ceil(n / L)`` of them,
  an unrolled loop of constant trip count): the row's inputs that vary along it are read
  from memory **once** into per-lane register arrays (up to ``ROW_CACHE_BYTES`` a lane;
  more inputs are read again in each pass, from the cache), every stage level and the
  store pass then computes from the registers; values that do not vary along the row
  (per-row scalars, earlier stages) are computed once per row, before the passes;
* **vector form**: where every cached input and every per-point store walks the row
  contiguously in one dtype with 16-byte vectors (float4, double2, ...) and ``V * L``
  divides ``n``, lane ``l`` owns chunks of ``V`` consecutive points instead
  (``f = V*l + j, V*l + V*L + j, ...``), read and written as one vector each where the
  row's addresses are 16-byte aligned (checked at run time, once per row) and point by
  point otherwise;
* **reduction order** (deterministic for a given dialect, kernel and launch): lane ``l``
  folds its points in increasing ``f``; then the lanes fold pairwise, lane ``i`` with
  lane ``i + w`` for ``w = L/2, L/4, ..., 1`` (as ``combine(x[i], x[i + w])``), so the
  result is lane 0's; on CUDA those steps within a warp are ``__shfl_down_sync`` and lane
  0 broadcasts the result (``__shfl_sync``); steps of a segment wider than a warp and
  every step on dialects without shuffles (OpenCL) run the same pairs in shared/local
  memory with barriers, then every lane reads lane 0's slot. The same pairs give the
  same bits on every dialect, so PoCL checks what CUDA computes.

Every lane of a group runs every shuffle and barrier: the group-stride loop over the
groups' rows is uniform within a group, a segment whose row is past the last one
computes the last row again (its index clamped) and stores nothing, and the points past
``n`` are skipped inside the unrolled loops, around no shuffle or barrier.
"""

import dataclasses

import numpy as np

from tjit.lower.c.scalar import TRANSCENDENTAL
from tjit.lower.loops import ceil_div, prod, reused_value, same, stage_levels
from tjit.xla_like import kernel_ir as K

__all__ = ["LANE_BYTES", "ROW_CACHE_BYTES", "RowPlan", "render", "row_plan"]

#: Most bytes of one cached input a lane holds (E * itemsize): 32 float32 / 16 float64.
LANE_BYTES = 128
#: Most bytes of cached inputs a lane holds in all (64 32-bit registers).
ROW_CACHE_BYTES = 256


@dataclasses.dataclass(frozen=True)
class RowPlan:
    """``lanes`` (L) threads per row, ``rows`` (G) rows per group, ``elems`` (E) points
    per lane, ``n`` the row length, ``cached``: ``(arg, index, dtype)`` of the inputs
    read once into registers; ``vec``: ``(vector type, V)`` when lanes move V
    consecutive points at a time (16-byte loads and stores), else ()."""
    lanes: int
    rows: int
    elems: int
    n: int
    cached: tuple
    vec: tuple = ()


def _pow2_at_least(n):
    p = 1
    while p < n:
        p *= 2
    return p


def _row_loads(k, inner_axes):
    """Distinct ``(arg, index, dtype)`` of the plain loads that move along the row,
    those that also move between rows first (they stream from memory)."""
    keys = {}
    for n in K.all_nodes(k):
        if isinstance(n, K.Load) and k.args[n.arg].role == "in" and \
                any(not _zero(n.index.coefs[a]) for a in inner_axes):
            keys.setdefault((n.arg, n.index, np.dtype(n.dtype)), None)
    outer = [a for a in range(len(k.shape)) if a not in inner_axes]
    streams = lambda key: any(not _zero(key[1].coefs[a]) for a in outer)
    return sorted(keys, key=lambda key: not streams(key))


def _zero(c):
    return c == 0


def row_plan(k, plan, d):
    """A :class:`RowPlan` for row-style kernel ``k`` (loop axes ``plan``) in dialect
    ``d``, or None (no threads, a symbolic or too long row: the renderer's
    group-per-row loops)."""
    if not d.threaded or not k.reduce_axes or not k.row_style:
        return None
    inner = [g for g, r in enumerate(plan.reduce) if r]
    n = prod(plan.extents[g] for g in inner)
    if not isinstance(n, (int, np.integer)):
        return None
    n = int(n)
    inner_axes = {a for g in inner for a in plan.groups[g]}
    item = max([np.dtype(key[2]).itemsize for key in _row_loads(k, inner_axes)] +
               [np.dtype(s.dtype).itemsize for s in k.stages] + [1])
    seg = d.warp_size or d.local_size
    if ceil_div(n, seg) * item <= LANE_BYTES:
        lanes = min(seg, _pow2_at_least(max(n, 1)))
    elif ceil_div(n, d.local_size) * item <= LANE_BYTES:
        lanes = d.local_size
    else:
        return None
    elems = ceil_div(n, lanes)
    cached, budget = [], ROW_CACHE_BYTES
    for key in _row_loads(k, inner_axes):
        cost = elems * np.dtype(key[2]).itemsize
        if cost <= budget:
            cached.append(key)
            budget -= cost
    rp = RowPlan(lanes, d.local_size // lanes, elems, n, tuple(cached))
    return dataclasses.replace(rp, vec=_vector_form(k, plan, d, rp))


def _vector_form(k, plan, d, rp):
    """``(vector type, V)`` when every cached input and every per-point store walks one
    contiguous inner loop axis in one dtype with 16-byte vectors, one store per output
    and no axis ignored, and ``V * L`` divides the row; else ()."""
    inner = [g for g, red in enumerate(plan.reduce) if red]
    if not (d.vectors and rp.cached and len(inner) == 1 and rp.n):
        return ()
    a = plan.groups[inner[0]][-1]
    dts = {np.dtype(key[2]).name for key in rp.cached}
    inner_st = [st for st in k.stores if st.level != "outer"]
    dts |= {np.dtype(k.args[st.arg].dtype).name for st in inner_st}
    if len(dts) != 1 or next(iter(dts)) not in d.vectors:
        return ()
    vt, w = d.vectors[dts.pop()]
    if rp.n % (w * rp.lanes) or any(not same(key[1].coefs[a], 1) for key in rp.cached):
        return ()
    if len({st.arg for st in inner_st}) != len(inner_st) or any(
            not same(st.index.coefs[a], 1) or
            any(same(st.index.coefs[axes[-1]], 0) for axes in plan.groups)
            for st in inner_st):
        return ()
    return vt, w


def render(r, rp):
    """Emit row-style kernel ``r.k`` of renderer ``r`` as row segments (``rp``); returns
    the number of rows (the launch's work: ``ceil(rows / rp.rows)`` groups)."""
    k, d, plan = r.k, r.d, r.plan
    outer = [g for g, red in enumerate(plan.reduce) if not red]
    inner = [g for g, red in enumerate(plan.reduce) if red]
    inner_axes = {a for g in inner for a in plan.groups[g]}
    nrows = prod(plan.extents[g] for g in outer)
    rows_c = r.sizes(nrows)
    L, G = rp.lanes, rp.rows
    lane, sub, base = r.var("lane"), r.var("sub"), r.var("base")
    r.emit(f"const {r.i64} {lane} = {d.local_id} & {L - 1};")    # (L: a power of two)
    r.emit(f"const {r.i64} {sub} = {d.local_id} >> {L.bit_length() - 1};")
    with r.block(f"for ({r.i64} {base} = {d.group_id} * {G}; {base} < {rows_c}; "
                 f"{base} += {d.num_groups} * {G})"):
        row, valid = r.var("row"), r.var("valid")
        r.emit(f"const bool {valid} = {base} + {sub} < {rows_c};")
        r.emit(f"const {r.i64} {row} = {valid} ? {base} + {sub} : {rows_c} - 1;")
        r.decompose(row, outer, {g: plan.extents[g] for g in outer})
        cache = _fill_cache(r, rp, inner, lane)
        outer_st = [s for s in k.stores if s.level == "outer"]
        inner_st = [s for s in k.stores if s.level != "outer"]
        kept = _kept_value(r, rp, inner_st)
        for lv in stage_levels(k):
            _stage_level(r, rp, lv, inner, inner_axes, lane, cache, kept)
        if outer_st:
            with r.block(f"if ({lane} == 0 && {valid})"):
                scope = {}
                for st in outer_st:
                    r.store(st, scope, outer)
        if inner_st and rp.vec:
            row_scope = _hoist(r, [st.expr for st in inner_st], inner_axes, rp)
            _vector_chunks(r, rp, inner, lane, cache, valid, inner_st, row_scope, kept)
        elif inner_st:
            row_scope = _hoist(r, [st.expr for st in inner_st], inner_axes, rp)
            with _points(r, rp, inner, lane, valid) as e:
                scope = _point_scope(r, row_scope, cache, e)
                if kept is not None:
                    scope[id(kept[0])] = f"{kept[2]}[{e}]"
                for st in inner_st:
                    r.store(st, scope, outer + inner)
    return nrows


class _points:
    """The unrolled loop over a lane's points ``f = lane + L * e`` (``f < n`` and the
    extra ``cond``), the inner loop axes' indices decomposed from ``f``; yields ``e``."""

    def __init__(self, r, rp, inner, lane, cond=None):
        self.r, self.rp, self.inner, self.lane, self.cond = r, rp, inner, lane, cond

    def __enter__(self):
        r, rp = self.r, self.rp
        e, f = r.var("e"), r.var("f")
        self.blocks = [r.block(f"for (int {e} = 0; {e} < {rp.elems}; {e}++)")]
        if r.d.unroll:
            r.emit(r.d.unroll)
        self.blocks[0].__enter__()
        if rp.vec:      # V consecutive points a lane, then the next chunk of V * L
            w = rp.vec[1]
            r.emit(f"const {r.i64} {f} = {w} * {self.lane} + {w * rp.lanes} * "
                   f"({r.i64})({e} / {w}) + {e} % {w};")
        else:
            r.emit(f"const {r.i64} {f} = {self.lane} + {rp.lanes} * ({r.i64}){e};")
        cond = f"{f} < {rp.n}" + (f" && {self.cond}" if self.cond else "")
        self.blocks.append(r.block(f"if ({cond})"))
        self.blocks[1].__enter__()
        r.decompose(f, self.inner, {g: r.plan.extents[g] for g in self.inner})
        return e

    def __exit__(self, *exc):
        for b in reversed(self.blocks):
            b.__exit__(*exc)
        for g in self.inner:
            self.r.idx[g] = "0"
        return False


def _fill_cache(r, rp, inner, lane):
    """``{(arg, index, dtype): register array}``, each filled with the lane's points."""
    cache = {key: r.var("c") for key in rp.cached}
    if not cache:
        return cache
    for key, name in cache.items():
        r.emit(f"{r.d.type(key[2])} {name}[{max(rp.elems, 1)}];")
    if rp.vec:
        _vector_chunks(r, rp, inner, lane, cache)
        return cache
    with _points(r, rp, inner, lane) as e:
        for (arg, index, dt), name in cache.items():
            r.emit(f"{name}[{e}] = {r._load(arg, r.affine(index), dt)};")
    return cache


def _vector_chunks(r, rp, inner, lane, cache, valid=None, stores=(), row_scope=None,
                   kept=None):
    """Vector form (``rp.vec``): the lane's chunks of V consecutive points, read into the
    cache (``stores`` empty) or computed and stored; 16-byte loads and stores where every
    vector address of the row is aligned (**checked at run time**, once per row; V * L
    divides the row, so a chunk's address is the row's plus a multiple of 16 bytes),
    one point at a time otherwise: the same points, values and order either way."""
    d, (vt, w) = r.d, rp.vec
    (g,) = inner
    u64 = d.type(np.uint64)
    ptrs = [(f"a{st.arg}", st.index) for st in stores] if stores else \
        [(f"a{arg}", index) for arg, index, _ in rp.cached]
    aligned = r.var("aligned")
    r.emit(f"const bool {aligned} = " + " && ".join(
        f"(({u64})({a} + {r.affine(ix)}) & 15) == 0" for a, ix in ptrs) + ";")
    c, f0 = r.var("ch"), r.var("f")
    if d.unroll:
        r.emit(d.unroll)
    with r.block(f"for (int {c} = 0; {c} < {rp.elems // w}; {c}++)"):
        r.emit(f"const {r.i64} {f0} = {w} * {lane} + {w * rp.lanes} * ({r.i64}){c};")
        cond = f"{f0} < {rp.n}" + (f" && {valid}" if valid else "")
        with r.block(f"if ({cond})"):
            r.idx[g] = f0
            if not stores:
                with r.block(f"if ({aligned})"):
                    for (arg, index, dt), name in cache.items():
                        q = r.var("q")
                        r.emit(f"const {vt} {q} = "
                               f"{d.vload.format(vt=vt, n=w, ptr=f'a{arg} + {r.affine(index)}')};")
                        for j in range(w):
                            r.emit(f"{name}[{w} * {c} + {j}] = {q}.{d.lanes[j]};")
                with r.block("else"):
                    for j in range(w):
                        r.idx[g] = f"({f0} + {j})"
                        for (arg, index, dt), name in cache.items():
                            r.emit(f"{name}[{w} * {c} + {j}] = "
                                   f"{r._load(arg, r.affine(index), dt)};")
            else:
                vals = {id(st): [] for st in stores}
                for j in range(w):
                    r.idx[g] = f"({f0} + {j})"
                    e = f"{w} * {c} + {j}"
                    scope = _point_scope(r, row_scope, cache, e)
                    if kept is not None:
                        scope[id(kept[0])] = f"{kept[2]}[{e}]"
                    for st in stores:
                        vals[id(st)].append(r.value(st.expr, scope))
                r.idx[g] = f0
                with r.block(f"if ({aligned})"):
                    for st in stores:
                        v = d.vmake.format(vt=vt, args=", ".join(vals[id(st)]))
                        r.emit(d.vstore.format(vt=vt, n=w, ptr=f"a{st.arg} + "
                                               f"{r.affine(st.index)}", value=v))
                with r.block("else"):
                    for j in range(w):
                        r.idx[g] = f"({f0} + {j})"
                        for st in stores:
                            r.emit(f"a{st.arg}[{r.affine(st.index)}] = {vals[id(st)][j]};")
    r.idx[g] = "0"


def _point_scope(r, row_scope, cache, e):
    """A point's value memo: the row's hoisted values and the cached loads' registers."""
    scope = dict(row_scope)
    if cache:
        for n in K.all_nodes(r.k):
            if isinstance(n, K.Load):
                name = cache.get((n.arg, n.index, np.dtype(n.dtype)))
                if name is not None:
                    scope[id(n)] = f"{name}[{e}]"
    return scope


def _hoist(r, exprs, inner_axes, rp):
    """The values of ``exprs`` that do not move along the row (loads and iotas with no
    inner coefficient, ops of those, stages already folded), computed once per row."""
    scope = {}
    if rp.n == 0:       # (no point reads them; a per-row buffer may then be empty)
        return scope
    inv = set()
    for ex in exprs:
        for n in K.walk(ex):
            if isinstance(n, (K.Load, K.IndexValue)):
                ok = all(_zero(n.index.coefs[a]) for a in inner_axes)
            elif isinstance(n, K.IndexedLoad):
                ok = all(_zero(n.index.coefs[a]) for a in inner_axes) and id(n.offset) in inv
            elif isinstance(n, K.Stage):
                ok = n.k in r.stage_vals
            elif isinstance(n, K.Op):
                ok = all(id(x) in inv for x in n.args)
            else:
                ok = isinstance(n, K.Const)
            if ok:
                inv.add(id(n))
                if isinstance(n, (K.Op, K.Load, K.IndexedLoad, K.IndexValue)):
                    r.value(n, scope)
    return scope


def _kept_value(r, rp, inner_st):
    """``(node, stage, register array)``: a costly value (a transcendental: softmax's
    ``exp(x - max)``) that stage ``stage`` computes at every point and an inner store
    needs again, kept in registers between the two passes (``loops.reused_value``; the
    same bits as computing it twice), or None."""
    if not r.d.reuse_stores:
        return None
    found = reused_value(r.k, inner_st, TRANSCENDENTAL.__contains__)
    if found is None:
        return None
    node, _, stage = found
    name = r.var("kv")
    r.emit(f"{r.d.type(node.dtype)} {name}[{max(rp.elems, 1)}];")
    return node, stage, name


def _stage_level(r, rp, js, inner, inner_axes, lane, cache, kept):
    """Stages ``js`` folded over the row: per-lane accumulators over the lane's points,
    then the lanes' pairwise tree; every lane gets the stage values."""
    ks, d = r.k.stages, r.d
    row_scope = _hoist(r, [ks[j].expr for j in js], inner_axes, rp)
    accs = {}
    for j in js:
        accs[j] = r.var("acc")
        r.emit(f"{d.type(ks[j].dtype)} {accs[j]} = {r.s.identity(ks[j].monoid, ks[j].dtype)};")
    with _points(r, rp, inner, lane) as e:
        scope = _point_scope(r, row_scope, cache, e)
        for j in js:
            x = r.typed(ks[j].expr, ks[j].dtype, scope)
            r.emit(f"{accs[j]} = {r.s.combine(ks[j].monoid, accs[j], x, ks[j].dtype)};")
        if kept is not None and kept[1] in js:
            r.emit(f"{kept[2]}[{e}] = {scope[id(kept[0])]};")
    for j in js:
        r.stage_vals[j] = r._bind(_segment_fold(r, rp, j, accs[j], lane), ks[j].dtype)


def _segment_fold(r, rp, j, acc, lane):
    """Stage ``j``'s lane partials ``acc`` folded over the segment (see the module
    docstring for the pairs); returns the C expression of lane 0's result, valid in
    every lane."""
    d, L = r.d, rp.lanes
    s = r.k.stages[j]
    dt = np.dtype(s.dtype)
    if L == 1:
        return acc
    warp = d.warp_size if d.shuffle_down_width else 0
    v = r.var("p")
    r.emit(f"{d.type(dt)} {v} = {acc};")
    if L > warp:    # pairs at offsets >= warp (all of them without shuffles) in memory
        lid, sh = d.local_id, f"sh{j}"
        r.shared.append(f"{d.shared_qual} {d.shared_type(dt)} {sh}[{d.local_size}];")
        r.emit(f"{sh}[{lid}] = {r._to_mem(v, dt)};")
        r.emit(d.barrier)
        w = r.var("w")
        with r.block(f"for (int {w} = {L // 2}; {w} >= {max(warp, 1)}; {w} >>= 1)"):
            with r.block(f"if ({lane} < {w})"):
                a, b = r.var("x"), r.var("y")
                r.emit(f"const {d.type(dt)} {a} = {r._from_mem(f'{sh}[{lid}]', dt)};")
                r.emit(f"const {d.type(dt)} {b} = {r._from_mem(f'{sh}[{lid} + {w}]', dt)};")
                r.emit(f"{sh}[{lid}] = {r._to_mem(r.s.combine(s.monoid, a, b, dt), dt)};")
            r.emit(d.barrier)
        if not warp:
            out = r._bind(r._from_mem(f"{sh}[{lid} - {lane}]", dt), dt)
            r.emit(d.barrier)     # (the slots are free for the next stage or row)
            return out
        r.emit(f"{v} = {r._from_mem(f'{sh}[{lid}]', dt)};")
    width = min(L, warp)
    o = r.var("o")
    with r.block(f"for (int {o} = {width // 2}; {o} >= 1; {o} >>= 1)"):
        q = r.var("q")
        moved = r._shuffle(d.shuffle_down_width, v, dt, offset=o, width=width)
        r.emit(f"const {d.type(dt)} {q} = {moved};")
        r.emit(f"{v} = {r.s.combine(s.monoid, v, q, dt)};")
    if L <= warp:
        return r._shuffle(d.shuffle_first, v, dt, width=width)
    # a segment of several warps: lane 0 (of its first warp) hands the result to all
    lid, sh = d.local_id, f"sh{j}"
    r.emit(f"if ({lane} == 0) {sh}[{lid}] = {r._to_mem(v, dt)};")
    r.emit(d.barrier)
    out = r._bind(r._from_mem(f"{sh}[{lid} - {lane}]", dt), dt)
    r.emit(d.barrier)
    return out
