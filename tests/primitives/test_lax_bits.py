"""lax.mulhi against exact Python-int products, lax.reduce_precision against a NumPy
float64 reference written from the format's definition (round to nearest even at the
narrower format's quantum, overflow to inf, below its smallest normal to zero), on
random bit patterns and edge values, eager, jit, grad and vmap."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _mulhi_reference(x, y, dtype):
    bits = np.iinfo(dtype).bits
    high = [(int(a) * int(b)) >> bits for a, b in zip(x.tolist(), y.tolist())]
    return np.array([h % (1 << bits) for h in high], np.uint64).astype(dtype) if \
        np.issubdtype(dtype, np.unsignedinteger) else np.array(high, dtype)


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_mulhi_is_the_high_half_of_the_exact_product(dtype, x64):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(0)
    x = rng.integers(info.min, info.max, 300, dtype=dtype, endpoint=True)
    y = rng.integers(info.min, info.max, 300, dtype=dtype, endpoint=True)
    x[:4] = [info.min, info.max, info.max, 0]
    y[:4] = [info.min, info.min, info.max, 7]
    want = _mulhi_reference(x, y, dtype)
    np.testing.assert_array_equal(np.asarray(lax.mulhi(x, y)), want)
    np.testing.assert_array_equal(np.asarray(tjit.jit(lax.mulhi)(x, y)), want)
    np.testing.assert_array_equal(np.asarray(tjit.vmap(lax.mulhi)(x[:8], y[:8])), want[:8])


def test_mulhi_rejects_mixed_or_float_operands():
    with pytest.raises(TypeError, match="integers of one dtype"):
        lax.mulhi(np.int32(3), np.int16(2))
    with pytest.raises(TypeError, match="integers of one dtype"):
        lax.mulhi(np.float32(3), np.float32(2))


def _reduce_precision_reference(x, exponent_bits, mantissa_bits):
    """The value of the narrower format nearest x (ties to even), in x's dtype."""
    finfo = np.finfo(x.dtype)
    src_mant, src_min_exp = finfo.nmant, finfo.minexp
    with np.errstate(invalid="ignore"):  # NaNs (restored at the end)
        v = x.astype(np.float64)
    out = v.copy()
    finite = np.isfinite(v) & (v != 0)
    if mantissa_bits < src_mant:
        e = np.frexp(v[finite])[1] - 1  # |v| in [2^e, 2^(e+1))
        # the source's subnormals are fixed-point: their quantum is that of its min exponent
        quantum = np.ldexp(1.0, np.maximum(e, src_min_exp) - mantissa_bits)
        ratio = v[finite] / quantum
        rounded = np.round(ratio) * quantum  # np.round: half to even
        if mantissa_bits == 0:
            # only powers of two remain; a tie goes to the one whose encoding ends in 0,
            # i.e. the even (source-)biased exponent: odd unbiased e, as the bias is odd
            tie = (np.abs(ratio) == 1.5) & (e >= src_min_exp)
            rounded[tie] = np.sign(ratio[tie]) * np.where(
                e[tie] % 2 == 1, np.ldexp(1.0, e[tie]), np.ldexp(1.0, e[tie] + 1))
        out[finite] = rounded
    src_exp_bits = x.dtype.itemsize * 8 - 1 - src_mant
    if exponent_bits < src_exp_bits:
        bias = 2 ** (exponent_bits - 1) - 1
        mag = np.abs(out)
        with np.errstate(invalid="ignore"):
            out = np.where(mag >= np.ldexp(1.0, bias + 1), np.copysign(np.inf, out), out)
            out = np.where(mag < np.ldexp(1.0, 1 - bias), np.copysign(0.0, out), out)
    with np.errstate(over="ignore"):
        out = out.astype(x.dtype)
    return np.where(np.isnan(x), x, out)


FORMATS = [(5, 10), (8, 7), (4, 3), (5, 2), (8, 0), (2, 1), (11, 52), (8, 23), (11, 10)]


@pytest.mark.parametrize("dtype,uint", [(np.float16, np.uint16), (np.float32, np.uint32),
                                        (np.float64, np.uint64)], ids=["f16", "f32", "f64"])
def test_reduce_precision_matches_the_format_definition(dtype, uint, x64):
    rng = np.random.default_rng(1)
    nbits = np.dtype(dtype).itemsize * 8
    x = rng.integers(0, 2 ** nbits - 1, 3000, dtype=uint, endpoint=True).view(dtype)
    edges = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 1.5, 1.0009765625, 65504.0,
                      65520.0, 3.0e38, 6.0e-8, 1e-40, -2.5], np.float64)
    with np.errstate(over="ignore", under="ignore"):
        x = np.concatenate([x, edges.astype(dtype)])
    for e, m in FORMATS:
        got = np.asarray(lax.reduce_precision(x, e, m))
        want = _reduce_precision_reference(x, e, m)
        same = (got.view(uint) == want.view(uint)) | (np.isnan(got) & np.isnan(want))
        assert same.all(), (e, m, x[~same][:4], got[~same][:4], want[~same][:4])


def test_reduce_precision_under_jit_grad_and_vmap():
    x = np.array([1.0009765625, 3.14159, -70000.0, 1e-6], np.float32)
    want = _reduce_precision_reference(x, 5, 10)
    np.testing.assert_array_equal(np.asarray(tjit.jit(lambda x: lax.reduce_precision(x, 5, 10))(x)),
                                  want)
    np.testing.assert_array_equal(
        np.asarray(tjit.vmap(lambda x: lax.reduce_precision(x, 5, 10))(x)), want)
    # as JAX: the tangent is rounded the same way (1.0 -> 1.0, 0.1 -> bfloat16's 0.1)
    g = tjit.grad(lambda x: jnp.sum(lax.reduce_precision(x, 8, 7) * 0.1))(x)
    np.testing.assert_array_equal(np.asarray(g), _reduce_precision_reference(
        np.full(4, 0.1, np.float32), 8, 7))


def test_reduce_precision_checks_its_arguments():
    with pytest.raises(TypeError, match="floating-point"):
        lax.reduce_precision(np.int32(3), 5, 10)
    with pytest.raises(ValueError, match="exponent_bits must be >= 1"):
        lax.reduce_precision(np.float32(3), 0, 10)
