"""beta, poch, comb, loggamma, boxcox, boxcox1p and bernoulli against SciPy in float64,
eager and jit; gradients against finite differences, vmap against a Python loop."""

import numpy as np
import pytest
import scipy.special as ss

import tjit
import tjit.numpy as jnp
import tjit.scipy.special as js
from tests.transforms.check import check_grads, check_vmap

A = np.array([0.5, 2.0, 3.5, -0.5, 10.0, 0.1, 7.25])
B = np.array([1.5, 0.3, 2.0, 2.5, 20.0, 4.0, 0.0])

BINARY = {  # name -> (tjit function, SciPy reference, first args, second args)
    "beta": (js.beta, ss.beta, A, B[:6].tolist() + [1.0]),
    "poch": (js.poch, ss.poch, A, B),
    "comb": (js.comb, ss.comb, [5.0, 10, 3, -1, 6.5, 0, 4], [2.0, 3, 5, 1, 2, 0, -1]),
    "boxcox": (js.boxcox, ss.boxcox, np.abs(A) + 0.1, B - 1),
    "boxcox1p": (js.boxcox1p, ss.boxcox1p, A - 0.45, B - 1),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_against_scipy_float64(name, x64):
    f, ref, a, b = BINARY[name]
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    want = ref(a, b)
    for g in (f, tjit.jit(f)):
        got = g(jnp.asarray(a), jnp.asarray(b))
        assert got.dtype == np.float64
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=0)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_float32_grad_and_vmap(name):
    f, ref, a, b = BINARY[name]
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    np.testing.assert_allclose(np.asarray(f(a, b)), ref(a.astype(np.float64), b), rtol=2e-5)
    check_vmap(f, (jnp.asarray(a), jnp.asarray(b)), rtol=1e-5, atol=1e-6)
    smooth = np.array([0.7, 1.3, 2.2]), np.array([1.6, 0.4, 2.5])  # away from poles, kinks
    if name == "comb":
        smooth = np.array([5.5, 7.0, 9.2]), np.array([1.5, 2.2, 3.0])
    check_grads(f, tuple(s.astype(np.float32) for s in smooth))


def test_comb_with_repetition(x64):
    N, k = np.array([5.0, 10, 3, 0, -2]), np.array([2.0, 0, 5, 0, 1])
    got = np.asarray(js.comb(N, k, repetition=True))
    np.testing.assert_allclose(got[:4], ss.comb(N[:4], k[:4], repetition=True), rtol=1e-10)
    assert got[4] == 0  # JAX: 0 where N + k - 1 < 0 (SciPy: NaN)


def test_loggamma_real(x64):
    x = np.array([0.5, 1.0, 2.5, 30.0, -0.5, 0.0, -3.0])
    want = np.where(x > 0, ss.loggamma(np.where(x > 0, x, 1)), np.nan)  # JAX: NaN for x <= 0
    for g in (js.loggamma, tjit.jit(js.loggamma)):
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(x))), want, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="loggamma: complex inputs"):
        js.loggamma(jnp.asarray([1 + 1j]))


def test_poch_derivative_is_jaxs_rule(x64):
    z, m = 1.5, 2.5
    dz = tjit.grad(js.poch, argnums=0)(z, m)
    dm = tjit.grad(js.poch, argnums=1)(z, m)
    p = ss.poch(z, m)
    np.testing.assert_allclose(float(dz), (ss.digamma(z + m) - ss.digamma(z)) * p, rtol=1e-10)
    np.testing.assert_allclose(float(dm), ss.digamma(z + m) * p, rtol=1e-10)


def _exact_bernoulli(n):
    """B_0..B_n as fractions (Akiyama-Tanigawa), with B_1 = -1/2."""
    from fractions import Fraction
    out, a = [], []
    for m in range(n + 1):
        a.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    if n >= 1:
        out[1] = -out[1]
    return np.array([float(v) for v in out])


def test_bernoulli(x64):
    for n in (0, 1, 2, 3, 10, 30):
        np.testing.assert_allclose(np.asarray(js.bernoulli(n)), _exact_bernoulli(n),
                                   rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="bernoulli: n must be a non-negative integer"):
        js.bernoulli(-1)
    with pytest.raises(tjit.errors.ConcretizationTypeError,
                       match="bernoulli: n must be a static Python int"):
        tjit.jit(js.bernoulli)(3)


ERFCX_X = np.array([-3.0, -0.5, 0.0, 0.3, 2.0, 5.0, 9.0, 9.5, 20.0, 26.0, 27.0, 30.0, 1e5])


def test_erfcx_against_scipy(x64):
    for g in (js.erfcx, tjit.jit(js.erfcx)):
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(ERFCX_X))), ss.erfcx(ERFCX_X),
                                   rtol=1e-12)


def test_erfcx_float32_and_derivative():
    x32 = ERFCX_X.astype(np.float32)
    got = js.erfcx(jnp.asarray(x32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), ss.erfcx(x32.astype(np.float64)), rtol=1e-5)
    d = tjit.vmap(tjit.grad(js.erfcx))(jnp.asarray(x32))
    want = 2 * ERFCX_X * ss.erfcx(ERFCX_X) - 2 / np.sqrt(np.pi)
    np.testing.assert_allclose(np.asarray(d), want, rtol=1e-4, atol=1e-6)
    check_grads(js.erfcx, (np.array([-1.0, 0.4, 3.0, 12.0], np.float32),))
    # complex x: Faddeeva's w(i x), as JAX
    z = np.array([1j, 1 + 2j, -3 + 0.5j, 30 + 0j], np.complex64)
    got = js.erfcx(jnp.asarray(z))
    assert got.dtype == np.complex64
    np.testing.assert_allclose(np.asarray(got), ss.erfcx(z.astype(np.complex128)), rtol=1e-6)


E1_X = np.concatenate([[-1.0, 0.0, 1e-10, 1.0, 1.0001, 1.5, 50.0, 700.0, 800.0, np.inf],
                       np.geomspace(1e-8, 700, 60)])
EI_X = np.concatenate([[-800.0, -1.0, 0.0, 1e-10, 39.9, 40.0, 40.1, 700.0, 720.0],
                       np.geomspace(1e-8, 709, 60), -np.geomspace(1e-8, 700, 60)])


@pytest.mark.parametrize("name,xs", [("exp1", E1_X), ("expi", EI_X)])
def test_exponential_integrals_against_scipy(name, xs, x64):
    f, ref = getattr(js, name), getattr(ss, name)
    for g in (f, tjit.jit(f)):
        got = np.asarray(g(jnp.asarray(xs)))
        np.testing.assert_allclose(got, ref(xs), rtol=1e-12, atol=0)  # NaN, inf where SciPy


@pytest.mark.parametrize("name", ["exp1", "expi"])
def test_exponential_integrals_float32_and_derivative(name):
    f, ref = getattr(js, name), getattr(ss, name)
    x = np.array([0.01, 0.2, 0.9, 1.2, 3.0, 20.0, 60.0], np.float32)
    xs = x if name == "exp1" else np.concatenate([x, -x])
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(xs))), ref(xs.astype(np.float64)),
                               rtol=1e-5)
    d = tjit.vmap(tjit.grad(f))(jnp.asarray(xs))
    x64 = xs.astype(np.float64)
    want = -np.exp(-x64) / x64 if name == "exp1" else np.exp(x64) / x64  # JAX's rules
    np.testing.assert_allclose(np.asarray(d), want, rtol=1e-5)
    check_grads(f, (np.array([0.3, 1.1, 2.5], np.float32),))


def test_expn_against_scipy_and_mpmath(x64):
    ns = np.array([0, 1, 2, 3, 5, 10, 30])
    xs = np.concatenate([[0.0, 1e-10, 0.5, 1.0, 1.0001, 2.0, 50.0, 700.0],
                         np.geomspace(1e-6, 500, 25)])
    N, X = (a.ravel() for a in np.meshgrid(ns, xs))
    for f in (js.expn, tjit.jit(js.expn)):
        got = np.asarray(f(jnp.asarray(N.astype(np.float64)), jnp.asarray(X)))
        np.testing.assert_allclose(got, ss.expn(N, X), rtol=1e-12, atol=1e-300)
    import mpmath  # SciPy's large-n expansion is off by 1e-7 at E_100(50)
    for n, x in [(100, 50.0), (100, 1.5), (60, 20.0)]:
        want = float(mpmath.expint(n, x))
        np.testing.assert_allclose(float(js.expn(float(n), x)), want, rtol=1e-12)
    # NaN for negative or non-integer n and negative x (JAX); 1/(n-1) or inf at 0
    np.testing.assert_array_equal(
        np.asarray(js.expn(jnp.asarray([1.5, -1.0, 2.0, 3.0, 1.0]),
                           jnp.asarray([1.0, 1.0, -1.0, 0.0, 0.0]))),
        [np.nan, np.nan, np.nan, 0.5, np.inf])


def test_expn_derivative_is_minus_the_previous_order():
    x = jnp.asarray(np.array([0.3, 0.9, 2.5, 7.0], np.float32))
    for n in (1.0, 2.0, 5.0):
        d = tjit.vmap(tjit.grad(lambda x: js.expn(n, x)))(x)
        want = -ss.expn(int(n) - 1, np.asarray(x, np.float64))
        np.testing.assert_allclose(np.asarray(d), want, rtol=1e-5)
    check_grads(lambda x: js.expn(3.0, x), (np.array([0.4, 1.6], np.float32),))


def test_spence_against_scipy(x64):
    x = np.concatenate([[-1.0, 0.0, 1.0, 0.5, 1.5, 2.0, 1e-10, 1e10, np.nan],
                        np.geomspace(1e-8, 1e8, 80)])
    for f in (js.spence, tjit.jit(js.spence)):
        np.testing.assert_allclose(np.asarray(f(jnp.asarray(x))), ss.spence(x), rtol=1e-13)


def test_spence_float32_derivative_and_dtypes():
    x = np.array([0.05, 0.3, 0.9, 1.7, 3.0, 40.0], np.float32)
    np.testing.assert_allclose(np.asarray(js.spence(jnp.asarray(x))),
                               ss.spence(x.astype(np.float64)), rtol=2e-6, atol=1e-7)
    d = tjit.vmap(tjit.grad(js.spence))(jnp.asarray(x))  # d/dx = log(x) / (1 - x)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(np.asarray(d), np.log(x64) / (1 - x64), rtol=1e-4)
    with pytest.raises(TypeError, match="spence: x.dtype=int32 is not supported"):
        js.spence(jnp.asarray([1, 2]))


def test_dawsn_against_scipy(x64):
    x = np.concatenate([[0.0, 3.25, 6.25, -7.0, 1e-10, 1e10, np.inf, -np.inf, np.nan],
                        np.geomspace(1e-8, 1e8, 80), -np.geomspace(1e-3, 50, 20)])
    for f in (js.dawsn, tjit.jit(js.dawsn)):
        np.testing.assert_allclose(np.asarray(f(jnp.asarray(x))), ss.dawsn(x), rtol=1e-13)


def test_dawsn_float32_and_derivative():
    x = np.array([-4.0, -0.7, 0.01, 0.5, 2.0, 5.0, 30.0], np.float32)
    np.testing.assert_allclose(np.asarray(js.dawsn(jnp.asarray(x))),
                               ss.dawsn(x.astype(np.float64)), rtol=2e-6)
    d = tjit.vmap(tjit.grad(js.dawsn))(jnp.asarray(x))
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(np.asarray(d), 1 - 2 * x64 * ss.dawsn(x64), rtol=1e-4,
                               atol=1e-6)
    check_grads(js.dawsn, (np.array([-1.2, 0.4, 4.0], np.float32),))


def test_sici_against_scipy(x64):
    x = np.concatenate([[0.0, -1.0, 4.0, -4.0, 8.0, 1e9, np.inf, -np.inf, np.nan, 1e-10],
                        np.geomspace(1e-8, 1e9, 80), -np.geomspace(1e-3, 1e3, 20)])
    for f in (js.sici, tjit.jit(js.sici)):
        si, ci = f(jnp.asarray(x))
        want_si, want_ci = ss.sici(x)
        np.testing.assert_allclose(np.asarray(si), want_si, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(np.asarray(ci), want_ci, rtol=1e-11, atol=1e-300)


def test_sici_float32_and_derivative():
    x = np.array([-3.0, 0.2, 1.0, 5.0, 9.0, 100.0], np.float32)
    si, ci = js.sici(jnp.asarray(x))
    want_si, want_ci = ss.sici(x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(si), want_si, rtol=2e-6)
    np.testing.assert_allclose(np.asarray(ci), want_ci, rtol=2e-5, atol=1e-6)
    x64 = x.astype(np.float64)
    dsi = tjit.vmap(tjit.grad(lambda x: js.sici(x)[0]))(jnp.asarray(x))
    dci = tjit.vmap(tjit.grad(lambda x: js.sici(x)[1]))(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(dsi), np.sin(x64) / x64, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.asarray(dci), np.cos(x64) / x64, rtol=1e-5, atol=1e-7)
