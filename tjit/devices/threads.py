"""A parallel-for over compiled kernels, on persistent worker threads.

Compiled kernels have the C signature ``void f(void **args, int64_t *sizes, int64_t start,
int64_t end)`` and compute the index range ``[start, end)`` of their parallel axis.
``parallel_for(fn, args, sizes, n)`` splits ``[0, n)`` into contiguous chunks, one per
thread: the calling thread runs the first chunk itself, the pool's workers the others.
ctypes releases the GIL for the duration of a foreign call, so the chunks really run
at the same time.

Workers are created once and woken per call through one ``threading.Lock`` each (a
binary semaphore: release = wake), and report back through another, so a call costs
a few lock hand-offs instead of a ``ThreadPoolExecutor`` round trip (~59 us measured,
PERF_NOTES.md); see ``benchmarks/bench_threads.py`` for this machine's number.

Threads: ``TJIT_NUM_THREADS`` sets the default thread count (else ``os.cpu_count()``).
A pool serves one call at a time; a second Python thread calling while it is busy runs
its whole range serially on its own thread instead of waiting.

Interrupts: if anything raises while chunks are in flight (a KeyboardInterrupt, a
bad argument), the caller still waits for every chunk that started (they write into
buffers the caller may free), then retires the workers; fresh ones start on the next
call. So an interrupt can cost a thread restart, never a deadlock or a stale wake-up.
"""

import ctypes
import os
import threading

__all__ = ["KERNEL_FUNCTYPE", "ThreadPool", "as_kernel", "default_num_threads",
           "get_pool", "parallel_for"]

#: ctypes prototype of the kernel ABI.
KERNEL_FUNCTYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                   ctypes.c_int64)
_FN_CACHE = {}


def as_kernel(fn):
    """A ctypes callable for a kernel given as an address (int) or a ctypes function."""
    if isinstance(fn, int):
        k = _FN_CACHE.get(fn)
        if k is None:
            if fn == 0:
                raise ValueError("parallel_for: kernel address is 0 (NULL); pass the "
                                 "address returned by target.compile_ir")
            k = _FN_CACHE.setdefault(fn, KERNEL_FUNCTYPE(fn))
        return k
    if callable(fn):
        return fn
    raise TypeError(f"parallel_for: expected a kernel address (int) or a ctypes function, "
                    f"got {type(fn).__name__}")


def default_num_threads():
    """``$TJIT_NUM_THREADS`` if set, else ``os.cpu_count()``."""
    env = os.environ.get("TJIT_NUM_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            n = 0
        if n < 1:
            raise ValueError(f"TJIT_NUM_THREADS must be a positive integer, got {env!r}; "
                             "unset it to use one thread per CPU.")
        return n
    return os.cpu_count() or 1


def _split(n, chunks):
    """``chunks`` contiguous ranges covering ``[0, n)``, sizes differing by at most one."""
    q, r = divmod(n, chunks)
    bounds, start = [], 0
    for c in range(chunks):
        end = start + q + (c < r)
        bounds.append((start, end))
        start = end
    return bounds


class _Worker:
    """One persistent thread; ``wake`` and ``done`` are locks held while idle."""

    __slots__ = ("wake", "done", "job", "error", "stop", "thread")

    def __init__(self, name):
        self.wake = threading.Lock()
        self.done = threading.Lock()
        self.wake.acquire()
        self.done.acquire()
        self.job = None
        self.error = None
        self.stop = False
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stop:
            self.wake.acquire()
            job, self.job = self.job, None
            if job is not None:
                try:
                    job[0](*job[1:])
                except BaseException as e:  # reported to the caller, never lost
                    self.error = e
                self.done.release()


class ThreadPool:
    """``nthreads - 1`` persistent workers plus the calling thread.

    Args:
      nthreads: total threads a call may use (>= 1).
    """

    def __init__(self, nthreads):
        if not isinstance(nthreads, int) or nthreads < 1:
            raise ValueError(f"ThreadPool: nthreads must be a positive int, got {nthreads!r}")
        self.nthreads = nthreads
        self._workers = None             # started on first parallel call
        self._pid = None                 # workers belong to this process (fork check)
        self._busy = threading.Lock()

    def _start(self):
        self._workers = [_Worker(f"tjit-worker-{i}") for i in range(1, self.nthreads)]
        self._pid = os.getpid()
        return self._workers

    def parallel_for(self, fn, args, sizes, n, min_chunk=1):
        """Run ``fn(args, sizes, start, end)`` over contiguous chunks covering ``[0, n)``.

        Args:
          fn: kernel address (int) or ctypes function with the kernel ABI.
          args: ``void**`` argument array (ctypes array, c_void_p or int address).
          sizes: ``int64*`` size array (same forms, or None).
          n: length of the range; ``n <= 0`` calls nothing.
          min_chunk: do not make chunks smaller than this (small ranges use fewer
            threads; one chunk runs inline with no hand-off).
        """
        if n <= 0:
            return
        fn = as_kernel(fn)
        chunks = min(self.nthreads, max(1, n // max(1, min_chunk)))
        if chunks == 1 or not self._busy.acquire(blocking=False):
            fn(args, sizes, 0, n)        # one chunk, or the pool is busy: run here
            return
        try:
            self._run(fn, args, sizes, _split(n, chunks))
        finally:
            self._busy.release()

    def _run(self, fn, args, sizes, bounds):
        workers = self._workers if self._pid == os.getpid() else None
        workers = workers or self._start()
        used = workers[:len(bounds) - 1]
        try:
            for w, (s, e) in zip(used, bounds[1:]):
                w.job = (fn, args, sizes, s, e)
                w.wake.release()
            fn(args, sizes, *bounds[0])
            for w in used:
                w.done.acquire()
        except BaseException:
            self._retire()               # waits for every started chunk, see docstring
            raise
        errors = [w.error for w in used if w.error is not None]
        if errors:
            for w in used:
                w.error = None
            raise errors[0]

    def _retire(self):
        """Stop the workers after their current chunk and wait until they have exited."""
        workers, self._workers = self._workers or [], None
        for w in workers:
            w.stop = True
            try:
                w.wake.release()
            except RuntimeError:         # a wake-up is already pending: it will see stop
                pass
        pending = None
        for w in workers:
            while w.thread.is_alive():
                try:
                    w.thread.join()
                except BaseException as e:   # a second Ctrl-C: keep waiting, raise later
                    pending = pending or e
        if pending is not None:
            raise pending

    def close(self):
        """Stop the workers (a later call starts new ones)."""
        with self._busy:
            self._retire()


_POOLS = {}
_POOLS_LOCK = threading.Lock()


def get_pool(nthreads=None):
    """The process-wide pool with ``nthreads`` threads (default: default_num_threads())."""
    n = default_num_threads() if nthreads is None else nthreads
    pool = _POOLS.get(n)
    if pool is None:
        with _POOLS_LOCK:
            pool = _POOLS.get(n) or _POOLS.setdefault(n, ThreadPool(n))
    return pool


def parallel_for(fn, args, sizes, n, nthreads=None, min_chunk=1):
    """Run a compiled kernel over ``[0, n)`` split across threads.

    Args:
      fn: kernel address (int) or ctypes function, C signature
        ``void f(void **args, int64_t *sizes, int64_t start, int64_t end)``.
      args: ``void**`` argument array (ctypes array, c_void_p or int address).
      sizes: ``int64*`` size array (same forms, or None).
      n: the parallel axis' extent; ``n <= 0`` calls nothing.
      nthreads: threads to use (default: ``$TJIT_NUM_THREADS`` or the CPU count).
      min_chunk: smallest chunk worth a thread.
    """
    get_pool(nthreads).parallel_for(fn, args, sizes, n, min_chunk)


def _after_fork_in_child():
    # Worker threads do not survive fork: forget the pools (and locks a parent thread held).
    global _POOLS_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
