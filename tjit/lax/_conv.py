"""``tjit.lax`` convolutions with JAX's signatures: ``conv_general_dilated``, ``conv``,
``conv_with_general_padding``, ``conv_transpose``, ``conv_dimension_numbers``,
``conv_general_permutations`` and ``padtype_to_pads``. As in ``jax.lax`` there is no dtype
promotion: both operands must have the same dtype."""

import numpy as np

from tjit._sympy import is_expr
from tjit.lax._dot import _canonical_pref, _operands, canonicalize_precision
from tjit.lax._slicing import pad, rev
from tjit.lax._annotations import apply_out_sharding
from tjit.primitives.conv import (
    ConvDimensionNumbers,
    conv_general_dilated_p,
    conv_out_dim,
    dilate_dim,
)
from tjit.tracing.errors import InconclusiveDimensionError, ShapeError
from tjit.tracing.shapes import max_dim, static_ints


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """(low, high) padding per dim for ``'SAME'``, ``'SAME_LOWER'`` or ``'VALID'``
    (``'SAME'`` puts the odd element at the end, ``'SAME_LOWER'`` at the start)."""
    if not isinstance(padding, str):
        raise TypeError(f"padtype_to_pads: padding must be a string, got {padding!r}")
    mode = padding.upper()
    if mode == "VALID":
        return [(0, 0)] * len(in_shape)
    if mode not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"unknown padding {padding!r}: use 'SAME', 'SAME_LOWER', 'VALID' or "
                         f"a sequence of (low, high) pairs")
    pads = []
    for d, k, s in zip(in_shape, window_shape, window_strides):
        out = -(-d // s)
        total = max_dim((out - 1) * s + k - d, 0)     # (symbolic d: decided by bounds)
        lo, hi = total // 2, total - total // 2
        pads.append((lo, hi) if mode == "SAME" else (hi, lo))
    return pads


def named_padtype_to_pads(name, in_shape, window_shape, window_strides, padding):
    """:func:`padtype_to_pads` whose error for an unknown mode names the operation."""
    if padding.upper() not in ("SAME", "SAME_LOWER", "VALID"):
        raise ValueError(f"{name}: unknown padding {padding!r}: use 'SAME', 'SAME_LOWER', "
                         f"'VALID' or a sequence of (low, high) pairs")
    return padtype_to_pads(in_shape, window_shape, window_strides, padding)


def conv_general_permutations(dimension_numbers):
    """Strings such as ``('NHWC', 'HWIO', 'NHWC')`` -> the three dimension tuples of
    :class:`ConvDimensionNumbers` (spatial dims ordered as they appear in the kernel's)."""
    try:
        lhs_spec, rhs_spec, out_spec = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"conv_general_dilated: dimension_numbers must be three strings, got "
                        f"{dimension_numbers!r}") from None
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for spec, (a, b) in zip((lhs_spec, rhs_spec, out_spec), charpairs):
        if spec.count(a) != 1 or spec.count(b) != 1 or len(spec) != len(set(spec)):
            raise TypeError(f"conv_general_dilated: dimension spec {spec!r} must name {a!r} "
                            f"and {b!r} once each and every other dim once, in "
                            f"{dimension_numbers!r}")
    if not (set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"}
            == set(out_spec) - {"N", "C"}):
        raise TypeError(f"conv_general_dilated: the spatial dims of the three specs must be "
                        f"the same letters, got {dimension_numbers!r}")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)

    return tuple(perm(s, p) for s, p in zip((lhs_spec, rhs_spec, out_spec), charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """None (``NC...``, ``OI...``, ``NC...``), a triple of strings, or a
    :class:`ConvDimensionNumbers` -> a :class:`ConvDimensionNumbers`."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise ShapeError(f"conv_general_dilated: lhs and rhs need the same rank, got shapes "
                         f"{tuple(lhs_shape)} and {tuple(rhs_shape)}")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if all(isinstance(s, str) for s in dimension_numbers):
        for s, shape, which in zip(dimension_numbers, (lhs_shape, rhs_shape), ("lhs", "rhs")):
            if len(s) != len(shape):
                raise ShapeError(f"conv_general_dilated: {which} spec {s!r} has {len(s)} "
                                 f"dims but the {which} has shape {tuple(shape)}")
        return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
    return ConvDimensionNumbers(*(static_ints(s, "dimension_numbers", "conv_general_dilated")
                                  for s in dimension_numbers))


def _tuple(v, n, what, default=1):
    if v is None:
        return (default,) * n
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    return static_ints(v, what, "conv_general_dilated")


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
    """General n-d convolution with dilation, padding and groups (XLA's ConvGeneralDilated).

    Args:
      lhs: input, rank n + 2 (batch, feature and n spatial dims, per dimension_numbers).
      rhs: kernel, rank n + 2 (output feature, input feature, n spatial dims).
      window_strides: n ints.
      padding: 'SAME', 'SAME_LOWER', 'VALID' or n (low, high) pairs.
      lhs_dilation, rhs_dilation: n ints (None: no dilation). lhs dilation is a
        transposed ("fractionally strided") convolution.
      dimension_numbers: None, strings such as ('NHWC', 'HWIO', 'NHWC') or a
        ConvDimensionNumbers.
      feature_group_count, batch_group_count: grouped convolutions.
      precision, preferred_element_type: as in ``dot_general``.
      out_sharding: JAX's, checked against the result (one device places nothing).

    Returns:
      The convolution, laid out as ``dimension_numbers``'s output spec.
    """
    out = _conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation,
                                rhs_dilation, dimension_numbers, feature_group_count,
                                batch_group_count, precision, preferred_element_type)
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, "lax.conv_general_dilated(out_sharding=...)")


def _conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                          dimension_numbers, feature_group_count, batch_group_count,
                          precision, preferred_element_type):
    lhs, rhs = _operands(lhs, rhs)
    dnums = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    nsp = lhs.ndim - 2
    lhs_dilation = _tuple(lhs_dilation, nsp, "lhs_dilation")
    rhs_dilation = _tuple(rhs_dilation, nsp, "rhs_dilation")
    window_strides = _tuple(window_strides, nsp, "window_strides")
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            # as JAX: 'SAME'/'VALID' have no agreed meaning once the input is dilated
            raise ValueError(f"conv_general_dilated: string padding {padding!r} is not "
                             f"implemented for a transposed convolution (lhs_dilation "
                             f"{lhs_dilation}); pass explicit (low, high) padding pairs "
                             f"or use lax.conv_transpose")
        k_sp = [dilate_dim(rhs.shape[d], r) for d, r in zip(dnums.rhs_spec[2:], rhs_dilation)]
        in_sp = [lhs.shape[d] for d in dnums.lhs_spec[2:]]
        padding = named_padtype_to_pads("conv_general_dilated", in_sp, k_sp, window_strides,
                                        padding)
    if by_sizes(padding) and all(d == 1 for d in lhs_dilation):
        # (widths of sizes, 'SAME' with strides over a polymorphic dim: the input padded
        # by lax.pad, which takes them, then an unpadded convolution)
        config = [(0, 0, 0)] * lhs.ndim
        for d, (lo, hi) in zip(dnums.lhs_spec[2:], padding):
            config[d] = (lo, hi, 0)
        lhs = pad(lhs, np.zeros((), lhs.dtype), config)
        padding = [(0, 0)] * nsp
    try:
        padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        if by_sizes(padding):
            raise InconclusiveDimensionError(
                f"conv_general_dilated: the padding {padding} depends on the symbolic "
                f"spatial dims of the input shape {lhs.shape}; with lhs_dilation "
                f"{lhs_dilation} tjit's convolutions take int padding: make those dims "
                f"concrete or pass int (low, high) pairs") from None
        raise TypeError(f"conv_general_dilated: padding must be 'SAME', 'SAME_LOWER', "
                        f"'VALID' or a sequence of (low, high) int pairs, got "
                        f"{padding!r}") from None
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dnums,
        feature_group_count=int(feature_group_count),
        batch_group_count=int(batch_group_count), precision=canonicalize_precision(precision),
        preferred_element_type=_canonical_pref(preferred_element_type))


def by_sizes(padding):
    """Whether ``padding`` is (low, high) pairs of ints and size expressions, not all
    ints."""
    try:
        pairs = [tuple(p) for p in padding]
    except TypeError:
        return False
    widths = [v for p in pairs for v in p]
    return all(len(p) == 2 for p in pairs) and any(is_expr(v) for v in widths) and \
        all(is_expr(v) or isinstance(v, (int, np.integer)) for v in widths)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """Convolution in NCHW / OIHW layout (``conv_general_dilated`` without dilation)."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """Convolution in NCHW / OIHW layout with dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k, s, padding):
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, (tuple, list)) and len(padding) == 2:
        # the forward conv's (lo, hi) padding: pad the input by k - 1 - p on each side
        pads = tuple(k - int(p) - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"conv_transpose: padding mode must be 'SAME' or 'VALID' (or pairs), "
                         f"got {padding!r}")
    return pad_a, pad_len - pad_a


_TRANSPOSE_DEFAULTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                       4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """Transposed ("deconvolution") convolution, as ``jax.lax.conv_transpose``: a
    convolution with ``lhs_dilation = strides`` and the padding that inverts a strided
    conv's output size.

    Args:
      lhs: input, e.g. NHWC (the default layouts are channels-last).
      rhs: kernel, e.g. HWIO.
      strides: n ints.
      padding: 'SAME', 'VALID' or n (low, high) pairs.
      rhs_dilation: n ints or None.
      dimension_numbers: as in ``conv_general_dilated`` (default channels-last).
      transpose_kernel: flip the kernel spatially and swap its I/O dims (the gradient of
        a conv, as in TensorFlow's conv2d_transpose).
      use_consistent_padding: (low, high) pairs are the forward conv's padding, as the
        strings are (PyTorch's convention: with ``transpose_kernel`` the result is the
        gradient of that conv); False (JAX's default) reads pairs as the padding of the
        transposed conv itself.
    """
    lhs, rhs = _operands(lhs, rhs)
    nd = lhs.ndim
    if nd != rhs.ndim or nd < 2:
        raise ShapeError(f"conv_transpose: lhs and rhs need the same rank >= 2, got shapes "
                         f"{tuple(lhs.shape)} and {tuple(rhs.shape)}")
    if dimension_numbers is None:
        if nd not in _TRANSPOSE_DEFAULTS:
            raise ValueError(f"conv_transpose: no default dimension_numbers for rank {nd}; "
                             f"pass dimension_numbers")
        dimension_numbers = _TRANSPOSE_DEFAULTS[nd]
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    k_sdims = [rhs.shape[d] for d in dn.rhs_spec[2:]]
    strides = _tuple(strides, nd - 2, "strides")
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        rhs_dilation = _tuple(rhs_dilation, nd - 2, "rhs_dilation")
        per_dim = [padding] * (nd - 2) if isinstance(padding, str) else list(padding)
        if len(per_dim) != nd - 2:
            raise ValueError(f"conv_transpose: padding needs one (low, high) pair per "
                             f"spatial dim ({nd - 2}), got {padding!r}")
        pads = [_conv_transpose_padding(dilate_dim(k, r), s, p)
                for k, r, s, p in zip(k_sdims, rhs_dilation, strides, per_dim)]
    else:
        pads = padding
    if transpose_kernel:
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(nd))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = rhs.transpose(perm)
    return conv_general_dilated(lhs, rhs, (1,) * (nd - 2), pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def _permuted(shape, perm):
    return tuple(shape[p] for p in perm)


def _unpermuted(shape, perm):
    out = [None] * len(perm)
    for i, p in enumerate(perm):
        out[p] = shape[i]
    return tuple(out)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
    """Output shape of ``conv_general_dilated`` without dilation (JAX's helper, used by
    stax to compute layer shapes without running them)."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lt, rt = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
    strides = _tuple(window_strides, len(lt) - 2, "window_strides")
    if isinstance(padding, str):
        padding = padtype_to_pads(lt[2:], rt[2:], strides, padding)
    out = (lt[0], rt[0]) + tuple(conv_out_dim(i, k, s, p, 1, 1) for i, k, s, p in
                                 zip(lt[2:], rt[2:], strides, padding))
    return _unpermuted(out, dn.out_spec)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """Output shape of ``conv_transpose`` (JAX's helper)."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lt, rt = _permuted(lhs_shape, dn.lhs_spec), _permuted(rhs_shape, dn.rhs_spec)
    strides = _tuple(window_strides, len(lt) - 2, "window_strides")
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rt[2:], strides)]
    out = (lt[0], rt[0]) + tuple((i - 1) * s - k + 2 + lo + hi for i, k, s, (lo, hi) in
                                 zip(lt[2:], rt[2:], strides, padding))
    return _unpermuted(out, dn.out_spec)


__all__ = [
    "ConvDimensionNumbers",
    "conv",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_dilated_p",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_transpose",
    "conv_transpose_shape_tuple",
    "conv_with_general_padding",
    "padtype_to_pads",
]
