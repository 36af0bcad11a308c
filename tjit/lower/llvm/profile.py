"""How hard LLVM works on one kernel: its compile profile, decided from the kernel alone.

A kernel's first compile is mostly LLVM's O3 pipeline and instruction selection, and
most of that is the loop vectorizer's work on the inlined polynomial math functions
(measured on a 10-op elementwise kernel with sin, exp and tanh: O3 38 ms + codegen
39 ms vectorized, 14 + 7 ms scalar). Vector code only pays back on many points, so:

* ``"vector"``: O3 with loop/SLP vectorization, interleaving and unrolling, math
  functions inlined (``mathlib``), 512-bit vectors where the host has them. Kernels with
  symbolic sizes, any reduction, or more than ``SCALAR_MAX_POINTS`` points.
* ``"scalar"``: elementwise kernels over at most ``SCALAR_MAX_POINTS`` points (at most
  ~25 us of work unvectorized). O1 without vectorization, interleaving or
  unrolling, code generation at level 0 (fast instruction selection and register
  allocation: 1 ms instead of 12-25 ms), and the math functions called from the
  process-wide math library
  (``mathlink``: compiled once per process) instead of inlined and optimized again
  in every kernel.

A kernel of a loop body (``while``/``scan``/``while_transpose``, asked for with
``many_calls=True``) runs on every trip, so its compile cost is shared by many calls:
it always takes the ``"vector"`` profile (the 16x16 ``dW += g h^T`` of an RNN's
gradient loop, ``benchmarks/bench_while_grad.py``: ~560 ns a trip scalar, ~10 ns
vectorized with its inner loop kept rolled, see ``codegen._rolled_group``). The price
is LLVM time once per body kernel (that gradient's first call: LLVM 0.09 -> 0.16 s).

Neither choice changes a result bit: elementwise code carries no fast-math flags, so
vectorizing or not, inlining a math function or calling it, evaluates the same IEEE
operations on each element. Reductions, whose ``reassoc`` accumulation order depends on
the vectorizer, always take the vector profile.
"""

from tjit.lower.llvm import codegen_ops as ops
from tjit.xla_like import kernel_ir as K

#: Largest iteration space (points) of an elementwise kernel compiled with the
#: ``"scalar"`` profile. The trade measured on a 10-op kernel with sin, exp and tanh:
#: scalar code costs ~22 ns a point against ~3 ns vectorized (1,000 points: 30 us a call
#: instead of 8; 4,096: 100 instead of 12.5), and saves 40-60 ms of LLVM time once; at
#: 1,024 points a call pays ~20 us more, so the compile saving lasts ~2,000 calls.
SCALAR_MAX_POINTS = 1024

MATH_OPS = K.TRANSCENDENTAL_OPS


def compile_profile(k, many_calls=False):
    """``"scalar"`` or ``"vector"`` for kernel ``k`` (see the module docs);
    ``many_calls``: the kernel belongs to a loop body (runs once per trip)."""
    if many_calls or k.reduce_axes or k.stages or not all(isinstance(d, int) for d in k.shape):
        return "vector"
    n = 1
    for d in k.shape:
        n *= d
    return "scalar" if n <= SCALAR_MAX_POINTS else "vector"


def math_symbol(name, dtype_name):
    """The process-wide symbol of math function ``name`` on ``float32``/``float64``."""
    return f"tjit_math_{name}_{'f64' if dtype_name == 'float64' else 'f32'}"


def linked_math(k, profile=None):
    """The math-library symbols kernel ``k``'s code calls (none in the vector profile),
    sorted: what must be loaded before its object code links. ``profile``: the one it is
    built with (default ``compile_profile(k)``)."""
    if (profile or compile_profile(k)) != "scalar":
        return ()
    out = set()
    for n in K.all_nodes(k):
        if isinstance(n, K.Op) and n.op in MATH_OPS and n.args:
            dt = ops.wide(n.args[0].dtype)   # (a float8 computes in float32)
            if dt.kind == "f":     # (codegen_ops.emit_op calls mathlib for floats only)
                out.add(math_symbol(n.op, dt.name))
    return tuple(sorted(out))
