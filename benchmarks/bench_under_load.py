"""Wall time against CPU time per call, with and without background load, tjit beside JAX.

    python benchmarks/bench_under_load.py [--busy 0,2] [--cases gru_scan,split_trig]
                                          [--rounds 3] [--calls 20] [--tjit-threads default,1]

For each number of busy processes (``--busy``: this script starts that many Python
busy loops, and stops them afterwards), each case runs ``--calls`` calls per round on
tjit (one column per ``--tjit-threads`` value of ``TJIT_NUM_THREADS``) and on JAX (when
installed), alternating over ``--rounds`` rounds in one process. Per call it prints the
medians of the wall time (``perf_counter``) and of the process's CPU time
(``process_time``: all its threads), and, from Linux's per-thread schedstat, where the
calling thread's wall time went besides its own CPU time: ``rq``, waiting in the run
queue for a CPU (the machine is busy), and ``blk``, blocked (asleep on a futex: waiting
for a worker's block, or, for JAX, for its executor thread).

Cases: bench_models' programs at ``--quick`` sizes (gru_scan, transformer, cnn_nhwc,
logreg_vmap, einsum_bmm) and two split kernels on 2^24 float32 elements: ``split_trig``
(sin(x) exp(-x^2) + cos(3x): ~40 ms of CPU here, split across the threads) and
``split_sumsq`` (a reduction). Each row shows the load average when it ended (other
jobs count). Not a test: nothing here asserts a time.

Measured on the 2-vCPU development VM (Linux 6.18, EEVDF scheduler, autogroups on;
load average 13-16 from other jobs), ms per call, wall / process CPU:

  case (quick)   busy  tjit          tjit, 1 thread   JAX            tjit main thread
  gru_scan       0     57.5 / 15.2   56.6 / 15.1      71.0 / 22.1    rq 41.4  blk 0.0
  transformer    0     62.6 / 16.1   55.8 / 15.5      48.0 / 19.3    rq 49.6  blk 0.0
  cnn_nhwc       0     13.9 / 5.5    16.4 / 4.8       27.2 / 6.3     rq 14.2  blk 0.0
  split_trig     0     154 / 39.1    161 / 39.7       1170 / 288     rq 138   blk 2.0
  gru_scan       2     160 / 15.4    169 / 15.5       102 / 20.0     rq 165   blk 0.0
  cnn_nhwc       2     49.6 / 6.3    43.7 / 5.8       10.7 / 6.7     rq 61.1  blk 0.0

Where tjit's wall time goes beyond its CPU time is the calling thread waiting in the run
queue (``rq``), not waiting for the pool (``blk`` is 0 for the programs; a 40 ms-CPU
split kernel waits 2-15 ms for a preempted worker's block at busy 2). One thread or
two makes no difference beyond noise. JAX's edge with busy loops in the same session
(gru 70-128 vs tjit 165-174 ms, separate processes) comes from its executor threads
working in short bursts between sleeps, which the scheduler serves ahead of CPU-bound
tasks of the same task group: a pure-Python test handing 50 us pieces between two
threads took 32 ms per 15 ms of CPU where one thread took 160 ms; with the load in
other sessions only, the hand-offs were slower (84 vs 60 ms).
"""

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_models  # (the programs; it also points TJIT_CACHE_DIR at a fresh folder)

BUSY_LOOP = "while True: pass"
SPLIT_N = 1 << 24


class _Case:
    def __init__(self, name, program, args):
        self.name, self.program, self.args = name, program, args


def _split_cases():
    x = np.random.default_rng(0).standard_normal(SPLIT_N).astype(np.float32)

    def trig(L):
        return lambda x: L.jnp.sin(x) * L.jnp.exp(-x * x) + L.jnp.cos(x * 3.0)

    def sumsq(L):
        return lambda x: L.jnp.sum(x * x)

    return [_Case("split_trig", trig, (x,)), _Case("split_sumsq", sumsq, (x,))]


def all_cases():
    models = {c.name: c for c in bench_models.all_cases(quick=True)}
    picked = [models[n] for n in ("gru_scan", "transformer", "cnn_nhwc", "logreg_vmap",
                                  "einsum_bmm")]
    return picked + _split_cases()


def _main_thread_schedstat():
    """(ns on a CPU, ns runnable but waiting for one) of this thread, or None off Linux."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
            on_cpu, waiting = f.read().split()[:2]
        return int(on_cpu), int(waiting)
    except (OSError, ValueError):
        return None


def measure(call, calls):
    """Per call over ``calls`` calls (after one warm-up): median wall ms, median process
    CPU ms, and the calling thread's mean ms spent waiting for a CPU (run queue) and
    blocked (neither running nor runnable: waiting on another thread), from the
    kernel's per-thread schedstat (None where there is none)."""
    call()
    walls, cpus = [], []
    s0, w0 = _main_thread_schedstat(), time.perf_counter()
    for _ in range(calls):
        c0, t0 = time.process_time(), time.perf_counter()
        call()
        t1, c1 = time.perf_counter(), time.process_time()
        walls.append(t1 - t0)
        cpus.append(c1 - c0)
    s1, w1 = _main_thread_schedstat(), time.perf_counter()
    rq = blocked = None
    if s0 is not None and s1 is not None:
        rq = (s1[1] - s0[1]) / 1e6 / calls
        blocked = max(0.0, (w1 - w0) * 1e3 / calls - (s1[0] - s0[0]) / 1e6 / calls - rq)
    return statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3, rq, blocked


def start_busy(k):
    return [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(k)]


def stop_busy(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


class _Threads:
    """tjit with ``TJIT_NUM_THREADS`` set to ``n`` while it traces, compiles and runs."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.old = os.environ.get("TJIT_NUM_THREADS")
        if self.n is not None:
            os.environ["TJIT_NUM_THREADS"] = str(self.n)

    def __exit__(self, *exc):
        if self.old is None:
            os.environ.pop("TJIT_NUM_THREADS", None)
        else:
            os.environ["TJIT_NUM_THREADS"] = self.old


def _with_threads(n, call):
    def run():
        with _Threads(n):
            return call()
    return run


def prepared_calls(case, libs):
    """{column name: call}: each tjit thread-count variant and JAX, compiled."""
    calls = {}
    for name, lib, nthreads in libs:
        with _Threads(nthreads):
            fn = lib.jit(case.program(lib))
            args = lib.put(case.args)
        call = (lambda fn=fn, args=args, lib=lib: lib.block(fn(*args)))
        calls[name] = call if lib is not bench_models.TJIT else _with_threads(nthreads, call)
        calls[name]()    # compile now, outside the timed rounds
    return calls


def _median(col):
    vals = [v for v in col if v is not None]
    return statistics.median(vals) if vals else None


def _fmt(v, width):
    return f"{v:{width}.2f}" if v is not None else f"{'-':>{width}}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--busy", default="0,2,4", help="busy-loop process counts to run under")
    ap.add_argument("--cases", default="", help="comma-separated case names (default all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--tjit-threads", default="default",
                    help="tjit columns: comma-separated TJIT_NUM_THREADS values "
                         "('default': as set in the environment)")
    args = ap.parse_args()
    cases = all_cases()
    if args.cases:
        wanted = args.cases.split(",")
        cases = [c for c in cases if c.name in wanted]
        if len(cases) != len(wanted):
            sys.exit(f"unknown case in {wanted}; known: {[c.name for c in all_cases()]}")
    libs = [("tjit" if t == "default" else f"tjit{t}", bench_models.TJIT,
             None if t == "default" else int(t)) for t in args.tjit_threads.split(",")]
    if bench_models.JAX:
        libs.append(("jax", bench_models.JAX, None))
    prepared = {c.name: prepared_calls(c, libs) for c in cases}
    print(f"cpus {os.cpu_count()}, affinity {len(os.sched_getaffinity(0))}; "
          f"TJIT_NUM_THREADS={os.environ.get('TJIT_NUM_THREADS', '')!r}")
    print(f"{'case':13} {'busy':>4} {'load':>5} " +
          " ".join(f"{name + ' wall':>10} {name + ' cpu':>9} {'w/c':>5} {'rq':>6} {'blk':>5}"
                   for name, _, _ in libs))
    for busy in (int(b) for b in args.busy.split(",")):
        procs = start_busy(busy)
        try:
            time.sleep(0.5 if busy else 0.0)
            for case in cases:
                res = {name: [] for name, _, _ in libs}
                for _ in range(args.rounds):  # alternate: the machine's speed drifts
                    for name, _, _ in libs:
                        time.sleep(0.05)   # let the other library's spinning threads sleep
                        res[name].append(measure(prepared[case.name][name], args.calls))
                line = f"{case.name:13} {busy:4d} {os.getloadavg()[0]:5.1f} "
                for name, _, _ in libs:
                    w, c, rq, blk = (_median(col) for col in zip(*res[name]))
                    line += f"{w:10.2f} {c:9.2f} {w / max(c, 1e-9):5.2f} {_fmt(rq, 6)} " \
                            f"{_fmt(blk, 5)} "
                print(line, flush=True)
        finally:
            stop_busy(procs)
    print("(ms per call, medians; w/c = wall / process CPU time; rq / blk: the calling "
          "thread's mean ms waiting for a CPU / blocked on other threads)")


if __name__ == "__main__":
    main()
