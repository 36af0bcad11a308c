"""Process-level helpers of JAX's top-level namespace: ``print_environment_info``,
``effects_barrier`` and ``process_indices``."""

import platform
import sys

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


def process_indices():
    """The indices of every process of a multi-process run (``[0]`` in one process).

    >>> import tjit
    >>> tjit.process_indices()
    [0]
    """
    import tjit
    return list(range(tjit.process_count()))
