"""Restarted GMRES (as JAX's): each restart builds an orthonormal Krylov basis by
Arnoldi with iterated classical Gram-Schmidt, then takes the least-squares step either
all at once ('batched': a small dense solve after the Arnoldi loop) or incrementally
('incremental': Givens rotations keep a QR factorization current, which also gives the
residual norm at each step and so an early exit).

Vectors are pytrees; a basis ``V`` is the pytree whose leaves carry one more trailing
axis of ``restart + 1`` columns."""

import operator

from tjit import dtypes, lax
from tjit import numpy as jnp
from tjit.scipy import linalg as jsp_linalg
from tjit.scipy.sparse._tree_vectors import add, dot, einsum, safe_normalize, sub
from tjit.tree_util import tree_leaves, tree_map, tree_reduce


def _project_on_columns(Q, v):
    """Q^H v: the overlaps of v with each column of the basis Q."""
    return tree_reduce(operator.add,
                       tree_map(lambda X, y: einsum("...n,...->n", X.conj(), y), Q, v))


def _iterative_classical_gram_schmidt(Q, x, xnorm, max_iterations=2):
    """Orthogonalize x against Q's columns, repeating while the result lost more than
    1/sqrt(2) of its norm ("twice is enough"): (q, r) with x = Q r + q, q orthogonal to
    Q (not normalized)."""
    Q0 = tree_leaves(Q)[0]
    r = jnp.zeros(Q0.shape[-1], dtype=Q0.dtype)
    xnorm_scaled = xnorm / jnp.sqrt(2.0)

    def body_function(carry):
        k, q, r, qnorm_scaled = carry
        h = _project_on_columns(Q, q)
        q = sub(q, tree_map(lambda X: dot(X, h), Q))
        r = add(r, h)

        def qnorm_cond(carry):
            k, not_done, _, _ = carry
            return jnp.logical_and(not_done, k < (max_iterations - 1))

        def qnorm(carry):
            k, _, q, _ = carry
            _, qn = safe_normalize(q)
            return (k, False, q, qn / jnp.sqrt(2.0))

        _, _, q, qnorm_scaled = lax.while_loop(qnorm_cond, qnorm,
                                               (k, True, q, qnorm_scaled))
        return (k + 1, q, r, qnorm_scaled)

    def cond_function(carry):
        k, _, r, qnorm_scaled = carry
        _, rnorm = safe_normalize(r)
        return jnp.logical_and(k < (max_iterations - 1), rnorm < qnorm_scaled)

    carry = body_function((0, x, r, xnorm_scaled))
    _, q, r, _ = lax.while_loop(cond_function, body_function, carry)
    return q, r


def _kth_arnoldi_iteration(k, A, M, V, H):
    """Column k+1 of V := M(A(V[:, k])) orthonormalized against V[:, :k+1]; row k of H :=
    its overlaps. A new vector below eps * its norm before orthogonalization means an
    invariant subspace was found (breakdown): it is stored as zeros."""
    dtype = dtypes.result_type(*tree_leaves(V))
    eps = dtypes.finfo(dtype).eps
    v = M(A(tree_map(lambda X: X[..., k], V)))
    _, v_norm_0 = safe_normalize(v)
    v, h = _iterative_classical_gram_schmidt(V, v, v_norm_0, max_iterations=2)
    unit_v, v_norm_1 = safe_normalize(v, thresh=eps * v_norm_0)
    V = tree_map(lambda X, y: X.at[..., k + 1].set(y), V, unit_v)
    h = h.at[k + 1].set(v_norm_1.astype(dtype))
    H = H.at[k, :].set(h)
    return V, H, v_norm_1 == 0.0


def _rotate_vectors(H, i, cs, sn):
    x1, y1 = H[i], H[i + 1]
    H = H.at[i].set(cs.conj() * x1 - sn.conj() * y1)
    return H.at[i + 1].set(sn * x1 + cs * y1)


def _givens_rotation(a, b):
    """(cs, sn) of the rotation that zeroes b against a."""
    b_zero = abs(b) == 0
    a_lt_b = abs(a) < abs(b)
    t = -jnp.where(a_lt_b, a, b) / jnp.where(a_lt_b, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    cs = jnp.where(b_zero, 1, jnp.where(a_lt_b, r * t, r))
    sn = jnp.where(b_zero, 0, jnp.where(a_lt_b, r, r * t))
    return cs, sn


def _apply_givens_rotations(H_row, givens, k):
    """Apply the stored rotations givens[:k] to H_row, then make and apply the rotation
    that zeroes its element k+1."""
    R_row = lax.fori_loop(0, k, lambda i, row: _rotate_vectors(row, i, *givens[i, :]), H_row)
    factors = _givens_rotation(R_row[k], R_row[k + 1])
    givens = givens.at[k, :].set(factors)
    return _rotate_vectors(R_row, k, *factors), givens


def _basis(unit_residual, restart):
    """The Krylov basis, its first column the unit residual, the others zero."""
    return tree_map(lambda x: jnp.pad(x[..., None], ((0, 0),) * x.ndim + ((0, restart),)),
                    unit_residual)


def _finish_restart(A, M, b, x0, V, y):
    x = add(x0, tree_map(lambda X: dot(X[..., :-1], y), V))
    unit_residual, residual_norm = safe_normalize(M(sub(b, A(x))))
    return x, unit_residual, residual_norm


def gmres_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart, the QR factorization of the Hessenberg matrix updated by Givens
    rotations at each Arnoldi step; stops early once the residual estimate is <= ptol."""
    V = _basis(unit_residual, restart)
    dtype = dtypes.result_type(*tree_leaves(b))
    # eye(), not zeros: an early exit must leave R nonsingular for the triangular solve
    R = jnp.eye(restart, restart + 1, dtype=dtype)
    givens = jnp.zeros((restart, 2), dtype=dtype)
    beta_vec = jnp.zeros((restart + 1), dtype=dtype).at[0].set(residual_norm.astype(dtype))

    def loop_cond(carry):
        k, err, _, _, _, _ = carry
        return jnp.logical_and(k < restart, err > ptol)

    def arnoldi_qr_step(carry):
        k, _, V, R, beta_vec, givens = carry
        V, H, _ = _kth_arnoldi_iteration(k, A, M, V, R)
        R_row, givens = _apply_givens_rotations(H[k, :], givens, k)
        R = R.at[k, :].set(R_row)
        beta_vec = _rotate_vectors(beta_vec, k, *givens[k, :])
        return k + 1, abs(beta_vec[k + 1]), V, R, beta_vec, givens

    carry = lax.while_loop(loop_cond, arnoldi_qr_step,
                           (0, residual_norm, V, R, beta_vec, givens))
    _, _, V, R, beta_vec, _ = carry
    y = jsp_linalg.solve_triangular(R[:, :-1].T, beta_vec[:-1])
    return _finish_restart(A, M, b, x0, V, y)


def _lstsq(a, b):
    # the normal equations: cheaper than a QR least-squares for restart-sized systems
    a_h = a.T.conj()
    return jsp_linalg.solve(dot(a_h, a), dot(a_h, b), assume_a="pos")


def gmres_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One restart: the full Arnoldi process (until ``restart`` steps or a breakdown),
    then one dense least-squares solve; ``ptol`` is unused (no early exit)."""
    del ptol
    V = _basis(unit_residual, restart)
    dtype, weak = dtypes.result_type(*tree_leaves(b), return_weak_type_flag=True)
    H = lax.convert_element_type(jnp.eye(restart, restart + 1, dtype=dtype), dtype,
                                 weak_type=weak)

    def loop_cond(carry):
        _, _, breakdown, k = carry
        return jnp.logical_and(k < restart, jnp.logical_not(breakdown))

    def arnoldi_process(carry):
        V, H, _, k = carry
        V, H, breakdown = _kth_arnoldi_iteration(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = lax.while_loop(loop_cond, arnoldi_process, (V, H, False, 0))
    beta_vec = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    y = _lstsq(H.T, beta_vec)
    return _finish_restart(A, M, b, x0, V, y)


def gmres_solve(A, b, x0, atol, ptol, restart, maxiter, M, gmres_func):
    """Restart ``gmres_func`` from the last solution until ||M(b - A x)|| <= atol or
    ``maxiter`` restarts."""
    unit_residual, residual_norm = safe_normalize(M(sub(b, A(x0))))

    def cond_fun(value):
        _, k, _, residual_norm = value
        return jnp.logical_and(k < maxiter, residual_norm > atol)

    def body_fun(value):
        x, k, unit_residual, residual_norm = value
        x, unit_residual, residual_norm = gmres_func(
            A, b, x, unit_residual, residual_norm, ptol, restart, M)
        return x, k + 1, unit_residual, residual_norm

    x_final, *_ = lax.while_loop(cond_fun, body_fun, (x0, 0, unit_residual, residual_norm))
    return x_final
