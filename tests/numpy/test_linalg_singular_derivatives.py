"""Derivatives of jnp.linalg.det at singular matrices (the adjugate, finite where
``det * inv`` is NaN), cond of the zero matrix and of empty ones; references: central
differences of NumPy's det in float64 and NumPy's cond."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

L = jnp.linalg
RNG = np.random.default_rng(7)
# rank n, n-1 and < n-1; 1x1; a zero pivot that partial pivoting cannot avoid
SINGULAR = {
    "zero 2x2": np.zeros((2, 2)),
    "zero 4x4": np.zeros((4, 4)),
    "rank 3 of 4": RNG.standard_normal((4, 3)) @ RNG.standard_normal((3, 4)),
    "rank 2 of 4": RNG.standard_normal((4, 2)) @ RNG.standard_normal((2, 4)),
    "exact rank 2 of 3": np.array([[1., 2, 3], [2, 4, 6], [1, 0, 1]]),
    "diag with zero": np.diag([1., 0., 2.]),  # the zero pivot is not the last one
    "diag with zero 4x4": np.diag([1., 0., 2., 3.]),
    "zero column": np.array([[0., 1, 2], [0., 3, 4], [0., 5, 7]]),
    "complexish rank 1": np.outer([1., 2, 3], [4., 5, 6]),
    "regular": RNG.standard_normal((3, 3)),
    "1x1": np.array([[3.0]]),
}


def _central(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("name", list(SINGULAR))
def test_det_gradient_is_the_adjugate(name, x64):
    a = SINGULAR[name]
    want = _central(np.linalg.det, a)
    grad = tjit.grad(L.det)
    for got in (grad(a), tjit.jit(grad)(a)):
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-8)
    # forward mode: d det = trace(adj(a) da)
    t = RNG.standard_normal(a.shape)
    _, tangent = tjit.jvp(L.det, (a,), (t,))
    np.testing.assert_allclose(float(tangent), np.sum(want * t), atol=1e-8)


def test_det_gradient_batched_complex_and_second_order(x64):
    a = np.stack([SINGULAR["exact rank 2 of 3"], SINGULAR["regular"], np.zeros((3, 3))])
    a = a + 1j * np.stack([np.zeros((3, 3)), RNG.standard_normal((3, 3)), np.zeros((3, 3))])

    def f(x):
        return jnp.real(L.det(x))
    got = tjit.vmap(tjit.grad(f))(a)
    for i in range(3):  # grad of a real f of complex x: conj(df/dRe + i df/dIm)
        ai = a[i]
        re = _central(lambda y, ai=ai: np.real(np.linalg.det(y + 1j * ai.imag)), ai.real)
        im = _central(lambda y, ai=ai: np.real(np.linalg.det(ai.real + 1j * y)), ai.imag)
        np.testing.assert_allclose(np.asarray(got[i]), re - 1j * im, atol=1e-8)
    # the derivative rule composes: the Hessian (at a regular matrix; at singular ones
    # LU's own derivative is NaN), against differences of the gradient
    s = SINGULAR["regular"]
    hess = np.asarray(tjit.hessian(L.det)(s))
    grad = tjit.grad(L.det)
    for i in np.ndindex(s.shape):
        e = np.zeros_like(s)
        e[i] = 1e-5
        fd = (np.asarray(grad(s + e)) - np.asarray(grad(s - e))) / 2e-5
        np.testing.assert_allclose(hess[..., i[0], i[1]], fd, atol=1e-6)


@pytest.mark.parametrize("p", [None, 1, -1, 2, -2, np.inf, -np.inf, "fro"])
def test_cond_of_zero_matrix_is_inf(p, x64):
    want = np.linalg.cond(np.zeros((3, 3)), p)
    assert want == np.inf
    for f in (L.cond, tjit.jit(L.cond, static_argnums=1)):
        assert float(f(np.zeros((3, 3)), p)) == np.inf
    # NaN input stays NaN
    assert np.isnan(float(L.cond(np.array([[np.nan, 0.], [0., 1.]]), p)))


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 3), (3, 0)])
def test_cond_of_empty_matrices_says_so(shape, x64):
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cond(np.zeros(shape))
    with pytest.raises(ValueError, match=r"cond: .*empty matrix.*\(shape \("):
        L.cond(np.zeros(shape))
