"""Derivatives of jnp.linalg.qr of wide matrices (m < n, JAX's rule: the square block
and ``r2 = q^H x2``) against central differences of NumPy's qr in float64; q and r enter
through |.| so that the functions are smooth despite sign conventions."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

RNG = np.random.default_rng(2)
W_R, W_Q = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 3))


def _central(f, x, h=1e-6):
    """conj(df/dRe + i df/dIm): tjit's (JAX's) grad of a real f of complex x."""
    g = np.zeros(x.shape, x.dtype)
    for i in np.ndindex(x.shape):
        for unit in ((1, 1j) if np.iscomplexobj(x) else (1,)):
            e = np.zeros_like(x)
            e[i] = h * unit
            g[i] += (f(x + e) - f(x - e)) / (2 * h) * (1 if unit == 1 else 1j)
    return np.conj(g)


def _loss(m, mode):
    def f(x):
        q, r = m.linalg.qr(x, mode=mode)
        return (m.abs(r) * W_R).sum() + (m.abs(q) * W_Q).sum()
    return f


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("complex_", [False, True])
def test_qr_gradient_of_wide_matrices(mode, complex_, x64):
    x = RNG.standard_normal((3, 5))
    if complex_:
        x = x + 1j * RNG.standard_normal((3, 5))
    want = _central(_loss(np, mode), x)
    grad = tjit.grad(_loss(jnp, mode))
    for got in (grad(x), tjit.jit(grad)(x)):
        np.testing.assert_allclose(np.asarray(got), want, atol=1e-7)


def test_qr_jvp_and_vmap_of_wide_matrices(x64):
    xb = RNG.standard_normal((2, 3, 5))
    t = RNG.standard_normal((3, 5))
    _, tangent = tjit.jvp(lambda x: jnp.linalg.qr(x)[1], (xb[0],), (t,))
    h = 1e-6
    fd = (np.linalg.qr(xb[0] + h * t)[1] - np.linalg.qr(xb[0] - h * t)[1]) / (2 * h)
    np.testing.assert_allclose(np.asarray(tangent), fd, atol=1e-7)
    got = tjit.vmap(tjit.grad(lambda x: jnp.linalg.qr(x)[1].sum()))(xb)
    for i in range(2):
        want = _central(lambda y: np.linalg.qr(y)[1].sum(), xb[i])
        np.testing.assert_allclose(np.asarray(got[i]), want, atol=1e-7)


def test_qr_full_q_of_tall_matrices_moves_with_the_householder_completion(x64):
    """mode='complete' of a tall matrix (JAX's rule, arXiv:2409.13374): the extra columns
    of q are the ones the Householder reflections build, so central differences of
    NumPy's (LAPACK's) complete qr are the reference, q's signs included."""
    x = RNG.standard_normal((4, 2))
    w = RNG.standard_normal((4, 4))
    got = tjit.grad(lambda x: (jnp.linalg.qr(x, mode="complete")[0] * w).sum())(x)
    want = _central(lambda y: (np.linalg.qr(y, mode="complete")[0] * w).sum(), x)
    np.testing.assert_allclose(np.asarray(got), want, atol=1e-7)
