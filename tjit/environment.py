"""Process-level helpers of JAX's top-level namespace: ``print_environment_info``,
``effects_barrier``, ``process_indices`` and ``local_devices``."""

import platform
import sys
import warnings

import numpy as np


def print_environment_info(return_string=False):
    """Versions, devices and processes, as ``jax.print_environment_info`` (for bug
    reports).

    >>> import tjit
    >>> "tjit:" in tjit.print_environment_info(return_string=True)
    True
    """
    import llvmlite
    import tjit
    devices = tjit.devices()
    text = (f"tjit:     {tjit.__version__}\n"
            f"numpy:    {np.__version__}\n"
            f"llvmlite: {llvmlite.__version__}\n"
            f"python:   {sys.version}\n"
            f"device info: {tjit.default_backend()}-{len(devices)}, "
            f"{tjit.local_device_count()} local devices\n"
            f"process_count: {tjit.process_count()}\n"
            f"platform: {platform.uname()}\n")
    if return_string:
        return text
    print(text)
    return None


def effects_barrier():
    """Wait until every callback an earlier call started has run (JAX's
    ``jax.effects_barrier``). tjit runs a call's host callbacks before the call
    returns, so there is nothing left to wait for when this is reached.

    >>> import tjit
    >>> tjit.effects_barrier()
    """
    return None


def process_indices(backend=None):
    """The indices of every process of a multi-process run (``[0]`` in one process);
    ``backend`` as ``process_count``'s.

    >>> import tjit
    >>> tjit.process_indices()
    [0]
    """
    import tjit
    return list(range(tjit.process_count(backend)))


def local_devices(process_index=None, backend=None, host_id=None):
    """The devices of process ``process_index`` (None: this process), as
    ``jax.local_devices``; ``host_id`` is its old name (deprecated, as in JAX)."""
    import tjit
    from tjit.devices import backend as _backend
    if host_id is not None:
        warnings.warn("The argument to jax.local_devices has been renamed from `host_id` "
                      "to `process_index`. This alias will eventually be removed; please "
                      "update your code.", DeprecationWarning, stacklevel=2)
        process_index = host_id
    if process_index is None:
        return _backend.local_devices(backend)
    count = tjit.process_count(backend)
    if not 0 <= process_index < count:
        raise ValueError(f"Unknown process_index {process_index} (there are {count} "
                         f"processes: 0..{count - 1})")
    if process_index == tjit.process_index():
        return _backend.local_devices(backend)
    return [d for d in _backend.devices(backend) if d.process_index == process_index]
