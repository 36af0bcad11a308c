"""Polynomial functions (polyfit, poly, polyadd, polysub, polymul, polydiv, polyder,
polyint) and window functions (bartlett, blackman, hamming, hanning, kaiser) against
NumPy in float64, eagerly and under ``jit``."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

RNG = np.random.default_rng(3)
XS = np.linspace(-1, 1, 12)
YS = 1 + 2 * XS - 3 * XS ** 2 + 0.1 * RNG.normal(size=12)
W = RNG.random(12) + 0.5


def _close(got, want, tol=1e-4):
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, tjit.Array)
        assert g.shape == np.shape(w), (g.shape, np.shape(w))
        np.testing.assert_allclose(np.asarray(g), w, rtol=tol, atol=tol)


def _f32(*arrays):
    return [np.asarray(a, np.float32) for a in arrays]


@pytest.mark.parametrize("deg", [0, 1, 2, 4])
def test_polyfit_matches_numpy(deg):
    x, y = _f32(XS, YS)
    _close(jnp.polyfit(x, y, deg), np.polyfit(XS, YS, deg), tol=2e-3)
    _close(tjit.jit(lambda a, b: jnp.polyfit(a, b, deg))(x, y), np.polyfit(XS, YS, deg),
           tol=2e-3)


def test_polyfit_options():
    x, y, w = _f32(XS, YS, W)
    ys2 = np.stack([YS, 2 * YS - 1], axis=1)
    (y2,) = _f32(ys2)
    _close(jnp.polyfit(x, y2, 3), np.polyfit(XS, ys2, 3), tol=1e-3)
    _close(jnp.polyfit(x, y, 2, w=w), np.polyfit(XS, YS, 2, w=W), tol=1e-3)
    got = jnp.polyfit(x, y, 2, full=True)
    want = np.polyfit(XS, YS, 2, full=True)
    _close(tuple(got[:4]), tuple(want[:4]), tol=1e-3)
    np.testing.assert_allclose(float(got[4]), 12 * np.finfo(np.float32).eps)
    for cov in (True, "unscaled"):
        _close(jnp.polyfit(x, y, 2, cov=cov), np.polyfit(XS, YS, 2, cov=cov), tol=1e-3)
        _close(jnp.polyfit(x, y2, 1, cov=cov), np.polyfit(XS, ys2, 1, cov=cov), tol=1e-3)


def test_polyfit_errors():
    with pytest.raises(ValueError, match=r"polyfit: need a non-empty 1-D x and y"):
        jnp.polyfit(jnp.ones(3), jnp.ones(4), 1)
    with pytest.raises(ValueError, match="order of deg must be non-negative"):
        jnp.polyfit(jnp.ones(3), jnp.ones(3), -1)
    with pytest.raises(ValueError, match="number of data points must exceed order"):
        jnp.polyfit(jnp.arange(3.0), jnp.ones(3), 2, cov=True)


@pytest.mark.parametrize("name", ["polyadd", "polysub", "polymul"])
def test_polynomial_arithmetic(name):
    a, b = np.array([1.0, -2.0, 3.0]), np.array([4.0, 5.0])
    for p, q in ((a, b), (b, a), (a, a)):
        want = getattr(np, name)(p, q)
        _close(getattr(jnp, name)(*_f32(p, q)), want)
        _close(tjit.jit(getattr(jnp, name))(*_f32(p, q)), want)
    got = getattr(jnp, name)(np.array([1, 2], np.int32), np.array([3], np.int32))
    # integer coefficients stay integers, except in polymul: JAX documents its result as
    # always inexact (a convolution)
    assert got.dtype == (jnp.float32 if name == "polymul" else jnp.int32)
    np.testing.assert_array_equal(np.asarray(got), getattr(np, name)([1, 2], [3]))


def test_polymul_trims_leading_zeros_on_request():
    p, q = np.array([0.0, 1.0, 2.0]), np.array([0.0, 3.0])
    _close(jnp.polymul(*_f32(p, q), trim_leading_zeros=True), np.polymul(p, q))
    assert jnp.polymul(*_f32(p, q)).shape == (4,)  # not trimmed by default (as JAX)


def test_polyder_and_polyint():
    p = np.array([1.0, 2.0, 3.0, 4.0])
    for m in (0, 1, 2, 4, 5):
        _close(jnp.polyder(p.astype(np.float32), m), np.polyder(p, m))
    _close(tjit.jit(lambda a: jnp.polyder(a, 2))(p), np.polyder(p, 2))
    _close(jnp.polyint(p, 2, k=[1.0, 2.0]), np.polyint(p, 2, k=[1.0, 2.0]))
    _close(jnp.polyint(p, 3, k=5.0), np.polyint(p, 3, k=5.0))
    _close(jnp.polyint(np.array([3, 2, 1])), np.polyint([3, 2, 1]))
    assert jnp.polyder(np.array([3, 2, 1])).dtype == jnp.float32  # inexact, as in JAX
    with pytest.raises(ValueError, match=r"polyint: k must be a scalar or have length m = 2"):
        jnp.polyint(p, 2, k=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="polyder: order of m must be non-negative"):
        jnp.polyder(p, -1)


def test_polydiv():
    u, v = np.array([1.0, 5.0, 6.0, 7.0]), np.array([1.0, 2.0])
    q, r = jnp.polydiv(u, v)
    qn, rn = np.polydiv(u, v)
    _close(q, qn)
    np.testing.assert_allclose(np.asarray(r), np.pad(rn, (len(u) - len(rn), 0)), atol=1e-5)
    _close(jnp.polydiv(u, v, trim_leading_zeros=True), np.polydiv(u, v))
    _close(jnp.polydiv(v, u, trim_leading_zeros=True), np.polydiv(v, u))
    _close(tjit.jit(lambda a, b: jnp.polydiv(a, b)[0])(*_f32(u, v)), qn)


def test_poly_from_roots_and_round_trip_with_polyval():
    roots = np.array([1.0, 2.0, -3.0])
    _close(jnp.poly(roots.astype(np.float32)), np.poly(roots))
    _close(tjit.jit(jnp.poly)(roots.astype(np.float32)), np.poly(roots))
    coeffs = jnp.poly(roots.astype(np.float32))
    np.testing.assert_allclose(np.asarray(jnp.polyval(coeffs, roots.astype(np.float32))), 0,
                               atol=1e-5)
    with pytest.raises(ValueError, match="1-D array of roots or a square matrix"):
        jnp.poly(jnp.ones((2, 3)))


@pytest.mark.parametrize("n", [1, 2, 3, 5])
@pytest.mark.parametrize("kind", ["float", "int", "complex", "symmetric"])
def test_poly_of_square_matrix_is_its_characteristic_polynomial(n, kind, x64):
    a = RNG.normal(size=(n, n))
    a = {"float": a, "int": np.round(3 * a).astype(np.int64), "complex": a + 1j * a.T,
         "symmetric": a + a.T}[kind]
    want = np.poly(a)
    for got in (jnp.poly(a), tjit.jit(jnp.poly)(a)):
        assert got.dtype == np.complex128  # from the eigenvalues, as JAX
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("m", [0, 1, 2, 5, 8])
def test_windows_match_numpy(name, m):
    got = getattr(jnp, name)(m)
    assert got.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(got), getattr(np, name)(m), atol=1e-6)
    assert got.shape == (m,)


def test_kaiser_matches_numpy_and_traces_beta():
    for m in (0, 1, 2, 7):
        for beta in (0.0, 3.0, 14.0):
            np.testing.assert_allclose(np.asarray(jnp.kaiser(m, beta)), np.kaiser(m, beta),
                                       rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(tjit.jit(lambda b: jnp.kaiser(6, b))(5.0)),
                               np.kaiser(6, 5.0), rtol=1e-5)
    with pytest.raises(tjit.ConcretizationTypeError, match="window length M"):
        tjit.jit(lambda m: jnp.hanning(m))(4)
