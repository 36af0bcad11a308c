"""Reverse mode through a data-dependent ``lax.while_loop``, beside JAX when installed.

    python benchmarks/bench_while_grad.py [--size 16] [--repeat 50]

The loop is an RNN-like update run until it converges: ``h <- tanh(W h + u)`` while
``max|h - h_old| > tol`` (about 100 trips for the default W; the trip count depends on
the data). Reports medians under ``jit`` on the CPU:

* the forward loop, ``grad`` of ``sum(h*)`` w.r.t. (W, u), and their ratio (target
  <= 3x), with every trip's residuals taped (the default); the minimum wall time and
  the median CPU time beside each median (on a shared machine the median moves);
* the same with ``while_loop_checkpoints = 10`` (Revolve): peak number of saved states
  and forward steps recomputed, as measured by the sweep (``loop_tape.last_stats``);
* JAX (cannot differentiate while_loop): its forward while_loop, and the forward and
  grad of the same loop written as ``fori_loop`` with the trip count known.
"""

import argparse
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import loop_tape

try:
    import jax
    import jax.numpy as jjnp
except ImportError:
    jax = None

TOL = 1e-6


def loop_loss(np_mod, lax_mod):
    def loss(w, u):
        def cond(c):
            h, h_old = c
            return np_mod.max(np_mod.abs(h - h_old)) > TOL

        def body(c):
            h, _ = c
            return np_mod.tanh(w @ h + u), h
        h = lax_mod.while_loop(cond, body, (np_mod.tanh(u), np_mod.zeros_like(u)))[0]
        return np_mod.sum(h * h)
    return loss


def fori_loss(np_mod, lax_mod, n):
    def loss(w, u):
        body = lambda i, h: np_mod.tanh(w @ h + u)
        return np_mod.sum(lax_mod.fori_loop(0, n, body, np_mod.tanh(u)) ** 2)
    return loss


def median_ms(fn, args, repeat):
    """Median of ``repeat`` calls in ms (the minimum is printed too: on a loaded machine
    the median moves, the minimum much less)."""
    out = fn(*args)   # compile + warm up
    _block(out)
    ts, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        _block(fn(*args))
        ts.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    MINIMA[fn], CPU[fn] = min(ts), statistics.median(cpu)
    return statistics.median(ts)


MINIMA, CPU = {}, {}   # per function: minimum wall time, median CPU time (ms)


def _block(out):
    for leaf in (out if isinstance(out, (tuple, list)) else (out,)):
        getattr(leaf, "block_until_ready", lambda: None)()
        np.asarray(leaf)


def problem(size):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((size, size))
    w *= 0.92 / np.max(np.abs(np.linalg.eigvals(w)))  # contraction: ~100 trips to TOL
    return w.astype(np.float32), (0.05 * rng.standard_normal(size)).astype(np.float32)


def trips(w, u):
    h, h_old, n = np.tanh(u), np.zeros_like(u), 0
    while np.max(np.abs(h - h_old)) > TOL:
        h, h_old, n = np.tanh(w @ h + u), h, n + 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=50)
    a = ap.parse_args()
    w, u = problem(a.size)
    n = trips(w, u)
    print(f"RNN-like loop to convergence: state {a.size}, W {a.size}x{a.size}, {n} trips "
          f"(float32, CPU, medians of {a.repeat})")
    loss = loop_loss(jnp, lax)
    fwd_fn = tjit.jit(loss)
    fwd = median_ms(fwd_fn, (w, u), a.repeat)
    g = tjit.jit(tjit.grad(loss, (0, 1)))
    grad = median_ms(g, (w, u), a.repeat)
    st = loop_tape.last_stats
    fmin, gmin = MINIMA[fwd_fn], MINIMA[g]
    print(f"tjit forward while_loop            {fwd:8.3f} ms   (min {fmin:.3f}, "
          f"CPU {CPU[fwd_fn]:.3f})")
    print(f"tjit grad (tape)                   {grad:8.3f} ms   {grad / fwd:5.2f}x forward   "
          f"(min {gmin:.3f}: {gmin / fmin:5.2f}x, CPU {CPU[g]:.3f})   saved records of {st.peak_saved} trips "
          f"({st.peak_bytes} B), forward steps {st.forward_steps}")
    old = tjit.config.while_loop_checkpoints
    tjit.config.update("while_loop_checkpoints", 10)
    try:
        gk = tjit.jit(tjit.grad(loss, (0, 1)))
        grad_k = median_ms(gk, (w, u), a.repeat)
        st = loop_tape.last_stats
        ok = all(np.allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)
                 for x, y in zip(gk(w, u), g(w, u)))
    finally:
        tjit.config.update("while_loop_checkpoints", old)
    print(f"tjit grad (Revolve, k=10)          {grad_k:8.3f} ms   {grad_k / fwd:5.2f}x forward   "
          f"(min {MINIMA[gk]:.3f}: {MINIMA[gk] / fmin:5.2f}x, CPU {CPU[gk]:.3f})   "
          f"saved states {st.peak_saved} ({st.peak_bytes} B) of {st.trips} trips, forward steps "
          f"{st.forward_steps}, gradients match the tape: {ok}")
    if jax is None:
        print("JAX not installed: no comparison")
        return
    jw, ju = jjnp.asarray(w), jjnp.asarray(u)
    jfwd = median_ms(jax.jit(loop_loss(jjnp, jax.lax)), (jw, ju), a.repeat)
    fl = fori_loss(jjnp, jax.lax, n)
    jfori = median_ms(jax.jit(fl), (jw, ju), a.repeat)
    jgrad = median_ms(jax.jit(jax.grad(fl, (0, 1))), (jw, ju), a.repeat)
    print(f"JAX forward while_loop             {jfwd:8.3f} ms   (JAX cannot grad while_loop)")
    print(f"JAX forward fori_loop(n={n})       {jfori:8.3f} ms")
    print(f"JAX grad fori_loop(n={n})          {jgrad:8.3f} ms   {jgrad / jfori:5.2f}x its forward")
    print(f"tjit grad (tape) / JAX forward while_loop: {grad / jfwd:.1f}x")


if __name__ == "__main__":
    main()
