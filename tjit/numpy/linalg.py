"""``tjit.numpy.linalg``: NumPy's linear algebra namespace on tjit arrays.

Everything is built on the primitives of ``tjit.lax.linalg`` (lu, triangular_solve,
cholesky, qr, svd, eigh) and ``dot_general``, never on ``numpy.linalg`` directly, so
that these functions trace under ``jit`` and get gradients from the primitives' rules.
``det``, ``slogdet``, ``solve`` and ``inv`` go through one LU factorization. Integer
inputs are promoted to the default float type, as in JAX.
"""

import collections

import numpy as np
import opt_einsum

from tjit.tracing import dtypes
from tjit.tracing.core import Tracer
from tjit.tracing.errors import (
    OperandShapeError, ShapeError, static_index, traced_static_error)
from tjit.tracing.shapes import (
    broadcast_shapes, definitely_equal, is_concrete_shape, normalize_axes, normalize_axis,
    shape_str, size)
from tjit.primitives.linalg import real_dtype
from tjit.primitives.reductions import (
    reduce_max_p, reduce_min_p, reduce_or_p, reduce_prod_p, reduce_sum_p)
from tjit import lax
from tjit.lax import linalg as lax_linalg
from tjit.numpy._core import broadcast_to_shape, check_arraylike, promote_dtypes_inexact
from tjit.transforms.custom_derivatives import custom_jvp
from tjit.numpy import _matmul
from tjit.numpy._index_routines import take_along_axis
from tjit import numpy as jnp  # attributes looked up at call time (package still loading)

EigResult = collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])
SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])


# -- helpers -------------------------------------------------------------------------------
def _inexact(fname, *args):
    check_arraylike(fname, *args)
    return promote_dtypes_inexact(*args)


def _check_matrix(fname, a, square=True):
    if a.ndim < 2:
        raise OperandShapeError(f"{fname}: expected a matrix or a batch of matrices (rank >= 2), "
                                f"got shape {shape_str(a.shape)}")
    if square and not definitely_equal(a.shape[-1], a.shape[-2]):
        raise OperandShapeError(f"{fname}: expected square matrices (last two dims equal), got "
                                f"shape {shape_str(a.shape)}")


def _reduce(prim, x, axes, keepdims=False):
    """A reduction typed as jnp's (strong: JAX's linalg reduces with jnp.sum/amax, which
    drop the weak type that lax's reductions keep)."""
    axes = tuple(sorted(a % x.ndim for a in axes))
    if not axes:
        return x
    out = prim.bind(x, axes=axes)
    if getattr(out, "weak_type", False):
        out = lax.convert_element_type(out, out.dtype, weak_type=False)
    return lax.expand_dims(out, axes) if keepdims else out


def _sum(x, axes, keepdims=False):
    return _reduce(reduce_sum_p, x, axes, keepdims)


def _swap(x):
    return lax.transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _conj(x):
    return lax.conj(x) if dtypes.is_complex(x.dtype) else x


def _adjoint(x):
    return _conj(_swap(x))


def _eye(n, dtype):
    eq = lax.eq(lax.broadcasted_iota(dtypes.int32, (n, n), 0),
                lax.broadcasted_iota(dtypes.int32, (n, n), 1))
    return lax.convert_element_type(eq, dtype)


def _eye_like(a):
    """Identity matrices with the batch shape and dtype of ``a`` (..., n, n)."""
    eye = _eye(a.shape[-1], a.dtype)
    return lax.broadcast_in_dim(eye, tuple(a.shape), (a.ndim - 2, a.ndim - 1))


def _diag(a):
    """Main diagonals (..., n) of square matrices (..., n, n)."""
    rows = lax.broadcasted_iota(dtypes.int32, a.shape, a.ndim - 2)
    cols = lax.broadcasted_iota(dtypes.int32, a.shape, a.ndim - 1)
    return _sum(lax.select(lax.eq(rows, cols), a, lax.full_like(a, 0)), (a.ndim - 1,))


def _eps(dtype):
    return float(dtypes.finfo(real_dtype(dtype)).eps)


def _concrete_max_dim(fname, m, n):
    if type(m) is not int or type(n) is not int:
        raise ShapeError(f"{fname}: the default tolerance needs concrete matrix dims, got "
                         f"({m}, {n}); pass rtol/rcond explicitly")
    return max(m, n)


# -- factorizations ------------------------------------------------------------------------
def cholesky(a, *, upper=False, symmetrize_input=True):
    """Cholesky factor of Hermitian positive-definite matrices.

    Args:
      a: (..., n, n).
      upper: return the upper factor ``U`` (``a = U^H U``) instead of the lower one.

    Returns:
      The factors; NaNs where a matrix is not positive definite.
    """
    (a,) = _inexact("cholesky", a)
    _check_matrix("cholesky", a)
    low = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    return _adjoint(low) if upper else low


def qr(a, mode="reduced"):
    """QR decomposition.

    Args:
      a: (..., m, n).
      mode: ``'reduced'`` (q (..., m, k), r (..., k, n)), ``'complete'`` (square q),
        ``'r'`` (only r) or ``'raw'`` (LAPACK's packed form, CPU only).

    Returns:
      ``QRResult(Q, R)``, or ``R`` for ``mode='r'``; for ``'raw'`` ``(h, tau)`` as NumPy's:
      ``h`` (..., n, m) is geqrf's result transposed, ``tau`` (..., k).
    """
    (a,) = _inexact("qr", a)
    _check_matrix("qr", a, square=False)
    if mode == "raw":
        h, taus = lax_linalg.geqrf(a)
        return QRResult(_swap(h), taus)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: unsupported mode {mode!r}; use 'reduced', 'complete', 'r' "
                         f"or 'raw'")
    q, r = lax_linalg.qr(a, full_matrices=(mode == "complete"))
    return r if mode == "r" else QRResult(q, r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """Singular value decomposition ``a = U @ diag(S) @ Vh`` (``hermitian`` is accepted
    and ignored).

    Returns:
      ``SVDResult(U, S, Vh)`` if ``compute_uv`` else ``S`` (descending).
    """
    (a,) = _inexact("svd", a)
    _check_matrix("svd", a, square=False)
    out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                         subset_by_index=subset_by_index)
    return SVDResult(*out) if compute_uv else out


def svdvals(x, /):
    """Singular values (descending) of ``x`` (..., m, n)."""
    return svd(x, compute_uv=False)


def eigh(a, UPLO=None, symmetrize_input=True):  # noqa: N803  (NumPy's name)
    """Eigenvalues (ascending) and eigenvectors (columns) of Hermitian matrices.

    Args:
      a: (..., n, n).
      UPLO: ``'L'`` (default) or ``'U'``: the triangle read when not symmetrizing.

    Returns:
      ``EighResult(eigenvalues, eigenvectors)``.
    """
    (a,) = _inexact("eigh", a)
    _check_matrix("eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    v, w = lax_linalg.eigh(a, lower=(UPLO != "U"), symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):  # noqa: N803
    """Eigenvalues (ascending) of Hermitian matrices (``symmetrize_input`` as
    :func:`eigh`)."""
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


def eig(a):
    """Eigenvalues and right eigenvectors of general (non-Hermitian) square matrices
    (``numpy.linalg.eig``), CPU only as in JAX.

    Args:
      a: (..., n, n), real or complex.

    Returns:
      ``EigResult(eigenvalues, eigenvectors)`` (a tuple ``(w, v)``): always complex
      (NumPy returns real dtypes when every eigenvalue is real; JAX and tjit do not),
      with ``a @ v[..., :, i] = w[..., i] * v[..., :, i]`` and unit-norm columns. Only
      the eigenvalues are differentiable (use :func:`eigvals`), as in JAX.

    Example: ``jnp.linalg.eig(jnp.array([[0., 1.], [-1., 0.]]))[0]`` -> ``[0+1j, 0-1j]``.
    """
    (a,) = _inexact("eig", a)
    _check_matrix("eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a):
    """Eigenvalues of general square matrices (complex; differentiable for distinct
    eigenvalues, as JAX). See :func:`eig`."""
    (a,) = _inexact("eigvals", a)
    _check_matrix("eigvals", a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False,
                          compute_right_eigenvectors=False)[0]


# -- LU-based: det, slogdet, solve, inv -------------------------------------------------------
def _lu_parity_sign(pivots, dtype):
    """(-1) ** (number of row swaps), as ``dtype``."""
    swapped = lax.ne(pivots, lax.broadcasted_iota(dtypes.int32, pivots.shape, pivots.ndim - 1))
    odd = lax.rem(_sum(lax.convert_element_type(swapped, dtypes.int32), (-1,)), 2)
    return lax.convert_element_type(lax.sub(1, lax.mul(odd, 2)), dtype)


@custom_jvp
def _det(a):
    lu, pivots, _ = lax_linalg.lu(a)
    return lax.mul(_reduce(reduce_prod_p, _diag(lu), (-1,)), _lu_parity_sign(pivots, a.dtype))


def _cofactor_solve(a, b):
    """``(det(a), adj(a) @ b)`` for square ``a`` and ``b`` (..., n, n), finite for
    singular ``a`` too (JAX's _cofactor_solve), where ``det(a) * solve(a, b)`` is NaN.

    With ``a[perm] = L U``: ``adj(a) b = det(a) U^-1 L^-1 b[perm]``. Where only
    ``u_nn`` is 0 (rank n-1), replacing it by ``1 / (sign * prod(u_ii, i < n))`` and
    scaling every row but the last of ``L^-1 b[perm]`` by det(a) gives the same result
    without a division by zero. Where that still divides by 0 (rank < n-1, or a zero
    pivot before the last row, as in diag(1, 0, 2), where JAX returns 0), the adjugate
    comes from the SVD instead (:func:`_adjugate_svd`)."""
    if a.shape[-1] == 0:
        return lax.full(a.shape[:-2], 1, a.dtype), b
    lu, pivots, perm = lax_linalg.lu(a)
    # Masks of the last row / column (rev of an iota is 0 there; no index arithmetic, so
    # symbolic n works, and n == 1 needs no special case).
    last = lax.eq(lax.rev(lax.broadcasted_iota(dtypes.int32, a.shape, a.ndim - 1),
                          (a.ndim - 1,)), 0)
    last_row = lax.eq(lax.rev(lax.broadcasted_iota(dtypes.int32, b.shape, b.ndim - 2),
                              (b.ndim - 2,)), 0)
    diag = _diag(lu)
    sign = _lu_parity_sign(pivots, a.dtype)
    det_ = lax.mul(_reduce(reduce_prod_p, diag, (-1,)), sign)
    last_d = last[..., 0, :]
    head = lax.mul(_reduce(reduce_prod_p, lax.select(last_d, lax.full_like(diag, 1), diag),
                           (-1,)), sign)  # sign * prod(u_ii, i < n)
    corner = lax.div(lax.full_like(head, 1), head)
    corner_mask = lax.bitwise_and(last, lax.transpose(last, tuple(range(a.ndim - 2)) +
                                                      (a.ndim - 1, a.ndim - 2)))
    lu = lax.select(corner_mask, broadcast_to_shape(corner[..., None, None], lu.shape), lu)
    probe = lax_linalg.triangular_solve(lu, jnp.ones(a.shape[:-1] + (1,), a.dtype),
                                        left_side=True, lower=False)
    low_rank = jnp.any(~jnp.isfinite(probe), axis=(-2, -1))[..., None, None]
    x = jnp.where(low_rank, jnp.zeros_like(b), b)
    x = take_along_axis(x, lax.expand_dims(perm, (perm.ndim,)), axis=-2,
                        mode="promise_in_bounds")
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    x = jnp.where(last_row, x, x * det_[..., None, None])
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    # The SVD only where some matrix needs it (an SVD costs several LUs).
    adj = lax.cond(jnp.any(low_rank), _adjugate_svd, lambda a, b: jnp.zeros_like(b), a, b)
    return det_, jnp.where(low_rank, adj, x)


def _adjugate_svd(a, b):
    """``adj(a) @ b`` from ``a = U S Vh``: ``adj(a) = det(U) det(Vh) Vh^H diag(c) U^H``
    with ``c_i = prod(s_j, j != i)`` (products, no division: right for every rank).

    Linear in ``b`` only: ``a`` is not differentiated (second derivatives of det at
    singular matrices are not supported: LU's derivative is NaN there)."""
    a = lax.stop_gradient(a)
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    # (a product over a masked matrix: cumprod's derivative would divide by s_j = 0)
    k = s.shape[-1]
    eye = lax.eq(lax.broadcasted_iota(dtypes.int32, (k, k), 0),
                 lax.broadcasted_iota(dtypes.int32, (k, k), 1))
    others = jnp.where(eye, jnp.ones_like(s[..., None, :]), s[..., None, :])
    c = jnp.prod(others, axis=-1).astype(a.dtype) * (_det(u) * _det(vh))[..., None]
    return _matmul.matmul(_adjoint(vh) * c[..., None, :], _matmul.matmul(_adjoint(u), b))


@_det.defjvp
def _det_jvp(primals, tangents):
    """``d det = trace(adj(a) da)``, through the adjugate so that it is finite (and
    right) at singular matrices, as JAX's."""
    y, z = _cofactor_solve(primals[0], tangents[0])
    return y, _sum(_diag(z), (-1,))


def det(a):
    """Determinant of square matrices (..., n, n), from an LU factorization; its
    derivative is ``trace(adj(a) da)``, finite at singular matrices."""
    (a,) = _inexact("det", a)
    _check_matrix("det", a)
    d = _det(a)
    if a.weak_type and a.shape[-1] in (2, 3):  # JAX's closed forms for 2x2 and 3x3 keep
        d = lax.convert_element_type(d, d.dtype, weak_type=True)  # the weak type
    return d


def slogdet(a, *, method=None):
    """Sign (a unit complex number for complex input) and log of the absolute value of
    the determinant.

    Returns:
      ``SlogdetResult(sign, logabsdet)``; sign 0 and logabsdet -inf for singular input.
    """
    (a,) = _inexact("slogdet", a)
    _check_matrix("slogdet", a)
    if method not in (None, "lu"):
        raise ValueError(f"slogdet: unsupported method {method!r}; only 'lu'")
    lu, pivots, _ = lax_linalg.lu(a)
    d = _diag(lu)
    mag = lax.abs(d)
    logabsdet = _sum(lax.log(mag), (-1,))
    if dtypes.is_complex(a.dtype):
        zero = lax.eq(mag, 0)
        unit = lax.div(d, lax.complex(lax.select(zero, lax.full_like(mag, 1), mag),
                                      lax.full_like(mag, 0)))
        unit = lax.select(zero, lax.full_like(d, 0), unit)
    else:
        unit = lax.sign(d)
    sign = lax.mul(_reduce(reduce_prod_p, unit, (-1,)), _lu_parity_sign(pivots, a.dtype))
    return SlogdetResult(sign, logabsdet)


def _lu_solve(lu, perm, b):
    """Solve ``a x = b`` given ``a[perm] = L U``; lu (..., n, n), b (..., n, k)."""
    # Row permutation b[perm] as a gather (exact, unlike a one-hot product, when b holds
    # infs or NaNs): a gather of whole rows along one axis, which compiles to a fused
    # kernel (a take_along_axis gather, with batch dims, is a host library call: in a
    # loop of 48 x 48 solves it cost more than the two triangular solves). A batch of
    # matrices gathers rows of the batch flattened, at perm + n * (batch index).
    n, k = b.shape[-2], b.shape[-1]
    batch = tuple(b.shape[:-2])
    if not batch:
        pb = jnp.take(b, perm, axis=0, mode="promise_in_bounds")
    elif all(type(d) is int for d in batch + (n,)) and np.prod(batch) * n < 2 ** 31:
        count = int(np.prod(batch))
        offsets = lax.broadcasted_iota(perm.dtype, (count, 1), 0) * n
        rows = perm.reshape((count, n)) + offsets
        pb = jnp.take(b.reshape((count * n, k)), rows, axis=0, mode="promise_in_bounds")
        pb = pb.reshape(batch + (n, k))
    else:   # (symbolic batch sizes)
        idx = lax.expand_dims(perm, (perm.ndim,))
        pb = take_along_axis(b, idx, axis=-2, mode="promise_in_bounds")
    y = lax_linalg.triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)


def solve(a, b):
    """Solve ``a @ x = b``.

    Args:
      a: (..., n, n).
      b: a vector (n,) or matrices (..., n, k) (NumPy 2 rules: only a 1-d ``b`` is a
        vector); batch dims broadcast.

    Returns:
      x with the broadcast batch shape.
    """
    a, b = _inexact("solve", a, b)
    _check_matrix("solve", a)
    n = a.shape[-1]
    vector = b.ndim == 1
    if b.ndim < 1 or not definitely_equal(b.shape[0 if vector else -2], n):
        raise ShapeError(f"solve: b of shape {shape_str(b.shape)} does not match a of "
                         f"shape {shape_str(a.shape)}; b must be (n,) or (..., n, k) with "
                         f"n = {n}")
    if vector:
        b = lax.expand_dims(b, (1,))
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2], op="solve")
    except ShapeError:
        raise ShapeError(f"solve: batch dims of a {shape_str(a.shape)} and b "
                         f"{shape_str(b.shape)} cannot be broadcast together") from None
    a = broadcast_to_shape(a, batch + tuple(a.shape[-2:]))
    b = broadcast_to_shape(b, batch + tuple(b.shape[-2:]))
    lu, _, perm = lax_linalg.lu(a)
    x = _lu_solve(lu, perm, b)
    return lax.squeeze(x, (x.ndim - 1,)) if vector else x


def inv(a):
    """Inverse of square matrices (..., n, n) (inf/NaN for singular ones)."""
    (a,) = _inexact("inv", a)
    _check_matrix("inv", a)
    lu, _, perm = lax_linalg.lu(a)
    return _lu_solve(lu, perm, _eye_like(a))


def matrix_power(a, n):
    """``a`` multiplied by itself ``n`` times (an int; negative powers invert first)."""
    n = static_index(n, "exponent", "matrix_power")
    check_arraylike("matrix_power", a)
    a = jnp.asarray(a)
    _check_matrix("matrix_power", a)
    if n == 0:
        return _eye_like(a)
    if n < 0:
        a, n = inv(a), -n
    result, base = None, a
    while n:  # binary exponentiation: O(log n) products
        if n & 1:
            result = base if result is None else _matmul.matmul(result, base)
        n >>= 1
        if n:
            base = _matmul.matmul(base, base)
    return result


# -- SVD-based: pinv, matrix_rank, lstsq, cond --------------------------------------------------
def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    """Moore-Penrose pseudo-inverse (..., n, m) of ``a`` (..., m, n).

    Args:
      rtol (or its old name rcond): singular values below ``rtol * max(s)`` count as 0;
        default ``max(m, n) * eps``.
    """
    (a,) = _inexact("pinv", a)
    _check_matrix("pinv", a, square=False)
    if rtol is None:
        rtol = rcond
    m, n = a.shape[-2:]
    if rtol is None:
        rtol = _concrete_max_dim("pinv", m, n) * _eps(a.dtype)
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    rtol = jnp.asarray(rtol, dtype=s.dtype)
    smax = _reduce(reduce_max_p, s, (-1,), keepdims=True)
    cutoff = jnp.multiply(jnp.expand_dims(rtol, -1), smax)
    keep = jnp.greater(s, cutoff)
    s_inv = lax.select(keep, lax.div(1, lax.select(keep, s, lax.full_like(s, 1))),
                       lax.full_like(s, 0))
    scaled = jnp.multiply(_adjoint(vh), lax.convert_element_type(
        lax.expand_dims(s_inv, (s_inv.ndim - 1,)), a.dtype))
    return _matmul.matmul(scaled, _adjoint(u))


def matrix_rank(M, rtol=None, *, hermitian=False, tol=None):  # noqa: N803
    """Number of singular values above the tolerance: ``tol`` (absolute) if given,
    else ``rtol * max(s)`` with default ``rtol = max(m, n) * eps``. With ``hermitian``
    the singular values are the eigenvalues' magnitudes (NumPy's cheaper path)."""
    (M,) = _inexact("matrix_rank", M)
    if M.ndim < 2:  # 1 unless all zero, as an int32 (JAX's dtype)
        nz = lax.ne(M, lax.full_like(M, 0))
        return lax.convert_element_type(_reduce(reduce_or_p, nz, tuple(range(M.ndim))),
                                        dtypes.int32)
    _check_matrix("matrix_rank", M, square=hermitian)
    s = jnp.abs(eigvalsh(M)) if hermitian else svd(M, compute_uv=False)
    if tol is not None:
        thresh = jnp.expand_dims(jnp.asarray(tol, dtype=s.dtype), -1)
    else:
        m, n = M.shape[-2:]
        if rtol is None:
            rtol = _concrete_max_dim("matrix_rank", m, n) * _eps(M.dtype)
        rtol = jnp.asarray(rtol, dtype=s.dtype)
        thresh = jnp.multiply(jnp.expand_dims(rtol, -1),
                              _reduce(reduce_max_p, s, (-1,), keepdims=True))
    above = lax.convert_element_type(jnp.greater(s, thresh), dtypes.default_int())
    return _sum(above, (-1,))


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """Least-squares solution of ``a @ x = b`` through the SVD.

    Args:
      a: (m, n).
      b: (m,) or (m, k).
      rcond: singular values below ``rcond * max(s)`` count as 0; default
        ``max(m, n) * eps``.
      numpy_resid: residuals exactly as NumPy (empty unless rank == n < m; needs a
        concrete rank, so not under jit).

    Returns:
      ``(x, residuals, rank, s)``.
    """
    a, b = _inexact("lstsq", a, b)
    if a.ndim != 2 or b.ndim not in (1, 2) or not definitely_equal(a.shape[0], b.shape[0]):
        raise ShapeError(f"lstsq: need a (m, n) and b (m,) or (m, k), got shapes "
                         f"{shape_str(a.shape)} and {shape_str(b.shape)}")
    vector = b.ndim == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    m, n = a.shape
    if rcond is None:
        rcond = _concrete_max_dim("lstsq", m, n) * _eps(a.dtype)
    else:  # a negative rcond means machine precision (NumPy, JAX)
        rcond = jnp.where(jnp.less(rcond, 0), _eps(a.dtype), rcond)
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    smax = _reduce(reduce_max_p, s, (0,), keepdims=True) if s.shape[0] != 0 else s
    # Zero singular values never count (a zero matrix has smax == 0: 0 >= rcond * 0).
    keep = jnp.logical_and(
        jnp.greater(s, 0),
        jnp.greater_equal(s, jnp.multiply(jnp.asarray(rcond, dtype=s.dtype), smax)))
    rank = _sum(lax.convert_element_type(keep, dtypes.default_int()), (0,))
    s_inv = lax.select(keep, lax.div(1, lax.select(keep, s, lax.full_like(s, 1))),
                       lax.full_like(s, 0))
    utb = _matmul.matmul(_adjoint(u), b)
    x = _matmul.matmul(_adjoint(vh), jnp.multiply(
        lax.convert_element_type(lax.expand_dims(s_inv, (1,)), a.dtype), utb))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = jnp.zeros((0,), dtype=s.dtype)
    else:
        r = lax.abs(lax.sub(b, _matmul.matmul(a, x)))
        resid = _sum(lax.mul(r, r), (0,))
    if vector:
        x = lax.squeeze(x, (1,))
    return x, resid, rank, s


def cond(x, p=None):
    """Condition number: ``s_max / s_min`` for ``p`` None, 2 (``-2``: the inverse);
    else ``norm(x, p) * norm(inv(x), p)``."""
    (x,) = _inexact("cond", x)
    _check_matrix("cond", x, square=False)
    if any(definitely_equal(d, 0) for d in x.shape[-2:]):
        raise ValueError(f"cond: the condition number of an empty matrix is not defined "
                         f"(shape {shape_str(x.shape)}), as in NumPy and JAX")
    if p in (None, 2, -2):
        s = svd(x, compute_uv=False)
        # (JAX divides the first and last singular values: the weak type is kept)
        hi = lax.index_in_dim(s, 0, s.ndim - 1, False)
        lo = lax.index_in_dim(s, s.shape[-1] - 1, s.ndim - 1, False)
        r = lax.div(hi, lo) if p != -2 else lax.div(lo, hi)
    else:
        _check_matrix("cond", x)
        r = lax.mul(norm(x, p, axis=(-2, -1)), norm(inv(x), p, axis=(-2, -1)))
    # A singular matrix's inverse holds infs and NaNs (and a zero matrix's singular
    # values give 0 / 0); its condition number is inf (NumPy, for every p; JAX skips
    # this for p=None and 2), a NaN stays only where x itself holds one.
    x_nan = _reduce(reduce_or_p, lax.ne(x, x), (-2, -1))
    return lax.select(lax.bitwise_and(lax.ne(r, r), lax.bitwise_not(x_nan)),
                      lax.full_like(r, np.inf), r)


# -- norms ---------------------------------------------------------------------------------
def _largest(x, axes, keepdims=False):
    """The max of non-negative values; 0 (not -inf) over an empty axis, as NumPy's norms;
    NaNs propagate."""
    out = _reduce(reduce_max_p, x, axes, keepdims)
    return lax.max(out, lax.full_like(out, 0))


def _smallest(x, axes, keepdims, ord):  # noqa: A002
    """The min over ``axes``; an empty axis has none (NumPy and JAX raise)."""
    if any(definitely_equal(x.shape[a], 0) for a in axes):
        raise ValueError(f"norm: ord={ord!r} takes a minimum over an axis of size 0 (shape "
                         f"{shape_str(x.shape)}), which has no value")
    return _reduce(reduce_min_p, x, axes, keepdims)


def _vector_norm(x, ord, axis, keepdims):  # noqa: A002
    ax = (axis,)
    if isinstance(ord, str):
        raise ValueError(f"norm: invalid norm order {ord!r} for vectors")
    if ord is None or ord == 2:
        mag = lax.abs(x)
        return lax.sqrt(_sum(lax.mul(mag, mag), ax, keepdims))
    if ord == np.inf:
        return _largest(lax.abs(x), ax, keepdims)
    if ord == -np.inf:
        return _smallest(lax.abs(x), ax, keepdims, ord)
    if ord == 0:
        nz = lax.ne(x, lax.full_like(x, 0))
        return _sum(lax.convert_element_type(nz, real_dtype(x.dtype)), ax, keepdims)
    if ord == 1:
        return _sum(lax.abs(x), ax, keepdims)
    mag = lax.abs(x)
    p = float(ord)
    return lax.pow(_sum(lax.pow(mag, p), ax, keepdims), 1.0 / p)


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    r, c = axes
    if ord is None or ord == "fro":
        mag = lax.abs(x)
        return lax.sqrt(_sum(lax.mul(mag, mag), axes, keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        inner, outer = (r, c) if ord in (1, -1) else (c, r)
        colsum = _sum(lax.abs(x), (inner,), keepdims=True)
        out = _largest(colsum, (outer,), True) if ord > 0 else \
            _smallest(colsum, (outer,), True, ord)
    elif ord in ("nuc", 2, -2):
        rest = [i for i in range(x.ndim) if i not in (r, c)]
        s = svd(lax.transpose(x, rest + [r, c]), compute_uv=False)
        if ord == "nuc":
            out = _sum(s, (-1,))
        else:
            out = _largest(s, (-1,)) if ord == 2 else _smallest(s, (-1,), False, ord)
        return lax.expand_dims(out, tuple(sorted((r, c)))) if keepdims else out
    else:
        raise ValueError(f"norm: invalid norm order {ord!r} for matrices; use None, 'fro', "
                         f"'nuc', 1, -1, 2, -2, inf or -inf")
    return out if keepdims else lax.squeeze(out, tuple(sorted((r, c))))


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    """Vector or matrix norm (NumPy's ``ord`` values).

    Args:
      x: input array.
      ord: vectors: None/2, inf, -inf, 0, 1, or any p; matrices: None/'fro', 'nuc', 1,
        -1, 2, -2, inf, -inf.
      axis: None (all of a 1-d/2-d ``x``, or the flattened 2-norm when ``ord`` is None),
        an int (vector norms) or a pair (matrix norms).
      keepdims: keep the reduced dims with size 1.
    """
    (x,) = _inexact("norm", x)
    _check_static_ord(ord, "norm")
    if axis is None:
        if ord is None:
            flat = lax.reshape(x, (size(x.shape),))
            out = _vector_norm(flat, None, 0, False)
            return lax.reshape(out, (1,) * x.ndim) if keepdims else out
        if x.ndim not in (1, 2):
            raise ValueError(f"norm: improper number of dimensions to norm: shape "
                             f"{shape_str(x.shape)} with ord={ord!r}; pass axis")
        axis = tuple(range(x.ndim))
    axes = normalize_axes(axis, x.ndim, "norm")
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"norm: axis must name 1 or 2 dims, got {axis!r}")


def _check_static_ord(ord, op):  # noqa: A002
    # ord picks the norm's formula while tracing, so a traced one cannot be followed
    if isinstance(ord, Tracer):
        raise traced_static_error(ord, "ord", op)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    """Vector norm over ``axis`` (None: all elements, as one vector)."""
    (x,) = _inexact("vector_norm", x)
    _check_static_ord(ord, "vector_norm")
    if axis is None:
        out = _vector_norm(lax.reshape(x, (size(x.shape),)), ord, 0, False)
        return lax.reshape(out, (1,) * x.ndim) if keepdims else out
    axes = normalize_axes(axis, x.ndim, "vector_norm")
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    # Several axes: move them to the end and treat them as one flat vector.
    rest = [i for i in range(x.ndim) if i not in axes]
    xt = lax.transpose(x, rest + list(axes))
    flat = lax.reshape(xt, tuple(x.shape[i] for i in rest) + (size([x.shape[i] for i in axes]),))
    out = _vector_norm(flat, ord, len(rest), False)
    return lax.expand_dims(out, tuple(sorted(axes))) if keepdims else out


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    """Matrix norm over the last two dims."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# -- tensors, chains and the NumPy 2 aliases -----------------------------------------------------
def multi_dot(arrays, *, precision=None):
    """Product of a chain of matrices in the cheapest order (a 1-d first/last array is
    a row/column vector), as one ``einsum`` with an opt_einsum path."""
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError(f"multi_dot: need at least 2 arrays, got {len(arrays)}")
    check_arraylike("multi_dot", *arrays)
    sym = opt_einsum.get_symbol
    terms = []
    for i, x in enumerate(arrays):
        nd = jnp.ndim(x)
        first, last = i == 0, i == len(arrays) - 1
        if nd == 1 and (first or last):
            terms.append(sym(i + 1) if first else sym(i))
        elif nd == 2:
            terms.append(sym(i) + sym(i + 1))
        else:
            raise ValueError(f"multi_dot: array {i} has rank {nd}; the first and last may "
                             f"be 1-d or 2-d, the others must be 2-d")
    out = (sym(0) if jnp.ndim(arrays[0]) == 2 else "") + \
        (sym(len(arrays)) if jnp.ndim(arrays[-1]) == 2 else "")
    return _matmul.einsum(",".join(terms) + "->" + out, *arrays, optimize="auto",
                          precision=precision)


def tensorsolve(a, b, axes=None):
    """Solve ``tensordot(a, x, axes=x.ndim) = b`` for x of shape
    ``a.shape[b.ndim:]``."""
    a, b = _inexact("tensorsolve", a, b)
    if axes is not None:
        moved = normalize_axes(axes, a.ndim, "tensorsolve")
        a = lax.transpose(a, [i for i in range(a.ndim) if i not in moved] + list(moved))
    x_shape = tuple(a.shape[b.ndim:])
    m, n = size(b.shape), size(x_shape)
    if not is_concrete_shape(a.shape) or m != n or \
            tuple(a.shape[:b.ndim]) != tuple(b.shape):
        raise ShapeError(f"tensorsolve: a of shape {shape_str(a.shape)} does not fit b of "
                         f"shape {shape_str(b.shape)}: need a.shape[:b.ndim] == b.shape and "
                         f"prod(a.shape[b.ndim:]) == b.size")
    x = solve(lax.reshape(a, (m, n)), lax.reshape(b, (m,)))
    return lax.reshape(x, x_shape)


def tensorinv(a, ind=2):
    """Inverse of ``a`` seen as a matrix of ``a.shape[:ind]`` by ``a.shape[ind:]``."""
    (a,) = _inexact("tensorinv", a)
    rows, cols = tuple(a.shape[:ind]), tuple(a.shape[ind:])
    if ind <= 0 or not is_concrete_shape(a.shape) or size(rows) != size(cols):
        raise ShapeError(f"tensorinv: a of shape {shape_str(a.shape)} with ind={ind} is not "
                         f"square (prod(a.shape[:ind]) must equal prod(a.shape[ind:]))")
    x = inv(lax.reshape(a, (size(rows), size(cols))))
    return lax.reshape(x, cols + rows)


def outer(x1, x2, /):
    """Outer product of two 1-d arrays."""
    check_arraylike("linalg.outer", x1, x2)  # None has no rank to report
    if jnp.ndim(x1) != 1 or jnp.ndim(x2) != 1:
        raise ValueError(f"linalg.outer: inputs must be 1-d, got shapes {jnp.shape(x1)} and "
                         f"{jnp.shape(x2)}")
    return _matmul.outer(x1, x2)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """``jnp.matmul`` (array API name in the linalg namespace)."""
    return _matmul.matmul(x1, x2, precision=precision,
                          preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """``jnp.vecdot``: ``sum(conj(x1) * x2, axis)``."""
    return _matmul.vecdot(x1, x2, axis=axis, precision=precision,
                          preferred_element_type=preferred_element_type)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
    """``jnp.tensordot`` with keyword-only ``axes`` (array API)."""
    return _matmul.tensordot(x1, x2, axes, precision=precision,
                             preferred_element_type=preferred_element_type,
                             out_sharding=out_sharding)


def matrix_transpose(x, /):
    """Swap the last two dims."""
    return jnp.matrix_transpose(x)


def diagonal(x, /, *, offset=0):
    """Diagonals of the matrices in the last two dims."""
    return jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """Traces of the matrices in the last two dims."""
    return jnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-vectors along ``axis``."""
    check_arraylike("linalg.cross", x1, x2)
    a1, a2 = (normalize_axis(axis, jnp.ndim(x), "linalg.cross") for x in (x1, x2))
    if jnp.shape(x1)[a1] != 3 or jnp.shape(x2)[a2] != 3:
        raise ValueError(f"linalg.cross: both inputs need size 3 along axis {axis}, got "
                         f"shapes {jnp.shape(x1)} and {jnp.shape(x2)}")
    return jnp.cross(x1, x2, axis=axis)


__all__ = ["EigResult", "EighResult", "QRResult", "SlogdetResult", "SVDResult", "cholesky", "qr", "svd",
           "svdvals", "eig", "eigvals", "eigh", "eigvalsh", "det", "slogdet", "solve", "inv", "matrix_power",
           "pinv", "matrix_rank", "lstsq", "cond", "norm", "vector_norm", "matrix_norm",
           "multi_dot", "tensorsolve", "tensorinv", "outer", "matmul", "vecdot", "tensordot",
           "matrix_transpose", "diagonal", "trace", "cross"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
