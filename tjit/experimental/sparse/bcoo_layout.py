"""Layout changes of BCOO arrays: ``bcoo_update_layout`` (moving dims between the batch,
sparse and dense groups), ``bcoo_slice``, ``bcoo_dynamic_slice``, ``bcoo_squeeze``,
``bcoo_reshape``, ``bcoo_rev``, ``bcoo_concatenate`` (and ``BCOO.update_layout``,
installed here; indexing is in bcoo_indexing)."""

import warnings

import numpy as np

import tjit.numpy as jnp
from tjit.tracing.errors import static_index
from tjit import lax
from tjit.experimental.sparse._base import (
    SparseEfficiencyError, SparseEfficiencyWarning, canonical_axes, split_shape)
from tjit.experimental.sparse.bcoo import (
    BCOO, _full_batch, bcoo_fromdense, bcoo_sum_duplicates)


# ---------------------------------------------------------------- layout changes

def bcoo_update_layout(mat, *, n_batch=None, n_dense=None, on_inefficient="error"):
    """``mat`` with ``n_batch`` batch and ``n_dense`` dense dims (as JAX's).

    Fewer batch or dense dims is exact and cheap: those dims become sparse dims (every
    batch element's entries, or every element of every block, become entries). More of
    them stores explicit zeros (each batch element keeps the largest per-element count, a
    block is stored whole): ``on_inefficient`` = ``"error"`` raises
    :class:`SparseEfficiencyError`, ``"warn"`` warns, None proceeds (through the dense
    array, so it needs concrete values: not under jit).
    """
    if n_batch is None:
        n_batch = mat.n_batch
    n_batch = static_index(n_batch, "n_batch", "bcoo_update_layout")
    if n_dense is None:
        n_dense = mat.n_dense
    n_dense = static_index(n_dense, "n_dense", "bcoo_update_layout")
    if on_inefficient not in ("error", "warn", None):
        raise ValueError("bcoo_update_layout: on_inefficient must be 'error', 'warn' or "
                         f"None, got {on_inefficient!r}")
    if n_batch < 0 or n_dense < 0 or n_batch + n_dense > mat.ndim:
        raise ValueError(f"bcoo_update_layout: n_batch={n_batch}, n_dense={n_dense} do not "
                         f"fit an array of shape {mat.shape}")
    if n_batch > mat.n_batch or n_dense > mat.n_dense:
        msg = (f"bcoo_update_layout: {mat!r} to n_batch={n_batch}, n_dense={n_dense} stores "
               "explicit zeros. Fix: pass on_inefficient='warn' or None to do it anyway.")
        if on_inefficient == "error":
            raise SparseEfficiencyError(msg)
        if on_inefficient == "warn":
            warnings.warn(msg, SparseEfficiencyWarning, stacklevel=2)
        return bcoo_fromdense(mat.todense(), n_batch=n_batch, n_dense=n_dense,
                              index_dtype=mat.indices.dtype)
    out = mat
    while out.n_dense > n_dense:
        out = _last_dense_to_sparse(out)
    while out.n_batch > n_batch:
        out = _last_batch_to_sparse(out)
    return out


def _last_dense_to_sparse(mat):
    """The first dense dim becomes the last sparse dim: an entry per element of it."""
    nb, ns = mat.n_batch, mat.n_sparse
    data, indices = _full_batch(mat)
    size = mat.shape[nb + ns]
    nse = mat.nse * size
    data = data.reshape(data.shape[:nb] + (nse,) + tuple(data.shape[nb + 2:]))
    pos = jnp.broadcast_to(jnp.arange(size, dtype=indices.dtype),
                           indices.shape[:-1] + (size,))[..., None]
    rep = jnp.broadcast_to(indices[..., None, :], indices.shape[:-1] + (size, ns))
    indices = jnp.concatenate([rep, pos], axis=-1).reshape(
        indices.shape[:nb] + (nse, ns + 1))
    return BCOO((data, indices), shape=mat.shape, indices_sorted=mat.indices_sorted,
                unique_indices=mat.unique_indices)


def _last_batch_to_sparse(mat):
    """The last batch dim becomes the first sparse dim: its entries are concatenated."""
    nb = mat.n_batch
    data, indices = _full_batch(mat)
    size = mat.shape[nb - 1]
    nse = size * mat.nse
    pos = jnp.broadcast_to(jnp.arange(size, dtype=indices.dtype)[:, None, None],
                           (size, mat.nse, 1))
    pos = jnp.broadcast_to(pos, indices.shape[:-1] + (1,))
    indices = jnp.concatenate([pos, indices], axis=-1)
    indices = indices.reshape(indices.shape[:nb - 1] + (nse, indices.shape[-1]))
    data = data.reshape(data.shape[:nb - 1] + (nse,) + tuple(data.shape[nb + 1:]))
    return BCOO((data, indices), shape=mat.shape, indices_sorted=mat.indices_sorted,
                unique_indices=mat.unique_indices)


# ---------------------------------------------------------------- slicing and indexing

def bcoo_slice(mat, *, start_indices, limit_indices, strides=None):
    """``lax.slice`` of a BCOO: entries outside the window become padding (as JAX's; when
    the window has fewer sparse positions than ``nse``, duplicates are summed to fit).

    Args:
      mat: a BCOO.
      start_indices, limit_indices, strides: one int per dim (strides positive, default 1).
    """
    start = [static_index(i, "start_indices", "bcoo_slice") for i in start_indices]
    limit = [static_index(i, "limit_indices", "bcoo_slice") for i in limit_indices]
    step = [1] * mat.ndim if strides is None else [static_index(s, "strides", "bcoo_slice")
                                             for s in strides]
    if not len(start) == len(limit) == len(step) == mat.ndim:
        raise ValueError(f"bcoo_slice: start/limit/strides need {mat.ndim} entries each "
                         f"(shape {mat.shape}); got {start}, {limit}, {step}")
    if any(s <= 0 for s in step) or not all(
            0 <= a <= b <= n for a, b, n in zip(start, limit, mat.shape)):
        raise ValueError(f"bcoo_slice: invalid window start={start}, limit={limit}, "
                         f"strides={step} for shape {mat.shape}")
    nb, ns = mat.n_batch, mat.n_sparse
    new_shape = tuple(-(-(b - a) // s) for a, b, s in zip(start, limit, step))
    data, indices = _full_batch(mat)
    batch_window = tuple(slice(a, b, s) for a, b, s in zip(start[:nb], limit[:nb], step[:nb]))
    dense_window = tuple(slice(a, b, s) for a, b, s in zip(start[nb + ns:], limit[nb + ns:],
                                                         step[nb + ns:]))
    data = data[batch_window + (slice(None),) + dense_window]
    indices = indices[batch_window]
    keep = moved = None
    if ns:
        lo = jnp.array(start[nb:nb + ns], indices.dtype)
        hi = jnp.array(limit[nb:nb + ns], indices.dtype)
        st = jnp.array(step[nb:nb + ns], indices.dtype)
        keep = jnp.all((indices >= lo) & (indices < hi) & ((indices - lo) % st == 0), -1)
        moved = (indices - lo) // st
    return _window(data, indices, keep, moved, new_shape, nb, ns, mat.nse)


def _window(data, indices, keep, moved, shape, nb, ns, nse):
    """The BCOO of ``shape`` holding a window's entries: those with ``keep`` (when there
    are sparse dims) at their window coordinates ``moved``, the others padding (the
    window's sparse shape, data 0); duplicate padding summed away where ``nse`` exceeds
    the window's positions."""
    if ns:
        pad = jnp.array(shape[nb:nb + ns], indices.dtype)
        indices = jnp.where(keep[..., None], moved, pad)
        data = jnp.where(keep.reshape(keep.shape + (1,) * (data.ndim - keep.ndim)), data, 0)
    out = BCOO((data, indices), shape=shape)
    positions = int(np.prod(shape[nb:nb + ns], dtype=np.int64))
    if ns and nse > positions:
        out = bcoo_sum_duplicates(out, nse=positions)
    return out


def bcoo_squeeze(arr, *, dimensions):
    """``lax.squeeze`` of a BCOO: drop the listed dims, each of size 1."""
    dims = canonical_axes(dimensions, arr.ndim, "bcoo_squeeze")
    if any(arr.shape[d] != 1 for d in dims):
        raise ValueError(f"bcoo_squeeze: dims {dims} of shape {arr.shape} must have size 1")
    nb, ns = arr.n_batch, arr.n_sparse
    data, indices = _full_batch(arr)
    batch = tuple(d for d in dims if d < nb)
    dense = tuple(d - ns + 1 for d in dims if d >= nb + ns)
    keep = [i for i in range(ns) if nb + i not in dims]
    indices = indices[..., np.array(keep, np.int32)] if keep else indices[..., :0]
    data = jnp.squeeze(data, batch + dense) if batch + dense else data
    indices = jnp.squeeze(indices, batch) if batch else indices
    shape = tuple(n for i, n in enumerate(arr.shape) if i not in dims)
    return BCOO((data, indices), shape=shape, indices_sorted=arr.indices_sorted,
                unique_indices=arr.unique_indices)


def _update_layout(self, *, n_batch=None, n_dense=None, on_inefficient="error"):
    """Copy with ``n_batch``/``n_dense`` changed (see :func:`bcoo_update_layout`)."""
    return bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense,
                              on_inefficient=on_inefficient)


BCOO.update_layout = _update_layout


def bcoo_concatenate(operands, *, dimension):
    """``lax.concatenate`` of BCOO arrays of one layout (n_batch, n_dense) along
    ``dimension``: along a sparse dim the entries are joined with shifted indices, along a
    batch dim the batch elements are stacked (nse padded to the largest), along a dense dim
    each operand's blocks are zero-padded into the joined block."""
    operands = list(operands)
    if not operands or not all(isinstance(m, BCOO) for m in operands):
        raise TypeError("bcoo_concatenate: operands must be a non-empty sequence of BCOO")
    first = operands[0]
    nb, nd, ndim = first.n_batch, first.n_dense, first.ndim
    dim = static_index(dimension, "dimension", "bcoo_concatenate")
    if not 0 <= dim < ndim:
        raise ValueError(f"bcoo_concatenate: dimension {dimension} out of range for "
                         f"ndim {ndim}")
    for m in operands:
        if (m.n_batch, m.n_dense, m.ndim) != (nb, nd, ndim) or any(
                a != b for i, (a, b) in enumerate(zip(m.shape, first.shape)) if i != dim):
            raise ValueError(f"bcoo_concatenate: operands {first!r} and {m!r} differ in "
                             f"layout or in a dim other than {dim}")
    sizes = [m.shape[dim] for m in operands]
    shape = first.shape[:dim] + (sum(sizes),) + first.shape[dim + 1:]
    if dim < nb:
        return _concat_batch(operands, dim, shape)
    ns = first.n_sparse
    offsets = np.cumsum([0] + sizes[:-1])
    parts_d, parts_i = [], []
    for m, off, size in zip(operands, offsets, sizes):
        data, indices = _full_batch(m)
        bound = jnp.array(m.shape[nb:nb + ns], indices.dtype)
        ok = jnp.all((indices >= 0) & (indices < bound), axis=-1, keepdims=True)
        if dim < nb + ns:
            indices = indices.at[..., dim - nb].add(int(off))
        else:   # dense dim: zero-pad this operand's blocks into the joined block
            axis = dim - ns + 1
            pad = [(0, 0)] * data.ndim
            pad[axis] = (int(off), int(shape[dim] - off - size))
            data = jnp.pad(data, pad)
        parts_d.append(data)
        parts_i.append(jnp.where(ok, indices, jnp.array(shape[nb:nb + ns], indices.dtype)))
    itype = jnp.result_type(*parts_i)
    dtype = jnp.result_type(*parts_d)
    return BCOO((jnp.concatenate([d.astype(dtype) for d in parts_d], axis=nb),
                 jnp.concatenate([i.astype(itype) for i in parts_i], axis=nb)), shape=shape)


def _concat_batch(operands, dim, shape):
    nse = max(m.nse for m in operands)
    datas, indices = [], []
    for m in operands:
        d, i = _full_batch(m)
        extra = nse - m.nse
        if extra:
            nb = m.n_batch
            pad_d = [(0, 0)] * d.ndim
            pad_d[nb] = (0, extra)
            d = jnp.pad(d, pad_d)
            fill = jnp.broadcast_to(jnp.array(m.shape[nb:nb + m.n_sparse], i.dtype),
                                    i.shape[:nb] + (extra, i.shape[-1]))
            i = jnp.concatenate([i, fill], axis=nb)
        datas.append(d)
        indices.append(i)
    dtype, itype = jnp.result_type(*datas), jnp.result_type(*indices)
    return BCOO((jnp.concatenate([d.astype(dtype) for d in datas], axis=dim),
                 jnp.concatenate([i.astype(itype) for i in indices], axis=dim)), shape=shape)


def bcoo_rev(operand, dimensions):
    """``lax.rev`` of a BCOO: reverse the listed dims (sparse dims by re-indexing)."""
    mat = operand
    dims = sorted({static_index(d, "dimensions", "bcoo_rev") for d in dimensions})
    if any(not 0 <= d < mat.ndim for d in dims):
        raise ValueError(f"bcoo_rev: dimensions {dims} out of range for shape {mat.shape}")
    nb, ns = mat.n_batch, mat.n_sparse
    data, indices = _full_batch(mat)
    flip_data = [d for d in dims if d < nb] + [d - ns + 1 for d in dims if d >= nb + ns]
    if flip_data:
        data = jnp.flip(data, flip_data)
    batch = [d for d in dims if d < nb]
    if batch:
        indices = jnp.flip(indices, batch)
    sparse = [d - nb for d in dims if nb <= d < nb + ns]
    if sparse:
        sizes = np.array(mat.shape[nb:nb + ns])
        flip = np.isin(np.arange(ns), sparse)
        bound = jnp.array(sizes, indices.dtype)
        ok = jnp.all((indices >= 0) & (indices < bound), -1, keepdims=True)
        mirrored = jnp.where(jnp.asarray(flip), bound - 1 - indices, indices)
        indices = jnp.where(ok, mirrored, bound)
    return BCOO((data, indices), shape=mat.shape)


def bcoo_dynamic_slice(mat, start_indices, slice_sizes):
    """``lax.dynamic_slice`` of a BCOO: traced starts (clamped as lax's), static sizes."""
    sizes = tuple(static_index(s, "slice_sizes", "bcoo_dynamic_slice") for s in slice_sizes)
    if len(sizes) != mat.ndim or len(start_indices) != mat.ndim:
        raise ValueError(f"bcoo_dynamic_slice: need {mat.ndim} start indices and slice sizes "
                         f"for shape {mat.shape}")
    if not all(0 <= s <= n for s, n in zip(sizes, mat.shape)):
        raise TypeError(f"bcoo_dynamic_slice: slice_sizes {sizes} must fit the shape "
                        f"{mat.shape}")
    nb, ns = mat.n_batch, mat.n_sparse
    dims = np.array(mat.shape)
    starts = jnp.stack([jnp.asarray(s, jnp.int32) for s in start_indices]) if sizes else \
        jnp.zeros((0,), jnp.int32)
    starts = jnp.where(starts < 0, starts + dims, starts)
    starts = jnp.clip(starts, 0, dims - np.array(sizes))      # as lax.dynamic_slice
    data, indices = _full_batch(mat)
    zero = jnp.zeros((), jnp.int32)
    b_starts = [starts[d] for d in range(nb)]
    d_starts = [starts[d] for d in range(nb + ns, mat.ndim)]
    data = lax.dynamic_slice(data, b_starts + [zero] + d_starts,
                             sizes[:nb] + (mat.nse,) + sizes[nb + ns:])
    indices = lax.dynamic_slice(indices, b_starts + [zero, zero],
                                sizes[:nb] + (mat.nse, ns))
    keep = moved = None
    if ns:
        lo = starts[nb:nb + ns].astype(indices.dtype)
        size = jnp.array(sizes[nb:nb + ns], indices.dtype)
        keep = jnp.all((indices >= lo) & (indices < lo + size), -1)
        moved = indices - lo
    return _window(data, indices, keep, moved, sizes, nb, ns, mat.nse)


def bcoo_reshape(mat, *, new_sizes, dimensions=None, sharding=None):
    """``lax.reshape`` of a BCOO whose batch, sparse and dense dims reshape each within
    their own group (sparse dims by re-indexing through the flat position)."""
    del sharding
    if dimensions is not None and tuple(dimensions) != tuple(range(mat.ndim)):
        raise NotImplementedError("bcoo_reshape: dimensions (a transpose first); use "
                                  "bcoo_transpose, then reshape")
    new = tuple(static_index(d, "new_sizes", "bcoo_reshape") for d in new_sizes)
    if int(np.prod(new, dtype=np.int64)) != mat.size:
        raise ValueError(f"bcoo_reshape: cannot reshape {mat.shape} to {new}")
    nb, ns = mat.n_batch, mat.n_sparse
    batch, sparse, dense = split_shape(mat.shape, nb, ns)
    cum = list(np.cumprod((1,) + new))
    b_size, s_size = int(np.prod(batch, dtype=np.int64)), int(np.prod(sparse, dtype=np.int64))

    def cut(total):   # new dims up to here hold ``total`` elements (size-1 dims join)
        i = int(np.searchsorted(cum[1:], total, side="right"))
        if cum[i] != total:
            raise ValueError(f"bcoo_reshape: {mat.shape} -> {new} mixes batch, sparse and "
                             f"dense dims (n_batch={nb}, n_dense={mat.n_dense})")
        return i

    i1 = cut(b_size) if nb else 0
    i2 = max(cut(b_size * s_size), i1) if ns else i1
    new_batch, new_sparse, new_dense = new[:i1], new[i1:i2], new[i2:]
    data, indices = _full_batch(mat)
    data = data.reshape(new_batch + (mat.nse,) + new_dense)
    indices = indices.reshape(new_batch + (mat.nse, ns))
    if not new_sparse:
        idx = jnp.zeros(new_batch + (mat.nse, 0), indices.dtype)
        if ns:   # every sparse dim had size 1: entries out of bounds must stay dropped
            ok = jnp.all((indices >= 0) & (indices < jnp.array(sparse, indices.dtype)), -1)
            data = jnp.where(ok.reshape(ok.shape + (1,) * len(new_dense)), data, 0)
        indices = idx
    elif new_sparse != sparse:
        bound = jnp.array(sparse, indices.dtype)
        ok = jnp.all((indices >= 0) & (indices < bound), -1, keepdims=True)
        flat = jnp.zeros(indices.shape[:-1], indices.dtype)
        for i, n in enumerate(sparse):
            flat = flat * n + jnp.clip(indices[..., i], 0, n - 1)
        cols = jnp.stack(jnp.unravel_index(flat, new_sparse), -1).astype(indices.dtype)
        indices = jnp.where(ok, cols, jnp.array(new_sparse, indices.dtype))
    return BCOO((data, indices), shape=new, indices_sorted=mat.indices_sorted,
                unique_indices=mat.unique_indices)


def bcoo_broadcast_in_dim(mat, *, shape, broadcast_dimensions, sharding=None):
    """``lax.broadcast_in_dim`` of a BCOO: operand dim ``i`` becomes dim
    ``broadcast_dimensions[i]`` of ``shape``; a new dim before the operand's sparse dims is
    a batch dim (any size, stored once), one among them a sparse dim of size 1, one after
    them a dense dim. An operand dim of size 1 may grow if it is a batch or dense dim."""
    del sharding
    shape = tuple(static_index(d, "shape", "bcoo_broadcast_in_dim") for d in shape)
    bdims = tuple(static_index(d, "broadcast_dimensions", "bcoo_broadcast_in_dim")
                  for d in broadcast_dimensions)
    nb, ns = mat.n_batch, mat.n_sparse
    if (len(bdims) != mat.ndim or list(bdims) != sorted(set(bdims)) or
            any(not 0 <= d < len(shape) for d in bdims) or
            any(mat.shape[i] not in (1, shape[d]) for i, d in enumerate(bdims))):
        raise ValueError(f"bcoo_broadcast_in_dim: cannot broadcast shape {mat.shape} to "
                         f"{shape} with broadcast_dimensions={bdims}")
    first_sparse = bdims[nb] if ns else (bdims[nb] if nb < mat.ndim else len(shape))
    last_sparse = bdims[nb + ns - 1] if ns else first_sparse - 1
    group = {}                      # target dim -> "batch" | "sparse" | "dense"
    for t in range(len(shape)):
        if t < first_sparse:
            group[t] = "batch"
        elif t <= last_sparse:
            group[t] = "sparse"
        else:
            group[t] = "dense"
    for i, d in enumerate(bdims):
        kind = "batch" if i < nb else "sparse" if i < nb + ns else "dense"
        if group[d] != kind:
            raise NotImplementedError(f"bcoo_broadcast_in_dim: dim {i} of {mat!r} would move "
                                      f"from the {kind} dims to the {group[d]} dims")
        if kind == "sparse" and mat.shape[i] != shape[d]:
            raise NotImplementedError("bcoo_broadcast_in_dim: growing a sparse dim of size 1 "
                                      "(it would replicate the entries)")
    new = [t for t in range(len(shape)) if t not in bdims]
    if any(group[t] == "sparse" and shape[t] != 1 for t in new):
        raise NotImplementedError("bcoo_broadcast_in_dim: a new dim of size > 1 among the "
                                  "sparse dims (it would replicate the entries)")
    t_batch = [t for t in range(len(shape)) if group[t] == "batch"]
    t_sparse = [t for t in range(len(shape)) if group[t] == "sparse"]
    t_dense = [t for t in range(len(shape)) if group[t] == "dense"]
    data, indices = mat.data, mat.indices
    # batch dims: insert the new ones as size 1 (broadcast on use), then grow the data's
    data_batch = [1] * len(t_batch)
    index_batch = [1] * len(t_batch)
    for i in range(nb):
        pos = t_batch.index(bdims[i])
        data_batch[pos], index_batch[pos] = data.shape[i], indices.shape[i]
    dense_shape = [shape[t] for t in t_dense]
    src_dense = [t_dense.index(bdims[i]) for i in range(nb + ns, mat.ndim)]
    data_dense = [1] * len(t_dense)
    for i, pos in zip(range(nb + ns, mat.ndim), src_dense):
        data_dense[pos] = data.shape[i - ns + 1]
    data = data.reshape(tuple(data_batch) + (mat.nse,) + tuple(data_dense))
    data = jnp.broadcast_to(data, tuple(data_batch) + (mat.nse,) + tuple(dense_shape))
    indices = indices.reshape(tuple(index_batch) + (mat.nse, ns))
    cols = []
    for t in t_sparse:
        if t in bdims:
            cols.append(indices[..., bdims.index(t) - nb])
        else:   # a new size-1 sparse dim: coordinate 0
            cols.append(jnp.zeros(indices.shape[:-1], indices.dtype))
    indices = jnp.stack(cols, -1) if cols else indices[..., :0]
    return BCOO((data, indices), shape=shape, indices_sorted=mat.indices_sorted,
                unique_indices=mat.unique_indices)
