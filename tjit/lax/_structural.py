"""``tjit.lax`` shape functions: iota, broadcast_in_dim, reshape, transpose, squeeze,
expand_dims and their conveniences."""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import get_aval, remember
from tjit.tracing.errors import static_index
from tjit.tracing.shapes import nonnegative_shape, normalize_axis, static_ints
from tjit.primitives import reductions as rd
from tjit.primitives import structural as st
from tjit.lax._elementwise import asarray_for_lax
from tjit.lax._annotations import apply_out_sharding


def iota(dtype, size):
    """[0, 1, ..., size-1] as ``dtype``."""
    return st.iota_p.bind(dtype=dtypes.canonicalize(dtypes.check_dtype(dtype, "iota")),
                          shape=nonnegative_shape(size, "iota"), dimension=0)


def broadcasted_iota(dtype, shape, dimension, *, out_sharding=None):
    """broadcasted_iota(dtype, shape, dimension): an array of ``shape`` whose values count
    0, 1, ... along ``dimension`` (as ``jax.lax.broadcasted_iota``; shape may be symbolic).

    Example::

        >>> lax.broadcasted_iota(jnp.int32, (2, 3), 1)
        Array([[0, 1, 2],
               [0, 1, 2]], dtype=int32)
    """
    shape = nonnegative_shape(shape, "broadcasted_iota")
    out = st.iota_p.bind(dtype=dtypes.canonicalize(dtypes.check_dtype(dtype, "iota")),
                         shape=shape, dimension=normalize_axis(dimension, len(shape), "iota"))
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.broadcasted_iota(out_sharding=...)")


def broadcast_in_dim(operand, shape, broadcast_dimensions, *, out_sharding=None):
    """Place ``operand``'s dims at ``broadcast_dimensions`` of ``shape`` (``out_sharding``:
    JAX's, checked against the result)."""
    operand = asarray_for_lax(operand)
    shape = nonnegative_shape(shape, "broadcast_in_dim")
    broadcast_dimensions = static_ints(broadcast_dimensions, "broadcast_dimensions",
                                       "broadcast_in_dim")
    if len(set(broadcast_dimensions)) == len(broadcast_dimensions) == operand.ndim and \
            list(broadcast_dimensions) != sorted(broadcast_dimensions):
        # StableHLO (and JAX) take the dims in any order: operand dim i goes to out dim
        # dims[i]; the primitive wants them increasing, so transpose the operand first
        order = tuple(int(i) for i in np.argsort(broadcast_dimensions))
        operand = transpose(operand, order)
        broadcast_dimensions = tuple(broadcast_dimensions[i] for i in order)
    if operand.shape == shape and broadcast_dimensions == tuple(range(len(shape))):
        out = operand
    else:
        out = st.broadcast_in_dim_p.bind(operand, shape=shape,
                                         broadcast_dimensions=broadcast_dimensions)
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.broadcast_in_dim(out_sharding=...)")


def broadcast(operand, sizes, *, out_sharding=None):
    """Add leading dims ``sizes`` (``out_sharding``: JAX's, checked against the result)."""
    operand = asarray_for_lax(operand)
    sizes = nonnegative_shape(sizes, "broadcast")
    n = len(sizes)
    out = broadcast_in_dim(operand, sizes + tuple(operand.shape),
                           tuple(range(n, n + operand.ndim)))
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.broadcast(out_sharding=...)")


def broadcast_to_rank(x, rank):
    """broadcast_to_rank(x, rank): ``x`` with leading size-1 dims added up to ``rank``
    dims (unchanged when it has as many already), as ``jax.lax.broadcast_to_rank``.

    Example::

        >>> lax.broadcast_to_rank(jnp.ones(3), 3).shape
        (1, 1, 3)
    """
    x = asarray_for_lax(x)
    rank = static_index(rank, "rank", "lax.broadcast_to_rank")
    return x if x.ndim >= rank else broadcast(x, (1,) * (rank - x.ndim))


#: (operand shape, new sizes) -> the checked sizes (a -1 resolved), for new sizes that are
#: tuples of Python ints (1.0 == 1 as a key: anything else is checked every time)
_resolved_sizes = {}


def _reshape_sizes(shape, new_sizes):
    keep = type(new_sizes) is tuple and all(type(d) is int for d in new_sizes)
    if keep:
        out = _resolved_sizes.get((shape, new_sizes))
        if out is not None:
            return out
    out = st.reshape_sizes(shape, new_sizes)
    if keep:
        remember(_resolved_sizes, (shape, new_sizes), out)
    return out


def reshape(operand, new_sizes, dimensions=None, *, out_sharding=None):
    """Reshape (row-major); ``dimensions`` transposes first, as in lax (``out_sharding``:
    JAX's, checked against the result)."""
    operand = asarray_for_lax(operand)
    if dimensions is not None and tuple(dimensions) != tuple(range(operand.ndim)):
        operand = transpose(operand, dimensions)
    new_sizes = _reshape_sizes(tuple(operand.shape), new_sizes)
    out = operand if new_sizes == tuple(operand.shape) else \
        st.reshape_p.bind(operand, new_sizes=new_sizes, dimensions=None)
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.reshape(out_sharding=...)")


def transpose(operand, permutation):
    """transpose(operand, permutation): ``operand``'s dims reordered, output dim ``i``
    being input dim ``permutation[i]`` (``jax.lax.transpose``; no default permutation,
    unlike ``numpy.transpose``).

    Example::

        >>> lax.transpose(jnp.ones((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    operand = asarray_for_lax(operand)
    permutation = static_ints(permutation, "permutation", "transpose")
    if permutation == tuple(range(operand.ndim)):
        return operand
    return st.transpose_p.bind(operand, permutation=permutation)


def squeeze(array, dimensions):
    """squeeze(array, dimensions): ``array`` without the listed size-1 dims (as
    ``jax.lax.squeeze``: ``dimensions`` is required and each must have size 1).

    Example::

        >>> lax.squeeze(jnp.ones((1, 3, 1)), (0, 2)).shape
        (3,)
    """
    array = asarray_for_lax(array)
    dims = tuple(sorted(normalize_axis(d, array.ndim, "squeeze") for d in dimensions))
    if not dims:
        return array
    return st.squeeze_p.bind(array, dimensions=dims)


def expand_dims(array, dimensions):
    """expand_dims(array, dimensions): ``array`` with size-1 dims inserted at the listed
    positions of the result (``jax.lax.expand_dims``; a sequence, unlike NumPy's int).

    Example::

        >>> lax.expand_dims(jnp.ones(3), (0, 2)).shape
        (1, 3, 1)
    """
    array = asarray_for_lax(array)
    ndim = array.ndim + len(dimensions)
    dims = tuple(sorted(normalize_axis(d, ndim, "expand_dims") for d in dimensions))
    if not dims:
        return array
    return st.expand_dims_p.bind(array, dimensions=dims)


def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (``sharding``: JAX's, checked
    against the result)."""
    from tjit.lax._elementwise import convert_element_type
    shape = nonnegative_shape(shape, "full")
    # weak as the fill (JAX's dtypes.is_weakly_typed): a Python number or a weak array
    weak = dtype is None and (getattr(fill_value, "weak_type", False) or (
        isinstance(fill_value, (int, float, complex)) and not isinstance(fill_value, bool)))
    if dtype is None:
        x = asarray_for_lax(fill_value)
    else:
        x = convert_element_type(fill_value, dtype, weak_type=False)
    if x.ndim != 0:
        raise ValueError(f"full: fill_value must be a scalar, got shape {x.shape}")
    if weak != getattr(x, "weak_type", False):
        x = convert_element_type(x, x.dtype, weak_type=weak)
    out = _filled(x, shape)
    return out if sharding is None else apply_out_sharding(out, sharding,
                                                           "lax.full(sharding=...)")


def _filled(x, shape):
    """``broadcast(x, shape)`` for ``shape`` already checked (a canonical, non-negative
    tuple): a 0-d ``x`` binds broadcast_in_dim directly (full/full_like/zeros build
    constants on every eager call, and the checks in between cost more than the fill)."""
    if x.ndim != 0:
        return broadcast(x, shape)
    if not shape:
        return x
    return st.broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=())


def constant_like(example, value):
    """``value`` as a 0-d constant of ``example``'s dtype, typed as JAX's ``lax._const``:
    weak where ``example`` is a weakly typed scalar (a Python number, a weak 0-d array),
    strong otherwise, a weak array with dims included. JAX's library functions build
    their constants so (logit's ``1 - x``, hypot's ``inf``), which makes their results
    strong for weak arrays and weak for Python numbers; use it where theirs do."""
    from tjit.lax._elementwise import convert_element_type
    if type(example) in (bool, int, float, complex):
        return type(example)(value)
    aval = get_aval(example)
    weak = bool(aval.weak_type) and not aval.shape
    return convert_element_type(np.asarray(value, aval.dtype), aval.dtype, weak_type=weak)


def dim_value(d, dtype=None):
    """Dim ``d`` as a 0-d integer array (default int dtype): a symbolic dim becomes the
    sum of ``d`` ones, which the executor evaluates once the size symbols are bound."""
    dtype = dtypes.default_int() if dtype is None else dtype
    if type(d) is int:
        return full((), d, dtype)
    return rd.reduce_sum_p.bind(full((d,), 1, dtype), axes=(0,))


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """``full`` with the shape (and dtype unless given) of ``x`` (``sharding``: JAX's,
    checked against the result)."""
    from tjit.lax._elementwise import convert_element_type
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):  # (a list's .dtype: AttributeError)
        x = asarray_for_lax(x)
    dt = dtypes.canonicalize(dtype if dtype is not None else x.dtype)
    weak = dtype is None and getattr(x, "weak_type", False)
    val = convert_element_type(fill_value, dt, weak_type=weak)
    out = _filled(val, tuple(x.shape) if shape is None else nonnegative_shape(shape,
                                                                               "full_like"))
    return out if sharding is None else apply_out_sharding(out, sharding,
                                                           "lax.full_like(sharding=...)")


def zeros_like_array(x):
    """zeros_like_array(x): zeros of ``x``'s shape and dtype (``jax.lax.zeros_like_array``).

    Example::

        >>> lax.zeros_like_array(jnp.ones(2, jnp.int8))
        Array([0, 0], dtype=int8)
    """
    return full_like(x, 0)


__all__ = [
    "iota", "broadcasted_iota", "broadcast_in_dim", "broadcast", "broadcast_to_rank",
    "reshape", "transpose", "squeeze", "expand_dims", "full", "full_like",
    "zeros_like_array"
]
