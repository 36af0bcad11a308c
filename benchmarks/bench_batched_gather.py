"""Steady-state time of batched gathers (take_along_axis, a vmapped x[i]) as fused
indexed loads ("after") against the library gather they were before ("library": the
same process with the batched lowering switched off), beside JAX and NumPy.

    python benchmarks/bench_batched_gather.py [--rounds 5] [--repeat 20]

Cases (float32):
  topk_sorted   take_along_axis(x, argsort(x, 1)[:, :64], 1) * 2 + 1    x 512x1024
  along_axis    take_along_axis(x, idx, 1) * 2 + 1     x 1024x1024, idx 1024x256 int32
  vmap_row      vmap(lambda r, j: r[j] * 2 + 1)(x, idx)  (the same shapes)
  arange_rows   x[arange(1024)[:, None], idx] * 2 + 1   (the same shapes: a gather
                along two axes, merged into one)

Each row checks the results against NumPy, prints the compiled plan's step kinds and
the median of per-round medians in ms. Not a test: nothing here asserts a time.

Measured on the 2-core shared machine (load average ~5, JAX 0.10.2), two runs of
``--rounds 5 --repeat 20``; steps as k(ernel)/l(ibrary), ms per call:

  case          library            after             JAX          NumPy
  topk_sorted   k/l/k/l/k 48.7 43.3   k/l/k 30.1 27.7   89.8 77.3    3.7 3.5
  along_axis    k/l/k  2.16 1.17      k  0.112 0.108    0.203 0.195  0.73 0.71
  vmap_row      k/l/k  1.08 0.97      k  0.130 0.115    0.190 0.151
  arange_rows   k/k/l/k 2.25 1.54     k/k 0.114 0.119   0.192 0.161  0.72 0.72

(topk_sorted's time is the sort's library step: NumPy's argsort is ~8x faster.)
"""

import argparse
import time

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.primitives import indexing
from tjit.primitives.indexing import gather_p

try:
    import jax
    import jax.numpy as jjnp
except ImportError:     # JAX is optional: its column is left out
    jax = None

_batched_lowering = gather_p.lowering


def _library_for_batched(ctx, operand, indices, *, dimension_numbers, **params):
    """The lowering before batched and multi-index gathers fused: library calls."""
    dn = indices_dn(dimension_numbers)
    if dn.operand_batching_dims or len(dn.start_index_map) > 1:
        return NotImplemented
    return _batched_lowering(ctx, operand, indices, dimension_numbers=dimension_numbers,
                             **params)


def indices_dn(dn):
    return indexing._as_type(indexing.GatherDimensionNumbers, dn)


def cases(np_):
    rng = np.random.RandomState(0)
    x = rng.randn(512, 1024).astype(np.float32)
    y = rng.randn(1024, 1024).astype(np.float32)
    idx = rng.randint(0, 1024, size=(1024, 256)).astype(np.int32)
    return {
        "topk_sorted": (lambda m: lambda x: m.take_along_axis(
            x, m.argsort(x, axis=1)[:, :64], axis=1) * 2 + 1, (x,),
            np.take_along_axis(x, np.argsort(x, axis=1)[:, :64], axis=1) * 2 + 1),
        "along_axis": (lambda m: lambda x, i: m.take_along_axis(x, i, axis=1) * 2 + 1,
                       (y, idx), np.take_along_axis(y, idx, axis=1) * 2 + 1),
        "vmap_row": (None, (y, idx), np.take_along_axis(y, idx, axis=1) * 2 + 1),
        "arange_rows": (lambda m: lambda x, i: x[m.arange(1024)[:, None], i] * 2 + 1,
                        (y, idx), np.take_along_axis(y, idx, axis=1) * 2 + 1),
    }


def median_ms(f, args, rounds, repeat):
    f(*args)
    meds = []
    for _ in range(rounds):
        ts = []
        for _ in range(repeat):
            t = time.perf_counter()
            r = f(*args)
            getattr(r, "block_until_ready", lambda: None)()
            ts.append(time.perf_counter() - t)
        meds.append(np.median(ts))
    return 1e3 * float(np.median(meds))


def build(name, make, lib):
    if name == "vmap_row":
        return lib.vmap(lambda r, j: r[j] * 2 + 1)
    return make(jnp if lib is tjit else jjnp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    for name, (make, args, want) in cases(np).items():
        row = [f"{name:12s}"]
        for label, lowering in (("library", _library_for_batched), ("after", _batched_lowering)):
            gather_p.lowering = lowering
            f = tjit.jit(build(name, make, tjit))
            kinds = "/".join(k[0] for k, _ in f.lower(*args).compile().fusion_summary())
            np.testing.assert_allclose(np.asarray(f(*args)), want, rtol=1e-6)
            row.append(f"{label} {kinds} {median_ms(f, args, a.rounds, a.repeat):7.3f}")
        gather_p.lowering = _batched_lowering
        if jax is not None:
            g = jax.jit(build(name, make, jax))
            np.testing.assert_allclose(np.asarray(g(*args)), want, rtol=1e-6)
            row.append(f"JAX {median_ms(g, args, a.rounds, a.repeat):7.3f}")
        if make is not None:
            row.append(f"NumPy {median_ms(make(np), args, a.rounds, a.repeat):7.3f}")
        print("  ".join(row), flush=True)


if __name__ == "__main__":
    main()
