"""jnp.linalg on degenerate input, where LAPACK raises but JAX returns IEEE values:
singular matrices (inv, solve, triangular_solve, cond), zero and rank-deficient least
squares, NaN entries (svd and everything built on it) and matrices that are not positive
definite (cholesky). References: NumPy float64 where it answers, a scalar Python
substitution loop for triangular solves, JAX's documented values otherwise."""

import itertools
import math

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.lax import linalg as lax_linalg

L = jnp.linalg
SINGULAR = [np.array([[1., 2, 3], [2, 4, 6], [1, 0, 1]]), np.zeros((3, 3)),
            np.array([[0., 0], [1, 1]]), np.diag([1., 0., 2.])]


def _eager_and_jit(f, *args):
    return [np.asarray(f(*args)), np.asarray(tjit.jit(f)(*args))]


def _substitute(t, b, unit):
    """Solve t @ x = b for a triangular (lower or upper) t, one scalar at a time."""
    n = t.shape[0]
    lower = np.allclose(np.triu(t, 1), 0)
    x = np.zeros(b.shape)
    rows = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(b.shape[1]):
            for i in rows:
                done = range(i) if lower else range(i + 1, n)
                r = b[i, k] - sum((t[i, j] * x[j, k] for j in done), 0.0)
                x[i, k] = r if unit else np.float64(r) / np.float64(t[i, i])
    return x


@pytest.mark.parametrize("lower,transpose_a,unit,left_side",
                         list(itertools.product([True, False], repeat=4)))
def test_triangular_solve_zero_pivot_gives_ieee_values(lower, transpose_a, unit, left_side,
                                                       x64):
    a = np.array([[0., 3, 1], [2, 0, 4], [5, 6, 2]])  # zero pivots on both triangles
    b = np.array([[1., 0], [2, 1], [0, 3]])
    if not left_side:
        b = b.T.copy()
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        np.fill_diagonal(t, 1.0)
    op = t.T if transpose_a else t
    # x op = b  <=>  op^T x^T = b^T
    ref = _substitute(op, b, unit) if left_side else _substitute(op.T, b.T, unit).T

    def f(a, b):
        return lax_linalg.triangular_solve(a, b, left_side=left_side, lower=lower,
                                           transpose_a=transpose_a, unit_diagonal=unit)
    for got in _eager_and_jit(f, a, b):
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("i", range(len(SINGULAR)))
def test_inv_and_solve_of_singular_matrices_do_not_raise(i, x64):
    a = SINGULAR[i]
    for got in _eager_and_jit(L.inv, a) + _eager_and_jit(L.solve, a, np.ones(a.shape[0])):
        assert not np.isfinite(got).all()
    # A batch with one singular matrix: the regular one is still exact.
    batch = np.stack([a, np.eye(a.shape[0]) * 2])
    for got in _eager_and_jit(L.inv, batch):
        np.testing.assert_allclose(got[1], np.eye(a.shape[0]) / 2)


@pytest.mark.parametrize("p", [None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"])
@pytest.mark.parametrize("i", range(len(SINGULAR)))
def test_cond_of_singular_matrices(p, i, x64):
    a = SINGULAR[i]
    for got in _eager_and_jit(lambda m: L.cond(m, p), a):
        if i == 1:  # the zero matrix: 0 / 0 is inf for every p (NumPy; JAX for p=-2)
            assert got == np.inf
        elif p == -2:  # s_min / s_max
            np.testing.assert_allclose(got, 0.0, atol=1e-15)
        elif p in (None, 2):  # s_max / (rounding-level s_min): huge or inf
            assert got > 1e15
        else:
            assert got == np.inf
    # NaN input stays NaN.
    assert np.isnan(L.cond(np.array([[1., np.nan], [0, 1]]), 1))


@pytest.mark.parametrize("rcond", [None, -1, 1e-6])
@pytest.mark.parametrize("a", [np.zeros((3, 3)), np.zeros((4, 2)), np.zeros((2, 4)),
                               np.diag([2., 1e-3, 0.]), np.array([[1., 1], [1, 1], [0, 0]]),
                               np.array([[1., 2, 3], [2, 4, 6]])], ids=str)
def test_lstsq_rank_deficient_matches_numpy(a, rcond, x64):
    b = np.arange(1.0, a.shape[0] + 1)
    x_ref, _, rank_ref, s_ref = np.linalg.lstsq(a, b, rcond=rcond)

    def f(a, b):
        return L.lstsq(a, b, rcond=rcond)
    for mode in (f, tjit.jit(f)):
        x, resid, rank, s = mode(a, b)
        np.testing.assert_allclose(x, x_ref, atol=1e-12)
        np.testing.assert_allclose(s, s_ref, atol=1e-12)
        assert int(rank) == rank_ref
        np.testing.assert_allclose(resid, np.sum((b - a @ x_ref) ** 2, axis=0), atol=1e-12)


_NAN = np.array([[1., np.nan], [2, 3]])
_SVD_USERS = {
    "svd": lambda m: L.svd(m)[1], "svdvals": lambda m: L.svd(m, compute_uv=False),
    "svd_u": lambda m: L.svd(m, full_matrices=False)[0], "pinv": L.pinv,
    "matrix_rank": L.matrix_rank, "norm2": lambda m: L.norm(m, 2, axis=(-2, -1)),
    "cond": L.cond, "nuc": lambda m: L.norm(m, "nuc", axis=(-2, -1)),
}


@pytest.mark.parametrize("name", sorted(_SVD_USERS))
def test_svd_based_functions_with_nan_entries(name, x64):
    f = _SVD_USERS[name]
    good = np.array([[2., 1], [0, 1]])
    batch = np.stack([_NAN, good])
    ref_good = np.asarray(f(good))
    for got in _eager_and_jit(f, batch):
        if name == "matrix_rank":  # NaN > threshold is False
            assert got[0] == 0
        else:
            assert np.isnan(got[0]).all()
        np.testing.assert_allclose(got[1], ref_good, rtol=1e-12)
    x = L.lstsq(_NAN, np.ones(2))[0]
    assert np.isnan(x).all()


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("bad", [-np.eye(3), np.array([[1., 2, 0], [2, 1, 0], [0, 0, 1]]),
                                 np.array([[0., 0, 0], [0, 1, 0], [0, 0, 1]])], ids=str)
def test_cholesky_not_positive_definite(bad, upper, x64):
    good = np.array([[4., 2, 0], [2, 3, 0], [0, 0, 1]])
    ref = np.linalg.cholesky(good)
    for got in _eager_and_jit(lambda m: L.cholesky(m, upper=upper), np.stack([bad, good])):
        nan_part = np.triu(np.ones((3, 3), bool)) if upper else np.tril(np.ones((3, 3), bool))
        assert np.isnan(got[0][nan_part]).all()
        np.testing.assert_array_equal(got[0][~nan_part], 0.0)
        np.testing.assert_allclose(got[1], ref.T if upper else ref, rtol=1e-12)


def test_inverse_of_singular_is_what_jax_returns(x64):
    """The exact pattern of JAX 0.10 (getrf + trsm) on a rank-2 3x3 matrix."""
    got = np.asarray(L.inv(SINGULAR[0]))
    ref = np.array([[math.nan] * 3, [-math.inf, math.inf, math.nan],
                    [math.inf, -math.inf, math.nan]])
    np.testing.assert_array_equal(got, ref)


_VECTOR_ORDS = [None, 1, 2, np.inf, -np.inf, 0, -1, 3]
_MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("shape", [(0,), (3,), (0, 3), (3, 0), (0, 0), (2, 0, 3)], ids=str)
def test_norms_of_empty_arrays_match_numpy(shape, x64):
    """Max-type norms of an empty axis are 0 (not -inf); min-type ones have no value
    and raise, as in NumPy."""
    x = np.ones(shape)
    axis = None if x.ndim == 1 else (-2, -1)
    for o in _VECTOR_ORDS if x.ndim == 1 else _MATRIX_ORDS:
        try:
            want = np.linalg.norm(x, o, axis=axis)
        except ValueError:
            with pytest.raises(ValueError, match="size 0"):
                L.norm(x, o, axis=axis)
            continue
        for got in _eager_and_jit(lambda a, o=o: L.norm(a, o, axis=axis), x):
            np.testing.assert_allclose(got, want, rtol=1e-15)
    assert np.isnan(L.norm(np.array([[np.nan, 1.0]]), np.inf))


@pytest.mark.parametrize("name", ["eigvalsh", "eigh_vectors", "scipy_eigh"])
def test_eigh_with_nan_entries_is_nan_for_that_matrix(name, x64):
    import tjit.scipy.linalg as sl
    f = {"eigvalsh": L.eigvalsh, "eigh_vectors": lambda m: L.eigh(m)[1],
         "scipy_eigh": lambda m: sl.eigh(m, eigvals_only=True)}[name]
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    spd[0, 2, 0] = spd[0, 0, 2] = spd[0, 3, 1] = spd[0, 1, 3] = np.nan  # LAPACK fails
    want = np.asarray(f(spd[1]))
    for got in _eager_and_jit(f, spd):
        assert np.isnan(got[0]).all()
        np.testing.assert_allclose(np.abs(got[1]), np.abs(want), rtol=1e-12)
