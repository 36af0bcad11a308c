"""Dense linear algebra: the factorizations (cholesky, qr, svd, eigh, lu) and
triangular_solve, with their jvp, transpose and batching rules. (``dot_general`` is in
``tjit/primitives/dot.py`` and re-exported here.)

All of them are library calls (DESIGN.md, "library calls where libraries win"): the
factorizations call ``xp.linalg`` / ``scipy.linalg``. Every factorization is batched
over leading dims. Small problems run OpenBLAS on the calling thread only
(``lapack_threads.py``: its pool spinning inside loops of small calls stalled them).

Result conventions (as JAX's primitives):

* ``qr_p`` -> ``[q, r]``; ``svd_p`` -> ``[s, u, vt]`` (``[s]`` without ``compute_uv``);
  ``eigh_p`` -> ``[v, w]`` (eigenvectors in columns first, ascending eigenvalues second,
  like ``jax.lax.linalg.eigh``; ``jnp.linalg.eigh`` reorders to ``(w, v)``);
  ``lu_p`` -> ``[lu, pivots, permutation]`` with int32 pivots/permutation such that
  ``a[..., permutation, :] == L @ U``.
* ``cholesky_p`` reads the lower triangle and returns the lower factor; a matrix that
  is not positive definite gives NaNs (as JAX does) rather than an exception.

Derivatives follow JAX's rules. cholesky and eigh see the Hermitian perturbation that
the triangle they read describes. triangular_solve is linear in ``b`` (transpose: a
solve with op(a)^T). lu's pivots and permutation have no tangent. Not implemented
(NotImplementedError saying so): qr with full_matrices and m > n, svd
vectors with full_matrices and m != n. svd/eigh vector derivatives assume distinct
singular values / eigenvalues (as in JAX). Batching moves the mapped axis to the front.
"""

import warnings

import numpy as np

from tjit._sympy import sympy
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import definitely_equal, greater_equal, shape_str
from tjit.primitives.base import FLOAT, INT, check_dtype_kind, new_primitive, same_dtypes
from tjit.primitives.lapack_threads import factorization_work, solve_work, with_blas_threads
# dot_general lives in tjit/primitives/dot.py; its names stay importable from here.
from tjit.primitives.dot import (  # noqa: F401  (re-exported)
    Precision, dot_general_dtype, dot_general_p, dot_general_shape)

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


def _lapack_operand(xp, x):
    """``x`` as a dtype LAPACK has routines for: float16/bfloat16 are computed in float32
    (callers cast the results back to the operand's dtype, as lu and triangular_solve
    already do through SciPy)."""
    x = xp.asarray(x)
    if x.dtype.kind == "f" and x.dtype.itemsize < 4:
        return x.astype(np.float32)
    return x


def _linalg_error(xp):
    return getattr(getattr(xp, "linalg", None), "LinAlgError", np.linalg.LinAlgError)


# -- cholesky ------------------------------------------------------------------------------
cholesky_p = new_primitive("cholesky")


@cholesky_p.def_abstract_eval
def _cholesky_abstract(x):
    check_matrix("cholesky", x, square=True)
    return ShapedArray(x.shape, x.dtype)


@cholesky_p.def_impl
@with_blas_threads(factorization_work)
def _cholesky_impl(xp, x):
    x = xp.asarray(x)
    dtype, x = x.dtype, _lapack_operand(xp, x)
    try:
        out = xp.linalg.cholesky(x)
    except _linalg_error(xp):
        # Factor one matrix at a time; the ones that are not positive definite get NaN
        # on their lower triangle and zeros above it (JAX's result).
        flat = x.reshape((-1,) + x.shape[-2:])
        out = xp.tril(xp.full(flat.shape, np.nan, dtype=x.dtype))
        for i in range(flat.shape[0]):
            try:
                out[i] = xp.linalg.cholesky(flat[i])
            except _linalg_error(xp):
                pass
        out = out.reshape(x.shape)
    return _cast(xp, out, dtype)


# -- qr ---------------------------------------------------------------------------------------
qr_p = new_primitive("qr", multiple_results=True)


@qr_p.def_abstract_eval
def _qr_abstract(x, *, full_matrices):
    check_matrix("qr", x)
    *batch, m, n = x.shape
    k = m if full_matrices else _min_dim(m, n)
    return [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]


@qr_p.def_impl
@with_blas_threads(factorization_work)
def _qr_impl(xp, x, *, full_matrices):
    x = xp.asarray(x)
    q, r = xp.linalg.qr(_lapack_operand(xp, x), mode="complete" if full_matrices else "reduced")
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
@with_blas_threads(factorization_work)
def _svd_impl(xp, x, *, full_matrices, compute_uv):
    x = xp.asarray(x)
    rdt = real_dtype(x.dtype)

    def factor(a):
        if not compute_uv:
            return [xp.linalg.svd(a, compute_uv=False)]
        u, s, vt = xp.linalg.svd(a, full_matrices=full_matrices, compute_uv=True)
        return [s, u, vt]

    operand = _lapack_operand(xp, x)
    try:
        outs = factor(operand)
    except _linalg_error(xp):  # NaNs in x: NaN factors for those matrices (as JAX)
        outs = _per_matrix_or_nan(xp, factor, operand)
    dts = [rdt, x.dtype, x.dtype]
    return [_cast(xp, o, dt) for o, dt in zip(outs, dts)]


def _per_matrix_or_nan(xp, factor, x):
    """``factor`` applied to each matrix of the batch ``x`` (..., m, n) alone; the
    results of a matrix it fails on are NaN (LAPACK raises where JAX returns NaNs)."""
    flat = x.reshape((-1,) + x.shape[-2:])
    per = []
    for a in flat:
        try:
            per.append(factor(a))
        except _linalg_error(xp):
            per.append([xp.full_like(r, np.nan) for r in factor(xp.zeros_like(a))])
    return [xp.stack(rs).reshape(x.shape[:-2] + rs[0].shape) for rs in zip(*per)]


# -- eigh --------------------------------------------------------------------------------------
eigh_p = new_primitive("eigh", multiple_results=True)


@eigh_p.def_abstract_eval
def _eigh_abstract(x, *, lower):
    check_matrix("eigh", x, square=True)
    return [ShapedArray(x.shape, x.dtype), ShapedArray(x.shape[:-1], real_dtype(x.dtype))]


@eigh_p.def_impl
@with_blas_threads(factorization_work)
def _eigh_impl(xp, x, *, lower):
    x = xp.asarray(x)

    def factor(a):
        return list(xp.linalg.eigh(a, UPLO="L" if lower else "U"))

    operand = _lapack_operand(xp, x)
    try:
        w, v = factor(operand)
    except _linalg_error(xp):  # NaNs in x: NaN results for those matrices (as JAX)
        w, v = _per_matrix_or_nan(xp, factor, operand)
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
    if xp is np:
        # swaps on Python lists: ~0.3 us a swap, where the array ops below cost ~14 us
        # (a 48 x 48 solve spent 0.7 ms here, most of its time)
        flat = pivots.reshape((int(np.prod(batch)), pivots.shape[-1])).tolist()
        perms = []
        for piv in flat:
            perm = list(range(m))
            for i, p in enumerate(piv):
                perm[i], perm[p] = perm[p], perm[i]
            perms.append(perm)
        return np.asarray(perms, dtype=np.int32).reshape(batch + (m,))
    perm = xp.broadcast_to(xp.arange(m, dtype=np.int32), batch + (m,)).copy()
    for i in range(pivots.shape[-1]):
        p = pivots[..., i:i + 1].astype(np.int64)
        at_i = perm[..., i:i + 1].copy()
        at_p = xp.take_along_axis(perm, p, axis=-1)
        xp.put_along_axis(perm, p, at_i, axis=-1)
        perm[..., i:i + 1] = at_p
    return perm


@lu_p.def_impl
@with_blas_threads(factorization_work, library="scipy")
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
    try:
        if xp is np:
            kind = (2 if conj else 1) if trans else 0  # LAPACK's 'N', 'T', 'C'
            return _trtrs_batch(a, b, kind, lower, unit)
        return tri_solve_generic(xp, a, b, lower, trans, conj, unit)
    except _linalg_error(xp):
        # A zero on the diagonal: BLAS trsm (JAX's kernel) divides by it anyway, giving
        # infs and NaNs rather than an error; substitution row by row does the same.
        return _tri_solve_substitution(xp, a, b, lower, trans, conj, unit)


def _trtrs_batch(a, b, kind, lower, unit):
    """SciPy's ``solve_triangular`` over the (equal, maybe none) batch dims of ``a`` and
    ``b``: the LAPACK call (``trtrs``) SciPy makes per matrix, made here without SciPy's
    per-matrix input checks and batch wrapper (~20 us a matrix)."""
    trtrs, = _scipy_linalg().get_lapack_funcs(("trtrs",), (a, b))
    out = None
    # (np.ndindex costs ~10 us to set up: one matrix skips it)
    for index in np.ndindex(a.shape[:-2]) if a.ndim > 2 else [()]:
        a1, b1 = a[index], b[index]
        # as scipy.linalg._basic._solve_triangular: trtrs reads Fortran order, so a
        # C-ordered matrix is passed as its transpose with the flags flipped
        if a1.flags.f_contiguous or kind == 2:
            x, info = trtrs(a1, b1, overwrite_b=False, lower=lower, trans=kind,
                            unitdiag=unit)
        else:
            x, info = trtrs(a1.T, b1, overwrite_b=False, lower=not lower, trans=not kind,
                            unitdiag=unit)
        if info > 0:
            raise np.linalg.LinAlgError(f"triangular_solve: singular matrix (a zero at "
                                        f"diagonal {info - 1})")
        if info < 0:
            raise ValueError(f"triangular_solve: illegal value in argument {-info} of "
                             f"LAPACK's trtrs")
        if out is None:
            out = np.empty(b.shape, x.dtype)
        out[index] = x
    return out


def _tri_solve_substitution(xp, a, b, lower, trans, conj, unit):
    """op(a) @ x = b by forward/back substitution (IEEE division by zero pivots)."""
    t = xp.tril(a) if lower else xp.triu(a)
    if trans:
        t = xp.swapaxes(t, -1, -2)
    if conj:
        t = xp.conj(t)
    forward = lower != trans
    n = t.shape[-1]
    x = xp.zeros(b.shape, dtype=xp.result_type(t.dtype, b.dtype))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in (range(n) if forward else range(n - 1, -1, -1)):
            done = slice(0, i) if forward else slice(i + 1, n)
            r = b[..., i, :] - xp.sum(t[..., i, done, None] * x[..., done, :], axis=-2)
            x[..., i, :] = r if unit else r / t[..., i, i, None]
    return x


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
@with_blas_threads(solve_work, library="scipy")
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


# (cholesky, qr, svd, eigh, lu and triangular_solve keep their operands' weak type, weak
# where all are, as JAX's linalg primitives do, whose avals are the operand's updated;
# LU's int32 pivots and permutation too: the default rule)


# -- transformation rules ----------------------------------------------------------------------
# jvps follow JAX's (cholesky_jvp_rule, qr_jvp_rule, svd_jvp_rule, eigh_jvp_rule,
# lu_jvp_rule, triangular_solve's); they bind primitives only, so they compose with every
# transformation. Matrix products are dot_generals over the shared leading batch dims.
from tjit.primitives import rules as _r  # noqa: E402
from tjit.primitives.dot import dot_general_p  # noqa: E402,F811
from tjit.primitives.elementwise import (  # noqa: E402
    add_p, conj_p, convert_element_type_p, div_p, eq_p, ge_p, le_p, mul_p, real_p, select_n_p,
    sub_p)
from tjit.primitives.indexing import (  # noqa: E402
    GatherDimensionNumbers, GatherScatterMode, gather_p)
from tjit.primitives.slicing import concatenate_p, pad_p, slice_p  # noqa: E402
from tjit.primitives.structural import broadcast_in_dim_p, iota_p, transpose_p  # noqa: E402
from tjit.tracing.core import get_aval as _aval  # noqa: E402

_I32 = np.dtype(np.int32)


def _shape(x):
    return tuple(_aval(x).shape)


def _is_complex(x):
    return dtypes.is_complex(_aval(x).dtype)


def _mm(a, b, ta=False, tb=False):
    """``a @ b`` (``a^T`` / ``b^T`` with ta / tb) over the shared leading batch dims."""
    nb = len(_shape(a)) - 2
    batch = tuple(range(nb))
    dn = (((nb if ta else nb + 1,), (nb + 1 if tb else nb,)), (batch, batch))
    return dot_general_p.bind(a, b, dimension_numbers=dn, precision=None,
                              preferred_element_type=None)


def _T(x):
    n = len(_shape(x))
    return transpose_p.bind(x, permutation=tuple(range(n - 2)) + (n - 1, n - 2))


def _H(x):
    return conj_p.bind(_T(x)) if _is_complex(x) else _T(x)


def _conj(x):
    return conj_p.bind(x) if _is_complex(x) else x


def _real(x):
    return real_p.bind(x) if _is_complex(x) else x


def _astype(x, dtype):
    if _aval(x).dtype == dtype:
        return x
    return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=False)


def _on_matrices(m, shape):
    """A (rows, cols) array broadcast to the batch of matrices ``shape``."""
    n = len(shape)
    if n == 2:
        return m
    return broadcast_in_dim_p.bind(m, shape=tuple(shape), broadcast_dimensions=(n - 2, n - 1))


def _tri_mask(shape, k, lower):
    """Bool mask of ``shape``: ``col <= row + k`` (lower) or ``col >= row + k`` (upper)."""
    rows = iota_p.bind(dtype=_I32, shape=tuple(shape[-2:]), dimension=0)
    cols = iota_p.bind(dtype=_I32, shape=tuple(shape[-2:]), dimension=1)
    if k:
        rows = add_p.bind(rows, np.asarray(k, _I32))
    mask = ge_p.bind(rows, cols) if lower else le_p.bind(rows, cols)
    return _on_matrices(mask, shape)


def _keep(mask, x):
    return select_n_p.bind(mask, np.zeros((), _aval(x).dtype), x)


def _tril(x, k=0):
    return _keep(_tri_mask(_shape(x), k, True), x)


def _triu(x, k=0):
    return _keep(_tri_mask(_shape(x), k, False), x)


def _diag_mask(shape):
    rows = iota_p.bind(dtype=_I32, shape=tuple(shape[-2:]), dimension=0)
    cols = iota_p.bind(dtype=_I32, shape=tuple(shape[-2:]), dimension=1)
    return _on_matrices(eq_p.bind(rows, cols), shape)


def _eye(shape, dtype):
    return convert_element_type_p.bind(_diag_mask(shape), new_dtype=np.dtype(dtype),
                                       weak_type=False)


def _diag_part(x):
    """(..., k, k) -> (..., k): the diagonals, as one gather."""
    shape = _shape(x)
    nb, k = len(shape) - 2, shape[-1]
    idx = iota_p.bind(dtype=_I32, shape=(k, 2), dimension=0)
    dn = GatherDimensionNumbers(tuple(range(nb)), (nb, nb + 1), (nb, nb + 1))
    return gather_p.bind(x, idx, dimension_numbers=dn, slice_sizes=shape[:-2] + (1, 1),
                         mode=GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None,
                         indices_are_sorted=True, unique_indices=True)


def _as_row(v, shape):
    """(..., k) -> (..., k, k) with ``v`` along every row (``v[..., None, :]``)."""
    n = len(shape)
    return broadcast_in_dim_p.bind(v, shape=tuple(shape),
                                   broadcast_dimensions=tuple(range(n - 2)) + (n - 1,))


def _as_col(v, shape):
    """(..., k) -> (..., k, k) with ``v`` down every column (``v[..., :, None]``)."""
    n = len(shape)
    return broadcast_in_dim_p.bind(v, shape=tuple(shape),
                                   broadcast_dimensions=tuple(range(n - 2)) + (n - 2,))


def _hermitian_from(g, lower):
    """The Hermitian matrix whose ``lower`` (or upper) triangle is ``g``'s: what a
    factorization that reads one triangle sees of a perturbation ``g``."""
    strict = _tril(g, -1) if lower else _triu(g, 1)
    # LAPACK assumes a real diagonal: its imaginary part is not read either.
    diag = _keep(_diag_mask(_shape(g)), _astype(_real(g), _aval(g).dtype))
    return add_p.bind(add_p.bind(strict, _H(strict)), diag)


def _front_batch(prim):
    """Batching for the factorizations, already batched over leading dims: move the
    mapped axis to the front."""
    def rule(args, dims, **params):
        out = prim.bind(_r.moveaxis(args[0], dims[0], 0), **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)
    prim.batch = rule
    return rule


for _p in (cholesky_p, qr_p, svd_p, eigh_p, lu_p, lu_pivots_to_permutation_p):
    _front_batch(_p)
del _p


def _zeros_like(outs):
    return [_r.Zero.from_value(o) for o in outs]


# cholesky -------------------------------------------------------------------------------------
def _cholesky_jvp(primals, tangents):
    """``dL = L phi(L^-1 dS L^-H)`` (Murray 2016, arXiv:1602.07527), phi = lower
    triangle with the diagonal halved; ``dS`` is the Hermitian perturbation the lower
    triangle of ``dx`` describes (the primitive reads only that triangle)."""
    (x,), (g,) = primals, tangents
    L = cholesky_p.bind(x)
    if type(g) is _r.Zero:
        return L, _r.Zero.from_value(L)
    sigma = _hermitian_from(g, lower=True)
    tmp = triangular_solve_p.bind(L, sigma, left_side=False, lower=True, transpose_a=True,
                                  conjugate_a=True, unit_diagonal=False)  # dS L^-H
    inner = triangular_solve_p.bind(L, tmp, left_side=True, lower=True, transpose_a=False,
                                    conjugate_a=False, unit_diagonal=False)
    phi = add_p.bind(_tril(inner, -1),
                     mul_p.bind(_keep(_diag_mask(_shape(inner)), inner),
                                np.asarray(0.5, _aval(inner).dtype)))
    return L, _mm(L, phi)


cholesky_p.jvp = _cholesky_jvp


# triangular_solve -----------------------------------------------------------------------------
def _tri_solve_jvp_a(g_a, ans, a, left_side, lower, transpose_a, conjugate_a,
                     unit_diagonal):
    """Tangent of ``x = op(a)^-1 b`` in ``a``: ``-op(a)^-1 op(da) x`` (left) or
    ``-x op(da) op(a)^-1`` (right), with ``da`` masked to the triangle that is read."""
    k = 1 if unit_diagonal else 0
    g_a = _tril(g_a, -k) if lower else _triu(g_a, k)
    g_a = mul_p.bind(g_a, np.asarray(-1, _aval(g_a).dtype))
    g_a = _T(g_a) if transpose_a else g_a
    g_a = conj_p.bind(g_a) if conjugate_a and _is_complex(g_a) else g_a

    def a_inverse(rhs):
        return triangular_solve_p.bind(a, rhs, left_side=left_side, lower=lower,
                                       transpose_a=transpose_a, conjugate_a=conjugate_a,
                                       unit_diagonal=unit_diagonal)
    m, n = _shape(ans)[-2:]
    # Solve against whichever of op(da) and x is smaller (same cost order as a product).
    if left_side:
        return a_inverse(_mm(g_a, ans)) if _gt(m, n) else _mm(a_inverse(g_a), ans)
    return a_inverse(_mm(ans, g_a)) if _gt(n, m) else _mm(ans, a_inverse(g_a))


def _gt(a, b):
    return type(a) is int and type(b) is int and a > b


def _tri_solve_jvp(primals, tangents, **params):
    a, b = primals
    g_a, g_b = tangents
    out = triangular_solve_p.bind(a, b, **params)
    t = _r.Zero.from_value(out)
    if type(g_b) is not _r.Zero:
        t = triangular_solve_p.bind(a, g_b, **params)
    if type(g_a) is not _r.Zero:
        t = _r.add_tangents(t, _tri_solve_jvp_a(g_a, out, a, **params))
    return out, t


def _tri_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                         unit_diagonal):
    """Linear in ``b`` only (like ``div`` in its numerator): solve with op(a)^T."""
    if _r.is_undefined_primal(a):
        raise ValueError("triangular_solve is not linear in `a`: cannot transpose with "
                         "respect to it")
    if type(ct) is _r.Zero:
        return [None, _r.Zero(b.aval)]
    return [None, triangular_solve_p.bind(a, ct, left_side=left_side, lower=lower,
                                          transpose_a=not transpose_a,
                                          conjugate_a=conjugate_a,
                                          unit_diagonal=unit_diagonal)]


def _tri_solve_batch(args, dims, **params):
    a, b = args
    size = next(_shape(x)[d] for x, d in zip(args, dims) if d is not None)
    a, b = _r.bdim_at_front(a, dims[0], size), _r.bdim_at_front(b, dims[1], size)
    return triangular_solve_p.bind(a, b, **params), 0


triangular_solve_p.jvp = _tri_solve_jvp
triangular_solve_p.transpose = _tri_solve_transpose
triangular_solve_p.batch = _tri_solve_batch


# qr -------------------------------------------------------------------------------------------
def _qr_jvp(primals, tangents, *, full_matrices):
    """j-towns.github.io/papers/qr-derivative.pdf (JAX's qr_jvp_rule); m < n through
    :func:`_qr_jvp_wide`; m > n with ``full_matrices`` through :func:`_qr_jvp_full_tall`."""
    (x,), (dx,) = primals, tangents
    *_, m, n = _shape(x)
    if type(dx) is _r.Zero:
        outs = qr_p.bind(x, full_matrices=full_matrices)
        return outs, _zeros_like(outs)
    if _gt(n, m):
        return _qr_jvp_wide(x, dx, full_matrices)
    if full_matrices and _gt(m, n):
        return _qr_jvp_full_tall(x, dx)
    if not (greater_equal(m, n) and (not full_matrices or definitely_equal(m, n))):
        raise NotImplementedError(
            f"qr: the derivative with full_matrices=True needs known m and n (m > n and "
            f"m <= n take different rules); got shape {shape_str(_shape(x))}. Use "
            f"full_matrices=False (jnp.linalg.qr's mode='reduced')")
    q, r = qr_p.bind(x, full_matrices=False)
    dx_rinv = triangular_solve_p.bind(r, dx, left_side=False, lower=False, transpose_a=False,
                                      conjugate_a=False, unit_diagonal=False)
    qt_dx_rinv = _mm(_conj(q), dx_rinv, ta=True)
    low = _tril(qt_dx_rinv, -1)
    do = sub_p.bind(low, _H(low))  # skew-Hermitian
    if _is_complex(x):  # the diagonal's imaginary part
        imag = sub_p.bind(qt_dx_rinv, _astype(_real(qt_dx_rinv), _aval(x).dtype))
        do = add_p.bind(do, _keep(_diag_mask(_shape(do)), imag))
    dq = add_p.bind(_mm(q, sub_p.bind(do, qt_dx_rinv)), dx_rinv)
    dr = _mm(sub_p.bind(qt_dx_rinv, do), r)
    return [q, r], [dq, dr]


def _columns(x, start, stop):
    shape = _shape(x)
    return slice_p.bind(x, start_indices=(0,) * (len(shape) - 1) + (start,),
                        limit_indices=shape[:-1] + (stop,), strides=None)


def _qr_jvp_wide(x, dx, full_matrices):
    """m < n (JAX's rule): ``x = [x1 x2]`` with square x1 gives ``x1 = q r1`` (the square
    rule) and ``r2 = q^H x2``, so ``dr2 = dq^H x2 + q^H dx2``. q is m x m either way."""
    *_, m, n = _shape(x)
    (q, _), (dq, dr1) = _qr_jvp((_columns(x, 0, m),), (_columns(dx, 0, m),),
                                 full_matrices=False)
    x2, dx2 = _columns(x, m, n), _columns(dx, m, n)
    dr2 = add_p.bind(_mm(_conj(dq), x2, ta=True), _mm(_conj(q), dx2, ta=True))
    dr = concatenate_p.bind(dr1, dr2, dimension=len(_shape(x)) - 1)
    return qr_p.bind(x, full_matrices=full_matrices), [dq, dr]


def _rows(x, start, stop):
    shape = _shape(x)
    return slice_p.bind(x, start_indices=(0,) * (len(shape) - 2) + (start, 0),
                        limit_indices=shape[:-2] + (stop, shape[-1]), strides=None)


def _solve_left(a, b):
    """``a^-1 b`` for square ``a`` through its LU factors (differentiable: lu_p and
    triangular_solve_p have rules, so the full-q rule below has higher derivatives)."""
    k = _shape(a)[-1]
    lu, _, perm = lu_p.bind(a)
    l_mat, u_mat = _lu_factors(lu, k, k)
    y = triangular_solve_p.bind(l_mat, _permute_rows(b, perm), left_side=True, lower=True,
                                transpose_a=False, conjugate_a=False, unit_diagonal=True)
    return triangular_solve_p.bind(u_mat, y, left_side=True, lower=False, transpose_a=False,
                                   conjugate_a=False, unit_diagonal=False)


def _qr_jvp_full_tall(x, dx):
    """m > n with the full m x m q (JAX's rule, arXiv:2409.13374 eqs. 32-33). The extra
    m - n columns q_mp are fixed by the Householder reflections that build q, so they
    move with x: with q_mn = [q_nn; q_pn] and z_pn = q_pn (q_nn - I)^-1,
    ``dq_mp = dq_mn z_pn^H - (q_mn + q_mp z_pn) (dq_pn - z_pn dq_nn)^H``; r's extra rows
    are zero, and so is their tangent."""
    *_, m, n = _shape(x)
    q, r = qr_p.bind(x, full_matrices=True)
    (q_mn, r_nn), (dq_mn, dr_nn) = _qr_jvp((x,), (dx,), full_matrices=False)
    q_nn, q_pn = _rows(q_mn, 0, n), _rows(q_mn, n, m)
    dq_nn, dq_pn = _rows(dq_mn, 0, n), _rows(dq_mn, n, m)
    q_mp = _columns(q, n, m)
    z_pn_h = _solve_left(_H(sub_p.bind(q_nn, _eye(_shape(q_nn), _aval(q).dtype))), _H(q_pn))
    z_pn = _H(z_pn_h)
    dq_mp = sub_p.bind(_mm(dq_mn, z_pn_h),
                       _mm(add_p.bind(q_mn, _mm(q_mp, z_pn)),
                           _H(sub_p.bind(dq_pn, _mm(z_pn, dq_nn)))))
    nd = len(_shape(x))
    dq = concatenate_p.bind(dq_mn, dq_mp, dimension=nd - 1)
    zero = np.zeros((), _aval(dr_nn).dtype)
    dr = pad_p.bind(dr_nn, zero, padding_config=((0, 0, 0),) * (nd - 2) +
                    ((0, m - n, 0), (0, 0, 0)))
    return [q, r], [dq, dr]


qr_p.jvp = _qr_jvp


# svd ------------------------------------------------------------------------------------------
def _safe_inverse(v):
    """1 / v with 0 where v == 0."""
    dt = _aval(v).dtype
    is0 = eq_p.bind(v, np.zeros((), dt))
    inv = div_p.bind(np.ones((), dt), select_n_p.bind(is0, v, np.ones((), dt)))
    return select_n_p.bind(is0, inv, np.zeros((), dt))


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv):
    """JAX's svd_jvp_rule (Townsend's derivation): singular values always; vectors for
    the reduced decomposition (or square matrices), distinct non-zero singular values."""
    (a,), (da,) = primals, tangents
    *_, m, n = _shape(a)
    if type(da) is _r.Zero:
        outs = svd_p.bind(a, full_matrices=full_matrices, compute_uv=compute_uv)
        return outs, _zeros_like(outs)
    if compute_uv and full_matrices and not definitely_equal(m, n):
        raise NotImplementedError(
            f"svd: the derivative of the singular vectors with full_matrices=True is only "
            f"implemented for square matrices, got shape {shape_str(_shape(a))}; use "
            f"full_matrices=False (the extra columns are not unique)")
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True)
    dt = _aval(a).dtype
    ds_mat = _mm(_mm(_conj(u), da, ta=True), _conj(vt), tb=True)  # U^H dA V
    ds = _real(_diag_part(ds_mat))
    if not compute_uv:
        return [s], [ds]
    kk = _shape(ds_mat)
    s_row, s_col = _as_row(s, kk), _as_col(s, kk)
    eye = _eye(kk, _aval(s).dtype)
    # F[i, j] = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it
    diffs = mul_p.bind(add_p.bind(s_row, s_col), sub_p.bind(s_row, s_col))
    f = _astype(sub_p.bind(div_p.bind(np.ones((), _aval(s).dtype), add_p.bind(diffs, eye)),
                         eye), dt)
    s_row_c, s_col_c = _astype(s_row, dt), _astype(s_col, dt)
    dss, sds = mul_p.bind(s_row_c, ds_mat), mul_p.bind(s_col_c, ds_mat)
    s_inv_mat = mul_p.bind(_astype(_as_row(_safe_inverse(s), kk), dt), _eye(kk, dt))
    dudv_diag = mul_p.bind(mul_p.bind(sub_p.bind(ds_mat, _H(ds_mat)), s_inv_mat),
                           np.asarray(0.5, dt))
    du = _mm(u, add_p.bind(mul_p.bind(f, add_p.bind(dss, _H(dss))), dudv_diag))
    dv = _mm(_conj(vt), mul_p.bind(f, add_p.bind(sds, _H(sds))), ta=True)
    s_inv_row = _as_row(_astype(_safe_inverse(s), dt), _shape(u) if _gt(m, n) else
                        _shape(vt)[:-2] + (n, _shape(vt)[-2]))
    if _gt(m, n):  # the component of dA V outside span(U)
        dav = _mm(da, _conj(vt), tb=True)
        du = add_p.bind(du, mul_p.bind(sub_p.bind(dav, _mm(u, _mm(_conj(u), dav, ta=True))),
                                       s_inv_row))
    if _gt(n, m):  # the component of dA^H U outside span(V)
        dahu = _mm(_conj(da), u, ta=True)
        dv = add_p.bind(dv, mul_p.bind(sub_p.bind(dahu, _mm(_conj(vt), _mm(vt, dahu), ta=True)),
                                       s_inv_row))
    return [s, u, vt], [ds, du, _H(dv)]


svd_p.jvp = _svd_jvp


# eigh -----------------------------------------------------------------------------------------
def _eigh_jvp(primals, tangents, *, lower):
    """``dw = diag(V^H dA V)``, ``dV = V (F o V^H dA V)`` with ``F[i, j] = 1/(w_j - w_i)``
    off the diagonal (JAX's eigh_jvp_rule; distinct eigenvalues). ``dA`` is the
    Hermitian perturbation the read triangle of ``dx`` describes."""
    (a,), (g,) = primals, tangents
    v, w = eigh_p.bind(a, lower=lower)
    if type(g) is _r.Zero:
        return [v, w], [_r.Zero.from_value(v), _r.Zero.from_value(w)]
    dt = _aval(a).dtype
    da = _hermitian_from(g, lower)
    shape = _shape(a)
    wc = _astype(w, dt)
    eye = _eye(shape, dt)
    fmat = sub_p.bind(div_p.bind(np.ones((), dt), add_p.bind(
        eye, sub_p.bind(_as_row(wc, shape), _as_col(wc, shape)))), eye)
    vdag_adot_v = _mm(_mm(_conj(v), da, ta=True), v)
    dv = _mm(v, mul_p.bind(fmat, vdag_adot_v))
    dw = _real(_diag_part(vdag_adot_v))
    return [v, w], [dv, dw]


eigh_p.jvp = _eigh_jvp


# lu -------------------------------------------------------------------------------------------
def _permute_rows(x, perm):
    """``x[..., perm, :]`` with a per-matrix permutation (one gather with batching dims)."""
    shape = _shape(x)
    nb, n = len(shape) - 2, shape[-1]
    idx = broadcast_in_dim_p.bind(perm, shape=_shape(perm) + (1,),
                                  broadcast_dimensions=tuple(range(nb + 1)))
    batch = tuple(range(nb))
    dn = GatherDimensionNumbers((nb + 1,), (nb,), (nb,), batch, batch)
    return gather_p.bind(x, idx, dimension_numbers=dn, slice_sizes=(1,) * (nb + 1) + (n,),
                         mode=GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None,
                         indices_are_sorted=False, unique_indices=True)


def _lu_factors(lu, m, n):
    """Square unit-lower ``l`` (m, m) and upper ``u`` (n, n) from the packed ``lu``
    (m, n), completed with the identity where m != n (as JAX's lu_jvp_rule)."""
    k = _min_dim(m, n)
    shape, dt = _shape(lu), _aval(lu).dtype
    zero, nb = np.zeros((), dt), len(shape) - 2
    lower, upper = lu, lu
    if not definitely_equal(k, n):  # wide: L = lu[..., :, :m]; U padded with rows
        lower = slice_p.bind(lu, start_indices=(0,) * len(shape),
                             limit_indices=shape[:-1] + (k,), strides=None)
        upper = pad_p.bind(lu, zero, padding_config=((0, 0, 0),) * nb +
                           ((0, n - k, 0), (0, 0, 0)))
    elif not definitely_equal(k, m):  # tall: L padded with columns; U = lu[..., :n, :]
        lower = pad_p.bind(lu, zero, padding_config=((0, 0, 0),) * (nb + 1) +
                           ((0, m - k, 0),))
        upper = slice_p.bind(lu, start_indices=(0,) * len(shape),
                             limit_indices=shape[:-2] + (k, n), strides=None)
    l_mat = add_p.bind(_tril(lower, -1), _eye(_shape(lower), dt))
    u_mat = _triu(upper)
    if not definitely_equal(k, n):  # ones on U's diagonal past the k x k block
        rows = iota_p.bind(dtype=_I32, shape=(n, n), dimension=0)
        tail = _on_matrices(ge_p.bind(rows, np.asarray(k, _I32)), _shape(u_mat))
        u_mat = add_p.bind(u_mat, _keep(tail, _eye(_shape(u_mat), dt)))
    return l_mat, u_mat


def _lu_jvp(primals, tangents):
    """De Hoog, Anderssen & Lukas: with ``P A = L U``, ``L^-1 P dA U^-1 = L^-1 dL +
    dU U^-1`` splits into its strictly lower part (dL) and upper part (dU). Pivots and
    the permutation are piecewise constant: no tangent."""
    (a,), (a_dot,) = primals, tangents
    lu, pivots, perm = lu_p.bind(a)
    if type(a_dot) is _r.Zero:
        return [lu, pivots, perm], _zeros_like([lu, pivots, perm])
    m, n = _shape(a)[-2:]
    l_mat, u_mat = _lu_factors(lu, m, n)
    x = _permute_rows(a_dot, perm)
    la = triangular_solve_p.bind(l_mat, x, left_side=True, lower=True, transpose_a=False,
                                 conjugate_a=False, unit_diagonal=True)
    lau = triangular_solve_p.bind(u_mat, la, left_side=False, lower=False, transpose_a=False,
                                  conjugate_a=False, unit_diagonal=False)
    lu_dot = add_p.bind(_mm(l_mat, _tril(lau, -1)), _mm(_triu(lau), u_mat))
    return [lu, pivots, perm], [lu_dot, _r.Zero.from_value(pivots),
                                _r.Zero.from_value(perm)]


lu_p.jvp = _lu_jvp
_r.defjvp_zero(lu_pivots_to_permutation_p)  # integer-valued (not_differentiable is set)
