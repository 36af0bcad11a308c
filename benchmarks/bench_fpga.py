"""FPGA dataflow designs of the CPU benchmark's programs: the estimate and C simulation.

    python benchmarks/bench_fpga.py [--part u280] [--clock 300] [--cases mish,mlp]

For Mish fwd+bwd, row softmax, layernorm fwd+bwd and the MLP step (bench_cpu.py's
functions and full sizes), plus softmax at a ragged (1000, 1001) and layernorm's
forward pass alone (one read of x), compiles the program for the "hls" backend and prints each
design's stages, streams, DRAM intermediates, estimated resources, II, latency and
memory-bound time on the card (``compiled.hls_report()``), beside tjit's measured CPU
time (median of 5 calls, LLVM backend, this machine) and the H200 latencies in the
README. The C simulation runs at small sizes (``_cases(small=True)``; threads over
bounded FIFOs, a lock per element: far slower than the hardware), checked against the
interpreter; its time is the median of 3 calls after the build. Nothing here
asserts a time.
"""

import argparse
import itertools
import statistics
import sys
import time

import numpy as np

import tjit
import tjit.numpy as jnp

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import bench_cpu as B  # (the programs and their full sizes)

#: README, "Measured on an H200" (latency per call, ms), tjit's CUDA backend.
GPU_MS = {"mish": 0.048 + 0.050, "softmax": 0.228, "layernorm": 0.305, "mlp": 0.800}


def _mish_fwd_bwd(x):
    y, vjp = tjit.vjp(B._mish(jnp), x)
    return y, vjp(jnp.ones_like(y))[0]


def _layernorm_fwd(x):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mu
    return xc / jnp.sqrt(jnp.mean(xc * xc, axis=-1, keepdims=True) + B.EPS)


def _cases(small):
    """name -> (function, example args): bench_cpu's full sizes, or small ones for the
    C simulation (threads over FIFOs: ~10-40 us per element and stream here)."""
    rng = np.random.default_rng(0)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    mish = (8, 1, 64, 64) if small else (8, 32, 224, 224)
    soft = (4, 1, 32, 512) if small else (8, 16, 512, 512)
    n, d = (64, 1024) if small else (8192, 1024)
    hidden, bsz = (64, 16) if small else (1024, 256)
    sizes = [784, hidden, hidden, 10]
    params = [(f32(m, k) / np.sqrt(m), f32(k) * 0.01) for m, k in itertools.pairwise(sizes)]
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, bsz)]
    return {
        "mish": (_mish_fwd_bwd, (f32(*mish),)),
        "softmax": (B._softmax(jnp), (f32(*soft),)),
        "softmax_ragged": (B._softmax(jnp), (f32(*((4, 37) if small else (1000, 1001))),)),
        "layernorm_fwd": (_layernorm_fwd, (f32(n, d),)),
        "layernorm": (tjit.value_and_grad(B._layernorm_loss(jnp), argnums=(0, 1, 2)),
                      (f32(n, d), f32(d), f32(d), f32(n, d))),
        "mlp": (B._mlp_step(jnp, tjit.value_and_grad), (params, f32(bsz, 784), y)),
    }


def _median_ms(fn, n):
    fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3


def _close(got, want):
    for g, w in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        scale = max(1.0, float(np.max(np.abs(w))) if w.size else 1.0)
        assert np.max(np.abs(g - w), initial=0) <= 1e-3 * scale, "C simulation differs"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="u280")
    ap.add_argument("--clock", type=float, default=300)
    ap.add_argument("--cases",
                    default="mish,softmax,softmax_ragged,layernorm,layernorm_fwd,mlp")
    a = ap.parse_args(argv)
    cases, small = _cases(False), _cases(True)
    for name in a.cases.split(","):
        f, args = cases[name]
        cpu = tjit.jit(f)
        cpu_ms = _median_ms(lambda cpu=cpu, args=args: cpu(*args), 5)
        c = tjit.jit(f).lower(*args).compile(backend="hls")
        r = c.hls_report(part=a.part, clock_mhz=a.clock, cpu_ms=cpu_ms,
                         gpu_ms=GPU_MS.get(name), gpu_note="(H200, README)")
        print(f"==== {name}: full size")
        for d in c.executable.designs.values():
            print(" ", d.summary(), "; streams:",
                  ", ".join(f"{s.producer}->{s.consumer}[{s.depth}]" for s in d.streams))
        print(r)
        for d in r.designs:     # (the three bounds side by side)
            print(f"  {d.name}: pipeline {d.compute_s * 1e6:.1f} us, busiest port "
                  f"{d.port_s * 1e6:.1f} us, card memory {d.memory_s * 1e6:.1f} us")
        sf, sargs = small[name]
        sim = tjit.jit(sf, backend="hls")
        t0 = time.perf_counter()
        got = sim(*sargs)
        build = time.perf_counter() - t0
        _close(got, tjit.jit(sf, backend="interpreter")(*sargs))
        ms = _median_ms(lambda sim=sim, sargs=sargs: sim(*sargs), 3)
        shapes = [np.shape(x) for x in tjit.tree_util.tree_leaves(sargs)]
        print(f"C simulation at {shapes}: first call (build) {build:.1f} s, then "
              f"{ms:.1f} ms per call (matches the interpreter)\n")


if __name__ == "__main__":
    main()
