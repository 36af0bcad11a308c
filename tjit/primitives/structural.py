"""Shape primitives that move or replicate data without arithmetic: iota,
broadcast_in_dim, reshape, transpose, squeeze, expand_dims."""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray, aval_of_value
from tjit.tracing.core import never_weak
from tjit.tracing.errors import InconclusiveDimensionError, OperandShapeError, ShapeError
from tjit.tracing.shapes import (
    canonical_shape, definitely_equal, is_one, nonnegative_shape, reshape_shape, shape_str,
    size)
from tjit.primitives.base import new_primitive

# -- iota ---------------------------------------------------------------------------------
iota_p = new_primitive("iota")


@iota_p.def_abstract_eval
def _iota_abstract(*, dtype, shape, dimension):
    shape = nonnegative_shape(shape, "iota")
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
    nonnegative_shape(shape, "broadcast_in_dim")
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


def _broadcast_in_dim_pp(params):
    """As JAX prints it: ``shape`` is the result's type; no dimensions, no list."""
    return sorted((k, v) for k, v in params.items()
                  if k != "shape" and not (k == "broadcast_dimensions" and not v))


broadcast_in_dim_p.pp_params = _broadcast_in_dim_pp


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
    n = size(shape)
    if xp is np and type(n) is int and n <= _COPY_MAX:
        # a small result is filled: NumPy's broadcast_to (a read-only view) costs ~5 us
        # in Python, 5-20x a fill of up to 4096 elements (eager full_like, zeros, +- 1)
        out = np.empty(shape, x.dtype)
        out[...] = x.reshape(expanded)
        return out
    return xp.broadcast_to(x.reshape(expanded), shape)


#: the largest broadcast result (elements) that is filled rather than viewed
_COPY_MAX = 4096


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
        raise OperandShapeError(f"transpose: permutation {permutation} is not a permutation of the "
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


# -- transformation rules --------------------------------------------------------------------
# jvp / transpose / batching (contracts in primitives/rules.py). All of these ops are
# linear; their batching rules move the batch axis to the front and shift the params.
from tjit.primitives import rules as _r  # noqa: E402
from tjit.tracing.core import get_aval as _aval  # noqa: E402


def _front(x, bdim):
    """``x`` with its batch axis first, and the batch size."""
    x = _r.moveaxis(x, bdim, 0)
    return x, _aval(x).shape[0]


# iota has no inputs: under jvp and vmap it is a constant (the traces bind it as is).
_r.defjvp_zero(iota_p)
iota_p.batch = lambda args, dims, **params: (iota_p.bind(**params), None)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    """Sum over the dims the broadcast created or expanded, then restore the operand's
    size-1 dims."""
    if type(ct) is _r.Zero:
        return [_r.Zero(x.aval)]
    from tjit.primitives.reductions import reduce_sum_p
    unit = tuple(i for i, d in enumerate(x.aval.shape) if is_one(d))
    kept = [od for i, od in enumerate(broadcast_dimensions) if i not in unit]
    axes = tuple(i for i in range(len(shape)) if i not in kept)
    if axes:
        ct = reduce_sum_p.bind(ct, axes=axes)
    if unit:
        ct = expand_dims_p.bind(ct, dimensions=unit)
    return [ct]


def _broadcast_in_dim_batch(args, dims, *, shape, broadcast_dimensions):
    x, size = _front(args[0], dims[0])
    return broadcast_in_dim_p.bind(
        x, shape=(size,) + tuple(shape),
        broadcast_dimensions=(0,) + tuple(d + 1 for d in broadcast_dimensions)), 0


_r.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)
broadcast_in_dim_p.batch = _broadcast_in_dim_batch


def _reshape_batch(args, dims, *, new_sizes, dimensions=None):
    x, size = _front(args[0], dims[0])  # row-major order: the batch axis must lead
    return reshape_p.bind(x, new_sizes=(size,) + tuple(new_sizes), dimensions=dimensions), 0


_r.deflinear(reshape_p, lambda ct, x, *, new_sizes, dimensions=None: [
    reshape_p.bind(ct, new_sizes=tuple(x.aval.shape), dimensions=None)])
reshape_p.batch = _reshape_batch


def _transpose_batch(args, dims, *, permutation):
    d = dims[0]
    perm = (d,) + tuple(p if p < d else p + 1 for p in permutation)
    return transpose_p.bind(args[0], permutation=perm), 0


_r.deflinear(transpose_p, lambda ct, x, *, permutation: [
    transpose_p.bind(ct, permutation=tuple(int(i) for i in np.argsort(permutation)))])
transpose_p.batch = _transpose_batch


def _shifted_dims_batch(prim):
    def rule(args, dims, *, dimensions):
        x, _ = _front(args[0], dims[0])
        return prim.bind(x, dimensions=tuple(d + 1 for d in dimensions)), 0
    return rule


_r.deflinear(squeeze_p, lambda ct, x, *, dimensions: [
    expand_dims_p.bind(ct, dimensions=tuple(dimensions))])
squeeze_p.batch = _shifted_dims_batch(squeeze_p)
_r.deflinear(expand_dims_p, lambda ct, x, *, dimensions: [
    squeeze_p.bind(ct, dimensions=tuple(dimensions))])
expand_dims_p.batch = _shifted_dims_batch(expand_dims_p)


# -- lowerings to the HLO-like graph (ctx: xla_like.hlo.Builder; ctx.avals_out: result avals)
iota_p.lowering = lambda ctx, *, dtype, shape, dimension: ctx.add(
    "iota", (), ctx.avals_out[0].shape, dtype, dimension=dimension)
broadcast_in_dim_p.lowering = lambda ctx, x, *, shape, broadcast_dimensions: ctx.broadcast(
    x, ctx.avals_out[0].shape, broadcast_dimensions)
transpose_p.lowering = lambda ctx, x, *, permutation: ctx.add(
    "transpose", (x,), ctx.avals_out[0].shape, x.dtype, perm=tuple(permutation))


def _reshape_lowering(ctx, x, **params):
    shape = ctx.avals_out[0].shape
    return x if tuple(shape) == tuple(x.shape) else ctx.add("reshape", (x,), shape, x.dtype)


for _p in (reshape_p, squeeze_p, expand_dims_p):
    _p.lowering = _reshape_lowering
