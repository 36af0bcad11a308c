"""jit's per-call dispatch cost on the CPU backend, beside JAX when it is installed.

    python benchmarks/bench_dispatch.py [--profile]

(run it with a Python that has both tjit and JAX, e.g. a venv with ``pip install -e .``
and ``jax``, to get the JAX column; without JAX only tjit is timed.)

Cases, all cached (compiled before timing) with tiny arrays, so that what is timed is
the host work of a call (pytree flattening, the signature lookup, running a small
program, wrapping and unflattening the outputs) rather than arithmetic:

- ``one op``: ``x * 2`` on one 8-element float32 array; again as ``x * n`` with ``n``
  a static argument (its key is part of the signature looked up).
- ``MLP step``: the 3-layer training step of ``bench_cpu`` (value_and_grad and SGD
  update) at sizes 8-16-16-4, batch 4, params a list of (w, b) tuples.
- ``dict 20``: a dict of 4 dicts of 5 float32 arrays each, every leaf + 1.

Each: the median over 15 rounds of the CPU time (``time.process_time``) per call over
many calls; "runner" is tjit's executable alone on the flat argument list (what the
program itself costs, without jit's dispatch), so ``tjit - runner`` is the dispatch.
With ``--profile`` the top of cProfile's table for the tjit calls of each case.
Not a test: nothing asserts a time.
"""

import argparse
import cProfile
import itertools
import os
import pstats
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "benchmarks")]

import bench_cpu as C

import tjit
import tjit.numpy as jnp
from tjit.tracing.tree_util import tree_flatten

try:
    import jax
    import jax.numpy as jax_np
except ImportError:
    jax = None


def per_call_us(fn, calls, rounds=15):
    """Median over ``rounds`` of the mean CPU time of ``calls`` calls, in microseconds."""
    for _ in range(max(calls // 10, 3)):
        fn()
    times = []
    for _ in range(rounds):
        t = time.process_time()
        for _ in range(calls):
            fn()
        times.append((time.process_time() - t) / calls * 1e6)
    return statistics.median(times)


def _inputs(rng):
    sizes = [8, 16, 16, 4]
    params = [((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
               np.zeros(n, np.float32)) for m, n in itertools.pairwise(sizes)]
    x = rng.standard_normal((4, 8)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 4)]
    tree = {f"layer{i}": {f"p{j}": rng.standard_normal(3).astype(np.float32)
                          for j in range(5)} for i in range(4)}
    return np.arange(8, dtype=np.float32), params, x, y, tree


def _map(put, t):
    if isinstance(t, dict):
        return {k: _map(put, v) for k, v in t.items()}
    if isinstance(t, (list, tuple)):
        return type(t)(_map(put, v) for v in t)
    return put(t)


def cases(lib, jit, vg, put, tree_map):
    """(name, zero-argument call, calls per round) of each case for one library."""
    one, params, x, y, tree = _map(put, _inputs(np.random.default_rng(0)))
    tiny = jit(lambda a: a * 2)
    step = jit(C._mlp_step(lib, vg))
    scaled = jit(lambda a, n: a * n, static_argnums=1)
    add1 = jit(lambda t: tree_map(lambda a: a + 1, t))
    return [("one op x*2 (8 f32)", tiny, (one,), 3000),
            ("one op x*n, static n=2 (8 f32)", scaled, (one, 2), 3000),
            ("MLP step 8-16-16-4, list of (w, b)", step, (params, x, y), 500),
            ("dict of dicts, 20 leaves, +1", add1, (tree,), 1000)]


def runner_us(fn, args, calls):
    """tjit's executable alone on the flat argument list ``fn`` would hand it."""
    leaves = [a._value for a in tree_flatten(args)[0] if hasattr(a, "_value")]  # (statics)
    (entry,) = [e for e in fn._cache.values()]
    return per_call_us(lambda: entry.executable.call(list(leaves)), calls)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", action="store_true", help="print cProfile's top entries")
    opts = ap.parse_args()
    from tjit.tree_util import tree_map
    ours = cases(jnp, tjit.jit, tjit.value_and_grad, jnp.asarray, tree_map)
    theirs = None
    if jax is not None:
        theirs = cases(jax_np, jax.jit, jax.value_and_grad, jax.device_put,
                       jax.tree_util.tree_map)
    print(f"{'case':38} {'tjit us':>9} {'runner':>8} {'dispatch':>9} {'jax us':>8} "
          f"{'tjit/jax':>8}")
    for i, (name, fn, args, calls) in enumerate(ours):
        t = per_call_us(lambda fn=fn, args=args: fn(*args), calls)
        r = runner_us(fn, args, calls)
        j = ""
        ratio = ""
        if theirs is not None:
            _, jf, jargs, _ = theirs[i]
            jt = per_call_us(lambda jf=jf, jargs=jargs: jax.block_until_ready(jf(*jargs)),
                             calls)
            j, ratio = f"{jt:8.1f}", f"{t / jt:8.2f}"
        print(f"{name:38} {t:9.1f} {r:8.1f} {t - r:9.1f} {j:>8} {ratio:>8}")
        if opts.profile:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(calls):
                fn(*args)
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
