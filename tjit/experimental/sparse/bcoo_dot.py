"""Contractions of a BCOO array with a dense one: ``bcoo_dot_general`` (sparse-dense and
dense-sparse, dense result) and ``bcoo_dot_general_sampled`` (a dense product computed
only at given sparse indices: the gradient of a sparse matmul w.r.t. its values).

For one batch element the product is a gather of the dense operand at the stored
coordinates of the contracted dims, a multiply by the stored values, and a scatter-add
into the output at the coordinates of the kept sparse dims: work proportional to
``nse`` times the size of the dense operand's kept dims.
"""


import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.tracing.errors import static_index
from tjit import lax
from tjit.experimental.sparse.bcoo import (
    BCOO, _extract, _full_batch, bcoo_extract, bcoo_sum_duplicates)


def _dims(seq):
    seq = seq if isinstance(seq, (tuple, list)) else (seq,)
    return tuple(static_index(d, "dimension_numbers", "bcoo_dot_general") for d in seq)


def _normalize(dimension_numbers, lhs_ndim, rhs_ndim, op):
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"{op}: dimension_numbers must be ((lhs_contract, rhs_contract), "
                        f"(lhs_batch, rhs_batch)), got {dimension_numbers!r}") from None
    lc, rc, lb, rb = map(_dims, (lc, rc, lb, rb))
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise ValueError(f"{op}: contracting dims {lc}/{rc} or batch dims {lb}/{rb} differ "
                         "in number between the operands")
    for d, n in ((lc + lb, lhs_ndim), (rc + rb, rhs_ndim)):
        if any(not 0 <= x < n for x in d) or len(set(d)) != len(d):
            raise ValueError(f"{op}: dims {d} are repeated or out of range for rank {n}")
    return lc, rc, lb, rb


def _check_sizes(lhs_shape, rhs_shape, lc, rc, lb, rb, op):
    for l, r in zip(lc + lb, rc + rb):
        if lhs_shape[l] != rhs_shape[r]:
            raise TypeError(f"{op}: lhs dim {l} (size {lhs_shape[l]}) and rhs dim {r} (size "
                            f"{rhs_shape[r]}) are paired but differ; shapes {tuple(lhs_shape)} "
                            f"and {tuple(rhs_shape)}")


def bcoo_dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                     preferred_element_type=None, out_sharding=None):
    """``lax.dot_general`` with a BCOO operand on either side; the result is dense.

    Args:
      lhs, rhs: a BCOO array and a dense array (either order).
      dimension_numbers: ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``. The
        sparse operand's batch dims of the product must be batch dims of its layout, and
        it may contract over its batch and sparse dims, not its dense dims (as JAX).
      precision, out_sharding: accepted for JAX parity; unused.
      preferred_element_type: dtype of the result.
    """
    del precision, out_sharding
    op = "bcoo_dot_general"
    if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):
        return _sparse_sparse(lhs, rhs, dimension_numbers, preferred_element_type)
    if isinstance(lhs, BCOO):
        return _sparse_dense(lhs, jnp.asarray(rhs), dimension_numbers, preferred_element_type)
    if isinstance(rhs, BCOO):
        lhs = jnp.asarray(lhs)
        swapped = tuple(tuple(d[::-1]) for d in dimension_numbers)
        out = _sparse_dense(rhs, lhs, swapped, preferred_element_type)
        # out: (batch, rhs kept, lhs kept) -> (batch, lhs kept, rhs kept)
        n_contract, n_batch = (len(_dims(d[0])) for d in dimension_numbers)
        n_swap = rhs.ndim - n_contract
        perm = (*range(n_batch), *range(n_swap, out.ndim), *range(n_batch, n_swap))
        return out.transpose(perm)
    return lax.dot_general(lhs, rhs, dimension_numbers,
                           preferred_element_type=preferred_element_type)


def _sparse_dense(mat, rhs, dimension_numbers, preferred_element_type):
    op = "bcoo_dot_general"
    lc, rc, lb, rb = _normalize(dimension_numbers, mat.ndim, rhs.ndim, op)
    _check_sizes(mat.shape, rhs.shape, lc, rc, lb, rb, op)
    nb, ns = mat.n_batch, mat.n_sparse
    if any(d >= nb for d in lb):
        raise NotImplementedError(
            f"{op}: batch dims {lb} of the sparse operand must be among its {nb} layout batch "
            f"dims ({mat!r}). Fix: BCOO.fromdense(..., n_batch=...) so they are.")
    if any(d >= nb + ns for d in lc):
        raise NotImplementedError(f"{op}: contracting over the dense dims of {mat!r}")
    dtype = preferred_element_type or jnp.result_type(mat.dtype, rhs.dtype)
    # split the layout batch dims: product-batch, contracted, free
    c_batch = [(l, r) for l, r in zip(lc, rc) if l < nb]
    c_sparse = [(l - nb, r) for l, r in zip(lc, rc) if l >= nb]
    free_batch = [d for d in range(nb) if d not in lb and d not in lc]
    lhs_order = list(lb) + [l for l, _ in c_batch] + free_batch
    data, indices = _full_batch(mat)
    data = data.transpose(lhs_order + list(range(nb, data.ndim)))
    indices = indices.transpose(lhs_order + [nb, nb + 1])
    rhs_front = list(rb) + [r for _, r in c_batch]
    rhs_contract = [r for _, r in c_sparse]
    rhs_free = [d for d in range(rhs.ndim) if d not in rhs_front and d not in rhs_contract]
    rhs = rhs.transpose(rhs_front + rhs_contract + rhs_free)

    contract = [c for c, _ in c_sparse]
    kept = [d for d in range(ns) if d not in contract]
    kept_shape = tuple(mat.shape[nb + d] for d in kept)
    n_rhs_free = len(rhs_free)

    def one(d, i, r):
        return _spmm_one(d.astype(dtype), i, r.astype(dtype), contract, kept, kept_shape,
                         n_rhs_free)

    fun = one
    for _ in free_batch:
        fun = tjit.vmap(fun, in_axes=(0, 0, None))
    for _ in range(len(lb) + len(c_batch)):
        fun = tjit.vmap(fun, in_axes=(0, 0, 0))
    out = fun(data, indices, rhs)
    if c_batch:
        out = out.sum(tuple(range(len(lb), len(lb) + len(c_batch))))
    return out


def _spmm_one(data, indices, rhs, contract, kept, kept_shape, n_rhs_free):
    """One batch element: ``data`` (nse, *dense), ``indices`` (nse, n_sparse), ``rhs`` of
    dims (contracted sparse dims in ``contract`` order, rhs free dims) ->
    (kept sparse dims, dense dims, rhs free dims)."""
    nse = data.shape[0]
    n_dense = data.ndim - 1
    if contract:
        cols = tuple(indices[:, c] for c in contract)
        picked = rhs.at[cols].get(mode="fill", fill_value=0)        # (nse, *rhs_free)
    else:
        picked = jnp.broadcast_to(rhs, (nse,) + rhs.shape)
    prod = (data.reshape(data.shape + (1,) * n_rhs_free) *
            picked.reshape((nse,) + (1,) * n_dense + picked.shape[1:]))
    if not kept:
        return prod.sum(0)
    out = jnp.zeros(kept_shape + prod.shape[1:], prod.dtype)
    return out.at[tuple(indices[:, k] for k in kept)].add(prod, mode="drop")


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
    """``lax.dot_general(A, B)`` evaluated only at the BCOO ``indices``: the ``data`` of a
    BCOO with those indices (the dense product's shape).

    Args:
      A, B: dense arrays.
      indices: BCOO indices, ``batch + (nse, n_sparse)``, of the product's layout.
      dimension_numbers: as for ``lax.dot_general``.
    """
    A, B, indices = jnp.asarray(A), jnp.asarray(B), jnp.asarray(indices)
    lc, rc, lb, rb = _normalize(dimension_numbers, A.ndim, B.ndim, "bcoo_dot_general_sampled")
    _check_sizes(A.shape, B.shape, lc, rc, lb, rb, "bcoo_dot_general_sampled")
    a_free = [d for d in range(A.ndim) if d not in lc + lb]
    b_free = [d for d in range(B.ndim) if d not in rc + rb]
    out_shape = (tuple(A.shape[d] for d in lb) + tuple(A.shape[d] for d in a_free) +
                 tuple(B.shape[d] for d in b_free))
    n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
    if n_batch + n_sparse > len(out_shape):
        raise ValueError(f"bcoo_dot_general_sampled: indices of shape {tuple(indices.shape)} "
                         f"do not fit a product of shape {out_shape}")
    if n_batch == 0 and not lb and n_sparse == len(a_free) + len(b_free):
        # gather the rows/columns at the stored coordinates, then one small batched dot
        ia, ib = indices[:, :len(a_free)], indices[:, len(a_free):]
        a_rows = jnp.moveaxis(A, a_free, list(range(len(a_free))))
        b_rows = jnp.moveaxis(B, b_free, list(range(len(b_free))))
        a_g = _extract(ia, a_rows)          # (nse, *A's contracted dims in A's order)
        b_g = _extract(ib, b_rows)
        a_c = [d for d in range(A.ndim) if d in lc]
        b_c = [d for d in range(B.ndim) if d in rc]
        pos_a = {d: i + 1 for i, d in enumerate(a_c)}
        pos_b = {d: i + 1 for i, d in enumerate(b_c)}
        return lax.dot_general(a_g, b_g, (([pos_a[d] for d in lc], [pos_b[d] for d in rc]),
                                          ([0], [0])))
    dense = lax.dot_general(A, B, ((lc, rc), (lb, rb)))   # general case: densely
    shape = tuple(dense.shape)
    sp = BCOO((jnp.zeros(indices.shape[:-1] + shape[n_batch + n_sparse:], dense.dtype),
               indices), shape=shape, unique_indices=True)
    return bcoo_extract(sp, dense).data


def _pairs(lhs, rhs, lhs_cols, rhs_cols, preferred_element_type=None):
    """Every (lhs entry, rhs entry) pair, flattened to ``nse_l * nse_r`` slots: the
    product of their values (in ``preferred_element_type`` when given), and whether both
    are in bounds and agree on the coordinates ``lhs_cols`` / ``rhs_cols``."""
    li, ri = lhs.indices, rhs.indices
    lok = jnp.all((li >= 0) & (li < jnp.array(lhs.shape, li.dtype)), axis=-1)
    rok = jnp.all((ri >= 0) & (ri < jnp.array(rhs.shape, ri.dtype)), axis=-1)
    match = lok[:, None] & rok[None, :]
    for a, b in zip(lhs_cols, rhs_cols):
        match = match & (li[:, a][:, None] == ri[:, b][None, :])
    dtype = preferred_element_type or jnp.result_type(lhs.dtype, rhs.dtype)
    vals = lhs.data.astype(dtype)[:, None] * rhs.data.astype(dtype)[None, :]
    return jnp.where(match, vals, 0).reshape(-1), match.reshape(-1)


def _check_unbatched(op, *mats):
    for m in mats:
        if m.n_batch or m.n_dense:
            raise NotImplementedError(
                f"{op}: sparse x sparse needs n_batch = n_dense = 0, got {m!r}. Fix: "
                "bcoo_update_layout(m, n_batch=0, n_dense=0) first.")


def _sparse_sparse(lhs, rhs, dimension_numbers, preferred_element_type=None):
    """Sparse x sparse contraction (n_batch = n_dense = 0): the products of every pair of
    entries whose contracted coordinates agree, summed per output coordinate (a BCOO
    with JAX's nse)."""
    op = "bcoo_dot_general"
    lc, rc, lb, rb = _normalize(dimension_numbers, lhs.ndim, rhs.ndim, op)
    _check_sizes(lhs.shape, rhs.shape, lc, rc, lb, rb, op)
    _check_unbatched(op, lhs, rhs)
    if lb:
        raise NotImplementedError(f"{op}: sparse x sparse with batch dims {lb}/{rb}")
    data, match = _pairs(lhs, rhs, lc, rc, preferred_element_type)
    lk = [d for d in range(lhs.ndim) if d not in lc]
    rk = [d for d in range(rhs.ndim) if d not in rc]
    shape = tuple(lhs.shape[d] for d in lk) + tuple(rhs.shape[d] for d in rk)
    pairs = _pair_bcoo(lhs, rhs, lk, rk, data, match, shape)
    # as JAX: duplicates summed into nse = (lhs.nse if lhs keeps a dim, else 1) * (the
    # same of rhs), at most the output's size
    nse = (lhs.nse if lk else 1) * (rhs.nse if rk else 1)
    return bcoo_sum_duplicates(pairs, nse=min(nse, int(np.prod(shape, dtype=np.int64))))


def _pair_bcoo(lhs, rhs, lk, rk, data, match, shape):
    nl, nr = lhs.nse, rhs.nse
    itype = jnp.result_type(lhs.indices, rhs.indices)
    li = jnp.broadcast_to(lhs.indices[:, None, :].astype(itype)[..., jnp.array(lk, int)]
                          if lk else jnp.zeros((nl, 1, 0), itype), (nl, nr, len(lk)))
    ri = jnp.broadcast_to(rhs.indices[None, :, :].astype(itype)[..., jnp.array(rk, int)]
                          if rk else jnp.zeros((1, nr, 0), itype), (nl, nr, len(rk)))
    idx = jnp.concatenate([li, ri], axis=-1).reshape(nl * nr, len(lk) + len(rk))
    pad = jnp.array(shape, itype)
    idx = jnp.where(match[:, None], idx, pad)
    return BCOO((data, idx), shape=shape)


def bcoo_multiply_sparse(lhs, rhs):
    """Elementwise product of two BCOO arrays of one shape (n_batch = n_dense = 0): a BCOO
    with ``lhs.nse * rhs.nse`` slots (as JAX's), the pairs at one coordinate."""
    op = "bcoo_multiply_sparse"
    if lhs.shape != rhs.shape:
        raise ValueError(f"{op}: shapes {lhs.shape} and {rhs.shape} differ")
    _check_unbatched(op, lhs, rhs)
    dims = list(range(lhs.ndim))
    data, match = _pairs(lhs, rhs, dims, dims)
    return _pair_bcoo(lhs, rhs, dims, [], data, match, lhs.shape)
