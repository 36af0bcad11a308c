"""``jax.scipy.linalg`` functions built on the existing factorizations: polar (from the
SVD), qr_multiply (from QR) and eigh_tridiagonal (eigh of the assembled tridiagonal
matrix). They trace under jit, batch over leading dims and differentiate through the
svd/qr/eigh primitives' rules.
"""

import numpy as np

from tjit import numpy as jnp
from tjit.lax import linalg as lax_linalg
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact
from tjit.numpy.linalg import _adjoint
from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str


def polar(a, side="right", *, method="qdwh", eps=None, max_iterations=None):
    """Polar decomposition ``a = u p`` (side 'right') or ``a = p u`` (side 'left').

    Args:
      a: (..., m, n).
      side: 'right' (p is (..., n, n)) or 'left' (p is (..., m, m)).
      method: 'qdwh' or 'svd'. Both are computed from the SVD here (the factors are
        unique for nonsingular a, so the results agree with JAX's QDWH iteration to
        rounding); ``eps`` and ``max_iterations`` only steer QDWH and are unused.

    Returns:
      ``(u, p)``: u (..., m, n) with orthonormal columns (rows when n > m) and p
      Hermitian positive semidefinite.
    """
    if side not in ("right", "left"):
        raise ValueError(f"scipy.linalg.polar: side must be 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"scipy.linalg.polar: method must be 'qdwh' or 'svd', got "
                         f"{method!r}")
    check_arraylike("scipy.linalg.polar", a)
    (a,) = promote_dtypes_inexact(a)
    if a.ndim < 2:
        raise ShapeError(f"scipy.linalg.polar: expected a matrix (..., m, n), got shape "
                         f"{shape_str(a.shape)}")
    u_svd, s, vh = lax_linalg.svd(a, full_matrices=False)
    s = s.astype(a.dtype)
    unitary = jnp.matmul(u_svd, vh)
    if side == "right":
        posdef = jnp.matmul(_adjoint(vh) * s[..., None, :], vh)
    else:
        posdef = jnp.matmul(u_svd * s[..., None, :], _adjoint(u_svd))
    return unitary, posdef


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False,
                overwrite_c=False):
    """QR decomposition of ``a`` and a product with its Q.

    Args:
      a: (..., m, n); k = min(m, n).
      c: mode 'left': (..., k, p) or (k,); mode 'right': (..., p, m) or (m,).
      mode: 'left' computes ``Q @ c`` (..., m, p); 'right' ``c @ Q`` (..., p, k).
      conjugate: use ``conj(Q)``.
      pivoting: only False is supported (as :func:`qr` in tjit).

    Returns:
      ``(product, r)`` with r (..., k, n); a 1-D c gives a 1-D product.
    """
    if mode not in ("right", "left"):
        raise ValueError(f"scipy.linalg.qr_multiply: mode must be 'right' or 'left', got "
                         f"{mode!r}")
    if pivoting:
        raise NotImplementedError("scipy.linalg.qr_multiply: pivoting=True is not supported "
                                  "by tjit; use scipy.linalg.qr_multiply on host values")
    check_arraylike("scipy.linalg.qr_multiply", a, c)
    a, c = promote_dtypes_inexact(a, c)
    if a.ndim < 2:
        raise ShapeError(f"scipy.linalg.qr_multiply: a must be (..., m, n), got shape "
                         f"{shape_str(a.shape)}")
    m, n = a.shape[-2:]
    k = min(m, n)
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if mode == "left" else c[None, :]
    want = k if mode == "left" else m
    got = c.shape[-2] if mode == "left" else c.shape[-1]
    if c.ndim < 2 or got != want:
        what = "Q @ c needs c of shape (..., k, p)" if mode == "left" else \
            "c @ Q needs c of shape (..., p, m)"
        raise ShapeError(f"scipy.linalg.qr_multiply: {what}; a has shape "
                         f"{shape_str(a.shape)} (m = {m}, k = {k}), c has shape "
                         f"{shape_str(c.shape)}")
    q, r = lax_linalg.qr(a, full_matrices=False)
    if conjugate:
        q = jnp.conj(q)
    out = jnp.matmul(q, c) if mode == "left" else jnp.matmul(c, q)
    if vector:
        out = out.reshape(out.shape[:-2] + (-1,))
    return out, r


def eigh_tridiagonal(d, e, *, eigvals_only=False, select="a", select_range=None, tol=None,
                     key=None):
    """Eigenvalues (ascending) and eigenvectors of the real symmetric tridiagonal matrix
    with diagonal d (..., n) and off-diagonal e (..., n - 1).

    Args:
      eigvals_only: return only the eigenvalues.
      select: 'a' (all) or 'i' (indices ``select_range[0] <= i <= select_range[1]``);
        'v' (a value range, whose count is data-dependent) is not supported, as in JAX.
      tol, key: steer JAX's bisection and inverse iteration; unused (the eigenvalues come
        from eigh of the assembled matrix).

    Returns:
      w, or ``(w, v)`` with eigenvectors in v's columns (..., n, k).
    """
    if select not in ("a", "i", "v"):
        raise ValueError(f"scipy.linalg.eigh_tridiagonal: select must be 'a', 'i' or 'v', "
                         f"got {select!r}")
    if select == "v":
        raise NotImplementedError("scipy.linalg.eigh_tridiagonal: select='v' is not "
                                  "supported (as in JAX); compute all eigenvalues and mask")
    check_arraylike("scipy.linalg.eigh_tridiagonal", d, e)
    d, e = promote_dtypes_inexact(d, e)
    if d.ndim < 1 or e.shape[-1:] != (max(d.shape[-1] - 1, 0),):
        raise ShapeError(f"scipy.linalg.eigh_tridiagonal: d {shape_str(d.shape)} and e "
                         f"{shape_str(e.shape)} must be (..., n) and (..., n - 1)")
    if dtypes.is_complex(d.dtype):
        raise TypeError(f"scipy.linalg.eigh_tridiagonal: d and e must be real, got "
                        f"{d.dtype}")
    n = d.shape[-1]
    lo, hi = 0, n - 1
    if select == "i":
        lo, hi = (int(x) for x in select_range)
        if not 0 <= lo <= hi < n:
            raise ValueError(f"scipy.linalg.eigh_tridiagonal: select_range {select_range} "
                             f"must satisfy 0 <= lo <= hi < n = {n}")
    batch = jnp.broadcast_shapes(d.shape[:-1], e.shape[:-1])
    d = jnp.broadcast_to(d, batch + (n,))
    e = jnp.broadcast_to(e, batch + (max(n - 1, 0),))
    i = np.arange(n)
    eye = jnp.asarray(i[:, None] == i[None, :]).astype(d.dtype)
    sub = jnp.asarray(i[:, None] == i[None, :] + 1).astype(d.dtype)
    # lower triangle: d on the diagonal, e below it (eigh reads only that triangle)
    e_rows = jnp.concatenate([jnp.zeros(batch + (1,), d.dtype), e], -1) if n else e
    mat = d[..., :, None] * eye + e_rows[..., :, None] * sub
    v, w = lax_linalg.eigh(mat, lower=True, symmetrize_input=False)
    w, v = w[..., lo:hi + 1], v[..., :, lo:hi + 1]
    return w if eigvals_only else (w, v)
