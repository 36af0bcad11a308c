"""betaln, beta and the gamma family over a grid of edge values ({+-0, +-1e-30, +-1, +-inf,
NaN, large}) in float32 and float64, against SciPy in float64.

Off the poles SciPy's values are limits (``B(a, inf) = 0`` for ``a > 0``, ``B(a, b) = 0``
where only ``a + b`` is a pole) and tjit must give them. At a pole of Gamma (an argument a
non-positive integer or -inf) or a NaN argument SciPy returns inf where JAX gives NaN;
tjit may take either, but never a finite number."""

import warnings

import numpy as np
import pytest
import scipy.special as ss

from tjit.scipy import special as ts

GRID = np.array([0.0, -0.0, 1e-30, -1e-30, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e30, -1e30,
                 0.5, -0.5, 2.0, -2.5, 3e38])
A, B = (g.ravel() for g in np.meshgrid(GRID, GRID))
TOL = {np.float32: {"rtol": 2e-6, "atol": 2e-38}, np.float64: {"rtol": 1e-13, "atol": 0.0}}


def _pole_or_nan(x):
    return np.isnan(x) | ((x <= 0) & (x == np.floor(x)))


def _check(got, want, off_pole, dtype):
    got = np.asarray(got, np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = want.astype(dtype).astype(np.float64)  # float32: SciPy's value rounded
    np.testing.assert_array_equal(np.isnan(got[off_pole]), np.isnan(want[off_pole]))
    inf = off_pole & np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf])
    fin = off_pole & np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], **TOL[dtype])
    assert not np.isfinite(got[~off_pole]).any(), "a finite value at a pole or NaN"


def _scipy(f, *args):
    with np.errstate(all="ignore"):
        return f(*args)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_betaln_beta_edge_grid(dtype, x64):
    a, b = A.astype(dtype), B.astype(dtype)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    off_pole = ~_pole_or_nan(a64) & ~_pole_or_nan(b64)
    both_inf = (a64 == np.inf) & (b64 == np.inf)
    got = ts.betaln(a, b)
    assert got.dtype == dtype
    _check(got, _scipy(ss.betaln, a64, b64), off_pole, dtype)
    _check(ts.beta(a, b), _scipy(ss.beta, a64, b64), off_pole, dtype)
    # betaln(inf, inf) is NaN (SciPy and JAX), not the limit -inf of B(a, inf)
    assert both_inf.sum() == 1 and np.isnan(np.asarray(got)[both_inf]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["gammaln", "gamma", "gammasgn", "digamma", "factorial"])
def test_gamma_family_edge_grid(name, dtype, x64):
    x = GRID.astype(dtype)
    got = getattr(ts, name)(x)
    assert got.dtype == dtype
    want = _scipy(getattr(ss, name), x.astype(np.float64))
    _check(got, want, np.ones(x.shape, bool), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_multigammaln_edge_grid(dtype, x64):
    # SciPy raises outside a > (d - 1) / 2; the grid's values inside it
    x = GRID.astype(dtype)
    inside = x.astype(np.float64) > 1
    want = np.array([ss.multigammaln(v, 3) for v in x[inside].astype(np.float64)])
    _check(np.asarray(ts.multigammaln(x, 3))[inside], want, np.ones(want.shape, bool), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_poch_edge_grid(dtype, x64):
    # off the poles (z, m or z + m a non-positive integer) and infinities, where SciPy's
    # recurrences and JAX's NaN part ways: Gamma(z + m) / Gamma(z) overflowed to inf / inf
    # (NaN) for z = 1e30, 3e38 in both dtypes; |Gamma(m) / B(z, m)| keeps it
    a, b = A.astype(dtype), B.astype(dtype)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    off = ~_pole_or_nan(a64) & ~_pole_or_nan(b64) & ~_pole_or_nan(a64 + b64) & \
        np.isfinite(a64) & np.isfinite(b64)
    got = np.asarray(ts.poch(a, b), np.float64)[off]
    want = _scipy(ss.poch, a64, b64)[off].astype(dtype).astype(np.float64)
    assert off.sum() > 60 and np.isfinite(want).sum() > 40
    fin = np.isfinite(want)
    np.testing.assert_array_equal(got[~fin], want[~fin])
    np.testing.assert_allclose(got[fin], want[fin],
                               rtol=2e-6 if dtype == np.float32 else 1e-12, atol=0)
