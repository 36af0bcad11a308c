"""Vector algebra on pytrees of arrays, for the Krylov solvers of
``tjit.scipy.sparse.linalg``: a vector ``b`` may be any pytree of arrays, and its inner
product sums over all leaves (each flattened), as JAX's solvers do."""

import functools
import operator

from tjit import dtypes, lax
from tjit import numpy as jnp
from tjit.tree_util import tree_leaves, tree_map

# The solvers' inner products run at full precision (a GPU's TF32 would stall convergence).
dot = functools.partial(jnp.dot, precision=lax.Precision.HIGHEST)
vdot = functools.partial(jnp.vdot, precision=lax.Precision.HIGHEST)
einsum = functools.partial(jnp.einsum, precision=lax.Precision.HIGHEST)


def vdot_real_part(x, y):
    """Re(x^H y) of two arrays, a real scalar: the cross terms Re(x)Im(y) are left out,
    which is exact for the z^H M z of a Hermitian positive definite M."""
    result = vdot(x.real, y.real)
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        result = result + vdot(x.imag, y.imag)
    return result


def vdot_real_tree(x, y):
    """``vdot_real_part`` summed over the leaves of two pytrees of one structure."""
    return sum(tree_leaves(tree_map(vdot_real_part, x, y)))


def vdot_tree(x, y):
    """x^H y (conjugating x) summed over the leaves of two pytrees of one structure."""
    return sum(tree_leaves(tree_map(vdot, x, y)))


def norm(x):
    """The 2-norm of a pytree vector (all leaves as one vector), a real scalar."""
    leaves = tree_leaves(x)
    return jnp.sqrt(sum(vdot_real_part(v, v) for v in leaves))


def mul(scalar, tree):
    return tree_map(functools.partial(operator.mul, scalar), tree)


add = functools.partial(tree_map, operator.add)
sub = functools.partial(tree_map, operator.sub)


def safe_normalize(x, thresh=None):
    """(x / ||x||, ||x||), or (0, 0) when ||x|| <= ``thresh`` (default: the machine
    epsilon of x's dtype), so that an exhausted Krylov space gives zeros, not NaNs."""
    nrm = norm(x)
    dtype, weak = dtypes.result_type(*tree_leaves(x), return_weak_type_flag=True)
    if thresh is None:
        thresh = dtypes.finfo(nrm.dtype).eps
    thresh = jnp.real(jnp.asarray(thresh).astype(dtype))
    use_norm = nrm > thresh
    nrm_cast = lax.convert_element_type(nrm, dtype, weak_type=weak)
    normalized = tree_map(lambda y: jnp.where(use_norm, y / nrm_cast, 0.0), x)
    return normalized, jnp.where(use_norm, nrm, 0.0)
