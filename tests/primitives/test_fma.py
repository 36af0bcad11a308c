"""The internal ``fma`` primitive: its impl (the kernel IR's definition of ``fma``)
against exact rationals, eager and jit bit for bit, its derivatives and batching, and
its refusal of other dtypes."""

import math
from fractions import Fraction

import numpy as np
import pytest

import tjit as jax
from tests.lower.test_codegen import fma_triples
from tjit.primitives.exact_fma import fma as exact_fma
from tjit.primitives.fma import fma, fma_p, product_error


def _round_exact(s, dt):
    """The rational ``s`` rounded to nearest-even in ``dt``, by comparing exact
    distances to the neighbours of a nearby float (independent of the code under test)."""
    fi = np.finfo(dt)
    top = Fraction(float(fi.max)) + Fraction(2) ** (int(fi.maxexp) - int(fi.nmant) - 2)
    if abs(s) >= top:
        return dt.type(math.inf if s > 0 else -math.inf)
    guess = dt.type(float(max(min(s, Fraction(float(fi.max))), -Fraction(float(fi.max)))))
    cands = [np.nextafter(guess, dt.type(-np.inf)), guess, np.nextafter(guess, dt.type(np.inf))]
    cands = [v for v in cands if np.isfinite(v)]
    ibits = np.int32 if dt == np.float32 else np.int64
    best = min(cands, key=lambda v: (abs(Fraction(float(v)) - s),
                                     int(np.array(v).view(ibits)) & 1))
    return -dt.type(0.0) if best == 0 and s < 0 else best


def _reference(a, b, c, dt):
    """IEEE fma of one triple: exact rationals where the product is finite and nonzero;
    the special values' rules otherwise."""
    a, b, c = float(a), float(b), float(c)
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return dt.type(math.nan)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return dt.type(math.nan)
        p = math.copysign(math.inf, a) * math.copysign(1, b)
        return dt.type(math.nan if math.isinf(c) and c != p else p)
    if math.isinf(c):
        return dt.type(c)
    if a == 0 or b == 0:       # the exact zero a*b keeps IEEE's sign rule for zeros
        zero = -0.0 if math.copysign(1, a) * math.copysign(1, b) < 0 else 0.0
        return dt.type(zero + c)
    s = Fraction(a) * Fraction(b) + Fraction(c)
    if s == 0:
        return dt.type(0.0)
    return _round_exact(s, dt)


def _assert_same(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    same = (got == want) & (np.signbit(got) == np.signbit(want)) | \
        (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~same)
    assert not bad.size, f"{what}: {bad.size} wrong, first at {bad[0]}: " \
        f"{got.flat[bad[0]]!r} != {want.flat[bad[0]]!r}"


def _wide_float64_triples(n, seed):
    """float64 triples over the whole exponent range: products that overflow alone,
    underflow, or whose rounding error is subnormal (the impl's exact-rational lane)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n) * np.exp2(rng.integers(-1074, 1023, n).astype(float))
    b = rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n).astype(float))
    with np.errstate(all="ignore"):
        p = a * b
        c = np.where(rng.random(n) < 0.5, -p * (1 + rng.standard_normal(n) * 2.0 ** -40),
                     rng.standard_normal(n) * np.exp2(rng.integers(-1074, 1023, n)))
    return a, b, c


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_impl_is_exact(dt):
    dt = np.dtype(dt)
    a, b, c = fma_triples(dt, 3000, seed=1)
    if dt == np.float64:
        wide = _wide_float64_triples(3000, seed=2)
        a, b, c = (np.concatenate([x, y]) for x, y in zip((a, b, c), wide))
    with np.errstate(all="ignore"):
        got = exact_fma(np, a, b, c)
        twice = a * b + c
        want = np.array([_reference(x, y, z, dt) for x, y, z in zip(a, b, c)], dt)
    assert got.dtype == dt
    _assert_same(got, want, f"fma {dt.name}")
    assert (twice != want).sum() > len(a) // 4   # (cases where two roundings differ)


def test_double_rounding_trap_float32():
    """Rounded in float64 and then to float32, this lands on a float32 midpoint and
    ties to even: 1 + 2**-22 (two roundings) instead of 1 + 2**-23."""
    a, b, c = (np.float32(v) for v in (1 + 2.0 ** -18, 2.0 ** -24 * (1 - 2.0 ** -18),
                                       1 + 2.0 ** -23))
    assert np.float32(np.float64(a) * np.float64(b) + np.float64(c)) == 1 + 2.0 ** -22
    assert fma(a, b, c) == np.float32(1 + 2.0 ** -23)
    assert jax.jit(fma)(a, b, c) == np.float32(1 + 2.0 ** -23)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_eager_and_jit_agree_bit_for_bit(dt, x64):
    a, b, c = fma_triples(np.dtype(dt), 1000, seed=3)
    eager = np.asarray(fma(a, b, c))
    _assert_same(jax.jit(fma)(a, b, c), eager, "jit fma")
    # rank-0 operands broadcast, as jax.lax's elementwise ops
    with np.errstate(all="ignore"):
        want = exact_fma(np, a, b, c[0])
    _assert_same(jax.jit(fma)(a, b, c[0]), want, "scalar c")
    # the product's own rounding error (the impl's shortcut for c = -(a*b)), both ways
    with np.errstate(all="ignore"):
        exact = [Fraction(float(x)) * Fraction(float(y)) - Fraction(float(x * y))
                 for x, y in zip(a[:200], b[:200])]
    for err in (product_error(a[:200], b[:200], a[:200] * b[:200]),
                jax.jit(lambda x, y: product_error(x, y, x * y))(a[:200], b[:200])):
        assert all(float(e) == float(g) for e, g in zip(exact, np.asarray(err)))


def test_derivatives_and_batching(x64):
    rng = np.random.default_rng(4)
    a, b, c = (rng.standard_normal((3, 5)) for _ in range(3))
    ga, gb, gc = jax.grad(lambda a, b, c: fma(a, b, c).sum(), argnums=(0, 1, 2))(a, b, c)
    np.testing.assert_array_equal(ga, b)
    np.testing.assert_array_equal(gb, a)
    np.testing.assert_array_equal(gc, np.ones_like(c))
    # second order: d2/da db of sum(a b + c) is 1 per element
    hab = jax.grad(lambda a, b: jax.grad(lambda a, b: fma(a, b, c).sum())(a, b).sum(),
                   argnums=1)(a, b)
    np.testing.assert_array_equal(hab, np.ones_like(b))
    out = jax.vmap(fma, in_axes=(0, None, 1))(a, b[0], c.T.copy())
    loop = np.stack([exact_fma(np, a[i], b[0], c.T[:, i]) for i in range(3)])
    np.testing.assert_array_equal(out, loop)


@pytest.mark.parametrize("args, match", [
    ((np.float16(1), np.float16(2), np.float16(3)), "float32 or float64.*float16"),
    ((np.int32(1), np.int32(2), np.int32(3)), "float32 or float64.*int32"),
    ((np.float32(1), np.int32(2), np.float32(3)), "dtypes must be equal"),
    ((np.ones(3, np.float32), np.ones(4, np.float32), np.float32(1)), "shape"),
])
def test_bad_operands_are_named(args, match):
    with pytest.raises(TypeError, match=match):
        fma_p.bind(*args)
    with pytest.raises(TypeError, match=match):
        jax.jit(fma)(*args)
