"""tjit.scipy.linalg against scipy.linalg in float64; gradients against finite
differences (tests/transforms/check.py); batching against a Python loop."""

import numpy as np
import pytest
import scipy.linalg as sl

import tjit
from tjit.scipy import linalg as L
from tests.transforms.check import check_grads


@pytest.fixture(autouse=True)
def _x64(x64):
    yield


def _mats(seed=0, n=4, k=2):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    return a, rng.standard_normal((n, k)), a @ a.T + n * np.eye(n)


def close(got, want, tol=1e-10):
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular(trans, lower, unit):
    a, b, _ = _mats()
    a = a + 1j * np.tril(a, 1) if trans in (2, "C") else a  # conjugation must matter
    want = sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
    close(L.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit), want)
    close(L.solve_triangular(a, b[:, 0], trans=trans, lower=lower, unit_diagonal=unit),
          want[:, 0])


@pytest.mark.parametrize("lower", [True, False])
def test_cho_factor_solve(lower):
    _, b, spd = _mats()
    c, low = L.cho_factor(spd, lower=lower)
    assert low == lower
    close(c, sl.cholesky(spd, lower=lower))  # the other triangle is zero, as JAX
    close(L.cho_solve((c, low), b), sl.cho_solve(sl.cho_factor(spd, lower=lower), b))
    close(L.cho_solve((c, low), b[:, 0]), np.linalg.solve(spd, b[:, 0]))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu(shape):
    a = np.random.default_rng(1).standard_normal(shape)
    p, l_, u = L.lu(a)
    for got, want in zip((p, l_, u), sl.lu(a)):
        close(got, want)
    pl, u2 = L.lu(a, permute_l=True)
    close(pl, sl.lu(a, permute_l=True)[0])
    close(u2, sl.lu(a)[2])


@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_factor_solve(trans):
    a, b, _ = _mats(2)
    a = a + 0.5j * a.T
    lu_, piv = L.lu_factor(a)
    lu2, piv2 = sl.lu_factor(a)
    close(lu_, lu2)
    np.testing.assert_array_equal(np.asarray(piv), piv2)
    close(L.lu_solve((lu_, piv), b, trans=trans), sl.lu_solve((lu2, piv2), b, trans=trans))
    close(L.lu_solve((lu_, piv), b[:, 1], trans=trans),
          sl.lu_solve((lu2, piv2), b[:, 1], trans=trans))


@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_qr(mode):
    a = np.random.default_rng(3).standard_normal((5, 3))
    got, want = L.qr(a, mode=mode), sl.qr(a, mode=mode)
    assert len(got) == len(want)
    # signs of columns are not unique: compare q r and r's magnitudes
    r = np.asarray(got[-1])
    assert r.shape == want[-1].shape
    close(np.abs(r), np.abs(want[-1]))
    if mode != "r":
        close(np.asarray(got[0]) @ r, a)


def test_svd_eigh_inv_det_solve():
    a, b, spd = _mats(4)
    close(L.svd(a, compute_uv=False), sl.svd(a, compute_uv=False))
    u, s, vh = L.svd(a)
    close(np.asarray(u) * np.asarray(s) @ np.asarray(vh), a)
    w, v = L.eigh(spd)
    close(w, sl.eigh(spd)[0])
    close(np.asarray(v) @ np.diag(w) @ np.asarray(v).T, spd)
    # lower=False reads only the upper triangle
    close(L.eigh(np.triu(spd), lower=False, eigvals_only=True), sl.eigh(spd, eigvals_only=True))
    close(L.eigh(np.tril(spd), eigvals_only=True), sl.eigh(spd, eigvals_only=True))
    close(L.inv(a), sl.inv(a))
    close(L.det(a), sl.det(a))
    for assume_a in ("gen", "sym", "her", "pos"):
        m = spd if assume_a != "gen" else a
        close(L.solve(m, b, assume_a=assume_a), sl.solve(m, b, assume_a=assume_a))
        close(L.solve(m, b[:, 0], assume_a=assume_a), sl.solve(m, b[:, 0], assume_a=assume_a))
    close(L.solve(np.triu(spd), b, assume_a="pos"), sl.solve(spd, b))
    close(L.solve(np.tril(spd), b, assume_a="pos", lower=True), sl.solve(spd, b))


def test_block_diag_toeplitz():
    parts = (np.ones((2, 2)), np.float64(3.0), np.arange(3.0), np.zeros((2, 0)))
    close(L.block_diag(*parts), sl.block_diag(*parts))
    c, r = np.array([1.0, 2.0, 3.0]), np.array([9.0, 5.0, 6.0, 7.0])
    close(L.toeplitz(c, r), sl.toeplitz(c, r))
    z = np.array([1.0, 2j, 3 - 1j])
    close(L.toeplitz(z), sl.toeplitz(z))
    cs = np.arange(6.0).reshape(2, 3)  # leading dims are batch dims, as JAX
    close(L.toeplitz(cs, r), np.stack([sl.toeplitz(x, r) for x in cs]))


@pytest.mark.parametrize("scale", [1e-3, 0.1, 0.5, 1.0, 3.0, 40.0])
def test_expm_and_frechet(scale):
    # scales chosen to cover every Padé degree (3..13) and several squarings
    a, e, _ = _mats(5, 4, 4)
    a = scale * a
    want = sl.expm(a)
    close(L.expm(a), want, 1e-12 * max(1, np.abs(want).max()))
    r, lf = L.expm_frechet(a, e)
    r2, lf2 = sl.expm_frechet(a, e)
    close(r, r2, 1e-12 * max(1, np.abs(r2).max()))
    close(lf, lf2, 1e-11 * max(1, np.abs(lf2).max()))
    close(L.expm_frechet(a, e, compute_expm=False), lf2, 1e-11 * max(1, np.abs(lf2).max()))


def test_expm_float32_triangular_and_too_large():
    a, _, _ = _mats(6)
    got = L.expm(a.astype(np.float32))
    assert got.dtype == np.float32
    close(np.asarray(got, np.float64), sl.expm(a.astype(np.float32).astype(np.float64)), 1e-5)
    close(L.expm(np.triu(a), upper_triangular=True), sl.expm(np.triu(a)))
    assert np.isnan(np.asarray(L.expm(1e6 * a, max_squarings=4))).all()


def test_expm_grad_jit_vmap():
    a, _, _ = _mats(7, 3, 3)
    check_grads(lambda x: L.expm(x), (0.7 * a,), rtol=1e-6, atol=1e-6)
    check_grads(lambda x: L.expm(x), (4.0 * a,), modes=("rev",), rtol=1e-6, atol=1e-6)
    close(tjit.jit(L.expm)(a), sl.expm(a), 1e-12)
    batch = np.stack([a, 0.1 * a, 3 * a])
    want = np.stack([sl.expm(x) for x in batch])
    close(L.expm(batch), want, 1e-11 * np.abs(want).max())
    close(tjit.vmap(L.expm)(batch), want, 1e-11 * np.abs(want).max())


def test_solver_grads():
    a, b, spd = _mats(8, 3, 2)
    check_grads(lambda m, y: L.solve_triangular(m, y, lower=True, trans=1),
                (np.tril(a) + 3 * np.eye(3), b), rtol=1e-6, atol=1e-6)
    check_grads(lambda m, y: L.cho_solve(L.cho_factor(m), y), (spd, b), rtol=1e-6, atol=1e-6)
    check_grads(lambda m, y: L.lu_solve(L.lu_factor(m), y, trans=1), (a, b),
                rtol=1e-6, atol=1e-6)
    check_grads(lambda m: L.det(m), (a,), rtol=1e-6, atol=1e-6)
    check_grads(lambda c, r: L.toeplitz(c, r), (b[:, 0], a[0]), rtol=1e-6, atol=1e-6)


def test_sqrtm():
    a, _, spd = _mats(9)
    close(L.sqrtm(spd), sl.sqrtm(spd), 1e-10)
    m = a @ a  # not symmetric; eigenvalues off the negative real axis
    close(L.sqrtm(m), sl.sqrtm(m), 1e-9)
    close(tjit.jit(L.sqrtm)(m), sl.sqrtm(m), 1e-9)


def _sqrtm_cases():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 3))
    spd = a @ a.T + np.eye(3)
    rot = lambda t: np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return {"spd": spd, "square": a @ a, "complex": a @ a + 1j * spd,
            "neg_definite": -spd, "neg_eigenvalue": np.diag([4.0, -1.0, 9.0]),
            "rotation_1": rot(1.0), "rotation_3": rot(3.0), "rotation_pi": rot(np.pi),
            "nilpotent": np.array([[0.0, 1.0], [0.0, 0.0]]), "zero": np.zeros((2, 2)),
            "batch": np.stack([spd, -spd, a @ a])}


@pytest.mark.filterwarnings("ignore:Matrix is singular")
@pytest.mark.parametrize("name", sorted(_sqrtm_cases()))
def test_sqrtm_is_the_principal_root(name):
    """JAX's sqrtm (Schur-based): complex whatever the input, SciPy's principal root; a
    root on another branch only where an eigenvalue sits on the branch cut (a rotation by
    pi: -1 +- rounding); non-finite where no root exists (nilpotent)."""
    m = _sqrtm_cases()[name]
    with np.errstate(all="ignore"):
        outs = [np.asarray(L.sqrtm(m))]
        if name in ("neg_definite", "batch"):
            outs.append(np.asarray(tjit.jit(L.sqrtm)(m)))
        for got in outs:
            assert got.dtype == np.complex128
            for g, mi in zip(got.reshape((-1,) + m.shape[-2:]), m.reshape((-1,) + m.shape[-2:])):
                if name == "nilpotent":
                    assert not np.isfinite(g).all()
                    continue
                close(g @ g, mi, 1e-9)
                if name != "rotation_pi":
                    close(g, sl.sqrtm(mi), 1e-8)
    assert np.asarray(L.sqrtm(np.eye(2, dtype=np.float32))).dtype == np.complex64


def test_errors():
    with pytest.raises(tjit.ShapeError, match=r"solve_triangular.*\(3, 4\)"):
        L.solve_triangular(np.ones((3, 4)), np.ones(3))
    with pytest.raises(tjit.ShapeError, match=r"cho_solve: b of shape \(5,\)"):
        L.cho_solve((np.eye(3), True), np.ones(5))
    with pytest.raises(ValueError, match="trans must be"):
        L.lu_solve(L.lu_factor(np.eye(2)), np.ones(2), trans=3)
    with pytest.raises(ValueError, match="assume_a"):
        L.solve(np.eye(2), np.ones(2), assume_a="banded")
    with pytest.raises(NotImplementedError, match="pivoting"):
        L.qr(np.eye(2), pivoting=True)
    with pytest.raises(tjit.ShapeError, match=r"expm: expected a square.*\(2, 3\)"):
        L.expm(np.ones((2, 3)))
    with pytest.raises(tjit.ShapeError, match="same shape"):
        L.expm_frechet(np.eye(2), np.eye(3))
