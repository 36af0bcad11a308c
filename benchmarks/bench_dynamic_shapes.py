"""Automatic dynamic shapes: a plain ``jit`` MLP forward called at 20 batch sizes.

    python benchmarks/bench_dynamic_shapes.py [--sizes 20] [--width 512] [--repeat 5]

Prints tjit's traces and compiles over the sizes, the median time of the first call at
each new size after the second against the median call at a size already seen (the
issue's target: within 1.2x; paired per size, in wall-clock and in process CPU
time, which a loaded machine disturbs less, and in the calling thread's CPU time, which
leaves out the thread pool's spinning workers; ``--repeat`` runs of it with a fresh jit
at unseen sizes give the spread), the same with a new runner made for each
size instead of an idle one re-bound (``cpu.KEPT_RUNNERS`` unbounded: the runtime
before re-binding, in the same process), the same with ``dynamic_shapes=False`` (a
compile per size, as JAX), and, when JAX is installed (e.g. /work/jaxvenv), JAX's first
call per new size and its recompile time (first call minus a seen-size call); then the
cost of checking a dynamic program's guards for a new size (``Family.lookup``: its
binding and every guard, per function whose code asks about its sizes). Not a test.

Where a new size's time went (this MLP, 400 fresh sizes, calling thread's CPU on this
2-core machine under a load of ~7; before -> after the in-place re-binding): the
re-bind of an idle runner ~300 -> ~180 us (building the steps' closures, gemm plans
~14 -> ~4 us each warm, shapes and slot views from per-dim templates, the dot-grouping
pass: now binders that rewrite the closures' state, one generated size function,
plans built directly); jit's own lookup of a signature it has not cached (pytree
flattening, the family's pattern and guards, the cache insert) ~70 us, now a
generated match of the leaves against the family's programs (``dynamic_shapes.Route``):
jit's part of a call up to its program's run (``bench_jit_part``, load ~16) ~86 -> ~39
us at a new size, ~27 us at a seen one; the first run at the size ~25 us (first touch
of new pages and tables). With warm caches the same
re-bind costs ~28 us: most of what remains in situ is the cache misses of Python code
that runs once per size.

In situ spans (``--spans-only``; 90 fresh sizes, load ~1.2, seen call 1.2-2.4 ms on
this noisy machine): a new size costs ~200-300 us more, ~120-150 us of it taking the
runner (its re-bind: ~45 us of sizes/slots, ~75 us of binders, three gemm re-plans ~8 us
each; cold, where the same re-bind warm takes ~28 us), ~12-25 us the first dot after
it: the re-bind outlasts the pool workers' spin (``threads.WORKER_SPIN_S``, 50 us), so
they are asleep and the first parallel step pays their futex wake (a blocking wake of
them right after the re-bind moves ~25 us from that dot to itself: no gain), and ~10-15
us over the other steps.
Garbage collection is not it (a gen-0 collection in 3 of 90 new calls, none in seen ones).

Since then the re-bind is one generated function per program structure
(``devices/rebind_code.py``: straight-line code writing every size, slot offset, view,
kernel sizes array, split, address and launch extent, the dots' binders given their
shapes), and the runner's ``size_values`` are made only where a fallback asks for them:
re-bind warm ~17 -> ~12 us, in situ (calling thread's CPU, load 8-11, old and new code
alternating in separate processes) ~134-139 -> ~108 us (this bench's re-bind span, wall,
load 10-11: ~121-125 -> ~85-91 us). Of what remains ~55 us are the
three gemm re-plans, the first ~40 us of it running ``blas._plan`` and ``set_plan``
cold; the rest (sizes, arena, views, kernels) ~50 us. The pool's workers are woken
before the re-bind without waiting (``threads.ThreadPool.prewake``: they spin
``PREWAKE_SPIN_S`` for the first parallel step instead of sleeping), where the runner's
last binding used them: a parallel call after 120 us of caller work took ~45 us
asleep, ~33 us pre-woken (load ~4); in the MLP at load 8-14 the difference is within
the noise (``bench_prewake`` alternates it per size). The bench's ratios at load 8-11,
old / new code alternating (medians of runs): wall 1.16-1.20x / 1.15-1.21x, CPU
1.11-1.12x / 1.09-1.13x, calling thread 1.11-1.13x / 1.10-1.14x: within the noise at
that load, each run's best 1.02-1.15x, its worst up to 1.57x (the machine's other
jobs). Part of a new size's extra is the benchmark's own:
each size's input is first read cold from memory, where the seen calls' is in cache.
"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import tjit
import tjit.numpy as tnp
from tjit import api
from tjit.devices import cpu
from tjit.devices import runner as program_runner

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # JAX is optional
    jax = None


def make_mlp(np_):
    def mlp(params, x):
        for w, b in params[:-1]:
            x = np_.tanh(x @ w + b)
        w, b = params[-1]
        return x @ w + b
    return mlp


def make_params(width, d_in=256, d_out=10, seed=0):
    rng = np.random.default_rng(seed)
    dims = [d_in, width, width, d_out]
    return [(rng.standard_normal((a, b)).astype(np.float32) / np.sqrt(a),
             np.zeros(b, np.float32)) for a, b in zip(dims[:-1], dims[1:])]


def _timed(call, x):
    """(wall seconds, CPU seconds of the process: all threads, CPU seconds of the calling
    thread: the Python work a new size adds, without the pool's spinning workers) of
    one call."""
    w, c, t = time.perf_counter(), time.process_time(), time.thread_time()
    call(x)
    return time.perf_counter() - w, time.process_time() - c, time.thread_time() - t


def first_and_seen(call, xs, repeat=7):
    """Per size: the first call's (wall, cpu) seconds, and the median (wall, cpu) of
    ``repeat`` calls at that size once seen. Paired per size, so that the ratio does not
    depend on which sizes are large, and robust to a loaded machine (CPU time)."""
    first, seen = [], []
    for x in xs:
        first.append(_timed(call, x))
        again = [_timed(call, x) for _ in range(repeat)]
        seen.append(tuple(statistics.median(a[k] for a in again) for k in range(3)))
    return first, seen


def ratios(first, seen):
    """Medians over the sizes after the second of first/seen: (wall, CPU, thread CPU)."""
    return tuple(statistics.median(f[k] / s[k] for f, s in zip(first[2:], seen[2:]))
                 for k in range(3))


def bench_tjit(params, xs, dynamic):
    f = tjit.jit(make_mlp(tnp), dynamic_shapes=dynamic)
    p = [(tnp.asarray(w), tnp.asarray(b)) for w, b in params]
    txs = [tnp.asarray(x) for x in xs]
    first, seen = first_and_seen(lambda x: f(p, x).block_until_ready(), txs)
    return f, first, seen


def bench_jax(params, xs):
    f = jax.jit(make_mlp(jnp))
    p = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params]
    jxs = [jnp.asarray(x) for x in xs]
    return first_and_seen(lambda x: f(p, x).block_until_ready(), jxs)


def report_new_sizes(first, seen, n):
    wall, cpu_ratio, thread = ratios(first, seen)
    new = statistics.median(f[0] for f in first[2:])
    at_seen = statistics.median(s[0] for s in seen[2:])
    print(f"  sizes 3..{n}: first call at a new size {ms(new)}, at a seen size "
          f"{ms(at_seen)} (medians); per-size ratio new/seen: wall {wall:4.2f}x, "
          f"CPU {cpu_ratio:4.2f}x, calling thread's CPU {thread:4.2f}x (target <= 1.2x)")
    extra = statistics.median(f[1] - s[1] for f, s in zip(first[2:], seen[2:]))
    extra_thread = statistics.median(f[2] - s[2] for f, s in zip(first[2:], seen[2:]))
    big = statistics.median(f[1] / s[1] for f, s in zip(first[-5:], seen[-5:]))
    print(f"  a new size costs {ms(extra)} of CPU more than a seen one ({ms(extra_thread)}"
          f" on the calling thread: binding its runner, sizes, launch tables and BLAS "
          f"plans); CPU ratio at the 5 largest batches {big:4.2f}x")
    return wall, cpu_ratio, thread


# functions whose Python code asks about a size: (name, function, guards it records)
def _guarded_functions():
    return [
        ("no question", lambda x: x * 2.0),
        ("n % 2 == 0", lambda x: x * 2.0 if x.shape[0] % 2 == 0 else x),
        ("n > 5", lambda x: x * 2.0 if x.shape[0] > 5 else x),
        ("x[: n // 2] * y", lambda x: x[: x.shape[0] // 2] * x[x.shape[0] // 2:]),
        ("min(n, 8), n >= 4, n // 2 != 3",
         lambda x: x[: min(x.shape[0], 8)] if x.shape[0] >= 4 and x.shape[0] // 2 != 3
         else x),
    ]


def bench_guard_check(repeat=20000):
    """Median time of matching a new size against a family's dynamic programs (what a
    call at a size missing from the exact-shape cache pays before running): through
    ``Family.lookup`` (the full path's) and through the jit's ``Route`` (the tjit Array
    leaves' dtypes and shapes checked too)."""
    print("guard check for a new size (Family.lookup: binding + guards), per call:")
    for name, fn in _guarded_functions():
        f = tjit.jit(fn)
        for n in (10, 12, 14):
            f(np.ones((n, 3), np.float32))
        (fam,) = f._families.values()
        n_guards = sum(len(p.guards) for p, _ in fam.programs)
        shapes = [(16, 3)]
        assert fam.lookup(shapes) is not None
        leaves = [tnp.zeros(shapes[0])]
        assert f._route.match(leaves, tjit.tracing.core.Array)[0] is fam.lookup(shapes)
        times = [], []
        for _ in range(7):
            t = time.perf_counter()
            for _ in range(repeat):
                fam.lookup(shapes)
            times[0].append((time.perf_counter() - t) / repeat)
            t = time.perf_counter()
            for _ in range(repeat):
                f._route.match(leaves, tjit.tracing.core.Array)
            times[1].append((time.perf_counter() - t) / repeat)
        print(f"  {name:32s} {len(fam.programs)} program(s), {n_guards} guard(s): "
              f"{statistics.median(times[0]) * 1e6:6.2f} us; generated match of the "
              f"leaves (Route, what a call runs) {statistics.median(times[1]) * 1e6:6.2f} us")


def bench_new_size_spans(params, shifts=5, repeat=7, d_in=256):
    """Where a new size's extra time goes, in situ: the bench's sizes (shifted by a row
    per pass, none seen before), each called once new and ``repeat`` times seen, with
    perf_counter_ns spans around taking the executable's runner (its re-bind to the new
    size, ``cpu._Runner.rebind``, inside) and around each of the program's steps; the
    medians of the new calls against the seen ones. (Timing wrappers only: the calls
    run as they would.)"""
    f = tjit.jit(make_mlp(tnp))
    p = [(tnp.asarray(w), tnp.asarray(b)) for w, b in params]
    rng = np.random.default_rng(3)
    base = rng.standard_normal((_batches(20, shifts)[-1], d_in)).astype(np.float32)
    for b in (16, 40):
        f(p, tnp.asarray(base[:b])).block_until_ready()
    spans, kind = {}, ["new"]

    def note(name, ns):
        spans.setdefault((kind[0], name), []).append(ns)

    def timed(name, fn):
        def call(*a):
            t = time.perf_counter_ns()
            out = fn(*a)
            note(name, time.perf_counter_ns() - t)
            return out
        return call

    take, rebind, run = cpu.CpuExecutable._take, cpu._Runner.rebind, \
        program_runner.ProgramRunner.run

    def run_timed(self, flat_args, donated=()):
        steps = self.steps
        self.steps = [timed(f"step {k} ({type(s).__name__})", r)
                      for k, (s, r) in enumerate(zip(self.prog.steps, steps))] \
            if len(steps) == len(self.prog.steps) else [timed(f"step {k}", r)
                                                         for k, r in enumerate(steps)]
        try:
            return run(self, flat_args, donated)
        finally:
            self.steps = steps
    cpu.CpuExecutable._take = timed("take a runner", take)
    cpu._Runner.rebind = timed("  of which re-bind", rebind)
    program_runner.ProgramRunner.run = run_timed
    try:
        for shift in range(1, shifts + 1):
            for b in _batches(20, shift)[2:]:
                x = tnp.asarray(base[:b])
                for kind[0] in ("new",) + ("seen",) * repeat:
                    t = time.perf_counter_ns()
                    f(p, x).block_until_ready()
                    note("whole call", time.perf_counter_ns() - t)
    finally:
        cpu.CpuExecutable._take, cpu._Runner.rebind = take, rebind
        program_runner.ProgramRunner.run = run
    n_new = len(spans[("new", "whole call")])
    print(f"where a new size's time goes ({n_new} fresh sizes in situ, medians; "
          f"new - seen):")
    names = [name for k, name in spans if k == "new" and "re-bind" not in name]
    names.insert(1, "  of which re-bind")
    for name in names:
        new = statistics.median(spans[("new", name)]) / 1e3
        seen = statistics.median(spans.get(("seen", name), [0])) / 1e3
        print(f"  {name:28s} new {new:8.1f} us, seen {seen:8.1f} us: {new - seen:+7.1f} us")


def bench_prewake(params, shifts=10, d_in=256):
    """The pre-wake of the pool's workers before a re-bind (``threads.ThreadPool.prewake``)
    on and off, alternating per fresh size in one process: the median new-size call and
    its first step (the first parallel gemm, which pays the workers' wake-up when they
    fell asleep during the re-bind), in wall-clock and process CPU time."""
    from tjit.devices import threads
    f = tjit.jit(make_mlp(tnp))
    p = [(tnp.asarray(w), tnp.asarray(b)) for w, b in params]
    rng = np.random.default_rng(4)
    base = rng.standard_normal((_batches(20, shifts)[-1], d_in)).astype(np.float32)
    for b in (16, 40):
        f(p, tnp.asarray(base[:b])).block_until_ready()
    prewake, run = threads.ThreadPool.prewake, program_runner.ProgramRunner.run
    on, first_step = [True], []

    def maybe_prewake(self, *a, **k):
        if on[0]:
            prewake(self, *a, **k)

    def run_timed(self, flat_args, donated=()):
        steps = self.steps

        def step0(vals, step=steps[0]):
            t = time.perf_counter_ns()
            step(vals)
            first_step.append(time.perf_counter_ns() - t)
        self.steps = [step0] + list(steps[1:])
        try:
            return run(self, flat_args, donated)
        finally:
            self.steps = steps
    threads.ThreadPool.prewake = maybe_prewake
    program_runner.ProgramRunner.run = run_timed
    got = {True: [], False: []}
    try:
        for shift in range(1, shifts + 1):
            for k, b in enumerate(_batches(20, shift)[2:]):
                on[0] = (k + shift) % 2 == 0
                x = tnp.asarray(base[:b])
                w, c = time.perf_counter_ns(), time.process_time_ns()
                f(p, x).block_until_ready()
                got[on[0]].append((time.perf_counter_ns() - w, time.process_time_ns() - c,
                                   first_step[-1]))
                f(p, x).block_until_ready()     # (seen: the workers spin again after)
    finally:
        threads.ThreadPool.prewake = prewake
        program_runner.ProgramRunner.run = run
    print("pre-wake of the pool's workers before a re-bind, alternating per fresh size "
          "(medians):")
    for flag in (True, False):
        wall, cpu_ns, step = (statistics.median(r[k] for r in got[flag]) / 1e3
                              for k in range(3))
        print(f"  pre-wake {'on ' if flag else 'off'}: new-size call {wall:8.1f} us wall, "
              f"{cpu_ns:8.1f} us process CPU; its first step (a gemm) {step:7.1f} us")


def bench_jit_part(params, n_sizes=300, d_in=256):
    """Median time of jit's own part of a call (from the call to the start of its
    program's run: pytree, signature, family, guards) at a size it has not cached and
    at a seen one, over ``n_sizes`` fresh sizes of the MLP, each new call followed by a
    seen one, so that both run in situ (after a gemm has cooled the caches)."""
    f = tjit.jit(make_mlp(tnp))
    p = [(tnp.asarray(w), tnp.asarray(b)) for w, b in params]
    rng = np.random.default_rng(2)
    base = rng.standard_normal((n_sizes + 60, d_in)).astype(np.float32)
    for b in (16, 40):
        f(p, tnp.asarray(base[:b])).block_until_ready()
    xs = [tnp.asarray(base[:b]) for b in range(41, 41 + n_sizes)]
    starts = []
    run = api.Jitted._run

    def marking(entry, raw, leaves):
        starts.append(time.perf_counter_ns())
        return run(entry, raw, leaves)
    api.Jitted._run = staticmethod(marking)     # (timing only: the run is the same)
    new, seen = [], []
    try:
        for x in xs:
            for out in (new, seen):
                t = time.perf_counter_ns()
                f(p, x).block_until_ready()
                out.append(starts[-1] - t)
    finally:
        api.Jitted._run = staticmethod(run)
    print(f"jit's part of a call (to its program's run), {n_sizes} fresh sizes in situ: "
          f"new size {statistics.median(new) / 1e3:6.1f} us, seen size "
          f"{statistics.median(seen) / 1e3:6.1f} us (medians; {f.trace_count} traces)")


def ms(s):
    return f"{s * 1e3:8.2f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, default=20)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs of the dynamic-shapes measurement (fresh jit, new sizes)")
    ap.add_argument("--warm-disk-cache", action="store_true",
                    help="keep TJIT_CACHE_DIR (default: a fresh one, so that compiles are "
                         "real compiles, as JAX's without a persistent cache)")
    ap.add_argument("--guards-only", action="store_true",
                    help="only the guard check for a new size")
    ap.add_argument("--spans-only", action="store_true",
                    help="only where a new size's time goes (re-bind, each step) and the "
                         "pre-wake on and off")
    args = ap.parse_args()
    if args.guards_only:
        bench_guard_check()
        return
    if args.spans_only:
        bench_new_size_spans(make_params(args.width))
        bench_prewake(make_params(args.width))
        return
    if args.warm_disk_cache:
        run(args)
        bench_guard_check()
        return
    with tempfile.TemporaryDirectory(prefix="tjit-bench-cache-") as cache:
        os.environ["TJIT_CACHE_DIR"] = cache
        run(args)
        bench_guard_check()


def _batches(n, shift=0):
    return [16 + 24 * i + shift for i in range(n)]


def run(args):
    params = make_params(args.width)
    batches = _batches(args.sizes)
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((b, 256)).astype(np.float32) for b in batches]
    print(f"MLP 256-{args.width}-{args.width}-10 forward, batch sizes {batches[0]}.."
          f"{batches[-1]} ({len(batches)} sizes)")

    f, first, seen = bench_tjit(params, xs, dynamic=True)
    print(f"tjit (automatic dynamic shapes): {f.trace_count} traces, {f.compile_count} "
          f"compiles; first call {ms(first[0][0])}, second size {ms(first[1][0])}")
    runs = [report_new_sizes(first, seen, len(xs))]
    # again with a fresh jit, at sizes shifted by a row each time (none seen before:
    # gemm plans are kept per process by their shapes), for the spread on a busy machine
    for rep in range(1, args.repeat):
        shifted = [rng.standard_normal((b, 256)).astype(np.float32)
                   for b in _batches(args.sizes, rep)]
        _, first, seen = bench_tjit(params, shifted, dynamic=True)
        runs.append(ratios(first, seen))
    if len(runs) > 1:
        for k, what in enumerate(("wall", "CPU", "calling thread's CPU")):
            got = sorted(r[k] for r in runs)
            print(f"  {len(runs)} runs, ratio new/seen ({what}): best {got[0]:4.2f}x, "
                  f"median {statistics.median(got):4.2f}x, worst {got[-1]:4.2f}x")
    bench_jit_part(params)
    bench_new_size_spans(params)
    bench_prewake(params)
    kept = cpu.KEPT_RUNNERS
    cpu.KEPT_RUNNERS = 1 << 30      # a runner made for every size, none re-bound
    try:
        f, first, seen = bench_tjit(params, xs, dynamic=True)
    finally:
        cpu.KEPT_RUNNERS = kept
    print("tjit, a new runner made per size (none re-bound, as before re-binding):")
    report_new_sizes(first, seen, len(xs))

    f, first, seen = bench_tjit(params, xs, dynamic=False)
    new = statistics.median(f[0] for f in first[2:])
    at_seen = statistics.median(s[0] for s in seen[2:])
    print(f"tjit (dynamic_shapes=False): {f.trace_count} traces, {f.compile_count} compiles;"
          f" first call at a new size {ms(new)}, seen {ms(at_seen)}: "
          f"recompile {ms(new - at_seen)} per new size")

    if jax is None:
        print("jax: not installed")
        return
    first, seen = bench_jax(params, xs)
    new = statistics.median(f[0] for f in first[2:])
    at_seen = statistics.median(s[0] for s in seen[2:])
    print(f"jax {jax.__version__}: first call at a new size {ms(new)}, seen {ms(at_seen)}: "
          f"recompile {ms(new - at_seen)} per new size")


if __name__ == "__main__":
    main()
