"""Automatic rematerialization under a memory budget, beside JAX's ``checkpoint``.

    python benchmarks/bench_remat.py [--layers 16] [--width 2048] [--batch 512] [--repeat 5]

A tanh MLP's ``jit(value_and_grad(loss))`` (loss = sum of the last layer's squares).
tjit: peak memory (``memory_analysis().peak_memory_in_bytes``) and the median step
time without a budget and at budgets of 100 %, 50 % and 25 % of the unconstrained
peak; arguments and outputs (parameters and their gradients) are most of that peak
and no recomputation can free them, so an unreachable budget reports the smallest
peak reachable (``MemoryBudgetError.smallest_peak``), and the same fractions are also
run on the part recomputation can save: budget = arguments + outputs + p x the
unconstrained temporaries. JAX (when installed): the same step plain and with
``jax.checkpoint`` on every layer, its peak from ``memory_analysis()`` (arguments +
outputs - aliases + temporaries, the same sum). Step-time overheads are ratios to the
unconstrained step of the same library.

Measured here (2 shared cores, ``--repeat 1``: step times are rough):

    16-layer tanh MLP, width 2048, batch 512
    tjit                                    budget  peak MiB  temp MiB   step ms overhead
      no budget                                        584.3      68.0    7548.3    1.00x
      100 % of the peak                      584.3     584.3      68.0    6879.6    0.91x
      50 % of the peak                       292.1   unreachable: smallest peak 532.3 MiB
      25 % of the peak                       146.1   unreachable: smallest peak 532.3 MiB
      args+outs + 50 % of temps              550.3     548.3      32.0    8208.7    1.09x
      args+outs + 25 % of temps              533.3     532.3      16.0   52875.6    7.00x
    JAX 0.10.2
      plain                                            524.3       8.0   13379.0    1.00x
      checkpoint on every layer                        584.3      68.0   14311.6    1.07x

(The 100 % row runs the unconstrained plan: 0.91x is the noise of this machine.) XLA's
plain step reports 8 MiB of temporaries, probably because its buffer assignment lets
temporaries share output buffers before the outputs are written (not checked; tjit
gives outputs buffers of their own); ``checkpoint`` on every layer saves each layer's
input, which the plain step keeps anyway, and its peak is tjit's unconstrained one.
"""

import argparse
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.xla_like.remat import MemoryBudgetError

try:
    import jax
    import jax.numpy as jjnp
except ImportError:
    jax = None

MIB = 2 ** 20


def make_loss(np_mod, layer_fn=None):
    def layer(h, w, b):
        return np_mod.tanh(h @ w + b)
    layer = layer_fn(layer) if layer_fn else layer

    def loss(params, x):
        h = x
        for w, b in params:
            h = layer(h, w, b)
        return np_mod.sum(h * h)
    return loss


def median_s(fn, args, repeat):
    fn(*args)   # (warm: buffers, threads)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args)
        leaf = out[0]
        leaf.block_until_ready() if hasattr(leaf, "block_until_ready") else np.asarray(leaf)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def peak_of(stats):
    return (stats.argument_size_in_bytes + stats.output_size_in_bytes
            - stats.alias_size_in_bytes + stats.temp_size_in_bytes)


def row(label, stats, secs, base_secs, budget=None):
    b = "" if budget is None else f"{budget / MIB:9.1f}"
    print(f"  {label:<34} {b:>9} {peak_of(stats) / MIB:9.1f} {stats.temp_size_in_bytes / MIB:9.1f}"
          f" {secs * 1e3:9.1f} {secs / base_secs:7.2f}x")


def bench_tjit(params, x, repeat):
    f = tjit.value_and_grad(make_loss(jnp))
    t = time.perf_counter()
    free = tjit.jit(f).lower(params, x).compile()
    print(f"tjit (compile {time.perf_counter() - t:.2f} s)")
    print(f"  {'':<34} {'budget':>9} {'peak MiB':>9} {'temp MiB':>9} {'step ms':>9} overhead")
    m0 = free.memory_analysis()
    p0, fixed = peak_of(m0), peak_of(m0) - m0.temp_size_in_bytes
    base = median_s(free, (params, x), repeat)
    row("no budget", m0, base, base)
    budgets = [(f"{int(q * 100)} % of the peak", int(q * p0)) for q in (1.0, 0.5, 0.25)]
    budgets += [(f"args+outs + {int(q * 100)} % of temps", int(fixed + q * m0.temp_size_in_bytes))
                for q in (0.5, 0.25)]
    for label, budget in budgets:
        t = time.perf_counter()
        try:
            c = tjit.jit(f, memory_budget=budget).lower(params, x).compile()
        except MemoryBudgetError as e:
            print(f"  {label:<34} {budget / MIB:9.1f}   unreachable: smallest peak "
                  f"{e.smallest_peak / MIB:.1f} MiB")
            continue
        plan_s = time.perf_counter() - t
        row(label + f" ({plan_s:.1f} s)", c.memory_analysis(), median_s(c, (params, x), repeat),
            base, budget)


def bench_jax(params, x, repeat):
    print(f"JAX {jax.__version__}")
    print(f"  {'':<34} {'':>9} {'peak MiB':>9} {'temp MiB':>9} {'step ms':>9} overhead")
    jparams = [(jjnp.asarray(w), jjnp.asarray(b)) for w, b in params]
    jx = jjnp.asarray(x)
    base = None
    for label, layer_fn in (("plain", None), ("checkpoint on every layer", jax.checkpoint)):
        c = jax.jit(jax.value_and_grad(make_loss(jjnp, layer_fn))).lower(jparams, jx).compile()
        secs = median_s(c, (jparams, jx), repeat)
        base = base or secs
        row(label, c.memory_analysis(), secs, base)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    params = [((rng.standard_normal((a.width, a.width)) / np.sqrt(a.width)).astype(np.float32),
               np.zeros(a.width, np.float32)) for _ in range(a.layers)]
    x = rng.standard_normal((a.batch, a.width)).astype(np.float32)
    print(f"{a.layers}-layer tanh MLP, width {a.width}, batch {a.batch}: "
          f"jit(value_and_grad), float32, median of {a.repeat}")
    bench_tjit(params, x, a.repeat)
    if jax is not None:
        bench_jax(params, x, a.repeat)


if __name__ == "__main__":
    main()
