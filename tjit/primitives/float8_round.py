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
import sys

import numpy as np

from tjit.tracing import dtypes

#: the float8 types this module rounds to (e8m0fnu has no sign or mantissa: not here)
_NAMES = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3", "float8_e3m4", "float8_e4m3fnuz",
          "float8_e5m2fnuz", "float8_e4m3b11fnuz")
_LITTLE = sys.byteorder == "little"
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
        self.has_inf = self.nan_code != self.overflow_code
        # the layout round_to_float8 relies on: overflow is the code after the largest
        # value and NaN is that code (with the top mantissa bit set where it is inf)
        quiet = 1 << (self.mant - 1) if self.has_inf else 0
        if (self.overflow_code != self.max_code + 1
                or self.nan_code != self.overflow_code | quiet):
            raise NotImplementedError(f"float8_round: {dtype} has an unexpected layout")


@functools.lru_cache(maxsize=None)
def _format(dtype):
    return _Format(dtype)


def handles(src, dst):
    """Whether :func:`round_to_float8` converts ``src`` to ``dst``."""
    return (np.dtype(src) in _SOURCES
            and np.dtype(dst).name in _NAMES)


#: elements per block: the scratch buffers stay in cache and are reused, where whole-array
#: temporaries cost a page fault per 4 KiB on every call (that was most of the time)
_BLOCK = 1 << 15


def round_to_float8(x, dtype):
    """``x`` (a float32 or float64 NumPy array) rounded to the float8 ``dtype``."""
    dtype = np.dtype(dtype)
    fmt = _format(dtype)
    x = np.asarray(x, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
    out = np.empty(x.shape, np.uint8)
    flat, flat_out = x.reshape(-1), out.reshape(-1)
    block = max(1, min(flat.size, _BLOCK))
    uint = _SOURCES[x.dtype][0]
    a, b, c = (np.empty(block, uint) for _ in range(3))
    for start in range(0, flat.size, block):
        stop = min(start + block, flat.size)
        n = stop - start
        _round_block(flat[start:stop], flat_out[start:stop], a[:n], b[:n], c[:n], fmt)
    return out.view(dtype)


def _round_block(x, out, a, b, c, fmt):
    """Writes the float8 codes of the 1-d ``x`` to ``out`` (uint8); a, b, c: scratch of
    ``x``'s unsigned type. Branch-free passes only (np.where on a data-dependent mask was
    several times slower)."""
    uint, src_mant, src_bias = _SOURCES[x.dtype]
    width = 8 * x.dtype.itemsize
    bits = x.view(uint)
    np.bitwise_and(bits, uint((1 << (width - 1)) - 1), out=a)        # |x|'s bits

    # subnormal range: adding 2**(min_exp - mant + src_mant) makes the float unit of the
    # sum the float8's least subnormal, so the FPU rounds |x| to it (nearest even) and
    # the sum's low bits are the code, up to 2**mant (the least normal's code). From the
    # least normal up this is |x| / least subnormal or more, never under the normal
    # code below: the smaller of the two is the code everywhere
    magic = x.dtype.type(2.0 ** (fmt.min_exp - fmt.mant + src_mant))
    with np.errstate(all="ignore"):  # NaN and inf: their code is set below
        np.add(a.view(x.dtype), magic, out=b.view(x.dtype))
    b -= magic.view(uint)

    # normal range: round the mantissa to nearest even on the bits (a carry out of the
    # mantissa moves the exponent up, as it should), then re-bias the exponent; values
    # under the least normal count as it here (their code is the one above)
    shift = src_mant - fmt.mant
    np.maximum(a, np.array(fmt.min_normal, x.dtype).view(uint), out=a)
    np.right_shift(a, uint(shift), out=c)
    c &= uint(1)
    a += c
    a += uint((1 << (shift - 1)) - 1)
    a >>= uint(shift)
    a -= uint((src_bias - fmt.bias) << fmt.mant)
    np.minimum(a, b, out=a)

    # past the largest value: inf where there is one, NaN (fn, fnuz types) otherwise;
    # both are the code after the largest. NaN sources are there too (their bits are
    # above inf's); formats with inf add the quiet bit to make them NaN
    np.minimum(a, uint(fmt.max_code + 1), out=a)
    np.copyto(out, a, casting="unsafe")
    n = x.size
    scratch = c.view(np.uint8)                 # 2n bytes of it below (c holds >= 4n)
    flag, tmp = scratch[:n], scratch[n:2 * n]
    if fmt.has_inf:
        np.isnan(x, out=flag.view(np.bool_))
        np.left_shift(flag, np.uint8(fmt.mant - 1), out=tmp)
        out |= tmp
    # the sign: the top bit of the most significant byte of each source element
    step = x.dtype.itemsize
    top = x.view(np.uint8)[step - 1::step] if _LITTLE else x.view(np.uint8)[::step]
    np.bitwise_and(top, np.uint8(0x80), out=tmp)
    if not fmt.signed_zero:  # one zero (negative values rounding to 0 are +0); 0x80 NaN
        np.not_equal(out, 0, out=flag.view(np.bool_))
        flag <<= np.uint8(7)
        tmp &= flag
    out |= tmp
