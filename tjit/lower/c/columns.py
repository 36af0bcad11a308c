"""Accumulate-style kernels (reductions whose kept points are outside the fold: column
sums and the like) in the C-family renderer.

Without threads (``c``, ``hls``) a loop nest over the kept points, and inside it over
the reduced points in iteration order, every stage folded in that order (HLS: float
sums and products into ``dialect.partials`` interleaved accumulators, as
``hls_dialect.py`` states; a W-lane HLS stage walks the points in row-major order
instead, W kept points a step, ``lanes.render_columns``). With threads (``opencl``, ``cuda``) one work-group per tile
of ``tile`` consecutive kept points, its thread slices splitting the reduced points
(``column_split`` picks the split; the renderer's module docstring states the
summation order).
"""

import contextlib

import numpy as np

from tjit.lower.c import lanes
from tjit.lower.loops import ceil_div, prod
from tjit.xla_like import kernel_ir as K

__all__ = ["column_split", "render"]


def render(r):
    """The accumulate-style kernel of renderer ``r`` (``renderer._Renderer``); returns
    ``(work, tile, slices)`` for its ``LaunchSpec("column", ...)``."""
    k, d = r.k, r.d
    for j, s in enumerate(k.stages):
        if any(isinstance(n, K.Stage) for n in K.walk(s.expr)):
            raise ValueError(f"kernel {k.name}: accumulate-style stage {j} refers to "
                             "another stage (only row-style kernels may chain stages)")
    for st in k.stores:
        sdt = np.dtype(k.stages[st.expr.k].dtype)
        if np.dtype(k.args[st.arg].dtype) != sdt:
            raise ValueError(f"kernel {k.name}: Stage({st.expr.k}) of dtype {sdt} "
                             f"stored into argument {st.arg}")
    red = [g for g, x in enumerate(r.plan.reduce) if x]
    kept = [g for g, x in enumerate(r.plan.reduce) if not x]
    nkept = prod(r.plan.extents[g] for g in kept)
    if d.threaded:
        return _columns(r, red, kept, nkept)
    if r.lanes > 1 or any(r.io.get(i) == "stream" for i, a in enumerate(k.args)
                          if a.role == "in"):   # (HLS: W kept points a step, lanes.py;
        return lanes.render_columns(r), 1, 1    # streamed inputs need its order)
    with r.nest(kept, innermost=not red):
        _fold_stages(r, lambda: r.nest(red))
        scope = {}
        for st in k.stores:
            r.store(st, scope, kept)
    return nkept, 1, 1


def _fold_stages(r, loop):
    """Accumulators of every stage, folded over ``loop()``; they become the stage
    values."""
    k, d = r.k, r.d
    accs = {}
    for j, s in enumerate(k.stages):
        accs[j] = r.var("acc")
        r.emit(f"{d.type(s.dtype)} {accs[j]} = {r.s.identity(s.monoid, s.dtype)};")
    part = r._partials(range(len(k.stages))) if not d.threaded else {}
    with loop():
        scope = {}
        for j, s in enumerate(k.stages):
            x = r.typed(s.expr, s.dtype, scope)
            r._accumulate(j, accs[j], x, part)
        r._advance(part)
    r._fold_partials(accs, part)
    for j in range(len(k.stages)):
        r.stage_vals[j] = accs[j]
    return accs


def _columns(r, red, kept, nkept):
    """Threaded accumulate style: one work-group per tile of ``tile`` consecutive
    kept points (flat index), its ``slices = local_size / tile`` thread slices
    splitting the reduced points (slice s folds flat reduced indices s, s + slices,
    ... in order), then a pairwise tree over the slices (``r._tree_reduce``
    with stride ``tile``); slice 0 stores. One slice is the plain in-order loop."""
    d, lid = r.d, r.d.local_id
    nred = prod(r.plan.extents[g] for g in red)
    tile, slices = column_split(nkept, nred, d.local_size)
    ntiles = ceil_div(nkept, tile)
    c, sl, t, kf = r.var("c"), r.var("sl"), r.var("t"), r.var("kf")
    r.emit(f"const {r.i64} {c} = {lid} % {tile};")
    r.emit(f"const {r.i64} {sl} = {lid} / {tile};")
    with r.block(f"for ({r.i64} {t} = {d.group_id}; {t} < {r.sizes(ntiles)}; "
                 f"{t} += {d.num_groups})"):
        r.emit(f"const {r.i64} {kf} = {t} * {tile} + {c};")
        r.decompose(kf, kept, {g: r.plan.extents[g] for g in kept})
        inside = f"{kf} < {r.sizes(nkept)}"
        if slices == 1:
            loop = lambda: _guarded(r, inside, r.nest(red))
        else:
            loop = lambda: _guarded(r, inside, r.strided(red, sl, str(slices)))
        accs = _fold_stages(r, loop)
        if slices > 1:
            js = list(range(len(r.k.stages)))
            r._tree_reduce(js, accs, stride=tile, lane=c)
        with r.block(f"if ({sl} == 0 && {inside})"):
            scope = {}
            for st in r.k.stores:
                r.store(st, scope, kept)
    return ntiles, tile, slices


@contextlib.contextmanager

def _guarded(r, cond, loop):
    with r.block(f"if ({cond})"), loop:
        yield


def column_split(nkept, nred, local_size, min_groups=128):
    """``(tile, slices)`` of a threaded accumulate-style kernel, ``tile * slices ==
    local_size``: a kernel with few reduced points (< 64) or many kept ones (>= 65536)
    keeps one slice (a thread per kept point, folding in order). Otherwise tiles of 8
    kept points (32-byte memory sectors of float32), narrower while that leaves fewer
    than ``min_groups`` tiles (one group per tile is all the parallelism there is), and
    as many slices as fill the group with at least 16 reduced points each (a symbolic
    count: as many as fit).

    Measured on an H200 (float32 column sums, CUDA, 256 threads): 16384 x 1024 at
    1.2 TB/s (one thread per column: 93 GB/s); 8192 x 256 at 0.6 TB/s; with few
    columns the grid is small (one group per tile): 100000 x 32 at 218 GB/s, 2^20 x 8
    at 170 GB/s (tiles of 8 there: 127 and 17 GB/s). Four accumulators per slice (more
    loads in flight) were slower (16384 x 1024: 0.58 TB/s). Splitting the reduced
    points over groups is done a level up, as two kernels with the partials in a
    buffer between them (``xla_like/simplify.split_column_reduce``, on CUDA)."""
    few = isinstance(nred, (int, np.integer)) and nred < 64
    many = isinstance(nkept, (int, np.integer)) and nkept >= 1 << 16
    if few or many or local_size < 16:
        return local_size, 1
    tile = 8
    if isinstance(nkept, (int, np.integer)):
        while tile > 1 and nkept < tile * min_groups:
            tile //= 2
    slices = local_size // tile
    if isinstance(nred, (int, np.integer)):
        while slices > 1 and nred // slices < 16:
            slices //= 2
    return local_size // slices, slices
