"""Per-call overhead of transformations of a jitted function called eagerly in a loop
(a training loop's ``g = grad(jit(loss)); g(params)``), beside JAX when installed.

    python benchmarks/bench_transform_overhead.py            # tjit only
    /work/jaxvenv/bin/python benchmarks/bench_transform_overhead.py   # and JAX

Inputs are tiny (8 floats), so what is timed is the work done per call around the
arithmetic: tracing, transforming, dispatching. Each row is the median over rounds of
the mean time of one call in a round (after warm-up calls, so caches are filled);
``ratio`` is tjit / JAX. Where the jitted function is called inside another function
being transformed eagerly, a grad or vmap runs a compiled program of it (its primal half,
or its batched form); under a grad of a grad its jaxpr is reused but evaluated under the
transformations at each call. The last row times tracing only: a fresh outer
``jit(lambda x: g(x) + 1)`` lowered per round, where ``g`` is a jitted function
(its trace is reusable).
"""

import statistics
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
    """name -> (zero-argument call, block): the programs timed, the same for both libs."""
    loss, vec = loss_of(np_mod), vec_of(np_mod)
    jl, jv = lib.jit(loss), lib.jit(vec)
    x = np_mod.asarray(np.linspace(-1.0, 1.0, 8, dtype=np.float32))
    xs = np_mod.asarray(np.linspace(-1.0, 1.0, 32, dtype=np.float32).reshape(4, 8))
    g, vg, vm = lib.grad(jl), lib.value_and_grad(jl), lib.vmap(jv)
    jr, hs, eager_g, jit_g = lib.jacrev(jv), lib.hessian(jl), lib.grad(loss), \
        lib.jit(lib.grad(loss))
    g_inside, gg = lib.grad(lambda y: jl(y) * 2.0), lib.grad(lambda s: lib.grad(jl)(x * s).sum())
    v_inside = lib.vmap(lambda y: jv(y) * 2.0)

    def nested():
        return lib.jit(lambda y: jl(y) + 1.0).trace(x) if lib is jax else \
            lib.jit(lambda y: jl(y) + 1.0).lower(x)
    return {
        "grad(jit(f))": lambda: g(x),
        "value_and_grad(jit(f))": lambda: vg(x),
        "vmap(jit(f))": lambda: vm(xs),
        "jvp(jit(f))": lambda: lib.jvp(jl, (x,), (x,)),
        "jacrev(jit(f))": lambda: jr(x),
        "hessian(jit(f))": lambda: hs(x),
        "grad(x: jit(f)(x) * 2)": lambda: g_inside(x),
        "vmap(x: jit(f)(x) * 2)": lambda: v_inside(xs),
        "grad(s: sum(grad(jit(f))(x s)))": lambda: gg(1.5),
        "grad(f) eager, no jit": lambda: eager_g(x),
        "jit(grad(f)) (reference)": lambda: jit_g(x),
        "trace jit(x: g(x)+1), g jitted": nested,
    }


def _block(out):
    for leaf in (jax.tree_util.tree_leaves(out) if jax is not None else []):
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


def main():
    ours = cases(tjit, jnp)
    theirs = cases(jax, jjnp) if jax is not None else {}
    print(f"{'per call (us), median of rounds':34s} {'tjit':>10s} {'JAX':>10s} {'ratio':>7s}")
    for name, call in ours.items():
        t = per_call_us(call, lambda out: None)
        line = f"{name:34s} {t:10.1f}"
        if name in theirs:
            j = per_call_us(theirs[name], _block)
            line += f" {j:10.1f} {t / j:7.1f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
