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
* ``max``/``min`` propagate NaN;
* floating-point exceptions (``log(-1)``, ``1/0``, overflow) give NaN/inf silently:
  impls run with NumPy's floating-point warnings off, as JAX never warns.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray, aval_of_value
from tjit.tracing.core import never_weak
from tjit.primitives import base
from tjit.primitives.base import (
    ANY, FLOAT, INT, INT_OR_BOOL, NUMBER, REAL_FLOAT, check_dtype_kind, new_primitive,
    same_dtypes, same_shapes)

try:  # fast path: set NumPy's error state without building an np.errstate each call
    from numpy._core.umath import _extobj_contextvar, _make_extobj
    _IGNORE_ALL = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):  # pragma: no cover - other NumPy versions
    _extobj_contextvar = None


def _quiet(impl):
    """``impl`` with NumPy's floating-point warnings (divide, invalid, overflow) off:
    JAX returns inf/NaN silently, so eager tjit must not warn either."""
    if _extobj_contextvar is None:  # pragma: no cover
        def quiet_impl(xp, *args, **params):
            with np.errstate(all="ignore"):
                return impl(xp, *args, **params)
    else:
        def quiet_impl(xp, *args, **params):
            token = _extobj_contextvar.set(_IGNORE_ALL)
            try:
                return impl(xp, *args, **params)
            finally:
                _extobj_contextvar.reset(token)
    quiet_impl.__name__ = getattr(impl, "__name__", "impl")
    quiet_impl.__wrapped__ = impl
    return quiet_impl




def unop(name, impl, kind=NUMBER, result_dtype=None):
    """:func:`base.unop` whose impl checks its operand and never warns."""
    p = base.unop(name, impl, kind, result_dtype)
    p.def_impl(_quiet(impl))
    return p


def binop(name, impl, kind=NUMBER, result_dtype=None):
    """:func:`base.binop` whose impl checks its operands and never warns."""
    p = base.binop(name, impl, kind, result_dtype)
    p.def_impl(_quiet(impl))
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
sign_p = unop("sign", lambda xp, x: _same(xp, xp.sign(x), x))
floor_p = unop("floor", lambda xp, x: xp.floor(x), kind=REAL_FLOAT)
ceil_p = unop("ceil", lambda xp, x: xp.ceil(x), kind=REAL_FLOAT)
is_finite_p = unop("is_finite", lambda xp, x: xp.isfinite(x), kind=REAL_FLOAT,
                   result_dtype=lambda dt: dtypes.bool_)

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
expm1_p = unop("expm1", lambda xp, x: xp.expm1(x), kind=FLOAT)
log_p = unop("log", lambda xp, x: xp.log(x), kind=FLOAT)
log1p_p = unop("log1p", lambda xp, x: xp.log1p(x), kind=FLOAT)
sqrt_p = unop("sqrt", lambda xp, x: xp.sqrt(x), kind=FLOAT)
rsqrt_p = unop("rsqrt", lambda xp, x: _same(xp, 1 / xp.sqrt(x), x), kind=FLOAT)
cbrt_p = unop("cbrt", lambda xp, x: xp.cbrt(x), kind=REAL_FLOAT)
tanh_p = unop("tanh", lambda xp, x: xp.tanh(x), kind=FLOAT)


def _logistic_impl(xp, x):
    if dtypes.is_complex(x.dtype):
        return _same(xp, 1 / (1 + xp.exp(-x)), x)
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
erfc_p = unop("erfc", lambda xp, x: _same(xp, special(xp).erfc(x), x), kind=REAL_FLOAT)
erf_inv_p = unop("erf_inv", lambda xp, x: _same(xp, special(xp).erfinv(x), x),
                 kind=REAL_FLOAT)
lgamma_p = unop("lgamma", lambda xp, x: _same(xp, special(xp).gammaln(x), x),
                kind=REAL_FLOAT)
digamma_p = unop("digamma", lambda xp, x: _same(xp, special(xp).digamma(x), x),
                 kind=REAL_FLOAT)

real_p = unop("real", lambda xp, x: xp.real(x).copy(),
              kind=ANY, result_dtype=lambda dt: _REAL_OF.get(dt, dt))
imag_p = unop("imag", lambda xp, x: xp.imag(x).copy(),
              kind=ANY, result_dtype=lambda dt: _REAL_OF.get(dt, dt))
conj_p = unop("conj", lambda xp, x: xp.conj(x), kind=ANY)
for _p in (real_p, imag_p):
    _p.def_weak_type(lambda w, **_: w)


def _integer_pow_impl(xp, x, *, y):
    if y < 0 and dtypes.is_int(x.dtype):
        _integer_pow_abstract(aval_of_value(x), y=y)  # raises tjit's TypeError
    if y == 0:
        return xp.ones_like(x)
    acc = None
    b = x
    n = abs(y)
    while n:  # exponentiation by squaring, as XLA expands it
        if n & 1:
            acc = b if acc is None else acc * b
        n >>= 1
        if n:
            b = b * b
    if y < 0:
        acc = x.dtype.type(1) / acc
    return _same(xp, acc, x)


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
            x.dtype.type(np.iinfo(x.dtype).max)
        return _same(xp, xp.where(y == 0, by_zero, q), x)
    return _same(xp, xp.true_divide(x, y), x)


def _rem_impl(xp, x, y):
    if dtypes.is_int(x.dtype):
        safe = xp.where(y == 0, y.dtype.type(1), y)
        return _same(xp, xp.where(y == 0, x, xp.fmod(x, safe)), x)  # XLA: x rem 0 = x
    return _same(xp, xp.fmod(x, y), x)


div_p = binop("div", _div_impl)
rem_p = binop("rem", _rem_impl)
pow_p = binop("pow", lambda xp, x, y: _same(xp, xp.power(x, y), x), kind=FLOAT)
max_p = binop("max", lambda xp, x, y: _same(xp, xp.maximum(x, y), x), kind=ANY)
min_p = binop("min", lambda xp, x, y: _same(xp, xp.minimum(x, y), x), kind=ANY)
atan2_p = binop("atan2", lambda xp, x, y: _same(xp, xp.arctan2(x, y), x), kind=REAL_FLOAT)
nextafter_p = binop("nextafter", lambda xp, x, y: _same(xp, xp.nextafter(x, y), x),
                    kind=REAL_FLOAT)


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

# -- bitwise and logical -------------------------------------------------------------------
and_p = binop("and", lambda xp, x, y: _same(xp, xp.bitwise_and(x, y), x), kind=INT_OR_BOOL)
or_p = binop("or", lambda xp, x, y: _same(xp, xp.bitwise_or(x, y), x), kind=INT_OR_BOOL)
xor_p = binop("xor", lambda xp, x, y: _same(xp, xp.bitwise_xor(x, y), x), kind=INT_OR_BOOL)
not_p = unop("not", lambda xp, x: xp.invert(x), kind=INT_OR_BOOL)


def _nbits(dt):
    return np.dtype(dt).itemsize * 8


def _unsigned(dt):
    return np.dtype(f"u{np.dtype(dt).itemsize}")


def _shift_left(xp, x, y):
    bits = _nbits(x.dtype)
    oob = (y < 0) | (y >= bits)
    ys = xp.where(oob, 0, y).astype(_unsigned(x.dtype))
    out = (x.astype(_unsigned(x.dtype)) << ys).astype(x.dtype)
    return _same(xp, xp.where(oob, x.dtype.type(0), out), x)


def _shift_right_logical(xp, x, y):
    bits = _nbits(x.dtype)
    oob = (y < 0) | (y >= bits)
    ys = xp.where(oob, 0, y).astype(_unsigned(x.dtype))
    out = (x.astype(_unsigned(x.dtype)) >> ys).astype(x.dtype)
    return _same(xp, xp.where(oob, x.dtype.type(0), out), x)


def _shift_right_arithmetic(xp, x, y):
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
    return _same(xp, xp.minimum(xp.maximum(x, lo), hi), x)
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
    if dtypes.is_complex(x.dtype) and not dtypes.is_complex(new_dtype):
        x = xp.real(x)
    if dtypes.is_inexact(x.dtype) and dtypes.is_int(new_dtype):
        info = np.iinfo(new_dtype)
        if x.dtype == np.float16:  # its range cannot hold the integer bounds (-> inf)
            x = x.astype(np.float32)
        x = xp.where(xp.isnan(x), x.dtype.type(0), x)
        clipped = xp.clip(x, float(info.min), float(info.max))
        out = clipped.astype(new_dtype)
        # float(info.max) may round up past the max (e.g. int32): saturate exactly
        out = xp.where(clipped >= float(info.max), new_dtype.type(info.max), out)
        return out.astype(new_dtype)
    if new_dtype == dtypes.bool_:
        return xp.asarray(x != 0)
    return x.astype(new_dtype)


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
# (jvp / transpose / batching; see primitives/rules.py for the helpers' contracts)
from tjit.primitives import rules as _r  # noqa: E402
from tjit.tracing.core import get_aval as _aval  # noqa: E402


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


_r.defjvp(sin_p, lambda g, x: mul_p.bind(g, cos_p.bind(x)))
_r.defjvp(cos_p, lambda g, x: neg_p.bind(mul_p.bind(g, sin_p.bind(x))))
_r.defjvp2(exp_p, lambda g, ans, x: mul_p.bind(g, ans))
_r.defjvp(log_p, lambda g, x: div_p.bind(g, x))
_r.defjvp2(tanh_p, lambda g, ans, x: mul_p.bind(
    g, sub_p.bind(_const(ans, 1), mul_p.bind(ans, ans))))

_r.deflinear(neg_p, lambda ct, x: [neg_p.bind(ct)])


def _add_transpose(ct, x, y):
    return [_unbroadcast(x.aval, ct) if _r.is_undefined_primal(x) else None,
            _unbroadcast(y.aval, ct) if _r.is_undefined_primal(y) else None]


def _sub_transpose(ct, x, y):
    return [_unbroadcast(x.aval, ct) if _r.is_undefined_primal(x) else None,
            _unbroadcast(y.aval, neg_p.bind(ct)) if _r.is_undefined_primal(y) else None]


def _add_jvp(primals, tangents):
    x, y = primals
    out = add_p.bind(x, y)
    tx, ty = tangents
    shape = tuple(_aval(out).shape)
    tx, ty = (_r.Zero(_r.tangent_aval(_aval(out))) if type(t) is _r.Zero else
              (t if tuple(_aval(t).shape) == shape else _bcast(t, shape)) for t in (tx, ty))
    return out, _r.add_tangents(tx, ty)


def _bcast(t, shape):
    from tjit.primitives.structural import broadcast_in_dim_p
    return broadcast_in_dim_p.bind(t, shape=shape, broadcast_dimensions=())


def _sub_jvp(primals, tangents):
    out, t = _add_jvp(primals, [tangents[0], _r.Zero(_r.tangent_aval(_aval(primals[1])))
                                if type(tangents[1]) is _r.Zero else neg_p.bind(tangents[1])])
    return sub_p.bind(*primals), t


add_p.jvp, add_p.transpose = _add_jvp, _add_transpose
sub_p.jvp, sub_p.transpose = _sub_jvp, _sub_transpose
_r.defjvp(mul_p, lambda g, x, y: mul_p.bind(g, y), lambda g, x, y: mul_p.bind(x, g))


def _mul_transpose(ct, x, y):
    if _r.is_undefined_primal(x):
        return [_unbroadcast(x.aval, mul_p.bind(ct, y)), None]
    return [None, _unbroadcast(y.aval, mul_p.bind(x, ct))]


mul_p.transpose = _mul_transpose
_r.defjvp(div_p, lambda g, x, y: div_p.bind(g, y),
          lambda g, x, y: mul_p.bind(neg_p.bind(g), div_p.bind(x, mul_p.bind(y, y))))
div_p.transpose = lambda ct, x, y: [_unbroadcast(x.aval, div_p.bind(ct, y)), None]

for _p in (sin_p, cos_p, exp_p, log_p, tanh_p, neg_p):
    _r.defvectorized(_p)
for _p in (add_p, sub_p, mul_p, div_p):
    _r.defbroadcasting(_p)
