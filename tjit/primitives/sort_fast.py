"""Fast NumPy paths for ``sort`` with one key, giving the bits of the stable sort.

The general impl (``reductions._sort_impl``) runs one stable argsort per key: NumPy's
stable sort is a merge sort, 20-50x slower than its default sort (SIMD on x86), which
NumPy may use wherever its instability cannot show:

* one operand, no payload: equal values are indistinguishable except -0.0 beside 0.0
  and NaNs (their signs and payloads), so without those the unstable sort is exact;
* a key of at most 32 bits (with payloads, e.g. argsort's iota): the key mapped to an
  order-preserving uint32 (-0.0 as 0.0, every NaN last, as the stable path orders them)
  and packed above the element's index in a uint64 is unique per row, so any sort of the
  packed values yields the stable order, and its low half is the permutation.

An operand of at most ``STABLE_MAX`` elements is sorted stably outright (the checks
cost more than the sort). ``None`` where none applies (the caller takes the general path).
"""

import numpy as np

_SMALL_INTS = (np.int8, np.int16, np.uint8, np.uint16, np.bool_)

#: dtypes NumPy's own sort orders (ml_dtypes' bfloat16/float8 sort stops at a NaN)
_NUMPY_ORDERED = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64))

#: operands of at most this many elements are sorted stably outright
STABLE_MAX = 256


def sort_one_key(xp, operands, dimension):
    """The sorted ``operands`` (``operands[0]`` the key) or None."""
    if xp is not np:
        return None
    key = operands[0]
    if len(operands) == 1 and key.size <= STABLE_MAX and key.dtype in _NUMPY_ORDERED:
        # few elements: the stable sort itself costs less than checking for NaNs and
        # -0.0 (NumPy's stable order is the general path's: NaNs last, ties kept)
        return [np.sort(key, axis=dimension, kind="stable")]
    if len(operands) == 1 and _unstable_sort_is_exact(key):
        return [np.sort(key, axis=dimension)]
    order_key = _uint32_order_key(key)
    if order_key is None or key.shape[dimension] >= 2 ** 32:
        return None
    index = np.arange(key.shape[dimension], dtype=np.uint64)
    index = index.reshape((-1,) + (1,) * (key.ndim - 1 - dimension))
    packed = np.sort((order_key.astype(np.uint64) << np.uint64(32)) | index, axis=dimension)
    perm = (packed & np.uint64(0xFFFFFFFF)).astype(np.intp)
    return [np.take_along_axis(o, perm, axis=dimension) for o in operands]


def _unstable_sort_is_exact(x):
    if x.dtype.kind in "biu":
        return True
    if x.dtype not in (np.float16, np.float32, np.float64):
        return False
    # no NaNs and no -0.0 (a -0.0 is a zero with its sign bit set)
    return not (np.isnan(x).any() or np.signbit(x[x == 0]).any())


def _uint32_order_key(x):
    """uint32 values ordered as the stable path orders ``x`` (None beyond 32 bits)."""
    if x.dtype in _SMALL_INTS:
        x = x.astype(np.int32)
    if x.dtype == np.uint32:
        return x
    if x.dtype == np.int32:
        return x.view(np.uint32) ^ np.uint32(0x80000000)
    if x.dtype not in (np.float16, np.float32):
        return None
    f = x.astype(np.float32) + np.float32(0.0)     # (-0.0 + 0.0 is 0.0; float16 exact)
    bits = f.view(np.int32)
    # negative floats' bits count down as the value does: flip their magnitude bits
    bits = bits ^ ((bits >> 31) & np.int32(0x7FFFFFFF))
    bits = np.where(np.isnan(f), np.int32(0x7FFFFFFF), bits)   # every NaN last, tied
    return bits.view(np.uint32) ^ np.uint32(0x80000000)
