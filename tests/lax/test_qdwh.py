"""``lax.linalg.qdwh`` against SciPy's polar decomposition (float64) and the identities
of a polar decomposition (u with orthonormal columns, h Hermitian positive semi-definite,
u h = x); jit vs eager, vmap vs a loop, padded inputs (``dynamic_shape``), the iteration
limit, derivatives vs central differences of SciPy's polar, errors."""

import numpy as np
import pytest
import scipy.linalg

import tjit
from tjit.lax import linalg as L


def _matrix(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _check_polar(x, u, h, tol):
    x64 = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    u, h = np.asarray(u), np.asarray(h)
    n = x.shape[1]
    np.testing.assert_allclose(u.conj().T @ u, np.eye(n), atol=tol)
    np.testing.assert_allclose(h, h.conj().T, atol=tol)
    assert np.linalg.eigvalsh(h.astype(x64.dtype)).min() > -tol
    np.testing.assert_allclose(u @ h, x64, atol=tol * np.abs(x64).max())
    want_u, want_h = scipy.linalg.polar(x64)
    np.testing.assert_allclose(u, want_u, atol=tol)
    np.testing.assert_allclose(h, want_h, atol=tol * np.abs(x64).max())


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (7, 3)])
def test_qdwh_is_scipys_polar_decomposition(shape, dtype):
    x = _matrix(np.random.default_rng(shape[0] * 10 + shape[1]), shape, dtype)
    tol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10
    for f in (L.qdwh, tjit.jit(L.qdwh)):
        u, h, num_iters, converged = f(x)
        assert u.dtype == h.dtype == dtype and u.shape == shape
        assert h.shape == (shape[1],) * 2
        assert bool(converged) and 0 < int(num_iters) <= 10
        _check_polar(x, u, h, tol)


@pytest.mark.usefixtures("x64")
def test_ill_conditioned_matrix_converges():
    rng = np.random.default_rng(2)
    x = scipy.linalg.qr(rng.standard_normal((6, 6)))[0] @ np.diag(
        [1, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10]) @ scipy.linalg.qr(rng.standard_normal((6, 6)))[0]
    u, h, _, converged = L.qdwh(x)
    assert bool(converged)
    _check_polar(x, u, h, 1e-8)


@pytest.mark.usefixtures("x64")
def test_vmap_matches_a_loop():
    xs = np.random.default_rng(3).standard_normal((3, 5, 3))
    for f in (tjit.vmap(L.qdwh), tjit.jit(tjit.vmap(L.qdwh))):
        outs = f(xs)
        for i, x in enumerate(xs):
            for got, want in zip(outs, L.qdwh(x)):
                np.testing.assert_allclose(np.asarray(got)[i], want, rtol=1e-12, atol=1e-14)


@pytest.mark.usefixtures("x64")
def test_dynamic_shape_ignores_the_padding():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 4))
    for f in (L.qdwh, tjit.jit(L.qdwh, static_argnames="dynamic_shape")):
        u, h, _, converged = f(x, dynamic_shape=(4, 2))
        assert bool(converged)
        want_u, want_h = scipy.linalg.polar(x[:4, :2])
        u, h = np.asarray(u), np.asarray(h)
        np.testing.assert_allclose(u[:4, :2], want_u, atol=1e-10)
        np.testing.assert_allclose(h[:2, :2], want_h, atol=1e-10)
        assert not u[4:].any() and not u[:, 2:].any() and not h[2:].any()
    # traced true shapes, one per matrix of a batch
    xs, ms, ns = rng.standard_normal((2, 6, 4)), np.array([4, 6]), np.array([2, 3])
    u, h, _, _ = tjit.vmap(lambda x, m, n: L.qdwh(x, dynamic_shape=(m, n)))(xs, ms, ns)
    for i, (m, n) in enumerate(zip(ms, ns)):
        want_u, want_h = scipy.linalg.polar(xs[i, :m, :n])
        np.testing.assert_allclose(np.asarray(u[i])[:m, :n], want_u, atol=1e-10)
        np.testing.assert_allclose(np.asarray(h[i])[:n, :n], want_h, atol=1e-10)
        assert not np.asarray(u[i])[m:].any() and not np.asarray(u[i])[:, n:].any()


@pytest.mark.usefixtures("x64")
def test_iteration_limit_and_eps():
    x = np.random.default_rng(5).standard_normal((5, 3))
    _, _, num_iters, converged = L.qdwh(x, max_iterations=2)
    assert int(num_iters) == 2 and not bool(converged)
    # a looser eps takes fewer steps than the default
    _, _, loose, _ = L.qdwh(x, eps=1e-4)
    _, _, tight, _ = L.qdwh(x)
    assert int(loose) < int(tight)


@pytest.mark.usefixtures("x64")
def test_derivatives_match_differences_of_scipys_polar():
    rng = np.random.default_rng(6)
    x, t = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    _, u_dot = tjit.jvp(lambda x: L.qdwh(x)[0], (x,), (t,))
    step = 1e-6
    fd = (scipy.linalg.polar(x + step * t)[0] - scipy.linalg.polar(x - step * t)[0]) / (2 * step)
    np.testing.assert_allclose(u_dot, fd, atol=1e-7)
    g = tjit.grad(lambda x: (L.qdwh(x)[1] ** 2).sum())(x)
    fd = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = step
        fd[idx] = ((scipy.linalg.polar(x + e)[1] ** 2).sum()
                   - (scipy.linalg.polar(x - e)[1] ** 2).sum()) / (2 * step)
    np.testing.assert_allclose(g, fd, atol=1e-6)


@pytest.mark.parametrize("x, error, match", [
    (np.ones((2, 3)), ValueError, "M >= N"),
    (np.ones((2, 3, 3)), ValueError, "vmap"),
    (np.ones((3, 3), np.int32), TypeError, "floating-point"),
])
def test_bad_input_is_refused(x, error, match):
    with pytest.raises(error, match=match):
        L.qdwh(x)
