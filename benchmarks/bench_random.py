"""Random sampling under ``jit`` on the CPU: tjit beside JAX, in one process.

Measured (2 vCPUs shared, load average ~8; ms): 1e6 normal float32 fused 6.5, library
233, JAX 7.6; uniform 1.1 / 131 / 5.9; bernoulli 0.86 / 86 / 5.3; randint 2.3 / 240 /
10.5; truncated_normal 5.7 / 260 / 28. 1e4: normal 0.045 / 0.36 / 0.094, uniform
0.015 / 0.23 / 0.086.

normal and truncated_normal as one kernel each (were three, with two float64
temporaries: fusion counted the broadcasts of the sampler's constants towards its
kernel-size bound), fused column, alternating runs of the trees before/after at load
average ~10, ms (JAX in the same runs): 1e6 normal 2.90 5.27 -> 1.37 1.81 (JAX 4.9-13),
truncated_normal 2.93 2.57 -> 2.11 1.52 (JAX 4.4-4.9); 1e4 normal 0.034 0.033 -> 0.021
0.021 (JAX 0.056-0.080), truncated_normal 0.034 0.035 -> 0.025 0.024 (JAX 0.064-0.077).
A 2-D normal also wrote its counters (a reshaped iota) in a kernel of their own: four
kernels before, one now (reshape(iota) is index arithmetic): (1024, 1024) 3.27 3.18 ->
1.96 2.11 ms (JAX 18-24), (64, 64) 0.019 0.018 -> 0.011 0.011 ms (JAX 0.056-0.061).

Each sampler is jitted over its key and timed on 1e6 and 1e4 elements. Three columns:
``fused``: tjit as it is (the Threefry hash, the uint32 -> float bitcast and erf_inv are
expanded into elementwise ops that fuse: one kernel for uniform/bernoulli/normal); ``library``: the same program compiled with those three as host (NumPy/SciPy)
library steps, as before the expansions (their lowerings are switched off in this
process only); ``jax``: jax.jit of the same sampler (when ``jax`` imports: run with
/work/jaxvenv/bin/python). Rounds alternate between the columns; medians in ms, with
each tjit column as a multiple of JAX's, and the load average.

    python benchmarks/bench_random.py [--rounds N] [--sizes 1000000,10000]
"""

import argparse
import contextlib
import os
import statistics
import time

import numpy as np

import tjit
import tjit.random as trandom
from tjit.primitives.base import REGISTRY

try:
    import jax
    import jax.random as jrandom
    jax.config.update("jax_platforms", "cpu")
except ImportError:  # JAX is optional: the column is left out
    jax = jrandom = None

_EXPANDED = ("threefry2x32", "bitcast_convert_type", "erf_inv")


@contextlib.contextmanager
def library_steps():
    """Compile with the three primitives as library steps (the state before)."""
    saved = {n: REGISTRY[n].lowering for n in _EXPANDED}
    cache = os.environ.get("TJIT_PROGRAM_CACHE")
    os.environ["TJIT_PROGRAM_CACHE"] = "0"   # (its key does not see the switched rules)
    try:
        for n in _EXPANDED:
            REGISTRY[n].lowering = None
        yield
    finally:
        for n, rule in saved.items():
            REGISTRY[n].lowering = rule
        if cache is None:
            os.environ.pop("TJIT_PROGRAM_CACHE")
        else:
            os.environ["TJIT_PROGRAM_CACHE"] = cache


def samplers(r, n):
    """name -> f(key) drawing ``n`` values with the random module ``r``."""
    return {
        "normal f32": lambda k: r.normal(k, (n,)),
        "uniform f32": lambda k: r.uniform(k, (n,)),
        "bernoulli p=0.9 (dropout mask)": lambda k: r.bernoulli(k, 0.9, (n,)),
        "randint [0, 1000)": lambda k: r.randint(k, (n,), 0, 1000),
        "truncated_normal [-2, 2]": lambda k: r.truncated_normal(k, -2.0, 2.0, (n,)),
    }


def _timed(fn, key, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(key)
        if hasattr(out, "block_until_ready"):
            out.block_until_ready()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--sizes", default="1000000,10000")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    tkey = trandom.PRNGKey(0)
    jkey = jrandom.PRNGKey(0) if jax else None
    for n in (int(s) for s in args.sizes.split(",")):
        repeat = 3 if n >= 100_000 else 30
        fused = {k: tjit.jit(f) for k, f in samplers(trandom, n).items()}
        want = {k: np.asarray(f(tkey)) for k, f in fused.items()}   # (compiles them)
        with library_steps():
            lib = {k: tjit.jit(f) for k, f in samplers(trandom, n).items()}
            for k, f in lib.items():   # compile (and check) while the lowerings are off
                # erf_inv's expansion is within a few ulp of SciPy's; the rest is bit-exact
                np.testing.assert_allclose(np.asarray(f(tkey)), want[k], rtol=2e-6, atol=1e-6)
        jx = {k: jax.jit(f) for k, f in samplers(jrandom, n).items()} if jax else {}
        for f in jx.values():
            f(jkey).block_until_ready()
        print(f"\nn = {n:,}: median ms over {args.rounds} alternating rounds (best of "
              f"{repeat} calls each)")
        print(f"{'sampler':34s} {'fused':>8s} {'library':>8s} {'jax':>8s} "
              f"{'fused/jax':>9s} {'lib/jax':>8s} {'lib/fused':>9s}")
        for name, fn in fused.items():
            cols = {"fused": [], "library": [], "jax": []}
            for _ in range(args.rounds):
                cols["fused"].append(_timed(fn, tkey, repeat))
                cols["library"].append(_timed(lib[name], tkey, repeat))
                if jax:
                    cols["jax"].append(_timed(jx[name], jkey, repeat))
            m = {c: statistics.median(v) * 1e3 if v else float("nan") for c, v in cols.items()}
            print(f"{name:34s} {m['fused']:8.3f} {m['library']:8.3f} {m['jax']:8.3f} "
                  f"{m['fused'] / m['jax']:9.2f} {m['library'] / m['jax']:8.2f} "
                  f"{m['library'] / m['fused']:9.2f}")
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
