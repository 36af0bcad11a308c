"""Schur-based functions of ``jax.scipy.linalg``: schur, hessenberg, rsf2csf, funm, sqrtm
and solve_sylvester.

schur is the CPU library primitive of ``tjit/primitives/schur.py``; hessenberg unpacks
``lax.linalg.hessenberg``'s LAPACK form with ``householder_product``, as JAX's (CPU only and
not differentiable, as JAX's). rsf2csf applies SciPy's Givens rotations with a static loop
over the subdiagonal (each step selected with ``where``, so batches and jit need no
control flow). funm runs Parlett's recurrence (Golub and Van Loan, Algorithm 11.1.1) one
superdiagonal at a time: with F filled below superdiagonal p, ``(T F - F T)[i, i+p]`` is
exactly the recurrence's sum, so each diagonal is two matmuls; sqrtm's triangular root
(Björck and Hammarling) fills its superdiagonals the same way from ``U @ U``. solve_sylvester is
Bartels-Stewart on complex Schur forms with one triangular solve per column.
"""

import numpy as np

from tjit import numpy as jnp
from tjit.lax import linalg as lax_linalg
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact
from tjit.numpy.linalg import _adjoint
from tjit.primitives.schur import schur_p
from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import shape_str


def _square(fname, *arrays):
    check_arraylike(f"scipy.linalg.{fname}", *arrays)
    out = promote_dtypes_inexact(*arrays)
    for a in out:
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise ShapeError(f"scipy.linalg.{fname}: expected a square matrix or a batch of "
                             f"them (..., n, n), got shape {shape_str(a.shape)}")
    return out


def _complex_dtype(dt):
    return jnp.result_type(dt, jnp.complex64)


def schur(a, output="real"):
    """Schur decomposition ``a = Z T Z^H`` (CPU only, as in JAX).

    Args:
      a: (..., n, n).
      output: 'real' (T quasi-upper-triangular with 2x2 blocks for complex eigenvalue
        pairs of real a) or 'complex' (T upper triangular).

    Returns:
      ``(T, Z)``, both (..., n, n); Z unitary.
    """
    if output not in ("real", "complex"):
        raise ValueError(f"scipy.linalg.schur: output must be 'real' or 'complex', got "
                         f"{output!r}")
    (a,) = _square("schur", a)
    if output == "complex":
        a = a.astype(_complex_dtype(a.dtype))
    t, z = schur_p.bind(a)
    return t, z


def hessenberg(a, *, calc_q=False, overwrite_a=False, check_finite=True):
    """Hessenberg form ``a = Q H Q^H`` with H zero below the first subdiagonal (CPU only).

    Args:
      a: (..., n, n).
      calc_q: also return Q.

    Returns:
      ``H``, or ``(H, Q)`` when ``calc_q``.
    """
    (a,) = _square("hessenberg", a)
    n = a.shape[-1]
    if n == 0:
        return (a, a) if calc_q else a
    packed, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(packed, -1)
    if not calc_q:
        return h
    # Q = diag(1, product of the reflectors stored below the subdiagonal)
    q = lax_linalg.householder_product(packed[..., 1:, :-1], taus)
    q = jnp.pad(q, [(0, 0)] * (a.ndim - 2) + [(1, 0), (1, 0)])
    return h, q.at[..., 0, 0].set(1)


def rsf2csf(T, Z, check_finite=True):
    """Convert a real Schur form ``(T, Z)`` (from :func:`schur`) to the complex one.

    Args:
      T, Z: (..., n, n); batch dims broadcast.

    Returns:
      ``(T, Z)`` complex, T upper triangular and ``Z T Z^H`` unchanged.
    """
    T, Z = _square("rsf2csf", T, Z)
    if T.shape[-1] != Z.shape[-1]:
        raise ShapeError(f"scipy.linalg.rsf2csf: T of shape {shape_str(T.shape)} and Z of "
                         f"shape {shape_str(Z.shape)} must be (..., n, n) with the same n")
    cdt = _complex_dtype(jnp.result_type(T, Z))
    batch = jnp.broadcast_shapes(T.shape[:-2], Z.shape[:-2])
    n = T.shape[-1]
    T = jnp.broadcast_to(T.astype(cdt), batch + (n, n))
    Z = jnp.broadcast_to(Z.astype(cdt), batch + (n, n))
    eps = np.finfo(np.dtype(cdt)).eps
    for m in range(n - 1, 0, -1):  # SciPy's order: bottom subdiagonal entry first
        sub = T[..., m, m - 1]
        needed = jnp.abs(sub) > eps * (jnp.abs(T[..., m - 1, m - 1]) + jnp.abs(T[..., m, m]))
        mu = jnp.linalg.eigvals(T[..., m - 1:m + 1, m - 1:m + 1])[..., 0] - T[..., m, m]
        r = jnp.sqrt(jnp.abs(mu) ** 2 + jnp.abs(sub) ** 2).astype(cdt)
        r = jnp.where(needed, r, 1)  # the rotation is discarded where not needed
        c, s = mu / r, sub / r
        G = jnp.stack([jnp.stack([jnp.conj(c), s], -1), jnp.stack([-s, c], -1)], -2)
        Gh = _adjoint(G)
        T_new = T.at[..., m - 1:m + 1, m - 1:].set(jnp.matmul(G, T[..., m - 1:m + 1, m - 1:]))
        T_new = T_new.at[..., :m + 1, m - 1:m + 1].set(
            jnp.matmul(T_new[..., :m + 1, m - 1:m + 1], Gh))
        Z_new = Z.at[..., :, m - 1:m + 1].set(jnp.matmul(Z[..., :, m - 1:m + 1], Gh))
        keep = needed[..., None, None]
        T = jnp.where(keep, T_new, T).at[..., m, m - 1].set(0)
        Z = jnp.where(keep, Z_new, Z)
    return T, Z


def funm(A, func, disp=True):
    """Matrix function ``func(A)`` through the Schur form (Parlett's recurrence), as
    ``jax.scipy.linalg.funm``.

    Args:
      A: (..., n, n).
      func: elementwise function applied to A's eigenvalues (a 1-D complex array).
      disp: when False, also return an estimate of the relative error.

    Returns:
      the complex result (..., n, n), or ``(F, err)`` when ``disp`` is False.
    """
    (A,) = _square("funm", A)
    T, Z = rsf2csf(*schur(A))
    n = T.shape[-1]
    d = jnp.diagonal(T, axis1=-2, axis2=-1)
    fd = jnp.asarray(func(d)).astype(T.dtype)
    eye = jnp.eye(n, dtype=T.dtype)
    F = eye * fd[..., None, :]
    den = d[..., None, :] - d[..., :, None]  # den[i, j] = T[j, j] - T[i, i]
    safe_den = jnp.where(den != 0, den, 1)
    offsets = np.arange(n)[None, :] - np.arange(n)[:, None]
    for p in range(1, n):
        s = jnp.matmul(T, F) - jnp.matmul(F, T)
        F = F + jnp.where(jnp.asarray(offsets == p), s / safe_den, 0)
    F = jnp.matmul(jnp.matmul(Z, F), _adjoint(Z))
    if disp:
        return F
    tol = np.finfo(np.dtype(T.dtype)).eps
    upper = jnp.asarray(offsets > 0)
    if n > 1:
        minden = jnp.min(jnp.where(upper, jnp.abs(den), jnp.inf), axis=(-2, -1))
    else:  # SciPy's start value |T[0, 0]| (tol for an empty matrix)
        minden = jnp.abs(d[..., 0]) if n else jnp.full(T.shape[:-2], tol, d.real.dtype)
    minden = jnp.where(minden == 0, tol, minden)
    norm1 = jnp.max(jnp.sum(jnp.abs(jnp.triu(T, 1)), axis=-2), axis=-1, initial=0)
    err = jnp.minimum(1, jnp.maximum(tol, (tol / minden) * norm1))
    err = jnp.where(jnp.any(jnp.isinf(F), axis=(-2, -1)), jnp.inf, err)
    return F, err


def sqrtm(A, blocksize=1):
    """Principal matrix square root through the complex Schur form (Björck and
    Hammarling), as ``jax.scipy.linalg.sqrtm``: CPU only, not differentiable, and complex
    whatever the input (complex64 for float32). A matrix without a square root (a
    singular one with a nilpotent part) gives non-finite values.

    Args:
      A: (..., n, n).
      blocksize: accepted for SciPy's signature; unused.

    Returns:
      X (..., n, n) with ``X @ X == A``.
    """
    (A,) = _square("sqrtm", A)
    T, Z = schur(A, output="complex")
    n = T.shape[-1]
    d = jnp.sqrt(jnp.diagonal(T, axis1=-2, axis2=-1))
    U = jnp.eye(n, dtype=T.dtype) * d[..., None, :]
    den = d[..., :, None] + d[..., None, :]
    offsets = np.arange(n)[None, :] - np.arange(n)[:, None]
    for p in range(1, n):
        # with superdiagonals < p filled, (U @ U)[i, i+p] = sum_{i<k<i+p} U[i,k] U[k,i+p]
        rest = T - jnp.matmul(U, U)
        val = jnp.where(rest == 0, 0, rest / den)  # 0/0 where T's entry is already met
        U = U + jnp.where(jnp.asarray(offsets == p), val, 0)
    return jnp.matmul(jnp.matmul(Z, U), _adjoint(Z))


def solve_sylvester(A, B, C, *, method="schur", tol=1e-8):
    """Solve ``A X + X B = C``.

    Args:
      A: (..., m, m); B: (..., n, n); C: (..., m, n); batch dims broadcast.
      method: 'schur' (Bartels-Stewart, CPU only) or 'eigen' (eigendecompositions; needs
        diagonalizable A and B).
      tol: NaNs are returned where some ``|eig(A)_i + eig(B)_j| < tol`` (no unique X).

    Returns:
      X (..., m, n), real when C is real.
    """
    if method not in ("schur", "eigen"):
        raise ValueError(f"scipy.linalg.solve_sylvester: method must be 'schur' or 'eigen', "
                         f"got {method!r}")
    check_arraylike("scipy.linalg.solve_sylvester", A, B, C)
    A, B, C = promote_dtypes_inexact(A, B, C)
    if C.ndim < 2 or A.shape[-2:] != (C.shape[-2],) * 2 or B.shape[-2:] != (C.shape[-1],) * 2:
        raise ShapeError(f"scipy.linalg.solve_sylvester: A {shape_str(A.shape)}, B "
                         f"{shape_str(B.shape)} and C {shape_str(C.shape)} must be "
                         f"(..., m, m), (..., n, n) and (..., m, n)")
    batch = jnp.broadcast_shapes(A.shape[:-2], B.shape[:-2], C.shape[:-2])
    m, n = C.shape[-2:]
    A = jnp.broadcast_to(A, batch + (m, m))
    B = jnp.broadcast_to(B, batch + (n, n))
    cdt = _complex_dtype(C.dtype)
    Cc = jnp.broadcast_to(C, batch + (m, n)).astype(cdt)
    if method == "schur":
        R, U = schur(A, output="complex")
        S, V = schur(_adjoint(B), output="complex")
        Sl = _adjoint(S)  # B = V Sl V^H with Sl lower triangular
        F = jnp.matmul(jnp.matmul(_adjoint(U), Cc), V)
        Y = _triangular_sylvester(R, Sl, F)
        X = jnp.matmul(jnp.matmul(U, Y), _adjoint(V))
        ea, eb = jnp.diagonal(R, axis1=-2, axis2=-1), jnp.diagonal(Sl, axis1=-2, axis2=-1)
    else:
        ea, UA = jnp.linalg.eig(A)
        eb, UB = jnp.linalg.eig(B)
        F = jnp.linalg.solve(UA, jnp.matmul(Cc, UB))
        Y = F / (ea[..., :, None] + eb[..., None, :])
        X = jnp.matmul(jnp.matmul(UA, Y), jnp.linalg.inv(UB))
    if not dtypes.is_complex(C.dtype):
        X = jnp.real(X)
    singular = jnp.any(jnp.abs(ea[..., :, None] + eb[..., None, :]) < tol, axis=(-2, -1))
    return jnp.where(singular[..., None, None], jnp.nan, X)


def _triangular_sylvester(R, L, F):
    """Y with ``R Y + Y L = F`` for upper-triangular R and lower-triangular L: column j
    solves ``(R + L[j, j] I) y_j = f_j - sum_{k > j} y_k L[k, j]``, last column first."""
    m, n = F.shape[-2:]
    eye = jnp.eye(m, dtype=R.dtype)
    cols = [None] * n
    for j in range(n - 1, -1, -1):
        rhs = F[..., :, j]
        if j + 1 < n:
            later = jnp.stack(cols[j + 1:], axis=-1)  # (..., m, n - j - 1)
            rhs = rhs - jnp.matmul(later, L[..., j + 1:, j, None])[..., 0]
        shifted = R + L[..., j, j][..., None, None] * eye
        cols[j] = lax_linalg.triangular_solve(shifted, rhs[..., None], left_side=True,
                                              lower=False)[..., 0]
    if n == 0:
        return F
    return jnp.stack(cols, axis=-1)
