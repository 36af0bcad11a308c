"""pmap on N CPU devices (threads of one process) beside jit on one device, and beside
jax.pmap when JAX is installed (run it with XLA_FLAGS set, as below).

    TJIT_NUM_CPU_DEVICES=4 XLA_FLAGS=--xla_force_host_platform_device_count=4 \\
        python benchmarks/bench_pmap.py [--devices 4] [--reps 20]

Cases:

* allreduce: ``pmap(lambda x: lax.psum(x, "i"))`` over N devices of 1 KB ... 16 MB of
  float32 each, beside NumPy's ``X.sum(0)`` on the stacked array (the same arithmetic in
  one thread, without the per-device split and stack) and jax.pmap's psum;
* data-parallel MLP step: the gradient of the README-size MLP (784-512-512-10, float32)
  on a global batch of 256, as ``pmap(pmean(grad(loss)))`` over N devices (N shards of
  256 / N) beside ``jit(grad(loss))`` on the whole batch on one device.

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=tjit.device_count())
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    if args.devices > tjit.device_count():
        raise SystemExit(f"set TJIT_NUM_CPU_DEVICES={args.devices} (tjit sees "
                         f"{tjit.device_count()} devices)")
    print(f"tjit devices: {tjit.device_count()}, cores: {os.cpu_count()}"
          + (f", jax devices: {jax.device_count()}" if jax is not None else ""))
    bench_allreduce(args.devices, args.reps)
    bench_mlp(args.devices, args.reps)


if __name__ == "__main__":
    main()
