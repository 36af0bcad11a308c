"""``minimize`` with ``method="BFGS"``, as ``jax.scipy.optimize.minimize``.

BFGS keeps a dense inverse-Hessian estimate ``H``, steps along ``-H g`` with the strong
Wolfe line search of ``_line_search.py`` and updates ``H`` by the BFGS formula (skipped
when ``1 / (y . s)`` is not finite). The iteration is a ``lax.while_loop``, so the whole
minimization traces into one program under ``jit``.
"""

from typing import NamedTuple

import numpy as np

from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str
from tjit import numpy as jnp
from tjit.tracing import dtypes
from tjit.lax import while_loop
from tjit.numpy._core import promote_dtypes_inexact
from tjit.transforms.ad import value_and_grad
from tjit.scipy.optimize._lbfgs import minimize_lbfgs
from tjit.scipy.optimize._line_search import line_search


class OptimizeResults(NamedTuple):
    """The result of :func:`minimize` (JAX's fields).

    Attributes:
      x: the solution.
      success: whether the optimizer converged (and the line search did not fail).
      status: 0 converged, 1 maxiter reached, 2 + the line search's status when it
        failed (3: zoom failed, 5: its maxiter), -1 otherwise.
      fun, jac, hess_inv: f, its gradient and the inverse-Hessian estimate at x.
      nfev, njev: function and gradient evaluations.
      nit: iterations.
    """
    x: object
    success: object
    status: object
    fun: object
    jac: object
    hess_inv: object
    nfev: object
    njev: object
    nit: object


class _BFGSState(NamedTuple):
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    x_k: object
    f_k: object
    g_k: object
    H_k: object
    old_old_fval: object
    line_search_status: object


def _norm(g, ord):
    return jnp.linalg.norm(g, ord=ord)


def minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """BFGS from ``x0`` until ``norm(grad, ord=norm) < gtol`` or ``maxiter`` iterations
    (default ``200 * x0.size``). Returns ``(state, status)``."""
    if maxiter is None:
        maxiter = int(np.size(x0)) * 200
    d = x0.shape[0]
    f_0, g_0 = value_and_grad(fun)(x0)
    i32 = dtypes.default_int()  # JAX's counters and status: the default int
    state = _BFGSState(
        converged=_norm(g_0, norm) < gtol, failed=jnp.asarray(False),
        k=jnp.asarray(0, i32), nfev=jnp.asarray(1, i32), ngev=jnp.asarray(1, i32),
        x_k=x0, f_k=f_0, g_k=g_0, H_k=jnp.eye(d, dtype=x0.dtype),
        old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2, line_search_status=jnp.asarray(0, i32))

    def body(s):
        p_k = -(s.H_k @ s.g_k)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, old_old_fval=s.old_old_fval,
                         gfk=s.g_k, maxiter=line_search_maxiter)
        s_k = ls.a_k.astype(p_k.dtype) * p_k
        y_k = ls.g_k - s.g_k
        rho = 1.0 / jnp.dot(y_k, s_k)
        w = jnp.eye(d, dtype=x0.dtype) - rho * jnp.outer(s_k, y_k)
        h_new = w @ s.H_k @ w.T + rho * jnp.outer(s_k, s_k)
        return _BFGSState(
            converged=_norm(ls.g_k, norm) < gtol, failed=ls.failed, k=s.k + 1,
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, x_k=s.x_k + s_k,
            f_k=ls.f_k.astype(s.f_k.dtype), g_k=ls.g_k,
            H_k=jnp.where(jnp.isfinite(rho), h_new, s.H_k), old_old_fval=s.f_k,
            line_search_status=ls.status)

    s = while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter), body, state)
    status = jnp.where(s.converged, 0, jnp.where(
        s.k == maxiter, 1, jnp.where(s.failed, 2 + s.line_search_status, -1)))
    return s, status.astype(dtypes.default_int())


LBFGS = "l-bfgs-experimental-do-not-rely-on-this"
_METHOD_OPTIONS = {
    "bfgs": ("maxiter", "gtol", "norm", "line_search_maxiter"),
    LBFGS: ("maxiter", "norm", "maxcor", "ftol", "gtol", "maxfun", "maxgrad", "maxls")}


def minimize(fun, x0, args=(), *, method, tol=None, options=None):
    """Minimize a scalar function of one 1-D array, as ``jax.scipy.optimize.minimize``.

    Args:
      fun: ``fun(x, *args) -> scalar``, differentiable by tjit.
      x0: the initial guess, a 1-D array.
      args: extra positional arguments of ``fun`` (a tuple).
      method: ``"BFGS"`` or JAX's ``"l-bfgs-experimental-do-not-rely-on-this"``
        (case-insensitive).
      tol: the gradient-norm tolerance (``gtol``) when ``options`` gives none, as SciPy
        (JAX accepts ``tol`` but ignores it).
      options: ``maxiter`` (default ``200 * x0.size``), ``gtol`` (default 1e-5),
        ``norm`` (the gradient norm's order, default inf), ``line_search_maxiter``
        (default 10); for L-BFGS ``maxiter``, ``norm``, ``gtol``, ``maxcor`` (history
        size, 10), ``ftol`` (least decrease of f, 2.2e-9), ``maxfun``, ``maxgrad`` and
        ``maxls`` (line-search iterations, 20).

    Returns:
      :class:`OptimizeResults`.
    """
    options = dict(options or {})
    if not isinstance(args, tuple):
        raise TypeError(f"scipy.optimize.minimize: args must be a tuple, got "
                        f"{type(args).__name__}; write args=({args!r},)")
    kind = method.lower() if isinstance(method, str) else None
    if kind not in _METHOD_OPTIONS:
        raise ValueError(f"scipy.optimize.minimize: method must be 'BFGS' or '{LBFGS}', "
                         f"got {method!r}")
    unknown = set(options) - set(_METHOD_OPTIONS[kind])
    if unknown:
        raise TypeError(f"scipy.optimize.minimize: unknown {method} options "
                        f"{sorted(unknown)}; use {', '.join(_METHOD_OPTIONS[kind])}")
    if tol is not None:
        options.setdefault("gtol", tol)
    (x0,) = promote_dtypes_inexact(jnp.asarray(x0))
    if x0.ndim != 1:
        raise ShapeError(f"scipy.optimize.minimize: x0 must be 1-D, got shape "
                         f"{shape_str(x0.shape)}; ravel it and reshape inside fun")

    def fun_with_args(x):
        return fun(x, *args)
    if kind == LBFGS:
        s = minimize_lbfgs(fun_with_args, x0, **options)
        return OptimizeResults(x=s.x_k, success=s.converged & ~s.failed, status=s.status,
                               fun=s.f_k, jac=s.g_k, hess_inv=None, nfev=s.nfev,
                               njev=s.ngev, nit=s.k)
    s, status = minimize_bfgs(fun_with_args, x0, **options)
    return OptimizeResults(x=s.x_k, success=s.converged & ~s.failed, status=status,
                           fun=s.f_k, jac=s.g_k, hess_inv=s.H_k, nfev=s.nfev, njev=s.ngev,
                           nit=s.k)
