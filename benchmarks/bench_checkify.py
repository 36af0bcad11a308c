"""Cost of checkify: ``jit(checkify(f, errors))`` beside ``jit(f)``, for tjit and JAX.

    python benchmarks/bench_checkify.py [--rounds 5] [--repeat 21]

Cases: an MLP layer stack (matmuls, tanh, a user check on the input), a scan whose body
checks its element, and a gather + scatter program. The user checks are ``debug_check``s,
so that plain ``jit(f)`` runs the same program without them. Each is timed as plain ``jit(f)``,
``jit(checkify(f))`` (user checks only) and ``jit(checkify(f, all_checks))`` (NaN,
division and index checks added to every primitive that can fail). Implementations
alternate within each round; each time is the median of ``repeat`` calls, the table the
median over rounds, with the ratio to plain jit (eager rows: to eager ``f``). Results are checked against plain jit
first. Eager calls (no jit: checkify traces and interprets the function per call) are
timed too, since a notebook calls it that way.

Measured on the 2-core development machine (load average 11-13, JAX 0.10.2 CPU), medians
in ms, ratio to plain jit (eager: to eager f), tjit / JAX:

  mlp 4x256          checkify 0.40 (1.0x) / 0.42;  all_checks 0.40 (1.05x) / 0.48
  scan 200x1024      checkify 0.22 (1.09x) / 1.69 (1.02x);  all 0.42 (2.1x) / 3.4 (2.05x)
  gather+scatter     checkify 0.054 (1.0x) / 0.107;  all 0.086 (1.6x) / 0.45 (4.3x)
  eager checkify     1.2-1.8 ms more than eager f (a trace of f per call), JAX 0.9-1.1
"""

import argparse
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as tjnp
from tjit import lax as tlax
from tjit.experimental import checkify as tcheckify

try:
    import jax
    import jax.numpy as jjnp
    from jax import lax as jlax
    from jax.experimental import checkify as jcheckify
except ImportError:  # JAX is optional
    jax = None


def cases(jnp, lax, checkify):
    def mlp(ws, x):
        checkify.debug_check(jnp.all(jnp.isfinite(x)), "input has non-finite values")
        for w in ws:
            x = jnp.tanh(x @ w)
        return x.sum()

    def scan(xs):
        def body(c, x):
            checkify.debug_check(jnp.all(x < 1e6), "element too large: {}", x[0])
            return c + jnp.sin(x), c.sum()
        return lax.scan(body, jnp.zeros(xs.shape[1:]), xs)

    def indexing(x, idx):
        y = x[idx]
        return x.at[idx].add(y * 2.0).sum() / (y.sum() + 1.0)

    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((256, 256)).astype(np.float32) * 0.05 for _ in range(4)]
    return {
        "mlp 4x256 (batch 64)": (mlp, ([jnp.asarray(w) for w in ws],
                                       jnp.asarray(rng.standard_normal((64, 256)),
                                                   np.float32))),
        "scan 200 x 1024": (scan, (jnp.asarray(rng.standard_normal((200, 1024)),
                                               np.float32),)),
        "gather+scatter 1e5/1e4": (indexing, (
            jnp.asarray(rng.standard_normal(100_000), np.float32),
            jnp.asarray(rng.integers(0, 100_000, 10_000), np.int32))),
    }


def leaves(tree):
    return tjit.tree_util.tree_leaves(tree) if jax is None else \
        jax.tree_util.tree_leaves(tree)


def _time(fn, args, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args)
        for leaf in leaves(out):
            if hasattr(leaf, "block_until_ready"):
                leaf.block_until_ready()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def variants(lib, jit, checkify, f):
    del lib
    return {"jit(f)": jit(f),
            "jit(checkify(f))": jit(checkify.checkify(f)),
            "jit(checkify(f, all))": jit(checkify.checkify(f, errors=checkify.all_checks)),
            "eager f": f,
            "eager checkify(f)": checkify.checkify(f)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=21)
    a = ap.parse_args()
    libs = [("tjit", tjit.jit, tcheckify, cases(tjnp, tlax, tcheckify))]
    if jax is not None:
        libs.append(("jax", jax.jit, jcheckify, cases(jjnp, jlax, jcheckify)))
    for name in libs[0][3]:
        runs = {}
        for lib, jit, checkify, cs in libs:
            f, args = cs[name]
            vs = variants(lib, jit, checkify, f)
            plain = [np.asarray(x) for x in leaves(vs["jit(f)"](*args))]
            for k, v in vs.items():
                out = v(*args)
                if "checkify" in k:
                    assert out[0].get() is None, out[0].get()
                    out = out[1]
                for g, p in zip(leaves(out), plain):
                    np.testing.assert_allclose(np.asarray(g), p, rtol=2e-4, atol=1e-4)
                runs[(lib, k)] = (v, args, [])
        for _ in range(a.rounds):
            for key, (v, args, ts) in runs.items():
                ts.append(_time(v, args, a.repeat if "eager" not in key[1] else 3))
        print(f"\n{name}")
        for (lib, k), (_, _, ts) in runs.items():
            base = statistics.median(runs[(lib, "eager f" if "eager" in k else "jit(f)")][2])
            med = statistics.median(ts)
            print(f"  {lib:5s} {k:24s} {med * 1e3:9.3f} ms   x{med / base:6.2f}")


if __name__ == "__main__":
    main()
