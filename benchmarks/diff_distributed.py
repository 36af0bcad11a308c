"""Differential hunt: seeded random multi-process programs against NumPy float64.

Launch under MPI (every run under ``timeout``, so a hang is a finding too)::

    timeout 300 mpiexec -n 2 .venv/bin/python benchmarks/diff_distributed.py --seed 0 --count 40
    TJIT_NUM_CPU_DEVICES=2 timeout 300 mpiexec -n 3 .venv/bin/python benchmarks/diff_distributed.py

Every rank draws the same programs and the same global data from the seed, as a JAX user
would write them: ``tjit.distributed.initialize()``, a Mesh of every process's devices,
``shard_map`` (maybe under ``jit``, maybe with ``vmap`` inside) whose body runs one
collective (psum/pmean/pmax/pmin/all_gather/psum_scatter/all_to_all/ppermute/axis_index,
``tiled=``, axis-name tuples) on int/bool/float16/float32/complex blocks of uneven or
empty shapes, ``grad`` of the whole program, and ``make_array_from_process_local_data`` /
``process_allgather`` / ``multihost_utils``. Each result is gathered to every rank and
compared with a NumPy float64 reference computed from the global data; rank 0 prints
one line per disagreement or error, then the counts.
"""

import argparse
import sys
import traceback

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.experimental import multihost_utils
from tjit.experimental.shard_map import shard_map
from tjit.sharding import NamedSharding, P

DTYPES = ["float32", "float16", "int32", "bool", "complex64"]


# -- the reference: a collective over the groups of a mesh, on NumPy blocks -------------
class MeshModel:
    """Device coordinates of a (procs, per) mesh with axes ("p", "d") and the groups a
    collective over some of its axes forms, in the order JAX numbers their members."""

    def __init__(self, procs, per):
        self.shape = {"p": procs, "d": per}
        self.coords = [dict(p=p, d=d) for p in range(procs) for d in range(per)]

    def linear(self, c, axes):
        """Position of coordinate ``c`` along ``axes`` (major to minor)."""
        pos = 0
        for a in axes:
            pos = pos * self.shape[a] + c[a]
        return pos

    def size(self, axes):
        return int(np.prod([self.shape[a] for a in axes]))

    def group(self, c, axes):
        """The coordinates of ``c``'s group along ``axes``, in axis-index order."""
        rest = [a for a in self.shape if a not in axes]
        members = [m for m in self.coords if all(m[a] == c[a] for a in rest)]
        return sorted(members, key=lambda m: self.linear(m, axes))


def ref_collective(kind, blocks, me, n, opts):
    """NumPy result of collective ``kind`` for the member at position ``me`` of a group
    whose members hold ``blocks`` (float64/int64/bool/complex128)."""
    stack = np.stack(blocks)
    if kind == "psum":
        return stack.astype(np.int64).sum(0) if stack.dtype == bool else stack.sum(0)
    if kind == "pmean":
        return stack.mean(0)
    if kind == "pmax":
        return stack.max(0) if stack.size else stack[0]
    if kind == "pmin":
        return stack.min(0) if stack.size else stack[0]
    if kind == "all_gather":
        ax, tiled = opts["axis"], opts["tiled"]
        return np.concatenate(blocks, axis=ax) if tiled else np.stack(blocks, axis=ax)
    if kind == "psum_scatter":
        total = stack.sum(0)
        if opts["tiled"]:
            c = total.shape[0] // n
            return total[me * c:(me + 1) * c]
        return total[me]
    if kind == "all_to_all":
        s, cax = opts["split"], opts["concat"]
        c = blocks[0].shape[s] // n
        parts = [np.take(b, np.arange(me * c, (me + 1) * c), axis=s) for b in blocks]
        return np.concatenate(parts, axis=cax)
    if kind == "ppermute":
        src = [s for s, d in opts["perm"] if d == me]
        return blocks[src[0]] if src else np.zeros_like(blocks[me])
    if kind == "axis_index":
        return blocks[me] * me
    raise ValueError(kind)


def tjit_collective(kind, b, axes, n, opts):
    ax = axes if len(axes) > 1 else axes[0]
    groups = opts.get("groups")
    if kind in ("psum", "pmean", "pmax", "pmin"):
        return getattr(lax, kind)(b, ax, axis_index_groups=groups)
    if kind == "all_gather":
        return lax.all_gather(b, ax, axis=opts["axis"], tiled=opts["tiled"],
                              axis_index_groups=groups)
    if kind == "psum_scatter":
        return lax.psum_scatter(b, ax, scatter_dimension=0, tiled=opts["tiled"])
    if kind == "all_to_all":
        return lax.all_to_all(b, ax, opts["split"], opts["concat"], tiled=True)
    if kind == "ppermute":
        return lax.ppermute(b, ax, opts["perm"])
    if kind == "axis_index":
        return b * lax.axis_index(ax).astype(b.dtype)
    raise ValueError(kind)


def out_dtype(kind, dtype):
    """JAX's result dtype (checked with JAX 0.10): psum of bool counts in int32; pmean
    of ints is float32."""
    if kind == "psum" and dtype == "bool":
        return np.dtype("int32")
    if kind == "pmean" and dtype in ("int32", "bool"):
        return np.dtype("float32")
    return np.dtype(dtype)


# -- drawing programs -------------------------------------------------------------------
def draw_data(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "int32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    if dtype == "complex64":
        return (rng.integers(-4, 5, shape) + 1j * rng.integers(-4, 5, shape)).astype(np.complex64)
    # small integers / halves: every sum is exact in float16 too
    return (rng.integers(-8, 9, shape) / 2).astype(dtype)


def draw_program(rng, mm):
    """One program: the collective, its axes, options, dtype and block shape."""
    kind = rng.choice(["psum", "pmean", "pmax", "pmin", "all_gather", "psum_scatter",
                       "all_to_all", "ppermute", "axis_index"])
    axes_choices = [("p",), ("p", "d"), ("d", "p"), ("d",)] if mm.shape["d"] > 1 else [("p",)]
    axes = tuple(axes_choices[rng.integers(len(axes_choices))])
    n = mm.size(axes)
    dtype = str(rng.choice(DTYPES))
    if kind in ("pmean", "axis_index") and dtype == "bool":
        dtype = "float32"
    if kind == "psum_scatter" and dtype == "bool":
        dtype = "int32"
    k = int(rng.integers(0, 4))            # rows per block (0: empty)
    m = int(rng.integers(0, 3)) + (1 if rng.random() < 0.8 else 0)   # (sometimes 0)
    opts = {}
    if kind == "all_gather":
        opts = dict(axis=int(rng.integers(0, 2)), tiled=bool(rng.random() < 0.5))
    if kind == "psum_scatter":
        opts = dict(tiled=bool(rng.random() < 0.6))
        k = n * int(rng.integers(1, 3)) if opts["tiled"] else n
    if kind == "all_to_all":
        split, concat = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        opts = dict(split=split, concat=concat)
        c = int(rng.integers(1, 3))
        if split == 0:
            k = n * c
        else:
            m = n * c
    if kind == "ppermute":
        dst = rng.permutation(n)
        keep = rng.random(n) < 0.8
        opts = dict(perm=[(int(s), int(d)) for s, d in zip(range(n), dst) if keep[s]])
    wrap = str(rng.choice(["plain", "jit", "vmap", "grad", "pmap"]))
    if wrap == "pmap":   # (pmap: one axis over every process's devices)
        axes = ("p", "d")
        n = mm.size(axes)
        if kind == "psum_scatter":
            k = n * (k // n) if opts["tiled"] else n
        if kind == "all_to_all":
            k, m = (n * c, m) if opts["split"] == 0 else (k, n * c)
        if kind == "ppermute":
            dst = rng.permutation(n)
            opts = dict(perm=[(int(j), int(d)) for j, d in zip(range(n), dst)])
    if wrap == "grad" and kind in ("pmax", "pmin"):
        wrap = "jit"      # (ties: no derivative)
    if wrap == "grad":
        dtype = "float32"
    if wrap == "pmap" and kind == "psum_scatter" and opts["tiled"] and k == 0:
        k = n
    if wrap == "vmap" and kind in ("psum_scatter", "all_to_all"):
        wrap = "plain"
    if (kind in ("psum", "pmean", "pmax", "pmin", "all_gather") and len(axes) == 1
            and wrap != "pmap" and rng.random() < 0.4):
        order = [int(j) for j in rng.permutation(n)]
        sizes = [s for s in range(1, n + 1) if n % s == 0]
        if kind == "all_gather":   # (equal sizes)
            size = sizes[rng.integers(len(sizes))]
            opts["groups"] = [order[j:j + size] for j in range(0, n, size)]
        else:                      # (any partition)
            cut = sorted({int(j) for j in rng.integers(1, n, 2)}) if n > 1 else []
            opts["groups"] = [order[a:b] for a, b in zip([0] + cut, cut + [n]) if b > a]
    replicated_out = (wrap != "pmap" and not opts.get("groups")
                      and kind in ("psum", "pmean", "pmax", "pmin")
                      and axes == ("p", "d") and rng.random() < 0.5)
    return dict(kind=str(kind), axes=axes, dtype=dtype, k=k, m=m, opts=opts, wrap=wrap,
                replicated_out=replicated_out, groups=opts.get("groups"))


# -- running one program ----------------------------------------------------------------
def global_reference(prog, mm, x64):
    """The whole output (and, for grad, the global input's gradient) in NumPy."""
    kind, axes, opts = prog["kind"], prog["axes"], prog["opts"]
    ndev, k = len(mm.coords), prog["k"]
    spec_axes = ("p", "d")
    blocks = {}
    for c in mm.coords:
        i = mm.linear(c, spec_axes)
        blocks[i] = x64[i * k:(i + 1) * k]
    outs = []
    for c in mm.coords:
        grp = mm.group(c, axes)
        me = mm.linear(c, axes)
        if prog.get("groups"):   # (axis_index_groups: my group, in its order)
            mine = next(g for g in prog["groups"] if me in g)
            grp, me = [grp[j] for j in mine], mine.index(me)
        gb = [blocks[mm.linear(g, spec_axes)] for g in grp]
        if prog["wrap"] == "vmap":   # the collective per row of the blocks
            rows = [ref_collective(kind, [b[r] for b in gb], me, len(grp),
                                   _row_opts(prog)) for r in range(k)]
            y = np.stack(rows) if rows else _empty_vmap_ref(kind, gb, len(grp), prog)
        else:
            y = ref_collective(kind, gb, me, len(grp), opts)
        outs.append(y)
    if prog["wrap"] == "pmap":   # (each device's result, stacked)
        return np.stack(outs)
    if prog["replicated_out"]:
        return outs[0]
    return np.concatenate(outs, axis=0) if outs[0].ndim else np.stack(outs)


def _row_opts(prog):
    opts = dict(prog["opts"])
    if prog["kind"] == "all_gather":
        opts["axis"] = 0          # a row's gather axis (the program vmaps axis 0)
    return opts


def _empty_vmap_ref(kind, gb, n, prog):
    m = gb[0].shape[1]
    dt = out_dtype(kind, prog["dtype"])
    if kind == "all_gather":
        inner = n * m if prog["opts"]["tiled"] else (n, m)
        return np.zeros((0,) + ((inner,) if np.ndim(inner) == 0 else tuple(inner)), dt)
    return np.zeros((0, m), dt)


def build(prog, mesh):
    kind, axes, opts = prog["kind"], prog["axes"], prog["opts"]
    n = int(np.prod([mesh.shape[a] for a in axes]))

    def body(b):
        if prog["wrap"] == "vmap":
            return tjit.vmap(lambda row: tjit_collective(kind, row, axes, n, _row_opts(prog)))(b)
        return tjit_collective(kind, b, axes, n, opts)

    out_spec = P() if prog["replicated_out"] else P(("p", "d"))
    f = shard_map(body, mesh, in_specs=P(("p", "d")), out_specs=out_spec,
                  check_rep=prog["replicated_out"])
    return f


def run_program(prog, mm, mesh, x, w):
    """(tjit value, reference) pairs to compare, for this program."""
    f = build(prog, mesh)
    x64 = x.astype(np.complex128 if x.dtype.kind == "c" else
                   (bool if x.dtype == bool else np.float64))
    if x.dtype.kind == "i":
        x64 = x.astype(np.int64)
    ref = global_reference(prog, mm, x64)
    if prog["wrap"] == "grad":
        def loss(v):
            return jnp.sum(f(v) * w)
        g = tjit.grad(loss)(x)
        gref = _grad_reference(prog, mm, x64, w)
        # (grad of a process-local function: the global gradient in every process)
        return [("grad", np.asarray(g), gref, np.dtype("float32"))]
    if prog["wrap"] == "pmap":
        ndev, per = len(mm.coords), mm.shape["d"]
        n = ndev
        rank = tjit.process_index()
        local = x.reshape((ndev, prog["k"], prog["m"]))[rank * per:(rank + 1) * per]
        y = tjit.pmap(lambda b: tjit_collective(prog["kind"], b, ("i",), n, prog["opts"]),
                      axis_name="i")(local)
        got = multihost_utils.process_allgather(np.asarray(y), tiled=True)
        return [("value", got, ref, out_dtype(prog["kind"], prog["dtype"]))]
    if prog["wrap"] == "jit":
        # tjit's documented contract (shard_map_processes.py): under jit the output is
        # the global value, the same in every process, as a process-local Array (JAX
        # gives a global jax.Array; its process_allgather gives the same value)
        y = tjit.jit(f)(x)
        return [("value", np.asarray(y), ref, out_dtype(prog["kind"], prog["dtype"]))]
    y = f(x)
    if prog["replicated_out"]:
        # (tjit's contract: a replicated output is a process-local Array of the value;
        # JAX's is a global array, so process_allgather(y, tiled=True) differs there)
        return [("value", np.asarray(y), ref, out_dtype(prog["kind"], prog["dtype"]))]
    # (tiled=True: JAX's form for a global array; one process: y itself)
    return [("value", multihost_utils.process_allgather(y, tiled=True), ref,
             out_dtype(prog["kind"], prog["dtype"]))]


def _grad_reference(prog, mm, x64, w):
    """J^T w of the (linear in x) global program, column by column in float64."""
    w64 = np.asarray(w, np.float64)
    g = np.zeros_like(x64)
    base = global_reference(prog, mm, x64)
    for idx in np.ndindex(x64.shape):
        e = np.zeros_like(x64)
        e[idx] = 1.0
        g[idx] = np.sum((global_reference(prog, mm, x64 + e) - base) * w64)
    return g


def compare(name, got, ref, want_dtype):
    got = np.asarray(got)
    if got.shape != ref.shape:
        return f"{name}: shape {got.shape} != reference {ref.shape}"
    if got.dtype != want_dtype:
        return f"{name}: dtype {got.dtype} != JAX's {want_dtype}"
    tol = 1e-2 if got.dtype == np.float16 else 1e-5
    if not np.allclose(got.astype(ref.dtype), ref,
                       rtol=tol, atol=tol):
        bad = np.argwhere(~np.isclose(got.astype(ref.dtype), ref, rtol=tol, atol=tol))[:3]
        return (f"{name}: values differ at {bad.tolist()}: tjit "
                f"{[got[tuple(b)] for b in bad]} vs {[ref[tuple(b)] for b in bad]}")
    return None


# -- the API probes: arrays and multihost_utils -----------------------------------------
def probe_api(rng, mesh, mm, report):
    """make_array_from_process_local_data / addressable_shards / multihost_utils."""
    procs, per, rank = mm.shape["p"], mm.shape["d"], tjit.process_index()
    for dtype in DTYPES:
        k = int(rng.integers(0, 3))
        g = draw_data(rng, (procs * per * k, 2), dtype)
        sh = NamedSharding(mesh, P(("p", "d")))
        local = g[rank * per * k:(rank + 1) * per * k]
        try:
            arr = tjit.make_array_from_process_local_data(sh, local)
            if arr.shape != g.shape:
                report("make_array", f"{dtype}: shape {arr.shape} != {g.shape}")
            for s in arr.addressable_shards:
                if not np.array_equal(np.asarray(s.data), g[s.index]):
                    report("addressable_shards", f"{dtype}: block at {s.index} differs")
            back = multihost_utils.process_allgather(arr, tiled=True)
            if not np.array_equal(back, g) or back.dtype != g.dtype:
                report("process_allgather(GlobalArray)", f"{dtype}: {back} vs {g}")
            y = shard_map(lambda b: lax.psum(b, ("p", "d")), mesh, in_specs=P(("p", "d")),
                          out_specs=P(("p", "d")), check_rep=False)(arr)
            got = multihost_utils.process_allgather(y, tiled=True)
            blocks = g.reshape(procs * per, k, 2)
            total = blocks.astype(np.int64).sum(0) if dtype == "bool" else blocks.sum(0)
            want = np.concatenate([total] * (procs * per))
            r = compare(f"shard_map(psum) of make_array {dtype}", got, want,
                        out_dtype("psum", dtype))
            if r:
                report("make_array+shard_map", r)
        except Exception as e:   # noqa: BLE001 (a finding, reported)
            report("make_array", f"{dtype}: {type(e).__name__}: {str(e)[:300]}")
    # process-local values through process_allgather, tiled and not, 0-d and empty
    for shape in [(), (0,), (2, 3), (0, 2)]:
        for dtype in DTYPES:
            mine = draw_data(np.random.default_rng(rank + 100), shape, dtype)
            every = [draw_data(np.random.default_rng(r + 100), shape, dtype)
                     for r in range(procs)]
            for tiled in (False, True):
                try:
                    got = np.asarray(multihost_utils.process_allgather(mine, tiled=tiled))
                    want = (np.concatenate(every) if tiled and len(shape) else np.stack(every))
                    if procs == 1 and tiled and not shape:
                        want = every[0]   # (JAX: one process returns a tiled scalar as is)
                    if got.shape != want.shape or got.dtype != want.dtype or \
                            not np.array_equal(got, want):
                        report("process_allgather", f"{shape} {dtype} tiled={tiled}: "
                               f"{got.shape} {got.dtype} vs {want.shape} {want.dtype}")
                except Exception as e:   # noqa: BLE001
                    report("process_allgather", f"{shape} {dtype} tiled={tiled}: "
                           f"{type(e).__name__}: {str(e)[:200]}")
    # broadcast_one_to_all / sync_global_devices / assert_equal, as JAX's
    for name in ("broadcast_one_to_all", "sync_global_devices", "assert_equal",
                 "host_local_array_to_global_array", "global_array_to_host_local_array"):
        if not hasattr(multihost_utils, name):
            report("multihost_utils", f"missing {name}")
    if hasattr(multihost_utils, "broadcast_one_to_all"):
        for dtype in DTYPES:
            mine = {"a": draw_data(np.random.default_rng(rank), (2, 3), dtype),
                    "b": np.float32(rank)}
            want = draw_data(np.random.default_rng(0), (2, 3), dtype)
            try:
                got = multihost_utils.broadcast_one_to_all(mine)
                if not np.array_equal(np.asarray(got["a"]), want) or \
                        np.asarray(got["a"]).dtype != want.dtype or float(got["b"]) != 0.0:
                    report("broadcast_one_to_all", f"{dtype}: {got} vs {want}")
                got = multihost_utils.broadcast_one_to_all(
                    mine, is_source=tjit.process_index() == procs - 1)
                want_last = draw_data(np.random.default_rng(procs - 1), (2, 3), dtype)
                if not np.array_equal(np.asarray(got["a"]), want_last):
                    report("broadcast_one_to_all(is_source)", f"{dtype}: {got}")
            except Exception as e:   # noqa: BLE001
                report("broadcast_one_to_all", f"{dtype}: {type(e).__name__}: {str(e)[:200]}")
    if hasattr(multihost_utils, "sync_global_devices"):
        try:
            multihost_utils.sync_global_devices("hunt")
        except Exception as e:   # noqa: BLE001
            report("sync_global_devices", f"{type(e).__name__}: {str(e)[:200]}")


def probe_errors(mesh, mm, report):
    """Bad input raises in every process (no hang, no crash), naming the operation."""
    ndev, per = len(mm.coords), mm.shape["d"]
    sm = lambda body, spec=P(("p", "d")): shard_map(   # noqa: E731
        body, mesh, in_specs=spec, out_specs=spec, check_rep=False)
    cases = {
        "shard_map": lambda: sm(lambda b: b)(np.ones((ndev + 1, 2), np.float32)),
        "psum_scatter": lambda: sm(lambda b: lax.psum_scatter(b, ("p", "d"), tiled=True))(
            np.ones((ndev * (ndev + 1), 2), np.float32)),
        "all_to_all": lambda: sm(lambda b: lax.all_to_all(b, ("p", "d"), 1, 0, tiled=True))(
            np.ones((ndev, ndev + 1), np.float32)),
        "ppermute": lambda: sm(lambda b: lax.ppermute(b, ("p", "d"), [(0, 0), (0, 0)]))(
            np.ones((ndev, 2), np.float32)),
        "pmap": lambda: tjit.pmap(lambda b: lax.psum(b, "i"), axis_name="i")(
            np.ones((per + 1, 2), np.float32)),
        "make_array_from_process_local_data": lambda: tjit.make_array_from_process_local_data(
            NamedSharding(mesh, P(("p", "d"))), np.ones((per, 2)), (ndev + 1, 2)),
        "all_gather": lambda: sm(lambda b: lax.all_gather(b, "q"))(np.ones((ndev, 2))),
    }
    if ndev == 1:   # (any row count splits over one device)
        for name in ("shard_map", "psum_scatter", "all_to_all"):
            del cases[name]
    names = {"make_array_from_process_local_data": "NamedSharding",   # (its check)
             "all_gather": "unbound axis name: q"}
    for name, call in cases.items():
        try:
            call()
            report("bad input", f"{name}: no error")
        except Exception as e:   # noqa: BLE001
            msg = str(e)
            if names.get(name, name) not in msg:
                report("bad input", f"{name}: the error does not name the operation: "
                       f"{type(e).__name__}: {msg[:300]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--show", action="store_true", help="print every program")
    args = ap.parse_args()
    tjit.distributed.initialize()
    procs, rank = tjit.process_count(), tjit.process_index()
    per = len(tjit.local_devices())
    mm = MeshModel(procs, per)
    mesh = tjit.make_mesh((procs, per), ("p", "d"))
    findings = []

    def report(where, what):
        findings.append(f"{where}: {what}")

    rng = np.random.default_rng(args.seed)
    counts = dict(ok=0, mismatch=0, error=0)
    wraps = {}    # (programs that agreed, by wrapper)
    for i in range(args.count):
        prog = draw_program(rng, mm)
        rows = procs * per * prog["k"]
        x = draw_data(rng, (rows, prog["m"]), prog["dtype"])
        w = rng.standard_normal((1,)).astype(np.float32)  # (a broadcast weight)
        if args.show and rank == 0:
            print(i, prog, flush=True)
        try:
            bad = []
            for name, got, ref, dt in run_program(prog, mm, mesh, x, w):
                r = compare(name, got, ref, dt)
                if r:
                    bad.append(r)
            if bad:
                counts["mismatch"] += 1
                report(f"program {i} {prog}", "; ".join(bad))
            else:
                counts["ok"] += 1
                wraps[prog["wrap"]] = wraps.get(prog["wrap"], 0) + 1
        except Exception as e:   # noqa: BLE001 (every error is reported)
            counts["error"] += 1
            msg = f"{type(e).__name__}: {e}".replace("\n", " | ")
            if args.show:
                traceback.print_exc()
            report(f"program {i} {prog}", f"ERROR {msg[:400]}")
    probe_api(np.random.default_rng(args.seed + 1), mesh, mm, report)
    probe_errors(mesh, mm, report)
    if rank == 0:
        for f in findings:
            print("FINDING", f, flush=True)
        print(f"procs={procs} devices/process={per} seed={args.seed}: {counts}, "
              f"{len(findings)} findings; agreed by wrapper {wraps}", flush=True)
    multihost_utils.process_allgather(np.int32(0))  # (every rank ends together)


if __name__ == "__main__":
    sys.exit(main())
