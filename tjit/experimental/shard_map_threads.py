"""``jit(shard_map(f, mesh, ...))`` over a mesh of CPU devices of which this process runs
several (``TJIT_NUM_CPU_DEVICES=N``, alone or in each of ``mpiexec -n P`` processes), run
as pmap runs: one compiled program per device on the devices' worker threads, with the
collectives between them.

Traced into ``jit``, the shard_map becomes one ``shard_map`` equation (``shard_map_p``)
whose ``body`` is the per-block jaxpr; the enclosing plan runs it as one library step:

1. each operand (the global value) is cut into the devices' blocks (its in_spec's
   ``NamedSharding``);
2. ``body`` is compiled once as one member's program (``compile_spmd``, the mesh axes
   bound to their sizes) and run on every device's thread (``pmap_runtime.run_bound``),
   each device bound to the thread communicators of its groups along every axis and
   tuple of axes;
3. each output is assembled from the blocks by its out_spec (along an axis the spec
   leaves out, the copy of the device at index 0: the vmap form's choice).

Over a mesh spanning processes every process runs the step (SPMD) on the same global
values: it cuts and runs its own devices' blocks, bound to hierarchical communicators
(threads, then MPI: ``distributed/mesh_groups.py``), and an output comes back whole in
every process: allgathered over the processes, unless check_rep proved its copies equal
and each process holds a block at every place of it (then assembled from its own).

The values are those of the definition, the nested ``vmap(axis_name=...)`` form of
``shard_map_traced.py``. Differentiation keeps the threads: the jvp is the threaded call
of the body's jvp, a linear map whose stated transpose is the threaded call of the
body's vjp (``linear_call``), so ``jit(grad(...))`` runs its forward and backward passes
on the devices' threads (the backward call recomputes the forward per device). Batching
(``vmap``) expands the equation into the definition.
"""

import itertools
import weakref

import numpy as np

from tjit import jvp, lax, vjp, vmap
from tjit.api import ShapeDtypeStruct
from tjit.custom_derivatives import linear_call
from tjit.devices.collectives import ThreadGroup
from tjit.devices.pmap_runtime import run_bound
from tjit.distributed import runtime
from tjit.distributed.arrays import process_allgather
from tjit.distributed.mesh_groups import mesh_communicators
from tjit.experimental.shard_map_traced import vmap_form
from tjit.parallel import _bound, compile_spmd
from tjit.primitives.base import new_primitive
from tjit.primitives.rules import Zero, instantiate
from tjit.sharding import NamedSharding, device_process_index
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.jaxpr import ClosedJaxpr, eval_jaxpr
from tjit.tracing.jaxpr_trace import convert_constvars_jaxpr, trace_to_jaxpr

shard_map_p = new_primitive("shard_map", multiple_results=True)
_programs = weakref.WeakKeyDictionary()   # body -> its compiled per-device program
_derived = weakref.WeakKeyDictionary()    # body -> (its jvp body, its vjp body)
_coverage = {}   # (mesh, out_spec) -> whether each process holds a block at every place


def runs_on_threads(mesh):
    """Whether a traced shard_map over ``mesh`` runs on the devices' threads: CPU
    devices, several of them in this process (the others, if any, in other processes,
    each running its own in the same way)."""
    return (len(mesh.local_devices) > 1
            and all(d.platform == "cpu" for d in mesh.devices.flat))


def threaded_call(per_block, mesh, specs, out_specs, leaves, block_avals, where,
                  check_rep=False, local=False):
    """Bind ``shard_map_p`` for ``per_block`` (flat blocks -> flat outputs) at the global
    argument ``leaves``; returns the flat global outputs (``out_specs``: one PartitionSpec
    per output leaf; ``check_rep``: each output is proven the same on every device along
    the axes its out_spec leaves out; ``local``: arguments and outputs are this process's
    devices' blocks put together, not global values: a traced pmap, see
    ``local_shape``)."""
    with _bound([(n, mesh.shape[n]) for n in mesh.axis_names]):
        closed = trace_to_jaxpr(per_block, [ShapedArray(a.shape, a.dtype, a.weak_type)
                                            for a in block_avals], where)
    jaxpr, consts = convert_constvars_jaxpr(closed)
    replicated = type(specs[0])() if specs else None
    in_specs = (replicated,) * len(consts) + tuple(specs)
    return shard_map_p.bind(*consts, *leaves, body=ClosedJaxpr(jaxpr, []), mesh=mesh,
                            in_specs=in_specs,
                            out_specs=tuple(out_specs), where=where,
                            check_rep=bool(check_rep), local=bool(local))


# -- rules ------------------------------------------------------------------------------
def _global_shape(mesh, spec, block):
    return tuple(b * int(np.prod([mesh.shape[a] for a in spec.axes_of(d)], dtype=np.int64))
                 for d, b in enumerate(block))


@shard_map_p.def_abstract_eval
def _abstract(*avals, body, mesh, in_specs, out_specs, where, check_rep, local):
    shape_of = local_shape if local else _global_shape
    return [ShapedArray(shape_of(mesh, spec, a.shape), a.dtype)
            for a, spec in zip(body.out_avals, out_specs)]


shard_map_p.def_weak_type(lambda *weak, body, **params: [a.weak_type
                                                          for a in body.out_avals])


@shard_map_p.def_impl
def _impl(xp, *args, body, mesh, in_specs, out_specs, where, check_rep, local):
    if xp is not np:
        raise NotImplementedError(f"{where}: a shard_map over CPU devices runs on the host; "
                                  f"compile it for the cpu backend")
    if local:
        return _impl_local(args, body, mesh, in_specs, out_specs)
    # every process runs this step (SPMD) with the global values; it cuts and runs the
    # blocks of its own devices only
    devices = local_mesh_devices(mesh, where)
    per_device = [[] for _ in devices]
    for x, spec in zip(args, in_specs):
        x = np.asarray(x)
        index = NamedSharding(mesh, spec).devices_indices_map(x.shape)
        for k, d in enumerate(devices):
            per_device[k].append(np.asarray(x[index[d]], order="C"))
    outs = run_bound(_program(body, mesh), per_device, _communicators(mesh, devices))
    result = []
    for i, (a, spec) in enumerate(zip(body.out_avals, out_specs)):
        shape = _global_shape(mesh, spec, a.shape)
        blocks, devs = [o[i] for o in outs], devices
        if mesh.is_multi_process and not (check_rep and _covered_by_each_process(mesh, spec)):
            blocks = _from_every_process(mesh, blocks)   # (each process needs the whole)
            devs = list(mesh.devices.flat)
        glob = np.empty(shape, a.dtype)
        index = NamedSharding(mesh, spec).devices_indices_map(shape)
        for k in reversed(range(len(devs))):   # (device 0's copy last: it stays)
            glob[index[devs[k]]] = np.asarray(blocks[k])
        result.append(glob)
    return result


def local_mesh_devices(mesh, where):
    """The devices of ``mesh`` that this process runs, in mesh order; a mesh over several
    processes must span them all (its outputs are gathered from every process)."""
    if not mesh.is_multi_process:
        return list(mesh.devices.flat)
    rt = runtime.require(where)
    procs = {device_process_index(d) for d in mesh.devices.flat}
    if rt is None or procs != set(range(rt.size)):
        raise runtime.DistributedError(
            f"{where}: traced into jit/grad/jvp, a shard_map over {mesh!s} (processes "
            f"{sorted(procs)}) needs a mesh over the devices of every process of this run "
            f"({0 if rt is None else rt.size} processes; tjit.make_mesh uses tjit.devices())")
    return mesh.local_devices


def _communicators(mesh, devices):
    """Per device of ``devices``, its communicator for every axis and tuple of axes:
    thread groups within this process; across processes hierarchical ones (threads,
    then MPI), whose MPI splits are made once per mesh."""
    keys = axis_keys(mesh)
    if mesh.is_multi_process:
        return mesh_communicators(mesh, devices, keys, axis_group)
    return thread_communicators(mesh, devices, keys)


def _from_every_process(mesh, blocks):
    """Every mesh device's block of one output (mesh order), from ``blocks`` (this
    process's devices'): stacked and allgathered over the processes (process p's are its
    devices' in mesh order)."""
    every = process_allgather(np.stack([np.asarray(b) for b in blocks]))  # (P, n, ...)
    mesh_devices = list(mesh.devices.flat)
    place = {d: k for k, d in enumerate(mesh_devices)}
    full = [None] * len(mesh_devices)
    for p in range(every.shape[0]):
        mine = [d for d in mesh_devices if device_process_index(d) == p]
        for j, d in enumerate(mine):
            full[place[d]] = every[p, j]
    return full


def _covered_by_each_process(mesh, spec):
    """Whether every process's devices hold a block at each place of an output laid out
    by ``spec``: then, its copies along the other axes being equal (check_rep), each
    process assembles the global value alone (a replicated P() output, or one split only
    over axes within processes). The same answer in every process, which all take the
    same branch."""
    key = (mesh, spec)
    got = _coverage.get(key)
    if got is None:
        sharding = NamedSharding(mesh, spec)
        places = {}
        for d in mesh.devices.flat:
            places.setdefault(device_process_index(d), set()).add(
                tuple(sharding.shard_index(d, k) for k in range(len(spec))))
        got = _coverage[key] = all(p == set.union(*places.values())
                                   for p in places.values())
    return got


def _program(body, mesh):
    prog = _programs.get(body)
    if prog is None:
        def run_body(*blocks):
            return eval_jaxpr(body.jaxpr, body.consts, *blocks)
        example = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in body.in_avals]
        prog = _programs[body] = compile_spmd(run_body, mesh.shape, example, backend="cpu")
    return prog


def _lowering(ctx, *ins, **params):
    def fn(xp, env, *arrays):
        return _impl(xp, *arrays, **params)
    return ctx.library("shard_map", fn, list(ins),
                       [(a.shape, a.dtype) for a in ctx.avals_out],
                       primitive=shard_map_p, params=params)


def _impl_local(args, body, mesh, in_specs, out_specs):
    """The ``local`` form (a traced pmap): this process's devices take consecutive
    blocks of the arguments split over the axis and the whole of the others; outputs
    put their blocks together, or are device 0's."""
    devices = mesh.local_devices
    n = len(devices)

    def block(x, spec, k):
        if not spec.mesh_axes():
            return x
        b = x.shape[0] // n
        return np.ascontiguousarray(x[k * b:(k + 1) * b])
    per_device = [[block(np.asarray(x), spec, k) for x, spec in zip(args, in_specs)]
                  for k in range(n)]
    outs = run_bound(_program(body, mesh), per_device, _communicators(mesh, devices))
    return [np.concatenate([np.asarray(o[i]) for o in outs]) if spec.mesh_axes()
            else np.array(outs[0][i]) for i, spec in enumerate(out_specs)]


def local_shape(mesh, spec, block):
    """The shape of this process's part of a value split by ``spec`` into blocks of
    ``block``, in the ``local`` form: a 1-D mesh, a spec splitting dim 0 or nothing, and
    the process's devices consecutive on the axis (pmap's layout)."""
    if not spec.mesh_axes():
        return tuple(block)
    return (block[0] * len(mesh.local_devices),) + tuple(block[1:])


def _expanded(body, mesh, in_specs, out_specs, where, check_rep, local):
    """The definition: the body under one vmap(axis_name) per mesh axis."""
    if local:
        raise NotImplementedError(f"{where}: vmap of a traced pmap over several devices "
                                  f"in each of several processes; vmap inside the pmap")

    def per_block(*blocks):
        return eval_jaxpr(body.jaxpr, body.consts, *blocks)

    def fn(*args):
        return vmap_form(per_block, mesh, list(in_specs), list(out_specs), list(args), where)
    return fn


def _jvp(primals, tangents, **params):
    """Outputs by the threaded call; tangents by a threaded call of the body's jvp, a
    linear map in them whose transpose is a threaded call of the body's vjp
    (``linear_call``), so reverse mode runs on the devices' threads too (its backward
    call recomputes the body's forward pass per device). Integer operands take no
    tangent, integer outputs a zero one."""
    body = params["body"]
    outs = shard_map_p.bind(*primals, **params)
    diff_in, diff_out = _differentiable(body)
    if not diff_out or all(type(tangents[i]) is Zero for i in diff_in):
        return outs, [Zero.from_value(o) for o in outs]
    tangent_map, cotangent_map = _derived_maps(**params)
    t_diff = linear_call(tangent_map, cotangent_map, tuple(primals),
                         tuple(instantiate(tangents[i]) for i in diff_in))
    t_outs = [Zero.from_value(o) for o in outs]
    for j, t in zip(diff_out, t_diff):
        t_outs[j] = t
    return outs, t_outs


def _differentiable(body):
    """The positions of the body's floating (or complex) inputs and outputs."""
    return ([i for i, a in enumerate(body.in_avals) if dtypes.is_inexact(a.dtype)],
            [j for j, a in enumerate(body.out_avals) if dtypes.is_inexact(a.dtype)])


def _derived_maps(body, mesh, in_specs, out_specs, where, check_rep, local):
    """(tangent map, cotangent map) of the shard_map: functions of (primals, tangents
    of the floating inputs) and (primals, cotangents of the floating outputs) that bind
    it with the body's jvp and vjp."""
    bodies = _derived.get(body)
    if bodies is None:
        bodies = _derived[body] = _derived_bodies(body, mesh, in_specs, out_specs, where,
                                                  local)
    jvp_body, vjp_body, ct_specs = bodies
    diff_in, diff_out = _differentiable(body)
    t_specs = tuple(in_specs[i] for i in diff_in)
    common = {"mesh": mesh, "where": where, "local": local}

    # (tangents of outputs proven replicated are too; input cotangents are psum'd over
    # the axes their specs leave out, so replicated there)
    def tangent_map(primals, tangents):
        return shard_map_p.bind(*primals, *tangents, body=jvp_body,
                                in_specs=in_specs + t_specs,
                                out_specs=tuple(out_specs[j] for j in diff_out),
                                check_rep=check_rep, **common)

    def cotangent_map(primals, cts):
        got = shard_map_p.bind(*primals, *cts, body=vjp_body,
                               in_specs=in_specs + tuple(out_specs[j] for j in diff_out),
                               out_specs=ct_specs, check_rep=True, **common)
        # (local form: an input the axis does not split came back one row per device)
        return tuple(lax.reduce_sum(c, (0,)) if s != spec else c
                     for c, s, spec in zip(got, ct_specs, t_specs))
    return tangent_map, cotangent_map


def _derived_bodies(body, mesh, in_specs, out_specs, where, local):
    """The per-block jvp (primals, floating inputs' tangents -> floating outputs'
    tangents) and vjp (primals, their cotangents -> the floating inputs' cotangents) of
    ``body``, and the vjp's out_specs. As the definition: an output the specs leave
    unsplit along some axes is the copy at index 0 there, so only that device gets its
    cotangent; an input they leave unsplit is broadcast, so its cotangent is the sum
    over those axes. In the local form (a traced pmap) those are this process's
    devices: its device 0, and a sum over its devices (each device's cotangent comes
    back as a row, summed by the caller)."""
    def run(*blocks):
        return eval_jaxpr(body.jaxpr, body.consts, *blocks)

    n = len(body.in_avals)
    diff_in, diff_out = _differentiable(body)
    n_local = len(mesh.local_devices)

    def on_diff(prim):
        def fn(*d):
            full = list(prim)
            for i, v in zip(diff_in, d):
                full[i] = v
            outs = run(*full)
            return [outs[j] for j in diff_out]
        return fn

    def jvp_block(*blocks):
        prim = blocks[:n]
        return list(jvp(on_diff(prim), tuple(prim[i] for i in diff_in),
                        tuple(blocks[n:]))[1])

    def vjp_block(*blocks):
        prim = blocks[:n]
        cts = [_only_at_index_0(c, _unsplit(mesh, out_specs[j]), n_local if local else 0)
               for c, j in zip(blocks[n:], diff_out)]
        cts_in = vjp(on_diff(prim), *[prim[i] for i in diff_in])[1](cts)
        if local:
            return [c if in_specs[i].mesh_axes() else c[None]
                    for c, i in zip(cts_in, diff_in)]
        return [_summed(c, _unsplit(mesh, in_specs[i])) for c, i in zip(cts_in, diff_in)]

    avals = list(body.in_avals)
    ct_specs = tuple(in_specs[i] if not local or in_specs[i].mesh_axes()
                     else type(in_specs[i])(mesh.axis_names[0]) for i in diff_in)
    return (_trace_body(jvp_block, avals + [avals[i] for i in diff_in], mesh,
                        where + " (jvp)"),
            _trace_body(vjp_block, avals + [body.out_avals[j] for j in diff_out], mesh,
                        where + " (vjp)"),
            ct_specs)


def _unsplit(mesh, spec):
    return tuple(a for a in mesh.axis_names if a not in spec.mesh_axes())


def _only_at_index_0(ct, axes, per_process=0):
    """``ct`` on the device at index 0 along ``axes`` (``per_process``: at index 0 of
    each process's consecutive devices: the local form), zero elsewhere."""
    if not axes:
        return ct
    index = lax.axis_index(axes)
    if per_process:
        index = index % per_process
    return ct * (index == 0).astype(ct.dtype)


def _summed(ct, axes):
    return lax.psum(ct, axes) if axes else ct


def _trace_body(fn, avals, mesh, where):
    """``fn`` (flat blocks -> flat outputs) as a body jaxpr, the mesh axes bound."""
    with _bound([(n, mesh.shape[n]) for n in mesh.axis_names]):
        return trace_to_jaxpr(fn, [ShapedArray(a.shape, a.dtype, a.weak_type)
                                   for a in avals], where)


def _batch(args, dims, **params):
    outs = vmap(_expanded(**params), in_axes=tuple(dims), out_axes=0)(*args)
    return list(outs), [0] * len(outs)


shard_map_p.lowering = _lowering
shard_map_p.jvp = _jvp
shard_map_p.batch = _batch


# -- communicators of a mesh of this process's devices --------------------------------------
def axis_keys(mesh):
    """The names collectives may give: each axis, and each tuple of distinct axes."""
    names = mesh.axis_names
    return list(names) + [t for r in range(2, len(names) + 1)
                          for t in itertools.permutations(names, r)]


def axis_group(mesh, coords, axes):
    """(group, rank) of the device at ``coords`` for a collective over ``axes``: a group
    is the devices that share the coordinates along the other mesh axes, and ranks run
    row-major over ``axes`` (the order JAX gives a tuple of axis names)."""
    shape = mesh.shape
    colour = rank = 0
    for n in mesh.axis_names:
        if n not in axes:
            colour = colour * shape[n] + coords[n]
    for n in axes:
        rank = rank * shape[n] + coords[n]
    return colour, rank


def thread_communicators(mesh, devices, keys):
    """Per device of ``devices`` (this process's), ``{key: ThreadCommunicator}``: a
    ThreadGroup per group of each axis (or tuple of axes) ``key``."""
    coords = [mesh.coords(d) for d in devices]
    per_device = [{} for _ in devices]
    for key in keys:
        axes = key if isinstance(key, tuple) else (key,)
        groups = {}
        for k, c in enumerate(coords):
            colour, rank = axis_group(mesh, c, axes)
            groups.setdefault(colour, []).append((rank, k))
        for members in groups.values():
            comms = ThreadGroup(len(members), str(key)).members()
            for rank, k in members:
                per_device[k][key] = comms[rank]
    return per_device
