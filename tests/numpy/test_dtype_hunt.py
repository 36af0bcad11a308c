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
