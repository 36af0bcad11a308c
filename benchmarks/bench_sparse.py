"""Sparse matvec / matmat: tjit.experimental.sparse vs jax.experimental.sparse vs scipy.sparse.

    /work/jaxvenv/bin/python benchmarks/bench_sparse.py [--rounds 5] [--repeat 7] [--quick]

Cases (float32, int32 indices, uniformly random nonzeros in a square n x n matrix):
a matvec ``M @ x`` and a matmat ``M @ X`` with 8 right-hand columns, each jitted by tjit and
JAX (BCOO, sorted unique indices), and scipy.sparse's CSR product. Also the jitted
gradient of ``sum((M @ x)**2)`` w.r.t. ``M.data`` and ``x`` (tjit vs JAX). Results are
checked against scipy in float64 first. The implementations alternate within each round
(the shared machine's speed drifts); each time is the median of ``repeat`` calls and the
table gives the median over rounds and the ratios tjit / scipy and tjit / JAX.

Run with JAX's virtual environment (it has tjit installed too); without JAX the JAX
column is left out.

Measured on the 2-core development machine shared with ~8 other jobs (load average
11-13), JAX 0.10.2 CPU, float32, medians in ms (scipy / tjit / JAX; tjit/scipy, tjit/JAX):

  wall clock (--clock wall, default threads)
    matvec  n=1e4 nse=1e5        0.093 /  0.18 /  0.26     1.9x   0.7x
    grad    matvec               -     /  0.32 /  0.43            0.75x
    matmat  k=8                  0.22  /  0.27 /  0.58     1.2x   0.46x
    grad    matmat               -     /  0.75 /  4.0             0.19x
    matvec  n=1e5 nse=1e6        1.1   / 12.2  /  7.1     11x     1.7x
    grad    matvec               -     / 27    / 13               2.1x
    matmat  k=8                 15.8   / 16.1  / 125       1.0x   0.13x
    grad    matmat               -     / 69    / 221              0.31x

  CPU time of this process (--clock cpu, TJIT_NUM_THREADS=1; JAX's XLA threads not
  pinned, so its column may sum two threads)
    matvec  n=1e4 nse=1e5        0.10  /  0.19 /  0.30     1.9x   0.6x
    matvec  n=1e5 nse=1e6        1.16  /  2.86 /  2.66     2.5x   1.07x
    grad    matvec               -     /  5.9  /  4.0             1.5x
    matmat  k=8                  4.8   /  4.8  / 33        1.0x   0.14x
    grad    matmat               -     / 17.4  / 57               0.30x

At nse=1e6 a product is a few ms of CPU; on this loaded machine such a call is
preempted several times and its wall time grows 4-5x (scipy's ~1 ms call mostly runs
within one time slice): compare the 1e6 rows in CPU time. tjit's matvec is one fused
kernel (index normalization, gather of ``x`` at the column indices, multiply) and one
compiled row-scatter-add into the rows; scipy's CSR loop reads each entry once and
keeps the row sum in a register, hence its 2-2.5x lead on matvec; with 8 right-hand
columns the row scatter is vectorized and tjit matches scipy.
"""

import argparse
import statistics
import time

import numpy as np
import scipy.sparse

import tjit
import tjit.numpy as tjnp
from tjit.experimental import sparse as tsparse

try:
    import jax
    import jax.numpy as jjnp
    from jax.experimental import sparse as jsparse
except ImportError:
    jax = None


def _time(fn, repeat, clock=time.perf_counter):
    out = fn()
    _block(out)
    times = []
    for _ in range(repeat):
        t0 = clock()
        _block(fn())
        times.append(clock() - t0)
    return statistics.median(times)


def _block(out):
    for leaf in (out if isinstance(out, (tuple, list)) else [out]):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()


def _problem(n, nse, k, seed=0):
    rng = np.random.default_rng(seed)
    flat = np.unique(rng.integers(0, n * n, int(nse * 1.05)))[:nse]
    rows, cols = np.divmod(flat, n)
    data = rng.standard_normal(len(flat)).astype(np.float32)
    indices = np.stack([rows, cols], -1).astype(np.int32)
    x = rng.standard_normal((n, k) if k else n).astype(np.float32)
    csr = scipy.sparse.csr_matrix((data, (rows, cols)), shape=(n, n))
    return data, indices, x, csr


def _cases(n, nse, k):
    data, indices, x, csr = _problem(n, nse, k)
    ref = csr.astype(np.float64) @ x.astype(np.float64)
    tm = tsparse.BCOO((tjnp.asarray(data), tjnp.asarray(indices)), shape=(n, n),
                      indices_sorted=True, unique_indices=True)
    tx = tjnp.asarray(x)
    t_mv = tjit.jit(lambda m, v: m @ v)
    t_grad = tjit.jit(tjit.grad(lambda d, v: tjnp.sum(
        (tsparse.BCOO((d, tm.indices), shape=(n, n)) @ v) ** 2), argnums=(0, 1)))
    impls = {"scipy": lambda: csr @ x, "tjit": lambda: t_mv(tm, tx)}
    grads = {"tjit": lambda: t_grad(tm.data, tx)}
    if jax is not None:
        jm = jsparse.BCOO((jjnp.asarray(data), jjnp.asarray(indices)), shape=(n, n),
                          indices_sorted=True, unique_indices=True)
        jx = jjnp.asarray(x)
        j_mv = jax.jit(lambda m, v: m @ v)
        j_grad = jax.jit(jax.grad(lambda d, v: jjnp.sum(
            (jsparse.BCOO((d, jm.indices), shape=(n, n)) @ v) ** 2), argnums=(0, 1)))
        impls["jax"] = lambda: j_mv(jm, jx)
        grads["jax"] = lambda: j_grad(jm.data, jx)
    for name, fn in impls.items():
        np.testing.assert_allclose(np.asarray(fn(), np.float64), ref, rtol=2e-3, atol=2e-3,
                                   err_msg=name)
    if "jax" in grads:
        for a, b in zip(grads["tjit"](), grads["jax"]()):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-3, atol=2e-3)
    return impls, grads


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="the smallest size only")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: this process's CPU time (with TJIT_NUM_THREADS=1 and "
                             "XLA_FLAGS=--xla_cpu_multi_thread_eigen=false, a one-core "
                             "comparison immune to other processes taking the cores)")
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    sizes = [(10_000, 100_000), (100_000, 1_000_000)]
    if args.quick:
        sizes = sizes[:1]
    print(f"{'case':32s} {'scipy':>9s} {'tjit':>9s} {'jax':>9s}   tjit/scipy  tjit/jax  (ms)")
    for n, nse in sizes:
        for k in (0, 8):
            impls, grads = _cases(n, nse, k)
            for label, group in (("matvec" if not k else f"matmat k={k}", impls),
                                 ("grad " + ("matvec" if not k else f"matmat k={k}"), grads)):
                times = {name: [] for name in group}
                for _ in range(args.rounds):
                    for name, fn in group.items():
                        times[name].append(_time(fn, args.repeat, clock))
                med = {name: 1e3 * statistics.median(t) for name, t in times.items()}
                cols = [f"{med[c]:9.3f}" if c in med else f"{'-':>9s}"
                        for c in ("scipy", "tjit", "jax")]
                r_s = f"{med['tjit'] / med['scipy']:10.2f}" if "scipy" in med else f"{'-':>10s}"
                r_j = f"{med['tjit'] / med['jax']:9.2f}" if "jax" in med else f"{'-':>9s}"
                print(f"{label + f' n={n} nse={nse}':32s} {' '.join(cols)}   {r_s} {r_j}",
                      flush=True)


if __name__ == "__main__":
    main()
