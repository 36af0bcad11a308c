"""Elementwise ``tjit.numpy`` functions (NumPy ufunc names, JAX dtype rules)."""

import numpy as np

from tjit.tracing import dtypes
from tjit import lax
from tjit.numpy._core import (
    ensure_array, promote_args, promote_args_inexact, promote_dtypes_inexact)


def _one_in(name, lax_fn, inexact=False, doc=None):
    def f(x, /):
        if inexact:
            x = promote_dtypes_inexact(ensure_array(name, x))[0]
        else:
            x = ensure_array(name, x)
        return lax_fn(x)
    f.__name__ = name
    f.__doc__ = doc or f"Elementwise ``numpy.{name}``."
    return f


def _two_in(name, lax_fn, inexact=False, doc=None):
    def f(x, y, /):
        if inexact:
            x, y = promote_args_inexact(name, x, y)
        else:
            x, y = promote_args(name, x, y)
        return lax_fn(x, y)
    f.__name__ = name
    f.__doc__ = doc or f"Elementwise ``numpy.{name}`` with broadcasting."
    return f


add = _two_in("add", lambda x, y: lax.bitwise_or(x, y) if x.dtype == np.bool_
              else lax.add(x, y))
subtract = _two_in("subtract", lax.sub)
multiply = _two_in("multiply", lambda x, y: lax.bitwise_and(x, y) if x.dtype == np.bool_
                   else lax.mul(x, y))
true_divide = _two_in("true_divide", lax.div, inexact=True)
divide = true_divide
maximum = _two_in("maximum", lax.max)
minimum = _two_in("minimum", lax.min)
arctan2 = _two_in("arctan2", lax.atan2, inexact=True)
nextafter = _two_in("nextafter", lax.nextafter, inexact=True)
equal = _two_in("equal", lax.eq)
not_equal = _two_in("not_equal", lax.ne)
less = _two_in("less", lax.lt)
less_equal = _two_in("less_equal", lax.le)
greater = _two_in("greater", lax.gt)
greater_equal = _two_in("greater_equal", lax.ge)
bitwise_and = _two_in("bitwise_and", lax.bitwise_and)
bitwise_or = _two_in("bitwise_or", lax.bitwise_or)
bitwise_xor = _two_in("bitwise_xor", lax.bitwise_xor)


def _logical(name, fn):
    def f(x, y, /):
        x, y = promote_args(name, x, y)
        return fn(_to_bool(x), _to_bool(y))
    f.__name__ = name
    return f


def _to_bool(x):
    return x if x.dtype == np.bool_ else lax.ne(x, lax.convert_element_type(0, x.dtype))


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)


def logical_not(x, /):
    return lax.bitwise_not(_to_bool(ensure_array("logical_not", x)))


def invert(x, /):
    x = ensure_array("invert", x)
    if dtypes.is_inexact(x.dtype):
        raise TypeError(f"invert: not supported for dtype {x.dtype}; only integers and bool")
    return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


def left_shift(x, y, /):
    x, y = promote_args("left_shift", x, y)
    return lax.shift_left(x, y)


def right_shift(x, y, /):
    x, y = promote_args("right_shift", x, y)
    if dtypes.is_unsigned(x.dtype):
        return lax.shift_right_logical(x, y)
    return lax.shift_right_arithmetic(x, y)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def floor_divide(x, y, /):
    """Floor division (rounds toward -inf, like NumPy)."""
    x, y = promote_args("floor_divide", x, y)
    if dtypes.is_int(x.dtype):
        q = lax.div(x, y)
        r = lax.rem(x, y)
        zero = lax.convert_element_type(0, x.dtype)
        fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(y, zero)))
        return lax.select(fix, lax.sub(q, lax.convert_element_type(1, x.dtype)), q)
    if dtypes.is_bool(x.dtype):
        raise TypeError("floor_divide: not supported for bool arrays")
    return lax.floor(lax.div(x, y)) if not dtypes.is_complex(x.dtype) else \
        _complex_unsupported("floor_divide")


def _complex_unsupported(name):
    raise TypeError(f"{name}: not supported for complex arrays")


def remainder(x, y, /):
    """Remainder with the sign of the divisor (NumPy's ``%``)."""
    x, y = promote_args("remainder", x, y)
    r = lax.rem(x, y)
    zero = lax.convert_element_type(0, x.dtype)
    fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(y, zero)))
    return lax.select(fix, lax.add(r, y), r)


mod = remainder


def fmod(x, y, /):
    x, y = promote_args("fmod", x, y)
    return lax.rem(x, y)


def divmod(x, y, /):  # noqa: A001
    return floor_divide(x, y), remainder(x, y)


def power(x, y, /):
    """x ** y with NumPy broadcasting; integer exponents on integer arrays stay integral."""
    if isinstance(y, int) and not isinstance(y, bool):
        x = ensure_array("power", x)
        if dtypes.is_int(x.dtype) and y < 0:
            raise ValueError("Integers to negative integer powers are not allowed.")
        if not dtypes.is_bool(x.dtype):
            return lax.integer_pow(x, y)
    x, y = promote_args("power", x, y)
    if dtypes.is_int(x.dtype):
        return _int_power(x, y)
    if dtypes.is_bool(x.dtype):
        raise TypeError("power: not supported for bool arrays")
    return lax.pow(x, y)


def _int_power(x, y):
    # square-and-multiply over the bits of y (static 64 steps at most)
    bits = np.dtype(y.dtype).itemsize * 8
    acc = lax.convert_element_type(lax.full_like(x, 1), x.dtype)
    base = x
    one = lax.convert_element_type(1, y.dtype)
    e = y
    for _ in range(bits):
        bit = lax.ne(lax.bitwise_and(e, one), lax.convert_element_type(0, y.dtype))
        acc = lax.select(bit, lax.mul(acc, base), acc)
        base = lax.mul(base, base)
        e = lax.shift_right_logical(e, one)
    return acc


pow = power  # noqa: A001


def float_power(x, y, /):
    x, y = promote_args("float_power", x, y)
    dt = dtypes.canonicalize(dtypes.complex128 if dtypes.is_complex(x.dtype)
                             else dtypes.float64)
    return lax.pow(lax.convert_element_type(x, dt), lax.convert_element_type(y, dt))


def negative(x, /):
    x = ensure_array("negative", x)
    if dtypes.is_bool(x.dtype):
        raise TypeError("negative: not supported for bool arrays; use logical_not")
    return lax.neg(x)


def positive(x, /):
    return ensure_array("positive", x)


def absolute(x, /):
    x = ensure_array("absolute", x)
    if dtypes.is_unsigned(x.dtype) or dtypes.is_bool(x.dtype):
        return x
    return lax.abs(x)


abs = absolute  # noqa: A001
fabs = _one_in("fabs", lax.abs, inexact=True)


def sign(x, /):
    x = ensure_array("sign", x)
    if dtypes.is_bool(x.dtype):
        return x
    return lax.sign(x)


exp = _one_in("exp", lax.exp, inexact=True)
exp2 = _one_in("exp2", lax.exp2, inexact=True)
expm1 = _one_in("expm1", lax.expm1, inexact=True)
log = _one_in("log", lax.log, inexact=True)
log1p = _one_in("log1p", lax.log1p, inexact=True)
sqrt = _one_in("sqrt", lax.sqrt, inexact=True)
cbrt = _one_in("cbrt", lax.cbrt, inexact=True)
sin = _one_in("sin", lax.sin, inexact=True)
cos = _one_in("cos", lax.cos, inexact=True)
tan = _one_in("tan", lax.tan, inexact=True)
arcsin = _one_in("arcsin", lax.asin, inexact=True)
arccos = _one_in("arccos", lax.acos, inexact=True)
arctan = _one_in("arctan", lax.atan, inexact=True)
sinh = _one_in("sinh", lax.sinh, inexact=True)
cosh = _one_in("cosh", lax.cosh, inexact=True)
tanh = _one_in("tanh", lax.tanh, inexact=True)
arcsinh = _one_in("arcsinh", lax.asinh, inexact=True)
arccosh = _one_in("arccosh", lax.acosh, inexact=True)
arctanh = _one_in("arctanh", lax.atanh, inexact=True)
asin, acos, atan, asinh, acosh, atanh = arcsin, arccos, arctan, arcsinh, arccosh, arctanh
atan2 = arctan2


def log2(x, /):
    x = promote_dtypes_inexact(ensure_array("log2", x))[0]
    return lax.div(lax.log(x), lax.log(lax.convert_element_type(2, x.dtype)))


def log10(x, /):
    x = promote_dtypes_inexact(ensure_array("log10", x))[0]
    return lax.div(lax.log(x), lax.log(lax.convert_element_type(10, x.dtype)))


def logaddexp(x, y, /):
    x, y = promote_args_inexact("logaddexp", x, y)
    amax = lax.max(x, y)
    delta = lax.sub(x, y)
    finite = lax.is_finite(amax)
    safe = lax.select(finite, lax.log1p(lax.exp(lax.neg(lax.abs(delta)))),
                      lax.full_like(amax, 0))
    return lax.select(lax.ne(delta, delta), delta, lax.add(amax, safe))


def logaddexp2(x, y, /):
    x, y = promote_args_inexact("logaddexp2", x, y)
    ln2 = lax.convert_element_type(np.log(2.0), x.dtype)
    return lax.div(logaddexp(lax.mul(x, ln2), lax.mul(y, ln2)), ln2)


def square(x, /):
    return lax.integer_pow(ensure_array("square", x), 2)


def reciprocal(x, /):
    x = ensure_array("reciprocal", x)
    return lax.integer_pow(x, -1) if dtypes.is_inexact(x.dtype) else \
        lax.div(lax.full_like(x, 1), x)


def floor(x, /):
    x = ensure_array("floor", x)
    return x if not dtypes.is_inexact(x.dtype) else lax.floor(x)


def ceil(x, /):
    x = ensure_array("ceil", x)
    return x if not dtypes.is_inexact(x.dtype) else lax.ceil(x)


def trunc(x, /):
    x = ensure_array("trunc", x)
    if not dtypes.is_inexact(x.dtype):
        return x
    return lax.select(lax.lt(x, lax.convert_element_type(0, x.dtype)), lax.ceil(x), lax.floor(x))


fix = trunc


def rint(x, /):
    x = ensure_array("rint", x)
    if not dtypes.is_inexact(x.dtype):
        return x
    return lax.round(x, lax.ROUND_TO_NEAREST_EVEN)


def round(a, decimals=0, out=None):  # noqa: A001
    """Round half to even, as NumPy does."""
    if out is not None:
        raise NotImplementedError("round: the 'out' argument is not supported (arrays are "
                                  "immutable)")
    a = ensure_array("round", a)
    if not dtypes.is_inexact(a.dtype):
        return a
    if decimals == 0:
        return lax.round(a, lax.ROUND_TO_NEAREST_EVEN)
    f = lax.convert_element_type(10.0 ** decimals, a.dtype)
    return lax.div(lax.round(lax.mul(a, f), lax.ROUND_TO_NEAREST_EVEN), f)


around = round_ = round


def isfinite(x, /):
    x = ensure_array("isfinite", x)
    if not dtypes.is_inexact(x.dtype):
        return lax.full_like(x, True, dtype=bool)
    if dtypes.is_complex(x.dtype):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


def isnan(x, /):
    x = ensure_array("isnan", x)
    if not dtypes.is_inexact(x.dtype):
        return lax.full_like(x, False, dtype=bool)
    return lax.ne(x, x)


def isinf(x, /):
    x = ensure_array("isinf", x)
    if not dtypes.is_inexact(x.dtype):
        return lax.full_like(x, False, dtype=bool)
    if dtypes.is_complex(x.dtype):
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return lax.eq(lax.abs(x), lax.convert_element_type(np.inf, x.dtype))


def isposinf(x, /):
    x = ensure_array("isposinf", x)
    return lax.eq(x, lax.convert_element_type(np.inf, x.dtype)) if dtypes.is_float(x.dtype) \
        else lax.full_like(x, False, dtype=bool)


def isneginf(x, /):
    x = ensure_array("isneginf", x)
    return lax.eq(x, lax.convert_element_type(-np.inf, x.dtype)) if dtypes.is_float(x.dtype) \
        else lax.full_like(x, False, dtype=bool)


def signbit(x, /):
    x = ensure_array("signbit", x)
    if dtypes.is_int(x.dtype):
        return lax.lt(x, lax.convert_element_type(0, x.dtype))
    if dtypes.is_bool(x.dtype):
        return lax.full_like(x, False, dtype=bool)
    itype = {2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    return lax.lt(lax.bitcast_convert_type(x, itype), lax.convert_element_type(0, itype))


def copysign(x, y, /):
    x, y = promote_args_inexact("copysign", x, y)
    return lax.select(signbit(y), lax.neg(lax.abs(x)), lax.abs(x))


def heaviside(x, h0, /):
    x, h0 = promote_args_inexact("heaviside", x, h0)
    zero = lax.full_like(x, 0)
    return lax.select(lax.lt(x, zero), zero,
                      lax.select(lax.gt(x, zero), lax.full_like(x, 1), h0))


def hypot(x, y, /):
    x, y = promote_args_inexact("hypot", x, y)
    ax, ay = lax.abs(x), lax.abs(y)
    big, small = lax.max(ax, ay), lax.min(ax, ay)
    safe = lax.select(lax.eq(big, lax.full_like(big, 0)), lax.full_like(big, 1), big)
    r = lax.div(small, safe)
    return lax.select(lax.eq(big, lax.full_like(big, 0)), big,
                      lax.mul(big, lax.sqrt(lax.add(lax.full_like(r, 1), lax.mul(r, r)))))


def deg2rad(x, /):
    x = promote_dtypes_inexact(ensure_array("deg2rad", x))[0]
    return lax.mul(x, lax.convert_element_type(np.pi / 180, x.dtype))


def rad2deg(x, /):
    x = promote_dtypes_inexact(ensure_array("rad2deg", x))[0]
    return lax.mul(x, lax.convert_element_type(180 / np.pi, x.dtype))


radians, degrees = deg2rad, rad2deg


def sinc(x, /):
    x = promote_dtypes_inexact(ensure_array("sinc", x))[0]
    pix = lax.mul(x, lax.convert_element_type(np.pi, x.dtype))
    zero = lax.eq(x, lax.full_like(x, 0))
    safe = lax.select(zero, lax.full_like(x, 1), pix)
    return lax.select(zero, lax.full_like(x, 1), lax.div(lax.sin(safe), safe))


def real(x, /):
    x = ensure_array("real", x)
    return lax.real(x) if dtypes.is_complex(x.dtype) else x


def imag(x, /):
    x = ensure_array("imag", x)
    return lax.imag(x) if dtypes.is_complex(x.dtype) else lax.full_like(x, 0)


def conjugate(x, /):
    x = ensure_array("conjugate", x)
    return lax.conj(x) if dtypes.is_complex(x.dtype) else x


conj = conjugate


def angle(z, deg=False):
    z = promote_dtypes_inexact(ensure_array("angle", z))[0]
    re, im = real(z), imag(z)
    out = lax.atan2(im, re)
    return rad2deg(out) if deg else out


def fmax(x, y, /):
    """Maximum ignoring NaNs."""
    x, y = promote_args("fmax", x, y)
    return lax.select(isnan(y), x, lax.select(isnan(x), y, lax.max(x, y)))


def fmin(x, y, /):
    x, y = promote_args("fmin", x, y)
    return lax.select(isnan(y), x, lax.select(isnan(x), y, lax.min(x, y)))


def gcd(x1, x2, /):
    x1, x2 = promote_args("gcd", x1, x2)
    if not dtypes.is_int(x1.dtype):
        raise TypeError(f"gcd: arguments must be integers, got {x1.dtype}")
    a, b = lax.abs(x1), lax.abs(x2)
    zero = lax.full_like(a, 0)

    def cond(c):
        from tjit.numpy._reductions import any as _any
        return _any(lax.ne(c[1], zero))

    def body(c):
        a, b = c
        safe_b = lax.select(lax.eq(b, zero), lax.full_like(b, 1), b)
        return (lax.select(lax.eq(b, zero), a, b),
                lax.select(lax.eq(b, zero), zero, lax.rem(a, safe_b)))
    return lax.while_loop(cond, body, (a, b))[0]


def lcm(x1, x2, /):
    x1, x2 = promote_args("lcm", x1, x2)
    g = gcd(x1, x2)
    zero = lax.full_like(g, 0)
    safe = lax.select(lax.eq(g, zero), lax.full_like(g, 1), g)
    return lax.select(lax.eq(g, zero), zero, lax.abs(lax.mul(lax.div(x1, safe), x2)))


def ldexp(x1, x2, /):
    x1 = promote_dtypes_inexact(ensure_array("ldexp", x1))[0]
    x2 = ensure_array("ldexp", x2)
    return multiply(x1, power(lax.convert_element_type(2, x1.dtype),
                              lax.convert_element_type(x2, x1.dtype)))


def frexp(x, /):
    x = promote_dtypes_inexact(ensure_array("frexp", x))[0]
    ax = lax.abs(x)
    zero = lax.eq(ax, lax.full_like(ax, 0))
    safe = lax.select(zero, lax.full_like(ax, 1), ax)
    e = lax.add(lax.floor(log2(safe)), lax.full_like(ax, 1))
    m = lax.div(x, power(lax.convert_element_type(2, x.dtype), e))
    return (lax.select(zero, x, m),
            lax.convert_element_type(lax.select(zero, lax.full_like(e, 0), e),
                                     dtypes.default_int()))


def modf(x, /):
    t = trunc(x)
    return subtract(x, t), t


def i0(x):
    raise NotImplementedError("i0 is not implemented in tjit yet")


__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "np", "dtypes", "lax", "ensure_array", "promote_args", "promote_args_inexact",
    "promote_dtypes_inexact")]
