"""Accuracy of the error-function family where a rounded square used to be exponentiated,
against mpmath at 40 digits (exact binary inputs), in ulps of the result dtype, eager and
jit. The bounds are diff_accuracy.py's (4 float32 / 8 float64 ulps).

Regressions (tjit before -> true): float64 ndtr(-36) under jit 4.18262406579663e-284 (1,100
ulps; 0.5 erfc(x/sqrt 2) exponentiates the rounded (x/sqrt 2)**2), float32 ndtr(-12)
1.7764938e-33 (63 ulps; true 1.7764821e-33); eager float64 erfc (SciPy's) 35-270 ulps at x
in 9..26 and 0 from 26.55 (erfc(27) = 5.237e-319); log_ndtr(-38) -726.5572160188442
(212 ulps; true -726.55721601882013, the 3-term series); erfcx(-25.1189) 294 ulps.
JAX shares all but the eager erfc one (its erfc has no eager path of its own)."""

import mpmath as mp
import numpy as np
import pytest

import tjit
import tjit.numpy as tnp
import tjit.scipy.special as tsp

mp.mp.dps = 40
DTYPES = [np.float32, np.float64]
BOUND = {np.float32: 4.0, np.float64: 8.0}


def _ulps(got, true, dtype):
    """|got - true| in ulps of true rounded to dtype (the subnormal spacing below)."""
    tiny = float(np.finfo(dtype).smallest_subnormal)
    out = []
    for g, t in zip(np.asarray(got, np.float64).ravel(), true):
        if not np.isfinite(g):
            out.append(np.inf)
            continue
        spacing = max(float(np.spacing(np.abs(dtype(float(t))))), tiny)
        out.append(float(abs(mp.mpf(float(g)) - t)) / spacing)
    return np.array(out)


def _check(fn, ref, xs, dtype):
    xs = np.asarray(xs, np.float64).astype(dtype)
    true = [ref(mp.mpf(float(x))) for x in xs]
    got = {}
    for f, mode in ((fn, "eager"), (tjit.jit(fn), "jit")):
        got[mode] = np.asarray(f(tnp.asarray(xs)), np.float64)
        err = _ulps(got[mode], true, dtype)
        worst = int(np.argmax(err))
        assert err[worst] <= BOUND[dtype], (
            f"{mode} {np.dtype(dtype).name}: {err[worst]:.3g} ulp at x={xs[worst]!r} "
            f"(got {got[mode][worst]!r}, true {mp.nstr(true[worst], 17)})")
    return got


def _erfcx(x):
    """exp(x**2) erfc(x); from 1e3 on erfc's continued fraction sqrt(pi) erfcx(x) =
    1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), 30 levels (relative error < 1e-80 there;
    mpmath's erfc overflows its exponent range at x ~ 1e150)."""
    if x < 1000:
        return mp.exp(x * x) * mp.erfc(x)
    d = x
    for k in range(30, 0, -1):
        d = x + mp.mpf(k) / 2 / d
    return 1 / (mp.sqrt(mp.pi) * d)


def _log_ndtr(x):
    """log(ndtr(x)); below -1e3 as -x**2/2 + log(erfcx(-x/sqrt 2)/2) (x**2 is exact at
    40 digits)."""
    if x > -1000:
        return mp.log(mp.ncdf(x))
    return -x * x / 2 + mp.log(_erfcx(-x / mp.sqrt(2)) / 2)


def _lower_tail(dtype):
    """non-round points (at half-integers (x/sqrt 2)**2 rounds back to x**2/2, hiding the
    loss) from -1 to where ndtr underflows, denormal results included."""
    end = -38.4 if dtype == np.float64 else -14.0
    return np.concatenate([np.linspace(-1.05, end, 61) + 0.0123, [end]])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_ndtr_lower_tail(x64, dtype):
    _check(tsp.ndtr, mp.ncdf, _lower_tail(dtype), dtype)
    got = np.asarray(tsp.ndtr(tnp.asarray(np.array([-np.inf, -1e30, np.nan], dtype))))
    assert got[0] == 0 and got[1] == 0 and np.isnan(got[2])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_log_ndtr_far_tail(x64, dtype):
    # past the switch from log(ndtr) to the erfcx form, out to where -x**2/2 nears -max
    edge = np.sqrt(2.0) * np.sqrt(float(np.finfo(dtype).max))
    top = np.log10(edge)
    xs = np.concatenate([_lower_tail(dtype), -np.logspace(1.2, top - 0.01, 30)])
    _check(tsp.log_ndtr, _log_ndtr, xs, dtype)
    got = np.asarray(tsp.log_ndtr(tnp.asarray(np.array([-np.inf, -1.01 * edge], dtype))))
    assert np.all(got == -np.inf)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_erfc_right_half_eager_and_jit_agree(x64, dtype):
    # up to where erfc underflows (float64 27.3: denormal results from 26.55; float32 10.1)
    end = 27.3 if dtype == np.float64 else 10.1
    xs = np.concatenate([np.linspace(0.45, end, 70) + 0.0071, [27.0 if dtype == np.float64
                                                                else 9.5]])
    got = _check(tsp.erfc, mp.erfc, xs, dtype)
    gap = _ulps(got["eager"], [mp.mpf(float(g)) for g in got["jit"]], dtype)
    assert gap.max() <= BOUND[dtype], gap.max()


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_erfcx_both_signs(x64, dtype):
    # negative x up to erfcx's own overflow (2 exp(x**2)), positive across the switch to
    # the asymptotic series and out to float32's denormal results
    neg = -np.linspace(0.3, 26.6 if dtype == np.float64 else 9.3, 40) - 0.0037
    pos = np.concatenate([np.linspace(0.3, 30.0, 40) + 0.0041,
                          np.logspace(1.5, 38.5 if dtype == np.float32 else 300, 12)])
    _check(tsp.erfcx, _erfcx, np.concatenate([neg, pos]), dtype)
