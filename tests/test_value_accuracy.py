"""Value accuracy against mpmath (40 digits), in ulps of the result dtype, eager and jit,
float32 and float64 (benchmarks/diff_accuracy.py is the full survey).

Regressions: i0/i1 of float32 |x| in (88.7, 91.9] were inf (exp(|x|) overflowed before the
product with the scaled Bessel function, itself finite: I0(89.72) = 3.9e37); gelu's tanh
form lost everything where 1 + tanh(u) cancels (float32 gelu(-5.736) was -0 for
-8.6e-10; float64 there was off by ~3e9 ulp), as JAX's formula does."""

import mpmath as mp
import numpy as np
import pytest

import tjit
import tjit.nn as tnn
import tjit.numpy as tnp
import tjit.scipy.special as tsp

mp.mp.dps = 40
DTYPES = [np.float32, np.float64]


def _ulps(got, ref, dtype):
    """|got - ref| in ulps of ref rounded to dtype."""
    got = np.asarray(got, np.float64)
    out = []
    for g, t in zip(got.ravel(), ref):
        if not np.isfinite(g):
            out.append(np.inf)
            continue
        spacing = max(float(np.spacing(np.abs(dtype(float(t))))), float(np.finfo(dtype).smallest_subnormal))
        out.append(float(abs(mp.mpf(float(g)) - t)) / spacing)
    return np.array(out)


def _check(fn, ref, xs, dtype, bound=None):
    bound = bound or {np.float32: 4.0, np.float64: 8.0}[dtype]
    xs = np.asarray(xs, np.float64).astype(dtype)
    true = [ref(mp.mpf(float(x))) for x in xs]
    for f, mode in ((fn, "eager"), (tjit.jit(fn), "jit")):
        err = _ulps(f(tnp.asarray(xs)), true, dtype)
        worst = int(np.argmax(err))
        assert err[worst] <= bound, (f"{mode} {np.dtype(dtype).name}: {err[worst]:.3g} ulp at "
                                     f"x={xs[worst]!r} (true {mp.nstr(true[worst], 17)})")


def _near_overflow(dtype):
    """|x| from 60 up to where I0/I1 themselves overflow in dtype (log(max) + ~3)."""
    top = np.log(np.finfo(dtype).max) + 0.5 * np.log(2 * np.pi * np.log(np.finfo(dtype).max))
    return np.concatenate([np.linspace(60.0, top - 0.01, 25), -np.linspace(60.0, top - 0.01, 7)])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name,order", [("i0", 0), ("i1", 1)])
def test_bessel_i_finite_up_to_its_own_overflow(x64, dtype, name, order):
    bound = 4.0 if dtype == np.float32 else 8.0
    _check(getattr(tsp, name), lambda x: mp.besseli(order, x), _near_overflow(dtype), dtype, bound)
    top = np.log(np.finfo(dtype).max) + 8.0  # past I's own overflow: inf of the sign of x
    got = np.asarray(getattr(tsp, name)(tnp.asarray(np.array([top, -top], dtype))))
    assert got[0] == np.inf and got[1] == (np.inf if order == 0 else -np.inf)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_gelu_tanh_keeps_relative_accuracy_in_the_left_tail(x64, dtype):
    c = mp.sqrt(2 / mp.pi)
    k = mp.mpf(0.044715)

    def ref(x):  # (1 + tanh(u)) / 2 as 1 / (1 + exp(-2u)): no cancellation at 40 digits
        return x / (1 + mp.exp(-2 * c * (x + k * x ** 3)))

    # down to where gelu underflows in float32 (~ -10); the inner polynomial's own rounding
    # (a few ulp of u ~ 20) is amplified by |2u|: the bound is that, not 1 + tanh
    xs = np.concatenate([-np.linspace(3.0, 9.5, 27), np.linspace(-3, 3, 13),
                         np.geomspace(1e-20, 10, 8)])
    _check(tnn.gelu, ref, xs, dtype, 64.0)


def test_gelu_tanh_complex_still_matches_its_formula():
    z = np.array([0.3 + 0.2j, -1.5 - 0.7j, 2.0 + 0.01j], np.complex64)
    u = np.sqrt(2 / np.pi) * (z.astype(np.complex128) + 0.044715 * z.astype(np.complex128) ** 3)
    want = z * 0.5 * (1 + np.tanh(u))
    np.testing.assert_allclose(np.asarray(tnn.gelu(tnp.asarray(z))), want, rtol=2e-6)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name,ref,xs", [
    ("erf", mp.erf, np.concatenate([np.geomspace(1e-30, 6, 20), -np.geomspace(1e-30, 6, 9)])),
    ("erfc", mp.erfc, np.concatenate([np.linspace(-5, 5, 25), np.geomspace(1e-20, 1, 6)])),
    ("expit", lambda x: 1 / (1 + mp.exp(-x)), np.linspace(-80, 30, 23)),
    ("logit", lambda p: mp.log(p / (1 - p)),
     np.concatenate([np.geomspace(1e-30, 0.4, 12), 1 - np.geomspace(1e-7, 0.4, 8)])),
])
def test_accurate_special_functions_stay_accurate(x64, dtype, name, ref, xs):
    """functions the survey found within ~1 ulp everywhere (a change of kernel math or of
    the eager path that loses accuracy fails here). erfc stops at 5: the eager path is
    SciPy's erfc, ~35 ulp off at float64 x = 9.1 (the jit kernel is within 2)."""
    _check(getattr(tsp, name), ref, xs, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name,ref,xs", [
    ("log1p", mp.log1p, np.concatenate([np.geomspace(1e-30, 1e30, 15), -np.geomspace(1e-20, 0.99, 8)])),
    ("expm1", mp.expm1, np.concatenate([np.geomspace(1e-30, 80, 15), -np.geomspace(1e-30, 80, 8)])),
    ("arctanh", mp.atanh, np.concatenate([np.geomspace(1e-30, 0.5, 8), 1 - np.geomspace(1e-7, 0.4, 8)])),
])
def test_cancellation_prone_jnp_stays_accurate(x64, dtype, name, ref, xs):
    _check(getattr(tnp, name), ref, xs, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("weight", [1.0, 2.0, 1e3])
def test_logsumexp_with_cancelling_weights(x64, dtype, weight):
    """log(b e^x - 1) as logsumexp([x, 0], b=[b, -1]): exp rounded the small difference
    away (float32 x=1e-12, b=1 gave -inf, true -27.63; at x=1.87e-7 eager and jit
    disagreed by 4e6 ulp) and log of a sum near 1 dropped its small part (b=2, x=1e-12
    gave 1e-12, true 2e-12). Also the ordinary range up to x=300."""
    xs = np.concatenate([np.geomspace(1e-12, 1.0, 10), [1.87e-7, 3.0, 30.0, 300.0]])

    def fn(x):
        return tsp.logsumexp(tnp.stack([x, tnp.zeros_like(x)], -1),
                             b=tnp.stack([tnp.full_like(x, weight), -tnp.ones_like(x)], -1),
                             axis=-1)
    _check(fn, lambda x: mp.log(weight * mp.exp(x) - 1), xs, dtype)


def _gamma_tail_cases(dtype):
    """(x, a) pairs in both tails: where the probability underflows dtype (log finite)
    and just before it does, plus ordinary points of the same a."""
    top = {np.float32: 1e3, np.float64: 1e4}[dtype]
    lower = [(x, a) for a in (0.5, 3.5, 40.0, 100.0)
             for x in (1e-40, 1e-20, 1e-8, 0.05 * a, 0.5 * a, a)]
    upper = [(x, a) for a in (0.1, 3.5, 40.0, 100.0)
             for x in (a, 2 * a + 1, 90.0, 316.0, 750.0, top)]
    return lower, upper


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_gamma_log_tails_stay_finite_and_accurate(x64, dtype):
    """gamma.logcdf / logsf (and chi2's) where P or Q underflows: log(0) gave -inf (float32 logcdf at
    x=1e-20, a=3.5: true -163.6; logsf at x=316, a=0.1: true -323.7; JAX -inf too).
    Now summed in logs (series / continued fraction) there; the bound is relative, as
    the prefactor's a*log(x) - x - lgamma(a) loses ~eps*|terms| to cancellation. Tail
    points are within 1 eps; 32 leaves room for the ordinary points, which carry
    gammainc's own error (float64 logcdf(0.5, a=0.5) is 19.5 eps of 0.38 off). At a=100
    the prefactor's ~a*log(x) terms cancel: float32 logsf(316, a=100) was 4.7 ulp off."""
    import tjit.scipy.stats as tst
    lower, upper = _gamma_tail_cases(dtype)
    for fn, pts, ref in (
            (tst.gamma.logcdf, lower, lambda x, a: mp.log(mp.gammainc(a, 0, x, regularized=True))),
            (tst.gamma.logsf, upper, lambda x, a: mp.log(mp.gammainc(a, x, mp.inf, regularized=True))),
            # chi2(df) is gamma(df / 2, scale 2): the same tails at x = 2 y, df = 2 a
            (lambda x, a: tst.chi2.logcdf(2 * x, 2 * a), lower,
             lambda x, a: mp.log(mp.gammainc(a, 0, x, regularized=True))),
            (lambda x, a: tst.chi2.logsf(2 * x, 2 * a), upper,
             lambda x, a: mp.log(mp.gammainc(a, x, mp.inf, regularized=True)))):
        xs = np.array([p[0] for p in pts], dtype)
        aa = np.array([p[1] for p in pts], dtype)
        true = np.array([float(ref(mp.mpf(float(x)), mp.mpf(float(a)))) for x, a in zip(xs, aa)])
        for f, mode in ((fn, "eager"), (tjit.jit(fn), "jit")):
            got = np.asarray(f(tnp.asarray(xs), tnp.asarray(aa)), np.float64)
            rel = np.abs(got - true) / np.maximum(np.abs(true), 1.0) / np.finfo(dtype).eps
            worst = int(np.argmax(np.where(np.isfinite(rel), rel, np.inf)))
            assert rel[worst] <= 32, (f"{getattr(fn, '__name__', 'chi2')} {mode} {np.dtype(dtype).name}: {rel[worst]:.3g} "
                                      f"eps at x={xs[worst]!r}, a={aa[worst]!r} (true {true[worst]:.10g}, "
                                      f"got {got[worst]:.10g})")


@pytest.mark.parametrize("fn,x,a,slope", [
    ("logcdf", 1e-20, 3.5, 3.5e20),  # d/dx log P -> a/x as x -> 0
    ("logsf", 316.0, 0.1, -1.0028392),  # -1/(1 + (a-1)/x + (a-1)(a-2)/x**2 + ...)
])
def test_gamma_log_tail_gradients_are_finite(fn, x, a, slope):
    import tjit.scipy.stats as tst
    g = tjit.grad(lambda v: getattr(tst.gamma, fn)(v, np.float32(a)))(np.float32(x))
    assert np.isclose(float(g), slope, rtol=1e-5), float(g)
