"""Defects found by benchmarks/diff_scipy_misc.py, each checked against SciPy in float64:
descending interpolation grids, integer map_coordinates with a float cval, the axis of a
half-turn rotation vector, and fftconvolve of an empty input."""

import numpy as np
import pytest
import scipy.interpolate
import scipy.ndimage
import scipy.signal
from scipy.spatial.transform import Rotation as SciPyRotation

import tjit
from tjit.scipy.interpolate import RegularGridInterpolator
from tjit.scipy.ndimage import map_coordinates
from tjit.scipy.signal import fftconvolve
from tjit.scipy.spatial.transform import Rotation


@pytest.fixture(autouse=True)
def _x64():
    with tjit.enable_x64():
        yield


def _descending_problem(trailing=()):
    rng = np.random.default_rng(0)
    grid = (np.array([3.0, 2.5, 1.0, -0.5]), np.array([-1.0, 0.0, 0.7, 2.0, 2.2]))
    values = rng.standard_normal((4, 5) + trailing)
    xi = np.stack([rng.uniform(-1.5, 4.0, 12), rng.uniform(-2.0, 3.0, 12)], -1)
    xi[0] = [2.75, 0.35]   # ties of the nearest method on both axes
    xi[1] = [3.0, -1.0]    # grid corners
    xi[2] = [-0.5, 2.2]
    xi[3] = [2.5, 0.7]     # an interior node
    return grid, values, xi


@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("fill_value", [np.nan, None, 0.25])
@pytest.mark.parametrize("trailing", [(), (3,)])
def test_regular_grid_interpolator_descending_grid_matches_scipy(method, fill_value,
                                                                 trailing):
    grid, values, xi = _descending_problem(trailing)
    want = scipy.interpolate.RegularGridInterpolator(
        grid, values, method=method, bounds_error=False, fill_value=fill_value)(xi)
    interp = RegularGridInterpolator(grid, values, method=method, fill_value=fill_value)
    np.testing.assert_allclose(interp(xi), want, rtol=1e-12, atol=1e-12)
    # the grid traced (the interpolator passed into jit as a pytree) takes the same path
    got = tjit.jit(lambda r, p: r(p))(interp, xi)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_regular_grid_interpolator_rejects_non_monotonic_grid():
    grid = (np.array([0.0, 2.0, 1.0]),)
    with pytest.raises(ValueError, match="strictly ascending or descending"):
        RegularGridInterpolator(grid, np.ones(3))
    with pytest.raises(ValueError, match="strictly ascending or descending"):
        RegularGridInterpolator((np.array([0.0, 1.0, 1.0]),), np.ones(3))


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_map_coordinates_integer_input_interpolates_towards_float_cval(order, dtype):
    rng = np.random.default_rng(1)
    image = rng.integers(0, 9, (3, 4)).astype(dtype)
    coords = [rng.uniform(-2.0, 4.0, 20), rng.uniform(-2.0, 5.0, 20)]
    for cval in (1.6, 2.5, 0.7):
        want = scipy.ndimage.map_coordinates(image, coords, order=order,
                                             mode="grid-constant", cval=cval)
        got = map_coordinates(image, coords, order=order, mode="constant", cval=cval)
        assert got.dtype == image.dtype
        np.testing.assert_array_equal(got, want)


def test_as_rotvec_half_turn_axis_matches_scipy():
    quat = np.array([[0.0, -1.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0], [-1.0, 0.0, 0.0, 0.0],
                     [0.0, -0.6, 0.8, 0.0], [0.0, 0.0, 0.0, -1.0], [0.1, -0.2, 0.3, -0.9]])
    for degrees in (False, True):
        want = SciPyRotation.from_quat(quat).as_rotvec(degrees=degrees)
        got = Rotation.from_quat(quat).as_rotvec(degrees=degrees)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", [((0,), (3,)), ((2, 0), (3, 3)), ((4,), (0,))])
def test_fftconvolve_of_empty_input_is_empty_as_scipy(mode, shapes):
    a, b = np.zeros(shapes[0]), np.ones(shapes[1])
    want = scipy.signal.fftconvolve(a, b, mode=mode)
    got = fftconvolve(a, b, mode=mode)
    assert got.shape == want.shape
    with pytest.raises(ValueError, match="mode"):
        fftconvolve(a, b, mode="middle")


@pytest.mark.parametrize("method", ["linear", "nearest"])
@pytest.mark.parametrize("fill_value", [np.nan, None, 0.0])
def test_regular_grid_interpolator_nan_point_gives_nan(method, fill_value):
    grid = (np.arange(4.0), np.array([0.0, 1.0, 3.0]))
    values = np.arange(12.0).reshape(4, 3) ** 2
    xi = np.array([[np.nan, 1.0], [1.5, np.nan], [1.5, 2.0], [5.0, np.nan], [5.0, 1.0]])
    want = scipy.interpolate.RegularGridInterpolator(
        grid, values, method=method, bounds_error=False, fill_value=fill_value)(xi)
    got = RegularGridInterpolator(grid, values, method=method, fill_value=fill_value)(xi)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got = tjit.jit(lambda p: RegularGridInterpolator(grid, values, method=method,
                                                     fill_value=fill_value)(p))(xi)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_rotation_inputs_scipy_rejects_raise_when_concrete():
    from tjit.scipy.spatial.transform import Slerp
    with pytest.raises(ValueError, match="zero norm"):
        Rotation.from_quat(np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="determinant"):
        Rotation.from_matrix(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="determinant"):
        Rotation.from_matrix(np.diag([1.0, 1.0, -1.0]))
    keys = Rotation.from_quat(np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="strictly increasing"):
        Slerp.init(np.array([1.0, 0.0]), keys)
    slerp = Slerp.init(np.array([0.0, 1.0]), keys)
    for t in (1.5, -0.1, np.array([0.5, 1.0 + 1e-9])):
        with pytest.raises(ValueError, match="within the range"):
            slerp(t)


def test_slerp_traced_times_beyond_the_ends_extrapolate_the_end_segments():
    from scipy.spatial.transform import Slerp as SciPySlerp
    from tjit.scipy.spatial.transform import Slerp
    rng = np.random.default_rng(3)
    quat = rng.standard_normal((4, 4))
    times = np.array([0.0, 0.5, 1.25, 2.0])
    keys = SciPyRotation.from_quat(quat)
    slerp = Slerp.init(times, Rotation.from_quat(quat))
    t = np.array([-0.3, 0.0, 0.7, 2.0, 2.6])
    got = tjit.jit(lambda s, t: s(t).as_matrix())(slerp, t)
    inside = SciPySlerp(times, keys)(t[1:4]).as_matrix()
    np.testing.assert_allclose(got[1:4], inside, atol=1e-12)
    for row, seg in ((0, 0), (4, 2)):  # the end segment continued at the same rate
        step = (keys[seg].inv() * keys[seg + 1]).as_rotvec()
        alpha = (t[row] - times[seg]) / (times[seg + 1] - times[seg])
        want = (keys[seg] * SciPyRotation.from_rotvec(alpha * step)).as_matrix()
        np.testing.assert_allclose(got[row], want, atol=1e-12)
