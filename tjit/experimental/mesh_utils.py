"""``tjit.experimental.mesh_utils``: JAX's device-mesh helper
(``jax.experimental.mesh_utils.create_device_mesh``), for sharding code ported from JAX.

>>> from tjit.experimental import mesh_utils
>>> mesh_utils.create_device_mesh((1,)).shape
(1,)
"""

import math

import numpy as np

from tjit.distributed.devices import global_devices


def create_device_mesh(mesh_shape, devices=None, *, contiguous_submeshes=False,
                       allow_split_physical_axes=False):
    """The devices as a NumPy array of ``mesh_shape``, in device order, as JAX's
    ``create_device_mesh``. tjit's devices (the processes of an MPI run, or one host
    device) have no physical topology to follow, so the two topology options change
    nothing.

    Raises ValueError unless the mesh holds every device exactly once (as JAX).
    """
    devices = global_devices() if devices is None else list(devices)
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if math.prod(mesh_shape) != len(devices):
        raise ValueError(f"create_device_mesh: number of devices {len(devices)} must equal "
                         f"the product of mesh_shape {mesh_shape}; pass devices= a list of "
                         f"that many devices, or a mesh_shape whose product is "
                         f"{len(devices)}")
    mesh = np.empty(len(devices), dtype=object)
    mesh[:] = devices
    return mesh.reshape(mesh_shape)


__all__ = ["create_device_mesh"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
