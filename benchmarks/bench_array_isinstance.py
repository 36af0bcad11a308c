"""Cost of ``isinstance(x, tjit.Array)`` (the public ABC) beside the concrete class, a
plain ``abc.ABC`` with the same registrations, and ``jax.Array`` when JAX is installed.

    python benchmarks/bench_array_isinstance.py

JAX ports call ``isinstance(x, jax.Array)`` per pytree leaf; tjit's own hot paths test
the concrete class. Medians of 7 rounds of 200,000 calls each, in ns per call. Not a
test: nothing asserts a time.
"""

import abc
import statistics
import timeit

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.tracing.core import Array as ArrayImpl


def _ns(stmt, env, number=200_000, repeat=7):
    return statistics.median(timeit.repeat(stmt, globals=env, number=number,
                                           repeat=repeat)) / number * 1e9


def _a_tracer():
    held = []
    tjit.jit(lambda v: held.append(v) or v)(jnp.ones(2))
    return held[0]


def main():
    class PlainABC(abc.ABC):
        pass
    for ref in abc._get_dump(tjit.Array)[0]:  # (weak refs to) the registered classes
        PlainABC.register(ref())
    values = {"tjit array": jnp.ones(3), "tracer": _a_tracer(), "np.ndarray": np.ones(3),
              "float": 1.0}
    try:
        import jax
        import jax.numpy as jjnp
        values_jax = {"tjit array": jjnp.ones(3), "np.ndarray": np.ones(3), "float": 1.0}
    except ImportError:
        jax = None
    print(f"{'value':<12}{'tjit.Array':>12}{'plain ABC':>12}{'concrete':>12}{'jax.Array':>12}")
    for name, x in values.items():
        env = {"x": x, "A": tjit.Array, "P": PlainABC, "C": ArrayImpl}
        row = [_ns("isinstance(x, A)", env), _ns("isinstance(x, P)", env),
               _ns("isinstance(x, C)", env)]
        jx = (f"{_ns('isinstance(x, J)', {'x': values_jax[name], 'J': jax.Array}):12.0f}"
              if jax is not None and name in values_jax else f"{'':>12}")
        print(f"{name:<12}" + "".join(f"{v:12.0f}" for v in row) + jx)


if __name__ == "__main__":
    main()
