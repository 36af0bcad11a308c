"""Row and column reductions on the CUDA backend across row lengths, beside JAX and
PyTorch when importable (the row-segment kernels of ``lower/c/rows.py`` and the two-pass
column sums of ``simplify.split_column_reduce``).

    python benchmarks/gpu_rows.py [--quick]

Softmax over rows of 7 to 4096 float32 (about 2^25 elements each, so every case moves
the same bytes: the copy bound is printed), column sums of tall arrays, and layernorm
forward+backward; each result checked against NumPy, then timed as in ``bench_gpu.py``
(latency / throughput per call, ms). The column sums are also called three times and
compared bit for bit (deterministic for one device and launch). Not a test.
"""

import os
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_cpu as C
import bench_gpu as G

import tjit
import tjit.numpy as jnp


def softmax_rows(cfg, bw):
    rng = np.random.default_rng(0)
    for n in (7, 100, 512, 1000, 2048, 4096):
        x = rng.standard_normal(((cfg.elems + n - 1) // n, n)).astype(np.float32)
        th = (lambda v: G.torch.softmax(v, -1)) if G.torch else None
        G.bench(f"softmax rows of {n}", G.libs(
            tjit.jit(C._softmax(jnp)), G.jax.jit(C._softmax(G.jjnp)) if G.jax else None,
            None, th), [x], C._softmax(np)(x), cfg,
            note=f"bound {2 * x.nbytes / bw * 1e3:.3f} ms")


def weighted_column_sum(x, y):
    return (x * y[:, None]).sum(0)      # (NumPy, tjit, JAX and PyTorch alike)


def column_sums(cfg, bw):
    rng = np.random.default_rng(1)
    for shape in ((cfg.elems // 4096, 1024), (cfg.elems // 32, 32), (cfg.elems // 8192, 4096)):
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.standard_normal(shape[0]).astype(np.float32)

        tj = tjit.jit(weighted_column_sum)
        G.bench(f"column sum {shape}", G.libs(
            tj, G.jax.jit(weighted_column_sum) if G.jax else None, None,
            weighted_column_sum if G.torch else None), [x, y],
            weighted_column_sum(x.astype(np.float64), y), cfg,
            note=f"bound {x.nbytes / bw * 2e3:.3f} ms (read only: half a copy)")
        put = G.puts()["tjit"]
        a, b = put(x), put(y)
        runs = [np.asarray(tj(a, b)) for _ in range(3)]
        if not all(np.array_equal(r.view(np.uint32), runs[0].view(np.uint32)) for r in runs):
            G.FAILED.append(f"column sum {shape}: results differ between calls")


def layernorm(cfg, bw):
    rng = np.random.default_rng(2)
    n, d = cfg.elems // 4096, 1024      # (8192, 1024) unless --quick
    x = (rng.standard_normal((n, d)) * 2 + 0.5).astype(np.float32)
    w = (1 + 0.1 * rng.standard_normal(d)).astype(np.float32)
    b = (0.1 * rng.standard_normal(d)).astype(np.float32)
    g = rng.standard_normal((n, d)).astype(np.float32)
    tj = tjit.jit(tjit.value_and_grad(C._layernorm_loss(jnp), argnums=(0, 1, 2)))
    jx = G.jax.jit(G.jax.value_and_grad(C._layernorm_loss(G.jjnp), argnums=(0, 1, 2))) \
        if G.jax else None
    want = C._np_layernorm_vg(x, w, b, g)
    G.bench(f"layernorm fwd+bwd {(n, d)}", G.libs(tj, jx), [x, w, b, g], want, cfg,
            rtol=1e-3, note=f"bound {3 * x.nbytes / bw * 1e3:.3f} ms (read x, g; write dx)")


def main():
    cfg = types.SimpleNamespace(quick="--quick" in sys.argv)
    cfg.elems = 1 << (22 if cfg.quick else 25)
    cfg.repeat, cfg.throughput_calls = (5, 20) if cfg.quick else (20, 100)
    if G.cp is None or tjit.default_backend() != "gpu":
        sys.exit("no usable GPU for tjit")
    bw = G.copy_bandwidth()
    print(f"copy bandwidth {bw / 1e9:.0f} GB/s; jax: {bool(G.jax)}, torch: {bool(G.torch)}; "
          "ms as latency/throughput per call")
    for case in (softmax_rows, column_sums, layernorm):
        try:
            case(cfg, bw)
        except Exception as e:  # noqa: BLE001 (report and go on)
            G.FAILED.append(f"{case.__name__}: {type(e).__name__}: {e}")
    G.table()


if __name__ == "__main__":
    main()
