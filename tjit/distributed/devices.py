"""The devices of every process of a multi-process run.

After ``initialize()``, each of the ``P`` processes drives ``L`` devices (its local ones;
every process must have the same number) and the global device list numbers them
process by process: device ``p * L + i`` is process ``p``'s ``i``-th device and knows its
``process_index``, so a mesh over the global list says which process holds each block.
"""

import dataclasses

from tjit.devices import backend
from tjit.distributed import runtime


@dataclasses.dataclass(frozen=True)
class ProcessDevice(backend.Device):
    """A device of a multi-process run: its platform, its global id and the index of the
    process that drives it."""
    process_index: int = 0

    def __repr__(self):
        return (f"{self.platform.capitalize()}Device(id={self.id}, "
                f"process_index={self.process_index})")


def _local_count():
    return len(backend.local_devices())


def global_devices():
    """Every process's devices (this process's only, in a one-process run)."""
    st = runtime.state()
    local = backend.local_devices()
    if st is None or st.size == 1:
        return local
    n = _local_count()
    return [ProcessDevice(local[0].platform, p * n + i, p)
            for p in range(st.size) for i in range(n)]


def global_local_devices():
    """This process's devices, as they appear in :func:`global_devices`."""
    me = runtime.process_index()
    return [d for d in global_devices() if getattr(d, "process_index", 0) == me]
