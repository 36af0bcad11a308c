"""Memory over many distinct jit compiles (a notebook re-running cells that define new
jitted functions all day).

    python benchmarks/bench_compile_memory.py [--n 400] [--every 100] [--tracemalloc]
        [--keep] [--size 64] [--jax] [--eager]

Each step makes a new jitted function (an elementwise map, a reduction, a dot or a scan,
in turn) closing over a distinct Python constant, so its kernels are new code, calls it
once and drops it (``--keep`` keeps them all, for comparison). Printed every ``--every``
compiles: RSS (``/proc/self/statm``), its growth per compile since the previous line,
and the sizes of what tjit holds across compiles: the kernel table (``kernel_cache``:
live and recent kernels), LLVM engines (``target.ARENA_STATS``: made, freed, live) and
the symbols they hold, the jit caches keyed by function (``api._SHARED``,
``_ALL_JITTED``), code caches (``rebind_code._CODE``), and the garbage collector's
object count. ``--tracemalloc``: the lines that hold the most Python memory grown
between the first report and the last.

The disk caches (kernels, programs) are pointed at a fresh temporary folder, so every
compile is a real LLVM compile.

``--eager``: instead of new functions, eager operations (``sin``, ``concatenate``, a
reversal, ``sum``) on arrays of a new shape each step, as a test harness calls the
library on many shapes. ``--jax``: the same loop on JAX (run with an interpreter that has it), for comparison.

Measured (2 shared cores, load ~8; tjit and JAX 0.10.2 CPU in separate processes, RSS
after warm-up excluded):

* new jitted functions, ``--n 700``: tjit grows ~20 KiB per compile until the kernel
  table is full (``kernel_cache.CACHE_SIZE`` = 256 recent kernels, reached after ~330
  compiles), then ~1-2 KiB (+9.7 MiB over 700, flat at ~153 MiB; 18 live LLVM engines
  of 34 made; ``kernel_cache.clear()`` frees them all). Every dropped function, its
  programs and ``api._SHARED`` entry are collected. Python memory held per compile
  (tracemalloc): ~3.4 KiB of runner-binding code in ``rebind_code._CODE``, cleared at
  512 entries. JAX: +13.8 MiB over the same 700 (also flat).
* ``--eager``, 400 new shapes: tjit +0.7 MiB (the eager fast-lane tables,
  ``tracing/core._fast_runs``/``_checked``, each cleared at 4096 entries). JAX: +1.9
  GiB after 200 shapes (~8.7 MiB per shape: an XLA executable per operation and
  shape). That, not tjit, is what made a NumPy-comparison harness that calls both
  libraries on thousands of shapes in one process grow to ~3.5 GB: run alone under
  tjit, ``diff_numpy_shape.py all 40`` stays at ~160 MiB over 4,600 cases (3.5 GiB
  after 2,300 with JAX in the process).

Not a test: nothing asserts a size.
"""

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc

os.environ["TJIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="tjit_bench_mem_")

import numpy as np  # noqa: E402

if "--jax" in sys.argv:
    import jax  # noqa: E402
    import jax.numpy as jnp  # noqa: E402
    from jax import lax  # noqa: E402
else:
    import tjit as jax  # noqa: E402
    import tjit.numpy as jnp  # noqa: E402
    from tjit import lax  # noqa: E402
from tjit import api  # noqa: E402
from tjit.devices import kernel_cache, rebind_code  # noqa: E402
from tjit.lower.llvm import target  # noqa: E402

_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


def make(i):
    """The ``i``-th jitted function: four kinds in turn, each with its own constant."""
    c = 1.0 + i * 1e-3
    kind = i % 4
    if kind == 0:
        return jax.jit(lambda x: jnp.sin(x) * c + x)
    if kind == 1:
        return jax.jit(lambda x: jnp.sum(x * c, axis=0))
    if kind == 2:
        return jax.jit(lambda x: jnp.dot(x, x) * c)

    def f(x):
        def body(carry, row):
            carry = carry * c + row
            return carry, carry.sum()
        return lax.scan(body, jnp.zeros(x.shape[1], x.dtype), x)
    return jax.jit(f)


def eager_step(i):
    """Eager operations on the ``i``-th shape (a new one per step)."""
    x = jnp.asarray(np.ones((i % 37 + 1, i // 37 + 1), np.float32))
    return jnp.concatenate([jnp.sin(x) * 2, x[::-1]], axis=0).sum(0)


def cache_sizes():
    if "--jax" in sys.argv:
        return {"gc_objects": len(gc.get_objects())}
    a = target.ARENA_STATS
    return {
        "kernels_live": kernel_cache.cached_count(),
        "kernels_recent": len(kernel_cache._RECENT),
        "bodies": len(kernel_cache._BODIES),
        "slots": len(kernel_cache._SLOTS),
        "engines": a["engines"] - a["freed"],
        "engines_made": a["engines"],
        "arena_syms": len(target._ARENA_NAMES),
        "perm_syms": len(target._LOADED),
        "shared_fns": len(api._SHARED),
        "jitted": len(api._ALL_JITTED),
        "rebind_code": len(rebind_code._CODE),
        "gc_objects": len(gc.get_objects()),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=400)
    p.add_argument("--every", type=int, default=100)
    p.add_argument("--size", type=int, default=64)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--tracemalloc", action="store_true")
    p.add_argument("--jax", action="store_true")
    p.add_argument("--eager", action="store_true")
    args = p.parse_args()

    x = jnp.asarray(np.random.default_rng(0).standard_normal((args.size, args.size)),
                    jnp.float32)
    for i in range(8):      # warm-up: library start-up (BLAS, runtimes) not counted
        jax.block_until_ready(make(i)(x))
    kept = []
    gc.collect()
    base = last = rss_bytes()
    snap0 = None
    if args.tracemalloc:
        tracemalloc.start(8)
    t0 = time.perf_counter()
    print(f"{'compiles':>8} {'RSS MiB':>8} {'+KiB/compile':>12}  caches")
    for i in range(1, args.n + 1):
        if args.eager:
            jax.block_until_ready(eager_step(i))
        else:
            f = make(i + 8)
            jax.block_until_ready(f(x))
            if args.keep:
                kept.append(f)
            del f
        if i % args.every == 0:
            gc.collect()
            now = rss_bytes()
            print(f"{i:>8} {now / 2**20:>8.1f} {(now - last) / args.every / 1024:>12.1f}  "
                  f"{cache_sizes()}", flush=True)
            last = now
            if args.tracemalloc and snap0 is None:
                snap0 = tracemalloc.take_snapshot()
    dt = time.perf_counter() - t0
    print(f"total: +{(last - base) / 2**20:.1f} MiB over {args.n} compiles "
          f"({(last - base) / args.n / 1024:.1f} KiB each), {dt / args.n * 1e3:.1f} ms each")
    kernel_cache.clear()
    after = rss_bytes()
    print(f"after kernel_cache.clear(): RSS {after / 2**20:.1f} MiB, {cache_sizes()}")
    if args.tracemalloc and snap0 is not None:
        snap1 = tracemalloc.take_snapshot()
        print("top Python allocations grown since the first report:")
        for stat in snap1.compare_to(snap0, "traceback")[:8]:
            print(f"  {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+6d} blocks")
            for line in stat.traceback.format()[-6:]:
                print("     ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
