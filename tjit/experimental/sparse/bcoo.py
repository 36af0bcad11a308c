"""BCOO: batched coordinate-format sparse arrays (``jax.experimental.sparse.BCOO``).

``data`` has shape ``batch + (nse,) + dense`` and ``indices`` shape
``batch + (nse, n_sparse)``: entry ``j`` of batch element ``b`` holds the block
``data[b, j]`` at sparse coordinates ``indices[b, j]``. Duplicate coordinates add up;
a coordinate out of bounds (the padding ``fromdense`` writes, equal to the sparse shape)
marks an unused slot that ``todense`` drops.

Every operation here is a composition of jnp/lax operations (gather, scatter-add,
sort), written for one batch element and mapped over batch dims with vmap: they run
eagerly, under jit in compiled kernels, and grad/vmap differentiate and batch them
without rules of their own.
"""


import numpy as np

import tjit.numpy as jnp
from tjit.experimental.sparse._base import (
    BatchedSparse, broadcast_batch, canonical_axes, concrete_int, nfold_vmap, split_shape)
from tjit.tracing.errors import static_index
from tjit.tracing.tree_util import register_pytree_node_class


@register_pytree_node_class
class BCOO(BatchedSparse):
    """Batched COO sparse array (as ``jax.experimental.sparse.BCOO``).

    Args:
      args: ``(data, indices)``: ``data`` of shape ``batch + (nse,) + dense``, ``indices``
        (integer) of shape ``batch + (nse, n_sparse)``.
      shape: the shape of the array, ``batch + sparse + dense``.
      indices_sorted: whether the indices are in lexicographic order (a promise).
      unique_indices: whether no coordinate appears twice (a promise).

    Example:
      >>> M = BCOO.fromdense(jnp.array([[0., 2., 0.], [1., 0., 4.]]))
      >>> M.nse, M.indices.tolist()
      (3, [[0, 1], [1, 0], [1, 2]])
    """

    def __init__(self, args, *, shape, indices_sorted=False, unique_indices=False):
        if not (isinstance(args, (tuple, list)) and len(args) == 2):
            raise TypeError("BCOO: args must be a (data, indices) pair, got "
                            f"{type(args).__name__}")
        self.data, self.indices = (jnp.asarray(a) for a in args)
        self.shape = tuple(static_index(d, "shape", "BCOO") for d in shape)
        self.indices_sorted = bool(indices_sorted)
        self.unique_indices = bool(unique_indices)
        validate_bcoo(self.data, self.indices, self.shape)

    @property
    def nse(self):
        return self.indices.shape[-2]

    @property
    def n_batch(self):
        return self.indices.ndim - 2

    @property
    def n_sparse(self):
        return self.indices.shape[-1]

    # pytree: the batch dims are read from the leaves, so that vmap over a batch dim of a
    # BCOO hands the mapped function a BCOO with one batch dim fewer (and stacks it back)
    def tree_flatten(self):
        tail = self.shape[self.n_batch:]
        return (self.data, self.indices), (tail, self.shape, self.indices_sorted,
                                           self.unique_indices)

    @classmethod
    def tree_unflatten(cls, aux, children):
        tail, shape, indices_sorted, unique_indices = aux
        obj = object.__new__(cls)
        obj.data, obj.indices = children
        obj.indices_sorted, obj.unique_indices = indices_sorted, unique_indices
        ndim = getattr(obj.indices, "ndim", None)
        if not isinstance(ndim, int):      # tree_map to non-arrays (specs, None, ...)
            obj.shape = shape
        elif ndim < 2:
            raise ValueError(
                f"BCOO: indices of shape {tuple(obj.indices.shape)} (a BCOO of shape {shape} "
                "mapped over a non-batch axis?). vmap/in_axes over a BCOO must map one of its "
                "batch dims (n_batch >= 1): build it with BCOO.fromdense(..., n_batch=1).")
        else:
            obj.shape = tuple(obj.indices.shape[:-2]) + tuple(tail)
        return obj

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense=0, n_batch=0):
        """BCOO array holding the nonzeros of the dense ``mat`` (see :func:`bcoo_fromdense`)."""
        return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_scipy_sparse(cls, mat, *, index_dtype=None, n_dense=0, n_batch=0):
        """BCOO array from a :mod:`scipy.sparse` matrix (``n_batch = n_dense = 0``)."""
        if n_dense or n_batch:
            raise NotImplementedError("BCOO.from_scipy_sparse with nonzero n_dense/n_batch")
        mat = mat.tocoo()
        indices = np.column_stack((mat.row, mat.col)).astype(index_dtype or np.int32)
        return cls((jnp.asarray(mat.data), jnp.asarray(indices)), shape=mat.shape)

    def todense(self):
        """The dense array (duplicates added, out-of-bounds entries dropped)."""
        return bcoo_todense(self)

    def transpose(self, axes=None):
        """The transposed array (``axes``: a permutation; default reverses the dims)."""
        perm = tuple(range(self.ndim))[::-1] if axes is None else tuple(axes)
        return bcoo_transpose(self, permutation=perm)

    @property
    def T(self):
        return self.transpose()

    def sort_indices(self):
        """Copy with indices in lexicographic order (see :func:`bcoo_sort_indices`)."""
        return bcoo_sort_indices(self)

    def sum_duplicates(self, nse=None, remove_zeros=True):
        """Copy with duplicate coordinates summed and indices sorted.

        Args:
          nse: the output's nse (required under jit); extra slots are padding, entries
            beyond it are dropped.
          remove_zeros: also drop the entries whose stored value is zero (as JAX: not
            differentiable).
        """
        if remove_zeros:
            return bcoo_eliminate_zeros(self, nse=nse)
        return bcoo_sum_duplicates(self, nse=nse)

    def sum(self, axis=None):
        """Sum over ``axis`` (an int, a tuple, or None for all): a BCOO, or (as JAX's) a
        dense scalar when every axis is summed."""
        if axis is None:
            axes = tuple(range(self.ndim))
        else:
            axes = (axis,) if isinstance(axis, int) else tuple(axis)
        out = bcoo_reduce_sum(self, axes=axes)
        return out.data.sum() if out.shape == () else out

    def astype(self, dtype):
        return self._with_data(self.data.astype(dtype))

    def _with_data(self, data):
        """Same indices and flags, new values."""
        return BCOO((data, self.indices), shape=self.shape,
                    indices_sorted=self.indices_sorted, unique_indices=self.unique_indices)


def validate_bcoo(data, indices, shape):
    """Check that ``data``/``indices`` fit ``shape``; return
    ``(n_batch, n_sparse, n_dense, nse)``."""
    where = f"BCOO(data {tuple(data.shape)}, indices {tuple(indices.shape)}, shape {shape})"
    if not jnp.issubdtype(indices.dtype, jnp.integer):
        raise TypeError(f"{where}: indices must be integers, got {indices.dtype}")
    if indices.ndim < 2:
        raise ValueError(f"{where}: indices must have shape batch + (nse, n_sparse)")
    nse, n_sparse = indices.shape[-2:]
    n_batch = indices.ndim - 2
    n_dense = len(shape) - n_batch - n_sparse
    if n_dense < 0:
        raise ValueError(f"{where}: n_batch={n_batch} + n_sparse={n_sparse} exceeds "
                         f"len(shape)={len(shape)}")
    for what, arr in (("indices", indices), ("data", data)):
        if any(s not in (1, full) for s, full in zip(arr.shape[:n_batch], shape[:n_batch])):
            raise ValueError(f"{where}: {what} batch dims {tuple(arr.shape[:n_batch])} do "
                             f"not match the shape's {shape[:n_batch]} (each must be 1 or equal)")
    if tuple(data.shape[n_batch:]) != (nse,) + tuple(shape[n_batch + n_sparse:]):
        raise ValueError(f"{where}: data must have shape batch + (nse={nse},) + dense "
                         f"{shape[n_batch + n_sparse:]}")
    return n_batch, n_sparse, n_dense, nse


def _full_batch(mat):
    """``(data, indices)`` with their batch dims broadcast to the array's."""
    batch = mat.shape[:mat.n_batch]
    return broadcast_batch(mat.data, batch), broadcast_batch(mat.indices, batch)


def _columns(indices):
    return tuple(indices[:, i] for i in range(indices.shape[-1]))


# ---------------------------------------------------------------- todense / fromdense

def bcoo_todense(mat):
    """Dense array of the BCOO ``mat``: duplicates summed, out-of-bounds entries dropped."""
    _, sparse, dense = split_shape(mat.shape, mat.n_batch, mat.n_sparse)

    def one(data, indices):
        if not sparse:
            return data.sum(0)
        out = jnp.zeros(sparse + dense, data.dtype)
        return out.at[_columns(indices)].add(data, mode="drop")

    return nfold_vmap(one, mat.n_batch)(*_full_batch(mat))


def _nse_of(mask, n_batch):
    """Max over batch elements of the nonzero count of ``mask`` (concrete values only)."""
    counts = mask.reshape(mask.shape[:n_batch] + (-1,)).sum(-1)
    return concrete_int(counts.max() if counts.size else 0, "nse", "bcoo_fromdense")


def bcoo_fromdense(mat, *, nse=None, n_batch=0, n_dense=0, index_dtype=np.int32):
    """BCOO array of the nonzero entries of the dense ``mat``.

    Args:
      mat: the dense array.
      nse: entries stored per batch element (default: the largest nonzero count; required
        under jit). Extra slots are padding (data 0, indices = the sparse shape).
      n_batch, n_dense: leading batch and trailing dense dims of the layout.
      index_dtype: integer dtype of the indices.

    Returns:
      A BCOO with sorted, unique indices.
    """
    mat = jnp.asarray(mat)
    n_sparse = mat.ndim - n_batch - n_dense
    if min(n_batch, n_dense, n_sparse) < 0:
        raise ValueError(f"bcoo_fromdense: n_batch={n_batch}, n_dense={n_dense} do not fit "
                         f"an array of shape {mat.shape}")
    mask = mat != 0
    if n_dense:
        mask = mask.any(tuple(range(mat.ndim - n_dense, mat.ndim)))
    nse = _nse_of(mask, n_batch) if nse is None else concrete_int(nse, "nse", "bcoo_fromdense")
    _, sparse, _ = split_shape(mat.shape, n_batch, n_sparse)

    def one(m, k):
        count = k.sum()
        if sparse:
            idx = jnp.stack(jnp.nonzero(k, size=nse, fill_value=sparse), axis=-1)
            idx = idx.astype(index_dtype)
        else:
            idx = jnp.zeros((nse, 0), index_dtype)
        data = _extract(idx, m)
        live = jnp.arange(nse) < count
        return jnp.where(live.reshape((nse,) + (1,) * n_dense), data, 0), idx

    data, indices = nfold_vmap(one, n_batch)(mat, mask)
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def _extract(indices, arr):
    """Blocks of the dense ``arr`` at the coordinates ``indices`` (0 out of bounds)."""
    n_sparse = indices.shape[-1]
    if not n_sparse:
        return jnp.broadcast_to(arr, (indices.shape[0],) + arr.shape)
    return arr.at[_columns(indices)].get(mode="fill", fill_value=0)


def bcoo_extract(sparr, arr, *, assume_unique=None):
    """BCOO with ``sparr``'s indices and the values of the dense ``arr`` at them.

    Args:
      sparr: the BCOO whose indices are used.
      arr: an array of ``sparr.shape``.
      assume_unique: if False, a repeated coordinate gets the value once (at its first
        occurrence, 0 elsewhere), so that ``todense`` returns ``arr`` on the pattern.
        Default: ``sparr.unique_indices``.
    """
    arr = jnp.asarray(arr)
    if tuple(arr.shape) != sparr.shape:
        raise ValueError(f"bcoo_extract: arr of shape {tuple(arr.shape)} must have the "
                         f"sparse array's shape {sparr.shape}")
    if assume_unique is None:
        assume_unique = sparr.unique_indices
    indices = broadcast_batch(sparr.indices, sparr.shape[:sparr.n_batch])

    def one(idx, a):
        data = _extract(idx, a)
        if not assume_unique:
            first = _first_occurrences(idx, a.shape[:idx.shape[-1]])
            data = jnp.where(first.reshape(first.shape + (1,) * (data.ndim - 1)), data, 0)
        return data

    data = nfold_vmap(one, sparr.n_batch)(indices, arr)
    return BCOO((data, indices), shape=sparr.shape, indices_sorted=sparr.indices_sorted,
                unique_indices=sparr.unique_indices)


# ---------------------------------------------------------------- sorting and duplicates

def _in_bounds(indices, sparse_shape):
    bound = jnp.array(sparse_shape, indices.dtype)
    return jnp.all((indices >= 0) & (indices < bound), axis=-1)


def _lexsort_order(indices):
    """Permutation sorting ``indices`` (nse, n_sparse) lexicographically, stably."""
    n_sparse = indices.shape[-1]
    if not n_sparse:
        return jnp.arange(indices.shape[0])
    return jnp.lexsort(tuple(indices[:, i] for i in reversed(range(n_sparse))))


def _first_occurrences(indices, sparse_shape):
    """True at the first slot of each distinct in-bounds coordinate of ``indices``."""
    if indices.shape[0] == 0:
        return jnp.zeros((0,), bool)
    order = _lexsort_order(indices)
    s = indices[order]
    new = jnp.concatenate([jnp.ones((1,), bool), jnp.any(s[1:] != s[:-1], axis=-1)])
    new = new & _in_bounds(s, sparse_shape)
    return jnp.zeros(indices.shape[0], bool).at[order].set(new)


def bcoo_sort_indices(mat):
    """Copy of ``mat`` with each batch element's indices sorted lexicographically."""
    def one(data, indices):
        order = _lexsort_order(indices)
        return data[order], indices[order]

    data, indices = nfold_vmap(one, mat.n_batch)(*_full_batch(mat))
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True,
                unique_indices=mat.unique_indices)


def _unique_groups(indices, sparse_shape):
    """Sorted order, group id of each sorted slot and the count of distinct in-bounds
    coordinates; out-of-bounds slots are moved past every in-bounds one."""
    pad = jnp.array(sparse_shape, indices.dtype)
    ok = _in_bounds(indices, sparse_shape)
    keyed = jnp.where(ok[:, None], indices, pad)
    order = _lexsort_order(keyed)
    s = keyed[order]
    new = jnp.concatenate([jnp.ones((1,), bool), jnp.any(s[1:] != s[:-1], axis=-1)])
    group = jnp.cumsum(new) - 1
    return order, s, group, (new & ok[order]).sum()


def bcoo_sum_duplicates(mat, nse=None):
    """Copy of ``mat`` with repeated coordinates summed into one sorted entry each.

    Args:
      mat: a BCOO.
      nse: the output's nse (required under jit); default the largest count of distinct
        in-bounds coordinates. Extra slots are padding; entries beyond it are dropped.
    """
    batch, sparse, dense = split_shape(mat.shape, mat.n_batch, mat.n_sparse)
    data, indices = _full_batch(mat)
    if not sparse:   # every entry sits at the one coordinate ()
        total = data.sum(mat.n_batch, keepdims=True)
        return BCOO((total, indices[..., :1, :]), shape=mat.shape, indices_sorted=True,
                    unique_indices=True)
    if mat.nse == 0:     # nothing to sum: padding only
        nse = 0 if nse is None else concrete_int(nse, "nse", "bcoo_sum_duplicates")
        return BCOO((jnp.zeros(batch + (nse,) + dense, data.dtype),
                     jnp.broadcast_to(jnp.array(sparse, indices.dtype),
                                      batch + (nse, len(sparse)))),
                    shape=mat.shape, indices_sorted=True, unique_indices=True)
    if nse is None:
        counts = nfold_vmap(lambda i: _unique_groups(i, sparse)[3], mat.n_batch)(indices)
        nse = concrete_int(jnp.max(counts) if counts.size else 0, "nse",
                           "bcoo_sum_duplicates")
    nse = concrete_int(nse, "nse", "bcoo_sum_duplicates")

    def one(d, i):
        order, s, group, _ = _unique_groups(i, sparse)
        ok = _in_bounds(s, sparse)
        ds = jnp.where(ok.reshape(ok.shape + (1,) * len(dense)), d[order], 0)
        out_d = jnp.zeros((nse,) + dense, d.dtype).at[group].add(ds, mode="drop")
        fill = jnp.broadcast_to(jnp.array(sparse, i.dtype), (nse, len(sparse)))
        out_i = fill.at[group].set(s, mode="drop")
        return out_d, out_i

    out_d, out_i = nfold_vmap(one, mat.n_batch)(data, indices)
    return BCOO((out_d, out_i), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_eliminate_zeros(mat, nse=None):
    """Drop the entries whose value is zero, then sum duplicates (as JAX's)."""
    batch, sparse, _ = split_shape(mat.shape, mat.n_batch, mat.n_sparse)
    data, indices = _full_batch(mat)
    zero = jnp.all(data == 0, axis=tuple(range(mat.n_batch + 1, data.ndim)))
    pad = jnp.array(sparse, indices.dtype)
    indices = jnp.where(zero[..., None], pad, indices)
    return bcoo_sum_duplicates(BCOO((data, indices), shape=mat.shape), nse=nse)


# ---------------------------------------------------------------- layout-changing ops

def bcoo_transpose(mat, *, permutation):
    """BCOO of ``mat`` with dims permuted; batch, sparse and dense dims must each stay in
    their own group (as JAX's ``bcoo_transpose``)."""
    perm = tuple(static_index(p, "permutation", "bcoo_transpose") for p in permutation)
    nb, ns = mat.n_batch, mat.n_sparse
    if sorted(perm) != list(range(mat.ndim)):
        raise ValueError(f"bcoo_transpose: permutation {perm} is not a permutation of "
                         f"range({mat.ndim}) (array shape {mat.shape})")
    batch_perm, sparse_perm, dense_perm = perm[:nb], perm[nb:nb + ns], perm[nb + ns:]
    if (sorted(batch_perm) != list(range(nb)) or
            sorted(sparse_perm) != list(range(nb, nb + ns))):
        raise NotImplementedError(
            f"bcoo_transpose: permutation {perm} mixes batch (n_batch={nb}), sparse "
            f"(n_sparse={ns}) and dense dims. Fix: change the layout first with "
            "bcoo_update_layout or todense()/fromdense().")
    data = mat.data.transpose(batch_perm + (nb,) + tuple(p - ns + 1 for p in dense_perm))
    indices = mat.indices.transpose(batch_perm + (nb, nb + 1))
    if sparse_perm != tuple(range(nb, nb + ns)):
        indices = indices[..., jnp.array([p - nb for p in sparse_perm], np.int32)]
    sorted_ = mat.indices_sorted and sparse_perm == tuple(range(nb, nb + ns))
    return BCOO((data, indices), shape=tuple(mat.shape[p] for p in perm),
                indices_sorted=sorted_, unique_indices=mat.unique_indices)


def bcoo_reduce_sum(mat, *, axes):
    """Sum of ``mat`` over ``axes``, as a BCOO (duplicates may appear: summing sparse
    dims merges coordinates; summing batch dims concatenates their entries)."""
    nb, ns = mat.n_batch, mat.n_sparse
    axes = canonical_axes(axes, mat.ndim, "bcoo_reduce_sum")
    batch, sparse, dense = split_shape(mat.shape, nb, ns)
    data, indices = _full_batch(mat)
    # dense axes: sum the blocks
    dense_axes = [a for a in axes if a >= nb + ns]
    if dense_axes:
        data = data.sum(tuple(a - ns + 1 for a in dense_axes))
    # sparse axes: drop their index columns, zeroing entries that were out of bounds there
    sparse_axes = [a - nb for a in axes if nb <= a < nb + ns]
    if sparse_axes:
        cols = jnp.array(sparse_axes, np.int32)
        bound = jnp.array([sparse[a] for a in sparse_axes], indices.dtype)
        gone = indices[..., cols]
        ok = jnp.all((gone >= 0) & (gone < bound), axis=-1)
        data = jnp.where(ok.reshape(ok.shape + (1,) * (data.ndim - ok.ndim)), data, 0)
        keep = [i for i in range(ns) if i not in sparse_axes]
        indices = indices[..., jnp.array(keep, np.int32)] if keep else indices[..., :0]
    # batch axes: fold them into nse
    batch_axes = [a for a in axes if a < nb]
    if batch_axes:
        kept = [a for a in range(nb) if a not in batch_axes]
        order = kept + batch_axes
        data = data.transpose(order + list(range(nb, data.ndim)))
        indices = indices.transpose(order + [nb, nb + 1])
        new_batch = tuple(batch[a] for a in kept)
        nse = int(np.prod(data.shape[len(kept):nb + 1]))
        data = data.reshape(new_batch + (nse,) + tuple(data.shape[nb + 1:]))
        indices = indices.reshape(new_batch + (nse, indices.shape[-1]))
    shape = tuple(d for i, d in enumerate(mat.shape) if i not in axes)
    return BCOO((data, indices), shape=shape)


def bcoo_multiply_dense(sp_mat, v):
    """Elementwise product of the BCOO ``sp_mat`` and the dense ``v`` (broadcast to
    ``sp_mat.shape``), a BCOO with ``sp_mat``'s indices."""
    v = jnp.asarray(v)
    if v.ndim == 0:
        return BCOO((sp_mat.data * v, sp_mat.indices), shape=sp_mat.shape,
                    indices_sorted=sp_mat.indices_sorted, unique_indices=sp_mat.unique_indices)
    try:
        out_shape = np.broadcast_shapes(sp_mat.shape, tuple(v.shape))
    except ValueError:
        out_shape = None
    if out_shape != sp_mat.shape:
        raise ValueError(f"bcoo_multiply_dense: a dense operand of shape {tuple(v.shape)} "
                         f"must broadcast to the sparse shape {sp_mat.shape} (the product "
                         "keeps the sparse array's shape)")
    data, indices = _full_batch(sp_mat)
    v = jnp.broadcast_to(v, sp_mat.shape)
    vals = nfold_vmap(_extract, sp_mat.n_batch)(indices, v)
    return BCOO((data * vals, indices), shape=sp_mat.shape,
                indices_sorted=sp_mat.indices_sorted, unique_indices=sp_mat.unique_indices)


def bcoo_concatenate_nse(mats):
    """BCOO holding the entries of all ``mats`` (same shape and layout): their sum."""
    first = mats[0]
    for m in mats[1:]:
        if m.shape != first.shape or (m.n_batch, m.n_dense) != (first.n_batch, first.n_dense):
            raise ValueError(f"sparse add: shapes/layouts differ: {first!r} and {m!r}")
    parts = [_full_batch(m) for m in mats]
    dtype = jnp.result_type(*[d for d, _ in parts])
    data = jnp.concatenate([d.astype(dtype) for d, _ in parts], axis=first.n_batch)
    itype = jnp.result_type(*[i for _, i in parts])
    indices = jnp.concatenate([i.astype(itype) for _, i in parts], axis=first.n_batch)
    return BCOO((data, indices), shape=first.shape)


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "BCOO", "bcoo_eliminate_zeros", "bcoo_extract", "bcoo_fromdense",
    "bcoo_multiply_dense", "bcoo_reduce_sum", "bcoo_sort_indices",
    "bcoo_sum_duplicates", "bcoo_todense", "bcoo_transpose", "nfold_vmap"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
