"""The Array API standard's namespace-level objects for ``tjit.numpy``:
``__array_api_version__``, ``__array_namespace_info__()``, DLPack exchange
(``from_dlpack``, and ``Array.__dlpack__``/``__dlpack_device__``) and
``Array.__array_namespace__``.

As in ``jax.numpy``, ``tjit.numpy`` itself is the standard's namespace: the dtypes the
namespace lists follow the x64 switch (no 64-bit dtypes unless ``enable_x64``).
"""

import numpy as np

from tjit import numpy as jnp  # this namespace (partly loaded: used at call time)
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer, _HOST_DEVICE, is_device_value, to_host

__array_api_version__ = "2024.12"

# DLPack device types (dlpack.h, DLDeviceType)
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST = 1, 2, 3


# -- inspection ----------------------------------------------------------------------------
class ArrayNamespaceInfo:
    """What ``tjit.numpy.__array_namespace_info__()`` returns (the standard's
    "inspection" API): devices, dtypes, default dtypes and capabilities."""

    __module__ = "tjit.numpy"

    def capabilities(self):
        """Boolean indexing and data-dependent output shapes work eagerly (not under
        ``jit``, as in JAX); ``max dimensions`` is NumPy's limit."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        return _HOST_DEVICE[0]

    def devices(self):
        """The host and the default backend's devices (e.g. a CUDA GPU)."""
        import tjit  # the device list belongs to the runtime, loaded after this namespace
        found = [_HOST_DEVICE[0]]
        for d in tjit.devices():
            if d not in found:
                found.append(d)
        return found

    def default_dtypes(self, *, device=None):
        _check_device(device, "default_dtypes")
        return {"real floating": dtypes.default_float(),
                "complex floating": dtypes.default_complex(),
                "integral": dtypes.default_int(),
                "indexing": dtypes.default_int()}

    def dtypes(self, *, device=None, kind=None):
        """The dtypes of ``kind`` (a name such as ``"integral"``, or a tuple of names;
        None: all) as ``{name: dtype}``; 64-bit dtypes only with x64 enabled."""
        _check_device(device, "dtypes")
        if kind is None:
            names = [n for k in ("bool", "signed integer", "unsigned integer",
                                 "real floating", "complex floating") for n in _KINDS[k]]
        else:
            names = []
            for k in (kind if isinstance(kind, tuple) else (kind,)):
                if k not in _KINDS:
                    raise ValueError(f"__array_namespace_info__().dtypes: unknown kind {k!r}"
                                     f"; use one of {sorted(_KINDS)} or a tuple of them")
                names += [n for n in _KINDS[k] if n not in names]
        out = {}
        for n in names:
            dt = np.dtype(n)
            if dtypes.canonicalize(dt) == dt:  # 64-bit dtypes exist only with x64
                out[n] = dt
        return out


_INTS = ("int8", "int16", "int32", "int64")
_UINTS = ("uint8", "uint16", "uint32", "uint64")
_FLOATS = ("float32", "float64")
_COMPLEX = ("complex64", "complex128")
_KINDS = {"bool": ("bool",), "signed integer": _INTS, "unsigned integer": _UINTS,
          "integral": _INTS + _UINTS, "real floating": _FLOATS,
          "complex floating": _COMPLEX, "numeric": _INTS + _UINTS + _FLOATS + _COMPLEX}


def _check_device(device, where):
    if device is not None and device not in ArrayNamespaceInfo().devices():
        raise ValueError(f"__array_namespace_info__().{where}: unknown device {device!r}; "
                         f"use one of {ArrayNamespaceInfo().devices()}")


def __array_namespace_info__():
    """The Array API standard's inspection namespace (devices, dtypes, capabilities)."""
    return ArrayNamespaceInfo()


# -- DLPack --------------------------------------------------------------------------------
def from_dlpack(x, /, *, device=None, copy=None):
    """An Array from any object with ``__dlpack__`` (a NumPy, CuPy, PyTorch... array).

    Host memory is shared, not copied (``copy=None`` or ``False``), unless the dtype
    must be narrowed (64-bit data without x64) or ``copy=True``. Unlike
    ``numpy.from_dlpack``, the result is a tjit Array: immutable through tjit, but it
    sees writes the producer makes to the shared buffer (as JAX's does on the CPU).

    Args:
      x: the producer (``__dlpack__`` and ``__dlpack_device__``).
      device: None (where ``x`` lives) or the host device.
      copy: True always copies, False never (raises when a copy is needed).
    Raises:
      BufferError: ``copy=False`` but the data must be converted, or ``x`` lives on a
        device tjit cannot hold eagerly.
    """
    if isinstance(x, Tracer):
        raise TypeError("from_dlpack: got a traced array; DLPack exchanges concrete "
                        "buffers, so call it outside jit/grad/vmap")
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: {type(x).__name__} has no __dlpack__ method; pass "
                        f"an array of a DLPack-capable library (NumPy, CuPy, PyTorch...)")
    if device is not None and device != _HOST_DEVICE[0]:
        raise ValueError(f"from_dlpack: device={device!r} is not supported; tjit reads "
                         f"DLPack data on the host (device=None or {_HOST_DEVICE[0]!r})")
    if isinstance(x, Array):
        v = x._value
        return Array(v.copy() if copy else v, x._weak)
    kind, _ = x.__dlpack_device__()
    if kind not in (_DL_CPU, _DL_CUDA_HOST):
        raise BufferError(f"from_dlpack: the data lives on DLPack device type {kind} "
                          f"(2: CUDA); copy it to the host first (e.g. cupy.asnumpy), or "
                          f"use tjit.device_put with a CUDA device")
    v = np.from_dlpack(x, copy=copy)
    dt = dtypes.canonicalize(dtypes.check_dtype(v.dtype, "from_dlpack"))
    if dt != v.dtype:
        if copy is False:
            raise BufferError(f"from_dlpack(copy=False): {v.dtype} data becomes {dt} "
                              f"without x64, which needs a copy")
        v = v.astype(dt)
    return Array(v, False)


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """Export this array's buffer (shared, not copied) through DLPack."""
    v = self._value
    if is_device_value(v):
        return v.__dlpack__(stream=stream)  # the device library exports its own buffer
    if dl_device is not None and tuple(dl_device)[0] not in (_DL_CPU,):
        raise BufferError(f"__dlpack__: cannot export a host array to DLPack device "
                          f"{dl_device}")
    if not v.flags.writeable and (max_version is None or tuple(max_version) < (1, 0)):
        # DLPack before 1.0 cannot mark a buffer read-only: hand out a copy, as the
        # standard allows for copy=None (a broadcast result's buffer is read-only)
        if copy is False:
            raise BufferError("__dlpack__(copy=False): this array's buffer is read-only, "
                              "which DLPack < 1.0 cannot signal; pass max_version=(1, 0)")
        v, copy = v.copy(), None
    kw = {"copy": copy} if copy is not None else {}
    if max_version is not None:
        kw["max_version"] = max_version
    return v.__dlpack__(stream=stream, **kw)


def _dlpack_device(self):
    v = self._value
    if is_device_value(v):
        return v.__dlpack_device__()
    return (_DL_CPU, 0)


def _array_namespace(self, /, *, api_version=None):
    if api_version is not None and api_version not in _VERSIONS:
        raise ValueError(f"__array_namespace__: api_version {api_version!r} is not "
                         f"supported; tjit.numpy implements {', '.join(_VERSIONS)}")
    return jnp


_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def _to_device(self, device, /, *, stream=None):
    """``x.to_device(device)`` (Array API): the array on ``device``."""
    if device == _HOST_DEVICE[0] or device is None:
        if isinstance(self, Array) and is_device_value(self._value):
            return Array(to_host(self._value), self._weak)
        return self
    import tjit  # placing data on a device is the runtime's job (tjit.device_put)
    return tjit.device_put(self, device)


def install():
    """Attach the standard's array methods to Array (and the namespace to tracers)."""
    Array.__dlpack__ = _dlpack
    Array.__dlpack_device__ = _dlpack_device
    for cls in (Array, Tracer):
        cls.__array_namespace__ = _array_namespace
    Array.to_device = _to_device
