"""tjit.scipy.interpolate.RegularGridInterpolator and tjit.scipy.cluster.vq.vq against
SciPy in float64; under jit (the interpolator as a pytree argument); gradients against
finite differences; bad arguments."""

import numpy as np
import pytest
import scipy.cluster.vq as svq
import scipy.interpolate as si

import tjit
from tjit.scipy.cluster import vq
from tjit.scipy.interpolate import RegularGridInterpolator
from tests.transforms.check import check_grads

RNG = np.random.default_rng(3)
GRID = (np.sort(RNG.uniform(0, 1, 5)), np.linspace(-1, 1, 4), np.array([0.0, 0.5, 2.0]))
VALUES = RNG.standard_normal((5, 4, 3, 2))
XI = np.stack([RNG.uniform(-0.2, 1.2, 30), RNG.uniform(-1.3, 1.3, 30),
               RNG.uniform(-0.1, 2.1, 30)], -1)


@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("fill_value", [np.nan, None, 3.0])
def test_regular_grid_against_scipy(x64, method, fill_value):
    want = si.RegularGridInterpolator(GRID, VALUES, method=method, bounds_error=False,
                                      fill_value=fill_value)(XI)
    got = RegularGridInterpolator(GRID, VALUES, method=method, fill_value=fill_value)(XI)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # values with no trailing dims; points as a tuple of coordinate arrays
    want = si.RegularGridInterpolator(GRID[:2], VALUES[..., 0, 0], method=method,
                                      bounds_error=False, fill_value=fill_value)(XI[:, :2])
    interp = RegularGridInterpolator(GRID[:2], VALUES[..., 0, 0], method=method,
                                     fill_value=fill_value)
    np.testing.assert_allclose(interp((XI[:, 0], XI[:, 1])), want, rtol=1e-12, atol=1e-12)


def test_regular_grid_jit_grad_and_shapes(x64):
    interp = RegularGridInterpolator(GRID[:2], VALUES[..., 0, 0])
    want = si.RegularGridInterpolator(GRID[:2], VALUES[..., 0, 0],
                                      bounds_error=False)(XI[:12, :2])
    got = tjit.jit(lambda r, x: r(x))(interp, XI[:12, :2].reshape(3, 4, 2))
    assert got.shape == (3, 4)
    np.testing.assert_allclose(got.reshape(-1), want, rtol=1e-12)
    inside = np.array([[0.4, 0.1], [0.55, -0.3]])
    check_grads(lambda v: RegularGridInterpolator(GRID[:2], v)(inside), (VALUES[..., 0, 0],))
    check_grads(lambda x: RegularGridInterpolator(GRID[:2], VALUES[..., 0, 0])(x), (inside,))
    one_d = RegularGridInterpolator((np.array([0.0, 1, 3]),), np.array([1.0, 2, 0]))
    np.testing.assert_allclose(one_d(np.array([0.5, 2.0])), [1.5, 1.0])


def test_regular_grid_errors():
    with pytest.raises(ValueError, match="RegularGridInterpolator: method must be"):
        RegularGridInterpolator(GRID, VALUES, method="cubic")
    with pytest.raises(NotImplementedError, match="bounds_error=True is not supported"):
        RegularGridInterpolator(GRID, VALUES, bounds_error=True)
    with pytest.raises(ValueError, match=r"points\[1\] of shape \(3,\) must be 1-D"):
        RegularGridInterpolator((GRID[0], GRID[2]), VALUES[:, :, 0])
    with pytest.raises(ValueError, match="xi have dimension 2 .* grid has dimension 3"):
        RegularGridInterpolator(GRID, VALUES)(XI[:, :2])


def test_vq_against_scipy(x64):
    obs, book = RNG.standard_normal((20, 3)), RNG.standard_normal((5, 3))
    for o, b in [(obs, book), (obs[:, 0], book[:, 0])]:
        code, dist = vq.vq(o, b)
        want_code, want_dist = svq.vq(o, b)
        np.testing.assert_array_equal(code, want_code)
        np.testing.assert_allclose(dist, want_dist, rtol=1e-12)
    code, dist = tjit.jit(vq.vq)(obs, book)
    np.testing.assert_array_equal(code, svq.vq(obs, book)[0])
    check_grads(lambda o: vq.vq(o, book)[1], (obs,))
    with pytest.raises(ValueError, match="vq.vq: obs .* and code_book .* number of dims"):
        vq.vq(obs, book[:, 0])
    with pytest.raises(ValueError, match="vq.vq: obs .* same number of features"):
        vq.vq(obs, book[:, :2])
