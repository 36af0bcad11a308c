"""float32/float64 -> float8 rounding as whole-array NumPy integer arithmetic.

ml_dtypes' ``astype`` converts element by element through a generic loop (about 27 ms
for a million float32s); this module computes the same uint8 codes with a dozen
vectorised passes over the source bits and views them as the float8 type.

Every 8-bit float of ml_dtypes with a sign bit, an exponent and a mantissa is covered
(float8_e4m3fn, e5m2, e4m3, e3m4, e4m3fnuz, e5m2fnuz, e4m3b11fnuz): the format's
parameters come from its finfo, and its special codes (what NaN and overflow become,
whether -0 exists) from ml_dtypes' own conversion of NaN, inf and -0, so the result is
ml_dtypes' bit for bit: round to nearest even, subnormals, overflow to inf (IEEE-like
types) or NaN (fn/fnuz types, which have no inf), NaN keeping its sign where the format
has signed NaNs.

float64 sources are rounded once, directly (as XLA does); ml_dtypes rounds them to
float32 first, so 1 + 2**-4 + 2**-40 became float8_e4m3fn 1.0 there, not 1.125.
"""

import functools

import numpy as np

from ..tracing import dtypes

#: the float8 types this module rounds to (e8m0fnu has no sign or mantissa: not here)
_NAMES = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3", "float8_e3m4", "float8_e4m3fnuz",
          "float8_e5m2fnuz", "float8_e4m3b11fnuz")
_SOURCES = {np.dtype(np.float32): (np.uint32, 23, 127),
            np.dtype(np.float64): (np.uint64, 52, 1023)}


class _Format:
    """What the rounding needs to know of one float8 type."""

    def __init__(self, dtype):
        info = dtypes.finfo(dtype)
        self.mant = int(info.nmant)
        self.min_exp = int(info.minexp)          # exponent of the least normal value
        self.bias = 1 - self.min_exp

        def code(value):
            with np.errstate(invalid="ignore", over="ignore"):
                return int(np.array(value, np.float32).astype(dtype).view(np.uint8))
        self.max_code = code(info.max)
        self.overflow_code = code(np.inf)        # inf, or NaN where there is no inf
        self.nan_code = code(np.nan)
        self.signed_zero = code(-0.0) == 0x80    # fnuz types have one zero, NaN at 0x80
        self.min_normal = float(info.smallest_normal)


@functools.lru_cache(maxsize=None)
def _format(dtype):
    return _Format(dtype)


def handles(src, dst):
    """Whether :func:`round_to_float8` converts ``src`` to ``dst``."""
    return (np.dtype(src) in _SOURCES
            and np.dtype(dst).name in _NAMES)


def round_to_float8(x, dtype):
    """``x`` (a float32 or float64 NumPy array) rounded to the float8 ``dtype``."""
    dtype = np.dtype(dtype)
    fmt = _format(dtype)
    x = np.ascontiguousarray(x)
    uint, src_mant, src_bias = _SOURCES[x.dtype]
    width = 8 * x.dtype.itemsize
    bits = x.view(uint)
    mag = bits & uint((1 << (width - 1)) - 1)

    # normal range: round the mantissa to nearest even on the bits (a carry out of the
    # mantissa moves the exponent up, as it should), then re-bias the exponent; values
    # in the float8's subnormal range wrap here and are replaced below
    shift = src_mant - fmt.mant
    code = mag >> uint(shift)
    code &= uint(1)
    code += mag
    code += uint((1 << (shift - 1)) - 1)
    code >>= uint(shift)
    code -= uint((src_bias - fmt.bias) << fmt.mant)

    # subnormal range: adding 2**(min_exp - mant + src_mant) makes the float unit of the
    # sum the float8's least subnormal, so the FPU rounds |x| to it (nearest even) and
    # the sum's low bits are the code (2**mant, the least normal code, included)
    magic = x.dtype.type(2.0 ** (fmt.min_exp - fmt.mant + src_mant))
    with np.errstate(all="ignore"):  # NaN and large values: replaced below
        small = mag.view(x.dtype) + magic
    sub = small.view(uint)
    sub -= magic.view(uint)
    min_normal_bits = np.array(fmt.min_normal, x.dtype).view(uint)
    code = np.where(mag < min_normal_bits, sub, code)

    code = np.where(code > uint(fmt.max_code), uint(fmt.overflow_code), code)
    inf_bits = np.array(np.inf, x.dtype).view(uint)
    code = np.where(mag > inf_bits, uint(fmt.nan_code), code).astype(np.uint8)
    sign = (bits >> uint(width - 8)).astype(np.uint8)
    sign &= np.uint8(0x80)
    if not fmt.signed_zero:  # one zero (negative values rounding to 0 are +0), one NaN
        sign[(code == 0) | (code == fmt.nan_code)] = 0
    code |= sign
    return code.view(dtype)
