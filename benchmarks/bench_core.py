"""Core overheads, side by side with NumPy and (when installed) JAX, in one process.

    python benchmarks/bench_core.py

Prints medians (µs or ms) and ratios. Not a test: nothing here asserts a time.
"""

import statistics
import time
import timeit

import numpy as np

import tjit
import tjit.numpy as jnp

try:
    import jax
    import jax.numpy as jjnp
except ImportError:  # JAX is optional (pip install -e .[bench])
    jax = None


def median_us(fn, number=20000, repeat=7):
    fn()
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


def row(name, ours, numpy=None, jax_t=None, unit="µs"):
    parts = [f"{name:<42s} tjit {ours:9.2f} {unit}"]
    if numpy is not None:
        parts.append(f"numpy {numpy:9.2f} {unit} ({ours / numpy:5.2f}x)")
    if jax_t is not None:
        parts.append(f"jax {jax_t:9.2f} {unit} ({ours / jax_t:5.2f}x)")
    print("   ".join(parts))


def bench_eager_add():
    a_np = np.ones(100, np.float32)
    a = jnp.asarray(a_np)
    j = jjnp.asarray(a_np) if jax else None
    row("eager add, 100 f32", median_us(lambda: jnp.add(a, a)),
        median_us(lambda: np.add(a_np, a_np)),
        median_us(lambda: jjnp.add(j, j).block_until_ready(), 5000) if jax else None)
    row("eager x * 2.0 (weak scalar)", median_us(lambda: a * 2.0),
        median_us(lambda: a_np * 2.0),
        median_us(lambda: (j * 2.0).block_until_ready(), 5000) if jax else None)


def bench_jit_dispatch():
    a_np = np.ones(4, np.float32)
    a = jnp.asarray(a_np)
    f = tjit.jit(lambda x: x + 1.0)
    jf = jax.jit(lambda x: x + 1.0) if jax else None
    j = jjnp.asarray(a_np) if jax else None
    row("cached jit call, tiny function", median_us(lambda: f(a)), None,
        median_us(lambda: jf(j).block_until_ready(), 5000) if jax else None)
    g = tjit.jit(lambda p, x: x * p["w"] + p["b"])
    p = {"w": a, "b": a}
    jg = jax.jit(lambda p, x: x * p["w"] + p["b"]) if jax else None
    jp = {"w": j, "b": j} if jax else None
    row("cached jit call, pytree of 3 arrays", median_us(lambda: g(p, a)), None,
        median_us(lambda: jg(jp, j).block_until_ready(), 5000) if jax else None)


def bench_tracing():
    def chain(x):
        for i in range(1000):
            x = jnp.sin(x) if i % 2 else x * 1.001
        return x
    x = jnp.asarray(np.ones(8, np.float32))
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        tjit.make_jaxpr(chain)(x)
        ts.append((time.perf_counter() - t0) * 1e3)
    jt = None
    if jax:  # a fresh function object each time, so JAX's trace cache cannot answer
        jts = []
        for _ in range(5):
            t0 = time.perf_counter()
            jax.make_jaxpr(lambda v: _jax_chain(v))(np.ones(8, np.float32))
            jts.append((time.perf_counter() - t0) * 1e3)
        jt = statistics.median(jts)
    row("trace a 1,000-equation function", statistics.median(ts), None, jt, unit="ms")


def _jax_chain(x):
    for i in range(1000):
        x = jjnp.sin(x) if i % 2 else x * 1.001
    return x


def bench_polymorphic():
    f = tjit.jit(lambda x: jnp.tanh(x) * 2.0, polymorphic_shapes=["(b, 64)"])
    f(jnp.asarray(np.ones((8, 64), np.float32)))
    ts = []
    for b in range(9, 29):
        x = jnp.asarray(np.ones((b, 64), np.float32))
        t0 = time.perf_counter()
        f(x)
        ts.append((time.perf_counter() - t0) * 1e6)
    row("polymorphic jit, first call at a new batch size", statistics.median(ts))
    print(f"{'':42s} traces: {f.trace_count} for 21 batch sizes")


if __name__ == "__main__":
    print(f"tjit {tjit.__version__}, numpy {np.__version__}" +
          (f", jax {jax.__version__}" if jax else ", jax not installed"))
    bench_eager_add()
    bench_jit_dispatch()
    bench_tracing()
    bench_polymorphic()
