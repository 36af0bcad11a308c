"""Backends and devices: the registry that maps a backend name to what compiles for it.

A backend turns a traced program (a closed jaxpr) into an
:class:`~tjit.devices.executable.Executable` for its devices. ``jit`` asks this module
for one by name (``jit(f, backend="cpu")``), by device (``jit(f, device=d)``) or, with
neither, for :func:`default_backend`. Nothing here knows a particular backend: each
backend module registers itself when imported, and the built-in ones are imported on
first request (``_BUILTIN``), so that this module, ``jit`` and the interpreter import no
backend code (the CPU backend and the interpreter used to import each other).

Built-in backends: ``"cpu"`` (fused kernels compiled with LLVM, BLAS for dots) and
``"interpreter"`` (the primitives' reference implementations; the test oracle). Both
run on the host, the one ``cpu`` device. Others (``"cuda"``, ``"opencl"``) come as
package extras and register themselves the same way; ``"opencl_swi"`` (single-work-item
OpenCL kernels) and ``"hls"`` (FPGA dataflow designs in C simulation, needs g++) too.

``TJIT_PLATFORMS`` (like ``JAX_PLATFORMS``): a comma-separated list of backend names;
the first registered and usable one is the default. Unset: ``"cuda"`` when a GPU is
usable (CuPy, a driver and a device), else ``"cpu"``. As in JAX, ``"gpu"`` names the
CUDA backend (``jit(backend="gpu")``, ``tjit.devices("gpu")``) and is what
:func:`default_backend` returns for it.
"""

import contextlib
import dataclasses
import importlib
import os
import re
import threading
from typing import Protocol

from tjit.config import config
from tjit.tracing import core

#: Backends tjit ships, imported on first request: name -> module that registers it.
_BUILTIN = {"cpu": "tjit.devices.cpu", "interpreter": "tjit.devices.executable",
            "cuda": "tjit.devices.cuda"}
#: The OpenCL backend imports pyopencl only when first used (``opencl_context.py``).
_BUILTIN["opencl"] = "tjit.devices.opencl"
#: Single-work-item OpenCL kernels (the FPGA OpenCL style), on the same runtime.
_BUILTIN["opencl_swi"] = "tjit.devices.opencl"
#: FPGA dataflow designs in C simulation (g++; ``tjit/fpga``).
_BUILTIN["hls"] = "tjit.devices.hls"
#: JAX's platform names for backends: ``"gpu"`` is the CUDA backend.
ALIASES = {"gpu": "cuda"}
#: The name :func:`default_backend` reports for a backend (JAX's ``"gpu"``).
PUBLIC_NAMES = {"cuda": "gpu"}
#: How to get the backends that are package extras (named in "unknown backend" errors).
INSTALL_HINTS = {"cuda": 'pip install "tjit[cuda]"', "opencl": 'pip install "tjit[opencl]"'}
#: The default when ``TJIT_PLATFORMS`` is unset (a GPU will come first once there is one).
DEFAULT_ORDER = ("cuda", "cpu")
#: Built-in backends costly to import, with a module whose ``cached_quick_reason()``
#: says without that import whether the backend cannot run here (None: it may):
#: :func:`default_backend` asks it first, so a CPU user's first ``jit`` does not import
#: the CUDA backend (its C renderer and NVRTC modules: ~30-50 ms) only to skip it.
_PROBES = {"cuda": "tjit.devices.cuda_probe"}

_REGISTRY = {}
_LOCK = threading.Lock()


@dataclasses.dataclass(frozen=True)
class Device:
    """One device of a platform, as ``jax.Device``: ``platform`` ("cpu", "cuda", ...),
    ``id`` (its index among the platform's devices of every process) and
    ``process_index`` (the process that drives it; 0 in a one-process run)."""
    platform: str
    id: int = 0
    process_index: int = 0

    @property
    def device_kind(self):
        return self.platform

    def __repr__(self):
        where = f", process_index={self.process_index}" if self.process_index else ""
        return f"{self.platform.capitalize()}Device(id={self.id}{where})"


#: The host: the device of the "cpu" and "interpreter" backends.
CPU_DEVICE = Device("cpu", 0)
core.set_host_device(CPU_DEVICE)   # (Array.device; tracing knows no devices itself)

#: ``TJIT_NUM_CPU_DEVICES=N`` (as XLA's ``--xla_force_host_platform_device_count``, which
#: is read from ``XLA_FLAGS`` too, after ``config.num_cpu_devices``): the host shows N CPU
#: devices (``pmap`` runs one thread per device). Read at first use.
NUM_CPU_DEVICES_VAR = "TJIT_NUM_CPU_DEVICES"
_cpu_devices = []     # the list, once read


def _xla_flags_device_count():
    """N from ``--xla_force_host_platform_device_count=N`` in ``XLA_FLAGS`` (JAX's way to
    ask for N CPU devices), or None."""
    m = re.search(r"--xla_force_host_platform_device_count=(\S+)",
                  os.environ.get("XLA_FLAGS", ""))
    return m.group(1) if m else None


def cpu_devices():
    """The host's CPU devices: ``CPU_DEVICE`` and, with ``TJIT_NUM_CPU_DEVICES=N``,
    N - 1 more (all share host memory)."""
    if not _cpu_devices:
        raw = os.environ.get(NUM_CPU_DEVICES_VAR, "").strip() or (
            str(config.num_cpu_devices) if config.num_cpu_devices > 0 else
            _xla_flags_device_count() or "1")
        try:
            n = int(raw)
        except ValueError:
            n = 0
        if n < 1:
            raise ValueError(f"{NUM_CPU_DEVICES_VAR}={raw!r} is not a positive integer; set "
                             f"it to the number of CPU devices wanted, e.g. 4")
        with _LOCK:
            if not _cpu_devices:
                _cpu_devices.extend([CPU_DEVICE] + [Device("cpu", i) for i in range(1, n)])
    return list(_cpu_devices)


def _on_config_change():
    """``config.update("jax_num_cpu_devices", n)`` after the CPU devices were listed: as
    JAX, refused (arrays and meshes may already refer to the old list)."""
    n = config.num_cpu_devices
    if n > 0 and _cpu_devices and len(_cpu_devices) != n:
        object.__setattr__(config, "num_cpu_devices", len(_cpu_devices))
        raise RuntimeError(f"jax_num_cpu_devices config should be updated before the "
                           f"devices are first used (the host already shows "
                           f"{len(_cpu_devices)} CPU device(s)); set it right after "
                           f"importing, or set {NUM_CPU_DEVICES_VAR}={n}")


config.on_change(_on_config_change)


@contextlib.contextmanager
def cpu_device_count(n):
    """Context manager: the host shows ``n`` CPU devices inside (tests), as if
    ``TJIT_NUM_CPU_DEVICES=n``; the previous list comes back afterwards."""
    before = cpu_devices()
    _cpu_devices[:] = [CPU_DEVICE] + [Device("cpu", i) for i in range(1, n)]
    try:
        yield
    finally:
        _cpu_devices[:] = before


class Backend(Protocol):
    """What a backend provides. ``name``: what ``jit(backend=...)`` takes;
    ``platform``: the kind of device it runs on."""
    name: str
    platform: str

    def available(self) -> bool:
        """Whether it can run here (a GPU backend without a GPU: False)."""

    def devices(self) -> list:
        """Its devices, in id order."""

    def compile(self, closed_jaxpr, in_specs=None, donated=()):
        """The :class:`~tjit.devices.executable.Executable` of ``closed_jaxpr``
        (``in_specs``: per flat input, its polymorphic dims or None; ``donated``: flat
        input positions whose buffers outputs may reuse)."""


def register(backend):
    """Make ``backend`` available under ``backend.name`` (replacing one of that name)."""
    with _LOCK:
        _REGISTRY[backend.name] = backend
    return backend


def registered():
    """Names of the backends that are registered or built in, sorted."""
    return sorted(set(_REGISTRY) | set(_BUILTIN))


def _lookup(name):
    name = ALIASES.get(name, name)
    b = _REGISTRY.get(name)
    if b is None and name in _BUILTIN:
        importlib.import_module(_BUILTIN[name])   # (it registers itself)
        b = _REGISTRY.get(name)
    return b


def install_hint(name):
    """How to install backend ``name`` (or, for a name tjit does not know, the extras)."""
    name = ALIASES.get(name, name)
    if name in INSTALL_HINTS:
        return f"the {name} backend is installed with: {INSTALL_HINTS[name]}"
    return "other backends are package extras: " + ", ".join(
        f"{hint} ({n})" for n, hint in sorted(INSTALL_HINTS.items()))


def unknown_backend_message(name):
    """The "unknown backend" text: what is available and how to install the others."""
    avail = ", ".join(repr(n) for n in registered())
    return f"unknown backend {name!r}; available: {avail}; {install_hint(name)}"


def get_backend(name=None):
    """The backend called ``name`` (None: :func:`default_backend`). Raises ValueError
    naming the available backends for an unknown name, RuntimeError for one that is
    registered but cannot run here."""
    if name is None:
        name = default_backend()
    if not isinstance(name, str):
        raise TypeError(f"backend must be a name such as 'cpu', got {type(name).__name__}")
    b = _lookup(name)
    if b is None:
        raise ValueError(unknown_backend_message(name))
    if not b.available():
        why = getattr(b, "unavailable_reason", None)   # (what is missing, how to install)
        why = why() if why is not None else f"no usable {b.platform} device"
        raise RuntimeError(f"backend {name!r} is registered but cannot run here: {why}; "
                           f"usable here: " + ", ".join(repr(n) for n in _usable()))
    return b


def _usable():
    return [n for n in registered() if _lookup(n) is not None and _lookup(n).available()]


def default_backend():
    """The name of the backend ``jit`` uses when given neither backend nor device: the
    first registered and usable one named in the ``platforms`` option (JAX's
    ``jax_platforms``/``JAX_PLATFORMS``) or else ``TJIT_PLATFORMS`` (else ``"cpu"``)."""
    source, env = "tjit.config platforms", config.platforms
    if not env:
        source, env = "TJIT_PLATFORMS", os.environ.get("TJIT_PLATFORMS", "").strip()
    order = [n.strip() for n in env.split(",") if n.strip()] if env else DEFAULT_ORDER
    for name in order:
        if _ruled_out_unimported(name):
            continue
        b = _lookup(name)
        if b is not None and b.available():
            return PUBLIC_NAMES.get(name, name)
    raise RuntimeError(f"{source}={env!r} names no usable backend; usable here: "
                       + ", ".join(repr(n) for n in _usable()) + "; "
                       + _why_unusable(order[0]))


def _ruled_out_unimported(name):
    """Whether built-in backend ``name``, not imported yet, cannot run here by its cheap
    probe (``_PROBES``); a backend already registered answers for itself."""
    name = ALIASES.get(name, name)
    if name in _REGISTRY or name not in _PROBES:
        return False
    return importlib.import_module(_PROBES[name]).cached_quick_reason() is not None


def _why_unusable(name):
    """Why registered backend ``name`` cannot run here (its own reason, e.g. a device
    whose compiler builds nothing), and how to install it."""
    why = getattr(_lookup(name), "unavailable_reason", None)
    why = why() if why is not None else None
    return (f"{name!r} cannot run here: {why}; " if why else "") + install_hint(name)


def configured_device():
    """The ``default_device`` option as a Device (a platform name gives that platform's
    first device), or None when unset."""
    dev = config.default_device
    if dev is None or isinstance(dev, Device):
        return dev
    try:
        return local_devices(dev)[0]
    except (ValueError, RuntimeError) as e:
        raise type(e)(f"tjit.config default_device={dev!r}: {e}") from None


#: (this process's index, the number of processes) once ``tjit.distributed.initialize()``
#: set it; None in a one-process run.
_PROCESS_LAYOUT = None


def set_process_layout(process_index, process_count):
    """(tjit.distributed) Make :func:`devices` list the devices of all ``process_count``
    processes, each driving as many devices as this one (device ``q * L + i`` is process
    ``q``'s ``i``-th); ``set_process_layout(None, None)`` goes back to one process."""
    global _PROCESS_LAYOUT
    _PROCESS_LAYOUT = None if process_count is None else (process_index, process_count)


def devices(backend=None):
    """The devices of ``backend`` (a name; None: the default backend), as
    ``jax.devices``: after ``tjit.distributed.initialize()``, every process's."""
    own = list(get_backend(backend).devices())
    if _PROCESS_LAYOUT is None:
        return own
    n = len(own)
    return [Device(d.platform, q * n + d.id, q)
            for q in range(_PROCESS_LAYOUT[1]) for d in own]


def local_devices(backend=None):
    """The devices this process drives, as ``jax.local_devices`` (those of
    :func:`devices` whose ``process_index`` is this process's)."""
    if _PROCESS_LAYOUT is None:
        return devices(backend)
    return [d for d in devices(backend) if d.process_index == _PROCESS_LAYOUT[0]]


def own_device(device, where="jit"):
    """The backend's own Device object for ``device`` (one of :func:`devices`): the same
    in a one-process run; in a multi-process run, a device of another process is an
    error (a process runs programs only on its own devices)."""
    if _PROCESS_LAYOUT is None or (device.process_index == 0 == _PROCESS_LAYOUT[0]):
        return device
    if device.process_index != _PROCESS_LAYOUT[0]:
        raise ValueError(f"{where}: device {device!r} belongs to process "
                         f"{device.process_index}, not this process ({_PROCESS_LAYOUT[0]}); "
                         f"run on one of tjit.local_devices()")
    own = _lookup(device.platform)   # (the backend named after the platform drives it)
    n = len(own.devices()) if own is not None else 1
    return Device(device.platform, device.id - device.process_index * n)


def device_count(backend=None):
    """The number of devices of ``backend`` (None: the default), as ``jax.device_count``."""
    return len(devices(backend))


def local_device_count(backend=None):
    """The number of devices this process drives, as ``jax.local_device_count``."""
    return len(local_devices(backend))


def resolve(backend=None, device=None, where="jit"):
    """The backend name for ``jit(backend=, device=)``: the named backend, checked to
    run on ``device``'s platform; else a usable backend of ``device``'s platform (the
    default one when it is); else the default backend. Errors name ``where``."""
    if device is not None and not isinstance(device, Device):
        raise TypeError(f"{where}: device must be a tjit Device (from tjit.devices()), got "
                        f"{type(device).__name__} {device!r:.60}")
    if device is not None:
        device = own_device(device, where)
    if backend is not None:
        try:
            b = get_backend(backend)
        except (ValueError, RuntimeError, TypeError) as e:
            raise type(e)(f"{where}: {e}") from None
        if device is not None and device not in list(b.devices()):
            raise ValueError(f"{where}: device {device!r} is not a device of backend "
                             f"{backend!r} (its devices: {b.devices()})")
        return backend
    if device is None:
        return default_backend()
    default = default_backend()
    names = [default] + [n for n in _usable() if n != default]
    for name in names:
        if device in _lookup(name).devices():
            return name
    raise ValueError(f"{where}: no usable backend runs on {device!r}; usable backends: "
                     + ", ".join(repr(n) for n in _usable()) + "; "
                     + install_hint(device.platform))


def compile_jaxpr(closed_jaxpr, backend=None, in_specs=None, donated=(), device=None):
    """The Executable of ``closed_jaxpr`` on ``backend`` (a name; None: the default);
    ``device`` (``jit(device=)``) goes to backends that place programs on one of
    several devices (``places_programs``; the others have one device)."""
    b = get_backend(backend)
    if device is not None and getattr(b, "places_programs", False):
        return b.compile(closed_jaxpr, in_specs, donated, device=device)
    return b.compile(closed_jaxpr, in_specs, donated)
