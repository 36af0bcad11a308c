"""Inverse trigonometric, hyperbolic and special functions under jit: tjit vs NumPy vs JAX.

    python benchmarks/bench_kernel_math.py [--n 1000000] [--reps 15] [--only atan2]

(Run it with /work/jaxvenv/bin/python to get the JAX column.) For each function and
dtype: ``jit(f)(x)`` on ``n`` elements (a fused kernel since asin/acos/atan/sinh/cosh/
asinh/acosh/atanh became kernel-IR ops; a NumPy library step before), NumPy's ufunc, and
``jax.jit(f)``; plus the fused chain ``arctan2(x, 1 + x*x) * 2 + sinh(x)``. Each result is
first checked against NumPy in float64. Times are medians in ms after warm-up; the
ratios are tjit/NumPy and tjit/JAX (below 1: tjit is faster). Not a test.

Measured (2 shared vCPUs, AVX-512, NumPy 2.4, JAX 0.10; ms, medians; "before": the ops
as NumPy library steps, same process layout):

    case (n)                     NumPy   tjit before  tjit after   JAX
    atan2+sinh float32 (16M)     74-85      39.5         30.0      490-570
    atan2+sinh float64 (16M)    140-148     79.2         54.8      370-560
    atan2+sinh float32 (1M)      0.95       0.57         0.56       27
    atan2+sinh float64 (1M)      7.5        1.94         1.68       27
    single ops, 1M float32       0.22-0.45  0.23-0.42    0.22-0.55  0.6-43
    single ops, 1M float64       0.7-1.5    0.8-1.6      0.6-1.5    2-36

A lone op costs what NumPy's own loop does (float32: NumPy's SIMD functions, 1.0-1.5x
faster than the fused kernel's; float64 0.66-1.26x); the gain is in fusion: one pass
over memory instead of a kernel, a library step and a second kernel (1.3-1.45x at 16M,
where the arrays leave the caches). An earlier float32-in-double version (0.5 ulp) ran
0.7-1.2 ms on the 1M float32 single ops and 1.5 ms on the 1M chain: slower than before.

Special functions (erfc, gammaln = lgamma, digamma: kernel-IR ops since mathlib_special;
SciPy library steps before; the NumPy column is SciPy) and two programs: a Poisson
log-likelihood ``sum(k log lam - lam - gammaln(k + 1))`` and ``log(0.5 erfc(-x/sqrt 2))``
(norm.logcdf's erfc chain). 1M elements, 2 threads, ms, the range over three runs on a
machine at load 10 (other jobs: single numbers moved 2-5x between runs, JAX's most;
"before" from the previous commit's tree, run alternately with "after"):

    case (1M)            SciPy     tjit before  tjit after   JAX
    erfc float32         44-104    41-100       11.7-17.0    2.4-11.7
    gammaln float32      38-92     47-99        10.0-23.8    18.7-48.5
    digamma float32      254-500   249-503      8.8-22.4     34-56
    poisson-ll float32   45-118    40-68        19.5-35.8    4.4-16
    logcdf float32       47-91     46-96        9.5-23.7     1.7-8.0
    erfc float64         34-83     44-79        7.5-20.5     2.5-13.1
    gammaln float64      38-78     41-100       4.9-10.3     62-131
    digamma float64      175-588   255-569      7.4-28.2     58-144
    poisson-ll float64   41-180    31-104       12.0-35.2    57-145
    logcdf float64       37-115    36-77        16.9-35.5    39-84

After vs before, per pair of runs: erfc 3.5-8.5x, gammaln 4-10x, digamma 20-30x,
poisson-ll 1.9-3.4x, logcdf 2-10x faster. Against JAX: float64 gammaln/digamma and the
Poisson program 3-10x faster, logcdf ~2x; float32 erfc 1.5-5x and the erfc chain 6-14x
slower: XLA's float32 erfc is a float32 rational (a few ulp), tjit's evaluates in
float64 (0.5 ulp; see mathlib_special).

Wall times at load 10-17 moved 2-5x between runs, so the special functions were
re-measured by CPU time (``--cpu``, ``TJIT_NUM_THREADS=1``: tjit's kernel on one thread,
JAX's CPU time over all its threads; 21 reps, medians, ms, load 15-17). "before": the
float32 erfc in double and single Horner chains; "after": float32 erfc in float32
(2.5 ulp) and the long polynomials as four interleaved chains (mathlib_special):

    case (1M)            SciPy   tjit before  tjit after   JAX
    erfc float32         12.1       2.83        0.42       1.01
    logcdf float32       12.8       3.43        0.70       1.69
    poisson-ll float32   12.2       5.37        4.43       4.66
    gammaln float32      12.1       3.45        4.02       9.56
    digamma float32      69.5       3.23        2.50       9.56
    erfc float64         11.2       3.56        2.55       2.64
    logcdf float64       13.0       4.29        3.76      11.85
    gammaln float64      11.7       3.38        3.63      21.94
    digamma float64      69.5       4.08        2.72      23.20

(gammaln is the same code before and after: its difference is the machine's noise.)
By CPU time float64 gammaln costs 3.4-3.6 ms, its positive half 2.1 and its reflection
1.0 (each alone in a kernel): the halves add up. The 11.7 ms wall time quoted before was
the loaded machine's. They add up only with the code generator's interleaved loops: a
plain loop (tests/lower/test_mathlib.py's harness) ran 2.4 + 1.3 -> 6.7 ms, the
~270-instruction body latency-bound on its fma chains with no room to overlap
iterations.
"""

import argparse
import statistics
import time

import numpy as np

import scipy.special

import tjit
import tjit.numpy as tnp
import tjit.scipy.special as tsp

try:
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as jsp
    jax.config.update("jax_enable_x64", True)
except ImportError:     # the JAX column stays empty
    jax = jnp = jsp = None

tjit.config.update("jax_enable_x64", True)

#: name -> input range (inside the domain; 0.99 keeps atanh finite)
FUNCS = {"arctan": (-10, 10), "arcsin": (-1, 1), "arccos": (-1, 1), "sinh": (-10, 10),
         "cosh": (-10, 10), "arcsinh": (-100, 100), "arccosh": (1, 100),
         "arctanh": (-0.99, 0.99)}


def chain(m):
    return lambda x: m.arctan2(x, 1 + x * x) * 2 + m.sinh(x)


#: special functions: name -> input range
SPECIAL = {"erfc": (-3, 9), "gammaln": (0.01, 50), "digamma": (-20, 20)}


def poisson_ll(m, sp):
    """Poisson log-likelihood of counts k = floor(1.7 lam) at rates lam (the lgamma row)."""
    def f(lam):
        k = m.floor(lam * 1.7)
        return m.sum(k * m.log(lam) - lam - sp.gammaln(k + 1))
    return f


def logcdf(m, sp):
    """log Phi(x) as norm.logcdf writes it with erfc: an erfc chain into a log."""
    return lambda x: m.log(0.5 * sp.erfc(-x * 0.7071067811865476))


#: the clock: wall time, or (--cpu) the process's CPU time, which a shared machine's
#: other jobs barely move (run it with TJIT_NUM_THREADS=1: tjit's time is then its
#: kernel's; JAX's counts all its threads)
CLOCK = [time.perf_counter]


def median_ms(fn, reps):
    fn()
    clock = CLOCK[0]
    times = []
    for _ in range(reps):
        t = clock()
        fn()
        times.append(clock() - t)
    return 1e3 * statistics.median(times)


def row(label, x, np_fn, tj_fn, jax_fn, reps, only=None, tol64=1e-13):
    if only and not any(part in label for part in only.split(",")):
        return
    want = np.asarray(np_fn(x.astype(np.float64)))
    got = np.asarray(tj_fn(x))
    tol = 1e-5 if x.dtype == np.float32 else tol64
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    t_np = median_ms(lambda: np_fn(x), reps)
    t_tj = median_ms(lambda: tj_fn(x), reps)
    cols = [f"{label:22s}", f"{t_np:8.2f}", f"{t_tj:8.2f}"]
    if jax_fn is not None:
        xj = jax.device_put(x)
        t_jx = median_ms(lambda: jax_fn(xj).block_until_ready(), reps)
        cols += [f"{t_jx:8.2f}", f"{t_tj / t_np:6.2f}", f"{t_tj / t_jx:6.2f}"]
    else:
        cols += [f"{'-':>8s}", f"{t_tj / t_np:6.2f}", f"{'-':>6s}"]
    print(" ".join(cols), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--only", help="only the cases whose label contains this (or one of "
                                   "these, comma-separated)")
    ap.add_argument("--cpu", action="store_true",
                    help="time by the process's CPU time instead of the wall clock")
    a = ap.parse_args()
    if a.cpu:
        CLOCK[0] = time.process_time
    rng = np.random.default_rng(0)
    print(f"n = {a.n}; medians in ms ({'CPU' if a.cpu else 'wall'}); tjit {tjit.__file__}")
    print(f"{'case':22s} {'NumPy':>8s} {'tjit':>8s} {'JAX':>8s} {'tj/np':>6s} {'tj/jax':>6s}")
    for dt in (np.float32, np.float64):
        for name, (lo, hi) in FUNCS.items():
            x = rng.uniform(lo, hi, a.n).astype(dt)
            row(f"{name} {np.dtype(dt).name}", x, getattr(np, name),
                tjit.jit(getattr(tnp, name)),
                jax.jit(getattr(jnp, name)) if jax else None, a.reps, a.only)
        x = rng.uniform(-5, 5, a.n).astype(dt)
        row(f"atan2+sinh {np.dtype(dt).name}", x, chain(np), tjit.jit(chain(tnp)),
            jax.jit(chain(jnp)) if jax else None, a.reps, a.only)
        for name, (lo, hi) in SPECIAL.items():
            x = rng.uniform(lo, hi, a.n).astype(dt)
            row(f"{name} {np.dtype(dt).name}", x, getattr(scipy.special, name),
                tjit.jit(getattr(tsp, name)),
                jax.jit(getattr(jsp, name)) if jax else None, a.reps, a.only,
                tol64=1e-9)     # (SciPy's digamma: 6e-11 off next to the poles)
        for label, prog, (lo, hi) in (("poisson-ll", poisson_ll, (0.1, 30)),
                                      ("logcdf", logcdf, (-12, 5))):
            x = rng.uniform(lo, hi, a.n).astype(dt)
            row(f"{label} {np.dtype(dt).name}", x, prog(np, scipy.special),
                tjit.jit(prog(tnp, tsp)), jax.jit(prog(jnp, jsp)) if jax else None,
                a.reps, a.only, tol64=1e-9)


if __name__ == "__main__":
    main()
