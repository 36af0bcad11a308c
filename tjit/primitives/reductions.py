"""Reduction, cumulative, arg-reduction and sorting primitives.

* ``reduce_sum/prod/max/min/and/or/xor`` (param ``axes``: a tuple of dims): reducing an
  empty dim gives the identity (0, 1, -inf / the int minimum, +inf / the int maximum,
  all-ones, 0). Integer sums and products wrap as in XLA.
* ``argmax/argmin`` (params ``axes=(axis,)``, ``index_dtype``): the first index of the
  extreme value; a NaN counts as the extreme, so the first NaN's index is returned.
* ``cumsum/cumprod/cummax/cummin`` (params ``axis``, ``reverse``).
* ``sort`` (multiple results): sorts all operands together along ``dimension``, ordered
  lexicographically by the first ``num_keys`` operands. The order is NumPy's: NaNs last,
  ``-0.0`` equal to ``0.0``; the sort is always stable.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import never_weak
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import definitely_equal, shape_str
from tjit.primitives.base import (
    ANY, INT_OR_BOOL, NUMBER, as_dtype_out, check_dtype_kind, new_primitive)


def _check_axes(name, x, axes):
    if len(set(axes)) != len(axes) or any(
            type(a) is not int or not 0 <= a < x.ndim for a in axes):
        raise ShapeError(f"{name}: axes {axes} must be unique ints in [0, {x.ndim}) for an "
                         f"operand of shape {shape_str(x.shape)}")


def _reduced_shape(shape, axes):
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _is_empty_reduction(x, axes):
    return any(x.shape[a] == 0 for a in axes)


# -- identities --------------------------------------------------------------------------
def _lowest(dt):
    if dtypes.is_bool(dt):
        return False
    if dtypes.is_int(dt):
        return np.iinfo(dt).min
    return -np.inf


def _highest(dt):
    if dtypes.is_bool(dt):
        return True
    if dtypes.is_int(dt):
        return np.iinfo(dt).max
    return np.inf


def _all_ones(dt):
    if dtypes.is_bool(dt):
        return True
    return np.iinfo(dt).max if dtypes.is_unsigned(dt) else -1


# -- reductions -----------------------------------------------------------------------------
def _sum_impl(xp, x, axes):
    if x.dtype == dtypes.float16:  # accumulate half precision in float32, as XLA on CPU
        return xp.sum(x, axis=axes, dtype=np.float32)
    return xp.sum(x, axis=axes, dtype=x.dtype)


def _prod_impl(xp, x, axes):
    if x.dtype == dtypes.float16:
        return xp.prod(x, axis=axes, dtype=np.float32)
    return xp.prod(x, axis=axes, dtype=x.dtype)


def _extreme(fn, identity):
    def impl(xp, x, axes):
        if _is_empty_reduction(x, axes):
            return xp.full(_reduced_shape(x.shape, axes), identity(x.dtype), dtype=x.dtype)
        return fn(xp)(x, axis=axes)
    return impl


def _bitwise(ufunc_name, logical_name, identity):
    def impl(xp, x, axes):
        if _is_empty_reduction(x, axes):
            return xp.full(_reduced_shape(x.shape, axes), identity(x.dtype), dtype=x.dtype)
        ufunc = getattr(xp, logical_name if dtypes.is_bool(x.dtype) else ufunc_name)
        for a in sorted(axes, reverse=True):  # one axis at a time: indices stay valid
            x = ufunc.reduce(x, axis=a)
        return x
    return impl


def _reduction(name, impl, kind):
    p = new_primitive(name)

    def abstract_eval(x, *, axes):
        check_dtype_kind(name, kind, x)
        _check_axes(name, x, axes)
        return ShapedArray(_reduced_shape(x.shape, axes), x.dtype)

    def full_impl(xp, x, *, axes):
        x = xp.asarray(x)
        return as_dtype_out(xp, impl(xp, x, tuple(axes)), x.dtype)

    p.def_abstract_eval(abstract_eval)
    p.def_impl(full_impl)
    return p


reduce_sum_p = _reduction("reduce_sum", _sum_impl, NUMBER)
reduce_prod_p = _reduction("reduce_prod", _prod_impl, NUMBER)
reduce_max_p = _reduction("reduce_max", _extreme(lambda xp: xp.max, _lowest), ANY)
reduce_min_p = _reduction("reduce_min", _extreme(lambda xp: xp.min, _highest), ANY)
reduce_and_p = _reduction("reduce_and", _bitwise("bitwise_and", "logical_and", _all_ones),
                          INT_OR_BOOL)
reduce_or_p = _reduction("reduce_or", _bitwise("bitwise_or", "logical_or",
                                               lambda dt: 0), INT_OR_BOOL)
reduce_xor_p = _reduction("reduce_xor", _bitwise("bitwise_xor", "logical_xor",
                                                 lambda dt: 0), INT_OR_BOOL)


# -- argmax / argmin ------------------------------------------------------------------------
def _arg_reduction(name, np_name):
    p = new_primitive(name)

    def abstract_eval(x, *, axes, index_dtype):
        _check_axes(name, x, axes)
        if len(axes) != 1:
            raise ShapeError(f"{name}: reduces exactly one axis, got axes {axes}")
        if not dtypes.is_int(index_dtype):
            raise TypeError(f"{name}: index_dtype must be an integer dtype, got "
                            f"{index_dtype}")
        if x.shape[axes[0]] == 0:
            raise ShapeError(f"{name}: the reduced dimension {axes[0]} of shape "
                             f"{shape_str(x.shape)} is empty; {name} needs at least one "
                             f"element (there is no identity for an index)")
        return ShapedArray(_reduced_shape(x.shape, axes), index_dtype)

    def impl(xp, x, *, axes, index_dtype):
        # NumPy's argmax/argmin already return the first NaN when one is present.
        return as_dtype_out(xp, getattr(xp, np_name)(xp.asarray(x), axis=axes[0]),
                            index_dtype)

    p.def_abstract_eval(abstract_eval)
    p.def_impl(impl)
    p.def_weak_type(never_weak)
    p.not_differentiable = True  # integer output
    return p


argmax_p = _arg_reduction("argmax", "argmax")
argmin_p = _arg_reduction("argmin", "argmin")


# -- cumulative ops -------------------------------------------------------------------------
def _cumulative(name, scan, kind):
    p = new_primitive(name)

    def abstract_eval(x, *, axis, reverse):
        check_dtype_kind(name, kind, x)
        if type(axis) is not int or not 0 <= axis < x.ndim:
            raise ShapeError(f"{name}: axis {axis} is out of range for an operand of shape "
                             f"{shape_str(x.shape)} (cumulative ops need rank >= 1)")
        return ShapedArray(x.shape, x.dtype)

    def impl(xp, x, *, axis, reverse):
        x = xp.asarray(x)
        if reverse:
            x = xp.flip(x, axis=axis)
        out = as_dtype_out(xp, scan(xp, x, axis), x.dtype)
        return xp.flip(out, axis=axis) if reverse else out

    p.def_abstract_eval(abstract_eval)
    p.def_impl(impl)
    return p


def _acc_dtype(x):
    return np.float32 if x.dtype == dtypes.float16 else x.dtype


cumsum_p = _cumulative("cumsum", lambda xp, x, a: xp.cumsum(x, axis=a, dtype=_acc_dtype(x)),
                       NUMBER)
cumprod_p = _cumulative("cumprod", lambda xp, x, a: xp.cumprod(x, axis=a,
                                                               dtype=_acc_dtype(x)), NUMBER)
cummax_p = _cumulative("cummax", lambda xp, x, a: xp.maximum.accumulate(x, axis=a), ANY)
cummin_p = _cumulative("cummin", lambda xp, x, a: xp.minimum.accumulate(x, axis=a), ANY)


# -- sort -----------------------------------------------------------------------------------
sort_p = new_primitive("sort", multiple_results=True)


@sort_p.def_abstract_eval
def _sort_abstract(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise ShapeError("sort: needs at least one operand")
    s0 = operands[0].shape
    shapes = ", ".join(shape_str(o.shape) for o in operands)
    for o in operands[1:]:
        if o.ndim != len(s0) or not all(definitely_equal(a, b) for a, b in zip(o.shape, s0)):
            raise ShapeError(f"sort: all operands must have the same shape, got {shapes}")
    if not 0 <= dimension < len(s0):
        raise ShapeError(f"sort: dimension {dimension} is out of range for operands of shape "
                         f"{shape_str(s0)} (sort needs rank >= 1)")
    if type(num_keys) is not int or not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys must be between 1 and the number of operands "
                         f"({len(operands)}), got {num_keys}")
    return [ShapedArray(o.shape, o.dtype) for o in operands]


@sort_p.def_impl
def _sort_impl(xp, *operands, dimension, is_stable, num_keys):
    operands = [xp.asarray(o) for o in operands]
    # Least significant key first: each stable argsort keeps the order of the previous
    # pass among ties, which yields the lexicographic order over all keys.
    perm = None
    for key in reversed(operands[:num_keys]):
        if perm is not None:
            key = xp.take_along_axis(key, perm, axis=dimension)
        order = xp.argsort(key, axis=dimension, kind="stable")
        perm = order if perm is None else xp.take_along_axis(perm, order, axis=dimension)
    return [xp.take_along_axis(o, perm, axis=dimension) for o in operands]


sort_p.def_weak_type(lambda *weak, **_: list(weak))  # each output keeps its operand's


__all__ = ["reduce_sum_p", "reduce_prod_p", "reduce_max_p", "reduce_min_p", "reduce_and_p",
           "reduce_or_p", "reduce_xor_p", "argmax_p", "argmin_p", "cumsum_p", "cumprod_p",
           "cummax_p", "cummin_p", "sort_p"]
