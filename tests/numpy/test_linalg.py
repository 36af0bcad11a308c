"""jnp.linalg against NumPy (float64 under the x64 fixture, well-conditioned matrices from
fixed seeds): determinants, solves, inverses, factorizations, norms, pseudo-inverses,
least squares and the NumPy 2 aliases; that they trace to the linalg primitives; error
messages."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import symbol

L = jnp.linalg
TOL = dict(rtol=1e-10, atol=1e-10)


def _wc(rng, shape):
    """Well-conditioned (diagonally dominated) random matrices."""
    return rng.standard_normal(shape) + 2 * shape[-1] * np.eye(shape[-1])


def _spd(rng, shape):
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _prims(f, *args):
    return {e.primitive.name for e in tjit.make_jaxpr(f)(*args).jaxpr.eqns}


# -- LU-based ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 4, 4), (2, 3, 5, 5), (0, 0)], ids=str)
def test_det_slogdet(shape, rng, x64):
    a = rng.standard_normal(shape)
    np.testing.assert_allclose(L.det(a), np.linalg.det(a), **TOL)
    sign, logdet = L.slogdet(a)
    sign_ref, logdet_ref = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign, sign_ref, **TOL)
    np.testing.assert_allclose(logdet, logdet_ref, **TOL)


def test_det_with_row_swaps_and_singular(x64):
    perm = np.eye(4)[[2, 0, 3, 1]]  # needs pivoting; det = sign of the permutation
    np.testing.assert_allclose(L.det(perm), np.linalg.det(perm), **TOL)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert float(L.det(singular)) == 0.0
    sign, logdet = L.slogdet(np.zeros((3, 3)))
    assert float(sign) == 0.0 and float(logdet) == -np.inf


def test_slogdet_complex(rng, x64):
    a = rng.standard_normal((2, 4, 4)) + 1j * rng.standard_normal((2, 4, 4))
    sign, logdet = L.slogdet(a)
    sign_ref, logdet_ref = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign, sign_ref, **TOL)
    np.testing.assert_allclose(logdet, logdet_ref, **TOL)
    np.testing.assert_allclose(L.det(a), np.linalg.det(a), **TOL)


@pytest.mark.parametrize("sa,sb", [((4, 4), (4,)), ((4, 4), (4, 2)), ((3, 4, 4), (3, 4, 2)),
                                   ((3, 4, 4), (4,)), ((3, 4, 4), (4, 1)),
                                   ((2, 1, 4, 4), (3, 4, 5))], ids=str)
def test_solve_numpy2_semantics(sa, sb, rng, x64):
    a, b = _wc(rng, sa), rng.standard_normal(sb)
    out = L.solve(a, b)
    expected = np.linalg.solve(a, b)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out, expected, **TOL)


def test_inv(rng, x64):
    a = _wc(rng, (2, 3, 5, 5))
    np.testing.assert_allclose(L.inv(a), np.linalg.inv(a), **TOL)
    c = _wc(rng, (4, 4)) + 1j * rng.standard_normal((4, 4))
    np.testing.assert_allclose(L.inv(c), np.linalg.inv(c), **TOL)


def test_lu_based_functions_trace_to_primitives(rng):
    a = _wc(rng, (3, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    assert "lu" in _prims(lambda x: L.slogdet(x)[1], a)
    # det is a custom_jvp (its derivative is the adjugate's) around one LU
    assert " = lu a" in str(tjit.make_jaxpr(L.det)(a))
    for f, args in [(L.inv, (a,)), (L.solve, (a, b))]:
        assert {"lu", "triangular_solve"} <= _prims(f, *args)
    np.testing.assert_allclose(tjit.jit(L.solve)(a, b), np.linalg.solve(a, b), rtol=1e-4)
    np.testing.assert_allclose(tjit.jit(L.det)(a), np.linalg.det(a), rtol=1e-4)


def test_float32_default_and_int_promotion(rng):
    a = np.array([[2, 1], [1, 3]], np.int32)
    out = L.inv(a)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.linalg.inv(a), rtol=1e-6)
    assert L.det(a).dtype == np.float32 and float(L.det(a)) == pytest.approx(5.0)


def test_polymorphic_batch(rng):
    f = tjit.jit(L.solve, polymorphic_shapes=["(b, n, n)", "(b, n, 2)"])
    closed = tjit.make_jaxpr(L.solve, polymorphic_shapes=["(b, n, n)", "(b, n, 2)"])(
        np.ones((2, 3, 3), np.float32), np.ones((2, 3, 2), np.float32))
    assert closed.out_avals[0].shape == (symbol("b"), symbol("n"), 2)
    for shape in [(2, 3), (4, 5)]:
        a = _wc(rng, shape + (shape[1],)).astype(np.float32)
        b = rng.standard_normal(shape + (2,)).astype(np.float32)
        np.testing.assert_allclose(f(a, b), np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)


# -- factorizations --------------------------------------------------------------------------
def test_cholesky(rng, x64):
    a = _spd(rng, (2, 4, 4))
    np.testing.assert_allclose(L.cholesky(a), np.linalg.cholesky(a), **TOL)
    np.testing.assert_allclose(L.cholesky(a, upper=True), np.linalg.cholesky(a, upper=True),
                               **TOL)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode, rng, x64):
    a = rng.standard_normal(shape)
    out = L.qr(a, mode=mode)
    ref = np.linalg.qr(a, mode=mode)
    if mode == "r":
        np.testing.assert_allclose(np.abs(out), np.abs(ref), **TOL)
        return
    q, r = out
    assert q.shape == ref.Q.shape and r.shape == ref.R.shape
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, **TOL)
    np.testing.assert_allclose(np.asarray(r), np.triu(np.asarray(r)), **TOL)
    k = q.shape[-1]
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ np.asarray(q),
                               np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), **TOL)


@pytest.mark.parametrize("full", [True, False])
def test_svd(full, rng, x64):
    a = rng.standard_normal((2, 5, 3))
    u, s, vh = L.svd(a, full_matrices=full)
    ref = np.linalg.svd(a, full_matrices=full)
    assert u.shape == ref.U.shape and vh.shape == ref.Vh.shape
    np.testing.assert_allclose(s, ref.S, **TOL)
    np.testing.assert_allclose((np.asarray(u)[..., :, :3] * np.asarray(s)[..., None, :])
                               @ np.asarray(vh)[..., :3, :], a, **TOL)
    np.testing.assert_allclose(L.svd(a, compute_uv=False), ref.S, **TOL)
    np.testing.assert_allclose(L.svdvals(a), ref.S, **TOL)


def test_eigh_and_eigvalsh(rng, x64):
    a = rng.standard_normal((2, 4, 4))
    sym = a + np.swapaxes(a, -1, -2)
    w, v = L.eigh(sym)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), **TOL)
    np.testing.assert_allclose((np.asarray(v) * np.asarray(w)[..., None, :])
                               @ np.swapaxes(v, -1, -2), sym, **TOL)
    # UPLO picks the triangle that is read when the input is not symmetric.
    for uplo in ("L", "U"):
        res = L.eigh(a, UPLO=uplo, symmetrize_input=False)
        np.testing.assert_allclose(res.eigenvalues, np.linalg.eigvalsh(a, UPLO=uplo), **TOL)
        np.testing.assert_allclose(L.eigvalsh(sym, UPLO=uplo), np.linalg.eigvalsh(sym), **TOL)


# -- SVD-based -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)], ids=str)
def test_pinv(shape, rng, x64):
    a = rng.standard_normal(shape)
    np.testing.assert_allclose(L.pinv(a), np.linalg.pinv(a), **TOL)


def test_pinv_rank_deficient_and_rtol(rng, x64):
    a = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))  # rank 2
    np.testing.assert_allclose(L.pinv(a), np.linalg.pinv(a), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(L.pinv(a, rtol=0.5), np.linalg.pinv(a, rtol=0.5), **TOL)
    np.testing.assert_allclose(L.pinv(a, rcond=0.5), np.linalg.pinv(a, rcond=0.5), **TOL)


def test_matrix_rank(rng, x64):
    a = rng.standard_normal((6, 3)) @ rng.standard_normal((3, 5))
    assert int(L.matrix_rank(a)) == np.linalg.matrix_rank(a) == 3
    batch = np.stack([a, rng.standard_normal((6, 5))])
    np.testing.assert_array_equal(L.matrix_rank(batch), np.linalg.matrix_rank(batch))
    assert int(L.matrix_rank(a, tol=1e9)) == 0
    assert int(L.matrix_rank(np.zeros(3))) == 0 and int(L.matrix_rank(np.ones(3))) == 1


@pytest.mark.parametrize("sa,sb", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 5), (3,))],
                         ids=str)
def test_lstsq(sa, sb, rng, x64):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    x, resid, rank, s = L.lstsq(a, b, numpy_resid=True)
    x_ref, resid_ref, rank_ref, s_ref = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(x, x_ref, **TOL)
    np.testing.assert_allclose(resid, resid_ref, **TOL)
    assert int(rank) == rank_ref
    np.testing.assert_allclose(s, s_ref, **TOL)
    # JAX's default residuals: always ||b - a x||^2 per column.
    _, resid2, _, _ = L.lstsq(a, b)
    r = b - a @ x_ref
    np.testing.assert_allclose(resid2, np.sum(np.abs(r) ** 2, axis=0), rtol=1e-8, atol=1e-10)


def test_matrix_power(rng, x64):
    a = _wc(rng, (2, 3, 3)) / 6
    for n in (0, 1, 2, 3, 5, -1, -3):
        np.testing.assert_allclose(L.matrix_power(a, n), np.linalg.matrix_power(a, n), **TOL)
    closed = tjit.make_jaxpr(lambda x: L.matrix_power(x, 5))(a)
    dots = [e for e in closed.jaxpr.eqns if e.primitive.name == "dot_general"]
    assert len(dots) == 3  # x^2, x^4, x * x^4
    with pytest.raises(TypeError, match="exponent must be an integer"):
        L.matrix_power(a, 1.5)


def test_cond(rng, x64):
    a = rng.standard_normal((2, 4, 4))
    for p in (None, 2, -2, 1, -1, np.inf, "fro", "nuc"):
        np.testing.assert_allclose(L.cond(a, p), np.linalg.cond(a, p), rtol=1e-9)


# -- norms -------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:divide by zero")  # NumPy's own norm, ord=-1 with a 0
@pytest.mark.parametrize("ord", [None, 0, 1, 2, 3, -1, 0.5, np.inf, -np.inf])
def test_vector_norms(ord, rng, x64):
    x = rng.standard_normal((3, 5))
    x[0, 1] = 0.0
    np.testing.assert_allclose(L.norm(x[0], ord), np.linalg.norm(x[0], ord), **TOL)
    np.testing.assert_allclose(L.norm(x, ord, axis=1), np.linalg.norm(x, ord, axis=1), **TOL)
    np.testing.assert_allclose(L.norm(x, ord, axis=0, keepdims=True),
                               np.linalg.norm(x, ord, axis=0, keepdims=True), **TOL)
    z = x + 1j * rng.standard_normal((3, 5))
    np.testing.assert_allclose(L.norm(z, ord, axis=-1), np.linalg.norm(z, ord, axis=-1), **TOL)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_matrix_norms(ord, rng, x64):
    x = rng.standard_normal((3, 4, 5))
    np.testing.assert_allclose(L.norm(x[0], ord), np.linalg.norm(x[0], ord), **TOL)
    for axis in [(1, 2), (2, 0), (-1, -2)]:
        for keepdims in (False, True):
            np.testing.assert_allclose(
                L.norm(x, ord, axis=axis, keepdims=keepdims),
                np.linalg.norm(x, ord, axis=axis, keepdims=keepdims), **TOL)
    np.testing.assert_allclose(L.matrix_norm(x, ord=ord if ord is not None else "fro"),
                               np.linalg.matrix_norm(x, ord=ord if ord is not None else "fro"),
                               **TOL)


def test_norm_defaults_and_vector_norm(rng, x64):
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(L.norm(x), np.linalg.norm(x), **TOL)
    np.testing.assert_allclose(L.norm(x, keepdims=True), np.linalg.norm(x, keepdims=True), **TOL)
    for ord in (2, 1, np.inf, 3):
        np.testing.assert_allclose(L.vector_norm(x, ord=ord), np.linalg.vector_norm(x, ord=ord),
                                   **TOL)
        np.testing.assert_allclose(L.vector_norm(x, axis=(0, 2), ord=ord, keepdims=True),
                                   np.linalg.vector_norm(x, axis=(0, 2), ord=ord, keepdims=True),
                                   **TOL)
    assert L.norm(np.arange(4)).dtype == np.float64


def test_norm_errors():
    with pytest.raises(ValueError, match=r"norm: improper number of dimensions.*\(2, 3, 4\)"):
        L.norm(jnp.ones((2, 3, 4)), 2)
    with pytest.raises(ValueError, match="invalid norm order 'fro' for vectors"):
        L.norm(jnp.ones(3), "fro")
    with pytest.raises(ValueError, match="invalid norm order 3 for matrices"):
        L.norm(jnp.ones((3, 3)), 3)


# -- chains, tensors, aliases ---------------------------------------------------------------------
def test_multi_dot(rng, x64):
    arrs = [rng.standard_normal(s) for s in [(4,), (4, 6), (6, 3), (3, 5), (5,)]]
    np.testing.assert_allclose(L.multi_dot(arrs), np.linalg.multi_dot(arrs), **TOL)
    mats = [rng.standard_normal(s) for s in [(10, 2), (2, 10), (10, 3)]]
    np.testing.assert_allclose(L.multi_dot(mats), np.linalg.multi_dot(mats), **TOL)
    closed = tjit.make_jaxpr(lambda *m: L.multi_dot(m))(*mats)
    assert [e.primitive.name for e in closed.jaxpr.eqns if e.primitive.name != "transpose"] \
        == ["dot_general", "dot_general"]
    with pytest.raises(ValueError, match="multi_dot: array 1 has rank 3"):
        L.multi_dot([mats[0], np.ones((2, 2, 2)), mats[1]])


def test_tensorsolve_tensorinv(rng, x64):
    a = rng.standard_normal((6, 2, 3)) + 5 * np.eye(6).reshape(6, 2, 3)
    b = rng.standard_normal(6)
    np.testing.assert_allclose(L.tensorsolve(a, b), np.linalg.tensorsolve(a, b), **TOL)
    t = rng.standard_normal((4, 6, 8, 3)) + 5 * np.eye(24).reshape(4, 6, 8, 3)
    np.testing.assert_allclose(L.tensorinv(t, ind=2), np.linalg.tensorinv(t, ind=2), **TOL)


def test_numpy2_aliases(rng, x64):
    x = rng.standard_normal((2, 3, 3))
    v = rng.standard_normal(3)
    np.testing.assert_allclose(L.outer(v, v), np.linalg.outer(v, v), **TOL)
    np.testing.assert_allclose(L.matmul(x, x), np.linalg.matmul(x, x), **TOL)
    np.testing.assert_allclose(L.vecdot(x, v), np.linalg.vecdot(x, v), **TOL)
    np.testing.assert_allclose(L.tensordot(x, x[0], axes=2),
                               np.linalg.tensordot(x, x[0], axes=2), **TOL)
    np.testing.assert_allclose(L.matrix_transpose(x), np.linalg.matrix_transpose(x), **TOL)
    np.testing.assert_allclose(L.diagonal(x, offset=1), np.linalg.diagonal(x, offset=1), **TOL)
    np.testing.assert_allclose(L.trace(x), np.linalg.trace(x), **TOL)
    with pytest.raises(ValueError, match="linalg.outer: inputs must be 1-d"):
        L.outer(x, v)


# -- errors ----------------------------------------------------------------------------------
def test_linalg_errors():
    with pytest.raises(ShapeError, match=r"det: expected square matrices.*\(3, 4\)"):
        L.det(jnp.ones((3, 4)))
    with pytest.raises(ShapeError, match=r"inv: expected a matrix.*\(3,\)"):
        L.inv(jnp.ones(3))
    with pytest.raises(ShapeError, match=r"solve: b of shape \(4,\) does not match a of "
                                          r"shape \(3, 3\)"):
        L.solve(jnp.eye(3), jnp.ones(4))
    with pytest.raises(ShapeError, match=r"solve: batch dims of a \(2, 3, 3\) and b "
                                          r"\(4, 3, 1\) cannot be broadcast"):
        L.solve(jnp.ones((2, 3, 3)), jnp.ones((4, 3, 1)))
    with pytest.raises(ValueError, match="qr: unsupported mode 'economic'"):
        L.qr(jnp.ones((3, 3)), mode="economic")
    with pytest.raises(ValueError, match="eigh: UPLO must be 'L' or 'U'"):
        L.eigh(jnp.eye(3), UPLO="X")
    with pytest.raises(ShapeError, match=r"lstsq: need a \(m, n\)"):
        L.lstsq(jnp.ones((3, 2)), jnp.ones(4))
