"""tjit.devices.threads: parallel-for correctness, chunking, concurrency, interrupts."""

import ctypes
import gc
import multiprocessing as mp
import random
import sys
import threading
import time

import numpy as np
import pytest

from tjit.devices import cpu_budget, threads
from tjit.lower.llvm import target

# y[i] = y[i] + (x[i] * 3 - 1) over [start, end): read-modify-write, so an index covered
# twice (or never) shows up in the result.
ACCUMULATE_IR = """
define void @tjit_test_threads_acc(ptr noalias %args, ptr noalias %sizes, i64 %start, i64 %end) {
entry:
  %x = load ptr, ptr %args
  %yp = getelementptr inbounds ptr, ptr %args, i64 1
  %y = load ptr, ptr %yp
  %nonempty = icmp slt i64 %start, %end
  br i1 %nonempty, label %loop, label %done
loop:
  %i = phi i64 [ %start, %entry ], [ %i1, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %v = load float, ptr %px
  %a = fmul float %v, 3.0
  %b = fsub float %a, 1.0
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %old = load float, ptr %py
  %new = fadd float %old, %b
  store float %new, ptr %py
  %i1 = add nuw nsw i64 %i, 1
  %more = icmp slt i64 %i1, %end
  br i1 %more, label %loop, label %done
done:
  ret void
}
"""

MODES = [pytest.param(True, id="native"), pytest.param(False, id="python")]


@pytest.fixture(scope="module")
def kernel():
    return target.compile_ir(ACCUMULATE_IR, ["tjit_test_threads_acc"])["tjit_test_threads_acc"]


def make_pool(native, nthreads):
    if native and not threads.native_available():
        pytest.skip("no native thread runtime on this platform")
    return threads.ThreadPool(nthreads, native=native)


def buffers(n, seed=0):
    x = np.random.default_rng(seed).integers(-100, 100, n).astype(np.float32)
    y = np.zeros(n, np.float32)
    return x, y, (ctypes.c_void_p * 2)(x.ctypes.data, y.ctypes.data)


@pytest.mark.parametrize("native", MODES)
@pytest.mark.parametrize("nthreads", [1, 2, 3, 5])
def test_parallel_equals_serial_and_numpy(kernel, native, nthreads):
    pool = make_pool(native, nthreads)
    for n in [0, 1, 2, 3, 4, 5, 6, 7, 1000, 100_003]:
        x, y, argv = buffers(n, seed=n)
        pool.parallel_for(kernel, argv, None, n)
        _, y_serial, argv_serial = buffers(n, seed=n)
        threads.KERNEL_FUNCTYPE(kernel)(argv_serial, None, 0, n)
        np.testing.assert_array_equal(y, y_serial, err_msg=f"n={n}")
        np.testing.assert_array_equal(y, x * np.float32(3) - 1, err_msg=f"n={n}")
    pool.close()


def recording_kernel(log):
    """A ctypes callback kernel that records (thread, start, end) of every chunk."""
    main = threading.main_thread().ident

    def body(args, sizes, start, end):
        # the caller dawdles, so every worker has taken its chunk before the caller
        # would take unstarted chunks back (see the take-back test)
        time.sleep(0.02 if threading.get_ident() == main else 0.001)
        log.append((threading.get_ident(), start, end))
    return threads.KERNEL_FUNCTYPE(body)


@pytest.mark.parametrize("native", MODES)
@pytest.mark.parametrize("n,nthreads,min_chunk,used", [
    (10, 3, 1, 3), (2, 4, 1, 2), (1, 4, 1, 1), (17, 4, 1, 4), (17, 4, 8, 2), (5, 4, 8, 1),
    (100, 2, 1, 2),
])
def test_blocks_partition_the_range(native, n, nthreads, min_chunk, used):
    """python: one contiguous chunk per thread. native: BLOCKS_PER_THREAD balanced blocks
    per thread (at least min_chunk long), taken dynamically by all threads."""
    pool = make_pool(native, nthreads)
    log = []
    fn = recording_kernel(log)
    pool.parallel_for(fn, None, None, n, min_chunk=min_chunk)
    ranges = sorted((s, e) for _, s, e in log)
    nblocks = min(used * threads.BLOCKS_PER_THREAD, max(1, n // min_chunk)) if native else used
    assert ranges == threads._split(n, nblocks)   # balanced, contiguous, covers [0, n)
    assert min(e - s for s, e in ranges) >= min(n, min_chunk)
    idents = {t for t, _, _ in log}
    if native:
        assert len(idents) == min(used, 2) or len(idents) >= 2   # the work was shared
    else:
        assert threading.get_ident() in idents and len(idents) == used
    pool.close()


@pytest.mark.parametrize("native", MODES)
def test_many_calls_with_sleeps_and_spins(kernel, native):
    """Alternate back-to-back calls (spinning hand-off) with pauses (futex sleep path)."""
    pool = make_pool(native, 2)
    x, y, argv = buffers(4096)
    rnd = random.Random(0)
    calls = 300

    def loop():
        for _ in range(calls):
            pool.parallel_for(kernel, argv, None, x.size)
            if rnd.random() < 0.3:
                time.sleep(rnd.choice([0.0002, 0.001]))

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    t.join(timeout=60)
    assert not t.is_alive(), "parallel_for hung (lost wake-up?)"
    np.testing.assert_array_equal(y, calls * (x * np.float32(3) - 1))
    pool.close()


@pytest.mark.parametrize("native", MODES)
def test_two_python_threads_share_a_pool(kernel, native):
    pool = make_pool(native, 2)
    bufs = [buffers(10_000, seed=s) for s in range(2)]
    calls = 150

    def caller(argv):
        for _ in range(calls):
            pool.parallel_for(kernel, argv, None, 10_000)

    ts = [threading.Thread(target=caller, args=(b[2],), daemon=True) for b in bufs]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in ts)
    for x, y, _ in bufs:
        np.testing.assert_allclose(y, calls * (x.astype(np.float64) * 3 - 1), rtol=1e-6)
    pool.close()


def test_interrupt_waits_for_running_chunks_then_recovers(kernel):
    """Python path: Ctrl-C in the caller's chunk must not return while a worker still
    writes, nor leave a stale wake-up for the next call."""
    pool = threads.ThreadPool(2, native=False)
    x, y, argv = buffers(1000)

    class Interrupted(threads.KERNEL_FUNCTYPE):
        _flags_ = threads.KERNEL_FUNCTYPE._flags_
        _argtypes_ = threads.KERNEL_FUNCTYPE._argtypes_
        _restype_ = None

        def __call__(self, args, sizes, start, end):
            if threading.current_thread() is threading.main_thread():
                raise KeyboardInterrupt
            time.sleep(0.05)                    # the worker is still busy when it raises
            return super().__call__(args, sizes, start, end)

    pool.parallel_for(kernel, None, None, 0)
    pool.parallel_for(kernel, *buffers(10)[2:], None, 10)   # start the workers
    old = [w.thread for w in pool._workers]
    with pytest.raises(KeyboardInterrupt):
        pool.parallel_for(Interrupted(kernel), argv, None, 1000)
    # the worker's chunk [500, 1000) finished before the interrupt propagated
    np.testing.assert_array_equal(y[500:], x[500:] * np.float32(3) - 1)
    assert (y[:500] == 0).all()
    assert not any(t.is_alive() for t in old)              # retired, not leaked
    x2, y2, argv2 = buffers(1000, seed=1)
    pool.parallel_for(kernel, argv2, None, 1000)  # fresh workers, correct result
    np.testing.assert_array_equal(y2, x2 * np.float32(3) - 1)
    pool.close()


@pytest.mark.parametrize("native", MODES)
def test_bad_arguments_raise_and_pool_survives(kernel, native):
    pool = make_pool(native, 2)
    with pytest.raises(TypeError, match="parallel_for: expected a kernel address"):
        pool.parallel_for("kernel", None, None, 10)
    with pytest.raises(ValueError, match="kernel address is 0"):
        pool.parallel_for(0, None, None, 10)
    with pytest.raises(TypeError, match="parallel_for: bad kernel arguments"):
        pool.parallel_for(kernel, [1, 2], None, 10)
    x, y, argv = buffers(100)
    pool.parallel_for(kernel, argv, None, 100)
    np.testing.assert_array_equal(y, x * np.float32(3) - 1)
    pool.close()


def test_idle_workers_sleep(kernel):
    if not threads.native_available():
        pytest.skip("no native thread runtime on this platform")
    pool = threads.ThreadPool(2, native=True)
    _, _, argv = buffers(100)
    pool.parallel_for(kernel, argv, None, 100)
    time.sleep(0.05)                            # past the spin window
    c0 = time.process_time()
    time.sleep(0.3)
    assert time.process_time() - c0 < 0.05      # a spinning worker would burn ~0.3 s
    pool.close()


def test_num_threads_env(monkeypatch):
    monkeypatch.setenv("TJIT_NUM_THREADS", "3")
    assert threads.default_num_threads() == 3
    assert threads.get_pool().nthreads == 3
    monkeypatch.setenv("TJIT_NUM_THREADS", "zero")
    with pytest.raises(ValueError, match="TJIT_NUM_THREADS must be a positive integer"):
        threads.default_num_threads()
    monkeypatch.delenv("TJIT_NUM_THREADS")
    assert threads.default_num_threads() >= 1
    with pytest.raises(ValueError, match="nthreads must be a positive int"):
        threads.ThreadPool(0)


def _child(kernel, q):
    x, y, argv = buffers(5000)
    threads.parallel_for(kernel, argv, None, 5000, nthreads=2)
    q.put(bool((y == x * np.float32(3) - 1).all()))


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method is Linux's")
def test_works_after_fork(kernel):
    _, _, argv = buffers(5000)
    threads.parallel_for(kernel, argv, None, 5000, nthreads=2)  # parent's workers exist
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(kernel, q))
    p.start()
    assert q.get(timeout=30) is True
    p.join(timeout=30)
    assert p.exitcode == 0


def test_native_caller_never_waits_for_a_worker_that_has_not_started():
    """Invited workers that do not wake up (asleep, descheduled; here: not started) cost
    nothing: the caller takes every block itself, and the late workers find no work of
    the finished call when they do wake."""
    if not threads.native_available():
        pytest.skip("no native thread runtime on this platform")
    pool = threads.ThreadPool(3, native=True)
    pool._start(launch=False)                   # workers exist but are not running yet
    log = []
    fn = recording_kernel(log)
    me = threading.get_ident()
    pool.parallel_for(fn, None, None, 9)        # 9 blocks: min(3 threads * 4, 9)
    assert sorted((s, e) for _, s, e in log) == threads._split(9, 9)
    assert {t for t, _, _ in log} == {me}       # every block ran on the caller
    log.clear()
    for t in pool._workers:                     # the late workers wake up now
        t.start()
    time.sleep(0.05)
    assert log == []                            # ... and run nothing of the old call
    pool.parallel_for(fn, None, None, 9)
    assert sorted((s, e) for _, s, e in log) == threads._split(9, 9)
    assert len({t for t, _, _ in log}) >= 2     # the workers take part again
    pool.close()


def test_native_worker_that_starts_after_stop_exits():
    if not threads.native_available():
        pytest.skip("no native thread runtime on this platform")
    pool = threads.ThreadPool(3, native=True)
    pool._start(launch=False)
    for addr in pool._slot_addrs:               # stop requested before the threads run
        threads._RUNTIME.stop(addr)
    for t in pool._workers:
        t.start()
    for t in pool._workers:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in pool._workers)


@pytest.mark.parametrize("native", MODES)
def test_dropped_pool_stops_its_workers(kernel, native):
    pool = make_pool(native, 3)
    _, _, argv = buffers(1000)
    pool.parallel_for(kernel, argv, None, 1000)
    workers = [getattr(w, "thread", w) for w in pool._workers]
    del pool
    gc.collect()
    for t in workers:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in workers)


def test_prewake_then_call_and_back_to_sleep(kernel):
    """A pre-wake (``ThreadPool.prewake``) asks the workers to spin for a call expected
    soon: the call's results are unchanged and the workers take part in it; a pre-wake
    with no call after it spins its while and then sleeps (no CPU when idle); a
    pre-wake before any call (no workers) or while the pool is busy does nothing."""
    if not threads.native_available():
        pytest.skip("no native thread runtime on this platform")
    pool = threads.ThreadPool(3, native=True)
    pool.prewake()                              # no workers yet: nothing to wake
    assert pool._workers is None
    log = []
    fn = recording_kernel(log)
    pool.parallel_for(fn, None, None, 12)
    for _ in range(3):
        time.sleep(0.01)                        # the workers are asleep by now
        pool.prewake(seconds=0.5)
        log.clear()
        pool.parallel_for(fn, None, None, 12)
        assert sorted((s, e) for _, s, e in log) == threads._split(12, 12)
    for n in [1, 7, 1000, 100_003]:              # results of a kernel after pre-wakes
        x, y, argv = buffers(n, seed=n)
        pool.prewake()
        pool.parallel_for(kernel, argv, None, n)
        np.testing.assert_array_equal(y, x * np.float32(3) - 1, err_msg=f"n={n}")
    with pool._busy:                            # another call holds the pool: no-op
        pool.prewake()
    pool.prewake(seconds=0.02)
    time.sleep(0.05)                            # past the pre-wake's spin
    c0 = time.process_time()
    time.sleep(0.3)
    assert time.process_time() - c0 < 0.05      # spinning workers would burn ~0.6 s
    pool.close()


def test_prewake_generation_never_matches_a_call():
    """Pre-wakes mark a worker's job word with bit 30, which the calls' counter (kept
    below 2^30) never has: a call after many pre-wakes and calls, across the counter's
    wrap, still reaches the workers."""
    if not threads.native_available():
        pytest.skip("no native thread runtime on this platform")
    pool = threads.ThreadPool(2, native=True)
    log = []
    fn = recording_kernel(log)
    pool.parallel_for(fn, None, None, 8)
    gen = ctypes.c_int32.from_address(pool._header + 64)
    gen.value = (1 << 30) - 3                   # the counter wraps within a few calls
    for _ in range(6):
        pool.prewake(seconds=0.05)
        log.clear()
        pool.parallel_for(fn, None, None, 8)
        assert sorted((s, e) for _, s, e in log) == threads._split(8, 8)
        assert 0 < gen.value < (1 << 30)        # (never 0, never bit 30 or 31)
    assert gen.value < 8                        # (it wrapped)
    pool.close()


def test_num_threads_env_is_read_at_every_call(monkeypatch):
    # parsed once per value, but a change of the variable counts at once
    for value, want in [("3", 3), ("1", 1), (" 4 ", 4), ("3", 3)]:
        monkeypatch.setenv("TJIT_NUM_THREADS", value)
        assert threads.default_num_threads() == want
        assert threads.default_num_threads() == want
    monkeypatch.delenv("TJIT_NUM_THREADS")
    assert threads.default_num_threads() == cpu_budget.available_cpus()
    monkeypatch.setenv("TJIT_NUM_THREADS", "-2")
    with pytest.raises(ValueError, match="TJIT_NUM_THREADS must be a positive integer"):
        threads.default_num_threads()
