"""lax.approx_max_k/approx_min_k (exact, as JAX off TPU) against a stable NumPy argsort,
and scipy.linalg.cholesky against numpy.linalg.cholesky."""

import numpy as np
import pytest

import tjit
from tjit import lax
import tjit.scipy.linalg as tsl


def _reference(x, k, axis, largest):
    # stable order; ties keep the lower index first (for max: sort -x stably)
    idx = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(idx, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_approx_k_against_a_stable_sort(axis, dtype):
    x = np.random.default_rng(4).integers(-5, 5, (6, 7)).astype(dtype)  # many ties
    if dtype == np.int32:  # JAX's approx_*_k take floating operands only (lax.top_k: any)
        for fn in (lax.approx_max_k, lax.approx_min_k):
            with pytest.raises(ValueError, match="floating type, got int32"):
                fn(x, 1, axis)
        x = x.astype(np.float32)
    for fn, largest in ((lax.approx_max_k, True), (lax.approx_min_k, False)):
        for k in (0, 1, 3, x.shape[axis]):
            want_v, want_i = _reference(x, k, axis, largest)
            for f in (fn, tjit.jit(fn, static_argnums=(1, 2))):
                v, i = f(x, k, axis)
                np.testing.assert_array_equal(np.asarray(v), want_v)
                np.testing.assert_array_equal(np.asarray(i), want_i)
                assert i.dtype == np.int32
    with pytest.raises(ValueError, match="recall_target"):
        lax.approx_max_k(x, 2, recall_target=1.5)
    with pytest.raises(ValueError, match="approx_min_k: k=99"):
        lax.approx_min_k(x, 99)


def test_scipy_cholesky_upper_by_default_as_scipy():
    rng = np.random.default_rng(5)
    m = rng.normal(size=(3, 4, 4))
    a = m @ np.swapaxes(m, -1, -2) + 4 * np.eye(4)
    low = np.linalg.cholesky(a)
    np.testing.assert_allclose(np.asarray(tsl.cholesky(a, lower=True)), low, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(np.asarray(tsl.cholesky(a)), np.swapaxes(low, -1, -2),
                               rtol=1e-4, atol=1e-5)
    assert np.isnan(np.asarray(tsl.cholesky(-np.eye(2)))).any()  # not PD: NaNs, as JAX
