"""tjit.scipy.integrate.trapezoid against scipy.integrate.trapezoid in float64, with
gradients against finite differences."""

import numpy as np
import pytest
import scipy.integrate as si

import tjit
from tjit.scipy.integrate import trapezoid
from tests.transforms.check import check_grads


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_against_scipy(x64, axis):
    rng = np.random.default_rng(0)
    y = rng.standard_normal((4, 5, 6))
    x1 = np.sort(rng.standard_normal(y.shape[axis]))
    xf = np.sort(rng.standard_normal(y.shape), axis=axis)
    np.testing.assert_allclose(np.asarray(trapezoid(y, axis=axis)),
                               si.trapezoid(y, axis=axis), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(trapezoid(y, dx=0.3, axis=axis)),
                               si.trapezoid(y, dx=0.3, axis=axis), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(trapezoid(y, x1, axis=axis)),
                               si.trapezoid(y, x1, axis=axis), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(trapezoid(y, xf, axis=axis)),
                               si.trapezoid(y, xf, axis=axis), rtol=1e-12, atol=1e-12)


def test_integral_grad_and_jit(x64):
    x = np.linspace(0, np.pi, 2001)
    # the rule converges to the integral: int_0^pi sin = 2
    assert abs(float(tjit.jit(trapezoid)(np.sin(x), x)) - 2.0) < 1e-6
    rng = np.random.default_rng(1)
    check_grads(lambda y, x: trapezoid(y, x), (rng.standard_normal((3, 5)),
                                                np.sort(rng.standard_normal(5))),
                rtol=1e-6, atol=1e-6)


def test_errors():
    with pytest.raises(tjit.ShapeError, match=r"trapezoid: x of shape \(4,\).*\(3, 5\)"):
        trapezoid(np.ones((3, 5)), np.ones(4))
    with pytest.raises(tjit.ShapeError, match="at least one dim"):
        trapezoid(np.float64(1.0))
