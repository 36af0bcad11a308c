"""``lax.mulhi`` and ``lax.reduce_precision``: bit-level integer and float operations
composed of integer lax ops (no new primitive, so every backend runs them as fused
elementwise code)."""

import functools

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import get_aval
from tjit.tracing.errors import static_index
from tjit.transforms.custom_derivatives import custom_jvp
from tjit.transforms.linear_call import linear_call
from tjit.lax._elementwise import (
    _scalars_like_arrays, add, asarray_for_lax, bitcast_convert_type, bitwise_and, bitwise_or,
    convert_element_type, gt, le, lt, mul, ne, select, shift_right_arithmetic,
    shift_right_logical, sub)
from tjit.lax._structural import full_like

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _const(value, like):
    # a NumPy scalar of like's dtype: a Python int above int64's range would not convert
    return full_like(like, np.asarray(value, np.dtype(get_aval(like).dtype)))


def _mulhi_unsigned(u, v):
    """High half of the 2w-bit product of w-bit unsigned ``u``, ``v``, in w-bit arithmetic
    (Hacker's Delight 8-2: half-word partial products never overflow)."""
    half = np.dtype(get_aval(u).dtype).itemsize * 4
    mask, h = _const((1 << half) - 1, u), _const(half, u)
    u0, u1 = bitwise_and(u, mask), shift_right_logical(u, h)
    v0, v1 = bitwise_and(v, mask), shift_right_logical(v, h)
    t = add(mul(u1, v0), shift_right_logical(mul(u0, v0), h))
    w1 = add(mul(u0, v1), bitwise_and(t, mask))
    return add(add(mul(u1, v1), shift_right_logical(t, h)), shift_right_logical(w1, h))


def mulhi(x, y):
    """The high half of the full-width product of integers, as ``jax.lax.mulhi``: for
    N-bit ``x`` and ``y``, the upper N bits of their 2N-bit product (signed for signed
    dtypes, e.g. ``mulhi(int32(-1), int32(1)) == -1``).

    Args:
      x, y: integer arrays of one dtype and shape (Python ints take the other's dtype).
    """
    x, y = _scalars_like_arrays(x, y)
    dt = np.dtype(get_aval(x).dtype)
    if dt != get_aval(y).dtype or not dtypes.is_int(dt):
        raise TypeError(f"lax.mulhi: operands must be integers of one dtype, got {dt} and "
                        f"{np.dtype(get_aval(y).dtype)}")
    if tuple(get_aval(x).shape) != tuple(get_aval(y).shape):
        raise TypeError(f"lax.mulhi: operands must have one shape, got "
                        f"{tuple(get_aval(x).shape)} and {tuple(get_aval(y).shape)}")
    bits = dtypes.bit_width(dt)
    if bits < dt.itemsize * 8:
        # int4/uint4/int2/uint2 live one to a byte: the half-word split would take the
        # byte's width for theirs. Their 2N-bit product fits int32 exactly.
        wide = mul(convert_element_type(x, np.int32), convert_element_type(y, np.int32))
        return convert_element_type(shift_right_arithmetic(wide, _const(bits, wide)), dt)
    if dtypes.is_unsigned(dt):
        return _mulhi_unsigned(x, y)
    ut = _UNSIGNED[dt.itemsize]
    u, v = bitcast_convert_type(x, ut), bitcast_convert_type(y, ut)
    high = _mulhi_unsigned(u, v)
    # signed high half = unsigned one - (x < 0 ? y : 0) - (y < 0 ? x : 0)  (mod 2^N)
    zero = _const(0, u)
    high = sub(high, select(lt(x, _const(0, x)), v, zero))
    high = sub(high, select(lt(y, _const(0, y)), u, zero))
    return bitcast_convert_type(high, dt)


def _reduce_precision_bits(x, exponent_bits, mantissa_bits):
    """XLA's ReducePrecision on the bits: round the mantissa to nearest even, then send
    exponents above the new range to +-inf and those at or below its minimum to +-0;
    NaNs stay NaN."""
    dt = np.dtype(get_aval(x).dtype)
    nbits = dt.itemsize * 8
    src_mant = int(dtypes.finfo(dt).nmant)
    src_exp = nbits - 1 - src_mant
    ones = (1 << nbits) - 1
    xi = bitcast_convert_type(x, _UNSIGNED[dt.itemsize])
    c = functools.partial(_const, like=xi)
    if mantissa_bits < src_mant:
        shift = src_mant - mantissa_bits
        last_bit = 1 << shift
        x_last = shift_right_logical(bitwise_and(xi, c(last_bit)), c(shift))
        bias = add(x_last, c((last_bit >> 1) - 1))
        xi = bitwise_and(add(xi, bias), c(~(last_bit - 1) & ones))
    if exponent_bits < src_exp:
        exp_mask = ((1 << src_exp) - 1) << src_mant
        exp_bias = (1 << (src_exp - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        x_exp = bitwise_and(xi, c(exp_mask))
        overflows = gt(x_exp, c((exp_bias + reduced_bias) << src_mant))
        underflows = le(x_exp, c((exp_bias - reduced_bias) << src_mant))
        signed_zero = bitwise_and(xi, c(1 << (nbits - 1)))
        signed_inf = bitwise_or(signed_zero, c(exp_mask))
        xi = select(overflows, signed_inf, select(underflows, signed_zero, xi))
    result = bitcast_convert_type(xi, dt)
    return select(ne(x, x), x, result)  # rounding may have turned a NaN into an inf


@functools.partial(custom_jvp, nondiff_argnums=(1, 2))
def _reduce_precision(x, exponent_bits, mantissa_bits):
    return _reduce_precision_bits(x, exponent_bits, mantissa_bits)


@_reduce_precision.defjvp
def _reduce_precision_jvp(exponent_bits, mantissa_bits, primals, tangents):
    # as JAX: the tangent (and the cotangent) is rounded the same way, the rounding being
    # treated as a linear, self-adjoint map
    def rounded(_, t):
        return _reduce_precision_bits(t, exponent_bits, mantissa_bits)
    return (_reduce_precision(primals[0], exponent_bits, mantissa_bits),
            linear_call(rounded, rounded, (), tangents[0]))


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """Round floats to a format with fewer exponent/mantissa bits and back, as
    ``jax.lax.reduce_precision`` (XLA's ReducePrecision): the mantissa is rounded to
    nearest even; values too large for the narrower exponent become +-inf, values at or
    below its smallest normal exponent become +-0 (no subnormals); NaN stays NaN.

    Args:
      operand: a floating-point array.
      exponent_bits: the narrower format's exponent bits (>= 1), e.g. 5 for float16.
      mantissa_bits: its explicit mantissa bits (>= 0), e.g. 10 for float16.

    Returns:
      An array of ``operand``'s dtype holding values of the narrower format.
    """
    exponent_bits = static_index(exponent_bits, "exponent_bits", "lax.reduce_precision")
    mantissa_bits = static_index(mantissa_bits, "mantissa_bits", "lax.reduce_precision")
    x = asarray_for_lax(operand)
    dt = np.dtype(get_aval(x).dtype)
    if not dtypes.is_float(dt):
        raise TypeError(f"lax.reduce_precision: operand must be a floating-point array, got "
                        f"{dt}; convert it first (lax.convert_element_type)")
    if exponent_bits < 1 or mantissa_bits < 0:
        raise ValueError(f"lax.reduce_precision: exponent_bits must be >= 1 and mantissa_bits "
                         f">= 0, got {exponent_bits} and {mantissa_bits}")
    if dtypes.bit_width(dt) <= 8:
        # float8/float6/float4 differ from IEEE layout (no inf, no NaN, 4 bits stored in
        # a byte) so their bits do not fit the bit rounding; float32 holds them exactly,
        # and the rounded value converts back (out of range: NaN, or the saturation of
        # formats without NaN, as XLA's conversion)
        wide = _reduce_precision(convert_element_type(x, np.float32), exponent_bits,
                                 mantissa_bits)
        return convert_element_type(wide, dt)
    return _reduce_precision(x, exponent_bits, mantissa_bits)


__all__ = ["mulhi", "reduce_precision"]
