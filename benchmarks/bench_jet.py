"""Taylor-mode (``jet``) vs nested ``jvp`` for K-th derivatives, tjit and JAX, on the CPU.

    /work/jaxvenv/bin/python benchmarks/bench_jet.py [--repeat 21] [--orders 2 4 6]

The function is a small tanh network applied to a batch of points along a direction,
``f(x) = sum(tanh(W2 tanh(W1 x + b1)) * v)`` with x of shape (64, 256); the quantity is
the K-th derivative of ``t -> f(x + t u)`` at 0. ``jet`` gets it in one pass costing
O(K^2) per nonlinearity; nested jvp in ``2^K`` tangent propagations. Each variant is
jitted once (compile time not counted), then timed: median of ``repeat`` calls, in
milliseconds. Results are checked against each other first (tjit's jet vs tjit's
nested jvp, and vs JAX's jet when jax is importable: the interpreter above has both;
a disagreement is printed, not fatal).

Measured on the shared 2-core development machine (JAX 0.10.2 CPU), ms, median of 11:

   K   tjit jet  tjit jvp^K   JAX jet  JAX jvp^K
   2      0.305      0.254      0.840      0.352
   4      0.487      0.350      1.144      0.450
   6      0.690      0.446      8.089      0.832

tjit's jet is 2.3-12x faster than JAX's jet here; nested jvp along one direction is
cheaper than its 2^K form suggests in both libraries (common subexpressions of the
repeated tangents are merged), so at these orders it still beats jet by 1.2-1.5x in
tjit. At K = 2, JAX's jit(jet(f)) returned NaN (its eager jet gives 159.585, as tjit's
jet and both nested jvps).
"""

import argparse
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as tjnp
from tjit.experimental.jet import jet as tjit_jet


def network(np_):
    rng = np.random.RandomState(0)
    w1 = (rng.randn(256, 256) / 16).astype(np.float32)
    w2 = (rng.randn(256, 256) / 16).astype(np.float32)
    b1 = rng.randn(256).astype(np.float32)
    v = rng.randn(256).astype(np.float32)

    def f(x):
        return np_.sum(np_.tanh(np_.tanh(x @ w1 + b1) @ w2) * v)
    return f


def by_jet(jet, f, order):
    def kth(x, u, zero):
        series = [u] + [zero] * (order - 1)
        return jet(f, (x,), (series,))[1][order - 1]
    return kth


def by_nested_jvp(jvp, f, order):
    def kth(x, u, zero):
        g = f
        for _ in range(order):
            g = (lambda h: lambda y: jvp(h, (y,), (u,))[1])(g)
        return g(x)
    return kth


def median_ms(fn, args, repeat):
    fn(*args).block_until_ready()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args).block_until_ready()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--orders", type=int, nargs="+", default=[2, 4, 6])
    args = parser.parse_args()
    rng = np.random.RandomState(1)
    x = rng.randn(64, 256).astype(np.float32)
    u = rng.randn(64, 256).astype(np.float32)
    z = np.zeros_like(u)
    try:
        import jax
        import jax.numpy as jjnp
        from jax.experimental.jet import jet as jax_jet
    except ImportError:
        jax = None
    f = network(tjnp)
    print(f"{'K':>2} {'tjit jet':>10} {'tjit jvp^K':>11} {'JAX jet':>9} {'JAX jvp^K':>10}"
          f"   (ms, median of {args.repeat})")
    for k in args.orders:
        a = tjit.jit(by_jet(tjit_jet, f, k))
        b = tjit.jit(by_nested_jvp(tjit.jvp, f, k))
        ra, rb = np.asarray(a(x, u, z)), np.asarray(b(x, u, z))
        np.testing.assert_allclose(ra, rb, rtol=2e-3, atol=1e-3 * abs(float(rb)))
        row = [median_ms(a, (x, u, z), args.repeat), median_ms(b, (x, u, z), args.repeat)]
        if jax is not None:
            jf = network(jjnp)
            c = jax.jit(by_jet(jax_jet, jf, k))
            d = jax.jit(by_nested_jvp(jax.jvp, jf, k))
            rc = float(np.asarray(c(x, u, z)))
            if not abs(rc - float(ra)) <= 2e-3 * abs(float(rb)):
                print(f"   (K={k}: JAX's jit(jet) gives {rc}, tjit's jet {float(ra)}, nested "
                      f"jvp {float(rb)})")
            row += [median_ms(c, (x, u, z), args.repeat), median_ms(d, (x, u, z), args.repeat)]
        print(f"{k:>2} " + " ".join(f"{t:>10.3f}" for t in row))


if __name__ == "__main__":
    main()
