"""The whole-program disk cache (``xla_like/program_cache``) on programs with library steps.

    python benchmarks/bench_program_cache.py [--programs 200] [--reps 5] [--starts-only]

1. **Stored fraction.** Random programs drawn (derandomized) by the generator of
   ``tests/xla_like/test_random_programs.py`` are jitted forward and as
   ``grad``, with the program cache on in a fresh folder; printed: how many were
   stored, how many not and why (``program_cache.NOT_STORED``), how many could not be
   keyed. Run it with ``PYTHONPATH`` pointing at an older checkout to get the "before".
2. **Compile vs load** of a long program with library steps, in one process.
3. **Process starts.** A new process times its first call (trace + compile or load +
   one run; import and backend start-up excluded) of the MLP training step of
   ``bench_compile.py`` and of a program with fft, linalg (solve, eigh, cholesky) and
   sort steps, with an empty cache folder (cold) and then with the folder the previous
   process filled (warm); medians of ``--reps`` pairs, the warm result checked to be
   bit-identical to the cold one. The function runs once eagerly before the clock
   starts, so that the libraries' own start-up, paid cold or warm, is not counted
   (SciPy's import at the first linalg step: ~0.8 s; LAPACK's first eigh: ~0.2 s).

Measured (2 shared cores, load 6-8; "before" = the tree before library steps were
stored, run with ``PYTHONPATH`` at its checkout):

* stored fraction, 200 programs drawn: forward 93 of 177 compiles stored (53%) before,
  164 of 164 (100%) after; grad 77 of 178 (43%) before, 163 of 163 (100%) after.
  (Before, an unstored program drawn again compiled again, hence more compiles.)
* ``compile_program`` of a 400-equation program with 100 sort steps, one process,
  median of 9: 32.5 ms compiled, 4.6 ms read from the program cache (before: not
  stored, compiled every time).
* process starts, medians of 5, ms (cold -> warm): MLP step 1100 -> 78 before,
  726 -> 48 after (stored either way: the difference is load); fft/linalg/sort
  791 -> 147 before (not stored), 763 -> 151 after (stored, read back, bits
  identical). The warm start of that program gains nothing measurable: the kernel disk
  cache already skips LLVM, and ``compile_program`` (lowering, fusion, planning) costs
  it 5-10 ms against 1-4 ms to read the entry. Its warm first call is tracing (~35 ms),
  loading the kernels (~40 ms, half of it recomputing each kernel's hash from its
  text), preparing the runner (~35 ms) and running (~60 ms, SciPy's triangular solves).

Not a test: nothing asserts a time.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def stored_fraction(n_programs):
    os.environ["TJIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="tjit_bench_pc_")
    os.environ["TJIT_PROGRAM_CACHE"] = "1"
    import numpy as np
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    import tjit
    import tjit.numpy as jnp
    from tjit.xla_like import program_cache as pc
    sys.path.insert(0, ROOT)
    from tests.xla_like import test_random_programs as R

    rows = {"forward": [], "grad": []}

    def attempt(kind, fn, args):
        before = dict(pc.STATS)
        tjit.jit(fn)(*args)
        rows[kind].append({k: pc.STATS[k] - before[k] for k in pc.STATS})

    @settings(max_examples=n_programs, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(R.programs(), st.integers(0, 2**16))
    def draw(program, seed):
        shapes, steps, n_out = program
        args = R._inputs(shapes, seed)
        attempt("forward", lambda *a: R.run(jnp, a, steps, n_out), args)

        def loss(*a):
            return sum(jnp.sum(o) for o in R.run(jnp, a, steps, n_out))
        attempt("grad", tjit.grad(loss, argnums=tuple(range(len(args)))), args)

    with np.errstate(all="ignore"):
        draw()
    for kind, stats in rows.items():
        total = {k: sum(s[k] for s in stats) for k in stats[0]}
        compiled = total["stored"] + total["not_stored"] + total["not_keyed"]
        print(f"{kind:8s}: {len(stats)} programs drawn, {compiled} compiled: "
              f"{total['stored']} stored ({total['stored'] / compiled:.0%}), "
              f"{total['not_stored']} not stored, {total['not_keyed']} not keyed; "
              f"{total['hits']} read back (drawn before)")
    reasons = getattr(pc, "NOT_STORED", None)
    if reasons:
        print("not stored, by reason: " + "; ".join(f"{r}: {c}" for r, c in
                                                   reasons.most_common()))


_START = r"""
import itertools, sys, time
import numpy as np
import tjit, tjit.numpy as jnp
from tjit.xla_like import program_cache as pc
sys.path.insert(0, {here!r})
import bench_compile as B
case = sys.argv[1]
rng = np.random.default_rng(0)
if case == "mlp":
    sizes = [784, 512, 512, 10]
    params = [(rng.standard_normal((m, n)).astype(np.float32) * 0.05,
               np.zeros(n, np.float32)) for m, n in itertools.pairwise(sizes)]
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]
    fn = B.mlp_step(jnp, 0.01)
    args = (params, rng.standard_normal((128, 784)).astype(np.float32), labels)
else:
    def fn(x, a):
        spec = jnp.abs(jnp.fft.rfft(x, axis=-1))                  # fft
        s = jnp.linalg.solve(a @ a.T + 64 * jnp.eye(64), x[:, :64].T)   # lu + solves
        w = jnp.linalg.eigh(a + a.T)[0]                              # eigh
        c = jnp.linalg.cholesky(a @ a.T + jnp.eye(64))               # cholesky
        top = jnp.sort(spec, axis=-1)[:, -8:]                        # sort
        return jnp.tanh(top).sum() + s.sum() * 0.1 + w.max() + jnp.trace(c)
    args = (rng.standard_normal((64, 256)).astype(np.float32),
            rng.standard_normal((64, 64)).astype(np.float32))
tjit.default_backend()              # (backend start-up, not counted)
fn(*args)                           # (eager: SciPy's import, BLAS/LAPACK's first calls)
t = time.perf_counter()
out = tjit.jit(fn)(*args)
leaves = [np.asarray(v) for v in tjit.tree_leaves(out)]
dt = time.perf_counter() - t
np.save(sys.argv[2], np.concatenate([v.reshape(-1).view(np.uint8) for v in leaves]))
print(pc.STATS["hits"], pc.STATS["stored"], dt)
"""


def process_starts(reps):
    code = _START.format(here=HERE)
    print(f"process starts (median of {reps}; ms): first call, cold (empty cache folder) "
          "-> warm (the folder the previous process filled)")

    def run(case, folder, out):
        env = dict(os.environ, TJIT_CACHE_DIR=folder, TJIT_PROGRAM_CACHE="1")
        r = subprocess.run([sys.executable, "-c", code, case, out], env=env,
                           capture_output=True, text=True, check=False)
        if r.returncode:
            raise RuntimeError(r.stderr[-2000:])
        hits, stored, dt = r.stdout.split()[-3:]
        return int(hits), int(stored), float(dt)

    import numpy as np
    for case in ("mlp", "fft_linalg_sort"):
        cold, warm = [], []
        for _ in range(reps):
            with tempfile.TemporaryDirectory() as d:
                a, b = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
                _, s0, t0 = run(case, os.path.join(d, "cache"), a)
                h1, _, t1 = run(case, os.path.join(d, "cache"), b)
                same = np.array_equal(np.load(a), np.load(b))
                cold.append(t0)
                warm.append(t1)
        print(f"  {case:16s} cold {statistics.median(cold) * 1e3:7.1f}  warm "
              f"{statistics.median(warm) * 1e3:7.1f}  ratio "
              f"{statistics.median(warm) / statistics.median(cold):5.2f}   (last pair: "
              f"cold stored {s0}, warm hits {h1}, bits identical: {same})", flush=True)


def compile_vs_load(reps):
    """In one process: ``compile_program`` of a 100-step unrolled sort program (400
    equations, 100 library steps) with the program cache off, and read back from it."""
    os.environ.setdefault("TJIT_CACHE_DIR", tempfile.mkdtemp(prefix="tjit_bench_pc_"))
    import time

    import numpy as np

    import tjit
    import tjit.numpy as jnp
    from tjit.xla_like.compile import compile_program
    from tjit.xla_like.target import CPU

    def f(x):
        for i in range(100):
            x = jnp.sort(jnp.tanh(x) * 1.01 + 0.1 * i, axis=-1)
        return x
    closed = tjit.make_jaxpr(f)(np.ones((16, 64), np.float32))
    os.environ["TJIT_PROGRAM_CACHE"] = "1"
    compile_program(closed, CPU)            # (stores the entry)
    times = {"0": [], "1": []}
    for _ in range(reps):
        for flag, seconds in times.items():
            os.environ["TJIT_PROGRAM_CACHE"] = flag
            t = time.perf_counter()
            compile_program(closed, CPU)
            seconds.append(time.perf_counter() - t)
    print(f"compile_program, {len(closed.jaxpr.eqns)} equations with 100 sort steps "
          f"(median of {reps}): compiled {statistics.median(times['0']) * 1e3:.1f} ms, "
          f"from the program cache {statistics.median(times['1']) * 1e3:.1f} ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--starts-only", action="store_true")
    a = ap.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f}")
    if not a.starts_only:
        stored_fraction(a.programs)
        compile_vs_load(a.reps * 2 - 1)
    process_starts(a.reps)


if __name__ == "__main__":
    main()
