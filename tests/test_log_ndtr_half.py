"""float16 log_ndtr in its lower tail, against mpmath.

float16's ndtr leaves the normal range at x = -3.9 (ndtr = 6.1e-5), so log(ndtr(x))
lost digits below and became -inf from -5.9 on (d5871d3's -12.5 switch to the tail
formula, right for float32, left float16 between -12.5 and -5.9 at -inf)."""
import mpmath
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.scipy.special import log_ndtr

X = np.array([-2.0, -3.0, -3.49, -3.5, -3.51, -3.9, -4.0, -5.0, -6.0, -8.0, -9.0,
              -10.0, -12.0, -12.49, -12.51, -20.0, -100.0, -300.0], np.float16)


def _reference(x):
    return np.array([float(mpmath.log(mpmath.ncdf(mpmath.mpf(float(v))))) for v in x])


@pytest.mark.parametrize("fn", [log_ndtr, tjit.jit(log_ndtr)], ids=["eager", "jit"])
def test_float16_lower_tail_vs_mpmath(fn):
    got = np.asarray(fn(jnp.asarray(X)))
    assert got.dtype == np.float16
    ref = _reference(X)
    ulps = np.abs(got.astype(np.float64) - ref) / np.spacing(np.abs(ref).astype(np.float16))
    assert np.all(np.isfinite(got)), got
    assert ulps.max() <= 1.0, (X[ulps.argmax()], got[ulps.argmax()], ref[ulps.argmax()])


def test_float16_lower_tail_slope_vs_mpmath():
    # d/dx log ndtr = pdf / cdf, about -x in the tail
    x = np.array([-3.0, -4.0, -6.0, -10.0, -12.0], np.float16)
    got = np.asarray(tjit.vmap(tjit.grad(log_ndtr))(jnp.asarray(x))).astype(np.float64)
    ref = np.array([float(mpmath.npdf(float(v)) / mpmath.ncdf(float(v))) for v in x])
    np.testing.assert_allclose(got, ref, rtol=4e-3)
