"""Racing first calls of a jitted function: one trace and one compile per signature.

Threads that call with a signature being compiled wait for that compile and share its
result or its error; other signatures compile meanwhile. Synchronisation is by events;
the timeouts only turn a regression (a deadlock, a missing wait) into a failure.
"""

import threading

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import api
from tjit.devices import kernel_cache

N_THREADS = 8
TIMEOUT = 60


def _run_threads(target, n):
    results, errors = [None] * n, [None] * n
    start = threading.Barrier(n)

    def work(i):
        start.wait(TIMEOUT)
        try:
            results[i] = target()
        except BaseException as e:  # noqa: BLE001  (checked by the test)
            errors[i] = e

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    return threads, results, errors


def _join(threads):
    for t in threads:
        t.join(TIMEOUT)
        assert not t.is_alive(), "a thread is stuck (deadlock?)"


@pytest.fixture
def waiters(monkeypatch):
    """A semaphore released each time a thread starts waiting for another's compile."""
    arrived = threading.Semaphore(0)
    original = api._Pending.result

    def result(self):
        arrived.release()
        return original(self)

    monkeypatch.setattr(api._Pending, "result", result)
    return arrived


def _wait_for(sem, n):
    for _ in range(n):
        assert sem.acquire(timeout=TIMEOUT), "threads did not wait for the first compile"


def _compiles():
    return kernel_cache.STATS["compiled"] + kernel_cache.STATS["disk_hits"]


def test_racing_first_calls_trace_and_compile_once(waiters):
    traces, go = [], threading.Event()
    c = float(np.float32(3.0 + np.random.default_rng().integers(1 << 20) / 1024))

    @tjit.jit
    def f(x):
        traces.append(1)     # a Python side effect: runs once per trace
        go.wait(TIMEOUT)     # the first trace waits until every other thread waits
        return x * c + 1.0

    x = jnp.arange(16, dtype=jnp.float32)
    before = _compiles()
    threads, results, errors = _run_threads(lambda: f(x), N_THREADS)
    _wait_for(waiters, N_THREADS - 1)
    go.set()
    _join(threads)
    assert errors == [None] * N_THREADS
    for r in results:
        np.testing.assert_allclose(np.asarray(r), np.arange(16) * c + 1.0, rtol=1e-6)
    assert len(traces) == 1 and f.trace_count == 1
    assert _compiles() - before == 1     # one kernel, compiled (or loaded) once
    assert f._cache_size() == 1 and not f._pending


def test_distinct_signatures_compile_concurrently():
    a_tracing, a_go = threading.Event(), threading.Event()

    @tjit.jit
    def f(x):
        if x.shape == (3,):           # signature A: blocks inside its trace
            a_tracing.set()
            a_go.wait(TIMEOUT)
        return x * 2.0

    box = {}
    a = threading.Thread(target=lambda: box.setdefault("a", f(jnp.ones(3))))
    a.start()
    try:
        assert a_tracing.wait(TIMEOUT)
        # signature B traces, compiles and runs while A is still being traced
        b = threading.Thread(target=lambda: box.setdefault("b", f(jnp.ones(5))))
        b.start()
        b.join(TIMEOUT)
        assert not b.is_alive(), "signature B waited for signature A's compile"
        np.testing.assert_allclose(np.asarray(box["b"]), np.full(5, 2.0))
    finally:
        a_go.set()
        a.join(TIMEOUT)
    np.testing.assert_allclose(np.asarray(box["a"]), np.full(3, 2.0))
    assert f.trace_count == 2


def test_trace_error_reaches_every_waiting_thread_then_retries(waiters):
    go, fail = threading.Event(), [True]

    @tjit.jit
    def f(x):
        go.wait(TIMEOUT)
        if fail[0]:
            raise ValueError("trace failed on purpose")
        return x + 1.0

    threads, results, errors = _run_threads(lambda: f(jnp.ones(4)), N_THREADS)
    _wait_for(waiters, N_THREADS - 1)
    go.set()
    _join(threads)
    assert all(isinstance(e, ValueError) and "on purpose" in str(e) for e in errors), errors
    assert f.trace_count == 1 and f._cache_size() == 0 and not f._pending
    fail[0] = False                   # the error is not cached: the next call traces again
    np.testing.assert_allclose(np.asarray(f(jnp.ones(4))), np.full(4, 2.0))
    assert f.trace_count == 2
