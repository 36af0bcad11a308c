"""Arrays whose blocks live on the devices of several processes, and the helpers that make
them from host data and gather them back.

* :class:`GlobalArray` — the global shape and dtype, a :class:`~tjit.sharding.
  NamedSharding`, and the blocks of this process's devices (``addressable_shards``), as a
  multi-process ``jax.Array``.
* :func:`make_array_from_process_local_data` — each process gives the part of the data it
  holds, as ``jax.make_array_from_process_local_data``.
* :func:`process_allgather` — the whole value on every process (for printing, saving,
  checking), as ``jax.experimental.multihost_utils.process_allgather``.
"""

import dataclasses

import numpy as np

from tjit.distributed import runtime
from tjit.distributed.mpi_communicator import MPICommunicator
from tjit.sharding import NamedSharding, device_process_index
from tjit.tracing import basearray
from tjit.tracing.core import Array
from tjit.tracing.tree_util import tree_map


@dataclasses.dataclass(frozen=True)
class Shard:
    """One device's block of a GlobalArray: the device, the block's slices of the global
    array and its data (a tjit Array)."""
    device: object
    index: tuple
    data: Array


class GlobalArray:
    """A global array split over the devices of a mesh (maybe of several processes).

    Only this process's blocks are held; ``np.asarray`` works when they make up the whole
    value (fully replicated, or every device is local); otherwise gather it first with
    :func:`process_allgather`.
    """

    def __init__(self, sharding, global_shape, dtype, blocks):
        self.sharding = sharding
        self.shape = tuple(global_shape)
        self.dtype = np.dtype(dtype)
        index = sharding.addressable_devices_indices_map(self.shape)
        self.addressable_shards = [Shard(d, index[d], b if isinstance(b, Array) else Array(b))
                                   for d, b in blocks]

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def is_fully_addressable(self):
        return self.sharding.is_fully_addressable

    @property
    def is_fully_replicated(self):
        return self.sharding.is_fully_replicated

    def devices(self):
        """Every device holding a block (those of other processes included)."""
        return self.sharding.device_set

    def addressable_data(self, i):
        """The block of this process's ``i``-th device (a tjit Array)."""
        return self.addressable_shards[i].data

    def local_blocks(self):
        """This process's blocks as NumPy arrays, in mesh order."""
        return [np.asarray(s.data) for s in self.addressable_shards]

    def __array__(self, dtype=None, copy=None):
        if self.is_fully_replicated:
            out = np.asarray(self.addressable_shards[0].data)
        elif self.is_fully_addressable:
            out = np.empty(self.shape, self.dtype)
            for s in self.addressable_shards:
                out[s.index] = np.asarray(s.data)
        else:
            raise TypeError(
                f"this GlobalArray of shape {self.shape} is split over the devices of "
                f"several processes ({self.sharding!r}); this process holds only its blocks "
                f"(x.addressable_shards); gather the whole value with "
                f"tjit.experimental.multihost_utils.process_allgather(x)")
        return out.astype(dtype) if dtype is not None else out

    def _refusal_hint(self):
        """Why jit/grad/lax/jnp refuse this array, and what to do (their errors say it)."""
        return (f"a GlobalArray ({self.dtype.name}{list(self.shape)} over "
                f"{self.sharding!r}) holds only this process's blocks: pass it to "
                f"shard_map at the top level (each device takes its block), or gather the "
                f"whole value with multihost_utils.process_allgather(x, tiled=True) and pass "
                f"that (jit and shard_map inside it take global values)")

    def __repr__(self):
        return (f"GlobalArray(shape={self.shape}, dtype={self.dtype.name}, "
                f"sharding={self.sharding!r})")


# a multi-process jax.Array is a jax.Array: isinstance(x, tjit.Array) holds
basearray.Array.register(GlobalArray)


def _local_range(sharding, global_shape):
    """Per dim, (start, stop) of the global array that this process's blocks cover."""
    index = sharding.addressable_devices_indices_map(global_shape)
    if not index:
        raise runtime.DistributedError(
            f"process {runtime.process_index()} drives none of the devices of "
            f"{sharding.mesh!s}; build the mesh over every process's devices")
    spans = [[ix[d].indices(n)[:2] for ix in index.values()]
             for d, n in enumerate(global_shape)]   # (slice(None): the whole dimension)
    return [(min(a for a, _ in span), max(b for _, b in span)) for span in spans]


def _local_index(index, ranges, global_shape):
    """A block's ``index`` into the global array, shifted into the process's part that
    ``ranges`` (from :func:`_local_range`) covers."""
    return tuple(slice(start - a, stop - a) for (start, stop, _), (a, _) in
                 zip((ix.indices(n) for ix, n in zip(index, global_shape)), ranges))


def _global_shape_from_local(sharding, local_shape):
    """The global shape implied by each process holding ``local_shape`` (JAX's rule: a
    split dim is this process's blocks along it, times the number of blocks)."""
    mesh, spec = sharding.mesh, sharding.spec
    local_devs = mesh.local_devices
    out = []
    for d, n in enumerate(local_shape):
        k = int(np.prod([mesh.shape[a] for a in spec.axes_of(d)], dtype=np.int64))
        mine = len({sharding.shard_index(dev, d) for dev in local_devs}) if k > 1 else 1
        if n % mine:
            raise ValueError(f"make_array_from_process_local_data: local dim {d} of size {n} "
                             f"does not split into this process's {mine} blocks")
        out.append(n // mine * k)
    return tuple(out)


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    """A GlobalArray from the data each process holds, as JAX's function of that name.

    Args:
      sharding: a NamedSharding saying which block of the global array each device holds.
      local_data: this process's part of the array: the blocks of its devices, put
        together (with one device per process: exactly its block). Processes along a mesh
        axis the spec does not name hold the same data.
      global_shape: the global shape (default: inferred from ``local_data``'s shape, each
        split dim being this process's share times the number of shares).
    """
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"make_array_from_process_local_data: sharding must be a "
                        f"NamedSharding, got {type(sharding).__name__}")
    runtime.require("make_array_from_process_local_data")
    data = np.asarray(local_data)
    if global_shape is None:
        global_shape = _global_shape_from_local(sharding, data.shape)
    global_shape = tuple(global_shape)
    block = sharding.shard_shape(global_shape)
    ranges = _local_range(sharding, global_shape)
    want = tuple(b - a for a, b in ranges)
    if data.shape != want:
        raise ValueError(
            f"make_array_from_process_local_data: process {runtime.process_index()} gave data "
            f"of shape {data.shape}, but its devices hold the part of shape {want} of the "
            f"global shape {global_shape} under {sharding!r} (blocks of {block})")
    blocks = []
    for dev, idx in sharding.addressable_devices_indices_map(global_shape).items():
        local = _local_index(idx, ranges, global_shape)
        blocks.append((dev, np.asarray(data[local], order="C")))
    return GlobalArray(sharding, global_shape, data.dtype, blocks)


def _world():
    """A communicator over every process (None in a one-process run)."""
    st = runtime.require("process_allgather")
    if st is None or st.size == 1:
        return None
    return MPICommunicator(st.comm, name="processes")


def _gather_global(x, comm):
    """The whole value of GlobalArray ``x`` on every process: each process's blocks are
    allgathered and put at their places (every process knows every device's place)."""
    out = np.empty(x.shape, x.dtype)
    mine = np.stack(x.local_blocks())
    every = comm.allgather(mine) if comm is not None else mine[None]
    index = x.sharding.devices_indices_map(x.shape)
    mesh_devices = list(x.sharding.mesh.devices.flat)
    for p in range(every.shape[0]):
        devs = [d for d in mesh_devices if device_process_index(d) == p]
        for d, blk in zip(devs, every[p]):
            out[index[d]] = blk
    return out


def process_allgather(in_tree, tiled=False):
    """Every leaf's value gathered from all processes, as NumPy arrays on every process
    (``jax.experimental.multihost_utils.process_allgather``): a GlobalArray gives its whole
    global value; a process-local array gives the processes' values stacked on a new
    leading axis (``tiled=True``: concatenated along axis 0)."""
    comm = _world()

    def gather(x):
        if isinstance(x, GlobalArray):
            return _gather_global(x, comm)
        a = np.asarray(x)
        if comm is None:    # (JAX: one process stacks, or with tiled=True returns the value)
            return a if tiled else a[None]
        # (np.array, not np.ascontiguousarray: that turns a 0-d value into shape (1,))
        every = comm.allgather(np.array(a, order="C"))
        if tiled and a.ndim:   # (scalars stack even when tiled, as JAX's)
            s = every.shape
            return every.reshape((s[0] * s[1],) + s[2:])
        return every

    return tree_map(gather, in_tree, is_leaf=lambda x: isinstance(x, GlobalArray))
