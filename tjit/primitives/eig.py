"""``eig_p``: eigen-decomposition of general (non-Hermitian) square matrices, as
``jax.lax.linalg.eig``.

Outputs, in order: the eigenvalues ``w`` (..., n), then the left eigenvectors ``vl``
(when ``compute_left_eigenvectors``), then the right ones ``vr`` (when
``compute_right_eigenvectors``); all complex (complex64 for float32/complex64 input).
Eigenvectors are LAPACK's geev's: columns of unit 2-norm, ``a @ vr[:, i] = w[i] vr[:, i]``
and ``vl[:, i]^H a = w[i] vl[:, i]^H``.

As in JAX this is a CPU-only library call (LAPACK through SciPy, one geev per matrix so
left and right vectors share the eigenvalue order); other array namespaces get an error.
Only the eigenvalues are differentiable (JAX's rule; the eigenvectors' derivative raises
NotImplementedError as JAX does): ``dw_i = (vl_i^H dA vr_i) / (vl_i^H vr_i)``, which is
JAX's ``diag(V^-1 dA V)`` written without a solve. It assumes distinct eigenvalues.
"""

import numpy as np

from tjit.tracing.avals import ShapedArray
from tjit.primitives import rules as _r
from tjit.primitives.base import new_primitive
from tjit.primitives.elementwise import div_p, mul_p
from tjit.primitives.lapack_threads import factorization_work, with_blas_threads
from tjit.primitives.linalg import (_astype, _conj, _front_batch, _mm, check_matrix,
                                    _scipy_linalg)
from tjit.primitives.reductions import reduce_sum_p

_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128),
               np.dtype(np.complex64): np.dtype(np.complex64),
               np.dtype(np.complex128): np.dtype(np.complex128)}

eig_p = new_primitive("eig", multiple_results=True)
eig_p.host_only = "LAPACK geev through NumPy"


@eig_p.def_abstract_eval
def _eig_abstract(x, *, compute_left_eigenvectors, compute_right_eigenvectors):
    check_matrix("eig", x, square=True)
    if x.dtype not in _COMPLEX_OF:
        raise TypeError(f"eig: operand must be float32/64 or complex64/128, got "
                        f"{x.str_short()}; convert with x.astype(jnp.float32) first")
    cdt = _COMPLEX_OF[x.dtype]
    out = [ShapedArray(x.shape[:-1], cdt)]
    out += [ShapedArray(x.shape, cdt)] * (int(compute_left_eigenvectors)
                                          + int(compute_right_eigenvectors))
    return out


# (eigenvalues and vectors keep the operand's weak type, as JAX's: the default rule)


@eig_p.def_impl
@with_blas_threads(factorization_work)
def _eig_impl(xp, x, *, compute_left_eigenvectors, compute_right_eigenvectors):
    if xp is not np:
        raise NotImplementedError("eig: only the CPU computes non-Hermitian "
                                  "eigendecompositions (as in JAX); move the operand with "
                                  "tjit.device_put(x, tjit.devices('cpu')[0]) first")
    x = np.asarray(x)
    cdt = _COMPLEX_OF[x.dtype]
    n = x.shape[-1]
    flat = x.reshape((int(np.prod(x.shape[:-2])), n, n))  # not -1: n may be 0
    w = np.empty(flat.shape[:-1], cdt)
    vl = np.empty(flat.shape, cdt)
    vr = np.empty(flat.shape, cdt)
    if n:
        geev = _scipy_linalg().eig
        for i, m in enumerate(flat):
            if not np.all(np.isfinite(m)):  # LAPACK rejects these: NaN results as JAX
                w[i], vl[i], vr[i] = np.nan, np.nan, np.nan
                continue
            w[i], vl[i], vr[i] = geev(m, left=True, right=True, check_finite=False)
    out = [w.reshape(x.shape[:-1])]
    if compute_left_eigenvectors:
        out.append(vl.reshape(x.shape))
    if compute_right_eigenvectors:
        out.append(vr.reshape(x.shape))
    return out


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors):
    if compute_left_eigenvectors or compute_right_eigenvectors:
        raise NotImplementedError(
            "eig: the derivatives of eigenvectors are not implemented, only eigenvalues "
            "(as in JAX, see jax-ml/jax#2748); differentiate jnp.linalg.eigvals, or use "
            "jnp.linalg.eigh for Hermitian matrices")
    (a,), (g,) = primals, tangents
    w, vl, vr = eig_p.bind(a, compute_left_eigenvectors=True, compute_right_eigenvectors=True)
    if type(g) is _r.Zero:
        return [w], [_r.Zero.from_value(w)]
    cdt = _COMPLEX_OF[np.dtype(_r.get_aval(a).dtype)]
    da_vr = _mm(_astype(g, cdt), vr)
    nb = len(_r.get_aval(a).shape) - 2
    num = reduce_sum_p.bind(mul_p.bind(_conj(vl), da_vr), axes=(nb,))
    den = reduce_sum_p.bind(mul_p.bind(_conj(vl), vr), axes=(nb,))
    return [w], [div_p.bind(num, den)]


eig_p.jvp = _eig_jvp
_front_batch(eig_p)
