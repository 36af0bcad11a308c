"""``tjit.lax.reduce_window`` (JAX's signature) for the add / max / min monoids, which is
what stax's and flax's pooling layers use, and the windowed primitives' functions
``select_and_gather_add`` / ``select_and_scatter_add``."""

import numpy as np

from tjit.lax import _elementwise as ew
from tjit.lax._conv import padtype_to_pads
from tjit.lax._elementwise import asarray_for_lax
from tjit.primitives import windowed as w
from tjit.primitives.conv import conv_out_dim, dilate_dim
from tjit.tracing import dtypes
from tjit.tracing.core import Tracer

# computation -> (primitive, the identity its init value must be, by dtype)
_MONOIDS = {ew.add: (w.reduce_window_sum_p, "sum"), ew.max: (w.reduce_window_max_p, "max"),
            ew.min: (w.reduce_window_min_p, "min")}


def _window_params(operand, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation, name):
    nd = operand.ndim
    window_dimensions = tuple(int(k) for k in window_dimensions)
    window_strides = tuple(int(s) for s in window_strides)
    base_dilation = (1,) * nd if base_dilation is None else tuple(int(d) for d in base_dilation)
    window_dilation = (1,) * nd if window_dilation is None else tuple(
        int(d) for d in window_dilation)
    if isinstance(padding, str):
        k_dil = [dilate_dim(k, r) for k, r in zip(window_dimensions, window_dilation)]
        # as JAX: the operand's own (undilated) shape against the dilated window
        padding = padtype_to_pads(operand.shape, k_dil, window_strides, padding)
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
    with np.errstate(all="ignore"):
        return bool(v.astype(dt) == w._identity(kind, dt))


def reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                  padding, base_dilation=None, window_dilation=None):
    """Reduce every window of ``operand`` (XLA's ReduceWindow).

    Args:
      operand: an array.
      init_value: the identity of ``computation`` (0 for ``lax.add``, -inf or the dtype's
        minimum for ``lax.max``, +inf or its maximum for ``lax.min``).
      computation: ``lax.add``, ``lax.max`` or ``lax.min``.
      window_dimensions, window_strides: one int per dim of ``operand``.
      padding: 'SAME', 'SAME_LOWER', 'VALID' or one (low, high) pair per dim; padded
        positions hold the identity.
      base_dilation, window_dilation: one int per dim (None: 1).

    Returns:
      The array of window reductions.
    """
    if isinstance(operand, (list, tuple)):
        raise NotImplementedError("reduce_window: several operands (variadic reduce_window) "
                                  "are not supported; reduce each operand on its own")
    operand = asarray_for_lax(operand)
    if computation not in _MONOIDS:
        raise NotImplementedError(
            f"reduce_window: computation {getattr(computation, '__name__', computation)!r} "
            f"is not supported; use lax.add, lax.max or lax.min (the monoids with a "
            f"windowed primitive)")
    prim, kind = _MONOIDS[computation]
    dt = dtypes.canonicalize(operand.dtype)
    if not _is_identity(init_value, kind, dt):
        raise ValueError(f"reduce_window: init_value {init_value!r} is not the identity of "
                         f"{computation.__name__} for {dt} (expected "
                         f"{w._identity(kind, dt)!r}); add a non-identity init to the "
                         f"result yourself")
    params = _window_params(operand, window_dimensions, window_strides, padding,
                            base_dilation, window_dilation, "reduce_window")
    return prim.bind(operand, **params)


def _select(prim, name, a, operand, select_prim, window_dimensions, window_strides, padding,
            base_dilation, window_dilation):
    a, operand = asarray_for_lax(a), asarray_for_lax(operand)
    if not isinstance(select_prim, str):
        select_prim = {ew.ge: "ge", ew.le: "le"}.get(select_prim, select_prim)
    params = _window_params(operand, window_dimensions, window_strides, padding,
                            base_dilation, window_dilation, name)
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

