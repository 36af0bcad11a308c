"""Per-op remat costs for the CPU cost model (``tjit/xla_like/target.py``), measured.

    python benchmarks/bench_op_costs.py [--n 1048576] [--reps 9] [--only sin,pow]

For each kernel op and dtype (float32, float64): ``jit(op)(x)`` on ``n`` elements, one
thread (TJIT_NUM_THREADS=1), process CPU time (so other jobs on a loaded machine count
less), median over ``reps``, each rep timed right after a copy kernel (``jit(neg)``) on
the same input. The op's cost is its compute time per element over the copy's,
converted into bytes the base kernel moves in that time (a unary op: over neg, a
"copy" reading and writing one array; a binary op: over add, which reads two):

    cost = (t_op - t_base) / t_base * (arity + 1) * itemsize

which is the unit of the remat model (``fusion.py``: materializing a value costs
``itemsize * (1 + consumers)`` bytes; recomputing it ``(evals - 1) * cost``). The table
printed is the one target.py's ``_CPU_OP_COST`` (float32) and ``_CPU_F64_OP_COST``
(float64) come from; ``x exp`` is the cost as a multiple of the same dtype's exp. Not a
test.

``--programs`` times programs whose plan the costs decide, under the flat costs they
replaced (3 per transcendental, float64 twice float32) and the measured ones, calls
alternating, beside ``jax.jit`` (run with /work/jaxvenv/bin/python for that column).

Measured (2 shared vCPUs, AVX-512, load ~14, two runs; cost in bytes, float32 / float64;
each dtype's base time pooled over all its ops, which made the float64 costs stable):

    exp 4.7-3.6 / 10-7.5   sin 31-27 / 130-115   pow 76 / 90-82    erf 17-16 / 50-43
    atan 12-11 / 32-24     asinh 43-41 / 100-83  erfc 35 / 181-160 lgamma 400-380 / 266-234
    digamma 222 / 190-159  rem 2300 / 1160-1050  div, sqrt, add: 0-1 (memory-bound)

As multiples of float32 exp: sin 7x, pow 19x, asinh 10x, atan 3x, erf 4x (the first
look at these, 9x/22x/14x/6.6x/4.8x, took exp at ~2). float64 sin is 4.6x float32's time
(~15x float64 exp), so a flat float64 factor of 2 undercounted it.

Programs (wall ms, medians of 21, 2 threads; tjit flat -> measured, JAX), two runs:

    program                  dtype    kernels  flat         measured     JAX
    m*exp(v)[None] 3x1M      float32  1 -> 1   0.94         0.93         23
    m*sin(v)[None] 3x1M      float32  1 -> 2   1.48 / 1.67  1.11 / 8.0   25-49
    m*pow(v,2.5)[None] 3x1M  float32  1 -> 2   6.2 / 15.9   1.95 / 7.5   5.4-22
    m*exp(v)[None] 3x1M      float64  1 -> 1   2.0 (41 alternating calls; stored: 6.0)
    m*sin(v)[None] 3x1M      float64  1 -> 2   21.8         12.2         92
    m*pow(v,2.5)[None] 3x1M  float64  1 -> 2   15.4         11.6         47

(the load moved single numbers 2-5x between runs; a later run: float32 sin 1.47 -> 1.08,
pow 9.2 -> 1.95, float64 sin 13.6 -> 7.6, pow 13.8 -> 7.4.) float64 exp measured 7.5-10
bytes; at 9 it was stored for 3 rows, which timed 3x slower than recomputing it, so
target.py takes 8 (recomputed for 3 rows, stored for 4). Same plans under both tables:
softmax-like rows over a pow (the row kernel's reduce stage and output share it),
layernorm (rsqrt of a per-row value: hoisted out of the row loop), and an MLP with
gelu(erf) or tanh, forward and backward (erf is computed once, in a multi-output kernel
that writes gelu and its derivative).
"""

import argparse
import contextlib
import os
import sys
import time

if "--programs" not in sys.argv:      # (the per-op table: one thread)
    os.environ.setdefault("TJIT_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import tjit  # noqa: E402

tjit.config.update("jax_enable_x64", True)     # (float64 rows: float64 kernels)
import tjit.numpy as jnp  # noqa: E402
from tjit import lax  # noqa: E402
from tjit.xla_like import target  # noqa: E402
from tjit.xla_like.kernel_ir import TRANSCENDENTAL_OPS  # noqa: E402

try:
    import jax  # noqa: E402
    import jax.numpy as jjnp  # noqa: E402
    jax.config.update("jax_enable_x64", True)
except ImportError:        # (run with /work/jaxvenv/bin/python for the JAX column)
    jax = None


def _inputs(op, n, dtype, rng):
    """Inputs in the op's domain, away from the special cases (fast paths, NaNs)."""
    u = rng.uniform(0.05, 0.95, n).astype(dtype)
    if op in ("asin", "acos", "atanh"):
        return (u * 2 - 1,)
    if op == "acosh":
        return (u * 20 + 1,)
    if op in ("lgamma", "digamma"):
        return (u * 30 + 0.5,)
    if op in ("sin", "cos", "tan", "exp", "exp2", "expm1", "sinh", "cosh", "tanh",
              "logistic", "erf", "erfc", "atan", "asinh", "cbrt", "neg"):
        return (u * 8 - 4,)
    if op in ("pow", "div", "rem", "atan2", "add"):
        return (u * 4 + 0.5, (rng.uniform(0.05, 0.95, n) * 3 - 1).astype(dtype))
    return (u * 4 + 0.05,)        # log, log1p, sqrt, rsqrt


OPS = ("exp", "exp2", "expm1", "log", "log1p", "tanh", "logistic", "sin", "cos", "tan",
       "erf", "erfc", "pow", "atan2", "cbrt", "asin", "acos", "atan", "sinh", "cosh",
       "asinh", "acosh", "atanh", "lgamma", "digamma", "div", "rem", "sqrt", "rsqrt", "add")


def _cpu_time(f, args):
    t = time.process_time()
    f(*args).block_until_ready()
    return time.process_time() - t


def measure(op, dtype, n, reps, rng):
    """(op ms, base ms, arity): the base is a cheap op of the same arity, neg for unary
    ops, add (cheap_cost itself) for binary ones, so both move the same arrays."""
    args = _inputs(op, n, dtype, rng)
    f = tjit.jit(getattr(lax, op))
    base = tjit.jit(lax.neg if len(args) == 1 else lax.add)
    for _ in range(2):                               # compile, warm the caches
        f(*args).block_until_ready()
        base(*args).block_until_ready()
    t_op, t_base = [], []
    for _ in range(reps):
        t_base.append(_cpu_time(base, args))
        t_op.append(_cpu_time(f, args))
    return np.median(t_op), np.median(t_base), len(args)


def costs(rows):
    """(op, dtype) -> (op ms, base ms, cost in bytes). The base time is the median over
    every op's base runs of that dtype and arity: one op's base median moved up to 2x
    between runs on a loaded machine (float64 most), the pooled one ~10%."""
    pooled = {}
    for (op, dt), (_, tb, k) in rows.items():
        pooled.setdefault((dt, k), []).append(tb)
    out = {}
    for (op, dt), (t, _, k) in rows.items():
        tb = np.median(pooled[dt, k])
        moved = (k + 1) * np.dtype(dt).itemsize          # bytes per element of the base
        out[op, dt] = (t, tb, max(0.0, (t - tb) / tb * moved))
    return out


# -- programs whose plan the measured costs change ---------------------------------------

#: The costs before they were measured: 3 per transcendental, erfc/digamma/lgamma's first
#: measurements, 1 for div/rem/sqrt/rsqrt/take, float64 twice float32.
FLAT_COSTS = dict(dict.fromkeys(TRANSCENDENTAL_OPS, 3.0), erfc=24.0, digamma=175.0,
                  lgamma=250.0, div=1.0, rem=1.0, sqrt=1.0, rsqrt=1.0, take=1.0)


@contextlib.contextmanager
def flat_costs():
    """target.CPU with the flat costs (its mappings are views of these dicts)."""
    saved32, saved64 = dict(target._CPU_OP_COST), dict(target._CPU_F64_OP_COST)
    target._CPU_OP_COST.clear()
    target._CPU_OP_COST.update(FLAT_COSTS)
    target._CPU_F64_OP_COST.clear()
    try:
        yield
    finally:
        target._CPU_OP_COST.update(saved32)
        target._CPU_F64_OP_COST.update(saved64)


def _gelu(np_, x):
    return 0.5 * x * (1 + lax_erf(np_)(x / np_.sqrt(2.0).astype(x.dtype)))


def lax_erf(np_):
    return lax.erf if np_ is jnp else jax.lax.erf


def programs(np_, dt):
    """name -> (f, args) in the namespace ``np_`` (tjit.numpy or jax.numpy)."""
    rng = np.random.default_rng(1)
    n = 1 << 20
    v = rng.uniform(0.5, 2.0, n).astype(dt)
    m3 = rng.standard_normal((3, n)).astype(dt)
    x = rng.uniform(0.1, 2.0, (512, 1024)).astype(dt)
    h = rng.standard_normal((256, 512)).astype(dt)
    w1 = (rng.standard_normal((512, 1024)) / 23).astype(dt)
    w2 = (rng.standard_normal((1024, 512)) / 32).astype(dt)

    def layernorm(x):
        mu = np_.mean(x, axis=-1, keepdims=True)
        var = np_.mean((x - mu) ** 2, axis=-1, keepdims=True)
        return (x - mu) * lax_rsqrt(np_)(var + 1e-5)

    def mlp_loss(w1, w2, h):
        return np_.sum(_gelu(np_, h @ w1) @ w2 ** 2)

    def tanh_mlp_loss(w1, w2, h):
        return np_.sum(np_.tanh(h @ w1) @ w2 ** 2)

    grad = tjit.grad if np_ is jnp else jax.grad
    return {
        "m*exp(v)[None] 3x1M": (lambda m, v: m * np_.exp(v)[None, :], (m3, v)),
        "m*sin(v)[None] 3x1M": (lambda m, v: m * np_.sin(v)[None, :], (m3, v)),
        "m*pow(v,2.5)[None] 3x1M": (lambda m, v: m * (v ** 2.5)[None, :], (m3, v)),
        "pow rows / row sum 512x1k": (
            lambda x: (lambda p: p / np_.sum(p, axis=1, keepdims=True))(x ** 1.7), (x,)),
        "layernorm 512x1k": (layernorm, (x,)),
        "gelu(erf) MLP fwd+bwd": (grad(mlp_loss, argnums=(0, 1)), (w1, w2, h)),
        "tanh MLP fwd+bwd": (grad(tanh_mlp_loss, argnums=(0, 1)), (w1, w2, h)),
    }


def lax_rsqrt(np_):
    return lax.rsqrt if np_ is jnp else jax.lax.rsqrt


def _median_ms(f, args, reps):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        out = f(*args)
        (out[0] if isinstance(out, tuple) else out).block_until_ready()
        ts.append(time.perf_counter() - t)
    return np.median(ts) * 1e3


def _kernels(f, args):
    return len(f.lower(*args).compile().fusion_summary())


def run_programs(reps):
    print(f"programs: wall ms, medians of {reps}; kernels in the plan (flat -> measured)")
    print(f"{'program':30s} {'dtype':8s} {'kernels':>8s} {'flat':>8s} {'measured':>9s} "
          f"{'JAX':>8s}")
    for dt in (np.float32, np.float64):
        progs = programs(jnp, dt)
        jprogs = programs(jjnp, dt) if jax else {}
        for name, (f, args) in progs.items():
            got, fns = {}, {}
            for label in ("flat", "measured"):
                with flat_costs() if label == "flat" else contextlib.nullcontext():
                    g = tjit.jit(lambda *a, f=f: f(*a))
                    k = _kernels(g, args)
                    out = g(*args)
                    fns[label] = g
                    got[label] = [k, [], out]
            for _ in range(reps):         # alternate, so load changes hit both alike
                for label, g in fns.items():
                    got[label][1].append(_median_ms(g, args, 1))
            for label in fns:
                got[label][1] = np.median(got[label][1])
            a, b = got["flat"][2], got["measured"][2]
            for x, y in zip(tjit.tree_leaves(a), tjit.tree_leaves(b)):
                np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)
            j = ""
            if jax:
                jf = jax.jit(jprogs[name][0])
                _median_ms(jf, args, 2)
                j = f"{_median_ms(jf, args, reps):8.2f}"
            kernels = f"{got['flat'][0]:>3d} -> {got['measured'][0]:<3d}"
            print(f"{name:30s} {np.dtype(dt).name:8s} {kernels}"
                  f" {got['flat'][1]:8.2f} {got['measured'][1]:9.2f} {j}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1 << 20)
    p.add_argument("--reps", type=int, default=9)
    p.add_argument("--only", default="")
    p.add_argument("--programs", action="store_true",
                   help="time programs under the flat and the measured costs instead")
    a = p.parse_args()
    if a.programs:
        run_programs(a.reps)
        return
    ops = [o for o in OPS if not a.only or o in a.only.split(",")]
    rng = np.random.default_rng(0)
    rows = {}
    for dtype in (np.float32, np.float64):
        for op in ops:
            rows[op, dtype] = measure(op, dtype, a.n, a.reps, rng)
    rows = costs(rows)
    print(f"n={a.n}, one thread, CPU ms (medians of {a.reps}); cost in copy bytes")
    print(f"{'op':10s} {'f32 ms':>8s} {'copy':>6s} {'cost':>7s} {'x exp':>6s}   "
          f"{'f64 ms':>8s} {'copy':>6s} {'cost':>7s} {'x exp':>6s} {'f64/f32':>7s}")
    for op in ops:
        line = f"{op:10s}"
        for dtype in (np.float32, np.float64):
            t, tc, c = rows[op, dtype]
            e = rows.get(("exp", dtype), (0, 0, 0))[2]
            line += f" {t * 1e3:8.2f} {tc * 1e3:6.2f} {c:7.1f} {c / e if e else 0:6.1f}  "
        c32, c64 = rows[op, np.float32][2], rows[op, np.float64][2]
        line += f" {c64 / c32 if c32 else 0:7.1f}"
        print(line)


if __name__ == "__main__":
    main()
