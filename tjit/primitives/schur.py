"""``schur_p`` and ``hessenberg_p``: the Schur and Hessenberg decompositions of square
matrices, as ``jax.scipy.linalg.schur`` / ``hessenberg`` compute them.

* ``schur_p(a)`` -> ``[t, z]`` with ``a = z t z^H``, ``z`` unitary; ``t`` upper
  quasi-triangular (2x2 blocks for complex pairs) for real ``a``, triangular for complex.
* ``hessenberg_p(a)`` -> ``[h, q]`` with ``a = q h q^H``, ``h`` zero below the first
  subdiagonal.

As JAX's, these are CPU-only library calls (LAPACK gees/gehrd through SciPy, one call per
matrix); under jit they run as library steps. Neither is differentiable (JAX defines no
derivative for them). Batching moves the mapped axis to the front.
"""

import numpy as np

from tjit.primitives.base import new_primitive
from tjit.primitives.linalg import _front_batch, _scipy_linalg, check_matrix
from tjit.tracing.avals import ShapedArray

schur_p = new_primitive("schur", multiple_results=True)
hessenberg_p = new_primitive("hessenberg", multiple_results=True)


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


def _hessenberg(m):
    h, q = _scipy_linalg().hessenberg(m, calc_q=True, check_finite=False)
    return np.triu(h, -1), q


for _p, _name, _fn in ((schur_p, "schur", _schur), (hessenberg_p, "hessenberg", _hessenberg)):
    _p.def_abstract_eval(_abstract(_name))
    _p.def_impl(_per_matrix(_name, _fn))
    _p.not_differentiable = True  # JAX defines no derivative for either
    _front_batch(_p)
del _p, _name, _fn
