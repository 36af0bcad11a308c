"""The compiler's one entry: a closed jaxpr in, a fused :class:`~tjit.xla_like.plan.Program`
out.

Every backend that runs fused kernels calls :func:`compile_program` and then renders and
launches the program's steps its own way; none repeats lowering, simplification,
fusion or buffer planning (JAX autodidax's shape: one compile function, then an
executor). The reference interpreter is the one backend that does not call it.

**Where first-compile time goes** (stages as ``tjit.compile_log`` reports them under
``TJIT_LOG=compiles``; CPU backend, measured on the shared 2-core machine under heavy
load, so absolute times are several times an idle machine's; ratios hold):

* Small programs are LLVM-bound. A fresh 10-op elementwise jit on 1,000 float32 values
  was 77 ms, nearly all O3 (38 ms) and instruction selection (39 ms) of one vectorized
  kernel with three inlined math polynomials. Small elementwise kernels now take the
  ``"scalar"`` compile profile (``lower/llvm/profile.py``: O1, codegen level 0, math
  functions linked from ``lower/llvm/mathlink.py``, compiled once per process): codegen
  ~1 ms, LLVM 20-50 ms under that load, 0.3x JAX's first call in one process. The
  price is scalar speed on at most 1,024 points (~20 us more per call there, see
  ``profile.SCALAR_MAX_POINTS``).
* Long programs were quadratic in Python and superlinear in LLVM. An ODE unrolled for
  N steps (5 ops each) fused into one kernel of 5N ops (N=100: 25 s in LLVM, from N=400
  a RecursionError); fusion's remat cost walk and its group merging scanned every group
  per group. Now kernels are split at ``fusion.MAX_KERNEL_NODES`` (and the equal
  chunks of an unrolled loop share one compiled kernel through the kernel cache), the
  cost walk stops once the decision is known, and group merges use an index of readers.
  At N=1000 (6,000 equations) the stages were: trace 0.83 s, jaxpr simplify 0.38 s,
  ``lower`` 0.58 s, ``hlo_simplify`` 0.62 s, ``fuse`` 0.83 s (fusion, kernel IR, step
  order), ``codegen`` 0.03 s, ``llvm`` 0.13 s; about 0.5 ms per equation from N=100 to
  N=10,000 (flat: linear), against JAX's 3.7-10 ms per equation on the same machine.
* Medium programs (an MLP training step) spend most of their time in LLVM's O3 on
  their few large vectorized kernels (kept: their runtime matters) and, once per
  process, in building the runtime's own GEMM and thread pool.

Not done: compiling a program's kernels in parallel threads. llvmlite releases the GIL,
but wraps every binding call in one process-wide lock (``llvmlite.binding.ffi``), so
threads would still run LLVM one at a time; it would take separate processes.
"""

import contextlib
import gc
import threading

from tjit import compile_log
from tjit.xla_like import program_cache, remat
from tjit.xla_like.lowering import lower_jaxpr
from tjit.xla_like.plan import build_program
from tjit.xla_like.simplify import simplify
from tjit.xla_like.target import CPU


def compile_program(closed_jaxpr, target=None, donated=()):
    """Lower, simplify, fuse and plan ``closed_jaxpr``.

    Args:
      closed_jaxpr: the traced program (shapes may hold size symbols).
      target: the backend's :class:`~tjit.xla_like.target.TargetInfo` (what it can do,
        what things cost); None: the CPU's.
      donated: flat input positions whose buffers outputs may reuse.

    Returns:
      The :class:`~tjit.xla_like.plan.Program` (steps, values, buffer slots, donation),
      from the persistent program cache when an entry for the same program, target and
      compiler exists (``program_cache``); its ``cache_key`` is that key, or None.
    """
    target = CPU if target is None else target
    budget = remat.current_budget()     # (jit(..., memory_budget=...), see remat.py)
    with compile_log.stage("program_cache"):
        key = program_cache.program_key(closed_jaxpr, target, donated, budget)
        program = program_cache.load(key)
    if program is None:
        with gc_paused():
            program = _fused_program(closed_jaxpr, target, donated, budget)
        with compile_log.stage("program_cache"):
            program_cache.store(key, program)
    elif compile_log.current() is not None:
        compile_log.current().notes.append("program from the disk cache")
    program.cache_key = key     # (backends key what they derive from the program on it)
    return program


def _fused_program(closed_jaxpr, target, donated, budget):
    with compile_log.stage("lower"):
        module = lower_jaxpr(closed_jaxpr, target=target)
    with compile_log.stage("hlo_simplify"):
        module = simplify(module, target)
    with compile_log.stage("fuse"):     # fusion, kernel IR, step order, buffers
        if budget is not None:
            return remat.plan_within_budget(module, budget, donated, target)
        return build_program(module, donated, target)


def size_symbols(closed_jaxpr):
    """The size symbols of the program's inputs, sorted by name: the order in which a
    backend binds them from the arguments' shapes."""
    symbols = set()
    for v in closed_jaxpr.jaxpr.invars:
        for d in v.aval.shape:
            if not isinstance(d, int):
                symbols |= d.free_symbols
    return sorted(symbols, key=lambda s: s.name)


_GC_LOCK = threading.Lock()
_GC_PAUSES = [0, False]     # active pauses, and whether the collector was on at the first


@contextlib.contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector for the block (nested and concurrent uses
    share one pause; the collector is restored when the last one ends).

    A compile allocates hundreds of thousands of small objects that all stay alive, and
    automatic collections keep walking them: measured on the jaxpr clean-up of an
    unrolled ODE, 4x the equations took 7x the time with the collector on and 4.3x with
    it paused. Garbage made meanwhile is collected after the block as usual.
    """
    with _GC_LOCK:
        if _GC_PAUSES[0] == 0:
            _GC_PAUSES[1] = gc.isenabled()
            gc.disable()
        _GC_PAUSES[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_PAUSES[0] -= 1
            if _GC_PAUSES[0] == 0 and _GC_PAUSES[1]:
                gc.enable()
