"""float32/float64 -> float8 rounding (tjit/primitives/float8_round.py), bit for bit.

float32 sources are checked against ml_dtypes' astype over the bit patterns that matter:
every float32 exponent from three below the float8's least subnormal to three above its
largest value, both signs, every combination of the top 12 mantissa bits with the low 11
bits at each rounding-relevant pattern (0, 1, just under / at / just over half, all ones),
plus every exponent with a few mantissas (0, denormals, inf, NaN payloads) and a million
random bit patterns. float64 sources are checked against an independent nearest-value
search (ml_dtypes rounds float64 through float32, twice; tjit and XLA round once).
"""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.lax as lax
import tjit.numpy as jnp
from tjit.primitives import float8_round

NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3", "float8_e3m4", "float8_e4m3fnuz",
         "float8_e5m2fnuz", "float8_e4m3b11fnuz"]


def _dt(name):
    return np.dtype(getattr(ml_dtypes, name))


def _ml_codes(x, dt):
    with np.errstate(all="ignore"):
        return x.astype(dt).view(np.uint8)


def _float32_patterns(dt):
    info = ml_dtypes.finfo(dt)
    lo = int(info.minexp) - int(info.nmant) - 3 + 127     # biased float32 exponents
    hi = int(info.maxexp) + 3 + 127
    top = np.arange(4096, dtype=np.uint32) << np.uint32(11)
    low = np.array([0, 1, 0x3FF, 0x400, 0x401, 0x7FF, 0x155], np.uint32)
    mant = (top[:, None] | low[None, :]).ravel()
    exps = np.arange(max(lo, 0), min(hi, 255) + 1, dtype=np.uint32) << np.uint32(23)
    near = (exps[:, None] | mant[None, :]).ravel()
    every_exp = (np.arange(256, dtype=np.uint32)[:, None] << np.uint32(23)
                 | np.array([0, 1, 2, 0x3FFFFF, 0x400000, 0x400001, 0x7FFFFF],
                            np.uint32)[None, :]).ravel()
    rnd = np.random.default_rng(0).integers(0, 2 ** 32, 1 << 20, dtype=np.uint64)
    bits = np.concatenate([near, every_exp, rnd.astype(np.uint32)])
    return np.concatenate([bits, bits | np.uint32(0x80000000)]).view(np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_float32_matches_ml_dtypes_bit_for_bit(name):
    dt = _dt(name)
    x = _float32_patterns(dt)
    got = float8_round.round_to_float8(x, dt)
    assert got.dtype == dt
    want = _ml_codes(x, dt)
    bad = np.flatnonzero(got.view(np.uint8) != want)
    assert bad.size == 0, (name, [(hex(int(x[i:i + 1].view(np.uint32)[0])), hex(want[i]),
                                   hex(got.view(np.uint8)[i])) for i in bad[:5]])


def _nearest_codes(x, dt):
    """Independent reference for finite float64 ``x`` within the float8's range: the code of
    the nearest value, ties to the even code (codes grow with magnitude)."""
    info = ml_dtypes.finfo(dt)
    max_code = int(np.array(info.max, np.float32).astype(dt).view(np.uint8))
    vals = np.arange(max_code + 1, dtype=np.uint8).view(dt).astype(np.float64)
    a = np.abs(x)
    i = np.clip(np.searchsorted(vals, a, side="right") - 1, 0, max_code - 1)
    lo, hi = vals[i], vals[i + 1]
    up = (a - lo > hi - a) | ((a - lo == hi - a) & (i % 2 == 1))
    code = np.where(up, i + 1, i).astype(np.uint8)
    has_neg_zero = _ml_codes(np.array([-0.0], np.float32), dt)[0] == 0x80
    neg = np.signbit(x) & (has_neg_zero | (code != 0))
    return code | (neg.astype(np.uint8) << np.uint8(7))


@pytest.mark.parametrize("name", NAMES)
def test_float64_is_rounded_once(name):
    dt = _dt(name)
    info = ml_dtypes.finfo(dt)
    rng = np.random.default_rng(1)
    n = 200_000
    mag = float(info.max) * 2.0 ** -rng.uniform(0, -int(info.minexp) + int(info.nmant) + 3, n)
    x = mag * rng.choice([-1.0, 1.0], n)
    # ties and near-ties below float32's resolution: exactly half-way between two
    # float8 neighbours, then nudged by 2**-40 relative (float32 would erase the nudge)
    every = np.arange(256, dtype=np.uint8).view(dt).astype(np.float64)
    fin = np.unique(every[np.isfinite(every) & (every >= 0)])
    mids = (fin[:-1] + fin[1:]) / 2
    x = np.concatenate([x, mids, -mids, mids * (1 + 2.0 ** -40), mids * (1 - 2.0 ** -40)])
    got = float8_round.round_to_float8(x, dt).view(np.uint8)
    want = _nearest_codes(x, dt)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (name, [(x[i], hex(want[i]), hex(got[i])) for i in bad[:5]])
    # exact float32 values (and the specials) round as ml_dtypes rounds them
    f = _float32_patterns(dt)[::7]
    with np.errstate(invalid="ignore"):  # float32 signalling NaNs widen quietly
        f64 = f.astype(np.float64)
    np.testing.assert_array_equal(
        float8_round.round_to_float8(f64, dt).view(np.uint8), _ml_codes(f, dt))


def test_double_rounding_case():
    # 1 + 2**-4 is the midpoint of float8_e4m3fn's 1.0 and 1.125; the 2**-40 above it
    # makes the nearest value 1.125 (through float32 the tie would go to even, 1.0)
    x = np.array([1 + 2.0 ** -4 + 2.0 ** -40, -(1 + 2.0 ** -4 + 2.0 ** -40)])
    out = float8_round.round_to_float8(x, _dt("float8_e4m3fn")).astype(np.float64)
    np.testing.assert_array_equal(out, [1.125, -1.125])


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz"])
@pytest.mark.parametrize("n", [5, 50_000])     # under and over the vectorised-path size
def test_public_casts_eager_and_jit(name, n):
    dt = _dt(name)
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 5, n)).astype(np.float32)
    x[:5] = [np.nan, np.inf, -np.inf, -0.0, 1e-30]
    want = _ml_codes(x, dt)
    for f in (lambda v: jnp.asarray(v).astype(dt),
              tjit.jit(lambda v: lax.convert_element_type(v, dt))):
        out = np.asarray(f(x))
        assert out.dtype == dt
        np.testing.assert_array_equal(out.view(np.uint8), want)


@pytest.mark.parametrize("name", ["float8_e5m2", "float8_e4m3fn"])
def test_dequantize_every_code(name):
    # float8 -> float32 of many elements goes through a 256-entry table (e5m2's NumPy
    # kind is 'f', not 'V' like the others): every code, repeated past the table size
    dt = _dt(name)
    codes = np.tile(np.arange(256, dtype=np.uint8), 64).view(dt)
    out = np.asarray(jnp.asarray(codes).astype(jnp.float32))
    np.testing.assert_array_equal(out.view(np.uint32),
                                  codes.astype(np.float32).view(np.uint32))


@pytest.mark.parametrize("shape", [(), (0, 3), (3, 70001), (5,)])
def test_shapes_and_block_edges(shape):
    # 0-d, empty, a size that ends mid-block (the rounding runs in blocks), strided input
    dt = _dt("float8_e5m2")
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32) * 1e4
    for v in (x, x.T if x.ndim == 2 else x):
        got = float8_round.round_to_float8(v, dt)
        assert got.shape == v.shape and got.dtype == dt
        np.testing.assert_array_equal(got.view(np.uint8), _ml_codes(v, dt))


def test_handles_only_float8_with_sign_and_mantissa():
    assert float8_round.handles(np.float32, _dt("float8_e4m3fn"))
    assert float8_round.handles(np.float64, _dt("float8_e5m2"))
    assert not float8_round.handles(np.float16, _dt("float8_e4m3fn"))
    assert not float8_round.handles(np.float32, _dt("float8_e8m0fnu"))
    assert not float8_round.handles(np.float32, _dt("float4_e2m1fn"))
    assert not float8_round.handles(np.float32, np.dtype(np.int8))
