"""``tjit.lax`` elementwise functions: thin wrappers that bind primitives.

Like ``jax.lax``, these do not broadcast or promote arrays (use ``tjit.numpy`` for
that); a Python scalar operand takes the dtype of the array operand (weak typing).
"""

import builtins
import enum

import numpy as np

from tjit.config import config
from tjit.tracing import dtypes, transfer_guard
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import static_index
from tjit.tracing.basearray import refusal_hint
from tjit.tracing.extended_dtypes import ExtendedArray
from tjit.tracing.traceback_util import filter_at_entry as _filter_at_entry
from tjit.primitives import elementwise as ew
from tjit.primitives.complex_square import square_p


def is_arraylike(x):
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic))


# Python scalar type -> dtype kinds it converts to without losing information
_SCALAR_FITS = {bool: "b", int: "iufc", float: "fc", complex: "c"}


def asarray_for_lax(x, like_dtype=None):
    """Python scalar -> weakly typed 0-d Array (of ``like_dtype`` if given); NumPy
    values -> Arrays of their canonical dtype (copied, so the Array never aliases a
    mutable user buffer)."""
    if isinstance(x, (Array, Tracer)):
        return x
    if config.guards_host_to_device:
        transfer_guard.check_host_operand(x, "tjit.lax")
    if isinstance(x, (np.ndarray, np.generic)):
        dt = dtypes.check_dtype(dtypes.canonicalize(x.dtype), "tjit.lax")
        v = np.asarray(x)
        return Array(v.astype(dt) if v.dtype != dt or v is x else v, False)
    if isinstance(x, (bool, int, float, builtins.complex)):
        dt = dtypes.dtype_of_python_scalar(x) if like_dtype is None else np.dtype(like_dtype)
        kind = bool if isinstance(x, bool) else type(x) if type(x) in _SCALAR_FITS else \
            next(t for t in (int, float, builtins.complex) if isinstance(x, t))
        # (bfloat16, float8s and int4s have NumPy kind "V")
        if dtypes.kind(dt) not in _SCALAR_FITS[kind]:
            raise TypeError(f"tjit.lax: the Python {kind.__name__} {x!r} cannot be used "
                            f"with an operand of dtype {dt} without losing information; "
                            f"lax does not promote: convert explicitly (e.g. "
                            f"lax.convert_element_type) or use tjit.numpy")
        if kind is int:  # it must fit an integer dt; else the default int, as in JAX
            fit = dt if dtypes.is_int(dt) else dtypes.default_int()  # (float32 + 2**40)
            lo, hi = dtypes.int_range(fit)
            if not lo <= x <= hi:
                raise OverflowError(f"Python int {x} too large to convert to "
                                    f"{np.dtype(fit)}")
        return Array(np.asarray(x, dt), kind is not bool)
    raise TypeError(f"tjit.lax: expected an array or scalar, got {type(x).__name__}: "
                    f"{x!r:.60}{refusal_hint(x)}")


def _scalars_like_arrays(*args):
    like = next((a.dtype for a in args if is_arraylike(a)), None)
    if like is not None:
        like = dtypes.canonicalize(like)
    return [asarray_for_lax(a, like) for a in args]


# The functions below filter what they raise themselves (filter_at_entry: their errors
# end in the user's code, at no cost until one raises) rather than get a wrapper from
# the namespace: tables keyed by them (lax.reduce's and reduce_window's monoids) and
# users' `fn is lax.add` keep working.
def _unary(prim, doc, name=None):
    label = f"lax.{name or prim.name}"  # noted on a message that names no lax function
    def f(x):
        try:
            return prim.bind(asarray_for_lax(x))
        except Exception as e:
            _filter_at_entry(e, label)
            raise
    f.__name__ = prim.name
    f.__doc__ = doc
    f.prim = prim  # what tjit.numpy's eager fast lane binds directly
    return f


class Tolerance:
    """The tolerances a unary function's result must meet, as ``jax.lax.Tolerance``: at
    most two of ``atol``, ``rtol`` and ``ulps``, none negative, one non-zero."""

    def __init__(self, atol=0.0, rtol=0.0, ulps=0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps

    def __repr__(self):
        return f"Tolerance(atol={self.atol}, rtol={self.rtol}, ulps={self.ulps})"


class AccuracyMode(enum.Enum):
    """``jax.lax.AccuracyMode``: which implementation of a unary function to use."""
    HIGHEST = 1
    DEFAULT = 2


def _unary_with_accuracy(prim, doc):
    """``_unary`` with JAX's ``accuracy=`` (None, a :class:`Tolerance` or an
    :class:`AccuracyMode`). tjit has one implementation of each function, tested against
    float64 to a few ulps; like XLA on the CPU, which JAX compiles to there, it runs
    that implementation whatever the request."""
    label = f"lax.{prim.name}"  # noted on a message that names no lax function
    def f(x, *, accuracy=None):
        try:
            if accuracy is not None and not isinstance(accuracy, (Tolerance, AccuracyMode)):
                raise NotImplementedError(f"Accuracy {accuracy!r} not supported by lax."
                                          f"{prim.name}: pass None, a lax.Tolerance or a "
                                          f"lax.AccuracyMode")
            return prim.bind(asarray_for_lax(x))
        except Exception as e:
            _filter_at_entry(e, label)
            raise
    f.__name__ = prim.name
    f.__doc__ = doc + (" ``accuracy``: None, a ``lax.Tolerance`` or ``lax.AccuracyMode``"
                       " (accepted as on XLA's CPU backend: one implementation).")
    f.prim = prim
    return f


_ARRAYS = (Array, Tracer)


def _binary(prim, doc, name=None):
    label = f"lax.{name or prim.name}"  # noted on a message that names no lax function
    def f(x, y):
        try:
            if not (isinstance(x, _ARRAYS) and isinstance(y, _ARRAYS)):
                x, y = _scalars_like_arrays(x, y)
            return prim.bind(x, y)
        except Exception as e:
            _filter_at_entry(e, label)
            raise
    f.__name__ = prim.name
    f.__doc__ = doc
    f.prim = prim  # what tjit.numpy's eager fast lane binds directly
    return f


neg = _unary(ew.neg_p, "Elementwise negation: -x.")
abs = _unary(ew.abs_p, "Elementwise absolute value (|x|, magnitude for complex).")  # noqa: A001
sign = _unary(ew.sign_p, "Elementwise sign.")
floor = _unary(ew.floor_p, "Elementwise floor.")
ceil = _unary(ew.ceil_p, "Elementwise ceil.")
is_finite = _unary(ew.is_finite_p, "Elementwise isfinite.")
exp = _unary_with_accuracy(ew.exp_p, "Elementwise e**x.")
exp2 = _unary_with_accuracy(ew.exp2_p, "Elementwise 2**x.")
expm1 = _unary_with_accuracy(ew.expm1_p, "Elementwise e**x - 1.")
log = _unary_with_accuracy(ew.log_p, "Elementwise natural log.")
log1p = _unary_with_accuracy(ew.log1p_p, "Elementwise log(1 + x).")
sqrt = _unary_with_accuracy(ew.sqrt_p, "Elementwise square root.")
rsqrt = _unary_with_accuracy(ew.rsqrt_p, "Elementwise 1/sqrt(x).")
cbrt = _unary_with_accuracy(ew.cbrt_p, "Elementwise cube root.")
tanh = _unary_with_accuracy(ew.tanh_p, "Elementwise tanh.")
logistic = _unary_with_accuracy(ew.logistic_p, "Elementwise 1/(1 + e**-x).")
sin = _unary_with_accuracy(ew.sin_p, "Elementwise sine.")
cos = _unary_with_accuracy(ew.cos_p, "Elementwise cosine.")
tan = _unary_with_accuracy(ew.tan_p, "Elementwise tangent.")
asin = _unary(ew.asin_p, "Elementwise arcsine.")
acos = _unary(ew.acos_p, "Elementwise arccosine.")
atan = _unary(ew.atan_p, "Elementwise arctangent.")
sinh = _unary(ew.sinh_p, "Elementwise sinh.")
cosh = _unary(ew.cosh_p, "Elementwise cosh.")
asinh = _unary(ew.asinh_p, "Elementwise asinh.")
acosh = _unary(ew.acosh_p, "Elementwise acosh.")
atanh = _unary(ew.atanh_p, "Elementwise atanh.")
erf = _unary(ew.erf_p, "Elementwise error function.")
erfc = _unary(ew.erfc_p, "Elementwise complementary error function.")
erf_inv = _unary(ew.erf_inv_p, "Elementwise inverse error function.")
lgamma = _unary(ew.lgamma_p, "Elementwise log|Gamma(x)|.")
digamma = _unary(ew.digamma_p, "Elementwise digamma.")
real = _unary(ew.real_p, "Real part.")
imag = _unary(ew.imag_p, "Imaginary part.")
_conj = _unary(ew.conj_p, "Complex conjugate.")


def conj(x):
    """Complex conjugate. As JAX's, the result is complex: a float32 (float64) input is
    made complex64 (complex128) first, its weak type kept."""
    x = asarray_for_lax(x)
    if not dtypes.is_inexact(x.dtype):  # JAX's conj takes floats and complex numbers only
        raise TypeError(f"lax.conj does not accept dtype {x.dtype}; convert it to a "
                        f"floating or complex dtype first (jnp.conj takes any number)")
    if x.dtype in (dtypes.float32, dtypes.float64):
        cdt = dtypes.complex128 if x.dtype == dtypes.float64 else dtypes.complex64
        x = convert_element_type(x, cdt, weak_type=getattr(x, "weak_type", False))
    return _conj(x)
bitwise_not = _unary(ew.not_p, "Elementwise bitwise/logical not.", "bitwise_not")
population_count = _unary(ew.population_count_p, "Number of set bits.")

add = _binary(ew.add_p, "Elementwise x + y.")
sub = _binary(ew.sub_p, "Elementwise x - y.")
_mul_same = _binary(ew.mul_p, "Elementwise x * y.")


def mul(x, y, *, out_dtype=None):
    """Elementwise ``x * y``, as ``jax.lax.mul``; ``out_dtype`` (optional): the product
    in that dtype, computed from both operands converted to it."""
    try:
        if out_dtype is not None:
            x, y = convert_element_type(x, out_dtype), convert_element_type(y, out_dtype)
        return _mul_same(x, y)
    except Exception as e:
        _filter_at_entry(e, "lax.mul")
        raise


mul.prim = ew.mul_p  # what tjit.numpy's eager fast lane binds directly
div = _binary(ew.div_p, "Elementwise x / y (integer division rounds toward zero; x / 0 is -1, "
                       "all ones unsigned; INT_MIN / -1 is INT_MIN, as in XLA).")
rem = _binary(ew.rem_p, "Elementwise remainder with the sign of x (C fmod; integer x rem 0 is "
                       "x, as in XLA).")
_pow_same = _binary(ew.pow_p, "Elementwise x ** y.")


def pow(x, y):  # noqa: A001
    """Elementwise ``x ** y``, as ``jax.lax.pow``.

    Args:
      x: the base, of a float or complex dtype.
      y: the exponent: of ``x``'s dtype, or of an integer dtype (a float32 base with an
        int32 exponent array gives float32).

    Returns:
      An array of ``x``'s dtype.
    """
    try:
        if isinstance(y, (Array, Tracer, np.ndarray, np.generic)) and \
                dtypes.is_int(np.dtype(y.dtype)):
            x = asarray_for_lax(x)
            if not dtypes.is_inexact(x.dtype):
                raise TypeError(f"pow: the base must have a float or complex dtype, got "
                                f"{np.dtype(x.dtype)}; convert it with x.astype(...) "
                                f"or use lax.integer_pow for a static exponent")
            # XLA's pow takes one dtype: the integer exponent is converted to the base's,
            # as JAX's lowering does; its derivative is the base's alone.
            y = convert_element_type(y, x.dtype)
        return _pow_same(x, y)
    except Exception as e:
        _filter_at_entry(e, "lax.pow")
        raise


pow.prim = ew.pow_p  # what tjit.numpy's eager fast lane binds directly (same dtypes)
max = _binary(ew.max_p, "Elementwise maximum (NaN-propagating; -0.0 < +0.0, so "  # noqa: A001
              "max(+0.0, -0.0) is +0.0 in either order).")
min = _binary(ew.min_p, "Elementwise minimum (NaN-propagating; -0.0 < +0.0, so "  # noqa: A001
              "min(+0.0, -0.0) is -0.0 in either order).")
atan2 = _binary(ew.atan2_p, "Elementwise atan2(x, y).")
_nextafter = _binary(ew.nextafter_p, "Next float after x1 towards x2.")


def nextafter(x1, x2):
    """The next float after ``x1`` towards ``x2``, as ``jax.lax.nextafter`` (its argument
    names)."""
    try:
        return _nextafter.prim.bind(*_scalars_like_arrays(x1, x2))
    except Exception as e:
        _filter_at_entry(e, "lax.nextafter")
        raise


nextafter.prim = ew.nextafter_p
complex = _binary(ew.complex_p, "x + 1j*y.")  # noqa: A001
eq = _binary(ew.eq_p, "Elementwise x == y.")
ne = _binary(ew.ne_p, "Elementwise x != y.")
lt = _binary(ew.lt_p, "Elementwise x < y.")
le = _binary(ew.le_p, "Elementwise x <= y.")
gt = _binary(ew.gt_p, "Elementwise x > y.")
ge = _binary(ew.ge_p, "Elementwise x >= y.")
bitwise_and = _binary(ew.and_p, "Elementwise bitwise/logical and.", "bitwise_and")
bitwise_or = _binary(ew.or_p, "Elementwise bitwise/logical or.", "bitwise_or")
bitwise_xor = _binary(ew.xor_p, "Elementwise bitwise/logical xor.", "bitwise_xor")
shift_left = _binary(ew.shift_left_p, "x << y (0 when y < 0 or y >= bit width).")
shift_right_logical = _binary(ew.shift_right_logical_p, "Logical right shift (0 when y < 0 "
                                                         "or y >= bit width).")
shift_right_arithmetic = _binary(ew.shift_right_arithmetic_p, "Arithmetic right shift (the "
                                                               "sign fill when y < 0 or y >= "
                                                               "bit width).")


def round(x, rounding_method=ew.ROUND_AWAY_FROM_ZERO):  # noqa: A001
    """Round to the nearest integer (ties away from zero, or to even with
    ``rounding_method=1``)."""
    return ew.round_p.bind(asarray_for_lax(x), rounding_method=int(rounding_method))


def integer_pow(x, y):
    """x ** y for a static Python int ``y`` (negative ``y`` needs an inexact ``x``)."""
    y = static_index(y, "exponent y", "integer_pow", alternative="lax.pow")
    return ew.integer_pow_p.bind(asarray_for_lax(x), y=y)


def square(x):
    """square(x): ``x * x`` elementwise, as ``jax.lax.square`` (no promotion: Python
    scalars take ``x``'s dtype). A complex ``a + bj`` squares as JAX's does, to
    ``(a - b)(a + b) + 2ab j``: no overflow where the product's ``a*a - b*b`` would.

    Example::

        >>> lax.square(jnp.asarray([1.5, -2.0]))
        Array([2.25, 4.  ], dtype=float32)
    """
    x = asarray_for_lax(x)
    if dtypes.is_complex(x.dtype):  # (complex_square.py)
        return square_p.bind(x)
    return integer_pow(x, 2)


def reciprocal(x):
    """reciprocal(x): ``1 / x`` elementwise, as ``jax.lax.reciprocal`` (an integer ``x``
    divides as integers, as ``lax.integer_pow(x, -1)``).

    Example::

        >>> lax.reciprocal(jnp.asarray([2.0, -0.5]))
        Array([ 0.5, -2. ], dtype=float32)
    """
    return integer_pow(x, -1)


def select_n(which, *cases):
    """cases[which] elementwise; ``which`` is bool (2 cases) or of any integer dtype
    (out-of-range values take the nearest case, as JAX's tests expect of XLA)."""
    cases = _scalars_like_arrays(*cases)
    which = asarray_for_lax(which)
    wdt = np.dtype(which.dtype)
    if dtypes.is_int(wdt) and wdt != np.int32:
        # the primitive reads int32: clamp wide types first so that no value wraps
        if wdt.itemsize >= 4:
            which = clamp(0, which, builtins.max(len(cases) - 1, 0))
        which = convert_element_type(which, np.int32)
    return ew.select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    """on_true where pred else on_false (same shapes and dtypes)."""
    if isinstance(on_true, ExtendedArray) or isinstance(on_false, ExtendedArray):  # keys
        ext = on_true if isinstance(on_true, ExtendedArray) else on_false
        return type(ext)._where(pred, on_true, on_false, "lax.select")
    return select_n(pred, on_false, on_true)


def clamp(min, x, max):  # noqa: A002
    """min(max(x, min), max) with scalar or same-shape bounds (``lax.max``/``lax.min``'s
    NaN and signed-zero rules)."""
    x = asarray_for_lax(x)
    lo, hi = (asarray_for_lax(b, dtypes.canonicalize(x.dtype)) for b in (min, max))
    return ew.clamp_p.bind(lo, x, hi)


def convert_element_type(operand, new_dtype, weak_type=False):
    """Convert ``operand`` to ``new_dtype`` (float->int truncates toward zero and
    saturates: +-inf and out-of-range values give the int's max/min; NaN becomes 0, as
    in XLA)."""
    new_dtype = dtypes.canonicalize(dtypes.check_dtype(new_dtype, "convert_element_type"))
    t = type(operand)
    if t in (int, float, builtins.complex) and dtypes.kind(new_dtype) in "fc" and \
            dtypes.kind(new_dtype) in _SCALAR_FITS[t]:
        # a Python number becomes a float/complex new_dtype directly, as in JAX: 2**40
        # becomes float32 without a stop in the default int, which it does not fit
        with np.errstate(over="ignore"):  # 1e300 as float32 is inf, silently (as JAX)
            # already new_dtype: the conversion below would return it unchanged
            return Array(np.asarray(operand, new_dtype), weak_type)
    else:
        x = asarray_for_lax(operand)
    if x.dtype == new_dtype and getattr(x, "weak_type", False) == weak_type:
        return x
    if not weak_type and (t in (bool, int, float, builtins.complex) or
                          isinstance(operand, np.generic) or
                          (isinstance(operand, np.ndarray) and operand.ndim == 0)):
        # a Python or NumPy scalar converts now, as JAX's: inside a trace a constant, no
        # equation (jnp.zeros(3) is one broadcast of 0.0:f32[], as JAX prints it)
        value = ew.convert_element_type_p.impl(np, np.asarray(x), new_dtype=new_dtype,
                                               weak_type=False)
        return Array(np.asarray(value), False)
    return ew.convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of ``operand`` as ``new_dtype``."""
    new_dtype = dtypes.canonicalize(dtypes.check_dtype(new_dtype, "bitcast_convert_type"))
    operand = asarray_for_lax(operand)
    odt = operand.dtype
    if odt != new_dtype and any(dtypes.is_bool(d) or dtypes.is_complex(d)
                                for d in (odt, new_dtype)):
        # JAX's rule: their bit layouts are not a contract
        raise TypeError(f"lax.bitcast_convert_type does not support bool or complex values "
                        f"unless the operand and destination types match; got operand "
                        f"{odt} and new_dtype {new_dtype}")
    return ew.bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


# Python keywords as names
bitwise_and_ = bitwise_and


__all__ = [
    "neg", "abs", "sign", "floor", "ceil", "is_finite", "exp", "exp2", "expm1", "log",
    "log1p", "sqrt", "rsqrt", "cbrt", "tanh", "logistic", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erf_inv",
    "lgamma", "digamma", "real", "imag", "conj", "bitwise_not", "population_count", "add",
    "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "nextafter", "complex", "eq",
    "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor", "shift_left",
    "shift_right_logical", "shift_right_arithmetic", "round", "integer_pow", "square",
    "reciprocal", "select_n", "select", "clamp", "convert_element_type",
    "bitcast_convert_type", "Tolerance", "AccuracyMode"
]
