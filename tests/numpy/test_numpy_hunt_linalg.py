"""jnp.linalg against NumPy (float64) where a differential sweep found tjit wrong:
eig/eigvals of empty matrices (crashed reshaping a 0-size batch), matrix_rank's
``hermitian`` and eigvalsh's ``symmetrize_input`` (JAX's keywords, refused), each eager
and under jit."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def _eager_and_jit(f, *args):
    return [f(*args), tjit.jit(f)(*args)]


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_eig_of_empty_matrices(shape):
    a = np.zeros(shape, np.float32)
    w_ref, v_ref = np.linalg.eig(a.astype(np.float64))
    for w, v in _eager_and_jit(jnp.linalg.eig, a):
        assert w.shape == w_ref.shape and v.shape == v_ref.shape
        assert w.dtype == np.complex64 and v.dtype == np.complex64
    for w in _eager_and_jit(jnp.linalg.eigvals, a):
        assert w.shape == np.linalg.eigvals(a.astype(np.float64)).shape


@pytest.mark.parametrize("diag", [[1, -1e-9, 3], [1, -2, 0], [0, 0, 0], [5, 5, 5]])
def test_matrix_rank_hermitian(diag):
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    m = (q * np.asarray(diag, np.float64)) @ q.T   # symmetric with these eigenvalues
    a = m.astype(np.float32)
    expected = np.linalg.matrix_rank(a.astype(np.float64), hermitian=True,
                                     rtol=3 * np.finfo(np.float32).eps)
    for got in _eager_and_jit(lambda x: jnp.linalg.matrix_rank(x, hermitian=True), a):
        assert int(got) == expected
    batch = np.stack([a, np.eye(3, dtype=np.float32)])
    got = jnp.linalg.matrix_rank(batch, hermitian=True, tol=0.5)
    np.testing.assert_array_equal(
        got, np.linalg.matrix_rank(batch.astype(np.float64), hermitian=True, tol=0.5))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigvalsh_without_symmetrizing_reads_one_triangle(uplo):
    a = np.random.default_rng(1).standard_normal((2, 4, 4)).astype(np.float32)
    expected = np.linalg.eigvalsh(a.astype(np.float64), UPLO=uplo)
    f = lambda x: jnp.linalg.eigvalsh(x, uplo, symmetrize_input=False)  # noqa: E731
    for got in _eager_and_jit(f, a):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    # the default symmetrizes (JAX): eigenvalues of (a + a^T) / 2
    sym = np.linalg.eigvalsh((a + np.swapaxes(a, -1, -2)).astype(np.float64) / 2)
    np.testing.assert_allclose(jnp.linalg.eigvalsh(a, uplo), sym, rtol=1e-4, atol=1e-5)
