"""Composed two-argument ``jnp`` functions swept over bit-pattern pairs against NumPy,
eager and compiled (the idea of tests/lower/test_mathlib_binary.py, for the functions
that are compositions of primitives rather than one mathlib function).

Points: uniformly drawn bit patterns of both arguments (denormals, infinities, NaN),
pairs with exponents within 3 of each other and unrelated ones over the whole range,
all pairs of a set of special values, and (for the logaddexps) pairs where the result
nearly cancels. References are independent of tjit: NumPy in the same dtype for the
exact functions, NumPy in float64 (for float32) or long double (for float64) for the
rounded ones. Bounds, in ulps of the correctly rounded result:

=================  =============================================================
copysign, nextafter, fmod, remainder, floor_divide, divmod, heaviside, ldexp
                   NumPy's bits exactly: signed zeros (a zero remainder takes the
                   divisor's sign, a zero quotient that of x / y) and NaN-ness
hypot              1 (float32 through float64; float64 corrected, Borges 2019)
float_power        pow in the widest enabled float: compiled mathlib's (1, 2),
                   eager (libm) 1
arctan2            eager: NumPy's own (3 for float32: atan2f, 1 for float64);
                   compiled: mathlib's bound (2.5, 3)
logaddexp(2)       4 ulps of max(|x|, |y|, |result|): NumPy's formula
                   max + log1p(exp(-|x - y|)) cancels where the result is near 0,
                   NumPy's own float32 result is 5000 ulps off there too
=================  =============================================================

Every result must be NaN exactly where the reference is and carry its sign (for the
logaddexps, unless it lies within the bound of 0).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.lower.test_mathlib import BOUNDS, F32, F64, HAVE_LD, LD, ulp_error
from tests.lower.test_mathlib_binary import _bits, _exponent_pairs, _special_pairs

N = 1 << 14

#: name -> (jnp function, NumPy function, bound (float32, float64) or None for exact,
#:          bound of the eager result if it differs)
FUNCS = {
    "copysign": (jnp.copysign, np.copysign, None),
    "nextafter": (jnp.nextafter, np.nextafter, None),
    "fmod": (jnp.fmod, np.fmod, None),
    "remainder": (jnp.remainder, np.remainder, None),
    "floor_divide": (jnp.floor_divide, np.floor_divide, None),
    "divmod_q": (lambda a, b: jnp.divmod(a, b)[0], lambda a, b: np.divmod(a, b)[0], None),
    "divmod_r": (lambda a, b: jnp.divmod(a, b)[1], lambda a, b: np.divmod(a, b)[1], None),
    "heaviside": (jnp.heaviside, np.heaviside, None),
    "hypot": (jnp.hypot, np.hypot, (1, 1)),
    "float_power": (jnp.float_power, np.float_power, BOUNDS["pow"], (1, 1)),
    "arctan2": (jnp.arctan2, np.arctan2, BOUNDS["atan2"], (3, 1)),
    "logaddexp": (jnp.logaddexp, np.logaddexp, (4, 4)),
    "logaddexp2": (jnp.logaddexp2, np.logaddexp2, (4, 4)),
}
CANCELLING = ("logaddexp", "logaddexp2")   # bound relative to max(|x|, |y|, |result|)


def _pairs(dt):
    rng = np.random.default_rng(21)
    a1, b1 = _bits(dt, rng, N), _bits(dt, rng, N)
    a2, b2 = _exponent_pairs(dt, rng, N)
    a3, b3 = _special_pairs(dt)
    hi = -rng.uniform(0, 1.5, N // 4)      # logaddexp near 0: max in (-1.5, 0]
    a4, b4 = hi.astype(dt), (hi - rng.uniform(0, 3, N // 4)).astype(dt)
    # floor_divide's quotients of 2**22 and more (float32 rounds there)
    q = rng.uniform(-1, 1, N // 4) * 2.0 ** rng.integers(20, 60, N // 4)
    b5 = rng.uniform(-1, 1, N // 4).astype(dt)
    a5 = (q * b5).astype(dt)
    return (np.concatenate([a1, a2, a3, a4, b4, a5]),
            np.concatenate([b1, b2, b3, b4, a4, b5]))


def _reference(name, dt, a, b):
    ref_fn, bound = FUNCS[name][1], FUNCS[name][2]
    with np.errstate(all="ignore"):
        if bound is None:
            return ref_fn(a, b), dt
        return ref_fn(a.astype(np.float64 if dt == F32 else LD),
                      b.astype(np.float64 if dt == F32 else LD)), dt


def _errors(name, out_dt, a, b, got, ref):
    """ulps of the correctly rounded result (or exact mismatch), inf for a wrong NaN,
    sign or special value."""
    with np.errstate(all="ignore"):
        want = ref.astype(out_dt)
    nan = np.isnan(want)
    wrong = (np.isnan(got) != nan) | (~nan & (np.signbit(got) != np.signbit(want)))
    if FUNCS[name][2] is None:
        wrong |= ~nan & (got != want)
        return np.where(wrong, np.inf, 0.0)
    err = ulp_error(got, ref, out_dt)
    if name in CANCELLING:
        wide = ref.dtype
        with np.errstate(all="ignore"):
            scale = np.maximum(np.maximum(np.abs(a), np.abs(b)).astype(wide), np.abs(ref))
            absolute = np.abs(got.astype(wide) - ref) / np.spacing(
                scale.astype(out_dt)).astype(wide)
        near = np.isfinite(err) & np.isfinite(absolute)
        err = np.where(near, np.minimum(err, absolute), err)
        # a result within the bound of 0 may come out with either sign
        wrong &= ~(near & (absolute <= FUNCS[name][2][out_dt == F64]) & (want != 0))
    return np.where(wrong, np.inf, err)


def _check(name, mode, dt, a, b, got, ref, out_dt):
    rec = FUNCS[name]
    bound = rec[2] if mode == "compiled" or len(rec) < 4 else rec[3]
    limit = 0 if bound is None else bound[dt == F64]
    assert got.dtype == out_dt, (name, mode, got.dtype)
    err = _errors(name, out_dt, a, b, got, ref)
    bad = err > limit
    if bad.any():
        i = np.flatnonzero(bad)[:6]
        with np.errstate(all="ignore"):
            want = ref[i].astype(out_dt)
        pytest.fail(f"{mode} {name} {dt.name}: {bad.sum()} of {bad.size} beyond {limit} ulp; "
                    f"(a, b, got, want, ulp): "
                    f"{list(zip(a[i].tolist(), b[i].tolist(), got[i].tolist(), want.tolist(), err[i].tolist()))}")
    return err.max()


@pytest.mark.skipif(not HAVE_LD, reason="needs 80-bit long double references")
@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_composed_binary_ufuncs_sweep(dt, request):
    """float32 runs with 64-bit types off (the default: no float64 intermediates, and
    float_power gives float32), float64 with them on."""
    if dt == F64:
        request.getfixturevalue("x64")
    a, b = _pairs(dt)
    names = sorted(FUNCS)
    compiled = tjit.jit(lambda a, b: [FUNCS[n][0](a, b) for n in names])(a, b)
    for name, out in zip(names, compiled):
        ref, out_dt = _reference(name, dt, a, b)
        _check(name, "compiled", dt, a, b, np.asarray(out), ref, out_dt)
        _check(name, "eager", dt, a, b, np.asarray(FUNCS[name][0](a, b)), ref, out_dt)


@pytest.mark.parametrize("dt", [F32, F64], ids=["float32", "float64"])
def test_ldexp_sweep(dt, x64):
    """ldexp over bit-pattern mantissas and exponents across (and beyond) the range:
    NumPy's bits (exact, or rounded once into the denormal range)."""
    rng = np.random.default_rng(22)
    fi = np.finfo(dt)
    span = fi.maxexp - fi.minexp + fi.nmant + 8
    x = np.concatenate([_bits(dt, rng, N), _special_pairs(dt)[0]])
    e = rng.integers(-span, span, x.size).astype(np.int32)
    e[:64] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max] * 32
    with np.errstate(all="ignore"):
        want = np.ldexp(x, e)
    for mode, f in (("eager", jnp.ldexp), ("compiled", tjit.jit(jnp.ldexp))):
        got = np.asarray(f(x, e))
        same = (got == want) & (np.signbit(got) == np.signbit(want))
        same |= np.isnan(got) & np.isnan(want)
        assert same.all(), (mode, list(zip(x[~same][:6], e[~same][:6], got[~same][:6])))


def test_reported_floor_divide():
    """NumPy's npy_divmod: the quotient is snapped, not rounded half to even."""
    a, b = np.float32(-131569.83), np.float32(-0.015981581)
    for f in (jnp.floor_divide, tjit.jit(jnp.floor_divide),
              lambda a, b: jnp.divmod(a, b)[0], lambda a, b: a // b):
        assert f(jnp.asarray(a), jnp.asarray(b)) == np.float32(8232591)
    r = jnp.remainder(np.float32(4), np.float32(-2))
    assert r == 0 and np.signbit(r)
    assert np.signbit(tjit.jit(jnp.remainder)(np.float32(-4), np.float32(-2)))
    assert not np.signbit(jnp.floor_divide(np.float32(-1e-9), np.float32(-3e22)))


def test_remainder_gradient_at_exact_multiples():
    """The zero remainder's sign fix does not cut the derivative: d(x % y)/dx is 1."""
    g = tjit.grad(lambda x: jnp.sum(jnp.remainder(x, 2.0)))
    np.testing.assert_array_equal(g(jnp.asarray([4.0, -4.0, 3.0])), [1.0, 1.0, 1.0])


def test_float16_exact_functions():
    """float16 (library-routed when compiled): NumPy's bits; floor division computes in
    float32 and rounds, as NumPy's npy_half_divmod."""
    rng = np.random.default_rng(23)
    a, b = (rng.integers(0, 2 ** 16, N).astype(np.uint16).view(np.float16) for _ in "ab")
    for name in ("floor_divide", "remainder", "divmod_q", "divmod_r", "fmod", "copysign",
                 "heaviside"):
        fn, ref_fn, _ = FUNCS[name]
        with np.errstate(all="ignore"):
            want = ref_fn(a, b)
        for mode, f in (("eager", fn), ("compiled", tjit.jit(fn))):
            got = np.asarray(f(a, b))
            same = ((got == want) & (np.signbit(got) == np.signbit(want))) | (
                np.isnan(got) & np.isnan(want))
            assert got.dtype == np.float16 and same.all(), (
                name, mode, list(zip(a[~same][:4], b[~same][:4], got[~same][:4])))
