"""Per-call cost of jit with static arguments (tjit and JAX in one process).

A jit call with static arguments builds a cache key of them at every call
(tjit.tracing.static_keys.typed_key: equal values of other types must not share a program).
Medians of per-call microseconds (process CPU time) over repeated blocks, for a tiny function
with no static, a static int, a static 3-int tuple and a static 3-field frozen dataclass;
then the cost of typed_key alone on those values.

    .venv/bin/python benchmarks/bench_static_keys.py            # tjit only
    /work/jaxvenv/bin/python benchmarks/bench_static_keys.py    # tjit and JAX
"""

import dataclasses
import statistics
import time

import numpy as np


@dataclasses.dataclass(frozen=True)
class Conf:
    a: int
    b: float
    c: str


CASES = {   # name -> (static value or None, function of (x, s))
    "none": (None, lambda x: x + 1.0),
    "int": (3, lambda x, s: x + s),
    "tuple3": ((1, 2, 3), lambda x, s: x + s[0]),
    "dataclass3": (Conf(1, 2.0, "c"), lambda x, s: x * s.b),
}


def per_call_us(fn, n=2000, blocks=15):
    fn()
    times = []
    for _ in range(blocks):
        t0 = time.process_time()
        for _ in range(n):
            fn()
        times.append((time.process_time() - t0) / n * 1e6)
    return statistics.median(times)


def calls(jit, x):
    out = {}
    for name, (static, f) in CASES.items():
        if name == "none":
            g = jit(f)
            out[name] = per_call_us(lambda: g(x))
        else:
            g = jit(f, static_argnums=1)
            out[name] = per_call_us(lambda: g(x, static))
    return out


def main():
    import tjit
    import tjit.numpy as tnp
    rows = {"tjit": calls(tjit.jit, tnp.ones(4, np.float32))}
    try:
        import jax
        import jax.numpy as jnp
        rows["jax"] = calls(jax.jit, jnp.ones(4, np.float32))
    except ImportError:
        pass
    print("jit call, us (median):", " ".join(f"{n:>11}" for n in CASES))
    for lib, r in rows.items():
        print(f"{lib:>21}:", " ".join(f"{r[n]:11.2f}" for n in CASES))
    try:
        from tjit.tracing.static_keys import static_key as typed_key
    except ImportError:   # (a revision before typed keys)
        return
    print("static_key alone, us: ", " ".join(
        f"{n}={per_call_us(lambda v=v: typed_key(v), n=20000, blocks=9):.2f}"
        for n, (v, _) in CASES.items() if n != "none"))


if __name__ == "__main__":
    main()
