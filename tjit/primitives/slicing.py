"""Structural primitives that select, reverse, pad or join array data without arithmetic:
rev, pad, concatenate, slice, dynamic_slice and dynamic_update_slice.

Semantics follow XLA: ``pad`` accepts negative low/high padding (it crops) and interior
padding between elements; ``dynamic_slice`` / ``dynamic_update_slice`` clamp their start
indices so the window lies inside the operand (they never read or write out of bounds).

Shape rules accept symbolic dims: concatenating ``(b, 3)`` with ``(b, 3)`` on axis 0 gives
``(2*b, 3)``; static slice bounds may be ints or dims (e.g. ``x.shape[0]``).
"""

import operator

import sympy

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import (
    definitely_equal, dim_str, greater_equal, is_symbolic, shape_str)
from tjit.primitives.base import new_primitive, same_dtypes


def simplify_dim(d):
    """A dim computed with sympy arithmetic, in canonical form (int when it is one)."""
    if type(d) is int:
        return d
    e = sympy.expand(d)
    return int(e) if e.is_Integer else e


def _check_le(op, a, b, what):
    """Raise ShapeError unless a <= b (decided for symbolic dims where possible)."""
    try:
        ok = greater_equal(b, a)
    except InconclusiveDimensionError:
        raise InconclusiveDimensionError(
            f"{op}: cannot decide whether {what} ({dim_str(a)} <= {dim_str(b)}) holds for "
            f"every value of the symbolic dims; express the bound with the symbolic dims "
            f"(e.g. x.shape[0] - 1) or use concrete shapes") from None
    if not ok:
        raise ShapeError(f"{op}: {what} requires {dim_str(a)} <= {dim_str(b)}")


def _check_one_per_dim(op, name, values, ndim, shape):
    if len(values) != ndim:
        raise ShapeError(f"{op}: {name} {tuple(values)} must have one entry per dimension "
                         f"of the operand of shape {shape_str(shape)} ({ndim} entries)")


# -- rev ------------------------------------------------------------------------------------
rev_p = new_primitive("rev")


@rev_p.def_abstract_eval
def _rev_abstract(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions) or any(
            not 0 <= d < x.ndim for d in dimensions):
        raise ShapeError(f"rev: dimensions {dimensions} must be unique and in range for an "
                         f"operand of shape {shape_str(x.shape)}")
    return ShapedArray(x.shape, x.dtype)


@rev_p.def_impl
def _rev_impl(xp, x, *, dimensions):
    x = xp.asarray(x)
    return xp.flip(x, axis=dimensions) if dimensions else x


# -- pad ------------------------------------------------------------------------------------
pad_p = new_primitive("pad")


def _padded_dim(d, lo, hi, interior):
    if type(d) is int:
        return lo + hi + d + max(d - 1, 0) * interior
    return simplify_dim(lo + hi + d + (d - 1) * interior)  # symbolic dims are >= 1


@pad_p.def_abstract_eval
def _pad_abstract(x, padding_value, *, padding_config):
    if padding_value.shape != ():
        raise ShapeError(f"pad: padding_value must be a scalar, got shape "
                         f"{shape_str(padding_value.shape)}")
    same_dtypes("pad", (x, padding_value))
    _check_one_per_dim("pad", "padding_config", padding_config, x.ndim, x.shape)
    out = []
    for d, cfg in zip(x.shape, padding_config):
        if len(cfg) != 3:
            raise ShapeError(f"pad: each padding_config entry must be (low, high, interior), "
                             f"got {cfg}")
        lo, hi, interior = cfg
        if interior < 0:
            raise ShapeError(f"pad: interior padding must be >= 0, got {padding_config}")
        n = _padded_dim(d, lo, hi, interior)
        _check_le("pad", 0, n, f"the padded size of a dim of shape {shape_str(x.shape)} "
                               f"with config {cfg}")
        out.append(n)
    return ShapedArray(tuple(out), x.dtype)


@pad_p.def_impl
def _pad_impl(xp, x, padding_value, *, padding_config):
    x = xp.asarray(x)
    # Pad every positive amount first, then crop the negative ones: XLA applies negative
    # padding to the array that already holds the interior and positive padding.
    full_shape, place, crop = [], [], []
    for d, (lo, hi, interior) in zip(x.shape, padding_config):
        inner = d + max(d - 1, 0) * interior
        lo_p, hi_p = max(lo, 0), max(hi, 0)
        full_shape.append(lo_p + inner + hi_p)
        place.append(slice(lo_p, lo_p + inner, interior + 1))
        crop.append(slice(max(-lo, 0), lo_p + inner + hi_p - max(-hi, 0)))
    out = xp.full(full_shape, padding_value, dtype=x.dtype)
    out[tuple(place)] = x
    return out[tuple(crop)]


pad_p.def_weak_type(lambda w_operand, w_pad, **_: w_operand)

# -- concatenate ----------------------------------------------------------------------------
concatenate_p = new_primitive("concatenate")


@concatenate_p.def_abstract_eval
def _concatenate_abstract(*operands, dimension):
    if not operands:
        raise ShapeError("concatenate: needs at least one operand")
    s0 = operands[0].shape
    shapes = ", ".join(shape_str(o.shape) for o in operands)
    if not 0 <= dimension < len(s0) or any(o.ndim != len(s0) for o in operands):
        raise ShapeError(f"concatenate: operands of shapes {shapes} must all have the same "
                         f"rank >= 1 and dimension {dimension} must be in range")
    dt = same_dtypes("concatenate", operands)
    for o in operands[1:]:
        for i, (a, b) in enumerate(zip(o.shape, s0)):
            if i != dimension and not definitely_equal(a, b):
                raise ShapeError(f"concatenate: operands of shapes {shapes} must agree on "
                                 f"every dim except dimension {dimension}; reshape or "
                                 f"broadcast them first")
    total = 0
    for o in operands:
        total = total + o.shape[dimension]
    return ShapedArray(s0[:dimension] + (simplify_dim(total),) + s0[dimension + 1:], dt)


@concatenate_p.def_impl
def _concatenate_impl(xp, *operands, dimension):
    return xp.concatenate([xp.asarray(o) for o in operands], axis=dimension)


# -- slice ----------------------------------------------------------------------------------
slice_p = new_primitive("slice")


def _sliced_dim(start, limit, stride):
    n = limit - start
    if stride == 1:
        return simplify_dim(n)
    if type(n) is int:
        return max(0, -(-n // stride))
    return simplify_dim(sympy.floor((n + stride - 1) / sympy.Integer(stride)))


@slice_p.def_abstract_eval
def _slice_abstract(x, *, start_indices, limit_indices, strides=None):
    _check_one_per_dim("slice", "start_indices", start_indices, x.ndim, x.shape)
    _check_one_per_dim("slice", "limit_indices", limit_indices, x.ndim, x.shape)
    strides = (1,) * x.ndim if strides is None else strides
    _check_one_per_dim("slice", "strides", strides, x.ndim, x.shape)
    out = []
    for d, s, l, st in zip(x.shape, start_indices, limit_indices, strides):
        if type(st) is not int or st < 1:
            raise ShapeError(f"slice: strides must be positive ints, got {strides}")
        where = (f"start_indices {start_indices} / limit_indices {limit_indices} for an "
                 f"operand of shape {shape_str(x.shape)}")
        _check_le("slice", 0, s, where)
        _check_le("slice", s, l, where)
        _check_le("slice", l, d, where)
        out.append(_sliced_dim(s, l, st))
    return ShapedArray(tuple(out), x.dtype)


@slice_p.def_impl
def _slice_impl(xp, x, *, start_indices, limit_indices, strides=None):
    strides = (1,) * len(start_indices) if strides is None else strides
    idx = tuple(slice(s, l, st) for s, l, st in zip(start_indices, limit_indices, strides))
    return xp.asarray(x)[idx]


# -- dynamic_slice / dynamic_update_slice -----------------------------------------------------
dynamic_slice_p = new_primitive("dynamic_slice")
dynamic_update_slice_p = new_primitive("dynamic_update_slice")


def _check_start_indices(op, x, indices):
    if len(indices) != x.ndim:
        raise ShapeError(f"{op}: an operand of shape {shape_str(x.shape)} needs {x.ndim} "
                         f"start indices, got {len(indices)}")
    for i, a in enumerate(indices):
        if a.shape != () or not dtypes.is_int(a.dtype):
            raise TypeError(f"{op}: start index {i} must be an integer scalar, got "
                            f"{a.str_short()}; pass one scalar index per dimension")


def _clamped_starts(indices, shape, sizes):
    """XLA semantics: each start is clamped into [0, dim - size]."""
    return [min(max(int(i), 0), d - s) for i, d, s in zip(indices, shape, sizes)]


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract(x, *indices, slice_sizes):
    _check_start_indices("dynamic_slice", x, indices)
    _check_one_per_dim("dynamic_slice", "slice_sizes", slice_sizes, x.ndim, x.shape)
    for d, s in zip(x.shape, slice_sizes):
        where = f"slice_sizes {shape_str(slice_sizes)} for an operand of shape " \
                f"{shape_str(x.shape)}"
        _check_le("dynamic_slice", 0, s, where)
        _check_le("dynamic_slice", s, d, where)
    return ShapedArray(tuple(slice_sizes), x.dtype)


@dynamic_slice_p.def_impl
def _dynamic_slice_impl(xp, x, *indices, slice_sizes):
    x = xp.asarray(x)
    starts = _clamped_starts(indices, x.shape, slice_sizes)
    return x[tuple(slice(s, s + n) for s, n in zip(starts, slice_sizes))]


dynamic_slice_p.def_weak_type(lambda w_operand, *w_indices, **_: w_operand)


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract(x, update, *indices):
    _check_start_indices("dynamic_update_slice", x, indices)
    same_dtypes("dynamic_update_slice", (x, update))
    if update.ndim != x.ndim:
        raise ShapeError(f"dynamic_update_slice: update of shape {shape_str(update.shape)} "
                         f"must have the rank of the operand of shape {shape_str(x.shape)}")
    for d, u in zip(x.shape, update.shape):
        _check_le("dynamic_update_slice", u, d,
                  f"an update of shape {shape_str(update.shape)} fitting in an operand of "
                  f"shape {shape_str(x.shape)}")
    return ShapedArray(x.shape, x.dtype)


@dynamic_update_slice_p.def_impl
def _dynamic_update_slice_impl(xp, x, update, *indices):
    x, update = xp.asarray(x), xp.asarray(update)
    starts = _clamped_starts(indices, x.shape, update.shape)
    out = x.copy()
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return out


dynamic_update_slice_p.def_weak_type(lambda w_operand, w_update, *w_idx, **_: w_operand)


def static_index(i, op="tjit"):
    """A Python int from an int-like (NumPy ints included); symbolic dims pass through."""
    if is_symbolic(i) and isinstance(i, sympy.Expr):
        return simplify_dim(i)
    try:
        return operator.index(i)
    except TypeError:
        raise TypeError(f"{op}: expected a static integer, got {type(i).__name__} "
                        f"{i!r:.60}; traced values need lax.dynamic_slice") from None


__all__ = ["rev_p", "pad_p", "concatenate_p", "slice_p", "dynamic_slice_p",
           "dynamic_update_slice_p", "simplify_dim", "static_index"]
