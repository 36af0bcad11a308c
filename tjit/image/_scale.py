"""``resize`` and ``scale_and_translate``: separable resampling, as ``jax.image``'s.

Along each resampled dimension the output is a weighted sum of the input pixels; the
weights form an ``(input_size, output_size)`` matrix built from the method's kernel
(_kernels.py), and one ``einsum`` contracts the image with every dimension's matrix.
Because the matrices are built from ``tjit.numpy`` ops, the result is differentiable in
the image and in ``scale`` / ``translation``, and it batches under ``vmap``. Pixel
centres sit at half-integers; samples outside the input get zero weight, except for
'cubic-pytorch' without antialiasing, which repeats the edge pixels as PyTorch does.
"""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.image._kernels import AREA_KERNEL, KERNELS, ResizeMethod, as_method
from tjit.numpy._core import check_arraylike, promote_dtypes_inexact
from tjit.tracing.shapes import canonical_dim, definitely_equal, dim_str, normalize_axis

# weights summing to less than this are dropped rather than normalized (JAX's threshold)
_MIN_WEIGHT_SUM = 1000. * float(np.finfo(np.float32).eps)


def _area_weights(input_size, output_size, inv_scale, translation):
    # the overlap of output pixel i's interval, mapped back onto the input, with input
    # pixel j's interval [j, j + 1]
    left_out = (jnp.arange(output_size, dtype=inv_scale.dtype) - translation) * inv_scale
    right_out = left_out + inv_scale
    left_in = jnp.arange(input_size, dtype=inv_scale.dtype)
    right_in = left_in + 1.0
    return jnp.maximum(0.0, jnp.minimum(right_out[None, :], right_in[:, None])
                       - jnp.maximum(left_out[None, :], left_in[:, None]))


def _fold_edges(weights, input_size, pad):
    # rows for the `pad` virtual pixels beyond each edge move onto the edge pixel
    # (repeating the edges); sums rather than a scatter, so exact and differentiable
    if input_size == 1:
        return jnp.sum(weights, axis=0, keepdims=True)
    first = jnp.sum(weights[:pad + 1], axis=0, keepdims=True)
    last = jnp.sum(weights[pad + input_size - 1:], axis=0, keepdims=True)
    return jnp.concatenate([first, weights[pad + 1:pad + input_size - 1], last], axis=0)


def _normalize_columns(weights):
    total = jnp.sum(weights, axis=0, keepdims=True)
    safe_total = jnp.where(total != 0, total, 1)
    return jnp.where(jnp.abs(total) > _MIN_WEIGHT_SUM, weights / safe_total, 0)


def compute_weight_mat(input_size, output_size, scale, translation, kernel, antialias,
                       edge_padding, radius):
    """The ``(input_size, output_size)`` resampling weights of one dimension: column
    ``i`` holds the weights of the input pixels for output pixel ``i``, in the dtype of
    ``scale`` and ``translation``."""
    dtype = jnp.result_type(scale, translation)
    inv_scale = jnp.asarray(1. / scale, dtype=dtype)
    # downsampling stretches the kernel (a low-pass filter); upsampling only interpolates
    kernel_scale = jnp.maximum(inv_scale, 1.) if antialias else 1.
    # where each output pixel's centre falls in input coordinates
    sample_f = ((jnp.arange(output_size, dtype=dtype) + 0.5) * inv_scale
                - translation * inv_scale - 0.5)
    pad = radius if edge_padding else 0  # edge padding is only reached without antialias
    if kernel is AREA_KERNEL:
        weights = _area_weights(input_size, output_size, inv_scale, translation)
    else:
        input_f = jnp.arange(-pad, input_size + pad, dtype=dtype)
        weights = kernel(jnp.abs(sample_f[None, :] - input_f[:, None]) / kernel_scale)
    if edge_padding:
        return _normalize_columns(_fold_edges(weights, input_size, pad))
    weights = _normalize_columns(weights)
    # an output pixel whose centre lies outside the input is zero
    inside = jnp.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return jnp.where(inside[None, :], weights, 0)


def _scale_and_translate(x, output_shape, spatial_dims, scale, translation, method,
                         antialias, precision):
    if not spatial_dims:
        return x
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = KERNELS[method]
    edge_padding = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    rank = len(output_shape)
    operands, out_labels = [], list(range(rank))
    for i, d in enumerate(spatial_dims):
        w = compute_weight_mat(x.shape[d], output_shape[d], scale[i], translation[i],
                               kernel, antialias, edge_padding, radius)
        operands += [w.astype(x.dtype), [d, rank + i]]
        out_labels[d] = rank + i
    return jnp.einsum(x, list(range(rank)), *operands, out_labels, precision=precision)


def _check_shape(op, image, shape):
    shape = tuple(canonical_dim(d, op) for d in shape)  # ints, or symbolic dims
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {tuple(image.shape)}")
    if any(type(d) is int and d < 0 for d in shape):
        raise ValueError(f"{op}: output shape {shape} has a negative dimension")
    return shape


def _check_resampled(op, image, shape, dims):
    """Resampled dims need concrete sizes (their weights are built from them) and an
    input with pixels to sample."""
    for d in dims:
        m, n = image.shape[d], shape[d]
        if type(m) is not int or type(n) is not int:
            raise ValueError(f"{op}: dimension {d} is resampled from size {dim_str(m)} to "
                             f"{dim_str(n)}; resampling needs concrete sizes (symbolic dims "
                             "may only be kept unchanged, e.g. a batch dim)")
        if m == 0 and n != 0:
            raise ValueError(f"{op}: cannot resample dimension {d} of size 0 (image shape "
                             f"{tuple(image.shape)}) to size {n}; an empty image has "
                             "no pixels to sample")


def _resize_nearest(x, output_shape):
    for d, (m, n) in enumerate(zip(x.shape, output_shape)):
        if definitely_equal(m, n):
            continue
        # JAX's float32 arithmetic, so that ties land on the same pixel as in JAX
        centres = (np.arange(n, dtype=np.float32) + np.float32(0.5)) * np.float32(m)
        offsets = np.floor(centres / np.float32(n)).astype(np.int32)
        x = jnp.take(x, jnp.asarray(offsets), axis=d)
    return x


def resize(image, shape, method, antialias=True, precision=lax.Precision.HIGHEST):
    """Resize ``image`` to ``shape`` by resampling, as ``jax.image.resize``.

    Every dimension whose size changes is resampled (``resize`` does not tell spatial
    dimensions from batch or channel ones: leave those sizes unchanged), with pixel
    centres at half-integers and the scale ``shape[d] / image.shape[d]``.

    Args:
      image: an array.
      shape: the output shape, one size per dimension of ``image``.
      method: a :class:`ResizeMethod` or its name: 'nearest'; 'linear' ('bilinear',
        'trilinear', 'triangle'); 'cubic' ('bicubic', 'tricubic'; the Keys kernel);
        'cubic-pytorch' ('bicubic-pytorch'; PyTorch's bicubic: 'cubic' when
        antialiasing, else OpenCV's kernel with repeated edges); 'lanczos3';
        'lanczos5'; 'area' (the mean over each output pixel's area).
      antialias: filter when downsampling (stretches the kernel by the downsampling
        factor). No effect when upsampling, nor for 'nearest'.
      precision: the ``einsum`` precision of the contraction (ignored by 'nearest').

    Returns:
      The resized image: ``image``'s dtype for 'nearest', otherwise promoted to an
      inexact dtype (float32 for integer images; no rounding back).

    Example::

        >>> import tjit.numpy as jnp
        >>> from tjit import image
        >>> image.resize(jnp.array([0., 1., 2., 3.]), (8,), "linear")
        Array([0.  , 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.  ], dtype=float32)
        >>> image.resize(jnp.arange(4.), (2,), "area")
        Array([0.5, 2.5], dtype=float32)
    """
    check_arraylike("resize", image)
    image = jnp.asarray(image)
    shape = _check_shape("resize", image, shape)
    method = as_method(method, "resize")
    dims = tuple(d for d in range(image.ndim) if not definitely_equal(image.shape[d], shape[d]))
    _check_resampled("resize", image, shape, dims)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact(image)
    # identity dims are skipped: every kernel interpolates, so they would copy the input
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
    return _scale_and_translate(image, shape, dims, scale, [0.] * len(dims), method,
                                antialias, precision)


def _check_per_dim(op, name, value, count):
    if value.shape != (count,):
        raise ValueError(f"{op}: {name} must have one entry per spatial dimension, shape "
                         f"({count},), got shape {tuple(value.shape)}")


def scale_and_translate(image, shape, spatial_dims, scale, translation, method,
                        antialias=True, precision=lax.Precision.HIGHEST):
    """Resample ``image`` under a scale and translation, as ``jax.image.scale_and_translate``.

    Along spatial dimension ``spatial_dims[k]`` an input location ``y`` maps to the output
    location ``y * scale[k] + translation[k]`` (the inverse map gives the sample
    locations), with pixel ``i`` centred at ``i + 0.5``. Output pixels whose centre maps
    outside the input are zero. PyTorch's ``interpolate(..., align_corners=True)`` is
    ``scale = (n - 1) / (m - 1)``, ``translation = 0.5 * (1 - scale)``.

    Args:
      image: an array.
      shape: the output shape, one size per dimension of ``image``.
      spatial_dims: the K dimensions that ``scale`` and ``translation`` apply to.
      scale, translation: arrays of shape ``(K,)``; differentiable.
      method: as in :func:`resize`, except 'nearest', which is not supported here.
      antialias: filter when downsampling; no effect when upsampling.
      precision: the ``einsum`` precision of the contraction.

    Returns:
      The resampled image, promoted to an inexact dtype.

    Example::

        >>> import tjit.numpy as jnp
        >>> from tjit import image
        >>> image.scale_and_translate(jnp.array([1., 2., 3., 4.]), (4,), (0,),
        ...                           jnp.array([1.]), jnp.array([1.]), "linear")
        Array([0., 1., 2., 3.], dtype=float32)
    """
    check_arraylike("scale_and_translate", image, scale, translation)
    image = jnp.asarray(image)
    shape = _check_shape("scale_and_translate", image, shape)
    method = as_method(method, "scale_and_translate")
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported "
                         "for scale_and_translate.")
    dims = tuple(normalize_axis(d, image.ndim, "scale_and_translate") for d in spatial_dims)
    if len(set(dims)) != len(dims):
        raise ValueError(f"scale_and_translate: repeated dimension in spatial_dims "
                         f"{tuple(spatial_dims)}")
    scale, translation = (jnp.asarray(v) for v in (scale, translation))
    _check_per_dim("scale_and_translate", "scale", scale, len(dims))
    _check_per_dim("scale_and_translate", "translation", translation, len(dims))
    _check_resampled("scale_and_translate", image, shape, dims)
    for d in range(image.ndim):
        if d not in dims and not definitely_equal(image.shape[d], shape[d]):
            raise ValueError(f"scale_and_translate: dimension {d} is not in spatial_dims "
                             f"{tuple(spatial_dims)} but its size changes from "
                             f"{image.shape[d]} to {shape[d]}; list it in spatial_dims or "
                             "keep its size")
    image, = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(scale, translation)
    return _scale_and_translate(image, shape, dims, scale, translation, method,
                                antialias, precision)
