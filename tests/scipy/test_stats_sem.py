"""tjit.scipy.stats.sem against scipy.stats.sem in float64 (axis, ddof, keepdims,
nan_policy "propagate" and "omit"); gradient against finite differences; errors."""

import numpy as np
import pytest
import scipy.stats as ss

import tjit
from tests.transforms.check import check_grads
from tjit.scipy import stats


def _data(seed=0, nans=False):
    x = np.random.default_rng(seed).standard_normal((4, 5, 6))
    if nans:
        x[0, 1, 2] = x[3, 0, 0] = x[2, 4, 5] = np.nan
    return x


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("ddof", [0, 1, 2])
@pytest.mark.parametrize("nan_policy", ["propagate", "omit"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_against_scipy(x64, axis, ddof, nan_policy, keepdims):
    x = _data(nans=True)
    want = ss.sem(x, axis=axis, ddof=ddof, nan_policy=nan_policy, keepdims=keepdims)
    got = np.asarray(stats.sem(x, axis=axis, ddof=ddof, nan_policy=nan_policy,
                               keepdims=keepdims))
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_defaults_integers_and_jit():
    x = np.array([[1, 2, 1, 3, 2, 1], [3, 1, 3, 2, 1, 3], [1, 2, 2, 3, 1, 2]])
    got = stats.sem(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), ss.sem(x), rtol=1e-6)
    jitted = tjit.jit(stats.sem, static_argnames=("axis", "nan_policy"))
    np.testing.assert_allclose(np.asarray(jitted(x.astype(np.float32), axis=None,
                                                 nan_policy="omit")),
                               ss.sem(x, axis=None), rtol=1e-6)


def test_gradient_against_finite_differences():
    check_grads(lambda v: stats.sem(v, axis=1), (_data(seed=1),), order=1)


def test_errors():
    with pytest.raises(ValueError, match="scipy.stats.sem: nan_policy='raise'.*'omit'"):
        stats.sem(np.ones(3), nan_policy="raise")
    with pytest.raises(Exception, match="scipy.stats.sem: axis 3 is out of bounds"):
        stats.sem(np.ones((2, 3)), axis=3)
