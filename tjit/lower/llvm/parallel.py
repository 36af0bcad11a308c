"""Compiling several LLVM modules at once, on threads: a program's independent kernels.

A cold first call is mostly LLVM's pipeline and code generation, one kernel after
another (a small CNN: ~30 kernels, 10-60 ms of CPU each). LLVM itself compiles modules
of different ``LLVMContext``\\ s on different threads safely (what parallel code
generation in LLVM's own tools does), and ctypes releases the GIL during a foreign call;
but llvmlite serialises every call into its library with one process-wide lock, so
threads calling llvmlite's methods take turns. Here the two long calls, the module pass
pipeline and object emission, are made through the ctypes functions under llvmlite's
wrappers (``_cfn``), on modules parsed into a context of their own and with a target
machine of their own: those calls run side by side, everything else (parsing, creating
pass builders, freeing) still goes through llvmlite's lock.

The object code is the same, byte for byte, as ``target.emit_object``'s (same IR, same
pipeline, same target machine settings; ``tests/lower/test_llvm_parallel.py``). Where
llvmlite has no such wrapped functions (another version) or one thread is all there is,
:func:`emit_objects` compiles one module after another with ``target.emit_object``.

Measured on the 2-core development machine (``benchmarks/bench_first_compile.py``): the
compiles of two threads overlapped fully in time (cnn_nhwc's kernels: 2.7 of 5.5 s of
compile time at load 12); what that gains in wall time is what idle cores there are.
"""

import concurrent.futures
import ctypes
import os
import threading

from tjit.lower.llvm import target
from tjit.lower.llvm.binding import llvm  # (imported on first use)

#: Most threads compiling at once (each holds an LLVM context and target machines).
MAX_THREADS = 8

_STATES = []                # idle per-thread LLVM states (context, target machines)
_STATES_LOCK = threading.Lock()


def _raw(name):
    """The ctypes function under llvmlite's locking wrapper, or None."""
    try:
        return getattr(getattr(llvm.ffi.lib, name), "_cfn", None)
    except AttributeError:
        return None


def _usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def threads_for(n_modules):
    """How many threads :func:`emit_objects` uses for ``n_modules`` modules."""
    if _raw("LLVMPY_RunNewModulePassManager") is None or \
            _raw("LLVMPY_TargetMachineEmitToMemory") is None:
        return 1
    return max(1, min(n_modules, _usable_cores(), MAX_THREADS))


class _State:
    """One compiling thread's LLVM objects: a context, target machines by codegen level."""

    def __init__(self):
        self.context = llvm.create_context()
        self.machines = {}

    def machine(self, opt):
        tm = self.machines.get(opt)
        if tm is None:
            tm = self.machines[opt] = target._host().target_machine(opt)
        return tm


def _take_state():
    with _STATES_LOCK:
        if _STATES:
            return _STATES.pop()
    return _State()


def _give_state(state):
    with _STATES_LOCK:
        _STATES.append(state)


def _after_fork_in_child():
    global _STATES_LOCK
    _STATES_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _emit(ir_text, profile):
    """``target.emit_object(ir_text, profile)``, with the long calls outside llvmlite's
    lock (see the module docs)."""
    h = target._host()
    state = _take_state()
    mod = None
    try:
        try:
            mod = llvm.parse_assembly(target.with_host_attributes(ir_text),
                                      context=state.context)
            mod.verify()
        except RuntimeError as e:
            raise ValueError(f"tjit LLVM target: the generated LLVM IR is invalid: {e}\n"
                             "This is a bug in the kernel renderer.") from None
        mod.triple = h.triple
        mod.data_layout = h.data_layout
        codegen_level = target.PROFILES[profile][2]
        # (the pipeline's target machine, as target.optimize's: the host's at opt 3)
        pb, mpm = target.pipeline(state.machine(3), profile)
        try:
            _raw("LLVMPY_RunNewModulePassManager")(mpm, mod, pb)
        finally:
            target._free_pass_manager(mpm)
        target._check_externals(mod)
        with llvm.ffi.OutputString() as err:
            buf = _raw("LLVMPY_TargetMachineEmitToMemory")(
                state.machine(codegen_level), mod, 1, err)
            if not buf:
                raise RuntimeError(str(err))
        try:
            return ctypes.string_at(llvm.ffi.lib.LLVMPY_GetBufferStart(buf),
                                    llvm.ffi.lib.LLVMPY_GetBufferSize(buf))
        finally:
            llvm.ffi.lib.LLVMPY_DisposeMemoryBuffer(buf)
    finally:
        # The module lives in the state's context: dispose of it before another thread
        # may take that context (left to garbage collection, it was disposed after the
        # hand-back, while the next owner ran passes in the context unlocked)
        if mod is not None:
            mod.close()
        _give_state(state)


def emit_objects(jobs, max_threads=None):
    """Object code for each ``(ir_text, profile)`` of ``jobs``, in order: what
    ``target.emit_object`` returns for each, compiled on up to ``threads_for(len(jobs))``
    threads at once (and at most ``max_threads``: the runtime's thread setting)."""
    jobs = list(jobs)
    n = threads_for(len(jobs))
    if max_threads is not None:
        n = min(n, max_threads)
    if n <= 1:
        return [target.emit_object(ir_text, profile) for ir_text, profile in jobs]
    with concurrent.futures.ThreadPoolExecutor(n, thread_name_prefix="tjit-llvm") as pool:
        return list(pool.map(lambda job: _emit(*job), jobs))


def emit_object(ir_text, profile="vector"):
    """``target.emit_object(ir_text, profile)``'s bytes, its long calls made outside
    llvmlite's lock where threads can compile at once (a runtime helper built on one
    thread then overlaps the kernels compiled on others)."""
    if threads_for(2) < 2:
        return target.emit_object(ir_text, profile)
    return _emit(ir_text, profile)
