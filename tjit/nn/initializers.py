"""Parameter initializers of ``tjit.nn.initializers`` (``jax.nn.initializers``).

An initializer is a function ``init(key, shape, dtype=float32, out_sharding=None) ->
array`` (``out_sharding`` constrains the result's layout as ``with_sharding_constraint``). ``zeros``
and ``ones`` are initializers themselves; the others are builders that return one,
e.g. ``glorot_uniform()(key, (784, 256))``. The variance-scaling family computes
``fan_in``/``fan_out`` from ``in_axis``/``out_axis`` (other non-batch axes count as the
receptive field of a convolution kernel) and draws from JAX's samplers, so results
match JAX's initializers for the same key.
"""

import math
import typing

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.shapes import normalize_axis, shape_str
from tjit.tracing.traceback_util import eager_boundary
from tjit import lax
from tjit import numpy as jnp
from tjit import random
from tjit.random._keys import check_shape


def _dtype(dtype, name):
    return dtypes.default_float() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, name)


def _constrained(x, out_sharding):
    """JAX's ``out_sharding`` argument: the result laid out by it (with_sharding_constraint:
    the spec is checked against the rank and the mesh; the values are unchanged)."""
    return x if out_sharding is None else lax.with_sharding_constraint(x, out_sharding)


def _with_out_sharding(init):
    """``init(key, shape, dtype)`` that also takes JAX's ``out_sharding=None``."""
    def wrapped(key, shape, dtype=_DEFAULT, out_sharding=None):
        x = init(key, shape) if dtype is _DEFAULT else init(key, shape, dtype)
        return _constrained(x, out_sharding)
    wrapped.__name__ = wrapped.__qualname__ = init.__name__
    return wrapped


class _Default:
    def __repr__(self):
        return "<the initializer's dtype>"


_DEFAULT = _Default()


def zeros(key, shape, dtype=None, out_sharding=None):
    """An array of zeros (``key`` is ignored)."""
    return _constrained(lax.full(check_shape("zeros", shape), 0, _dtype(dtype, "zeros")),
                        out_sharding)


def ones(key, shape, dtype=None, out_sharding=None):
    """An array of ones (``key`` is ignored)."""
    return _constrained(lax.full(check_shape("ones", shape), 1, _dtype(dtype, "ones")),
                        out_sharding)


def constant(value, dtype=None):
    """Builds an initializer returning arrays filled with ``value``."""
    def init(key, shape, dtype=dtype):
        return lax.full(check_shape("constant", shape), value, _dtype(dtype, "constant"))
    return eager_boundary(_with_out_sharding(init), "")  # its errors end in user code too


def uniform(scale=1e-2, dtype=None):
    """Builds an initializer of uniform values in ``[0, scale)``."""
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype, "uniform")
        return jnp.multiply(random.uniform(key, shape, dt), np.array(scale, dt))
    return eager_boundary(_with_out_sharding(init), "")  # its errors end in user code too


def normal(stddev=1e-2, dtype=None):
    """Builds an initializer of normal values with mean 0 and std ``stddev``."""
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype, "normal")
        return jnp.multiply(random.normal(key, shape, dt), np.array(stddev, dt))
    return eager_boundary(_with_out_sharding(init), "")  # its errors end in user code too


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """Builds an initializer of ``stddev *`` standard normals truncated to
    ``(lower, upper)`` (no variance correction, as in JAX)."""
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype, "truncated_normal")
        return jnp.multiply(random.truncated_normal(key, lower, upper, shape, dt),
                            np.array(stddev, dt))
    return eager_boundary(_with_out_sharding(init), "")  # its errors end in user code too


def _axes_size(shape, axes, name):
    if isinstance(axes, int):
        return shape[normalize_axis(axes, len(shape), name)]
    return math.prod(shape[normalize_axis(a, len(shape), name)] for a in axes)


def compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """``(fan_in, fan_out)`` of a weight shape: the sizes of the input/output axes times
    the receptive field (the product of the remaining, non-batch axes)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-"
                         f"dimensional weights tensor (shape {shape_str(shape)}) with default "
                         f"in_axis. Must be at least 2D or specify in_axis explicitly.")
    in_size = _axes_size(shape, in_axis, "variance_scaling")
    out_size = _axes_size(shape, out_axis, "variance_scaling")
    batch_size = _axes_size(shape, batch_axis, "variance_scaling")
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


# stddev of a standard normal truncated to (-2, 2)
_TRUNC_STD = 0.87962566103423978


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """Builds an initializer with variance ``scale / n``, ``n`` given by ``mode``.

    Args:
      scale: positive scaling factor.
      mode: "fan_in", "fan_out", "fan_avg" or "fan_geo_avg".
      distribution: "truncated_normal" (truncated at 2 std, then rescaled so the
        variance is exact), "normal" or "uniform".
      in_axis, out_axis, batch_axis: axes (int or sequence) of the weight shape.
      dtype: default dtype of the weights.
    """
    if mode not in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg"):
        raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"invalid distribution for variance scaling initializer: "
                         f"{distribution}")

    def init(key, shape, dtype=dtype):
        shape = check_shape("variance_scaling", shape)
        dt = _dtype(dtype, "variance_scaling")
        if not dtypes.is_float(dt):
            raise TypeError(f"variance_scaling: dtype must be a real float dtype, got {dt}")
        fan_in, fan_out = compute_fans(shape, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out,
                       "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": (fan_in * fan_out) ** 0.5}[mode]
        variance = np.array(scale / denominator, dt)
        if distribution == "truncated_normal":
            stddev = np.sqrt(variance) / np.array(_TRUNC_STD, dt)
            return jnp.multiply(random.truncated_normal(key, -2, 2, shape, dt), stddev)
        if distribution == "normal":
            return jnp.multiply(random.normal(key, shape, dt), np.sqrt(variance))
        return jnp.multiply(random.uniform(key, shape, dt, -1),
                            np.sqrt(np.array(3, dt) * variance))
    return eager_boundary(_with_out_sharding(init), "")  # its errors end in user code too


def _preset(scale, mode, distribution, doc):
    def builder(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis=in_axis,
                                out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)
    builder.__doc__ = doc
    return builder


glorot_uniform = _preset(1.0, "fan_avg", "uniform",
                         "Glorot/Xavier uniform: variance_scaling(1, 'fan_avg', 'uniform').")
glorot_normal = _preset(1.0, "fan_avg", "truncated_normal",
                        "Glorot/Xavier normal: variance_scaling(1, 'fan_avg', "
                        "'truncated_normal').")
lecun_uniform = _preset(1.0, "fan_in", "uniform",
                        "LeCun uniform: variance_scaling(1, 'fan_in', 'uniform').")
lecun_normal = _preset(1.0, "fan_in", "truncated_normal",
                       "LeCun normal: variance_scaling(1, 'fan_in', 'truncated_normal').")
he_uniform = _preset(2.0, "fan_in", "uniform",
                     "He/Kaiming uniform: variance_scaling(2, 'fan_in', 'uniform').")
he_normal = _preset(2.0, "fan_in", "truncated_normal",
                    "He/Kaiming normal: variance_scaling(2, 'fan_in', 'truncated_normal').")
for _name in ("glorot_uniform", "glorot_normal", "lecun_uniform", "lecun_normal",
              "he_uniform", "he_normal"):
    globals()[_name].__name__ = globals()[_name].__qualname__ = _name
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """Builds an initializer of (scaled) matrices with orthonormal rows or columns
    (whichever are fewer), reshaped to the weight shape with ``column_axis`` as columns."""
    def init(key, shape, dtype=dtype):
        shape = check_shape("orthogonal", shape)
        dt = _dtype(dtype, "orthogonal")
        if len(shape) < 2:
            raise ValueError(f"orthogonal initializer requires at least a 2D shape, got "
                             f"{shape_str(shape)}")
        if any(d == 0 for d in shape):
            return lax.full(shape, 0, dt)
        col = normalize_axis(column_axis, len(shape), "orthogonal")
        n_cols = shape[col]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, n_rows, (), dt, n_cols)
        q = lax.reshape(q, tuple(d for i, d in enumerate(shape) if i != col) + (n_cols,))
        q = jnp.moveaxis(q, -1, col)
        return jnp.multiply(np.array(scale, dt), q)
    return eager_boundary(_with_out_sharding(init), "")  # its errors end in user code too


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """Builds an initializer of delta-orthogonal convolution kernels (Xiao et al. 2018):
    zero except at the spatial centre, which holds a (scaled) orthogonal
    ``in × out`` matrix. Shapes are 3-D, 4-D or 5-D ``(*spatial, in, out)`` with
    ``in ≤ out``."""
    ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)

    def init(key, shape, dtype=dtype):
        shape = check_shape("delta_orthogonal", shape)
        dt = _dtype(dtype, "delta_orthogonal")
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"delta_orthogonal initializer requires a 3D, 4D or 5D shape "
                             f"(spatial dims, fan_in, fan_out), got {shape_str(shape)}")
        if shape[-1] < shape[-2]:
            raise ValueError(f"delta_orthogonal initializer: fan_in {shape[-2]} must be "
                             f"less than or equal to fan_out {shape[-1]} (shape "
                             f"{shape_str(shape)})")
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dt).at[centre].set(ortho(key, shape[-2:], dt))
    return eager_boundary(_with_out_sharding(init), "")


class Initializer(typing.Protocol):
    """The type of an initializer: ``init(key, shape, dtype=...) -> Array`` (for
    annotations, as ``jax.nn.initializers.Initializer``)."""

    def __call__(self, key, shape, dtype=None):
        ...


__all__ = ["zeros", "ones", "constant", "uniform", "normal", "truncated_normal",
           "variance_scaling", "glorot_uniform", "glorot_normal", "xavier_uniform",
           "xavier_normal", "lecun_uniform", "lecun_normal", "he_uniform", "he_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "delta_orthogonal",
           "compute_fans", "Initializer"]

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
