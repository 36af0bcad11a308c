"""psum over the same number of devices laid out as processes x devices per process:
``mpiexec -n P`` with ``TJIT_NUM_CPU_DEVICES=N`` for P * N = 4 (4 x 1: MPI only; 2 x 2:
threads then MPI, ``tjit/distributed/hierarchical.py``; 1 x 4: threads only).

    python benchmarks/bench_devices_per_process.py [--devices 4] [--max-mb 16]

Each layout runs ``pmap(lambda x: lax.psum(x, 'i'))`` on every process's (N, k) float32
slice (the whole pmap call: slicing, the threads, the collective, stacking) and, beside
it, a raw ``comm.Allreduce`` of one device's buffer between the P processes (what MPI
alone costs for the process-level step; none for P = 1). Medians of 7 rounds.
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

SIZES = [1 << 10, 1 << 16, 1 << 20, 1 << 24]


def worker(max_bytes):
    import tjit
    from tjit import lax
    from tjit.distributed import runtime
    tjit.distributed.initialize()
    comm = runtime.state().comm
    n_local = tjit.local_device_count()
    psum = tjit.pmap(lambda x: lax.psum(x, "i"), axis_name="i")
    rows = []
    for nbytes in [s for s in SIZES if s <= max_bytes]:
        x = np.ones((n_local, nbytes // 4), np.float32)
        a, b = x[0].copy(), np.empty_like(x[0])
        reps = max(3, min(200, (1 << 23) // nbytes))
        psum(x)   # (compile, warm up)
        fns = {"pmap_psum": lambda x=x: psum(x)}
        if comm.Get_size() > 1:
            fns["raw_allreduce"] = lambda a=a, b=b: comm.Allreduce(a, b)
        times = {k: [] for k in fns}
        for _ in range(7):
            for k, fn in fns.items():
                comm.Barrier()
                t0 = time.perf_counter()
                for _ in range(reps):
                    fn()
                times[k].append((time.perf_counter() - t0) / reps)
        rows.append({"bytes": nbytes, **{k: statistics.median(v) for k, v in times.items()}})
    return rows


def _launch(procs, per_process, max_mb):
    mpiexec = pathlib.Path(sys.executable).parent / "mpiexec"
    cmd = [str(mpiexec if mpiexec.exists() else "mpiexec"), "-n", str(procs), sys.executable,
           __file__, "--worker", "--max-mb", str(max_mb)]
    env = dict(os.environ, OMP_NUM_THREADS="1", TJIT_PLATFORMS="cpu",
               TJIT_NUM_CPU_DEVICES=str(per_process))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900,
                          check=False)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("JSON ")][-1]
    return json.loads(line[5:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--devices", type=int, default=4)
    ap.add_argument("--max-mb", type=int, default=16)
    a = ap.parse_args()
    if a.worker:
        rows = worker(a.max_mb << 20)
        import tjit
        if tjit.process_index() == 0:
            print("JSON " + json.dumps(rows), flush=True)
        return
    print(f"host: {os.cpu_count()} cores; psum over {a.devices} devices, float32, "
          f"median seconds per pmap call\n")
    print(f"{'layout':>8} {'bytes/device':>12} {'pmap psum us':>13} {'raw MPI us':>11}")
    layouts = [(p, a.devices // p) for p in range(a.devices, 0, -1) if a.devices % p == 0]
    for procs, per in layouts:
        for r in _launch(procs, per, a.max_mb):
            raw = f"{r['raw_allreduce'] * 1e6:>11.1f}" if "raw_allreduce" in r else f"{'-':>11}"
            print(f"{f'{procs} x {per}':>8} {r['bytes']:>12} {r['pmap_psum'] * 1e6:>13.1f} {raw}")
        print()


if __name__ == "__main__":
    main()
