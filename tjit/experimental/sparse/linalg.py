"""``tjit.experimental.sparse.linalg``: ``spsolve`` (a CSR linear system) and
``lobpcg_standard`` (top-k eigenpairs of a symmetric operator), as
``jax.experimental.sparse.linalg``."""

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.experimental.sparse.bcsr import BCSR


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
    """Solve ``A x = b`` for the square CSR matrix ``A = (data, indices, indptr)``.

    Args:
      data, indices, indptr: the CSR arrays of an ``(n, n)`` matrix (``indptr`` of
        length ``n + 1``).
      b: the right-hand side, shape ``(n,)``.
      tol, reorder: accepted for JAX parity (they tune cuSOLVER's sparse QR there); the
        solve here is an LU factorization of the densified matrix, exact to rounding.

    Returns:
      ``x`` of ``b``'s shape and dtype (NaN where ``A`` is singular, as SciPy's).
      Differentiable in ``data`` and ``b``.
    """
    del tol, reorder
    data, indices, indptr, b = (jnp.asarray(a) for a in (data, indices, indptr, b))
    n = indptr.shape[0] - 1 if indptr.ndim == 1 else -1
    if (data.ndim != 1 or indices.shape != data.shape or n < 0 or b.shape != (n,)):
        raise ValueError(
            f"spsolve: expected CSR arrays data (nse,), indices (nse,), indptr (n + 1,) and "
            f"b (n,); got data {tuple(data.shape)}, indices {tuple(indices.shape)}, indptr "
            f"{tuple(indptr.shape)}, b {tuple(b.shape)}")
    dtype = jnp.result_type(data, b)
    if not jnp.issubdtype(dtype, jnp.inexact):
        dtype = jnp.float32 if not tjit.config.jax_enable_x64 else jnp.float64
    a = BCSR((data.astype(dtype), indices, indptr), shape=(n, n)).todense()
    return jnp.linalg.solve(a, b.astype(dtype)).astype(b.dtype if jnp.issubdtype(
        b.dtype, jnp.inexact) else dtype)


def lobpcg_standard(A, X, m=100, tol=None):
    """The ``k`` largest eigenvalues of the symmetric ``A`` and their eigenvectors, by
    LOBPCG (block Rayleigh-Ritz over the current vectors, their residuals and the previous
    search directions), as JAX's ``lobpcg_standard``.

    Args:
      A: an ``(n, n)`` symmetric array (dense or sparse), or a callable computing
        ``A @ V`` for an ``(n, k)`` block ``V``.
      X: ``(n, k)`` initial vectors (linearly independent; orthonormalized here),
        ``0 < 5 * k < n``.
      m: the most iterations.
      tol: convergence tolerance; an eigenpair ``(lam, v)`` has converged when
        ``|A v - lam v| < tol * 10 * n * (|lam| + |A v|)``. Default: ``X``'s epsilon.

    Returns:
      ``(theta, U, i)``: eigenvalues ``(k,)`` in descending order, eigenvectors
      ``(n, k)`` as columns, and the number of iterations run.
    """
    X = jnp.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"lobpcg_standard: X must be (n, k), got shape {tuple(X.shape)}")
    n, k = X.shape
    if not 0 < 5 * k < n:
        raise ValueError(f"lobpcg_standard: needs 0 < 5 * k < n, got X of shape {(n, k)}")
    if callable(A) and not hasattr(A, "shape"):
        matmul = A
    else:
        if tuple(A.shape) != (n, n):
            raise ValueError(f"lobpcg_standard: A of shape {tuple(A.shape)} must be "
                             f"(n, n) = {(n, n)} for X of shape {(n, k)}")
        if A.dtype != X.dtype:
            raise ValueError(f"lobpcg_standard: A ({A.dtype}) and X ({X.dtype}) must have "
                             "one dtype")
        matmul = lambda v: A @ v    # noqa: E731  (dense or sparse A)
    if not jnp.issubdtype(X.dtype, jnp.floating):
        raise ValueError(f"lobpcg_standard: X must be floating, got {X.dtype}")
    tol = float(np.finfo(X.dtype).eps) if tol is None else tol
    return _lobpcg(matmul, X, int(m), tol)


def _ritz(basis, a_basis, k):
    """Rayleigh-Ritz on the orthonormal ``basis``: the top ``k`` Ritz values
    (descending) and their coefficient vectors in the basis."""
    t = basis.T @ a_basis
    w, v = jnp.linalg.eigh((t + t.T) / 2)
    return w[::-1][:k], v[:, ::-1][:, :k]


def _lobpcg(matmul, X, m, tol):
    n, k = X.shape
    q = jnp.linalg.qr(X)[0]
    theta, c = _ritz(q, matmul(q), k)
    x = q @ c
    ax = matmul(x)
    p = jnp.zeros_like(x)

    def residual_done(x, ax, theta):
        r = ax - x * theta
        bound = tol * 10 * n * (jnp.abs(theta) + jnp.linalg.norm(ax, axis=0))
        return r, jnp.all(jnp.linalg.norm(r, axis=0) < bound)

    def cond(state):
        i, x, ax, theta, p = state
        return (i < m) & ~residual_done(x, ax, theta)[1]

    def body(state):
        i, x, ax, theta, p = state
        r, _ = residual_done(x, ax, theta)
        # Householder QR keeps the span of x in the first k columns and gives orthonormal
        # columns even when p is 0 (first step) or r is tiny (near convergence)
        q = jnp.linalg.qr(jnp.concatenate([x, r, p], axis=1))[0]
        aq = matmul(q)
        theta, c = _ritz(q, aq, k)
        x_new = q @ c
        p_new = q[:, k:] @ c[k:]          # the step's component outside span(x)
        return i + 1, x_new, aq @ c, theta, p_new

    i, x, ax, theta, p = lax.while_loop(cond, body, (jnp.int32(0), x, ax, theta, p))
    return theta, x, i


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "lobpcg_standard", "spsolve"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
