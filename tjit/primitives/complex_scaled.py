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
costs a few reductions and no full-size temporary: ``quotients_need_no_rescue`` screens
NumPy's quotients and the denominator with two, and ``sign`` the parts' magnitudes
(written where its result will go) with two. Below ``SMALL`` elements the screens test
element by element instead: there a reduction's fixed cost (~1 us) outweighs the
temporaries, and the operation itself costs well under 1 us; there the division's and
sign's screens first try sufficient tests in fewer calls (finite sums of squared
magnitudes by ``vdot``; for sign also the parts' least exponent), which pass ordinary
operands.
"""

import functools
import math

import numpy as np

# Below this many elements the screens test elementwise (temporaries are cheap there);
# from it on they reduce over the parts' flat view (no full-size temporary).
SMALL = 1024


def _larger_part(xp, z):
    return xp.maximum(xp.abs(z.real), xp.abs(z.imag))


def _scale(xp, z, e):
    """``z * 2**e`` part by part (exact unless a part leaves the range)."""
    out = xp.empty(z.shape, z.dtype)
    out.real = xp.ldexp(z.real, e)
    out.imag = xp.ldexp(z.imag, e)
    return out


def _exponent(xp, v):
    return xp.frexp(v)[1]


def _flat_parts(z):
    """The parts of a contiguous complex ``z`` as one flat float view (no copy), or None
    where ``z``'s memory is strided."""
    if not (z.flags.c_contiguous or z.flags.f_contiguous):
        return None
    return z.reshape(-1, order="C" if z.flags.c_contiguous else "F").view(z.real.dtype)


def _all_finite(xp, z):
    """Whether every part of ``z`` is finite: elementwise below ``SMALL`` elements, else
    by one sum over its parts (a sum that overflows answers no: the caller's exact tests
    decide)."""
    parts = _flat_parts(z) if z.size >= SMALL else None
    if parts is None:
        return bool(xp.isfinite(z).all())
    return bool(xp.isfinite(xp.sum(parts)))


def _no_part_above(xp, z, hi):
    """Whether no part of ``z`` exceeds ``hi`` (>= sqrt(max)) in magnitude, nor is NaN.
    Below ``SMALL`` elements by the parts' largest magnitude (NaN propagates through the
    max). Above, first by the sum of the parts' squares, one pass that is finite only if
    every part is below ``sqrt(max)`` (einsum's own loop: NumPy's dot would wake BLAS's
    threads, ~8 ms of CPU per million), then, where that overflows, by the parts' max
    and min (no temporaries)."""
    flat = _flat_parts(z)
    if flat is not None and z.size < SMALL:
        return bool(xp.abs(flat).max() <= hi)
    if flat is not None and bool(xp.isfinite(xp.einsum("i,i", flat, flat))):
        return True
    parts = (flat,) if flat is not None else (z.real, z.imag)
    return all(bool(v.max() <= hi) and bool(v.min() >= -hi) for v in parts)


@functools.lru_cache(maxsize=None)
def _plain_range(real):
    fi = np.finfo(real)
    lo = real.type(2.0 ** (fi.minexp + 2))  # 1 / (d + c*r) overflows below about this
    hi = real.type(2.0 ** (fi.maxexp - 3))  # ... is subnormal / a*r + b overflows above
    return lo, hi


def quotients_need_no_rescue(xp, y, q):
    """Whether NumPy's quotients ``q`` (of some ``x / y``) are all finite and no part of
    ``y`` is huge: then ``q`` is right to rounding (an overflowing ``1 / (d + c*r)`` or
    ``a*r + b`` leaves a quotient non-finite; only a huge denominator leaves one finite
    and inexact), and neither ``rescale_quotients`` nor a recovery of infinities has
    anything to do. Two reductions in the common case, no full-size temporary."""
    if q.size == 0:
        return True
    if q.size < SMALL and _squares_finite(xp, q, y):
        return True
    _, hi = _plain_range(q.real.dtype)
    return _all_finite(xp, q) and _no_part_above(xp, y, hi)


def _squares_finite(xp, q, y):
    """Whether the sums of the squared magnitudes of ``q`` and of ``y`` are finite: then
    every part of ``q`` is finite and every part of ``y`` is below ``sqrt(max)``, so the
    tests of ``quotients_need_no_rescue`` pass. A sufficient screen for few elements,
    two calls of ``vdot`` (complex64 ``x / y`` on 8 elements: 5.6 -> 3.2 us of CPU, JAX
    4.3); a NaN or an overflowing sum answers no and the exact tests decide. Each sum is
    tested alone (adding them could overflow, with a warning); the real part of ``vdot(v,
    v)`` is the sum of the squares of the parts. (Not on many elements: BLAS's dot may
    wake its threads there.)"""
    return (math.isfinite(float(xp.vdot(q, q).real))
            and math.isfinite(float(xp.vdot(y, y).real)))


def rescale_quotients(xp, x, y, q):
    """``q`` (NumPy's ``x / y``, complex, broadcast shape) with the quotients of finite
    operands whose denominator or numerator is near the ends of the range recomputed
    from operands scaled to [0.5, 1). For quotients that ``quotients_need_no_rescue``
    did not pass (it is not asked again)."""
    lo, hi = _plain_range(q.real.dtype)
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


@functools.lru_cache(maxsize=None)
def _sign_range(real):
    """``lo, hi`` and ``lo``'s bits: where the larger part's magnitude ``m`` lies in [lo,
    hi], ``z / |z|`` is right to rounding (``|z|``, in [m, m * sqrt(2)], is a normal
    number that does not overflow). Outside it ``|z|`` is subnormal (complex64
    ``sign(1e-45 + 1e-45j)`` was ``1 + 1j``) or infinite (``sign(1.7e308 + 1.7e308j)``
    was ``0 + 1j``)."""
    fi = np.finfo(real)
    lo, hi = real.type(2.0 ** (fi.minexp + 5)), real.type(2.0 ** (fi.maxexp - 2))
    return lo, hi, int(np.asarray(lo).view(f"u{real.itemsize}"))


def _parts_zero_or_in(mags, hi, lo_bits):
    """Whether every value of ``mags`` (magnitudes, flat; overwritten) is 0 or in [lo,
    hi] (``lo`` given by its bits), by two reductions; a NaN answers no. The bits of a
    nonnegative float order as its value does, so ``bits - 1`` (unsigned: 0 wraps to the
    top) puts exactly the nonzero values below ``lo`` under ``lo_bits - 1``."""
    if not bool(mags.max() <= hi):
        return False
    bits = mags.view(f"u{mags.dtype.itemsize}")
    bits -= 1
    return bool(bits.min() >= lo_bits - 1)


def _parts_quick_in(xp, z, flat):
    """Whether the sum of the squared magnitudes of ``z`` (``flat``: its parts) is finite
    and no part's exponent is below ``lo``'s: then every part is 0 or in [lo, hi] (each
    below ``sqrt(max)``; a zero's exponent is 0), as ``_parts_zero_or_in`` asks. A
    sufficient screen for few elements, in fewer calls (complex64 ``sign`` on 8
    elements: 6.6 -> 6.0 us of CPU); a NaN, an infinity or an overflowing sum answers no
    and the exact screen decides."""
    return (math.isfinite(float(xp.vdot(z, z).real))
            and int(xp.frexp(flat)[1].min()) >= _lowest_exponent(flat.dtype))


@functools.lru_cache(maxsize=None)
def _lowest_exponent(real):
    """frexp's exponent of ``_sign_range``'s ``lo`` = 2**(minexp + 5) = 0.5 * 2**(minexp +
    6), the least of the parts it passes."""
    return np.finfo(real).minexp + 6


def sign(xp, z):
    """``z / |z|`` for complex ``z`` (NumPy 2's and JAX's sign; 0 at 0), with finite
    nonzero ``z`` whose ``|z|`` would be subnormal or overflow scaled to [0.5, 1) first."""
    z = xp.asarray(z)
    if z.size == 0:
        return xp.sign(z)
    lo, hi, lo_bits = _sign_range(z.real.dtype)
    # the screen: every part 0 or in [lo, hi] (then so is each element's larger part, or
    # both parts are 0); on few elements the parts' magnitudes are a temporary, on many
    # they are written where the result will go
    flat = _flat_parts(z)
    if flat is not None and z.size < SMALL:
        if _parts_quick_in(xp, z, flat) or _parts_zero_or_in(xp.abs(flat), hi, lo_bits):
            return xp.sign(z)
        out = xp.empty_like(z)
    else:
        out = xp.empty_like(z) if flat is not None else xp.empty(z.shape, z.dtype)
        if flat is not None:
            xp.abs(flat, out=_flat_parts(out))
        else:
            xp.abs(z.real, out=out.real)
            xp.abs(z.imag, out=out.imag)
        if _parts_zero_or_in(_flat_parts(out), hi, lo_bits):
            return xp.sign(z, out=out)
    m = _larger_part(xp, z)
    rescue = (m > 0) & xp.isfinite(m) & ((m < lo) | (m > hi))
    xp.sign(z, out=out)
    out[rescue] = xp.sign(_scale(xp, z[rescue], -_exponent(xp, m[rescue])))
    return out


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
