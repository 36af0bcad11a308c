"""scipy.linalg solves found by benchmarks/diff_linalg.py: solve with assume_a
'sym'/'her'/'pos' reads only the triangle named by ``lower`` (SciPy, and JAX's
documentation); one matrix for a batch of right-hand sides (JAX broadcasts the batch
dims); lu_factor of rectangular matrices; lu's real permutation matrix for complex
input; cholesky/cho_factor read one triangle; expm/expm_frechet of empty matrices.
References: SciPy in float64, per matrix."""

import numpy as np
import pytest
import scipy.linalg as sl

import tjit
from tjit.scipy import linalg as L


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("assume_a", ["sym", "her", "pos"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_reads_one_triangle(dtype, assume_a, lower, x64):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 4)).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * rng.standard_normal((4, 4))
    a = a @ np.conj(a.T) + 4 * np.eye(4)  # Hermitian positive definite
    if assume_a == "sym":
        a = (a + a.T) / 2 + 4 * np.eye(4)
    ignored = np.triu(np.ones((4, 4), bool), 1)  # the triangle that must not be read
    if not lower:
        ignored = ignored.T
    a[ignored] = 7.5 - 2.0j if dtype == np.complex128 else 7.5
    b = rng.standard_normal((4, 2))
    want = sl.solve(a, b, assume_a=assume_a, lower=lower)

    def f(a, b):
        return L.solve(a, b, assume_a=assume_a, lower=lower)
    for got in (f(a, b), tjit.jit(f)(a, b), f(a, b[:, 0])):
        np.testing.assert_allclose(np.asarray(got), want[:, :np.ndim(got)] if np.ndim(got) == 2
                                   else want[:, 0], rtol=1e-10, atol=1e-12)


def test_expm_of_empty_matrices(x64):
    for shape in [(0, 0), (3, 0, 0)]:
        a = np.zeros(shape)
        for got in (L.expm(a), tjit.jit(L.expm)(a)):
            assert got.shape == shape
    expm, frechet = L.expm_frechet(np.zeros((0, 0)), np.zeros((0, 0)))
    assert expm.shape == frechet.shape == (0, 0)
    assert sl.expm(np.zeros((0, 0))).shape == (0, 0)


def test_one_matrix_for_a_batch_of_right_hand_sides(x64):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    p = a @ a.T
    b = rng.standard_normal((2, 4, 3))
    cases = [
        (lambda a, b: L.solve_triangular(a, b, lower=True, trans=1),
         lambda a, b: sl.solve_triangular(a, b, lower=True, trans=1), np.tril(a)),
        (lambda a, b: L.cho_solve(L.cho_factor(a), b),
         lambda a, b: sl.cho_solve(sl.cho_factor(a), b), p),
        (lambda a, b: L.lu_solve(L.lu_factor(a), b, trans=2),
         lambda a, b: sl.lu_solve(sl.lu_factor(a), b, trans=2), a),
        (lambda a, b: L.solve(a, b, assume_a="pos"),
         lambda a, b: sl.solve(a, b, assume_a="pos"), p),
    ]
    for f, ref, m in cases:
        want = np.stack([ref(m, bi) for bi in b])
        for got in (f(m, b), tjit.jit(f)(m, b)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
        # and a batch of matrices for one right-hand side
        got = f(np.stack([m, 2 * m]), b[0])
        np.testing.assert_allclose(np.asarray(got[1]), ref(2 * m, b[0]), rtol=1e-10,
                                   atol=1e-12)


def test_lu_factor_of_rectangular_matrices(x64):
    rng = np.random.default_rng(5)
    for shape in [(5, 3), (3, 5)]:
        a = rng.standard_normal(shape)
        lu, piv = L.lu_factor(a)
        lu_ref, piv_ref = sl.lu_factor(a)
        np.testing.assert_allclose(np.asarray(lu), lu_ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(np.asarray(piv), piv_ref)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32])
def test_lu_permutation_matrix_is_real(dtype, x64):
    a = (np.arange(12.0).reshape(3, 4) ** 1.5 + (1j if dtype != np.float32 else 0)).astype(dtype)
    p, l_, u = L.lu(a)
    p_ref, l_ref, u_ref = sl.lu(a)
    assert p.dtype == p_ref.dtype and l_.dtype == l_ref.dtype and u.dtype == u_ref.dtype
    np.testing.assert_allclose(np.asarray(p @ l_ @ u), a, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(np.asarray(p), p_ref)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_and_cho_factor_read_one_triangle(dtype, lower, x64):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((4, 4)).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * rng.standard_normal((4, 4))
    a = a @ np.conj(a.T) + 4 * np.eye(4)
    ignored = np.triu(np.ones((4, 4), bool), 1)
    a[ignored if lower else ignored.T] = 9.0  # garbage in the triangle not read
    want = sl.cholesky(a, lower=lower)
    for f in (L.cholesky, tjit.jit(L.cholesky, static_argnums=1)):
        np.testing.assert_allclose(np.asarray(f(a, lower)), want, rtol=1e-12, atol=1e-12)
    c = L.cho_factor(a, lower=lower)
    b = rng.standard_normal((4, 2))
    np.testing.assert_allclose(np.asarray(L.cho_solve(c, b)),
                               sl.cho_solve(sl.cho_factor(a, lower=lower), b),
                               rtol=1e-10, atol=1e-12)
