"""Tracing cost of transformations, side by side with JAX when installed.

    python benchmarks/bench_transforms.py

Reports: time to trace jit(value_and_grad(loss)) of a 3-layer MLP; equation counts of
the jaxprs of f, grad(f), grad(grad(f)) for elementwise chains of n ops (should grow
linearly in n); a training step's steady-state time on the interpreter; the per-call cost of an eager
grad(jit(f)), which runs jit(grad(f)) compiled once per signature (bench_transform_overhead.py
times the other transformations of a jitted function).
"""

import statistics
import time

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import nn

try:
    import jax
    import jax.numpy as jjnp
except ImportError:
    jax = None


def mlp_loss(np_mod, relu):
    def loss(params, x, y):
        h = x
        for i, p in enumerate(params):
            h = h @ p["w"] + p["b"]
            if i < len(params) - 1:
                h = relu(h)
        return np_mod.mean((h - y) ** 2)
    return loss


def params_for(sizes, mod):
    rng = np.random.default_rng(0)
    return [{"w": mod.asarray(rng.standard_normal((m, n)).astype(np.float32) * 0.1),
             "b": mod.asarray(np.zeros(n, np.float32))} for m, n in zip(sizes[:-1], sizes[1:])]


def bench_trace_mlp():
    sizes = [784, 512, 512, 10]
    x = np.ones((32, 784), np.float32)
    y = np.ones((32, 10), np.float32)
    p = params_for(sizes, jnp)
    loss = mlp_loss(jnp, nn.relu)
    ts = []
    for _ in range(7):
        t0 = time.perf_counter()
        tjit.jit(tjit.value_and_grad(loss)).lower(p, x, y)
        ts.append((time.perf_counter() - t0) * 1e3)
    line = f"trace jit(value_and_grad(3-layer MLP))      tjit {statistics.median(ts):7.2f} ms"
    if jax:
        jp = params_for(sizes, jjnp)
        jloss = mlp_loss(jjnp, jax.nn.relu)
        jts = []
        for _ in range(7):
            t0 = time.perf_counter()
            jax.jit(jax.value_and_grad(lambda *a: jloss(*a))).trace(jp, x, y)
            jts.append((time.perf_counter() - t0) * 1e3)
        line += f"   jax {statistics.median(jts):7.2f} ms"
    print(line)
    n_eqns = len(tjit.make_jaxpr(tjit.value_and_grad(loss))(p, x, y).eqns)
    print(f"  equations in the jaxpr of value_and_grad(MLP): {n_eqns}")


def chain(n):
    def f(x):
        for i in range(n):
            x = jnp.sin(x) * 1.1 if i % 2 else jnp.tanh(x) + x
        return x
    return f


def bench_equation_counts():
    for n in (5, 10, 20, 40):
        f = chain(n)
        c0 = len(tjit.make_jaxpr(f)(0.5).eqns)
        c1 = len(tjit.make_jaxpr(tjit.grad(f))(0.5).eqns)
        c2 = len(tjit.make_jaxpr(tjit.grad(tjit.grad(f)))(0.5).eqns)
        c1j = len(tjit.jit(tjit.grad(f)).lower(0.5).jaxpr.eqns)
        c2j = len(tjit.jit(tjit.grad(tjit.grad(f))).lower(0.5).jaxpr.eqns)
        print(f"chain of {n:2d} ops: f {c0:4d} eqns, grad {c1:4d} ({c1j:4d} after jit's "
              f"clean-up), grad(grad) {c2:5d} ({c2j:5d} after clean-up)")


def bench_train_step():
    sizes = [784, 1024, 1024, 10]
    p = params_for(sizes, jnp)
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.standard_normal((256, 784)).astype(np.float32))
    y = jnp.asarray(rng.standard_normal((256, 10)).astype(np.float32))
    loss = mlp_loss(jnp, nn.relu)
    step = tjit.jit(lambda p, x, y: tjit.tree_util.tree_map(
        lambda a, g: a - 0.01 * g, p, tjit.grad(loss)(p, x, y)))
    step(p, x, y)
    ts = []
    for _ in range(10):
        t0 = time.perf_counter()
        step(p, x, y)
        ts.append((time.perf_counter() - t0) * 1e3)
    line = f"MLP step 784-1024-1024-10, batch 256 (interpreter) tjit {statistics.median(ts):7.2f} ms"
    if jax:
        jp = params_for(sizes, jjnp)
        jloss = mlp_loss(jjnp, jax.nn.relu)
        jstep = jax.jit(lambda p, x, y: jax.tree_util.tree_map(
            lambda a, g: a - 0.01 * g, p, jax.grad(jloss)(p, x, y)))
        jx, jy = jjnp.asarray(np.asarray(x)), jjnp.asarray(np.asarray(y))
        jax.block_until_ready(jstep(jp, jx, jy))
        jts = []
        for _ in range(10):
            t0 = time.perf_counter()
            jax.block_until_ready(jstep(jp, jx, jy))
            jts.append((time.perf_counter() - t0) * 1e3)
        line += f"   jax {statistics.median(jts):7.2f} ms"
    print(line)


def bench_eager_grad_of_jit(reps=7, calls=30):
    def f(mod):
        def loss(x, w):
            h = mod.tanh(x @ w)
            for _ in range(8):
                h = mod.tanh(h * 1.01 + 0.1)
            return mod.sum(h ** 2)
        return loss
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    w = rng.standard_normal((32, 32)).astype(np.float32)
    g = tjit.grad(tjit.jit(f(jnp)), 1)
    tx, tw = jnp.asarray(x), jnp.asarray(w)

    def per_call(fn, *args):
        fn(*args)
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        return (time.perf_counter() - t0) / calls * 1e6
    med = statistics.median(per_call(g, tx, tw) for _ in range(reps))
    line = f"eager grad(jit(f)) per call: {med:6.0f} us"
    if jax:
        jg = jax.grad(jax.jit(f(jjnp)), 1)
        jx, jw = jjnp.asarray(x), jjnp.asarray(w)
        line += f"   jax {statistics.median(per_call(jg, jx, jw) for _ in range(reps)):6.0f} us"
    print(line)


if __name__ == "__main__":
    bench_trace_mlp()
    bench_equation_counts()
    bench_train_step()
    bench_eager_grad_of_jit()
