"""The CUDA backend on a GPU, side by side with JAX (GPU), CuPy and PyTorch when
importable.

    python benchmarks/bench_gpu.py [--quick] [--json out.json]

The cases of ``bench_cpu.py`` (its functions are reused): Mish forward and
jit(grad(sum(mish))) on 8x32x224x224, row softmax on (8,16,512,512), layernorm
forward+backward on (8192,1024), the MLP 784-1024-1024-10 training step at batch 256,
the SVM block at n=4e6, ``sum(X*log(U@V.T+1e-15))``, the dispatch of a tiny jitted
function, the first compile and the disk-cache start (fresh processes), and a new batch
size of a polymorphic jit. Each library's result is first checked against NumPy on
the host, then timed two ways: latency (median of calls each waited for) and
throughput (100 calls, one wait, per call). Elementwise cases print the bound given by
the measured device-copy bandwidth. CuPy runs the NumPy-style function eagerly.
``--quick`` shrinks the array cases ~16x. Not a test: nothing asserts a time.
"""

import argparse
import gc
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

# JAX would otherwise take 75% of the GPU's memory at import, starving the others
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_cpu as C

import tjit
import tjit.numpy as jnp

try:
    import cupy as cp
except ImportError:
    cp = None
try:
    import jax
    import jax.numpy as jjnp
    if jax.default_backend() != "gpu":
        jax = jjnp = None
except Exception:  # noqa: BLE001 (JAX absent or without a GPU plugin)
    jax = jjnp = None
try:
    import torch
    if not torch.cuda.is_available():
        torch = None
except ImportError:
    torch = None

ROWS, FAILED = [], []


def gpu_sync():
    cp.cuda.Device().synchronize()


def waiter(lib):
    """How to wait for ``lib``'s result."""
    if lib == "jax":
        return lambda r: jax.block_until_ready(r)
    if lib == "torch":
        return lambda r: torch.cuda.synchronize()
    if lib == "tjit":
        return lambda r: tjit.block_until_ready(r)
    return lambda r: gpu_sync()


def to_host(r):
    if isinstance(r, (list, tuple)):
        return [to_host(x) for x in r]
    if torch is not None and isinstance(r, torch.Tensor):
        return r.detach().cpu().numpy()
    if cp is not None and isinstance(r, cp.ndarray):
        return r.get()
    return np.asarray(r)


def flat(r):
    if isinstance(r, (list, tuple)):
        return [y for x in r for y in flat(x)]
    return [np.asarray(r, np.float64)]


def time_lib(fn, args, wait, cfg):
    """(latency ms, throughput ms per call), with Python's garbage collector off while
    timing, as ``timeit`` does (with JAX and PyTorch loaded, a full collection costs
    ~0.1 s and lands in whichever loop crosses its threshold)."""
    gc.collect()
    gc.disable()
    try:
        return _time_lib(fn, args, wait, cfg)
    finally:
        gc.enable()


def _time_lib(fn, args, wait, cfg):
    for _ in range(2):
        wait(fn(*args))
    lat = []
    for _ in range(cfg.repeat):
        t = time.perf_counter()
        wait(fn(*args))
        lat.append(time.perf_counter() - t)
    n = cfg.throughput_calls
    t = time.perf_counter()
    for _ in range(n):
        r = fn(*args)
    wait(r)
    return statistics.median(lat) * 1e3, (time.perf_counter() - t) / n * 1e3


def bench(label, libs, host_args, want, cfg, rtol=1e-4, note=""):
    """``libs``: {name: (fn, to_device)}; each result checked against ``want``."""
    row = {"case": label, "note": note}
    for name, (fn, put) in libs.items():
        if fn is None:
            continue
        try:
            args = [put(a) for a in host_args]
            got = to_host(fn(*args))
            for g, w in zip(flat(got), flat(want)):
                scale = np.max(np.abs(w)) + 1e-30
                err = float(np.max(np.abs(g - w)) / scale) if w.size else 0.0
                if err > rtol:
                    FAILED.append(f"{label}: {name} differs from NumPy (max err {err:.2e})")
            row[name] = time_lib(fn, args, waiter(name), cfg)
        except Exception as e:  # noqa: BLE001 (report and go on)
            FAILED.append(f"{label}: {name} failed: {type(e).__name__}: {str(e)[:300]}")
    ROWS.append(row)
    return row


def puts():
    dev = tjit.devices("gpu")[0]
    return {"tjit": lambda a: tjit.device_put(a, dev),
            "jax": (lambda a: jax.device_put(a)) if jax else None,
            "cupy": lambda a: cp.asarray(a) if isinstance(a, np.ndarray) else a,
            "torch": (lambda a: torch.as_tensor(a, device="cuda")
                      if isinstance(a, np.ndarray) else float(a)) if torch else None}


def libs(tj, jx=None, cu=None, th=None):
    p = puts()
    out = {"tjit": (tj, p["tjit"])}
    if jax and jx is not None:
        out["jax"] = (jx, p["jax"])
    if cu is not None:
        out["cupy"] = (cu, p["cupy"])
    if torch and th is not None:
        out["torch"] = (th, p["torch"])
    return out


def copy_bandwidth():
    """Device-to-device copy bandwidth (bytes read + written per second)."""
    x = cp.ones(1 << 28, cp.uint8)
    y = cp.empty_like(x)
    y[...] = x
    gpu_sync()
    t = time.perf_counter()
    for _ in range(10):
        y[...] = x
    gpu_sync()
    return 2 * x.nbytes * 10 / (time.perf_counter() - t)


def case_mish(cfg, bw):
    x = (np.random.default_rng(0).standard_normal(cfg.mish_shape) * 3).astype(np.float32)
    note = f"bound {2 * x.nbytes / bw * 1e3:.2f} ms at {bw / 1e9:.0f} GB/s copy"
    th = (lambda v: v * torch.tanh(torch.log1p(torch.exp(v)))) if torch else None
    bench(f"1a Mish fwd {x.shape}", libs(tjit.jit(C._mish(jnp)),
          jax.jit(C._mish(jjnp)) if jax else None, C._mish(cp), th), [x],
          C._mish(np)(x), cfg, note=note)
    tg = tjit.jit(tjit.grad(lambda v: jnp.sum(C._mish(jnp)(v))))
    jg = jax.jit(jax.grad(lambda v: jjnp.sum(C._mish(jjnp)(v)))) if jax else None
    bench("1b Mish jit(grad(sum(mish)))", libs(tg, jg), [x], C._np_mish_grad(x), cfg,
          note=note)


def case_softmax(cfg):
    x = np.random.default_rng(1).standard_normal(cfg.softmax_shape).astype(np.float32)
    th = (lambda v: torch.softmax(v, -1)) if torch else None
    bench(f"2  row softmax {x.shape}", libs(tjit.jit(C._softmax(jnp)),
          jax.jit(C._softmax(jjnp)) if jax else None, C._softmax(cp), th), [x],
          C._softmax(np)(x), cfg, note=f"bound {2 * x.nbytes / BW * 1e3:.2f} ms")


def case_layernorm(cfg):
    rng = np.random.default_rng(2)
    n, d = cfg.ln_shape
    x = rng.standard_normal((n, d)).astype(np.float32)
    w, b, g = (rng.standard_normal(d).astype(np.float32),
               rng.standard_normal(d).astype(np.float32),
               rng.standard_normal((n, d)).astype(np.float32))
    tj = tjit.jit(tjit.value_and_grad(C._layernorm_loss(jnp), argnums=(0, 1, 2)))
    jx = jax.jit(jax.value_and_grad(C._layernorm_loss(jjnp), argnums=(0, 1, 2))) \
        if jax else None
    bench(f"3  layernorm fwd+bwd {(n, d)}", libs(tj, jx), [x, w, b, g],
          C._np_layernorm_vg(x, w, b, g), cfg, rtol=1e-3)


def case_mlp(cfg):
    rng = np.random.default_rng(3)
    sizes, batch = [784, 1024, 1024, 10], cfg.mlp_batch
    params = [(rng.standard_normal((m, n)).astype(np.float32) * np.float32(1 / np.sqrt(m)),
               np.zeros(n, np.float32)) for m, n in itertools.pairwise(sizes)]
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    want = C._np_mlp_step(params, x, y)
    tj = tjit.jit(C._mlp_step(jnp, tjit.value_and_grad))
    jx = jax.jit(C._mlp_step(jjnp, jax.value_and_grad)) if jax else None
    p = puts()

    def put_tree(put):
        return lambda a: [(put(w), put(b)) for w, b in a] if isinstance(a, list) else put(a)
    lib = {"tjit": (tj, put_tree(p["tjit"]))}
    if jax:
        lib["jax"] = (jx, put_tree(p["jax"]))
    bench(f"4  MLP 784-1024-1024-10 step, batch {batch}", lib, [params, x, y],
          [want[0], [list(t) for t in want[1]]], cfg, rtol=1e-3)
    if jax:     # (JAX's default float32 dots on a GPU are TF32: ~1e-2 off NumPy here;
        # tjit's cuBLAS gemms are float32, so this row compares like with like)
        step = C._mlp_step(jjnp, jax.value_and_grad)

        def highest(*a):
            with jax.default_matmul_precision("highest"):
                return step(*a)
        bench("4b MLP step, JAX at matmul precision highest", {
            "tjit": lib["tjit"], "jax": (jax.jit(highest), put_tree(p["jax"]))},
            [params, x, y], [want[0], [list(t) for t in want[1]]], cfg, rtol=1e-3)


def case_block(cfg):
    rng = np.random.default_rng(4)
    n = cfg.block_n
    xw, xd = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    y = np.where(rng.random(n) < 0.5, -1, 1).astype(np.float32)
    s = [np.float32(0.3), np.float32(1.7), np.float32(0.05)]
    bench(f"5  L2SVM block n={n:.3g}", libs(tjit.jit(C._block(jnp)),
          jax.jit(C._block(jjnp)) if jax else None, C._block(cp)), [xw, xd, y] + s,
          C._block(np)(xw, xd, y, *s), cfg, rtol=1e-3,
          note=f"bound {3 * xw.nbytes / BW * 1e3:.3f} ms")


def case_log_lik(cfg):
    rng = np.random.default_rng(5)
    m = cfg.ll_n
    x, u, v = (rng.random(s).astype(np.float32) for s in ((m, m), (m, 50), (m, 50)))
    th = (lambda x, u, v: torch.sum(x * torch.log(u @ v.T + 1e-15))) if torch else None
    bench(f"6  sum(X*log(U@V.T+1e-15)) {m}x{m}", libs(
        tjit.jit(C._log_lik(jnp)), jax.jit(C._log_lik(jjnp)) if jax else None,
        C._log_lik(cp), th), [x, u, v], C._log_lik(np)(x.astype(np.float64), u, v), cfg,
        rtol=1e-3)


def case_dispatch(cfg):
    x = np.ones(100, np.float32)
    f = (lambda v: v * 2 + 1)
    th = f if torch else None
    row = bench("7  dispatch x*2+1 on 100 f32 (ms)", libs(tjit.jit(f),
                jax.jit(f) if jax else None, f, th), [x], x * 2 + 1, cfg)
    row["note"] = "per call; cupy/torch: eager (2 kernels)"


_FIRST = """
import time, os, numpy as np
t0 = time.perf_counter()
import tjit, tjit.numpy as jnp
def f(x):
    return jnp.tanh(jnp.exp(-x * x) + jnp.sin(x) * 2 - jnp.cos(x) / 3 + jnp.log1p(x * x)) ** 2
x = tjit.device_put(np.linspace(-2, 2, 4096, dtype=np.float32), tjit.devices("gpu")[0])
(x * 2).block_until_ready()  # (the CUDA context and CuPy's first kernel: not tjit's compile)
t = time.perf_counter()
tjit.jit(f)(x).block_until_ready()
print(time.perf_counter() - t, time.perf_counter() - t0)
"""


def case_compile(cfg):
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, TJIT_CACHE_DIR=d)
        res = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", _FIRST], env=env, capture_output=True,
                                 text=True, check=False)
            if out.returncode:
                FAILED.append(f"8 compile: {out.stderr[-400:]}")
                return
            res.append([float(v) for v in out.stdout.split()])
    ROWS.append({"case": "8  first call, empty disk cache (s)", "tjit": (res[0][0], None),
                 "note": f"process total {res[0][1]:.2f} s"})
    ROWS.append({"case": "8b first call, warm disk cache (s)", "tjit": (res[1][0], None),
                 "note": f"process total {res[1][1]:.2f} s"})


def case_polymorphic(cfg):
    f = tjit.jit(C._poly_f(jnp), polymorphic_shapes=["(b, 128)"])
    rng = np.random.default_rng(6)
    x = rng.standard_normal((32, 128)).astype(np.float32)
    f(x).block_until_ready()
    times = []
    for b in (33, 34, 35, 36):
        x = rng.standard_normal((b, 128)).astype(np.float32)
        t = time.perf_counter()
        r = f(x).block_until_ready()
        times.append((time.perf_counter() - t) * 1e3)
        err = np.max(np.abs(np.asarray(r) - C._poly_f(np)(x)))
        if err > 1e-4:
            FAILED.append(f"9 polymorphic b={b}: error {err:.2e}")
    ROWS.append({"case": "9  new batch size, polymorphic jit (ms)",
                 "tjit": (statistics.median(times), None),
                 "note": "first calls at b=33..36: " + ", ".join(f"{t:.2f}" for t in times)})


def table():
    names = ["tjit", "jax", "cupy", "torch"]
    print(f"\n{'case':46s}" + "".join(f"{n + ' lat/thr':>20s}" for n in names) + "  note")
    for r in ROWS:
        cells = []
        for n in names:
            v = r.get(n)
            if v is None:
                cells.append(f"{'-':>20s}")
            else:
                thr = "" if v[1] is None else f"/{v[1]:.3f}"
                cells.append(f"{v[0]:.3f}{thr}".rjust(20))
        print(f"{r['case'][:46]:46s}" + "".join(cells) + "  " + r.get("note", ""))
    for f in FAILED:
        print("MISMATCH/FAILURE:", f)


def main():
    global BW
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    cfg = ap.parse_args()
    q = cfg.quick
    cfg.mish_shape = (8, 32, 56, 56) if q else (8, 32, 224, 224)
    cfg.softmax_shape = (8, 16, 128, 512) if q else (8, 16, 512, 512)
    cfg.ln_shape = (2048, 1024) if q else (8192, 1024)
    cfg.mlp_batch = 256
    cfg.block_n = 250_000 if q else 4_000_000
    cfg.ll_n = 500 if q else 2000
    cfg.repeat, cfg.throughput_calls = (5, 20) if q else (20, 100)
    if cp is None or tjit.default_backend() != "gpu":
        sys.exit(f"no usable GPU for tjit: {tjit.devices.cuda.unavailable_reason()}")
    BW = copy_bandwidth()
    print(f"GPU {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, copy bandwidth "
          f"{BW / 1e9:.0f} GB/s; jax: {bool(jax)}, torch: {bool(torch)}; times in ms as "
          f"latency/throughput per call")
    for case in (lambda: case_mish(cfg, BW), case_softmax, case_layernorm, case_mlp,
                 case_block, case_log_lik, case_dispatch, case_compile, case_polymorphic):
        try:
            case(cfg) if case.__name__ != "<lambda>" else case()
        except Exception as e:  # noqa: BLE001
            FAILED.append(f"{getattr(case, '__name__', 'case')}: {type(e).__name__}: {e}")
    table()
    if cfg.json:
        with open(cfg.json, "w") as f:
            json.dump({"rows": ROWS, "failed": FAILED}, f, indent=1)


BW = 4e12
if __name__ == "__main__":
    main()
