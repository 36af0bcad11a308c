"""LAPACK's packed Householder forms, as ``jax.lax.linalg``'s primitives of the same names:

* ``geqrf_p(a)`` -> ``[a_out, taus]``: QR with R in the upper triangle of ``a_out`` and
  the Householder vectors ``v_i`` (unit leading entry, not stored) below its diagonal;
  ``Q = H_0 H_1 ... H_{k-1}``, ``H_i = I - taus_i v_i v_i^H``, ``k = min(m, n)``.
* ``householder_product_p(a, taus)`` -> the first ``n`` columns of that Q (orgqr/ungqr);
  ``a`` is (..., m, n) with ``m >= n``, ``taus`` (..., k) with ``k <= n``.
* ``ormqr_p(a, taus, c, left, transpose)`` -> ``op(Q) @ c`` or ``c @ op(Q)`` without
  forming Q (ormqr/unmqr); ``op`` is Q^H for ``transpose`` (Q^T for real types).
* ``hessenberg_p(a)`` -> ``[a_out, taus]`` (gehrd): the upper Hessenberg form in the upper
  triangle and first subdiagonal of ``a_out``, reflectors below it, ``taus`` (..., n-1);
  ``jax.scipy.linalg.hessenberg`` unpacks it with householder_product.
* ``tridiagonal_p(a, lower)`` -> ``[a_out, d, e, taus]`` (sytrd/hetrd): the reduction of a
  Hermitian matrix (only the ``lower`` or upper triangle is read) to real tridiagonal
  form ``d`` (diagonal) and ``e`` (off-diagonal), reflectors in ``a_out``'s other part.

As JAX's these are CPU library calls (SciPy's LAPACK wrappers, one call per matrix);
LAPACK's results for non-finite input are returned as they are (so are JAX's). float16
and bfloat16 are computed in float32. None is differentiable: JAX defines no
derivative for any of them. Batching moves the mapped axes to the front (an unmapped
operand is broadcast along the batch).
"""

import numpy as np

from tjit.primitives import rules as _r
from tjit.primitives.base import new_primitive, same_dtypes
from tjit.primitives.lapack_threads import factorization_work, with_blas_threads
from tjit.primitives.linalg import (
    _front_batch,
    _lapack_operand,
    _min_dim,
    _scipy_linalg,
    check_matrix,
    real_dtype,
)
from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import definitely_equal, greater_equal, shape_str

geqrf_p = new_primitive("geqrf", multiple_results=True)
householder_product_p = new_primitive("householder_product")
ormqr_p = new_primitive("ormqr")
hessenberg_p = new_primitive("hessenberg", multiple_results=True)
tridiagonal_p = new_primitive("tridiagonal", multiple_results=True)
for _p in (geqrf_p, householder_product_p, ormqr_p, hessenberg_p, tridiagonal_p):
    _p.host_only = "LAPACK through SciPy"


# -- shape checks --------------------------------------------------------------------------
def _holds(check):
    """``check()`` on dims that may be symbolic; undecidable counts as not holding."""
    try:
        return bool(check())
    except InconclusiveDimensionError:
        return False


def _check_vector(name, taus, a, what="taus"):
    if taus.ndim != a.ndim - 1:
        raise ShapeError(f"{name}: {what} must have one dim fewer than a (..., k), got a "
                         f"{shape_str(a.shape)} and {what} {shape_str(taus.shape)}")
    if not all(_holds(lambda x=x, y=y: definitely_equal(x, y))
               for x, y in zip(taus.shape[:-1], a.shape[:-2])):
        raise ShapeError(f"{name}: the batch dims of a {shape_str(a.shape)} and {what} "
                         f"{shape_str(taus.shape)} must be equal; broadcast them first")


def _check_k(name, a, taus):
    m, n = a.shape[-2:]
    if not _holds(lambda: greater_equal(_min_dim(m, n), taus.shape[-1])):
        raise ShapeError(f"{name}: taus {shape_str(taus.shape)} holds more reflectors than "
                         f"a {shape_str(a.shape)} has columns or rows (k <= min(m, n))")


# -- abstract evaluation -------------------------------------------------------------------
@geqrf_p.def_abstract_eval
def _geqrf_abstract(a):
    check_matrix("geqrf", a)
    m, n = a.shape[-2:]
    return [ShapedArray(a.shape, a.dtype),
            ShapedArray((*a.shape[:-2], _min_dim(m, n)), a.dtype)]


@householder_product_p.def_abstract_eval
def _householder_product_abstract(a, taus):
    name = "householder_product"
    check_matrix(name, a)
    same_dtypes(name, (a, taus))
    m, n = a.shape[-2:]
    if not _holds(lambda: greater_equal(m, n)):
        raise ShapeError(f"{name}: a must have at least as many rows as columns (..., m, n) "
                         f"with m >= n, got {shape_str(a.shape)}")
    _check_vector(name, taus, a)
    _check_k(name, a, taus)
    return ShapedArray(a.shape, a.dtype)


@ormqr_p.def_abstract_eval
def _ormqr_abstract(a, taus, c, *, left, transpose):
    check_matrix("ormqr", a)
    same_dtypes("ormqr", (a, taus, c))
    check_matrix("ormqr", c)
    _check_vector("ormqr", taus, a)
    _check_k("ormqr", a, taus)
    if c.ndim != a.ndim or not all(_holds(lambda x=x, y=y: definitely_equal(x, y))
                                   for x, y in zip(c.shape[:-2], a.shape[:-2])):
        raise ShapeError(f"ormqr: the batch dims of a {shape_str(a.shape)} and c "
                         f"{shape_str(c.shape)} must be equal; broadcast them first")
    m = a.shape[-2]
    side_dim, side = (c.shape[-2], "rows") if left else (c.shape[-1], "columns")
    if not _holds(lambda: definitely_equal(side_dim, m)):
        raise ShapeError(f"ormqr: with left={left}, c must have as many {side} as a has "
                         f"rows (Q is m x m), got a {shape_str(a.shape)} and c "
                         f"{shape_str(c.shape)}")
    return ShapedArray(c.shape, c.dtype)


def _reflector_count(name, a):
    n = a.shape[-1]
    if type(n) is int and n == 0:
        raise ShapeError(f"{name}: needs at least a 1 x 1 matrix, got shape "
                         f"{shape_str(a.shape)} (there is no reduction of an empty matrix)")
    return n - 1


@hessenberg_p.def_abstract_eval
def _hessenberg_abstract(a):
    check_matrix("hessenberg", a, square=True)
    k = _reflector_count("hessenberg", a)
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*a.shape[:-2], k), a.dtype)]


@tridiagonal_p.def_abstract_eval
def _tridiagonal_abstract(a, *, lower):
    check_matrix("tridiagonal", a, square=True)
    n = a.shape[-1]
    k = _reflector_count("tridiagonal", a)
    batch, rdt = a.shape[:-2], real_dtype(a.dtype)
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, n), rdt),
            ShapedArray((*batch, k), rdt), ShapedArray((*batch, k), a.dtype)]


# -- reference implementations (LAPACK through SciPy, one call per matrix) -----------------
def _cpu_only(name, xp):
    if xp is not np:
        raise NotImplementedError(
            f"{name}: only the CPU computes this LAPACK routine (as in JAX); move the "
            f"operands with tjit.device_put(x, tjit.devices('cpu')[0]) first")


def _lapack(name, x):
    """SciPy's LAPACK wrapper ``name`` ('geqrf', 'orgqr', ...) for x's dtype; the complex
    'or'/'sy' routines are 'un'/'he'."""
    if dtypes.is_complex(x.dtype):
        name = {"orgqr": "ungqr", "ormqr": "unmqr", "sytrd": "hetrd"}.get(name, name)
    return _scipy_linalg().get_lapack_funcs(name, (x,))


def _flat(x, core_ndim):
    """``x`` as (batch, *core): one entry per matrix (or vector) of the batch."""
    core = x.shape[x.ndim - core_ndim:]
    return x.reshape((int(np.prod(x.shape[:x.ndim - core_ndim])),) + core)


def _checked(name, info):
    if info < 0:  # an argument LAPACK rejects: a bug in the call, never the data
        raise RuntimeError(f"{name}: LAPACK reported an invalid argument {-info}")


@geqrf_p.def_impl
@with_blas_threads(factorization_work, library="scipy")
def _geqrf_impl(xp, a):
    _cpu_only("geqrf", xp)
    dtype, x = np.asarray(a).dtype, _lapack_operand(np, a)
    m, n = x.shape[-2:]
    out = _flat(x, 2).copy()
    taus = np.zeros((out.shape[0], min(m, n)), x.dtype)
    if m and n:
        geqrf = _lapack("geqrf", x)
        for i, mat in enumerate(out):
            out[i], taus[i], _, info = geqrf(mat)
            _checked("geqrf", info)
    return [out.reshape(x.shape).astype(dtype, copy=False),
            taus.reshape(x.shape[:-2] + (min(m, n),)).astype(dtype, copy=False)]


@householder_product_p.def_impl
@with_blas_threads(factorization_work, library="scipy")
def _householder_product_impl(xp, a, taus):
    _cpu_only("householder_product", xp)
    dtype = np.asarray(a).dtype
    x, t = _lapack_operand(np, a), _lapack_operand(np, taus)
    n = x.shape[-1]
    out = np.zeros(_flat(x, 2).shape, x.dtype)
    out[:, range(n), range(n)] = 1  # k = 0 reflectors: the first n columns of I
    if n and t.shape[-1]:
        orgqr = _lapack("orgqr", x)
        for i, (mat, tau) in enumerate(zip(_flat(x, 2), _flat(t, 1))):
            out[i], _, info = orgqr(mat, tau, lwork=max(64 * n, 1))
            _checked("householder_product", info)
    return out.reshape(x.shape).astype(dtype, copy=False)


@ormqr_p.def_impl
@with_blas_threads(factorization_work, library="scipy")
def _ormqr_impl(xp, a, taus, c, *, left, transpose):
    _cpu_only("ormqr", xp)
    dtype = np.asarray(c).dtype
    x, t, cc = (_lapack_operand(np, v) for v in (a, taus, c))
    k = t.shape[-1]
    out = _flat(cc, 2).copy()
    if k and out.size:
        ormqr = _lapack("ormqr", x)
        trans = ("C" if dtypes.is_complex(x.dtype) else "T") if transpose else "N"
        side = "L" if left else "R"
        lwork = max(64 * max(out.shape[1:]), 1)
        for i, (mat, tau) in enumerate(zip(_flat(x, 2), _flat(t, 1))):
            out[i], _, info = ormqr(side, trans, mat[:, :k], tau, out[i], lwork)
            _checked("ormqr", info)
    return out.reshape(cc.shape).astype(dtype, copy=False)


@hessenberg_p.def_impl
@with_blas_threads(factorization_work, library="scipy")
def _hessenberg_impl(xp, a):
    _cpu_only("hessenberg", xp)
    dtype, x = np.asarray(a).dtype, _lapack_operand(np, a)
    n = x.shape[-1]
    out = _flat(x, 2).copy()
    taus = np.zeros((out.shape[0], n - 1), x.dtype)
    if n:
        gehrd = _lapack("gehrd", x)
        for i, mat in enumerate(out):
            out[i], taus[i], info = gehrd(mat, lwork=max(64 * n, 1))
            _checked("hessenberg", info)
    return [out.reshape(x.shape).astype(dtype, copy=False),
            taus.reshape(x.shape[:-2] + (n - 1,)).astype(dtype, copy=False)]


@tridiagonal_p.def_impl
@with_blas_threads(factorization_work, library="scipy")
def _tridiagonal_impl(xp, a, *, lower):
    _cpu_only("tridiagonal", xp)
    dtype, x = np.asarray(a).dtype, _lapack_operand(np, a)
    n, batch = x.shape[-1], x.shape[:-2]
    out = _flat(x, 2).copy()
    rdt = real_dtype(x.dtype)
    d = np.zeros((out.shape[0], n), rdt)
    e = np.zeros((out.shape[0], n - 1), rdt)
    taus = np.zeros((out.shape[0], n - 1), x.dtype)
    if n:
        sytrd = _lapack("sytrd", x)
        for i, mat in enumerate(out):
            out[i], d[i], e[i], taus[i], info = sytrd(mat, lower=int(lower),
                                                      lwork=max(64 * n, 1))
            _checked("tridiagonal", info)
    rdt_out = real_dtype(dtype)
    return [out.reshape(x.shape).astype(dtype, copy=False),
            d.reshape(batch + (n,)).astype(rdt_out, copy=False),
            e.reshape(batch + (n - 1,)).astype(rdt_out, copy=False),
            taus.reshape(batch + (n - 1,)).astype(dtype, copy=False)]


# -- transformation rules ------------------------------------------------------------------
def _all_front_batch(prim):
    """Batching for several operands: each gets the batch axis first (an unbatched one
    is broadcast along it)."""
    def rule(args, dims, **params):
        size = next(_r.get_aval(x).shape[d] for x, d in zip(args, dims) if d is not None)
        out = prim.bind(*(_r.bdim_at_front(x, d, size) for x, d in zip(args, dims)),
                        **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)
    prim.batch = rule


for _p in (geqrf_p, householder_product_p, ormqr_p, hessenberg_p, tridiagonal_p):
    _p.not_differentiable = True  # JAX defines no derivative for any of them
for _p in (geqrf_p, hessenberg_p, tridiagonal_p):
    _front_batch(_p)
for _p in (householder_product_p, ormqr_p):
    _all_front_batch(_p)
del _p
