"""Memory budgets across batch sizes and through loops over layers.

    python benchmarks/bench_remat_sizes.py [--layers 8] [--width 32] [--repeat 5]

1. ``jit(value_and_grad(mlp), memory_budget=B)`` called at many batch sizes, with
   automatic dynamic shapes (the dynamic program where its peak fits B, the same program
   planned within B at a larger size for the sizes where that fits) and without them
   (a program per size, as every budgeted jit did before): traces, compiles, the total
   time of the calls and the largest peak a call ran at (always <= B).
2. A tanh MLP written as ``lax.scan`` over stacked layers: the plain step's peak, the
   peak and median step time under a budget halfway to what checkpointing the scan
   body reaches (``transforms/loop_remat.py``), beside JAX with ``jax.checkpoint`` on
   the body when JAX is installed.

Measured here (2 shared cores, rough times; the per-shape total varies 1.5-3.0 s with
the load):

    batch sizes 16..66 (26 sizes), 8 layers, width 32, budget 143620 bytes
      dynamic shapes   2 traces,   3 compiles,  0.6 s, largest peak 143620
      per-shape       26 traces,  26 compiles,  1.5 s, largest peak 143620
    scan over 16 layers, width 32, batch 64: plain peak 569348 bytes (before, no budget
    under it was reachable); smallest with checkpointed bodies in 4 chunks of 4: 294916
      plain              peak   569348 bytes, step 0.14 ms
      budget 432132      peak   315396 bytes, step 0.16 ms   (checkpointed bodies)
    (JAX is not installed here: its rows are not measured)
"""

import argparse
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax


def mlp_loss(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.sum(h ** 2)


def scan_loss(ws, bs, x):
    def layer(h, wb):
        return jnp.tanh(h @ wb[0] + wb[1]), None
    h, _ = lax.scan(layer, x, (ws, bs))
    return jnp.sum(h ** 2)


def _peak_of(jitted, b, width):
    """The largest peak among the programs calls of batch ``b`` ran."""
    for k, e in jitted._cache.items():
        if len(k) == 6 and k[1][-1][0] == (b, width):
            sizes = {p: b for spec in e.in_specs or () if spec for p in spec
                     if type(p) is not int}
            return e.executable.memory_analysis(sizes).peak_memory_in_bytes
    return None


def batch_sizes(args, rng):
    params = [((rng.standard_normal((args.width,) * 2) / np.sqrt(args.width))
               .astype(np.float32), np.zeros(args.width, np.float32))
              for _ in range(args.layers)]
    f = tjit.value_and_grad(mlp_loss)
    xs = {b: rng.standard_normal((b, args.width)).astype(np.float32)
          for b in range(16, 67, 2)}
    try:    # (the smallest peak the largest batch can reach: every size can meet it)
        tjit.jit(f, memory_budget=1, dynamic_shapes=False)(params, xs[max(xs)])
    except tjit.xla_like.remat.MemoryBudgetError as e:
        budget = e.smallest_peak
    print(f"batch sizes 16..66 ({len(xs)} sizes), {args.layers} layers, width "
          f"{args.width}, budget {budget} bytes")
    for dyn in (True, False):
        g = tjit.jit(f, memory_budget=budget, dynamic_shapes=dyn)
        t0 = time.perf_counter()
        for x in xs.values():
            g(params, x)
        took = time.perf_counter() - t0
        top = max(p for b in xs if (p := _peak_of(g, b, args.width)) is not None)
        print(f"  {'dynamic shapes' if dyn else 'per-shape':14s} {g.trace_count:3d} traces, "
              f"{g.compile_count:3d} compiles, {took:5.1f} s, largest peak {top}")


def scan_layers(args, rng):
    n, w, b = 2 * args.layers, args.width, 64
    ws = (rng.standard_normal((n, w, w)) / np.sqrt(w)).astype(np.float32)
    bs = np.zeros((n, w), np.float32)
    x = rng.standard_normal((b, w)).astype(np.float32)
    f = tjit.value_and_grad(scan_loss, argnums=(0, 1))
    plain = tjit.jit(f)
    p0 = plain.lower(ws, bs, x).compile().memory_analysis().peak_memory_in_bytes
    try:
        tjit.jit(f, memory_budget=1)(ws, bs, x)
    except tjit.xla_like.remat.MemoryBudgetError as e:
        lowest = e.smallest_peak
    budget = (p0 + lowest) // 2
    budgeted = tjit.jit(f, memory_budget=budget)
    print(f"scan over {n} layers, width {w}, batch {b}: plain peak {p0} bytes, smallest "
          f"with checkpointed bodies (in chunks) {lowest}")
    for name, g in (("plain", plain), (f"budget {budget}", budgeted)):
        g(ws, bs, x)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            tjit.block_until_ready(g(ws, bs, x))
            times.append(time.perf_counter() - t0)
        peak = g.lower(ws, bs, x).compile().memory_analysis().peak_memory_in_bytes
        print(f"  {name:18s} peak {peak:8d} bytes, step {statistics.median(times) * 1e3:.2f} ms")
    try:
        import jax
    except ImportError:
        return
    def layer(h, wb):
        return jax.numpy.tanh(h @ wb[0] + wb[1]), None

    def jax_loss(ws, bs, x, body):
        h, _ = jax.lax.scan(body, x, (ws, bs))
        return jax.numpy.sum(h ** 2)
    for name, body in (("JAX plain", layer), ("JAX checkpoint(body)", jax.checkpoint(layer))):
        g = jax.jit(jax.value_and_grad(lambda a, c, d, body=body: jax_loss(a, c, d, body),
                                       argnums=(0, 1)))
        c = g.lower(ws, bs, x).compile()
        m = c.memory_analysis()
        peak = (m.argument_size_in_bytes + m.output_size_in_bytes - m.alias_size_in_bytes
                + m.temp_size_in_bytes)
        print(f"  {name:18s} peak {peak:8d} bytes")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    batch_sizes(args, rng)
    scan_layers(args, rng)


if __name__ == "__main__":
    main()
