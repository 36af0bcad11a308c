"""``shard_map``: run a function on each device's block of its arguments, with the mesh's
axis names bound for collectives, as ``jax.experimental.shard_map.shard_map``.

    mesh = tjit.make_mesh((tjit.process_count(),), ("data",))
    step = shard_map(local_step, mesh, in_specs=(P(), P("data")), out_specs=P())

How a call runs (SPMD: every process runs the same program on its own blocks):

1. Each argument leaf becomes this process's block: a :class:`GlobalArray` gives its
   block (its sharding must be the in_spec's); any other array is the global value,
   the same in every process, and this process takes its device's block of it.
2. The function is traced on the blocks' shapes with the mesh axes bound to their sizes
   and compiled once per signature (``compile_spmd``); a collective over a mesh axis is a
   step of the compiled plan.
3. It runs with each mesh axis bound to a communicator of the processes along that axis
   (an MPI ``Comm.Split`` of the world: processes that share the other coordinates); a
   process with several devices of the mesh runs them on threads, whose collectives
   compose hierarchically (``tjit/distributed/mesh_groups.py``).
4. Each output block becomes a global value by out_specs: split dims are this device's
   block; a dim not split must be the same on every device along the axes out_specs does
   not name. ``check_rep=True`` proves that statically from the jaxpr (a ``psum`` makes its
   value the same along its axes; an input split over an axis, ``axis_index``,
   ``ppermute``, ``psum_scatter`` and ``all_to_all`` make it vary).

Outputs that one process holds whole (replicated, or a one-process mesh) come back as
tjit Arrays; outputs split across processes as :class:`GlobalArray` (gather them with
``process_allgather``). Called at the top level, shard_map compiles its body itself (like
``jit(shard_map(...))`` in JAX). Under jit, grad or jvp over a mesh of CPU devices of
which this process runs several (in a one-process run, or with ``TJIT_NUM_CPU_DEVICES=N``
in each of several processes) it is one equation of the enclosing program that runs the
blocks on the devices' threads (``shard_map_threads.py``); under vmap, or over one
device, it is traced as its definition, nested ``vmap(axis_name=...)``
(``shard_map_traced.py``); over a mesh of processes with one device each, each process
traces its blocks with global (replicated) arguments and outputs
(``shard_map_processes.py``). Across processes, traced arguments and outputs are global
values, the same in every process.
"""

import functools
import math

import numpy as np

from tjit.api import ShapeDtypeStruct
from tjit.devices.collectives import ThreadGroup, bind_axes
from tjit.devices.pmap_runtime import run_bound
from tjit.distributed import runtime
from tjit.distributed.arrays import GlobalArray
from tjit.distributed.mesh_groups import mesh_communicators
from tjit.distributed.mpi_communicator import MPICommunicator
from tjit.experimental import pmap_threads  # noqa: F401  (sets pmap's traced form there)
from tjit.experimental.shard_map_processes import across_processes
from tjit.experimental.shard_map_threads import (
    axis_group,
    axis_keys,
    runs_on_threads,
    thread_communicators,
    threaded_call,
)
from tjit.experimental.shard_map_traced import traced_call
from tjit.parallel import compile_spmd
from tjit.sharding import (
    Mesh,
    NamedSharding,
    PartitionSpec,
    check_spec,
    commit,
    current_mesh,
    device_process_index,
)
from tjit.tracing.core import Array, Tracer
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, subjaxprs
from tjit.tracing.tree_util import tree_flatten, tree_unflatten

#: Collectives after which a value is the same on every member of their axes.
_MAKES_INVARIANT = {"psum", "pmax", "pmin", "all_gather"}
#: Collectives after which a value differs across the members of their axes.
_MAKES_VARYING = {"psum_scatter", "all_to_all", "ppermute", "axis_index"}


def shard_map(f=None, mesh=None, in_specs=None, out_specs=None, check_rep=True,
              auto=frozenset(), *, axis_names=None, check_vma=None):
    """Map ``f`` over the blocks of its arguments on the devices of ``mesh``
    (``jax.shard_map``, and ``jax.experimental.shard_map.shard_map``'s positional form).
    Without ``f`` it returns a decorator: ``@jax.shard_map(in_specs=..., out_specs=...)``.

    Args:
      f: the function each device runs on its blocks; collectives inside it name the
        mesh's axes (``lax.psum(x, 'data')``).
      mesh: a :class:`~tjit.sharding.Mesh` (default: the mesh of an enclosing
        ``with mesh:``).
      in_specs: a PartitionSpec per argument (a pytree prefix of the arguments): which
        mesh axes split each dimension of the global argument. Left out, each argument's
        own layout, as JAX's ``Infer``: the spec of an Array committed to a NamedSharding
        over ``mesh`` (``device_put(x, P(...))``), ``P()`` for an uncommitted one.
      out_specs: a PartitionSpec per output (a pytree prefix of the outputs): how the
        blocks make the global output.
      check_rep: check statically that outputs not split over a mesh axis are the same
        on every device along it.
      auto: mesh axes left to the compiler (JAX's partial auto mode); only the empty set
        is supported.
      axis_names: (jax.shard_map) the mesh axes mapped manually; only all of them is
        supported (the others would be auto).
      check_vma: jax.shard_map's name for ``check_rep``.

    Returns:
      The mapped function (a decorator when ``f`` is None).
    """
    if check_vma is not None:
        check_rep = check_vma
    if f is None:
        return functools.partial(shard_map, mesh=mesh, in_specs=in_specs,
                                 out_specs=out_specs, check_rep=check_rep, auto=auto,
                                 axis_names=axis_names)
    if mesh is None:
        mesh = current_mesh()
        if mesh is None:
            raise TypeError("shard_map: give a mesh (shard_map(f, mesh, in_specs, "
                            "out_specs)) or call it inside `with mesh:`")
    if not isinstance(mesh, Mesh):
        raise TypeError(f"shard_map: mesh must be a tjit.sharding.Mesh, got "
                        f"{type(mesh).__name__}")
    if axis_names:
        auto = frozenset(auto) | (frozenset(mesh.axis_names) - frozenset(axis_names))
    if auto:
        raise NotImplementedError(f"shard_map: auto={set(auto)} (axes left to the compiler) "
                                  f"is not supported; map every mesh axis manually")
    if out_specs is None:
        raise TypeError("shard_map: out_specs is required (PartitionSpecs, e.g. "
                        "out_specs=P('data')); in_specs may be left out (read from the "
                        "arguments' shardings)")
    mapped = _ShardMapped(f, mesh, in_specs, out_specs, check_rep)
    return functools.wraps(f)(mapped) if callable(f) else mapped


def _is_spec(x):
    return x is None or isinstance(x, PartitionSpec)


def _fname(f):
    return getattr(f, "__name__", type(f).__name__)


class _ShardMapped:
    def __init__(self, f, mesh, in_specs, out_specs, check_rep):
        self.f, self.mesh, self.check_rep = f, mesh, check_rep
        self.in_specs, self.out_specs = in_specs, out_specs
        self.where = f"shard_map of {_fname(f)}"
        self._programs = {}
        self._comms = None      # (runtime, communicators) of the last call
        self._in_specs_cache = {}   # argument tree -> a PartitionSpec per leaf
        self._shardings = {}        # PartitionSpec -> NamedSharding over the mesh
        self._devices = None        # (runtime, this process's devices of the mesh)

    # -- specs as one per leaf ----------------------------------------------------------
    def _leaf_specs(self, specs, tree, what):
        """One PartitionSpec per leaf of ``tree``, ``specs`` being a pytree prefix."""
        spec_leaves, spec_tree = tree_flatten(specs, is_leaf=_is_spec)
        if spec_tree.num_leaves == 1 and _is_spec(specs):
            subtrees = [tree]
        else:
            try:
                subtrees = spec_tree.flatten_up_to(tree)
            except ValueError:
                raise ValueError(
                    f"{self.where}: {what} must be a tree prefix of the "
                    f"{'arguments' if what == 'in_specs' else 'outputs'}, got {specs!r:.120} "
                    f"for a value of structure {tree_flatten(tree)[1]}; give one "
                    f"PartitionSpec per {'argument' if what == 'in_specs' else 'output'}"
                ) from None
        out = []
        for spec, sub in zip(spec_leaves, subtrees):
            out += [check_spec(spec, self.mesh, f"{self.where}: {what}")] * len(
                tree_flatten(sub)[0])
        return out

    def _inferred_specs(self, leaves):
        """in_specs read from the arguments (JAX's ``Infer``): a committed Array's spec,
        ``P()`` for uncommitted values. A tracer's layout is not known here: on a mesh of
        several devices it needs in_specs (a wrong guess would change the blocks)."""
        specs = []
        for i, x in enumerate(leaves):
            s = getattr(x, "_sharding", None) if type(x) is Array else None
            if s is not None and s.mesh == self.mesh:
                specs.append(s.spec)
                continue
            if s is not None or (isinstance(x, Tracer) and self.mesh.size > 1):
                raise ValueError(
                    f"{self.where}: in_specs were left out, so each argument's layout is "
                    f"read from it, but argument leaf {i} ({np.shape(x)}) "
                    f"{'is laid out as ' + repr(s) if s is not None else 'is traced'}, not "
                    f"over {self.mesh!s}; pass in_specs=...")
            specs.append(PartitionSpec())
        return specs

    # -- a call ---------------------------------------------------------------------------
    def __call__(self, *args):
        leaves, treedef = tree_flatten(args, is_leaf=lambda x: isinstance(x, GlobalArray))
        specs = self._in_specs_cache.get(treedef) if self.in_specs is not None else \
            self._inferred_specs(leaves)
        if specs is None:
            in_specs = (tuple(self.in_specs) if isinstance(self.in_specs, list)
                        else self.in_specs)
            specs = self._in_specs_cache[treedef] = self._leaf_specs(in_specs, args,
                                                                      "in_specs")
        if any(isinstance(x, Tracer) for x in leaves):
            if runs_on_threads(self.mesh):   # (several devices here: one threaded step)
                return traced_call(self, leaves, treedef, specs, infer_varying,
                                   threaded_call)
            if self.mesh.is_multi_process:   # (one device per process)
                return across_processes(self, leaves, treedef, specs, infer_varying)
            return traced_call(self, leaves, treedef, specs, infer_varying)
        rt = runtime.require("shard_map")
        devices = self._local_devices(rt, threads=True)
        blocks = [self._blocks(x, spec, devices, i)
                  for i, (x, spec) in enumerate(zip(leaves, specs))]
        program = self._program(treedef, [b[0] for b in blocks], specs)
        per_device = [tree_unflatten(treedef, [b[k] for b in blocks])
                      for k in range(len(devices))]
        outs = self._run(program, per_device, devices, rt)
        return self._assemble(program, outs, devices)

    def _sharding(self, spec):
        got = self._shardings.get(spec)
        if got is None:
            got = self._shardings[spec] = NamedSharding(self.mesh, spec)
        return got

    def _local_devices(self, rt, threads=False):
        """This process's devices of the mesh; ``threads``: the caller runs them on
        threads (top level), else it traces one program per process (under jit)."""
        if threads and self._devices is not None and self._devices[0] is rt:
            return self._devices[1]
        mine = self.mesh.local_devices
        if not mine:
            raise runtime.DistributedError(
                f"{self.where}: process {runtime.process_index()} drives none of the "
                f"devices of {self.mesh!s}; build the mesh over every process's devices "
                f"(tjit.make_mesh uses tjit.devices())")
        procs = {device_process_index(d) for d in self.mesh.devices.flat}
        if rt is None and procs != {0}:
            raise runtime.DistributedError(
                f"{self.where}: {self.mesh!s} spans processes {sorted(procs)}; call "
                f"tjit.distributed.initialize() in every process first")
        if len(mine) > 1 and len(procs) > 1 and not threads:   # (not CPU devices)
            raise NotImplementedError(
                f"{self.where}: traced into jit/grad/vmap over a mesh of {len(procs)} "
                f"processes with {len(mine)} non-CPU devices in this one: traced, only CPU "
                f"devices run on threads there; call the shard_map at the top level or "
                f"launch one process per device")
        if threads:
            self._devices = (rt, mine)
        return mine

    def _blocks(self, x, spec, devices, i):
        """This process's devices' blocks of argument leaf ``x`` (NumPy arrays)."""
        if isinstance(x, GlobalArray):
            want = self._sharding(spec)
            if x.sharding != want:
                raise ValueError(f"{self.where}: argument {i} is laid out as {x.sharding!r} "
                                 f"but in_specs asks for {want!r}; pass the global value "
                                 f"or an array with that sharding")
            by_dev = {s.device: s.data for s in x.addressable_shards}
            return [np.asarray(by_dev[d]) for d in devices]
        a = np.asarray(x)
        sharding = self._sharding(spec)
        if len(spec) > a.ndim:
            check_spec(spec, self.mesh, f"{self.where}: in_specs for argument {i}", a.ndim)
        try:
            index = sharding.devices_indices_map(a.shape)
        except ValueError as e:
            raise ValueError(f"{self.where}: argument {i} of shape {a.shape} cannot be "
                             f"split by {spec}: {e}") from None
        return [np.asarray(a[index[d]], order="C") for d in devices]

    def _program(self, treedef, first_blocks, specs):
        """The compiled per-device program for blocks shaped like ``first_blocks``."""
        sig = tuple((b.shape, b.dtype) for b in first_blocks)
        key = (treedef, sig, tuple(specs))
        prog = self._programs.get(key)
        if prog is None:
            example = tree_unflatten(treedef, [ShapeDtypeStruct(s, d) for s, d in sig])
            prog = compile_spmd(self.f, axis_sizes=self.mesh.shape, example_args=example,
                                backend="cpu")
            prog.out_varying = infer_varying(prog.compiled.lowered.jaxpr.jaxpr,
                                             [frozenset(s.mesh_axes()) for s in specs])
            self._programs[key] = prog
        return prog

    def _communicators(self, rt, devices):
        """Per local device, {axis name or tuple of names: communicator}."""
        keys = axis_keys(self.mesh)
        if rt is None or rt.size == 1 or not self.mesh.is_multi_process:
            if len(devices) == 1 and self.mesh.size == 1:
                groups = {k: ThreadGroup(1, str(k)).members()[0] for k in keys}
                return [groups]
            return thread_communicators(self.mesh, devices, keys)
        if len(devices) > 1:   # (several devices of this process: threads and MPI)
            return mesh_communicators(self.mesh, devices, keys, axis_group)
        coords = self.mesh.coords(devices[0])
        out = {}
        for key in keys:
            axes = key if isinstance(key, tuple) else (key,)
            colour, rank = axis_group(self.mesh, coords, axes)
            comm = runtime.split((self.mesh, axes), colour, rank)
            out[key] = MPICommunicator(comm, name=key)
        return [out]

    def _run(self, program, per_device, devices, rt):
        if len(devices) == 1:   # (MPI communicators are kept; thread groups are per call)
            if self._comms is None or self._comms[0] is not rt:
                self._comms = (rt, self._communicators(rt, devices))
            comms = self._comms[1]
        else:
            comms = self._communicators(rt, devices)
        if len(devices) == 1:
            with bind_axes(comms[0]):
                return [program(*per_device[0])]
        return run_bound(program, per_device, comms)

    # -- outputs ---------------------------------------------------------------------------
    def _assemble(self, program, outs, devices):
        leaves0, out_tree = tree_flatten(outs[0])
        if getattr(program, "out_layout", None) is None:
            program.out_layout = self._out_layout(program, leaves0, outs[0])
        others = [tree_flatten(o)[0] for o in outs[1:]]
        per_leaf = [[v] + [o[i] for o in others] for i, v in enumerate(leaves0)]
        result = []
        for blocks, (sharding, gshape, whole) in zip(per_leaf, program.out_layout):
            if whole and len(blocks) == 1:   # (one block is the whole value)
                one = blocks[0] if isinstance(blocks[0], Array) else \
                    Array(np.asarray(blocks[0]))
                # (a one-device mesh: laid out as out_specs say, as JAX's x.sharding)
                result.append(commit(one, sharding) if self.mesh.size == 1 else one)
                continue
            local = [np.asarray(b) for b in blocks]
            g = GlobalArray(sharding, gshape, local[0].dtype, list(zip(devices, local)))
            result.append(Array(np.asarray(g)) if whole else g)
        return tree_unflatten(out_tree, result)

    def _out_layout(self, program, leaves, out):
        """Per output leaf: its NamedSharding, global shape and whether this process
        holds it whole; checks out_specs (and replication) once per program."""
        specs = self._leaf_specs(self.out_specs, out, "out_specs")
        layout = []
        for i, (v, spec) in enumerate(zip(leaves, specs)):
            shape = tuple(np.shape(v))
            check_spec(spec, self.mesh, f"{self.where}: out_specs for output {i}", len(shape))
            if self.check_rep:
                self._check_replication(i, spec, program.out_varying[i])
            split = [math.prod(self.mesh.shape[n] for n in spec.axes_of(d))
                     for d in range(len(shape))]
            sharding = self._sharding(spec)
            whole = sharding.is_fully_replicated or sharding.is_fully_addressable
            layout.append((sharding, tuple(n * k for n, k in zip(shape, split)), whole))
        return layout

    def _check_replication(self, i, spec, varying):
        """out_specs may leave a mesh axis out only for an output proven the same on
        every device along it (JAX's check_rep)."""
        missing = [n for n in self.mesh.axis_names
                   if n in varying and n not in spec.mesh_axes()]
        if missing:
            raise ValueError(
                f"{self.where}: out_specs {spec} for output {i} leaves out mesh axis "
                f"{missing[0]!r}, which means the output is the same on every device along "
                f"it, but it may vary along {missing[0]!r} (it depends on inputs split over "
                f"it, or on axis_index/ppermute/psum_scatter/all_to_all over it). Reduce it "
                f"over the axis (e.g. lax.psum/pmean(x, {missing[0]!r})), name the axis in "
                f"out_specs, or pass check_rep=False if it is in fact replicated")


def infer_varying(jaxpr, in_varying):
    """For each output of ``jaxpr``, the mesh axes along which it may differ between
    devices, given that of each input (sets of names). psum/pmax/pmin/all_gather make a
    value the same along their axes (not within several axis_index_groups); axis_index,
    ppermute, psum_scatter and all_to_all make it vary; other operations vary where their operands do (an equation with a
    sub-program also where any collective inside it makes values vary)."""
    env = {}
    for v, vary in zip(jaxpr.invars, in_varying):
        env[v] = frozenset(vary)
    for v in jaxpr.constvars:
        env[v] = frozenset()

    def read(v):
        return env.get(v, frozenset())   # (literals vary nowhere)

    for eqn in jaxpr.eqns:
        vary = frozenset().union(*[read(v) for v in eqn.invars])
        name = eqn.primitive.name
        axes = frozenset(eqn.params.get("axes", ()))
        if _makes_varying(eqn):
            vary = vary | axes
        elif name in _MAKES_INVARIANT:
            vary = vary - axes
        else:
            vary = vary | _varying_inside(eqn)
        for o in eqn.outvars:
            env[o] = vary
    return [read(v) for v in jaxpr.outvars]


def _makes_varying(eqn):
    """Whether ``eqn``'s collective makes values differ along its axes: those of
    _MAKES_VARYING, and any run within several axis_index_groups (one value per group)."""
    groups = eqn.params.get("axis_index_groups")
    return eqn.primitive.name in _MAKES_VARYING or (
        eqn.primitive.name in _MAKES_INVARIANT and groups is not None and len(groups) > 1)


def _varying_inside(eqn):
    """Axes along which a collective inside ``eqn``'s sub-programs makes values vary."""
    subs = [p for p in eqn.params.values()
            for p in (p if isinstance(p, tuple) else (p,)) if isinstance(p, (Jaxpr, ClosedJaxpr))]
    out = frozenset()
    for sub in subs:
        sub = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
        stack = [sub]
        while stack:
            j = stack.pop()
            for e in j.eqns:
                if _makes_varying(e):
                    out |= frozenset(e.params.get("axes", ()))
            stack.extend(subjaxprs(j))
    return out


# JAX's name (jax.shard_map since JAX 0.7); the others are helpers
__all__ = [
    "shard_map"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
