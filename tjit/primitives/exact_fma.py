"""``a * b + c`` rounded once (IEEE 754 fusedMultiplyAdd) on arrays, for the ``fma``
primitive's reference impl and so the kernel IR's ``fma`` op (``kernel_semantics``).

Python 3.11 has no ``math.fma`` and NumPy no fma ufunc; both ways here are exact:

* float32: ``a * b`` is exact in float64 (48 bits), and ``p + c`` is exact as a float64
  pair (TwoSum). Rounding that sum to float64 and then to float32 would round twice
  (``fma(1 + 2**-18, 2**-24 (1 - 2**-18), 1 + 2**-23)`` lands on a float32 midpoint and
  ties to the wrong side), so the float64 step rounds to odd, which makes the second
  rounding the one correct rounding (Boldo and Melquiond: any precision >= p + 2).
* float64: the product as an exact pair (Dekker's TwoProduct, Veltkamp's split), then
  the three-term sum correctly rounded by Boldo and Melquiond's emulated FMA: ``th + tl
  = c + uh`` (TwoSum), ``v = tl + ul`` rounded to odd, ``z = th + v`` (IEEE Trans.
  Comput. 57(4), 2008). That holds where nothing overflows or underflows: elements
  outside those bounds (huge or tiny products, rare) are done with exact rationals.

Non-finite operands follow IEEE fma: NaN propagates, ``inf * 0`` is NaN, and a finite
``a * b`` plus an infinite ``c`` is ``c`` even where ``a * b`` alone overflows.
"""

from fractions import Fraction
import math

import numpy as np

# float64 bounds of the vectorized way: the split of |a|, |b| <= 2**995 stays finite, the
# sums below 2**1020 do not overflow, and a product of at least 2**-960 has its exact
# rounding error (down to 2**-1066) representable without underflow.
_SPLIT_MAX, _SUM_MAX, _PRODUCT_MIN = 2.0 ** 995, 2.0 ** 1020, 2.0 ** -960
_VELTKAMP = 134217729.0     # 2**27 + 1
# a float64's low 29 significand bits (those a float32 drops), half of their range, and
# the smallest normal float32
_LOW29, _HALF29, _F32_NORMAL = (1 << 29) - 1, 1 << 28, 2.0 ** -126


def fma(xp, a, b, c):
    """``a * b + c`` rounded once, elementwise (operands of one float32/float64 dtype,
    equal shapes or rank 0)."""
    a, b, c = (xp.asarray(v) for v in (a, b, c))
    dtype = a.dtype
    # (rank-0 operands broadcast in the arithmetic itself; only the result, and the
    # rare exact-rational lane, need the common shape: broadcast_arrays costs ~5 us)
    if dtype == np.float32:
        out = _fma_by_float64(xp, a, b, c)
    else:
        out = _fma_float64(xp, a, b, c)
    if not a.shape == b.shape == c.shape:
        shape = max(a.shape, b.shape, c.shape, key=len)
        if out.shape != shape:   # (the product's error comes in the product's shape)
            out = xp.broadcast_to(out, shape).copy()
    return out


def _all(xp, mask):
    """``mask.all()`` as a bool, by a count (a quarter of a reduction's cost on the few
    elements of an eager call)."""
    return bool(xp.count_nonzero(mask) == mask.size)


def _two_sum(x, y):
    """(s, e): s = x + y rounded, s + e = x + y exactly (Knuth)."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


def _round_to_odd(xp, s, e):
    """``s + e`` (s = that sum rounded to nearest, ``e`` its exact error) rounded to odd:
    s when exact; else the truncation towards zero (s, or its neighbour below in
    magnitude where s rounded away from zero) with its last significand bit set. On the
    bits, as integers: the neighbour is one less. (NaN and inf pass: their e is NaN.)"""
    bits = s.view(xp.int64)
    inexact = xp.abs(e) > 0
    away = inexact & (xp.signbit(e) != xp.signbit(s))
    return ((bits - away) | inexact).view(s.dtype)


def _fma_by_float64(xp, a, b, c):
    """float32 operands: the exact product in float64, plus c rounded there. Rounding
    that to float32 rounds twice, which can go wrong only where the float64 sum is not
    a float32 already (the product's own error, the common use, always is, unless it
    underflows) and is a float32 midpoint (its low 29 significand bits 1000...0) or below
    float32's normals (midpoints elsewhere): then the sum is rounded to odd instead."""
    p = a.astype(np.float64) * b
    s = p + c
    out = s.astype(np.float32)
    if _all(xp, out == s):
        return out      # one rounding, exact (NaN compares false: it takes the test)
    bits = s.view(xp.int64)
    risky = ((bits & _LOW29) == _HALF29) | ((xp.abs(s) < _F32_NORMAL) & (s != 0))
    if bool(risky.any()):
        out = _round_to_odd(xp, *_two_sum(p, c.astype(np.float64))).astype(np.float32)
    return out


def _two_product(a, b):
    """(p, e): p = a * b rounded, p + e = a * b exactly (Dekker), where the splits do
    not overflow (e is NaN where one does) and e does not underflow."""
    def split(x):
        t = x * _VELTKAMP
        hi = t - (t - x)
        return hi, x - hi
    a_hi, a_lo = split(a)
    p = a * b
    if b is a:      # (a square: one split)
        cross = a_hi * a_lo
        return p, ((a_hi * a_hi - p) + (cross + cross)) + a_lo * a_lo
    b_hi, b_lo = split(b)
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _fma_float64(xp, a, b, c):
    uh, ul = _two_product(a, b)
    if _all(xp, c == -uh):
        # fma(a, b, -(a*b)), the product's own rounding error (every use): Dekker's ul
        # exactly where |uh| is in [2**-960, 2**1020] (nothing in it underflows or
        # overflows) and no split overflowed (one that does leaves NaN in ul, so in
        # uh + ul, which is uh elsewhere: |ul| <= half an ulp of uh); and exactly
        # a*b + c where a factor is 0 (that product is exact; the sum keeps IEEE's
        # signs of zero: c == -uh holds for c = -0 == uh too)
        size = xp.abs(uh + ul)
        ok = (size >= _PRODUCT_MIN) & (size <= _SUM_MAX)
        if _all(xp, ok):
            return ul
        zero = (a == 0) | (b == 0)
        if _all(xp, ok | zero):
            return xp.where(zero, uh + c, ul)
    # (NaN compares false: "fine" also says finite)
    auh = xp.abs(uh)
    fine = ((xp.abs(a) <= _SPLIT_MAX) & (xp.abs(b) <= _SPLIT_MAX) & (xp.abs(c) <= _SUM_MAX)
            & (auh <= _SUM_MAX) & (auh >= _PRODUCT_MIN))
    th, tl = _two_sum(c, uh)
    z = th + _round_to_odd(xp, *_two_sum(tl, ul))
    if _all(xp, fine):
        return z
    a, b, c = xp.broadcast_arrays(a, b, c)
    finite = xp.isfinite(a) & xp.isfinite(b) & xp.isfinite(c)
    zero_factor = (a == 0) | (b == 0)
    # a * b exact (a zero factor: the signs of zero as a * b + c), else IEEE's specials;
    # a finite a * b plus an infinite c is c, even where a * b alone overflows
    plain = a * b + c
    plain = xp.where(xp.isfinite(a) & xp.isfinite(b) & xp.isinf(c), c, plain)
    out = xp.where(fine, z, plain)
    rare = finite & ~fine & ~zero_factor
    if bool(rare.any()):
        out = _exact_where(xp, out, rare, a, b, c)
    return out


def _exact_where(xp, out, mask, a, b, c):
    """``out`` with the elements at ``mask`` replaced by exact rational fmas."""
    idx = xp.nonzero(mask.reshape(-1))[0]
    vals = [_exact_one(x, y, z) for x, y, z in zip(
        a.reshape(-1)[idx].tolist(), b.reshape(-1)[idx].tolist(),
        c.reshape(-1)[idx].tolist())]
    out = out.reshape(-1).copy()
    out[idx] = xp.asarray(vals, dtype=out.dtype)
    return out.reshape(a.shape)


def _exact_one(a, b, c):
    """fma of finite Python floats with a * b != 0, by exact rationals (int / int
    division rounds correctly, subnormals and the sign of an underflow included)."""
    s = Fraction(a) * Fraction(b) + Fraction(c)
    if s == 0:
        return 0.0      # exact cancellation of nonzero terms: +0 when rounding to nearest
    try:
        return float(s)
    except OverflowError:
        return math.inf if s > 0 else -math.inf
