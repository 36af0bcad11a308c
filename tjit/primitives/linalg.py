"""Contractions and dense linear algebra: ``dot_general`` and the factorizations
(cholesky, qr, svd, eigh, lu, triangular_solve).

All of them are library calls (DESIGN.md, "library calls where libraries win"):
``dot_general`` transposes and reshapes its operands into one batched matrix product
and calls ``xp.matmul`` (BLAS on NumPy, cuBLAS on CuPy); the factorizations call
``xp.linalg`` / ``scipy.linalg``. Every factorization is batched over leading dims.

Result conventions (as JAX's primitives):

* ``dot_general`` output dims: batch dims, then lhs free dims, then rhs free dims.
* ``qr_p`` -> ``[q, r]``; ``svd_p`` -> ``[s, u, vt]`` (``[s]`` without ``compute_uv``);
  ``eigh_p`` -> ``[v, w]`` (eigenvectors in columns first, ascending eigenvalues second,
  like ``jax.lax.linalg.eigh``; ``jnp.linalg.eigh`` reorders to ``(w, v)``);
  ``lu_p`` -> ``[lu, pivots, permutation]`` with int32 pivots/permutation such that
  ``a[..., permutation, :] == L @ U``.
* ``cholesky_p`` reads the lower triangle and returns the lower factor; a matrix that
  is not positive definite gives NaNs (as JAX does) rather than an exception.
"""

import enum
import warnings

import numpy as np
import sympy

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import definitely_equal, dim_str, greater_equal, shape_str
from tjit.primitives.base import FLOAT, INT, check_dtype_kind, new_primitive, same_dtypes


class Precision(enum.Enum):
    """Precision of a contraction (as ``jax.lax.Precision``). The NumPy reference
    always computes at full precision; backends may use it to pick faster paths."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __repr__(self):
        return f"Precision.{self.name}"

    __str__ = __repr__


# -- dot_general ----------------------------------------------------------------------------
dot_general_p = new_primitive("dot_general")


def _check_dim_list(name, which, dims, ndim, shape):
    for d in dims:
        if type(d) is not int or not 0 <= d < ndim:
            raise ShapeError(f"{name}: {which} dimension {d!r} is out of range for an operand "
                             f"of shape {shape_str(shape)}")
    if len(set(dims)) != len(dims):
        raise ShapeError(f"{name}: repeated {which} dimensions {tuple(dims)} for an operand "
                         f"of shape {shape_str(shape)}")


def _check_pairs(name, kind, lhs, rhs, ldims, rdims):
    """Sizes of paired (batch or contracting) dims must be equal."""
    for l, r in zip(ldims, rdims):
        try:
            same = definitely_equal(lhs.shape[l], rhs.shape[r])
        except InconclusiveDimensionError:
            raise InconclusiveDimensionError(
                f"{name}: cannot decide whether {kind} dims {dim_str(lhs.shape[l])} "
                f"(lhs dim {l}) and {dim_str(rhs.shape[r])} (rhs dim {r}) are equal, for "
                f"shapes {shape_str(lhs.shape)} and {shape_str(rhs.shape)}; use the same "
                f"size symbol for both") from None
        if not same:
            raise ShapeError(
                f"{name}: {kind} dims must have equal sizes, got lhs shape "
                f"{shape_str(lhs.shape)} {kind} dims {tuple(ldims)} and rhs shape "
                f"{shape_str(rhs.shape)} {kind} dims {tuple(rdims)} (size "
                f"{dim_str(lhs.shape[l])} vs {dim_str(rhs.shape[r])})")


def dot_general_shape(lhs, rhs, dimension_numbers, name="dot_general"):
    """Output shape of ``dot_general`` for avals ``lhs``, ``rhs`` (checks every rule)."""
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"{name}: dimension_numbers must be ((lhs_contracting, "
                        f"rhs_contracting), (lhs_batch, rhs_batch)), got "
                        f"{dimension_numbers!r}") from None
    lc, rc, lb, rb = (tuple(x) for x in (lc, rc, lb, rb))
    for which, dims, op in (("lhs contracting", lc, lhs), ("rhs contracting", rc, rhs),
                            ("lhs batch", lb, lhs), ("rhs batch", rb, rhs)):
        _check_dim_list(name, which, dims, op.ndim, op.shape)
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise ShapeError(f"{name}: lhs and rhs need as many contracting dims and as many "
                         f"batch dims, got dimension_numbers {dimension_numbers} for shapes "
                         f"{shape_str(lhs.shape)} and {shape_str(rhs.shape)}")
    for side, c, b, op in (("lhs", lc, lb, lhs), ("rhs", rc, rb, rhs)):
        if set(c) & set(b):
            raise ShapeError(f"{name}: {side} dims {sorted(set(c) & set(b))} are both batch "
                             f"and contracting dims (shape {shape_str(op.shape)})")
    _check_pairs(name, "batch", lhs, rhs, lb, rb)
    _check_pairs(name, "contracting", lhs, rhs, lc, rc)
    lfree = [lhs.shape[i] for i in range(lhs.ndim) if i not in lc and i not in lb]
    rfree = [rhs.shape[i] for i in range(rhs.ndim) if i not in rc and i not in rb]
    return tuple(lhs.shape[i] for i in lb) + tuple(lfree) + tuple(rfree)


def dot_general_dtype(lhs, rhs, preferred_element_type, name="dot_general"):
    """Output dtype: the common input dtype, or ``preferred_element_type`` when given
    (it may not drop the kind: float inputs need a float result, and an integer
    result may not be narrower than the inputs, as in XLA)."""
    dt = same_dtypes(name, (lhs, rhs))
    pref = preferred_element_type
    if pref is None or np.dtype(pref) == dt:
        return dt
    pref = np.dtype(pref)
    bad = ((dtypes.is_inexact(dt) and not dtypes.is_inexact(pref))
           or (dtypes.is_complex(dt) and not dtypes.is_complex(pref))
           or (dtypes.is_bool(pref))
           or (dtypes.is_int(dt) and dtypes.is_int(pref) and pref.itemsize < dt.itemsize))
    if bad:
        raise TypeError(f"{name}: preferred_element_type {pref} cannot hold the result of a "
                        f"product of {dt} operands; choose a type of the same kind that is "
                        f"at least as wide, or convert the operands first")
    return pref


@dot_general_p.def_abstract_eval
def _dot_general_abstract(lhs, rhs, *, dimension_numbers, precision=None,
                          preferred_element_type=None):
    shape = dot_general_shape(lhs, rhs, dimension_numbers)
    return ShapedArray(shape, dot_general_dtype(lhs, rhs, preferred_element_type))


@dot_general_p.def_weak_type
def _dot_general_weak(lw, rw, *, preferred_element_type=None, **_):
    return lw and rw and preferred_element_type is None


def _prod(dims):
    n = 1
    for d in dims:
        n *= d
    return n


@dot_general_p.def_impl
def _dot_general_impl(xp, lhs, rhs, *, dimension_numbers, precision=None,
                      preferred_element_type=None):
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = xp.asarray(lhs), xp.asarray(rhs)
    out_dtype = lhs.dtype if preferred_element_type is None else np.dtype(
        preferred_element_type)
    if out_dtype != lhs.dtype and (np.promote_types(lhs.dtype, out_dtype) == out_dtype or
                                   not dtypes.is_inexact(lhs.dtype)):
        # Accumulate in the preferred type when it is wider (int8 x int8 -> int32 must not
        # wrap) or inexact (int inputs, float result).
        lhs, rhs = lhs.astype(out_dtype), rhs.astype(out_dtype)
    lf = [i for i in range(lhs.ndim) if i not in lc and i not in lb]
    rf = [i for i in range(rhs.ndim) if i not in rc and i not in rb]
    lt = xp.transpose(lhs, tuple(lb) + tuple(lf) + tuple(lc))
    rt = xp.transpose(rhs, tuple(rb) + tuple(rc) + tuple(rf))
    bshape = lt.shape[:len(lb)]
    mshape = lt.shape[len(lb):len(lb) + len(lf)]
    nshape = rt.shape[len(rb) + len(rc):]
    k = _prod(lt.shape[len(lb) + len(lf):])
    m, n = _prod(mshape), _prod(nshape)
    if lb:
        out = xp.matmul(lt.reshape(_prod(bshape), m, k), rt.reshape(_prod(bshape), k, n))
    else:  # a plain 2-d product takes BLAS's fastest path
        out = xp.matmul(lt.reshape(m, k), rt.reshape(k, n))
    out = out.reshape(tuple(bshape) + tuple(mshape) + tuple(nshape))
    return out if out.dtype == out_dtype else out.astype(out_dtype)


# -- shared checks for the factorizations --------------------------------------------------
def _min_dim(m, n):
    if type(m) is int and type(n) is int:
        return min(m, n)
    try:
        return n if greater_equal(m, n) else m
    except InconclusiveDimensionError:
        return sympy.Min(m, n)


def check_matrix(name, x, square=False):
    check_dtype_kind(name, FLOAT, x)
    if x.ndim < 2:
        raise ShapeError(f"{name}: operand must have rank >= 2 (a matrix or a batch of "
                         f"matrices), got shape {shape_str(x.shape)}")
    if square:
        m, n = x.shape[-2:]
        try:
            ok = definitely_equal(m, n)
        except InconclusiveDimensionError:
            ok = False
        if not ok:
            raise ShapeError(f"{name}: operand must be a batch of square matrices, got shape "
                             f"{shape_str(x.shape)}; the last two dims must be equal")


def real_dtype(dt):
    """float32 for complex64, float64 for complex128, else ``dt``."""
    dt = np.dtype(dt)
    return np.finfo(dt).dtype if dtypes.is_complex(dt) else dt


def _cast(xp, out, dtype):
    out = xp.asarray(out)
    return out if out.dtype == dtype else out.astype(dtype)


def _scipy_linalg():
    """scipy.linalg, imported on first use (it is slow to import and only the NumPy
    reference needs it)."""
    import scipy.linalg
    return scipy.linalg


def _linalg_error(xp):
    return getattr(getattr(xp, "linalg", None), "LinAlgError", np.linalg.LinAlgError)


# -- cholesky ------------------------------------------------------------------------------
cholesky_p = new_primitive("cholesky")


@cholesky_p.def_abstract_eval
def _cholesky_abstract(x):
    check_matrix("cholesky", x, square=True)
    return ShapedArray(x.shape, x.dtype)


@cholesky_p.def_impl
def _cholesky_impl(xp, x):
    x = xp.asarray(x)
    try:
        out = xp.linalg.cholesky(x)
    except _linalg_error(xp):
        # Factor one matrix at a time; the ones that are not positive definite get NaN.
        flat = x.reshape((-1,) + x.shape[-2:])
        out = xp.full(flat.shape, np.nan, dtype=x.dtype)
        for i in range(flat.shape[0]):
            try:
                out[i] = xp.linalg.cholesky(flat[i])
            except _linalg_error(xp):
                pass
        out = out.reshape(x.shape)
    return _cast(xp, out, x.dtype)


# -- qr ---------------------------------------------------------------------------------------
qr_p = new_primitive("qr", multiple_results=True)


@qr_p.def_abstract_eval
def _qr_abstract(x, *, full_matrices):
    check_matrix("qr", x)
    *batch, m, n = x.shape
    k = m if full_matrices else _min_dim(m, n)
    return [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]


@qr_p.def_impl
def _qr_impl(xp, x, *, full_matrices):
    x = xp.asarray(x)
    q, r = xp.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return [_cast(xp, q, x.dtype), _cast(xp, r, x.dtype)]


# -- svd ---------------------------------------------------------------------------------------
svd_p = new_primitive("svd", multiple_results=True)


@svd_p.def_abstract_eval
def _svd_abstract(x, *, full_matrices, compute_uv):
    check_matrix("svd", x)
    *batch, m, n = x.shape
    k = _min_dim(m, n)
    s = ShapedArray((*batch, k), real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    u = ShapedArray((*batch, m, m if full_matrices else k), x.dtype)
    vt = ShapedArray((*batch, n if full_matrices else k, n), x.dtype)
    return [s, u, vt]


@svd_p.def_impl
def _svd_impl(xp, x, *, full_matrices, compute_uv):
    x = xp.asarray(x)
    rdt = real_dtype(x.dtype)
    if not compute_uv:
        return [_cast(xp, xp.linalg.svd(x, compute_uv=False), rdt)]
    u, s, vt = xp.linalg.svd(x, full_matrices=full_matrices, compute_uv=True)
    return [_cast(xp, s, rdt), _cast(xp, u, x.dtype), _cast(xp, vt, x.dtype)]


# -- eigh --------------------------------------------------------------------------------------
eigh_p = new_primitive("eigh", multiple_results=True)


@eigh_p.def_abstract_eval
def _eigh_abstract(x, *, lower):
    check_matrix("eigh", x, square=True)
    return [ShapedArray(x.shape, x.dtype), ShapedArray(x.shape[:-1], real_dtype(x.dtype))]


@eigh_p.def_impl
def _eigh_impl(xp, x, *, lower):
    x = xp.asarray(x)
    w, v = xp.linalg.eigh(x, UPLO="L" if lower else "U")
    return [_cast(xp, v, x.dtype), _cast(xp, w, real_dtype(x.dtype))]


# -- lu ------------------------------------------------------------------------------------------
lu_p = new_primitive("lu", multiple_results=True)


@lu_p.def_abstract_eval
def _lu_abstract(x):
    check_matrix("lu", x)
    *batch, m, n = x.shape
    return [ShapedArray(x.shape, x.dtype), ShapedArray((*batch, _min_dim(m, n)), dtypes.int32),
            ShapedArray((*batch, m), dtypes.int32)]


def lu_generic(xp, a):
    """LU with partial pivoting written against ``xp`` alone (for array namespaces
    without ``lu_factor``): one vectorized rank-1 update per column over the batch.
    Returns ``(lu, pivots)`` like ``scipy.linalg.lu_factor``."""
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    a = xp.array(a, copy=True).reshape((-1, m, n))
    bidx = xp.arange(a.shape[0])
    piv = xp.zeros((a.shape[0], k), dtype=np.int32)
    for j in range(k):
        p = j + xp.argmax(xp.abs(a[:, j:, j]), axis=1)
        piv[:, j] = p
        row_j, row_p = a[bidx, j, :].copy(), a[bidx, p, :].copy()
        a[bidx, j, :], a[bidx, p, :] = row_p, row_j
        pivot = a[:, j, j]
        # A zero pivot means the column below is zero too: leave it (as LAPACK does).
        safe = xp.where(pivot == 0, xp.ones_like(pivot), pivot)
        a[:, j + 1:, j] /= safe[:, None]
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j:j + 1] * a[:, j:j + 1, j + 1:]
    return a.reshape(batch + (m, n)), piv.reshape(batch + (k,))


def pivots_to_permutation(xp, pivots, m):
    """Row swaps ``pivots`` (..., k) -> the permutation (..., m) they produce."""
    batch = pivots.shape[:-1]
    perm = xp.broadcast_to(xp.arange(m, dtype=np.int32), batch + (m,)).copy()
    for i in range(pivots.shape[-1]):
        p = pivots[..., i:i + 1].astype(np.int64)
        at_i = perm[..., i:i + 1].copy()
        at_p = xp.take_along_axis(perm, p, axis=-1)
        xp.put_along_axis(perm, p, at_i, axis=-1)
        perm[..., i:i + 1] = at_p
    return perm


@lu_p.def_impl
def _lu_impl(xp, x):
    x = xp.asarray(x)
    m = x.shape[-2]
    if x.size == 0:
        lu, piv = x.copy(), xp.zeros(x.shape[:-2] + (min(x.shape[-2:]),), np.int32)
    elif xp is np:
        sl = _scipy_linalg()
        with warnings.catch_warnings():  # singular input is allowed (det == 0)
            warnings.simplefilter("ignore", sl.LinAlgWarning)
            lu, piv = sl.lu_factor(x, check_finite=False)
    else:
        lu, piv = lu_generic(xp, x)
    piv = _cast(xp, piv, dtypes.int32)
    return [_cast(xp, lu, x.dtype), piv, pivots_to_permutation(xp, piv, m)]


lu_pivots_to_permutation_p = new_primitive("lu_pivots_to_permutation")


@lu_pivots_to_permutation_p.def_abstract_eval
def _lu_pivots_abstract(pivots, *, permutation_size):
    check_dtype_kind("lu_pivots_to_permutation", INT, pivots, "pivots")
    if pivots.ndim < 1:
        raise ShapeError(f"lu_pivots_to_permutation: pivots must have rank >= 1, got shape "
                         f"{shape_str(pivots.shape)}")
    return ShapedArray(pivots.shape[:-1] + (permutation_size,), dtypes.int32)


@lu_pivots_to_permutation_p.def_impl
def _lu_pivots_impl(xp, pivots, *, permutation_size):
    return pivots_to_permutation(xp, xp.asarray(pivots), permutation_size)


lu_pivots_to_permutation_p.def_weak_type(lambda *w, **_: False)
lu_pivots_to_permutation_p.not_differentiable = True


# -- triangular_solve -------------------------------------------------------------------------
triangular_solve_p = new_primitive("triangular_solve")


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract(a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    name = "triangular_solve"
    check_matrix(name, a, square=True)
    check_dtype_kind(name, FLOAT, b, "b")
    same_dtypes(name, (a, b))
    if b.ndim != a.ndim:
        raise ShapeError(f"{name}: a and b must have equal ranks, got shapes "
                         f"{shape_str(a.shape)} and {shape_str(b.shape)}")
    m = a.shape[-1]
    bm = b.shape[-2] if left_side else b.shape[-1]
    pairs = list(zip(a.shape[:-2], b.shape[:-2])) + [(m, bm)]
    if not all(definitely_equal(x, y) for x, y in pairs):
        side = "b.shape[-2]" if left_side else "b.shape[-1]"
        raise ShapeError(f"{name}: incompatible shapes a {shape_str(a.shape)} and b "
                         f"{shape_str(b.shape)} (left_side={left_side}); batch dims must be "
                         f"equal and {side} must equal a's size")
    return ShapedArray(b.shape, b.dtype)


def _tri_solve_left(xp, a, b, lower, trans, conj, unit):
    """Solve op(a) @ x = b, op(a) = a, a^T, conj(a) or a^H."""
    if conj and not trans:
        return xp.conj(_tri_solve_left(xp, a, xp.conj(b), lower, False, False, unit))
    if xp is np:
        kind = (2 if conj else 1) if trans else 0  # LAPACK's 'N', 'T', 'C'
        return _scipy_linalg().solve_triangular(a, b, trans=kind, lower=lower,
                                                unit_diagonal=unit, check_finite=False)
    return tri_solve_generic(xp, a, b, lower, trans, conj, unit)


def tri_solve_generic(xp, a, b, lower, trans, conj, unit):
    """Triangular solve through ``xp.linalg.solve`` on the masked triangle (for array
    namespaces without ``solve_triangular``)."""
    t = xp.tril(a) if lower else xp.triu(a)
    if unit:
        eye = xp.eye(a.shape[-1], dtype=bool)
        t = xp.where(eye, xp.ones_like(t), t)
    if trans:
        t = xp.swapaxes(t, -1, -2)
    if conj:
        t = xp.conj(t)
    return xp.linalg.solve(t, b)


@triangular_solve_p.def_impl
def _triangular_solve_impl(xp, a, b, *, left_side, lower, transpose_a, conjugate_a,
                           unit_diagonal):
    a, b = xp.asarray(a), xp.asarray(b)
    if b.size == 0:
        return b.copy()
    if left_side:
        x = _tri_solve_left(xp, a, b, lower, transpose_a, conjugate_a, unit_diagonal)
    else:
        # x @ op(a) = b  <=>  op(a)^T @ x^T = b^T (transposing flips op's transpose).
        xt = _tri_solve_left(xp, a, xp.swapaxes(b, -1, -2), lower, not transpose_a,
                             conjugate_a, unit_diagonal)
        x = xp.swapaxes(xt, -1, -2)
    return _cast(xp, x, b.dtype)


for _p in (cholesky_p, qr_p, svd_p, eigh_p, lu_p, triangular_solve_p):
    _p.def_weak_type(lambda *w, **_: False)
del _p
