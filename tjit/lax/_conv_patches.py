"""``lax.conv_general_dilated_patches`` (image patches in the layout of a convolution's
receptive field, as JAX: a grouped convolution with a one-hot filter that moves each
window position into its own output channel), ``lax.conv_general_dilated_local`` (the
unshared convolution those patches give) and ``lax.conv_shape_tuple`` (the output
shape of a convolution in canonical NC... order)."""

import numpy as np

from tjit.lax._conv import (conv_dimension_numbers, conv_general_dilated, padtype_to_pads)
from tjit.lax._dot import dot_general
from tjit.lax._elementwise import asarray_for_lax
from tjit.lax._structural import transpose
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import static_ints


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                 lhs_dilation=None, rhs_dilation=None,
                                 dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches ``conv_general_dilated`` would multiply with a filter of spatial shape
    ``filter_shape``, flattened into the output's feature dimension (size
    ``C * prod(filter_shape)``, ordered channel-major as JAX's).

    Args:
      lhs: a rank n+2 array.
      filter_shape: n ints, the window's spatial shape (in the rhs spec's order).
      window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
        precision, preferred_element_type: as in ``conv_general_dilated``.

    Returns:
      A rank n+2 array laid out as the dimension numbers' output spec.

    Example::

        >>> lax.conv_general_dilated_patches(jnp.arange(4.0).reshape(1, 1, 4), (2,), (1,),
        ...                                  "VALID")
        Array([[[0., 1., 2.],
                [1., 2., 3.]]], dtype=float32)
    """
    lhs = asarray_for_lax(lhs)
    filter_shape = static_ints(filter_shape, "filter_shape", "conv_general_dilated_patches")
    if len(filter_shape) != lhs.ndim - 2:
        raise ShapeError(f"conv_general_dilated_patches: filter_shape {filter_shape} needs "
                         f"one entry per spatial dim of lhs of shape {tuple(lhs.shape)}")
    dn = conv_dimension_numbers(lhs.shape, (1, 1) + filter_shape, dimension_numbers)
    spatial = int(np.prod(filter_shape, dtype=np.int64))
    channels = lhs.shape[dn.lhs_spec[1]]
    # filter (C * spatial, 1, *filter_shape) in OI... order: output channel c * spatial + s
    # picks window position s of input channel c (feature_group_count = C)
    eye = np.eye(spatial, dtype=np.dtype(lhs.dtype))
    rhs_oi = np.broadcast_to(eye, (channels, spatial, spatial)).reshape(
        (channels * spatial, 1) + filter_shape)
    # into the rhs spec's layout: OI... is dims (0, 1, 2, ...) of the canonical filter
    perm = np.argsort(dn.rhs_spec)
    rhs = transpose(asarray_for_lax(np.ascontiguousarray(rhs_oi)), tuple(int(p) for p in perm))
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dn,
        feature_group_count=channels,
        precision=precision,
        preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """Unshared (locally connected) convolution: a separate kernel at every output
    position, as ``jax.lax.conv_general_dilated_local`` (the patches of
    :func:`conv_general_dilated_patches` contracted with ``rhs``, one product per output
    position).

    Args:
      lhs: a rank n+2 array.
      rhs: a rank n+2 array whose spatial dims are the output positions and whose I dim
        holds the input channels times the receptive window (channel-major), in the
        layout of the rhs spec.
      window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers: as in
        ``conv_general_dilated``.
      filter_shape: n ints, the receptive window (in the rhs spec's order).
      precision: None, a ``lax.Precision`` or a pair of them.

    Returns:
      The convolution, laid out as the output spec.

    Example::

        >>> lax.conv_general_dilated_local(jnp.arange(4.0).reshape(1, 1, 4),
        ...                                jnp.ones((1, 2, 3)), (1,), "VALID", (2,))
        Array([[[1., 3., 5.]]], dtype=float32)
    """
    lhs = asarray_for_lax(lhs)
    lhs_precision = precision[0] if isinstance(precision, (tuple, list)) else precision
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dimension_numbers,
                                           lhs_precision)
    dn = conv_dimension_numbers(lhs.shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    lhs_b, rhs_b = list(dn.out_spec[2:]), list(dn.rhs_spec[2:])
    rhs_b = [rhs_b[i] for i in sorted(range(len(rhs_b)), key=lambda k: lhs_b[k])]
    lhs_b = sorted(lhs_b)
    out = dot_general(patches, rhs, (((dn.out_spec[1],), (dn.rhs_spec[1],)),
                                     (tuple(lhs_b), tuple(rhs_b))), precision=precision)
    # out: the spatial (batch) dims, then N, then O; N and O go to the output spec's places
    nd = out.ndim
    rest = list(range(nd - 2))
    order = [None] * nd
    order[dn.out_spec[0]], order[dn.out_spec[1]] = nd - 2, nd - 1
    it = iter(rest)
    order = [next(it) if o is None else o for o in order]
    return transpose(out, tuple(order))


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """Output shape of a convolution of ``lhs_shape`` (N, C, ...) by ``rhs_shape``
    (O, I, ...) in canonical order, as JAX's helper.

    Args:
      lhs_shape, rhs_shape: shapes in NC... / OI... order.
      strides: one int per spatial dim.
      pads: 'SAME', 'VALID' or one (low, high) pair per spatial dim.
      batch_group_count: divides the batch dim.

    Returns:
      The output shape tuple (N / batch_group_count, O, ...).

    Example::

        >>> lax.conv_shape_tuple((2, 3, 10, 11), (4, 3, 3, 2), (2, 1), "SAME")
        (2, 4, 5, 11)
    """
    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"conv_shape_tuple: expected {len(lhs_shape) - 2} (low, high) pads "
                        f"for lhs shape {lhs_shape}, got {len(pads)}")
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise ValueError(f"conv_shape_tuple: negative padding {tuple(pads)} is larger than "
                         f"the spatial dims {lhs_shape[2:]}")
    space = tuple(0 if p < k else (p - k) // s + 1
                  for p, k, s in zip(padded, rhs_shape[2:], strides))
    if lhs_shape[0] % batch_group_count:
        raise ValueError(f"conv_shape_tuple: batch_group_count {batch_group_count} must "
                         f"divide the batch size {lhs_shape[0]}")
    return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + space


__all__ = ["conv_general_dilated_patches", "conv_general_dilated_local", "conv_shape_tuple"]
