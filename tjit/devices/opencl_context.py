"""The OpenCL device of the "opencl" backend: context, queue, buffers, program builds.

pyopencl is imported here only, on first use, so tjit imports and runs without it.
:func:`get` returns the one :class:`ClDevice` of this process (the first GPU of the
first platform that has one, else the first device; ``TJIT_OPENCL_DEVICE=<n>`` picks
the n-th device of all platforms), or raises :class:`Unavailable` saying what is
missing and how to install it. A device whose compiler cannot build a trivial kernel
(:func:`probe_compiler`, tried once per process) is unavailable too, with the
compiler's log: the backend is then unusable as it is without a device.

Buffers. A :class:`DevArray` is a ``cl.Buffer`` (from a memory pool, so freed buffers
are reused) with a shape and dtype, and optionally the host array it was copied from
or to (``host``), so a value read by the host twice is copied once. Zero-byte arrays
have no buffer (a one-byte dummy is passed to kernels, which never read it).

Programs. All kernels of a compiled program (its control-flow bodies included) are
rendered with the ``opencl`` dialect and built as one ``cl.Program`` (PoCL builds cost
~0.1-1 s each: one build per jit, not per kernel). Built programs are cached in memory
by the source's hash, and on disk (``disk_cache``, the CPU's entry format) as the
device binary, keyed by the device name, driver and platform versions, build options,
the C renderer's source digest, tjit's version and the source's hash; a binary the
driver rejects is rebuilt from source. Not on PoCL (``ClDevice.store_binaries``): PoCL
keeps its builds in a disk cache of its own (``POCL_CACHE_DIR``, unless
``POCL_KERNEL_CACHE=0``), and asking it for a binary compiles every kernel of the program
once more in a generic form (measured: the edge-value program of int32, 6 s to build,
400 s more for its binary on two busy cores; a 4.4x longer first call).
"""

import contextlib
import hashlib
import os
import pathlib
import threading
import warnings

import numpy as np

from tjit import __version__
from tjit.devices import disk_cache
from tjit.devices.array_args import c_contiguous
from tjit.lower.c import OPENCL

INSTALL = 'pip install "tjit[opencl]" plus an OpenCL driver (on a CPU: pip install ' \
          'pocl-binary-distribution)'

#: Transfer counters of this process (tests and benchmarks read them).
STATS = {"to_device": 0, "to_device_bytes": 0, "to_host": 0, "to_host_bytes": 0,
         "builds": 0, "disk_hits": 0, "executables": 0}


class Unavailable(RuntimeError):
    """No pyopencl, no OpenCL device, or one whose compiler builds nothing: the message
    says which and what to do."""


class DevArray:
    """One array in device memory: ``buf`` (None when empty), ``shape``, ``dtype``;
    ``host``: a host copy of the same data, when one exists."""
    __slots__ = ("buf", "dtype", "host", "nbytes", "shape")

    def __init__(self, buf, shape, dtype, host=None):
        self.buf, self.shape, self.dtype = buf, tuple(shape), np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
        self.host = host

    def __repr__(self):
        return f"DevArray({self.dtype}{list(self.shape)})"


_LOCK = threading.Lock()
_DEVICE = None
_ERROR = None


def get():
    """The process's :class:`ClDevice`; raises :class:`Unavailable`."""
    global _DEVICE, _ERROR
    if _DEVICE is None and _ERROR is None:
        with _LOCK:
            if _DEVICE is None and _ERROR is None:
                try:
                    _DEVICE = ClDevice()
                except Unavailable as e:
                    _ERROR = e
    if _ERROR is not None:
        raise Unavailable(str(_ERROR))
    return _DEVICE


def unavailable_reason():
    """Why the OpenCL backend cannot run here, or None when it can."""
    try:
        get()
    except Unavailable as e:
        return str(e)
    return None


def _pick_device(cl):
    try:
        devs = [d for p in cl.get_platforms() for d in p.get_devices()]
    except cl.Error as e:
        raise Unavailable(f"no OpenCL platform ({e}); install an OpenCL driver, e.g. "
                          f"{INSTALL}") from None
    if not devs:
        raise Unavailable(f"no OpenCL device; install a driver, e.g. {INSTALL}")
    want = os.environ.get("TJIT_OPENCL_DEVICE", "").strip()
    if want:
        if not want.isdigit() or int(want) >= len(devs):
            raise Unavailable(f"TJIT_OPENCL_DEVICE={want!r}: not an index of the "
                              f"{len(devs)} OpenCL devices ({[d.name for d in devs]})")
        return devs[int(want)]
    gpus = [d for d in devs if d.type & cl.device_type.GPU]
    return (gpus or devs)[0]


class ClDevice:
    """Context, in-order queue and memory pool of one OpenCL device."""

    def __init__(self):
        try:
            import pyopencl as cl
            import pyopencl.tools  # (MemoryPool)
        except ImportError as e:
            raise Unavailable(f"pyopencl is not importable ({e}); install it with "
                              f"{INSTALL}") from None
        self.cl = cl
        self.device = _pick_device(cl)
        if self.device.max_work_group_size < OPENCL.local_size:
            raise Unavailable(f"OpenCL device {self.device.name!r} runs at most "
                              f"{self.device.max_work_group_size} work-items per group; "
                              f"tjit's kernels need {OPENCL.local_size}")
        self.ctx = cl.Context([self.device])
        self.options = tuple(OPENCL.compile_options)
        why = probe_compiler(cl, self.ctx, self.device, self.options)
        if why is not None:
            raise Unavailable(why)
        self.queue = cl.CommandQueue(self.ctx)
        self.pool = cl.tools.MemoryPool(cl.tools.ImmediateAllocator(self.queue))
        self.fp64 = "cl_khr_fp64" in self.device.extensions
        self.name = self.device.name
        self.max_groups = max(64, 16 * self.device.max_compute_units)
        self._dummy = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, 1)
        self._programs = {}
        self._build_lock = threading.Lock()
        #: whether built programs go to tjit's disk cache as device binaries (module
        #: docstring: not on PoCL, whose own kernel cache keeps them)
        self.store_binaries = not _keeps_own_cache(self.device)

    # -- memory ---------------------------------------------------------------------------
    def empty(self, shape, dtype):
        a = DevArray(None, shape, dtype)
        if a.nbytes:
            a.buf = self.pool.allocate(a.nbytes)
        return a

    def put(self, host):
        """A device copy of host array ``host`` (which it keeps as ``.host``)."""
        host = c_contiguous(np.asarray(host))
        a = self.empty(host.shape, host.dtype)
        if a.nbytes:
            self.cl.enqueue_copy(self.queue, a.buf, host)   # (blocking)
            STATS["to_device"] += 1
            STATS["to_device_bytes"] += a.nbytes
        a.host = host
        return a

    def fetch(self, a, into=None):
        """``a``'s data as a host array (its cached host copy when it has one); a copy
        is made into ``into`` (a C-contiguous array of ``a``'s shape and dtype) when
        given, else into a new array."""
        if a.host is None:
            h = np.empty(a.shape, a.dtype) if into is None else into
            if a.nbytes:
                self.cl.enqueue_copy(self.queue, h, a.buf)   # (blocking; queue in order)
                STATS["to_host"] += 1
                STATS["to_host_bytes"] += a.nbytes
            a.host = h
        return a.host

    def copy(self, dst, src, nbytes, dst_offset=0, src_offset=0):
        """Device-to-device copy of ``nbytes`` (DevArrays, byte offsets)."""
        if nbytes:
            self.cl.enqueue_copy(self.queue, dst.buf, src.buf, byte_count=nbytes,
                                 dst_offset=dst_offset, src_offset=src_offset)

    def write(self, dst, host, dst_offset=0):
        """Host array ``host`` into ``dst`` at byte ``dst_offset``."""
        host = c_contiguous(np.asarray(host))
        if host.nbytes:
            self.cl.enqueue_copy(self.queue, dst.buf, host, dst_offset=dst_offset)
            STATS["to_device"] += 1
            STATS["to_device_bytes"] += host.nbytes

    def arg(self, a):
        """The kernel argument of DevArray ``a``."""
        return a.buf if a.buf is not None else self._dummy

    # -- programs -------------------------------------------------------------------------
    def program(self, text):
        """``text`` built for this device (memory cache, then disk, then the driver)."""
        key = hashlib.sha256(text.encode()).hexdigest()
        prog = self._programs.get(key)
        if prog is not None:
            return prog
        with self._build_lock:
            prog = self._programs.get(key)
            if prog is None:
                prog = self._programs[key] = self._build(text, key)
        return prog

    def disk_key(self, source_hash):
        d = self.device
        text = "\0".join(("opencl", d.name, d.driver_version, d.platform.version,
                          d.version, " ".join(self.options), renderer_digest(),
                          __version__, source_hash))
        return hashlib.sha256(text.encode()).hexdigest()

    def _build(self, text, source_hash):
        cl = self.cl
        key = self.disk_key(source_hash)
        binary = disk_cache.get(key)
        if binary is not None:
            try:
                with _quiet_builds(cl):
                    prog = cl.Program(self.ctx, [self.device], [binary]).build(
                        options=list(self.options))
                STATS["disk_hits"] += 1
                return prog
            except cl.Error:
                pass    # the driver rejects it: built again from source below
        try:
            with _quiet_builds(cl):
                prog = cl.Program(self.ctx, text).build(options=list(self.options))
        except cl.RuntimeError as e:
            raise RuntimeError(f"opencl backend: the OpenCL compiler of {self.name!r} "
                               f"rejected tjit's kernels: {e}") from None
        STATS["builds"] += 1
        if not self.store_binaries:
            return prog
        try:
            disk_cache.put(key, bytes(prog.binaries[0]))
        except cl.Error:
            pass        # (a driver that cannot return binaries: memory cache only)
        return prog


#: The probe's kernel: a math builtin (the device's kernel library) and a store.
_PROBE_SOURCE = ("__kernel void tjit_probe(__global float *a) "
                 "{ size_t i = get_global_id(0); a[i] = exp(a[i]) * 2.0f; }")


def probe_compiler(cl, ctx, device, options):
    """None when ``device``'s OpenCL compiler builds a trivial kernel, else why not (the
    device, its driver's version, the compiler's log and what to do).

    A device can be listed and yet build nothing: the PoCL inside the pyopencl and
    pocl-binary-distribution wheels (LLVM 14) takes CPUs newer than its LLVM (e.g. AMD
    Zen 5) for "generic", which its clang then rejects ("unknown target CPU 'generic'",
    pocl/pocl#1049) for every kernel, whatever the build options or environment. One
    build at context creation turns that into "this backend is unusable here, because"
    instead of a failure in every compiled function."""
    try:
        with _quiet_builds(cl):
            cl.Program(ctx, _PROBE_SOURCE).build(options=list(options))
    except cl.Error as e:
        lines = [line for line in str(e).splitlines() if line.strip()]
        # (pyopencl's "clBuildProgram failed: ..." repeats, and its "Build on <Device>"
        # header, say nothing the compiler's own lines do not)
        log = "\n".join([line for line in lines if not line.startswith(
            ("clBuildProgram failed", "Build on <"))] or lines)
        if len(log) > 2000:
            log = log[:2000] + " ..."
        return (f"the OpenCL compiler of device {device.name!r} (platform "
                f"{device.platform.name!r}, {device.platform.version}) cannot build a "
                f"trivial kernel, so no tjit kernel can run on it; its log:\n{log}\n"
                f"Use an OpenCL driver whose compiler supports this machine (PoCL "
                f"with an LLVM that knows this CPU, e.g. a distribution's or conda-forge's "
                f"pocl, or a GPU vendor's driver; TJIT_OPENCL_DEVICE=<n> picks another "
                f"device), or run on another backend such as 'cpu'")
    return None


def _keeps_own_cache(device):
    """Whether ``device``'s driver caches built programs on disk itself: PoCL, unless
    its kernel cache is turned off."""
    pocl = "portable computing language" in device.platform.name.lower()
    return pocl and os.environ.get("POCL_KERNEL_CACHE", "1").strip() != "0"


@contextlib.contextmanager
def _quiet_builds(cl):
    """A successful build's log (e.g. clang's notes on generated code, also replayed by
    builds from a cached binary) is not the user's concern; PYOPENCL_COMPILER_OUTPUT=1
    shows it."""
    with warnings.catch_warnings():
        if not os.environ.get("PYOPENCL_COMPILER_OUTPUT"):
            warnings.simplefilter("ignore", cl.CompilerWarning)
        yield


_RENDERER_DIGEST = None


def renderer_digest():
    """sha256 of the C renderer's source files: a renderer change invalidates binaries."""
    global _RENDERER_DIGEST
    if _RENDERER_DIGEST is None:
        from tjit.lower import c
        h = hashlib.sha256()
        for f in sorted(pathlib.Path(c.__file__).parent.glob("*.py")):
            h.update(f.name.encode() + b"\0" + f.read_bytes())
        _RENDERER_DIGEST = h.hexdigest()
    return _RENDERER_DIGEST
