"""float32 -> float8 casts and a quantize/dequantize round trip: tjit vs ml_dtypes vs JAX.

    /work/jaxvenv/bin/python benchmarks/bench_float8_cast.py [--n 1048576] [--rounds 5]

Cases, on ``n`` float32 standard-normal values scaled to the format's range:
* ``astype``: ml_dtypes' own ``x.astype(float8)`` (what tjit's convert_element_type
  ran before tjit/primitives/float8_round.py), the bit-arithmetic rounding called
  directly, ``jnp.asarray(x).astype(float8)`` eagerly, and the cast under jit (tjit, JAX);
* ``f8->f32``: the widening cast under jit (tjit, JAX);
* ``qdq``: jit of ``sum(dequantize(quantize(x * s)) / s)`` (tjit, JAX).
Outputs are checked bit for bit against ml_dtypes first. Implementations alternate
within each round (the shared machine's speed drifts); each time is the median of 7
calls, the table shows the median over rounds in ms.

Measured on the shared 2-core machine (load ~6), JAX 0.10.2 CPU, n = 2**20, ms, one
process (``--rounds 3``). Under jit the casts were host steps (float8_round, ml_dtypes'
loops) until the float8s became LLVM kernel dtypes (``tjit/lower/llvm/narrow.py``):

                          float8_e4m3fn          float8_e5m2
                        before  after  JAX     before  after  JAX
  ml_dtypes astype        14.0   22.5            14.4   22.7
  tjit float8_round        2.5   10.1             5.3   10.5   (eager only now)
  tjit eager astype        6.0   10.2             6.7   10.8
  tjit jit astype          5.6   0.42  0.60       6.4   0.46  0.56
  tjit jit f8->f32         2.0   0.30  0.27             0.30  0.21
  tjit jit qdq             7.8   0.35  1.10       8.3   0.37  1.16   (31 before float8_round)

("before" is the earlier run's numbers, on a quieter machine: the eager rows show
the load.) The jitted casts are now one fused loop each, as XLA's; the quantize/
dequantize/sum step is one split-reduction kernel that rounds to float8 in registers
(0.69 ms while simplify stopped the split's reshape at the float8 value, which then
went through a buffer).
"""

import argparse
import time

import ml_dtypes
import numpy as np

import tjit
import tjit.numpy as tjnp
from tjit.primitives import float8_round

try:
    import jax
    import jax.numpy as jjnp
except ImportError:  # the JAX columns are left out
    jax = None


def _median_ms(f, repeat=7):
    f()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = f()
        if hasattr(r, "block_until_ready"):
            r.block_until_ready()
        ts.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(ts))


def _cases(name, n):
    dt = np.dtype(getattr(ml_dtypes, name))
    x = (np.random.default_rng(0).standard_normal(n) * 8).astype(np.float32)
    want = x.astype(dt).view(np.uint8)
    assert (float8_round.round_to_float8(x, dt).view(np.uint8) == want).all()
    cases = {
        "ml_dtypes astype": lambda: x.astype(dt),
        "tjit float8_round": lambda: float8_round.round_to_float8(x, dt),
        "tjit eager astype": lambda: tjnp.asarray(x).astype(dt),
    }
    tj_cast = tjit.jit(lambda v: v.astype(dt))
    tj_qdq = tjit.jit(lambda v: tjnp.sum(((v * 2.0).astype(dt)).astype(tjnp.float32) / 2.0))
    xt = tjnp.asarray(x)
    assert (np.asarray(tj_cast(xt)).view(np.uint8) == want).all()
    tj_wide = tjit.jit(lambda v: v.astype(tjnp.float32))
    q8 = x.astype(dt)
    q8t = tjnp.asarray(q8)
    assert (np.asarray(tj_wide(q8t)).view(np.uint32) == q8.astype(np.float32).view(np.uint32)).all()
    cases["tjit jit astype"] = lambda: tj_cast(xt)
    cases["tjit jit f8->f32"] = lambda: tj_wide(q8t)
    cases["tjit jit qdq"] = lambda: tj_qdq(xt)
    if jax is not None:
        xj = jax.device_put(x)
        j_cast = jax.jit(lambda v: v.astype(dt))
        j_qdq = jax.jit(lambda v: jjnp.sum(((v * 2.0).astype(dt)).astype(jjnp.float32) / 2.0))
        j_wide = jax.jit(lambda v: v.astype(jjnp.float32))
        q8j = jax.device_put(q8)
        cases["JAX jit astype"] = lambda: j_cast(xj)
        cases["JAX jit f8->f32"] = lambda: j_wide(q8j)
        cases["JAX jit qdq"] = lambda: j_qdq(xj)
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    for name in ("float8_e4m3fn", "float8_e5m2"):
        cases = _cases(name, args.n)
        times = {k: [] for k in cases}
        for _ in range(args.rounds):
            for k, f in cases.items():
                times[k].append(_median_ms(f))
        print(f"{name}, n={args.n}")
        for k, ts in times.items():
            print(f"  {k:20s} {np.median(ts):8.2f} ms")


if __name__ == "__main__":
    main()
