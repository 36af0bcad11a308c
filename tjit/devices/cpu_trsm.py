"""``triangular_solve`` on the CPU as one native call of BLAS ``trsm`` per step.

The primitive's NumPy implementation calls SciPy's ``trtrs`` wrapper: a few
microseconds of Python a call (the wrapper's checks and copies, the OpenBLAS thread
limit, the result's conversions), which is most of a small solve's time, and it keeps
every loop with such a step in the Python loop of ``control_flow``. Here a library
step of ``triangular_solve`` (float32/float64, ``a`` on the left, at most
:data:`MAX_ELEMENTS` elements of ``b`` per matrix) is a shim in LLVM IR with the kernel
ABI, ``(args = (a, b, out), sizes, start, end)`` over the batch entries, which calls
``cblas_?trsm`` of NumPy's OpenBLAS (as ``blas.py``'s gemm shim, on one OpenBLAS
thread). The runner calls it through ctypes, and ``native_loop`` takes it into a
loop's call table like a gemm, so a ``fori_loop`` of small solves runs without Python
between iterations.

Same bits as the NumPy implementation: SciPy's ``trtrs`` on a C-ordered ``a`` solves
with its Fortran view (``a`` transposed, the triangle and the transpose flag flipped)
against ``b`` copied to Fortran order, then calls ``trsm``; the shim makes the same
call on the same layouts (``b`` transposed into a stack buffer, the solution
transposed back into ``out``). One difference: ``trtrs`` refuses an exact zero on the
diagonal and the NumPy implementation then substitutes row by row, while ``trsm``
divides by it; both give IEEE infinities and NaNs there (JAX calls ``trsm``), not
necessarily at the same elements.
"""

import ctypes

import numpy as np

from tjit.devices import disk_cache
from tjit.devices.array_args import c_contiguous, data_pointer
from tjit.devices.lazy import Lazy, LazyByKey
from tjit.devices.threads import as_kernel
from tjit.primitives.lapack_threads import numpy_openblas

#: Elements of ``b`` per matrix up to which the shim serves (its stack buffer: 128 KiB
#: of float64); larger solves keep the NumPy implementation, whose Python costs little
#: beside them.
MAX_ELEMENTS = 1 << 14

_COL_MAJOR, _LEFT, _UPPER, _LOWER = 102, 141, 121, 122
_NO_TRANS, _TRANS, _NON_UNIT, _UNIT = 111, 112, 131, 132

_FIELDS = ("trsm", "set_threads", "uplo", "trans", "diag", "n", "k", "stride_a", "stride_b")

_IR = r"""
define void @tjit_trsm_{T}(ptr noalias %args, ptr noalias %sz, i64 %start, i64 %end) {
entry:
{loads}
  %ap = load ptr, ptr %args
  %bpp = getelementptr ptr, ptr %args, i64 1
  %bp = load ptr, ptr %bpp
  %opp = getelementptr ptr, ptr %args, i64 2
  %op = load ptr, ptr %opp
  %trsm = inttoptr i64 %f_trsm to ptr
  %setl = inttoptr i64 %f_set_threads to ptr
  %uplo = trunc i64 %f_uplo to i32
  %trans = trunc i64 %f_trans to i32
  %diag = trunc i64 %f_diag to i32
  %nk = mul i64 %f_n, %f_k
  %tmp = alloca {T}, i64 %nk, align 64
  %old = call i32 %setl(i32 1)
  %any = icmp slt i64 %start, %end
  br i1 %any, label %matrix, label %done
matrix:
  %b = phi i64 [ %start, %entry ], [ %bn, %copied_back ]
  %ia = mul i64 %b, %f_stride_a
  %ib = mul i64 %b, %f_stride_b
  %pa = getelementptr {T}, ptr %ap, i64 %ia
  %pb = getelementptr {T}, ptr %bp, i64 %ib
  %po = getelementptr {T}, ptr %op, i64 %ib
  br label %to_fortran
to_fortran:                       ; tmp[i + j n] = b[i k + j]
  %t = phi i64 [ 0, %matrix ], [ %t1, %to_fortran ]
  %ti = udiv i64 %t, %f_k
  %tj = urem i64 %t, %f_k
  %tjn = mul i64 %tj, %f_n
  %tf = add i64 %ti, %tjn
  %src = getelementptr {T}, ptr %pb, i64 %t
  %v = load {T}, ptr %src
  %dst = getelementptr {T}, ptr %tmp, i64 %tf
  store {T} %v, ptr %dst
  %t1 = add i64 %t, 1
  %more_t = icmp slt i64 %t1, %nk
  br i1 %more_t, label %to_fortran, label %solve
solve:
  call void %trsm(i32 {COL_MAJOR}, i32 {LEFT}, i32 %uplo, i32 %trans, i32 %diag, i64 %f_n,
                  i64 %f_k, {T} 1.0, ptr %pa, i64 %f_n, ptr %tmp, i64 %f_n)
  br label %to_c
to_c:                             ; out[i k + j] = tmp[i + j n]
  %u = phi i64 [ 0, %solve ], [ %u1, %to_c ]
  %ui = udiv i64 %u, %f_k
  %uj = urem i64 %u, %f_k
  %ujn = mul i64 %uj, %f_n
  %uf = add i64 %ui, %ujn
  %from = getelementptr {T}, ptr %tmp, i64 %uf
  %w = load {T}, ptr %from
  %to = getelementptr {T}, ptr %po, i64 %u
  store {T} %w, ptr %to
  %u1 = add i64 %u, 1
  %more_u = icmp slt i64 %u1, %nk
  br i1 %more_u, label %to_c, label %copied_back
copied_back:
  %bn = add i64 %b, 1
  %more_b = icmp slt i64 %bn, %end
  br i1 %more_b, label %matrix, label %done
done:
  %was_one = icmp eq i32 %old, 1
  br i1 %was_one, label %left, label %restore
restore:
  %restored = call i32 %setl(i32 %old)
  br label %left
left:
  ret void
}
"""

_TYPES = {np.dtype(np.float32): ("float", "s"), np.dtype(np.float64): ("double", "d")}


def _symbol(lib, name):
    try:
        return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
    except AttributeError:
        return None


def _load_blas():
    """(set-threads address, {dtype: cblas trsm address}) of NumPy's OpenBLAS (the
    ILP64 build NumPy's wheels ship), or None where it was not found."""
    lib = numpy_openblas()
    if lib is None:
        return None
    set_threads = _symbol(lib, "openblas_set_num_threads_local")
    trsms = {dt: _symbol(lib, f"scipy_cblas_{c}trsm64_") for dt, (_, c) in _TYPES.items()}
    if set_threads is None or None in trsms.values():
        return None
    return set_threads, trsms


def _load_shim(dtype):
    llvm_type = _TYPES[dtype][0]
    loads = "\n".join(
        f"  %p_{f} = getelementptr i64, ptr %sz, i64 {n}\n  %f_{f} = load i64, ptr %p_{f}"
        for n, f in enumerate(_FIELDS))
    text = (_IR.replace("{loads}", loads).replace("{T}", llvm_type)
            .replace("{COL_MAJOR}", str(_COL_MAJOR)).replace("{LEFT}", str(_LEFT)))
    name = f"tjit_trsm_{llvm_type}"
    # ('explicit': loops around a BLAS call, nothing worth vectorizing)
    return disk_cache.load_or_compile(text, [name], "trsm-shim", profile="explicit")[name]


_BLAS = Lazy(_load_blas)
_SHIMS = LazyByKey(_load_shim)


class TrsmCall:
    """One ``triangular_solve`` step at fixed shapes: ``fn`` (the shim's address),
    ``sizes`` (its fields) and ``end`` (the batch entries), the kernel ABI's pieces
    ``native_loop`` puts in a call table; calling it solves through ctypes."""

    def __init__(self, fn, sizes, end):
        self.fn, self.sizes, self.end = fn, sizes, end
        self.kernel = as_kernel(fn)
        self.argv = (ctypes.c_void_p * 3)()

    @classmethod
    def build(cls, a_shape, b_shape, dtype, lower, transpose_a, unit_diagonal):
        """The call for ``a`` (..., n, n) on the left of ``b`` (..., n, k), or None where
        the shim does not serve (dtype, sizes, no OpenBLAS)."""
        dtype = np.dtype(dtype)
        if dtype not in _TYPES or not all(type(d) is int for d in a_shape + b_shape):
            return None
        n, k = b_shape[-2:]
        batch = int(np.prod(b_shape[:-2], dtype=np.int64))
        if n * k == 0 or batch == 0 or n * k > MAX_ELEMENTS:
            return None
        blas = _BLAS.get()
        if blas is None:
            return None
        set_threads, trsms = blas
        # (trtrs's call on the Fortran view of a C-ordered a: the triangle and the
        # transpose flag flip)
        sizes = (ctypes.c_int64 * len(_FIELDS))(
            trsms[dtype], set_threads, _UPPER if lower else _LOWER,
            _NO_TRANS if transpose_a else _TRANS, _UNIT if unit_diagonal else _NON_UNIT,
            n, k, n * n, n * k)
        return cls(_SHIMS.get(dtype), sizes, batch)

    def __call__(self, a, b, out):
        argv = self.argv
        argv[0], argv[1], argv[2] = data_pointer(a), data_pointer(b), data_pointer(out)
        self.kernel(argv, self.sizes, 0, self.end)
        return out


def trsm_step(runner, s):
    """The closure ``run(vals)`` of library step ``s`` as a :class:`TrsmCall` on
    ``runner`` (a CPU runner at a size binding; the call is recorded in its
    ``native_calls`` for ``native_loop``), or None when ``s`` is not a
    ``triangular_solve`` the shim serves."""
    if s.name != "triangular_solve" or s.params is None or not s.params["left_side"]:
        return None
    a_v, b_v = s.ins
    (out_v,) = s.outs
    if out_v is None or runner.dtype[a_v] != runner.dtype[b_v]:
        return None
    p = s.params
    call = TrsmCall.build(tuple(runner.shape[a_v]), tuple(runner.shape[b_v]),
                          runner.dtype[b_v], p["lower"], p["transpose_a"],
                          p["unit_diagonal"])
    if call is None:
        return None
    runner.native_calls[id(s)] = call
    k_a, k_b, k_out = runner.index[a_v], runner.index[b_v], runner.index[out_v]
    out_shape, dtype = runner.shape[out_v], runner.dtype[out_v]

    def run(vals):     # (a fresh result, as any library step's)
        out = np.empty(out_shape, dtype)
        vals[k_out] = call(c_contiguous(vals[k_a]), c_contiguous(vals[k_b]), out)
    return run


__all__ = ["MAX_ELEMENTS", "TrsmCall", "trsm_step"]
