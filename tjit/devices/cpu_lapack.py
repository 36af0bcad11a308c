"""Small ``triangular_solve``, ``cholesky``, ``lu`` and (reduced) ``qr`` steps on the CPU as
one native call each.

The primitives' NumPy implementations call SciPy's ``trtrs`` and ``lu_factor`` and
NumPy's ``cholesky`` and ``qr``: a few microseconds of Python a call (the wrappers'
checks and copies, the OpenBLAS thread limit, the results' conversions), which is most
of a small problem's time, and they keep every loop with such a step in the Python
loop of ``control_flow``. Here such a library step (float32/float64, at most
:data:`MAX_ELEMENTS` elements per matrix; ``a`` on the left for a solve) is a shim in
LLVM IR with the kernel ABI, ``(args = (operands..., out), sizes, start, end)`` over
the batch entries, which calls NumPy's OpenBLAS (the ILP64 build NumPy's wheels ship,
as ``blas.py``'s gemm shim does, on one OpenBLAS thread): ``cblas_?trsm``,
``LAPACKE_dpotrf_work``, ``LAPACKE_?getrf_work`` and ``LAPACKE_dgeqrf_work`` /
``LAPACKE_dorgqr_work``. The runner calls it through ctypes, and ``native_loop`` takes
it into a loop's call table like a gemm, so a ``fori_loop`` of small solves or
factorizations runs without Python between iterations.

Same bits as the NumPy implementations, which make the same calls on the same layouts:

* solve: SciPy's ``trtrs`` on a C-ordered ``a`` solves with its Fortran view (``a``
  transposed, the triangle and the transpose flag flipped) against ``b`` copied to
  Fortran order, then calls ``trsm``; the shim transposes ``b`` into a stack buffer,
  calls ``trsm`` so, and transposes the solution back into ``out``. One difference:
  ``trtrs`` refuses an exact zero on the diagonal and the NumPy implementation then
  substitutes row by row, while ``trsm`` divides by it (as JAX's kernel does); both give
  IEEE infinities and NaNs from there, not necessarily at the same elements.
* cholesky: NumPy copies the matrix to Fortran order (float32 converted to float64:
  NumPy's linalg computes single precision in double), calls ``dpotrf`` on the lower
  triangle and zeroes the upper one; so does the shim. A matrix that is not positive
  definite gives NaN on its lower triangle and zeros above (the implementation's, and
  JAX's, result).
* lu: SciPy's ``getrf`` wrapper copies the matrix to Fortran order, and the
  implementation turns the pivots (0-based) into the permutation by swaps; so does the
  shim (a singular matrix is factored, as there).
* qr: NumPy converts to float64, calls ``geqrf`` and ``orgqr`` with the work sizes they
  ask for (the blocking depends on it) and takes R from the upper triangle; so does the
  shim. A complete QR of a tall matrix (Q m x m) keeps the implementation.

Measured (2-vCPU VM, load ~11, ms per call of a jitted ``fori_loop`` of 20 steps on
48 x 48 float64, JAX 0.10.2 in the same process; ``benchmarks/bench_blas_threads.py``):
triangular solve 0.25 -> 0.04 (JAX 0.04), cholesky 0.35 -> 0.14 (JAX 0.14), solve of a
matrix that changes every step 0.97 -> 0.25 (JAX 0.33), qr 1.00 -> 0.56 (JAX 0.64).
"""

import ctypes

import numpy as np

from tjit.devices import disk_cache, one_thread
from tjit.devices.array_args import c_contiguous, data_pointer
from tjit.devices.blas import symbol_address
from tjit.devices.lazy import Lazy, LazyByKey
from tjit.devices.one_thread import GUARD_IR, ONE_THREAD_ENTER, ONE_THREAD_LEAVE
from tjit.devices.threads import as_kernel
from tjit.primitives.lapack_threads import numpy_openblas

#: Elements per matrix (of ``b`` for a solve) up to which the shims serve (their stack
#: buffer: 128 KiB of float64); larger problems keep the NumPy implementations, whose
#: Python costs little beside them.
MAX_ELEMENTS = 1 << 14
#: Columns up to which the QR shim serves (its work array: ~n x 64 float64, 128 KiB).
MAX_QR_COLUMNS = 256

_COL_MAJOR, _LEFT, _UPPER, _LOWER = 102, 141, 121, 122
_NO_TRANS, _TRANS, _NON_UNIT, _UNIT = 111, 112, 131, 132

_TRSM_FIELDS = ("trsm", "one_thread", "uplo", "trans", "diag", "n", "k", "stride_a",
                "stride_b")
_POTRF_FIELDS = ("potrf", "one_thread", "n")
_GETRF_FIELDS = ("getrf", "one_thread", "m", "n")
_GEQRF_FIELDS = ("geqrf", "one_thread", "m", "n", "orgqr")

# OpenBLAS on one thread around a shim's calls, under the guard blas.py's shims share
_ENTER = ONE_THREAD_ENTER
_LEAVE = ONE_THREAD_LEAVE + "\n  ret void"

def _entry(routine, *args):
    """The shim's signature and the head of its entry block: the size fields
    (``{loads}``) and the pointer ``%<name>p`` of each operand or result in ``args``."""
    ptrs = [f"  %{args[0]}p = load ptr, ptr %args"] + [
        f"  %{a}pp = getelementptr ptr, ptr %args, i64 {k}\n  %{a}p = load ptr, ptr %{a}pp"
        for k, a in enumerate(args[1:], 1)]
    return (f"define void @tjit_{routine}_{{T}}(ptr noalias %args, ptr noalias %sz, "
            "i64 %start, i64 %end) {\nentry:\n{loads}\n" + "\n".join(ptrs) + "\n")


# The loop over the batch entries [start, end): one matrix (%b) an iteration
_MATRIX_LOOP = """{ENTER}
  %any = icmp slt i64 %start, %end
  br i1 %any, label %matrix, label %done
matrix:
"""
_NEXT_MATRIX = """  %bn = add i64 %b, 1
  %more_b = icmp slt i64 %bn, %end
  br i1 %more_b, label %matrix, label %done
done:
{LEAVE}
}
"""


def _copy(name, rows, cols, src, dst, src_type, dst_type, from_c, value=None, ld=None):
    """IR of block ``name``: a loop copying a ``rows`` x ``cols`` matrix from C order
    (row stride ``cols``) to Fortran order (column stride ``ld``, default ``rows``: the
    leading rows of a taller Fortran matrix when larger), or back when
    ``from_c`` is false, converting ``src_type`` to ``dst_type`` (``{TO}``: the
    conversion instruction, ``bitcast`` where the types are equal); ``value(i, j, w)``
    -> (IR lines, operand) may replace the element ``w`` (masks). Falls through to the
    block after it (label ``{name}_end``): the caller writes that block. No division
    per element: two induction variables."""
    p = "%" + name
    ci, fi = (f"{p}_c", f"{p}_f") if from_c else (f"{p}_f", f"{p}_c")
    conv = "{TO_DOUBLE}" if (src_type, dst_type) == ("{T}", "double") else \
        "{FROM_DOUBLE}" if (src_type, dst_type) == ("double", "{T}") else "bitcast"
    lines, w = value(f"{p}_i", f"{p}_j", f"{p}_w") if value else ("", f"{p}_w")
    return f"""  br label {p}
{name}:
  br label {p}_row
{name}_row:
  {p}_i = phi i64 [ 0, {p} ], [ {p}_i1, {p}_row_end ]
  {p}_ic = mul i64 {p}_i, {cols}
  br label {p}_col
{name}_col:
  {p}_j = phi i64 [ 0, {p}_row ], [ {p}_j1, {p}_col ]
  {p}_c = add i64 {p}_ic, {p}_j
  {p}_jr = mul i64 {p}_j, {ld or rows}
  {p}_f = add i64 {p}_i, {p}_jr
  {p}_sp = getelementptr {src_type}, ptr {src}, i64 {ci}
  {p}_v = load {src_type}, ptr {p}_sp
  {p}_w = {conv} {src_type} {p}_v to {dst_type}
{lines}  {p}_dp = getelementptr {dst_type}, ptr {dst}, i64 {fi}
  store {dst_type} {w}, ptr {p}_dp
  {p}_j1 = add i64 {p}_j, 1
  {p}_more_j = icmp slt i64 {p}_j1, {cols}
  br i1 {p}_more_j, label {p}_col, label {p}_row_end
{name}_row_end:
  {p}_i1 = add i64 {p}_i, 1
  {p}_more_i = icmp slt i64 {p}_i1, {rows}
  br i1 {p}_more_i, label {p}_row, label {p}_end
{name}_end:
"""


def _lower_or_nan(i, j, w):
    """potrf's result: the factor on and below the diagonal (NaN there where the matrix
    was not positive definite: ``%ok`` false), zeros above."""
    return (f"  {w}_nan = select i1 %ok, {{T}} {w}, {{T}} 0x7FF8000000000000\n"
            f"  {w}_low = icmp ule i64 {j}, {i}\n"
            f"  {w}_x = select i1 {w}_low, {{T}} {w}_nan, {{T}} 0.0\n", f"{w}_x")


def _upper(i, j, w):
    """R: on and above the diagonal, zeros below."""
    return (f"  {w}_up = icmp ule i64 {i}, {j}\n"
            f"  {w}_x = select i1 {w}_up, {{T}} {w}, {{T}} 0.0\n", f"{w}_x")


_TRSM_IR = _entry("trsm", "a", "b", "o") + r"""  %trsm = inttoptr i64 %f_trsm to ptr
  %uplo = trunc i64 %f_uplo to i32
  %trans = trunc i64 %f_trans to i32
  %diag = trunc i64 %f_diag to i32
  %nk = mul i64 %f_n, %f_k
  %tmp = alloca {T}, i64 %nk, align 64
""" + _MATRIX_LOOP + r"""  %b = phi i64 [ %start, %entry ], [ %bn, %to_c_end ]
  %ia = mul i64 %b, %f_stride_a
  %ib = mul i64 %b, %f_stride_b
  %pa = getelementptr {T}, ptr %ap, i64 %ia
  %pb = getelementptr {T}, ptr %bp, i64 %ib
  %po = getelementptr {T}, ptr %op, i64 %ib
""" + _copy("to_fortran", "%f_n", "%f_k", "%pb", "%tmp", "{T}", "{T}", True) + r"""
  call void %trsm(i32 {COL_MAJOR}, i32 {LEFT}, i32 %uplo, i32 %trans, i32 %diag, i64 %f_n,
                  i64 %f_k, {T} 1.0, ptr %pa, i64 %f_n, ptr %tmp, i64 %f_n)
""" + _copy("to_c", "%f_n", "%f_k", "%tmp", "%po", "{T}", "{T}", False) + "\n" + _NEXT_MATRIX

_POTRF_IR = _entry("potrf", "a", "o") + r"""  %potrf = inttoptr i64 %f_potrf to ptr
  %nn = mul i64 %f_n, %f_n
  %tmp = alloca double, i64 %nn, align 64
""" + _MATRIX_LOOP + r"""  %b = phi i64 [ %start, %entry ], [ %bn, %to_c_end ]
  %ib = mul i64 %b, %nn
  %pa = getelementptr {T}, ptr %ap, i64 %ib
  %po = getelementptr {T}, ptr %op, i64 %ib
""" + _copy("to_fortran", "%f_n", "%f_n", "%pa", "%tmp", "{T}", "double", True) + r"""
  ; LAPACKE_dpotrf_work(col major, 'L', n, tmp, n)
  %info = call i64 %potrf(i32 {COL_MAJOR}, i8 signext 76, i64 %f_n, ptr %tmp, i64 %f_n)
  %ok = icmp eq i64 %info, 0
""" + _copy("to_c", "%f_n", "%f_n", "%tmp", "%po", "double", "{T}", False,
            _lower_or_nan) + "\n" + _NEXT_MATRIX

_GETRF_IR = r"""
declare i64 @llvm.smin.i64(i64, i64)

""" + _entry("getrf", "a", "l", "p", "q") + r"""  %getrf = inttoptr i64 %f_getrf to ptr
  %k = call i64 @llvm.smin.i64(i64 %f_m, i64 %f_n)
  %mn = mul i64 %f_m, %f_n
  %tmp = alloca {T}, i64 %mn, align 64
  %ipiv = alloca i64, i64 %k, align 8
""" + _MATRIX_LOOP + r"""  %b = phi i64 [ %start, %entry ], [ %bn, %swapped ]
  %ia = mul i64 %b, %mn
  %pa = getelementptr {T}, ptr %ap, i64 %ia
  %pl = getelementptr {T}, ptr %lp, i64 %ia
  %ik = mul i64 %b, %k
  %ppiv = getelementptr i32, ptr %pp, i64 %ik
  %im = mul i64 %b, %f_m
  %pperm = getelementptr i32, ptr %qp, i64 %im
""" + _copy("to_fortran", "%f_m", "%f_n", "%pa", "%tmp", "{T}", "{T}", True) + r"""
  ; LAPACKE_?getrf_work(col major, m, n, tmp, m, ipiv)
  %info = call i64 %getrf(i32 {COL_MAJOR}, i64 %f_m, i64 %f_n, ptr %tmp, i64 %f_m,
                          ptr %ipiv)
""" + _copy("to_c", "%f_m", "%f_n", "%tmp", "%pl", "{T}", "{T}", False) + r"""
  br label %identity
identity:                         ; perm = 0, 1, ..., m - 1
  %r = phi i64 [ 0, %to_c_end ], [ %r1, %identity ]
  %r32 = trunc i64 %r to i32
  %at_r = getelementptr i32, ptr %pperm, i64 %r
  store i32 %r32, ptr %at_r
  %r1 = add i64 %r, 1
  %more_r = icmp slt i64 %r1, %f_m
  br i1 %more_r, label %identity, label %swap
swap:                             ; pivots[i] = ipiv[i] - 1; swap perm[i], perm[pivots[i]]
  %i = phi i64 [ 0, %identity ], [ %i1, %swap ]
  %at_ipiv = getelementptr i64, ptr %ipiv, i64 %i
  %p1 = load i64, ptr %at_ipiv
  %p = sub i64 %p1, 1
  %p32 = trunc i64 %p to i32
  %at_piv = getelementptr i32, ptr %ppiv, i64 %i
  store i32 %p32, ptr %at_piv
  %at_i = getelementptr i32, ptr %pperm, i64 %i
  %at_p = getelementptr i32, ptr %pperm, i64 %p
  %vi = load i32, ptr %at_i
  %vp = load i32, ptr %at_p
  store i32 %vp, ptr %at_i
  store i32 %vi, ptr %at_p
  %i1 = add i64 %i, 1
  %more_i = icmp slt i64 %i1, %k
  br i1 %more_i, label %swap, label %swapped
swapped:
""" + _NEXT_MATRIX

_GEQRF_IR = r"""
declare i64 @llvm.smin.i64(i64, i64)
declare i64 @llvm.smax.i64(i64, i64)

""" + _entry("geqrf", "a", "q", "r") + r"""  %geqrf = inttoptr i64 %f_geqrf to ptr
  %orgqr = inttoptr i64 %f_orgqr to ptr
  %k = call i64 @llvm.smin.i64(i64 %f_m, i64 %f_n)
  %mn = mul i64 %f_m, %f_n
  %mk = mul i64 %f_m, %k
  %kn = mul i64 %k, %f_n
  %tmp = alloca double, i64 %mn, align 64
  %tau = alloca double, i64 %k, align 8
  %query = alloca double, align 8
  ; the optimal work sizes (as NumPy asks them), then the work array
  %q1 = call i64 %geqrf(i32 {COL_MAJOR}, i64 %f_m, i64 %f_n, ptr %tmp, i64 %f_m, ptr %tau,
                        ptr %query, i64 -1)
  %w1d = load double, ptr %query
  %w1 = fptosi double %w1d to i64
  %q2 = call i64 %orgqr(i32 {COL_MAJOR}, i64 %f_m, i64 %k, i64 %k, ptr %tmp, i64 %f_m,
                        ptr %tau, ptr %query, i64 -1)
  %w2d = load double, ptr %query
  %w2 = fptosi double %w2d to i64
  %w12 = call i64 @llvm.smax.i64(i64 %w1, i64 %w2)
  %lwork = call i64 @llvm.smax.i64(i64 %w12, i64 1)
  %work = alloca double, i64 %lwork, align 64
""" + _MATRIX_LOOP + r"""  %b = phi i64 [ %start, %entry ], [ %bn, %q_out_end ]
  %ia = mul i64 %b, %mn
  %pa = getelementptr {T}, ptr %ap, i64 %ia
  %iq = mul i64 %b, %mk
  %pq = getelementptr {T}, ptr %qp, i64 %iq
  %ir = mul i64 %b, %kn
  %pr = getelementptr {T}, ptr %rp, i64 %ir
""" + _copy("to_fortran", "%f_m", "%f_n", "%pa", "%tmp", "{T}", "double", True) + r"""
  %i1 = call i64 %geqrf(i32 {COL_MAJOR}, i64 %f_m, i64 %f_n, ptr %tmp, i64 %f_m, ptr %tau,
                        ptr %work, i64 %lwork)
""" + _copy("r_out", "%k", "%f_n", "%tmp", "%pr", "double", "{T}", False, _upper,
            ld="%f_m") + r"""
  ; Q from the reflectors in the first k columns (the leading m x k of tmp)
  %i2 = call i64 %orgqr(i32 {COL_MAJOR}, i64 %f_m, i64 %k, i64 %k, ptr %tmp, i64 %f_m,
                        ptr %tau, ptr %work, i64 %lwork)
""" + _copy("q_out", "%f_m", "%k", "%tmp", "%pq", "double", "{T}", False) + "\n" + _NEXT_MATRIX

_TYPES = {np.dtype(np.float32): ("float", "s"), np.dtype(np.float64): ("double", "d")}
_ROUTINES = {"trsm": (_TRSM_IR, _TRSM_FIELDS, "scipy_cblas_{c}trsm64_"),
             "potrf": (_POTRF_IR, _POTRF_FIELDS, "scipy_LAPACKE_dpotrf_work64_"),
             "getrf": (_GETRF_IR, _GETRF_FIELDS, "scipy_LAPACKE_{c}getrf_work64_"),
             "geqrf": (_GEQRF_IR, _GEQRF_FIELDS, "scipy_LAPACKE_dgeqrf_work64_"),
             "orgqr": (None, None, "scipy_LAPACKE_dorgqr_work64_")}
# (value conversions around potrf's float64 buffer; a bitcast to the same type is none)
_TO_DOUBLE = {"float": ("fpext", "fptrunc"), "double": ("bitcast", "bitcast")}


def _load_blas():
    """(one-thread guard address, {(routine, dtype): address}) of NumPy's OpenBLAS, or None
    where it (or one of the routines) was not found."""
    lib = numpy_openblas()
    if lib is None:
        return None
    set_threads = symbol_address(lib, "openblas_set_num_threads_local")
    routines = {(r, dt): symbol_address(lib, symbol.format(c=c))
                for r, (_, _, symbol) in _ROUTINES.items() for dt, (_, c) in _TYPES.items()}
    if set_threads is None or None in routines.values():
        return None
    return one_thread.guard(set_threads), routines


def _load_shim(key):
    routine, dtype = key
    ir, fields, _ = _ROUTINES[routine]
    llvm_type = _TYPES[dtype][0]
    loads = "\n".join(
        f"  %p_{f} = getelementptr i64, ptr %sz, i64 {n}\n  %f_{f} = load i64, ptr %p_{f}"
        for n, f in enumerate(fields))
    name = f"tjit_{routine}_{llvm_type}"
    text = ir.replace("{loads}", loads) + GUARD_IR + one_thread.exported_ir(name)
    text = (text.replace("{ENTER}", _ENTER)
            .replace("{LEAVE}", _LEAVE).replace("{T}", llvm_type)
            .replace("{TO_DOUBLE}", _TO_DOUBLE[llvm_type][0])
            .replace("{FROM_DOUBLE}", _TO_DOUBLE[llvm_type][1])
            .replace("{COL_MAJOR}", str(_COL_MAJOR)).replace("{LEFT}", str(_LEFT)))
    # ('explicit': loops around a library call, nothing worth vectorizing)
    guard_names = one_thread.exported_names(name)
    addrs = disk_cache.load_or_compile(text, [name] + guard_names, "lapack-shim",
                                       profile="explicit")
    one_thread.share_with_eager_calls(_BLAS.get()[0], [addrs[n] for n in guard_names])
    return addrs[name]


_BLAS = Lazy(_load_blas)
_SHIMS = LazyByKey(_load_shim)


class NativeCall:
    """One library step at fixed shapes: ``fn`` (a shim's address), ``sizes`` (its
    fields) and ``end`` (the batch entries), the kernel ABI's pieces ``native_loop``
    puts in a call table, and ``out_specs`` (shape, dtype) of its results;
    ``call(*operands, *outs)`` runs it through ctypes. ``scratch``: per result, an
    array a loop's call table may write a result nobody reads into."""

    def __init__(self, fn, sizes, end, n_ins, out_specs):
        self.fn, self.sizes, self.end = fn, sizes, end
        self.out_specs = out_specs
        self.kernel = as_kernel(fn)
        self.argv = (ctypes.c_void_p * (n_ins + len(out_specs)))()
        self._scratch = None

    @property
    def scratch(self):
        if self._scratch is None:
            self._scratch = [np.empty(shape, dtype) for shape, dtype in self.out_specs]
        return self._scratch

    def __call__(self, *arrays):
        argv = self.argv
        for k, a in enumerate(arrays):
            argv[k] = data_pointer(a)
        self.kernel(argv, self.sizes, 0, self.end)


def _batch(shape):
    return int(np.prod(shape[:-2], dtype=np.int64))


def _routines(dtype, shapes):
    """(set-threads address, routine addresses) where the shims serve ``dtype`` and the
    (concrete, non-empty) ``shapes``, else None."""
    if np.dtype(dtype) not in _TYPES or \
            not all(type(d) is int and d > 0 for shape in shapes for d in shape):
        return None
    return _BLAS.get()


def trsm_call(a_shape, b_shape, dtype, lower, transpose_a, unit_diagonal):
    """The call solving ``a`` (..., n, n) on the left of ``b`` (..., n, k): args (a, b,
    out); None where the shim does not serve (dtype, sizes, no OpenBLAS)."""
    dtype = np.dtype(dtype)
    blas = _routines(dtype, (a_shape, b_shape))
    n, k = b_shape[-2:]
    if blas is None or n * k > MAX_ELEMENTS:
        return None
    one_thread, routines = blas
    # (trtrs's call on the Fortran view of a C-ordered a: the triangle and the
    # transpose flag flip)
    sizes = (ctypes.c_int64 * len(_TRSM_FIELDS))(
        routines["trsm", dtype], one_thread, _UPPER if lower else _LOWER,
        _NO_TRANS if transpose_a else _TRANS, _UNIT if unit_diagonal else _NON_UNIT,
        n, k, n * n, n * k)
    return NativeCall(_SHIMS.get(("trsm", dtype)), sizes, _batch(b_shape), 2,
                      [(tuple(b_shape), dtype)])


def potrf_call(shape, dtype):
    """The call factoring the (..., n, n) matrices' lower triangles: args (x, out); None
    where the shim does not serve."""
    dtype = np.dtype(dtype)
    blas = _routines(dtype, (shape,))
    n = shape[-1]
    if blas is None or n * n > MAX_ELEMENTS:
        return None
    one_thread, routines = blas
    sizes = (ctypes.c_int64 * len(_POTRF_FIELDS))(routines["potrf", dtype], one_thread, n)
    return NativeCall(_SHIMS.get(("potrf", dtype)), sizes, _batch(shape), 1,
                      [(tuple(shape), dtype)])


def getrf_call(shape, dtype):
    """The call factoring the (..., m, n) matrices with partial pivoting: args (x, lu,
    pivots, permutation), as ``lu_p``'s results (int32 pivots, 0-based); None where the
    shim does not serve."""
    dtype = np.dtype(dtype)
    blas = _routines(dtype, (shape,))
    m, n = shape[-2:]
    if blas is None or m * n > MAX_ELEMENTS:
        return None
    one_thread, routines = blas
    sizes = (ctypes.c_int64 * len(_GETRF_FIELDS))(routines["getrf", dtype], one_thread,
                                                  m, n)
    batch = tuple(shape[:-2])
    i32 = np.dtype(np.int32)
    return NativeCall(_SHIMS.get(("getrf", dtype)), sizes, _batch(shape), 1,
                      [(tuple(shape), dtype), (batch + (min(m, n),), i32), (batch + (m,), i32)])


def geqrf_call(shape, dtype):
    """The call of the reduced QR of the (..., m, n) matrices: args (x, q, r); None where
    the shim does not serve."""
    dtype = np.dtype(dtype)
    blas = _routines(dtype, (shape,))
    m, n = shape[-2:]
    # (the work array, on the stack too, is about n * LAPACK's block size of float64)
    if blas is None or m * n > MAX_ELEMENTS or n > MAX_QR_COLUMNS:
        return None
    one_thread, routines = blas
    sizes = (ctypes.c_int64 * len(_GEQRF_FIELDS))(routines["geqrf", dtype], one_thread,
                                                  m, n, routines["orgqr", dtype])
    batch, k = tuple(shape[:-2]), min(m, n)
    return NativeCall(_SHIMS.get(("geqrf", dtype)), sizes, _batch(shape), 1,
                      [(batch + (m, k), dtype), (batch + (k, n), dtype)])


def _qr_step_call(runner, s):
    (x_v,) = s.ins
    m, n = runner.shape[x_v][-2:]
    if s.params["full_matrices"] and m > n:     # (Q is m x m: NumPy's "complete")
        return None
    return geqrf_call(tuple(runner.shape[x_v]), runner.dtype[x_v])


def _trsm_step_call(runner, s):
    a_v, b_v = s.ins
    p = s.params
    if not p["left_side"] or runner.dtype[a_v] != runner.dtype[b_v]:
        return None
    return trsm_call(tuple(runner.shape[a_v]), tuple(runner.shape[b_v]), runner.dtype[b_v],
                     p["lower"], p["transpose_a"], p["unit_diagonal"])


def _one_operand_call(make):
    def step_call(runner, s):
        (x_v,) = s.ins
        return make(tuple(runner.shape[x_v]), runner.dtype[x_v])
    return step_call


_STEP_CALLS = {"triangular_solve": _trsm_step_call, "cholesky": _one_operand_call(potrf_call),
               "lu": _one_operand_call(getrf_call), "qr": _qr_step_call}


def lapack_step(runner, s):
    """The closure ``run(vals)`` of library step ``s`` as a :class:`NativeCall` on
    ``runner`` (a CPU runner at a size binding; the call is recorded in its
    ``native_calls`` for ``native_loop``), or None when ``s`` is not a step a shim
    serves."""
    make = _STEP_CALLS.get(s.name)
    if make is None or s.params is None:
        return None
    call = make(runner, s)
    if call is None:
        return None
    if [(tuple(runner.shape[v]), runner.dtype[v]) for v in s.outs if v is not None] != \
            [spec for v, spec in zip(s.outs, call.out_specs) if v is not None]:
        return None     # (not the results the shim writes: keep the implementation)
    runner.native_calls[id(s)] = call
    ins = [runner.index[v] for v in s.ins]
    outs = [None if v is None else runner.index[v] for v in s.outs]
    specs = call.out_specs

    def run(vals):     # (fresh results, as any library step's)
        arrays = [np.empty(shape, dtype) for shape, dtype in specs]
        call(*[c_contiguous(vals[k]) for k in ins], *arrays)
        for k, a in zip(outs, arrays):
            if k is not None:
                vals[k] = a
    return run


__all__ = ["MAX_ELEMENTS", "MAX_QR_COLUMNS", "NativeCall", "geqrf_call", "getrf_call",
           "lapack_step", "potrf_call", "trsm_call"]
