"""``jax.experimental.multihost_utils``'s helpers beyond process_allgather: a broadcast
from one process, a barrier, a check that every process holds the same values, and the
conversions between a process's part of an array and the global array.

Each runs on MPI's world communicator (nothing in a one-process run) and, like JAX's,
must be reached by every process in the same order.
"""

import zlib

import numpy as np

from tjit.distributed import runtime
from tjit.distributed.arrays import (
    GlobalArray, _local_index, _local_range, _world, make_array_from_process_local_data,
    process_allgather)
from tjit.sharding import NamedSharding, PartitionSpec
from tjit.tracing.tree_util import tree_flatten, tree_map, tree_unflatten


def broadcast_one_to_all(in_tree, is_source=None):
    """Every leaf of the source process's ``in_tree`` on every process, as NumPy arrays.

    Args:
      in_tree: a pytree of arrays of the same shapes and dtypes in every process.
      is_source: whether this process is the source (default: process 0 is). As in JAX,
        the leaves of every process that says True are summed (bools: or'ed).
    """
    comm = _world()
    if comm is None:
        return tree_map(np.asarray, in_tree)
    if is_source is None:
        is_source = runtime.process_index() == 0

    def one(x):
        a = np.asarray(x)
        mine = np.array(a if is_source else np.zeros_like(a), order="C")
        return np.sum(comm.allgather(mine), axis=0, dtype=a.dtype)

    return tree_map(one, in_tree)


def assert_equal(in_tree, fail_message=""):
    """Raise AssertionError (in every process) unless every process holds the same
    leaves in ``in_tree`` (values, shapes and dtypes)."""
    comm = _world()
    if comm is None:
        return
    leaves, _ = tree_flatten(in_tree)
    sigs = [f"{np.asarray(x).dtype.name}{list(np.shape(x))}" for x in leaves]
    shapes_agree = process_allgather(np.uint32(zlib.crc32(repr(sigs).encode())))
    if not (shapes_agree == shapes_agree[0]).all():
        raise AssertionError(f"{fail_message}: the processes' trees differ in structure, "
                             f"shapes or dtypes (this process: {sigs})")
    for i, x in enumerate(leaves):
        every = process_allgather(x.local_blocks()[0] if isinstance(x, GlobalArray) else x)
        same = [np.array_equal(every[0], e, equal_nan=every.dtype.kind in "fc")
                for e in every]
        if not all(same):
            raise AssertionError(
                f"{fail_message}: leaf {i} differs across processes (processes "
                f"{[p for p, s in enumerate(same) if not s]} disagree with process 0); "
                f"expected {every[0]!r}, got {np.asarray(every[runtime.process_index()])!r}")


def sync_global_devices(name):
    """A barrier over every process; raises AssertionError when the processes pass
    different ``name``s (they reached different barriers)."""
    assert_equal(np.uint32(zlib.crc32(str(name).encode())),
                 f"sync_global_devices name mismatch ({name!r})")


def host_local_array_to_global_array(local_inputs, global_mesh, pspecs):
    """GlobalArrays from each process's part of the inputs (a pytree), each split over
    ``global_mesh`` as its PartitionSpec in ``pspecs`` (one spec, or a tree of them)."""
    return _map_with_specs(
        lambda x, spec: x if isinstance(x, GlobalArray) else
        make_array_from_process_local_data(NamedSharding(global_mesh, spec), x),
        local_inputs, pspecs, "host_local_array_to_global_array")


def global_array_to_host_local_array(global_inputs, global_mesh, pspecs):
    """Each process's part (its devices' blocks, put together) of every GlobalArray in
    ``global_inputs``: the inverse of host_local_array_to_global_array."""
    def local(x, spec):
        if not isinstance(x, GlobalArray):
            return np.asarray(x)
        ranges = _local_range(x.sharding, x.shape)
        out = np.empty(tuple(b - a for a, b in ranges), x.dtype)
        for s in x.addressable_shards:
            out[_local_index(s.index, ranges, x.shape)] = np.asarray(s.data)
        return out

    return _map_with_specs(local, global_inputs, pspecs, "global_array_to_host_local_array")


def _map_with_specs(fn, tree, pspecs, where):
    if pspecs is None:
        raise ValueError(f"{where}: None is not a valid pspecs; use PartitionSpec() for "
                         f"a replicated value")
    leaves, treedef = tree_flatten(tree, is_leaf=lambda x: isinstance(x, GlobalArray))
    if isinstance(pspecs, PartitionSpec):
        specs = [pspecs] * len(leaves)
    else:
        specs, _ = tree_flatten(pspecs, is_leaf=lambda s: isinstance(s, PartitionSpec))
        if len(specs) != len(leaves):
            raise ValueError(f"{where}: {len(specs)} PartitionSpecs for {len(leaves)} "
                             f"arrays; give one spec, or a tree of them like the inputs")
    return tree_unflatten(treedef, [fn(x, s) for x, s in zip(leaves, specs)])
