"""Elementwise primitives: math functions, arithmetic, comparisons, bitwise ops,
select_n, clamp, and dtype conversions.

Semantics follow XLA/``jax.lax`` where they differ from NumPy:

* integer ``div`` truncates toward zero; ``x / 0`` is -1 for signed and the all-ones
  value (the max) for unsigned integers; ``INT_MIN / -1`` is ``INT_MIN``;
* integer ``rem`` has the dividend's sign; ``x rem 0`` is ``x``;
* shifts by an amount outside ``[0, bits)`` (negative amounts included, as XLA reads
  the amount as unsigned) give 0, or the sign fill for ``shift_right_arithmetic``;
* float->int ``convert_element_type`` saturates and maps NaN to 0;
* ``round`` rounds half away from zero unless ``rounding_method=ROUND_TO_NEAREST_EVEN``;
* ``integer_pow`` multiplies out by squaring, as XLA, but never overflows or underflows
  where ``x**y`` does not, and float32 computes in float64 (``_integer_pow_expand``);
* complex ``div``, ``sign`` and ``pow`` are NumPy's, redone where NumPy's formulas
  overflow or give NaN for finite or limiting answers (``complex_scaled.py``);
* ``max``/``min`` (and ``clamp``, the max/min reductions and cummax/cummin) propagate
  NaN and order -0.0 below +0.0 (IEEE 754-2019 maximum/minimum): max(+0, -0) is +0 in
  either operand order, where NumPy returns its second operand;
* floating-point exceptions (``log(-1)``, ``1/0``, overflow) give NaN/inf silently:
  impls run with NumPy's floating-point warnings off, as JAX never warns.
"""

import functools

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray, aval_of_value
from tjit.tracing.core import Tracer, never_weak
from tjit.primitives import base, complex_scaled, digamma_reference, float8_round, ieee_minmax
from tjit.primitives.base import (
    ANY, FLOAT, INT, INT_OR_BOOL, NUMBER, REAL_FLOAT, check_dtype_kind, new_primitive,
    same_dtypes, same_shapes)
from tjit.primitives.erf_inv_expansion import erf_inv_float32, erf_inv_lowering
from tjit.primitives.lgamma_near_zeros import HIGH, LOW, lgamma_near_zeros
from tjit.tracing.fp_quiet import quiet as _quiet
from tjit.tracing.fp_quiet import quiet_call as _quiet_call


def unop(name, impl, kind=NUMBER, result_dtype=None):
    """:func:`base.unop` whose impl checks its operand and never warns."""
    p = base.unop(name, impl, kind, result_dtype)
    p.def_impl(base.declared_dtype_impl(_quiet(impl), result_dtype))
    return p


def binop(name, impl, kind=NUMBER, result_dtype=None):
    """:func:`base.binop` whose impl checks its operands and never warns."""
    p = base.binop(name, impl, kind, result_dtype)
    p.def_impl(base.declared_dtype_impl(_quiet(impl), result_dtype))
    return p


def special(xp):
    """scipy.special for NumPy values (cupyx.scipy.special for CuPy)."""
    if xp is np:
        import scipy.special
        return scipy.special
    import cupyx.scipy.special  # pragma: no cover - GPU only
    return cupyx.scipy.special


def _same(xp, out, x):
    out = xp.asarray(out)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


# -- unary math ----------------------------------------------------------------------------
neg_p = unop("neg", lambda xp, x: xp.negative(x))
_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}
abs_p = unop("abs", lambda xp, x: xp.abs(x), result_dtype=lambda dt: _REAL_OF.get(dt, dt))
abs_p.def_weak_type(lambda w, **_: w)
sign_p = unop("sign", lambda xp, x: _same(xp, complex_scaled.sign(xp, x) if
                                         dtypes.is_complex(x.dtype) else xp.sign(x), x))
floor_p = unop("floor", lambda xp, x: xp.floor(x), kind=REAL_FLOAT)
ceil_p = unop("ceil", lambda xp, x: xp.ceil(x), kind=REAL_FLOAT)
is_finite_p = unop("is_finite", lambda xp, x: xp.isfinite(x), kind=REAL_FLOAT,
                   result_dtype=lambda dt: dtypes.bool_)
is_finite_p.def_weak_type(lambda w, **_: w)  # (a weak bool for a weak input, as JAX's)

ROUND_AWAY_FROM_ZERO, ROUND_TO_NEAREST_EVEN = 0, 1


def _round_impl(xp, x, rounding_method=ROUND_AWAY_FROM_ZERO):
    if rounding_method == ROUND_TO_NEAREST_EVEN:
        return _same(xp, xp.rint(x), x)
    # trunc, then step away from zero when the dropped fraction is >= 1/2. (Adding 0.5
    # and flooring is wrong for 0.49999997 and for odd integers above 2**23.)
    t = xp.trunc(x)
    away = xp.abs(x - t) >= x.dtype.type(0.5)
    return _same(xp, xp.where(away, t + xp.copysign(x.dtype.type(1), x), t), x)


round_p = unop("round", _round_impl, kind=REAL_FLOAT)

exp_p = unop("exp", lambda xp, x: xp.exp(x), kind=FLOAT)
exp2_p = unop("exp2", lambda xp, x: xp.exp2(x), kind=FLOAT)


def _expm1_impl(xp, x):
    if not dtypes.is_complex(x.dtype):
        return xp.expm1(x)
    # e^(a+bi) - 1 = (expm1(a) cos b - 2 sin^2(b/2)) + i e^a sin b: accurate near 0 (away
    # from it e^a cos b - 1, exactly -1 at a = -inf), and an imaginary part of +-0 stays
    # exact (C99 Annex G / the Array API: expm1(+inf+0j) is +inf+0j, expm1(nan+0j) is
    # nan+0j; NumPy's complex expm1 gives nan imaginary parts there)
    x = xp.asarray(x)
    a, b = x.real, x.imag
    out = xp.empty(x.shape, x.dtype)
    # + 0: e^z is exactly 1 at z = -0 +- 0j, so the real part is +0 (the Array API's
    # expm1(+-0 + 0j) = +0 + 0j), where real expm1(-0) * 1 - 0 would give -0
    near_zero = xp.expm1(a) * xp.cos(b) - 2 * xp.sin(b / 2) ** 2 + 0
    out.real = xp.where(xp.abs(a) < 1, near_zero, xp.exp(a) * xp.cos(b) - 1)  # -inf: -1
    out.imag = xp.where(b == 0, b, xp.exp(a) * xp.sin(b))
    return out


expm1_p = unop("expm1", _expm1_impl, kind=FLOAT)
log_p = unop("log", lambda xp, x: xp.log(x), kind=FLOAT)


def _log1p_impl(xp, x):
    if not dtypes.is_complex(x.dtype):
        return xp.log1p(x)
    # NumPy's complex log1p is log|1 + z| through hypot(1 + a, b), which loses a small z's
    # real part (log1p(1e-10j) had real part 0, log1p(1e-4) in complex64 4 digits); near
    # 0 log|1 + z| = log1p(a (2 + a) + b^2) / 2 keeps them (as JAX's log1p does)
    x = xp.asarray(x)
    a, b = x.real, x.imag
    out = xp.empty(x.shape, x.dtype)
    near = (abs(a) < 0.5) & (abs(b) < 0.5)  # no overflow of the squares, no big cancellation
    # away from 0, complex log's real part: it scales |1 + z| (hypot(1 + a, b) overflowed
    # past max/sqrt(2): complex64 log1p(3e38 + 3e38j) had real part inf, true 89.01)
    far = xp.log(1 + x).real
    out.real = xp.where(near, xp.log1p(a * (2 + a) + b * b) / 2, far)
    out.imag = xp.arctan2(b, 1 + a)
    return out


log1p_p = unop("log1p", _log1p_impl, kind=FLOAT)
sqrt_p = unop("sqrt", lambda xp, x: xp.sqrt(x), kind=FLOAT)
def _reciprocal(xp, x):
    """1 / x; complex through div_p's impl (scaled, and 1 / (inf + inf j) = 0, where
    NumPy's complex division gives nan)."""
    return _div_impl(xp, xp.ones_like(x), x) if dtypes.is_complex(x.dtype) else 1 / x


rsqrt_p = unop("rsqrt", lambda xp, x: _same(xp, _reciprocal(xp, xp.sqrt(x)), x), kind=FLOAT)
cbrt_p = unop("cbrt", lambda xp, x: xp.cbrt(x), kind=REAL_FLOAT)
tanh_p = unop("tanh", lambda xp, x: xp.tanh(x), kind=FLOAT)


def _logistic_impl(xp, x):
    if dtypes.is_complex(x.dtype):
        return _same(xp, _reciprocal(xp, 1 + xp.exp(-x)), x)  # logistic(-1000+1j) = 0
    # Stable for large |x|: exp of a non-positive number only.
    e = xp.exp(-xp.abs(x))
    one = x.dtype.type(1)
    return _same(xp, xp.where(x >= 0, one / (one + e), e / (one + e)), x)


logistic_p = unop("logistic", _logistic_impl, kind=FLOAT)
sin_p = unop("sin", lambda xp, x: xp.sin(x), kind=FLOAT)
cos_p = unop("cos", lambda xp, x: xp.cos(x), kind=FLOAT)
tan_p = unop("tan", lambda xp, x: xp.tan(x), kind=FLOAT)
asin_p = unop("asin", lambda xp, x: xp.arcsin(x), kind=FLOAT)
acos_p = unop("acos", lambda xp, x: xp.arccos(x), kind=FLOAT)
atan_p = unop("atan", lambda xp, x: xp.arctan(x), kind=FLOAT)
sinh_p = unop("sinh", lambda xp, x: xp.sinh(x), kind=FLOAT)
cosh_p = unop("cosh", lambda xp, x: xp.cosh(x), kind=FLOAT)
asinh_p = unop("asinh", lambda xp, x: xp.arcsinh(x), kind=FLOAT)
acosh_p = unop("acosh", lambda xp, x: xp.arccosh(x), kind=FLOAT)
atanh_p = unop("atanh", lambda xp, x: xp.arctanh(x), kind=FLOAT)
erf_p = unop("erf", lambda xp, x: _same(xp, special(xp).erf(x), x), kind=REAL_FLOAT)


def _erfc(xp, x):
    """SciPy's erfc, except float64 x >= 1/2 on the CPU: ``exp(-x**2) erfcx(x)`` with
    ``x**2`` as an exact (Dekker) pair. SciPy's erfc takes exp of the rounded square (35-270
    ulps at x in 9..26, measured against mpmath), flushes to 0 from x = 26.55 (true
    values are denormals down to 27.2), and cancels in 1 - erf below 1 (9.8 ulps); this is
    within 6.5 ulps (SciPy's erfcx), the compiled kernel's algorithm within 3.5."""
    out = special(xp).erfc(x)
    if xp is not np or x.dtype != np.float64:
        return _same(xp, out, x)   # (float32: SciPy evaluates in double, then rounds)
    far = x >= 0.5
    a = np.where(far, np.minimum(x, 30.0), 1.0)      # erfc(30) = 0: the pair stays finite
    t = a * 134217729.0                              # 2**27 + 1: Dekker's split
    hi = t - (t - a)
    lo = a - hi
    sq = a * a
    err = ((hi * hi - sq) + (hi + hi) * lo) + lo * lo
    m = special(xp).erfcx(a)
    return np.where(far, np.exp(-sq) * (m - m * err), out)


erfc_p = unop("erfc", _erfc, kind=REAL_FLOAT)
# (erf_inv is odd: copysign gives erf_inv(-0) = -0, as JAX/XLA; SciPy returns +0.
# float32 is Giles' approximation, the one kernels compute: erf_inv_expansion.py)
erf_inv_p = unop("erf_inv", lambda xp, x: (
    erf_inv_float32(xp, x) if x.dtype == np.float32 and xp is np
    else _same(xp, xp.copysign(special(xp).erfinv(x), x), x)), kind=REAL_FLOAT)
def _lgamma(xp, x):
    out = special(xp).gammaln(x)
    # SciPy goes through 1/x and gives inf below 1/DBL_MAX (5.6e-309); the true value
    # there is -log|x| to within rounding (|gamma_E * x| < 2**-1000), as the kernels give.
    if x.dtype == np.float64:
        tiny = (xp.abs(x) < 2.0 ** -1000) & (x != 0)
        if bool(xp.any(tiny)):
            out = xp.where(tiny, -xp.log(xp.abs(x)), out)
    # next to the zeros at 1 and 2 SciPy loses the relative accuracy (lgamma_near_zeros)
    if xp is np and x.dtype in (np.float32, np.float64):
        near = (x >= LOW) & (x <= HIGH)
        if near.any():
            out = np.where(near, lgamma_near_zeros(x.astype(np.float64)), out)
    return _same(xp, out, x)


lgamma_p = unop("lgamma", _lgamma, kind=REAL_FLOAT)
# (the kernels' algorithm on NumPy: eager and jit agree; SciPy's digamma was 5e4+ ulps
# off next to the negative poles)
digamma_p = unop("digamma", lambda xp, x: (
    digamma_reference.digamma(x) if xp is np else _same(xp, special(xp).digamma(x), x)),
    kind=REAL_FLOAT)

real_p = unop("real", lambda xp, x: xp.real(x).copy(),
              kind=ANY, result_dtype=lambda dt: _REAL_OF.get(dt, dt))
imag_p = unop("imag", lambda xp, x: xp.imag(x).copy(),
              kind=ANY, result_dtype=lambda dt: _REAL_OF.get(dt, dt))
conj_p = unop("conj", lambda xp, x: _same(xp, xp.conj(x), x), kind=ANY)  # bool: NumPy gives int8
for _p in (real_p, imag_p):
    _p.def_weak_type(lambda w, **_: w)


class _XpOps:
    """The ops of :func:`_integer_pow_expand` on arrays (the reference impl)."""

    def __init__(self, xp):
        self.xp = xp

    def const(self, dt, v):
        return np.dtype(dt).type(v)

    def mul(self, a, b):
        return a * b

    def div(self, a, b):
        return _div_impl(self.xp, a, b)  # div_p's values (complex: 1 / (inf+inf j) = 0)

    def convert(self, a, dt):
        return self.xp.asarray(a).astype(dt)

    def abs(self, a):
        return self.xp.abs(a)

    def inside(self, a, lo, hi):
        return (a >= lo) & (a <= hi)

    def select(self, pred, on_true, on_false):
        return self.xp.where(pred, on_true, on_false)


class _HloOps:
    """The same ops as HLO-like instructions (the lowering)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def const(self, dt, v):
        return self.ctx.constant(v, dt)

    def mul(self, a, b):
        return self.ctx.elementwise("mul", [a, b])

    def div(self, a, b):
        return self.ctx.elementwise("div", [a, b])

    def convert(self, a, dt):
        return self.ctx.convert(a, dt)

    def abs(self, a):
        return self.ctx.elementwise("abs", [a])

    def inside(self, a, lo, hi):
        e = self.ctx.elementwise
        return e("and", [e("ge", [a, self.const(a.dtype, lo)]),
                         e("le", [a, self.const(a.dtype, hi)])])

    def select(self, pred, on_true, on_false):
        return self.ctx.elementwise("select", [pred, on_true, on_false], on_true.dtype)


def _pow_chain(ops, b, n):
    """b**n (n >= 1) by squaring, as XLA expands it: b, b*b, (b*b)*(b*b), ... multiplied
    into the result from the lowest set bit of n up."""
    acc = None
    while n:
        if n & 1:
            acc = b if acc is None else ops.mul(acc, b)
        n >>= 1
        if n:
            b = ops.mul(b, b)
    return acc


def _integer_pow_expand(ops, x, dt, y):
    """``x**y`` (``y != 0``) as one sequence of IEEE operations, shared by the reference
    impl and the lowering so that eager and jit agree bit for bit:

    * ``y`` in (1, 2, 3, -1), integers and complex ``y > 0``: the product chain (``1 / chain``
      for ``y < 0``), in ``x``'s dtype (x*x and 1/x are correctly rounded, x*x*x within
      1.5 ulp; kept narrow, as cubes are hot in kernels such as tanh-GELU);
    * float16/float32, other ``y``: the chain (and ``1 / chain``) in float64, rounded
      once at the end: within 0.5 ulp plus double rounding (< 0.501 ulp for
      ``|y| <= 2**16``), and no intermediate can overflow or underflow where the
      result does not;
    * float64, ``y >= 3``: the chain, as XLA; its error grows with ``y``: within
      ``|y|`` ulp (observed 1.3 at 3, 9.8 at 16; tests/primitives/test_integer_pow.py);
    * float64 and complex, ``y <= -2``: ``1 / x**-y`` where ``|x|**-y`` is a normal
      number, and ``(1 / x)**-y`` where it would overflow or underflow (the true result
      is then tiny or huge but may be finite: 1 / inf = 0 and 1 / 0 = inf would be
      wrong); within ``|y|`` ulp (observed 13.9 at -15, for results near the top of the
      range).

    Negative powers divide ``1 + 0j``, as JAX's do: JAX's ``reciprocal(2 + 0j)`` is
    ``0.5 + 0j`` and ``reciprocal(-2j)`` ``-0 + 0.5j``, where NumPy's reciprocal,
    ``conj(x) / |x|**2``, gives ``0.5 - 0j`` and ``0 + 0.5j``.
    """
    dt = np.dtype(dt)
    n = abs(y)
    cplx = dtypes.is_complex(dt)
    one = 1
    # (bfloat16 is a float: kind "V")
    if not (dtypes.is_float(dt) or cplx) or y in (1, 2, 3, -1) or (cplx and y > 0):
        acc = _pow_chain(ops, x, n)
        return acc if y > 0 else ops.div(ops.const(dt, one), acc)
    if not cplx and dt.itemsize < 8:
        wide = np.dtype(np.float64)
        acc = _pow_chain(ops, ops.convert(x, wide), n)
        if y < 0:
            acc = ops.div(ops.const(wide, 1), acc)
        return ops.convert(acc, dt)
    if y > 0:
        return _pow_chain(ops, x, n)
    # |x|**n is a normal number (and every partial product with it) for |x| in [lo, hi]:
    # 1 / x**n there; (1 / x)**n outside, where x**n would underflow or overflow though
    # the result need not (complex: 1 / (a + a j)**2 was inf + nan j for a = 2**-1023)
    fi = np.finfo(_REAL_OF.get(dt, dt))
    lo, hi = 2.0 ** ((fi.minexp + 1) / n), 2.0 ** ((fi.maxexp - 1) / n)
    inside = ops.inside(ops.abs(x), lo, hi)
    one = ops.const(dt, one)
    b = ops.select(inside, x, ops.div(one, x))
    acc = _pow_chain(ops, b, n)
    return ops.select(inside, ops.div(one, acc), acc)


def _integer_pow_impl(xp, x, *, y):
    if y < 0 and dtypes.is_int(x.dtype):
        _integer_pow_abstract(aval_of_value(x), y=y)  # raises tjit's TypeError
    if y == 0:
        return xp.ones_like(x)
    return _same(xp, _integer_pow_expand(_XpOps(xp), x, x.dtype, y), x)


integer_pow_p = new_primitive("integer_pow")


@integer_pow_p.def_abstract_eval
def _integer_pow_abstract(x, *, y):
    check_dtype_kind("integer_pow", NUMBER, x)
    if y < 0 and dtypes.is_int(x.dtype):
        raise TypeError(f"integer_pow: integers cannot be raised to negative powers, got "
                        f"exponent {y} for {x.str_short()}; convert to a float dtype first")
    return ShapedArray(x.shape, x.dtype)


integer_pow_p.def_impl(_quiet(_integer_pow_impl))


# -- binary arithmetic ---------------------------------------------------------------------
add_p = binop("add", lambda xp, x, y: _same(xp, xp.add(x, y), x), kind=ANY)
sub_p = binop("sub", lambda xp, x, y: _same(xp, xp.subtract(x, y), x))
mul_p = binop("mul", lambda xp, x, y: _same(xp, xp.multiply(x, y), x), kind=ANY)


def _div_impl(xp, x, y):
    if dtypes.is_int(x.dtype):
        # Truncating division from NumPy's floor division: step the quotient back up
        # toward zero when the signs differ and the division is inexact.
        safe = xp.where(y == 0, y.dtype.type(1), y)
        q = xp.floor_divide(x, safe)  # INT_MIN // -1 wraps to INT_MIN, as in XLA
        if not dtypes.is_unsigned(x.dtype):
            inexact = xp.remainder(x, safe) != 0
            q = q + (inexact & ((x < 0) != (safe < 0))).astype(x.dtype)
        # XLA: x / 0 has all bits set (-1 signed, the max unsigned).
        by_zero = x.dtype.type(-1) if not dtypes.is_unsigned(x.dtype) else \
            x.dtype.type(dtypes.iinfo(x.dtype).max)
        return _same(xp, xp.where(y == 0, by_zero, q), x)
    q = _same(xp, xp.true_divide(x, y), x)
    if not dtypes.is_complex(x.dtype) or complex_scaled.quotients_need_no_rescue(xp, y, q):
        return q
    return _complex_div_recovery(xp, x, y, complex_scaled.rescale_quotients(xp, x, y, q))


def _complex_div_recovery(xp, x, y, q):
    """C99 Annex G's recovery of infinite and zero quotients that NumPy's complex division
    leaves nan + nan j (as XLA's): an infinite numerator over a finite denominator is
    infinite ((inf+1j)/(2+1j) = inf-inf j), a finite one over an infinite denominator
    zero ((1+1j)/(inf+0j) = 0+0j), and one over a zero has the zero's sign
    (1/(-0-0j) = -inf+nan j)."""
    if xp.isfinite(q).all():  # the common case: nothing to recover (one cheap pass)
        return q
    lost = xp.isnan(q.real) & xp.isnan(q.imag)
    by_zero = y == 0
    x, y, q, by_zero = xp.broadcast_arrays(x, y, q, by_zero)
    a, b, c, d = x.real, x.imag, y.real, y.imag
    fin = xp.isfinite
    one = a.dtype.type(1)
    # over a zero: copysign(inf, c) times each part (NumPy divides by +0 whatever c's sign)
    by_zero = by_zero & ~(xp.isnan(a) & xp.isnan(b))
    pole = xp.copysign(a.dtype.type(np.inf), c)

    def unit(v):  # an infinite part as +-1, a finite one as +-0 (C99's copysign(isinf ...))
        return xp.copysign(xp.where(xp.isinf(v), one, 0 * one), v)

    big = lost & (xp.isinf(a) | xp.isinf(b)) & fin(c) & fin(d)
    small = lost & (xp.isinf(c) | xp.isinf(d)) & fin(a) & fin(b)
    ua, ub, uc, ud = unit(a), unit(b), unit(c), unit(d)
    inf = a.dtype.type(np.inf)
    out = q.copy()
    out.real = xp.where(by_zero, pole * a, xp.where(big, inf * (ua * c + ub * d),
                        xp.where(small, 0 * (a * uc + b * ud), q.real)))
    out.imag = xp.where(by_zero, pole * b, xp.where(big, inf * (ub * c - ua * d),
                        xp.where(small, 0 * (b * uc - a * ud), q.imag)))
    return out


def _rem_impl(xp, x, y):
    if dtypes.is_int(x.dtype):
        safe = xp.where(y == 0, y.dtype.type(1), y)
        return _same(xp, xp.where(y == 0, x, xp.fmod(x, safe)), x)  # XLA: x rem 0 = x
    return _same(xp, xp.fmod(x, y), x)


div_p = binop("div", _div_impl)
rem_p = binop("rem", _rem_impl, kind=base.REAL_NUMBER)  # no complex remainder (XLA)


def _pow_impl(xp, x, y):
    if x.dtype == dtypes.complex64:
        # NumPy's complex64 power works in complex64 (exp(y log x) in single precision):
        # up to 55 ulps of |p| off (diff_dtypes seed 2206: 1.8575744e9 - 2.3699336e9j
        # for 1.8575807e9 - 2.3699356e9j; JAX's is as far). In complex128, rounded once,
        # within half an ulp of |p|, and no slower.
        x, y = x.astype(dtypes.complex128), y.astype(dtypes.complex128)
        p = xp.power(x, y).astype(dtypes.complex64)
        return complex_scaled.recover_powers(xp, x, y, p)
    p = _same(xp, xp.power(x, y), x)
    return complex_scaled.recover_powers(xp, x, y, p) if dtypes.is_complex(x.dtype) else p


pow_p = binop("pow", _pow_impl, kind=FLOAT)
# IEEE 754-2019 maximum/minimum: NaN propagates, -0.0 < +0.0 (see ieee_minmax.py)
max_p = binop("max", lambda xp, x, y: _same(xp, ieee_minmax.maximum(xp, x, y), x), kind=ANY)
min_p = binop("min", lambda xp, x, y: _same(xp, ieee_minmax.minimum(xp, x, y), x), kind=ANY)
atan2_p = binop("atan2", lambda xp, x, y: _same(xp, xp.arctan2(x, y), x), kind=REAL_FLOAT)


def _nextafter_impl(xp, x, y):
    # C99's (and JAX's) rule on every dtype: y when x == y, so nextafter(0, -0) = -0.
    # float32/float64 are C's nextafter already. NumPy's float16 loop gave x there before
    # NumPy 2.5; equal values other than zeros of two signs are the same bits, so the
    # narrow types' rule is applied on the bits where both are zeros (a float16 compare
    # costs ~100 times an int16 one: a jitted float16 nextafter runs this impl)
    step = _same(xp, xp.nextafter(x, y), x)
    if step.dtype in _C_NEXTAFTER_DTYPES:
        return step
    y = _same(xp, y, x)
    if step.size <= 64:     # (few elements: two calls beat the bits' eight)
        return xp.where(x == y, y, step)
    bits = np.dtype(f"u{step.dtype.itemsize}")
    yb = y.view(bits)
    zeros = ((xp.asarray(x).view(bits) | yb) & ((1 << (8 * bits.itemsize - 1)) - 1)) == 0
    return xp.where(zeros, yb, step.view(bits)).view(step.dtype)


_C_NEXTAFTER_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


nextafter_p = binop("nextafter", _nextafter_impl, kind=REAL_FLOAT)


def _complex_dtype(dt):
    return dtypes.complex128 if dt == dtypes.float64 else dtypes.complex64


def _complex_impl(xp, x, y):
    # Fill the parts separately: x + 1j*y would turn y=inf into nan + inf*j.
    x, y = xp.asarray(x), xp.asarray(y)
    out = xp.empty(np.broadcast_shapes(x.shape, y.shape), _complex_dtype(x.dtype))
    out.real[...] = x
    out.imag[...] = y
    return out


complex_p = binop("complex", _complex_impl, kind=REAL_FLOAT, result_dtype=_complex_dtype)
complex_p.def_weak_type(lambda wx, wy, **_: wx and wy)

# -- comparisons ---------------------------------------------------------------------------
_to_bool = lambda dt: dtypes.bool_  # noqa: E731
eq_p = binop("eq", lambda xp, x, y: xp.equal(x, y), kind=ANY, result_dtype=_to_bool)
ne_p = binop("ne", lambda xp, x, y: xp.not_equal(x, y), kind=ANY, result_dtype=_to_bool)
lt_p = binop("lt", lambda xp, x, y: xp.less(x, y), kind=ANY, result_dtype=_to_bool)
le_p = binop("le", lambda xp, x, y: xp.less_equal(x, y), kind=ANY, result_dtype=_to_bool)
gt_p = binop("gt", lambda xp, x, y: xp.greater(x, y), kind=ANY, result_dtype=_to_bool)
ge_p = binop("ge", lambda xp, x, y: xp.greater_equal(x, y), kind=ANY, result_dtype=_to_bool)
for _p in (eq_p, ne_p, lt_p, le_p, gt_p, ge_p):  # as JAX's: weak when both operands are
    _p.def_weak_type(lambda wx, wy, **_: wx and wy)   # (i8 > 1.5 compares two weak f32)

# -- bitwise and logical -------------------------------------------------------------------
and_p = binop("and", lambda xp, x, y: _same(xp, xp.bitwise_and(x, y), x), kind=INT_OR_BOOL)
or_p = binop("or", lambda xp, x, y: _same(xp, xp.bitwise_or(x, y), x), kind=INT_OR_BOOL)
xor_p = binop("xor", lambda xp, x, y: _same(xp, xp.bitwise_xor(x, y), x), kind=INT_OR_BOOL)
not_p = unop("not", lambda xp, x: xp.invert(x), kind=INT_OR_BOOL)


def _nbits(dt):
    return dtypes.bit_width(dt)   # (4 for int4, which NumPy holds in a byte)


@functools.cache
def _unsigned(dt):
    return np.dtype(f"u{np.dtype(dt).itemsize}")


def _numpy_shift(xp, x, y, op, view, amount_view=None):
    """``op`` on NumPy operands of one integer dtype, through same-width views: NumPy
    defines shifts by amounts outside [0, bits) (viewed unsigned, a negative amount is
    one) as 0, or the sign fill for a signed right shift, which are tjit's semantics; one
    ufunc call instead of the masked form (C leaves those amounts undefined, so other
    array namespaces take the masked form). None where this does not apply."""
    if xp is not np or type(x) is not np.ndarray and not isinstance(x, np.integer) or \
            type(y) is not np.ndarray and not isinstance(y, np.integer) or x.dtype != y.dtype:
        return None
    if dtypes.is_small(x.dtype):
        return _narrow_shift(x, y, op, view)
    amounts = y.view((amount_view or _unsigned)(x.dtype))
    return np.asarray(op(x.view(view(x.dtype)), amounts)).view(x.dtype)


def _narrow_shift(x, y, op, view):
    """A shift of int4/uint4/int2/... operands on their bit patterns in int32: a byte
    view would shift the byte NumPy stores them in (int4 -8 >> 1 gave 4), and the
    amounts outside [0, bits) are those of the type's own width."""
    bits = _nbits(x.dtype)
    pattern = x.astype(np.int32) & ((1 << bits) - 1)
    amount = y.astype(np.int32)
    oob = (amount < 0) | (amount >= bits)
    if view is _signed:   # arithmetic: the pattern read as signed, shifted by bits - 1 at most
        value = np.where(pattern >> (bits - 1), pattern - (1 << bits), pattern)
        out = value >> np.where(oob, bits - 1, amount)
    else:
        out = np.where(oob, 0, op(pattern, np.where(oob, 0, amount)))
    return out.astype(x.dtype)   # (ml_dtypes' cast keeps the low bits)


@functools.cache
def _signed(dt):
    return np.dtype(f"i{np.dtype(dt).itemsize}")


def _shift_left(xp, x, y):
    out = _numpy_shift(xp, x, y, np.left_shift, _unsigned)
    if out is not None:
        return out
    bits = _nbits(x.dtype)
    oob = (y < 0) | (y >= bits)
    ys = xp.where(oob, 0, y).astype(_unsigned(x.dtype))
    out = (x.astype(_unsigned(x.dtype)) << ys).astype(x.dtype)
    return _same(xp, xp.where(oob, x.dtype.type(0), out), x)


def _shift_right_logical(xp, x, y):
    out = _numpy_shift(xp, x, y, np.right_shift, _unsigned)
    if out is not None:
        return out
    bits = _nbits(x.dtype)
    oob = (y < 0) | (y >= bits)
    ys = xp.where(oob, 0, y).astype(_unsigned(x.dtype))
    out = (x.astype(_unsigned(x.dtype)) >> ys).astype(x.dtype)
    return _same(xp, xp.where(oob, x.dtype.type(0), out), x)


def _shift_right_arithmetic(xp, x, y):
    # (signed amounts: NumPy's signed >> by a negative or too large amount is the sign fill)
    out = _numpy_shift(xp, x, y, np.right_shift, _signed, _signed)
    if out is not None:
        return out
    bits = _nbits(x.dtype)
    signed = np.dtype(f"i{x.dtype.itemsize}")
    # Out-of-range amounts (negative ones too) shift by bits-1: the sign fill.
    oob = (y < 0) | (y >= bits)
    ys = xp.where(oob, bits - 1, y).astype(signed)
    return _same(xp, x.astype(signed) >> ys, x)


shift_left_p = binop("shift_left", _shift_left, kind=INT)
shift_right_logical_p = binop("shift_right_logical", _shift_right_logical, kind=INT)
shift_right_arithmetic_p = binop("shift_right_arithmetic", _shift_right_arithmetic, kind=INT)


def _population_count(xp, x):
    if dtypes.is_small(x.dtype):   # int4...: the bit pattern of the value, not the byte's
        return _population_count(xp, x.astype(np.int32) & ((1 << _nbits(x.dtype)) - 1)
                                 ).astype(x.dtype)
    u = x.astype(_unsigned(x.dtype))
    out = xp.zeros_like(u)
    for i in range(_nbits(x.dtype)):
        out = out + ((u >> np.uint8(i)) & u.dtype.type(1))
    return out.astype(x.dtype)


population_count_p = unop("population_count", _population_count, kind=INT)

# -- selection -----------------------------------------------------------------------------
select_n_p = new_primitive("select_n")


@select_n_p.def_abstract_eval
def _select_n_abstract(which, *cases):
    if not cases:
        raise TypeError("select_n: needs at least one case")
    if which.dtype != dtypes.bool_ and which.dtype != dtypes.int32:
        raise TypeError(f"select_n: `which` must be bool or int32, got {which.dtype}")
    if which.dtype == dtypes.bool_ and len(cases) > 2:
        raise TypeError(f"select_n: a bool `which` selects among at most 2 cases, "
                        f"got {len(cases)}")
    dt = same_dtypes("select_n", cases)
    # `which` and the cases are each either rank-0 or of the one common shape.
    shape = same_shapes("select_n", (which,) + tuple(cases))
    return ShapedArray(shape, dt)


@select_n_p.def_impl
def _select_n_impl(xp, which, *cases):
    if len(cases) == 2 and type(which) is np.ndarray and which.dtype == np.bool_:
        # the common call, checked in a few comparisons: a bool mask, two cases alike
        c0, c1 = cases
        if type(c0) is np.ndarray and type(c1) is np.ndarray and c0.dtype == c1.dtype \
                and c0.shape == c1.shape and which.shape in (c0.shape, ()):
            return xp.where(which, c1, c0)
    which = xp.asarray(which)
    shapes = [which.shape] + [xp.shape(c) for c in cases]
    shape = max(shapes, key=len)
    dt = getattr(cases[0], "dtype", None) if cases else None
    if (which.dtype != np.bool_ and which.dtype != np.int32) or any(
            getattr(c, "dtype", None) != dt for c in cases) or any(
            s != shape and s != () for s in shapes) or (which.dtype == np.bool_
                                                         and len(cases) > 2):
        _select_n_abstract(*[aval_of_value(a) for a in (which,) + cases])  # raises
    if len(cases) == 1:
        out = xp.broadcast_to(cases[0], shape)
    elif which.dtype == np.bool_:
        out = xp.where(which, cases[1], cases[0])
    else:  # out-of-range indices are clamped (XLA leaves them undefined)
        out = xp.choose(xp.clip(which, 0, len(cases) - 1),
                        [xp.broadcast_to(c, shape) for c in cases])
    return _same(xp, out, xp.asarray(cases[0]))


select_n_p.def_weak_type(lambda w, *ws, **_: all(ws))

clamp_p = new_primitive("clamp")


@clamp_p.def_abstract_eval
def _clamp_abstract(lo, x, hi):
    dt = same_dtypes("clamp", (lo, x, hi))
    for b, nm in ((lo, "min"), (hi, "max")):
        if b.shape != () and b.shape != x.shape:
            raise TypeError(f"clamp: {nm} must be a scalar or have the operand's shape "
                            f"{x.str_short()}, got {b.str_short()}")
    check_dtype_kind("clamp", NUMBER, x)
    return ShapedArray(x.shape, dt)


@clamp_p.def_impl
def _clamp_impl(xp, lo, x, hi):
    x = xp.asarray(x)
    if any(getattr(b, "dtype", None) != x.dtype or (xp.shape(b) != () and
                                                     xp.shape(b) != x.shape)
           for b in (lo, hi)) or x.dtype == np.bool_:
        _clamp_abstract(*[aval_of_value(a) for a in (lo, x, hi)])  # raises
    return _same(xp, ieee_minmax.minimum(xp, ieee_minmax.maximum(xp, x, lo), hi), x)
clamp_p.def_weak_type(lambda wl, wx, wh, **_: wx)

# -- conversions ---------------------------------------------------------------------------
convert_element_type_p = new_primitive("convert_element_type")


@convert_element_type_p.def_abstract_eval
def _convert_abstract(x, *, new_dtype, weak_type=False):
    return ShapedArray(x.shape, dtypes.check_dtype(new_dtype, "convert_element_type"))


def _convert_impl(xp, x, *, new_dtype, weak_type=False):
    x = xp.asarray(x)
    new_dtype = np.dtype(new_dtype)
    if x.dtype == new_dtype:
        return x
    if xp is np and dtypes.is_one_byte(x.dtype) and x.size >= base.TABLE_MIN_SIZE:
        # float8/int4 to anything: look up this very conversion of all 256 byte patterns
        # (ml_dtypes converts element by element, about 10x slower)
        return base.by_byte_table(lambda xp, v: _convert_impl(xp, v, new_dtype=new_dtype),
                                  x, key=("convert_element_type", new_dtype))
    if (xp is np and new_dtype.itemsize == 1 and float8_round.handles(x.dtype, new_dtype)
            and (x.size >= base.TABLE_MIN_SIZE or x.dtype == np.float64)):
        # float32/64 to float8: whole-array bit arithmetic (ml_dtypes' astype is an
        # element-by-element loop, several times slower). float64 always comes here: it
        # is rounded once, as XLA does (ml_dtypes rounds it to float32 first)
        return float8_round.round_to_float8(x, new_dtype)
    if dtypes.is_complex(x.dtype) and not dtypes.is_complex(new_dtype):
        x = xp.real(x)
    if dtypes.is_inexact(x.dtype) and dtypes.is_int(new_dtype):
        imin, imax = dtypes.int_range(new_dtype)  # (cached: iinfo costs ~1 us a call)
        if dtypes.computes_in_float32(x.dtype):  # (float16, float8s: their range cannot
            x = x.astype(np.float32)             # hold the integer bounds; exact)
        lo, hi = float(imin), float(imax)
        if xp is np and x.size and np.minimum.reduce(x, axis=None) > lo and \
                np.maximum.reduce(x, axis=None) < hi:
            # every value inside the int's range (no NaN: its comparisons are False):
            # truncation alone, one pass instead of the six of the saturating path
            return x.astype(new_dtype)
        x = xp.where(xp.isnan(x), x.dtype.type(0), x)
        clipped = xp.clip(x, lo, hi)
        out = clipped.astype(new_dtype)
        # float(info.max) may round up past the max (e.g. int32): saturate exactly
        out = xp.where(clipped >= hi, new_dtype.type(imax), out)
        return out.astype(new_dtype)
    if new_dtype == dtypes.bool_:
        return xp.asarray(x != 0)
    try:
        return x.astype(new_dtype)
    except TypeError:
        # ml_dtypes registers no cast for some pairs of its types (float8_e8m0fnu to the
        # other float8s, int4 to uint4): go through float32 or int32, which hold every
        # value of the narrow types exactly, so the value is still rounded once
        mid = np.float32 if dtypes.is_float(x.dtype) else np.int32
        return x.astype(mid).astype(new_dtype)


convert_element_type_p.def_impl(_quiet(_convert_impl))


convert_element_type_p.def_weak_type(lambda w, *, new_dtype, weak_type=False: weak_type)

bitcast_convert_type_p = new_primitive("bitcast_convert_type")


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract(x, *, new_dtype):
    new = dtypes.check_dtype(new_dtype, "bitcast_convert_type")
    old = x.dtype
    if new.itemsize == old.itemsize:
        return ShapedArray(x.shape, new)
    if new.itemsize < old.itemsize:
        return ShapedArray(x.shape + (old.itemsize // new.itemsize,), new)
    ratio = new.itemsize // old.itemsize
    if not x.shape or x.shape[-1] != ratio:
        raise TypeError(f"bitcast_convert_type: converting {x.str_short()} to {new} needs a "
                        f"last dim of size {ratio}")
    return ShapedArray(x.shape[:-1], new)


@bitcast_convert_type_p.def_impl
def _bitcast_impl(xp, x, *, new_dtype):
    x = xp.asarray(x)
    if not x.flags.c_contiguous:  # (ascontiguousarray would also make 0-d arrays 1-d)
        x = xp.ascontiguousarray(x)
    new = np.dtype(new_dtype)
    if new.itemsize == x.dtype.itemsize:
        return x.view(new)
    if new.itemsize < x.dtype.itemsize:  # a new minor dim of itemsize ratio
        return x.reshape(x.shape + (1,)).view(new)
    return x.view(new).reshape(x.shape[:-1])  # the minor dim of size ratio goes


bitcast_convert_type_p.def_weak_type(never_weak)


# -- transformation rules ----------------------------------------------------------------------
# jvp / transpose / batching (see primitives/rules.py for the helpers' contracts). The
# derivative formulas are JAX's (jax/_src/lax/lax.py). Rules bind primitives only, so a
# rule applied inside another transformation is itself transformed.
from tjit.primitives import rules as _r  # noqa: E402
from tjit.tracing.core import get_aval as _aval  # noqa: E402

Zero = _r.Zero


def _const(like, value):
    """A 0-d constant with ``like``'s dtype (a literal under tracing)."""
    return np.asarray(value, _aval(like).dtype)


def _unbroadcast(aval, ct):
    """Sum ``ct`` down to ``aval``'s shape: rank-0 operands broadcast in elementwise ops."""
    from tjit.primitives.reductions import reduce_sum_p
    ct_shape = tuple(_aval(ct).shape)
    if tuple(aval.shape) == ct_shape:
        return ct
    return reduce_sum_p.bind(ct, axes=tuple(range(len(ct_shape))))


def _bcast(t, shape):
    from tjit.primitives.structural import broadcast_in_dim_p
    return broadcast_in_dim_p.bind(t, shape=shape, broadcast_dimensions=())


# short names for writing formulas
_add, _sub, _mul, _div, _neg = add_p.bind, sub_p.bind, mul_p.bind, div_p.bind, neg_p.bind


def _sq(x):
    return integer_pow_p.bind(x, y=2)


def _sel(which, if_false, if_true):
    return select_n_p.bind(which, if_false, if_true)


def _replace_zero(x):
    """x with its zeros replaced by ones (keeps log(0) and 0/0 out of derivatives)."""
    return _sel(eq_p.bind(x, _const(x, 0)), x, _const(x, 1))


def _undef(x):
    return _r.is_undefined_primal(x)


# -- unary math: jvps ----------------------------------------------------------------------------
_r.defjvp(sin_p, lambda g, x: _mul(g, cos_p.bind(x)))
_r.defjvp(cos_p, lambda g, x: _neg(_mul(g, sin_p.bind(x))))
_r.defjvp2(tan_p, lambda g, ans, x: _mul(g, _add(_const(x, 1), _sq(ans))))


def _one_minus_square(x):
    """1 - x**2 as (1 + x)(1 - x) (exact factors) from |x| = 1/2 on: 1 - x*x keeps only
    ulp(1) of it near |x| = 1 (float32 grad(arcsin)(0.999999) was 3.4e4 ulps off). Below
    1/2 1 - x*x, whose derivative (grad of grad) -2x does not cancel as the product's does
    (float32 grad(grad(arctanh))(1e-8) gave 0, true 2e-8). JAX's rules share one or the other."""
    one = _const(x, 1)
    edge = _mul(_add(one, x), _sub(one, x))
    if not _is_real(x):
        return edge
    return _sel(lt_p.bind(abs_p.bind(x), _const(x, 0.5)), edge, _sub(one, _sq(x)))


_r.defjvp(asin_p, lambda g, x: _mul(g, rsqrt_p.bind(_one_minus_square(x))))
_r.defjvp(acos_p, lambda g, x: _mul(g, _neg(rsqrt_p.bind(_one_minus_square(x)))))
_r.defjvp(atan_p, lambda g, x: _div(g, _add(_const(x, 1), _sq(x))))
_r.defjvp(sinh_p, lambda g, x: _mul(g, cosh_p.bind(x)))
_r.defjvp(cosh_p, lambda g, x: _mul(g, sinh_p.bind(x)))


def _is_real(x):
    return not dtypes.is_complex(_aval(x).dtype)


def _past_square_root_of_eps(x):
    """|x| so large that x*x +- 1 rounds to x*x (and x*x may overflow): there
    1/sqrt(x*x +- 1) is 1/|x| to within eps/8."""
    return gt_p.bind(abs_p.bind(x), _const(x, 2 / np.sqrt(dtypes.finfo(_aval(x).dtype).eps)))


def _rsqrt_square_pm1(x, square_pm1):
    """1/sqrt(square_pm1(x)) that is 1/|x| where x*x overflowed (float32 grad(arcsinh) at
    1e20 gave 0, true 1e-20; JAX shares)."""
    r = rsqrt_p.bind(square_pm1(x))
    if not _is_real(x):
        return r
    past = _past_square_root_of_eps(x)
    # 1 in the unused lane: 1/|x|'s derivative is inf at 0, and 0 * inf in grad of grad
    ax = _sel(past, _const(x, 1), abs_p.bind(x))
    return _sel(past, r, div_p.bind(_const(x, 1), ax))


_r.defjvp(asinh_p, lambda g, x: _mul(g, _rsqrt_square_pm1(
    x, lambda v: _add(_sq(v), _const(v, 1)))))
_r.defjvp(acosh_p, lambda g, x: _mul(g, _rsqrt_square_pm1(
    x, lambda v: _mul(_sub(v, _const(v, 1)), _add(v, _const(v, 1))))))
_r.defjvp(atanh_p, lambda g, x: _mul(g, integer_pow_p.bind(_one_minus_square(x), y=-1)))
_r.defjvp2(exp_p, lambda g, ans, x: _mul(g, ans))
_r.defjvp2(exp2_p, lambda g, ans, x: _mul(_const(x, np.log(2)), _mul(g, ans)))
# expm1' = exp(x), not JAX's ans + 1, which keeps only ulp(1) of a slope below ~1e-8 (float32
# grad at -20 gave 0, true 2.1e-9; at -10 5e3 ulps off)
_r.defjvp(expm1_p, lambda g, x: _mul(g, exp_p.bind(x)))
_r.defjvp(log_p, lambda g, x: _div(g, x))
_r.defjvp(log1p_p, lambda g, x: _div(g, _add(x, _const(x, 1))))
_r.defjvp2(sqrt_p, lambda g, ans, x: _mul(g, _div(_const(x, 0.5), ans)))
_r.defjvp2(rsqrt_p, lambda g, ans, x: _mul(g, _mul(_const(x, -0.5), _div(ans, x))))
_r.defjvp2(cbrt_p, lambda g, ans, x: _mul(g, _mul(_const(x, 1 / 3),
                                                   integer_pow_p.bind(ans, y=-2))))


def _slope_call(name, value, second, *operands):
    """``value(*operands)``, a first-order slope, whose own derivative (a second-order
    one) is ``second(operands, tangents)`` instead of the derivative of ``value``'s ops.

    A slope's value and its derivative want different formulas: the cheap, accurate
    value may cancel when differentiated (tanh' = (1 + t)(1 - t) has the derivative
    (1 - t) - (1 + t)). First-order passes, the hot path, compute ``value`` only; under a
    trace the slope is a ``custom_jvp_call`` (inlined by the compiler), so a transformation
    that differentiates it again uses ``second``. Eagerly, with no tracer about, the ops
    run directly."""
    if not any(isinstance(o, Tracer) for o in operands):
        return value(*operands)
    from tjit.primitives.ad_prims import custom_jvp_call_p

    def jvp(nondiff, primals, tangents):
        out = _slope_call(name, value, second, *primals)
        if all(type(t) is Zero for t in tangents):
            return [out], [Zero.from_value(out)]
        return [out], [second(primals, tangents)]
    jvp.__name__ = name + "_jvp"
    closed = _slope_jaxpr(name, value, tuple(_aval(o) for o in operands))
    return custom_jvp_call_p.bind(*operands, call_jaxpr=closed, jvp=jvp, num_consts=0,
                                  num_nondiff=0, symbolic_zeros=False, name=name)[0]


@functools.lru_cache(maxsize=256)
def _slope_jaxpr(name, value, avals):
    from tjit.tracing.jaxpr import ClosedJaxpr
    from tjit.tracing.jaxpr_trace import convert_constvars_jaxpr, trace_to_jaxpr
    jaxpr, consts = convert_constvars_jaxpr(trace_to_jaxpr(
        lambda *a: [value(*a)], list(avals), name))
    assert not consts, name   # (the slope formulas close over literals only)
    return ClosedJaxpr(jaxpr, [])


def _tanh_slope_value(t):
    one = _const(t, 1)
    return _mul(_add(one, t), _sub(one, t))


def _tanh_slope_derivative(primals, tangents):
    (t,), (dt,) = primals, tangents
    return _mul(_mul(_const(t, -2), t), dt)     # d(1 - t**2) = -2 t dt: no cancellation


def _tanh_slope(t):
    """tanh'(x) = (1 + t)(1 - t) from t = tanh(x) alone (so the forward's x need not be
    kept), as at 095f675 and in JAX; its own derivative is -2 t tanh' (the product's
    (1 - t) - (1 + t) cancels near 0: float64 grad(grad(tanh))(1e-8) was 3e6 ulps off,
    at 1e-20 0; JAX shares it). Given up for cost: the error is absolute, ~eps, as t's
    rounding is carried into 1 - t (float32 tanh'(5) ~2e3 ulps off, tanh'(10) 0, true
    8.2e-9, as JAX's and PyTorch's); the relative accuracy there needs exp(-2|x|), so x
    as well as t, in every backward pass (2.1x the time of jit(grad(sum(tanh))))."""
    return _slope_call("tanh_slope", _tanh_slope_value, _tanh_slope_derivative, t)


_r.defjvp2(tanh_p, lambda g, ans, x: _mul(g, _tanh_slope(ans)))


def _logistic_slope_value(s, x):
    return _mul(s, logistic_p.bind(_neg(x)))


def _logistic_slope_derivative(primals, tangents):
    # d[s(x) s(-x)] = s'(x) (s(-x) - s(x)) dx = -tanh(x/2) ds, ds = s' dx the tangent of
    # s = logistic(x) (the only s this helper is called with). s(-x) - s(x) cancels near
    # 0 (float32 grad(grad(expit))(1e-8) gave 0, true -1.25e-9; JAX shares); tanh(x/2)
    # is computed only here, in second-order passes.
    (s, x), (ds, _) = primals, tangents
    return _neg(_mul(tanh_p.bind(_mul(_const(x, 0.5), x)), _r.instantiate(ds)))


def _logistic_slope(ans, x):
    """logistic'(x) = ans logistic(-x): 1 - ans would round to 0 once ans rounds to 1
    (float32 x > 17: grad at 60 gave 0, true 8.8e-27), logistic(-x) keeps it."""
    return _slope_call("logistic_slope", _logistic_slope_value, _logistic_slope_derivative,
                       ans, x)


_r.defjvp2(logistic_p, lambda g, ans, x: _mul(g, _logistic_slope(ans, x)))


def _exp_square(x, sign):
    """exp(sign * x**2), sign +-1, with x**2 as the rounded p plus its error err:
    exp(sign p) (1 + sign err). exp of the rounded square alone is off by up to x**2 eps/2
    relative (float64 erf'(-30) 137 ulps; JAX's rules share it). |x| is clamped to 28,
    past which exp(-x**2) underflows and exp(x**2) overflows in float32 and float64 alike
    and below which the squares stay finite (inf gave inf - inf); clamp keeps NaN. Only
    float64 takes the pair: even as one fma it costs +10-25% on float32
    jit(grad(sum(erf))) (0.21 -> 0.23-0.26 ms on 1e6; Dekker's split cost +40%), a
    first-order training path, for float32 slopes below 1e-20 (|x| > 6.8) that are off by
    at most x**2 eps/2 (erf'(-8.9) 28.9 ulps, as JAX's; 1.9 with the pair). Other dtypes
    keep the rounded square (float16's x**2 2**-11 is a few of its own ulps)."""
    dtype = _aval(x).dtype
    if dtype != np.float64:
        return exp_p.bind(_mul(_const(x, sign), _sq(x)))
    p, err = _square_pair(x)
    if sign < 0:
        return _mul(exp_p.bind(_neg(p)), _sub(_const(x, 1), err))
    return _mul(exp_p.bind(p), _add(_const(x, 1), err))


def _square_pair(x):
    """(x*x, its rounding error) exactly, |x| clamped to 28: one fma (a mask-split
    approximation of the error took five ops, Dekker's split nine: +60% on
    jit(grad(sum(erf))))."""
    from tjit.primitives.fma import fma_p   # (fma.py builds on this module's mul and neg)
    x = clamp_p.bind(_const(x, -28.0), x, _const(x, 28.0))
    p = _mul(x, x)
    return p, fma_p.bind(x, x, _neg(p))


def _gaussian_slope_value(x):
    return _mul(_const(x, 2 / np.sqrt(np.pi)), _exp_square(x, -1))


def _gaussian_slope_derivative(primals, tangents):
    # d[c exp(-x**2)] = -2 x (c exp(-x**2)) dx: the exact pair's own ops would
    # differentiate into a rounding-noise term (d lo = 0, d err ~ eps x dx) and a dozen ops.
    # The factor is formed before dx meets it, of x clamped where the slope is 0: a huge
    # x times a transposed cotangent (gelu's x) made inf * 0 in grad of grad.
    (x,), (dx,) = primals, tangents
    x_in = clamp_p.bind(_const(x, -28.0), x, _const(x, 28.0))
    return _mul(_mul(_mul(_const(x, -2), x_in), _gaussian_slope(x)), _r.instantiate(dx))


def _gaussian_slope(x):
    """erf'(x) = 2/sqrt(pi) exp(-x**2) (-erfc'(x)), exp of an exactly squared x."""
    return _slope_call("gaussian_slope", _gaussian_slope_value, _gaussian_slope_derivative, x)


def _erf_inv_slope_value(y):
    return _mul(_const(y, np.sqrt(np.pi) / 2), _exp_square(y, 1))


def _erf_inv_slope_derivative(primals, tangents):
    (y,), (dy,) = primals, tangents    # d[c exp(y**2)] = 2 y (c exp(y**2)) dy
    return _mul(_mul(_mul(_const(y, 2), y), _erf_inv_slope(y)), _r.instantiate(dy))


def _erf_inv_slope(y):
    """erf_inv'(x) = sqrt(pi)/2 exp(y**2) from y = erf_inv(x), y squared exactly."""
    return _slope_call("erf_inv_slope", _erf_inv_slope_value, _erf_inv_slope_derivative, y)


_r.defjvp(erf_p, lambda g, x: _mul(g, _gaussian_slope(x)))
_r.defjvp(erfc_p, lambda g, x: _neg(_mul(g, _gaussian_slope(x))))
_r.defjvp2(erf_inv_p, lambda g, ans, x: _mul(g, _erf_inv_slope(ans)))
_r.defjvp(lgamma_p, lambda g, x: _mul(g, digamma_p.bind(x)))


def trigamma(x):
    """psi'(x) = polygamma(1, x), written with primitives (so it is differentiable).

    The recurrence psi1(y) = psi1(y + 1) + 1/y**2 moves y >= 0.5 up to z = y + 10, where
    the asymptotic series 1/z + 1/(2 z**2) + sum_k B_2k / z**(2k+1) (Bernoulli numbers
    through B_16; the first omitted term is < 4e-17 of psi1) is summed first and the
    recurrence's terms after it, smallest first. (With z = y + 6 and terms through B_12
    the series' own error was ~1e-13: float64 grad(digamma)(1.0) was 988 ulps off.) x < 0.5
    uses the reflection psi1(x) = pi**2 / sin(pi x)**2 - psi1(1 - x); the poles 0, -1, -2, ...
    give +inf.
    """
    def c(v):
        return _const(x, v)
    reflect = lt_p.bind(x, c(0.5))
    y = _sel(reflect, x, _sub(c(1), x))
    iz = integer_pow_p.bind(_add(y, c(10)), y=-1)
    iz2 = _sq(iz)
    poly = c(-3617 / 510)
    for b in (7 / 6, -691 / 2730, 5 / 66, -1 / 30, 1 / 42, -1 / 30, 1 / 6):
        poly = _add(c(b), _mul(iz2, poly))
    pos = _mul(iz, _add(c(1), _mul(iz, _add(c(0.5), _mul(iz, poly)))))
    for k in range(9, -1, -1):
        pos = _add(pos, integer_pow_p.bind(_add(y, c(k)) if k else y, y=-2))
    xs = _sel(reflect, c(0.25), x)  # keeps sin(pi x) away from 0 where unused
    # sin(pi x)**2 = sin(pi s)**2 with s = x - round(x), exact (Sterbenz): pi * x itself is
    # off by ulp(pi x), which near a pole -n is most of sin(pi x) (float32 grad(digamma) at
    # -1 + 1.2e-7 was 6.5e13, true 7.0e13; JAX 7.0e13). (pi / sin)**2, not pi**2 / sin**2:
    # sin**2 and its derivative's sin**4 underflow while the result is finite.
    s = _sub(xs, floor_p.bind(_add(xs, c(0.5))))
    refl = _sub(_sq(_div(c(np.pi), sin_p.bind(_mul(c(np.pi), s)))), pos)
    # at the poles 0, -1, -2, ... sin(pi x) rounds to ~1e-16, not 0 (only at x = 0)
    pole = and_p.bind(reflect, eq_p.bind(x, floor_p.bind(x)))
    return _sel(reflect, pos, _sel(pole, refl, c(np.inf)))


_r.defjvp(digamma_p, lambda g, x: _mul(g, trigamma(x)))


def _abs_jvp(g, ans, x):
    if dtypes.is_complex(_aval(x).dtype):  # d|z| = Re(conj(z) dz) / |z| (0 at z = 0)
        mag = convert_element_type_p.bind(ans, new_dtype=_aval(x).dtype, weak_type=False)
        return real_p.bind(_mul(g, _div(conj_p.bind(x), _replace_zero(mag))))
    return _sel(ge_p.bind(x, _const(x, 0)), _neg(g), g)  # JAX: slope +1 at 0


_r.defjvp2(abs_p, _abs_jvp)


def _integer_pow_jvp(g, x, *, y):
    if y == 0:
        return Zero.from_value(x)
    if y == 1:   # (as JAX's: no x**0 or x**1 left for the simplifier; the same values)
        return g
    if y == 2:
        return _mul(g, _mul(_const(x, 2), x))
    return _mul(g, _mul(_const(x, y), integer_pow_p.bind(x, y=y - 1)))


_r.defjvp(integer_pow_p, _integer_pow_jvp)

# Piecewise-constant ops: derivative 0 (where it exists).
for _p in (sign_p, floor_p, ceil_p, round_p):
    _r.defjvp_zero(_p)
# nextafter(x, y) is x moved by one ulp: d/dx = 1 and d/dy = 0 wherever the derivative
# exists (JAX defines no rule and refuses; a zero here once made grad silently 0).
_r.defjvp(nextafter_p, lambda g, x, y: g, lambda g, x, y: Zero.from_value(y))
# Integer- or bool-valued outputs: no tangent space (JAX's float0); the zero jvp lets
# them sit in differentiated code.
for _p in (is_finite_p, eq_p, ne_p, lt_p, le_p, gt_p, ge_p, and_p, or_p, xor_p, not_p,
           shift_left_p, shift_right_logical_p, shift_right_arithmetic_p,
           population_count_p, bitcast_convert_type_p):
    _r.defjvp_zero(_p)
    _p.not_differentiable = True


# -- linear unary ops ------------------------------------------------------------------------
def _is_complex(aval):
    return dtypes.is_complex(aval.dtype)


def _real_transpose(ct, x):
    if not _is_complex(x.aval):  # real of a real array is the identity
        return [ct]
    return [complex_p.bind(ct, _const(ct, 0))]


def _imag_transpose(ct, x):
    if not _is_complex(x.aval):  # imag of a real array is 0
        return [Zero(x.aval)]
    return [complex_p.bind(_const(ct, 0), _neg(ct))]


_r.deflinear(neg_p, lambda ct, x: [_neg(ct)])
_r.deflinear(real_p, _real_transpose)
_r.deflinear(imag_p, _imag_transpose)
_r.deflinear(conj_p, lambda ct, x: [conj_p.bind(ct)])


def _complex_transpose(ct, x, y):
    return [_unbroadcast(x.aval, real_p.bind(ct)) if _undef(x) else None,
            _unbroadcast(y.aval, imag_p.bind(_neg(ct))) if _undef(y) else None]


_r.deflinear(complex_p, _complex_transpose)


# -- binary arithmetic ---------------------------------------------------------------------------
def _add_transpose(ct, x, y):
    return [_unbroadcast(x.aval, ct) if _undef(x) else None,
            _unbroadcast(y.aval, ct) if _undef(y) else None]


def _sub_transpose(ct, x, y):
    return [_unbroadcast(x.aval, ct) if _undef(x) else None,
            _unbroadcast(y.aval, _neg(ct)) if _undef(y) else None]


def _add_jvp(primals, tangents):
    x, y = primals
    out = add_p.bind(x, y)
    tx, ty = tangents
    shape = tuple(_aval(out).shape)
    tx, ty = (Zero(_r.tangent_aval(_aval(out))) if type(t) is Zero else
              (t if tuple(_aval(t).shape) == shape else _bcast(t, shape)) for t in (tx, ty))
    return out, _r.add_tangents(tx, ty)


def _sub_jvp(primals, tangents):
    ty = tangents[1]
    _, t = _add_jvp(primals, [tangents[0], ty if type(ty) is Zero else _neg(ty)])
    return sub_p.bind(*primals), t


def _mul_transpose(ct, x, y):
    if _undef(x):
        return [_unbroadcast(x.aval, _mul(ct, y)), None]
    return [None, _unbroadcast(y.aval, _mul(x, ct))]


add_p.jvp, add_p.transpose = _add_jvp, _add_transpose
sub_p.jvp, sub_p.transpose = _sub_jvp, _sub_transpose
_r.defjvp(mul_p, lambda g, x, y: _mul(g, y), lambda g, x, y: _mul(x, g))
mul_p.transpose = _mul_transpose
# d(x/y)/dy = -(x/y)/y, not JAX's -x/(y*y): y*y overflows or underflows where the slope is
# finite (float32 grad of 1e30/y at 1e20 gave 0, true -1e-10; grad(grad(logit))(1e-30) NaN)
_r.defjvp2(div_p, lambda g, ans, x, y: _div(g, y),
           lambda g, ans, x, y: _neg(_mul(g, _div(ans, y))))
div_p.transpose = lambda ct, x, y: [_unbroadcast(x.aval, _div(ct, y)), None]


def _rem_jvp_y(g, x, y):  # rem(x, y) = x - y * trunc(x / y)
    if not dtypes.is_inexact(_aval(y).dtype):
        return Zero.from_value(y)
    q = _div(x, y)
    return _mul(_neg(g), _mul(sign_p.bind(q), floor_p.bind(abs_p.bind(q))))


_r.defjvp(rem_p, lambda g, x, y: g, _rem_jvp_y)


def _pow_jvp_x(g, ans, x, y):
    # y * x**(y-1). Where y == 0 and x**-1 overflows (x zero or subnormal) the slope is 0,
    # not 0 * inf, and x is replaced by 1 inside so no inf enters higher derivatives.
    # Elsewhere the product stays whole: its y-derivative at y == 0 is x**-1 (d2/dxdy x**y),
    # which a select on y == 0 alone would zero.
    abs_x = abs_p.bind(x)
    flat = and_p.bind(eq_p.bind(y, _const(y, 0)),
                      lt_p.bind(abs_x, _const(abs_x, dtypes.finfo(_aval(abs_x).dtype).tiny)))
    x_safe = _sel(flat, x, _const(x, 1))
    jac = _mul(y, pow_p.bind(x_safe, _sub(y, _const(y, 1))))
    return _mul(g, _sel(flat, jac, _const(jac, 0)))


def _pow_jvp_y(g, ans, x, y):  # log(x) * x**y, with log taken as 0 where x == 0
    return _mul(g, _mul(log_p.bind(_replace_zero(x)), ans))


_r.defjvp2(pow_p, _pow_jvp_x, _pow_jvp_y)


def _balanced_eq(x, z, y):
    """1 where x == z, halved where y == z too: max/min split the gradient at ties."""
    return _div(_sel(eq_p.bind(x, z), _const(z, 0), _const(z, 1)),
                _sel(eq_p.bind(y, z), _const(z, 1), _const(z, 2)))


_r.defjvp2(max_p, lambda g, ans, x, y: _mul(g, _balanced_eq(x, ans, y)),
           lambda g, ans, x, y: _mul(g, _balanced_eq(y, ans, x)))
_r.defjvp2(min_p, lambda g, ans, x, y: _mul(g, _balanced_eq(x, ans, y)),
           lambda g, ans, x, y: _mul(g, _balanced_eq(y, ans, x)))
_r.defjvp(atan2_p, lambda g, x, y: _mul(g, _div(y, _add(_sq(x), _sq(y)))),
          lambda g, x, y: _mul(g, _div(_neg(x), _add(_sq(x), _sq(y)))))


# -- selection -------------------------------------------------------------------------------
def _select_n_jvp(primals, tangents):
    which, *cases = primals
    out = select_n_p.bind(which, *cases)
    ts = tangents[1:]
    nonzero = [t for t in ts if type(t) is not Zero]
    if not nonzero:
        return out, Zero.from_value(out)
    zero = np.zeros((), _aval(nonzero[0]).dtype)  # rank-0 cases broadcast in select_n
    return out, select_n_p.bind(which, *[zero if type(t) is Zero else t for t in ts])


def _select_n_transpose(ct, which, *cases):
    if _undef(which):
        raise ValueError("select_n: cannot transpose with respect to `which` (the "
                         "selection is not linear in it)")
    res = [None]
    for i, c in enumerate(cases):
        if not _undef(c):
            res.append(None)
        elif type(ct) is Zero:
            res.append(Zero(c.aval))
        else:
            zero = np.zeros((), _aval(ct).dtype)
            picked = select_n_p.bind(which, *[ct if j == i else zero
                                              for j in range(len(cases))])
            res.append(_unbroadcast(c.aval, picked))
    return res


select_n_p.jvp, select_n_p.transpose = _select_n_jvp, _select_n_transpose


def _zero_unless(cond, g):
    return _sel(cond, _const(g, 0), g)


# The gradient flows to x strictly inside (lo, hi), to lo where it is the result (lo > x,
# lo < hi), and to hi where x > hi (as in JAX).
_r.defjvp(clamp_p,
          lambda g, lo, x, hi: _zero_unless(and_p.bind(gt_p.bind(lo, x), lt_p.bind(lo, hi)), g),
          lambda g, lo, x, hi: _zero_unless(and_p.bind(gt_p.bind(x, lo), lt_p.bind(x, hi)), g),
          lambda g, lo, x, hi: _zero_unless(lt_p.bind(hi, x), g))


def _clamp_batch(args, dims):
    lo, x, hi = args
    if dims[1] is None:  # bounds may only be batched (non-scalar) along with x
        size = next(_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
        x = _r.bdim_at_front(x, None, size)
        dims = [dims[0], 0, dims[2]]
    return clamp_p.bind(*_r.broadcast_batched_args([lo, x, hi], dims)), 0


clamp_p.batch = _clamp_batch


# -- conversions -----------------------------------------------------------------------------
def _convert_jvp(primals, tangents, *, new_dtype, weak_type=False):
    (x,), (t,) = primals, tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if type(t) is Zero or not (dtypes.is_inexact(new_dtype) and
                               dtypes.is_inexact(_aval(x).dtype)):
        return out, Zero.from_value(out)  # integer inputs or outputs carry no tangent
    return out, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type)


def _convert_transpose(ct, x, *, new_dtype, weak_type=False):
    if type(ct) is Zero or not dtypes.is_inexact(x.aval.dtype):
        return [Zero(x.aval)]
    return [convert_element_type_p.bind(ct, new_dtype=x.aval.dtype,
                                        weak_type=getattr(x.aval, "weak_type", False))]


convert_element_type_p.jvp = _convert_jvp
convert_element_type_p.transpose = _convert_transpose


def _bitcast_batch(args, dims, *, new_dtype):
    # the last dim may appear or disappear: keep the batch axis first, away from it
    return bitcast_convert_type_p.bind(_r.moveaxis(args[0], dims[0], 0),
                                       new_dtype=new_dtype), 0


bitcast_convert_type_p.batch = _bitcast_batch

# -- batching ------------------------------------------------------------------------------------
for _p in (neg_p, abs_p, sign_p, floor_p, ceil_p, is_finite_p, round_p, exp_p, exp2_p,
           expm1_p, log_p, log1p_p, sqrt_p, rsqrt_p, cbrt_p, tanh_p, logistic_p, sin_p,
           cos_p, tan_p, asin_p, acos_p, atan_p, sinh_p, cosh_p, asinh_p, acosh_p, atanh_p,
           erf_p, erfc_p, erf_inv_p, lgamma_p, digamma_p, real_p, imag_p, conj_p,
           integer_pow_p, not_p, population_count_p, convert_element_type_p):
    _r.defvectorized(_p)
for _p in (add_p, sub_p, mul_p, div_p, rem_p, pow_p, max_p, min_p, atan2_p, nextafter_p,
           complex_p, eq_p, ne_p, lt_p, le_p, gt_p, ge_p, and_p, or_p, xor_p, shift_left_p,
           shift_right_logical_p, shift_right_arithmetic_p, select_n_p):
    _r.defbroadcasting(_p)


# -- lowerings to the HLO-like graph (ctx: xla_like.hlo.Builder). Primitives named like an
# HLO elementwise op (exp, add, lt, ...) need none.
def _integer_pow_lowering(ctx, x, *, y):
    if y == 0:
        return ctx.broadcast(ctx.constant(1, x.dtype), x.shape, ())
    return _integer_pow_expand(_HloOps(ctx), x, x.dtype, y)  # the reference impl's ops


def _select_n_lowering(ctx, which, *cases):
    if len(cases) == 1:
        return ctx.broadcast(cases[0], ctx.avals_out[0].shape)
    if which.dtype == np.bool_:
        return ctx.elementwise("select", [which, cases[1], cases[0]], cases[0].dtype)
    out = cases[0]  # int index, clamped like the reference: case k wins when which >= k
    for k, c in enumerate(cases[1:], 1):
        pick = ctx.elementwise("ge", [which, ctx.constant(k, which.dtype)])
        out = ctx.elementwise("select", [pick, c, out], c.dtype)
    return out


integer_pow_p.lowering = _integer_pow_lowering
select_n_p.lowering = _select_n_lowering
clamp_p.lowering = lambda ctx, lo, x, hi: ctx.clamp(x, lo, hi)
round_p.lowering = lambda ctx, x, *, rounding_method=ROUND_AWAY_FROM_ZERO: ctx.elementwise(
    "round_even" if rounding_method == ROUND_TO_NEAREST_EVEN else "round", [x])
erf_inv_p.lowering = erf_inv_lowering


def _bitcast_lowering(ctx, x, *, new_dtype):
    """Same-width bitcasts between the kernel dtypes are a fusible reinterpretation;
    width-changing ones (a minor dim appears or goes) and bool/half stay library steps."""
    new = np.dtype(new_dtype)
    half = any(d.kind == "f" and d.itemsize == 2 for d in (new, x.dtype))
    if new.itemsize != x.dtype.itemsize or half or new.kind not in "iuf" or \
            x.dtype.kind not in "iuf":
        return NotImplemented
    return x if new == x.dtype else ctx.add("bitcast", (x,), x.shape, new)


bitcast_convert_type_p.lowering = _bitcast_lowering
convert_element_type_p.lowering = lambda ctx, x, *, new_dtype, weak_type=False: ctx.convert(
    x, new_dtype)


# The primitives whose impl is exactly one NumPy ufunc: the eager fast lane calls it
# directly (tracing.core.eager_fast), without the impl's wrapper, where its result dtype is
# the primitive's.
for _p, _name in [
        (neg_p, "negative"), (abs_p, "abs"), (exp_p, "exp"), (exp2_p, "exp2"), (log_p, "log"),
        (sqrt_p, "sqrt"), (cbrt_p, "cbrt"), (tanh_p, "tanh"),
        (sin_p, "sin"), (cos_p, "cos"), (tan_p, "tan"), (asin_p, "arcsin"),
        (acos_p, "arccos"), (atan_p, "arctan"), (sinh_p, "sinh"), (cosh_p, "cosh"),
        (asinh_p, "arcsinh"), (acosh_p, "arccosh"), (atanh_p, "arctanh"),
        (floor_p, "floor"), (ceil_p, "ceil"), (is_finite_p, "isfinite"), (conj_p, "conj"),
        (add_p, "add"), (sub_p, "subtract"), (mul_p, "multiply"), (eq_p, "equal"),
        (div_p, "true_divide"), (pow_p, "power"),  # their impls on inexact dtypes
        (ne_p, "not_equal"), (lt_p, "less"), (le_p, "less_equal"), (gt_p, "greater"),
        (ge_p, "greater_equal"), (and_p, "bitwise_and"), (or_p, "bitwise_or"),
        (xor_p, "bitwise_xor"), (not_p, "invert")]:
    _p.eager_ufunc = getattr(np, _name)
del _p, _name

# complex division: the impl, for its C99 recovery of infinite/zero quotients (NumPy's
# ufunc serves the real dtypes)
div_p.eager_numpy = lambda dx, dy: (
    functools.partial(_quiet(_div_impl), np) if dtypes.is_complex(dx) else None)

# complex power: the impl, for its limits at infinite and zero bases (NumPy's ufunc serves
# the real dtypes)
pow_p.eager_numpy = lambda dx, dy: (
    functools.partial(_quiet(_pow_impl), np) if dtypes.is_complex(dx) else None)

# log1p: NumPy's ufunc for real operands only (its complex loop loses small arguments;
# the impl's formula serves those)
log1p_p.eager_numpy = lambda dx: (
    None if dtypes.is_complex(dx) else functools.partial(_quiet_call, np.log1p))


# Shifts: NumPy's own loops where the impl's views are no-ops or change no bits. A signed
# left shift is the unsigned one's bits (two's complement, as GCC/Clang/MSVC compile C's
# ``<<``; tests/primitives check every edge amount against Python integers), and NumPy
# reads the amount as unsigned in ``npy_lshift`` itself.
shift_left_p.eager_numpy = lambda dx, dy: np.left_shift
shift_right_arithmetic_p.eager_numpy = lambda dx, dy: np.right_shift if dx.kind == "i" else None
shift_right_logical_p.eager_numpy = lambda dx, dy: np.right_shift if dx.kind == "u" else None

try:  # count_nonzero without np.count_nonzero's Python wrapper (0.1 us, not 0.25)
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # pragma: no cover - other NumPy layouts
    _count_nonzero = np.count_nonzero

#: float dtypes whose IEEE max/min runs without the impl's wrapper (bfloat16 aside)
_IEEE_FLOATS = frozenset(map(np.dtype, (np.float16, np.float32, np.float64)))


def _eager_minmax(ufunc, ieee):
    """``eager_numpy`` of max/min: NumPy's ``ufunc`` for ints and bools (no NaN, no signed
    zero), ``ieee`` for floats; complex keeps the impl."""
    count_nonzero = _count_nonzero

    def ieee_np(x, y):
        r = ufunc(x, y)
        if count_nonzero(r) == r.size:  # no zero: NumPy's answer is IEEE's (NaN passes)
            return r
        return ieee(np, x, y)
    # ``ufunc`` alone is IEEE's max/min where an operand has no zero (a nonzero number):
    # a zero result is then the other operand's own zero, sign included
    ieee_np.without_zeros = ufunc

    def for_dtypes(dx, dy):
        if dx.kind in "biu":
            return ufunc
        return ieee_np if dx in _IEEE_FLOATS else None
    return for_dtypes


max_p.eager_numpy = _eager_minmax(np.maximum, ieee_minmax.maximum)
min_p.eager_numpy = _eager_minmax(np.minimum, ieee_minmax.minimum)
