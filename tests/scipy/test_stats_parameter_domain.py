"""tjit.scipy.stats with parameters outside their domain (scale <= 0, shapes <= 0,
truncation a >= b, probabilities outside [0, 1], non-integer counts): NaN as SciPy,
never a number from a formula that does not apply; in-domain values still SciPy's."""

import warnings

import numpy as np
import pytest
import scipy.stats as sst

import tjit
from tjit.scipy import stats as ts

X = np.array([-1.0, 0.0, 0.3, 1.0, 2.5])
Q = np.array([0.0, 0.2, 0.5, 1.0])
K = np.array([-1.0, 0.0, 1.0, 2.0, 5.0])

CONTINUOUS = {"norm": (), "expon": (), "laplace": (), "logistic": (), "cauchy": (),
              "uniform": (), "t": (3.0,), "chi2": (3.0,), "gamma": (2.0,),
              "beta": (2.0, 3.0), "truncnorm": (-1.0, 2.0)}
BAD_SHAPES = {"t": [(-1.0,), (0.0,)], "chi2": [(-1.0,), (0.0,)], "gamma": [(-1.0,), (0.0,)],
              "beta": [(-1.0, 2.0), (2.0, 0.0)], "truncnorm": [(2.0, 1.0), (1.0, 1.0)]}
DISCRETE = {"poisson": [(-1.0,), (np.nan,)], "bernoulli": [(-0.1,), (1.5,), (np.nan,)],
            "binom": [(5, -0.1), (5, 1.5), (-1, 0.5), (2.5, 0.5)]}
FUNCS = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "logpmf", "pmf"]


def _cases():
    for dist, shapes in CONTINUOUS.items():
        for scale in (-1.0, 0.0, np.nan, 2.0):
            yield dist, shapes + (0.5, scale)
        for bad in BAD_SHAPES.get(dist, []):
            yield dist, bad
    for dist, params in DISCRETE.items():
        yield from ((dist, p) for p in params)
    yield "binom", (5, 0.3)
    yield "poisson", (2.0,)


@pytest.mark.parametrize("dist,params", list(_cases()), ids=str)
def test_distribution_functions_follow_scipy_parameter_domain(dist, params):
    ours = getattr(ts, dist)
    for fn in FUNCS:
        if not hasattr(ours, fn):
            continue
        arg = Q if fn in ("ppf", "isf") else (K if dist in DISCRETE else X)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(getattr(sst, dist), fn)(arg, *params)
        got = np.asarray(getattr(ours, fn)(arg, *params))
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-7, err_msg=f"{dist}.{fn}")


def test_parameter_check_under_jit_and_grad(x64):
    f = tjit.jit(lambda x, s: ts.norm.logpdf(x, 0.0, s))
    assert np.isnan(f(1.0, -1.0)) and np.isfinite(f(1.0, 2.0))
    g = tjit.grad(lambda s: ts.gamma.logpdf(1.5, 2.0, 0.0, s))(2.0)
    np.testing.assert_allclose(g, -1 / 2.0 * 2 + 1.5 / 4.0, rtol=1e-12)  # d/ds of -a log s - x/s
