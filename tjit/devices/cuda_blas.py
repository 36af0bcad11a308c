"""cuBLAS gemms of the CUDA runner: one ``dot_general`` at fixed shapes as one direct
cuBLAS call (``cupy_backends.cuda.libs.cublas``' ``sgemm``/``dgemm`` or their
strided-batched forms), and the ctypes binding of cuBLAS that stream captures use.

Why not ``cupy.cublas.gemm``: its Python wrapper costs more than the call itself
(measured on an H100 under cProfile: ~45 us per call, of which the ``sgemm`` builtin
~19: scalar pointers made per call, the handle looked up, the pointer mode set and
restored, operands reshaped), and it copies operands it cannot pass as they are. Here
everything but the three device pointers is computed once per size binding.

Row-major to cuBLAS: tjit's arrays are C-ordered and cuBLAS is column-major, so
``C = A @ B`` (row-major, M x N) is computed as ``C^T = B^T A^T`` (column-major, N x M):
the operands swap places, and an operand whose storage is the transpose of what the
product reads (``x.T @ g``) is passed as it is with the ``T`` op flag instead of being
copied. The row-major layout of each operand (transpose flag and leading dimension)
comes from ``blas`` (the CPU's gemm reads its operands the same way); batched dots whose
batch entries sit at a constant stride become one strided-batched call.

Captures: CuPy 14's cuBLAS bindings refuse to run while a stream is being captured
(they raise NotImplementedError: CuPy has not vetted cuBLAS under capture). cuBLAS
itself supports capture (its gemms record as graph kernels; alpha/beta are captured by
value in host pointer mode), so :func:`raw_cublas` calls the same library through
ctypes: the one CuPy loaded (by the dlopen handle ``cuda.pathfinder`` kept for CuPy), so
that CuPy's cuBLAS handle is valid for it. Only captures use it: it runs once per graph.
"""

import ctypes

import numpy as np

from tjit.devices.blas import _NO_TRANS, _batched_view, _matrix_layout

_OP_N, _OP_T = 0, 1     # cublasOperation_t


class Gemm:
    """``out = alpha * dot(lhs, rhs) + beta * out`` at fixed shapes as one cuBLAS call:
    ``caller(lib, handle)`` gives ``call(lhs, rhs, out)`` on C-contiguous device arrays
    of the built shapes. :meth:`build` returns None where cuBLAS cannot read the
    operands in place (the caller falls back to ``matmul``)."""

    def __init__(self, char, batched, args, keep):
        self.char = char            # "f" or "d"
        self.batched = batched
        self.args = args            # the call's arguments after the handle, pointers None
        self._keep = keep           # the host scalars alpha/beta point into

    @classmethod
    def build(cls, lshape, rshape, dtype, lperm, rperm, bmkn, alpha=1.0, beta=0.0):
        dtype = np.dtype(dtype)
        B, M, K, N = (int(d) for d in bmkn)
        if dtype.char not in "fd" or min(B, M, K, N) < 1:
            return None
        layouts = []
        for shape, perm, mat in ((lshape, lperm, (B, M, K)), (rshape, rperm, (B, K, N))):
            strides = _batched_view(tuple(int(d) for d in shape), dtype, perm, mat)
            layout = strides and _matrix_layout(mat[1], mat[2], strides[1], strides[2])
            if not layout:
                return None     # (a reshape that needs a copy)
            layouts.append((_OP_N if layout[0] == _NO_TRANS else _OP_T, layout[1],
                            strides[0] if B > 1 else 0))
        (op_a, lda, sa), (op_b, ldb, sb) = layouts
        keep = (np.array(alpha, dtype), np.array(beta, dtype))
        ap, bp = keep[0].ctypes.data, keep[1].ctypes.data
        # C^T (N x M, ld N) = op_b(B') @ op_a(A'): the operands swap places
        if B == 1:
            args = (op_b, op_a, N, M, K, ap, None, ldb, None, lda, bp, None, N)
        else:
            args = (op_b, op_a, N, M, K, ap, None, ldb, sb, None, lda, sa, bp, None, N,
                    M * N, B)
        return cls(dtype.char, B > 1, args, keep)

    @property
    def name(self):
        return ("s" if self.char == "f" else "d") + "gemm" + \
            ("StridedBatched" if self.batched else "")

    def caller(self, fn, handle):
        """``call(lhs, rhs, out)``: ``fn(handle, *args)`` with the arrays' pointers placed
        (``fn``: the binding's function named :attr:`name`)."""
        a, keep = self.args, self._keep    # (the closures keep alpha and beta alive)
        if not self.batched:
            ta, tb, m, n, k, ap, _, ldb, _, lda, bp, _, ldc = a

            def call(lhs, rhs, out, keep=keep):
                return fn(handle, ta, tb, m, n, k, ap, rhs.data.ptr, ldb, lhs.data.ptr, lda,
                          bp, out.data.ptr, ldc)
        else:
            ta, tb, m, n, k, ap, _, ldb, sb, _, lda, sa, bp, _, ldc, sc, batch = a

            def call(lhs, rhs, out, keep=keep):
                return fn(handle, ta, tb, m, n, k, ap, rhs.data.ptr, ldb, sb, lhs.data.ptr,
                          lda, sa, bp, out.data.ptr, ldc, sc, batch)
        return call


# ctypes argument types of cublas?gemm_v2 and cublas?gemmStridedBatched (after the handle:
# ops, m, n, k, alpha, A, lda, [strideA], B, ldb, [strideB], beta, C, ldc, [strideC, batch])
_GEMM_ARGTYPES = (
    (ctypes.c_void_p,) + (ctypes.c_int,) * 5 +
    (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
     ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int),
    (ctypes.c_void_p,) + (ctypes.c_int,) * 5 +
    (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong, ctypes.c_void_p,
     ctypes.c_int, ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
     ctypes.c_longlong, ctypes.c_int))


class RawCublas:
    """cuBLAS through ctypes, on the library CuPy loaded: the calls a capture needs."""

    def __init__(self, lib):
        self.lib = lib
        lib.cublasSetStream_v2.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.cublasSetPointerMode_v2.argtypes = [ctypes.c_void_p, ctypes.c_int]

    @staticmethod
    def _check(status, what):
        if status != 0:
            raise RuntimeError(f"{what} failed: cuBLAS status {status}")

    def set_stream(self, handle, stream_ptr):
        self._check(self.lib.cublasSetStream_v2(handle, stream_ptr), "cublasSetStream")

    def set_pointer_mode_host(self, handle):
        self._check(self.lib.cublasSetPointerMode_v2(handle, 0), "cublasSetPointerMode")

    def gemm(self, char, batched):
        """The function ``Gemm.caller`` calls (checks cuBLAS's status)."""
        name = "cublas" + char.upper().replace("F", "S") + "gemm" + \
            ("StridedBatched" if batched else "_v2")
        fn = getattr(self.lib, name)
        fn.argtypes, fn.restype = list(_GEMM_ARGTYPES[batched]), ctypes.c_int

        def call(*args):
            self._check(fn(*args), name)
        return call


def _loaded_libraries(stem):
    """The distinct paths of the loaded shared libraries whose file names start with
    ``stem`` and ``.so`` follows (``libcublas``, not ``libcublasLt``)."""
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rsplit(" ", 1)[-1].strip()
                if path.rsplit("/", 1)[-1].startswith(stem + ".so") and path not in paths:
                    paths.append(path)
    except OSError:
        pass
    return paths


def _cupy_cublas():
    """A ctypes library on the very cuBLAS CuPy's bindings use (CuPy's handle is only
    valid there): the one CuPy 14 loaded through ``cuda.pathfinder`` (its cached answer,
    by dlopen handle), else the only libcublas in the process; None when unsure (two
    different ones loaded, e.g. by PyTorch or JAX next to CuPy)."""
    try:
        from cuda import pathfinder
        dl = pathfinder.load_nvidia_dynamic_lib("cublas")   # (cached: CuPy's load)
        handle = getattr(dl, "_handle_uint", None)
        if handle:
            return ctypes.CDLL(dl.abs_path or "libcublas", handle=handle)
        if dl.abs_path:
            return ctypes.CDLL(dl.abs_path)
    except Exception:       # noqa: BLE001, S110 (an older CuPy, no pathfinder: the maps)
        pass
    paths = _loaded_libraries("libcublas")
    return ctypes.CDLL(paths[0]) if len(paths) == 1 else None


_RAW = []      # the RawCublas, once found


def raw_cublas():
    """:class:`RawCublas` on the cuBLAS CuPy has loaded, or None (not loaded yet, not
    found for sure, or its symbols missing): then programs with gemms are not captured."""
    if not _RAW:
        try:
            lib = _cupy_cublas()
            if lib is None:
                return None
            _RAW.append(RawCublas(lib))
        except (OSError, AttributeError):
            return None
    return _RAW[0]
