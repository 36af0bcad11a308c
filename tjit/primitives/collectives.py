"""Collectives over named axes: psum, pmax, pmin, all_gather, psum_scatter, all_to_all,
ppermute and axis_index (JAX's ``jax.lax`` parallel operators).

Every primitive carries ``axes``, a tuple of axis names bound by an enclosing ``vmap``
or ``pmap`` (``tracing/axis_env.py``); its shape rule reads the sizes from there and
fails with JAX's ``NameError: unbound axis name: i`` when a name is bound nowhere. Traced
inside a ``shard_map`` over a mesh of processes, it also carries ``comms``, the mesh's
``CommunicatorTable``: its sizes and communicators then come from there, so the rules
(the transposes ``grad`` traces later included) need no binding still in force.
psum, pmax, pmin, all_gather, psum_scatter and all_to_all may carry ``axis_index_groups`` (JAX's:
the collective runs within each group of members; ``collective_groups.py``). Rules that
bind another collective pass both on (``_optional``).

Each primitive has two batching rules:

* ``axis_batch(size, name, args, dims, **params)``: the collective runs over the axis
  that this ``vmap`` maps (``name`` in ``axes``). The members of the axis are the slices
  of the batched value, so the collective becomes ordinary array ops (a reduction, a
  transpose, slices...). ``BatchTrace`` calls it even when no operand is batched
  (``psum`` of a value that does not vary is ``size * x``).
* ``batch(args, dims, **params)``: the value is batched by some other vmap; the
  collective runs on the batched value with its axes renumbered.

The reference implementation runs a collective at run time: it looks the names up in
its ``comms`` table or the communicators bound to this thread
(``axis_env.communicators_for``) and calls
``allreduce``/``allgather``/``reduce_scatter``/``alltoall``/``permute`` (the interface
in ``devices/collectives.py``) on arrays whose communicated axis is first. The lowering
is a ``collective_<name>`` library step of the plan, never fused.
"""

import numpy as np

from tjit.primitives.base import new_primitive
from tjit.primitives.collective_groups import (
    check_groups,
    grouped_exchange,
    grouped_gather,
    grouped_reduce,
    grouped_sum_scatter,
)
from tjit.primitives.elementwise import convert_element_type_p, div_p, eq_p, mul_p
from tjit.primitives.reductions import reduce_max_p, reduce_min_p, reduce_sum_p
from tjit.primitives.rules import Zero, bdim_at_front, defjvp_zero, deflinear, instantiate, moveaxis
from tjit.primitives.slicing import concatenate_p, slice_p
from tjit.primitives.structural import broadcast_in_dim_p, iota_p, reshape_p
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.axis_env import axes_size, communicators_for, thread_communicator
from tjit.tracing.core import Array, get_aval, never_weak
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str

COLLECTIVES = []   # every primitive defined here (BatchTrace asks ``axis_batch`` of them)


def _collective(name):
    p = new_primitive(name)
    COLLECTIVES.append(p)
    return p


# -- helpers -------------------------------------------------------------------------------
def _host(xp, x, where):
    if xp is not np:
        lib = str(getattr(xp, "__name__", xp)).split(".")[0]
        backend = {"cupy": "cuda", "pyopencl": "opencl"}.get(lib, lib)
        raise NotImplementedError(
            f"{where}: collectives not supported on {backend} yet (only the cpu and "
            f"interpreter backends run them); run pmap with backend='cpu', or use "
            f"vmap(axis_name=...), which turns collectives into array ops on any backend")
    return _c_order(x)


def _c_order(x):
    return np.asarray(x, order="C")   # (np.ascontiguousarray would make a 0-d array 1-d)


def _reshape(x, shape):
    return reshape_p.bind(x, new_sizes=tuple(shape), dimensions=None)


def _optional(comms=None, axis_index_groups=None):
    """The ``comms`` and ``axis_index_groups`` params of a collective bound by a rule:
    present only when set (so the jaxprs of plain vmap and pmap programs do not change)."""
    out = {} if comms is None else {"comms": comms}
    if axis_index_groups is not None:
        out["axis_index_groups"] = axis_index_groups
    return out


def _communicators(axes, where, comms, groups, allow_split=False):
    """This member's communicator(s) for a collective over ``axes``; with
    ``axis_index_groups``, the one of its group (a sub-communicator)."""
    got = communicators_for(axes, where, allow_split, comms)
    return got if groups is None else [got[0].subgroup(groups)]


def _group_size(where, axes, n, groups, equal_sizes=False):
    """The number of members a collective combines: the axes' size ``n``, or with
    ``axis_index_groups`` (over one name) the size of the groups, checked."""
    if groups is None:
        return n
    if len(axes) != 1:
        raise NotImplementedError(f"{where}: axis_index_groups over several axis names "
                                  f"{axes}; give one name")
    check_groups(where, groups, n, equal_sizes)
    return len(groups[0])


def _scalar_like(x, value):
    return Array(np.asarray(value, _aval(x).dtype))


_aval = get_aval


def _check_axis(where, what, axis, ndim, shape):
    if not -ndim <= axis < ndim:
        fix = f"use an axis in [{-ndim}, {ndim})" if ndim else "it has no axis: reshape it"
        raise ShapeError(f"{where}: {what}={axis} is out of range for an operand of shape "
                         f"{shape_str(shape)}; {fix}")


def _single_name(where, axes):
    if len(axes) != 1:
        raise NotImplementedError(
            f"{where} over several axes {axes} under vmap is not supported; apply it "
            f"over one axis name at a time")
    return axes[0]


def _merge(x, first):
    """``x`` with dims ``first`` and ``first + 1`` merged (row-major)."""
    s = tuple(_aval(x).shape)
    return _reshape(x, s[:first] + (s[first] * s[first + 1],) + s[first + 2:])


def _split(x, dim, n):
    """``x`` with dim ``dim`` split into ``(n, size // n)``."""
    s = tuple(_aval(x).shape)
    return _reshape(x, s[:dim] + (n, s[dim] // n) + s[dim + 1:])


def _def_axis_batch(prim, rule):
    """Install ``rule`` as ``prim.axis_batch``, checking one member's operands with the
    shape rule first (so a bad shape gets the same error under vmap as under pmap)."""
    def checked(size, axis, args, dims, **params):
        members = []
        for x, d in zip(args, dims):
            a = get_aval(x)
            if d is not None:
                a = ShapedArray(a.shape[:d] + a.shape[d + 1:], a.dtype, a.weak_type)
            members.append(a)
        prim.abstract_eval(*members, **params)
        return rule(size, axis, args, dims, **params)
    prim.axis_batch = checked


def _lower_as_step(prim, fast=None):
    """A ``collective_<name>`` library step that runs the reference implementation with
    the communicators bound when the plan runs. ``fast(x, comm)``: the call for one
    contiguous host buffer and one communicator serving the whole of ``axes``, which
    skips the implementation's checks and lookups, a few of the µs a small collective
    across processes costs (the mesh's communicator, when the step carries its table,
    is found once here)."""
    def lowering(ctx, *ins, **params):
        impl = prim.impl
        axes, table = params.get("axes"), params.get("comms")
        key = axes[0] if len(axes) == 1 else axes
        use_fast = fast is not None and "axis_index_groups" not in params
        fixed = None if table is None else table.communicators.get(key)

        def fn(xp, env, *arrays):
            if use_fast and xp is np and len(arrays) == 1:
                x = arrays[0]
                if type(x) is np.ndarray and x.flags.c_contiguous:
                    comm = fixed or thread_communicator(key)
                    if comm is not None:
                        return [fast(x, comm)]
            return [impl(xp, *arrays, **params)]
        return ctx.library(f"collective_{prim.name}", fn, list(ins),
                           [(a.shape, a.dtype) for a in ctx.avals_out],
                           primitive=prim, params=params)[0]
    prim.lowering = lowering


# -- psum / pmax / pmin ------------------------------------------------------------------------
def _reduction_collective(name, op, local_reduce_p):
    p = _collective(name)

    @p.def_abstract_eval
    def abstract(x, *, axes, comms=None, axis_index_groups=None):
        _group_size(name, axes, axes_size(axes, comms), axis_index_groups)  # (or raises)
        if dtypes.is_bool(x.dtype):
            raise TypeError(f"{name}: operand must be numeric, got bool; convert it first "
                            f"(lax.{name} of bools works on int32)")
        return ShapedArray(x.shape, x.dtype)

    @p.def_impl
    def impl(xp, x, *, axes, comms=None, axis_index_groups=None):
        if xp is not np or type(x) is not np.ndarray or not x.flags.c_contiguous:
            x = _host(xp, x, name)   # (a plan's buffer needs neither check nor copy)
        for comm in _communicators(axes, name, comms, axis_index_groups, True):
            x = np.asarray(comm.allreduce(x, op))
        return x

    def axis_batch(size, axis, args, dims, *, axes, comms=None, axis_index_groups=None):
        (x,), (d,) = args, dims
        if axis_index_groups is not None:   # (over this one axis)
            return grouped_reduce(bdim_at_front(x, d, size), axis_index_groups,
                                  local_reduce_p), 0
        if d is None:
            y = mul_p.bind(x, _scalar_like(x, size)) if op == "sum" else x
        else:
            y = local_reduce_p.bind(x, axes=(d,))
        rest = tuple(a for a in axes if a != axis)
        return (p.bind(y, axes=rest, **_optional(comms)) if rest else y), None

    _def_axis_batch(p, axis_batch)
    p.batch = lambda args, dims, **params: (p.bind(args[0], **params), dims[0])
    _lower_as_step(p, fast=lambda x, comm: comm.allreduce(x, op))
    return p


psum_p = _reduction_collective("psum", "sum", reduce_sum_p)
pmax_p = _reduction_collective("pmax", "max", reduce_max_p)
pmin_p = _reduction_collective("pmin", "min", reduce_min_p)

deflinear(psum_p, lambda ct, x, *, axes, **opt: [
    Zero(x.aval) if type(ct) is Zero else psum_p.bind(ct, axes=axes, **_optional(**opt))])


def _extreme_jvp(prim):
    """The tangent of the members holding the extreme value (ties share it equally, as
    the reduce_max/min gradient does)."""
    def rule(primals, tangents, *, axes, **opt):
        (x,), (t,) = primals, tangents
        where = {"axes": axes, **_optional(**opt)}
        out = prim.bind(x, **where)
        if type(t) is Zero:
            return out, Zero.from_value(out)
        dt = _aval(x).dtype
        hit = convert_element_type_p.bind(eq_p.bind(x, out), new_dtype=dt, weak_type=False)
        count = psum_p.bind(hit, **where)
        return out, div_p.bind(psum_p.bind(mul_p.bind(instantiate(t), hit), **where), count)
    prim.jvp = rule


_extreme_jvp(pmax_p)
_extreme_jvp(pmin_p)


# -- all_gather ----------------------------------------------------------------------------------
all_gather_p = _collective("all_gather")


@all_gather_p.def_abstract_eval
def _all_gather_abstract(x, *, axes, all_gather_dimension, axis_size, tiled, comms=None,
                         axis_index_groups=None):
    n = _group_size("all_gather", axes, axes_size(axes, comms), axis_index_groups, True)
    if n != axis_size:
        raise ShapeError(f"all_gather: axis_size={axis_size} but the axes {axes} have size {n}")
    s, a = tuple(x.shape), all_gather_dimension
    if tiled:
        _check_axis("all_gather", "axis", a, len(s), s)
        return ShapedArray(s[:a] + (s[a] * n,) + s[a + 1:], x.dtype)
    if not 0 <= a <= len(s):
        raise ShapeError(f"all_gather: axis={a} is out of range for an operand of shape "
                         f"{shape_str(s)} (the new axis goes in [0, {len(s)}])")
    return ShapedArray(s[:a] + (n,) + s[a:], x.dtype)


def _split_dim(x, d, n):
    """NumPy ``x`` with dim ``d`` split into (n, x.shape[d] // n). (Sizes stated, not -1:
    NumPy cannot infer -1 in an empty array's reshape, and operands may be empty.)"""
    return x.reshape(x.shape[:d] + (n, x.shape[d] // n) + x.shape[d + 1:])


def _merge_dims(x, d):
    """NumPy ``x`` with dims ``d`` and ``d + 1`` merged (sizes stated, as _split_dim)."""
    s = x.shape
    return x.reshape(s[:d] + (s[d] * s[d + 1],) + s[d + 2:])


@all_gather_p.def_impl
def _all_gather_impl(xp, x, *, axes, all_gather_dimension, axis_size, tiled, comms=None,
                     axis_index_groups=None):
    (comm,) = _communicators(axes, "all_gather", comms, axis_index_groups)
    g = np.moveaxis(np.asarray(comm.allgather(_host(xp, x, "all_gather"))), 0,
                    all_gather_dimension)
    if tiled:
        g = _merge_dims(g, all_gather_dimension)
    return _c_order(g)


def _all_gather_axis_batch(size, axis, args, dims, *, axes, all_gather_dimension,
                           axis_size, tiled, comms=None, axis_index_groups=None):
    _single_name("all_gather", axes)
    x = bdim_at_front(args[0], dims[0], size)
    if axis_index_groups is not None:   # (each member: its group's rows)
        g = moveaxis(grouped_gather(x, axis_index_groups), 1, 1 + all_gather_dimension)
        return (_merge(g, 1 + all_gather_dimension) if tiled else g), 0
    g = moveaxis(x, 0, all_gather_dimension)
    return (_merge(g, all_gather_dimension) if tiled else g), None


def _all_gather_batch(args, dims, *, all_gather_dimension, **params):
    x = moveaxis(args[0], dims[0], 0)
    return all_gather_p.bind(x, all_gather_dimension=all_gather_dimension + 1, **params), 0


_def_axis_batch(all_gather_p, _all_gather_axis_batch)
all_gather_p.batch = _all_gather_batch
_lower_as_step(all_gather_p)

# -- psum_scatter -------------------------------------------------------------------------------
psum_scatter_p = _collective("psum_scatter")


@psum_scatter_p.def_abstract_eval
def _psum_scatter_abstract(x, *, axes, scatter_dimension, axis_size, tiled, comms=None,
                           axis_index_groups=None):
    n = _group_size("psum_scatter", axes, axes_size(axes, comms), axis_index_groups, True)
    s, d = tuple(x.shape), scatter_dimension
    _check_axis("psum_scatter", "scatter_dimension", d, len(s), s)
    if tiled:
        if s[d] % n:
            raise ShapeError(f"psum_scatter: dim {d} of the operand (shape {shape_str(s)}) "
                             f"must be a multiple of the size {n} of axes {axes} when "
                             f"tiled=True; pad it or pick another scatter_dimension")
        return ShapedArray(s[:d] + (s[d] // n,) + s[d + 1:], x.dtype)
    if s[d] != n:
        raise ShapeError(f"psum_scatter: dim {d} of the operand (shape {shape_str(s)}) must "
                         f"equal the size {n} of axes {axes}; use tiled=True to scatter "
                         f"blocks of a larger dim")
    return ShapedArray(s[:d] + s[d + 1:], x.dtype)


@psum_scatter_p.def_impl
def _psum_scatter_impl(xp, x, *, axes, scatter_dimension, axis_size, tiled, comms=None,
                       axis_index_groups=None):
    (comm,) = _communicators(axes, "psum_scatter", comms, axis_index_groups)
    x = _host(xp, x, "psum_scatter")
    if tiled:
        x = _split_dim(x, scatter_dimension, axis_size)
    x = _c_order(np.moveaxis(x, scatter_dimension, 0))
    y = np.asarray(comm.reduce_scatter(x, "sum"))
    return _c_order(y)


def _psum_scatter_axis_batch(size, axis, args, dims, *, axes, scatter_dimension, axis_size,
                             tiled, comms=None, axis_index_groups=None):
    _single_name("psum_scatter", axes)
    (x,), (d,) = args, dims
    if axis_index_groups is not None:
        return grouped_sum_scatter(bdim_at_front(x, d, size), axis_index_groups,
                                   reduce_sum_p, scatter_dimension, tiled), 0
    y = mul_p.bind(x, _scalar_like(x, size)) if d is None else reduce_sum_p.bind(x, axes=(d,))
    if tiled:
        y = _split(y, scatter_dimension, size)
    return y, scatter_dimension


def _psum_scatter_batch(args, dims, *, scatter_dimension, **params):
    x = moveaxis(args[0], dims[0], 0)
    return psum_scatter_p.bind(x, scatter_dimension=scatter_dimension + 1, **params), 0


_def_axis_batch(psum_scatter_p, _psum_scatter_axis_batch)
psum_scatter_p.batch = _psum_scatter_batch
_lower_as_step(psum_scatter_p)


def _all_gather_transpose(ct, x, *, axes, all_gather_dimension, axis_size, tiled, **opt):
    if type(ct) is Zero:
        return [Zero(x.aval)]
    return [psum_scatter_p.bind(ct, axes=axes, scatter_dimension=all_gather_dimension,
                                axis_size=axis_size, tiled=tiled, **_optional(**opt))]


def _psum_scatter_transpose(ct, x, *, axes, scatter_dimension, axis_size, tiled, **opt):
    if type(ct) is Zero:
        return [Zero(x.aval)]
    return [all_gather_p.bind(ct, axes=axes, all_gather_dimension=scatter_dimension,
                              axis_size=axis_size, tiled=tiled, **_optional(**opt))]


deflinear(all_gather_p, _all_gather_transpose)
deflinear(psum_scatter_p, _psum_scatter_transpose)

# -- all_to_all (the tiled form; lax.all_to_all adds the untiled one) -----------------------------
all_to_all_p = _collective("all_to_all")


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract(x, *, axes, split_axis, concat_axis, axis_size, comms=None,
                         axis_index_groups=None):
    n = _group_size("all_to_all", axes, axes_size(axes, comms), axis_index_groups, True)
    if n != axis_size:
        raise ShapeError(f"all_to_all: axis_size={axis_size} but the axes {axes} have "
                         f"{'groups of ' if axis_index_groups else ''}size {n}")
    s = tuple(x.shape)
    _check_axis("all_to_all", "split_axis", split_axis, len(s), s)
    _check_axis("all_to_all", "concat_axis", concat_axis, len(s), s)
    if s[split_axis] % n:
        what = "the size of its axis_index_groups" if axis_index_groups else "the size"
        raise ShapeError(f"all_to_all: dim split_axis={split_axis} of the operand (shape "
                         f"{shape_str(s)}) must be a multiple of {what} {n} of axes {axes}")
    out = list(s)
    out[split_axis] //= n
    out[concat_axis] *= n
    return ShapedArray(tuple(out), x.dtype)


@all_to_all_p.def_impl
def _all_to_all_impl(xp, x, *, axes, split_axis, concat_axis, axis_size, comms=None,
                     axis_index_groups=None):
    (comm,) = _communicators(axes, "all_to_all", comms, axis_index_groups)
    x = _host(xp, x, "all_to_all")
    x = _split_dim(x, split_axis, axis_size)
    y = np.asarray(comm.alltoall(_c_order(np.moveaxis(x, split_axis, 0))))
    return _c_order(_merge_dims(np.moveaxis(y, 0, concat_axis), concat_axis))


def _all_to_all_members(x, size, split_axis, concat_axis):
    """``x``: the ``size`` members' operands, members first; their results, likewise."""
    x = moveaxis(_split(x, 1 + split_axis, size), 1 + split_axis, 0)  # (r, m) + chunk
    x = moveaxis(x, 1, 1 + concat_axis)                # (r,) + chunk with m before concat
    return _merge(x, 1 + concat_axis)


def _all_to_all_axis_batch(size, axis, args, dims, *, axes, split_axis, concat_axis,
                           axis_size, comms=None, axis_index_groups=None):
    _single_name("all_to_all", axes)
    x = bdim_at_front(args[0], dims[0], size)          # (member m,) + shape
    if axis_index_groups is not None:   # (an exchange within each group, in group order)
        return grouped_exchange(x, axis_index_groups, lambda rows: _all_to_all_members(
            rows, axis_size, split_axis, concat_axis)), 0
    return _all_to_all_members(x, size, split_axis, concat_axis), 0


def _all_to_all_batch(args, dims, *, split_axis, concat_axis, **params):
    x = moveaxis(args[0], dims[0], 0)
    return all_to_all_p.bind(x, split_axis=split_axis + 1, concat_axis=concat_axis + 1,
                             **params), 0


_def_axis_batch(all_to_all_p, _all_to_all_axis_batch)
all_to_all_p.batch = _all_to_all_batch
_lower_as_step(all_to_all_p)
deflinear(all_to_all_p, lambda ct, x, *, axes, split_axis, concat_axis, axis_size, **opt: [
    Zero(x.aval) if type(ct) is Zero else all_to_all_p.bind(
        ct, axes=axes, split_axis=concat_axis, concat_axis=split_axis, axis_size=axis_size,
        **_optional(**opt))])

# -- ppermute ------------------------------------------------------------------------------------
ppermute_p = _collective("ppermute")


@ppermute_p.def_abstract_eval
def _ppermute_abstract(x, *, axes, perm, comms=None):
    n = axes_size(axes, comms)
    srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute: perm {perm} sends from or to a member twice; each "
                         f"source and each destination may appear once")
    bad = [i for i in srcs + dsts if not 0 <= i < n]
    if bad:
        raise ValueError(f"ppermute: perm {perm} names member {bad[0]}, outside the axis "
                         f"{axes} of size {n}")
    return ShapedArray(x.shape, x.dtype)


@ppermute_p.def_impl
def _ppermute_impl(xp, x, *, axes, perm, comms=None):
    (comm,) = communicators_for(axes, "ppermute", table=comms)
    return np.asarray(comm.permute(_host(xp, x, "ppermute"), perm))


def _ppermute_axis_batch(size, axis, args, dims, *, axes, perm, comms=None):
    _single_name("ppermute", axes)
    x = bdim_at_front(args[0], dims[0], size)
    shape = tuple(_aval(x).shape)
    src_of = {d: s for s, d in perm}
    pieces = []
    for r in range(size):
        if r in src_of:
            s = src_of[r]
            pieces.append(slice_p.bind(x, start_indices=(s,) + (0,) * (len(shape) - 1),
                                       limit_indices=(s + 1,) + shape[1:], strides=None))
        else:
            pieces.append(broadcast_in_dim_p.bind(_scalar_like(x, 0), shape=(1,) + shape[1:],
                                                  broadcast_dimensions=()))
    return concatenate_p.bind(*pieces, dimension=0), 0


_def_axis_batch(ppermute_p, _ppermute_axis_batch)
ppermute_p.batch = lambda args, dims, **params: (ppermute_p.bind(args[0], **params), dims[0])
_lower_as_step(ppermute_p)
deflinear(ppermute_p, lambda ct, x, *, axes, perm, comms=None: [
    Zero(x.aval) if type(ct) is Zero else ppermute_p.bind(
        ct, axes=axes, perm=tuple((d, s) for s, d in perm), **_optional(comms))])

# -- axis_index ----------------------------------------------------------------------------------
axis_index_p = _collective("axis_index")


@axis_index_p.def_abstract_eval
def _axis_index_abstract(*, axes, comms=None):
    axes_size(axes, comms)
    return ShapedArray((), np.dtype(np.int32))


@axis_index_p.def_impl
def _axis_index_impl(xp, *, axes, comms=None):
    (comm,) = communicators_for(axes, "axis_index", table=comms)
    return np.asarray(comm.rank, np.int32)


def _axis_index_axis_batch(size, axis, args, dims, *, axes, comms=None):
    _single_name("axis_index", axes)
    return iota_p.bind(dtype=np.dtype(np.int32), shape=(size,), dimension=0), 0


axis_index_p.def_weak_type(never_weak)
_def_axis_batch(axis_index_p, _axis_index_axis_batch)
# (no operands: a vmap over another axis never sees it batched; its own axis: axis_batch)
axis_index_p.batch = lambda args, dims, **params: (axis_index_p.bind(**params), None)
defjvp_zero(axis_index_p)
axis_index_p.not_differentiable = True
_lower_as_step(axis_index_p)
