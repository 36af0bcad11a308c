"""Memory budgets through reverse mode of a data-dependent ``while_loop`` (and of a
``fori_loop`` with traced bounds), beside ``bench_remat.py``'s MLP.

    python benchmarks/bench_remat_while.py [--batch 128] [--width 64] [--repeat 9]

The loop is an RNN-like update run until it converges: ``h <- tanh(h W + u)`` while
``max|h - h_old| > tol`` (about 100 trips here; the trip count depends on the data),
loss ``sum(h*^2)``, ``jit(grad)`` w.r.t. (W, u). Without a budget the reverse sweep
tapes every trip's record (``xla_like/sweep_memory.py``): the *unconstrained peak* is
``memory_analysis()``'s peak (which leaves the tape out: its size follows the trip
count) plus the bytes the tape held (``loop_tape.last_stats.peak_bytes``, on a call
after the first, which sizes the tape for the trip count it saw). Budgets of 100 %,
50 % and 25 % of that: per row, the peak ``memory_analysis()`` reports, the peak
NumPy allocated during a call (tracemalloc) plus the arguments, what the sweep did
(``tape``: every record kept; ``Revolve k``: the tape outgrew its allowance and the
loop was reversed from ``k`` snapshots; forward steps run against trips), the median
step time and its ratio to the unbudgeted step. A budget under the least reachable
peak (the rest of the program and one snapshot) reports it. JAX cannot differentiate
``while_loop`` (jax#2139): no JAX row.

Measured here (2 cores shared with other work, load average 9.4-9.9: step times are
rough, the budgeted rows' peaks are exact; ``--repeat 9``):

    jit(grad) of an RNN-like loop, state (128, 64) float32, CPU
    while_loop until converged: 99 trips; memory_analysis peak 736 KiB + tape 9504 KiB
    = unconstrained peak 10240 KiB
      budget                     KiB  reported  measured  step ms  ratio  sweep
      none                                 736      9878    37.95  1.00x  tape, 99 fwd steps
      100% of the peak         10240     10240      9878    46.10  1.21x  tape, 99 fwd steps
      50% of the peak           5120      5120      4598    54.15  1.43x  Revolve k=64, 331
      25% of the peak           2560      2560      2102    48.16  1.27x  Revolve k=29, 366
    fori_loop(0, n=99) with n traced: 99 trips; 640 KiB + tape 9504 KiB = 10144 KiB
      none                                 640      9782    36.32  1.00x  tape, 99 fwd steps
      100% of the peak         10144     10144      9782    35.38  0.97x  tape, 99 fwd steps
      50% of the peak           5072      5072      4599    43.24  1.19x  Revolve k=64, 331
      25% of the peak           2536      2536      2336    48.67  1.34x  Revolve k=60, 335

The 100 % rows run the same taped sweep as the unbudgeted one (their ratios are the
load's noise). Below it the tape outgrows its allowance part way and is dropped (its
trips count as the start of Revolve's counting sweep), and Revolve from k = 29-64
snapshots reverses the loop (each record recomputed from its state): 3.3-3.7 forward
steps a trip, 1.2-1.4x the step. The least reachable peak (one snapshot; 5,000 forward
steps for 99 trips) is the error's number for a smaller budget.
"""

import argparse
import gc
import statistics
import time
import tracemalloc

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import loop_tape
from tjit.xla_like.remat import MemoryBudgetError

TOL = 1e-6
KIB = 2 ** 10


def while_loss(w, u):
    def cond(c):
        h, h_old = c
        return jnp.max(jnp.abs(h - h_old)) > TOL

    def body(c):
        h, _ = c
        return jnp.tanh(h @ w + u), h
    return jnp.sum(lax.while_loop(cond, body, (jnp.tanh(u), jnp.zeros_like(u)))[0] ** 2)


def fori_loss(w, u, n):
    return jnp.sum(lax.fori_loop(0, n, lambda i, h: jnp.tanh(h @ w + u), jnp.tanh(u)) ** 2)


def median_ms(fn, args, repeat):
    fn(*args)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def allocated_peak(fn, args):
    """Most bytes NumPy allocated at once during a call, beyond those before it."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn(*args)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def sweep_note(stats):
    how = f"Revolve k={stats.checkpoints}" if stats.overflowed or stats.checkpoints \
        else "tape"
    return f"{how}, {stats.forward_steps} fwd steps / {stats.trips} trips"


def bench(name, loss, args, repeat):
    grad = tjit.grad(loss, argnums=(0, 1))
    free = tjit.jit(grad)
    free(*args)
    free(*args)   # (the tape sized for the trip count the first call saw)
    stats = loop_tape.last_stats
    analysis = free.lower(*args).compile().memory_analysis()
    whole = analysis.peak_memory_in_bytes + stats.peak_bytes
    arg_bytes = analysis.argument_size_in_bytes
    base_ms = median_ms(free, args, repeat)
    print(f"{name}: {stats.trips} trips; memory_analysis peak {analysis.peak_memory_in_bytes / KIB:.0f}"
          f" KiB + tape {stats.peak_bytes / KIB:.0f} KiB = unconstrained peak "
          f"{whole / KIB:.0f} KiB")
    print(f"  {'budget':<22}{'KiB':>8}{'reported':>10}{'measured':>10}{'step ms':>9}"
          f"{'ratio':>7}  sweep")
    measured = allocated_peak(free, args) + arg_bytes
    print(f"  {'none':<22}{'':>8}{analysis.peak_memory_in_bytes / KIB:>10.0f}"
          f"{measured / KIB:>10.0f}{base_ms:>9.2f}{1.0:>6.2f}x  {sweep_note(stats)}")
    for frac in (1.0, 0.5, 0.25):
        budget = int(frac * whole)
        label = f"{frac:.0%} of the peak"
        f = tjit.jit(grad, memory_budget=budget)
        try:
            f(*args)
        except MemoryBudgetError as e:
            print(f"  {label:<22}{budget / KIB:>8.0f}   unreachable: least peak "
                  f"{e.smallest_peak / KIB:.0f} KiB")
            continue
        stats = loop_tape.last_stats
        reported = f.lower(*args).compile().memory_analysis().peak_memory_in_bytes
        ms = median_ms(f, args, repeat)
        measured = allocated_peak(f, args) + arg_bytes
        print(f"  {label:<22}{budget / KIB:>8.0f}{reported / KIB:>10.0f}"
              f"{measured / KIB:>10.0f}{ms:>9.2f}{ms / base_ms:>6.2f}x  {sweep_note(stats)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=9)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    w = (0.9 * rng.standard_normal((a.width, a.width)) / np.sqrt(a.width)).astype(np.float32)
    u = (0.3 * rng.standard_normal((a.batch, a.width))).astype(np.float32)
    print(f"jit(grad) of an RNN-like loop, state ({a.batch}, {a.width}) float32, CPU")
    bench("while_loop until converged", while_loss, (w, u), a.repeat)
    trips = loop_tape.last_stats.trips
    bench(f"fori_loop(0, n={trips}) with n traced", fori_loss, (w, u, np.int32(trips)),
          a.repeat)


if __name__ == "__main__":
    main()
