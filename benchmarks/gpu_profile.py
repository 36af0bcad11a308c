"""Where a jitted call's GPU time goes, step by step, on the CUDA backend.

    python benchmarks/gpu_profile.py [--quick] [--cases mlp,softmax,...]

For each ``bench_gpu.py`` case the executable's steps are run one at a time between
CUDA events (after warm-up), so each kernel, gemm and library step gets its own device
time, with its launch shape (grid x block). Then the first compile is profiled in a
fresh process with an empty disk cache (cProfile, cumulative), and the disk-cache
start. Not a test: nothing asserts a time.
"""

import argparse
import cProfile
import io
import os
import pstats
import statistics
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_cpu as C  # noqa: E402
import bench_gpu as G  # noqa: E402

import tjit  # noqa: E402
import tjit.numpy as jnp  # noqa: E402
from tjit.devices import cuda  # noqa: E402


def capture(fn, args):
    """(executable, raw argument list) that jit hands the CUDA executable for fn(*args)."""
    seen = []
    call = cuda.CudaExecutable.call

    def spy(self, flat_args, donated=()):
        seen.append((self, list(flat_args)))
        return call(self, flat_args, donated)
    cuda.CudaExecutable.call = spy
    try:
        fn(*args)
    finally:
        cuda.CudaExecutable.call = call
    return seen[-1]


def describe(runner, step):
    from tjit.xla_like.plan import ControlStep, DotStep, KernelStep
    if isinstance(step, KernelStep):
        src = runner.exe.sources[id(step.kernel)]
        sizes = {str(s): int(v) for s, v in runner.env.items()}
        grid, block = src.launch.grid(sizes, max_groups=cuda.MAX_GROUPS)
        shapes = [runner.shape[v] for v in step.outs]
        return f"kernel {step.kernel.name[:40]} grid {grid}x{block} -> {shapes}"
    if isinstance(step, DotStep):
        return (f"dot {[runner.shape[v] for v in step.ins]} a={step.alpha} b={step.beta}"
                f" -> {[runner.shape[v] for v in step.outs]}")
    if isinstance(step, ControlStep):
        return "control"
    return f"library {getattr(step, 'name', '?')}"


def profile_steps(label, fn, args, rounds=20, show_plan=False):
    cp = G.cp
    exe, raw = capture(fn, args)
    runner = exe._runner(raw)
    if hasattr(runner, "plain_runner"):     # (a graph-replaying runner: its steps one by one)
        runner = runner.plain_runner()
    runner.stream_ptr = cp.cuda.get_current_stream().ptr
    n = len(runner.steps)
    times = [[] for _ in range(n)]
    whole = []
    for r in range(rounds + 2):
        vals = runner.fixed.copy()
        for k, a in zip(runner.param_slots, raw):   # (as the runner's run converts them)
            vals[k] = a if type(a) is cp.ndarray and a.flags.c_contiguous else \
                cp.array(a, order="C")
        for k_out, pos, k_arg, inplace, shape, dtype in runner.aliases:
            if inplace:
                vals[k_out] = vals[k_arg].copy()
        runner.given = ()
        ev = [cp.cuda.Event() for _ in range(n + 1)]
        ev[0].record()
        for i, step in enumerate(runner.steps):
            step(vals)
            ev[i + 1].record()
        ev[-1].synchronize()
        if r >= 2:
            for i in range(n):
                times[i].append(cp.cuda.get_elapsed_time(ev[i], ev[i + 1]))
            whole.append(cp.cuda.get_elapsed_time(ev[0], ev[-1]))
    print(f"\n== {label}: {n} steps, GPU time per call (stepwise, events between) "
          f"{statistics.median(whole):.3f} ms")
    if show_plan:
        print(exe.as_text())
    rows = [(statistics.median(t), i) for i, t in enumerate(times)]
    for ms, i in sorted(rows, reverse=True)[:12]:
        print(f"  {ms:8.4f} ms  #{i:2d} {describe(runner, runner.prog.steps[i])}")


def cases(cfg):
    rng = np.random.default_rng(0)
    put = G.puts()["tjit"]
    out = []
    x = (rng.standard_normal(cfg.mish_shape) * 3).astype(np.float32)
    out.append(("mish grad", tjit.jit(tjit.grad(lambda v: jnp.sum(C._mish(jnp)(v)))),
                [put(x)]))
    x = rng.standard_normal(cfg.softmax_shape).astype(np.float32)
    out.append(("softmax", tjit.jit(C._softmax(jnp)), [put(x)]))
    n, d = cfg.ln_shape
    a = [rng.standard_normal(s).astype(np.float32) for s in ((n, d), (d,), (d,), (n, d))]
    out.append(("layernorm fwd+bwd", tjit.jit(tjit.value_and_grad(
        C._layernorm_loss(jnp), argnums=(0, 1, 2))), [put(v) for v in a]))
    sizes = [784, 1024, 1024, 10]
    params = [(put((rng.standard_normal((m, k)) / np.sqrt(m)).astype(np.float32)),
               put(np.zeros(k, np.float32))) for m, k in zip(sizes, sizes[1:])]
    xb = put(rng.standard_normal((256, 784)).astype(np.float32))
    yb = put(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)])
    out.append(("mlp step", tjit.jit(C._mlp_step(jnp, tjit.value_and_grad)),
                [params, xb, yb]))
    m = cfg.block_n
    v = [put(rng.standard_normal(m).astype(np.float32)) for _ in range(3)]
    out.append(("l2svm block", tjit.jit(C._block(jnp)),
                v + [np.float32(0.3), np.float32(1.7), np.float32(0.05)]))
    m = cfg.ll_n
    out.append(("sum x log uv", tjit.jit(C._log_lik(jnp)),
                [put(rng.random(s).astype(np.float32)) for s in ((m, m), (m, 50), (m, 50))]))
    for shape in cfg.column_shapes:     # (gpu_rows.py's weighted column sums)
        out.append((f"column sum {shape}", tjit.jit(lambda x, y: (x * y[:, None]).sum(0)),
                    [put(rng.standard_normal(shape).astype(np.float32)),
                     put(rng.standard_normal(shape[0]).astype(np.float32))]))
    return out


_FIRST = """
import cProfile, pstats, sys, time, numpy as np
sys.path.insert(0, sys.argv[3])
import tjit, tjit.numpy as jnp
dev = tjit.devices("gpu")[0]
if sys.argv[2] == "mlp":        # (bench_cpu's MLP step: cuBLAS's first gemms too)
    import bench_cpu as C
    rng = np.random.default_rng(0)
    sizes = [784, 1024, 1024, 10]
    args = [[(tjit.device_put(rng.standard_normal((m, k)).astype(np.float32), dev),
              tjit.device_put(np.zeros(k, np.float32), dev)) for m, k in zip(sizes, sizes[1:])],
            tjit.device_put(rng.standard_normal((256, 784)).astype(np.float32), dev),
            tjit.device_put(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 256)], dev)]
    f = C._mlp_step(jnp, tjit.value_and_grad)
else:
    def f(x):
        return jnp.tanh(jnp.exp(-x * x) + jnp.sin(x) * 2 - jnp.cos(x) / 3 + jnp.log1p(x * x)) ** 2
    args = [tjit.device_put(np.linspace(-2, 2, 4096, dtype=np.float32), dev)]
tjit.block_until_ready(args)
p = cProfile.Profile()
t = time.perf_counter()
p.enable()
tjit.block_until_ready(tjit.jit(f)(*args))
p.disable()
print("first call", round((time.perf_counter() - t) * 1e3, 1), "ms")
pstats.Stats(p).sort_stats("cumulative").print_stats(int(sys.argv[1]))
"""


def profile_compile(lines, cases=("elementwise", "mlp")):
    here = os.path.dirname(os.path.abspath(__file__))
    for case in cases:
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, TJIT_CACHE_DIR=d)
            for what in ("empty disk cache", "warm disk cache"):
                out = subprocess.run([sys.executable, "-c", _FIRST, str(lines), case, here],
                                     env=env, capture_output=True, text=True, check=False)
                print(f"\n== first compile of {case}, {what}")
                print("\n".join(out.stdout.splitlines()[:lines + 12]) or out.stderr[-2000:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cases", default="")
    ap.add_argument("--compile-lines", type=int, default=35)
    cfg = ap.parse_args()
    q = cfg.quick
    cfg.mish_shape = (8, 32, 56, 56) if q else (8, 32, 224, 224)
    cfg.softmax_shape = (8, 16, 128, 512) if q else (8, 16, 512, 512)
    cfg.ln_shape = (2048, 1024) if q else (8192, 1024)
    cfg.block_n = 250_000 if q else 4_000_000
    cfg.ll_n = 500 if q else 2000
    cfg.column_shapes = [(1 << 20, 32), (8192, 1024)] if not q else [(1 << 17, 32)]
    want = set(filter(None, cfg.cases.split(",")))
    for label, fn, args in cases(cfg):
        if want and label not in want:
            continue
        try:
            profile_steps(label, fn, args, show_plan=label.startswith("column"))
        except Exception as e:  # noqa: BLE001 (report and go on)
            print(f"\n== {label}: FAILED {type(e).__name__}: {e}")
    profile_compile(cfg.compile_lines)


if __name__ == "__main__":
    main()
