"""The one-byte ml_dtypes types (float8/6/4, int4/2/1, uint4/2/1) inside LLVM kernels.

A narrow value lives in a register in a wider form and in memory as its byte:

* a narrow **float** is a ``float`` holding its value exactly. A load decodes the byte
  through a 256-entry constant table made by ml_dtypes itself (so every byte, NaN
  codes included, decodes as ml_dtypes reads it); arithmetic runs in float32 and each
  result is rounded once to the type (:func:`round_float`), as the eager path computes
  (ml_dtypes' ufuncs compute in float32 and round); a store encodes the (already exact)
  value (:func:`encode`).
* a narrow **int** is an ``i8`` holding its value (sign-extended for int4/int2/int1);
  a result wraps modulo ``2**bits`` (:func:`wrap_int`), as ml_dtypes' casts keep the
  low bits; a store writes the low ``bits`` bits, as ml_dtypes does.

:func:`encode` rounds a float32 (or, for the float8s, a float64: the eager path rounds
those once, ``primitives/float8_round.py``) to the type's code with round-to-nearest-
even and each format's rules, bit for bit ml_dtypes' ``astype``: subnormals; overflow
to inf (IEEE-like e5m2, e4m3, e3m4), to NaN (fn/fnuz types, which have no inf), or to
the largest value (float6/float4, which have neither); NaN keeps its sign where the
format has a signed NaN; the fnuz types have one zero; float6/float4 write a NaN as the
zero of the opposite sign (what ml_dtypes does). float8_e8m0fnu (powers of two only, no
sign, no zero) has its own rule, measured on ml_dtypes: a normal float32 rounds half up
on the exponent, a subnormal one to 2**-127 up to 2**-127 itself and to 2**-126 past it;
zero, negatives, inf and NaN are its NaN (0xFF); a double goes through float32 as in
ml_dtypes. Branch-free integer passes, so the loop vectorizer keeps the loop vector code.
"""

import functools

import ml_dtypes
import numpy as np
from llvmlite import ir

from tjit.xla_like.hlo import NARROW_KERNEL_DTYPES

I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)

#: the narrow types rendered here: those xla_like lets into kernels
DTYPES = NARROW_KERNEL_DTYPES
FLOATS = frozenset(d for d in DTYPES if d.name.startswith("float"))
INTS = DTYPES - FLOATS
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
_F32 = np.dtype(np.float32)
_SOURCES = {4: (I32, np.uint32, 23, 127), 8: (I64, np.uint64, 52, 1023)}


class FloatFormat:
    """What encoding and decoding need to know of one narrow float type, read from
    ml_dtypes (its finfo and its own conversion of inf, NaN and -0)."""

    def __init__(self, dtype):
        self.dtype = dt = np.dtype(dtype)
        info = ml_dtypes.finfo(dt)
        self.bits = int(info.bits)
        self.mant = int(info.nmant)
        self.min_exp = int(info.minexp)           # exponent of the least normal value
        self.bias = 1 - self.min_exp
        self.min_normal = float(info.smallest_normal)
        self.sign_bit = 1 << (self.bits - 1)
        every = np.arange(256, dtype=np.uint8).view(dt)
        self.table = every.astype(np.float32)     # the decode table: ml_dtypes' own values
        self.exponent_only = dt == _E8M0
        if self.exponent_only:
            return

        def code(value):
            with np.errstate(all="ignore"):
                return int(np.array(value, np.float32).astype(dt).view(np.uint8))
        self.max_code = code(info.max)
        self.has_inf = bool(np.isinf(np.float32(np.inf).astype(dt).astype(np.float32)))
        self.has_nan = bool(np.isnan(np.float32(np.nan).astype(dt).astype(np.float32)))
        # where magnitudes past the largest value go: inf or NaN is the code after it;
        # float6/float4 saturate at the largest
        self.overflow_code = self.max_code + 1 if self.has_nan else self.max_code
        self.signed_zero = code(-0.0) == self.sign_bit
        self.nan_codes = (code(np.nan), code(-np.nan))
        quiet = 1 << (self.mant - 1) if self.has_inf else 0
        layout = (code(np.inf) == self.overflow_code
                  and (not self.has_nan or self.nan_codes[0] == self.overflow_code | quiet)
                  and (self.has_nan or self.nan_codes == (self.sign_bit, 0)))
        if not layout:
            raise NotImplementedError(f"LLVM codegen: {dt.name} has an unexpected layout")


@functools.lru_cache(maxsize=None)
def float_format(dtype):
    return FloatFormat(dtype)


def negates_exactly(dtype):
    """Whether a value of narrow float ``dtype`` negated in float32 is again a value of the
    type: not for the fnuz types (no -0: -(+0) is +0) nor float8_e8m0fnu (no sign: a
    negative is its NaN), whose negation must round like any other op's result."""
    fmt = float_format(dtype)
    return not fmt.exponent_only and fmt.signed_zero


def int_bits(dtype):
    return int(ml_dtypes.iinfo(np.dtype(dtype)).bits)


def is_signed_int(dtype):
    return np.dtype(dtype).name.startswith("int")


# ----------------------------------------------------------------------------------------
# Floats.

def _table_global(module, fmt):
    """The module's constant [256 x float] decode table of ``fmt`` (made once per module)."""
    name = f"tj_decode_{fmt.dtype.name}"
    g = module.globals.get(name)
    if g is None:
        ty = ir.ArrayType(ir.FloatType(), 256)
        g = ir.GlobalVariable(module, ty, name=name)
        g.initializer = ir.Constant(ty, [float(v) for v in fmt.table])
        g.global_constant = True
        g.linkage = "internal"
        g.align = 64
    return g


def decode(b, code, dtype):
    """The float value of the i8 ``code`` of narrow float ``dtype`` (a table lookup)."""
    fmt = float_format(dtype)
    g = _table_global(b.module, fmt)
    at = b.zext(code, I64)
    ptr = b.gep(g, [ir.Constant(I64, 0), at], inbounds=True, source_etype=g.value_type)
    return b.load(ptr, typ=ir.FloatType(), align=4)


def encode(b, x, dtype):
    """The i8 code of float ``x`` (a float or double) rounded to narrow float ``dtype``
    (ml_dtypes' rounding; a double is rounded once, as the eager float64 -> float8)."""
    fmt = float_format(dtype)
    if fmt.exponent_only:
        return _encode_e8m0(b, x)
    uty, unp, src_mant, src_bias = _SOURCES[4 if isinstance(x.type, ir.FloatType) else 8]

    def c(v):
        return ir.Constant(uty, int(v))
    bits = b.bitcast(x, uty)
    width = uty.width
    a = b.and_(bits, c((1 << (width - 1)) - 1))                     # |x|'s bits
    # subnormal range: adding 2**(min_exp - mant + src_mant) makes the float unit of the
    # sum the least subnormal, so the FPU rounds |x| to it (nearest even) and the sum's
    # low bits are the code; from the least normal up this is never under the normal
    # code below, so the smaller of the two is the code everywhere
    magic_val = 2.0 ** (fmt.min_exp - fmt.mant + src_mant)
    magic = ir.Constant(x.type, magic_val)
    magic_bits = int(np.array(magic_val, np.float32 if width == 32 else np.float64).view(unp))
    s = b.fadd(b.bitcast(a, x.type), magic)
    sub = b.sub(b.bitcast(s, uty), c(magic_bits))
    # normal range: round the mantissa on the bits (nearest even; a carry moves the
    # exponent up), then re-bias the exponent; below the least normal counts as it
    shift = src_mant - fmt.mant
    min_normal_bits = int(np.array(fmt.min_normal, np.float32 if width == 32
                                   else np.float64).view(unp))
    n = _umax(b, a, c(min_normal_bits))
    odd = b.and_(b.lshr(n, c(shift)), c(1))
    n = b.add(n, b.add(odd, c((1 << (shift - 1)) - 1)))
    n = b.lshr(n, c(shift))
    n = b.sub(n, c((src_bias - fmt.bias) << fmt.mant))
    code = _umin(b, n, sub)
    # past the largest value (NaN sources too: their bits are above inf's)
    code = _umin(b, code, c(fmt.overflow_code))
    is_nan = b.fcmp_unordered("uno", x, x)
    if fmt.has_inf:     # inf's code plus the quiet bit is NaN's
        code = b.select(is_nan, b.or_(code, c(1 << (fmt.mant - 1))), code)
    negative = b.icmp_signed("<", bits, c(0))
    signed = b.or_(code, c(fmt.sign_bit))
    if fmt.signed_zero:
        code = b.select(negative, signed, code)
    else:               # fnuz: one zero (a negative value rounding to 0 is +0); NaN is 0x80
        code = b.select(b.and_(negative, b.icmp_unsigned("!=", code, c(0))), signed, code)
    if not fmt.has_nan:     # float6/float4: a NaN is written as the zero of the other sign
        code = b.select(is_nan, b.select(negative, c(0), c(fmt.sign_bit)), code)
    return b.trunc(code, I8)


def _encode_e8m0(b, x):
    """float8_e8m0fnu's code of float ``x`` (ml_dtypes' rule: see the module docstring)."""
    if not isinstance(x.type, ir.FloatType):
        x = b.fptrunc(x, ir.FloatType())
    bits = b.bitcast(x, I32)
    a = b.and_(bits, ir.Constant(I32, 0x7FFFFFFF))
    subnormal = b.icmp_unsigned("<", a, ir.Constant(I32, 0x800000))
    half = b.select(subnormal, ir.Constant(I32, 0x3FFFFF), ir.Constant(I32, 0x400000))
    code = _umin(b, b.lshr(b.add(a, half), ir.Constant(I32, 23)), ir.Constant(I32, 0xFF))
    nan = b.or_(b.icmp_signed("<", bits, ir.Constant(I32, 0)),
                b.icmp_unsigned("==", a, ir.Constant(I32, 0)))
    return b.trunc(b.select(nan, ir.Constant(I32, 0xFF), code), I8)


def round_float(b, x, dtype):
    """Float ``x`` rounded to narrow float ``dtype``, as a float holding that value."""
    return decode(b, encode(b, x, dtype), dtype)


def from_double(b, x, dtype):
    """Double ``x`` rounded to ``dtype`` (a float): once for the float8s, as the eager
    path's float64 rounding; through float32 for float6/float4, as ml_dtypes' cast."""
    fmt = float_format(dtype)
    if fmt.bits == 8 and not fmt.exponent_only:
        return decode(b, encode(b, x, dtype), dtype)
    return round_float(b, b.fptrunc(x, ir.FloatType()), dtype)


def _umax(b, x, y):
    return b.select(b.icmp_unsigned(">", x, y), x, y)


def _umin(b, x, y):
    return b.select(b.icmp_unsigned("<", x, y), x, y)


# ----------------------------------------------------------------------------------------
# Integers.

def wrap_int(b, v, dtype):
    """The i8 ``v`` wrapped to narrow int ``dtype``'s range (its low bits, sign-extended
    for the signed types): ml_dtypes' modular result."""
    bits = int_bits(dtype)
    if is_signed_int(dtype):
        up = ir.Constant(I8, 8 - bits)
        return b.ashr(b.shl(v, up), up)
    return b.and_(v, ir.Constant(I8, (1 << bits) - 1))


def clamp_int(b, v, dtype):
    """Integer ``v`` (any width, signed) clamped to narrow int ``dtype``'s range, as an i8:
    the saturating float -> int4 conversion (the eager path clips to iinfo)."""
    info = ml_dtypes.iinfo(np.dtype(dtype))
    lo, hi = ir.Constant(v.type, int(info.min)), ir.Constant(v.type, int(info.max))
    v = b.select(b.icmp_signed("<", v, lo), lo, v)
    v = b.select(b.icmp_signed(">", v, hi), hi, v)
    return b.trunc(v, I8) if v.type.width > 8 else v


def store_int(b, v, dtype):
    """The byte ml_dtypes stores for int4/uint4... value ``v``: its low bits."""
    return b.and_(v, ir.Constant(I8, (1 << int_bits(dtype)) - 1))
