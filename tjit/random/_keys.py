"""PRNG keys for ``tjit.random``: creation, splitting, folding in data, raw bits.

Two forms of key are accepted everywhere, as in JAX: a typed key array from ``key``
(dtype ``key<fry>``, see ``_key_array.py``) and a raw ``uint32[2]`` array from the
legacy ``PRNGKey``. ``split``, ``fold_in`` and ``clone`` return the form they were given;
the samplers work on the raw data (``check_key`` unwraps it), so both forms give the
same values bit for bit. The algorithms are JAX's default
``threefry2x32`` implementation in its current *partitionable* mode
(``jax_threefry_partitionable=True``, JAX's default since 0.5): for an output shape
``s``, counters are the 64-bit row-major iota over ``s`` split into (high, low) uint32
words, hashed with the key by Threefry-2x32-20. ``split`` stacks both hash words,
``random_bits`` xors them, ``fold_in`` hashes the counter pair ``(0, data)``.
Results are bit-identical to JAX for ``key``/``PRNGKey``, ``split``, ``fold_in``
and ``bits`` (the tests check values produced by JAX).
"""


import numpy as np

from tjit import key_reuse
from tjit.config import config
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer
from tjit.tracing.extended_dtypes import THREEFRY_KEY_DTYPE
from tjit.tracing.errors import ConcretizationTypeError, NegativeDimensionError, static_index
from tjit.tracing.shapes import canonical_shape, is_symbolic, shape_str, size
from tjit.primitives.random_bits import threefry2x32_p
from tjit.random._key_array import PRNGKeyArray
from tjit import lax
from tjit import numpy as jnp

_MASK32 = 0xFFFFFFFF
UINT_DTYPES = {8: dtypes.uint8, 16: dtypes.uint16, 32: dtypes.uint32, 64: dtypes.uint64}


# -- validation ------------------------------------------------------------------------
def check_key(name, key, allow_batched=False):
    """Return ``key`` as a tjit array after checking it is a uint32 key of shape (2,)
    (or (..., 2) when ``allow_batched``); a typed key array gives its raw data."""
    if isinstance(key, PRNGKeyArray):
        if key.ndim != 0 and not allow_batched:
            raise ValueError(
                f"{name} accepts a single key, but was given a key array of shape "
                f"{shape_str(key.shape)}. Index one key (keys[i]) or use tjit.vmap for "
                f"batching.")
        if config.debug_key_reuse:
            key_reuse.consume(name, key)
        return key._data
    if isinstance(key, (np.ndarray, np.generic)):
        key = jnp.asarray(key)
    if not isinstance(key, (Array, Tracer)):
        raise TypeError(f"{name}: expected a PRNG key array (from tjit.random.key(seed) or "
                        f"tjit.random.PRNGKey(seed)), got {type(key).__name__}: {key!r:.60}")
    shape, dt = tuple(key.shape), np.dtype(key.dtype)
    if dt != dtypes.uint32 or not shape or not _is_two(shape[-1]):
        raise TypeError(
            f"{name}: invalid PRNG key: expected a uint32 array of shape (2,), got "
            f"{dtypes.short_name(dt)}{shape_str(shape)}. Create keys with "
            f"tjit.random.key(seed) or tjit.random.PRNGKey(seed), and derive new ones with "
            f"split / fold_in.")
    if len(shape) != 1 and not allow_batched:
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape "
            f"{shape_str(shape)} (i.e. {shape_str(shape[:-1])} keys). Index one key "
            f"(keys[i]) or use tjit.vmap for batching.")
    return key


def _is_two(d):
    return not is_symbolic(d) and d == 2


def check_shape(name, shape):
    """Canonical tuple shape; ints and symbolic dims allowed, negative dims rejected."""
    if isinstance(shape, (Array, Tracer)):
        raise TypeError(f"{name}: shape must be a tuple of Python ints, got an array "
                        f"{shape!r:.60}; pass a static shape such as (3, 4)")
    try:
        shape = canonical_shape(shape, name)
    except ConcretizationTypeError:
        raise  # a traced dim: its message names the argument and the fix
    except TypeError as e:
        raise TypeError(f"{e}; shapes are tuples of Python ints such as (3, 4)") from None
    for d in shape:
        if not is_symbolic(d) and d < 0:
            raise NegativeDimensionError(f"{name}: shape {shape_str(shape)} has a negative "
                                         f"dimension")
    return shape


# -- building blocks (shared with the samplers) ------------------------------------------
def key_words(key):
    """The two uint32 scalars ``(key[0], key[1])`` of a single key."""
    k1 = lax.reshape(lax.slice(key, (0,), (1,)), ())
    k2 = lax.reshape(lax.slice(key, (1,), (2,)), ())
    return k1, k2


def stack_last(a, b):
    """Stack two equally shaped arrays along a new trailing axis."""
    nd = len(a.shape)
    shape = tuple(a.shape) + (1,)
    return lax.concatenate([lax.reshape(a, shape), lax.reshape(b, shape)], nd)


def iota_2x32_shape(shape):
    """High and low uint32 words of the 64-bit row-major iota over ``shape``.

    Sizes are below 2**32 here (checked), so the high word is zero and the low word is
    the flat index; symbolic shapes work through a reshaped 1-d iota.
    """
    n = size(shape)
    if not is_symbolic(n) and n >= 2 ** 32:
        raise NotImplementedError(f"random bits for {n} elements (shape {shape_str(shape)}):"
                                  f" more than 2**32 values per call is not supported")
    zero = jnp.asarray(np.uint32(0))
    if not shape:
        return zero, zero
    lo = lax.reshape(lax.iota(dtypes.uint32, n), shape)
    return zero, lo


def threefry_hash(key, shape):
    """Both Threefry words for the counters of ``shape`` under a single ``key``."""
    k1, k2 = key_words(key)
    hi, lo = iota_2x32_shape(shape)
    return threefry2x32_p.bind(k1, k2, hi, lo)


def split_key(key, shape):
    """Keys of ``shape`` derived from one key (no checks): shape ``(*shape, 2)``."""
    b1, b2 = threefry_hash(key, shape)
    return stack_last(b1, b2)


def random_bits(key, bit_width, shape):
    """Uniform random unsigned integers of ``bit_width`` bits (no key checks)."""
    if bit_width not in UINT_DTYPES:
        raise TypeError(f"random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width}")
    b1, b2 = threefry_hash(key, shape)
    if bit_width == 64:
        if not dtypes.canonicalize(dtypes.uint64) == dtypes.uint64:
            raise TypeError("random_bits: 64-bit values need x64; enable it with "
                            "tjit.config.update('enable_x64', True)")
        hi = lax.convert_element_type(b1, dtypes.uint64)
        lo = lax.convert_element_type(b2, dtypes.uint64)
        return lax.bitwise_or(lax.shift_left(hi, 32), lo)
    bits = lax.bitwise_xor(b1, b2)
    if bit_width == 32:
        return bits
    return lax.convert_element_type(bits, UINT_DTYPES[bit_width])


# -- public API ---------------------------------------------------------------------------
def PRNGKey(seed, *, impl=None):  # noqa: N802 (JAX's name)
    """A PRNG key (uint32[2]) from an integer seed, as ``jax.random.PRNGKey``.

    Args:
      seed: a Python int or integer scalar array (traced values allowed). With x64
        disabled only the low 32 bits are used, as in JAX.
      impl: None, ``'threefry2x32'`` or its key dtype (the one implementation).

    Returns:
      A uint32 array of shape (2,): ``[seed >> 32, seed & 0xFFFFFFFF]``.
    """
    _check_impl("PRNGKey", impl)
    return _seed_to_key("PRNGKey", seed)


def key(seed, *, impl=None, dtype=None):
    """A typed PRNG key from an integer seed, as ``jax.random.key``.

    Args:
      seed: a Python int or integer scalar array (traced values allowed).
      impl: None or ``'threefry2x32'`` (the one implementation).
      dtype: the key dtype instead of ``impl`` (``key_dtype()`` or ``'threefry2x32'``).

    Returns:
      A key array of shape () and dtype ``key<fry>`` over the same data as
      ``PRNGKey(seed)``; ``key_data`` gives that data.
    """
    _check_impl("key", _impl_or_dtype("key", impl, dtype))
    return PRNGKeyArray(_seed_to_key("key", seed))


def _impl_or_dtype(name, impl, dtype):
    """JAX's ``dtype=`` of key/wrap_key_data names the implementation instead of
    ``impl``; both at once is an error."""
    if dtype is not None and impl is not None:
        raise ValueError(f"Cannot specify both `impl` and `dtype` arguments to "
                         f"jax.random.{name}")
    return impl if dtype is None else dtype


def _check_impl(name, impl):
    """The one implementation: None, its name, or its key dtype."""
    if impl is None or (isinstance(impl, str) and impl == "threefry2x32") or \
            impl is THREEFRY_KEY_DTYPE:
        return
    raise ValueError(f"{name}: only impl='threefry2x32' (key dtype {THREEFRY_KEY_DTYPE}) "
                     f"is available, got {impl!r}")


def _seed_to_key(name, seed):
    if isinstance(seed, bool):
        raise TypeError(f"{name}: seed must be an integer, got bool {seed}")
    if isinstance(seed, int):
        if not -2 ** 63 <= seed < 2 ** 64:
            raise OverflowError(f"{name}: seed {seed} does not fit in 64 bits")
        v = seed % 2 ** 64
        hi = (v >> 32) if dtypes.canonicalize(dtypes.int64) == dtypes.int64 else 0
        return jnp.asarray(np.array([hi, v & _MASK32], dtype=np.uint32))
    seed = jnp.asarray(seed)
    if seed.ndim != 0:
        raise TypeError(f"{name} accepts a scalar seed, but was given an array of shape "
                        f"{shape_str(seed.shape)}; use tjit.vmap for batching")
    if not dtypes.is_int(seed.dtype):
        raise TypeError(f"{name}: seed must be an integer, got dtype {seed.dtype}")
    lo = lax.convert_element_type(seed, dtypes.uint32)
    if np.dtype(seed.dtype).itemsize == 8:
        hi = lax.convert_element_type(lax.shift_right_logical(seed, 32), dtypes.uint32)
    else:
        hi = lax.full((), 0, dtypes.uint32)
    return lax.concatenate([lax.reshape(hi, (1,)), lax.reshape(lo, (1,))], 0)


def key_data(keys):
    """The uint32 data of a key array: shape ``(*keys.shape, 2)`` for typed keys; a raw
    key array is returned as it is (checked)."""
    return check_key("key_data", keys, allow_batched=True)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """A typed key array from uint32 key data of shape ``(..., 2)`` (the inverse of
    :func:`key_data`); the result has the data's shape without its last axis. ``impl``
    or ``dtype`` (a key dtype) name the implementation, as :func:`key`'s."""
    _check_impl("wrap_key_data", _impl_or_dtype("wrap_key_data", impl, dtype))
    if isinstance(key_bits_array, PRNGKeyArray):
        raise TypeError("wrap_key_data: the argument is already a typed key array; pass "
                        "uint32 key data (tjit.random.key_data(keys))")
    return PRNGKeyArray(check_key("wrap_key_data", key_bits_array, allow_batched=True))


def _like(template, data):
    """``data`` in the form of ``template``: typed when the given key was typed."""
    return PRNGKeyArray(data) if isinstance(template, PRNGKeyArray) else data


def key_dtype(impl_spec=None):
    """The dtype of typed key arrays (``key<fry>``), as ``jax.random.key_dtype``.

    Args:
      impl_spec: None or ``'threefry2x32'`` (the one implementation).

    Example::

        >>> jax.random.key_dtype()
        key<fry>
    """
    _check_impl("key_dtype", impl_spec)
    return THREEFRY_KEY_DTYPE


def key_impl(keys):
    """The PRNG implementation of ``keys``: always ``'threefry2x32'``."""
    check_key("key_impl", keys, allow_batched=True)
    return "threefry2x32"


def clone(key):
    """Return ``key`` (keys are immutable values; provided for JAX compatibility)."""
    return _like(key, check_key("clone", key, allow_batched=True))


def split(key, num=2):
    """Split a key into ``num`` new keys.

    Args:
      key: a PRNG key (typed, or raw uint32[2]).
      num: a non-negative int, or a tuple of ints giving the shape of the key array.

    Returns:
      Keys of shape ``(num,)`` (or ``num``) in the form of ``key``: a typed key array,
      or for a raw key a uint32 array of shape ``(num, 2)`` (or ``(*num, 2)``).
    """
    given, key = key, check_key("split", key)
    if isinstance(num, (tuple, list)):
        shape = check_shape("split", tuple(num))
    else:
        shape = check_shape("split", (static_index(num, "num", "split"),))
    return _like(given, split_key(key, shape))


def fold_in(key, data):
    """Fold an integer into a key, giving a new key (JAX's threefry fold_in).

    Args:
      key: a PRNG key.
      data: a 32-bit integer scalar (Python int or integer array, traced allowed); it is
        taken modulo 2**32.

    Returns:
      A new key (typed when ``key`` is), a deterministic function of ``key`` and ``data``.
    """
    given, key = key, check_key("fold_in", key)
    if isinstance(data, bool):
        raise TypeError("fold_in: data must be an integer, got a bool")
    if isinstance(data, int):
        d = jnp.asarray(np.uint32(data % 2 ** 32))
    else:
        d = jnp.asarray(data)
        if d.ndim != 0:
            raise TypeError(f"fold_in accepts a scalar, but was given an array of shape "
                            f"{shape_str(d.shape)}; use tjit.vmap for batching")
        if not (dtypes.is_int(d.dtype) or dtypes.is_bool(d.dtype)):
            raise TypeError(f"fold_in: data must be an integer, got dtype {d.dtype}")
        d = lax.convert_element_type(d, dtypes.uint32)
    k1, k2 = key_words(key)
    o1, o2 = threefry2x32_p.bind(k1, k2, jnp.asarray(np.uint32(0)), d)
    return _like(given, stack_last(o1, o2))


def bits(key, shape=(), dtype=None):
    """Uniform random bits as unsigned integers.

    Args:
      key: a PRNG key.
      shape: the result shape (tuple of ints). Default ``()``.
      dtype: an unsigned integer dtype (default uint32, or uint64 with x64).

    Returns:
      An array of ``shape`` and ``dtype``.
    """
    key = check_key("bits", key)
    dt = dtypes.default_uint() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, "bits")
    if not dtypes.is_unsigned(dt):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dt}")
    return random_bits(key, dt.itemsize * 8, check_shape("bits", shape))


def threefry_2x32(keypair, count):
    """Apply the Threefry-2x32 hash to ``count`` (uint32 array) under ``keypair``,
    as ``jax.random.threefry_2x32``: the flattened counts (zero-padded to even length)
    are split in halves that form the counter pairs."""
    keypair = check_key("threefry_2x32", keypair)
    count = jnp.asarray(count)
    if count.dtype != dtypes.uint32:
        raise TypeError(f"threefry_2x32 requires uint32 arguments, got count of dtype "
                        f"{count.dtype}")
    n = size(count.shape)
    if is_symbolic(n):
        raise NotImplementedError("threefry_2x32 with a symbolic count size")
    flat = lax.reshape(count, (n,))
    if n % 2:
        flat = lax.concatenate([flat, lax.full((1,), 0, dtypes.uint32)], 0)
    half = (n + 1) // 2
    x1 = lax.slice(flat, (0,), (half,))
    x2 = lax.slice(flat, (half,), (2 * half,))
    k1, k2 = key_words(keypair)
    o1, o2 = threefry2x32_p.bind(k1, k2, x1, x2)
    out = lax.concatenate([o1, o2], 0)
    if n % 2:
        out = lax.slice(out, (0,), (n,))
    return lax.reshape(out, tuple(count.shape))
