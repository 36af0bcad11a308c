"""``sparse.linalg.spsolve`` against scipy.sparse.linalg.spsolve (float64) and finite
differences; ``lobpcg_standard`` against NumPy's eigh."""

import numpy as np
import pytest
import scipy.sparse as ss
import scipy.sparse.linalg as ssl

import tjit
import tjit.numpy as jnp
from tjit.experimental import sparse
from tjit.experimental.sparse import linalg


def _csr(n, seed):
    m = ss.random(n, n, density=0.3, random_state=seed, format="csr") + 4 * ss.eye(n)
    return m.tocsr()


def test_spsolve_matches_scipy_in_float64(x64):
    m = _csr(12, 5)
    b = np.random.default_rng(5).normal(size=12)
    got = linalg.spsolve(m.data, m.indices, m.indptr, b)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, ssl.spsolve(m, b), rtol=1e-12, atol=1e-12)
    jitted = tjit.jit(linalg.spsolve)(m.data, m.indices, m.indptr, b)
    np.testing.assert_allclose(jitted, ssl.spsolve(m, b), rtol=1e-12, atol=1e-12)


def test_spsolve_grad_matches_finite_differences(x64):
    m = _csr(8, 6)
    b = np.random.default_rng(6).normal(size=8)
    w = np.random.default_rng(7).normal(size=8)

    def loss(data, b):
        return jnp.dot(linalg.spsolve(data, m.indices, m.indptr, b), w)

    gd, gb = tjit.grad(loss, argnums=(0, 1))(m.data, b)
    eps = 1e-6
    for j in range(0, m.nnz, 3):
        e = np.zeros(m.nnz)
        e[j] = eps
        fd = (float(loss(m.data + e, b)) - float(loss(m.data - e, b))) / (2 * eps)
        np.testing.assert_allclose(gd[j], fd, rtol=1e-5, atol=1e-8)
    for j in range(8):
        e = np.zeros(8)
        e[j] = eps
        fd = (float(loss(m.data, b + e)) - float(loss(m.data, b - e))) / (2 * eps)
        np.testing.assert_allclose(gb[j], fd, rtol=1e-5, atol=1e-8)


def test_spsolve_bad_shapes_raise():
    m = _csr(5, 1)
    with pytest.raises(ValueError, match="spsolve: expected CSR arrays"):
        linalg.spsolve(m.data, m.indices, m.indptr, np.ones(4))


@pytest.mark.parametrize("operator", ["dense", "bcoo", "callable"])
def test_lobpcg_standard_top_eigenpairs_match_eigh(operator):
    rng = np.random.default_rng(11)
    n, k = 40, 3
    # a sparse symmetric PSD matrix with a clear gap after the top 3 eigenvalues
    a = ss.random(n, n, density=0.1, random_state=11).toarray()
    a = a @ a.T + np.diag(np.r_[[30.0, 20.0, 12.0], np.zeros(n - 3)])
    a32 = jnp.asarray(a, jnp.float32)
    op = {"dense": a32, "bcoo": sparse.BCOO.fromdense(a32),
          "callable": lambda v: a32 @ v}[operator]
    theta, u, i = linalg.lobpcg_standard(op, jnp.asarray(rng.normal(size=(n, k)),
                                                         jnp.float32))
    w, v = np.linalg.eigh(a)
    np.testing.assert_allclose(theta, w[::-1][:k], rtol=1e-4)
    # eigenvectors up to sign: |<u_j, v_j>| = 1
    np.testing.assert_allclose(np.abs(np.sum(np.asarray(u) * v[:, ::-1][:, :k], 0)), 1,
                               atol=1e-3)
    assert 0 < int(i) <= 100


def test_lobpcg_standard_bad_input_raises():
    with pytest.raises(ValueError, match="0 < 5 \\* k < n"):
        linalg.lobpcg_standard(jnp.eye(10), jnp.ones((10, 2)))
    with pytest.raises(ValueError, match="must be"):
        linalg.lobpcg_standard(jnp.eye(12), jnp.ones((11, 2)))
