"""Collectives across MPI processes: tjit's psum against raw mpi4py, and the data-parallel
MLP step on 1/2/4 processes beside the model of docs/scaling.md.

    python benchmarks/bench_distributed.py [--ranks 2 4] [--max-mb 64]

The driver launches itself under ``mpiexec -n N`` (the mpiexec beside this Python) and
prints, from rank 0 of each run:

1. allreduce of 1 KB ... 64 MB float32: a raw ``comm.Allreduce`` on preallocated NumPy
   buffers; ``lax.psum`` inside a compiled per-process program (``compile_spmd``, the
   collective a step of the plan calling ``MPICommunicator``); and the same psum through
   ``shard_map`` (argument slicing and output assembly included). Medians; bandwidth as
   bytes / time; the ratios tjit / raw.
2. the data-parallel step of examples/train_mlp_data_parallel.py's MLP and of a wider one
   (weak scaling: a fixed number of rows per process), with the efficiency t(1)/t(P) and
   the model's prediction t(1) * max(1, P / cores) + k * allreduce(P, grad bytes), the
   allreduce time taken from part 1's raw measurements at P (docs/scaling.md).
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SIZES = [1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 22, 1 << 24, 1 << 26]


def _median_times(fns, reps, barrier, rounds=7):
    """{name: median seconds per call}; the variants take turns within each round, so
    that a change of load on the machine hits them alike."""
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            barrier()
            t0 = time.perf_counter()
            for _ in range(reps):
                fn()
            times[name].append((time.perf_counter() - t0) / reps)
    return {name: statistics.median(t) for name, t in times.items()}


def worker_allreduce(max_bytes):
    import tjit
    from tjit import lax
    from tjit.devices.collectives import bind_axis
    from tjit.distributed import MPICommunicator, runtime
    from tjit.parallel import compile_spmd
    from tjit.sharding import P
    tjit.distributed.initialize()
    comm = runtime.state().comm
    n = comm.Get_size()
    mesh = tjit.make_mesh((n,), ("i",))
    mpi_axis = MPICommunicator(comm, name="i")
    sharded = tjit.shard_map(lambda x: lax.psum(x, "i"), mesh, in_specs=P("i"),
                             out_specs=P("i"))
    rows = []
    for nbytes in [s for s in SIZES if s <= max_bytes]:
        a = np.ones(nbytes // 4, np.float32)
        b = np.empty_like(a)
        reps = max(3, min(200, (1 << 24) // nbytes))
        program = compile_spmd(lambda x: lax.psum(x, "i"), {"i": n}, (a,))
        g = np.ones(n * a.size, np.float32)     # the global value: each rank's block is `a`
        with bind_axis("i", mpi_axis):
            program(a), sharded(g)               # (compile, warm up)
            t = _median_times({"raw": lambda: comm.Allreduce(a, b),
                               "psum_jit": lambda: program(a),
                               "shard_map": lambda: sharded(g)}, reps, comm.Barrier)
        rows.append({"bytes": nbytes, **t})
    return {"ranks": n, "allreduce": rows}


def _mlp_sizes(name):
    return {"readme": [16, 64, 4], "wide": [256, 1024, 256]}[name]


def worker_mlp(rows_per_process, steps):
    sys.path.insert(0, str(HERE.parent / "examples"))
    import tjit
    from train_mlp import init_params
    from train_mlp_data_parallel import make_train_step
    tjit.distributed.initialize()
    from tjit.distributed import runtime
    comm = runtime.state().comm
    n = tjit.process_count()
    mesh = tjit.make_mesh((n,), ("data",))
    step = make_train_step(mesh)
    out = {"ranks": n, "mlp": {}}
    rng = np.random.default_rng(0)
    for name in ("readme", "wide"):
        sizes = _mlp_sizes(name)
        params = init_params(tjit.random.PRNGKey(0), sizes)
        x = rng.standard_normal((rows_per_process * n, sizes[0])).astype(np.float32)
        y = rng.standard_normal((rows_per_process * n, sizes[-1])).astype(np.float32)
        lr = np.float32(0.01)
        state = {"p": step(params, x, y, lr)[0]}

        def one():
            state["p"] = step(state["p"], x, y, lr)[0]
        t = _median_times({"step": one}, steps, comm.Barrier)["step"]
        grad_bytes = 4 * sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:]))
        out["mlp"][name] = {"step": t, "grad_bytes": grad_bytes,
                            "leaves": 2 * (len(sizes) - 1) + 1}
    return out


def _launch(n, args):
    mpiexec = pathlib.Path(sys.executable).parent / "mpiexec"
    cmd = [str(mpiexec if mpiexec.exists() else "mpiexec"), "-n", str(n), sys.executable,
           __file__, *args]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900,
                          check=False)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("JSON ")][-1]
    return json.loads(line[5:])


def _interp(rows, nbytes):
    """Raw allreduce seconds for ``nbytes`` (log-log interpolation of the measured sizes)."""
    xs = np.log([r["bytes"] for r in rows])
    ys = np.log([r["raw"] for r in rows])
    return float(np.exp(np.interp(np.log(max(nbytes, rows[0]["bytes"])), xs, ys)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", choices=["allreduce", "mlp"])
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--max-mb", type=int, default=64)
    ap.add_argument("--parts", nargs="+", default=["allreduce", "mlp"])
    ap.add_argument("--rows", type=int, default=128, help="MLP rows per process")
    ap.add_argument("--steps", type=int, default=20)
    a = ap.parse_args()
    if a.worker:
        res = (worker_allreduce(a.max_mb << 20) if a.worker == "allreduce"
               else worker_mlp(a.rows, a.steps))
        import tjit
        if tjit.process_index() == 0:
            print("JSON " + json.dumps(res), flush=True)
        return
    cores = os.cpu_count()
    print(f"host: {cores} cores; MPI from the mpich wheel (shared memory); float32\n")
    coll = {}
    for n in (a.ranks if "allreduce" in a.parts else []):
        coll[n] = _launch(n, ["--worker", "allreduce", "--max-mb", str(a.max_mb)])["allreduce"]
        print(f"allreduce on {n} processes (median seconds per call)")
        print(f"{'bytes':>10} {'raw us':>10} {'raw GB/s':>9} {'psum us':>10} {'psum/raw':>9}"
              f" {'+us':>8} {'shard_map us':>13}")
        for r in coll[n]:
            print(f"{r['bytes']:>10} {r['raw'] * 1e6:>10.1f} {r['bytes'] / r['raw'] / 1e9:>9.2f}"
                  f" {r['psum_jit'] * 1e6:>10.1f} {r['raw'] / r['psum_jit']:>9.2f}"
                  f" {(r['psum_jit'] - r['raw']) * 1e6:>8.1f} {r['shard_map'] * 1e6:>13.1f}")
        print()
    if "mlp" not in a.parts:
        return
    mlp = {n: _launch(n, ["--worker", "mlp", "--rows", str(a.rows), "--steps", str(a.steps)])
           for n in [1] + a.ranks}
    print(f"data-parallel MLP step, {a.rows} rows per process (weak scaling)")
    print(f"{'model':>7} {'ranks':>5} {'ms/step':>9} {'efficiency':>10} {'model ms':>9}")
    for name in ("readme", "wide"):
        t1 = mlp[1]["mlp"][name]["step"]
        for n in [1] + a.ranks:
            m = mlp[n]["mlp"][name]
            pred = t1
            if n > 1:   # compute shares the cores, plus one allreduce per gradient leaf
                per_leaf = m["grad_bytes"] / (m["leaves"] - 1)
                pred = t1 * max(1.0, n / cores) + (m["leaves"] - 1) * _interp(
                    coll[n], per_leaf) + _interp(coll[n], 4)
            print(f"{name:>7} {n:>5} {m['step'] * 1e3:>9.2f} {t1 / m['step']:>10.2f}"
                  f" {pred * 1e3:>9.2f}")


if __name__ == "__main__":
    main()
