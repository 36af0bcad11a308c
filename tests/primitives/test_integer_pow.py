"""``lax.integer_pow`` (and ``x ** n``, ``jnp.power`` with a Python int exponent) swept
over float32/float64 bit patterns and exponents -16..16, eager and compiled.

The reference is independent of tjit's product chain: long double ``powl`` (64-bit
significand, exponent range to 2**16383, so x**n never overflows there), and Python's
exact rationals, correctly rounded, on a subset. Bounds (primitives/elementwise.py,
``_integer_pow_expand``): float32 within 0.5 ulp plus double rounding (computed in
float64, rounded once) but for ``n == 3``, a float32 x*x*x within 1.5 ulp (cubes stay
narrow: they are hot in kernels); float64 within ``|n|`` ulp (a chain of roundings,
worst where ``(1/x)**n`` replaces ``1/x**n`` near the ends of the range); ``n`` in
(1, 2, -1) is correctly rounded. Results are finite, zero or infinite exactly where the reference
rounds so: ``x**-4`` at 2**35 is 2**-140 (a float32 denormal), not ``1/inf = 0``.
Eager and compiled agree bit for bit (the impl and the lowering share one op sequence).
"""

from fractions import Fraction

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.lower.test_mathlib import HAVE_LD, LD, ulp_error
from tests.lower.test_mathlib_binary import _bits, _with_exponents
from tjit import lax

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
YS = [y for y in range(-16, 17) if y]


def bound(dt, y):
    if y in (1, 2, -1):
        return 0.5
    if y == 3:
        return 1.5
    return 0.501 if dt == F32 else abs(y)


def _points(dt, rng, n=1 << 14):
    """Bit patterns (denormals, inf, NaN) and random significands over every exponent."""
    fi = np.finfo(dt)
    e = rng.integers(fi.minexp - fi.nmant, fi.maxexp, n)
    special = np.array([0.0, np.inf, np.nan, 1.0, 2.0 ** 35, fi.max, fi.tiny,
                        fi.smallest_subnormal, 1 + fi.eps, 1 - fi.epsneg], dt)
    return np.concatenate([_bits(dt, rng, n), _with_exponents(dt, rng, e), special, -special])


def _bitwise_equal(a, b):
    return (a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")) | (np.isnan(a) & np.isnan(b))


@pytest.mark.skipif(not HAVE_LD, reason="needs 80-bit long double references")
@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_integer_pow_sweep(dt, x64):
    x = _points(dt, np.random.default_rng(5))
    compiled = tjit.jit(lambda x: [lax.integer_pow(x, y) for y in YS])(x)
    worst = {}
    for y, got in zip(YS, compiled):
        got = np.asarray(got)
        eager = np.asarray(lax.integer_pow(x, y))
        assert got.dtype == eager.dtype == dt
        assert _bitwise_equal(got, eager).all(), (y, x[~_bitwise_equal(got, eager)][:5])
        with np.errstate(all="ignore"):
            ref = np.power(x.astype(LD), LD(y))
            want = ref.astype(dt)
        err = ulp_error(got, ref, dt)
        zero = want == 0   # zeros carry the sign of x**y
        bad = (err > bound(dt, y)) | (zero & (np.signbit(got) != np.signbit(want)))
        assert not bad.any(), (y, list(zip(x[bad][:5], got[bad][:5], want[bad][:5])))
        worst[y] = err.max()
    assert max(worst.values()) <= (1.5 if dt == F32 else 16)


def _round_exact(v, dt):
    """The rational ``v`` correctly rounded to ``dt`` (ties to even), by comparing it
    with the neighbours of a float64 approximation."""
    r = dt.type(float(v))
    best = None
    for c in (np.nextafter(r, dt.type(-np.inf)), r, np.nextafter(r, dt.type(np.inf))):
        if not np.isfinite(c):
            continue
        d = abs(Fraction(float(c)) - v)
        even = int(np.asarray(c).view(f"u{dt.itemsize}")) % 2 == 0
        if best is None or d < best[0] or (d == best[0] and even):
            best = (d, c)
    return best[1]


def test_integer_pow_float32_correctly_rounded_on_rationals():
    """float32 x**n against exact rationals: correctly rounded (no double-rounding ties
    in this sample), results in the denormal range included; x**3 within 1.5 ulp."""
    rng = np.random.default_rng(6)
    x = (rng.uniform(0.5, 1, 3000) * 2.0 ** rng.integers(-12, 12, 3000)).astype(F32)
    ys = rng.choice(YS, 3000)
    f = tjit.jit(lambda x: [lax.integer_pow(x, y) for y in YS])
    outs = dict(zip(YS, (np.asarray(o) for o in f(x))))
    for i, (xi, y) in enumerate(zip(x, ys)):
        v = Fraction(float(xi)) ** int(y)
        if v > Fraction(float(np.finfo(F32).max)) or v < Fraction(2) ** -149:
            continue
        want = _round_exact(v, F32)
        if y == 3:
            assert abs(Fraction(float(outs[y][i])) - v) <= Fraction(3, 2) * Fraction(
                float(np.spacing(want))), (xi, outs[y][i])
        else:
            assert outs[y][i] == want, (xi, y, outs[y][i])


@pytest.mark.parametrize("how", ["lax", "power", "operator"])
def test_reported_negative_powers(how):
    """1/x**n overflowed to 1/inf = 0 (x**-4 at 2**35 is 2**-140) and underflowed to
    1/0 = inf; eager and compiled, through each way a Python int exponent arrives."""
    fn = {"lax": lambda x: lax.integer_pow(x, -4), "power": lambda x: jnp.power(x, -4),
          "operator": lambda x: x ** -4}[how]
    x = np.array([2.0 ** 35, -(2.0 ** 35), 2.0 ** -33, 2.0 ** -32, 3e9, 1e-10], F32)
    with np.errstate(over="ignore"):
        want = (x.astype(np.float64) ** -4).astype(F32)
    for f in (fn, tjit.jit(fn)):
        got = np.asarray(f(jnp.asarray(x)))
        assert got.dtype == F32
        np.testing.assert_array_equal(got, want)
    assert want[0] == np.float32(2.0 ** -140) and np.isinf(want[3])


def test_negative_powers_float64_near_range_ends(x64):
    """float64: results that are denormal (x**n overflows) or near the top of the range
    (x**n underflows) come out finite and within the bound."""
    for y in (-2, -3, -7, -16):
        x = np.array([2.0 ** (1030 / -y), 2.0 ** (-1020 / -y), 1e300, 1e-300, 5e-324], F64)
        with np.errstate(all="ignore"):
            ref = np.power(x.astype(LD), LD(y))
        def power(x, y=y):
            return lax.integer_pow(x, y)
        for f in (power, tjit.jit(power)):
            got = np.asarray(f(x))
            assert (ulp_error(got, ref, F64) <= abs(y)).all(), (y, got, ref.astype(F64))


@pytest.mark.parametrize("y", [y for y in range(-4, 6)])
def test_slope_is_y_x_to_the_y_minus_1_without_trivial_powers(y):
    # JAX's rule: g for y = 1, g * (2 x) for y = 2, else g * y * x**(y - 1): no equation
    # raises to the power 0 or 1 (they were left for the simplifier to fold)
    xs = np.array([-2.5, -1.0, 0.5, 1.0, 3.0], np.float64)
    if y < 0:
        xs = xs[xs != 0]
    f = lambda x: lax.integer_pow(x, y)  # noqa: E731
    got = np.array([float(tjit.grad(f)(np.float32(x))) for x in xs])
    want = y * xs ** (y - 1) if y else np.zeros_like(xs)
    np.testing.assert_allclose(got, want, rtol=2e-7)
    jaxpr = tjit.make_jaxpr(lambda x, t: tjit.jvp(f, (x,), (t,)))(np.float32(1.5),
                                                                np.float32(1))
    powers = [e.params["y"] for e in jaxpr.jaxpr.eqns if e.primitive.name == "integer_pow"]
    assert sorted(powers) == sorted([y] + ([y - 1] if y not in (0, 1, 2) else [])), powers
