"""What sharding in types costs eager and jit calls on 8 elements, beside JAX, in one
process: a plain ``x + x`` (must stay at the fast lane's cost: committed arrays are the
only ones that take the layout path), the same on arrays committed to a one-device
NamedSharding, and a tiny jit on each. Medians of repeated batches, in microseconds.

    /work/jaxvenv/bin/python benchmarks/bench_sharding_eager.py

Measured (2-core shared machine, noisy; JAX's times end with block_until_ready):
plain x + x 0.75 us (0.7-0.8 before sharding in types; JAX 19.5); committed x + x 20 us
(13 without JAX in the process; JAX 21.5); jit plain 14-16 us (JAX 12-14), jit on
committed arguments 17-18.5 us (JAX 13.8).
"""

import statistics
import time

import numpy as np

import tjit
import tjit.numpy as tnp

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platforms", "cpu")
except Exception:  # JAX is optional: its column is left out
    jax = jnp = None


def median_us(fn, number=2000, repeat=7):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number * 1e6)
    return statistics.median(times)


def rows(lib, jnp_, block=lambda v: v):
    """The cases on ``lib`` (tjit or jax) and its numpy module ``jnp_``."""
    x = jnp_.arange(8.0, dtype=np.float32)
    mesh = lib.make_mesh((1,), ("X",))
    c = lib.device_put(x, lib.sharding.NamedSharding(mesh, lib.sharding.PartitionSpec("X")))
    f = lib.jit(lambda a: a * 2 + 1)
    block(f(x)), block(f(c)), block(c + c)
    return {"x + x (plain)": median_us(lambda: block(x + x)),
            "x + x (committed)": median_us(lambda: block(c + c), number=500),
            "jit (plain)": median_us(lambda: block(f(x))),
            "jit (committed)": median_us(lambda: block(f(c)))}


def main():
    ours = rows(tjit, tnp)
    theirs = {}
    if jax is not None:
        theirs = rows(jax, jnp, block=lambda v: v.block_until_ready())
    print(f"{'case':24s} {'tjit us':>9s} {'JAX us':>9s}")
    for name, t in ours.items():
        j = theirs.get(name)
        print(f"{name:24s} {t:9.2f} {'' if j is None else f'{j:9.2f}'}")


if __name__ == "__main__":
    main()
