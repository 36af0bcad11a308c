"""``lax.scatter_apply``: replace the scattered elements of an array by ``func`` of them,
as ``jax.lax.scatter_apply`` (XLA's Scatter with a unary update computation).

A composition of existing primitives: a ``scatter_add`` of ones with the same indices,
dimension numbers and mode counts how often each element is hit, and ``func`` is applied
that many times (a duplicate index applies it again, as in JAX), in a ``while_loop`` up
to the largest count (one ``select`` when ``unique_indices`` promises at most one hit).
``func`` is called on the whole operand, so it must act elementwise, as a function of a
scalar does.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.lax._control_flow import while_loop
from tjit.lax._elementwise import add, asarray_for_lax, gt, lt, select
from tjit.lax._indexing import scatter_add
from tjit.lax._reductions import reduce_max
from tjit.lax._structural import full


def _applied(func, x):
    y = asarray_for_lax(func(x))
    if y.dtype != x.dtype or tuple(y.shape) != tuple(x.shape):
        raise TypeError(f"scatter_apply: func must map a {np.dtype(x.dtype).name} value to "
                        f"one of the same dtype elementwise, got "
                        f"{np.dtype(y.dtype).name}{list(y.shape)} for "
                        f"{np.dtype(x.dtype).name}{list(x.shape)}")
    return y


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """Apply ``func`` to the elements of ``operand`` that the scatter addresses.

    Args:
      operand: the array to update.
      scatter_indices: integer array; its last dim is the index vector (as
        :func:`scatter`).
      func: a unary elementwise function, applied once per time an element is addressed
        (duplicate indices apply it again).
      dimension_numbers: a :class:`ScatterDimensionNumbers`.
      update_shape: the shape the scatter's updates would have (the batch dims of
        ``scatter_indices`` and the window dims).
      indices_are_sorted, unique_indices: promises, as in :func:`scatter`.
      mode: ``'drop'``/``'fill'`` (default: out-of-bounds windows are skipped),
        ``'clip'`` (indices clamped) or ``'promise_in_bounds'``.

    Returns:
      A copy of ``operand`` with ``func`` applied at the given indices.

    Example::

        >>> dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
        ...                                  scatter_dims_to_operand_dims=(0,))
        >>> lax.scatter_apply(jnp.arange(5.0), jnp.array([[1], [3], [3]]), lambda v: v * 2,
        ...                   dn, update_shape=(3,))
        Array([ 0.,  2.,  2., 12.,  4.], dtype=float32)
    """
    operand = asarray_for_lax(operand)
    counts = scatter_add(full(operand.shape, 0, dtypes.int32), scatter_indices,
                         full(tuple(update_shape), 1, dtypes.int32), dimension_numbers,
                         indices_are_sorted=indices_are_sorted,
                         unique_indices=unique_indices, mode=mode)
    if unique_indices:
        return select(gt(counts, 0), _applied(func, operand), operand)
    most = reduce_max(counts, tuple(range(counts.ndim))) if counts.ndim else counts

    def body(carry):
        i, x = carry
        return add(i, 1), select(gt(counts, i), _applied(func, x), x)
    return while_loop(lambda carry: lt(carry[0], most), body,
                      (np.int32(0), operand))[1]


__all__ = ["scatter_apply"]
