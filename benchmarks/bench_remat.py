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

``--two-steps`` runs two SGD steps in one jit instead (a program with two hills of
live bytes; remat splits it greedily, one split point after another), and the last
tjit line gives the smallest peak reachable with one split and with the sequence.

Measured here (2 cores shared with other work: step times are rough; ``--repeat 3``):

    16-layer tanh MLP, width 2048, batch 512: jit(value_and_grad)
    tjit                                    budget  peak MiB  temp MiB   step ms overhead
      no budget                                        520.3       4.0    8989.3    1.00x
      100 % of the peak                      520.3     520.3       4.0    8701.6    0.97x
      50 % of the peak                       260.1   unreachable: smallest peak 520.3 MiB
      25 % of the peak                       130.1   unreachable: smallest peak 520.3 MiB
      args+outs + 50 % of temps              518.3   unreachable: smallest peak 520.3 MiB
      args+outs + 25 % of temps              517.3   unreachable: smallest peak 520.3 MiB
    JAX 0.10.2
      plain                                            524.3       8.0    7863.2    1.00x
      checkpoint on every layer                        584.3      68.0    8409.9    1.07x

Before temporaries could live in output buffers (``plan.host_temporaries``) tjit's
plain step peaked at 584.3 MiB with 68.0 MiB of temporaries (7548 ms, ``--repeat 1``),
and recomputation took them to 32.0 / 16.0 MiB at 1.09x / 7.00x the step. Now the
activations wait for the backward pass in the buffers of the gradients written last,
as in XLA's buffer assignment (which keeps 8 MiB here); what is left (4 MiB: the delta
a gradient's gemm reads while writing that gradient) cannot be recomputed away, and
arguments and outputs (516.3 MiB) cannot shrink, so every smaller budget reports the
smallest reachable peak.

    8-layer tanh MLP, width 128, batch 1024: jit(two SGD steps), median of 20
    tjit: no budget: peak 7.0 MiB, 4.5 MiB temporaries, 59.4 ms
      smallest peak reachable: 1 split 7.0 MiB, 6 splits 6.5 MiB
    JAX: plain 7.0 / 4.5 MiB, 40.5 ms; checkpoint on every layer 10.5 / 8.0 MiB, 56.8 ms

(Every budget row of that table is unreachable: the sequence of splits lowers the
peak by 0.5 MiB only; see remat.py for what it covers.)
"""

import argparse
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.xla_like import remat
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


def make_two_steps(np_mod, ad, layer_fn=None, lr=0.1):
    """Two SGD steps in one function (two hills of live bytes: one per step); returns
    the second step's loss and gradient and the weights after the first step."""
    loss = make_loss(np_mod, layer_fn)

    def mean_loss(params, x):
        return loss(params, x) / x.size

    def two_steps(params, x, x2):
        g = ad.grad(mean_loss)(params, x)
        p1 = [(w - lr * gw, b - lr * gb) for (w, b), (gw, gb) in zip(params, g)]
        l2, g2 = ad.value_and_grad(mean_loss)(p1, x2)
        return l2, g2, p1
    return two_steps


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


def bench_tjit(params, args, repeat, two_steps):
    f = make_two_steps(jnp, tjit) if two_steps else tjit.value_and_grad(make_loss(jnp))
    t = time.perf_counter()
    free = tjit.jit(f).lower(params, *args).compile()
    print(f"tjit (compile {time.perf_counter() - t:.2f} s)")
    print(f"  {'':<34} {'budget':>9} {'peak MiB':>9} {'temp MiB':>9} {'step ms':>9} overhead")
    m0 = free.memory_analysis()
    p0, fixed = peak_of(m0), peak_of(m0) - m0.temp_size_in_bytes
    base = median_s(free, (params, *args), repeat)
    row("no budget", m0, base, base)
    budgets = [(f"{int(q * 100)} % of the peak", int(q * p0)) for q in (1.0, 0.5, 0.25)]
    budgets += [(f"args+outs + {int(q * 100)} % of temps", int(fixed + q * m0.temp_size_in_bytes))
                for q in (0.75, 0.5, 0.25)]
    for label, budget in budgets:
        t = time.perf_counter()
        try:
            c = tjit.jit(f, memory_budget=budget).lower(params, *args).compile()
        except MemoryBudgetError as e:
            print(f"  {label:<34} {budget / MIB:9.1f}   unreachable: smallest peak "
                  f"{e.smallest_peak / MIB:.1f} MiB")
            continue
        plan_s = time.perf_counter() - t
        row(label + f" ({plan_s:.1f} s)", c.memory_analysis(),
            median_s(c, (params, *args), repeat), base, budget)
    smallest = {}
    for splits in (1, remat.MAX_SPLITS):     # one split point, and the greedy sequence
        saved, remat.MAX_SPLITS = remat.MAX_SPLITS, splits
        t = time.perf_counter()
        try:
            tjit.jit(f, memory_budget=1).lower(params, *args).compile()
        except MemoryBudgetError as e:
            smallest[splits] = (e.smallest_peak, time.perf_counter() - t)
        finally:
            remat.MAX_SPLITS = saved
    print("  smallest peak reachable: " + ", ".join(
        f"{n} split{'s' * (n > 1)} {peak / MIB:.1f} MiB (searched in {secs:.1f} s)"
        for n, (peak, secs) in smallest.items()))


def bench_jax(params, args, repeat, two_steps):
    print(f"JAX {jax.__version__}")
    print(f"  {'':<34} {'':>9} {'peak MiB':>9} {'temp MiB':>9} {'step ms':>9} overhead")
    jparams = [(jjnp.asarray(w), jjnp.asarray(b)) for w, b in params]
    jargs = [jjnp.asarray(a) for a in args]
    base = None
    for label, layer_fn in (("plain", None), ("checkpoint on every layer", jax.checkpoint)):
        f = make_two_steps(jjnp, jax, layer_fn) if two_steps else \
            jax.value_and_grad(make_loss(jjnp, layer_fn))
        c = jax.jit(f).lower(jparams, *jargs).compile()
        secs = median_s(c, (jparams, *jargs), repeat)
        base = base or secs
        row(label, c.memory_analysis(), secs, base)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--two-steps", action="store_true",
                    help="two SGD steps in one jit (a program with two peaks)")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    params = [((rng.standard_normal((a.width, a.width)) / np.sqrt(a.width)).astype(np.float32),
               np.zeros(a.width, np.float32)) for _ in range(a.layers)]
    args = [rng.standard_normal((a.batch, a.width)).astype(np.float32)
            for _ in range(2 if a.two_steps else 1)]
    what = "two SGD steps" if a.two_steps else "value_and_grad"
    print(f"{a.layers}-layer tanh MLP, width {a.width}, batch {a.batch}: "
          f"jit({what}), float32, median of {a.repeat}")
    bench_tjit(params, args, a.repeat, a.two_steps)
    if jax is not None:
        bench_jax(params, args, a.repeat, a.two_steps)


if __name__ == "__main__":
    main()
