"""Small LAPACK/BLAS problems inside compiled loops: wall and CPU time per call, with and
without busy loops beside the process, tjit beside JAX.

    python benchmarks/bench_blas_threads.py [--busy 0,2] [--rounds 3] [--calls 15]
    /work/jaxvenv/bin/python benchmarks/bench_blas_threads.py      # with the JAX column

Columns: ``tjit`` (small problems run OpenBLAS on one thread:
``primitives/lapack_threads.py``), ``lib threads`` (the same program with that policy
off, i.e. NumPy's and SciPy's OpenBLAS at their default thread counts: the behaviour
before the policy), and JAX when installed. Each cell is the median over ``--rounds``
rounds (alternating columns, one process) of the per-round median of ``--calls`` calls:
wall ms / process CPU ms (all threads). ``--busy K`` starts K Python busy loops for its
rows and stops them afterwards. The load average is printed per row. Not a test: nothing
here asserts a time.

Cases (float64): ``qdwh`` (jitted ``lax.linalg.qdwh`` of a 64 x 48 matrix: a while_loop
of QR / Cholesky / triangular-solve steps), ``vmap_qdwh`` (16 of them), ``dots_<n>`` (a
jitted fori_loop of 20 ``tanh(x @ w)`` steps, n x n), and ``solve``, ``qr``,
``cholesky``, ``trisolve`` (a jitted fori_loop of 20 such calls on 48 x 48 matrices;
``solve`` of a constant matrix, whose factorization the compiler moves out of the loop as
XLA does, ``solve_step`` of one that changes every step).

Measured on the 2-vCPU development VM, load average 8-10 from other jobs, ms per call,
wall / CPU (medians of 3 rounds of 10 calls; "before": this script on the tree before
the policy, PYTHONPATH=<old checkout>, a separate process minutes apart; JAX 0.10.2 in
the same process as "after", ``--columns tjit,JAX``):

  case        busy  before           after          JAX
  qdwh        0     0.91 / 0.91      0.93 / 0.91    0.52 / 0.52
  qdwh        2     216 / 43.8       1.09 / 1.09    0.73 / 0.73
  vmap_qdwh   0     245 / 109        21.9 / 8.5     62.7 / 44.2
  vmap_qdwh   2     2008 / 386       46.7 / 9.6     767 / 149
  solve       0     145 / 77.6       6.63 / 2.65    0.18 / 0.19
  solve       2     1222 / 238       24.8 / 3.5     0.18 / 0.18
  qr          0     1.34 / 1.34      1.37 / 1.37    0.77 / 0.77
  cholesky    0     0.44 / 0.45      0.50 / 0.50    0.19 / 0.17
  trisolve    0     0.38 / 0.38      0.37 / 0.37    0.07 / 0.07
  dots_128    2     2.50 / 2.50      2.42 / 2.41    6.01 / 2.06

(dots_8/32/64: 0.02 / 0.06 / 0.29 before and after, JAX 0.06 / 0.10 / 0.35; the busy-0
rows of qdwh, solve, qr, cholesky and trisolve are from a second run with the limit per
library.) The limit costs ~2-4 us a LAPACK call (two calls into the called library's
OpenBLAS and a lock), visible in the cholesky row when OpenBLAS's threads happen not
to spin; where they do (most rows with busy loops, and whenever the machine is loaded) the
spinning costs 10-1000x more. JAX's own CPU LAPACK calls SciPy's OpenBLAS and shows the
same pathology (vmap_qdwh with busy loops). Wall far above CPU time is the calling
thread waiting in the run queue: it varies between runs by 10x.

Then the loops themselves (busy 0, wall ms per call, JAX 0.10.2 in the same process, each
case in a process of its own, ``--cases <case> --columns tjit,JAX``: JAX's OpenBLAS
spinning after its calls slows whatever runs next). "before": the tree before these
changes on a quiet machine (load 0.7; qdwh: the table above); "after": load 11:

  case        before   after   JAX     what did it
  solve       1.63     0.09    0.10    the factorization of the constant matrix moves out
                                       of the loop (transforms/passes.py, as XLA); the row
                                       permutation is a fused take, not a library gather
  solve_step  0.97     0.25    0.33    native getrf/trsm steps (devices/cpu_lapack.py):
                                       the loop runs in the native driver, no Python
  qr          1.00     0.56    0.64    native geqrf/orgqr step
  cholesky    0.35     0.14    0.14    native potrf step
  trisolve    0.25     0.04    0.04    native trsm step
  qdwh        0.93     0.28    0.33    its QR / Cholesky / triangular-solve steps native

(solve_step: a 48 x 48 solve of ``m + c[0, 0]**2`` per step, whose factorization cannot
move; its "before" is this script with the getrf shim left out. The JAX column of qdwh and
vmap_qdwh swings 2-1000x with the load: OpenBLAS's spinning.)
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import tjit
from tjit import lax
from tjit.lax import linalg as tlinalg

try:
    from tjit.primitives import lapack_threads
except ImportError:     # a tjit from before the policy (PYTHONPATH=<old checkout>)
    lapack_threads = None

try:
    import jax
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

tjit.config.update("enable_x64", True)

BUSY_LOOP = "while True: pass"
STEPS = 20


def _programs(L):
    """name -> (function of lax/jnp ``L``-namespaces, args)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 48))
    xs = rng.standard_normal((16, 64, 48))
    a = rng.standard_normal((48, 48))
    spd = a @ a.T + 48 * np.eye(48)
    low = np.linalg.cholesky(spd)
    b = rng.standard_normal((48, 8))
    out = {
        "qdwh": (lambda x: L.linalg.qdwh(x)[0], (x,)),
        "vmap_qdwh": (L.vmap(lambda x: L.linalg.qdwh(x)[0]), (xs,)),
    }
    for n in (8, 32, 64, 128):
        w = rng.standard_normal((n, n)) / np.sqrt(n)
        out[f"dots_{n}"] = (
            lambda x0, w: L.lax.fori_loop(0, STEPS, lambda i, x: L.jnp.tanh(x @ w), x0),
            (rng.standard_normal((n, n)), w))

    def looped(step):
        return lambda m, c: L.lax.fori_loop(0, STEPS, lambda i, c: step(m, c) * 0.5 + c * 0.5,
                                            c)
    out["solve"] = (looped(lambda m, c: L.jnp.linalg.solve(m, c)), (spd, b))
    # (the matrix changes every step: its factorization cannot move out of the loop)
    out["solve_step"] = (looped(lambda m, c: L.jnp.linalg.solve(m + c[:1, :1] ** 2, c)),
                         (spd, b))
    out["qr"] = (looped(lambda m, c: L.jnp.linalg.qr(m + c[:, :1])[0][:, :8]), (a, b))
    out["cholesky"] = (looped(lambda m, c: L.jnp.linalg.cholesky(m + c[:1, :1] ** 2)[:, :8]),
                       (spd, b))
    out["trisolve"] = (looped(lambda m, c: L.linalg.triangular_solve(
        m, c, left_side=True, lower=True)), (low, b))
    return out


class _Namespaces:
    def __init__(self, lib):
        if lib == "jax":
            import jax.numpy as jnp
            from jax import lax as jlax
            from jax.lax import linalg as jlinalg
            self.jnp, self.lax, self.linalg, self.vmap, self.jit = \
                jnp, jlax, jlinalg, jax.vmap, jax.jit
        else:
            import tjit.numpy as tjnp
            self.jnp, self.lax, self.linalg, self.vmap, self.jit = \
                tjnp, lax, tlinalg, tjit.vmap, tjit.jit


def _block(out):
    (jax.block_until_ready if jax is not None else tjit.block_until_ready)(out)


def measure(call, calls):
    """Median wall ms, median process CPU ms per call (after one warm-up)."""
    _block(call())
    walls, cpus = [], []
    for _ in range(calls):
        c0, t0 = time.process_time(), time.perf_counter()
        _block(call())
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3


def _with_policy(on, call):
    if lapack_threads is None:
        return call

    def run():
        saved = lapack_threads.SINGLE_THREAD_BELOW
        lapack_threads.SINGLE_THREAD_BELOW = saved if on else 0
        try:
            return call()
        finally:
            lapack_threads.SINGLE_THREAD_BELOW = saved
    return run


def columns(name, wanted):
    """column title -> a no-argument call of the case's compiled program (the titles in
    ``wanted`` that this process has)."""
    cols = {}
    tj = _Namespaces("tjit")
    fn, args = _programs(tj)[name]
    compiled = tjit.jit(fn)
    cols["tjit"] = _with_policy(True, lambda: compiled(*args))
    if lapack_threads is not None:
        cols["lib threads"] = _with_policy(False, lambda: compiled(*args))
    if jax is not None and "JAX" in wanted:
        jfn, jargs = _programs(_Namespaces("jax"))[name]
        jcompiled = jax.jit(jfn)
        cols["JAX"] = lambda: jcompiled(*jargs)
    return {t: c for t, c in cols.items() if t in wanted}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--busy", default="0,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=15)
    parser.add_argument("--cases", default=None, help="comma-separated case names")
    parser.add_argument("--columns", default="tjit,lib threads,JAX",
                        help="which of tjit, 'lib threads', JAX (the library threads' "
                             "spinning slows the columns after it, JAX's LAPACK too: "
                             "it calls SciPy's)")
    opts = parser.parse_args()
    names = opts.cases.split(",") if opts.cases else list(_programs(_Namespaces("tjit")))
    wanted = opts.columns.split(",")
    all_cols = {name: columns(name, wanted) for name in names}
    titles = list(next(iter(all_cols.values())))
    print(f"{'case':12s} {'busy':>4s} " + " ".join(f"{t:>16s}" for t in titles) + "  load")
    for busy in (int(k) for k in opts.busy.split(",")):
        procs = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(busy)]
        try:
            time.sleep(0.5 if busy else 0)
            for name, cols in all_cols.items():
                per = {t: [] for t in cols}
                for _ in range(opts.rounds):
                    for t, call in cols.items():
                        per[t].append(measure(call, opts.calls))
                cells = []
                for t in titles:
                    wall = statistics.median(w for w, _ in per[t])
                    cpu = statistics.median(c for _, c in per[t])
                    cells.append(f"{wall:7.2f} / {cpu:6.2f}")
                print(f"{name:12s} {busy:4d} " + " ".join(f"{c:>16s}" for c in cells) +
                      f"  {os.getloadavg()[0]:.1f}", flush=True)
        finally:
            for p in procs:
                p.kill()
                p.wait()


if __name__ == "__main__":
    main()
