"""schur, hessenberg, rsf2csf, funm and solve_sylvester against scipy.linalg in float64 and
reconstruction identities; under jit, vmap against a Python loop; errors."""

import numpy as np
import pytest
import scipy.linalg as sl

import tjit
import tjit.numpy as jnp
from tjit.scipy import linalg as L


@pytest.fixture(autouse=True)
def _x64(x64):
    yield


def _mat(n=5, seed=0, complex_=False):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    return a + 1j * rng.standard_normal((n, n)) if complex_ else a


def close(got, want, tol=1e-10):
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("output", ["real", "complex"])
@pytest.mark.parametrize("complex_", [False, True])
def test_schur_vs_scipy(output, complex_):
    a = _mat(complex_=complex_)
    t, z = L.schur(a, output=output)
    t, z = np.asarray(t), np.asarray(z)
    close(z @ t @ z.conj().T, a)
    close(z.conj().T @ z, np.eye(5))
    tr, zr = sl.schur(a, output=output)
    assert t.dtype == tr.dtype
    close(t, tr)
    close(z, zr)
    low = -2 if output == "real" and not complex_ else -1
    assert np.all(np.tril(t, low) == 0)


def test_schur_jit_vmap_and_eigvals():
    a = np.stack([_mat(4, s) for s in range(3)])
    t, z = tjit.jit(tjit.vmap(L.schur))(a)
    for i in range(3):
        tr, zr = sl.schur(a[i])
        close(t[i], tr)
        close(z[i], zr)
    tc, zc = L.schur(a, output="complex")  # batched without vmap
    tc, zc = np.asarray(tc), np.asarray(zc)
    close(zc @ tc @ np.conj(np.swapaxes(zc, -1, -2)), a)
    close(np.sort_complex(np.diagonal(np.asarray(tc), axis1=-2, axis2=-1)),
          np.sort_complex(np.linalg.eigvals(a)))


def test_hessenberg():
    a = _mat(6, 1)
    h, q = L.hessenberg(a, calc_q=True)
    hr, qr = sl.hessenberg(a, calc_q=True)
    close(h, hr)
    close(q, qr)
    close(np.asarray(q) @ np.asarray(h) @ np.asarray(q).T, a)
    close(tjit.jit(L.hessenberg)(a), hr)
    hb = tjit.vmap(L.hessenberg)(np.stack([a, a.T]))
    close(hb[1], sl.hessenberg(a.T))


def test_rsf2csf_matches_scipy_and_jit():
    a = _mat(6, 2)
    t, z = sl.schur(a)
    want_t, want_z = sl.rsf2csf(t, z)
    for fn in (L.rsf2csf, tjit.jit(L.rsf2csf)):
        tc, zc = fn(t, z)
        close(tc, want_t)
        close(zc, want_z)
        tc, zc = np.asarray(tc), np.asarray(zc)
        assert np.all(np.tril(tc, -1) == 0)
        close(zc @ tc @ zc.conj().T, a)


def test_rsf2csf_batched_vs_loop():
    a = np.stack([_mat(4, s) for s in range(3)])
    ts, zs = zip(*(sl.schur(x) for x in a))
    tc, zc = L.rsf2csf(np.stack(ts), np.stack(zs))
    for i in range(3):
        want_t, want_z = sl.rsf2csf(ts[i], zs[i])
        close(tc[i], want_t)
        close(zc[i], want_z)


@pytest.mark.parametrize("name", ["exp", "sin", "cos", "sqrt"])
def test_funm_vs_scipy(name):
    a = _mat(5, 3)
    a = a @ a.T + np.eye(5) if name == "sqrt" else a  # sqrt: positive spectrum
    want = sl.funm(a, getattr(np, name))
    close(L.funm(a, getattr(jnp, name)), want, 1e-8)
    close(tjit.jit(lambda x: L.funm(x, getattr(jnp, name)))(a), want, 1e-8)
    if name == "exp":
        close(L.funm(a, jnp.exp), sl.expm(a), 1e-8)


def test_funm_error_estimate():
    a = _mat(4, 4)
    f, err = L.funm(a, jnp.sin, disp=False)
    fr, err_r = sl.funm(a, np.sin, disp=False)
    close(f, fr, 1e-9)
    close(err, err_r, 1e-12)
    for n in (0, 1):  # edge sizes: no superdiagonal
        f, err = L.funm(np.full((n, n), 2.0), jnp.exp, disp=False)
        close(f, np.full((n, n), np.exp(2.0)))
        assert float(err) == np.finfo(np.float64).eps


@pytest.mark.parametrize("method", ["schur", "eigen"])
@pytest.mark.parametrize("complex_", [False, True])
def test_solve_sylvester_vs_scipy(method, complex_):
    rng = np.random.default_rng(5)
    a, b = _mat(4, 6, complex_), _mat(3, 7, complex_)
    c = rng.standard_normal((4, 3)) + (1j * rng.standard_normal((4, 3)) if complex_ else 0)
    x = L.solve_sylvester(a, b, c, method=method)
    assert np.asarray(x).dtype == (np.complex128 if complex_ else np.float64)
    close(x, sl.solve_sylvester(a, b, c), 1e-9)
    xj = tjit.jit(lambda a, b, c: L.solve_sylvester(a, b, c, method=method))(a, b, c)
    close(np.asarray(a) @ np.asarray(xj) + np.asarray(xj) @ b, c, 1e-9)


def test_solve_sylvester_batched_and_singular():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((2, 3, 3))
    b = rng.standard_normal((2, 2, 2))
    c = rng.standard_normal((2, 3, 2))
    x = L.solve_sylvester(a, b, c)
    for i in range(2):
        close(x[i], sl.solve_sylvester(a[i], b[i], c[i]), 1e-9)
    # eig(A) = {1, 2}, eig(B) = {-1, 5}: 1 + (-1) = 0, no unique solution -> NaNs as JAX
    x = L.solve_sylvester(np.diag([1.0, 2.0]), np.diag([-1.0, 5.0]), np.ones((2, 2)))
    assert np.all(np.isnan(np.asarray(x)))


def test_schur_not_differentiable():
    with pytest.raises(Exception, match="schur"):
        tjit.grad(lambda a: L.schur(a)[0].sum())(_mat(3))


def test_errors_name_the_function():
    with pytest.raises(Exception, match=r"scipy.linalg.schur: .*\(2, 3\)"):
        L.schur(np.ones((2, 3)))
    with pytest.raises(ValueError, match="scipy.linalg.schur: output"):
        L.schur(np.eye(2), output="x")
    with pytest.raises(Exception, match="scipy.linalg.hessenberg"):
        L.hessenberg(np.ones(3))
    with pytest.raises(Exception, match="scipy.linalg.rsf2csf"):
        L.rsf2csf(np.eye(2), np.eye(3))
    with pytest.raises(Exception, match="scipy.linalg.funm"):
        L.funm(np.ones((2, 3)), jnp.exp)
    with pytest.raises(Exception, match="scipy.linalg.solve_sylvester"):
        L.solve_sylvester(np.eye(2), np.eye(3), np.ones((3, 2)))
    with pytest.raises(ValueError, match="solve_sylvester: method"):
        L.solve_sylvester(np.eye(2), np.eye(2), np.eye(2), method="x")


def test_lax_linalg_schur():
    a = _mat(4, 9)
    u, q = tjit.lax.linalg.schur(a)
    tr, zr = sl.schur(a)
    close(u, tr)
    close(q, zr)
    close(tjit.jit(lambda x: tjit.lax.linalg.schur(x, compute_schur_vectors=False))(a), tr)
