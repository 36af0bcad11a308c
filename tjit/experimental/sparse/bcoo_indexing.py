"""Indexing of BCOO arrays (``mat[key]``, installed on BCOO here), as NumPy/JAX index a
dense array: ints, slices, one Ellipsis, ``None`` (new size-1 dims) and
one integer array (fancy indexing along one dim; ints count as advanced indices with it,
as NumPy's placement rule says).

Slices and ints become a :func:`bcoo_slice`/:func:`bcoo_squeeze`, an integer array a
:func:`bcoo_take` and ``None`` a :func:`bcoo_broadcast_in_dim`.
"""

import numbers

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.experimental.sparse._base import nfold_vmap
from tjit.experimental.sparse.bcoo import BCOO, _full_batch, bcoo_transpose
from tjit.experimental.sparse.bcoo_layout import (
    bcoo_broadcast_in_dim, bcoo_dynamic_slice, bcoo_reshape, bcoo_rev, bcoo_slice, bcoo_squeeze,
    bcoo_update_layout)


def bcoo_take(mat, indices, axis):
    """``mat`` indexed along ``axis`` by the integer array ``indices``: that dim is
    replaced by ``indices.shape`` (as ``jnp.take(dense, indices, axis)``; negative indices
    count from the end, out-of-range ones are clamped, as JAX's gather).

    Along a batch or dense dim the stored blocks are gathered. Along a sparse dim each
    entry is paired with every index position it matches, so the result has
    ``nse * indices.size`` slots (unmatched pairs are padding), as JAX's ``bcoo_gather``.
    """
    idx = jnp.asarray(indices)
    if not (jnp.issubdtype(idx.dtype, jnp.integer) or idx.dtype == bool):
        raise TypeError(f"BCOO indexing: index arrays must be integers, got {idx.dtype}")
    if idx.dtype == bool:
        raise NotImplementedError(
            "BCOO indexing with a boolean mask (its result shape depends on the values). "
            "Fix: index with jnp.nonzero(mask, size=...)[0].")
    n = mat.shape[axis]
    if n == 0 and idx.size:
        raise IndexError(f"BCOO indexing: cannot index dim {axis} of size 0 (shape {mat.shape})")
    idx = jnp.clip(jnp.where(idx < 0, idx + n, idx), 0, max(n - 1, 0))
    nb, ns = mat.n_batch, mat.n_sparse
    out_shape = mat.shape[:axis] + tuple(idx.shape) + mat.shape[axis + 1:]
    data, indices = _full_batch(mat)
    if axis < nb:                                        # batch dim: gather the blocks
        return BCOO((jnp.take(data, idx, axis=axis), jnp.take(indices, idx, axis=axis)),
                    shape=out_shape, indices_sorted=mat.indices_sorted,
                    unique_indices=mat.unique_indices)
    if axis >= nb + ns:                                  # dense dim: gather in each block
        return BCOO((jnp.take(data, idx, axis=axis - ns + 1), indices), shape=out_shape,
                    indices_sorted=mat.indices_sorted, unique_indices=mat.unique_indices)
    col = axis - nb
    new_sparse = out_shape[nb:nb + ns - 1 + idx.ndim]
    flat = idx.reshape(-1)
    k = flat.shape[0]
    # the coordinates each index position writes (idx.ndim columns in place of `col`)
    pos = jnp.stack(jnp.unravel_index(jnp.arange(k), idx.shape), -1) if idx.ndim else \
        jnp.zeros((k, 0), int)

    def one(d, i):
        nse = i.shape[0]
        ok = jnp.all((i >= 0) & (i < jnp.array(mat.shape[nb:nb + ns], i.dtype)), -1)
        match = ok[:, None] & (i[:, col][:, None] == flat[None, :].astype(i.dtype))
        p = jnp.broadcast_to(pos.astype(i.dtype)[None], (nse, k, pos.shape[1]))
        left = jnp.broadcast_to(i[:, None, :col], (nse, k, col))
        right = jnp.broadcast_to(i[:, None, col + 1:], (nse, k, ns - col - 1))
        new_i = jnp.concatenate([left, p, right], -1).reshape(nse * k, len(new_sparse))
        new_i = jnp.where(match.reshape(-1)[:, None], new_i,
                          jnp.array(new_sparse, i.dtype))
        block = d.shape[1:]
        new_d = jnp.broadcast_to(d[:, None], (nse, k) + block).reshape((nse * k,) + block)
        keep = match.reshape((nse * k,) + (1,) * len(block))
        return jnp.where(keep, new_d, jnp.zeros((), d.dtype)), new_i

    data, indices = nfold_vmap(one, nb)(data, indices)
    return BCOO((data, indices), shape=out_shape, unique_indices=mat.unique_indices)


def _is_int(k):
    return isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, (bool, np.bool_))


def _is_array(k):
    return isinstance(k, (list, np.ndarray)) or (hasattr(k, "shape") and hasattr(k, "dtype"))


def bcoo_getitem(mat, key):
    """``mat[key]``; see the module docstring for what ``key`` may hold."""
    key = key if isinstance(key, tuple) else (key,)
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("BCOO indexing: an index can have only one Ellipsis")
    n_used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_used > mat.ndim:
        raise IndexError(f"BCOO indexing: too many indices ({n_used}) for shape {mat.shape}")
    if ellipses:
        at = ellipses[0]
        key = key[:at] + (slice(None),) * (mat.ndim - n_used) + key[at + 1:]
    else:
        key = key + (slice(None),) * (mat.ndim - n_used)
    # pair each non-None entry with its operand dim
    entries, d = [], 0
    for k in key:
        entries.append((k, None if k is None else d))
        d += k is not None
    arrays = [i for i, (k, _) in enumerate(entries) if _is_array(k)]
    if len(arrays) > 1:
        raise NotImplementedError(
            "BCOO indexing with more than one integer array (they would broadcast "
            "together). Fix: index one dim at a time, or index mat.todense().")
    start, limit, step, ints, flipped = [], [], [], [], []
    for k, dim in entries:
        if dim is None:
            continue
        n = mat.shape[dim]
        if isinstance(k, slice):
            a, b, s = k.indices(n)
            if s < 0:      # a positive-step window of the reversed dim
                flipped.append(dim)
                a, b, s = n - 1 - a, n - 1 - b, -s
            start.append(a), limit.append(max(a, b)), step.append(s)
        elif _is_int(k):
            i = int(k) + n if k < 0 else int(k)
            if not 0 <= i < n:
                raise IndexError(f"BCOO indexing: index {k} out of bounds for dim {dim} of "
                                 f"size {n} (shape {mat.shape})")
            start.append(i), limit.append(i + 1), step.append(1), ints.append(dim)
        elif _is_array(k):
            start.append(0), limit.append(n), step.append(1)
        else:
            raise IndexError(f"BCOO indexing with {type(k).__name__}: only ints, slices, "
                             "Ellipsis, None and integer arrays are valid indices")
    if flipped:
        mat = bcoo_rev(mat, flipped)
    out = bcoo_slice(mat, start_indices=start, limit_indices=limit, strides=step)
    # the integer array, then the ints (a squeezed dim is gone: compute positions first)
    adv_pos = [i for i, (k, _) in enumerate(entries) if _is_array(k) or _is_int(k)]
    contiguous = not adv_pos or adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))
    arr_ndim = 0
    if arrays:
        k, dim = entries[arrays[0]]
        k = jnp.asarray(k)
        arr_ndim = k.ndim
        out = bcoo_take(out, k, dim)
        ints = [i if i < dim else i + k.ndim - 1 for i in ints]
        arr_dims = list(range(dim, dim + arr_ndim))
    if ints:
        out = bcoo_squeeze(out, dimensions=ints)
        if arrays:
            arr_dims = [a - sum(1 for i in ints if i < a) for a in arr_dims]
    if arrays and not contiguous and arr_dims and arr_dims[0] != 0:
        # NumPy: advanced indices separated by a slice put their dims first
        # (all dims made sparse first, exact and cheap, so the permutation may cross the
        # batch/sparse/dense groups)
        rest = [a for a in range(out.ndim) if a not in arr_dims]
        out = bcoo_update_layout(out, n_batch=0, n_dense=0)
        out = bcoo_transpose(out, permutation=tuple(arr_dims + rest))
    # None: new size-1 dims, at their place among the output dims
    nones = [i for i, (k, _) in enumerate(entries) if k is None]
    if nones:
        out = _insert_new_dims(out, entries, arr_ndim if arrays else None, contiguous)
    return out


def _insert_new_dims(out, entries, arr_ndim, contiguous):
    """``out`` with a size-1 dim for each None of ``entries`` (at NumPy's position)."""
    # the output's dims in order, each tagged "new" (None) or "old"
    layout = []
    placed = False
    if arr_ndim is not None and not contiguous:
        layout += ["old"] * arr_ndim
        placed = True
    for k, _ in entries:
        if k is None:
            layout.append("new")
        elif _is_array(k):
            if not placed:
                layout += ["old"] * arr_ndim
                placed = True
        elif not _is_int(k):
            layout.append("old")
    shape = tuple(1 if t == "new" else 0 for t in layout)
    bdims = [i for i, t in enumerate(layout) if t == "old"]
    shape = list(shape)
    for src, dst in enumerate(bdims):
        shape[dst] = out.shape[src]
    return bcoo_broadcast_in_dim(out, shape=tuple(shape), broadcast_dimensions=tuple(bdims))


BCOO.__getitem__ = bcoo_getitem


def bcoo_gather(operand, start_indices, dimension_numbers, slice_sizes, *,
                unique_indices=False, indices_are_sorted=False, mode=None, fill_value=None):
    """``lax.gather`` of a BCOO (as JAX's ``bcoo_gather``): one :func:`bcoo_dynamic_slice`
    per start index, mapped with vmap (so the index batch becomes a batch dim), then the
    collapsed dims squeezed and the dims put in gather's output order.

    ``mode`` may be None, ``"promise_in_bounds"`` or ``"clip"`` (a dynamic slice clamps
    its start, which is what both give for in-bounds windows); ``"fill"`` is refused, as
    JAX's. Operand batching dims are not supported."""
    if mode is not None and (lax.GatherScatterMode.from_any(mode) ==
                             lax.GatherScatterMode.FILL_OR_DROP):
        raise NotImplementedError(f"bcoo_gather: mode={mode!r} (as JAX's). Fix: mode='clip'.")
    dn = dimension_numbers
    if getattr(dn, "operand_batching_dims", ()):
        raise NotImplementedError("bcoo_gather: operand_batching_dims")
    start_indices = jnp.asarray(start_indices)
    out_shape = tjit.eval_shape(
        lambda o, i: lax.gather(o, i, dn, tuple(slice_sizes), mode=mode,
                                fill_value=fill_value),
        tjit.ShapeDtypeStruct(operand.shape, operand.dtype),
        tjit.ShapeDtypeStruct(start_indices.shape, start_indices.dtype)).shape
    full_sizes = list(operand.shape)
    for j in dn.start_index_map:
        full_sizes[j] = slice_sizes[j]
    flat = start_indices.reshape(-1, start_indices.shape[-1])

    def one(starts):
        full = [jnp.zeros((), starts.dtype)] * operand.ndim
        for i, j in enumerate(dn.start_index_map):
            full[j] = starts[i]
        piece = bcoo_dynamic_slice(operand, full, slice_sizes=full_sizes)
        return bcoo_squeeze(piece, dimensions=tuple(dn.collapsed_slice_dims)) \
            if dn.collapsed_slice_dims else piece

    result = tjit.vmap(one)(flat)
    result = bcoo_reshape(result, new_sizes=tuple(start_indices.shape[:-1]) +
                          tuple(result.shape[1:]))
    if result.ndim:
        offset = tuple(dn.offset_dims)
        batch = tuple(d for d in range(len(out_shape)) if d not in offset)
        perm = np.zeros(result.ndim, dtype=int)
        perm[np.array(batch + offset, dtype=int)] = np.arange(result.ndim)
        if tuple(perm) != tuple(range(result.ndim)):
            result = bcoo_update_layout(result, n_batch=0, n_dense=0)
            result = bcoo_transpose(result, permutation=tuple(int(p) for p in perm))
    return result
