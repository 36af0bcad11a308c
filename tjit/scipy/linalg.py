"""``tjit.scipy.linalg``: SciPy's linear-algebra functions as in ``jax.scipy.linalg``.

Everything is composed from the factorization primitives of ``tjit.lax.linalg``
(cholesky, lu, qr, svd, eigh, triangular_solve) and ``dot_general``, so these functions
trace under ``jit`` and get their gradients and batching from those primitives' rules.
``expm`` is JAX's Padé approximant with scaling and squaring; its derivative is the
Fréchet derivative ``expm_frechet`` (Al-Mohy and Higham's algorithm, linear in the
direction ``E``, so reverse mode transposes it). schur and hessenberg are CPU library
primitives (``tjit/primitives/schur.py``, ``householder.py``), as JAX's; rsf2csf, funm, sqrtm and
solve_sylvester build on them (``_linalg_schur.py``); polar,
qr_multiply and eigh_tridiagonal on svd/qr/eigh (``_linalg_factor_uses.py``); the special
matrices are in ``_linalg_matrices.py``. Not provided: the ``b`` argument of ``eigh``.
"""

import functools

import numpy as np

from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import broadcast_shapes, shape_str
from tjit.lax import linalg as lax_linalg
from tjit import numpy as jnp
from tjit.numpy import linalg as jnp_linalg
from tjit.numpy.linalg import _adjoint
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact
from tjit.scipy._expm import expm, expm_frechet
from tjit.scipy._linalg_factor_uses import eigh_tridiagonal, polar, qr_multiply
from tjit.scipy._linalg_matrices import (
    circulant, companion, convolution_matrix, dft, fiedler, fiedler_companion, hadamard,
    hankel, helmert, hilbert, invhilbert, invpascal, leslie, pascal)
from tjit.scipy._linalg_schur import (funm, hessenberg, rsf2csf, schur, solve_sylvester,
                                      sqrtm)


# -- helpers -------------------------------------------------------------------------------
def _inexact(fname, *args):
    check_arraylike(f"scipy.linalg.{fname}", *args)
    return promote_dtypes_inexact(*args)


def _check_square(fname, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"scipy.linalg.{fname}: expected a square matrix or a batch of "
                         f"them (..., n, n), got shape {shape_str(a.shape)}")


def _as_matrix_rhs(fname, a, b):
    """``b`` as (..., n, k): a vector rhs (1-d, or b.ndim == a.ndim - 1 ending in n: JAX's
    rule) gets a trailing unit axis, which the caller removes again; the batch dims of a
    and b broadcast (as JAX's vectorized solves: one a for a batch of b). Returns
    ``(a, b, was_vector)``."""
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape[-1] == a.shape[-1])
    b_shape = b.shape
    if vector:
        b = b[..., None]
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ShapeError(f"scipy.linalg.{fname}: b of shape {shape_str(b_shape)} does not "
                         f"match a of shape {shape_str(a.shape)}; b must be (..., n) or "
                         f"(..., n, k) with n = {a.shape[-1]}")
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ShapeError:
        raise ShapeError(f"scipy.linalg.{fname}: the batch dims of a {shape_str(a.shape)} "
                         f"and b {shape_str(b_shape)} do not broadcast") from None
    return (jnp.broadcast_to(a, batch + a.shape[-2:]), jnp.broadcast_to(b, batch + b.shape[-2:]),
            vector)


def _check_trans(fname, trans):
    table = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}
    if trans not in table:
        raise ValueError(f"scipy.linalg.{fname}: trans must be 0, 1, 2, 'N', 'T' or 'C', "
                         f"got {trans!r}")
    return table[trans]


# -- triangular and Cholesky solves --------------------------------------------------------
def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """Solve ``op(a) @ x = b`` for triangular ``a``.

    Args:
      a: (..., n, n); only the triangle named by ``lower`` is read.
      b: (..., n) or (..., n, k).
      trans: 0/'N' (a), 1/'T' (a^T) or 2/'C' (a^H).
      unit_diagonal: assume ones on a's diagonal (it is not read).

    Returns:
      x with b's shape.
    """
    a, b = _inexact("solve_triangular", a, b)
    _check_square("solve_triangular", a)
    t = _check_trans("solve_triangular", trans)
    a, b, vector = _as_matrix_rhs("solve_triangular", a, b)
    x = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=t > 0,
                                    conjugate_a=t == 2, unit_diagonal=unit_diagonal)
    return x[..., 0] if vector else x


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """Cholesky factor of Hermitian positive-definite ``a`` for :func:`cho_solve`.

    Args:
      a: (..., n, n); only its lower (``lower``) or upper triangle is read.

    Returns:
      ``(c, lower)``: the lower factor ``L`` (``a = L L^H``) if ``lower`` else the upper
      ``U`` (``a = U^H U``); the other triangle is zero. NaNs if ``a`` is not positive
      definite.
    """
    (a,) = _inexact("cho_factor", a)
    _check_square("cho_factor", a)
    # Only the triangle named by lower is read (SciPy, JAX): cholesky reads the lower one.
    low = lax_linalg.cholesky(a if lower else _adjoint(a), symmetrize_input=False)
    return (low if lower else _adjoint(low)), lower


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """Cholesky factor of Hermitian positive-definite ``a``: the upper ``U`` with
    ``a = U^H U`` (SciPy's default), or with ``lower`` the lower ``L`` with ``a = L L^H``;
    the other triangle is zero, NaNs if ``a`` is not positive definite (as JAX).

    Args:
      a: (..., n, n); only the triangle the factor comes from is read (SciPy, JAX).
      lower: return the lower factor.
    """
    return cho_factor(a, lower=lower)[0]


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve ``a @ x = b`` given ``(c, lower) = cho_factor(a)``; b (..., n) or (..., n, k)."""
    c, lower = c_and_lower
    c, b = _inexact("cho_solve", c, b)
    _check_square("cho_solve", c)
    c, b, vector = _as_matrix_rhs("cho_solve", c, b)
    # a = L L^H: solve L y = b, then L^H x = y (with U = L^H when lower is False).
    y = lax_linalg.triangular_solve(c, b, left_side=True, lower=lower,
                                    transpose_a=not lower, conjugate_a=not lower)
    x = lax_linalg.triangular_solve(c, y, left_side=True, lower=lower,
                                    transpose_a=lower, conjugate_a=lower)
    return x[..., 0] if vector else x


# -- LU ------------------------------------------------------------------------------------
def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """LU decomposition with partial pivoting, ``a = p @ l @ u``.

    Args:
      a: (..., m, n).
      permute_l: return ``(p @ l, u)`` instead of ``(p, l, u)``.

    Returns:
      ``(p, l, u)``: permutation matrix p (..., m, m; real dtype), unit lower-trapezoidal l
      (..., m, k) and upper-trapezoidal u (..., k, n), ``k = min(m, n)``.
    """
    (a,) = _inexact("lu", a)
    if a.ndim < 2:
        raise ShapeError(f"scipy.linalg.lu: expected a matrix (..., m, n), got shape "
                         f"{shape_str(a.shape)}")
    m, n = a.shape[-2:]
    k = min(m, n)
    packed, _, perm = lax_linalg.lu(a)
    l_ = jnp.tril(packed[..., :, :k], -1) + jnp.eye(m, k, dtype=a.dtype)
    u = jnp.triu(packed[..., :k, :])
    # a[perm] = l u, so a = P^T l u with P = eye[perm]: p[perm[i], i] = 1. p is real
    # for complex a (SciPy, JAX).
    p = jnp.swapaxes(jnp.eye(m, dtype=jnp.real(a).dtype)[perm], -1, -2)
    if permute_l:
        return jnp.matmul(p, l_), u
    return p, l_, u


def lu_factor(a, overwrite_a=False, check_finite=True):
    """Packed LU factorization for :func:`lu_solve` of ``a`` (..., m, n) (rectangular
    too, as SciPy and JAX; lu_solve needs square ones).

    Returns:
      ``(lu, piv)``: L (unit diagonal, below) and U packed in ``lu``; int32 row swaps
      ``piv`` (row i was swapped with row piv[i]), as LAPACK's getrf (0-based).
    """
    (a,) = _inexact("lu_factor", a)
    if a.ndim < 2:
        raise ShapeError(f"scipy.linalg.lu_factor: expected a matrix (..., m, n), got shape "
                         f"{shape_str(a.shape)}")
    packed, pivots, _ = lax_linalg.lu(a)
    return packed, pivots


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solve ``op(a) @ x = b`` given ``(lu, piv) = lu_factor(a)``.

    Args:
      b: (..., n) or (..., n, k).
      trans: 0/'N' (a), 1/'T' (a^T) or 2/'C' (a^H).
    """
    packed, piv = lu_and_piv
    packed, b = _inexact("lu_solve", packed, b)
    _check_square("lu_solve", packed)
    t = _check_trans("lu_solve", trans)
    n = packed.shape[-1]
    if piv.shape[-1:] != (n,):
        raise ShapeError(f"scipy.linalg.lu_solve: piv of shape {shape_str(piv.shape)} does "
                         f"not match lu of shape {shape_str(packed.shape)}; pass the pair "
                         f"returned by lu_factor")
    perm = lax_linalg.lu_pivots_to_permutation(piv, n)
    packed, b, vector = _as_matrix_rhs("lu_solve", packed, b)
    perm = jnp.broadcast_to(perm, b.shape[:-2] + (n,))
    tri = functools.partial(lax_linalg.triangular_solve, packed, left_side=True)
    if t == 0:  # a[perm] = L U:  x = U^-1 L^-1 b[perm]
        pb = jnp.take_along_axis(b, perm[..., None], axis=-2)
        x = tri(tri(pb, lower=True, unit_diagonal=True), lower=False)
    else:  # a^T = U^T L^T P with (P x) = x[perm]:  x[perm] = L^-T U^-T b
        c = t == 2
        z = tri(tri(b, lower=False, transpose_a=True, conjugate_a=c), lower=True,
                transpose_a=True, conjugate_a=c, unit_diagonal=True)
        x = jnp.take_along_axis(z, jnp.argsort(perm, axis=-1)[..., None], axis=-2)
    return x[..., 0] if vector else x


# -- other factorizations ------------------------------------------------------------------
def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """QR decomposition ``a = q @ r``.

    Args:
      a: (..., m, n).
      mode: 'full' (q (..., m, m)), 'economic' (q (..., m, k), r (..., k, n)) or 'r'.
      pivoting: only False is supported (as ``jax.lax.linalg.qr`` in tjit).

    Returns:
      ``(q, r)``, or ``(r,)`` for mode 'r' (as SciPy).
    """
    (a,) = _inexact("qr", a)
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"scipy.linalg.qr: mode must be 'full', 'economic' or 'r', got "
                         f"{mode!r} ('raw' is not supported)")
    if pivoting:
        raise NotImplementedError("scipy.linalg.qr: pivoting=True is not supported by tjit; "
                                  "use scipy.linalg.qr on host values")
    if a.ndim < 2:
        raise ShapeError(f"scipy.linalg.qr: expected a matrix (..., m, n), got shape "
                         f"{shape_str(a.shape)}")
    q, r = lax_linalg.qr(a, full_matrices=mode != "economic")
    return (r,) if mode == "r" else (q, r)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    """Singular value decomposition: ``(u, s, vh)``, or ``s`` when not ``compute_uv``."""
    (a,) = _inexact("svd", a)
    if a.ndim < 2:
        raise ShapeError(f"scipy.linalg.svd: expected a matrix (..., m, n), got shape "
                         f"{shape_str(a.shape)}")
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):
    """Eigenvalues (ascending) and eigenvectors of Hermitian ``a``.

    Args:
      a: (..., n, n); only the triangle named by ``lower`` is read.
      b: the generalized problem is not supported (must be None), as in JAX.
      eigvals_only: return only the eigenvalues.

    Returns:
      ``(w, v)`` with eigenvectors in v's columns, or ``w`` when ``eigvals_only``.
    """
    if b is not None:
        raise NotImplementedError("scipy.linalg.eigh: the generalized problem (b) is not "
                                  "supported; reduce it with cholesky and solve_triangular")
    if eigvals is not None:
        raise NotImplementedError("scipy.linalg.eigh: eigvals (a subset) is not supported; "
                                  "slice the result instead")
    (a,) = _inexact("eigh", a)
    _check_square("eigh", a)
    v, w = lax_linalg.eigh(a, lower=lower, symmetrize_input=False)
    return w if eigvals_only else (w, v)


def inv(a, overwrite_a=False, check_finite=True):
    """Inverse of square matrices (..., n, n)."""
    (a,) = _inexact("inv", a)
    _check_square("inv", a)
    return jnp_linalg.inv(a)


def det(a, overwrite_a=False, check_finite=True):
    """Determinant of square matrices (..., n, n)."""
    (a,) = _inexact("det", a)
    _check_square("det", a)
    return jnp_linalg.det(a)


def _from_triangle(a, lower, hermitian):
    """The symmetric (or Hermitian, with a real diagonal as LAPACK reads it) matrix that
    the lower (else upper) triangle of ``a`` describes."""
    strict = jnp.tril(a, -1) if lower else jnp.triu(a, 1)
    mirror = _adjoint(strict) if hermitian else jnp.swapaxes(strict, -1, -2)
    diag = jnp.diagonal(a, axis1=-2, axis2=-1)
    if hermitian and jnp.iscomplexobj(a):
        diag = jnp.real(diag).astype(a.dtype)
    eye = jnp.eye(a.shape[-1], dtype=bool)
    return strict + mirror + jnp.where(eye, diag[..., None, :], jnp.zeros_like(a))


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    """Solve ``a @ x = b``.

    Args:
      a: (..., n, n).
      b: (..., n) or (..., n, k).
      lower: for 'sym', 'her' and 'pos', read only the lower (else the upper) triangle
        of a, as SciPy and JAX's documentation (JAX 0.10 reads all of a for 'sym' and
        'her'; the results agree for symmetric input).
      assume_a: 'gen', 'sym' or 'her' (an LU solve of the matrix the triangle describes)
        or 'pos' (Cholesky).
    """
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"scipy.linalg.solve: assume_a must be 'gen', 'sym', 'her' or "
                         f"'pos', got {assume_a!r}")
    a, b = _inexact("solve", a, b)
    _check_square("solve", a)
    if assume_a == "pos":
        # Cholesky reads the lower triangle: mirror the upper one when lower is False.
        low = a if lower else _adjoint(a)
        c = lax_linalg.cholesky(low, symmetrize_input=False)
        return cho_solve((c, True), b)
    if assume_a in ("sym", "her"):
        a = _from_triangle(a, lower, hermitian=assume_a == "her")
    _, b2, vector = _as_matrix_rhs("solve", a, b)
    x = jnp_linalg.solve(a, b2)
    return x[..., 0] if vector else x


# -- constructors --------------------------------------------------------------------------
def block_diag(*arrs):
    """Block-diagonal matrix of the given arrays (scalars and vectors count as 1 x n)."""
    if not arrs:
        return jnp.zeros((1, 0))
    check_arraylike("scipy.linalg.block_diag", *arrs)
    arrs = [jnp.asarray(x) for x in arrs]
    dtype = jnp.result_type(*arrs)
    mats = []
    for i, x in enumerate(arrs):
        if x.ndim > 2:
            raise ValueError(f"scipy.linalg.block_diag: argument {i} has shape "
                             f"{shape_str(x.shape)}; arguments must have at most 2 dims")
        mats.append(jnp.atleast_2d(x).astype(dtype))
    cols = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        w = m.shape[1]
        rows.append(jnp.pad(m, ((0, 0), (left, cols - left - w))))
        left += w
    return jnp.concatenate(rows, axis=0)


def toeplitz(c, r=None):
    """Toeplitz matrix with first column ``c`` and first row ``r`` (default ``conj(c)``;
    ``r[0]`` is ignored). Leading dims of c and r are batch dims, as in JAX."""
    check_arraylike("scipy.linalg.toeplitz", c)
    c = jnp.asarray(c)
    if r is None:
        r = jnp.conj(c)
    else:
        check_arraylike("scipy.linalg.toeplitz", r)
        r = jnp.asarray(r)
    c, r = jnp.atleast_1d(c), jnp.atleast_1d(r)
    dtype = jnp.result_type(c, r)
    c, r = c.astype(dtype), r.astype(dtype)
    batch = jnp.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    c = jnp.broadcast_to(c, batch + c.shape[-1:])
    r = jnp.broadcast_to(r, batch + r.shape[-1:])
    nr, nc = c.shape[-1], r.shape[-1]
    # out[i, j] = vals[i - j + nc - 1] with vals = (r[nc-1], ..., r[1], c[0], ..., c[nr-1]).
    vals = jnp.concatenate([jnp.flip(r[..., 1:], -1), c], axis=-1)
    idx = np.arange(nr)[:, None] - np.arange(nc)[None, :] + nc - 1
    return jnp.take(vals, jnp.asarray(idx.ravel()), axis=-1).reshape(batch + (nr, nc))


__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion",
           "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm",
           "expm_frechet", "fiedler", "fiedler_companion", "funm", "hadamard", "hankel",
           "helmert", "hessenberg", "hilbert", "inv", "invhilbert", "invpascal", "leslie",
           "lu", "lu_factor", "lu_solve", "pascal", "polar", "qr", "qr_multiply", "rsf2csf",
           "schur", "solve", "solve_sylvester", "solve_triangular", "sqrtm", "svd",
           "toeplitz"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
from tjit._docs import add_module_examples as _add_examples
_add_examples(globals())  # checked against SciPy's (python -m tjit._docs)
