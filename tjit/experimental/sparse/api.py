"""Constructors and generic helpers: ``empty``, ``eye``, ``todense``, ``random_bcoo``."""


import numpy as np

import tjit
import tjit.numpy as jnp
import tjit.random
from tjit.experimental.sparse._base import JAXSparse, split_shape
from tjit.experimental.sparse.bcoo import BCOO, bcoo_fromdense
from tjit.experimental.sparse.bcsr import BCSR
from tjit.tracing.errors import static_index
from tjit.tracing.core import Tracer


def _format(sparse_format, op):
    formats = {"bcoo": BCOO, "bcsr": BCSR}
    if sparse_format not in formats:
        raise ValueError(f"{op}: sparse_format must be one of {sorted(formats)}, got "
                         f"{sparse_format!r}")
    return formats[sparse_format]


def empty(shape, dtype=None, index_dtype="int32", sparse_format="bcoo", **kwds):
    """An all-zero sparse array of ``shape`` (``nse`` slots of padding, default 0).

    Args:
      shape, dtype: of the array (dtype default float32).
      index_dtype: dtype of the indices.
      sparse_format: ``"bcoo"`` or ``"bcsr"``.
      **kwds: ``n_batch``, ``n_dense``, ``nse``.
    """
    cls = _format(sparse_format, "sparse.empty")
    shape = tuple(shape)
    n_batch, n_dense, nse = kwds.get("n_batch", 0), kwds.get("n_dense", 0), kwds.get("nse", 0)
    n_sparse = len(shape) - n_batch - n_dense
    if min(n_sparse, n_batch, n_dense, nse) < 0:
        raise ValueError(f"sparse.empty: invalid shape={shape}, n_batch={n_batch}, "
                         f"n_dense={n_dense}, nse={nse}")
    batch, sparse, dense = split_shape(shape, n_batch, n_sparse)
    data = jnp.zeros(batch + (nse,) + dense, dtype or jnp.float32)
    indices = jnp.broadcast_to(jnp.array(sparse, index_dtype), batch + (nse, n_sparse))
    out = BCOO((data, indices), shape=shape, indices_sorted=True, unique_indices=True)
    return out if cls is BCOO else BCSR.from_bcoo(out)


def eye(N, M=None, k=0, dtype=None, index_dtype="int32", sparse_format="bcoo", **kwds):
    """Sparse identity-like matrix: ones on the ``k``-th diagonal of an N x M matrix.

    Args:
      N, M: rows and columns (M defaults to N); k: the diagonal (> 0 above).
      dtype, index_dtype: of the values and indices; sparse_format: "bcoo" or "bcsr".
      **kwds: ``n_batch``, ``n_dense`` of the layout.
    """
    cls = _format(sparse_format, "sparse.eye")
    M = N if M is None else M
    N, M, k = (static_index(v, what, "sparse.eye") for v, what in ((N, "N"), (M, "M"), (k, "k")))
    if N < 0 or M < 0:
        raise ValueError(f"sparse.eye: N and M must be non-negative, got N={N}, M={M}")
    n_batch, n_dense = kwds.get("n_batch", 0), kwds.get("n_dense", 0)
    if n_batch or n_dense:   # such layouts store the zeros too: build from the dense eye
        out = bcoo_fromdense(jnp.eye(N, M, k, dtype=dtype or jnp.float32), n_batch=n_batch,
                             n_dense=n_dense, index_dtype=index_dtype)
        return out if cls is BCOO else BCSR.from_bcoo(out)
    size = max(0, min(N, M - k) if k >= 0 else min(N + k, M))
    i = np.arange(size)
    rows, cols = i + max(-k, 0), i + max(k, 0)
    indices = jnp.asarray(np.stack([rows, cols], axis=-1).astype(index_dtype))
    out = BCOO((jnp.ones(size, dtype or jnp.float32), indices), shape=(N, M),
               indices_sorted=True, unique_indices=True)
    return out if cls is BCOO else BCSR.from_bcoo(out)


@tjit.custom_jvp
def _sparse_todense_mark(x):
    """Identity that ``sparsify`` finds by name in a traced function: where the function
    called ``sparse.todense`` on what is a sparse array when sparsified."""
    return x


_sparse_todense_mark.defjvp(lambda primals, tangents: (primals[0], tangents[0]))
TODENSE_MARK = "_sparse_todense_mark"   # the name its custom_jvp_call equations carry


def todense(arr):
    """Dense array of ``arr`` (a sparse array; any other value is returned as is). Inside a
    function given to ``sparsify``, it densifies what is sparse there."""
    if isinstance(arr, JAXSparse):
        return arr.todense()
    return _sparse_todense_mark(arr) if isinstance(arr, Tracer) else arr


def random_bcoo(key, shape, *, dtype=jnp.float32, indices_dtype=None, nse=0.2, n_batch=0,
                n_dense=0, unique_indices=True, sorted_indices=False,
                generator=tjit.random.uniform, **kwds):
    """A BCOO array with random indices and values (as JAX's ``sparse.random_bcoo``).

    Args:
      key: a PRNG key.
      shape, dtype: of the array.
      indices_dtype: of the indices (default int32).
      nse: entries per batch element: an int, or a float in (0, 1] taken as a fraction of
        the number of sparse positions.
      n_batch, n_dense: layout.
      unique_indices: draw positions without replacement.
      sorted_indices: sort the indices of each batch element.
      generator: ``generator(key, shape, dtype, **kwds)`` draws the values.
    """
    shape = tuple(shape)
    n_sparse = len(shape) - n_batch - n_dense
    if n_sparse < 0 or min(n_batch, n_dense) < 0:
        raise ValueError(f"random_bcoo: n_batch={n_batch}, n_dense={n_dense} do not fit "
                         f"shape {shape}")
    batch, sparse, dense = split_shape(shape, n_batch, n_sparse)
    positions = int(np.prod(sparse, dtype=np.int64))
    if isinstance(nse, float):
        if not 0 < nse <= 1:
            raise ValueError(f"random_bcoo: a fractional nse must be in (0, 1], got {nse}")
        nse = int(np.ceil(nse * positions))
    nse = int(nse)
    if unique_indices and nse > positions:
        raise ValueError(f"random_bcoo: nse={nse} unique entries do not fit {positions} "
                         f"sparse positions of shape {sparse}")
    key_data, key_idx = tjit.random.split(key)
    data = generator(key_data, batch + (nse,) + dense, dtype, **kwds)
    n_flat = int(np.prod(batch, dtype=np.int64))
    keys = tjit.random.split(key_idx, max(n_flat, 1))

    def draw(k):
        flat = tjit.random.choice(k, positions, (nse,), replace=not unique_indices)
        return jnp.sort(flat) if sorted_indices else flat

    flat = tjit.vmap(draw)(keys)[:n_flat or 1]
    coords = jnp.stack(jnp.unravel_index(flat, sparse), axis=-1) if sparse else \
        jnp.zeros(flat.shape + (0,), jnp.int32)
    indices = coords.astype(indices_dtype or jnp.int32).reshape(batch + (nse, n_sparse))
    return BCOO((data, indices), shape=shape, indices_sorted=sorted_indices,
                unique_indices=unique_indices)


# JAX's names; the others here are helpers that other tjit modules import
__all__ = [
    "BCOO", "BCSR", "JAXSparse", "empty", "eye", "todense"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
