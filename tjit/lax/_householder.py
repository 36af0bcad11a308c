"""``jax.lax.linalg``'s LAPACK-form functions: geqrf, householder_product, ormqr,
hessenberg and tridiagonal, on the CPU library primitives of
``tjit/primitives/householder.py``."""

from tjit.lax._elementwise import asarray_for_lax
from tjit.primitives.householder import (
    geqrf_p,
    hessenberg_p,
    householder_product_p,
    ormqr_p,
    tridiagonal_p,
)


def geqrf(a):
    """QR decomposition in LAPACK's packed form (geqrf).

    Args:
      a: a batch of floating-point or complex matrices (..., m, n).

    Returns:
      ``(a, taus)``: R in the upper triangle of ``a``, Q as elementary Householder
      reflectors below its diagonal and their scalar factors ``taus`` (..., min(m, n)).
    """
    a_out, taus = geqrf_p.bind(asarray_for_lax(a))
    return a_out, taus


def householder_product(a, taus):
    """Product of elementary Householder reflectors (LAPACK's orgqr/ungqr).

    Args:
      a: (..., m, n) with ``m >= n``, whose part below the diagonal holds the reflectors.
      taus: (..., k) with ``k <= n``, their scalar factors.

    Returns:
      The orthogonal (unitary) columns (..., m, n) of the product of the reflectors.
    """
    return householder_product_p.bind(asarray_for_lax(a), asarray_for_lax(taus))


def ormqr(a, taus, c, *, left=True, transpose=False):
    """Multiply ``c`` by Q of a packed QR factorization without forming Q (ormqr/unmqr).

    Args:
      a: the Householder reflectors (..., m, n), as geqrf returns them (or the transposed
        first result of ``jnp.linalg.qr(x, mode="raw")``).
      taus: their scalar factors (..., k).
      c: (..., m, p) if ``left`` else (..., p, m).
      left: compute ``Q @ c`` (else ``c @ Q``).
      transpose: use Q^T (Q^H for complex types) instead of Q.

    Returns:
      The product, with c's shape.
    """
    a, taus, c = (asarray_for_lax(v) for v in (a, taus, c))
    return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))


def hessenberg(a):
    """Reduce square matrices to upper Hessenberg form (LAPACK's gehrd), on the CPU.

    Args:
      a: a batch of floating-point or complex square matrices (..., n, n), ``n >= 1``.

    Returns:
      ``(a, taus)``: the Hessenberg matrix in the upper triangle and first subdiagonal of
      ``a``, the Householder reflectors below it, their scalar factors ``taus`` (..., n-1).
    """
    a_out, taus = hessenberg_p.bind(asarray_for_lax(a))
    return a_out, taus


def tridiagonal(a, *, lower=True):
    """Reduce Hermitian matrices to real tridiagonal form (LAPACK's sytrd/hetrd).

    Args:
      a: a batch of Hermitian matrices (..., n, n), ``n >= 1``; only the ``lower`` (or
        upper) triangle is read.
      lower: which triangle to read.

    Returns:
      ``(a, d, e, taus)``: the diagonal ``d`` (..., n) and off-diagonal ``e`` (..., n-1),
      both real, also stored in ``a`` with the Householder reflectors beyond the
      off-diagonal of the chosen triangle; their scalar factors ``taus`` (..., n-1).
    """
    a_out, d, e, taus = tridiagonal_p.bind(asarray_for_lax(a), lower=bool(lower))
    return a_out, d, e, taus
