"""Inexact line search satisfying the strong Wolfe conditions, as
``jax.scipy.optimize.line_search`` (SciPy's ``scalar_search_wolfe2``: step doubling, then
a zoom by cubic or quadratic interpolation, falling back to bisection; Nocedal and
Wright, Algorithms 3.5 and 3.6). Written on ``lax.while_loop`` so it traces under ``jit``:
both zooms of a step are traced and the one not taken runs zero iterations.
"""

from typing import NamedTuple

import numpy as np

from tjit import numpy as jnp
from tjit.tracing import dtypes
from tjit.lax import while_loop
from tjit.transforms.ad import value_and_grad


def _count(v):
    """A counter or status in JAX's default int (int64 under x64), as JAX's line search."""
    return jnp.asarray(v, dtypes.default_int())


class LineSearchResults(NamedTuple):
    """Results of :func:`line_search` (the fields of JAX's ``_LineSearchResults``)."""
    failed: object  # True if the strong Wolfe conditions were not met
    nit: object  # iterations of the outer loop
    nfev: object  # function evaluations
    ngev: object  # gradient evaluations
    k: object  # the outer loop's counter
    a_k: object  # the step size
    f_k: object  # f at the new point
    g_k: object  # the gradient at the new point
    status: object  # 0 ok, 1 failed in zoom, 3 maxiter reached


def _where_fields(pred, state, new):
    """``state`` with each field named in ``new`` replaced by ``where(pred, new, old)``."""
    return state._replace(**{k: jnp.where(pred, v, getattr(state, k)) for k, v in new.items()})


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """Minimizer of the cubic through (a, fa), (b, fb), (c, fc) with slope fpa at a."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    ra, rb = fb - fa - fpa * db, fc - fa - fpa * dc
    aa = (dc ** 2 * ra - db ** 2 * rb) / denom
    bb = (-dc ** 3 * ra + db ** 3 * rb) / denom
    return a + (-bb + jnp.sqrt(bb * bb - 3.0 * aa * fpa)) / (3.0 * aa)


def _quadmin(a, fa, fpa, b, fb):
    """Minimizer of the parabola through (a, fa), (b, fb) with slope fpa at a."""
    db = b - a
    bb = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2.0 * bb)


class _ZoomState(NamedTuple):
    done: object
    failed: object
    j: object
    a_lo: object
    phi_lo: object
    dphi_lo: object
    a_hi: object
    phi_hi: object
    dphi_hi: object
    a_rec: object
    phi_rec: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object
    nfev: object
    ngev: object


def _zoom(phi_dphi, wolfe_one, wolfe_two, lo, hi, g_0, pass_through):
    """Shrink the bracket [a_lo, a_hi] (``lo``/``hi`` are (a, phi, dphi)) to a step that
    satisfies both Wolfe conditions; ``pass_through`` skips the loop."""
    f = lo[0]
    state = _ZoomState(
        done=jnp.asarray(False), failed=jnp.asarray(False), j=_count(0),
        a_lo=lo[0], phi_lo=lo[1], dphi_lo=lo[2], a_hi=hi[0], phi_hi=hi[1], dphi_hi=hi[2],
        a_rec=(lo[0] + hi[0]) / 2.0, phi_rec=(lo[1] + hi[1]) / 2.0,
        a_star=jnp.ones_like(f), phi_star=lo[1], dphi_star=lo[2], g_star=g_0,
        nfev=_count(0), ngev=_count(0))
    delta1, delta2 = 0.2, 0.1  # how far inside the bracket an interpolated step must be
    # a bracket this narrow stops the search (as JAX: a failure the minimizer reports)
    threshold = 1e-5 if np.dtype(f.dtype).itemsize < 8 else 1e-10

    def body(s):
        dalpha = s.a_hi - s.a_lo
        a, b = jnp.minimum(s.a_hi, s.a_lo), jnp.maximum(s.a_hi, s.a_lo)
        cchk, qchk = delta1 * dalpha, delta2 * dalpha
        s = s._replace(failed=s.failed | (dalpha <= threshold))
        # the cubic is sometimes NaN; the bounds checks then reject it
        a_cub = _cubicmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cub = (s.j > 0) & (a_cub > a + cchk) & (a_cub < b - cchk)
        a_quad = _quadmin(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = ~use_cub & (a_quad > a + qchk) & (a_quad < b - qchk)
        a_j = jnp.where(use_cub, a_cub, jnp.where(use_quad, a_quad, (s.a_lo + s.a_hi) / 2.0))
        phi_j, dphi_j, g_j = phi_dphi(a_j)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)

        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= s.phi_lo)
        star_to_j = wolfe_two(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (s.a_hi - s.a_lo) >= 0.0) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j
        s = _where_fields(hi_to_j, s, dict(a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                                           a_rec=s.a_hi, phi_rec=s.phi_hi))
        s = s._replace(done=s.done | star_to_j)
        s = _where_fields(star_to_j, s, dict(a_star=a_j, phi_star=phi_j, dphi_star=dphi_j,
                                             g_star=g_j))
        s = _where_fields(hi_to_lo, s, dict(a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo,
                                            a_rec=s.a_hi, phi_rec=s.phi_hi))
        s = _where_fields(lo_to_j, s, dict(a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j,
                                           a_rec=s.a_lo, phi_rec=s.phi_lo))
        # a higher cutoff than SciPy's 10, as JAX
        return s._replace(j=s.j + 1, failed=s.failed | (s.j + 1 >= 30))

    return while_loop(lambda s: ~s.done & ~pass_through & ~s.failed, body, state)


class _LineSearchState(NamedTuple):
    done: object
    failed: object
    i: object
    a_i1: object
    phi_i1: object
    dphi_i1: object
    nfev: object
    ngev: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9,
                maxiter=20):
    """Find a step ``a`` along ``pk`` from ``xk`` that satisfies the strong Wolfe
    conditions ``f(xk + a pk) <= f(xk) + c1 a f'(xk; pk)`` and
    ``|f'(xk + a pk; pk)| <= c2 |f'(xk; pk)|``.

    Args:
      f: differentiable scalar function of a 1-D array.
      xk, pk: the current point and a descent direction.
      old_fval, gfk: f and its gradient at xk, if known.
      old_old_fval: f at the previous point, to pick the first trial step.
      maxiter: the most outer iterations (step doublings).

    Returns:
      :class:`LineSearchResults`.
    """
    xk, pk = jnp.asarray(xk), jnp.asarray(pk)
    fg = value_and_grad(f)

    def phi_dphi(t):
        phi, g = fg(xk + t.astype(pk.dtype) * pk)
        return phi, jnp.real(jnp.dot(g, pk)), g

    fresh = old_fval is None or gfk is None
    if fresh:
        phi_0, dphi_0, gfk = phi_dphi(jnp.zeros((), pk.dtype))
    else:
        phi_0, dphi_0 = jnp.asarray(old_fval), jnp.real(jnp.dot(gfk, pk))
    one = jnp.ones_like(phi_0)
    if old_old_fval is not None:
        cand = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = jnp.where(cand > 1, one, cand)
    else:
        start = one

    def wolfe_one(a_i, phi_i):  # the negation of the sufficient-decrease condition
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i):  # the strong curvature condition
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    n0 = _count(1 if fresh else 0)
    state = _LineSearchState(
        done=jnp.asarray(False), failed=jnp.asarray(False), i=_count(1),
        a_i1=jnp.zeros_like(phi_0), phi_i1=phi_0, dphi_i1=dphi_0, nfev=n0, ngev=n0,
        a_star=jnp.zeros_like(phi_0), phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

    def body(s):
        # the next trial step: the start value, then doubling (no amax, as SciPy)
        a_i = jnp.where(s.i == 1, start, s.a_i1 * 2.0)
        phi_i, dphi_i, g_i = phi_dphi(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= s.phi_i1) & (s.i > 1))
        to_i = wolfe_two(dphi_i) & ~to_zoom1
        to_zoom2 = (dphi_i >= 0.0) & ~to_zoom1 & ~to_i
        cur, prev = (a_i, phi_i, dphi_i), (s.a_i1, s.phi_i1, s.dphi_i1)
        z1 = _zoom(phi_dphi, wolfe_one, wolfe_two, prev, cur, gfk, ~to_zoom1)
        z2 = _zoom(phi_dphi, wolfe_one, wolfe_two, cur, prev, gfk, ~to_zoom2)
        s = s._replace(nfev=s.nfev + z1.nfev + z2.nfev, ngev=s.ngev + z1.ngev + z2.ngev)
        keys = ("a_star", "phi_star", "dphi_star", "g_star")
        s = _where_fields(to_zoom1, s, {k: getattr(z1, k) for k in keys})
        s = _where_fields(to_i, s, dict(a_star=a_i, phi_star=phi_i, dphi_star=dphi_i,
                                        g_star=g_i))
        s = _where_fields(to_zoom2, s, {k: getattr(z2, k) for k in keys})
        return s._replace(
            i=s.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i,
            done=s.done | to_zoom1 | to_i | to_zoom2,
            failed=s.failed | (to_zoom1 & z1.failed) | (to_zoom2 & z2.failed))

    s = while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, state)
    status = jnp.where(s.failed, 1, jnp.where(s.i > maxiter, 3, 0)).astype(dtypes.default_int())
    a_k = s.a_star
    if np.dtype(a_k.dtype).itemsize < 8:
        # in float32 a tiny step stalls the minimizer on a zero direction (as JAX)
        a_k = jnp.where(jnp.abs(a_k) < 1e-8, jnp.sign(a_k) * 1e-8, a_k)
    return LineSearchResults(failed=s.failed | ~s.done, nit=s.i - 1, nfev=s.nfev,
                             ngev=s.ngev, k=s.i, a_k=a_k, f_k=s.phi_star, g_k=s.g_star,
                             status=status)
