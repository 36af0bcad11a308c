"""A jitted function's first call in new processes: an empty cache folder, then the
folder the first process filled (the disk-cache start), results checked against NumPy.

    python benchmarks/start_check.py [--backend gpu|cpu] [--reps 3]

Each process imports tjit, puts its inputs on the device (not counted), then times the
first call of a 10-op elementwise function that also reads a program constant (4,096
float32 values, the function of bench_gpu.py's case 8) and of the MLP training step of
bench_compile.py, waiting for the results. Printed per case: the median first-call time
and what the program cache and the kernel disk cache did in the last process. Not a
test: nothing asserts a time; a wrong result exits non-zero.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

_CHILD = r"""
import itertools, json, sys, time
import numpy as np
import tjit, tjit.numpy as jnp
sys.path.insert(0, {here!r})
import bench_compile as B
from tjit.devices import disk_cache
from tjit.xla_like import program_cache
case, platform = sys.argv[1], sys.argv[2]
dev = tjit.devices(platform)[0]
if case == "elementwise":
    table = np.arange(4096, dtype=np.float32) / 4096

    def fn(x):
        return jnp.tanh(jnp.exp(-x * x) + jnp.sin(x) * 2 - jnp.cos(x) / 3 +
                        jnp.log1p(x * x)) ** 2 + table
    xs = np.linspace(-2, 2, 4096)
    want = np.tanh(np.exp(-xs * xs) + np.sin(xs) * 2 - np.cos(xs) / 3 +
                   np.log1p(xs * xs)) ** 2 + table
    args = (tjit.device_put(xs.astype(np.float32), dev),)
else:
    rng = np.random.default_rng(0)
    sizes = [784, 512, 512, 10]
    params = [(rng.standard_normal((m, n)).astype(np.float32) * 0.05,
               np.zeros(n, np.float32)) for m, n in itertools.pairwise(sizes)]
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]
    xb = rng.standard_normal((128, 784)).astype(np.float32)
    fn = B.mlp_step(jnp, 0.01)
    want = [np.asarray(a) for a in tjit.tree_leaves(
        tjit.jit(fn, backend="interpreter")(params, xb, labels))]
    args = tjit.device_put((params, xb, labels), dev)
tjit.block_until_ready(args)
prof = None
if int(sys.argv[3]):
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
t = time.perf_counter()
out = tjit.jit(fn)(*args)
tjit.block_until_ready(out)
dt = time.perf_counter() - t
if prof is not None:
    import io, pstats
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(int(sys.argv[3]))
    print(text.getvalue(), file=sys.stderr)
got = [np.asarray(a) for a in tjit.tree_leaves(out)]
for g, w in zip(got, want if isinstance(want, list) else [want]):
    np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
print(json.dumps({{"seconds": dt, "program_cache": program_cache.STATS,
                  "disk_cache": {{k: disk_cache.STATS[k] for k in ("hits", "misses",
                                                                 "bad_entries")}}}}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gpu", help="the platform: gpu or cpu")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--profile", type=int, default=0,
                    help="print cProfile's top N entries of each first call (stderr)")
    a = ap.parse_args()
    code = _CHILD.format(here=os.path.dirname(os.path.abspath(__file__)))
    failed = False
    for case in ("elementwise", "mlp"):
        times, last = ([], []), [None, None]
        for _ in range(a.reps):
            with tempfile.TemporaryDirectory() as d:
                env = dict(os.environ, TJIT_CACHE_DIR=d)
                for k in range(2):
                    out = subprocess.run([sys.executable, "-c", code, case, a.backend,
                                          str(a.profile)],
                                         env=env, capture_output=True, text=True,
                                         check=False)
                    if out.returncode:
                        print(f"{case}: FAILED\n{out.stderr[-3000:]}")
                        failed = True
                        break
                    last[k] = json.loads(out.stdout.splitlines()[-1])
                    if a.profile:
                        print(f"== {case}, {('empty cache', 'disk-cache start')[k]}\n"
                              f"{out.stderr}", flush=True)
                    times[k].append(last[k]["seconds"])
        if times[1]:
            print(f"{case:12s} {a.backend}: first call {statistics.median(times[0]) * 1e3:7.1f} ms "
                  f"(empty cache), {statistics.median(times[1]) * 1e3:6.1f} ms (disk-cache "
                  f"start); last start: program cache {last[1]['program_cache']}, "
                  f"disk cache {last[1]['disk_cache']}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
