"""Process-level helpers of JAX's top-level namespace: ``print_environment_info``,
``effects_barrier``, ``process_indices``, ``local_devices``, ``copy_to_host_async`` and
the old names ``host_id``, ``host_count``, ``host_ids`` (deprecated, as in JAX)."""

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


def _renamed(old, new):
    warnings.warn(f"jax.{old} has been renamed to jax.{new}. This alias will eventually be "
                  f"removed; please update your code.", DeprecationWarning, stacklevel=3)


def host_id(backend=None):
    """Deprecated name of ``process_index`` (as ``jax.host_id``).

    >>> import tjit, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     tjit.host_id()
    0
    """
    import tjit
    _renamed("host_id", "process_index")
    return tjit.process_index(backend)


def host_count(backend=None):
    """Deprecated name of ``process_count`` (as ``jax.host_count``).

    >>> import tjit, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     tjit.host_count()
    1
    """
    import tjit
    _renamed("host_count", "process_count")
    return tjit.process_count(backend)


def host_ids(backend=None):
    """Deprecated name of ``process_indices`` (as ``jax.host_ids``).

    >>> import tjit, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     tjit.host_ids()
    [0]
    """
    _renamed("host_ids", "process_indices")
    return process_indices(backend)


def copy_to_host_async(x):
    """Start copying each array leaf of the pytree ``x`` to the host (as
    ``jax.copy_to_host_async``); leaves without a ``copy_to_host_async`` method are left
    alone. Returns ``x``. Arrays on the CPU are host memory already.

    >>> import tjit, tjit.numpy as jnp
    >>> tree = {"a": jnp.ones(2), "n": 3}
    >>> tjit.copy_to_host_async(tree) is tree
    True
    """
    from tjit.tracing.tree_util import tree_leaves
    for leaf in tree_leaves(x):
        start = getattr(leaf, "copy_to_host_async", None)
        if start is not None:
            start()
    return x


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
