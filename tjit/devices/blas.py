"""``dot_general`` on the CPU: gemm calls split across tjit's own thread pool.

float32 products on AVX-512 hosts run tjit's own gemm (``sgemm.py``, at least one
register tile wide: 6 x 64); everything else calls OpenBLAS, as below. Both go through
the same shim and the same blocks.

NumPy's ``matmul`` runs OpenBLAS on OpenBLAS's thread pool. Next to tjit's pool (fused
kernels) that makes two pools of spinning threads on the same cores, and on a busy
machine OpenBLAS's pool stalls for whole milliseconds. Instead, a small native shim
(LLVM IR, below) calls single-threaded ``cblas_?gemm`` on one block of rows, columns or
batch entries of the product, and ``threads.parallel_for`` runs the blocks on tjit's
pool: one pool for everything, and a block a slowed worker never took is simply done by
another thread.

The shim runs OpenBLAS on one thread (``one_thread.py``: the count is process-wide, and
OpenBLAS's bits depend on it, so blocks running at once share one guard: the first in
sets 1, the last out restores the count). BLAS is found through NumPy's own extension
module (the ILP64 ``scipy_openblas64_`` build NumPy's wheels ship); where it is not
found, dots fall back to ``np.matmul``.

A folded linear epilogue (``xla_like/gemm_epilogue.py``) makes the call compute
``out = alpha * dot + beta * x``: for BLAS each block first copies its part of ``x``
into ``out`` (nothing to copy when ``out`` is ``x``'s own, donated, buffer), and BLAS
accumulates into it with ``beta``, in place of the pass in which it would zero the
block; tjit's own gemm reads ``x`` itself in its first K slice.

Which axis is split: splitting the rows of ``C = A @ B`` makes every block pack all of
``B``, splitting the columns makes every block pack all of ``A``; the split repacks the
smaller one. Batched products with enough batch entries split the batch instead. The
blocks are chosen from the shapes and the machine's CPU count, never from the number of
threads at work, and a thread runs its blocks as separate calls, each with OpenBLAS on one
thread: one thread or several, busy or idle, the result has the same bits.
"""

import collections
import ctypes
import functools
import math
import os
import struct

import numpy as np

from tjit.devices import array_args, call_tables, disk_cache, one_thread, sgemm
from tjit.devices.lazy import Lazy
from tjit.devices.one_thread import GUARD_IR, ONE_THREAD_ENTER, ONE_THREAD_LEAVE
from tjit.devices.threads import as_kernel, cpu_count, default_num_threads, parallel_for
from tjit.primitives.lapack_threads import numpy_openblas

#: Products below this many multiply-adds run on the calling thread.
PARALLEL_MIN_MACS = 1 << 21
#: Rows/columns per block are a multiple of this (whole SIMD vectors of C) and at least
#: MIN_BLOCK (each block packs the other operand again).
BLOCK_ALIGN = 16
MIN_BLOCK = 64
#: Blocks per CPU of the machine: one each measured fastest here (each block repacks an
#: operand); a worker that has not started its block yet leaves it to the others.
UNITS_PER_CPU = 1

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_SPLIT_ROWS, _SPLIT_COLS, _SPLIT_BATCH = 0, 1, 2

# sizes[] layout shared by the shim and GemmCall.
# one_thread: the address of one_thread.guard (OpenBLAS on one thread meanwhile).
# alpha/beta: the float64 bits of gemm's scalars; prefill: 1 when args are (A, B, X, C)
# and C starts as a copy of X (X has C's layout), 0 when args are (A, B, C).
# pool: the workspace pool of tjit's own sgemm (0 for BLAS).
_FIELDS = ("gemm", "one_thread", "trans_a", "trans_b", "m", "n", "k", "lda", "ldb", "ldc",
           "batch", "stride_a", "stride_b", "stride_c", "split", "block", "extent",
           "alpha", "beta", "prefill", "pool")
_F = {name: n for n, name in enumerate(_FIELDS)}

_SHIM_IR = r"""
declare i64 @llvm.smin.i64(i64, i64)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; gemm on blocks [start, end) of the split axis, one BLAS call per block and batch entry;
; with prefill, each block of C is first copied from X (unless X is C: in place)
define void @tjit_gemm_{T}(ptr noalias %args, ptr noalias %sz, i64 %start, i64 %end) {
entry:
{loads}
  %ap = load ptr, ptr %args
  %bpp = getelementptr ptr, ptr %args, i64 1
  %bp = load ptr, ptr %bpp
  %xpp = getelementptr ptr, ptr %args, i64 2
  %xp = load ptr, ptr %xpp
  %c_at = add i64 %f_prefill, 2
  %cpp = getelementptr ptr, ptr %args, i64 %c_at
  %cp = load ptr, ptr %cpp
  %has_x = icmp ne i64 %f_prefill, 0
  %x_is_c = icmp eq ptr %xp, %cp
  %x_not_c = xor i1 %x_is_c, true
  %copy_x = and i1 %has_x, {COPIES_X}
  %alpha_d = bitcast i64 %f_alpha to double
  %beta_d = bitcast i64 %f_beta to double
{scalars}
  %gemm = inttoptr i64 %f_gemm to ptr
  %ta = trunc i64 %f_trans_a to i32
  %tb = trunc i64 %f_trans_b to i32
  %by_rows = icmp eq i64 %f_split, {SPLIT_ROWS}
  %by_cols = icmp eq i64 %f_split, {SPLIT_COLS}
  %by_batch = icmp eq i64 %f_split, {SPLIT_BATCH}
  ; row i of op(A) starts at i*lda (no transpose) or i (transposed); same for columns of B
  %a_trans = icmp eq i32 %ta, {TRANS}
  %a_row = select i1 %a_trans, i64 1, i64 %f_lda
  %b_trans = icmp eq i32 %tb, {TRANS}
  %b_col = select i1 %b_trans, i64 %f_ldb, i64 1
{ENTER}
  %any = icmp slt i64 %start, %end
  br i1 %any, label %block, label %done
block:
  %u = phi i64 [ %start, %entry ], [ %un, %block_end ]
  %lo = mul i64 %u, %f_block
  %hi0 = add i64 %lo, %f_block
  %hi = call i64 @llvm.smin.i64(i64 %hi0, i64 %f_extent)
  %cnt = sub i64 %hi, %lo
  %ra = mul i64 %lo, %a_row
  %rc = mul i64 %lo, %f_ldc
  %cb = mul i64 %lo, %b_col
  %off_a = select i1 %by_rows, i64 %ra, i64 0
  %off_b = select i1 %by_cols, i64 %cb, i64 0
  %off_c0 = select i1 %by_rows, i64 %rc, i64 0
  %off_c = select i1 %by_cols, i64 %lo, i64 %off_c0
  %m = select i1 %by_rows, i64 %cnt, i64 %f_m
  %n = select i1 %by_cols, i64 %cnt, i64 %f_n
  %b0 = select i1 %by_batch, i64 %lo, i64 0
  %b1 = select i1 %by_batch, i64 %hi, i64 %f_batch
  br label %batch
batch:
  %b = phi i64 [ %b0, %block ], [ %bn, %product ]
  %ia0 = mul i64 %b, %f_stride_a
  %ia = add i64 %ia0, %off_a
  %ib0 = mul i64 %b, %f_stride_b
  %ib = add i64 %ib0, %off_b
  %ic0 = mul i64 %b, %f_stride_c
  %ic = add i64 %ic0, %off_c
  %pa = getelementptr {T}, ptr %ap, i64 %ia
  %pb = getelementptr {T}, ptr %bp, i64 %ib
  %pc = getelementptr {T}, ptr %cp, i64 %ic
  %px = getelementptr {T}, ptr %xp, i64 %ic
  %row_bytes = mul i64 %n, {SIZE}
  %any_rows = icmp sgt i64 %m, 0
  %do_copy = and i1 %copy_x, %any_rows
  br i1 %do_copy, label %copy, label %product
copy:
  %r = phi i64 [ 0, %batch ], [ %rn, %copy ]
  %ro = mul i64 %r, %f_ldc
  %cr = getelementptr {T}, ptr %pc, i64 %ro
  %xr = getelementptr {T}, ptr %px, i64 %ro
  call void @llvm.memcpy.p0.p0.i64(ptr %cr, ptr %xr, i64 %row_bytes, i1 false)
  %rn = add i64 %r, 1
  %more_rows = icmp slt i64 %rn, %m
  br i1 %more_rows, label %copy, label %product
product:
{GEMM_CALL}
  %bn = add i64 %b, 1
  %more = icmp slt i64 %bn, %b1
  br i1 %more, label %batch, label %block_end
block_end:
  %un = add i64 %u, 1
  %more_blocks = icmp slt i64 %un, %end
  br i1 %more_blocks, label %block, label %done
done:
{LEAVE}
  ret void
}
"""

# The shim around BLAS: OpenBLAS on one thread meanwhile (one_thread.py).
_BLAS_PARTS = {
    "COPIES_X": "%x_not_c",
    "ENTER": ONE_THREAD_ENTER,
    "GEMM_CALL": """  call void %gemm(i32 {ROW_MAJOR}, i32 %ta, i32 %tb, i64 %m, i64 %n, i64 %f_k,
                  {T} %alpha, ptr %pa, i64 %f_lda, ptr %pb, i64 %f_ldb, {T} %beta, ptr %pc,
                  i64 %f_ldc)""",
    "LEAVE": ONE_THREAD_LEAVE,
}

# The shim around tjit's own sgemm (sgemm.py): a workspace slot from the pool for the
# duration of the call; X is read by the kernel's first K slice, not copied into C.
_OWN_PARTS = {
    "COPIES_X": "false",          # the kernel reads X itself
    "ENTER": """  %pool = inttoptr i64 %f_pool to ptr
  %slot = call i64 @ws_grab(ptr %pool)
  %ws_at0 = mul i64 %slot, {WS_BYTES}
  %ws_at = add i64 %ws_at0, {FLAG_BYTES}
  %ws = getelementptr i8, ptr %pool, i64 %ws_at""",
    "GEMM_CALL": """  %ars = select i1 %a_trans, i64 1, i64 %f_lda
  %acs = select i1 %a_trans, i64 %f_lda, i64 1
  %brs = select i1 %b_trans, i64 1, i64 %f_ldb
  %bcs = select i1 %b_trans, i64 %f_ldb, i64 1
  %src = select i1 %has_x, ptr %px, ptr %pc
  call void @{SGEMM}(ptr %pa, ptr %pb, ptr %src, ptr %pc, ptr %ws, i64 %m, i64 %n, i64 %f_k,
                        i64 %ars, i64 %acs, i64 %brs, i64 %bcs, i64 %f_ldc, float %alpha,
                        float %beta)""",
    "LEAVE": "  call void @ws_release(ptr %pool, i64 %slot)",
}

# Workspace slots: a flag per slot (one cache line each), then the slots. A call takes
# the first free flag (compare-and-swap) and frees it when done; slots outnumber the
# threads that can be computing at once, so the yield loop is a safety net.
_POOL_IR = r"""
declare i32 @sched_yield()

define internal i64 @ws_grab(ptr %pool) {
entry:
  br label %try
try:
  %s = phi i64 [ 0, %entry ], [ %s1, %next ], [ 0, %yield ]
  %off = mul i64 %s, 64
  %flag = getelementptr i8, ptr %pool, i64 %off
  %cx = cmpxchg ptr %flag, i32 0, i32 1 acquire monotonic
  %got = extractvalue { i32, i1 } %cx, 1
  br i1 %got, label %done, label %next
next:
  %s_inc = add i64 %s, 1
  %wrap = icmp eq i64 %s_inc, {SLOTS}
  %s1 = select i1 %wrap, i64 0, i64 %s_inc
  br i1 %wrap, label %yield, label %try
yield:
  %y = call i32 @sched_yield()
  br label %try
done:
  ret i64 %s
}

define internal void @ws_release(ptr %pool, i64 %s) {
entry:
  %off = mul i64 %s, 64
  %flag = getelementptr i8, ptr %pool, i64 %off
  store atomic i32 0, ptr %flag release, align 4
  ret void
}
"""


def _shim_ir(llvm_type, own=False):
    """The shim module: around BLAS, or (``own``) one shim per tile of tjit's sgemm
    (``tjit_gemm_own_<tile>``) with the workspace pool."""
    if own:
        ir = "".join(_shim_text(llvm_type, _OWN_PARTS, f"tjit_gemm_own_{tile}",
                                (("{SGEMM}", sgemm.entry(tile)),))
                     for tile in sgemm.TILES)
        ir = ir.replace("declare i64 @llvm.smin.i64(i64, i64)\n", "")
        ir = ir.replace("declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n", "")
        ir = ("declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n" + ir +
              _POOL_IR.replace("{SLOTS}", str(_POOL_SLOTS)) + "\n" + sgemm.kernel_ir())
        return ir.replace("{WS_BYTES}", str(_WS_BYTES)).replace("{FLAG_BYTES}",
                                                                str(64 * _POOL_SLOTS))
    name = f"tjit_gemm_{llvm_type}"
    return (_shim_text(llvm_type, _BLAS_PARTS, name, ()) + GUARD_IR +
            one_thread.exported_ir(name))


def _shim_text(llvm_type, parts, name, extra):
    ir = _SHIM_IR.replace("@tjit_gemm_{T}(", f"@{name}(")
    for key, text in parts.items():
        ir = ir.replace("{" + key + "}", text)
    for key, text in extra:
        ir = ir.replace(key, text)
    loads = "\n".join(
        f"  %p_{f} = getelementptr i64, ptr %sz, i64 {n}\n  %f_{f} = load i64, ptr %p_{f}"
        for n, f in enumerate(_FIELDS))
    if llvm_type == "float":
        scalars = ("  %alpha = fptrunc double %alpha_d to float\n"
                   "  %beta = fptrunc double %beta_d to float")
    else:
        scalars = ("  %alpha = bitcast i64 %f_alpha to double\n"
                   "  %beta = bitcast i64 %f_beta to double")
    size = {"float": 4, "double": 8}[llvm_type]
    return (ir.replace("{loads}", loads).replace("{scalars}", scalars)
            .replace("{T}", llvm_type).replace("{SIZE}", str(size))
            .replace("{SPLIT_ROWS}", str(_SPLIT_ROWS)).replace("{SPLIT_COLS}", str(_SPLIT_COLS))
            .replace("{SPLIT_BATCH}", str(_SPLIT_BATCH)).replace("{TRANS}", str(_TRANS))
            .replace("{ROW_MAJOR}", str(_ROW_MAJOR)))


_POOL = None      # the own sgemm's workspace pool (kept alive here)
#: Workspace slots of the own sgemm: more than the threads that can compute at once.
_POOL_SLOTS = 2 * (os.cpu_count() or 1) + 2
_WS_BYTES = 4 * (-(-sgemm.WORKSPACE_FLOATS // 16) * 16)   # a multiple of 64


def symbol_address(lib, name):
    """The address of ``name`` in the loaded library ``lib`` (ctypes), or None."""
    try:
        return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
    except AttributeError:
        return None


def _openblas():
    """(one-thread guard address, {dtype: cblas gemm address}) from NumPy's OpenBLAS, or
    None."""
    lib = numpy_openblas()
    if lib is None:
        return None
    set_threads = symbol_address(lib, "openblas_set_num_threads_local")
    gemms = {np.dtype(np.float32): symbol_address(lib, "scipy_cblas_sgemm64_"),
             np.dtype(np.float64): symbol_address(lib, "scipy_cblas_dgemm64_")}
    if set_threads is None or None in gemms.values():
        return None
    return one_thread.guard(set_threads), gemms


def own_sgemm_used():
    """float32 dots use tjit's own sgemm (``sgemm.py``): on AVX-512 hosts, unless
    ``TJIT_GEMM=blas`` asks for BLAS (read when a program is prepared)."""
    return sgemm.available() and os.environ.get("TJIT_GEMM", "").lower() != "blas"


def _library():
    """The BLAS shims (:class:`_Shims`: ``.get(np.dtype)`` -> (shim ctypes function, gemm
    address, set-threads address, 0) or None), or None where NumPy's OpenBLAS was not
    found."""
    return _LIBRARY.get()


def _load_library():
    blas = _openblas()
    return None if blas is None else _Shims(*blas)


_SHIM_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}


class _Shims:
    """The BLAS shim of each dtype, compiled (or loaded from the disk cache) the first
    time a product of that dtype asks for it: a float32 program does not build the
    float64 one (~30 ms of LLVM in a process whose disk cache is empty)."""

    def __init__(self, one_thread_guard, gemms):
        self._entries = {dt: Lazy(functools.partial(self._load, dt, gemm, one_thread_guard))
                         for dt, gemm in gemms.items()}

    @staticmethod
    def _load(dtype, gemm, one_thread_guard):
        name = f"tjit_gemm_{_SHIM_TYPES[dtype]}"
        ir_text = _shim_ir(_SHIM_TYPES[dtype])
        # 'control': loops around BLAS calls and memcpy, nothing to optimise (LLVM CPU
        # vector 21, explicit 15, light 8-11, control 2.7 ms with an empty disk cache;
        # target.PROFILES)
        guard_names = one_thread.exported_names(name)
        addrs = disk_cache.load_or_compile(ir_text, [name] + guard_names, "gemm-shim",
                                           profile="control")
        one_thread.share_with_eager_calls(one_thread_guard, [addrs[n] for n in guard_names])
        return as_kernel(addrs[name]), gemm, one_thread_guard, 0

    def get(self, dtype):
        """The entry of ``dtype``, or None where BLAS has no gemm for it."""
        lazy = self._entries.get(np.dtype(dtype))
        return None if lazy is None else lazy.get()


def _own(tile):
    """(shim, 0, 0, workspace pool address) of tjit's own sgemm for ``tile`` (a key of
    ``sgemm.TILES``), compiled (~0.1 s of CPU, then from the disk cache) the first time a
    product wants it (once: a second pool would replace, and free, the one other
    threads' calls point at)."""
    return _OWN.get()[tile]


def own_sgemm_ready():
    """Whether tjit's own sgemm is built in this process."""
    return _OWN.made()


def prepare_own_sgemm():
    """Build tjit's own sgemm now (``helpers_ahead``: beside a program's kernels)."""
    _OWN.get()


def _load_own():
    global _POOL
    names = [f"tjit_gemm_own_{t}" for t in sgemm.TILES]
    # 'light': the kernel is written as the machine code should be, so LLVM's pipelines
    # add nothing but compile time (measured: O3 418, O2 279, light ~90 ms of CPU at the
    # same speed; target.PROFILES)
    addrs = disk_cache.load_or_compile(_shim_ir("float", own=True), names, "gemm-own",
                                       profile="light")
    # 64-byte aligned: the flags, then the slots (pages touched only when used)
    raw = np.zeros(64 * _POOL_SLOTS + _WS_BYTES * _POOL_SLOTS + 64, np.uint8)
    _POOL = raw[-raw.ctypes.data % 64:]
    return {t: (as_kernel(addrs[n]), 0, 0, _POOL.ctypes.data) for t, n in zip(sgemm.TILES, names)}


_LIBRARY = Lazy(_load_library)
_OWN = Lazy(_load_own)


def _after_fork_in_child():
    """Workspace slots that other threads held at the fork are never given back in the
    child (those threads do not exist there): free them."""
    if _POOL is not None:
        _POOL[:64 * _POOL_SLOTS] = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def own_tile_for(m, n):
    """Whether an m x n float32 product runs on tjit's own sgemm (where it is used)."""
    return _own_tile(m, n) is not None


def _own_tile(m, n):
    """The own sgemm's tile for an m x n product, or None where BLAS does better:
    products thinner than the tile (mostly padding), vectors."""
    for tile, (mr, nr) in sgemm.TILES.items():
        if m >= mr and n >= nr:
            return tile
    return None


def available():
    """True when dots run through the native gemm shim (else ``np.matmul``)."""
    return _library() is not None or own_sgemm_used()


def _matrix_layout(rows, cols, rs, cs):
    """(transpose flag, leading dimension) for a rows x cols matrix with element strides
    rs, cs, or None when BLAS cannot read it in place."""
    if cols == 1 or cs == 1:
        ld = rs if rows > 1 else cols
        if ld >= max(1, cols):
            return _NO_TRANS, ld
    if rows == 1 or rs == 1:
        ld = cs if cols > 1 else rows
        if ld >= max(1, rows):
            return _TRANS, ld
    return None


def _batched_view(shape, dtype, perm, new_shape):
    """Element strides of ``transpose(x, perm).reshape(new_shape)`` for a C-contiguous x
    of ``shape``, or None when that reshape would need a copy."""
    if list(perm) == sorted(perm):      # no transpose: a contiguous reshape, no NumPy
        return _c_strides(new_shape, 1)     # (this runs for every new size binding)
    item = dtype.itemsize
    fake = np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape=shape,
                                           strides=_c_strides(shape, item))
    try:
        v = np.reshape(np.transpose(fake, perm), new_shape, copy=False)
    except ValueError:
        return None
    return tuple(s // item for s in v.strides)


@functools.lru_cache(maxsize=64)
def _double_bits(v):
    """The float64 bits of ``v`` as a signed int64 (how the shim's sizes carry scalars)."""
    return struct.unpack("<q", struct.pack("<d", float(v)))[0]


def _c_strides(shape, item):
    strides, acc = [], item
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(strides))


class GemmPlan(collections.namedtuple(
        "GemmPlan", "shim sizes n_units parallel copies macs own")):
    """How one ``dot_general`` at fixed shapes runs: the shim, its ``sizes`` fields (a
    tuple in ``_FIELDS`` order), the blocks, and per operand None or the (perm, shape)
    of a contiguous copy made per call. Plans are kept per process by their arguments
    (``_plan``): a runner re-bound to sizes seen before plans nothing."""


class GemmCall:
    """One ``dot_general`` at fixed shapes, as (batched) gemm calls into a preallocated
    output; ``GemmCall.build`` returns None when the shim cannot do it (dtypes, empty
    dims, no BLAS found), and the caller uses ``np.matmul``. A call is re-pointed at
    other shapes of the same dot (a runner re-bound to new sizes) by ``replan``: its
    argument and sizes arrays stay where they are."""

    def __init__(self, plan, prefill, how=None):
        self.prefill = prefill      # arguments are (lhs, rhs, x, out): out starts as x
        self.how = how              # plan's other arguments, for replan
        n_args = 4 if prefill else 3
        self.argv = (ctypes.c_void_p * n_args)()
        self.sizes = (ctypes.c_int64 * len(_FIELDS))()
        self._fill = array_args.ArrayLauncher(self.argv, list(range(n_args))) \
            if array_args.available() else None
        self.set_plan(plan)

    def set_plan(self, plan):
        """Run as ``plan`` says from the next call on (a :class:`GemmPlan` made with this
        call's ``prefill``)."""
        self.shim, self.n_units, self.parallel = plan.shim, plan.n_units, plan.parallel
        self.copies = list(plan.copies)  # per operand: None, or (perm, shape) to copy first
        self.macs, self.own = plan.macs, plan.own
        self.sizes[:] = plan.sizes

    @classmethod
    def build(cls, lshape, rshape, dtype, lperm, rperm, bmkn, alpha=1.0, beta=0.0,
              prefill=False, nthreads=None):
        """``out = alpha * dot + beta * x`` where ``x`` (with ``prefill``) is an array of
        the output's shape that the call copies into ``out`` block by block first;
        ``nthreads``: ``default_num_threads()`` when the caller has read it already."""
        how = (np.dtype(dtype), tuple(lperm), tuple(rperm), alpha, beta, bool(prefill),
               nthreads or default_num_threads(), own_sgemm_used())
        plan = _plan(tuple(lshape), tuple(rshape), _ints(bmkn), *how)
        return None if plan is None else cls(plan, prefill, how)

    def set_alpha(self, alpha):
        """Compute ``alpha * dot`` from the next call on (a run-time ``alpha``: the
        shim reads it from the sizes array at each call)."""
        self.sizes[_F["alpha"]] = _double_bits(alpha)

    def replan(self, lshape, rshape, bmkn):
        """Re-point a built call at other shapes of its dot (a runner re-bound to new
        sizes); False (the call unchanged) where the shim cannot do those."""
        plan = _plan(tuple(lshape), tuple(rshape), _ints(bmkn), *self.how)
        if plan is None:
            return False
        self.set_plan(plan)
        return True

    def bind(self, lhs, rhs, out, x=None):
        """Point the call at these arrays (C-contiguous, of the built shapes and dtype;
        ``x`` when built with ``prefill``, and it may be ``out`` itself); returns what
        must stay alive until the call has run."""
        if self.copies[0] is not None or self.copies[1] is not None:
            lhs, rhs = (a if c is None else
                        np.ascontiguousarray(np.transpose(a, c[0]).reshape(c[1]))
                        for a, c in zip((lhs, rhs), self.copies))
        arrays = (lhs, rhs, x, out) if self.prefill else (lhs, rhs, out)
        if self._fill is not None:
            self._fill(arrays)
        else:
            for n, a in enumerate(arrays):
                self.argv[n] = a.ctypes.data
        return lhs, rhs

    def __call__(self, lhs, rhs, out, x=None):
        """out[...] = alpha * dot(lhs, rhs) (+ beta * x); arrays C-contiguous of the built
        shapes and dtype."""
        keep = self.bind(lhs, rhs, out, x)  # noqa: F841  (copies live through the call)
        if self.parallel:
            parallel_for(self.shim, self.argv, self.sizes, self.n_units)
        else:
            self.shim(self.argv, self.sizes, 0, self.n_units)
        return out


_FLOAT32 = np.dtype(np.float32)    # (a dtype against a dtype: no conversion per plan)


def _ints(bmkn):
    B, M, K, N = bmkn
    return int(B), int(M), int(K), int(N)


@functools.lru_cache(maxsize=4096)
def _plan(lshape, rshape, bmkn, dtype, lperm, rperm, alpha, beta, prefill, nthreads, own_used):
    """The :class:`GemmPlan` of ``GemmCall.build``'s product (``own_used``:
    ``own_sgemm_used()``), or None where the shim cannot do it. (Every new size of a
    dynamic program's dots plans here: its sizes tuple is built in ``_FIELDS`` order
    directly, and operands in natural axis order take ``_operand``'s short path.)"""
    lib = _library()
    B, M, K, N = bmkn
    if 0 in bmkn:
        return None
    # the own sgemm's tile first: asking for the BLAS entry builds its shim (~20-30 ms of
    # LLVM CPU with an empty disk cache), which a float32 program whose products all
    # take the own tile never calls
    tile = _own_tile(M, N) if dtype == _FLOAT32 and own_used else None
    entry = _own(tile) if tile is not None else lib.get(dtype) if lib else None
    if entry is None and dtype == _FLOAT32 and own_used:
        entry = _own("wide")
    if entry is None:
        return None
    shim, gemm, guard, pool = entry
    trans_a, lda, stride_a, copy_a = _operand(lshape, lperm, (B, M, K), dtype)
    trans_b, ldb, stride_b, copy_b = _operand(rshape, rperm, (B, K, N), dtype)
    # The blocks depend on the shapes and the machine's CPU count only, never on the
    # threads in use: every thread count gives the same bits.
    units = UNITS_PER_CPU * cpu_count()
    if B >= units:
        split, extent, block = _SPLIT_BATCH, B, math.ceil(B / units)
    else:
        split, extent = (_SPLIT_ROWS, M) if M > N else (_SPLIT_COLS, N)
        block = BLOCK_ALIGN * math.ceil(extent / (units * BLOCK_ALIGN))
        block = max(block, MIN_BLOCK)
    macs = B * M * N * K
    if macs < PARALLEL_MIN_MACS:
        block = extent               # one call: blocks would cost more than they give
    n_units = math.ceil(extent / block)
    sizes = (gemm, guard, trans_a, trans_b, M, N, K, lda, ldb, N, B,
             stride_a if B > 1 else 0, stride_b if B > 1 else 0, M * N, split, block, extent,
             _double_bits(alpha), _double_bits(beta if prefill else 0.0), int(prefill), pool)
    return GemmPlan(shim, sizes, n_units, n_units > 1 and nthreads > 1, (copy_a, copy_b),
                    macs, pool != 0)


def _operand(shape, perm, mat, dtype):
    """``(transpose flag, leading dimension, batch stride, copy)`` of one operand read as
    the batched matrix ``mat`` = (batch, rows, cols) through ``perm``; ``copy``: None, or
    the (perm, shape) of a contiguous copy made per call where BLAS cannot read it."""
    rows_cols = mat[1] * mat[2]
    if perm == _natural(len(perm)):     # a contiguous reshape: row-major, no NumPy
        return _NO_TRANS, mat[2], rows_cols, None
    strides = _batched_view(shape, dtype, perm, mat)
    layout = strides and _matrix_layout(mat[1], mat[2], strides[1], strides[2])
    if not layout:                      # a contiguous copy is made per call
        return _NO_TRANS, mat[2], rows_cols, (perm, mat)
    return layout[0], layout[1], strides[0], None


@functools.cache
def _natural(rank):
    return tuple(range(rank))


class GemmGroup:
    """Independent gemms run at the same time, one whole gemm per thread (instead of
    each split across all threads in turn): no block repacks, no hand-off between them.
    Each gemm still runs its own blocks in order, so the bits equal a lone call's.
    ``GemmGroup.worth(calls, nthreads)`` says when that beats running them in turn."""

    @staticmethod
    def worth(calls, nthreads):
        """One gemm per thread, each big enough to split, of similar sizes (the group
        lasts as long as its biggest member), through BLAS: tjit's own sgemm splits
        across threads without loss (measured: the MLP step's two 1024x256x1024 gemms
        in 5.6 ms split, 6.1 ms as a group), OpenBLAS loses ~10% when split."""
        macs = [c.macs for c in calls]
        return len(calls) == nthreads >= 2 and min(macs) >= PARALLEL_MIN_MACS and \
            max(macs) <= 1.5 * min(macs) and not any(c.own for c in calls)

    def __init__(self, calls):
        self.calls = calls
        # one call-table entry per member, all its blocks: threads take whole members
        self.table = call_tables.table(
            [(ctypes.cast(c.shim, ctypes.c_void_p).value, ctypes.addressof(c.argv),
              ctypes.addressof(c.sizes), c.n_units) for c in calls])
        self.unused = (ctypes.c_int64 * 1)()
        self.fn = call_tables.run_calls()

    def __call__(self, operands):
        """``operands``: per member, (lhs, rhs, out, x)."""
        keep = [c.bind(*ops) for c, ops in zip(self.calls, operands)]  # noqa: F841
        parallel_for(self.fn, self.table, self.unused, len(self.calls))
