"""What a compilation target can do and what things cost there: read by the passes.

A :class:`TargetInfo` holds the facts that lowering, simplification, fusion and
planning used to read from module constants tuned for the CPU: which dtypes kernels
compute (the rest become library calls), which dots go to a gemm and whether it folds
``alpha``/``beta`` epilogues, the remat cost model's op costs, whether the renderer
hoists loop-invariant work out of inner loops, and how a large full reduction is split
into row partials. Each backend names its target; :data:`CPU` holds the values
measured for the LLVM backend (PERF_NOTES.md), which the passes take by default.
"""

import dataclasses
import types
from collections.abc import Callable, Mapping

import numpy as np

from tjit.xla_like import hlo
from tjit.xla_like.kernel_ir import TRANSCENDENTAL_OPS


@dataclasses.dataclass(frozen=True)
class TargetInfo:
    """One target's capabilities and costs.

    Attributes:
      name: the target ("cpu", later "cuda", "opencl", "hls").
      kernel_dtypes: dtypes fused kernels compute; ops on others are library calls.
      gemm_dtypes: dtypes whose dots run as a gemm (others: the runtime's matmul).
      gemm_alpha_beta: whether the gemm computes ``alpha * A @ B + beta * C``, so linear
        epilogues fold into it (``gemm_epilogue.py``).
      op_cost: remat cost per element of the ops dearer than a cheap op (``fusion.py``).
      cheap_cost: the cost of any other elementwise op.
      f64_cost: the factor on a float64 op's cost, for ops missing from ``f64_op_cost``.
      f64_op_cost: remat cost per element of float64 ops measured on their own (a
        float64 kernel is more memory-bound, so its compute costs fewer bytes than
        ``f64_cost`` times float32's); others cost ``op_cost`` times ``f64_cost``.
      hoists_trailing_broadcasts: whether work invariant in the inner loops is hoisted
        (LLVM's LICM), so a broadcast along trailing axes does not recompute its operand.
      split_reduce_min: full reductions of at least this many elements are split into
        row partials (a parallel first pass); None: never split.
      split_reduce: ``n -> (rows, row length)`` for a full reduction of ``n`` elements
        (an int, or None when symbolic) that must be reshaped into rows, or None.
      dot_kernels: dots of a kernel dtype missing from ``gemm_dtypes`` become fused
        reduce kernels (``reduce(mul(...))``, the contraction as the reduce axes) instead
        of the runtime's matmul: targets with no gemm library (OpenCL on PoCL, HLS).
      split_columns: ``(rows, kept) -> parts`` for a reduction over the leading axis of a
        ``rows`` x ``kept`` array that should run in two passes (``parts`` partials per
        kept element, ``parts`` dividing ``rows``), or None (one pass); the field None:
        never split (CPU: a thread per block of columns already has the bandwidth).
      ragged_parts: ``(rows, kept) -> parts`` for a reduction over the leading axis of
        ``rows`` x ``kept`` whose rows ``split_columns`` (or, ``kept == 1``,
        ``split_reduce``) cannot divide: ``parts`` partials of
        ``rows // parts`` rows, the last ``rows % parts`` rows reduced apart
        (``simplify._ragged_split``); None: one pass. The field None: never.
      inline_split_reshapes: whether kernels address an inlined value through a reshape
        that only splits dims (``fusion.split_only_reshape``; its operand's indices are
        affine in the result's) instead of materializing the reshape's operand: on for
        CUDA, whose column splits reshape a fused expression; the CPU keeps its plans.
      merge_same_producer: whether sibling kernels of one iteration space that read
        outputs of one producer kernel merge (as siblings reading a common input do):
        one launch fewer where launches cost more than the pass (CUDA).
      temps_in_outputs: whether the plan may place temporaries in an output's buffer
        before that output is written (``plan.host_temporaries``); the runtime must
        then make output buffers at the start of a call (the CPU runner does).
      concurrent_kernels: whether the runtime runs each maximal run of consecutive
        kernel steps as one step whose kernels run at once (an HLS dataflow design's
        stages): the plan's liveness then treats the run as one time (``plan.step_times``),
        so no buffer a run's kernels read or write is reused or donated within the run.
      param_views: whether the runtime makes a program's ``views`` (an argument's array
        reshaped, ``reshape_copies.view_argument_reshapes``) instead of a copy kernel
        (the CPU runner does: ``runner.ProgramRunner.run``).
      gemm_runtime_alpha: whether the runtime computes a folded gemm's ``alpha`` from
        its run-time factors (``DotStep.scale``: sizes at binding, 0-d values per call),
        so epilogues scaled by ``x.shape[0]`` or a traced scalar fold too
        (``gemm_epilogue.py``; the CPU runner does).
    """
    name: str
    kernel_dtypes: frozenset
    gemm_dtypes: frozenset
    gemm_alpha_beta: bool
    op_cost: Mapping
    cheap_cost: float
    f64_cost: float
    hoists_trailing_broadcasts: bool
    split_reduce_min: int | None
    split_reduce: Callable
    dot_kernels: bool = False
    split_columns: Callable | None = None
    ragged_parts: Callable | None = None
    inline_split_reshapes: bool = False
    merge_same_producer: bool = False
    temps_in_outputs: bool = False
    concurrent_kernels: bool = False
    param_views: bool = False
    gemm_runtime_alpha: bool = False
    f64_op_cost: Mapping = dataclasses.field(default_factory=lambda: types.MappingProxyType({}))

    def cost(self, opcode, dtype):
        """Remat cost per element of one ``opcode`` op of ``dtype`` (0: not computed)."""
        f64 = np.dtype(dtype) == np.float64
        if f64 and opcode in self.f64_op_cost:
            return self.f64_op_cost[opcode]
        c = self.op_cost.get(opcode, self.cheap_cost if opcode in hlo.ELEMENTWISE else 0.0)
        return c * (self.f64_cost if f64 else 1.0)


#: Full-reduction split rows have at least this many elements (CPU).
SPLIT_REDUCE_MIN_ROW = 64


def cpu_row_split(n):
    """(rows, row length) with rows >= 2 and rows * length == n, about sqrt(n) / 4 rows
    of at least SPLIT_REDUCE_MIN_ROW elements, or None (symbolic or awkward sizes): rows
    enough for the threads, long enough to vectorize."""
    if n is None:
        return None
    target = max(2, int(np.sqrt(n)) // 4)
    for rows in sorted(range(2, min(n // SPLIT_REDUCE_MIN_ROW, 4096) + 1),
                       key=lambda r: abs(r - target)):
        if n % rows == 0:
            return (rows, n // rows)
    return None


# Measured by benchmarks/bench_op_costs.py: a jitted op's compute time per element over
# a kernel of the same arity that only moves the data (neg; add), at 1M elements, one
# thread, CPU time, converted into bytes that kernel moves in that time (the unit of
# fusion.py's materialize cost, itemsize * (1 + consumers)). Means of two runs at load
# ~14 on 2 vCPUs (AVX-512), which agreed within ~15%. float32 exp is ~4 bytes (at 3
# rows storing exp(v) ties with recomputing it, as timed), sin 7x that, pow 19x, lgamma
# ~100x; rem (an exact branch-free fmod, lower/llvm/fmod.py: 6 reduction steps in
# float32, 43 in float64) ~15x, 50-77 bytes (two runs; 2300 as a libm fmodf call). div
# and sqrt hide behind the memory traffic at this size (0-1 bytes): 1 is kept, as for an
# indexed load (take).
_CPU_OP_COST = {
    "exp": 4.0, "exp2": 3.0, "expm1": 5.0, "log": 9.0, "log1p": 12.0, "tanh": 4.5,
    "logistic": 11.0, "sin": 29.0, "cos": 29.0, "tan": 30.0, "erf": 16.0, "erfc": 35.0,
    "pow": 76.0, "atan2": 15.0, "cbrt": 15.0, "asin": 22.0, "acos": 26.0, "atan": 12.0,
    "sinh": 20.0, "cosh": 18.0, "asinh": 42.0, "acosh": 37.0, "atanh": 24.0,
    "lgamma": 390.0, "digamma": 220.0, "rem": 60.0, "rsqrt": 3.5,
    "div": 1.0, "sqrt": 1.0, "take": 1.0,
}
# float64, measured the same way: 2-2.5x float32's bytes for most ops, but 4-5x for
# the trigonometric ones, tanh and erfc (float64 sin is 4.6x float32's time), ~1x for
# pow and atan2, and below float32's for lgamma/digamma; rem 344 (1100 as libm fmod);
# div and sqrt (not listed) stay at f64_cost times float32's. exp measured 7.5-10.4: 8 (the low end) keeps
# exp(v) over 3 rows recomputed, as timed (3 x 1M: 2.0 ms in one kernel, 6.0 stored).
_CPU_F64_OP_COST = {
    "exp": 8.0, "exp2": 5.5, "expm1": 14.0, "log": 21.0, "log1p": 26.0, "tanh": 22.0,
    "logistic": 23.0, "sin": 122.0, "cos": 128.0, "tan": 127.0, "erf": 46.0, "erfc": 170.0,
    "pow": 86.0, "atan2": 14.0, "cbrt": 27.0, "asin": 48.0, "acos": 64.0, "atan": 28.0,
    "sinh": 50.0, "cosh": 44.0, "asinh": 91.0, "acosh": 82.0, "atanh": 51.0,
    "lgamma": 250.0, "digamma": 175.0, "rem": 340.0, "rsqrt": 12.0,
}
assert set(_CPU_OP_COST) >= TRANSCENDENTAL_OPS and set(_CPU_F64_OP_COST) >= TRANSCENDENTAL_OPS

#: The LLVM CPU backend (costs measured on x86, PERF_NOTES.md).
CPU = TargetInfo(
    name="cpu",
    kernel_dtypes=hlo.KERNEL_DTYPES | hlo.NARROW_KERNEL_DTYPES,   # (float8s, int4s...)
    gemm_dtypes=frozenset((np.dtype(np.float32), np.dtype(np.float64))),   # BLAS
    gemm_alpha_beta=True,
    op_cost=types.MappingProxyType(_CPU_OP_COST),
    cheap_cost=0.25,
    f64_cost=2.0,
    hoists_trailing_broadcasts=True,
    split_reduce_min=1 << 15,
    split_reduce=cpu_row_split,
    temps_in_outputs=True,
    param_views=True,
    gemm_runtime_alpha=True,
    f64_op_cost=types.MappingProxyType(_CPU_F64_OP_COST),
)


def gpu_row_split(n, min_row=1024, max_rows=1024):
    """(rows, row length) for a full reduction on a device that runs one work-group per
    row: about ``n / 8192`` rows (at most ``max_rows``) of at least ``min_row``
    elements, or None (symbolic or awkward sizes): enough groups for the compute units,
    rows long enough that a group's threads each fold many elements."""
    if n is None:
        return None
    target = max(2, min(max_rows, n // 8192))
    for rows in sorted(range(2, min(n // min_row, max_rows) + 1),
                       key=lambda r: abs(r - target)):
        if n % rows == 0:
            return (rows, n // rows)
    return None


#: Kernel dtypes of the C-family GPU targets: float16 too (stored as binary16, computed
#: in float and rounded per op: ``lower/c/scalar.py``); the LLVM and HLS renderers have
#: no float16, so there float16 ops stay library calls.
GPU_KERNEL_DTYPES = hlo.KERNEL_DTYPES | {np.dtype(np.float16)}
#: Kernel dtypes of an OpenCL device without ``cl_khr_fp64``.
_NO_F64 = frozenset(d for d in GPU_KERNEL_DTYPES if d != np.dtype(np.float64))


def opencl_target(fp64=True):
    """The OpenCL target (``devices/opencl.py``): float64 kernels only on a device with
    ``cl_khr_fp64`` (else float64 ops are host library calls); no gemm library (PoCL
    and most OpenCL devices have no BLAS), so every dot of a kernel dtype becomes a
    reduce kernel; full reductions split into rows for many work-groups. Op costs are
    the CPU's (not measured on a GPU yet); nothing is hoisted across work-items."""
    return TargetInfo(
        name="opencl",
        kernel_dtypes=GPU_KERNEL_DTYPES if fp64 else _NO_F64,
        gemm_dtypes=frozenset(),
        gemm_alpha_beta=False,
        op_cost=types.MappingProxyType(_CPU_OP_COST),
        cheap_cost=0.25,
        f64_cost=2.0,
        hoists_trailing_broadcasts=False,
        split_reduce_min=1 << 14,
        split_reduce=gpu_row_split,
        dot_kernels=True,
    )


def cuda_row_split(n):
    """(rows, row length) for a full reduction on a GPU: about ``CUDA_SPLIT_ROWS`` rows
    (one thread block each, several per SM), each at least ``CUDA_SPLIT_MIN_ROW``
    long, with rows * length == n; None for symbolic or awkward sizes."""
    if n is None:
        return None
    hi = min(n // CUDA_SPLIT_MIN_ROW, 8 * CUDA_SPLIT_ROWS)
    for rows in sorted(range(2, hi + 1), key=lambda r: abs(r - CUDA_SPLIT_ROWS)):
        if n % rows == 0:
            return (rows, n // rows)
    return None


#: About as many threads as an H100/H200 keeps resident (270k): the aim of a split
#: reduction's first pass, and the kept points that alone fill the GPU (half of it).
CUDA_RESIDENT_THREADS = 1 << 18
#: A column reduction of fewer elements runs in one pass (one launch beats two).
CUDA_COLUMN_SPLIT_MIN = 1 << 20


def cuda_column_split(rows, kept, threads=CUDA_RESIDENT_THREADS, min_fold=16):
    """Partials per column for a column reduction on a GPU: the first pass runs a thread
    per (partial, column), about ``threads`` of them (an H100 holds 270k resident), each
    folding at least ``min_fold`` rows; ``parts`` divides ``rows``. None when the kept
    points alone fill the GPU (``kept >= threads / 2``: one pass, a thread per column)
    or the array is small (< 2^20 elements: one launch beats two)."""
    if kept * 2 >= threads or rows * kept < CUDA_COLUMN_SPLIT_MIN:
        return None
    want = max(2, threads // kept)
    best = None
    for parts in range(2, rows // min_fold + 1):
        if rows % parts == 0 and (best is None or abs(parts - want) < abs(best - want)):
            best = parts
        if parts > 2 * want:
            break
    # (rows with no divisor near the aim, a prime count say: ``cuda_ragged_parts``)
    return None if best is None or best * 4 < min(want, rows // min_fold) else best


def cuda_ragged_parts(rows, kept, threads=CUDA_RESIDENT_THREADS, most=4096):
    """Partials for a reduction over ``rows`` with no divisor near the aim (a prime
    count, say) of ``kept`` points each, on a GPU: a full reduction (``kept == 1``)
    takes ``CUDA_SPLIT_ROWS`` rows, a column reduction about ``threads / kept``
    partials but at most ``most`` (the last ``rows % parts`` rows are a separate
    one-pass reduction: fewer parts keep it short). None where one pass is enough: the
    kept points fill the GPU, the array is small (full: ``split_reduce_min``; columns:
    < 2^20 elements) or splits evenly; and for a size symbol, whose large bindings the
    runtime compiles for their sizes (``devices/cuda_specialize.py``): a ragged split
    would cost small bindings three launches and their CUDA graphs."""
    if not isinstance(rows, int):
        return None
    if kept == 1:
        parts = CUDA_SPLIT_ROWS
        if rows < CUDA.split_reduce_min or cuda_row_split(rows) is not None:
            return None
    else:
        if kept * 2 >= threads:
            return None
        parts = max(2, min(threads // kept, most))
        if rows * kept < CUDA_COLUMN_SPLIT_MIN or cuda_column_split(rows, kept) is not None:
            return None
    return None if rows < 2 * parts else parts


#: A split full reduction on CUDA aims at this many row partials (an H100/H200 has 132
#: SMs: ~8 blocks of 256 threads each) ...
CUDA_SPLIT_ROWS = 1024
#: ... of at least this many elements (4 per thread of a 256-thread block).
CUDA_SPLIT_MIN_ROW = 1024

# On a GPU, memory traffic dominates: a transcendental costs about as much as a load.
_CUDA_OP_COST = dict.fromkeys(TRANSCENDENTAL_OPS, 1.0)
_CUDA_OP_COST.update(dict.fromkeys(("div", "rem", "sqrt", "rsqrt"), 0.5))
_CUDA_OP_COST["take"] = 1.0    # an uncoalesced load

#: The CUDA backend: kernels rendered by ``lower/c`` (cuda dialect) and compiled by
#: NVRTC; float32/float64 dots on cuBLAS (through CuPy), whose alpha/beta epilogue the
#: runtime applies. Per-row values broadcast along trailing axes count as computed once
#: per row (``hoists_trailing_broadcasts``): row kernels compute them once per row
#: (``lower/c/rows.py``), vectorized pointwise kernels once per 16-byte chunk, and where
#: they are recomputed per point that costs less on a GPU than the extra kernel that
#: materializing them needs (layernorm fwd+bwd: 3 kernels instead of 11).
CUDA = TargetInfo(
    name="cuda",
    kernel_dtypes=GPU_KERNEL_DTYPES,
    gemm_dtypes=frozenset((np.dtype(np.float32), np.dtype(np.float64))),   # cuBLAS
    gemm_alpha_beta=True,
    op_cost=types.MappingProxyType(_CUDA_OP_COST),
    cheap_cost=0.25,
    f64_cost=2.0,        # (an H100/H200 runs float64 at half the float32 rate)
    hoists_trailing_broadcasts=True,
    split_reduce_min=1 << 16,
    split_reduce=cuda_row_split,
    split_columns=cuda_column_split,
    ragged_parts=cuda_ragged_parts,
    inline_split_reshapes=True,
    merge_same_producer=True,
)


def _no_split(n):
    return None


#: The HLS backend (``devices/hls.py``, FPGA dataflow designs): every kernel dtype; no
#: gemm library on an FPGA, so dots are reduce kernels (pipelined, interleaved
#: partials); a full reduction is one pipelined pass (splitting it into rows buys
#: nothing on a single pipeline). Op costs are the CPU's (remat decisions only; the
#: FPGA resource model is ``tjit/fpga/estimate.py``).
HLS = TargetInfo(
    name="hls",
    kernel_dtypes=hlo.KERNEL_DTYPES,
    gemm_dtypes=frozenset(),
    gemm_alpha_beta=False,
    op_cost=types.MappingProxyType(_CPU_OP_COST),
    cheap_cost=0.25,
    f64_cost=2.0,
    hoists_trailing_broadcasts=False,
    split_reduce_min=None,
    split_reduce=_no_split,
    dot_kernels=True,
    concurrent_kernels=True,    # (a run of kernels is one dataflow design)
)
