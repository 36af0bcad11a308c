"""``tjit.profiler``: JAX's profiling API, writing a timeline you can open in Perfetto.

    with tjit.profiler.trace("/tmp/tjit-trace", create_perfetto_trace=True):
        for step in range(10):
            with tjit.profiler.StepTraceAnnotation("train", step_num=step):
                params = update(params, batch)

While a trace runs, tjit records spans of: every jitted call (``jit(update)``), every
trace and compile (with the cause and per-stage times from ``compile_log``), and the
user's ``TraceAnnotation``/``StepTraceAnnotation``/``annotate_function`` blocks, per
thread. ``stop_trace`` writes them as Chrome trace-event JSON (gzip) to
``log_dir/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.trace.json.gz`` (the layout
TensorBoard's profile plugin lists), and with ``create_perfetto_trace=True`` also
``perfetto_trace.json.gz`` beside it, which https://ui.perfetto.dev opens.

Differences from JAX: the timeline holds tjit's host-side spans, not XLA's device
events (JAX writes an ``.xplane.pb``); ``create_perfetto_link=True`` writes the
Perfetto file and prints how to open it rather than serving it; device memory
profiles and the profiler server are not provided.
"""

import contextlib
import datetime
import functools
import gzip
import json
import os
import socket
import threading
import time

from tjit import compile_log
from tjit._namespace import publish as _publish
from tjit.config import config

_LOCK = threading.Lock()
_SESSION = None


class _Session:
    def __init__(self, log_dir, perfetto_trace, perfetto_link):
        self.log_dir = os.fspath(log_dir)
        self.perfetto = perfetto_trace or perfetto_link
        self.link = perfetto_link
        self.t0 = time.perf_counter()
        self.events = []
        self.threads = {}

    def add(self, name, start, end, args=None, category="tjit"):
        tid = threading.get_ident()
        event = {"name": name, "cat": category, "ph": "X", "pid": os.getpid(),
                 "tid": tid, "ts": (start - self.t0) * 1e6,
                 "dur": max(end - start, 0.0) * 1e6}
        if args:
            event["args"] = {k: _jsonable(v) for k, v in args.items()}
        with _LOCK:
            self.events.append(event)
            self.threads.setdefault(tid, threading.current_thread().name)

    def write(self):
        pid = os.getpid()
        meta = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": "tjit"}}]
        meta += [{"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                  "args": {"name": name}} for tid, name in self.threads.items()]
        doc = {"traceEvents": meta + sorted(self.events, key=lambda e: e["ts"]),
               "displayTimeUnit": "ms"}
        run = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S")
        folder = os.path.join(self.log_dir, "plugins", "profile", run)
        os.makedirs(folder, exist_ok=True)
        paths = [os.path.join(folder, f"{socket.gethostname()}.trace.json.gz")]
        if self.perfetto:
            paths.append(os.path.join(folder, "perfetto_trace.json.gz"))
        data = json.dumps(doc).encode()
        for path in paths:
            with gzip.open(path, "wb") as f:
                f.write(data)
        if self.link:
            print(f"tjit.profiler: open https://ui.perfetto.dev and load {paths[-1]}")
        return paths


def _jsonable(v):
    return v if isinstance(v, (bool, int, float, str)) or v is None else str(v)


def _record_compile(rec):
    s = _SESSION
    if s is not None and rec.t1 is not None:
        what = "+".join(rec.what) or "trace"
        args = {"cause": rec.cause, **{f"{k} (ms)": round(v * 1e3, 3)
                                        for k, v in rec.stages.items()}}
        s.add(f"{what} {rec.fun_name}", rec.t0, rec.t1, args, category="compile")


def start_trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False,
                profiler_options=None):
    """Start recording a timeline, written under ``log_dir`` by :func:`stop_trace`.

    >>> import tempfile, tjit, tjit.numpy as jnp
    >>> tjit.profiler.start_trace(tempfile.mkdtemp())
    >>> _ = tjit.jit(lambda x: x + 1)(jnp.ones(3))
    >>> len(tjit.profiler.stop_trace()) >= 1     # the files written
    True
    """
    global _SESSION
    with _LOCK:
        if _SESSION is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be "
                               "run at a time.")
        _SESSION = _Session(log_dir, create_perfetto_trace, create_perfetto_link)
    compile_log.add_sink(_record_compile)
    config.set_profiling(True)


def stop_trace():
    """Stop the running trace and write it; returns the paths of the files written.

    >>> import tjit
    >>> try:
    ...     tjit.profiler.stop_trace()
    ... except RuntimeError as e:
    ...     print(e)
    No profile started
    """
    global _SESSION
    with _LOCK:
        session, _SESSION = _SESSION, None
    if session is None:
        raise RuntimeError("No profile started")
    config.set_profiling(False)
    compile_log.remove_sink(_record_compile)
    return session.write()


@contextlib.contextmanager
def trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False,
          profiler_options=None):
    """Record a timeline of the block (:func:`start_trace` ... :func:`stop_trace`).

    >>> import tempfile, tjit, tjit.numpy as jnp
    >>> with tjit.profiler.trace(tempfile.mkdtemp(), create_perfetto_trace=True):
    ...     _ = tjit.jit(lambda x: x * 2)(jnp.ones(3))
    """
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


def record_call(name, fn, *args):
    """``fn(*args)``, recorded as a span ``name`` when a trace is running (the jit hook
    calls this)."""
    s = _SESSION
    if s is None:
        return fn(*args)
    t0 = time.perf_counter()
    try:
        return fn(*args)
    finally:
        s.add(name, t0, time.perf_counter())


class TraceAnnotation:
    """A named span in the timeline, with ``kwargs`` as its arguments (as JAX's).

    >>> import tjit
    >>> with tjit.profiler.TraceAnnotation("load batch", size=128):
    ...     pass
    """

    def __init__(self, name, **kwargs):
        self.name, self.kwargs = name, kwargs
        self._t0 = None

    def __enter__(self):
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        s = _SESSION
        if s is not None and self._t0 is not None:
            s.add(self.name, self._t0, time.perf_counter(), self.kwargs, "annotation")
        return False


class StepTraceAnnotation(TraceAnnotation):
    """A training step's span (``step_num=`` names the step), as JAX's.

    >>> import tjit
    >>> with tjit.profiler.StepTraceAnnotation("train", step_num=3):
    ...     pass
    """

    def __init__(self, name, **kwargs):
        super().__init__(name, **kwargs)
        if "step_num" in kwargs:
            self.name = f"{name} {kwargs['step_num']}"


def annotate_function(func, name=None, **decorator_kwargs):
    """``func`` with each call recorded as a span (named ``name`` or its qualified
    name), as JAX's ``annotate_function``.

    >>> import tjit
    >>> @tjit.profiler.annotate_function
    ... def step(x):
    ...     return x + 1
    >>> step(1)
    2
    """
    label = name or getattr(func, "__qualname__", getattr(func, "__name__", "function"))

    @functools.wraps(func)
    def annotated(*args, **kwargs):
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)
    return annotated


__all__ = ["StepTraceAnnotation", "TraceAnnotation", "annotate_function", "start_trace",
           "stop_trace", "trace"]

_publish(globals(), entry_points=False)
