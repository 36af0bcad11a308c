"""The value of a ``pmap`` result: the devices' outputs stacked in host memory, with the
devices they were computed on.

N CPU devices share the host's memory, so a pmap result is one NumPy buffer (the
stacked per-device outputs, which is what ``np.asarray`` gives, as in JAX). Its type,
:class:`StackedValue`, is a NumPy array subclass registered with
``register_multi_device_values``: ``result.devices()`` names every device, and every
other path (eager ops, ``jit``, ``np.asarray``) reads it as the plain host array it is.
It is deliberately not a device-array type (``register_device_arrays``): nothing about
it needs copying.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import Array, register_multi_device_values


class StackedValue(np.ndarray):
    """A host buffer holding one slice per device along ``mapped_axis`` (None: the
    devices' identical values)."""

    def __array_finalize__(self, obj):
        self.device_list = getattr(obj, "device_list", ())
        self.mapped_axis = getattr(obj, "mapped_axis", None)


register_multi_device_values(StackedValue, lambda v: set(v.device_list))


def stacked_result(values, axis, devices):
    """The outputs ``values`` (one per device, in device order) stacked along ``axis``
    (None: the devices' values must agree and the first is returned) as an Array that
    records ``devices``."""
    host = [np.asarray(v) for v in values]
    weak = bool(getattr(values[0], "weak_type", False))
    if axis is None:
        for r, h in enumerate(host[1:], 1):
            if not np.array_equal(h, host[0], equal_nan=dtypes.is_inexact(h.dtype)):
                raise ValueError(f"pmap: out_axes=None for an output that differs across "
                                 f"devices (device 0 and device {r} disagree); return a "
                                 f"value reduced over the axis (psum/pmean) or use "
                                 f"out_axes=0")
        stacked = np.array(host[0])
    else:
        stacked = np.stack(host, axis=axis % (host[0].ndim + 1))
    v = stacked.view(StackedValue)
    v.device_list = tuple(devices)
    v.mapped_axis = axis
    return Array(v, weak)
