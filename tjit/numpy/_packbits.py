"""``packbits``/``unpackbits``, as ``numpy``'s and ``jax.numpy``'s: bits along an axis
to uint8 bytes and back, written with jnp operations so they trace (jit, vmap)."""

from tjit import numpy as jnp  # functions looked up at call time (this runs in its init)
from tjit.numpy._core import ensure_array
from tjit.tracing.errors import static_index

__all__ = ["packbits", "unpackbits"]


def _check_bitorder(fname, bitorder):
    if bitorder not in ("big", "little"):
        raise ValueError(f"jnp.{fname}: bitorder must be 'big' or 'little', got {bitorder!r}")


def _bit_weights(bitorder):
    w = jnp.left_shift(jnp.asarray(1, jnp.uint8), jnp.arange(8, dtype=jnp.uint8))
    return w[::-1] if bitorder == "big" else w


def packbits(a, axis=None, bitorder="big"):
    """Pack the truth values of an integer or bool array into uint8 bytes along ``axis``
    (the flattened array when None), padding the last byte with zeros, as
    ``numpy.packbits``.

    >>> jnp.packbits(jnp.asarray([1, 0, 1, 1, 0, 0, 0, 0, 1]))
    Array([176, 128], dtype=uint8)
    """
    arr = ensure_array("packbits", a)
    if not jnp.issubdtype(arr.dtype, jnp.integer) and arr.dtype != jnp.bool_:
        raise TypeError(f"jnp.packbits: expected an integer or bool array, got {arr.dtype}")
    _check_bitorder("packbits", bitorder)
    if axis is None:
        arr, axis = jnp.ravel(arr), 0
    bits = jnp.moveaxis(arr != 0, axis, -1).astype(jnp.uint8)
    tail = -bits.shape[-1] % 8
    if tail:
        bits = jnp.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, tail)])
    bytes8 = bits.reshape(bits.shape[:-1] + (bits.shape[-1] // 8, 8))
    packed = jnp.sum(bytes8 * _bit_weights(bitorder), axis=-1, dtype=jnp.uint8)
    return jnp.moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Unpack uint8 bytes into bits (0/1 uint8) along ``axis`` (the flattened array
    when None); ``count`` keeps that many bits (negative: drops them from the end; more
    than there are: pads with zeros), as ``numpy.unpackbits``.

    >>> jnp.unpackbits(jnp.asarray([176], jnp.uint8))
    Array([1, 0, 1, 1, 0, 0, 0, 0], dtype=uint8)
    """
    arr = ensure_array("unpackbits", a)
    if arr.dtype != jnp.uint8:
        raise TypeError(f"jnp.unpackbits: expected a uint8 array, got {arr.dtype}; "
                        f"convert with .astype(jnp.uint8)")
    _check_bitorder("unpackbits", bitorder)
    if axis is None:
        arr, axis = jnp.ravel(arr), 0
    arr = jnp.moveaxis(arr, axis, -1)
    bits = (jnp.bitwise_and(arr[..., None], _bit_weights(bitorder)) != 0).astype(jnp.uint8)
    bits = bits.reshape(bits.shape[:-2] + (bits.shape[-2] * 8,))
    if count is not None:
        count = static_index(count, "count", "jnp.unpackbits")
        if count > bits.shape[-1]:
            bits = jnp.pad(bits, [(0, 0)] * (bits.ndim - 1) + [(0, count - bits.shape[-1])])
        else:
            bits = bits[..., :count]
    return jnp.moveaxis(bits, -1, axis)
