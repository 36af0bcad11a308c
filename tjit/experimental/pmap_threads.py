"""``jit``/``grad``/``jvp`` of a ``pmap`` whose axis spans several processes with several
devices each (``TJIT_NUM_CPU_DEVICES=N`` under ``mpiexec -n P``).

As at the top level, each process passes its local slice (mapped size ``N``) and gets
back its own. Traced, the pmap is one threaded ``shard_map`` equation in its local form
(``shard_map_threads.py``) over the 1-D mesh of ``tjit.devices()`` named by the pmap's
axis: each mapped argument is split over the axis (its mapped axis moved to the front),
the others are whole on every device; the per-device function, compiled once, runs on
each local device's thread with the axis's hierarchical communicators bound (among the
threads, then MPI), so ``axis_index`` is ``p * N + i`` as at the top level. Its jvp and
vjp are threaded calls of the body's jvp and vjp on the same communicators: ``grad``
transposes each collective across every process, as JAX's multi-process pmap does (a
broadcast argument's cotangent is the sum over this process's devices; an ``out_axes=None``
output is device 0's, which gets the cotangent).

``tjit.parallel`` sits below this layer; it calls :func:`traced_pmap` through the
``parallel.traced_across_processes`` hook that importing this module sets.
"""

import numpy as np

from tjit import numpy as jnp
from tjit import parallel
from tjit.api import ShapeDtypeStruct, make_jaxpr
from tjit.distributed.devices import global_devices
from tjit.experimental.shard_map_threads import threaded_call
from tjit.sharding import Mesh, PartitionSpec
from tjit.tracing.core import get_aval
from tjit.tracing.tree_util import tree_flatten, tree_unflatten

_meshes = {}   # (axis name, devices) -> the pmap's 1-D mesh (its MPI splits are kept)


def traced_pmap(per_device_fun, leaves, axes, name, out_axes_of, where):
    """The pmap's outputs (this process's slice) at argument ``leaves`` (tracers among
    them; ``axes``: each one's mapped axis or None). ``per_device_fun`` maps one device's
    flat argument leaves to its output pytree; ``out_axes_of(output)`` gives one out axis
    (int or None) per output leaf."""
    devices = tuple(global_devices())
    mesh = _meshes.get((name, devices))
    if mesh is None:
        mesh = _meshes[(name, devices)] = Mesh(np.array(devices, dtype=object), (name,))
    moved = [x if ax is None else jnp.moveaxis(x, ax, 0) for x, ax in zip(leaves, axes)]
    specs = [PartitionSpec() if ax is None else PartitionSpec(name) for ax in axes]
    block_avals = []
    for x, ax in zip(moved, axes):
        a = get_aval(x)
        shape = tuple(a.shape) if ax is None else (1,) + tuple(a.shape)[1:]
        block_avals.append(ShapeDtypeStruct(shape, a.dtype, a.weak_type))

    def one_device(*flat):
        return per_device_fun(*[b if ax is None else b[0] for b, ax in zip(flat, axes)])

    with parallel._bound([(name, mesh.size)]):   # (the output's structure and out axes)
        _, example = make_jaxpr(one_device, return_shape=True)(*block_avals)
    out_leaves, out_tree = tree_flatten(example)
    oaxes = out_axes_of(example)

    def per_block(*flat):
        outs = tree_flatten(one_device(*flat))[0]
        return [o if ax is None else jnp.expand_dims(o, 0) for o, ax in zip(outs, oaxes)]

    out_specs = [PartitionSpec() if ax is None else PartitionSpec(name) for ax in oaxes]
    outs = threaded_call(per_block, mesh, specs, out_specs, moved, block_avals, where,
                         local=True)
    result = [o if ax is None else jnp.moveaxis(o, 0, ax % (len(s.shape) + 1))
              for o, ax, s in zip(outs, oaxes, out_leaves)]
    return tree_unflatten(out_tree, result)


parallel.traced_across_processes = traced_pmap
