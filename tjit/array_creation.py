"""Top-level array utilities of ``jax``'s namespace that are about arrays as a whole:

* :func:`make_array_from_callback` — an array built from the block each device holds,
  asked of a callback by the block's index (``jax.make_array_from_callback``);
* :func:`make_array_from_single_device_arrays` — the same from the blocks themselves,
  one single-device array per device (``jax.make_array_from_single_device_arrays``);
* :func:`live_arrays` — every tjit Array alive on a backend (``jax.live_arrays``).
"""

import gc

import numpy as np

from tjit.api import device_put
from tjit.devices.backend import default_backend, get_backend
from tjit.distributed.arrays import GlobalArray
from tjit.sharding import NamedSharding, SingleDeviceSharding
from tjit.tracing.core import Array


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """An array of ``shape`` laid out as ``sharding``, each device's block given by
    ``data_callback(index)`` (as ``jax.make_array_from_callback``).

    Args:
      shape: the global shape.
      sharding: a ``SingleDeviceSharding`` or a ``NamedSharding``.
      data_callback: ``index -> block``: ``index`` is a tuple of slices, one per dim
        (``slice(None)`` for a dim that is not split); the block is array-like, of the
        shape those slices select.
      dtype: the dtype of the blocks (default: the callback's).
    Returns:
      A tjit Array where ``sharding`` has one device; else a GlobalArray holding this
      process's blocks (as ``make_array_from_process_local_data`` gives).

    >>> from tjit.sharding import SingleDeviceSharding
    >>> data = np.arange(6.0).reshape(2, 3)
    >>> jax.make_array_from_callback((2, 3), SingleDeviceSharding(jax.devices()[0]),
    ...                              lambda index: data[index])
    Array([[0., 1., 2.],
           [3., 4., 5.]], dtype=float32)
    """
    shape = tuple(int(d) for d in shape)
    index_map = _index_map(shape, sharding, "make_array_from_callback")
    blocks = []
    for device, index in index_map.items():
        block = np.asarray(data_callback(index), dtype=dtype)
        want = _block_shape(index, shape)
        if block.shape != want:
            raise ValueError(f"make_array_from_callback: data_callback({index}) returned "
                             f"shape {block.shape}, but that index selects a block of shape "
                             f"{want} of the global shape {shape}; return the data at the "
                             f"index it is given")
        blocks.append((device, block))
    return _assemble(shape, sharding, blocks, "make_array_from_callback")


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None):
    """An array of ``shape`` laid out as ``sharding`` from the block each device holds,
    given as arrays on those devices (as ``jax.make_array_from_single_device_arrays``).

    Args:
      shape: the global shape.
      sharding: a ``SingleDeviceSharding`` or a ``NamedSharding``.
      arrays: one array per addressable device of ``sharding``, each on its device and
        of the shape of that device's block (``sharding.shard_shape(shape)``).
      dtype: the arrays' dtype (default: theirs; they must agree).
    Returns:
      A tjit Array where ``sharding`` has one device; else a GlobalArray of the blocks.

    >>> from tjit.sharding import SingleDeviceSharding
    >>> x = jnp.arange(3.0)
    >>> jax.make_array_from_single_device_arrays((3,), SingleDeviceSharding(x.device), [x])
    Array([0., 1., 2.], dtype=float32)
    """
    who = "make_array_from_single_device_arrays"
    shape = tuple(int(d) for d in shape)
    index_map = _index_map(shape, sharding, who)
    arrays = list(arrays)
    by_device = {}
    for k, a in enumerate(arrays):
        devices = a.devices() if isinstance(a, Array) else None
        if not devices or len(devices) != 1:
            raise TypeError(f"{who}: arrays[{k}] must be a tjit Array on one device "
                            f"(device_put it there), got {type(a).__name__}"
                            + (f" on {len(devices)} devices" if devices else ""))
        (device,) = devices
        if device in by_device:
            raise ValueError(f"{who}: arrays[{k}] is on {device}, as an earlier array; give "
                             f"one array per device of the sharding")
        by_device[device] = a
    if set(by_device) != set(index_map):
        missing = [str(d) for d in index_map if d not in by_device]
        extra = [str(d) for d in by_device if d not in index_map]
        raise ValueError(f"{who}: the arrays' devices must be the sharding's addressable "
                         f"devices, one array each; missing {missing or 'none'}, not in "
                         f"the sharding {extra or 'none'}")
    blocks = []
    for device, index in index_map.items():
        block = np.asarray(by_device[device], dtype=dtype)
        want = _block_shape(index, shape)
        if block.shape != want:
            raise ValueError(f"{who}: the array on {device} has shape {block.shape}, but "
                             f"the sharding gives that device a block of shape {want} of "
                             f"the global shape {shape} (at {index})")
        blocks.append((device, block))
    return _assemble(shape, sharding, blocks, who)


def _index_map(shape, sharding, who):
    if isinstance(sharding, SingleDeviceSharding):
        return sharding.devices_indices_map(shape)
    if isinstance(sharding, NamedSharding):
        return sharding.addressable_devices_indices_map(shape)
    raise TypeError(f"{who}: sharding must be a SingleDeviceSharding or a NamedSharding, "
                    f"got {type(sharding).__name__} {sharding!r:.60}")


def _block_shape(index, shape):
    return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape))


def _assemble(shape, sharding, blocks, who):
    """The array of ``(device, NumPy block)`` pairs laid out as ``sharding``."""
    if sharding.num_devices == 1:   # (laid out as the sharding: x.sharding is it)
        ((device, block),) = blocks
        return device_put(block, sharding)
    dtypes = {b.dtype for _, b in blocks}
    if len(dtypes) > 1:
        raise ValueError(f"{who}: the blocks have several dtypes "
                         f"{sorted(d.name for d in dtypes)}; pass dtype=")
    return GlobalArray(sharding, shape, blocks[0][1].dtype, blocks)


def live_arrays(platform=None):
    """Every tjit Array alive (not deleted) on the devices of ``platform``'s backend, as
    ``jax.live_arrays``.

    Args:
      platform: a backend name ("cpu", "cuda", ...); None: the default backend.
    Returns:
      A list of tjit Arrays (in no particular order).

    >>> x = jnp.ones(3)
    >>> any(a is x for a in jax.live_arrays())
    True
    >>> x.delete()
    >>> any(a is x for a in jax.live_arrays())
    False
    """
    name = default_backend() if platform is None else platform
    devices = set(get_backend(name).devices())
    # Arrays are found by the garbage collector's list rather than registered on
    # creation, so that building an Array (the eager hot path) costs nothing more
    return [a for a in gc.get_objects() if isinstance(a, Array) and not a.is_deleted()
            and a.device in devices]


__all__ = ["live_arrays", "make_array_from_callback", "make_array_from_single_device_arrays"]
