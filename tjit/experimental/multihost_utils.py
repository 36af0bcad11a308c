"""``jax.experimental.multihost_utils``'s helpers for multi-process programs."""

from tjit.distributed.arrays import process_allgather  # noqa: F401
from tjit.distributed.host_sync import (  # noqa: F401
    assert_equal, broadcast_one_to_all, global_array_to_host_local_array,
    host_local_array_to_global_array, sync_global_devices)
