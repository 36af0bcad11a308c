"""Regressions found by the differential hunts of session 22 (part A), each checked against
an independent reference.

* ``jnp.square`` / ``lax.square`` of complex numbers formed the real part as
  ``a*a - b*b`` (the product ``z * z``): complex64 ``square(max + max j)`` gave
  ``-inf + inf j`` (true ``0 + inf j``), ``square(inf + max j)`` ``nan + inf j`` (true
  ``inf + inf j``), and an underflowing real part lost its sign (benchmarks/diff_dtypes.py,
  seed 2206). The reference is the square computed in complex128 from the complex64
  operands (each part exact before one rounding to float64, then to float32) and, for
  complex128, exact rational arithmetic.
* complex64 ``x ** y`` was NumPy's single-precision ``exp(y log x)``, up to 55 ulps of
  ``|p|`` off (diff_dtypes seed 2206); checked against mpmath.
* complex ``sinc`` lost ``sinc(conj z) == conj(sinc z)`` on the Maclaurin branch
  (``sinc(-1e-3j)`` had imaginary part ``+0``; benchmarks/diff_complex.py); checked
  against NumPy's ``sinc`` in complex128 and the symmetry itself.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

_F32 = np.finfo(np.float32)


def _points(real_dtype):
    """Random parts of every magnitude plus the edge values, paired every way."""
    fi = np.finfo(real_dtype)
    rng = np.random.default_rng(2206)
    edges = [0.0, -0.0, 1.0, -1.0, 1.5, -2.5, np.inf, -np.inf, np.nan, float(fi.max),
             -float(fi.max), float(fi.max) / 2, float(fi.tiny), 1e-30, 2e-30, 3e-30]
    pairs = list(itertools.product(edges, edges))
    mags = 10.0 ** rng.uniform(np.log10(float(fi.tiny)), np.log10(float(fi.max)), (200, 2))
    pairs += [tuple(p) for p in mags * rng.choice([-1, 1], (200, 2))]
    # |a| close to |b|: where a*a - b*b cancels
    a = rng.uniform(0.5, 2, 100)
    pairs += [(x, y) for x, y in zip(a, a * (1 + rng.integers(-3, 4, 100) * fi.eps))]
    with np.errstate(over="ignore"):
        re = np.array([p[0] for p in pairs]).astype(real_dtype)
        im = np.array([p[1] for p in pairs]).astype(real_dtype)
    z = np.empty(len(pairs), np.complex64 if real_dtype == np.float32 else np.complex128)
    z.real, z.imag = re, im
    return z


def _same(got, want):
    """Equal parts, zeros with their signs, NaN where NaN."""
    ok = np.ones(got.shape, bool)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        ok &= ((g == w) & (np.signbit(g) == np.signbit(w))) | (np.isnan(g) & np.isnan(w))
    return ok


def _ref_c64(z):
    """complex64 squares from complex128 ones: the float32 parts' products are exact in
    float64 (or inf for an infinite part), so each part rounds once to float64, then to
    float32 (0 where |a| == |b| is finite, NaN for inf - inf, as JAX's)."""
    a, b = z.real.astype(np.float64), z.imag.astype(np.float64)
    with np.errstate(all="ignore"):
        out = np.empty(z.shape, np.complex64)
        out.real, out.imag = (a * a - b * b).astype(np.float32), ((a * b) * 2).astype(
            np.float32)
    return out


def _exact_real_part(a, b):
    """a*a - b*b rounded once to float64 from exact rationals (finite a, b)."""
    v = Fraction(a) ** 2 - Fraction(b) ** 2
    try:
        out = float(v)
    except OverflowError:
        return np.inf if v > 0 else -np.inf
    return out if v != 0 else 0.0


@pytest.mark.parametrize("path", ["eager", "jit", "vmap", "lax"])
def test_complex64_square_overflow_and_signs(path):
    z = _points(np.float32)
    f = {"eager": jnp.square, "jit": tjit.jit(jnp.square), "vmap": tjit.vmap(jnp.square),
         "lax": lax.square}[path]
    got = np.asarray(f(z))
    want = _ref_c64(z)
    assert got.dtype == np.complex64
    finite = np.isfinite(want.real) & np.isfinite(want.imag) & (want.real != 0) & (
        want.imag != 0)
    # ordinary values within an ulp (the float64 reference rounds twice); the rest exactly
    with np.errstate(invalid="ignore"):
        close = np.abs(got - want) <= 2 * np.spacing(np.maximum(
            np.abs(want.real), np.abs(want.imag)).astype(np.float32))
    bad = ~np.where(finite, close, _same(got, want))
    assert not bad.any(), [(z[i], got[i], want[i]) for i in np.flatnonzero(bad)[:5]]
    # the cases the product got wrong, spelled out
    m = float(_F32.max)
    assert _same(np.asarray(f(np.array([m + m * 1j, np.inf + m * 1j, 1e-30 + 2e-30j],
                                        np.complex64))),
                 np.array([complex(0, np.inf), complex(np.inf, np.inf), complex(-0.0, 4e-60)],
                          np.complex64)).all()


def test_complex128_square_vs_exact_rationals():
    with tjit.enable_x64(True):
        z = _points(np.float64)
        z = z[np.isfinite(z.real) & np.isfinite(z.imag)]
        got = np.asarray(jnp.square(z))
    assert got.dtype == np.complex128
    for v, g in zip(z, got):
        a, b = float(v.real), float(v.imag)
        want = _exact_real_part(a, b)
        if np.isfinite(want) and want != 0:
            assert abs(g.real - want) <= 2 * np.spacing(abs(want)), (v, g, want)
        else:
            assert g.real == want, (v, g, want)   # +0 where |a| == |b|, as JAX's


def test_complex_square_slopes_and_product_unchanged():
    # d(z**2) = 2 z dz, also at |a| == |b| (the formula's tie branch is a constant)
    for z0 in (1 + 1j, -2 + 2j, 0.5 - 1.5j):
        h = 1e-3
        fd = (np.square(np.complex128(z0 + h)) - np.square(np.complex128(z0 - h))) / (2 * h)
        _, t = tjit.jvp(jnp.square, (np.complex64(z0),), (np.complex64(1),))
        assert abs(complex(t) - fd) < 1e-4, (z0, t, fd)
        # JAX's convention for a real f of complex z: df/da - i df/db
        re = lambda z: np.square(np.complex128(z)).real  # noqa: E731
        want = (re(z0 + h) - re(z0 - h)) / (2 * h) - 1j * (re(z0 + 1j * h) - re(z0 - 1j * h)) / (
            2 * h)
        g = tjit.grad(lambda z: jnp.square(z).real)(np.complex64(z0))
        assert abs(complex(g) - want) < 1e-4, (z0, g, want)
    # z ** 2 and integer_pow stay the product (JAX's z ** 2 overflows the same way)
    m = float(_F32.max)
    z = np.array([m + m * 1j], np.complex64)
    with np.errstate(all="ignore"):
        assert _same(np.asarray(lax.integer_pow(z, 2)), z * z).all()


@pytest.mark.parametrize("path", ["eager", "jit"])
def test_complex64_power_within_an_ulp_of_mpmath(path):
    """complex64 x ** y was NumPy's single-precision exp(y log x): up to 55 ulps of |p| off
    (diff_dtypes seed 2206: 1.8575744e9 - 2.3699336e9j, true 1.8575807e9 - 2.3699356e9j)."""
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(2206)
    n = 150
    scale = rng.choice([1e-3, 1.0, 10.0, 1e3], (2, n))
    x = (rng.standard_normal(n) * scale[0] + 1j * rng.standard_normal(n) * scale[1]).astype(
        np.complex64)
    y = (rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n)).astype(np.complex64)
    x[:3], y[:3] = [1.5 + 2j, -3 + 0.25j, 1e3 + 7j], [3.3 - 0.7j, 2.5 + 0j, 3 + 0j]
    f = jnp.power if path == "eager" else tjit.jit(jnp.power)
    got = np.asarray(f(x, y))
    assert got.dtype == np.complex64
    mpmath.mp.dps = 30
    worst = 0.0
    for xi, yi, g in zip(x, y, got):
        t = complex(mpmath.power(mpmath.mpc(complex(xi)), mpmath.mpc(complex(yi))))
        if not 1e-30 < abs(t) < 1e30:
            continue
        ulp = float(np.spacing(np.float32(abs(t))))
        worst = max(worst, abs(g.real - t.real) / ulp, abs(g.imag - t.imag) / ulp)
    assert worst <= 1.0, worst


@pytest.mark.parametrize("path", ["eager", "jit"])
def test_complex_sinc_keeps_conjugate_symmetry(path):
    """sinc(-1e-3j) was 1.0000017 + 0j (NumPy and JAX: - 0j): the Maclaurin branch's
    constants carry +0 imaginary parts (benchmarks/diff_complex.py)."""
    f = jnp.sinc if path == "eager" else tjit.jit(jnp.sinc)
    y = np.array([1e-30, 1e-9, 1e-3, 0.02, 0.3, 2.5], np.float32)
    for sign in (1, -1):
        z = (0 + 1j * sign * y).astype(np.complex64)
        got = np.asarray(f(z))
        want = np.sinc(z.astype(np.complex128)).astype(np.complex64)  # sinh(pi y) / (pi y)
        assert np.allclose(got.real, want.real, rtol=1e-6, atol=0), (z, got, want)
        assert (got.imag == 0).all() and (np.signbit(got.imag) == (sign < 0)).all(), (z, got)
    # off the axes: sinc(conj z) == conj(sinc z) exactly
    rng = np.random.default_rng(2207)
    z = (rng.standard_normal(50) * 0.3 + 1j * rng.standard_normal(50) * 0.3).astype(
        np.complex64)
    assert _same(np.asarray(f(np.conj(z))), np.conj(np.asarray(f(z)))).all()
