"""Higher derivatives of elementwise ops at the points their rules special-case, against
float64 closed forms (found comparing tjit with JAX: the Hessian of x**y lost its mixed
term wherever y == 0, because pow's x-slope selected a constant 0 there; digamma's slope
was 1.6e32 instead of inf at its poles -1, -2, ...)."""

import numpy as np
import pytest

import tjit
from tjit import lax


def _pow_hessian(x, y):
    """d2 x**y / d(x, y)2 for x > 0, in float64."""
    lx = np.log(x)
    fxy = x ** (y - 1) * (1 + y * lx)
    return np.array([[y * (y - 1) * x ** (y - 2), fxy], [fxy, x ** y * lx ** 2]])


@pytest.mark.parametrize("x, y", [(2.0, 0.0), (0.5, 0.0), (3.0, 0.0), (2.0, 1.0), (3.0, 2.5)])
@pytest.mark.parametrize("jit", [False, True])
def test_pow_hessian_at_zero_exponent(x, y, jit, x64):
    hess = tjit.hessian(lambda a: lax.pow(a[0], a[1]))
    hess = tjit.jit(hess) if jit else hess
    np.testing.assert_allclose(np.asarray(hess(np.array([x, y]))), _pow_hessian(x, y),
                               rtol=1e-12, atol=1e-12)


def test_pow_mixed_derivative_forward_over_forward_and_vmap(x64):
    x, y = np.array([2.0, 0.25, 4.0]), np.zeros(3)
    # d/dy of (d/dx x**y) by two nested jvps, elementwise: x**-1 at y == 0.
    dx = lambda a, b: tjit.jvp(lambda u: lax.pow(u, b), (a,), (np.ones_like(a),))[1]
    _, mixed = tjit.jvp(lambda b: dx(x, b), (y,), (np.ones_like(y),))
    np.testing.assert_allclose(np.asarray(mixed), 1 / x, rtol=1e-12)
    per_row = tjit.vmap(tjit.grad(tjit.grad(lambda a, b: lax.pow(a, b)), argnums=1))(x, y)
    np.testing.assert_allclose(np.asarray(per_row), 1 / x, rtol=1e-12)


@pytest.mark.parametrize("x", [0.0, -0.0, 1e-310])
def test_pow_slope_stays_finite_where_zero_exponent_meets_tiny_base(x, x64):
    # d/dx x**0 is 0, also where x**-1 overflows (0 * inf must not leak as NaN)
    gx, gy = tjit.grad(lambda a, b: lax.pow(a, b), argnums=(0, 1))(x, 0.0)
    assert float(gx) == 0.0
    assert float(gy) == (np.log(x) if x > 0 else 0.0)  # log(x) * x**0; 0 at x == 0, as JAX
    hess = tjit.hessian(lambda a: lax.pow(a[0], a[1]))(np.array([x, 0.0]))
    assert not np.any(np.isnan(np.asarray(hess)))


@pytest.mark.parametrize("jit", [False, True])
def test_digamma_slope_is_infinite_at_its_poles(jit, x64):
    # trigamma's reflection pi**2 / sin(pi x)**2 met sin(-2 pi) ~ 2.4e-16: 1.6e32, not inf
    import scipy.special
    x = np.array([-3.0, -2.0, -1.0, 0.0, -2.5, -0.25, 0.3, 5.0])
    slope = tjit.vmap(tjit.grad(lax.digamma))
    slope = tjit.jit(slope) if jit else slope
    np.testing.assert_allclose(np.asarray(slope(x)), scipy.special.polygamma(1, x), rtol=1e-10)
    curvature = tjit.vmap(tjit.grad(tjit.grad(lax.lgamma)))(x)
    np.testing.assert_allclose(np.asarray(curvature), scipy.special.polygamma(1, x), rtol=1e-10)
