"""What the accuracy fixes of the special-function round cost, against the code before
them: log_softmax / logsumexp (the rest after the maxima kept apart), ndtr / log_ndtr /
erfcx / eager erfc / exact gelu (x**2 as an exact pair), logaddexp (x - y's rounding
corrected), pytree flattening (key types checked) and tiny jit calls, eager and jitted,
on 8 and 1e6 elements.

    python benchmarks/bench_accuracy_costs.py [--base /path/to/old/checkout] [--rounds 4]
        [--cases log_softmax,jit_call]

Each side runs in its own processes, alternating (``--rounds`` each), and a row is the
median over processes of each process's median process-CPU time per call (the
development machine is shared and loaded: CPU time, not wall time). Without ``--base``
only this checkout is measured. Make an old checkout with
``git worktree add --detach /tmp/base <commit>`` (and remove it after). ``committed``
cases run in a process of their own: committing an array to a mesh installs jit's
output-layout hook for the rest of the process. Not a test: nothing here asserts a time.

Measured on the 2-core development machine (load 10-13), us per call, medians of 3
alternating processes each: 095f675 (before the fixes), the fixes as first committed
(065e066, d5871d3, eee1adc, 7b11334, 87008ba), and after this file's commits (3fb799a,
8acecf4, c6a31e4, 777feb3, 93c8cb7, 6995e6f):

  case (float32)              095f675   fixes   now     what changed
  log_softmax 8 eager            43      173     73     log1p(rest + (m - 1)), no branches
  logsumexp   8 eager            92      220    117     2 sums, not 3
  log_softmax 1e6 jit           373      472    397     (sibling sums share one pass)
  log_softmax 1e6 eager        1127     9772   9680     fresh 4 MB temporaries page-fault
  ndtr        8 eager            52      182    136     split factor cached per dtype
  ndtr        1e6 jit           829     2015    999     one erfc, exp(excess) = 1 + excess
  log_ndtr    1e6 jit          3058     6962   4028     one ndtr for both lanes
  log_ndtr    8 eager           308      857    571
  gelu exact  8 eager            20      143     81     TwoProduct excess, cached constants
  gelu exact  1e6 jit           434      829    566
  logaddexp   8 eager            47      142    109     -|x - y| as min - max (no sign select)
  logaddexp   1e6 jit           491      607    614     (the correction's divide and TwoSum)
  tree_flatten small dict       6.6      7.2    7.2     key types in the intern key
  jit call, plain, 8            4.1      4.1    4.1     (nothing committed in the process)
  jit call, committed, 8        4.2      6.1    6.1     output layout per call (--cases committed)
  eager x + x, committed        1.7      6.3    6.3

comb/beta/poch on their large-argument paths (``--cases _large``: exp of a log kept as a
double-double pair, bd1734e..21c5259, against bd1734e^), us per call, medians of 2
alternating processes each (this machine at load ~10; 1e6 rows vary by ~15%):

  case                 base f32  now f32    base f64   now f64   accuracy (ulps, worst seen)
  comb 8 eager              464      894        464      1039    f64 comb(1000, 500) 607 -> 0.5
  comb 8 jit               15.8     32.5       16.4      33.1    f32 comb(100, 45) 26.9 -> 0.9
  comb 1e6 jit            41100    53100      53600    102000    f64 comb(1e12, 7.5) 161 -> 0.4
  beta 8 eager             1184     1196       1178      1364    f64 beta(251, 251) 141 -> 0.2
  beta 1e6 jit            59000    88700      92200    146000    f32 beta(2.5, 1e5) 9 -> 0.01
  poch 8 eager             1101     1706       1156      1708    f32 poch(-20.3, -20.4) 70.6 -> 2.6
  poch 1e6 jit            67400    85500     115100    116000    f64 poch(199.5, 34.9) 28 -> 0.02
  betaln, gammaln: unchanged (ratios 0.9-1.05)

Every jitted call on 8 elements is within noise of 095f675 (4.0-4.5 us, log_ndtr 4.7 ->
5.9). Eager costs on few elements are the number of tjit operations (~3-5 us each).

Later (f7c3e62 ndtr's excess by one exact product; 502240a log_ndtr's lower tail by
erfcx's series alone), float32, 3 alternating processes each, "now" column -> then (095f675
in the same run): ndtr 1e6 jit 999 -> 911 (786), log_ndtr 1e6 jit 4028 -> 2145 (2936),
log_ndtr 8 eager 571 -> 426 (288), log_ndtr 8 jit 5.9 -> 5.5 (4.7); gelu exact 1e6 jit
542 (455) and logaddexp 1e6 jit 581 (466) unchanged. 0cf1fb6 (logaddexp slopes from one
exp and one divide): jit(grad(sum(logaddexp(x, y)))) wrt x, 1e6 float32, 400 -> 320-330
(270-280); eager on 8 elements 460 -> 535 (330), the form's extra operations.

The exact products as one fma (f1c4dcd, 561ac3e) against the same tree with Dekker's
products, 3 alternating processes each, us: jit 1e6 float32 hypot 688 -> 396, gelu exact
grad 843 -> 717, logaddexp2 grad 452 -> 384, gelu exact 607 -> 552, ndtr 868-989 -> 951-
1091 (noise), log_ndtr and erfcx unchanged; float64 jit(grad(sum(erf))) 529 -> 475. Eager
on 8 elements costs more (NumPy has no fma: the exact impl is 12-30 ufunc calls against
Dekker's few fast-lane operations; after f32d08b): ndtr f32 99 -> 114, f64 108 -> 144;
gelu exact f32 71 -> 86, f64 81 -> 100; hypot 8 elements and log_ndtr unchanged; eager
1e6 float32 ndtr 72 -> 65 ms, hypot 45 -> 50 ms.
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

# Run as a script: its folder is on sys.path, as for the other benchmarks' shared helpers.
from bench_session_costs import _median_us


def _cases(selected):
    import tjit
    tjit.config.update("jax_enable_x64", True)
    import tjit.numpy as jnp
    import tjit.scipy.special as sp
    from tjit import jit, nn, tree_util

    rng = np.random.default_rng(0)
    cases = {}

    def arr(shape, dtype):
        return jnp.asarray((rng.standard_normal(shape) * 3).astype(dtype))

    fns = (("log_softmax", nn.log_softmax, True), ("logsumexp",
           lambda v: sp.logsumexp(v, axis=-1), True), ("softmax", nn.softmax, True),
           ("ndtr", sp.ndtr, False), ("log_ndtr", sp.log_ndtr, False),
           ("erfcx", sp.erfcx, False), ("erfc", sp.erfc, False),
           ("gelu_exact", lambda v: nn.gelu(v, approximate=False), False),
           ("logaddexp", jnp.logaddexp, False), ("sum", jnp.sum, False),
           ("hypot", jnp.hypot, False),
           ("gelu_exact_grad", tjit.grad(lambda v: nn.gelu(v, approximate=False).sum()),
            False),
           ("logaddexp2_grad", tjit.grad(lambda a, b: jnp.logaddexp2(a, b).sum()), False))
    two_args = ("logaddexp", "hypot", "logaddexp2_grad")
    for n, tag in ((8, "8"), (10**6, "1M")):
        for dtype, dn in ((np.float32, "f32"), (np.float64, "f64")):
            if n > 8 and dtype == np.float64:
                continue
            for name, f, rows in fns:
                shape = ((n // 1000, 1000) if n > 8 else (2, 4)) if rows else (n,)
                args = (arr(shape, dtype),) * (2 if name in two_args else 1)
                for mode, g in (("eager", f), ("jit", jit(f))):
                    cases[f"{name}/{dn}/{tag}/{mode}"] = (g, args, n > 8)
    # comb/beta/poch on their large-argument paths (exp of a log kept as a pair since
    # bd1734e), betaln and lgamma beside; 1e6 elements in both dtypes
    def uniform(lo, hi, n, dt, scale64=1):   # (float64: past Gamma's float32 range)
        scale = scale64 if dt == np.float64 else 1
        return rng.uniform(lo * scale, hi * scale, n).astype(dt)
    large_args = {"comb": lambda n, dt: (np.round(uniform(60, 120, n, dt, 8)),
                                         np.round(uniform(25, 35, n, dt, 8))),
                  "beta": lambda n, dt: (uniform(10, 300, n, dt), uniform(10, 300, n, dt)),
                  "poch": lambda n, dt: (rng.choice([-1, 1], n).astype(dt) *
                                         uniform(40, 60, n, dt, 4), uniform(-12, -3, n, dt)),
                  "betaln": lambda n, dt: (uniform(10, 300, n, dt), uniform(10, 300, n, dt)),
                  "gammaln": lambda n, dt: (uniform(10, 300, n, dt),)}
    for n, tag in ((8, "8"), (10**6, "1M")):
        for dtype, dn in ((np.float32, "f32"), (np.float64, "f64")):
            for name, make in large_args.items():
                f = getattr(sp, name)
                args = tuple(jnp.asarray(v) for v in make(n, dtype))
                for mode, g in (("eager", f), ("jit", jit(f))):
                    if mode == "eager" and n > 8:
                        continue
                    cases[f"{name}_large/{dn}/{tag}/{mode}"] = (g, args, n > 8)
    tree = {"a": np.float32(1), "b": [1.0, 2.0, (3.0, 4.0)], "c": {"d": 5.0, "e": 6.0}}
    cases["tree_flatten/dict"] = (tree_util.tree_flatten, (tree,), False)
    cases["tree_map/dict"] = (lambda t: tree_util.tree_map(lambda v: v, t), (tree,), False)
    xs = jnp.arange(8.0, dtype=jnp.float32)
    add1 = jit(lambda a: a + 1)
    cases["jit_call/plain"] = (add1, (xs,), False)
    cases["jit_call/dict_arg"] = (jit(lambda d: {k: v * 2 for k, v in d.items()}),
                                  ({"w": xs, "b": xs},), False)
    if selected and any("committed" in s for s in selected):
        from tjit.sharding import NamedSharding, PartitionSpec as P
        xc = tjit.device_put(xs, NamedSharding(tjit.make_mesh((1,), ("x",)), P("x")))
        cases["committed/jit_call"] = (add1, (xc,), False)
        cases["committed/eager_add"] = (lambda a: a + a, (xc,), False)
    return tjit, cases


def measure(selected):
    tjit, cases = _cases(selected)
    out = {}
    for name, (fn, args, big) in cases.items():
        if selected and not any(s in name for s in selected):
            continue
        out[name] = _median_us(lambda: tjit.block_until_ready(fn(*args)),
                               reps=7 if big else 9)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="an old checkout to compare with (its repository root)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--cases", default="", help="comma-separated substrings of case names")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    selected = [s for s in a.cases.split(",") if s]
    if a.child:
        print(json.dumps(measure(selected)))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"now": here} | ({"base": os.path.abspath(a.base)} if a.base else {})
    groups = [selected] if not any("committed" in s for s in selected) or len(selected) == 1 \
        else [[s for s in selected if "committed" not in s], ["committed"]]
    times = {k: {} for k in trees}
    for group in groups:
        for r in range(a.rounds):
            for side in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
                env = dict(os.environ, PYTHONPATH=trees[side])
                proc = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--child", "--cases",
                     ",".join(group)], env=env, cwd="/", capture_output=True, text=True)
                if proc.returncode:
                    sys.exit(f"{side}: {proc.stderr[-3000:]}")
                for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items():
                    times[side].setdefault(k, []).append(v)
    cols = list(trees)
    print(f"{'case (us per call, process CPU)':34s}" + "".join(f"{c:>10s}" for c in cols)
          + ("   now/base" if a.base else ""))
    for name in times["now"]:
        meds = [np.median(times[c].get(name, [np.nan])) for c in cols]
        ratio = f"   {meds[0] / meds[1]:8.2f}" if a.base else ""
        print(f"{name:34s}" + "".join(f"{m:10.2f}" for m in meds) + ratio)


if __name__ == "__main__":
    main()
