"""Sorting and searching for ``tjit.numpy``: sort, argsort, lexsort, partition,
argpartition, sort_complex, searchsorted and unique (with its NumPy 2 variants).

All of them are built on the multi-operand ``sort`` primitive, so they trace under
``jit``. The order is NumPy's: NaNs last, ``-0.0`` equal to ``0.0``, stable by default.
``unique`` has a data-dependent output size: it runs eagerly on concrete arrays, and
under ``jit`` it needs a static ``size=`` (as in JAX).
"""

import collections

import numpy as np

from tjit import lax
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import AxisError, ConcretizationTypeError, ShapeError, static_index
from tjit.tracing.shapes import normalize_axis, shape_str, size as shape_size
from tjit.numpy._core import check_arraylike, ensure_array, promote_dtypes
from tjit.numpy._creation import canonical_index_dtype


def _ravel(a):
    return a if a.ndim == 1 else lax.reshape(a, (shape_size(a.shape),))


def _prepare(fname, a, axis):
    """The array and the normalized axis to sort along (flattened when axis is None)."""
    a = ensure_array(fname, a)
    if axis is None:
        return _ravel(a), 0
    if a.ndim == 0:
        raise AxisError(f"{fname}: axis {axis} is out of bounds for a 0-d array; use "
                        f"axis=None to sort a scalar")
    return a, normalize_axis(axis, a.ndim, fname)


#: NumPy's sort kinds: accepted and ignored (the sort is always stable); JAX refuses every
#: kind, NumPy an unknown one, so a typo is an error either way
_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _check_order(fname, order, kind):
    if kind not in _KINDS:
        raise ValueError(f"{fname}: unknown kind={kind!r}; use stable=True/False (kind is "
                         f"accepted as NumPy's {', '.join(map(repr, _KINDS[1:]))} and "
                         f"ignored)")
    if order is not None:
        raise NotImplementedError(f"{fname}: the `order` argument (structured arrays) is not "
                                  f"supported; tjit arrays have no named fields")


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """Sorted copy of ``a`` along ``axis`` (flattened first when ``axis`` is None).

    Args:
      a: array to sort.
      axis: axis to sort along, or None to sort the flattened array.
      kind: ignored (the sort is always stable).
      order: unsupported; must be None.
      stable: accepted for NumPy compatibility.
      descending: sort from largest to smallest (NaNs first).

    Returns:
      The sorted array, same dtype as ``a``.
    """
    _check_order("sort", order, kind)
    arr, dim = _prepare("sort", a, axis)
    out = lax.sort(arr, dimension=dim, is_stable=stable)
    return lax.rev(out, (dim,)) if descending else out


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False,
            dtype=None):
    """Indices that sort ``a`` along ``axis`` (stable: ties keep their original order,
    also when ``descending``).

    Returns:
      An integer array (of ``dtype``, by default the default int) of the shape of ``a``
      (flattened if ``axis`` is None).
    """
    _check_order("argsort", order, kind)
    arr, dim = _prepare("argsort", a, axis)
    idt = canonical_index_dtype(dtype, "argsort", arr.shape[dim])
    iota = lax.broadcasted_iota(idt, arr.shape, dim)
    if descending:
        # Sorting the reversed data keeps ties in reverse order; reversing the result
        # then restores ascending index order among equal values.
        arr, iota = lax.rev(arr, (dim,)), lax.rev(iota, (dim,))
    _, idx = lax.sort_key_val(arr, iota, dimension=dim, is_stable=stable)
    return lax.rev(idx, (dim,)) if descending else idx


def lexsort(keys, axis=-1):
    """Indices that sort by several keys: the LAST key is the primary one (NumPy order).

    Args:
      keys: a sequence of same-shape arrays, or a 2-D array whose rows are the keys.
      axis: axis to sort along.
    """
    if isinstance(keys, (Array, Tracer, np.ndarray)):
        karr = ensure_array("lexsort", keys)
        if karr.ndim == 0:
            raise TypeError("lexsort: need a sequence of keys with len > 0")
        keys = [lax.index_in_dim(karr, i, 0, keepdims=False) for i in range(karr.shape[0])]
    keys = [ensure_array("lexsort", k) for k in keys]
    if not keys:
        raise TypeError("lexsort: need a sequence of keys with len > 0")
    shapes = {tuple(k.shape) for k in keys}
    if len(shapes) > 1:
        raise ValueError(f"lexsort: all keys need to be the same shape, got "
                         f"{', '.join(shape_str(k.shape) for k in keys)}")
    if keys[0].ndim == 0:  # (NumPy's, JAX's: a 1-D ``keys`` is k 0-d keys: one element)
        if static_index(axis, "axis", "lexsort") not in (0, -1):
            raise AxisError(f"lexsort: axis {axis} is out of bounds for keys of rank 0")
        return lax.full((), 0, dtypes.default_int())
    dim = normalize_axis(axis, keys[0].ndim, "lexsort")
    iota = lax.broadcasted_iota(dtypes.default_int(), keys[0].shape, dim)
    out = lax.sort([*keys[::-1], iota], dimension=dim, num_keys=len(keys))
    return out[-1]


def _kth(fname, kth, n):
    kth = static_index(kth, "kth", fname)
    if type(n) is int and not -n <= kth < n:
        raise ValueError(f"{fname}: kth(={kth}) out of bounds for an axis of size {n}")
    return kth


def partition(a, kth, axis=-1):
    """An array whose ``kth`` element along ``axis`` is where a full sort would put it,
    with no larger element before it and no smaller one after (here: fully sorted)."""
    arr, dim = _prepare("partition", a, axis)
    _kth("partition", kth, arr.shape[dim])
    return lax.sort(arr, dimension=dim)


def argpartition(a, kth, axis=-1):
    """Indices that partition ``a`` around ``kth`` (here: a stable full argsort)."""
    arr, dim = _prepare("argpartition", a, axis)
    _kth("argpartition", kth, arr.shape[dim])
    return argsort(arr, dim)


def sort_complex(a):
    """Sort along the last axis and return a complex array (NumPy's sort_complex)."""
    a = ensure_array("sort_complex", a)
    out = sort(a, axis=-1 if a.ndim else None)
    if not dtypes.is_complex(out.dtype):
        out = lax.convert_element_type(out, dtypes.default_complex())
    return out


# -- searchsorted ---------------------------------------------------------------------------
def _inverse_permutation(perm):
    """inv with inv[perm[i]] = i, computed with a sort (no scatter needed)."""
    iota = lax.iota(perm.dtype, perm.shape[0])
    return lax.sort_key_val(perm, iota)[1]


def _stable_rank(x, idx_dtype):
    """Position of each element of 1-D ``x`` in its stable sort."""
    iota = lax.iota(idx_dtype, x.shape[0])
    return _inverse_permutation(lax.sort_key_val(x, iota)[1])


def _searchsorted_sort(a, q, side, idx_dtype):
    # Rank in the stable sort of [q, a] (left) or [a, q] (right), minus the rank among
    # the queries alone, counts the a-elements before each query.
    if side == "left":
        both = _stable_rank(lax.concatenate([q, a], 0), idx_dtype)
        ranks = lax.slice_in_dim(both, 0, q.shape[0])
    else:
        both = _stable_rank(lax.concatenate([a, q], 0), idx_dtype)
        ranks = lax.slice_in_dim(both, a.shape[0], None)
    return lax.sub(ranks, _stable_rank(q, idx_dtype))


def _isnan(x):
    return lax.ne(x, x)


def _searchsorted_compare_all(a, q, side, idx_dtype):
    n, m = a.shape[0], q.shape[0]
    aa = lax.broadcast_in_dim(a, (m, n), (1,))
    qq = lax.broadcast_in_dim(q, (m, n), (0,))
    if side == "left":
        before = lax.lt(aa, qq)
        if dtypes.is_inexact(a.dtype):  # NumPy's order: NaN after every number
            before = lax.bitwise_or(before, lax.bitwise_and(_isnan(qq),
                                                            lax.bitwise_not(_isnan(aa))))
    else:
        before = lax.le(aa, qq)
        if dtypes.is_inexact(a.dtype):
            before = lax.bitwise_or(before, _isnan(qq))
    return lax.reduce_sum(lax.convert_element_type(before, idx_dtype), (1,))


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Indices where ``v`` would be inserted into sorted 1-D ``a`` to keep it sorted.

    Args:
      a: 1-D array sorted ascending (NaNs last), or any 1-D array with ``sorter``.
      v: query values (any shape).
      side: "left" (first suitable index) or "right" (last suitable index).
      sorter: optional int indices that sort ``a``.
      method: "scan", "scan_unrolled" or "sort" (sort-based, O((n+m) log(n+m))), or
        "compare_all" (compares every pair; fast for small inputs).

    Returns:
      int32 indices with the shape of ``v``.
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"searchsorted: method must be one of 'scan', 'scan_unrolled', "
                         f"'sort', 'compare_all', got {method!r}")
    # Python scalars go to promote_dtypes as they are, so one that does not fit a's integer
    # dtype raises OverflowError (as operators do) instead of wrapping: made an array
    # first, searchsorted(uint8_array, -1) searched for 255.
    check_arraylike("searchsorted", a, v)
    a, v = promote_dtypes(a, v)
    if a.ndim != 1:
        raise ShapeError(f"searchsorted: a must be 1-D, got shape {shape_str(a.shape)}")
    if sorter is not None:
        sorter = ensure_array("searchsorted", sorter)
        if tuple(sorter.shape) != tuple(a.shape) or not dtypes.is_int(sorter.dtype):
            raise ShapeError(f"searchsorted: sorter must be integer indices of the shape of a "
                             f"{shape_str(a.shape)}, got {sorter.aval.str_short()}")
        # a[sorter] without a gather: move each a[j] to position inv[j].
        a = lax.sort_key_val(_inverse_permutation(sorter), a)[1]
    q = _ravel(v) if v.ndim != 1 else v
    if method == "compare_all" and not dtypes.is_complex(a.dtype):
        out = _searchsorted_compare_all(a, q, side, dtypes.int32)
    else:
        out = _searchsorted_sort(a, q, side, dtypes.int32)
    return out if tuple(v.shape) == tuple(out.shape) else lax.reshape(out, v.shape)


# -- unique ---------------------------------------------------------------------------------
_UNIQUE_SIZE_HINT = (
    "Fix: pass a static size, e.g. jnp.unique(x, size=n, fill_value=...): the first n "
    "sorted unique values are returned, padded with fill_value (default: the smallest "
    "unique value). Under jit, mark size static (static_argnames=['size']) or use a "
    "Python int.")


def _moveaxis(x, src, dst):
    if src == dst:
        return x
    perm = [i for i in range(x.ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, perm)


def _key_columns(arr, axis):
    """The slices of ``arr`` along ``axis`` as rows; returns (one 1-D key per column of
    the rows, shape of one slice)."""
    aux = _moveaxis(arr, axis, 0)
    n, rest = aux.shape[0], tuple(aux.shape[1:])
    m = shape_size(rest)
    if type(m) is not int:
        raise ShapeError(f"unique: slices along axis {axis} of an array of shape "
                         f"{shape_str(arr.shape)} have a symbolic size; use concrete shapes")
    if m == 0:  # empty slices are all equal: one constant key
        return [lax.full((n,), 0, arr.dtype)], rest
    if m == 1:
        return [lax.reshape(aux, (n,))], rest
    rows = lax.reshape(aux, (n, m))
    return [lax.index_in_dim(rows, j, 1, keepdims=False) for j in range(m)], rest


def _neq(x, y, equal_nan):
    out = lax.ne(x, y)
    if equal_nan and dtypes.is_inexact(x.dtype):
        both_nan = lax.bitwise_and(_isnan(x), _isnan(y))
        out = lax.bitwise_and(out, lax.bitwise_not(both_nan))
    return out


def _group_starts(sorted_cols, n, equal_nan):
    """Bool mask over the sorted rows: True where a new unique row begins."""
    if n == 0:
        return lax.full((0,), False, dtypes.bool_)
    diff = None
    for k in sorted_cols:
        d = _neq(lax.slice_in_dim(k, 1, None), lax.slice_in_dim(k, 0, -1), equal_nan)
        diff = d if diff is None else lax.bitwise_or(diff, d)
    return lax.concatenate([lax.full((1,), True, dtypes.bool_), diff], 0)


def _take_first(x, size, fill):
    """The first ``size`` entries of 1-D ``x`` (padded with ``fill`` past its end)."""
    n = x.shape[0]
    if size <= n:
        return lax.slice_in_dim(x, 0, size)
    return lax.pad(x, lax.convert_element_type(fill, x.dtype), ((0, size - n, 0),))


def _valid_or(x, valid, fill):
    """``x`` where ``valid`` else ``fill`` (a 0-d array or scalar)."""
    fill = lax.broadcast(lax.convert_element_type(fill, x.dtype), x.shape)
    return lax.select(valid, x, fill)


class _Groups:
    """Sorted rows of the input and where its unique rows start; ``size`` output rows."""

    def __init__(self, arr, axis, size, equal_nan):
        cols, self.rest = _key_columns(arr, axis)
        self.n = n = cols[0].shape[0]
        self.idt = idt = dtypes.default_int()
        iota = lax.iota(idt, n)
        *scols, self.perm = lax.sort([*cols, iota], num_keys=len(cols))
        self.mask = _group_starts(scols, n, equal_nan)
        self.num_unique = lax.reduce_sum(lax.convert_element_type(self.mask, idt), (0,))
        # unique() checked that the input is concrete when size is None.
        self.size = int(self.num_unique) if size is None else size
        # A stable sort keyed on "not a group start" brings the group starts to the
        # front in sorted order, each with the first original index of its group.
        _, self.starts, self.first_idx, *self.ucols = lax.sort(
            [lax.bitwise_not(self.mask), iota, self.perm, *scols], num_keys=1)
        self.valid = lax.lt(lax.iota(idt, self.size), self.num_unique)

    def values(self, arr, axis, fill_value):
        size = self.size
        if fill_value is None and size and not self.n:
            raise ValueError("unique: for an empty input with a nonzero size, fill_value "
                             "must be given")
        if not shape_size(self.rest):
            out = lax.full((size, *self.rest), 0, arr.dtype)
            return _moveaxis(out, 0, axis)
        fill_value = None if fill_value is None else ensure_array("unique", fill_value)
        if fill_value is not None and fill_value.ndim:
            return _moveaxis(self._padded_by(self.values(arr, 0, 0), fill_value), 0, axis)
        cols = []
        for c in self.ucols:
            fill = fill_value if fill_value is not None or not size else \
                lax.index_in_dim(c, 0, keepdims=False)  # the smallest unique value
            cols.append(_valid_or(_take_first(c, size, 0), self.valid, 0 if fill is None
                                  else fill))
        if len(cols) == 1 and not self.rest:
            return cols[0]
        rows = lax.concatenate([lax.reshape(c, (size, 1)) for c in cols], 1)
        return _moveaxis(lax.reshape(rows, (size, *self.rest)), 0, axis)

    def _padded_by(self, out, fill):
        """``out`` (unique values first, shape ``(size, *rest)``) with the rows past the
        unique ones taken from ``fill`` broadcast against it (JAX's rule: one slice, or a
        value per output row)."""
        shape = tuple(out.shape)
        fits = fill.ndim <= len(shape) and all(
            d in (1, r) for d, r in zip(fill.shape, shape[len(shape) - fill.ndim:]))
        if not fits:
            raise ValueError(f"unique: fill_value of shape {shape_str(fill.shape)} does not "
                             f"broadcast against the padded result of shape "
                             f"{shape_str(shape)} (unique axis first); pass a scalar or "
                             f"one slice")
        fill = lax.broadcast_in_dim(lax.convert_element_type(fill, out.dtype), shape,
                                    tuple(range(len(shape) - fill.ndim, len(shape))))
        valid = lax.broadcast_in_dim(self.valid, shape, (0,))
        return lax.select(valid, out, fill)

    def index(self):
        first = 0 if not self.n else lax.index_in_dim(self.first_idx, 0, keepdims=False)
        return _valid_or(_take_first(self.first_idx, self.size, 0), self.valid, first)

    def inverse(self):
        group = lax.sub(lax.cumsum(lax.convert_element_type(self.mask, self.idt)), 1) \
            if self.n else lax.full((0,), 0, self.idt)
        return lax.sort_key_val(self.perm, group)[1]  # back to the original order

    def counts(self):
        size = self.size
        pos = _take_first(self.starts, size + 1, self.n)
        ends = _valid_or(pos, lax.lt(lax.iota(self.idt, size + 1), self.num_unique), self.n)
        return lax.sub(lax.slice_in_dim(ends, 1, None), lax.slice_in_dim(ends, 0, size))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002
    """Sorted unique values of ``ar`` (of its slices along ``axis`` if given).

    Args:
      ar: input array (flattened when ``axis`` is None).
      return_index: also return the first index of each unique value.
      return_inverse: also return, for every input element (slice), the index of its
        unique value (shape of ``ar`` when ``axis`` is None).
      return_counts: also return how often each unique value occurs.
      axis: axis along which to find unique slices, or None.
      equal_nan: treat all NaNs as one value.
      size: static output length; required under ``jit``. Extra entries are padded with
        ``fill_value`` (values; default the smallest unique value), the smallest value's
        first index (indices) and 0 (counts).
      fill_value: padding value for ``size``.
      sorted: ignored (results are always sorted).

    Returns:
      The unique values, or a tuple (values, [index], [inverse], [counts]).
    """
    arr = ensure_array("unique", ar)
    if size is None and isinstance(arr, Tracer):
        raise arr._concretization_error(
            ConcretizationTypeError, "jnp.unique() without a size argument",
            "The number of unique values depends on the data, but a traced array must "
            "have a static shape. " + _UNIQUE_SIZE_HINT)
    if size is not None:
        size = static_index(size, "size", "unique")
        if size < 0:
            raise ValueError(f"unique: size must be >= 0, got {size}")
    in_shape, flat = arr.shape, axis is None
    if flat:
        arr, axis = _ravel(arr), 0
    else:
        if arr.ndim == 0:
            raise AxisError(f"unique: axis {axis} is out of bounds for a 0-d array")
        axis = normalize_axis(axis, arr.ndim, "unique")
    g = _Groups(arr, axis, size, equal_nan)
    values = g.values(arr, axis, fill_value)
    if getattr(arr, "weak_type", False):  # values are the input's, so is its weak type (JAX)
        values = lax.convert_element_type(values, values.dtype, weak_type=True)
    out = [values]
    if return_index:
        out.append(g.index())
    if return_inverse:
        inv = g.inverse()
        out.append(lax.reshape(inv, in_shape) if flat else inv)  # NumPy 2: input's shape
    if return_counts:
        out.append(g.counts())
    return out[0] if len(out) == 1 else tuple(out)


def unique_values(x, *, size=None, fill_value=None):
    """The sorted unique values of ``x`` (NumPy 2's unique_values); NaNs are kept
    separately (equal_nan=False), as in the other unique_* functions."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


# The Array API's (and NumPy 2's, JAX's) named results of the unique_* functions.
UniqueAllResult = collections.namedtuple(
    "UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult",
                                             ["values", "inverse_indices"])


def unique_counts(x, *, size=None, fill_value=None):
    """``UniqueCountsResult(values, counts)`` of ``x``; NaNs are counted separately
    (equal_nan=False)."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_inverse(x, *, size=None, fill_value=None):
    """``UniqueInverseResult(values, inverse_indices)`` of ``x``; the inverse has the shape
    of ``x``."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_all(x, *, size=None, fill_value=None):
    """``UniqueAllResult(values, indices, inverse_indices, counts)`` of ``x``
    (equal_nan=False)."""
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                   return_counts=True, equal_nan=False, size=size,
                                   fill_value=fill_value))


__all__ = ["sort", "argsort", "lexsort", "partition", "argpartition", "sort_complex",
           "searchsorted", "unique", "unique_values", "unique_counts", "unique_inverse",
           "unique_all"]
