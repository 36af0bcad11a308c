"""Shape primitives that move or replicate data without arithmetic: iota,
broadcast_in_dim, reshape, transpose, squeeze, expand_dims."""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray, aval_of_value
from tjit.tracing.core import never_weak
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import (
    canonical_shape, definitely_equal, is_one, reshape_shape, shape_str, size)
from tjit.primitives.base import new_primitive

# -- iota ---------------------------------------------------------------------------------
iota_p = new_primitive("iota")


@iota_p.def_abstract_eval
def _iota_abstract(*, dtype, shape, dimension):
    shape = canonical_shape(shape, "iota")
    if not 0 <= dimension < len(shape):
        raise ShapeError(f"iota: dimension {dimension} out of range for shape "
                         f"{shape_str(shape)}")
    dt = dtypes.check_dtype(dtype, "iota")
    if dt == dtypes.bool_:
        raise TypeError("iota: dtype bool is not supported; use an integer or floating "
                        "dtype (and compare with a value to get booleans)")
    return ShapedArray(shape, dt)


@iota_p.def_impl
def _iota_impl(xp, *, dtype, shape, dimension):
    if np.dtype(dtype) == np.bool_ or not 0 <= dimension < len(shape):
        _iota_abstract(dtype=dtype, shape=shape, dimension=dimension)  # raises
    n = shape[dimension]
    r = xp.arange(n, dtype=dtype).reshape([n if i == dimension else 1
                                           for i in range(len(shape))])
    return xp.broadcast_to(r, shape)


iota_p.def_weak_type(never_weak)

# -- broadcast_in_dim ----------------------------------------------------------------------
broadcast_in_dim_p = new_primitive("broadcast_in_dim")


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract(x, *, shape, broadcast_dimensions):
    if len(broadcast_dimensions) != x.ndim:
        raise ShapeError(f"broadcast_in_dim: operand of shape {shape_str(x.shape)} needs "
                         f"{x.ndim} broadcast_dimensions, got {broadcast_dimensions}")
    if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise ShapeError(f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} "
                         f"must be strictly increasing")
    for d, od in zip(x.shape, broadcast_dimensions):
        if not 0 <= od < len(shape):
            raise ShapeError(f"broadcast_in_dim: dimension {od} out of range for shape "
                             f"{shape_str(shape)}")
        if not (is_one(d) or definitely_equal(d, shape[od])):
            raise ShapeError(f"broadcast_in_dim: operand of shape {shape_str(x.shape)} cannot "
                             f"be broadcast to {shape_str(shape)} along dims "
                             f"{broadcast_dimensions}")
    return ShapedArray(shape, x.dtype)


@broadcast_in_dim_p.def_impl
def _broadcast_in_dim_impl(xp, x, *, shape, broadcast_dimensions):
    x = xp.asarray(x)
    dims = broadcast_dimensions
    if len(dims) != x.ndim or any(a >= b for a, b in zip(dims, dims[1:])):
        _broadcast_in_dim_abstract(aval_of_value(x), shape=shape,
                                   broadcast_dimensions=dims)  # raises
    expanded = [1] * len(shape)
    for d, od in zip(x.shape, broadcast_dimensions):
        expanded[od] = d
    return xp.broadcast_to(x.reshape(expanded), shape)


# -- reshape ---------------------------------------------------------------------------------
reshape_p = new_primitive("reshape")


def reshape_sizes(old_shape, new_sizes):
    """``new_sizes`` with a -1 resolved, checked against ``old_shape``; the error names
    reshape and both shapes also when symbolic sizes cannot be compared."""
    try:
        return reshape_shape(old_shape, new_sizes, "reshape")
    except InconclusiveDimensionError as e:
        if str(e).startswith("reshape"):
            raise
        raise InconclusiveDimensionError(
            f"reshape: cannot reshape array of shape {shape_str(old_shape)} into "
            f"{shape_str(canonical_shape(new_sizes))}: the sizes may differ ({e})") from None


@reshape_p.def_abstract_eval
def _reshape_abstract(x, *, new_sizes, dimensions=None):
    if dimensions is not None:
        raise NotImplementedError("reshape: the `dimensions` argument is not supported; "
                                  "transpose first")
    shape = reshape_sizes(x.shape, new_sizes)
    if tuple(shape) != tuple(new_sizes):
        raise ShapeError(f"reshape: new_sizes must be fully specified, got {new_sizes}")
    return ShapedArray(shape, x.dtype)


@reshape_p.def_impl
def _reshape_impl(xp, x, *, new_sizes, dimensions=None):
    if dimensions is not None or any(d < 0 for d in new_sizes):
        _reshape_abstract(aval_of_value(x), new_sizes=new_sizes,
                          dimensions=dimensions)  # raises: NumPy would accept -1
    return xp.reshape(x, new_sizes)

# -- transpose ---------------------------------------------------------------------------------
transpose_p = new_primitive("transpose")


@transpose_p.def_abstract_eval
def _transpose_abstract(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise ShapeError(f"transpose: permutation {permutation} is not a permutation of the "
                         f"dims of an operand of shape {shape_str(x.shape)}")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype)


transpose_p.def_impl(lambda xp, x, *, permutation: xp.transpose(x, permutation))

# -- squeeze / expand_dims ----------------------------------------------------------------------
squeeze_p = new_primitive("squeeze")


@squeeze_p.def_abstract_eval
def _squeeze_abstract(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise ShapeError(f"squeeze: dimensions {dimensions} are not unique")
    for d in dimensions:
        if not 0 <= d < x.ndim:
            raise ShapeError(f"squeeze: dimension {d} out of range for shape "
                             f"{shape_str(x.shape)}")
        if not is_one(x.shape[d]):
            raise ShapeError(f"squeeze: cannot squeeze dimension {d} of size "
                             f"{x.shape[d]} (shape {shape_str(x.shape)}); only size-1 dims")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions),
                       x.dtype)


# xp.squeeze checks that each squeezed dim has size 1 (a reshape would not, for
# zero-size arrays).
squeeze_p.def_impl(lambda xp, x, *, dimensions: xp.squeeze(x, axis=tuple(dimensions)))

expand_dims_p = new_primitive("expand_dims")


@expand_dims_p.def_abstract_eval
def _expand_dims_abstract(x, *, dimensions):
    ndim = x.ndim + len(dimensions)
    if sorted(set(dimensions)) != sorted(dimensions) or any(
            not 0 <= d < ndim for d in dimensions):
        raise ShapeError(f"expand_dims: bad dimensions {dimensions} for an operand of "
                         f"shape {shape_str(x.shape)}")
    it = iter(x.shape)
    return ShapedArray(tuple(1 if i in dimensions else next(it) for i in range(ndim)),
                       x.dtype)


@expand_dims_p.def_impl
def _expand_dims_impl(xp, x, *, dimensions):
    ndim = np.ndim(x) + len(dimensions)
    it = iter(xp.shape(x))
    return xp.reshape(x, [1 if i in dimensions else next(it) for i in range(ndim)])


def total_size(shape):
    return size(shape)
