"""Why a jitted function traced or compiled, and where the time went.

Every trace and compile of ``jit`` runs inside a :class:`Record` (``Jitted`` opens
one per event); the compiler's passes time themselves with ``stage``::

    from tjit import compile_log
    with compile_log.stage("fuse"):
        ...

Stage times add up per name in the record of the current thread (a stage run with no
record open costs two clock reads). Work handed to other threads takes the record
along: ``rec = compile_log.current()`` in the caller, ``with rec.stage("llvm")`` (or
``rec.add("llvm", seconds)``) in the worker; a record is safe to share between threads.

When ``TJIT_LOG=compiles`` is set, or ``tjit.config.update("log_compiles", True)``,
each record is logged at WARNING on the ``tjit.compiles`` logger (so it shows on
stderr with no logging set up, as ``jax_log_compiles`` does); otherwise at DEBUG, so
``logging.getLogger("tjit.compiles").setLevel(logging.DEBUG)`` shows them too. A
message names the function, what happened (``trace``, ``compile``, ``trace+compile``),
the cause ("first call", "new shape for arg x: (3, 4) → (5, 4), now dynamic in dim 0",
"static arg n changed", ...) and the time per stage in milliseconds.
"""

import contextlib
import contextvars
import logging
import threading
import time

from tjit.config import config

logger = logging.getLogger("tjit.compiles")

_CURRENT = contextvars.ContextVar("tjit_compile_record", default=None)


class Record:
    """One trace/compile event: the function, its cause and the seconds per stage."""

    def __init__(self, fun_name, cause):
        self.fun_name = fun_name
        self.cause = cause
        self.what = []            # e.g. ["trace", "compile"]
        self.notes = []           # extra facts (kernels from disk, ...)
        self.stages = {}          # stage name -> seconds (in order of first use)
        self.t0, self.t1 = time.perf_counter(), None   # (the profiler's timeline)
        self._lock = threading.Lock()

    def add(self, name, seconds):
        with self._lock:
            self.stages[name] = self.stages.get(name, 0.0) + seconds

    @contextlib.contextmanager
    def stage(self, name):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - t0)

    def message(self):
        what = "+".join(self.what) or "trace"
        times = ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in self.stages.items())
        total = sum(v for k, v in self.stages.items() if k in _TOP_STAGES)
        notes = "".join(f"; {n}" for n in self.notes)
        return (f"{what} of {self.fun_name} ({self.cause}){notes}: "
                f"{total * 1e3:.1f} ms [{times}]")


# Stages that do not nest in another (their sum is the event's time); the compiler's
# inner stages (fuse, codegen, llvm, ...) are parts of "compile".
_TOP_STAGES = ("trace", "simplify", "compile")


def enabled():
    """Whether trace/compile events are logged at WARNING (``log_compiles``, or JAX's
    ``explain_cache_misses``: tjit's records always say why they compiled)."""
    return config.log_compiles or config.explain_cache_misses


def current():
    """The record of the trace/compile running in this thread (context), or None."""
    return _CURRENT.get()


@contextlib.contextmanager
def stage(name):
    """Time the block as stage ``name`` of the current record (no-op without one)."""
    rec = _CURRENT.get()
    if rec is None:
        yield
        return
    with rec.stage(name):
        yield


@contextlib.contextmanager
def recording(fun_name, cause):
    """Open a :class:`Record` for the block (the current one inside it) and log it when
    the block ends, also when it raises (the message then says what failed)."""
    rec = Record(fun_name, cause)
    token = _CURRENT.set(rec)
    try:
        yield rec
    except BaseException as e:
        rec.notes.append(f"failed: {type(e).__name__}: {str(e)[:200]}")
        raise
    finally:
        _CURRENT.reset(token)
        rec.t1 = time.perf_counter()
        log(rec)
        for sink in _SINKS:
            sink(rec)


_SINKS = []   # callables given each finished record (tjit.profiler while it records)


def add_sink(sink):
    _SINKS.append(sink)


def remove_sink(sink):
    if sink in _SINKS:
        _SINKS.remove(sink)


def log(rec):
    level = logging.WARNING if enabled() else logging.DEBUG
    if logger.isEnabledFor(level):
        logger.log(level, "%s", rec.message())


def note(fun_name, message):
    """Log a one-line fact about ``fun_name`` that is not a trace or compile (e.g. a
    fallback decision), at the same level as the records."""
    level = logging.WARNING if enabled() else logging.DEBUG
    if logger.isEnabledFor(level):
        logger.log(level, "%s: %s", fun_name, message)
