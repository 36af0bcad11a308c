"""A session's CPU costs against an older checkout: the special functions whose
accuracy a round changed (jit on 1e6 elements, eager on 8, float32 and float64), the
small-array constructors (jnp.array / asarray / arange) and a jitted call's dispatch.

    python benchmarks/bench_session_costs.py --base /path/to/old/checkout [--base ...] [--rounds 3]
        [--cases ndtr,gamma] [--group eager|jit|small]

Each checkout runs in its own processes, alternating (``--rounds`` each, with its own
disk-cache directory so neither reads the other's compiled programs), and a row is the
median over processes of each process's median process-CPU time per call (the
development machine is shared and loaded: CPU time, not wall time). Make the old
checkout with ``git worktree add --detach /tmp/base <commit>`` (and remove it after).
Not a test: nothing here asserts a time.

Session 22, 2-core machine at load 13-16, medians of 3 alternating processes, us of
process CPU: 00e49e0 (before the session) -> 360270f (its changes) -> 0774334 (after
the eager fixes: exact_fma's lanes, the branches no lane takes skipped):

  eager, 8 elements        float32                 float64
  ndtr                  122 ->  108 ->   98     129 ->  143 ->  119
  gelu exact             81 ->   83 ->   71      89 ->   98 ->   88
  hypot                 390 ->  209 ->  189     347 ->  205 ->  188
  gamma                 266 ->  310 ->  270     261 ->  337 ->  275
  poch                 2004 -> 2092 ->  671    1983 -> 2204 ->  709
  comb                  309 -> 2102 -> 1128     319 -> 2103 -> 1076
  beta                 1396 -> 2272 -> 1112    1196 -> 2259 -> 1142
  zeta (mixed signs)    825 -> 1124 ->  948     762 -> 1105 ->  972
  nbinom.logpmf         430 ->  717 ->  785     492 ->  733 ->  649
  squareplus grad2     2511 -> 2558 -> 2925    2717 -> 2532 -> 2785  (noise: ~10%)

One-region arrays gain more (float64): zeta on (1, 9] 656 -> 1108 -> 95, on (0, 1)
645 -> 1059 -> 189; gamma on [0.5, 9.5] 222 -> 313 -> 216, on [10.5, 90.5] 158 -> 318
-> 132. jit on 1e6 elements (00e49e0 -> 360270f; the fixes leave compiled code alone,
within noise in a rerun): gamma float32 5747 -> 6766, float64 8887 -> 11331; poch
33217 -> 63944, 61245 -> 104806; comb 9471 -> 41354, 10287 -> 53368; beta 26894 ->
61440, 54905 -> 91466; nbinom.logpmf 11596 -> 20882, 12024 -> 25983; squareplus
grad2 596 -> 659, 1617 -> 1927 (the accuracy rounds' formulas); hypot 674 -> 402,
1321 -> 796, gelu exact grad 855 -> 717 (fma). Constructors and jit dispatch: within
6% of 00e49e0.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def _median_us(call, budget_s=0.02, reps=7):
    """Median over ``reps`` batches of the process-CPU time per call, each batch sized
    to take about ``budget_s`` (after two warm-up calls: compile, caches)."""
    call(), call()
    t = time.process_time()
    call()
    once = max(time.process_time() - t, 1e-6)
    inner = max(1, min(2000, int(budget_s / once)))
    times = []
    for _ in range(reps):
        t = time.process_time()
        for _ in range(inner):
            call()
        times.append((time.process_time() - t) / inner * 1e6)
    return float(np.median(times))


def _special_cases(tjit, jnp):
    import tjit.scipy.special as sp
    import tjit.scipy.stats as st
    from tjit import nn

    def grad_sum(f, argnums=0):
        return tjit.grad(lambda *a: f(*a).sum(), argnums=argnums)

    # name -> (function, number of array arguments, input transform)
    pos = np.abs
    return {
        "ndtr": (sp.ndtr, 1, None), "log_ndtr": (sp.log_ndtr, 1, None),
        "erfc": (sp.erfc, 1, None), "erfcx": (sp.erfcx, 1, None),
        "hypot": (jnp.hypot, 2, None),
        "gelu_exact": (lambda v: nn.gelu(v, approximate=False), 1, None),
        "gelu_exact_grad": (grad_sum(lambda v: nn.gelu(v, approximate=False)), 1, None),
        "logaddexp": (jnp.logaddexp, 2, None),
        "logaddexp_grad": (grad_sum(jnp.logaddexp), 2, None),
        "logaddexp2_grad": (grad_sum(jnp.logaddexp2), 2, None),
        "erf_grad": (grad_sum(sp.erf), 1, None),
        "erfinv_grad": (grad_sum(sp.erfinv), 1, lambda v: np.tanh(v / 4)),
        "hypot_grad2": (grad_sum(grad_sum(jnp.hypot)), 2, None),
        "gamma": (sp.gamma, 1, None), "digamma": (sp.digamma, 1, None),
        "poch": (sp.poch, 2, pos), "comb": (lambda n, k: sp.comb(n, k), 2,
                                            lambda v: np.abs(v) * 5),
        "beta": (sp.beta, 2, None), "zeta": (sp.zeta, 1, lambda v: v * 5 + 0.25),
        "nbinom_logpmf": (lambda k, n: st.nbinom.logpmf(k, n, 0.3), 2,
                          lambda v: np.floor(np.abs(v) * 3)),
        "squareplus_grad2": (grad_sum(grad_sum(nn.squareplus)), 1, None),
    }


def _cases(selected, groups):
    import tjit
    tjit.config.update("jax_enable_x64", True)
    import tjit.numpy as jnp
    from tjit import jit

    rng = np.random.default_rng(0)
    cases = {}
    if "eager" in groups or "jit" in groups:
        for name, (f, nargs, prep) in _special_cases(tjit, jnp).items():
            if selected and not any(s in name for s in selected):
                continue
            for dtype, dn in ((np.float32, "f32"), (np.float64, "f64")):
                for n, mode, g in ((8, "eager", f), (10**6, "jit", None)):
                    if mode not in groups:
                        continue
                    vals = [rng.standard_normal(n) * 3 for _ in range(nargs)]
                    if prep is not None:
                        vals = [prep(v) for v in vals]
                    args = tuple(jnp.asarray(v.astype(dtype)) for v in vals)
                    cases[f"{name}/{dn}/{mode}"] = (g or jit(f), args)
    if "small" in groups:
        x8 = np.arange(8, dtype=np.float32)
        add1 = jit(lambda a: a + 1)
        three = jit(lambda a, b, c: a * b + c)
        scaled = jit(lambda a, k: a * k, static_argnums=1)
        xs = jnp.asarray(x8)
        small = {
            "jnp.array(list of 3 floats)": (jnp.array, ([1.0, 2.0, 3.0],)),
            "jnp.array(ndarray 8)": (jnp.array, (x8,)),
            "jnp.array(Array 8)": (jnp.array, (xs,)),
            "jnp.array(python float)": (jnp.array, (1.5,)),
            "jnp.asarray(ndarray 8)": (jnp.asarray, (x8,)),
            "jnp.asarray(Array 8)": (jnp.asarray, (xs,)),
            "jnp.asarray(list of 3 ints)": (jnp.asarray, ([1, 2, 3],)),
            "jnp.arange(8)": (jnp.arange, (8,)),
            "jnp.arange(0., 1., .125)": (jnp.arange, (0.0, 1.0, 0.125)),
            "jit call a+1 (8)": (add1, (xs,)),
            "jit call a*b+c (8)": (three, (xs, xs, xs)),
            "jit call static arg (8)": (scaled, (xs, 3)),
            "eager x+x (8)": (lambda a: a + a, (xs,)),
            "eager sum (8)": (jnp.sum, (xs,)),
        }
        cases.update({k: v for k, v in small.items()
                      if not selected or any(s in k for s in selected)})
    return tjit, cases


def measure(selected, groups):
    tjit, cases = _cases(selected, groups)
    out = {}
    for name, (fn, args) in cases.items():
        big = name.endswith("/jit")
        out[name] = _median_us(lambda: tjit.block_until_ready(fn(*args)),
                               0.05 if big else 0.02, 5 if big else 9)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", action="append", default=[],
                    help="an old checkout to compare with (its repository root; repeatable)")
    ap.add_argument("--here", default=None, help="the checkout to measure (default: this one)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default="", help="comma-separated substrings of case names")
    ap.add_argument("--group", default="eager,jit,small",
                    help="comma-separated: eager (8 elements), jit (1e6), small")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    selected = [s for s in a.cases.split(",") if s]
    groups = a.group.split(",")
    if a.child:
        print(json.dumps(measure(selected, groups)))
        return
    here = a.here or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"now": here} | {os.path.basename(os.path.abspath(b)): os.path.abspath(b)
                             for b in a.base}
    caches = {side: tempfile.mkdtemp(prefix=f"tjit_cache_{side}_") for side in trees}
    times = {k: {} for k in trees}
    for r in range(a.rounds):
        for side in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
            env = dict(os.environ, PYTHONPATH=trees[side], TJIT_CACHE_DIR=caches[side])
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child", "--cases",
                 ",".join(selected), "--group", ",".join(groups)],
                env=env, cwd="/", capture_output=True, text=True)
            if proc.returncode:
                sys.exit(f"{side}: {proc.stderr[-3000:]}")
            for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items():
                times[side].setdefault(k, []).append(v)
    cols = list(trees)
    print(f"{'case (us per call, process CPU)':34s}" + "".join(f"{c:>10s}" for c in cols)
          + "".join(f"  now/{c}" for c in cols[1:]))
    for name in times["now"]:
        meds = [np.median(times[c].get(name, [np.nan])) for c in cols]
        ratios = "".join(f"{meds[0] / m:{len(c) + 6}.2f}" for c, m in zip(cols[1:], meds[1:]))
        print(f"{name:34s}" + "".join(f"{m:10.2f}" for m in meds) + ratios, flush=True)


if __name__ == "__main__":
    main()
