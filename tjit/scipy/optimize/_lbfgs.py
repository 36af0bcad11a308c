"""Limited-memory BFGS, ``minimize(method="l-bfgs-experimental-do-not-rely-on-this")`` as
in JAX: the search direction is the inverse-Hessian estimate built from the last
``maxcor`` steps and gradient changes by the two-loop recursion (Nocedal and Wright,
Algorithm 7.4), started from ``gamma I`` with ``gamma = s.y / y.y`` of the newest pair;
each step is a strong-Wolfe line search. Complex ``x`` is minimized as its real and
imaginary parts: tjit's (JAX's) gradient of a real function of complex ``x`` is
``df/dRe x - i df/dIm x``, so the steepest descent is ``-conj(g)``; the gradient changes
are stored conjugated (in x's space) and inner products are ``Re(conj(a) . b)``.

The history is a fixed-size buffer, newest pair last, so the loop's state keeps one shape.
"""

from typing import NamedTuple

import numpy as np

from tjit import numpy as jnp
from tjit.lax import fori_loop, while_loop
from tjit.scipy.optimize._line_search import line_search
from tjit.tracing import dtypes
from tjit.transforms.ad import value_and_grad

# status codes (JAX's): 0 converged, 1 maxiter, 2 maxfun, 3 maxgrad, 4 f decreased less
# than ftol, 5 the line search failed


class LBFGSState(NamedTuple):
    converged: object
    failed: object
    k: object           # iterations
    nfev: object
    ngev: object
    x_k: object
    f_k: object
    g_k: object
    s_history: object   # (maxcor, d) steps, newest last
    y_history: object   # (maxcor, d) gradient changes, conjugated
    rho_history: object  # (maxcor,) 1 / Re(y . s)
    gamma: object       # the initial inverse-Hessian scale
    status: object
    ls_status: object


def _inner(a, b):
    """Re(conj(a) . b): the real inner product of complex vectors seen as real pairs."""
    return jnp.real(jnp.vdot(a, b))


def _direction(s, maxcor):
    """-H g by the two-loop recursion over the ``min(k, maxcor)`` stored pairs."""
    count = jnp.minimum(s.k, maxcor)
    alphas = jnp.zeros_like(s.rho_history)

    def newest_first(j, carry):
        q, alphas = carry
        i = maxcor - 1 - j
        a = s.rho_history[i] * _inner(s.s_history[i], q)
        return q - a.astype(q.dtype) * s.y_history[i], alphas.at[i].set(a)

    q, alphas = fori_loop(0, count, newest_first, (-jnp.conj(s.g_k), alphas))
    r = s.gamma.astype(q.dtype) * q

    def oldest_first(j, r):
        i = maxcor - count + j
        b = s.rho_history[i] * _inner(s.y_history[i], r)
        return r + (alphas[i] - b).astype(r.dtype) * s.s_history[i]

    return fori_loop(0, count, oldest_first, r)


def _push(history, new):
    """The buffer with its oldest entry dropped and ``new`` appended."""
    return jnp.concatenate([history[1:], new[None]], axis=0)


def minimize_lbfgs(fun, x0, maxiter=None, norm=np.inf, maxcor=10, ftol=2.220446049250313e-09,
                   gtol=1e-5, maxfun=None, maxgrad=None, maxls=20):
    """L-BFGS from ``x0`` until ``norm(grad, ord=norm) < gtol`` or a limit is reached
    (``maxiter``, default ``200 * x0.size`` when no limit is given; ``maxfun``/``maxgrad``
    evaluations; a decrease of f below ``ftol``; a failed line search).

    Returns:
      The final :class:`LBFGSState`.
    """
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = 200 * int(np.size(x0))
    limits = [np.inf if v is None else v for v in (maxiter, maxfun, maxgrad)]
    maxcor = int(maxcor)
    d = x0.shape[0]
    real = dtypes.to_inexact(jnp.real(x0).dtype)
    count = dtypes.default_int()
    f_0, g_0 = value_and_grad(fun)(x0)
    state = LBFGSState(
        converged=jnp.asarray(False), failed=jnp.asarray(False),
        k=jnp.asarray(0, count), nfev=jnp.asarray(1, count), ngev=jnp.asarray(1, count),
        x_k=x0, f_k=f_0, g_k=g_0,
        s_history=jnp.zeros((maxcor, d), x0.dtype), y_history=jnp.zeros((maxcor, d), x0.dtype),
        rho_history=jnp.zeros((maxcor,), real), gamma=jnp.asarray(1.0, real),
        status=jnp.asarray(0, count), ls_status=jnp.asarray(0, count))

    def body(s):
        p_k = _direction(s, maxcor)
        ls = line_search(fun, s.x_k, p_k, old_fval=s.f_k, gfk=s.g_k, maxiter=maxls)
        s_k = ls.a_k.astype(p_k.dtype) * p_k
        y_k = jnp.conj(ls.g_k - s.g_k)
        ys = _inner(y_k, s_k)
        # the limits are read before this iteration's counts, as JAX's
        status = jnp.where(s.f_k - ls.f_k < ftol, 4, 0)
        status = jnp.where(s.ngev >= limits[2], 3, status)
        status = jnp.where(s.nfev >= limits[1], 2, status)
        status = jnp.where(s.k >= limits[0], 1, status)
        status = jnp.where(ls.failed, 5, status)
        converged = jnp.linalg.norm(ls.g_k, ord=norm) < gtol
        return LBFGSState(
            converged=converged, failed=(status > 0) & ~converged, k=s.k + 1,
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev,
            x_k=(s.x_k + s_k).astype(x0.dtype), f_k=ls.f_k.astype(s.f_k.dtype),
            g_k=ls.g_k.astype(s.g_k.dtype),
            s_history=_push(s.s_history, s_k), y_history=_push(s.y_history, y_k),
            rho_history=_push(s.rho_history, (1.0 / ys).astype(real)),
            gamma=(ys / _inner(y_k, y_k)).astype(real),
            status=jnp.where(converged, 0, status).astype(count),
            ls_status=ls.status.astype(count))

    return while_loop(lambda s: ~s.converged & ~s.failed, body, state)
