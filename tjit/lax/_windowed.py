"""``tjit.lax.reduce_window`` (JAX's signature): the add / max / min monoids (what stax's
and flax's pooling layers use) on windowed primitives, any other computation or several
operands through ``_general_reduce``; and the windowed primitives' functions
``select_and_gather_add`` / ``select_and_scatter_add``."""

import numpy as np

from tjit.lax import _elementwise as ew
from tjit.lax._conv import by_sizes, named_padtype_to_pads
from tjit.lax._elementwise import asarray_for_lax
from tjit.lax._general_reduce import general_reduce_window
from tjit.lax._slicing import pad
from tjit.primitives import windowed as w
from tjit.primitives.conv import conv_out_dim, dilate_dim
from tjit.tracing import dtypes
from tjit.tracing.core import Tracer
from tjit.tracing.errors import InconclusiveDimensionError
from tjit.tracing.shapes import static_ints
from tjit.tracing.tree_util import tree_leaves

# computation -> (primitive, the identity its init value must be, by dtype)
_MONOIDS = {ew.add: (w.reduce_window_sum_p, "sum"), ew.max: (w.reduce_window_max_p, "max"),
            ew.min: (w.reduce_window_min_p, "min")}


def _window_params(operand, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation, name):
    nd = operand.ndim
    window_dimensions = static_ints(window_dimensions, "window_dimensions", name)
    window_strides = static_ints(window_strides, "window_strides", name)
    base_dilation = (1,) * nd if base_dilation is None else static_ints(
        base_dilation, "base_dilation", name)
    window_dilation = (1,) * nd if window_dilation is None else static_ints(
        window_dilation, "window_dilation", name)
    if isinstance(padding, str):
        k_dil = [dilate_dim(k, r) for k, r in zip(window_dimensions, window_dilation)]
        # as JAX: the operand's own (undilated) shape against the dilated window
        padding = named_padtype_to_pads(name, operand.shape, k_dil, window_strides, padding)
    if by_sizes(padding):   # (reduce_window pads the operand itself: _padded_first)
        return {"window_dimensions": window_dimensions, "window_strides": window_strides,
                "padding": tuple(tuple(p) for p in padding), "base_dilation": base_dilation,
                "window_dilation": window_dilation}
    try:
        padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: padding must be 'SAME', 'SAME_LOWER', 'VALID' or a sequence "
                        f"of (low, high) int pairs, got {padding!r}") from None
    return {"window_dimensions": window_dimensions, "window_strides": window_strides,
            "padding": padding, "base_dilation": base_dilation,
            "window_dilation": window_dilation}


def _is_identity(init, kind, dt):
    if isinstance(init, Tracer):
        return False
    v = np.asarray(getattr(init, "_value", init))
    if v.shape != ():
        return False
    ident = w._identity(kind, dt)
    if v.dtype.kind == "f" and np.isinf(v) and dtypes.is_int(dt):
        # -inf / +inf stand for an integer max / min's identity (as JAX takes them)
        return (kind == "max") == bool(v < 0) and kind != "sum"
    with np.errstate(all="ignore"):
        cast = v.astype(dt)
        # compared after a lossless cast only: +inf cast to int32 reads as its minimum
        return bool(cast == ident) and bool(cast.astype(v.dtype) == v)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                  padding, base_dilation=None, window_dilation=None):
    """Reduce every window of ``operand`` (XLA's ReduceWindow).

    Args:
      operand: an array, or a pytree of same-shaped arrays (variadic reduce_window, e.g.
        values with their indices for an argmax pooling).
      init_value: scalar(s) in the structure of ``operand``: the identity of
        ``computation`` (0 for ``lax.add``, -inf or the dtype's minimum for ``lax.max``).
        Padding and base-dilation holes are skipped; another init enters each window
        once (as XLA's kernels, and so JAX, compute it).
      computation: ``f(a, b) -> c`` on values in the structure of ``operand``,
        associative. ``lax.add``, ``lax.max`` and ``lax.min`` on one operand with their
        identity use the windowed primitives; any other function (or init) is combined
        in a tree of its calls, applied elementwise to whole arrays.
      window_dimensions, window_strides: one int per dim of ``operand``.
      padding: 'SAME', 'SAME_LOWER', 'VALID' or one (low, high) pair per dim.
      base_dilation, window_dilation: one int per dim (None: 1).

    Returns:
      The window reductions, in the structure of ``operand``.
    """
    leaves = tree_leaves(operand)
    if not leaves:
        raise ValueError("reduce_window: needs at least one operand")
    first = asarray_for_lax(leaves[0])
    params = _window_params(first, window_dimensions, window_strides, padding,
                            base_dilation, window_dilation, "reduce_window")
    if isinstance(operand, (list, tuple, dict)) or computation not in _MONOIDS:
        if by_sizes(params["padding"]):
            raise InconclusiveDimensionError(
                f"reduce_window: the padding {params['padding']} depends on the symbolic "
                f"dims of the operand shape {first.shape}; only lax.add / max / min with "
                f"their identity take it: make those dims concrete")
        return general_reduce_window(operand, init_value, computation, params)
    operand = first
    prim, kind = _MONOIDS[computation]
    dt = dtypes.canonicalize(operand.dtype)
    if not _is_identity(init_value, kind, dt):  # XLA's meaning: init in every window
        return general_reduce_window(operand, init_value, computation, params)
    if by_sizes(params["padding"]):
        operand, params = _padded_first(operand, w._identity(kind, dt), params)
    return prim.bind(operand, **params)


def _padded_first(operand, identity, params):
    """Padding whose widths are size expressions ('SAME' with strides over a polymorphic
    dim): the operand padded with the monoid's identity by lax.pad (which takes them),
    then unpadded windows."""
    if any(d != 1 for d in params["base_dilation"]):
        raise InconclusiveDimensionError(
            f"reduce_window: the padding {params['padding']} depends on the symbolic dims "
            f"of the operand shape {operand.shape}; with base_dilation "
            f"{params['base_dilation']} it must be int pairs: make those dims concrete")
    config = [(lo, hi, 0) for lo, hi in params["padding"]]
    operand = pad(operand, np.asarray(identity, operand.dtype), config)
    return operand, {**params, "padding": ((0, 0),) * operand.ndim}


def _select(prim, name, a, operand, select_prim, window_dimensions, window_strides, padding,
            base_dilation, window_dilation):
    a, operand = asarray_for_lax(a), asarray_for_lax(operand)
    if not isinstance(select_prim, str):
        select_prim = {ew.ge: "ge", ew.le: "le"}.get(select_prim, select_prim)
    params = _window_params(operand, window_dimensions, window_strides, padding,
                            base_dilation, window_dilation, name)
    if by_sizes(params["padding"]):
        raise InconclusiveDimensionError(
            f"{name}: the padding {params['padding']} depends on the symbolic dims of the "
            f"operand shape {operand.shape}; it must be int pairs: make those dims concrete")
    return prim.bind(a, operand, select_prim=select_prim, **params)


def select_and_gather_add(tangents, operand, select_prim, window_dimensions, window_strides,
                          padding, base_dilation=None, window_dilation=None):
    """Per window of ``operand``, the element of ``tangents`` at the position its max
    (``select_prim=lax.ge``) or min (``lax.le``) was taken from (max pooling's jvp)."""
    return _select(w.select_and_gather_add_p, "select_and_gather_add", tangents, operand,
                   select_prim, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation)


def select_and_scatter_add(source, operand, select_prim, window_dimensions, window_strides,
                           padding, base_dilation=None, window_dilation=None):
    """Add each window's ``source`` value at the position of the window's max
    (``select_prim=lax.ge``) or min (``lax.le``) of ``operand``, into zeros shaped like it
    (the transpose of ``select_and_gather_add``)."""
    return _select(w.select_and_scatter_add_p, "select_and_scatter_add", source, operand,
                   select_prim, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation)


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """Output shape of ``reduce_window`` for explicit (low, high) ``padding`` (JAX's
    helper)."""
    nd = len(operand_shape)
    base_dilation = base_dilation or (1,) * nd
    window_dilation = window_dilation or (1,) * nd
    return tuple(conv_out_dim(*a) for a in zip(operand_shape, window_dimensions,
                                               window_strides, padding, base_dilation,
                                               window_dilation))


reduce_window_sum_p = w.reduce_window_sum_p
reduce_window_max_p = w.reduce_window_max_p
reduce_window_min_p = w.reduce_window_min_p

__all__ = [
    "reduce_window",
    "reduce_window_max_p",
    "reduce_window_min_p",
    "reduce_window_shape_tuple",
    "reduce_window_sum_p",
    "select_and_gather_add",
    "select_and_scatter_add",
]

