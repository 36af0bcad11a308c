"""What sharding in types costs eager and jit calls on 8 elements, beside JAX: plain
calls (no argument committed; they must cost what they did before sharding existed,
with and without a mesh layout in the process), and calls on arrays committed to a
one-device NamedSharding. Medians of repeated batches of process CPU time, in
microseconds.

    .venv/bin/python benchmarks/bench_sharding_eager.py            # this tree, one process
    /work/jaxvenv/bin/python benchmarks/bench_sharding_eager.py    # with JAX's column
    .venv/bin/python benchmarks/bench_sharding_eager.py --against /tmp/base  # vs a checkout

``--against TREE`` runs this script's cases on TREE's tjit and on this tree's in
alternating processes (``--rounds`` each; the medians of the processes' medians).
A process measures the plain cases first, before any mesh exists ("no mesh": jit's
output layout hook is not installed yet), then commits an array to a mesh and measures
every case ("mesh in process").

Measured (2-core shared machine; 5 alternating rounds per tree, process CPU, us;
095f675: before sharding in types; 1ddfc89: sharding in types, before its costs were cut;
JAX 0.10.2 on the CPU, one process, ending with block_until_ready):

    case                                   095f675  1ddfc89     now    JAX
    x + x (plain, no mesh)                    0.74     0.75    0.75   6.13
    jit 1 leaf (plain, no mesh)               3.16     3.26    3.29   4.48
    jit 10 leaves (plain, no mesh)           16.34    16.52   16.61  17.35
    x + x (plain, mesh in process)            0.75     0.75    0.74   6.07
    jit 1 leaf (plain, mesh in process)       3.21     4.08    3.52   4.40
    jit 10 leaves (plain, mesh in process)   16.40    19.26   17.20  17.62
    x + x (committed)                         0.73     5.14    3.33   6.32
    jit 1 leaf (committed)                    3.20     5.24    4.09   4.47
    jit in/out_shardings (committed)             -    34.29    5.71   4.44
    jit sum 1e6 (plain)                      51.13    52.75   51.69 104.27
    jit sum 1e6 (committed)                  50.63   122.74   53.32 103.56

(095f675 lays out nothing: its "committed" rows are plain calls.)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def median_us(fn, number=2000, repeat=7):
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        times.append((time.process_time() - t0) / number * 1e6)
    return statistics.median(times)


def cases(lib, jnp_, block=lambda v: v):
    """The cases on ``lib`` (tjit or jax) and its numpy module ``jnp_``: name -> us."""
    x = jnp_.arange(8.0, dtype=np.float32)
    xs = [x + i for i in range(10)]
    f1 = lib.jit(lambda a: a * 2 + 1)
    f10 = lib.jit(lambda *a: [b * 2 + 1 for b in a])
    block(f1(x)), block(f10(*xs))   # (compiled before timing)
    out = {}

    def plain(where):
        out[f"x + x (plain, {where})"] = median_us(lambda: block(x + x))
        out[f"jit 1 leaf (plain, {where})"] = median_us(lambda: block(f1(x)))
        out[f"jit 10 leaves (plain, {where})"] = median_us(lambda: block(f10(*xs)),
                                                           number=1000)
    plain("no mesh")
    mesh = lib.make_mesh((1,), ("X",))
    c = lib.device_put(x, lib.sharding.NamedSharding(mesh, lib.sharding.PartitionSpec("X")))
    block(f1(c)), block(c + c)
    plain("mesh in process")
    out["x + x (committed)"] = median_us(lambda: block(c + c), number=1000)
    out["jit 1 leaf (committed)"] = median_us(lambda: block(f1(c)))
    try:   # (an older tjit may not take these options)
        both = lib.jit(lambda a: a * 2 + 1, in_shardings=c.sharding, out_shardings=c.sharding)
        block(both(c))
        out["jit in/out_shardings (committed)"] = median_us(lambda: block(both(c)))
    except Exception:  # noqa: BLE001
        pass
    big = jnp_.arange(1e6, dtype=np.float32)
    big_c = lib.device_put(big, c.sharding)
    total = lib.jit(lambda a: a.sum())
    block(total(big)), block(total(big_c))
    out["jit sum 1e6 (plain)"] = median_us(lambda: block(total(big)), number=100)
    out["jit sum 1e6 (committed)"] = median_us(lambda: block(total(big_c)), number=100)
    return out


def measure(use_jax):
    if use_jax:
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_platforms", "cpu")
        return cases(jax, jnp, block=lambda v: jax.block_until_ready(v))
    import tjit
    import tjit.numpy as tnp
    return cases(tjit, tnp)


def _child(tree, rounds_out):
    env = dict(os.environ, PYTHONPATH=tree)
    got = subprocess.run([sys.executable, __file__, "--child"], env=env, check=True,
                         capture_output=True, text=True).stdout
    rounds_out.append(json.loads(got.strip().splitlines()[-1]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", action="append", default=[],
                    help="another checkout's root, run alternately (may repeat)")
    ap.add_argument("--jax-python", help="a Python with JAX: its column, one process")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jax", action="store_true", help="JAX's cases only (one process)")
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    if a.child or a.jax:
        print(json.dumps(measure(a.jax)))
        return
    columns = {}
    if a.against:
        runs = {tree: [] for tree in a.against + [ROOT]}
        for _ in range(a.rounds):
            for tree, out in runs.items():
                _child(tree, out)
        for tree, out in runs.items():
            columns["tjit us" if tree == ROOT else os.path.basename(tree)] = out
    else:
        columns["tjit us"] = [measure(False)]
    if a.jax_python:
        got = subprocess.run([a.jax_python, __file__, "--jax"], check=True,
                             capture_output=True, text=True).stdout
        columns["JAX us"] = [json.loads(got.strip().splitlines()[-1])]
    else:
        try:
            import jax  # noqa: F401
            columns["JAX us"] = [measure(True)]
        except ImportError:  # JAX is optional: its column is left out
            pass
    names = list(columns["tjit us"][0])
    print(f"{'case (process CPU, median)':40s}" + "".join(f"{c:>10s}" for c in columns))
    for name in names:
        row = [[r[name] for r in runs if name in r] for runs in columns.values()]
        print(f"{name:40s}" + "".join(f"{statistics.median(v):10.2f}" if v else f"{'':10s}"
                                      for v in row))


if __name__ == "__main__":
    main()
