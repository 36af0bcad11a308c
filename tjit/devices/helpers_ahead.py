"""The runtime helpers a new CPU program will call, built on a thread of their own while
its kernels compile.

With an empty disk cache a program's first call builds, after its kernels, the native
helpers it then calls: tjit's own sgemm (``blas``; ~90 ms of LLVM CPU) for its float32
products, the thread runtime (``threads``; ~4 ms) once a step is split across threads.
They do not depend on the kernels, and LLVM compiles modules on several threads at once
(``lower/llvm/parallel.py``), so :func:`start` builds the ones the program will want on a
thread beside the kernels' compile. Each is the process's one value of its ``Lazy``
(or lock-guarded global): a later use waits for it or finds it made, never builds a
second. A helper that fails here is left unbuilt; its first real use builds it again
and reports the failure as before. Library steps' compiled functions (top_k's row
selection, ~13 ms of LLVM) are foreseen too; several helpers build on threads of their
own, side by side (a top_k program's first call otherwise built its function, then the
thread runtime, one after the other).

Which helpers a program wants is foreseen from its plan (dot dtypes and extents, kernel
sizes), as the runtime will decide; a helper foreseen but then not called costs CPU
time once (it is kept in the disk cache), never a result.
"""

import math
import threading

import numpy as np

from tjit.devices import blas, cpu_top_k, threads
from tjit.lower.llvm import parallel
from tjit.lower.llvm.split import split_axis, work_per_point
from tjit.xla_like.plan import ControlStep, DotStep, KernelStep, LibraryStep


def start(program, parallel_min_work):
    """Start building the helpers ``program`` will call on a new thread (returned), or
    return None when it wants none not built yet or threads cannot compile at once. The
    caller joins the thread once its kernels are compiled, so none outlives the compile.
    ``parallel_min_work``: the work from which the runtime splits a kernel."""
    if parallel.threads_for(2) < 2 or threads.default_num_threads() < 2:
        return None     # (one core, or $TJIT_NUM_THREADS=1: no compile beside another)
    wanted = _wanted(program, parallel_min_work)
    if not wanted:
        return None
    t = threading.Thread(target=_build, args=(wanted,), name="tjit-helpers")
    t.start()
    return t


def _build(wanted):
    """Make every helper of ``wanted``, side by side on at most as many threads as LLVM
    may compile on at once and the runtime's thread setting allow (this one included):
    each thread takes the next helper not taken yet; return once all are made (or
    failed)."""
    n_threads = min(parallel.threads_for(len(wanted)), threads.default_num_threads())
    pending, lock = list(reversed(wanted)), threading.Lock()

    def work():
        while True:
            with lock:
                if not pending:
                    return
                make = pending.pop()
            _make(make)

    others = [threading.Thread(target=work, name="tjit-helpers")
              for _ in range(max(1, n_threads) - 1)]
    for t in others:
        t.start()
    work()
    for t in others:
        t.join()


def _make(make):
    try:
        make()
    except Exception:   # noqa: BLE001  (its first real use builds it and reports)
        pass


def _wanted(program, parallel_min_work):
    own = blas.own_sgemm_used() and not blas.own_sgemm_ready()
    split = threads.default_num_threads() > 1 and not threads.runtime_ready()
    own_wanted = split_wanted = False
    library = {}        # (library steps' functions, by what they build)
    for prog, step in _steps(program):
        if isinstance(step, LibraryStep) and not isinstance(step, ControlStep):
            ahead = _library_helper(prog, step)
            if ahead is not None:
                make, splits = ahead
                library.setdefault(make.args, make)
                split_wanted |= split and splits
        elif isinstance(step, DotStep) and (own or split):
            bmkn = _dot_extents(prog, step)
            if bmkn is not None:
                b, m, k, n = bmkn
                own_wanted |= own and _dtype(prog, step.outs[0]) == np.float32 and \
                    blas.own_tile_for(m, n)
                split_wanted |= split and b * m * k * n >= blas.PARALLEL_MIN_MACS
        elif isinstance(step, KernelStep) and split and not split_wanted:
            k = step.kernel
            ax = split_axis(k)
            if ax is not None and all(isinstance(d, int) for d in k.shape):
                split_wanted = k.shape[ax] >= 2 and \
                    math.prod(k.shape) * work_per_point(k) >= parallel_min_work
    out = [blas.prepare_own_sgemm] if own_wanted else []
    return out + ([threads.native_available] if split_wanted else []) + list(library.values())


def _library_helper(program, step):
    """``(make its compiled function, splits across threads)`` of a library step with a
    compiled CPU form not built yet, or None."""
    if not step.ins:
        return None
    x = program.values[step.ins[0]]
    if not all(isinstance(d, (int, np.integer)) for d in x.shape):
        return None
    ahead = cpu_top_k.foreseen(step, tuple(int(d) for d in x.shape), x.dtype,
                               threads.default_num_threads())
    if ahead is None or cpu_top_k.built(ahead[0].args[0]):
        return None
    return ahead


def _steps(program):
    """``(program, step)`` for every step of ``program`` and its bodies."""
    for s in program.steps:
        yield program, s
        if isinstance(s, ControlStep):
            for body in s.bodies:
                yield from _steps(body)


def _dtype(program, v):
    return np.dtype(program.values[v].dtype)


def _dot_extents(program, step):
    """``(B, M, K, N)`` of a dot step as ints, or None (symbolic sizes)."""
    lhs, rhs = (program.values[v] for v in step.ins[:2])
    bmkn = step.gemm_spec(lhs.shape, rhs.shape).bmkn
    if not all(isinstance(d, (int, np.integer)) for d in bmkn):
        return None
    return tuple(int(d) for d in bmkn)
