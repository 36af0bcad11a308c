"""scipy.special.lpmn / lpmn_values (associated Legendre functions on an order x degree
grid) against SciPy's lpmv in float64, central differences for the derivatives, the
orthonormalization factor from factorials, jit, and the bad-input errors."""

import math

import numpy as np
import pytest
import scipy.special as ss

import tjit
from tjit.scipy import special as jsp

Z = np.array([-1.0, -0.95, -0.7, -0.2, 0.0, 0.3, 0.65, 0.9, 1.0])


def _lpmv_grid(m, n, z):
    return np.array([[[ss.lpmv(k, l_, x) for x in z] for l_ in range(n + 1)]
                     for k in range(m + 1)])


@pytest.mark.parametrize("m,n", [(0, 0), (3, 3), (6, 6), (2, 5), (5, 2)])
def test_values_match_scipy_lpmv(m, n):
    with tjit.enable_x64(True):
        p, _ = jsp.lpmn(m, n, Z)
    assert p.shape == (m + 1, n + 1, len(Z)) and p.dtype == np.float64
    want = _lpmv_grid(m, n, Z)
    np.testing.assert_allclose(np.asarray(p), want, rtol=1e-12, atol=1e-12)


def test_float32_values_and_jit():
    z = Z.astype(np.float32)
    p, d = tjit.jit(lambda v: jsp.lpmn(4, 4, v))(z)
    assert p.dtype == d.dtype == np.float32
    np.testing.assert_allclose(np.asarray(p), _lpmv_grid(4, 4, Z), rtol=2e-5, atol=2e-5)


def test_derivatives_inside_match_central_differences():
    inner = Z[1:-1]
    h = 1e-6
    with tjit.enable_x64(True):
        _, d = jsp.lpmn(4, 6, inner)
    fd = (_lpmv_grid(4, 6, inner + h) - _lpmv_grid(4, 6, inner - h)) / (2 * h)
    np.testing.assert_allclose(np.asarray(d), fd, rtol=1e-6, atol=1e-6)


def test_derivatives_at_the_ends_are_scipys_limits():
    """SciPy's lpmn at x = +-1: l(l+1)/2 for k = 0, infinite for k = 1, -(l+2)(l+1)l(l-1)/4
    for k = 2 (times (-1)^(l+1) at x = -1), 0 for k > 2."""
    with tjit.enable_x64(True):
        _, d = jsp.lpmn(3, 3, np.array([1.0, -1.0]))
    d = np.asarray(d)
    for l_ in range(4):
        sign = (-1.0) ** (l_ + 1)
        assert d[0, l_, 0] == l_ * (l_ + 1) / 2 and d[0, l_, 1] == sign * l_ * (l_ + 1) / 2
        k2 = -(l_ + 2) * (l_ + 1) * l_ * (l_ - 1) / 4
        assert d[2, l_, 0] == k2 and d[2, l_, 1] == sign * k2
        assert d[3, l_, 0] == d[3, l_, 1] == 0
    assert np.all(np.isposinf(d[1, 1:, 0]))
    np.testing.assert_array_equal(d[1, 1:, 1], [-np.inf, np.inf, -np.inf])


def test_normalized_values_carry_the_spherical_harmonic_factor():
    with tjit.enable_x64(True):
        got = np.asarray(jsp.lpmn_values(5, 5, Z, is_normalized=True))
        plain = np.asarray(jsp.lpmn_values(5, 5, Z, is_normalized=False))
    factor = np.array([[math.sqrt((2 * l_ + 1) / (4 * math.pi) * math.factorial(l_ - k)
                                  / math.factorial(l_ + k)) if k <= l_ else 0.0
                        for l_ in range(6)] for k in range(6)])
    want = _lpmv_grid(5, 5, Z) * factor[:, :, None]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(plain, _lpmv_grid(5, 5, Z), rtol=1e-12, atol=1e-12)


def test_high_degree_normalized_stays_finite():
    z = np.linspace(-0.99, 0.99, 7).astype(np.float32)
    got = np.asarray(jsp.lpmn_values(150, 150, z, is_normalized=True))
    assert np.all(np.isfinite(got)) and np.max(np.abs(got)) < 10


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="lpmn: z must be a float32 or float64 array"):
        jsp.lpmn(2, 2, np.array([0, 1]))
    with pytest.raises(ValueError, match="lpmn_values: z must be a 1-D array"):
        jsp.lpmn_values(2, 2, np.zeros((2, 2), np.float32), True)
    with pytest.raises(ValueError, match="lpmn: the largest order m and degree n must be >= 0"):
        jsp.lpmn(-1, 2, np.zeros(3, np.float32))
    with pytest.raises(tjit.errors.ConcretizationTypeError, match="lpmn: m must be a static"):
        tjit.jit(lambda m: jsp.lpmn(m, 2, np.zeros(3, np.float32)))(2)
    with pytest.raises(tjit.errors.ConcretizationTypeError,
                       match="lpmn_values: is_normalized must be a static Python bool"):
        tjit.jit(lambda f: jsp.lpmn_values(2, 2, np.zeros(3, np.float32), f))(True)
