"""tjit.scipy.sparse.linalg beside SciPy's solvers (a CSR matrix) and JAX's (when
installed): medians of a fixed number of iterations (tol=0, so every library does the
same work) on a matrix-free 1-D convection-diffusion stencil, float64.

    python benchmarks/bench_sparse_linalg.py

tjit and JAX run the whole solve as one compiled while loop under jit; SciPy runs a
Python loop of NumPy calls and CSR products. The eager row is tjit without jit: each call
traces the loop body (the cost a notebook user pays per solve; JAX's eager call
compiles its loop each time).

Measured here (2 cores shared with other work, load average 8-10: ratios are rough),
ms: the range of the medians over 2-3 runs, jax 0.10.2 CPU:

    case                                        scipy      tjit       jax
    cg n=10000, 200 iterations                  14-30     15-31      5-8
    cg n=10000, 200 iterations, pad stencil     13-28     10-18      8-8.5
    bicgstab n=10000, 100 iterations            18-30     25-32      7-10
    gmres n=10000, restart=20, 5 restarts       37-59     44-78      8.5-17
    cg n=1000, 50 iterations, eager (no jit)      0.8     11-28    456-651

The compiled loops run at ~0.7-1.5x SciPy and 1.2-9x JAX's time. A concatenate in the
loop body costs tjit most (100 trips of a 100-element stencil step: 1.5 ms with
concatenate, 0.02 ms with pad, which fuses into one loop): compiler work, not the
solvers'.
"""

import statistics
import time

import numpy as np
import scipy.sparse
import scipy.sparse.linalg as ssl

import tjit
import tjit.numpy as tnp
from tjit.scipy.sparse import linalg as tsl

try:
    import jax
    import jax.numpy as jnp
    from jax.scipy.sparse import linalg as jsl
    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = jnp = jsl = None

tjit.config.update("jax_enable_x64", True)
# SciPy 1.12 renamed the relative tolerance from tol to rtol
_RTOL = "rtol" if "rtol" in ssl.cg.__code__.co_varnames else "tol"


def median_time(fn, *args, reps=15):
    fn(*args)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn(*args)
        getattr(out, "block_until_ready", lambda: None)()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def stencil(xnp, convection, shift="concatenate"):
    """x -> (2 + c) x_i - x_{i-1} - (1 + c) x_{i+1}, zero boundaries (c = 0: symmetric);
    the neighbours by concatenating a zero or by padding (the same values)."""
    def matvec(x):
        if shift == "pad":
            left, right = xnp.pad(x[:-1], (1, 0)), xnp.pad(x[1:], (0, 1))
        else:
            zero = xnp.zeros((1,), x.dtype)
            left = xnp.concatenate([zero, x[:-1]])
            right = xnp.concatenate([x[1:], zero])
        return (2.0 + convection) * x - left - (1.0 + convection) * right
    return matvec


def csr(n, convection):
    return scipy.sparse.diags([-np.ones(n - 1), (2.0 + convection) * np.ones(n),
                               -(1.0 + convection) * np.ones(n - 1)], [-1, 0, 1], format="csr")


def row(name, t_sp, t_tjit, t_jax):
    jax_col = f"{t_jax * 1e3:9.2f}" if t_jax is not None else "        -"
    print(f"{name:38s} {t_sp * 1e3:9.2f} {t_tjit * 1e3:9.2f} {jax_col} {t_tjit / t_sp:8.2f}x")


def bench(name, solver, n, convection, reps=15, shift="concatenate", **kw):
    b = np.random.default_rng(0).standard_normal(n)
    sp_solver = getattr(ssl, solver)
    a_sp = csr(n, convection)
    t_sp = median_time(lambda v: sp_solver(a_sp, v, **{_RTOL: 1e-300}, **kw)[0], b, reps=reps)
    t_fn = getattr(tsl, solver)
    t_mv = stencil(tnp, convection, shift)
    f_t = tjit.jit(lambda v: t_fn(t_mv, v, tol=0.0, **kw)[0])
    t_tjit = median_time(f_t, tnp.asarray(b), reps=reps)
    t_jax = None
    if jax:
        j_fn, j_mv = getattr(jsl, solver), stencil(jnp, convection, shift)
        f_j = jax.jit(lambda v: j_fn(j_mv, v, tol=0.0, **kw)[0])
        t_jax = median_time(f_j, jnp.asarray(b), reps=reps)
        # the same iterations give the same iterate (to rounding, which 100 BiCGSTAB
        # steps amplify to ~1e-7 of the solution's size: SciPy's differs as much)
        x_t, x_j = np.asarray(f_t(tnp.asarray(b))), np.asarray(f_j(jnp.asarray(b)))
        assert np.abs(x_t - x_j).max() <= 1e-5 * np.abs(x_j).max()
    row(name, t_sp, t_tjit, t_jax)


def main():
    print(f"{'case (ms, median)':38s} {'scipy':>9s} {'tjit':>9s} {'jax':>9s} {'tjit/sp':>9s}")
    bench("cg n=10000, 200 iterations", "cg", 10000, 0.0, maxiter=200)
    bench("cg n=10000, 200 iterations, pad stencil", "cg", 10000, 0.0, shift="pad",
          maxiter=200)
    bench("bicgstab n=10000, 100 iterations", "bicgstab", 10000, 0.5, maxiter=100)
    bench("gmres n=10000, restart=20, 5 restarts", "gmres", 10000, 0.5, restart=20,
          maxiter=5)
    b = np.random.default_rng(0).standard_normal(1000)
    a_sp, t_mv = csr(1000, 0.0), stencil(tnp, 0.0)
    row("cg n=1000, 50 iterations, eager (no jit)",
        median_time(lambda v: ssl.cg(a_sp, v, maxiter=50, **{_RTOL: 1e-300})[0], b),
        median_time(lambda v: tsl.cg(t_mv, v, tol=0.0, maxiter=50)[0], tnp.asarray(b)),
        median_time(lambda v: jsl.cg(stencil(jnp, 0.0), v, tol=0.0, maxiter=50)[0],
                    jnp.asarray(b)) if jax else None)


if __name__ == "__main__":
    main()
