"""tjit.scipy.ndimage.map_coordinates against scipy.ndimage.map_coordinates in float64
(JAX's 'constant' and 'wrap' are SciPy's 'grid-constant' and 'grid-wrap'); gradients
against finite differences; vmap against a Python loop."""

import numpy as np
import pytest
import scipy.ndimage as nd

import tjit
from tjit.scipy.ndimage import map_coordinates
from tests.transforms.check import check_grads, check_vmap

SCIPY_MODE = {"constant": "grid-constant", "wrap": "grid-wrap", "nearest": "nearest",
              "mirror": "mirror", "reflect": "reflect"}


def _coords(shape, n, seed=0):
    rng = np.random.default_rng(seed)
    c = np.stack([rng.uniform(-2 * s - 1, 3 * s, n) for s in shape])
    # keep order-0 points off exact halves, where rounding conventions differ
    return np.where(np.abs(c - np.floor(c) - 0.5) < 1e-3, c + 0.01, c)


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("mode", sorted(SCIPY_MODE))
@pytest.mark.parametrize("shape", [(6,), (5, 7), (3, 4, 2), (1, 4)])
def test_against_scipy(x64, order, mode, shape):
    x = np.random.default_rng(1).standard_normal(shape)
    c = _coords(shape, 40)
    got = map_coordinates(x, list(c), order, mode=mode, cval=1.5)
    want = nd.map_coordinates(x, c, order=order, mode=SCIPY_MODE[mode], cval=1.5)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def test_integer_input_coordinate_shape_and_jit():
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    c = np.array([[[0.5, 1.25], [2.0, 3.7]], [[0.5, 4.0], [1.5, 0.2]]])
    got = tjit.jit(lambda x, c: map_coordinates(x, c, 1, mode="nearest"))(x, c)
    assert got.shape == (2, 2) and got.dtype == np.int32
    # 0.5*0.5*(0+1+5+6) = 3 and 1.25 rows * 5 + 4 = 10.25 -> 10, etc. (as JAX: rounded)
    want = np.floor(nd.map_coordinates(x.astype(float), c, order=1, mode="nearest") + 0.5)
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("mode", ["constant", "reflect"])
def test_grad_in_input(mode):
    rng = np.random.default_rng(2)
    c = _coords((4, 5), 12, 3)
    check_grads(lambda x: map_coordinates(x, list(c), 1, mode=mode), (rng.standard_normal(
        (4, 5)),), rtol=1e-6, atol=1e-6)
    check_grads(lambda x: map_coordinates(x, list(c), 0, mode=mode), (rng.standard_normal(
        (4, 5)),), rtol=1e-6, atol=1e-6)


def test_vmap():
    rng = np.random.default_rng(4)
    c = _coords((6,), 9)
    check_vmap(lambda x: map_coordinates(x, [c[0]], 1, mode="wrap"),
               (rng.standard_normal((3, 6)),))


def test_errors():
    with pytest.raises(ValueError, match=r"length input.ndim = 2 .*\(2, 3\)\), got 1"):
        map_coordinates(np.ones((2, 3)), [np.zeros(4)], 1)
    with pytest.raises(NotImplementedError, match="order=3"):
        map_coordinates(np.ones(3), [np.zeros(2)], 3)
    with pytest.raises(NotImplementedError, match="mode='grid-wrap'"):
        map_coordinates(np.ones(3), [np.zeros(2)], 1, mode="grid-wrap")
    with pytest.raises(ValueError, match="one shape"):
        map_coordinates(np.ones((2, 2)), [np.zeros(2), np.zeros(3)], 1)
