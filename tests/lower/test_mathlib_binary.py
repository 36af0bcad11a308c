"""Two-argument float functions of the compiled path, swept over both arguments.

test_mathlib.py checks the one-argument functions over their whole range; this file does
the same for the two-argument float functions the LLVM backend emits: mathlib's ``pow``
(bound 1 ulp in float32, 2 in float64) and ``atan2`` (2.5, 3), and ``div`` (correctly
rounded) and ``rem`` (C fmod, exact), rendered from IEEE instructions (``max`` and ``min``
pick an operand: tested with the codegen). Each runs through ``tjit.jit`` on arrays of
~2^17 pairs (one compile covers them all), in float32 and float64, on

* bit patterns of both arguments drawn uniformly (denormals, infinities, NaN included);
* pairs whose exponents lie within 3 of each other over the whole range (both huge: y/x
  and |x| + |y| overflow; both denormal), and pairs of unrelated exponents (huge ratios,
  underflowing quotients);
* pow's hard regions: results near overflow, near underflow and in the denormal range,
  |x| near 1 with huge |y|, negative bases with integer exponents, y = +-1/2, +-3/2;
* all pairs of a set of special values (zeros, infinities, NaN, +-1, denormal and
  extreme magnitudes, odd and even integers, 1 +- eps).

References are independent of tjit: NumPy in float64 for float32 results (rounded once),
in 80-bit long double for float64 (pow, atan2), NumPy in the same dtype for the IEEE ops,
Python's exact rationals for pow with integer exponents. Everywhere the result must be
NaN exactly where the reference is, carry the reference's sign (signed zeros:
atan2(+-0, -x) = +-pi, fmod(-0, y) = -0, pow(-0, -3) = -inf) and stay within mathlib's
documented ulp bound; on the special-value grid zeros, infinities and +-1 must match
exactly. Exact pow results are returned exactly, and float32 ties (an exact result
halfway between two float32s, e.g. pow(2, -150) or 4097^2) round to even.
"""

from fractions import Fraction

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.lower.test_mathlib import BOUNDS, F32, F64, HAVE_LD, LD, ulp_error

N = 1 << 17
DTYPES = pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])

#: jnp function (array arguments: lax.pow, lax.atan2, ...), NumPy reference, ulp bound
#: (float32, float64); None: the reference is NumPy in the same dtype, matched exactly
FUNCS = {
    "pow": (jnp.power, np.power, BOUNDS["pow"]),
    "atan2": (jnp.arctan2, np.arctan2, BOUNDS["atan2"]),
    "div": (jnp.true_divide, np.true_divide, None),
    "rem": (jnp.fmod, np.fmod, None),
}


@pytest.fixture
def dtype_env(dt, request):
    """float64 runs need 64-bit types enabled (and long double references)."""
    if dt == F64:
        if not HAVE_LD:
            pytest.skip("needs 80-bit long double references")
        request.getfixturevalue("x64")


# ----------------------------------------------------------------------------------------
# Test points.

def _bits(dt, rng, n):
    if dt == F32:
        return rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(F32)
    return rng.integers(0, 2 ** 64, n, dtype=np.uint64).view(F64)


def _with_exponents(dt, rng, e):
    """Random significands and signs with binary exponents e (denormal below minexp)."""
    with np.errstate(over="ignore"):
        v = np.ldexp(1 + rng.random(e.size), e) * rng.choice([-1.0, 1.0], e.size)
        return v.astype(dt)


def _exponent_pairs(dt, rng, n):
    """Both arguments' exponents over the whole range, denormals included: within 3 of
    each other for half the pairs, unrelated for the other half."""
    fi = np.finfo(dt)
    lo, hi = fi.minexp - fi.nmant, fi.maxexp
    ea = rng.integers(lo, hi, n)
    eb = np.concatenate([ea[:n // 2] + rng.integers(-3, 4, n // 2),
                         rng.integers(lo, hi, n - n // 2)])
    return _with_exponents(dt, rng, ea), _with_exponents(dt, rng, eb)


def _sweep_pairs(dt, rng):
    a1, b1 = _bits(dt, rng, N), _bits(dt, rng, N)
    a2, b2 = _exponent_pairs(dt, rng, N)
    return np.concatenate([a1, a2]), np.concatenate([b1, b2])


def _pow_hard_pairs(dt, rng, n=N // 4):
    """x^y near overflow, underflow and in the denormal range; |x| near 1 with huge |y|;
    negative x with integer y; y = +-1/2, +-3/2."""
    fi = np.finfo(dt)
    ln_lo, ln_hi = (fi.minexp - fi.nmant - 2) * np.log(2), np.log(float(fi.max)) + 0.5
    x = np.exp(rng.uniform(-0.98, 0.98, n) * np.log(float(fi.max)))
    x = np.where(np.abs(np.log(x)) < 1e-3, 2.0, x)
    # targets: the whole result range, plus dense around both ends
    t = np.concatenate([rng.uniform(ln_lo, ln_hi, n - n // 2),
                        rng.uniform(ln_lo, ln_lo + 30, n // 4),
                        rng.uniform(ln_hi - 3, ln_hi, n // 2 - n // 4)])
    y = t / np.log(x)
    x1 = 1 + rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-7, -1, n)
    y1 = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(0, 12, n)
    xn = -10.0 ** rng.uniform(-8, 8, n)
    yn = np.round(rng.uniform(-1, 1, n) * (np.log(float(fi.max)) + 10) / np.abs(np.log(-xn)))
    xh = 10.0 ** rng.uniform(-40, 40, n) * rng.choice([-1.0, 1.0], n)
    yh = rng.choice([0.5, -0.5, 1.5, -1.5], n)
    with np.errstate(over="ignore"):
        return (np.concatenate([x, x1, xn, xh]).astype(dt),
                np.concatenate([y, y1, yn, yh]).astype(dt))


def _special_values(dt):
    fi = np.finfo(dt)
    big_odd = float(2 ** (fi.nmant + 1) - 1)        # largest odd integer of the dtype
    v = [0.0, np.inf, np.nan, 1.0, 0.5, 2.0, 3.0, 2.5, 1.5, 0.3, 7.0, 1e-30, 1e30,
         float(fi.smallest_subnormal), float(fi.tiny) * (1 - 2.0 ** -fi.nmant),
         float(fi.tiny), float(fi.max), 1 + float(fi.eps), 1 - float(fi.eps) / 2,
         big_odd, big_odd + 1.0, 2 * big_odd]
    v = np.array(v, dt)
    return np.concatenate([v, -v])


def _special_pairs(dt):
    s = _special_values(dt)
    a, b = np.meshgrid(s, s, indexing="ij")
    return a.ravel(), b.ravel()


# ----------------------------------------------------------------------------------------
# Checks.

def _reference(name, dt, a, b):
    ref_fn, bound = FUNCS[name][1], FUNCS[name][2]
    wide = dt if bound is None else (np.float64 if dt == F32 else LD)
    with np.errstate(all="ignore"):
        return ref_fn(a.astype(wide), b.astype(wide))


def _run(name, dt, a, b):
    out = np.asarray(tjit.jit(FUNCS[name][0])(a, b))
    assert out.dtype == dt, (name, out.dtype)
    return out


def _check(name, dt, a, b, got, ref, exact=(), what="compiled"):
    """NaN where the reference is NaN, the reference's sign, and within the bound (or
    equal: for the IEEE ops, and where the reference is one of the values ``exact``)."""
    bound = FUNCS[name][2]
    with np.errstate(all="ignore"):
        want = ref.astype(dt)
    nan = np.isnan(want)
    bad = np.isnan(got) != nan
    bad |= ~nan & (np.signbit(got) != np.signbit(want))
    if bound is None:
        bad |= ~nan & (got != want)
    else:
        bad |= ulp_error(got, ref, dt) > bound[dt == F64]
    with np.errstate(invalid="ignore"):
        special = np.isin(np.abs(ref), np.array(exact, ref.dtype))   # exactly, unrounded
    bad |= special & (got != want)
    if bad.any():
        i = np.flatnonzero(bad)[:8]
        cases = list(zip(a[i].tolist(), b[i].tolist(), got[i].tolist(), want[i].tolist(),
                         ulp_error(got[i], ref[i], dt).tolist()))
        pytest.fail(f"{what} {name} {dt.name}: {bad.sum()} of {bad.size} wrong; "
                    f"(a, b, got, want, ulp): {cases}")


# ----------------------------------------------------------------------------------------
# Sweeps.

@DTYPES
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_binary_sweep_over_both_arguments(name, dt, dtype_env):
    rng = np.random.default_rng(11)
    a, b = _sweep_pairs(dt, rng)
    if name == "pow":
        ha, hb = _pow_hard_pairs(dt, rng)
        a, b = np.concatenate([a, ha]), np.concatenate([b, hb])
    if name == "atan2":     # atan2(y, x): both arguments' roles swapped too
        a, b = np.concatenate([a, b]), np.concatenate([b, a])
    got = _run(name, dt, a, b)
    _check(name, dt, a, b, got, _reference(name, dt, a, b))


@DTYPES
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_binary_special_value_pairs(name, dt, dtype_env):
    """All pairs of special values against C's rules: compiled, zeros, infinities and +-1
    exact; eager (NumPy's C functions: powf(1 + eps, 0.5) is 1 + eps) zeros and
    infinities exact."""
    a, b = _special_pairs(dt)
    ref = _reference(name, dt, a, b)
    _check(name, dt, a, b, _run(name, dt, a, b), ref, exact=(0, np.inf, 1))
    eager = np.asarray(FUNCS[name][0](a, b))
    _check(name, dt, a, b, eager, ref, exact=(0, np.inf), what="eager")


def test_reported_reproducers(x64):
    atan2 = tjit.jit(jnp.arctan2)
    assert atan2(np.float32(1.5e38), np.float32(3e38)) == np.float32(0.4636476)
    for dt in (F32, F64):
        sub, big = np.finfo(dt).smallest_subnormal, np.finfo(dt).max
        y, x = np.array([sub, big / 2, -sub], dt), np.array([2 * sub, big, -2 * sub], dt)
        ref = np.arctan2(y.astype(LD), x.astype(LD))
        assert ulp_error(np.asarray(atan2(y, x)), ref, dt).max() <= BOUNDS["atan2"][1]
    assert tjit.jit(jnp.power)(np.float32(2), np.float32(-150)) == 0


# ----------------------------------------------------------------------------------------
# pow: exact results and ties.

def _exact_pow_cases(dt, rng, n=4000):
    """(x, y, x^y correctly rounded to dt, kind) for exact powers of at most 54 significant
    bits, from Python's rationals: x = m 2^k with integer y, and x = (m 2^k)^2 with y = j/2
    (square roots and their powers); kind: 0 exactly representable, 1 a tie (halfway
    between two neighbours of dt), 2 other."""
    p = np.finfo(dt).nmant + 1
    two = Fraction(2)
    ms, ks = rng.integers(1, 1 << 12, n).tolist(), rng.integers(-70, 70, n).tolist()
    cases = [(Fraction(m) * two ** k, y) for m, k, y in zip(ms, ks, rng.integers(-12, 13, n))]
    # ties on purpose: odd m with m^y of p + 1 bits, and denormal ties m^y 2^(emin - p)
    for y in (2, 3):
        odd = [int(m) | 1 for m in rng.integers(1 << (p // y), 1 << (p // y + 2), 400)]
        cases += [(Fraction(m), y) for m in odd if (m ** y).bit_length() == p + 1]
    emin = np.finfo(dt).minexp
    for y in (1, 2, 3, 5, 7):
        if (emin - p) % y == 0:
            cases += [(m * two ** ((emin - p) // y), y) for m in range(1, 64, 2)]
    roots = [(Fraction(m) * two ** k, Fraction(j, 2)) for m, k, j in zip(
        ms[:n // 2], ks[:n // 2], rng.choice([-5, -3, -1, 1, 3, 5], n // 2))]
    cases = [(x, Fraction(int(y)), x ** int(y)) for x, y in cases]
    cases += [(r * r, y, r ** int(2 * y)) for r, y in roots]
    out = []
    for x, y, v in cases:
        if not 2 ** -1074 <= x < 2 ** 100 or float(x) != x or float(dt.type(x)) != x \
                or v > 2 ** 1000:
            continue
        num, den = v.numerator, v.denominator
        if den & (den - 1) or num.bit_length() > (54 if dt == F64 else 53):
            continue                     # not exact in 54 bits (room for float64's ties)
        # float(v): Python's correct rounding (exact for float32's cases), then float32
        r = float(dt.type(float(v)))
        other = float(np.nextafter(dt.type(r), dt.type(np.inf if r < v else -np.inf)))
        kind = 0 if r == v else 1 if 2 * v == Fraction(r) + Fraction(other) else 2
        out.append((float(x), float(y), r, kind))
    x, y, want, kind = (np.array(c) for c in zip(*out))
    return x.astype(dt), y.astype(dt), want.astype(dt), kind


@DTYPES
def test_pow_exact_cases(dt, dtype_env):
    """Exactly representable powers come out exact; float32 ties round to even (float64
    ties may round either way: float64 pow is not correctly rounded, as C's is not)."""
    x, y, want, kind = _exact_pow_cases(dt, np.random.default_rng(12))
    assert (kind == 0).sum() > 300 and (kind == 1).sum() > 50
    got = _run("pow", dt, x, y)
    must_equal = (kind == 0) | ((kind == 1) & (dt == F32))
    bad = must_equal & (got != want)
    assert not bad.any(), list(zip(x[bad][:8], y[bad][:8], got[bad][:8], want[bad][:8]))
    tie64 = (kind == 1) & (dt == F64)
    assert np.all(np.abs(got[tie64] - want[tie64]) <= np.spacing(np.abs(want[tie64])))
    assert ulp_error(got, want.astype(np.float64), dt).max() <= BOUNDS["pow"][dt == F64]
