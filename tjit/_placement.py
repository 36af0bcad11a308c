"""Where ``device_put`` puts values: one placement (a device, a sharding, a PartitionSpec
read with the mesh of ``set_mesh``) or a pytree prefix of them, and the layout its
results are committed to (``x.sharding`` of an Array put with a ``NamedSharding``).

A NamedSharding over several devices (of this process or of several, after
``tjit.distributed.initialize()``) gives a GlobalArray holding this process's blocks, as
JAX's ``device_put`` of the same value on every process gives a global array: each
process passes the whole value and keeps the blocks of its own devices.
"""

import numpy as np

from tjit.array_creation import make_array_from_callback
from tjit.numpy import asarray

from tjit.devices.backend import Device
from tjit.sharding import (
    NamedSharding,
    PartitionSpec,
    Sharding,
    current_mesh,
)
from tjit.tracing.tree_util import broadcast_prefix, tree_flatten, tree_unflatten


def spans_devices(where_to):
    """The NamedSharding over several CPU devices that ``where_to`` is or names (a
    PartitionSpec read with the current mesh), else None. (The blocks of a GlobalArray
    are host buffers: CPU devices hold theirs there; other devices are refused by
    ``placement_device``.)"""
    named = named_placement(where_to)
    if named is None or named.mesh.size == 1:
        return None
    return named if all(d.platform == "cpu" for d in named.mesh.devices.flat) else None


def put_across_devices(x, sharding):
    """``x`` (a pytree of host or one-device values) laid out as ``sharding`` over several
    devices: a GlobalArray per leaf, each of this process's devices holding its block
    (of jnp.asarray's dtype: float64 data gives float32 blocks unless x64 is on)."""
    def put(leaf):
        value = np.asarray(asarray(leaf))
        return make_array_from_callback(value.shape, sharding, lambda index: value[index])
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [put(leaf) for leaf in leaves])


def named_placement(where_to):
    """The NamedSharding that ``device_put(x, where_to)`` commits its result to (a
    PartitionSpec read with the current mesh), or None for a device or another sharding."""
    if isinstance(where_to, PartitionSpec):
        mesh = current_mesh()
        return None if mesh is None else NamedSharding(mesh, where_to)
    return where_to if isinstance(where_to, NamedSharding) else None


def is_placement(obj):
    """A leaf of device_put's ``device`` tree: a device, a sharding, a spec or None."""
    return obj is None or isinstance(obj, (Device, PartitionSpec, Sharding))


def put_per_leaf(x, placements, put, **options):
    """``device_put(x, placements)`` where ``placements`` is a pytree prefix of ``x`` (a
    device or sharding per subtree), as JAX's: ``put(leaf, placement, **options)`` per
    leaf, each option (src, donate, may_alias) broadcast over ``x`` the same way."""
    leaves, tree = tree_flatten(x)
    try:
        per_leaf = broadcast_prefix(placements, x, is_leaf=is_placement)
        opts = {k: broadcast_prefix(v, x, is_leaf=lambda o: o is None or is_placement(o))
                for k, v in options.items()}
    except ValueError as e:
        raise ValueError(f"device_put device specification must be a tree prefix of the "
                         f"corresponding value; {e}") from None
    bad = [p for p in per_leaf if not is_placement(p)]
    if bad:
        raise TypeError(f"device_put: each leaf of the device tree must be a device, a "
                        f"sharding (NamedSharding, SingleDeviceSharding), a PartitionSpec "
                        f"or None; got {type(bad[0]).__name__} {bad[0]!r:.60}")
    outs = [put(leaf, p, **{k: v[i] for k, v in opts.items()})
            for i, (leaf, p) in enumerate(zip(leaves, per_leaf))]
    return tree_unflatten(tree, outs)
