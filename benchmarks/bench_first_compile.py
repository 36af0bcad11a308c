"""A new user's first call: cold compile in a fresh process, split into phases, beside JAX.

    python benchmarks/bench_first_compile.py [--cases cnn_nhwc,gru_scan|all] [--repeat 3]
        [--jax-python /path/to/python-with-jax] [--no-split]

Each bench_models program (imported from ``bench_models.py``, not copied) runs in its
own fresh subprocess per library and repeat: tjit with an empty ``TJIT_CACHE_DIR`` and
``TJIT_PROGRAM_CACHE=0`` (nothing cached on disk from earlier processes), JAX in
another subprocess (``--jax-python``: an interpreter that has JAX; default this one).
A child times its imports (the library's public modules), ``jit`` (making the jitted
function: tjit picks its default backend there), then the first call of the jitted
program (trace + compile + run, to the result being ready).

tjit's first call is split into wall-clock phases (no profiler): ``trace`` (tracing,
with grad/jvp/transpose done while tracing), ``simplify`` (jaxpr DCE/CSE/folding),
``lower`` (to the HLO-like graph and its clean-up), ``fuse`` (fusion, kernel IR, step
order, buffers) from ``tjit.compile_log``'s stages; ``render`` (kernel IR -> LLVM IR
text), ``llvm`` (parse, optimize, machine code of the program's kernels) and ``helpers``
(the runtime's own code: sgemm, thread runtime, loop driver, BLAS shims; compiled once
per process when the cache is empty) timed around those functions wherever they run
(a loop body's kernels are built when the program is first run); ``rest`` is the
first call's time minus all of these (running the program, building its executable,
Python glue). With the split on (default), one more child per case runs the first
call under cProfile and divides ``trace`` into tracing and transforms and ``fuse``
into fusion and planning by the profile's self time per package (the profiler's
overhead is not in the wall-clock numbers).

JAX's first call is split with ``jax.monitoring``'s compile events: ``trace`` (jaxpr
tracing, AD included), ``to_mlir`` (lowering), ``xla`` (XLA's backend compile);
``run`` is the rest.

Measured on the shared 2-core machine at load average 10-13 (so wall times are ~5x an
idle machine's; the process CPU time is the steadier figure), 2 processes per row, the
code before and after the short-loop unroll hint (``codegen.SHORT_LOOP_TRIPS``) and the
per-dtype BLAS shims, first call's CPU ms tjit / JAX (ratio):

  case         before                   after
  cnn_nhwc     1570 / 1010  1.55        1151 /  962  1.20   (LLVM CPU 1142-1150 -> 869-1046)
  cnn_nchw     1550 / 1201  1.29        1525 / 1282  1.19   (kernels unchanged by the hint)
  transformer  1548 / 1416  1.09        1535 / 1622  0.95
  gru_scan     1063 /  851  1.25        1100 / 1060  1.04

Where the rest goes: LLVM on the program's kernels is ~70-80% of a CNN's first call
(~25 ms of CPU a kernel, 33-38 kernels; 2.5 ms of it a fixed cost per module), and the
runtime's own sgemm compiled once per process with an empty cache (~0.45 s of CPU) is
most of the transformer's and the GRU's; tracing, transforms, lowering, fusion and
planning are 20-100 ms together. Import (tjit ~2x JAX's, a quarter of it sympy) is not in
the first call.

k-means (8192 x 32 points, 64 centers; load 4-6, 3 processes, CPU ms tjit / JAX): 8
program kernels (8 distinct: the two row sums of squares differ only in their row count,
8192 vs 64) plus the scatter routine, ~190 ms of LLVM CPU (12-38 ms each: a trivial
constant fill 14, the 32-long row sums 34-38, the argmin's two reductions 21); tracing,
transforms, lowering, fusion and planning ~6 ms together. The rest was the runtime's own
code: the own sgemm ~270 ms, the thread runtime ~50, the float32 BLAS shim ~30 (built
though no product called it), the argument helper ~12. Only building the BLAS shim when a
product uses it, the 'explicit' profile for the shim and the argument helper, and the
sgemm's B-panel transposes as one loop instead of four copies (IR 148 -> 88 KB, 270 ->
200 ms of CPU here; same bits, same speed) gave:

  case         before (cpu)             after (cpu)
  kmeans        585 / 203  2.89          510 / 232  2.20   (helpers 361 -> 261 ms CPU)
  cnn_nhwc     1058 / 950  1.11          991 / 910  1.09
  transformer  1040 / 1276 0.82          916 / 1255 0.73

Then three changes to the compile path. (1) Kernels that only fill or copy memory
(contiguous layout copies, constant fills, scalar broadcasts, strided copies of at most
16384 points such as a conv weight's transpose) run as NumPy copies
(``devices/cpu_fill_copy.py``): 10 of cnn_nhwc's 33 compiled kernels, 12 of cnn_nchw's 38,
k-means' fill; steady state unchanged (same program built both ways in one process,
alternating, load 12: numpy/compiled 0.94 cnn_nhwc, 0.94 cnn_nchw, 1.00 kmeans). (2) A
program's kernels compile on threads (``lower/llvm/parallel.py``: llvmlite serialises
every library call with one lock, so its methods gain nothing from threads; the pass
pipeline and object emission are called around that lock, one LLVM context and target
machines per thread; same object bytes). (3) The runtime helpers a program will call
(own sgemm, thread runtime) build on a thread of their own beside the kernels
(``devices/helpers_ahead.py``). With (2) and (3) the phases overlap: ``llvm`` and
``helpers`` are wall times that may sum to more than the first call (``rest`` then
negative); ``--compile-threads 1`` compiles one kernel at a time. Code before and after,
one case at a time, 3 processes each, load 12-14 (wall times there are mostly the
load's; CPU is the figure to compare), ms:

  case         before: 1st / cpu (LLVM CPU)   after: 1st / cpu (LLVM CPU)   JAX 1st / cpu
  kmeans       1393 /  470  (189)             1454 / 440  (170)              599 /  205
  cnn_nhwc     3898 / 1095  (861)             2626 / 815  (618)             2812 /  949
  cnn_nchw     4662 / 1423 (1150)             3857 / 1082 (875)             4175 / 1218

k-means' CPU is now mostly the own sgemm (~185 ms) and the thread runtime (~47 ms), which
overlap its kernels in wall time only where a core is free: fresh processes alternating
(load 10-13) took 3570-3975 ms before, 3192-3264 with (1)+(2), 2500-2642 with (3) too.
Not done: kernels that differ only in their row count still compile apart (k-means' two
row sums of squares, 8192 and 64 rows: their LLVM IR differs only in the clamp of the
``[start, end)`` range to the split axis's extent; sharing one build needs that extent
as a run-time argument and a check that nothing else in codegen reads it).

Then two one-time costs of a process's first program. (1) The runtime's hand-written
helpers (thread runtime, loop driver, call table, argument copier, BLAS shims, top_k)
compile with the ``light`` pipeline instead of O2/O3 (``target.PROFILES``: LLVM CPU 2-3x
less each, same speed). (2) ``jit``/``device_put`` no longer import the CUDA backend
to learn there is no GPU (``devices/cuda_probe.py``): 55-60 -> 2 ms of CPU, outside the
first call's timer (the ``jit`` column). ``--quick`` sizes, each case alone in a fresh
process, tjit's code before and after alternating, 3 processes each, load 8-12 (wall
times there are the load's), process CPU of the first call, ms:

  case         before   after          case         before   after
  cnn_nhwc       664     615           adam           327     289
  cnn_nchw       901     838           kmeans         286     267
  transformer    669     635           embed_grad      80      81
  gru_scan       400     374           top_k          115      78

top_k's first call is its two helpers (the row selection and the thread runtime, LLVM
CPU 28 + 34 ms before, 13 + 13 after) and llvmlite's import (~20 ms of an idle
machine); ``helpers_ahead`` now builds the two side by side (top_k alone in a fresh
process, 5 alternating at load 11: 489 -> 355 ms wall, CPU 83 / 87 ms). Where the rest of a CNN's first call goes: LLVM's O3 pipeline and code
generation for each kernel, 10-20 ms of CPU each at ~150 lines of optimised IR (the
per-module fixed cost is ~3 ms: one module of cnn_nhwc's 21 vector kernels took 350 ms
against 422 ms apart; codegen level 1-3 and O2 instead of O3 moved the total < 10%).
Kernels there often differ only in constant sizes (four of cnn_nhwc's 21 vector kernels
are one IR but for their extents and strides); building them once needs sizes as
run-time arguments.

Then the runtime's control helpers (thread runtime, argument filler, call table, BLAS
shims) compile with fast instruction selection (``target.PROFILES["control"]``: thread
runtime 13.7 -> 4.3 ms of LLVM CPU, same per-call times), its tick-rate calibration sleeps
instead of spinning, and a program without kernels (top_k) no longer imports the kernel
renderer. Each case in fresh processes with tjit's code before and after and JAX
alternating, 4 rounds, load 10-15, process CPU of the first call, ms (JAX beside):

  case          before   after    JAX
  top_k           71.3    57.0    32.7   (~13 of the rest: top_k's own function, LLVM)
  kmeans         262.6   235.0   180.5   (~60: the own sgemm, LLVM at codegen level 2)
  gru_scan       388.1   366.8   734.1
  transformer    650.4   618.8  1084.0

What top_k's first call still spends beside JAX's: llvmlite's import (~14 ms of CPU,
most of it loading its 180 MB library) and the row selection's LLVM compile (~13 ms,
spread over instruction selection, register allocation and loop passes; codegen level 0
compiles it in 4 ms but runs it 1.35x slower, so it stays at level 2).

Times are medians over ``--repeat`` processes (ms); ``cpu`` is the process CPU time of
the first call (all threads: XLA compiles on several; less swayed by other load than
wall time). The machine's load average is printed before and after. Not a test: nothing here asserts a time.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CASES = "cnn_nhwc,cnn_nchw,transformer,gru_scan"
JAX_EVENTS = {"/jax/core/compile/jaxpr_trace_duration": "trace",
              "/jax/core/compile/jaxpr_to_mlir_module_duration": "to_mlir",
              "/jax/core/compile/backend_compile_duration": "xla"}
# cProfile self time per package -> (stage it belongs to, finer phase)
PROFILE_PHASES = (("tjit/transforms/", "transforms"), ("tjit/xla_like/fusion", "fusion"),
                  ("tjit/xla_like/kernel_ir", "fusion"), ("tjit/xla_like/", "planning"))


# ------------------------------------------------------------------------------ children

def _case(name):
    """(bench_models, its case ``name``), or every case where ``name`` is None."""
    sys.path.insert(0, HERE)
    import bench_models
    if name is None:
        return bench_models.all_cases(False)
    cases = {c.name: c for c in bench_models.all_cases(False)}
    if name not in cases:
        sys.exit(f"unknown case {name!r}; known: {sorted(cases)}")
    return bench_models, cases[name]


def _timed(module, attr, totals, key, depth=None):
    """Wrap ``module.attr`` so that its wall time adds to ``totals[key]`` (outermost
    calls only: a nested call is inside the outer one's time; ``depth``: a counter shared
    with other wrappers of the same key)."""
    inner = getattr(module, attr)
    depth = [0] if depth is None else depth

    def wrapper(*args, **kwargs):
        depth[0] += 1
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                totals[key] = totals.get(key, 0.0) + time.perf_counter() - t0
    setattr(module, attr, wrapper)


def child_tjit(name, profile):
    sys.modules["jax"] = None     # bench_models' optional JAX import: not in this process
    t0 = time.perf_counter()
    import tjit
    import tjit.lax
    import tjit.nn
    import tjit.numpy
    import tjit.ops  # noqa: F401  (the public modules a program uses)
    imported = time.perf_counter() - t0
    from tjit import compile_log
    from tjit.devices import disk_cache
    from tjit.lower.llvm import codegen, parallel, target
    timed = {}      # LLVM time inside helpers is counted as helpers, not llvm (below)
    compiles = _record_compiles(target, disk_cache, parallel)
    if os.environ.get("BENCH_COMPILE_THREADS"):     # (--compile-threads)
        parallel.MAX_THREADS = int(os.environ["BENCH_COMPILE_THREADS"])
    llvm_depth = [0]    # (a batch of kernels compiled on threads, or one at a time)
    _timed(target, "emit_object", timed, "llvm_all", llvm_depth)
    _timed(parallel, "emit_objects", timed, "llvm_all", llvm_depth)
    _timed(disk_cache, "load_or_compile", timed, "helpers")
    _timed(codegen, "kernel_to_llvm_ir", timed, "render")
    bm, case = _case(name)
    records = []
    compile_log.add_sink(records.append)
    lib = bm.TJIT
    t0 = time.perf_counter()
    fn = lib.jit(case.program(lib))
    jit_s = time.perf_counter() - t0
    args = lib.put(case.args)
    helpers_llvm = _helpers_llvm_time(target, disk_cache)
    before, n_before = dict(timed), len(compiles)
    prof = None
    if profile:
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    t0, c0 = time.perf_counter(), time.process_time()
    lib.block(fn(*args))
    first, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    stages = {}
    for rec in records:
        for k, v in rec.stages.items():
            stages[k] = stages.get(k, 0.0) + v
    spent = {k: v - before.get(k, 0.0) for k, v in timed.items()}
    compiles = compiles[n_before:]
    out = {"import": imported, "jit": jit_s, "first": first, "first_cpu": first_cpu,
           "notes": [n for r in records for n in r.notes], "compiles": compiles,
           "phases": {"trace": stages.get("trace", 0.0), "simplify": stages.get("simplify", 0.0),
                      "lower": stages.get("lower", 0.0) + stages.get("hlo_simplify", 0.0),
                      "fuse": stages.get("fuse", 0.0), "render": spent.get("render", 0.0),
                      "llvm": spent.get("llvm_all", 0.0) - helpers_llvm[0],
                      "helpers": spent.get("helpers", 0.0)}}
    if prof is not None:
        prof.disable()
        out["profile"] = _profile_split(prof)
    return out


def _record_compiles(target, disk_cache, parallel):
    """A list that collects each LLVM compile as [CPU s of its thread, IR chars, first
    symbol, "helper" or profile]: which kernels (and runtime helpers) the first call's
    LLVM time goes to, whether compiled one at a time (``target.emit_object``) or on
    threads (``parallel._emit``). Installed first, so the other timers wrap it."""
    out = []
    in_helper = threading.local()   # (helpers may build on a thread beside the kernels)
    emit, helper = target.emit_object, disk_cache.load_or_compile

    def recorded(emit):
        def emit_recorded(ir_text, *args, **kwargs):
            c0 = time.thread_time()
            obj = emit(ir_text, *args, **kwargs)
            name = ir_text.split("define ", 1)[-1].split("@", 1)[-1].split("(", 1)[0]
            kind = "helper" if getattr(in_helper, "n", 0) else (args[0] if args else
                                                  kwargs.get("profile", "vector"))
            out.append([time.thread_time() - c0, len(ir_text), name.strip('"'), kind])
            return obj
        return emit_recorded
    parallel._emit = recorded(parallel._emit)
    emit_recorded = recorded(emit)

    def helper_recorded(*args, **kwargs):
        in_helper.n = getattr(in_helper, "n", 0) + 1
        try:
            return helper(*args, **kwargs)
        finally:
            in_helper.n -= 1
    target.emit_object, disk_cache.load_or_compile = emit_recorded, helper_recorded
    return out


def _compile_summary(runs, top=4):
    """One line per case: kernels compiled (distinct symbols), their LLVM CPU, and the
    costliest kernels and helpers (median CPU ms over the runs, IR size)."""
    by_name = {}
    for r in runs:
        for cpu, chars, name, kind in r["compiles"]:
            by_name.setdefault((name, chars, kind), []).append(cpu)
    rows = [(statistics.median(v), chars, name, kind) for (name, chars, kind), v in by_name.items()]
    kernels = [x for x in rows if x[3] != "helper"]
    n_per_run = statistics.median(sum(c[3] != "helper" for c in r["compiles"]) for r in runs)
    line = (f"    {n_per_run:.0f} kernels compiled ({len(kernels)} distinct), LLVM CPU "
            f"{sum(x[0] for x in kernels) * 1e3:.0f} ms; helpers "
            f"{sum(x[0] for x in rows if x[3] == 'helper') * 1e3:.0f} ms; costliest: ")
    return line + ", ".join(f"{name[:28]} {cpu * 1e3:.0f} ms ({kind}, {chars} chars)"
                            for cpu, chars, name, kind in sorted(rows, reverse=True)[:top])


def _helpers_llvm_time(target, disk_cache):
    """A one-element list that collects the LLVM time spent inside runtime helpers'
    compiles (``disk_cache.load_or_compile``), so it is not counted twice."""
    acc = [0.0]
    inner = disk_cache.load_or_compile

    def wrapper(*args, **kwargs):
        before = target.emit_object
        t_llvm = {}
        _timed(target, "emit_object", t_llvm, "x")
        try:
            return inner(*args, **kwargs)
        finally:
            target.emit_object = before
            acc[0] += t_llvm.get("x", 0.0)
    disk_cache.load_or_compile = wrapper
    return acc


def _profile_split(prof):
    """Self seconds per finer phase (``PROFILE_PHASES``) and for tracing (the rest of
    tjit/tracing and tjit/primitives), from a cProfile run."""
    import pstats
    split = {}
    for (path, _, _), (_, _, tottime, _, _) in pstats.Stats(prof).stats.items():
        path = path.replace(os.sep, "/")
        phase = next((p for pre, p in PROFILE_PHASES if pre in path), None)
        if phase is None and ("tjit/tracing/" in path or "tjit/primitives/" in path
                              or "tjit/numpy/" in path or "tjit/lax/" in path):
            phase = "tracing"
        if phase is not None:
            split[phase] = split.get(phase, 0.0) + tottime
    return split


def child_jax(name):
    t0 = time.perf_counter()
    import jax
    import jax.lax
    import jax.nn
    import jax.numpy
    import jax.ops  # (the public modules a program uses)
    imported = time.perf_counter() - t0
    jax.config.update("jax_platforms", "cpu")
    events = {}

    def listen(event, seconds, **_):
        phase = JAX_EVENTS.get(event)
        if phase:
            events[phase] = events.get(phase, 0.0) + seconds
    jax.monitoring.register_event_duration_secs_listener(listen)
    bm, case = _case(name)
    lib = bm.JAX
    t0 = time.perf_counter()
    fn = lib.jit(case.program(lib))
    jit_s = time.perf_counter() - t0
    args = lib.put(case.args)
    lib.block(args)
    t0, c0 = time.perf_counter(), time.process_time()
    lib.block(fn(*args))
    return {"import": imported, "jit": jit_s, "first": time.perf_counter() - t0,
            "first_cpu": time.process_time() - c0, "stages": events}


# ------------------------------------------------------------------------------ parent

def run_child(python, lib, name, profile=False):
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="tjit_first_") as cache:
        env.update(TJIT_CACHE_DIR=cache, TJIT_PROGRAM_CACHE="0")
        env.pop("TJIT_LOG", None)
        cmd = [python, os.path.abspath(__file__), "--child", lib, name]
        if profile:
            cmd.append("--profile")
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600,
                              check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{lib} child for {name} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _median(rows, key):
    vals = [key(r) for r in rows]
    return statistics.median(vals) if vals else None


def tjit_row(runs, split):
    """Phase -> median seconds of the tjit child runs (and the profile's finer split)."""
    row = {"import": _median(runs, lambda r: r["import"]),
           "jit": _median(runs, lambda r: r["jit"]),
           "first": _median(runs, lambda r: r["first"]),
           "cpu": _median(runs, lambda r: r["first_cpu"])}
    for ph in ("trace", "simplify", "lower", "fuse", "render", "llvm", "helpers"):
        row[ph] = statistics.median(r["phases"][ph] for r in runs)
    row["rest"] = _median(runs, lambda r: r["first"] - sum(r["phases"].values()))
    if split:   # divide trace and fuse by the profile's self-time shares
        tr = split.get("tracing", 0.0) + split.get("transforms", 0.0)
        fu = split.get("fusion", 0.0) + split.get("planning", 0.0)
        if tr:
            row["transforms"] = row["trace"] * split.get("transforms", 0.0) / tr
            row["trace"] -= row["transforms"]
        if fu:
            row["planning"] = row["fuse"] * split.get("planning", 0.0) / fu
            row["fuse"] -= row["planning"]
    return row


def jax_row(runs):
    row = {"import": _median(runs, lambda r: r["import"]),
           "jit": _median(runs, lambda r: r["jit"]),
           "first": _median(runs, lambda r: r["first"]),
           "cpu": _median(runs, lambda r: r["first_cpu"])}
    for ph in JAX_EVENTS.values():
        row[ph] = statistics.median(r["stages"].get(ph, 0.0) for r in runs)
    row["run"] = max(0.0, row["first"] - sum(row[ph] for ph in JAX_EVENTS.values()))
    return row


TJIT_COLUMNS = ("import", "jit", "trace", "transforms", "simplify", "lower", "fuse", "planning",
                "render", "llvm", "helpers", "rest", "first", "cpu")
JAX_COLUMNS = ("import", "jit", "trace", "to_mlir", "xla", "run", "first", "cpu")


def _table(title, columns, rows):
    print(f"\n{title} (ms, medians)")
    print(f"{'case':12}" + "".join(f"{c[:11]:>12}" for c in columns))
    for name, row in rows:
        print(f"{name:12}" + "".join(
            f"{row[c] * 1e3:12.1f}" if row.get(c) is not None else f"{'-':>12}"
            for c in columns))


def _has_jax(python):
    return subprocess.run([python, "-c", "import jax"], capture_output=True,
                          check=False).returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=DEFAULT_CASES,
                    help="comma-separated case names, or 'all' (every bench_models case)")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per library")
    ap.add_argument("--jax-python", default=sys.executable,
                    help="an interpreter with JAX installed (default: this one)")
    ap.add_argument("--no-split", action="store_true",
                    help="skip the cProfile child (trace/transforms, fusion/planning)")
    ap.add_argument("--compile-threads", type=int, default=None,
                    help="most threads compiling a program's kernels at once "
                         "(lower/llvm/parallel.MAX_THREADS; 1: one at a time)")
    ap.add_argument("--child", nargs=2, metavar=("LIB", "CASE"), help=argparse.SUPPRESS)
    ap.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        lib, name = args.child
        out = child_tjit(name, args.profile) if lib == "tjit" else child_jax(name)
        print(json.dumps(out))
        return
    if args.compile_threads is not None:
        os.environ["BENCH_COMPILE_THREADS"] = str(args.compile_threads)
    use_jax = _has_jax(args.jax_python)
    print(f"load average {os.getloadavg()[0]:.2f}" + ("" if use_jax else
          f"; no JAX at {args.jax_python}: tjit only (--jax-python)"))
    t_rows, j_rows = [], []
    names = ([c.name for c in _case(None)] if args.cases == "all"
             else args.cases.split(","))
    for name in names:
        t_runs, j_runs = [], []
        for _ in range(args.repeat):   # alternate: the machine's speed drifts
            t_runs.append(run_child(sys.executable, "tjit", name))
            if use_jax:
                j_runs.append(run_child(args.jax_python, "jax", name))
        split = None if args.no_split else run_child(sys.executable, "tjit", name,
                                                     profile=True)["profile"]
        t_rows.append((name, tjit_row(t_runs, split)))
        if use_jax:
            j_rows.append((name, jax_row(j_runs)))
        notes = sorted({n for r in t_runs for n in r["notes"]})
        print(f"  {name}: done" + (f" ({'; '.join(notes)})" if notes else ""), flush=True)
        print(_compile_summary(t_runs), flush=True)
    _table("tjit first call, fresh process, empty kernel cache", TJIT_COLUMNS, t_rows)
    if use_jax:
        _table("JAX first call, fresh process", JAX_COLUMNS, j_rows)
        print(f"\n{'case':12}{'tjit 1st':>12}{'jax 1st':>12}{'ratio':>8}{'cpu ratio':>10}")
        for (name, t), (_, j) in zip(t_rows, j_rows):
            print(f"{name:12}{t['first'] * 1e3:12.1f}{j['first'] * 1e3:12.1f}"
                  f"{t['first'] / j['first']:8.2f}{t['cpu'] / j['cpu']:10.2f}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
