"""First-compile time of tjit.jit beside jax.jit (same process, when JAX is installed).

    python benchmarks/bench_compile.py [--max-n 10000]

Each case times the first call of a *fresh* jitted function (trace + compile + one
run) and repeats with a different constant baked into the program, so neither tjit's
kernel cache nor JAX's compilation cache can answer from an earlier repetition; the
median is printed with the first repetition beside it (tjit's first also compiles the
math functions it links, once per process: ``lower/llvm/mathlink.py``). tjit's disk
cache points at a fresh temporary folder. Both libraries first jit a small matmul
plus an add, so their one-time start-up (backend, BLAS and its kernels, thread pool)
is not counted.

Cases (issue 13's targets): a 10-op elementwise function on 1,000 float32 values
(target <= 0.5x JAX), an MLP training step (784-512-512-10, batch 128, leaky ReLU,
SGD on a softmax cross-entropy; <= 1.0x JAX), and an ODE unrolled by Python for N steps of 5
ops on 100 values, N = 100, 1,000, 10,000 (<= 0.5x JAX at each N) with the time per
equation (flat across N when compile time is linear).

Process starts (issue 12's "first compile" and "disk-cache start", here on the CPU and
on the CUDA compile path without a GPU): a new process times its first call of the
10-op elementwise function on 4,096 float32 values and of the MLP step, import and
backend start-up excluded, with an empty cache folder and then with the folder the
previous process filled, with the persistent program cache (``TJIT_PROGRAM_CACHE``) on
and off. The CUDA row times what the GPU backend does before loading a module:
trace, ``compile_program`` for the CUDA target, rendering and NVRTC (or their cached
unit, ``cuda_compile.program_unit``). ``--starts-only`` runs just these.
"""

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import tjit
import tjit.numpy as tnp

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platforms", "cpu")
except ImportError:
    jax = jnp = None


def elementwise(np_mod, c):
    def f(x):
        y = x * c + 1.0
        y = np_mod.sin(y) * y
        y = np_mod.exp(-y) + y * y
        y = np_mod.tanh(y) - 0.5 * y
        return y * y
    return f


def mlp_step(np_mod, c):
    def loss(params, x, labels):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = np_mod.maximum(h, c * h)        # leaky ReLU: c in every kernel
        h = h * (1.0 + c)
        h = h - np_mod.max(h, axis=1, keepdims=True)
        logp = h - np_mod.log(np_mod.sum(np_mod.exp(h), axis=1, keepdims=True))
        return -np_mod.mean(np_mod.sum(logp * labels, axis=1))

    grad = (tjit if np_mod is tnp else jax).grad(loss)

    def step(params, x, labels):
        g = grad(params, x, labels)
        return [(w - c * gw, b - c * gb) for (w, b), (gw, gb) in zip(params, g)]
    return step


def ode(np_mod, c, n):
    def f(y, k):
        for _ in range(n):
            y = y + c * (-k * y + np_mod.sin(y))
        return y
    return f


def first_call(jit, fn, args):
    t0 = time.perf_counter()
    out = jit(fn)(*args)
    (out[0][0] if isinstance(out, list) else out).block_until_ready() \
        if hasattr(out, "block_until_ready") else np.asarray(
            out[0][0] if isinstance(out, list) else out)
    return time.perf_counter() - t0


def compare(name, make, args, reps, equations=None, with_jax=True):
    """Median (and first) first-call seconds of tjit and JAX over ``reps`` constants."""
    row = {}
    for lib, jit, mod in (("tjit", tjit.jit, tnp), ("jax", jax and jax.jit, jnp)):
        if jit is None or (lib == "jax" and not with_jax):
            continue
        times = [first_call(jit, make(mod, 0.01 * (r + 1)), args) for r in range(reps)]
        row[lib] = (statistics.median(times), times[0])
    line = f"{name:34s} tjit {row['tjit'][0] * 1e3:9.1f} ms (first {row['tjit'][1] * 1e3:8.1f})"
    if "jax" in row:
        line += (f"   jax {row['jax'][0] * 1e3:9.1f} ms (first {row['jax'][1] * 1e3:8.1f})"
                 f"   ratio {row['tjit'][0] / row['jax'][0]:5.2f}")
    if equations:
        line += f"   tjit {row['tjit'][0] / equations * 1e6:6.0f} us/eqn"
        if "jax" in row:
            line += f", jax {row['jax'][0] / equations * 1e6:6.0f} us/eqn"
    print(line, flush=True)
    return row


_START = """
import itertools, sys, time
import numpy as np
import tjit, tjit.numpy as jnp
sys.path.insert(0, {here!r})
import bench_compile as B
case, backend = sys.argv[1], sys.argv[2]
if case == "elementwise":
    def fn(x):
        return jnp.tanh(jnp.exp(-x * x) + jnp.sin(x) * 2 - jnp.cos(x) / 3 +
                        jnp.log1p(x * x)) ** 2
    args = (np.linspace(-2, 2, 4096, dtype=np.float32),)
else:
    rng = np.random.default_rng(0)
    sizes = [784, 512, 512, 10]
    params = [(rng.standard_normal((m, n)).astype(np.float32) * 0.05,
               np.zeros(n, np.float32)) for m, n in itertools.pairwise(sizes)]
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]
    fn = B.mlp_step(jnp, 0.01)
    args = (params, rng.standard_normal((128, 784)).astype(np.float32), labels)
if backend == "cpu":
    tjit.default_backend()              # (backend start-up, not counted)
    t = time.perf_counter()
    out = tjit.jit(fn)(*args)
    np.asarray(tjit.tree_leaves(out)[0])
else:                                   # the CUDA compile path, without a GPU
    from tjit.devices import cuda, cuda_compile
    from tjit.xla_like.compile import compile_program
    from tjit.xla_like.target import CUDA
    cuda_compile.nvrtc_version()        # (loaded by the device probe on a GPU)
    t = time.perf_counter()
    program = compile_program(tjit.make_jaxpr(fn)(*args), CUDA)
    cuda_compile.program_unit(program, "sm_90", cuda.render_program)
print(time.perf_counter() - t)
"""


def process_starts(reps):
    """First-call seconds of new processes: empty and warm cache, program cache on/off."""
    code = _START.format(here=os.path.dirname(os.path.abspath(__file__)))
    print(f"process starts (median of {reps}; ms): first call with an empty cache folder "
          f"-> with the folder the previous process filled")

    def run(case, backend, folder, program_cache):
        env = dict(os.environ, TJIT_CACHE_DIR=folder, TJIT_PROGRAM_CACHE=program_cache)
        out = subprocess.run([sys.executable, "-c", code, case, backend], env=env,
                             capture_output=True, text=True, check=False)
        if out.returncode:
            raise RuntimeError(out.stderr[-2000:])
        return float(out.stdout.split()[-1])

    for case in ("elementwise", "mlp"):
        for backend in ("cpu", "cuda"):
            if backend == "cuda":
                try:
                    from tjit.devices import cuda_compile
                    cuda_compile.nvrtc_version()
                except Exception as e:  # noqa: BLE001 (no CuPy/NVRTC: no CUDA row)
                    print(f"  {case:12s} cuda : skipped (NVRTC: {e})")
                    continue
            line = f"  {case:12s} {backend:5s}"
            for pc in ("0", "1"):
                empty, warm = [], []
                for _ in range(reps):
                    with tempfile.TemporaryDirectory() as d:
                        empty.append(run(case, backend, d, pc))
                        warm.append(run(case, backend, d, pc))
                line += (f"   program cache {'on ' if pc == '1' else 'off'}: "
                         f"{statistics.median(empty) * 1e3:7.1f} -> "
                         f"{statistics.median(warm) * 1e3:6.1f}")
            print(line, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-n", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--jax-max-n", type=int, default=10000,
                    help="largest ODE N also timed with JAX (its N=10000 takes minutes)")
    ap.add_argument("--start-reps", type=int, default=3)
    ap.add_argument("--starts-only", action="store_true")
    a = ap.parse_args()
    # (read at the first lookup; the process-start cases pass their own folders)
    os.environ["TJIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="tjit_bench_compile_")
    if a.starts_only:
        process_starts(a.start_reps)
        return
    warm = np.ones((64, 64), np.float32)     # start-up: backend, BLAS, thread pool
    np.asarray(tjit.jit(lambda x: x @ x + 1)(warm))
    if jax is not None:
        jax.jit(lambda x: x @ x + 1)(warm).block_until_ready()
    print(f"JAX {jax.__version__ if jax else 'not installed'}; medians of {a.reps} fresh "
          "functions (first repetition in brackets)")
    x = np.linspace(0, 1, 1000).astype(np.float32)
    compare("10-op elementwise, 1000 values", lambda m, c: elementwise(m, c), (x,), a.reps)

    rng = np.random.default_rng(0)
    sizes = [784, 512, 512, 10]
    params = [(rng.standard_normal((m, n)).astype(np.float32) * 0.05,
               np.zeros(n, np.float32)) for m, n in itertools.pairwise(sizes)]
    xb = rng.standard_normal((128, 784)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]
    compare("MLP training step", mlp_step, (params, xb, labels), a.reps)

    y0, k = np.linspace(-2, 2, 100).astype(np.float32), np.float32(0.5)
    eqns_per_step = len(tjit.make_jaxpr(ode(tnp, 0.01, 10))(y0, k).jaxpr.eqns) / 10
    for n in (100, 1000, 10000):
        if n > a.max_n:
            continue
        reps = a.reps if n <= 100 else (3 if n <= 1000 else 1)
        compare(f"ODE unrolled, N={n}", lambda m, c, n=n: ode(m, c, n), (y0, k), reps,
                equations=int(eqns_per_step * n), with_jax=n <= a.jax_max_n)
    process_starts(a.start_reps)


if __name__ == "__main__":
    main()
