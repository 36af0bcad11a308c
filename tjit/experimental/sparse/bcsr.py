"""BCSR: batched compressed-sparse-row arrays (``jax.experimental.sparse.BCSR``).

Per batch element: ``data`` (nse, *dense), column ``indices`` (nse,) and ``indptr``
(n_rows + 1,), where the entries of row ``r`` are slots ``indptr[r]:indptr[r+1]``; slots
from ``indptr[-1]`` on are padding. Operations convert to BCOO (row coordinates from
``indptr`` by a binary search) and use its kernels.
"""


import numpy as np

import tjit.numpy as jnp
from tjit.experimental.sparse._base import BatchedSparse, broadcast_batch, nfold_vmap
from tjit.experimental.sparse.bcoo import BCOO, bcoo_extract, bcoo_fromdense
from tjit.experimental.sparse.bcoo_dot import bcoo_dot_general
from tjit.experimental.sparse.bcoo_layout import bcoo_concatenate
from tjit.tracing.errors import static_index
from tjit.tracing.tree_util import register_pytree_node_class


@register_pytree_node_class
class BCSR(BatchedSparse):
    """Batched CSR sparse matrix (as ``jax.experimental.sparse.BCSR``).

    Args:
      args: ``(data, indices, indptr)`` with shapes ``batch + (nse,) + dense``,
        ``batch + (nse,)`` and ``batch + (n_rows + 1,)``.
      shape: ``batch + (n_rows, n_cols) + dense``.
    """

    def __init__(self, args, *, shape, indices_sorted=False, unique_indices=False):
        if not (isinstance(args, (tuple, list)) and len(args) == 3):
            raise TypeError("BCSR: args must be a (data, indices, indptr) triple")
        self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
        self.shape = tuple(static_index(d, "shape", "BCSR") for d in shape)
        self.indices_sorted = bool(indices_sorted)
        self.unique_indices = bool(unique_indices)
        _validate(self)

    @property
    def nse(self):
        return self.indices.shape[-1]

    @property
    def n_batch(self):
        return self.indices.ndim - 1

    @property
    def n_sparse(self):
        return 2

    def tree_flatten(self):
        tail = self.shape[self.n_batch:]
        return (self.data, self.indices, self.indptr), (tail, self.shape, self.indices_sorted,
                                                        self.unique_indices)

    @classmethod
    def tree_unflatten(cls, aux, children):
        tail, shape, indices_sorted, unique_indices = aux
        obj = object.__new__(cls)
        obj.data, obj.indices, obj.indptr = children
        obj.indices_sorted, obj.unique_indices = indices_sorted, unique_indices
        ndim = getattr(obj.indices, "ndim", None)
        if not isinstance(ndim, int):
            obj.shape = shape
        elif ndim < 1:
            raise ValueError(f"BCSR of shape {shape}: vmap/in_axes must map a batch dim "
                             "(n_batch >= 1)")
        else:
            obj.shape = tuple(obj.indices.shape[:-1]) + tuple(tail)
        return obj

    def _with_data(self, data):
        return BCSR((data, self.indices, self.indptr), shape=self.shape,
                    indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
        """BCSR array of the nonzeros of the dense ``mat`` (2 sparse dims)."""
        return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_bcoo(cls, arr):
        """BCSR array of the BCOO ``arr`` (which must have 2 sparse dims)."""
        if arr.n_sparse != 2:
            raise NotImplementedError(f"BCSR.from_bcoo needs n_sparse=2; got {arr!r}")
        if not arr.indices_sorted:
            arr = arr.sort_indices()
        n_rows = arr.shape[arr.n_batch]
        batch = arr.shape[:arr.n_batch]
        indices = broadcast_batch(arr.indices, batch)

        def ptr(rows):   # rows sorted; out-of-range rows (padding) fall past the end
            return jnp.searchsorted(rows, jnp.arange(n_rows + 1), side="left").astype(
                rows.dtype)

        indptr = nfold_vmap(ptr, arr.n_batch)(indices[..., 0])
        return cls((broadcast_batch(arr.data, batch), indices[..., 1], indptr),
                   shape=arr.shape, indices_sorted=True, unique_indices=arr.unique_indices)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
        """BCSR array from a 2-D :mod:`scipy.sparse` matrix."""
        if n_dense or n_batch:
            raise NotImplementedError("BCSR.from_scipy_sparse with nonzero n_dense/n_batch")
        mat = mat.tocsr()
        itype = index_dtype or np.int32
        return cls((jnp.asarray(mat.data), jnp.asarray(mat.indices.astype(itype)),
                    jnp.asarray(mat.indptr.astype(itype))), shape=mat.shape)

    def to_bcoo(self):
        """The same array as a BCOO."""
        def rows(indptr, nse):
            slot = jnp.arange(nse, dtype=indptr.dtype)
            return jnp.searchsorted(indptr[1:], slot, side="right").astype(indptr.dtype)

        r = nfold_vmap(lambda p: rows(p, self.nse), self.n_batch)(self.indptr)
        cols = broadcast_batch(self.indices, r.shape[:self.n_batch])
        indices = jnp.stack([r, cols.astype(r.dtype)], axis=-1)
        return BCOO((self.data, indices), shape=self.shape,
                    indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)

    def todense(self):
        """The dense array."""
        return self.to_bcoo().todense()

    def transpose(self, axes=None):
        """The transposed array as a BCSR (``axes`` as :meth:`BCOO.transpose`; batch,
        sparse and dense dims each stay in their group). JAX's BCSR raises here; the
        transpose of a CSR matrix is the CSR matrix of its columns, re-sorted by row."""
        return BCSR.from_bcoo(self.to_bcoo().transpose(axes))

    @property
    def T(self):
        return self.transpose()

    def sum(self, axis=None):
        """Sum over ``axis`` (see :meth:`BCOO.sum`): a BCOO, or a dense scalar when every
        axis is summed (the result has fewer than 2 sparse dims in general, so it cannot
        stay CSR). JAX's BCSR raises here."""
        return self.to_bcoo().sum(axis)

    def sum_duplicates(self, nse=None, remove_zeros=True):
        """Copy with duplicate entries summed (see BCOO.sum_duplicates)."""
        return BCSR.from_bcoo(self.to_bcoo().sum_duplicates(nse=nse, remove_zeros=remove_zeros))


def _validate(mat):
    where = (f"BCSR(data {tuple(mat.data.shape)}, indices {tuple(mat.indices.shape)}, "
             f"indptr {tuple(mat.indptr.shape)}, shape {mat.shape})")
    if not (jnp.issubdtype(mat.indices.dtype, jnp.integer) and
            jnp.issubdtype(mat.indptr.dtype, jnp.integer)):
        raise TypeError(f"{where}: indices and indptr must be integers")
    nb = mat.indices.ndim - 1
    if nb < 0 or len(mat.shape) < nb + 2:
        raise ValueError(f"{where}: shape must be batch + (n_rows, n_cols) + dense")
    if mat.indptr.shape[nb:] != (mat.shape[nb] + 1,):
        raise ValueError(f"{where}: indptr must have shape batch + (n_rows + 1,)")
    if tuple(mat.data.shape[nb:]) != (mat.indices.shape[-1],) + mat.shape[nb + 2:]:
        raise ValueError(f"{where}: data must have shape batch + (nse,) + dense")


def bcsr_fromdense(mat, *, nse=None, n_batch=0, n_dense=0, index_dtype=np.int32):
    """BCSR array of the nonzeros of the dense ``mat`` (``mat.ndim - n_batch - n_dense``
    must be 2). ``nse`` as for :func:`bcoo_fromdense`."""
    mat = jnp.asarray(mat)
    if mat.ndim - n_batch - n_dense != 2:
        raise ValueError(f"bcsr_fromdense: an array of shape {tuple(mat.shape)} with "
                         f"n_batch={n_batch}, n_dense={n_dense} does not have 2 sparse dims")
    return BCSR.from_bcoo(bcoo_fromdense(mat, nse=nse, n_batch=n_batch, n_dense=n_dense,
                                         index_dtype=index_dtype))


def bcsr_todense(mat):
    """Dense array of the BCSR ``mat``."""
    return mat.todense()


def bcsr_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """``lax.dot_general`` with a BCSR operand on either side (through BCOO; see
    :func:`bcoo_dot_general`)."""
    lhs = lhs.to_bcoo() if isinstance(lhs, BCSR) else lhs
    rhs = rhs.to_bcoo() if isinstance(rhs, BCSR) else rhs
    return bcoo_dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                            precision=precision, preferred_element_type=preferred_element_type,
                            out_sharding=out_sharding)


def bcsr_extract(indices, indptr, mat):
    """Values of the dense ``mat`` at the BCSR pattern ``(indices, indptr)``: the ``data``
    of a BCSR with that pattern."""
    mat = jnp.asarray(mat)
    pattern = BCSR((jnp.zeros(indices.shape, mat.dtype), indices, indptr), shape=mat.shape)
    return bcoo_extract(pattern.to_bcoo(), mat).data


def bcsr_sum_duplicates(mat, nse=None):
    """Copy of the BCSR ``mat`` with duplicate entries summed (explicit zeros kept)."""
    return mat.sum_duplicates(nse=nse, remove_zeros=False)


def bcsr_concatenate(operands, *, dimension):
    """``lax.concatenate`` of BCSR arrays (through BCOO; see :func:`bcoo_concatenate`)."""
    return BCSR.from_bcoo(bcoo_concatenate([m.to_bcoo() for m in operands],
                                           dimension=dimension))


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "BCSR", "bcsr_concatenate", "bcsr_dot_general", "bcsr_extract", "bcsr_fromdense",
    "bcsr_sum_duplicates", "bcsr_todense", "nfold_vmap"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
