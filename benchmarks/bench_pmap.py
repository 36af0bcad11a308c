"""pmap on N CPU devices (threads of one process) beside jit on one device, and beside
jax.pmap when JAX is installed (run it with XLA_FLAGS set, as below).

    TJIT_NUM_CPU_DEVICES=4 XLA_FLAGS=--xla_force_host_platform_device_count=4 \\
        python benchmarks/bench_pmap.py [--devices 4] [--reps 20] [--cases shard_map]

Cases:

* allreduce: ``pmap(lambda x: lax.psum(x, "i"))`` over N devices of 1 KB ... 16 MB of
  float32 each, beside NumPy's ``X.sum(0)`` on the stacked array (the same arithmetic in
  one thread, without the per-device split and stack) and jax.pmap's psum;
* data-parallel MLP step: the gradient of the README-size MLP (784-512-512-10, float32)
  on a global batch of 256, as ``pmap(pmean(grad(loss)))`` over N devices (N shards of
  256 / N) beside ``jit(grad(loss))`` on the whole batch on one device;
* jit(shard_map): ``jit(shard_map(body, mesh, P("i"), P("i")))`` over a 1-D mesh of the N
  devices (blocks on the devices' threads) beside its sequential definition (the nested
  vmap(axis_name) form traced into jit: one program), the unsharded function under jit
  and jax.jit(shard_map) when JAX is installed, for a compute-heavy body (6 rounds of
  tanh and sin over a 2048 x 1024 float32 array, then a pmean). The CPU kernels split
  their own work over ``TJIT_NUM_THREADS`` (default: the cores) threads, so set
  ``TJIT_NUM_THREADS=1`` to see what the devices' threads alone give. Times are
  interleaved medians (the variants take turns, so a change of load hits all).

Each time is the median of ``--reps`` calls after a warm-up call (compilation excluded).
"""

import argparse
import os
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as tnp
from tjit import lax

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = jnp = None


def median_time(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def block(x):
    return x.block_until_ready() if hasattr(x, "block_until_ready") else x


def bench_allreduce(n, reps):
    print(f"allreduce over {n} devices (median seconds; bytes per device)")
    print(f"{'bytes':>10} {'tjit pmap':>12} {'numpy sum':>12} {'jax pmap':>12} "
          f"{'tjit GB/s':>10}")
    tj = tjit.pmap(lambda x: lax.psum(x, "i"), "i")
    jx = jax.pmap(lambda x: jax.lax.psum(x, "i"), "i") if jax is not None else None
    for nbytes in (1 << 10, 1 << 16, 1 << 20, 1 << 24):
        X = np.random.default_rng(0).standard_normal((n, nbytes // 4)).astype(np.float32)
        t_tj = median_time(lambda X=X: block(tj(X)), reps)
        t_np = median_time(lambda X=X: np.broadcast_to(X.sum(0), X.shape).copy(), reps)
        t_jx = median_time(lambda X=X: block(jx(X)), reps) if jx is not None else float("nan")
        print(f"{nbytes:>10} {t_tj:>12.6f} {t_np:>12.6f} {t_jx:>12.6f} "
              f"{n * nbytes / t_tj / 1e9:>10.2f}")


def mlp(np_mod):
    def loss(params, x, labels):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = np_mod.maximum(h, 0.0)
        h = h - np_mod.max(h, axis=1, keepdims=True)
        logp = h - np_mod.log(np_mod.sum(np_mod.exp(h), axis=1, keepdims=True))
        return -np_mod.mean(np_mod.sum(logp * labels, axis=1))
    return loss


def bench_mlp(n, reps, batch=256):
    rng = np.random.default_rng(1)
    sizes = (784, 512, 512, 10)
    params = [(rng.standard_normal((a, b)).astype(np.float32) / np.sqrt(a),
               np.zeros(b, np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    xs, ys = x.reshape(n, batch // n, 784), y.reshape(n, batch // n, 10)
    loss = mlp(tnp)
    one = tjit.jit(tjit.grad(loss))
    par = tjit.pmap(lambda p, a, b: lax.pmean(tjit.grad(loss)(p, a, b), "i"), "i",
                    in_axes=(None, 0, 0))
    t_one = median_time(lambda: [block(g) for g, _ in one(params, x, y)], reps)
    t_par = median_time(lambda: [block(g) for g, _ in par(params, xs, ys)], reps)
    line = (f"MLP grad step, global batch {batch}: jit on 1 device {t_one * 1e3:.2f} ms, "
            f"pmap on {n} devices {t_par * 1e3:.2f} ms (speed-up {t_one / t_par:.2f}x)")
    if jax is not None:
        jloss = mlp(jnp)
        jpar = jax.pmap(lambda p, a, b: jax.lax.pmean(jax.grad(jloss)(p, a, b), "i"), "i",
                        in_axes=(None, 0, 0))
        jone = jax.jit(jax.grad(jloss))
        t_jone = median_time(lambda: jax.block_until_ready(jone(params, x, y)), reps)
        t_jpar = median_time(lambda: jax.block_until_ready(jpar(params, xs, ys)), reps)
        line += (f"; jax: jit {t_jone * 1e3:.2f} ms, pmap {t_jpar * 1e3:.2f} ms")
    print(line)


def interleaved_medians(fns, reps):
    """Median seconds of each of ``fns``, called in turns (a load change hits all)."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(reps):
        for t, fn in zip(times, fns):
            t0 = time.perf_counter()
            fn()
            t.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def _chain(m, b):
    """The compute-heavy body: transcendental elementwise work on the block."""
    for _ in range(6):
        b = m.tanh(b) * 0.9 + m.sin(b) * 0.1
    return b


def _block_step(b):
    c = _chain(tnp, b)
    return c * lax.pmean(tnp.mean(c), "i")


def _whole_step(x):
    c = _chain(tnp, x)
    return c * tnp.mean(c)


def _jax_block_step(b):
    c = _chain(jnp, b)
    return c * jax.lax.pmean(jnp.mean(c), "i")


def bench_shard_map(n, reps):
    from tjit.experimental.shard_map import shard_map
    from tjit.experimental.shard_map_traced import vmap_form
    from tjit.sharding import P
    x = np.random.default_rng(2).standard_normal((2048, 1024)).astype(np.float32)
    mesh = tjit.make_mesh((n,), ("i",))
    threaded = tjit.jit(shard_map(_block_step, mesh, in_specs=P("i"), out_specs=P("i")))
    sequential = tjit.jit(lambda x: vmap_form(lambda b: [_block_step(b)], mesh, [P("i")],
                                              [P("i")], [x], "sequential")[0])
    one = tjit.jit(_whole_step)
    fns = [lambda f=f: np.asarray(f(x)) for f in (threaded, sequential, one)]
    if jax is not None:
        from jax.experimental.shard_map import shard_map as jax_shard_map
        from jax.sharding import Mesh
        from jax.sharding import PartitionSpec as JaxP
        jf = jax.jit(jax_shard_map(_jax_block_step, Mesh(np.array(jax.devices()[:n]), ("i",)),
                                   in_specs=JaxP("i"), out_specs=JaxP("i")))
        fns.append(lambda: jax.block_until_ready(jf(x)))
    t = interleaved_medians(fns, reps) + [float("nan")] * (4 - len(fns))
    print(f"jit(shard_map) over {n} devices, {x.shape} float32, 6 x (tanh, sin) (median "
          f"ms): threads {t[0] * 1e3:.2f}, sequential definition {t[1] * 1e3:.2f} "
          f"(speed-up {t[1] / t[0]:.2f}x), unsharded jit {t[2] * 1e3:.2f}, "
          f"jax.jit(shard_map) {t[3] * 1e3:.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=tjit.device_count())
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--cases", default="allreduce,mlp,shard_map",
                    help="comma-separated: allreduce, mlp, shard_map")
    args = ap.parse_args()
    if args.devices > tjit.device_count():
        raise SystemExit(f"set TJIT_NUM_CPU_DEVICES={args.devices} (tjit sees "
                         f"{tjit.device_count()} devices)")
    print(f"tjit devices: {tjit.device_count()}, cores: {os.cpu_count()}"
          + (f", jax devices: {jax.device_count()}" if jax is not None else ""))
    ap_cases = args.cases.split(",")
    if "allreduce" in ap_cases:
        bench_allreduce(args.devices, args.reps)
    if "mlp" in ap_cases:
        bench_mlp(args.devices, args.reps)
    if "shard_map" in ap_cases:
        bench_shard_map(args.devices, args.reps)


if __name__ == "__main__":
    main()
