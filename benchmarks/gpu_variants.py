"""The pointwise variants of the CUDA backend (``TJIT_CUDA_POINTWISE``) side by side.

    python benchmarks/gpu_variants.py [--quick] [--variants 1x1,2x1,...] [--json out.json]

Each variant (``devices/cuda_pointwise.py``: V adjacent 16-byte vectors a chunk, U
chunks a grid-stride step per thread) compiles Mish forward and jit(grad(sum(mish)))
on 8x32x224x224 float32 and a few elementwise programs (x*2+1 on as many points as
Mish: the same bytes with almost no math, so it tells a bandwidth-bound kernel from a
math-bound one; two inputs; a row broadcast over rows that misalign every other vector;
float64; a small launch-bound array). Every result is checked against NumPy and
compared bit for bit with the default variant's (the variants must give the same
bits). Then, in interleaved rounds (so drift hits every variant alike), each call is
timed on the GPU between CUDA events (its kernels' time) and on the host (latency,
each call waited for); medians are printed in ms with the copy bound (bytes read +
written at the measured device-copy bandwidth) and the fraction of copy bandwidth
reached. Not a test.
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# bench_gpu's helpers without JAX and PyTorch (nothing here compares with them, and
# importing them costs seconds of the GPU run): a None module is an ImportError
sys.modules.setdefault("jax", None)
sys.modules.setdefault("torch", None)
import bench_cpu as C
import bench_gpu as G
import gpu_profile as P

import tjit
import tjit.numpy as jnp
from tjit.devices import cuda, cuda_pointwise


def _cases(quick):
    """(label, function, host args, NumPy reference, bytes moved)."""
    rng = np.random.default_rng(0)
    s = 4 if quick else 1
    x = (rng.standard_normal((8, 32, 224 // s, 224 // s)) * 3).astype(np.float32)
    flat = rng.standard_normal(x.size).astype(np.float32)  # (Mish's bytes, almost no math)
    a, b = (rng.standard_normal((4096 // s, 4096)).astype(np.float32) for _ in range(2))
    rows = rng.standard_normal((8192 // s, 1001)).astype(np.float32)
    w = rng.standard_normal(1001).astype(np.float32)
    d = rng.standard_normal(1 << (21 if quick else 23))
    small = rng.standard_normal((256, 1024)).astype(np.float32)
    mish = C._mish(jnp)
    return [
        ("Mish fwd " + str(x.shape), mish, [x], C._mish(np)(x), 2 * x.nbytes),
        ("Mish grad " + str(x.shape), tjit.grad(lambda v: jnp.sum(mish(v))), [x],
         C._np_mish_grad(x), 2 * x.nbytes),
        (f"x*2+1 ({flat.size},)", lambda v: v * 2 + 1, [flat], flat * 2 + 1,
         2 * flat.nbytes),
        (f"a*b+a {a.shape}", lambda p, q: p * q + p, [a, b], a * b + a, 3 * a.nbytes),
        (f"x*w+1 rows {rows.shape}", lambda r, v: r * v + 1, [rows, w], rows * w + 1,
         2 * rows.nbytes),
        (f"f64 exp(x)*x ({d.size},)", lambda v: jnp.exp(v) * v, [d], np.exp(d) * d,
         2 * d.nbytes),
        (f"tanh {small.shape}", jnp.tanh, [small], np.tanh(small), 2 * small.nbytes),
    ]


def compile_variants(cases, variants):
    """{(case, variant): (jitted, device args)}: each compiled under its variant."""
    put = G.puts()["tjit"]
    out = {}
    for i, (label, fn, args, want, _) in enumerate(cases):
        dev = [put(a) for a in args]
        first = None
        for v in variants:
            def own(*a, _fn=fn):      # (jit(f) of one function shares its compiled
                return _fn(*a)        # signatures, as JAX's: a new function per variant)
            os.environ[cuda_pointwise.ENV] = v
            try:
                f = tjit.jit(own)     # (compiled now, under this variant)
                got = np.asarray(f(*dev))
            finally:
                del os.environ[cuda_pointwise.ENV]
            if got.dtype != want.dtype:
                G.FAILED.append(f"{label} {v}: {got.dtype} result, NumPy's is {want.dtype}")
            err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
            if err > 1e-4:
                G.FAILED.append(f"{label} {v}: differs from NumPy (max err {err:.2e})")
            shape = launches(f, dev)
            if first is None:
                first, first_shape = got, shape
            elif shape == first_shape:
                G.FAILED.append(f"{label} {v}: launches as {variants[0]} does ({shape})")
            elif not np.array_equal(got.view(np.uint8), first.view(np.uint8)):
                G.FAILED.append(f"{label} {v}: not the bits of {variants[0]}")
            out[i, v] = (f, dev)
    return out


def launches(f, dev):
    """The pointwise kernels' launch shapes of ``f`` (vector points, unroll, grid)."""
    exe, raw = P.capture(f, dev)
    runner = exe._runner(raw)
    sizes = {str(s): int(v) for s, v in runner.env.items()}
    shapes = []
    for src in exe.sources.values():
        if src.launch.kind == "pointwise":
            g, b = src.launch.grid(sizes, max_groups=cuda.MAX_GROUPS)
            shapes.append(f"{src.launch.vector}pt x{src.launch.unroll} {g}x{b}")
    return "; ".join(shapes)


def time_round(f, dev, calls):
    """(GPU ms, latency ms) medians over ``calls`` calls, each waited for."""
    cp = G.cp
    gpu, lat = [], []
    for _ in range(calls):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        G.gpu_sync()
        t = time.perf_counter()
        e0.record()
        r = f(*dev)
        e1.record()
        tjit.block_until_ready(r)
        lat.append((time.perf_counter() - t) * 1e3)
        e1.synchronize()
        gpu.append(cp.cuda.get_elapsed_time(e0, e1))
    return statistics.median(gpu), statistics.median(lat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--variants", default=",".join(cuda_pointwise.VARIANTS))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--json")
    cfg = ap.parse_args()
    variants = cfg.variants.split(",")
    for v in variants:
        cuda_pointwise.parse(v)
    tjit.config.update("jax_enable_x64", True)     # (the float64 case; float32 ones stay)
    if G.cp is None or tjit.default_backend() != "gpu":
        sys.exit(f"no usable GPU for tjit: {cuda.unavailable_reason()}")
    bw = G.copy_bandwidth()
    print(f"GPU {G.cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, copy "
          f"bandwidth {bw / 1e9:.0f} GB/s; variants {', '.join(variants)} (VxU: V vectors "
          f"a chunk, U chunks a step); ms as GPU time (% of copy bandwidth) / latency, "
          f"medians of {cfg.rounds} interleaved rounds of {cfg.calls} calls")
    cases = _cases(cfg.quick)
    t0 = time.perf_counter()
    built = compile_variants(cases, variants)
    print(f"(compiled {len(built)} programs in {time.perf_counter() - t0:.1f} s)")
    times = {key: [] for key in built}
    for _ in range(cfg.rounds):
        for key, (f, dev) in built.items():
            times[key].append(time_round(f, dev, cfg.calls))
    rows = []
    for i, (label, *_, nbytes) in enumerate(cases):
        bound = nbytes / bw * 1e3
        row = {"case": label, "bound_ms": bound, "variants": {}}
        print(f"\n{label}: copy bound {bound:.4f} ms")
        for v in variants:
            gpu = statistics.median(t[0] for t in times[i, v])
            lat = statistics.median(t[1] for t in times[i, v])
            shape = launches(*built[i, v])
            row["variants"][v] = {"gpu_ms": gpu, "latency_ms": lat, "launch": shape}
            print(f"  {v}  {gpu:8.4f} ({bound / gpu:4.0%}) / {lat:7.4f}   {shape}")
        rows.append(row)
    for f in G.FAILED:
        print("MISMATCH/FAILURE:", f)
    if cfg.json:
        with open(cfg.json, "w") as fh:
            json.dump({"bandwidth": bw, "rows": rows, "failed": G.FAILED}, fh, indent=1)


if __name__ == "__main__":
    main()
