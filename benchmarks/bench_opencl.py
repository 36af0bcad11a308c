"""The OpenCL backend (``jit(f, backend="opencl")``) beside NumPy and the CPU backend.

    python benchmarks/bench_opencl.py [--quick]

Each case is first checked against a NumPy reference (float64 where it helps), then
timed: the median of several calls after a warm-up call (which builds the OpenCL
program, or loads it from the disk cache). Times include the host-device copies of
arguments and results (arrays are host NumPy arrays). On PoCL (an OpenCL CPU device)
this measures the rendered kernels on the same cores as the LLVM backend; on a GPU
driver, the device. The NumPy column times the reference itself (float64 for the dot
and the MLP step), not a tuned NumPy program. Not a test: nothing here asserts a time.

Cases: Mish forward on 2^20 floats; row softmax (1024, 512); a dot (256, 256) @ (256,
256) and a (512, 512) @ (512, 512) one (also with --quick) as tiled kernels (no BLAS on
OpenCL: ``lower/c/tiled_dot.py``); a 64-128-10 MLP SGD step (batch 128, jit(grad)), the
weight updates folded into the gradients' dot kernels; the first call of a polymorphic
jit at a new batch size (nothing is built).
"""

import argparse
import statistics
import sys
import time

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import nn
from tjit.devices import opencl_context


def _median_ms(fn, *args, repeat=7):
    fn(*args)
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3


def _mish(x):
    return x * jnp.tanh(nn.softplus(x))


def _mish_np(x):
    return x * np.tanh(np.log1p(np.exp(x)))


def _softmax_np(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _loss(p, x, y):
    h = jnp.tanh(x @ p[0] + p[1])
    return jnp.mean((h @ p[2] - y) ** 2)


def _step(p, x, y):
    g = tjit.grad(_loss)(p, x, y)
    return [a - 0.1 * b for a, b in zip(p, g)]


def _step_np(p, x, y):
    w1, b1, w2 = (a.astype(np.float64) for a in p)
    h = np.tanh(x @ w1 + b1)
    d = 2 * (h @ w2 - y) / y.size
    gw2 = h.T @ d
    dh = (d @ w2.T) * (1 - h ** 2)
    return [w1 - 0.1 * (x.T @ dh), b1 - 0.1 * dh.sum(0), w2 - 0.1 * gw2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller arrays")
    opts = ap.parse_args()
    reason = opencl_context.unavailable_reason()
    if reason:
        sys.exit(f"bench_opencl: {reason}")
    dev = opencl_context.get()
    s = 4 if opts.quick else 1
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1 << 20) // s).astype(np.float32)
    r = rng.standard_normal((1024 // s, 512)).astype(np.float32)
    a = rng.standard_normal((256 // s, 256)).astype(np.float32)
    b = rng.standard_normal((256, 256 // s)).astype(np.float32)
    a2, b2 = (rng.standard_normal((512, 512)).astype(np.float32) for _ in range(2))
    p = [rng.standard_normal((64, 128)).astype(np.float32) * 0.1,
         np.zeros(128, np.float32), rng.standard_normal((128, 10)).astype(np.float32) * 0.1]
    xb = rng.standard_normal((128, 64)).astype(np.float32)
    yb = rng.standard_normal((128, 10)).astype(np.float32)
    cases = [
        ("mish 2^20", _mish, _mish_np, (x,), 1e-5),
        ("row softmax", lambda v: nn.softmax(v, axis=-1), _softmax_np, (r,), 1e-5),
        ("dot 256^3", lambda u, v: u @ v, lambda u, v: u.astype(np.float64) @ v, (a, b),
         1e-4),
        ("dot 512^2", lambda u, v: u @ v, lambda u, v: u.astype(np.float64) @ v, (a2, b2),
         1e-4),
        ("mlp sgd step", _step, _step_np, (p, xb, yb), 1e-4),
    ]
    print(f"OpenCL device: {dev.name!r} ({dev.device.platform.name}, driver "
          f"{dev.device.driver_version})")
    print(f"{'case':<16}{'opencl ms':>12}{'cpu ms':>10}{'ref ms':>10}{'max rel err':>13}")
    for name, f, ref, args, tol in cases:
        ocl, cpu = tjit.jit(f, backend="opencl"), tjit.jit(f, backend="cpu")
        got = tjit.tree_util.tree_leaves(ocl(*args))
        want = tjit.tree_util.tree_leaves(ref(*args))
        err = max(float(np.max(np.abs(np.asarray(g, np.float64) - w)) /
                        max(1e-30, float(np.max(np.abs(w))))) for g, w in zip(got, want))
        status = "" if err <= tol else f"  MISMATCH (tolerance {tol:g})"
        print(f"{name:<16}{_median_ms(ocl, *args):>12.3f}{_median_ms(cpu, *args):>10.3f}"
              f"{_median_ms(ref, *args):>10.3f}{err:>13.2e}{status}")
    g = tjit.jit(lambda v: jnp.sum(jnp.tanh(v), axis=1), backend="opencl",
                 polymorphic_shapes=["(n, 128)"])
    g(rng.standard_normal((32, 128)).astype(np.float32))
    builds = opencl_context.STATS["builds"]
    t = time.perf_counter()
    g(rng.standard_normal((33, 128)).astype(np.float32))
    print(f"new batch size of a polymorphic jit: {(time.perf_counter() - t) * 1e3:.2f} ms, "
          f"{opencl_context.STATS['builds'] - builds} programs built")


if __name__ == "__main__":
    main()
