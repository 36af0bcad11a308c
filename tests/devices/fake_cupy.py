"""A simulated CUDA device for tests without a GPU: the part of CuPy's API the CUDA
backend uses, over NumPy, and a module whose kernels run through ``kernel_ir.evaluate``.

``FakeCupy.ndarray`` is a NumPy subclass, so the backend tells device arrays from host
ones by type as it does with CuPy. It checks the CUDA runtime's plumbing (value
tables, launch arguments, dots, library steps, loops, donation, eager dispatch); the
rendered CUDA C and cuBLAS are checked on a GPU (``test_cuda.py``).

Device memory is host memory, so raw device pointers (``a.data.ptr``) are host
addresses: the low-level cuBLAS calls (:class:`FakeCublas`, column-major, op flags,
leading dimensions and strides as cuBLAS reads them) and ``runtime.memcpyAsync`` work
on them, and so does :meth:`FakeCupy.copy_rows`, the copy kernel of ``cuda_copies``
(its table read when the launch runs). Streams are ordered work queues: a stream in capture (``begin_capture``)
records the kernel launches, gemms and copies enqueued on it instead of running them,
and ``end_capture`` returns a graph whose ``launch`` replays them (reading the buffers
as they are then, as a CUDA graph does). Allocating during a capture raises, and so
does CuPy's own cuBLAS wrapper (as CuPy 14 does); :class:`RawCublas` (the ctypes
cuBLAS stand-in) runs on the stream set on its handle.

``strict=True`` also holds the primitives' impls (library steps, eager ops) to what the
installed CuPy offers (importing CuPy needs no GPU): a ``cupy``/``cupyx`` name CuPy
lacks raises AttributeError, a NumPy ufunc or function CuPy does not dispatch
(``__array_ufunc__``/``__array_function__``, e.g. ``scipy.special``'s ufuncs) raises
TypeError, ``cupyx.scipy.special`` and ``cupyx.scatter_add`` run SciPy's/NumPy's on the
"device", and ``host_uploads`` counts host arrays copied to the device (``asarray`` of a
NumPy array): a host round trip of a step that computed on the CPU.
"""

import contextlib
import ctypes
import functools
import itertools
import math
import sys
import types

import numpy as np

from tjit.xla_like import kernel_ir as K


class FakeDeviceArray(np.ndarray):
    """A "device" array: NumPy memory that the backend must treat as a GPU buffer."""

    device_id = 0     # (set on an instance: an array on another GPU)
    allocator = None  # the FakeCupy in use: checks and counts allocations

    @property
    def device(self):
        return _DEVICE if self.device_id == 0 else types.SimpleNamespace(
            id=self.device_id, synchronize=lambda: None)

    def __new__(cls, shape, dtype=float, strides=None, order="C"):
        """``cupy.ndarray(shape, dtype)``: a new allocation (checked and counted)."""
        if cls.allocator is not None:
            n = math.prod(shape) if type(shape) is tuple else int(shape)
            cls.allocator.allocating(n * np.dtype(dtype).itemsize)
        out = np.ndarray.__new__(cls, shape, dtype, strides=strides, order=order)
        if _CURRENT[-1]:        # (allocated on the current device)
            out.device_id = _CURRENT[-1]
        return out

    def get(self):
        return np.array(self)

    def set(self, arr):
        """``cupy.ndarray.set``: copy host array ``arr`` of this shape and dtype in."""
        if not isinstance(arr, np.ndarray) or isinstance(arr, FakeDeviceArray):
            raise TypeError("set takes a host numpy.ndarray")
        if arr.shape != self.shape or arr.dtype != self.dtype:
            raise ValueError(f"set: shape/dtype mismatch {arr.shape}/{arr.dtype} into "
                             f"{self.shape}/{self.dtype}")
        np.copyto(self, arr)

    @property
    def data(self):         # (cupy.ndarray.data: a MemoryPointer; made once per array)
        p = self.__dict__.get("_memptr")
        if p is None:
            fake = self.allocator
            if fake is not None and not fake.compute:   # (nothing is dereferenced: a
                p = self._memptr = Pointer(id(self))  # cheap stand-in, as CuPy's)
                return p
            p = self._memptr = Pointer(self.__array_interface__["data"][0])
        return p

    @property
    def _c_contiguous(self):
        c = self.__dict__.get("_c")
        if c is None:
            c = self._c = self.flags.c_contiguous
        return c

    def __array_finalize__(self, obj):
        dev = getattr(obj, "device_id", 0)
        if dev:                 # (a view lives where its base does)
            self.device_id = dev

    # (CuPy dispatches a NumPy ufunc or function to its own of that name, or refuses it)
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fake = self.allocator
        if fake is not None and fake.strict and not _called_by_numpy() and (
                ufunc.__name__ not in cupy_names()["cupy"] or
                ufunc.__name__ not in CUPY_UFUNC_METHODS.get(method, (ufunc.__name__,))):
            return NotImplemented
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
        r = getattr(ufunc, method)(*(_plain(x) for x in inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return tuple(self._like(x) for x in r) if type(r) is tuple else self._like(r)

    def _like(self, r):
        """A ufunc's NumPy result as an array on this array's device."""
        if type(r) is not np.ndarray:
            return r
        r = r.view(FakeDeviceArray)
        if self.device_id:
            r.device_id = self.device_id
        return r

    def __array_function__(self, func, types, args, kwargs):
        fake = self.allocator
        if fake is not None and fake.strict:
            module = ".".join(["cupy"] + func.__module__.split(".")[1:])
            if func.__name__ not in cupy_names().get(module, ()):
                return NotImplemented
        return super().__array_function__(func, types, args, kwargs)


def _called_by_numpy():
    """Whether the ufunc call being dispatched comes from NumPy's own code (``x.any()``,
    ``np.sort``...: an ndarray method or a function CuPy has, whose NumPy version calls
    ``logical_or.reduce`` and such), not from the code under test."""
    return sys._getframe(2).f_globals.get("__name__", "").startswith("numpy")


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, FakeDeviceArray) else x


class Pointer:
    """``cupy.cuda.MemoryPointer``: ``ptr``, a device address."""

    def __init__(self, ptr):
        self.ptr = ptr


_CURRENT = [0]      # the current device's id (a stack: ``with cupy.cuda.Device(i)``)


class _Device:
    """``cupy.cuda.Device(i)`` (no argument: the current one); as a context it makes
    ``i`` current, so new arrays are allocated there."""
    id = 0
    compute_capability = "90"

    def __init__(self, device_id=None):
        self.id = _CURRENT[-1] if device_id is None else int(device_id)

    def synchronize(self):
        pass

    def __enter__(self):
        _CURRENT.append(self.id)
        return self

    def __exit__(self, *exc):
        _CURRENT.pop()
        return False


_DEVICE = _Device()


#: The ufuncs whose methods CuPy implements (cupy/cupy#7082: ``at``, ``reduce``,
#: ``accumulate`` and ``reduceat`` for a few; ``outer`` for all): other calls raise.
CUPY_UFUNC_METHODS = {
    "at": {"add", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor"},
    "reduce": {"add", "multiply"}, "accumulate": {"add"}, "reduceat": {"add"}}


@functools.cache
def _cupy_modules():
    """The installed CuPy's ``cupy``, ``cupy.linalg``, ``cupy.fft``, ``cupyx`` and
    ``cupyx.scipy.special`` (strict mode's reference; importing them needs no GPU)."""
    import importlib
    return {m: importlib.import_module(m) for m in (
        "cupy", "cupy.linalg", "cupy.fft", "cupyx", "cupyx.scipy.special")}


@functools.cache
def cupy_names():
    """{module: its public names} of :func:`_cupy_modules`."""
    return {m: frozenset(n for n in dir(mod) if not n.startswith("_"))
            for m, mod in _cupy_modules().items()}


@functools.cache
def cupy_signature(module, name):
    """The signature of the installed CuPy's ``module.name``, or None (a ufunc, a
    compiled function without one)."""
    import inspect
    try:
        return inspect.signature(getattr(_cupy_modules()[module], name))
    except (TypeError, ValueError, AttributeError):
        return None


def _device_results(fn, signature=None):
    """``fn`` with its array results moved to the "device" (its arguments first bound
    to ``signature``, CuPy's: an argument CuPy does not take raises TypeError)."""
    def on_device(*args, **kwargs):
        if signature is not None:
            signature.bind(*args, **kwargs)
        r = fn(*args, **kwargs)
        if isinstance(r, np.ndarray) and type(r) is not FakeDeviceArray:
            return _new(r)
        if isinstance(r, tuple):
            return tuple(_new(x) if isinstance(x, np.ndarray) else x for x in r)
        return r
    return on_device


class _Strict(types.ModuleType):
    """A strict ``cupyx``-style module: the names CuPy's ``module`` has, as ``impls``
    gives them (on the "device")."""

    def __init__(self, module, impls, **children):
        super().__init__(f"fake_{module}")
        self._module, self._impls = module, impls
        self.__dict__.update(children)

    def __getattr__(self, name):
        if name.startswith("_") or name not in cupy_names()[self._module]:
            raise AttributeError(f"module {self._module!r} has no attribute {name!r} "
                                 f"(fake_cupy strict: not in the installed CuPy)")
        fn = getattr(self._impls, name)
        if not callable(fn):
            return fn
        return _device_results(lambda *args, **kw: fn(*(_plain(a) for a in args), **kw),
                               cupy_signature(self._module, name))


def _cupyx_modules():
    """Strict ``cupyx``, ``cupyx.scipy`` and ``cupyx.scipy.special`` over SciPy/NumPy."""
    import scipy.special
    special = _Strict("cupyx.scipy.special", scipy.special)
    scipy_ns = types.ModuleType("fake_cupyx.scipy")
    scipy_ns.special = special
    extras = types.SimpleNamespace(scatter_add=np.add.at, scatter_max=np.maximum.at,
                                   scatter_min=np.minimum.at)
    cupyx = _Strict("cupyx", extras, scipy=scipy_ns)
    return {"cupyx": cupyx, "cupyx.scipy": scipy_ns, "cupyx.scipy.special": special}


def _new(data, dtype=None, order="C"):
    data = np.asarray(data, dtype=dtype)
    out = FakeDeviceArray(data.shape, data.dtype)
    out[...] = data
    return out


class OutOfMemoryError(MemoryError):
    pass


class FakeCupy(types.ModuleType):
    """``cupy`` as far as ``tjit.devices.cuda`` and the primitives' impls use it."""

    ndarray = FakeDeviceArray

    def __init__(self, compute=True, devices=1, strict=False):
        super().__init__("fake_cupy")
        self.compute, self.strict = compute, strict
        self.host_uploads = 0       # asarray/array of a host NumPy array (strict mode)
        self.launch_devices = []    # the current device of each kernel launch
        self.gemms = 0      # cuBLAS gemm calls (cupy.cublas.gemm and the low-level ones)
        self.allocations = 0
        self.copies = 0             # runtime.memcpyAsync calls
        self.graph_launches = 0
        self.copy_kernel_launches = 0   # launches of cuda_copies' kernel
        self.fail_capture = None    # an exception end_capture raises (a failed capture)
        self._streams = {}
        self.null_stream = Stream(self)
        self._current = [self.null_stream]
        self.cublas = types.SimpleNamespace(gemm=self._gemm)
        self.cublas_lib = FakeCublas(self)
        self.raw_cublas = RawCublas(self)
        runtime = types.SimpleNamespace(
            getDeviceCount=lambda: devices, driverGetVersion=lambda: 12090,
            memcpyAsync=self._memcpy_async, memcpyDeviceToDevice=3)
        self.cuda = types.SimpleNamespace(
            Device=_Device, runtime=runtime,
            Stream=lambda non_blocking=False: Stream(self), Event=Event,
            get_current_stream=lambda: self._current[-1],
            device=types.SimpleNamespace(get_cublas_handle=lambda: 1),
            memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError))
        FakeDeviceArray.allocator = self

    #: Allocations larger than this raise OutOfMemoryError (as CuPy's pool does).
    memory_limit = 1 << 30

    def allocating(self, nbytes):
        """Called for each new device allocation."""
        if self._current[-1].recording is not None:
            raise RuntimeError("device allocation during a stream capture (the graph "
                               "would keep memory the pool hands out again)")
        if nbytes > self.memory_limit:
            raise OutOfMemoryError(f"Out of memory allocating {nbytes:,} bytes (allocated "
                                   f"so far: 0 bytes).")
        self.allocations += 1

    def empty(self, shape, dtype=np.float64):
        return FakeDeviceArray(shape, dtype)

    # -- streams: work runs at once, or is recorded on a stream in capture --------------
    def capturing(self):
        """The stream in capture that is current, or None."""
        s = self._current[-1]
        return s if s.recording is not None else None

    def enqueue(self, work, stream=None):
        """Run ``work()`` on ``stream`` (default: the current one): recorded during a
        capture, else now."""
        s = self._current[-1] if stream is None else stream
        if s.recording is not None:
            s.recording.append(work)
        else:
            work()

    def _memcpy_async(self, dst, src, nbytes, kind, stream_ptr):
        # (device memory is host memory: a host-to-device copy is a memmove too; as
        # CUDA does from pageable memory, it reads the source before returning)
        assert kind in (1, 3), "only host/device-to-device copies are simulated"
        self.copies += 1
        if kind == 1 and self.compute:
            staged = ctypes.create_string_buffer(nbytes)
            ctypes.memmove(staged, src, nbytes)
            self.enqueue(lambda: ctypes.memmove(dst, staged, nbytes),
                         self._streams[stream_ptr])
            return
        if self.compute:
            self.enqueue(lambda: ctypes.memmove(dst, src, nbytes), self._streams[stream_ptr])

    def copy_rows(self, grid, block, args, stream=None):
        """``cuda_copies``' kernel as a loaded Function: copies table rows ``first ..
        first + grid[1] - 1`` (source, destination, bytes), read when it runs; checks
        that the ranges of one launch do not overlap."""
        table, first = args
        assert type(table) is FakeDeviceArray and table.dtype == np.int64
        assert len(grid) == 2 and grid[0] >= 1 and block == (256,)
        tab, first, rows = _unowned(table), int(first), int(grid[1])

        def work():     # (counted when it runs: a graph launch runs it again)
            self.copy_kernel_launches += 1
            if not self.compute:
                return
            reads, writes = [], []
            for r in range(first, first + rows):
                src, dst, n = (int(x) for x in tab[3 * r:3 * r + 3])
                if src != dst and n > 0:
                    reads.append((src, n))
                    writes.append((dst, n))
                    ctypes.memmove(dst, src, n)
            for i, (a, n) in enumerate(writes):     # (CUDA threads run in any order)
                for b, m in writes[:i] + writes[i + 1:] + reads:
                    assert a + n <= b or b + m <= a, "overlapping ranges in one copy launch"
        self.enqueue(work, stream)

    @staticmethod
    def get_default_memory_pool():
        return types.SimpleNamespace(total_bytes=lambda: 0, used_bytes=lambda: 0)

    def array(self, a, dtype=None, copy=True, order="C"):
        self._upload(a)
        return _new(np.array(a, dtype=dtype, order="C"))

    def asarray(self, a, dtype=None):
        if type(a) is FakeDeviceArray and (dtype is None or a.dtype == dtype):
            return a
        self._upload(a)
        return _new(np.asarray(a), dtype)

    def _upload(self, a):
        if type(a) is np.ndarray and a.size > 1:
            self.host_uploads += 1

    def _gemm(self, transa, transb, a, b, out=None, alpha=1.0, beta=0.0):
        """``cupy.cublas.gemm``: out = alpha * op(a) @ op(b) + beta * out, 2-D, one
        dtype (CuPy asserts both)."""
        assert a.ndim == b.ndim == 2 and a.dtype == b.dtype, (a.shape, b.shape)
        assert transa in "NT" and transb in "NT"
        self.gemms += 1
        op_a = a.T if transa == "T" else a
        op_b = b.T if transb == "T" else b
        if out is None:
            out, beta = self.empty((op_a.shape[0], op_b.shape[1]), a.dtype), 0.0
        assert out.shape == (op_a.shape[0], op_b.shape[1]) and out.dtype == a.dtype
        if self.compute:
            acc = np.matmul(op_a, op_b) * a.dtype.type(alpha)
            if beta:
                acc += np.asarray(out) * a.dtype.type(beta)
            out[...] = acc
        return out

    def copyto(self, dst, src, casting="same_kind", where=True):
        if self.compute:
            np.copyto(dst, src, casting=casting, where=where)

    def matmul(self, a, b, out=None):
        if self.compute:
            r = np.matmul(a, b, out=out)
            return r if type(r) is FakeDeviceArray else _new(r)
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
        return out if out is not None else self.empty(shape, np.result_type(a, b))

    def __getattr__(self, name):     # everything else: NumPy's, results on the "device"
        if self.__dict__.get("strict") and name not in cupy_names()["cupy"]:
            raise AttributeError(f"module 'cupy' has no attribute {name!r} (fake_cupy "
                                 f"strict: not in the installed CuPy)")
        fn = getattr(np, name)
        if self.__dict__.get("strict") and name in ("linalg", "fft"):
            return _Strict(f"cupy.{name}", fn)      # (results on the device, as CuPy's)
        if not callable(fn) or isinstance(fn, type):
            return fn
        if self.__dict__.get("strict") and isinstance(fn, np.ufunc):
            return fn   # (methods kept; results on the device through __array_ufunc__)
        if isinstance(fn, np.ufunc):    # (CuPy's ufuncs have at/reduce/outer too)
            return _DeviceUfunc(fn)
        return _device_results(fn, cupy_signature("cupy", name)
                               if self.__dict__.get("strict") else None)


class _DeviceUfunc:
    """A NumPy ufunc whose calls put their results on the "device", with the ufunc's
    methods (``cupy.add.at``: a scatter-add's impl) and attributes."""

    def __init__(self, ufunc):
        self._ufunc, self._call = ufunc, _device_results(ufunc)

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __getattr__(self, name):
        attr = getattr(self._ufunc, name)
        return _device_results(attr) if callable(attr) else attr


_stream_ptrs = itertools.count(0x1000)


class Stream:
    """``cupy.cuda.Stream``: current inside ``with``; can capture its work as a graph."""

    def __init__(self, fake):
        self.fake, self.ptr = fake, next(_stream_ptrs)
        self.recording = None
        fake._streams[self.ptr] = self

    def __enter__(self):
        self.fake._current.append(self)
        return self

    def __exit__(self, *exc):
        assert self.fake._current.pop() is self
        return False

    def synchronize(self):
        pass

    def wait_event(self, event):
        pass        # (work runs at once: what the event marks has run)

    def begin_capture(self, mode=None):
        assert self.fake._current[-1] is self and self.recording is None
        self.recording = []

    def is_capturing(self):
        return self.recording is not None

    def end_capture(self):
        work, self.recording = self.recording, None
        if self.fake.fail_capture is not None:
            raise self.fake.fail_capture
        return Graph(self.fake, work)


class Event:
    """``cupy.cuda.Event``: ``record`` marks a stream's work so far (here: all done)."""

    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.stream = None

    def record(self, stream=None):
        self.stream = stream


class Graph:
    """``cupy.cuda.graph.Graph``: ``launch`` replays the captured work."""

    def __init__(self, fake, work):
        self.fake, self.work = fake, work

    def launch(self, stream=None):
        self.fake.graph_launches += 1
        for w in self.work:
            self.fake.enqueue(w, stream)


def _matrix(ptr, dtype, op, rows, cols, ld, n_ld=None):
    """The ``rows x cols`` matrix op(X) where X is column-major at ``ptr`` with leading
    dimension ``ld`` (as cuBLAS reads it): X is rows x cols for op N, cols x rows for T."""
    xr, xc = (rows, cols) if op == 0 else (cols, rows)
    assert ld >= max(1, xr), ("leading dimension too small", ld, xr)
    n = (xc - 1) * ld + xr if xr and xc else 0
    item = np.dtype(dtype).itemsize
    flat = np.frombuffer((ctypes.c_char * (n * item)).from_address(ptr), dtype) if n else \
        np.zeros(0, dtype)
    x = np.lib.stride_tricks.as_strided(flat, (xr, xc), (item, ld * item)) if n else \
        np.zeros((xr, xc), dtype)
    return x if op == 0 else x.T


def _scalar(ptr, dtype):
    return np.frombuffer((ctypes.c_char * np.dtype(dtype).itemsize).from_address(ptr),
                         dtype)[0]


class FakeCublas:
    """``cupy_backends.cuda.libs.cublas``: the low-level calls, column-major over raw
    pointers, host pointer mode. As in CuPy 14, a call while the current stream is
    capturing raises NotImplementedError."""

    CUBLAS_OP_N, CUBLAS_OP_T = 0, 1
    CUBLAS_POINTER_MODE_HOST, CUBLAS_POINTER_MODE_DEVICE = 0, 1

    def __init__(self, fake):
        self.fake = fake
        self.mode = 0
        self.stream_ptr = None
        self.calls = []     # (name, op_a, op_b, m, n, k, lda, ldb, ldc, batch) per call

    def setPointerMode(self, handle, mode):
        self.mode = mode

    def setStream(self, handle, stream_ptr):
        self.stream_ptr = stream_ptr    # (the fake runs work at once off a capture)

    def getPointerMode(self, handle):
        return self.mode

    def _run(self, name, dtype, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C,
             ldc, sc, batch, stream=None):
        fake = self.fake
        if stream is None and fake.capturing() is not None:
            raise NotImplementedError("calling cuBLAS API during stream capture is "
                                      "currently unsupported")
        assert self.mode == 0, "alpha/beta are host pointers: host pointer mode"
        assert ta in (0, 1) and tb in (0, 1) and min(m, n, k) >= 1 and ldc >= m
        fake.gemms += 1
        self.calls.append((name, ta, tb, m, n, k, lda, ldb, ldc, batch))
        if not fake.compute:
            return
        item = np.dtype(dtype).itemsize
        a_, b_ = _scalar(alpha, dtype), _scalar(beta, dtype)

        def work():
            for i in range(batch):
                a = _matrix(A + i * sa * item, dtype, ta, m, k, lda)
                b = _matrix(B + i * sb * item, dtype, tb, k, n, ldb)
                c = _matrix(C + i * sc * item, dtype, 0, m, n, ldc)
                acc = np.matmul(a, b) * a_
                if b_:
                    acc += c * b_
                c[...] = acc
        fake.enqueue(work, stream)

    def sgemm(self, handle, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
        self._run("sgemm", np.float32, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta,
                  C, ldc, 0, 1)

    def dgemm(self, handle, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
        self._run("dgemm", np.float64, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta,
                  C, ldc, 0, 1)

    def sgemmStridedBatched(self, handle, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb,
                            beta, C, ldc, sc, batch):
        self._run("sgemmStridedBatched", np.float32, ta, tb, m, n, k, alpha, A, lda, sa, B,
                  ldb, sb, beta, C, ldc, sc, batch)

    def dgemmStridedBatched(self, handle, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb,
                            beta, C, ldc, sc, batch):
        self._run("dgemmStridedBatched", np.float64, ta, tb, m, n, k, alpha, A, lda, sa, B,
                  ldb, sb, beta, C, ldc, sc, batch)


class RawCublas:
    """The ctypes cuBLAS of ``cuda_blas.RawCublas`` (what a capture calls): the same
    calls as :class:`FakeCublas` on the stream set on the handle, returning a status."""

    def __init__(self, fake):
        self.fake, self.stream_ptr = fake, fake.null_stream.ptr

    def set_stream(self, handle, stream_ptr):
        self.stream_ptr = stream_ptr

    def set_pointer_mode_host(self, handle):
        self.fake.cublas_lib.mode = 0

    def gemm(self, char, batched):
        lib = self.fake.cublas_lib
        name = {"f": "sgemm", "d": "dgemm"}[char] + ("StridedBatched" if batched else "")
        dtype = np.float32 if char == "f" else np.float64

        def call(*args):
            lib._run(name, dtype, *_unpack(args, batched),
                     stream=self.fake._streams[self.stream_ptr])
            return 0
        return call


def _unpack(args, batched):
    """(ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch) of a
    gemm's arguments after the handle."""
    if batched:
        return args[1:]
    _, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc = args
    return (ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1)


def _unowned(a):
    """A flat NumPy view of ``a``'s memory that holds no reference to ``a`` (evaluate's
    closures keep their buffers until a garbage collection: references to the arrays
    themselves would make donation see a second owner)."""
    n = a.nbytes
    raw = (ctypes.c_char * n).from_address(a.__array_interface__["data"][0]) if n else b""
    return np.frombuffer(raw, a.dtype)


class EvaluateModule:
    """A loaded "module": entry name -> a launcher running the kernel's IR (on the
    current stream of ``fake``: recorded during a capture)."""

    def __init__(self, sources, program, fake):
        kernels = {id(k): k for p in [program] + list(program.sub_programs())
                   for k in p.kernels}
        self.kernels = {src.entry: (kernels[kid], src) for kid, src in sources.items()}
        self.launches = 0
        self.fake = fake

    def get_function(self, entry):
        kernel, src = self.kernels[entry]
        n_buf = sum(p.kind == "buffer" for p in src.params)

        def launch(grid, block, args, stream=None):
            assert all(type(a) is FakeDeviceArray for a in args[:n_buf]), \
                [type(a) for a in args[:n_buf]]
            here = _CURRENT[-1]     # (a GPU faults on another device's buffer)
            assert all(a.device_id == here for a in args[:n_buf]), \
                ([a.device_id for a in args[:n_buf]], here)
            self.fake.launch_devices.append(here)
            sizes = {p.symbol: int(v) for p, v in zip(src.params[n_buf:], args[n_buf:])}
            self.launches += 1
            bufs = [_unowned(a) for a in args[:n_buf]]
            self.fake.enqueue(lambda: K.evaluate(kernel, bufs, sizes), stream)
        return launch


class NoopModule(EvaluateModule):
    """A module whose launchers check their arguments and compute nothing: with
    ``FakeCupy(compute=False)`` a call costs only tjit's host-side dispatch work
    (``benchmarks/bench_cuda_dispatch.py``)."""

    def get_function(self, entry):
        _, src = self.kernels[entry]
        n_buf = sum(p.kind == "buffer" for p in src.params)

        def launch(grid, block, args, stream=None):
            assert len(args) == len(src.params) and \
                all(type(a) is FakeDeviceArray for a in args[:n_buf])
            self.launches += 1
        return launch


@contextlib.contextmanager
def simulated_gpu(monkeypatch, compute=True, devices=1, strict=False):
    """Within: the CUDA backend usable, on FakeCupy with ``devices`` GPUs, kernels by
    ``kernel_ir.evaluate`` (``compute=False``: kernels and gemms are launched but
    compute nothing; ``strict``: impls held to the installed CuPy's names, ``cupyx``
    simulated too)."""
    from tjit.devices import cuda, cuda_blas, cuda_copies
    from tjit.tracing import core
    fake = FakeCupy(compute, devices, strict)
    if strict:
        cupy_names()    # (read from the real modules before the fakes replace them)
        for name, module in _cupyx_modules().items():
            monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(cuda, "unavailable_reason", lambda: None)
    monkeypatch.setattr(cuda, "_cupy", lambda: fake)
    monkeypatch.setitem(core._DEVICE_ARRAYS, FakeDeviceArray, cuda._Eager(fake))
    monkeypatch.setattr(cuda, "_install_array_hooks", lambda: fake)

    def load(program):
        sources, _ = cuda.render_program(program)
        return sources, (EvaluateModule if compute else NoopModule)(sources, program, fake)
    monkeypatch.setattr(cuda, "load_program", load)
    monkeypatch.setattr(cuda, "_cublas", lambda: fake.cublas_lib)
    monkeypatch.setattr(cuda_blas, "raw_cublas", lambda: fake.raw_cublas)
    monkeypatch.setattr(cuda_copies, "load", lambda arch, device_id: fake.copy_rows)
    try:
        yield fake
    finally:
        FakeDeviceArray.allocator = None
