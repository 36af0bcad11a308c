"""Complex division and sign at the ends of the exponent range, by power-of-two scaling.

NumPy's complex division is Smith's algorithm through the reciprocal of the denominator,
``(a*r + b) * (1 / (d + c*r))``, in the operands' own precision. That reciprocal
overflows for a denominator below ``1 / max`` (``1 / 1e-310j`` was ``nan - inf j``, and
``z / z`` of a subnormal complex64 ``inf + nan j``), is subnormal and loses digits for
one above ``2**(emax - 2)``, and ``a*r + b`` overflows for a numerator near ``max``
(``(max + max j) / (1 + 1j)`` was ``inf``; right: ``max + 0j``). Its complex sign,
``z / |z|``, rounds ``|z|`` to a subnormal for tiny ``z`` (complex64 ``sign(1e-45 +
1e-45j)`` was ``1 + 1j``, whose magnitude is not 1).

Both are redone here on the elements at risk only, with each operand scaled by a power
of two (exact) so that its larger part lies in [0.5, 1), and the quotient scaled back
once at the end (one rounding, where the result is itself subnormal). The common case
costs a few comparisons.
"""

import numpy as np


def _larger_part(xp, z):
    return xp.maximum(xp.abs(z.real), xp.abs(z.imag))


def _scale(xp, z, e):
    """``z * 2**e`` part by part (exact unless a part leaves the range)."""
    out = xp.empty(z.shape, z.dtype)
    out.real = xp.ldexp(z.real, e)
    out.imag = xp.ldexp(z.imag, e)
    return out


def _has_part_above(xp, z, hi):
    """Whether a part of ``z`` may exceed ``hi`` in magnitude, by reductions over the
    parts' views (no temporaries); a NaN answers yes (the elementwise test decides)."""
    parts = (z.reshape(-1).view(z.real.dtype),) if z.flags.c_contiguous else (z.real, z.imag)
    return not all(bool(v.max() <= hi) and bool(v.min() >= -hi) for v in parts)


def _exponent(xp, v):
    return xp.frexp(v)[1]


def rescale_quotients(xp, x, y, q):
    """``q`` (NumPy's ``x / y``, complex, broadcast shape) with the quotients of finite
    operands whose denominator or numerator is near the ends of the range recomputed
    from operands scaled to [0.5, 1)."""
    real = np.dtype(q.real.dtype)
    fi = np.finfo(real)
    lo = real.type(2.0 ** (fi.minexp + 2))  # 1 / (d + c*r) overflows below about this
    hi = real.type(2.0 ** (fi.maxexp - 3))  # ... is subnormal / a*r + b overflows above
    # the common case in a pass and four reductions: an overflowing 1 / (d + c*r) or
    # a*r + b leaves q non-finite; only a huge denominator leaves it finite (and inexact)
    if q.size == 0 or (xp.isfinite(q).all() and not _has_part_above(xp, y, hi)):
        return q
    mx, my = _larger_part(xp, x), _larger_part(xp, y)
    risky = (my > 0) & xp.isfinite(my) & xp.isfinite(mx) & ((my < lo) | (my > hi) | (mx > hi))
    if not risky.any():
        return q
    x, y, risky = (xp.broadcast_to(v, q.shape) for v in (x, y, risky))
    xs, ys = x[risky], y[risky]
    ex, ey = _exponent(xp, _larger_part(xp, xs)), _exponent(xp, _larger_part(xp, ys))
    redone = xp.true_divide(_scale(xp, xs, -ex), _scale(xp, ys, -ey))
    out = q.copy()
    out[risky] = _scale(xp, redone, ex - ey)
    return out


def sign(xp, z):
    """``z / |z|`` for complex ``z`` (NumPy 2's and JAX's sign; 0 at 0), with finite
    nonzero ``z`` scaled to [0.5, 1) first so that ``|z|`` is a normal number."""
    # |z| is a normal number (and z / |z| right to rounding) unless z is tiny
    small = xp.abs(z) < np.finfo(z.real.dtype).tiny * 2 ** 5
    if not small.any():
        return xp.sign(z)
    z = z.copy()
    zs = z[small]
    m = _larger_part(xp, zs)
    z[small] = _scale(xp, zs, xp.where(m > 0, -_exponent(xp, m), 0))
    return xp.sign(z)


def recover_powers(xp, x, y, p):
    """``p`` (NumPy's ``x ** y``, complex) with the NaNs it gives for a NaN-free base and
    a real exponent replaced by ``exp(y * log(x))``, its product taken part by part.
    NumPy multiplies ``(y + 0j) * log(x)`` as complex numbers, and ``0 * inf`` makes
    ``(inf + 0j) ** 0.5`` ``inf + nan j`` and ``(inf + 0j) ** -1.0`` ``nan + nan j``
    (right: ``inf``, ``0``); its integer exponents multiply out, and an intermediate
    overflow makes complex64 ``(1e38j) ** -2.0`` ``nan + nan j`` (right: ``-0``). C99's
    ``cexp`` gives the infinities and signed zeros (``(-inf + 0j) ** 2.5`` is ``inf + inf
    j``, an infinity as C99 counts them). Answers NumPy gives as numbers are kept;
    ``y == 0`` keeps NumPy's 1."""
    if not xp.isnan(p).any():
        return p
    x, y = (xp.broadcast_to(v, p.shape) for v in (x, y))
    yr = y.real
    lost = (xp.isnan(p.real) | xp.isnan(p.imag)) & ~xp.isnan(x) & (y.imag == 0) & \
        (yr != 0) & xp.isfinite(yr)
    if not lost.any():
        return p
    lg = xp.log(x[lost])
    t = yr[lost]
    w = xp.empty(lg.shape, lg.dtype)
    w.real = t * lg.real
    w.imag = t * lg.imag
    out = p.copy()
    out[lost] = xp.exp(w)
    return out
