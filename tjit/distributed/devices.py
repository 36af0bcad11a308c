"""The devices of every process of a multi-process run.

After ``initialize()``, each of the ``P`` processes drives ``L`` devices (its local ones;
every process must have the same number) and ``tjit.devices()`` numbers them process by
process: device ``p * L + i`` is process ``p``'s ``i``-th device and knows its
``process_index`` (``tjit.devices.backend.set_process_layout``, which ``initialize()``
calls), so a mesh over the global list says which process holds each block.
"""

from tjit.devices import backend


def global_devices():
    """Every process's devices (this process's only, in a one-process run): the same as
    ``tjit.devices()``."""
    return backend.devices()


def global_local_devices():
    """This process's devices, as they appear in :func:`global_devices`
    (``tjit.local_devices()``)."""
    return backend.local_devices()
