"""The sparse-array base class and the layout helpers every format shares.

A sparse array of ``shape = batch + sparse + dense`` stores, per batch element, ``nse``
entries: ``data`` of shape ``batch + (nse,) + dense`` and the sparse coordinates of each
entry. Formats write their kernels for one batch element (``n_batch == 0``) and reach the
batched layout with :func:`nfold_vmap`, as JAX's own implementation does.
"""


import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.tracing.core import Tracer, concrete_value
from tjit.tracing.errors import ConcretizationTypeError, static_index


class SparseEfficiencyError(ValueError):
    """A sparse operation would store (nearly) every element explicitly."""


class SparseEfficiencyWarning(UserWarning):
    """A sparse operation stores more elements than it needs to."""


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
    """Kept for JAX parity: tjit never lowers to cuSPARSE, so it is never raised."""


class JAXSparse:
    """Base class of tjit's sparse arrays (``jax.experimental.sparse.JAXSparse``).

    Subclasses set ``shape`` and implement ``todense``, ``tree_flatten`` and
    ``tree_unflatten``; the operators (``@``, ``*``, ``-``, ``.T``, ``sum``) are installed
    on the concrete classes by ``tjit.experimental.sparse._methods``."""

    shape: tuple
    data: object
    # NumPy operands defer to our operators (np_array * sparse stays sparse, not an object
    # array of the dense conversion)
    __array_ufunc__ = None

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        if not self.shape:
            raise TypeError(f"len() of unsized {type(self).__name__} (shape ())")
        return self.shape[0]

    def block_until_ready(self):
        for leaf in tjit.tree_util.tree_leaves(self):
            leaf.block_until_ready()
        return self

    def __array__(self, dtype=None, copy=None):
        del copy
        return np.asarray(self.todense(), dtype=dtype)

    def todense(self):
        raise NotImplementedError(f"{type(self).__name__}.todense")



class BatchedSparse(JAXSparse):
    """A format of ``batch + sparse + dense`` layout (BCOO, BCSR): ``data`` of shape
    ``batch + (nse,) + dense``. Subclasses define ``nse``, ``n_batch`` and ``n_sparse``."""

    @property
    def n_dense(self):
        return self.data.ndim - 1 - self.n_batch

    def __repr__(self):
        extra = f", nse={self.nse}"
        if self.n_batch:
            extra += f", n_batch={self.n_batch}"
        if self.n_dense:
            extra += f", n_dense={self.n_dense}"
        return f"{type(self).__name__}({self.dtype}{list(self.shape)}{extra})"

def split_shape(shape, n_batch, n_sparse):
    """``(batch, sparse, dense)`` parts of ``shape``."""
    shape = tuple(shape)
    return shape[:n_batch], shape[n_batch:n_batch + n_sparse], shape[n_batch + n_sparse:]


def nfold_vmap(fun, n, in_axes=0):
    """``fun`` mapped over ``n`` leading axes (``in_axes`` as vmap's, the same at each level)."""
    for _ in range(n):
        fun = tjit.vmap(fun, in_axes=in_axes)
    return fun


def broadcast_batch(arr, batch_shape):
    """``arr`` (whose leading ``len(batch_shape)`` dims are 1 or full) with full batch dims."""
    n = len(batch_shape)
    if tuple(arr.shape[:n]) == tuple(batch_shape):
        return arr
    return jnp.broadcast_to(arr, tuple(batch_shape) + tuple(arr.shape[n:]))


def concrete_int(value, what, op):
    """``value`` as a non-negative Python int; a traced value raises naming ``op`` and the
    fix, a negative or non-integer one says so."""
    if isinstance(value, Tracer):
        raise ConcretizationTypeError(
            f"{op}: {what} must be known when tracing (it sets the size of the output "
            f"arrays), but it depends on traced values. Fix: pass nse=<int> to {op} inside "
            "jit/vmap/grad.")
    v = np.asarray(concrete_value(value, what))
    if v.shape or not (np.issubdtype(v.dtype, np.integer) or v.dtype == bool) or v < 0:
        raise ValueError(f"{op}: {what} must be a non-negative integer, got {value!r}")
    return int(v)


def canonical_axes(axes, ndim, op):
    """``axes`` (ints, negative from the end) as sorted distinct dims of a rank-``ndim``
    array; out of range raises naming ``op``."""
    out = set()
    for a in axes:
        a = static_index(a, "axes", op)
        if not -ndim <= a < ndim:
            raise ValueError(f"{op}: axis {a} is out of bounds for an array of rank {ndim}")
        out.add(a % ndim)
    return sorted(out)
