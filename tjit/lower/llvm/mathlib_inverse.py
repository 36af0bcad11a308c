"""Inverse trigonometric and (inverse) hyperbolic functions for mathlib.

asin, acos, atan, sinh, cosh, asinh, acosh, atanh as straight-line LLVM IR, composed
from ``mathlib``'s atan2, expm1, exp, log1p and log with identities free of
cancellation (no new polynomials), in the operand's own precision. (float32 in double,
as erf and pow do it, gave 0.5 ulp but ran 3x slower than NumPy's SIMD float32
functions, which are themselves up to 2.5 ulp off; in float32 these stay within 2.7 ulp
at NumPy's speed.) Their accuracy is in mathlib's table; ``mathlib.emit_math`` serves
them.
"""

from tjit.lower.llvm.mathlib import _LN2, _atan2, _exp, _expm1, _log, _log1p, _rnd

__all__ = ["UNARY"]


def _ln2_plus_log(o, ax):
    """log(2 ax): the large-|x| form of asinh/acosh (ax^2 would overflow)."""
    return o.add(_log(o, ax), _rnd(_LN2, o.is64))


def _atan(o, x):
    return _atan2(o, x, o.c(1.0))


def _asin(o, x):
    # atan2(x, sqrt(1 - x^2)); (1 - x)(1 + x) loses nothing near |x| = 1 (1 - |x| exact
    # there); |x| > 1 gives sqrt(< 0) = NaN
    return _atan2(o, x, o.sqrt(o.mul(o.sub(1.0, x), o.add(1.0, x))))


def _acos(o, x):
    # 2 atan2(sqrt(1 - x), sqrt(1 + x)): the half angle keeps acos(x ~ 1) (a small
    # result) accurate; |x| > 1 gives NaN through one sqrt
    return o.mul(_atan2(o, o.sqrt(o.sub(1.0, x)), o.sqrt(o.add(1.0, x))), 2.0)


def _sinh(o, x):
    # sinh|x| = (t + t / (t + 1)) / 2, t = expm1|x| (both terms >= 0: no cancellation;
    # tiny x: t = x). Near overflow (|x| > 700 / 88) expm1 is inf: (w/2) * w,
    # w = exp(|x|/2).
    ax = o.fabs(x)
    t = _expm1(o, ax)
    small = o.mul(o.add(t, o.div(t, o.add(t, 1.0))), 0.5)
    w = _exp(o, o.mul(ax, 0.5))
    big = o.mul(o.mul(w, 0.5), w)
    return o.copysign(o.sel(o.cmp(">", ax, 700.0 if o.is64 else 88.0), big, small), x)


def _cosh(o, x):
    # e/2 + 1/(2e), e = exp|x|: e's error cancels to first order near x = 0
    ax = o.fabs(x)
    e = _exp(o, ax)
    small = o.add(o.mul(e, 0.5), o.div(0.5, e))
    w = _exp(o, o.mul(ax, 0.5))
    big = o.mul(o.mul(w, 0.5), w)
    return o.sel(o.cmp(">", ax, 700.0 if o.is64 else 88.0), big, small)


def _asinh(o, x):
    # asinh|x| = log1p(a + a^2 / (1 + sqrt(1 + a^2))) (= log(a + sqrt(1 + a^2)) without
    # its cancellation for small a); a > 2^28 (float32: 2^13): log(2a) (1 below an ulp
    # of a^2, which would overflow first)
    ax = o.fabs(x)
    a2 = o.mul(ax, ax)
    r = _log1p(o, o.add(ax, o.div(a2, o.add(o.sqrt(o.add(a2, 1.0)), 1.0))))
    r = o.sel(o.cmp(">", ax, 2.0 ** (28 if o.is64 else 13)), _ln2_plus_log(o, ax), r)
    return o.copysign(r, x)


def _acosh(o, x):
    # acosh(x) = log1p(t + sqrt(t (t + 2))), t = x - 1 (exact for x <= 2): accurate near
    # 1; x > 2^28 (float32: 2^13): log(2x); x < 1 (or NaN): NaN
    t = o.sub(x, 1.0)
    r = _log1p(o, o.add(t, o.sqrt(o.mul(t, o.add(t, 2.0)))))
    r = o.sel(o.cmp(">", x, 2.0 ** (28 if o.is64 else 13)), _ln2_plus_log(o, x), r)
    return o.sel(o.ucmp("<", x, 1.0), float("nan"), r)


def _atanh(o, x):
    # atanh|x| = log1p(2a / (1 - a)) / 2, with 2a / (1 - a) written 2a + 2a^2 / (1 - a)
    # below 1/2 (the division's rounding then lands on the small term: fdlibm's split);
    # a = 1: inf; a > 1: log1p(< -1) = NaN
    ax = o.fabs(x)
    a2 = o.add(ax, ax)
    om = o.sub(1.0, ax)
    u = o.sel(o.cmp("<", ax, 0.5), o.fma(a2, o.div(ax, om), a2), o.div(a2, om))
    return o.copysign(o.mul(_log1p(o, u), 0.5), x)


#: name -> emitter ``f(ops, x)``
UNARY = {"atan": _atan, "asin": _asin, "acos": _acos, "sinh": _sinh, "cosh": _cosh,
         "asinh": _asinh, "acosh": _acosh, "atanh": _atanh}
