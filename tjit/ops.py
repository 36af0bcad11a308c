"""``tjit.ops``: JAX's segment reductions (``jax.ops.segment_sum`` and friends).

``segment_sum(data, segment_ids, num_segments)`` reduces the rows ``data[i]`` that share a
segment id into ``out[segment_ids[i]]``: a scatter-add (or mul/max/min) into an array of
the reduction's identity. As in JAX, ids outside ``[0, num_segments)`` are dropped
(negative ones too: they are not wrapped as indices are), an empty segment holds the
identity (0, 1, -inf/the dtype's min, +inf/the dtype's max), and ``num_segments`` must be
static under ``jit``; left out, it is ``max(segment_ids) + 1`` of concrete ids.
"""

import numpy as np

import tjit.numpy as jnp
from tjit.lax._annotations import apply_out_sharding
from tjit._namespace import publish as _publish
from tjit.tracing import dtypes
from tjit.tracing.core import concrete_value
from tjit.tracing.errors import ConcretizationTypeError


def _num_segments(segment_ids, num_segments, name):
    if num_segments is not None:
        try:
            return int(num_segments)
        except (TypeError, ConcretizationTypeError) as e:
            raise ConcretizationTypeError(
                f"jax.ops.{name}: num_segments must be a static int (it sets the output "
                f"shape), got {num_segments!r}; pass a Python int or mark it static") from e
    try:
        ids = concrete_value(segment_ids)
    except ConcretizationTypeError as e:
        raise ConcretizationTypeError(
            f"jax.ops.{name}: without num_segments the output size is max(segment_ids) + 1, "
            f"which is unknown for traced segment_ids of shape {tuple(segment_ids.shape)}; "
            f"pass num_segments=<int>") from e
    ids = np.asarray(ids)
    return int(ids.max()) + 1 if ids.size else 0


def _segment_reduce(name, method, identity, data, segment_ids, num_segments,
                    indices_are_sorted, unique_indices, bucket_size, mode):
    data = jnp.asarray(data)
    segment_ids = jnp.asarray(segment_ids)
    if not dtypes.is_int(segment_ids.dtype) or segment_ids.ndim != 1:
        raise TypeError(f"jax.ops.{name}: segment_ids must be a 1-D integer array, got "
                        f"{segment_ids.dtype}{list(segment_ids.shape)}")
    if data.ndim == 0 or data.shape[0] != segment_ids.shape[0]:
        raise ValueError(f"jax.ops.{name}: data's leading axis must match segment_ids, got "
                         f"data {tuple(data.shape)} and segment_ids {tuple(segment_ids.shape)}")
    if mode not in (None, "drop", "fill", "promise_in_bounds", "clip"):
        raise ValueError(f"jax.ops.{name}: unknown mode {mode!r}")
    del bucket_size  # JAX's hint for splitting the scatter; one scatter serves here
    n = _num_segments(segment_ids, num_segments, name)
    if mode == "clip":
        segment_ids = jnp.clip(segment_ids, 0, max(n - 1, 0))
    else:  # negative ids are out of range, not counted from the end
        segment_ids = jnp.where(segment_ids < 0, n, segment_ids)
    out = jnp.full((n,) + tuple(data.shape[1:]), identity(data.dtype), data.dtype)
    return getattr(out.at[segment_ids], method)(
        data, mode="drop", indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)


def _lowest(dt):
    return -np.inf if dtypes.is_float(dt) else (
        False if dt == np.bool_ else dtypes.iinfo(dt).min)


def _highest(dt):
    return np.inf if dtypes.is_float(dt) else (
        True if dt == np.bool_ else dtypes.iinfo(dt).max)


def _out_sharded(name, out_sharding, out):
    return out if out_sharding is None else apply_out_sharding(
        out, out_sharding, f"ops.{name}(out_sharding=...)")


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """Sums of the rows of ``data`` per segment: ``out[s] = sum(data[segment_ids == s])``.

    Args:
      data: the values; axis 0 runs along ``segment_ids``.
      segment_ids: 1-D integer ids; those outside ``[0, num_segments)`` are dropped.
      num_segments: the output's leading size (static); default ``max(segment_ids) + 1``.
      indices_are_sorted, unique_indices, bucket_size: hints, as in JAX.
      mode: ``None``/``"drop"``/``"fill"`` drop out-of-range ids, ``"clip"`` clips them.
      out_sharding: JAX's, checked against the result (one device places nothing).
    """
    out = _segment_reduce("segment_sum", "add", lambda dt: 0, data, segment_ids, num_segments,
                          indices_are_sorted, unique_indices, bucket_size, mode)
    return _out_sharded("segment_sum", out_sharding, out)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False,
                 unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """Products of the rows of ``data`` per segment (1 for an empty segment); arguments as
    :func:`segment_sum`."""
    out = _segment_reduce("segment_prod", "multiply", lambda dt: 1, data, segment_ids, num_segments,
                          indices_are_sorted, unique_indices, bucket_size, mode)
    return _out_sharded("segment_prod", out_sharding, out)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """Maxima of the rows of ``data`` per segment (-inf, or the dtype's minimum, for an
    empty segment); arguments as :func:`segment_sum`."""
    out = _segment_reduce("segment_max", "max", _lowest, data, segment_ids, num_segments,
                          indices_are_sorted, unique_indices, bucket_size, mode)
    return _out_sharded("segment_max", out_sharding, out)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None, out_sharding=None):
    """Minima of the rows of ``data`` per segment (+inf, or the dtype's maximum, for an
    empty segment); arguments as :func:`segment_sum`."""
    out = _segment_reduce("segment_min", "min", _highest, data, segment_ids, num_segments,
                          indices_are_sorted, unique_indices, bucket_size, mode)
    return _out_sharded("segment_min", out_sharding, out)


__all__ = ["segment_sum", "segment_prod", "segment_max", "segment_min"]
_publish(globals(), submodules=())  # errors raised here end in the user's line
