"""The LAPACK-form functions of ``lax.linalg`` beside SciPy's LAPACK wrappers (and JAX when
installed): medians of eager and jitted calls on one matrix and a batch of 32, and
``lax.linalg.qdwh`` beside ``scipy.linalg.polar`` (SVD-based).

    python benchmarks/bench_householder.py
    /work/jaxvenv/bin/python benchmarks/bench_householder.py   # with the JAX column

geqrf/householder_product/ormqr/hessenberg/tridiagonal are one SciPy LAPACK call per
matrix (a library step under jit), so the ratio to SciPy is the per-call overhead plus
the per-matrix loop over a batch. qdwh is JAX's iteration on lax ops (about a dozen QR
or Cholesky steps), compiled under jit. (BLAS threads competing inside the compiled loop made one jitted
qdwh 25-200x slower at a load average of 11; small problems now run OpenBLAS on one
thread: primitives/lapack_threads.py, benchmarks/bench_blas_threads.py.)
"""

import os
import statistics
import time

import numpy as np
import scipy.linalg
from scipy.linalg import lapack

import tjit
from tjit.lax import linalg as L

try:
    import jax
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
    from jax._src.lax import linalg as _jax_linalg
    from jax.lax import linalg as JL
except ImportError:
    jax = JL = _jax_linalg = None


def median_time(fn, *args, reps=15):
    fn(*args)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn(*args)
        jax.block_until_ready(out) if jax is not None else None
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def row(name, t_ref, t_tjit, t_jax):
    jax_col = f"{t_jax * 1e6:10.1f}" if t_jax is not None else "         -"
    print(f"{name:40s} {t_ref * 1e6:10.1f} {t_tjit * 1e6:10.1f} {jax_col} "
          f"{t_tjit / t_ref:8.2f}x")


def _per_matrix(f):
    def run(*args):
        return [f(*(a[i] for a in args)) for i in range(args[0].shape[0])]
    return run


def main():
    tjit.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'case (us, median)':40s} {'scipy':>10s} {'tjit':>10s} {'jax':>10s} "
          f"{'tjit/scipy':>9s}")
    for batch in ((), (32,)):
        a = rng.standard_normal(batch + (64, 48))
        sq = rng.standard_normal(batch + (64, 64))
        herm = sq + np.swapaxes(sq, -1, -2)
        packed, taus = (np.asarray(v) for v in L.geqrf(a))
        c = rng.standard_normal(batch + (64, 16))
        cases = [
            ("geqrf", lambda x: lapack.dgeqrf(x)[:2], L.geqrf,
             _jax_linalg.geqrf if jax else None, (a,)),
            ("householder_product", lambda h, t: lapack.dorgqr(h, t)[0],
             L.householder_product, JL.householder_product if jax else None, (packed, taus)),
            ("ormqr (Q^T c)", lambda h, t, c: lapack.dormqr("L", "T", h, t, c, 64 * 16)[0],
             lambda h, t, c: L.ormqr(h, t, c, transpose=True),
             (lambda h, t, c: JL.ormqr(h, t, c, transpose=True)) if jax else None,
             (packed, taus, c)),
            ("hessenberg", lambda x: lapack.dgehrd(x)[:2], L.hessenberg,
             JL.hessenberg if jax else None, (sq,)),
            ("tridiagonal", lambda x: lapack.dsytrd(x, lower=1)[:4], L.tridiagonal,
             JL.tridiagonal if jax else None, (herm,)),
        ]
        for name, ref, ours, theirs, args in cases:
            ref = _per_matrix(ref) if batch else ref
            t_ref = median_time(ref, *args)
            t_eager = median_time(ours, *args)
            t_jit = median_time(tjit.jit(ours), *args)
            t_jax = median_time(jax.jit(theirs), *args) if theirs else None
            shape = "x".join(map(str, args[0].shape))
            row(f"{name} {shape} eager", t_ref, t_eager, None)
            row(f"{name} {shape} jit", t_ref, t_jit, t_jax)
    x = rng.standard_normal((64, 48))
    t_ref = median_time(scipy.linalg.polar, x)
    t_jit = median_time(tjit.jit(L.qdwh), x)
    t_jax = median_time(jax.jit(JL.qdwh), x) if jax else None
    row("qdwh 64x48 jit (scipy: polar via SVD)", t_ref, t_jit, t_jax)
    xs = rng.standard_normal((16, 64, 48))
    t_ref = median_time(_per_matrix(scipy.linalg.polar), xs)
    t_jit = median_time(tjit.jit(tjit.vmap(L.qdwh)), xs)
    t_jax = median_time(jax.jit(jax.vmap(JL.qdwh)), xs) if jax else None
    row("vmap(qdwh) 16x64x48 jit", t_ref, t_jit, t_jax)


if __name__ == "__main__":
    main()
