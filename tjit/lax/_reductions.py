"""``tjit.lax`` reductions, cumulative ops, arg-reductions and sorting with JAX's
signatures: ``reduce_sum(operand, axes)``, ``argmax(operand, axis, index_dtype)``,
``cumsum(operand, axis=0, reverse=False)``, ``sort``, ``sort_key_val`` and ``top_k``.
"""

from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError, static_index
from tjit.tracing.shapes import normalize_axes, normalize_axis, shape_str
from tjit.primitives import reductions as rd
from tjit.lax import _elementwise as ew
from tjit.lax._elementwise import asarray_for_lax
from tjit.lax._general_reduce import general_reduce
from tjit.lax._slicing import slice_in_dim
from tjit.lax._structural import broadcasted_iota
from tjit.lax._annotations import apply_out_sharding
from tjit.tracing.tree_util import tree_leaves


def _reducer(prim, doc):
    def f(operand, axes):
        operand = asarray_for_lax(operand)
        axes = tuple(sorted(normalize_axes(tuple(axes), operand.ndim, prim.name)))
        if not axes:
            return operand
        return prim.bind(operand, axes=axes)
    f.__name__ = prim.name
    f.__doc__ = doc
    return f


_reduce_sum = _reducer(rd.reduce_sum_p, "")


def reduce_sum(operand, axes, *, out_sharding=None):
    """Sum over ``axes`` (0 for empty axes; ints wrap); ``out_sharding``: JAX's, checked
    against the result."""
    out = _reduce_sum(operand, axes)
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.reduce_sum(out_sharding=...)")


reduce_prod = _reducer(rd.reduce_prod_p, "Product over ``axes`` (1 for empty axes).")
reduce_max = _reducer(rd.reduce_max_p, "Maximum over ``axes`` (NaN-propagating; +0.0 over "
                                       "-0.0; -inf or the dtype's minimum for empty axes).")
reduce_min = _reducer(rd.reduce_min_p, "Minimum over ``axes`` (NaN-propagating; -0.0 under "
                                       "+0.0; +inf or the dtype's maximum for empty axes).")
reduce_and = _reducer(rd.reduce_and_p, "Bitwise/logical AND over ``axes``.")
reduce_or = _reducer(rd.reduce_or_p, "Bitwise/logical OR over ``axes``.")
reduce_xor = _reducer(rd.reduce_xor_p, "Bitwise/logical XOR over ``axes``.")

# computation -> (reducer, binary op to fold in the init value)
_MONOIDS = {ew.add: (_reduce_sum, ew.add), ew.mul: (reduce_prod, ew.mul),
            ew.max: (reduce_max, ew.max), ew.min: (reduce_min, ew.min),
            ew.bitwise_and: (reduce_and, ew.bitwise_and),
            ew.bitwise_or: (reduce_or, ew.bitwise_or),
            ew.bitwise_xor: (reduce_xor, ew.bitwise_xor)}


def reduce(operands, init_values, computation, dimensions, out_sharding=None):  # noqa: A001
    """``jax.lax.reduce``: reduce ``operands`` over ``dimensions`` with ``computation``;
    the result is ``computation(init, reduction over dimensions)``.

    Args:
      operands: an array, or a pytree of same-shaped arrays (variadic reduce).
      init_values: scalar(s) of the operands' dtypes, in the structure of ``operands``
        (the identity of ``computation``).
      computation: ``f(a, b) -> c`` on values in the structure of ``operands``,
        associative; lax.add, mul, max, min and bitwise_and/or/xor on one operand use
        the reduction primitives, any other function a log-depth tree of its calls
        (it is applied elementwise to whole arrays).
      dimensions: the dims to reduce.
      out_sharding: JAX's, checked against each result (one device places nothing).

    Returns:
      The reduced value(s), in the structure of ``operands``.
    """
    out = _reduce(operands, init_values, computation, dimensions)
    if out_sharding is not None:
        for leaf in tree_leaves(out):
            apply_out_sharding(leaf, out_sharding, "lax.reduce(out_sharding=...)")
    return out


def _reduce(operands, init_values, computation, dimensions):
    single = not isinstance(operands, (list, tuple))
    ops = [operands] if single else list(operands)
    inits = [init_values] if single else list(init_values)
    if computation not in _MONOIDS:
        return general_reduce(operands, init_values, computation, dimensions)
    if len(ops) != len(inits):
        raise ValueError(f"lax.reduce: {len(ops)} operands but {len(inits)} init values")
    reducer, combine = _MONOIDS[computation]
    outs = []
    for x, init in zip(ops, inits):
        x = asarray_for_lax(x)
        init = asarray_for_lax(init, dtypes.canonicalize(x.dtype))
        outs.append(combine(reducer(x, dimensions), init))
    return outs[0] if single else outs


def argmax(operand, axis, index_dtype):
    """Index of the maximum along ``axis`` (first occurrence; NaN counts as maximal)."""
    return _arg(rd.argmax_p, operand, axis, index_dtype)


def argmin(operand, axis, index_dtype):
    """Index of the minimum along ``axis`` (first occurrence; NaN counts as minimal)."""
    return _arg(rd.argmin_p, operand, axis, index_dtype)


def _arg(prim, operand, axis, index_dtype):
    operand = asarray_for_lax(operand)
    axis = normalize_axis(axis, operand.ndim, prim.name)
    index_dtype = dtypes.canonicalize(dtypes.check_dtype(index_dtype, prim.name))
    return prim.bind(operand, axes=(axis,), index_dtype=index_dtype)


def _cumulative(prim, doc):
    def f(operand, axis=0, reverse=False):
        operand = asarray_for_lax(operand)
        if operand.ndim == 0:
            raise ShapeError(f"{prim.name}: needs an operand of rank >= 1, got shape ()")
        axis = normalize_axis(axis, operand.ndim, prim.name)
        return prim.bind(operand, axis=axis, reverse=bool(reverse))
    f.__name__ = prim.name
    f.__doc__ = doc
    return f


cumsum = _cumulative(rd.cumsum_p, "Cumulative sum along ``axis`` (from the end if "
                                  "``reverse``).")
cumprod = _cumulative(rd.cumprod_p, "Cumulative product along ``axis``.")
cummax = _cumulative(rd.cummax_p, "Cumulative maximum along ``axis`` (``lax.max``'s NaN and "
                                   "signed-zero rules).")
cummin = _cumulative(rd.cummin_p, "Cumulative minimum along ``axis`` (``lax.min``'s NaN and "
                                   "signed-zero rules).")


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sort an array, or several arrays together, along ``dimension``.

    Args:
      operand: an array, or a sequence of same-shape arrays sorted together.
      dimension: the dim to sort along.
      is_stable: accepted; the sort is always stable.
      num_keys: how many leading operands form the (lexicographic) sort key.

    Returns:
      The sorted array, or a tuple of sorted arrays when a sequence was given. NaNs sort
      to the end.
    """
    if isinstance(operand, (list, tuple)):
        ops = [asarray_for_lax(o) for o in operand]
        if not ops:
            raise ValueError("sort: needs at least one operand")
        dim = normalize_axis(dimension, max(ops[0].ndim, 1), "sort")
        if ops[0].ndim == 0:
            raise ShapeError("sort: operands must have rank >= 1, got shape ()")
        return tuple(rd.sort_p.bind(*ops, dimension=dim, is_stable=bool(is_stable),
                                    num_keys=int(num_keys)))
    if int(num_keys) != 1:
        raise ValueError(f"sort: num_keys={num_keys} needs a sequence of operands")
    return sort([operand], dimension, is_stable, 1)[0]


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    """Sort ``keys`` along ``dimension`` and permute ``values`` the same way."""
    k, v = sort([keys, values], dimension, is_stable, 1)
    return k, v


def _floating_operand(operand, op):
    operand = asarray_for_lax(operand)
    if not dtypes.is_float(operand.dtype):  # JAX's approx_*_k take floating operands only
        raise ValueError(f"{op}: operand must be a floating type, got {operand.dtype}; "
                         f"lax.top_k takes integers")
    return operand


def top_k(operand, k, *, axis=-1, is_stable=True):
    """The ``k`` largest entries along ``axis`` (default the last) and their int32
    indices, largest first; ties keep the lower index first, NaNs count as largest.
    ``is_stable=False`` (JAX: tie order unspecified) is accepted; the order stays stable."""
    del is_stable  # (always stable, which an unstable request allows)
    operand = asarray_for_lax(operand)
    if operand.ndim == 0:
        raise ShapeError("top_k: needs an operand of rank >= 1, got shape ()")
    axis = normalize_axis(axis, operand.ndim, "top_k")
    k, n = static_index(k, "k", "top_k"), operand.shape[axis]
    if k < 0 or (type(n) is int and k > n):
        raise ValueError(f"top_k: k={k} must be between 0 and the size {n} of axis {axis} "
                         f"of the operand of shape {shape_str(operand.shape)}")
    return tuple(rd.top_k_p.bind(operand, k=k, dimension=axis))


def _check_recall(recall_target, op):
    if not 0 < recall_target <= 1:
        raise ValueError(f"{op}: recall_target must be in (0, 1], got {recall_target}")


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` largest entries along ``reduction_dimension`` and their int32 indices,
    as ``jax.lax.approx_max_k``: computed exactly here (as JAX does off TPU), so
    ``recall_target`` and the size override only have to be valid."""
    _check_recall(recall_target, "approx_max_k")
    operand = _floating_operand(operand, "approx_max_k")
    # (k checked here too, so its errors name approx_max_k, not top_k)
    return top_k(operand, static_index(k, "k", "approx_max_k"), axis=reduction_dimension)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The ``k`` smallest entries along ``reduction_dimension`` and their int32 indices,
    smallest first (ties: lower index first), as ``jax.lax.approx_min_k``; exact, as
    :func:`approx_max_k`."""
    _check_recall(recall_target, "approx_min_k")
    operand = _floating_operand(operand, "approx_min_k")
    if operand.ndim == 0:
        raise ShapeError("approx_min_k: needs an operand of rank >= 1, got shape ()")
    axis = normalize_axis(reduction_dimension, operand.ndim, "approx_min_k")
    k, n = static_index(k, "k", "approx_min_k"), operand.shape[axis]
    if k < 0 or (type(n) is int and k > n):
        raise ValueError(f"approx_min_k: k={k} must be between 0 and the size {n} of axis "
                         f"{axis} of the operand of shape {shape_str(operand.shape)}")
    iota = broadcasted_iota(dtypes.int32, operand.shape, axis)
    vals, idx = sort([operand, iota], axis, True, 1)  # stable: ties keep index order
    return slice_in_dim(vals, 0, k, 1, axis), slice_in_dim(idx, 0, k, 1, axis)


__all__ = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and",
           "reduce_or", "reduce_xor", "reduce", "argmax", "argmin", "cumsum", "cumprod",
           "cummax", "cummin", "sort", "sort_key_val", "top_k", "approx_max_k",
           "approx_min_k"]
