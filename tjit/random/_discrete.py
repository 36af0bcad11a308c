"""Discrete distributions and shuffles of ``tjit.random``, following ``jax.random``.

``randint`` is JAX's modulus method over two words of random bits (bit-identical to
JAX); ``bernoulli`` compares a uniform with ``p``; ``permutation``/``shuffle`` sort by
random 32-bit keys in enough rounds to make collisions negligible (JAX's algorithm);
``choice`` and ``categorical`` use randint, permutations, inverse-CDF search and the
Gumbel-max / Gumbel-top-k tricks as JAX does.
"""


import numpy as np

from tjit.tracing.errors import static_index
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer, concrete_value
from tjit.tracing.shapes import is_symbolic, normalize_axis, shape_str, size
from tjit import lax
from tjit import numpy as jnp
from tjit.random._keys import UINT_DTYPES, check_key, check_shape, random_bits
from tjit.random._samplers import (
    bcast, check_param_shapes, gumbel_, param_array, split2, take0, take1, uniform_)


# -- bernoulli / rademacher ------------------------------------------------------------------
def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Bernoulli random booleans: True with probability ``p``.

    Args:
      key: a PRNG key.
      p: probability (float or float array broadcast-compatible with ``shape``).
      shape: result shape; default ``p.shape``.
      mode: "low" (default) or "high" (two uniforms per value; correct for p < 1e-7).

    Returns:
      A bool array of ``shape``.
    """
    if mode not in ("low", "high"):
        raise ValueError(f"bernoulli: got mode={mode!r}, expected 'high' or 'low'")
    key = check_key("bernoulli", key)
    p = param_array(p, "bernoulli", "p")
    if not dtypes.is_float(p.dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got "
                        f"{p.dtype}; pass e.g. p=0.5 or p.astype(jnp.float32)")
    dtype = dtypes.canonicalize(p.dtype)
    p = lax.convert_element_type(p, dtype)
    if shape is None:
        shape = tuple(p.shape)
    else:
        shape = check_shape("bernoulli", shape)
        check_param_shapes("bernoulli", shape, p.shape)
    p = bcast(p, shape)
    if mode == "high":
        both = uniform_(key, (2,) + shape, dtype, name="bernoulli")
        u1, u2 = take0(both), take1(both)
        # the second uniform refines the first below its resolution, 2**-nmant
        u2 = lax.mul(u2, float(2.0 ** -dtypes.finfo(dtype).nmant))
        return lax.lt(u2, lax.sub(p, u1))
    return lax.lt(uniform_(key, shape, dtype, name="bernoulli"), p)


def rademacher(key, shape=(), dtype=None):
    """Random -1 or +1 values with equal probability.

    Args:
      key: a PRNG key.
      shape: result shape. Default ``()``.
      dtype: result dtype (default int32, int64 with x64).

    Returns:
      An array of ``shape`` and ``dtype``.
    """
    dt = dtypes.default_int() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, "rademacher")
    if dtypes.is_bool(dt):  # JAX: 2 b - 1 made bool, i.e. True everywhere
        return lax.convert_element_type(rademacher(key, shape, np.int8), dt)
    b = lax.convert_element_type(bernoulli(key, 0.5, check_shape("rademacher", shape)), dt)
    return lax.sub(lax.mul(b, 2), 1)


# -- randint ---------------------------------------------------------------------------------
def randint(key, shape, minval, maxval, dtype=None):
    """Uniform random integers in ``[minval, maxval)``.

    Uses JAX's method: two words of random bits reduced modulo the span, so the bias
    is tiny unless the span is close to the dtype's range. 8- and 16-bit results are
    sampled at 32 bits. When ``maxval <= minval`` the result is ``minval``.

    Args:
      key: a PRNG key.
      shape: result shape (tuple of ints).
      minval, maxval: integer bounds broadcast-compatible with ``shape``; they are
        clipped to the dtype's range (``maxval`` may exceed it by one, e.g. 256 for uint8).
      dtype: an integer dtype (default int32, int64 with x64).

    Returns:
      An array of ``shape`` and ``dtype``.
    """
    key = check_key("randint", key)
    dtype = dtypes.default_int() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, "randint")
    if not dtypes.is_int(dtype):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    shape = check_shape("randint", shape)
    minval, maxval = _int_param(minval, "minval"), _int_param(maxval, "maxval")
    info = dtypes.iinfo(dtype)
    if info.bits < 32:
        i32 = dtypes.int32
        lo = lax.clamp(int(info.min), lax.convert_element_type(minval, i32), int(info.max))
        hi = lax.clamp(int(info.min), lax.convert_element_type(maxval, i32),
                       int(info.max) + 1)
        return lax.convert_element_type(randint_(key, shape, lo, hi, i32), dtype)
    return randint_(key, shape, minval, maxval, dtype)


def _int_param(x, what):
    x = param_array(x, "randint", what)
    if not dtypes.is_int(x.dtype):
        x = lax.convert_element_type(x, dtypes.default_int())
    return x


def _convert_and_clip_integer(val, dtype):
    """Convert an integer array to ``dtype`` clipping (not wrapping) out-of-range values."""
    src, dst = dtypes.iinfo(val.dtype), dtypes.iinfo(dtype)
    clipped = lax.clamp(max(int(src.min), int(dst.min)), val,
                        min(int(src.max), int(dst.max)))
    return lax.convert_element_type(clipped, dtype)


def randint_(key, shape, minval, maxval, dtype):
    """:func:`randint` for integer-typed bounds and a 32/64-bit ``dtype``."""
    minval, maxval = _int_param(minval, "minval"), _int_param(maxval, "maxval")
    check_param_shapes("randint", shape, minval.shape, maxval.shape)
    dt_max = _convert_and_clip_integer(jnp.asarray(dtypes.iinfo(dtype).max, dtype), maxval.dtype)
    # maxval beyond the dtype's max (e.g. 2**31 for int32) makes the span one larger
    maxval_out_of_range = bcast(lax.gt(maxval, dt_max), shape)
    minval = bcast(_convert_and_clip_integer(minval, dtype), shape)
    maxval = bcast(_convert_and_clip_integer(maxval, dtype), shape)
    nbits = dtypes.iinfo(dtype).bits
    k1, k2 = split2(key)
    higher, lower = random_bits(k1, nbits, shape), random_bits(k2, nbits, shape)
    udt = UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), udt)
    span = lax.select(lax.le(maxval, minval), lax.full_like(span, 1), span)
    # If the span wraps to 0 (full range) the remainders below have no effect: correct.
    span = lax.select(lax.bitwise_and(maxval_out_of_range, lax.gt(maxval, minval)),
                      lax.add(span, 1), span)
    # (higher * 2**nbits + lower) mod span, without overflow: 2**nbits mod span is
    # ((2**(nbits/2) mod span)**2) mod span.
    multiplier = lax.rem(lax.full_like(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), multiplier), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


# -- permutations ------------------------------------------------------------------------------
def _shuffle(key, x, axis):
    """Sort ``x`` along ``axis`` by fresh random 32-bit keys, repeated until key
    collisions are negligible (3 * log(n) / log(2**32) rounds, JAX's criterion)."""
    n = size(x.shape)
    if is_symbolic(n):
        raise NotImplementedError(f"permutation/shuffle of an array of symbolic size {n}")
    num_rounds = int(np.ceil(3 * np.log(max(1, n)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(num_rounds):
        key, subkey = split2(key)
        sort_keys = random_bits(subkey, 32, tuple(x.shape))
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``arange(x)`` (int ``x``) or of ``x`` along ``axis``.

    Args:
      key: a PRNG key.
      x: an int n (permute ``arange(n)``) or an array.
      axis: axis along which to permute. Default 0.
      independent: if True, each 1-d slice along ``axis`` is permuted independently.

    Returns:
      The permuted array.
    """
    key = check_key("permutation", key)
    if not isinstance(x, (Array, Tracer)):  # (asarray names a ragged list as such)
        x = jnp.asarray(x)
    if x.ndim == 0:
        if not dtypes.is_int(x.dtype):
            raise TypeError(f"permutation: x must be an integer or at least 1-dimensional, "
                            f"got a scalar of dtype {x.dtype}")
        n = static_index(concrete_value(x, "the argument x of tjit.random.permutation"), "x",
                         "permutation")
        return _shuffle(key, lax.iota(dtypes.default_int(), n), 0)
    x = jnp.asarray(x)
    axis = normalize_axis(axis, x.ndim, "permutation")
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, lax.iota(dtypes.default_int(), x.shape[axis]), 0)
    return jnp.take(x, ind, axis=axis)


def shuffle(key, x, axis=0):
    """Shuffle each 1-d slice of ``x`` along ``axis`` independently (JAX's deprecated
    ``shuffle``; prefer ``permutation(key, x, axis, independent=True)``)."""
    key = check_key("shuffle", key)
    x = jnp.asarray(x)
    if x.ndim == 0:
        raise TypeError("shuffle: x must be at least 1-dimensional")
    return _shuffle(key, x, normalize_axis(axis, x.ndim, "shuffle"))


# -- choice / categorical ----------------------------------------------------------------------
def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Random samples from ``a`` (an array, or ``arange(a)`` for an int).

    Args:
      key: a PRNG key.
      a: an int n or an array; samples are taken along ``axis``.
      shape: the shape of the samples. Default ``()``.
      replace: sample with replacement (default) or without.
      p: optional 1-d probabilities of the entries of ``a`` along ``axis``.
      axis: the axis of ``a`` to sample along. Default 0.
      mode: gumbel mode for ``replace=False`` with ``p`` ("low" or "high").

    Returns:
      Samples of shape ``shape`` (int ``a``) or ``a.shape[:axis] + shape +
      a.shape[axis+1:]``.
    """
    key = check_key("choice", key)
    shape = check_shape("choice", shape)
    arr = param_array(a, "choice", "a")
    if arr.ndim == 0:
        n_inputs = static_index(concrete_value(arr, "the argument a of tjit.random.choice"),
                                "a", "choice")
    else:
        axis = normalize_axis(axis, arr.ndim, "choice")
        n_inputs = arr.shape[axis]
    n_draws = size(shape)
    if n_draws == 0:
        return lax.full(shape, 0, arr.dtype)
    if n_inputs <= 0:
        raise ValueError("choice: a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"choice: cannot take a larger sample (size {n_draws}) than "
                         f"population (size {n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = randint_(key, shape, 0, n_inputs, dtypes.default_int())
            result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis=axis)
        else:
            perm = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
            result = _slice_axis(perm, 0, n_draws, axis if arr.ndim else 0)
    else:
        ind = _choice_index_p(key, p, n_inputs, shape, n_draws, replace, mode)
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis=axis)
    out_shape = shape if arr.ndim == 0 else \
        tuple(arr.shape[:axis]) + shape + tuple(arr.shape[axis + 1:])
    return lax.reshape(result, out_shape)


def _choice_index_p(key, p, n_inputs, shape, n_draws, replace, mode):
    p_arr = param_array(p, "choice", "p")
    if not dtypes.is_inexact(p_arr.dtype):
        p_arr = lax.convert_element_type(p_arr, dtypes.default_float())
    if tuple(p_arr.shape) != (n_inputs,):
        raise ValueError(f"choice: p must be None or a 1D vector with the same size as "
                         f"a.shape[axis]. p has shape {shape_str(p_arr.shape)} and "
                         f"a.shape[axis] is {n_inputs}.")
    if replace:
        p_cuml = jnp.cumsum(p_arr)
        total = lax.reshape(_slice_axis(p_cuml, n_inputs - 1, n_inputs, 0), ())
        r = lax.mul(total, lax.sub(1.0, uniform_(key, shape, p_cuml.dtype)))
        return _searchsorted_left(p_cuml, r)
    g = jnp.add(gumbel_(key, (n_inputs,), p_arr.dtype, mode or "low"), jnp.log(p_arr))
    _, ind = lax.top_k(g, n_draws)
    return lax.convert_element_type(ind, dtypes.default_int())


def _searchsorted_left(sorted_1d, values):
    """Index of each value in a sorted vector (``searchsorted(side='left')``): the
    number of entries strictly less than the value."""
    less = jnp.less(sorted_1d, lax.expand_dims(values, (values.ndim,)))
    return jnp.sum(less, axis=-1, dtype=dtypes.default_int())


def _slice_axis(x, start, stop, axis):
    starts = [0] * x.ndim
    limits = list(x.shape)
    starts[axis], limits[axis] = start, stop
    return lax.slice(x, tuple(starts), tuple(limits))


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Samples from categorical distributions given by unnormalized log-probabilities.

    Uses the Gumbel-max trick (``argmax(logits + gumbel)``), or Gumbel-top-k when
    ``replace=False``.

    Args:
      key: a PRNG key.
      logits: float log-probabilities (up to a constant) along ``axis``.
      axis: the category axis of ``logits``. Default -1.
      shape: result shape, broadcast-compatible with the batch shape
        (``logits.shape`` without ``axis``), which it must end with.
      replace: sample with replacement (default).
      mode: gumbel mode, "low" (default) or "high".

    Returns:
      Integer indices (int32, int64 with x64) of ``shape``.
    """
    key = check_key("categorical", key)
    logits = jnp.asarray(logits)
    if not dtypes.is_float(logits.dtype):  # (JAX's gumbel refuses it)
        raise ValueError(f"categorical: logits must have a float dtype, got {logits.dtype}; "
                         f"convert them with logits.astype(jnp.float32)")
    if logits.ndim == 0:
        raise ValueError("categorical: logits must have at least one dimension (the "
                         "categories)")
    axis = normalize_axis(axis, logits.ndim, "categorical")
    batch_shape = tuple(d for i, d in enumerate(logits.shape) if i != axis)
    if shape is None:
        shape = batch_shape
    else:
        shape = check_shape("categorical", shape)
        check_param_shapes("categorical", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    mode = mode or "low"
    if not replace:
        return _categorical_no_replace(key, logits, axis, shape, prefix, batch_shape, mode)
    g_shape = list(shape[len(prefix):])
    g_shape.insert(axis, logits.shape[axis])
    g = gumbel_(key, tuple(prefix) + tuple(g_shape), logits.dtype, mode)
    scores = jnp.add(g, lax.expand_dims(logits, tuple(range(len(prefix)))))
    return jnp.argmax(scores, axis=len(prefix) + axis)


def _categorical_no_replace(key, logits, axis, shape, prefix, batch_shape, mode):
    k = size(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"categorical: number of samples without replacement ({k}) cannot "
                         f"exceed number of categories ({logits.shape[axis]})")
    scores = jnp.add(logits, gumbel_(key, tuple(logits.shape), logits.dtype, mode))
    perm = tuple(i for i in range(logits.ndim) if i != axis) + (axis,)
    _, ind = lax.top_k(lax.transpose(scores, perm), k)     # batch_shape + (k,)
    ind = lax.convert_element_type(ind, dtypes.default_int())
    nb = len(batch_shape)
    return lax.reshape(lax.transpose(ind, (nb,) + tuple(range(nb))), shape)


__all__ = ["bernoulli", "rademacher", "randint", "permutation", "shuffle", "choice",
           "categorical"]
