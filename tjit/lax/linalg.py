"""``tjit.lax.linalg``: matrix factorizations and triangular solves as in
``jax.lax.linalg``. All functions are batched over leading dims and require a
floating-point or complex dtype (``tjit.numpy.linalg`` promotes integers first)."""

import enum

from tjit.tracing import dtypes
from tjit.primitives import linalg as la
from tjit.primitives.linalg import (  # noqa: F401  (the primitives, as in jax.lax.linalg)
    cholesky_p, eigh_p, lu_p, qr_p, svd_p, triangular_solve_p)
from tjit.lax._elementwise import add, asarray_for_lax, conj, mul
from tjit.lax._structural import transpose
from tjit.primitives.eig import eig_p  # noqa: F401  (the primitive, as in jax.lax.linalg)
from tjit.primitives.schur import schur_p  # noqa: F401  (as in jax.lax.linalg)
from tjit.lax._tridiagonal import tridiagonal_solve  # noqa: F401
from tjit.lax._linalg_updates import cholesky_update, symmetric_product  # noqa: F401
from tjit.lax._householder import (  # noqa: F401  (LAPACK's packed forms)
    geqrf, hessenberg, householder_product, ormqr, tridiagonal)
from tjit.primitives.householder import (  # noqa: F401  (the primitives, as in jax.lax.linalg)
    geqrf_p, hessenberg_p, householder_product_p, ormqr_p, tridiagonal_p)
from tjit.lax._qdwh import qdwh  # noqa: F401


def _swap_last(x):
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return transpose(x, perm)


def symmetrize(x, name="symmetrize"):
    """``(x + x^H) / 2``: the Hermitian part of a batch of square matrices."""
    x = asarray_for_lax(x)
    la.check_matrix(name, x, square=True)
    xh = _swap_last(x)
    if dtypes.is_complex(x.dtype):
        xh = conj(xh)
    return mul(add(x, xh), 0.5)


def cholesky(x, *, symmetrize_input=True):
    """Lower Cholesky factor ``L`` with ``x = L @ L^H``.

    Args:
      x: a batch of Hermitian positive-definite matrices (..., n, n).
      symmetrize_input: use ``(x + x^H) / 2``; otherwise only the lower triangle is read.

    Returns:
      The lower-triangular factors; NaNs for matrices that are not positive definite.
    """
    x = asarray_for_lax(x)
    if symmetrize_input:
        x = symmetrize(x, "cholesky")
    return cholesky_p.bind(x)


def qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    """QR decomposition ``x = q @ r``.

    Args:
      x: a batch of matrices (..., m, n).
      full_matrices: q is (..., m, m) and r (..., m, n) if True; else (..., m, k) and
        (..., k, n), ``k = min(m, n)``.

    Returns:
      ``(q, r)``.
    """
    if pivoting:
        raise NotImplementedError("lax.linalg.qr: pivoting=True is not supported by tjit; "
                                  "use scipy.linalg.qr(..., pivoting=True) on host values")
    q, r = qr_p.bind(asarray_for_lax(x), full_matrices=bool(full_matrices))
    return q, r


def svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    """Singular value decomposition ``x = u @ diag(s) @ vh``.

    Args:
      x: a batch of matrices (..., m, n).
      full_matrices: square u and vh if True, else reduced to ``k = min(m, n)``.
      compute_uv: also return the singular vectors.
      algorithm: a :class:`SvdAlgorithm` or None. DEFAULT, QR and DIVIDE_AND_CONQUER
        run the device library's SVD; JACOBI and POLAR raise NotImplementedError (as
        JAX's on the CPU).

    Returns:
      ``(u, s, vh)`` if ``compute_uv`` else ``s`` (descending, real).
    """
    if algorithm is not None and not isinstance(algorithm, SvdAlgorithm):
        raise TypeError(f"lax.linalg.svd: algorithm must be a lax.linalg.SvdAlgorithm or "
                        f"None, got {algorithm!r:.60}")
    if algorithm in (SvdAlgorithm.JACOBI, SvdAlgorithm.POLAR):
        raise NotImplementedError(f"lax.linalg.svd: algorithm={algorithm} is not supported "
                                  f"by tjit; use DEFAULT, QR or DIVIDE_AND_CONQUER")
    if subset_by_index is not None:
        raise NotImplementedError("lax.linalg.svd: subset_by_index is not supported; "
                                  "slice the result instead")
    outs = svd_p.bind(asarray_for_lax(x), full_matrices=bool(full_matrices),
                      compute_uv=bool(compute_uv))
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


class SvdAlgorithm(enum.Enum):
    """``jax.lax.linalg.SvdAlgorithm``, svd's ``algorithm``: for DEFAULT, QR and
    DIVIDE_AND_CONQUER tjit runs the device library's SVD (LAPACK's divide and conquer,
    through NumPy, on the CPU); JACOBI and POLAR are not supported."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


class EighImplementation(enum.Enum):
    """``jax.lax.linalg.EighImplementation``: tjit runs QR (LAPACK's algorithm)."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class EigImplementation(enum.Enum):
    """``jax.lax.linalg.EigImplementation``: tjit's eig runs LAPACK's (on the CPU)."""
    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


def eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True,
         subset_by_index=None, implementation=None):
    """Eigendecomposition of Hermitian matrices.

    Args:
      x: a batch of Hermitian matrices (..., n, n).
      lower: read the lower triangle (else the upper) when not symmetrizing.
      symmetrize_input: use ``(x + x^H) / 2``.
      implementation: None or ``EighImplementation.QR`` (JACOBI and QDWH, which JAX runs
        on GPU/TPU only, raise).

    Returns:
      ``(v, w)``: eigenvectors in the columns of v, eigenvalues w in ascending order.
    """
    if subset_by_index is not None:
        raise NotImplementedError("lax.linalg.eigh: subset_by_index is not supported; "
                                  "slice the result instead")
    if implementation not in (None, EighImplementation.QR):
        raise NotImplementedError(f"lax.linalg.eigh: implementation={implementation} is not "
                                  f"supported; tjit runs EighImplementation.QR (pass None)")
    x = asarray_for_lax(x)
    if symmetrize_input:
        x = symmetrize(x, "eigh")
    v, w = eigh_p.bind(x, lower=bool(lower))
    return v, w


def lu(x):
    """LU decomposition with partial pivoting.

    Args:
      x: a batch of matrices (..., m, n).

    Returns:
      ``(lu, pivots, permutation)``: L (unit diagonal, below) and U packed in ``lu``;
      int32 row swaps ``pivots`` (..., min(m, n)); int32 ``permutation`` (..., m)
      with ``x[..., permutation, :] == L @ U``.
    """
    lu_, pivots, perm = lu_p.bind(asarray_for_lax(x))
    return lu_, pivots, perm


def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
                     conjugate_a=False, unit_diagonal=False):
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for triangular ``a``.

    Args:
      a: a batch of triangular matrices (..., m, m); only the triangle given by
        ``lower`` is read (and not its diagonal when ``unit_diagonal``).
      b: (..., m, n) if ``left_side`` else (..., n, m), with a's batch dims.
      transpose_a, conjugate_a: ``op(a)`` is a, a^T, conj(a) or a^H.

    Returns:
      x, with b's shape.
    """
    a, b = asarray_for_lax(a), asarray_for_lax(b)
    return triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                   transpose_a=bool(transpose_a),
                                   conjugate_a=bool(conjugate_a),
                                   unit_diagonal=bool(unit_diagonal))


def lu_pivots_to_permutation(pivots, permutation_size):
    """The permutation (..., permutation_size) produced by the row swaps ``pivots``."""
    return la.lu_pivots_to_permutation_p.bind(asarray_for_lax(pivots),
                                              permutation_size=int(permutation_size))


def eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
        enable_eigvec_derivs=False, use_magma=None, implementation=None):
    """Eigendecomposition of general (non-Hermitian) square matrices, on the CPU.

    Args:
      x: a batch of square matrices (..., n, n), real or complex.
      compute_left_eigenvectors, compute_right_eigenvectors: which vectors to return.
      enable_eigvec_derivs: JAX's opt-in to eigenvector derivatives, which tjit does not
        have: True raises (eigenvalues differentiate either way).
      use_magma: accepted for JAX's signature (GPU only there; ignored).
      implementation: None or ``EigImplementation.LAPACK`` (JAX's only one on the CPU).

    Returns:
      ``[w, vl, vr]`` (the vectors only when requested): complex eigenvalues and
      unit-norm eigenvector columns, ``x @ vr = vr * w`` and ``vl^H x = w * vl^H``.
      Only ``w`` is differentiable (as JAX).
    """
    if enable_eigvec_derivs:
        raise NotImplementedError("lax.linalg.eig: enable_eigvec_derivs=True is not "
                                  "supported: tjit differentiates the eigenvalues only")
    if implementation not in (None, EigImplementation.LAPACK):
        raise ValueError(f"lax.linalg.eig: implementation={implementation}: only the lapack "
                         f"implementation is supported (tjit's eig runs on the CPU)")
    x = asarray_for_lax(x)
    return eig_p.bind(x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                      compute_right_eigenvectors=bool(compute_right_eigenvectors))


def schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    """Schur decomposition ``x = Q U Q^H`` of square matrices (..., m, m), on the CPU.

    Args:
      compute_schur_vectors: also return Q.
      sort_eig_vals, select_callable: unused (as in JAX).

    Returns:
      ``(U, Q)``, or ``U`` alone without ``compute_schur_vectors``; U is upper
      quasi-triangular for real x (2x2 blocks for complex pairs), triangular for complex.
    """
    u, q = schur_p.bind(asarray_for_lax(x))
    return (u, q) if compute_schur_vectors else u


__all__ = ["cholesky", "qr", "svd", "eig", "eigh", "schur", "lu", "triangular_solve", "symmetrize",
           "tridiagonal_solve", "symmetric_product", "cholesky_update",
           "lu_pivots_to_permutation", "householder_product", "ormqr", "hessenberg",
           "tridiagonal", "qdwh", "cholesky_p", "qr_p", "svd_p", "eigh_p", "lu_p",
           "triangular_solve_p", "EighImplementation", "EigImplementation", "SvdAlgorithm"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
