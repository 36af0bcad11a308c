"""A simulated CUDA device for tests without a GPU: the part of CuPy's API the CUDA
backend uses, over NumPy, and a module whose kernels run through ``kernel_ir.evaluate``.

``FakeCupy.ndarray`` is a NumPy subclass, so the backend tells device arrays from host
ones by type as it does with CuPy. It checks the CUDA runtime's plumbing (value
tables, launch arguments, dots, library steps, loops, donation, eager dispatch); the
rendered CUDA C and cuBLAS are checked on a GPU (``test_cuda.py``).
"""

import contextlib
import math
import types

import numpy as np

from tjit.xla_like import kernel_ir as K


class FakeDeviceArray(np.ndarray):
    """A "device" array: NumPy memory that the backend must treat as a GPU buffer."""

    device_id = 0     # (set on an instance: an array on another GPU)

    @property
    def device(self):
        return _DEVICE if self.device_id == 0 else types.SimpleNamespace(
            id=self.device_id, synchronize=lambda: None)

    def get(self):
        return np.array(self)

    def __array_finalize__(self, obj):
        pass


class _Device:
    id = 0
    compute_capability = "90"

    def __init__(self, *_):
        pass

    def synchronize(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_DEVICE = _Device()


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

    def __init__(self, compute=True):
        super().__init__("fake_cupy")
        self.compute = compute
        self.gemms = 0      # cublas.gemm calls
        self.cublas = types.SimpleNamespace(gemm=self._gemm)
        runtime = types.SimpleNamespace(getDeviceCount=lambda: 1,
                                        driverGetVersion=lambda: 12090)
        self.cuda = types.SimpleNamespace(
            Device=_Device, runtime=runtime,
            memory=types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError))

    #: Allocations larger than this raise OutOfMemoryError (as CuPy's pool does).
    memory_limit = 1 << 30

    def empty(self, shape, dtype=np.float64):
        n = math.prod(shape if type(shape) is tuple else (shape,)) * np.dtype(dtype).itemsize
        if n > self.memory_limit:
            raise OutOfMemoryError(f"Out of memory allocating {n:,} bytes (allocated so "
                                   f"far: 0 bytes).")
        return FakeDeviceArray(shape, dtype)

    @staticmethod
    def get_default_memory_pool():
        return types.SimpleNamespace(total_bytes=lambda: 0, used_bytes=lambda: 0)

    def array(self, a, dtype=None, order="C"):
        return _new(np.array(a, dtype=dtype, order="C"))

    def asarray(self, a, dtype=None):
        if type(a) is FakeDeviceArray and (dtype is None or a.dtype == dtype):
            return a
        return _new(np.asarray(a), dtype)

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

    def copyto(self, dst, src):
        if self.compute:
            np.copyto(dst, src)

    def matmul(self, a, b, out=None):
        if self.compute:
            r = np.matmul(a, b, out=out)
            return r if type(r) is FakeDeviceArray else _new(r)
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
        return out if out is not None else self.empty(shape, np.result_type(a, b))

    def __getattr__(self, name):     # everything else: NumPy's, results on the "device"
        fn = getattr(np, name)
        if not callable(fn) or isinstance(fn, type):
            return fn

        def on_device(*args, **kwargs):
            r = fn(*args, **kwargs)
            if isinstance(r, np.ndarray) and type(r) is not FakeDeviceArray:
                return _new(r)
            if isinstance(r, tuple):
                return tuple(_new(x) if isinstance(x, np.ndarray) else x for x in r)
            return r
        return on_device


class EvaluateModule:
    """A loaded "module": entry name -> a launcher running the kernel's IR."""

    def __init__(self, sources, program):
        kernels = {id(k): k for p in [program] + list(program.sub_programs())
                   for k in p.kernels}
        self.kernels = {src.entry: (kernels[kid], src) for kid, src in sources.items()}
        self.launches = 0

    def get_function(self, entry):
        kernel, src = self.kernels[entry]
        n_buf = sum(p.kind == "buffer" for p in src.params)

        def launch(grid, block, args):
            assert all(type(a) is FakeDeviceArray for a in args[:n_buf]), \
                [type(a) for a in args[:n_buf]]
            sizes = {p.symbol: int(v) for p, v in zip(src.params[n_buf:], args[n_buf:])}
            self.launches += 1
            K.evaluate(kernel, [a.reshape(-1) for a in args[:n_buf]], sizes)
        return launch


class NoopModule(EvaluateModule):
    """A module whose launchers check their arguments and compute nothing: with
    ``FakeCupy(compute=False)`` a call costs only tjit's host-side dispatch work
    (``benchmarks/bench_cuda_dispatch.py``)."""

    def get_function(self, entry):
        _, src = self.kernels[entry]
        n_buf = sum(p.kind == "buffer" for p in src.params)

        def launch(grid, block, args):
            assert len(args) == len(src.params) and \
                all(type(a) is FakeDeviceArray for a in args[:n_buf])
            self.launches += 1
        return launch


@contextlib.contextmanager
def simulated_gpu(monkeypatch, compute=True):
    """Within: the CUDA backend usable, on FakeCupy, kernels by ``kernel_ir.evaluate``
    (``compute=False``: kernels and gemms are launched but compute nothing)."""
    from tjit.devices import cuda
    from tjit.tracing import core
    fake = FakeCupy(compute)
    monkeypatch.setattr(cuda, "unavailable_reason", lambda: None)
    monkeypatch.setattr(cuda, "_cupy", lambda: fake)
    monkeypatch.setitem(core._DEVICE_ARRAYS, FakeDeviceArray, cuda._Eager(fake))
    monkeypatch.setattr(cuda, "_install_array_hooks", lambda: fake)

    def load(program):
        sources, _ = cuda.render_program(program)
        return sources, (EvaluateModule if compute else NoopModule)(sources, program)
    monkeypatch.setattr(cuda, "load_program", load)
    yield fake
