"""Polynomials of ``tjit.numpy`` (NumPy's ``poly*`` functions on 1-D coefficient arrays,
highest power first): polyfit, poly, polyadd, polysub, polymul, polydiv, polyder and
polyint. ``polyval`` and ``vander`` live in ``_misc.py``.

Coefficient counts decide output shapes, so they are static (as in JAX); the values may
be traced. As in JAX, derivatives, integrals, fits and quotients are computed in an
inexact dtype (float32 by default), and leading zeros are only trimmed on request
(``trim_leading_zeros=True``, which needs concrete values).
"""


import numpy as np

from tjit import lax
from tjit.tracing import dtypes
from tjit.tracing.core import concrete_value
from tjit.tracing.errors import OperandShapeError, static_index
from tjit.primitives.fft import complex_dtype_for
from tjit.tracing.shapes import shape_str
from tjit.numpy._core import asarray, ensure_array, promote_dtypes, promote_dtypes_inexact
from tjit.numpy import _ufuncs as uf
from tjit.numpy import _reductions as red
from tjit.numpy._creation import arange, zeros
from tjit.numpy._misc import convolve, vander
from tjit.numpy._misc import where as _where
from tjit.numpy._shape import concatenate
from tjit.numpy import linalg


def _vector(fname, p):
    p = ensure_array(fname, p)
    if p.ndim == 0:
        return lax.reshape(p, (1,))
    if p.ndim != 1:
        raise ValueError(f"jnp.{fname}: coefficient arrays must be 1-D, got shape "
                         f"{shape_str(p.shape)}")
    if type(p.shape[0]) is not int:
        raise ValueError(f"jnp.{fname}: the number of coefficients must be static, got "
                         f"{p.shape[0]}")
    return p


def _static_order(m, fname, what="m"):
    m = static_index(concrete_value(m, f"the {what} argument of jnp.{fname}"), what,
                     f"jnp.{fname}")
    if m < 0:
        raise ValueError(f"jnp.{fname}: order of {what} must be non-negative, got {m}")
    return m


def _trim_front(p, fname):
    v = np.asarray(concrete_value(p, f"the coefficients of jnp.{fname} with "
                                     f"trim_leading_zeros=True"))
    nz = np.flatnonzero(v)
    return p[int(nz[0]):] if nz.size else p[-1:]


def _pad_front(p, n):
    if p.shape[0] == n:
        return p
    return concatenate([zeros((n - p.shape[0],), p.dtype), p])


def polyadd(a1, a2):
    """Sum of two polynomials (the shorter is padded with leading zeros)."""
    a1, a2 = promote_dtypes(_vector("polyadd", a1), _vector("polyadd", a2))
    n = max(a1.shape[0], a2.shape[0])
    return uf.add(_pad_front(a1, n), _pad_front(a2, n))


def polysub(a1, a2):
    """Difference ``a1 - a2`` of two polynomials."""
    a1, a2 = promote_dtypes(_vector("polysub", a1), _vector("polysub", a2))
    n = max(a1.shape[0], a2.shape[0])
    return uf.subtract(_pad_front(a1, n), _pad_front(a2, n))


def polymul(a1, a2, *, trim_leading_zeros=False):
    """Product of two polynomials (the full convolution of their coefficients); as in
    JAX, the result is always inexact (float for integer coefficients)."""
    a1, a2 = promote_dtypes_inexact(_vector("polymul", a1), _vector("polymul", a2))
    if trim_leading_zeros:
        a1, a2 = _trim_front(a1, "polymul"), _trim_front(a2, "polymul")
    # an empty polynomial is the zero polynomial [0] (NumPy's poly1d, JAX), so the product
    # keeps the other's length
    a1, a2 = (p if p.shape[0] else zeros((1,), p.dtype) for p in (a1, a2))
    return convolve(a1, a2, mode="full")


def polyder(p, m=1):
    """The ``m``-th derivative of polynomial ``p`` (empty when ``m >= len(p)``)."""
    (p,) = promote_dtypes_inexact(_vector("polyder", p))
    m = _static_order(m, "polyder")
    for _ in range(m):
        n = max(p.shape[0] - 1, 0)
        p = uf.multiply(p[:-1], arange(n, 0, -1, dtype=p.dtype))
    return p


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of ``p``; ``k``: the integration constants (a scalar,
    or ``m`` values, the first for the first integration; default 0)."""
    (p,) = promote_dtypes_inexact(_vector("polyint", p))
    m = _static_order(m, "polyint")
    if k is None:
        k = zeros((m,), p.dtype)
    k = asarray(k)
    if k.ndim == 0:
        k = lax.broadcast_in_dim(k, (m,), ())
    if k.ndim != 1 or k.shape[0] != m:
        raise ValueError(f"jnp.polyint: k must be a scalar or have length m = {m}, got shape "
                         f"{shape_str(k.shape)}")
    k = lax.convert_element_type(k, p.dtype)
    for i in range(m):
        n = p.shape[0]
        p = concatenate([uf.true_divide(p, arange(n, 0, -1, dtype=p.dtype)), k[i:i + 1]])
    return p


def polydiv(u, v, *, trim_leading_zeros=False):
    """Quotient and remainder of the polynomial division ``u / v``.

    Returns:
      ``(q, r)`` with ``u = q * v + r``; ``r`` keeps ``len(u)`` coefficients (leading
      zeros included) unless ``trim_leading_zeros=True`` (which needs concrete values).

    Example::

        >>> jnp.polydiv(jnp.asarray([1.0, 3.0, 2.0]), jnp.asarray([1.0, 1.0]))
        (Array([1., 2.], dtype=float32), Array([0., 0., 0.], dtype=float32))
    """
    u, v = promote_dtypes_inexact(_vector("polydiv", u), _vector("polydiv", v))
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = uf.true_divide(1, v[0])
    q = zeros((max(m - n + 1, 1),), u.dtype)
    r = u
    for k in range(m - n + 1):
        d = uf.multiply(scale, r[k])
        q = q.at[k].set(d)
        r = r.at[k:k + n + 1].subtract(uf.multiply(d, v))
    if trim_leading_zeros:
        rv = np.asarray(concrete_value(r, "the remainder of jnp.polydiv with "
                                          "trim_leading_zeros=True"))
        start = 0
        while start < rv.shape[0] - 1 and np.allclose(rv[start], 0, rtol=1e-14):
            start += 1
        r = r[start:]
    return q, r


def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots (1-D input), or the
    characteristic polynomial of a square matrix (from its eigenvalues: complex, as
    JAX)."""
    z = ensure_array("poly", seq_of_zeros)
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] > 0:
        z = linalg.eigvals(z)
    if z.ndim > 1 or (z.ndim == 1 and type(z.shape[0]) is not int):
        raise ValueError(f"jnp.poly: input must be a 1-D array of roots or a square matrix, "
                         f"got shape {shape_str(z.shape)}")
    z = lax.reshape(z, (-1,)) if z.ndim == 0 else z
    (z,) = promote_dtypes_inexact(z)
    if z.shape[0] == 0:  # the empty product: NumPy's and JAX's scalar 1
        return asarray(np.ones((), z.dtype))
    a = asarray(np.ones((1,), z.dtype))
    for k in range(z.shape[0]):
        a = convolve(a, concatenate([asarray(np.ones((1,), z.dtype)), uf.negative(z[k:k + 1])]),
                     mode="full")
    return a


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg`` to the points ``(x, y)``.

    Args:
      x: 1-D sample points (M,).
      y: (M,) or (M, K) values (K fits at once).
      deg: the degree (static).
      rcond: relative cutoff for small singular values (default ``M * eps``).
      full: also return ``(residuals, rank, singular_values, rcond)``.
      w: weights applied to the unsquared residuals.
      cov: also return the covariance of the coefficients (``"unscaled"``: not scaled
        by the residuals).

    Returns:
      The coefficients (highest power first), and the extras requested.
    """
    x, y = promote_dtypes_inexact(ensure_array("polyfit", x), ensure_array("polyfit", y))
    deg = _static_order(deg, "polyfit", "deg")
    order = deg + 1
    if x.ndim != 1 or y.ndim not in (1, 2) or x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise OperandShapeError(
            f"jnp.polyfit: need a non-empty 1-D x and y of shape (M,) or (M, K) "
            f"with the same M, got shapes {shape_str(x.shape)} and {shape_str(y.shape)}")
    if rcond is None:
        rcond = x.shape[0] * float(dtypes.finfo(x.dtype).eps)
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = promote_dtypes_inexact(ensure_array("polyfit", w))
        if w.ndim != 1 or w.shape[0] != x.shape[0]:
            raise ValueError(f"jnp.polyfit: w must be 1-D of length {x.shape[0]}, got shape "
                             f"{shape_str(w.shape)}")
        lhs = uf.multiply(lhs, w[:, None])
        rhs = uf.multiply(rhs, w if rhs.ndim == 1 else w[:, None])
    scale = uf.sqrt(red.sum(uf.multiply(lhs, lhs), axis=0))  # column scaling: conditioning
    c, resids, rank, s = linalg.lstsq(uf.true_divide(lhs, scale), rhs, rcond)
    c = uf.true_divide(c, scale if c.ndim == 1 else scale[:, None])
    if full:
        return c, resids, rank, s, asarray(rcond, dtype=x.dtype)
    if not cov:
        return c
    vbase = _cov_base(lhs, scale)
    if cov == "unscaled":
        fac = asarray(1, dtype=x.dtype)
    else:
        if x.shape[0] <= order:
            raise ValueError("jnp.polyfit: the number of data points must exceed order to "
                             "scale the covariance matrix")
        fac = uf.true_divide(resids, x.shape[0] - order)
    if y.ndim == 1:
        return c, uf.multiply(vbase, fac)
    return c, uf.multiply(vbase[:, :, None], fac)


def _cov_base(lhs, scale):
    """NumPy's unscaled covariance: inv(A^T A) of the column-scaled design matrix A,
    unscaled again."""
    lhs_scaled = uf.true_divide(lhs, scale)
    vbase = linalg.inv(lhs_scaled.T @ lhs_scaled)
    return uf.true_divide(vbase, uf.multiply(scale[:, None], scale[None, :]))


def _companion_roots(p):
    """Eigenvalues of the companion matrix of ``p`` (leading coefficient non-zero)."""
    n = p.shape[0] - 1  # rows 1.. of the companion, flattened: a 1 every n + 1 entries
    if n < 1:
        return zeros((0,), complex_dtype_for(p.dtype))
    below = lax.pad(lax.full((n - 1,), 1, p.dtype), lax.full((), 0, p.dtype),
                    ((0, 1, n),)) if n > 1 else lax.full((0,), 0, p.dtype)
    first = uf.negative(uf.true_divide(p[1:], p[0]))
    companion = lax.reshape(concatenate([first, below]), (n, n))
    return linalg.eigvals(companion)


def roots(p, *, strip_zeros=True):
    """Roots of the polynomial with coefficients ``p`` (highest power first), as the
    eigenvalues of its companion matrix (``numpy.roots``; CPU only, like ``eig``).

    Args:
      p: 1-D coefficients.
      strip_zeros: drop leading zeros first (needs concrete values, as JAX). With
        ``False`` the output keeps ``len(p) - 1`` entries and the roots lost to ``k``
        leading zeros are NaN, so it also works on traced values.

    Returns:
      Complex roots (NumPy returns real ones when all are real; JAX and tjit do not).
      Example: ``jnp.roots(jnp.array([1., -3., 2.]))`` -> ``[2+0j, 1+0j]``.
    """
    p = _vector("roots", p)
    (p,) = promote_dtypes_inexact(p)
    cdt = complex_dtype_for(p.dtype)
    if p.shape[0] < 2:
        return zeros((0,), cdt)
    if strip_zeros:
        v = np.asarray(concrete_value(p, "the coefficients of jnp.roots (pass "
                                         "strip_zeros=False under jit)"))
        nz = np.flatnonzero(v)
        if not nz.size:
            return zeros((0,), cdt)
        return _companion_roots(p[int(nz[0]):])
    n = p.shape[0]
    is_zero = uf.equal(p, 0)
    lead = lax.select(red.all(is_zero), lax.full((), n, dtypes.default_int()),
                      lax.convert_element_type(red.argmin(is_zero), dtypes.default_int()))
    # Roll the leading zeros to the end (a zero root each), then sort the zero roots to
    # the end and mark as many of them as there were leading zeros NaN (as JAX).
    safe = _where(uf.equal(lead, n), lax.full((n,), 1, p.dtype), p)
    rolled = _roll_left(safe, lead)
    r = _companion_roots(rolled)
    _, r = lax.sort_key_val(uf.equal(r, 0), r)
    keep = arange(n - 1) < (n - 1) - lead
    return _where(keep, r, lax.full((), complex(np.nan, np.nan), cdt))


def _roll_left(p, k):
    """``p`` rolled left by the (possibly traced) ``k``: ``p[(i + k) % n]``."""
    n = p.shape[0]
    idx = uf.remainder(arange(n) + k, n)
    return p[idx]


__all__ = ["polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint", "poly",
           "polyfit", "roots"]
