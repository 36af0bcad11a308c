"""Per-call overhead of transformations in a training loop (``g = grad(jit(loss));
g(params)`` and its relatives), beside JAX when installed.

    python benchmarks/bench_transform_overhead.py            # tjit only
    /work/jaxvenv/bin/python benchmarks/bench_transform_overhead.py   # and JAX
    ... bench_transform_overhead.py grad vmap                # only rows naming these

Inputs are tiny (8 floats), so what is timed is the work done per call around the
arithmetic: tracing, transforming, dispatching. Each row is the median over rounds of
the mean time of one call in a round (after warm-up calls, so caches are filled);
``ratio`` is tjit / JAX. Rows come in pairs: the transformation of the plain function
``f`` (called eagerly, it runs ``f`` op by op under the transformation at every call,
in JAX as here: ``f`` may branch on values) and of ``jit(f)`` (whose trace is cached
per signature: an eager call runs a compiled program of the transformation, and under
an outer transformation the cached jaxpr, or its cached transformation, is evaluated).
The last rows time calls of a jitted function inside another transformed function
(its primal half or batched form compiled) and a trace alone: a fresh outer
``jit(lambda x: g(x) + 1)`` lowered per round, where ``g`` is a jitted function.
"""

import statistics
import sys
import time

import numpy as np

import tjit
import tjit.numpy as jnp

try:
    import jax
    import jax.numpy as jjnp
except ImportError:
    jax = None

ROUNDS, CALLS = 9, 30


def loss_of(np_mod):
    def loss(x):
        h = np_mod.tanh(x * 1.5 + 0.25)
        return np_mod.sum(h * h + np_mod.sin(x))
    return loss


def vec_of(np_mod):
    def vec(x):
        return np_mod.tanh(x) * 2.0 + np_mod.sin(x) * x
    return vec


def cases(lib, np_mod):
    """name -> zero-argument call: the programs timed, the same for both libraries."""
    loss, vec = loss_of(np_mod), vec_of(np_mod)
    jl, jv = lib.jit(loss), lib.jit(vec)
    x = np_mod.asarray(np.linspace(-1.0, 1.0, 8, dtype=np.float32))
    xs = np_mod.asarray(np.linspace(-1.0, 1.0, 32, dtype=np.float32).reshape(4, 8))
    s = np_mod.asarray(np.float32(1.5))

    def scalar(f):   # R -> R, for a grad of a grad
        return lambda t: f(x * t)
    rows = {}
    for tag, f, v in (("f", loss, vec), ("jit(f)", jl, jv)):
        g, vg, vm = lib.grad(f), lib.value_and_grad(f), lib.vmap(v)
        gg = lib.grad(lib.grad(scalar(f) if tag == "f" else lib.jit(scalar(loss))))
        jr, hs, jfg = lib.jacrev(v), lib.hessian(f), lib.jacfwd(g)
        rows.update({
            f"grad({tag})": lambda g=g: g(x),
            f"value_and_grad({tag})": lambda vg=vg: vg(x),
            f"grad(grad({tag})) R->R": lambda gg=gg: gg(s),
            f"vmap({tag})": lambda vm=vm: vm(xs),
            f"jvp({tag})": lambda v=v: lib.jvp(v, (x,), (x,)),
            f"vjp({tag}) + pullback": lambda v=v: lib.vjp(v, x)[1](x),
            f"jacrev({tag})": lambda jr=jr: jr(x),
            f"hessian({tag})": lambda hs=hs: hs(x),
            f"jvp(grad({tag})) (HVP)": lambda g=g: lib.jvp(g, (x,), (x,)),
            f"jacfwd(grad({tag}))": lambda jfg=jfg: jfg(x),
        })
    gc = lib.grad(lib.checkpoint(loss))
    jit_g = lib.jit(lib.grad(loss))
    g_inside = lib.grad(lambda y: jl(y) * 2.0)
    v_inside = lib.vmap(lambda y: jv(y) * 2.0)
    g_of_g = lib.grad(lambda t: lib.grad(jl)(x * t).sum())

    def nested():
        out = lib.jit(lambda y: jl(y) + 1.0)
        return out.trace(x) if lib is jax else out.lower(x)
    rows.update({
        "grad(checkpoint(f))": lambda: gc(x),
        # a checkpoint wrapper made per step: its trace is cached on f, not the wrapper
        "grad(checkpoint(f)) new wrapper": lambda: lib.grad(lib.checkpoint(loss))(x),
        "jit(grad(f)) (reference)": lambda: jit_g(x),
        "grad(x: jit(f)(x) * 2)": lambda: g_inside(x),
        "vmap(x: jit(f)(x) * 2)": lambda: v_inside(xs),
        "grad(t: sum(grad(jit(f))(x t)))": lambda: g_of_g(s),
        "trace jit(x: g(x)+1), g jitted": nested,
    })
    return rows


def _block(out):
    for leaf in jax.tree_util.tree_leaves(out):
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()


def per_call_us(call, block):
    for _ in range(3):
        block(call())
    rounds = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            out = call()
        block(out)
        rounds.append((time.perf_counter() - t0) / CALLS * 1e6)
    return statistics.median(rounds)


def main(only=()):
    ours = cases(tjit, jnp)
    theirs = cases(jax, jjnp) if jax is not None else {}
    print(f"{'per call (us), median of rounds':34s} {'tjit':>10s} {'JAX':>10s} {'ratio':>7s}")
    for name, call in ours.items():
        if only and not any(w in name for w in only):
            continue
        t = per_call_us(call, lambda out: None)
        line = f"{name:34s} {t:10.1f}"
        if name in theirs:
            j = per_call_us(theirs[name], _block)
            line += f" {j:10.1f} {t / j:7.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
