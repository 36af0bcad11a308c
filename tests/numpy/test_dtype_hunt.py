"""Narrow and complex dtypes where tjit gave silent wrong answers: each case checked
eagerly, under jit and the reference interpreter, against an independent reference
(mpmath at high precision, or NumPy in float64/complex128)."""

import mpmath
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

MODES = {
    "eager": lambda f: f,
    "jit": tjit.jit,
    "interpreter": lambda f: tjit.jit(f, backend="interpreter"),
}


def _mp_log1p(z):
    with mpmath.workdps(50):
        return complex(mpmath.log(1 + mpmath.mpc(complex(z))))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_log1p_keeps_small_arguments(mode, dtype, x64):
    # log(1 + z) through |1 + z| lost all of a small z's real part (log1p(1e-10j) gave 0)
    z = np.array([1e-10j, 1e-4 + 0j, -5.6e-4 + 0j, 3e-5 - 2e-5j, 0.3 + 0.4j, -0.4 - 0.3j,
                  1e-20 + 1e-3j, 2.0 + 1.0j, -3.0 + 0.5j, 1e30 + 1e30j], dtype)
    got = np.asarray(MODES[mode](jnp.log1p)(z))
    want = np.array([_mp_log1p(v) for v in z])
    eps = np.finfo(dtype).eps
    assert got.dtype == dtype
    np.testing.assert_allclose(got.real, want.real, rtol=4 * eps, atol=0)
    np.testing.assert_allclose(got.imag, want.imag, rtol=4 * eps, atol=0)


@pytest.mark.parametrize("mode", MODES)
def test_complex_log1p_special_values(mode):
    z = np.array([complex(np.inf, 0.0), complex(-1.0, 0.0), complex(-2.0, 0.0),
                  complex(-2.0, -0.0), complex(0.0, -0.0), complex(np.nan, 0.0)], np.complex64)
    got = np.asarray(MODES[mode](jnp.log1p)(z))
    # log(1 + z) is exact at these points (1 + z formed part by part: zero signs kept)
    want = np.log(np.array([complex(1 + v.real, v.imag) for v in z.astype(np.complex128)]))
    np.testing.assert_array_equal(got.real, want.real.astype(np.float32))
    np.testing.assert_array_equal(got.imag, want.imag.astype(np.float32))
    assert np.array_equal(np.signbit(got.imag), np.signbit(want.imag))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name, base", [("log2", 2.0), ("log10", 10.0)])
def test_complex_log2_log10_of_infinities(mode, name, base):
    # a complex division by log(base) made log2(inf + 0j) inf + nan j
    z = np.array([complex(np.inf, 0.0), complex(np.inf, -0.0), complex(-np.inf, 1.0),
                  complex(0.0, 0.0), complex(3.0, 4.0), complex(1e30, -1e30)], np.complex64)
    got = np.asarray(MODES[mode](getattr(jnp, name))(z))
    ln = np.log(z.astype(np.complex128))
    want = np.array([complex(r, i) for r, i in zip(ln.real / np.log(base),
                                                   ln.imag / np.log(base))])
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got.real, want.real.astype(np.float32), rtol=1e-6)
    np.testing.assert_allclose(got.imag, want.imag.astype(np.float32), rtol=1e-6)
    assert np.array_equal(np.signbit(got.imag), np.signbit(want.imag))


INF, NAN = np.inf, np.nan
# (numerator, denominator, quotient) by C99 Annex G (G.5.1): an infinite numerator over a
# finite denominator is infinite, a finite numerator over an infinite denominator zero;
# NumPy's complex division gives nan + nan j for all of these
DIV_CASES = [
    (complex(INF, 1.0), complex(2.0, 1.0), complex(INF, -INF)),
    (complex(INF, NAN), complex(1.0, 1.0), complex(INF, -INF)),
    (complex(1.0, 1.0), complex(INF, INF), complex(0.0, 0.0)),
    (complex(1.0, 1.0), complex(INF, 0.0), complex(0.0, 0.0)),
    (complex(1.0, 2.0), complex(NAN, INF), complex(0.0, -0.0)),
    (complex(-3.0, 2.0), complex(-INF, 5.0), complex(0.0, -0.0)),
    # ordinary quotients and NumPy's own answers stay as they were
    (complex(1.0, 2.0), complex(3.0, -4.0), complex(-0.2, 0.4)),
    (complex(1.0, 0.0), complex(0.0, 0.0), complex(INF, NAN)),
    (complex(0.0, 0.0), complex(0.0, 0.0), complex(NAN, NAN)),
]


def _check_parts(got, want, rtol):
    for g, w in zip(np.asarray(got).ravel(), want):
        for pg, pw in ((g.real, w.real), (g.imag, w.imag)):
            if np.isnan(pw):
                assert np.isnan(pg), (g, w)
            else:
                assert np.isclose(pg, pw, rtol=rtol, atol=0), (g, w)
                assert np.signbit(pg) == np.signbit(pw), (g, w)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_division_recovers_infinities(mode, dtype, x64):
    x = np.array([c[0] for c in DIV_CASES], dtype)
    y = np.array([c[1] for c in DIV_CASES], dtype)
    got = MODES[mode](lambda a, b: jnp.asarray(a) / b)(x, y)
    assert got.dtype == dtype
    _check_parts(got, [c[2] for c in DIV_CASES], rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_complex_reciprocal_of_infinities(mode):
    z = np.array([complex(INF, INF), complex(INF, 0.0), complex(NAN, INF), complex(2.0, 1.0)],
                 np.complex64)
    got = MODES[mode](jnp.reciprocal)(z)
    _check_parts(got, [complex(0.0, -0.0), complex(0.0, 0.0), complex(0.0, -0.0),
                       complex(0.4, -0.2)], rtol=1e-6)


def test_complex_division_vmap_matches_loop():
    x = np.array([[c[0] for c in DIV_CASES]] * 2, np.complex64)
    y = np.array([[c[1] for c in DIV_CASES]] * 2, np.complex64)
    got = tjit.vmap(lambda a, b: a / b)(x, y)
    for row in np.asarray(got):
        _check_parts(row, [c[2] for c in DIV_CASES], rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32"])
def test_gcd_lcm_with_the_most_negative_integer(mode, dtype):
    # |MIN| wraps to MIN: the Euclid loop ended on a negative divisor (gcd(5, -128) was -1)
    lo = np.iinfo(dtype).min
    x = np.array([5, lo, lo, 0, 6, lo, 12, -7, 3], dtype)
    y = np.array([lo, 5, lo, lo, lo, 0, -18, 21, -9], dtype)
    want_gcd = np.array([np.gcd(int(a), int(b)) for a, b in zip(x, y)]).astype(dtype)
    want_lcm = np.array([np.lcm(int(a), int(b)) for a, b in zip(x, y)]).astype(dtype)
    np.testing.assert_array_equal(MODES[mode](jnp.gcd)(x, y), want_gcd)
    np.testing.assert_array_equal(MODES[mode](jnp.lcm)(x, y), want_lcm)


@pytest.mark.parametrize("mode", MODES)
def test_complex_division_by_signed_zeros(mode):
    # C99 G.5.1: copysign(inf, c) * a, copysign(inf, c) * b (NumPy used +inf whatever c)
    x = np.array([1 + 0j, 1 + 1j, 1 + 0j, complex(-2.0, 3.0), 0j], np.complex64)
    y = np.array([complex(-0.0, -0.0), complex(-0.0, 0.0), 0j, complex(-0.0, 0.0), 0j],
                 np.complex64)
    got = MODES[mode](lambda a, b: jnp.asarray(a) / b)(x, y)
    _check_parts(got, [complex(-INF, NAN), complex(-INF, -INF), complex(INF, NAN),
                       complex(INF, -INF), complex(NAN, NAN)], rtol=0)


def test_astype_complex_to_real_warns_as_jax():
    # JAX (and NumPy) warn that the imaginary part is dropped; tjit was silent
    z = jnp.asarray(np.array([1 + 2j, -3 - 1j], np.complex64))
    for cast in (lambda: z.astype(jnp.float32), lambda: jnp.astype(z, jnp.int32),
                 lambda: tjit.jit(lambda v: v.astype(jnp.float16))(z)):
        with pytest.warns(DeprecationWarning, match="discard|real/imaginary"):
            out = cast()
        np.testing.assert_array_equal(np.asarray(out).astype(np.float64), [1.0, -3.0])


def test_complex_to_real_inside_tjit_does_not_warn():
    import warnings
    z = jnp.asarray(np.array([1 + 2j, -3 - 1j, 0.5j], np.complex64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z.astype(bool), z.astype(jnp.complex64), jnp.abs(z), jnp.angle(z), jnp.var(z)
        jnp.fft.irfft(z), jnp.fft.hfft(z), jnp.linalg.norm(z), jnp.sort(z)
        jnp.linalg.eigh(jnp.eye(2, dtype=jnp.complex64)), jnp.linalg.svd(jnp.eye(2) * z[0])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_i0_of_narrow_floats_is_rounded_once(mode, dtype):
    # the Chebyshev series evaluated in float16 was 3 ulps off (i0(3.5) = 7.367 for 7.379)
    x64 = np.linspace(-9.0, 9.0, 37)
    x = x64.astype(dtype)
    got = np.asarray(MODES[mode](jnp.i0)(x))
    assert got.dtype == x.dtype
    want = np.i0(x.astype(np.float64))
    # within one ulp of the float64 value (rounding once may land either side)
    mant = 11 if dtype is np.float16 else 8
    spacing = np.abs(np.spacing(want.astype(np.float32))) * 2.0 ** (24 - mant)
    np.testing.assert_array_less(np.abs(got.astype(np.float64) - want), spacing * 1.01)
