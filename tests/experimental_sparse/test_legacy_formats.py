"""JAX's legacy COO / CSR / CSC classes against scipy.sparse and NumPy float64."""

import numpy as np
import pytest
import scipy.sparse

import tjit
from tjit.experimental import sparse


@pytest.fixture
def mat(rng):
    x = rng.standard_normal((6, 4))
    return np.where(rng.random((6, 4)) < 0.4, x, 0).astype(np.float32)


def test_buffers_match_scipy(mat):
    coo, ref = sparse.COO.fromdense(mat), scipy.sparse.coo_matrix(mat)
    np.testing.assert_array_equal(coo.row, ref.row)
    np.testing.assert_array_equal(coo.col, ref.col)
    csr, ref = sparse.CSR.fromdense(mat), scipy.sparse.csr_matrix(mat)
    np.testing.assert_array_equal(csr.indptr, ref.indptr)
    np.testing.assert_array_equal(csr.indices, ref.indices)
    csc, ref = sparse.CSC.fromdense(mat), scipy.sparse.csc_matrix(mat)
    np.testing.assert_array_equal(csc.indptr, ref.indptr)
    np.testing.assert_array_equal(csc.indices, ref.indices)
    np.testing.assert_array_equal(csc.data, ref.data)


@pytest.mark.parametrize("cls", ["COO", "CSR", "CSC"])
def test_todense_transpose_matmul(rng, mat, cls):
    m = getattr(sparse, cls).fromdense(mat)
    x64 = mat.astype(np.float64)
    v, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal((4, 3))
    np.testing.assert_array_equal(m.todense(), mat)
    np.testing.assert_array_equal(m.T.todense(), mat.T)
    np.testing.assert_allclose(m @ v, x64 @ v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m @ b.astype(np.float32), x64 @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(m.T @ np.ones(6, np.float32), x64.sum(0), rtol=1e-5)
    np.testing.assert_allclose(tjit.jit(lambda m, v: m @ v)(m, v), x64 @ v, rtol=1e-5,
                               atol=1e-6)


def test_functions(rng, mat):
    v, w = rng.standard_normal(4).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    x64 = mat.astype(np.float64)
    coo, csr = sparse.coo_fromdense(mat), sparse.csr_fromdense(mat)
    np.testing.assert_array_equal(sparse.coo_todense(coo), mat)
    np.testing.assert_array_equal(sparse.csr_todense(csr), mat)
    for matvec, matmat, m in ((sparse.coo_matvec, sparse.coo_matmat, coo),
                              (sparse.csr_matvec, sparse.csr_matmat, csr)):
        np.testing.assert_allclose(matvec(m, v), x64 @ v, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(matvec(m, w, transpose=True), x64.T @ w, rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(matmat(m, w[:, None], transpose=True), x64.T @ w[:, None],
                                   rtol=1e-5, atol=1e-6)


def test_padding_and_errors(mat):
    csr = sparse.CSR.fromdense(mat, nse=int((mat != 0).sum()) + 2)
    np.testing.assert_array_equal(csr.todense(), mat)
    with pytest.raises(ValueError, match=r"csr_fromdense: the matrix must have ndim=2; "
                                         r"got shape=\(2, 2, 2\)"):
        sparse.CSR.fromdense(np.ones((2, 2, 2)))
    with pytest.raises(NotImplementedError, match="matmul between two sparse"):
        csr @ csr
