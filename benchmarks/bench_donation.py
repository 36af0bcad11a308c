"""Buffer donation: time and allocation with and without ``donate_argnums``.

    python benchmarks/bench_donation.py

Reports the median time of (1) an SGD update ``p - 0.1 * g`` over a list of float32
arrays of 1e6 elements and (2) a training step of a 2-layer MLP (forward, backward with
dots, SGD update), each jitted with and without donating the parameters, plus the
peak bytes NumPy allocates during one call (tracemalloc) and memory_analysis' alias
bytes. Without donation every call allocates fresh output buffers (and touches new
pages); with it the outputs are written into the parameters' buffers.
"""

import statistics
import sys
import time
import tracemalloc

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.tree_util import tree_map


def sgd(params, grads):
    return tree_map(lambda p, g: p - 0.1 * g, params, grads)


def loss_fn(params, x, y):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.mean((h @ params["w2"] + params["b2"] - y) ** 2)


def train_step(params, x, y):
    loss, grads = tjit.value_and_grad(loss_fn)(params, x, y)
    return sgd(params, grads), loss


def measure(fn, state, rest, reps=7, inner=10):
    """Median seconds per call of ``state = fn(state, *rest)`` and peak traced bytes."""
    def step(s):
        out = fn(s, *rest)
        return out[0] if isinstance(out, tuple) else out
    state = step(step(state))  # compile, warm up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(inner):
            state = step(state)
        times.append((time.perf_counter() - t0) / inner)
    tracemalloc.start()
    state = step(state)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak, state


def report(name, make_state, fn, rest):
    for donate in (None, 0):
        jf = tjit.jit(fn, donate_argnums=donate)
        state = make_state()
        alias = jf.lower(state, *rest).compile().memory_analysis().alias_size_in_bytes
        t, peak, _ = measure(jf, state, rest)
        print(f"{name:34s} donate={donate!s:4s}  {t * 1e3:8.3f} ms/call   "
              f"peak alloc {peak / 1e6:7.2f} MB   alias {alias / 1e6:6.2f} MB")


def main():
    rng = np.random.default_rng(0)
    n, k = 1_000_000, 3
    grads = [jnp.asarray(rng.standard_normal(n).astype(np.float32)) for _ in range(k)]
    report(f"SGD update, {k} x {n} float32",
           lambda: [jnp.asarray(rng.standard_normal(n).astype(np.float32))
                    for _ in range(k)], sgd, (grads,))
    d_in, hidden, d_out, batch = 784, 2048, 10, 256
    x = jnp.asarray(rng.standard_normal((batch, d_in)).astype(np.float32))
    y = jnp.asarray(rng.standard_normal((batch, d_out)).astype(np.float32))

    def params():
        return {"w1": jnp.asarray(rng.standard_normal((d_in, hidden)).astype(np.float32)
                                  * 0.03),
                "b1": jnp.asarray(np.zeros(hidden, np.float32)),
                "w2": jnp.asarray(rng.standard_normal((hidden, d_out)).astype(np.float32)
                                  * 0.03),
                "b2": jnp.asarray(np.zeros(d_out, np.float32))}
    report(f"MLP train step {d_in}-{hidden}-{d_out}, b={batch}", params, train_step, (x, y))


if __name__ == "__main__":
    main()
    sys.exit(0)
