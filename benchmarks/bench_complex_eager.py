"""Eager complex division, sign and power beside NumPy (and jax.numpy when it imports:
run with /work/jaxvenv/bin/python), in one process.

tjit redoes the quotients, signs and powers that NumPy gets wrong at the ends of the
exponent range or at infinite bases (tjit/primitives/complex_scaled.py); this measures
what the screens for them cost in the common case, where nothing needs redoing: on large
arrays their passes, on small ones (``--n 8``) their fixed costs beside the call's own.
Medians of process CPU time (steadier than wall time on a shared machine; NumPy's
complex loops are single-threaded), in ms (us below 10,000 elements), and tjit / NumPy.

    python benchmarks/bench_complex_eager.py [--n 1000000] [--repeat 21]

``--n 8`` before and after the quick screens on few elements (``vdot`` of the quotients
and denominators; for sign also the parts' least exponent), the two trees alternating,
load 10-12, CPU us per call (JAX beside):

  op           dtype        before   after   JAX
  x / y        complex64    5.2-5.8  3.2     4.0-4.4
  x / scalar   complex64    5.3-5.6  3.2     4.0-4.4
  x / y        complex128   5.7-6.1  3.9     3.9-4.4
  sign(z)      complex64    6.6-6.7  6.0     3.7-3.9
"""

import argparse
import statistics
import time

import numpy as np

import tjit
import tjit.numpy as tnp

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
except Exception:  # JAX is optional: its column is left out
    jax = jnp = None


def _median_s(fn, repeat, number):
    """Median over ``repeat`` runs of the CPU time of one call, each run ``number`` calls
    (process_time ticks too coarsely for one small call)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(number):
            fn()
        times.append((time.process_time() - t0) / number)
    return statistics.median(times)


def _rows(n, dtype):
    rng = np.random.default_rng(0)
    x, y = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
            for _ in range(2))
    s = dtype(3 - 4j)
    # zeros are common in sign's input (and must not cost the slow path)
    z = x.copy()
    z[::7] = 0
    return [("x / y", lambda m: m.true_divide, (x, y)),
            ("x / scalar", lambda m: m.true_divide, (x, s)),
            ("sign(z)", lambda m: m.sign, (z,)),
            ("x ** y", lambda m: m.power, (x, y))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=21)
    args = ap.parse_args()
    tjit.config.update("jax_enable_x64", True)
    unit, scale = ("us", 1e6) if args.n < 10_000 else ("ms", 1e3)
    number = max(1, 20_000 // args.n)

    def median(fn):
        return _median_s(fn, args.repeat, number) * scale

    head = f"{'op':12s} {'dtype':10s} {'NumPy':>8s} {'tjit':>8s} {'ratio':>6s}"
    print(f"n = {args.n}, CPU {unit} per call")
    print(head + (f" {'JAX':>8s}" if jnp else ""))
    for dtype in (np.complex128, np.complex64):
        for name, pick, args_np in _rows(args.n, dtype):
            args_t = [tnp.asarray(a) for a in args_np]
            t_np = median(lambda: pick(np)(*args_np))
            t_tj = median(lambda: pick(tnp)(*args_t))
            line = (f"{name:12s} {np.dtype(dtype).name:10s} {t_np:8.2f} {t_tj:8.2f} "
                    f"{t_tj / t_np:6.2f}")
            if jnp:
                args_j = [jnp.asarray(a) for a in args_np]
                t_jx = median(lambda: pick(jnp)(*args_j).block_until_ready())
                line += f" {t_jx:8.2f}"
            print(line)


if __name__ == "__main__":
    main()
