"""Eager (notebook) overhead of tjit.numpy beside NumPy and jax.numpy, in one process.

Small arrays, so each number is the per-call cost of the Python path (dispatch, checks,
wrapping), not of arithmetic. Medians of repeated batches, in microseconds, and each
tjit time as a multiple of NumPy's. JAX's column appears when ``jax`` imports (run this
with /work/jaxvenv/bin/python, which has both); JAX dispatches asynchronously, so its
batches end with ``block_until_ready``.

    python benchmarks/bench_eager.py [--quick] [--cpu-time] [--common] [--costly]

``--cpu-time`` times with the process's CPU clock (steadier on a shared machine).
``--common`` measures instead the common non-elementwise ops of a notebook (reductions,
where/clip, joins, reshapes, indexing, matmul, cumsum/sort, astype, tests, exp/log/tanh)
on 8 and 1000 float32 elements.
``--costly`` measures the small ops that cost most eagerly (digamma, the grad of a
logaddexp sum, log_softmax with one dominant maximum per row, ``m.T``, dot, sort,
top_k) on 8 float32 elements, with the process CPU clock; NumPy's column is the same
value computed in NumPy (SciPy's digamma, the logaddexp slope written out). Measured
(us of CPU, load 14-16; the code before stop 22's fixes (00e49e0) and after, run
alternately, two runs each; JAX beside): digamma 43-44 -> 35 (JAX 14), grad 584-615 ->
380-389 (JAX 640-800), log_softmax 64-67 -> 51-60 (JAX 5.2: a jitted function there),
m.T 3.0-3.2 -> 1.8-2.0 (12), dot 9.8-10.1 -> 4.6-7.9 (5.0), sort 8.3-8.7 -> 5.3-5.6
(6.2), top_k 26-27 -> 6.9-7.2 (12).
Targets (issue 14): elementwise <= 1.5 us (Python-number operands, int arrays with floats
and mixed dtypes included), basic indexing <= 2 us, float()/int() of a 0-d
array <= 1 us, x.at[i].set/add <= 5 us, the 1,000-step RK4 loop <= 5x NumPy. The
advanced-indexing rows (g[i], take, masks, x.at[index array]) have no stated target beyond
"within a few times NumPy".
"""

import argparse
import statistics
import time

import numpy as np

import tjit.numpy as tnp

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platforms", "cpu")
except Exception:  # JAX is optional: the column is left out
    jax = jnp = None


def _median_us(fn, number, repeat, timer):
    times = []
    for _ in range(repeat):
        t0 = timer()
        for _ in range(number):
            fn()
        times.append((timer() - t0) / number * 1e6)
    return statistics.median(times)


def _cases(xp, lib):
    """name -> a no-argument callable doing one eager operation with namespace ``xp``."""
    a = xp.asarray(np.linspace(0.1, 1.0, 16, dtype=np.float32))
    b = xp.asarray(np.linspace(1.0, 2.0, 16, dtype=np.float32))
    m = xp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    s = a[3]
    i = xp.asarray(np.int32(7))
    k = xp.asarray(np.arange(16, dtype=np.int32))
    x = xp.asarray(np.zeros(10, np.float32))
    mask = xp.asarray(np.arange(16) % 3 == 0)
    row = m[0]
    kd = xp.asarray(np.arange(1, 17, dtype=np.int32))  # a divisor without zeros
    g = xp.asarray(np.arange(1000, dtype=np.float32).reshape(100, 10))  # advanced indexing
    gi = xp.asarray(np.array([1, 5, 7], np.int32))
    gj = xp.asarray(np.array([0, 9, 3], np.int32))
    ga = xp.asarray(np.argsort(np.arange(1000)[::-1].reshape(100, 10), axis=1).astype(np.int32))
    cases = {
        "a + b": lambda: a + b,
        "a * b": lambda: a * b,
        "a * 2.0": lambda: a * 2.0,
        "a / 2.0": lambda: a / 2.0,
        "1 - a": lambda: 1 - a,
        "2.0 ** a": lambda: 2.0 ** a,
        "a ** 2": lambda: a ** 2,
        "a // 2.0": lambda: a // 2.0,
        "k % 3 (int32)": lambda: k % 3,
        "a > 0.5": lambda: a > 0.5,
        "k * 2 (int32)": lambda: k * 2,
        "k * 2.0 (int32)": lambda: k * 2.0,
        "k + 1.5 (int32)": lambda: k + 1.5,
        "k / 2 (int32)": lambda: k / 2,
        "mask + 1 (bool)": lambda: mask + 1,
        "maximum(a, 0.0)": lambda: xp.maximum(a, 0.0),
        "minimum(a, 1.0)": lambda: xp.minimum(a, 1.0),
        "a * k (f32 * i32)": lambda: a * k,
        "k / kd (int32)": lambda: k / kd,
        "m + row (broadcast)": lambda: m + row,
        "a > b": lambda: a > b,
        "-a": lambda: -a,
        "exp(a)": lambda: xp.exp(a),
        "sin(a)": lambda: xp.sin(a),
        "sqrt(a)": lambda: xp.sqrt(a),
        "a[1]": lambda: a[1],
        "a[1:3]": lambda: a[1:3],
        "m[1, 2]": lambda: m[1, 2],
        "m[:, 1]": lambda: m[:, 1],
        "float(s) (0-d)": lambda: float(s),
        "int(i) (0-d)": lambda: int(i),
        "float(a[1])": lambda: float(a[1]),
        "g[i] (100x10, 3 idx)": lambda: g[gi],
        "g[:, i]": lambda: g[:, gi],
        "g[i, 2]": lambda: g[gi, 2],
        "g[..., i]": lambda: g[..., gi],
        "g[i, j]": lambda: g[gi, gj],
        "g[g > 990.0] (mask)": lambda: g[g > 990.0],
        "take(g, i, axis=0)": lambda: xp.take(g, gi, axis=0),
        "take(g, i, axis=1)": lambda: xp.take(g, gi, axis=1),
        "take_along_axis(g, a, 1)": lambda: xp.take_along_axis(g, ga, axis=1),
    }
    if lib == "numpy":  # NumPy updates in place (the reference: x[i] += 1)
        def set_():
            x[2] = 1.0

        def add_():
            x[2] += 1
        def set_i():
            x[gi] = 1.0

        cases["x.at[2].set(1.0)"] = set_
        cases["x.at[2].add(1)"] = add_
        cases["x.at[i].set(1.0)"] = set_i
        cases["x.at[i].add(1) (add.at)"] = lambda: np.add.at(x, gi, 1)
    else:
        cases["x.at[2].set(1.0)"] = lambda: x.at[2].set(1.0)
        cases["x.at[2].add(1)"] = lambda: x.at[2].add(1)
        cases["x.at[i].set(1.0)"] = lambda: x.at[gi].set(1.0)
        cases["x.at[i].add(1) (add.at)"] = lambda: x.at[gi].add(1)
    return cases


def _common_cases(xp, lib, n):
    """name -> callable: the common non-elementwise ops of a notebook on ``n`` float32
    elements (a vector ``x`` and the same values as a 2-row matrix ``m``)."""
    x = xp.asarray(np.linspace(0.05, 1.0, n, dtype=np.float32))
    y = xp.asarray(np.linspace(1.0, 0.05, n, dtype=np.float32))
    m = xp.reshape(x, (2, n // 2))
    c = {
        "sum(x)": lambda: xp.sum(x),
        "sum(m, axis=0)": lambda: xp.sum(m, axis=0),
        "mean(x)": lambda: xp.mean(x),
        "mean(m, axis=1)": lambda: xp.mean(m, axis=1),
        "max(x)": lambda: xp.max(x),
        "max(m, axis=0)": lambda: xp.max(m, axis=0),
        "argmax(x)": lambda: xp.argmax(x),
        "argmax(m, axis=1)": lambda: xp.argmax(m, axis=1),
        "where(x > .5, x, 0.)": lambda: xp.where(x > 0.5, x, 0.0),
        "where(x > y, x, y)": lambda: xp.where(x > y, x, y),
        "clip(x, .2, .8)": lambda: xp.clip(x, 0.2, 0.8),
        "concatenate([x, y])": lambda: xp.concatenate([x, y]),
        "stack([x, y])": lambda: xp.stack([x, y]),
        "reshape(x, (2, -1))": lambda: xp.reshape(x, (2, -1)),
        "m.T": lambda: m.T,
        "transpose(m)": lambda: xp.transpose(m),
        "x[3]": lambda: x[3],
        "x[1:3]": lambda: x[1:3],
        "m @ m.T": lambda: m @ m.T,
        "dot(x, y)": lambda: xp.dot(x, y),
        "cumsum(x)": lambda: xp.cumsum(x),
        "sort(x)": lambda: xp.sort(x),
        "x.astype(int32)": lambda: x.astype(np.int32),
        "x < y": lambda: x < y,
        "isnan(x)": lambda: xp.isnan(x),
        "any(x > .5)": lambda: xp.any(x > 0.5),
        "all(x > 0)": lambda: xp.all(x > 0),
        "exp(x)": lambda: xp.exp(x),
        "log(x)": lambda: xp.log(x),
        "tanh(x)": lambda: xp.tanh(x),
    }
    if lib == "numpy":  # the functional update's NumPy equivalent: copy, then set
        def set_():
            z = x.copy()
            z[3] = 1.0
            return z
        c["x.at[3].set(1.)"] = set_
    else:
        c["x.at[3].set(1.)"] = lambda: x.at[3].set(1.0)
    return c


def _costly_cases(xp, lib):
    """name -> callable: the eager small ops that cost most (8 float32 elements)."""
    x = np.linspace(0.3, 3.0, 8, dtype=np.float32)
    y = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
    dom = np.array([[0.1, 0.2, 30.0, 0.3], [5.0, -40.0, 0.0, 1.0]], np.float32)
    if lib == "numpy":
        import scipy.special
        m = x.reshape(2, 4)

        def grad_logaddexp():   # d/dx sum(logaddexp(x, y)) and d/dy: the two sigmoids
            e = np.exp(-np.abs(x - y))
            r = 1 / (1 + e)
            return np.where(x >= y, r, e * r), np.where(x >= y, e * r, r)

        def log_softmax():
            s = dom - dom.max(axis=-1, keepdims=True)
            return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))

        def top_k():
            idx = np.argsort(-y, kind="stable")[:3]
            return y[idx], idx
        return {"digamma(x)": lambda: scipy.special.digamma(x),
                "grad sum(logaddexp(x, y))": grad_logaddexp,
                "log_softmax, dominant max": log_softmax,
                "m.T (2x4)": lambda: m.T,
                "dot(x, y)": lambda: np.dot(x, y),
                "sort(y)": lambda: np.sort(y),
                "top_k(y, 3)": top_k}
    if lib == "tjit":
        import tjit as lib_
        import tjit.scipy.special as special
    else:
        lib_ = jax
        import jax.scipy.special as special
    a, b, d = xp.asarray(x), xp.asarray(y), xp.asarray(dom)
    m = xp.reshape(a, (2, 4))
    g = lib_.grad(lambda u, v: xp.sum(xp.logaddexp(u, v)), argnums=(0, 1))
    return {"digamma(x)": lambda: special.digamma(a),
            "grad sum(logaddexp(x, y))": lambda: g(a, b),
            "log_softmax, dominant max": lambda: lib_.nn.log_softmax(d),
            "m.T (2x4)": lambda: m.T,
            "dot(x, y)": lambda: xp.dot(a, b),
            "sort(y)": lambda: xp.sort(b),
            "top_k(y, 3)": lambda: lib_.lax.top_k(b, 3)}


def rk4(xp, steps=1000):
    """A notebook-style RK4 integration of a small nonlinear ODE, one small op at a time."""
    y = xp.asarray(np.linspace(0.5, 1.5, 8, dtype=np.float32))
    dt = 0.01

    def f(y):
        return -0.5 * y + xp.sin(y) * 0.3

    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def _measure(libs, make, number, repeat, timer):
    results = {}
    for lib, xp in libs:
        for name, fn in make(xp, lib).items():
            if lib == "jax":
                def fn(fn=fn):  # noqa: E731 - dispatch, then wait for the result(s)
                    jax.block_until_ready(fn())
            fn()  # warm-up (first-call checks and caches)
            results.setdefault(name, {})[lib] = _median_us(fn, number, repeat, timer)
    return results


def _print_table(title, results):
    has_jax = any("jax" in r for r in results.values())
    print(f"{'operation' + title:26s} {'numpy us':>10s} {'tjit us':>10s} {'tjit/np':>8s}"
          + (f" {'jax us':>10s} {'tjit/jax':>8s}" if has_jax else ""))
    for name, r in results.items():
        line = f"{name:26s} {r['numpy']:10.3f} {r['tjit']:10.3f} {r['tjit'] / r['numpy']:8.1f}"
        if "jax" in r:
            line += f" {r['jax']:10.3f} {r['tjit'] / r['jax']:8.2f}"
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--cpu-time", action="store_true", help="time with the CPU clock")
    ap.add_argument("--common", action="store_true",
                    help="the common non-elementwise ops on 8 and 1000 elements instead")
    ap.add_argument("--costly", action="store_true",
                    help="the small ops that cost most eagerly instead (CPU clock)")
    args = ap.parse_args()
    timer = time.process_time if args.cpu_time or args.costly else time.perf_counter
    number, repeat = (300, 5) if args.quick else (2000, 9)

    libs = [("numpy", np), ("tjit", tnp)] + ([("jax", jnp)] if jnp is not None else [])
    tables = [("", lambda xp, lib: _cases(xp, lib))]
    if args.common:
        tables = [(f" [n={n}]", lambda xp, lib, n=n: _common_cases(xp, lib, n))
                  for n in (8, 1000)]
    if args.costly:
        tables = [(" [8 f32, CPU]", _costly_cases)]
        number //= 5   # (a grad costs ~100 small ops)
    for title, make in tables:
        _print_table(title, _measure(libs, make, number, repeat, timer))
    if args.common or args.costly:
        return

    # The RK4 loop: a whole notebook cell of small ops.
    ref = rk4(np)
    got = np.asarray(rk4(tnp))
    np.testing.assert_allclose(got, ref, rtol=1e-5)  # same numbers as NumPy
    loops = {}
    for lib, xp in libs:
        rk4(xp, 10)
        reps = 3 if args.quick else 5
        times = []
        for _ in range(reps):
            t0 = timer()
            out = rk4(xp)
            if hasattr(out, "block_until_ready"):
                out.block_until_ready()
            times.append(timer() - t0)
        loops[lib] = statistics.median(times)
    line = (f"RK4, 1000 steps: numpy {loops['numpy'] * 1e3:.1f} ms, tjit "
            f"{loops['tjit'] * 1e3:.1f} ms ({loops['tjit'] / loops['numpy']:.1f}x numpy)")
    if "jax" in loops:
        line += f", jax {loops['jax'] * 1e3:.1f} ms"
    print(line)


if __name__ == "__main__":
    main()
