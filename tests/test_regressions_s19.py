"""Regressions found by a hunt over the day's core changes (gemm epilogues with run-time
alpha, symbolic sizes as values, loop-invariant motion, fusion sizes). Each case compares
``jit`` with the reference interpreter (which runs the program's operations as written)
and with NumPy, including the NaN/inf pattern."""

import numpy as np
import pytest

import tjit

RNG = np.random.default_rng(1919)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


X, G = _f32(6, 4), _f32(6, 3)
X[:, 0] = 0.0           # row 0 of X.T @ G is exactly 0: 0 * inf is NaN there


def _same(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got) & (got > 0), np.isinf(want) & (want > 0))
    ok = np.isfinite(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-4, atol=1e-4)


# name, program, scalar: run-time factors of a gemm's alpha that are 0, infinite, overflow
# float32 or cancel. Folded, BLAS applied them as one alpha after the product: (inf * x) @ g
# came out +-inf where the program's product has mixed-sign infinities (NaN); s * (s * d)
# with s * s past float32 made d's zeros NaN; (s * x) @ g / s ignored s = 0.
GEMM_SCALARS = [
    ("operand times inf", lambda x, g, s: (x * s).T @ g, np.inf),
    ("operand times -inf", lambda x, g, s: (s * x).T @ g, -np.inf),
    ("both operands times inf", lambda x, g, s: (s * x).T @ (g * s), np.inf),
    ("operand divided by 0", lambda x, g, s: x.T @ (g / s), 0.0),
    ("operand scale that cancels, 0", lambda x, g, s: (s * x).T @ g / s, 0.0),
    ("operand scale that cancels, inf", lambda x, g, s: (s * x).T @ g / s, np.inf),
    ("squared factor past float32", lambda x, g, s: s * (s * (x.T @ g)), 3e20),
    ("divided twice past float32", lambda x, g, s: (x.T @ g) / s / s, 1e-30),
    ("sgd step with nan", lambda x, g, s: x.T @ g - s * (x.T @ g), np.nan),
]


@pytest.mark.parametrize("name,f,s", GEMM_SCALARS, ids=[c[0] for c in GEMM_SCALARS])
def test_gemm_runtime_alpha_keeps_the_programs_nans_and_infs(name, f, s):
    s = np.float32(s)
    want = tjit.jit(f, backend="interpreter")(X, G, s)
    with np.errstate(all="ignore"):
        ref = f(X.astype(np.float64), G.astype(np.float64), np.float64(s))
    if name.endswith("past float32"):       # (float64 would not overflow: float32 steps)
        with np.errstate(all="ignore"):
            ref = f(X, G, s)
    _same(want, ref)
    _same(tjit.jit(f)(X, G, s), ref)
    _same(tjit.jit(f)(X, G, np.float32(0.5)), f(X.astype(np.float64), G.astype(np.float64),
                                                 0.5))     # (same program, finite factor)


def test_beta_sf_keeps_small_standardized_x():
    """float32 ``1 - y`` rounds ``y`` < 2**-25 away: beta.sf was ``I_1(b, a) = 1``
    wherever the CDF had not reached 1 there (a small ``a``), and logcdf -inf (found by
    diff_scipy_nn: logcdf(-0.00337, 0.00141, 1.382, -0.311, 1e10) -inf, SciPy -0.0335)."""
    scipy_stats = pytest.importorskip("scipy.stats")
    beta = tjit.scipy.stats.beta
    args = [np.float32(v) for v in (-0.00336974, 0.00141188, 1.3820696, -0.3106666, 1e10)]
    want = scipy_stats.beta.logcdf(*[float(v) for v in args])
    np.testing.assert_allclose(float(beta.logcdf(*args)), want, rtol=1e-4)
    np.testing.assert_allclose(float(tjit.jit(beta.logcdf)(*args)), want, rtol=1e-4)
    rng = np.random.default_rng(5)
    a = np.exp(rng.uniform(-7, 1, 64)).astype(np.float32)
    b = np.exp(rng.uniform(-2, 2, 64)).astype(np.float32)
    y = (10.0 ** rng.uniform(-14, -0.5, 64)).astype(np.float32)
    for fn in ("sf", "logsf", "logcdf"):
        got = np.asarray(getattr(beta, fn)(y, a, b), np.float64)
        ref = getattr(scipy_stats.beta, fn)(y.astype(np.float64), a.astype(np.float64),
                                            b.astype(np.float64))
        ok = np.abs(ref) > 1e-30 if fn == "sf" else ref > -80     # (float32's range)
        np.testing.assert_allclose(got[ok], ref[ok], rtol=2e-3, atol=1e-6, err_msg=fn)


def test_beta_sf_upper_tail_below_one_half():
    """``1 - I_y(a, b)`` cancels where the CDF nears 1 before ``y = 1/2`` (a large ``b``):
    sf(0.3, 1, 100) was 0 (SciPy 3.2e-16) and logsf -inf. Relative tolerance only, over
    small and large ``y`` (the small-``y`` case above kept too)."""
    scipy_stats = pytest.importorskip("scipy.stats")
    beta = tjit.scipy.stats.beta
    rng = np.random.default_rng(11)
    y = np.concatenate([10.0 ** rng.uniform(-12, 0, 200), rng.uniform(0, 1, 200),
                        [0.3, 0.4, 3e-11]]).astype(np.float32)
    a = np.concatenate([10.0 ** rng.uniform(-3, 2.5, 400), [1.0, 0.5, 0.0014]])
    b = np.concatenate([10.0 ** rng.uniform(-3, 2.5, 400), [100.0, 60.0, 1.0]])
    a, b = a.astype(np.float32), b.astype(np.float32)
    args64 = [v.astype(np.float64) for v in (y, a, b)]
    want = scipy_stats.beta.sf(*args64)
    ok = want > 1e-35                                   # (float32's range)
    for got in (beta.sf(y, a, b), tjit.jit(beta.sf)(y, a, b)):
        np.testing.assert_allclose(np.asarray(got, np.float64)[ok], want[ok], rtol=1e-4)
    want_log = scipy_stats.beta.logsf(*args64)
    np.testing.assert_allclose(np.asarray(beta.logsf(y, a, b), np.float64)[ok], want_log[ok],
                               rtol=1e-5, atol=1e-5)
