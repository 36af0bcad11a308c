"""``schur_p``: the Schur decomposition of square matrices, as ``jax.scipy.linalg.schur``
computes it.

* ``schur_p(a)`` -> ``[t, z]`` with ``a = z t z^H``, ``z`` unitary; ``t`` upper
  quasi-triangular (2x2 blocks for complex pairs) for real ``a``, triangular for complex.

As JAX's, this is a CPU-only library call (LAPACK gees through SciPy, one call per
matrix); under jit it runs as a library step. It is not differentiable (JAX defines no
derivative for it). Batching moves the mapped axis to the front. (The Hessenberg
reduction is ``tjit/primitives/householder.py``'s ``hessenberg_p``.)
"""

import numpy as np

from tjit.primitives.base import new_primitive
from tjit.primitives.lapack_threads import factorization_work, with_blas_threads
from tjit.primitives.linalg import _front_batch, _scipy_linalg, check_matrix
from tjit.tracing.avals import ShapedArray

schur_p = new_primitive("schur", multiple_results=True)
schur_p.host_only = "LAPACK gees through SciPy"


def _abstract(name):
    def rule(a):
        check_matrix(name, a, square=True)
        return [ShapedArray(a.shape, a.dtype)] * 2
    return rule


def _per_matrix(name, decompose):
    """Reference implementation: ``decompose(m) -> (x, y)`` on each matrix of the batch;
    non-finite matrices give NaNs (LAPACK rejects them), as JAX's."""
    def impl(xp, a):
        if xp is not np:
            raise NotImplementedError(
                f"{name}: only the CPU computes this decomposition (as in JAX); move the "
                f"operand with tjit.device_put(x, tjit.devices('cpu')[0]) first")
        a = np.asarray(a)
        n = a.shape[-1]
        flat = a.reshape((int(np.prod(a.shape[:-2])), n, n))
        x, y = np.empty_like(flat), np.empty_like(flat)
        for i, m in enumerate(flat):
            if not np.all(np.isfinite(m)):
                x[i], y[i] = np.nan, np.nan
                continue
            x[i], y[i] = decompose(m)
        return [x.reshape(a.shape), y.reshape(a.shape)]
    return impl


def _schur(m):
    return _scipy_linalg().schur(m, output="real", check_finite=False)


schur_p.def_abstract_eval(_abstract("schur"))
schur_p.def_impl(with_blas_threads(factorization_work, library="scipy")(
    _per_matrix("schur", _schur)))
schur_p.not_differentiable = True  # JAX defines no derivative for it
_front_batch(schur_p)
