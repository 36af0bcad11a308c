"""What first-order derivative rules of activations cost, against an old checkout:
jit(grad(sum(f))) and jit(f) on 1e6 float32 (the backward pass of a training step), and
jit(grad(grad(sum(f)))) for the slopes whose own derivative is a rule of its own
(primitives/elementwise.py, ``_slope_call``).

    python benchmarks/bench_slope_costs.py [--base /path/to/old/checkout] [--rounds 2]

Each side runs in its own processes, alternating (``--rounds`` each); a number is the
median over processes of each process's median process-CPU time per call, in ms (the
development machine is shared and loaded). Make an old checkout with
``git worktree add --detach /tmp/base <commit>`` (and remove it after). Not a test.

Measured on the 2-core development machine (loaded), 095f675 -> the accuracy round
(2382adf) -> d79328e / 6ebf141, ms of jit(grad(sum(f))), two alternating processes each:

  f          095f675   accuracy round   now
  tanh        0.164        0.35         0.164-0.176 (tanh' from t again, no exp(-2|x|))
  sigmoid     0.30         0.62         0.29-0.31   (no tanh(x/2) lane in first order)
  gelu        0.42-0.44    0.72         0.44-0.47   (64dbc8e's clip of x, by lax.clamp)
  (sigmoid's grad of grad 0.31-0.33 -> 0.40-0.42: tanh(x/2), its second-order rule)
The others (silu, elu, soft_sign, expm1, arcsinh, arcsin, arctanh) are within noise of
095f675 or faster. erf / erfc / erf_inv's slopes take exp of x**2 as p + err (elementwise.py
_exp_square; float64 gelu_exact' at -30 was 137 ulps off): erf 0.145-0.165 -> 0.21-0.24,
gelu_exact 0.85-0.94 -> 0.98-1.06, erf_inv 1.34-1.40 -> 1.40-1.44 (same tree, rule toggled).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

CASES = ("tanh", "sigmoid", "gelu", "silu", "elu", "soft_sign", "expm1", "arcsinh",
         "arcsin", "arctanh", "gelu_exact", "erf", "erf_inv")


def _functions():
    import tjit.numpy as jnp
    import tjit.nn as nn
    from tjit import lax
    return {"tanh": jnp.tanh, "sigmoid": nn.sigmoid, "gelu": nn.gelu, "silu": nn.silu,
            "elu": nn.elu, "soft_sign": nn.soft_sign, "expm1": jnp.expm1,
            "arcsinh": jnp.arcsinh, "arcsin": jnp.arcsin, "arctanh": jnp.arctanh,
            "gelu_exact": lambda u: nn.gelu(u, approximate=False), "erf": lax.erf,
            "erf_inv": lax.erf_inv}


def _median_ms(f, x, n=30):
    np.asarray(f(x))
    ts = []
    for _ in range(n):
        c = time.process_time()
        np.asarray(f(x))
        ts.append(time.process_time() - c)
    return float(np.median(ts)) * 1e3


def measure():
    import tjit
    import tjit.numpy as jnp
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1_000_000).astype(np.float32)
    inside = (x / 4).clip(-0.99, 0.99)  # arcsin / arctanh / erf_inv's domain
    out = {}
    for name, f in _functions().items():
        v = inside if name in ("arcsin", "arctanh", "erf_inv") else x

        def total(u, f=f):
            return jnp.sum(f(u))
        d1 = tjit.grad(total)
        out[name] = {"value": _median_ms(tjit.jit(lambda u, f=f: f(u)), v),
                     "grad": _median_ms(tjit.jit(d1), v)}
        if name in ("tanh", "sigmoid"):
            out[name]["grad2"] = _median_ms(
                tjit.jit(tjit.grad(lambda u, d1=d1: jnp.sum(d1(u)))), v)
    return out


def _run(tree):
    env = dict(os.environ, PYTHONPATH=tree)
    text = subprocess.run([sys.executable, __file__, "--child"], env=env, check=True,
                          capture_output=True, text=True).stdout
    return json.loads(text.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(measure()))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sides = {"now": here} if not a.base else {"base": a.base, "now": here}
    runs = {s: [] for s in sides}
    for _ in range(a.rounds):
        for s, tree in sides.items():
            runs[s].append(_run(tree))
    print("%-10s %-6s " % ("f", "pass") + " ".join("%9s" % s for s in sides))
    for name in CASES:
        for kind in ("value", "grad", "grad2"):
            if kind not in runs["now"][0][name]:
                continue
            row = [np.median([r[name][kind] for r in runs[s]]) for s in sides]
            print("%-10s %-6s " % (name, kind) + " ".join("%9.3f" % v for v in row))


if __name__ == "__main__":
    main()
