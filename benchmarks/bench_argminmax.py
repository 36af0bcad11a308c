"""argmin/argmax on the CPU: fused kernels beside the NumPy library step, NumPy and JAX.

    python benchmarks/bench_argminmax.py [--rounds 7] [--repeat 9]

Each case is jitted twice by tjit: as it compiles now (argmin/argmax lowered to two
fused reductions, ``primitives/reductions.py``) and with that lowering switched off
while tracing, so the plan runs NumPy's argmin as a library step (the code before the
change). The implementations alternate within each round (the 2-core machine's speed
drifts); each time is the median of ``repeat`` calls, and the table gives the median
over rounds and the ratios fused / library and fused / JAX. Results are checked
against NumPy first.

Cases: argmin along the rows of (8192, 64) float32 (k-means' shape), argmax along the
rows and argmin down the columns of (1024, 1024) float32, argmin of 2**20 flattened
values, and one k-means step (8192 points of 32 dims, 64 centroids: distances through
a matmul, argmin, two segment sums), as in bench_models.py.

Measured on the 2-core development machine (load average 13-14, JAX 0.10.2 CPU), two
runs, medians in ms, fused / library / NumPy / JAX:

  argmin rows 8192x64    0.19 / 0.40 / 0.32 / 5.1-6.5     (fused 0.5x the library step)
  argmax rows 1024^2     0.18 / 0.11 / 0.09 / 12-17       (1.7x: two passes vs NumPy's one)
  argmin cols 1024^2     0.29-0.31 / 12-20 / 12-20 / 13-19 (NumPy's strided argmin is slow)
  argmin flat 2^20       0.28 / 0.09 / 0.07 / 13-14       (3.2x: no kept axis, one thread)
  kmeans step            8.1 / 11.3 / 25 / 11.7  (a quieter moment; 20 / 20 / 40 / 4.2 in the
                         other run, beside another benchmark: kmeans swings 2x under load)

A whole-array or long-row argmin of an input that is already in memory is a NumPy
library step's best case (one SIMD pass, and a kernel without a kept axis runs on one
thread); where the operand is computed (k-means' distances) or the axis is strided,
the fused kernel wins.
"""

import argparse
import os
import statistics
import tempfile
import time

# The library-path twin is compiled with the lowering switched off, which the persistent
# program cache's key cannot see: keep programs out of it, and kernels in a fresh folder.
os.environ["TJIT_PROGRAM_CACHE"] = "0"
if not os.environ.get("TJIT_CACHE_DIR"):
    os.environ["TJIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="tjit_bench_argminmax_")

import numpy as np

import tjit
import tjit.numpy as tjnp
from tjit import ops as tops
from tjit.primitives import reductions

try:
    import jax
    import jax.numpy as jjnp
    from jax import ops as jops
except ImportError:  # JAX is optional: tjit and NumPy only
    jax = None


def _kmeans(jnp, ops, k):
    def step(x, c):
        d2 = jnp.sum(x * x, 1)[:, None] - 2 * x @ c.T + jnp.sum(c * c, 1)[None, :]
        assign = jnp.argmin(d2, axis=1)
        sums = ops.segment_sum(x, assign, num_segments=k)
        counts = ops.segment_sum(jnp.ones_like(x[:, 0]), assign, num_segments=k)
        return sums / jnp.maximum(counts, 1.0)[:, None], assign
    return step


def _np_kmeans(x, c):
    d2 = (x * x).sum(1)[:, None] - 2 * x @ c.T + (c * c).sum(1)[None, :]
    assign = d2.argmin(1)
    sums = np.zeros_like(c)
    np.add.at(sums, assign, x)
    return sums / np.maximum(np.bincount(assign, minlength=len(c)), 1)[:, None], assign


def cases():
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((8192, 64)).astype(np.float32)
    square = rng.standard_normal((1024, 1024)).astype(np.float32)
    flat = rng.standard_normal(1 << 20).astype(np.float32)
    centers = rng.standard_normal((64, 32)) * 4
    pts = (centers[rng.integers(0, 64, 8192)] + 0.3 * rng.standard_normal((8192, 32)))
    km_args = (pts.astype(np.float32),
               (centers + 0.2 * rng.standard_normal((64, 32))).astype(np.float32))
    return [
        ("argmin rows 8192x64", lambda m, o: lambda a: m.argmin(a, axis=1),
         lambda a: np.argmin(a, axis=1), (rows,)),
        ("argmax rows 1024^2", lambda m, o: lambda a: m.argmax(a, axis=1),
         lambda a: np.argmax(a, axis=1), (square,)),
        ("argmin cols 1024^2", lambda m, o: lambda a: m.argmin(a, axis=0),
         lambda a: np.argmin(a, axis=0), (square,)),
        ("argmin flat 2^20", lambda m, o: lambda a: m.argmin(a),
         lambda a: np.argmin(a), (flat,)),
        ("kmeans step", lambda m, o: _kmeans(m, o, 64), _np_kmeans, km_args),
    ]


def _timer(call, block, repeat):
    def run():
        ts = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            block(call())
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts) * 1e3
    return run


def _check(out, want, name):
    for o, w in zip(out if isinstance(out, tuple) else (out,),
                    want if isinstance(want, tuple) else (want,)):
        o, w = np.asarray(o), np.asarray(w)
        if o.dtype.kind in "iu":
            assert (o == w).mean() > 0.999, name   # (float32 distance ties may differ)
        else:
            np.testing.assert_allclose(o, w, rtol=1e-3, atol=1e-3, err_msg=name)


def prepare(name, make, ref, args, repeat):
    want = ref(*args)
    fused = tjit.jit(make(tjnp, tops))
    library = tjit.jit(make(tjnp, tops))
    saved = reductions.argmin_p.lowering, reductions.argmax_p.lowering
    reductions.argmin_p.lowering = reductions.argmax_p.lowering = None
    try:   # compiled (and cached) while the lowering is off
        _check(library(*args), want, name + " [library]")
        assert "library arg" in library.lower(*args).compile().as_text(), name
    finally:
        reductions.argmin_p.lowering, reductions.argmax_p.lowering = saved
    _check(fused(*args), want, name + " [fused]")
    assert "library arg" not in fused.lower(*args).compile().as_text(), name
    blk = tjit.block_until_ready
    calls = {"fused": _timer(lambda: fused(*args), blk, repeat),
             "library": _timer(lambda: library(*args), blk, repeat),
             "numpy": _timer(lambda: ref(*args), lambda r: r, repeat)}
    if jax is not None:
        jf = jax.jit(make(jjnp, jops))
        jargs = [jax.device_put(a) for a in args]
        _check(jf(*jargs), want, name + " [jax]")
        calls["jax"] = _timer(lambda: jf(*jargs), jax.block_until_ready, repeat)
    return calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    names = ["fused", "library", "numpy"] + (["jax"] if jax is not None else [])
    print(f"{'case':22}" + "".join(f"{n:>9}" for n in names) + "  fused/lib  fused/jax")
    for name, make, ref, case_args in cases():
        calls = prepare(name, make, ref, case_args, args.repeat)
        meds = {n: [] for n in calls}
        for _ in range(args.rounds):
            for n, run in calls.items():
                meds[n].append(run())
        m = {n: statistics.median(v) for n, v in meds.items()}
        jax_ratio = f"{m['fused'] / m['jax']:9.2f}" if "jax" in m else "        -"
        print(f"{name:22}" + "".join(f"{m[n]:9.3f}" for n in names)
              + f"  {m['fused'] / m['library']:9.2f}  {jax_ratio}", flush=True)
    print(f"(ms, medians over rounds) load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
