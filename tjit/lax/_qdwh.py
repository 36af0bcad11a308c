"""``jax.lax.linalg.qdwh``: the polar decomposition ``x = u h`` by the QR-based dynamically
weighted Halley iteration (Nakatsukasa, Bai and Gygi, SIAM J. Matrix Anal. Appl. 31(5),
2010), as JAX's: the same weights, QR steps while the weight ``c`` is large, Cholesky steps
after, Halley steps in a while_loop until the iterate stops moving, then one
Newton-Schulz step. Written on lax ops only, so it jits, batches (vmap) and
differentiates through the iteration."""

import numpy as np

from tjit import lax
from tjit.lax import linalg as lax_linalg
from tjit.lax._elementwise import asarray_for_lax
from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str

#: the weight c above which a step uses QR (stable for ill-conditioned iterates)
_CHOLESKY_CUTOFF = 100


def _conj(x):
    return lax.conj(x) if dtypes.is_complex(x.dtype) else x  # (lax.conj makes reals complex)


def _adjoint(x):
    return _conj(lax.transpose(x, (1, 0)))


def _eye(n, dtype):
    return lax.convert_element_type(
        lax.eq(lax.broadcasted_iota(np.int32, (n, n), 0),
               lax.broadcasted_iota(np.int32, (n, n), 1)), dtype)


def _mask(x, dims, alternative=None):
    """``x`` where the row/column index is below ``dims`` (None: no bound), else
    ``alternative`` (zeros when None): the padding outside a dynamic shape."""
    mask = None
    for axis, d in enumerate(dims):
        if d is not None:
            inside = lax.lt(lax.broadcasted_iota(np.int32, x.shape, axis),
                            lax.convert_element_type(d, np.int32))
            mask = inside if mask is None else lax.bitwise_and(mask, inside)
    if mask is None:
        return x
    other = lax.full_like(x, 0) if alternative is None else alternative
    return lax.select(mask, x, other)


def _norm_1_inf(x):
    """(max column sum, max row sum) of |x|."""
    ax = lax.abs(x)
    return (lax.reduce_max(lax.reduce_sum(ax, (0,)), (0,)),
            lax.reduce_max(lax.reduce_sum(ax, (1,)), (0,)))


def _frobenius(x):
    ax = lax.abs(x)
    return lax.sqrt(lax.reduce_sum(lax.mul(ax, ax), (0, 1)))


def _use_qr(u, m, n, params):
    """One QR-based step on u (static shape M x N, true shape m x n)."""
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    big_m, big_n = u.shape
    eye = _eye(big_n, u.dtype)
    if m is None:
        y = lax.concatenate([lax.mul(sqrt_c, u), eye], 0)
    else:  # the identity goes right below the true rows
        padded = lax.pad(lax.mul(sqrt_c, u), lax.full((), 0, u.dtype),
                         [(0, big_n, 0), (0, 0, 0)])
        y = lax.dynamic_update_slice_in_dim(padded, eye, m, 0)
    q, _ = lax_linalg.qr(y, full_matrices=False)
    q1 = _mask(lax.slice(q, (0, 0), (big_m, big_n)), (m, n))
    q2 = lax.dynamic_slice_in_dim(q, big_m if m is None else m, big_n, 0)
    q2 = _adjoint(_mask(q2, (n, n)))
    return lax.add(lax.mul(e, u), lax.mul(a_minus_e_by_sqrt_c, lax.dot(q1, q2)))


def _use_cholesky(u, m, n, params):
    """One Cholesky-based step: ``e u + (a - e) u (c u^H u + I)^-1``."""
    a_minus_e, c, e = params
    big_n = u.shape[1]
    eye = _eye(big_n, u.dtype)
    x = lax.add(lax.mul(c, lax.dot(_adjoint(u), u)), eye)
    x = _mask(x, (n, n), eye)  # identity in the padding keeps x positive definite
    y = lax_linalg.cholesky(x, symmetrize_input=False)
    z = _conj(lax_linalg.triangular_solve(y, lax.transpose(u, (1, 0)), left_side=True,
                                        lower=True, conjugate_a=True))
    z = _adjoint(lax_linalg.triangular_solve(y, z, left_side=True, lower=True,
                                             transpose_a=True, conjugate_a=True))
    return lax.add(lax.mul(e, u), lax.mul(a_minus_e, z))


def _weights(eps, max_iterations):
    """JAX's static schedule: the (a, b, c) weights of each step while the lower bound l
    of the smallest singular value is below 1; as ``(qr_params, cholesky_params)``."""
    l, tol_l, k = eps, 10.0 * eps / 2.0, 0
    qr_coefs, chol_coefs = [], []
    while l + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        e = b / c
        if c > _CHOLESKY_CUTOFF:
            qr_coefs.append(((a - e) / c ** 0.5, c ** 0.5, e))
        else:
            chol_coefs.append((a - e, c, e))
    return qr_coefs, chol_coefs


def _iterate(u, coefs, update, m, n, tol_norm):
    """The steps with the weights ``coefs``; returns u and whether the last step still
    moved u by more than ``tol_norm``."""
    table = asarray_for_lax(np.asarray(coefs, dtype=u.dtype))

    def body(i, state):
        u_prev, _ = state
        row = lax.dynamic_index_in_dim(table, i, keepdims=False)
        params = tuple(lax.index_in_dim(row, j, keepdims=False) for j in range(3))
        u = update(u_prev, m, n, params)
        return u, lax.gt(_frobenius(lax.sub(u, u_prev)), tol_norm)

    return lax.fori_loop(0, len(coefs), body, (u, asarray_for_lax(np.bool_(True))))


def _qdwh(x, m, n, max_iterations, eps):
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    one_norm, inf_norm = _norm_1_inf(x)
    alpha_inverse = lax.mul(lax.rsqrt(one_norm), lax.rsqrt(inf_norm))
    alpha_inverse = lax.select(lax.eq(one_norm, lax.full_like(one_norm, 0)),
                               lax.full_like(alpha_inverse, 1), alpha_inverse)
    u = lax.mul(x, lax.convert_element_type(alpha_inverse, x.dtype))
    tol_norm = float(np.cbrt(10.0 * eps / 2.0))
    qr_coefs, chol_coefs = _weights(eps, max_iterations)
    not_converged = asarray_for_lax(np.bool_(True))
    if qr_coefs:  # (JAX tests no convergence during the QR steps)
        u, _ = _iterate(u, qr_coefs, _use_qr, m, n, tol_norm)
    if chol_coefs:
        u, not_converged = _iterate(u, chol_coefs, _use_cholesky, m, n, tol_norm)

    # as l -> 1 the weights (a, b, c) tend to Halley's (3, 1, 3): (a - e, c, e), e = b / c
    halley = tuple(lax.full((), v, x.dtype) for v in (3.0 - 1.0 / 3.0, 3.0, 1.0 / 3.0))

    def cond_fun(state):
        k, _, not_converged = state
        return lax.bitwise_and(not_converged, lax.lt(k, max_iterations))

    def body_fun(state):
        k, u_prev, _ = state
        u = _use_cholesky(u_prev, m, n, halley)
        return k + 1, u, lax.gt(_frobenius(lax.sub(u, u_prev)), tol_norm)

    k0 = len(qr_coefs) + len(chol_coefs)
    num_iters, u, not_converged = lax.while_loop(cond_fun, body_fun, (k0, u, not_converged))

    # one Newton-Schulz step refines u's orthogonality
    u = lax.sub(lax.mul(lax.full((), 1.5, u.dtype), u),
                lax.mul(lax.full((), 0.5, u.dtype), lax.dot(u, lax.dot(_adjoint(u), u))))
    h = lax.dot(_adjoint(u), x)
    h = lax.mul(lax.add(h, _adjoint(h)), lax.full((), 0.5, h.dtype))
    return u, h, num_iters, lax.bitwise_not(not_converged)


def qdwh(x, *, is_hermitian=False, max_iterations=None, eps=None, dynamic_shape=None):
    """Polar decomposition ``x = u h`` by the QR-based dynamically weighted Halley
    iteration.

    Args:
      x: a full-rank matrix (M, N) with ``M >= N`` (vmap it for batches); it may be
        padded up to that size from a true shape ``dynamic_shape``.
      is_hermitian: accepted for JAX's signature (unused there too).
      max_iterations: stop after this many steps even if not converged (default 10).
      eps: the iteration stops when ``|u_k - u_{k-1}|_F < (5 eps)^(1/3)``; default the
        dtype's machine epsilon.
      dynamic_shape: the unpadded ``(m, n)``; entries outside it are ignored (zeros in
        the results).

    Returns:
      ``(u, h, num_iters, is_converged)``: u (M, N) with orthonormal columns, h (N, N)
      Hermitian positive semi-definite, the number of steps taken and whether the last
      one met the tolerance within ``max_iterations``.
    """
    x = asarray_for_lax(x)
    if not dtypes.is_inexact(x.dtype):
        raise TypeError(f"lax.linalg.qdwh: x must have a floating-point or complex dtype, "
                        f"got {x.dtype}; convert with x.astype(jnp.float32) first")
    if x.ndim != 2:
        raise ShapeError(f"lax.linalg.qdwh: x must be a matrix (M, N), got shape "
                         f"{shape_str(x.shape)}; use tjit.vmap(qdwh) for a batch")
    big_m, big_n = x.shape
    if big_m < big_n:
        raise ShapeError(f"lax.linalg.qdwh: the input matrix of shape M x N must have "
                         f"M >= N, got {shape_str(x.shape)}; use the conjugate transpose")
    bool(is_hermitian)
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    if dynamic_shape is not None:
        m, n = dynamic_shape
        x = _mask(x, (m, n))
    else:
        m = n = None
    return _qdwh(x, m, n, max_iterations, eps)
