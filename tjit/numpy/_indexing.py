"""NumPy-style indexing of tjit arrays: ``x[idx]`` (:func:`_rewriting_take`) and
functional updates ``x.at[idx].set(y)`` (:class:`_IndexUpdateHelper`). The indexing
routines of ``tjit.numpy`` (take, take_along_axis, nonzero, ...) live in
``_index_routines.py`` and reuse the helpers here.

Index expressions follow NumPy: ints (negative ones count from the end), slices with any
step, ``None``, ``...``, integer arrays and lists (broadcast together; when they are
separated by a slice, ``None`` or ``...`` their dims go first), boolean masks and scalar
bools. Out-of-bounds behaviour follows JAX:

* ``x[i]`` out of bounds is clamped into range (JAX's default gather, in JAX's "sharp
  bits": ``jnp.arange(10)[11]`` is 9) whether ``i`` is a static int, a tjit array or an
  index array, eager or under ``jit``; only a dim of size 0 raises IndexError (no element
  to clamp to). ``x.at[idx].get(mode='fill', fill_value=v)`` gives ``v`` instead.
* ``x.at[idx].set/add/...`` drop out-of-bounds updates (``mode='clip'`` clamps).
* Boolean masks need concrete values (the count of True entries is the result's shape):
  under ``jit`` they raise :class:`NonConcreteBooleanIndexError`.

Basic indexing (static ints, slices, ``None``, ``...``) lowers to ``lax.rev``/``slice``/
``squeeze``/``expand_dims``; everything else becomes one gather (or one scatter).
"""

import operator
from typing import NamedTuple

import numpy as np

from tjit._sympy import is_expr, sympy
from tjit import lax
from tjit.lax._structural import dim_value
from tjit.config import config
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer, is_eager
from tjit.tracing.errors import (
    InconclusiveDimensionError, NonConcreteBooleanIndexError, ShapeError)
from tjit.tracing.traceback_util import eager_boundary
from tjit.tracing.traceback_util import filter_at_entry as _filter_at_entry
from tjit.tracing.shapes import (
    broadcast_shapes, dim_str, dims_equal, greater_equal, max_dim, min_dim, shape_str)
from tjit.primitives.elementwise import _quiet
from tjit.primitives.indexing import GatherDimensionNumbers, ScatterDimensionNumbers
from tjit.numpy._core import asarray, broadcast_to_shape, ensure_array, result_type_of
from tjit.numpy._eager_gather import eager_getitem, eager_scatter
from tjit.numpy._ufuncs import divide, power

_I32 = np.iinfo(np.int32)


# -- small helpers -------------------------------------------------------------------------
def _simplify(d):
    if is_expr(d):
        d = sympy.expand(d)
        return int(d) if d.is_Integer else d
    return d


def _index_dtype(shape, arrays=()):
    big = any(type(d) is int and d > _I32.max for d in shape) or any(
        isinstance(a, Tracer) and a.dtype.itemsize == 8 for a in arrays)
    return dtypes.int64 if config.enable_x64 and big else dtypes.int32


def _as_index_array(v, idt):
    """A component of gather indices (int, NumPy array, Array or tracer) as ``idt``."""
    info = np.iinfo(idt)
    if isinstance(v, int):
        return Array(np.asarray(min(max(v, info.min), info.max), idt), False)
    if isinstance(v, np.ndarray):
        if v.size and (v.dtype.itemsize > idt.itemsize or v.dtype == np.uint32):
            v = np.clip(v, info.min, info.max)  # out-of-range values stay out of bounds
        return Array(v.astype(idt), False)
    return saturating_int_cast(v, idt)


def saturating_int_cast(v, idt):
    """An integer array (Array or traced) as the signed ``idt``, values outside its range
    clamped to its bounds: a plain cast would wrap (uint32 2**32 - 1 read as -1, the last
    element, or clipped to the first), a clamp keeps out-of-range indices out of range."""
    src, info = np.dtype(v.dtype), np.iinfo(idt)
    if src != idt and (src.kind == "u" and src.itemsize >= idt.itemsize
                       or src.itemsize > idt.itemsize):
        lo = max(info.min, np.iinfo(src).min)
        v = lax.clamp(np.asarray(lo, src), v, np.asarray(info.max, src))
    return lax.convert_element_type(v, idt)


def _is_bool_array(e):
    return isinstance(e, (np.ndarray, Tracer)) and e.dtype == np.bool_


def _bool_error(mask, shape):
    return NonConcreteBooleanIndexError(
        f"Array boolean indices must be concrete: got a traced mask "
        f"{mask.aval.str_short()} indexing an array of shape {shape_str(shape)}. The shape "
        f"of the result would depend on the mask's values, which are unknown under "
        f"jit/tracing. Fix: keep the shape with jnp.where(mask, x, 0) (or "
        f"jnp.where(mask, new_values, x) instead of x.at[mask].set(...)), or use a static "
        f"size: jnp.nonzero(mask, size=N, fill_value=...) / jnp.compress(mask, x, size=N).")


# -- parsing an index expression -----------------------------------------------------------
def _static_bound(b, pos):
    if b is None:
        return None
    if isinstance(b, Tracer):
        raise IndexError(
            f"Array slice indices must have static start/stop/step to be used with NumPy "
            f"indexing syntax; got a traced {b.aval.str_short()} in the slice at position "
            f"{pos}. To index a statically sized window at a dynamic position, use "
            f"lax.dynamic_slice / lax.dynamic_slice_in_dim (tjit arrays have static shapes "
            f"under jit).")
    if is_expr(b) and b.free_symbols:
        return b    # (a size expression: x[: x.shape[0] // 2]; see _sym_bound)
    try:
        return operator.index(b)
    except TypeError:
        raise TypeError(f"slice indices must be integers or None, got {b!r} at position "
                        f"{pos}") from None


def _entry(e, pos):
    """One index entry as None, Ellipsis, slice, int, or an int/bool array (NumPy array
    for concrete values, tracer otherwise)."""
    if e is None or e is Ellipsis:
        return e
    if isinstance(e, slice):
        s = slice(*(_static_bound(b, pos) for b in (e.start, e.stop, e.step)))
        if is_expr(s.step):
            raise TypeError(f"slice step must be an integer or None, got the size "
                            f"expression {s.step} at position {pos}")
        if s.step == 0:
            raise ValueError("slice step cannot be zero")
        return s
    if isinstance(e, (bool, np.bool_)):
        return np.asarray(bool(e))
    if isinstance(e, (int, np.integer)):
        return int(e)
    if isinstance(e, (list, tuple)):
        if any(x is None or x is Ellipsis or isinstance(x, slice) for x in e):
            raise TypeError(f"Using a non-tuple sequence for multidimensional indexing is not "
                            f"allowed; use arr[tuple(seq)] instead of arr[seq] (position {pos})")
        arr = asarray(e) if len(e) else np.zeros((0,), np.int32)
    elif isinstance(e, (Array, Tracer, np.ndarray, np.generic)):
        arr = e
    else:
        raise TypeError(f"Indexer must be an int, slice, None, Ellipsis or an integer/boolean "
                        f"array; got {e!r:.60} of type {type(e).__name__} at position {pos}")
    if not (dtypes.is_int(arr.dtype) or dtypes.is_bool(arr.dtype)):
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{arr.dtype} at position {pos}; convert with .astype(jnp.int32)")
    if isinstance(arr, Tracer):
        return arr
    if isinstance(arr, Array):
        arr = arr._value
    arr = np.asarray(arr)
    return int(arr) if arr.ndim == 0 and arr.dtype != np.bool_ else arr


def _expand(shape, idx):
    """Parse ``idx`` for an array of ``shape``: expand ``...``, masks and scalar bools.

    Returns:
      (entries, inserted, contiguous): entries cover every dim of the operand with the
      size-1 dims ``inserted`` for scalar bools; ``contiguous`` says whether the
      advanced indices were adjacent in ``idx`` (NumPy then keeps their dims in place).
    """
    idx = idx if isinstance(idx, tuple) else (idx,)
    entries = [_entry(e, i) for i, e in enumerate(idx)]
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    adv = [i for i, e in enumerate(entries) if not (e is None or e is Ellipsis or
                                                   isinstance(e, slice))]
    contiguous = all(b - a == 1 for a, b in zip(adv, adv[1:]))
    used = sum(0 if e is None or e is Ellipsis else e.ndim if _is_bool_array(e) else 1
               for e in entries)
    if used > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {used} were indexed")
    fill = [slice(None)] * (len(shape) - used)
    out, inserted, axis = [], [], 0  # axis counts operand dims, inserted ones included
    has_ellipsis = any(e is Ellipsis for e in entries)
    for e in entries + ([] if has_ellipsis else [Ellipsis]):
        if e is Ellipsis:
            out += fill
            axis += len(fill)
        elif _is_bool_array(e):
            if isinstance(e, Tracer):
                raise _bool_error(e, shape)
            if e.ndim == 0:  # a scalar bool indexes a new size-1 dim with [0] or []
                inserted.append(axis)
                out.append(np.arange(int(e)))
                axis += 1
                continue
            first = axis - len(inserted)
            for k, (m, n) in enumerate(zip(e.shape, shape[first:first + e.ndim])):
                if m != 0 and not dims_equal(m, n):  # size 0 fits any dim (NumPy, JAX)
                    raise IndexError(f"boolean index did not match indexed array along axis "
                                     f"{first + k}; size of axis is {dim_str(n)} but size of "
                                     f"corresponding boolean axis is {m}")
            out += list(np.nonzero(e))
            axis += e.ndim
        else:
            out.append(e)
            axis += e is not None
    return out, tuple(inserted), contiguous


# -- slices -------------------------------------------------------------------------------------
def _sym_bound(b, n, default, s):
    """Slice bound ``b`` (an int or a size expression, ``x[: n // 2]``) as a position in
    [0, n], as NumPy clamps it; a question sympy cannot decide (is ``n >= 5``?) is a
    guard under automatic dynamic shapes (the program serves the sizes that answer the
    same), and raises for declared polymorphic dims."""
    if b is None:
        return default
    try:
        if b >= 0 if type(b) is int else greater_equal(b, 0):
            return min_dim(n, b)    # (where no answer fits every size: JAX's min(b, 5))
        return max_dim(_simplify(n + b), 0)
    except InconclusiveDimensionError:
        need = dim_str(b if type(b) is not int or b >= 0 else -b)
        raise InconclusiveDimensionError(
            f"indexing: cannot slice {s} along the symbolic dim {dim_str(n)}: tjit cannot "
            f"tell whether {dim_str(n)} >= {need}. Use bounds that fit every size (e.g. "
            f"x[1:] or x[:-1]), or concrete shapes.") from None


def _ceil_div(a, b):
    return -(-a // b) if type(a) is int else _simplify(sympy.ceiling(a / b))


def _slice_params(s, n):
    """``(start, step, size)`` of slice ``s`` on a dim of size ``n`` (int or symbolic;
    bounds ints or size expressions)."""
    return _slice_window(s, n)[:3]


def _slice_window(s, n):
    """``(start, step, size, end)`` of slice ``s`` on a dim of size ``n``: ``end`` is
    where a stride-``|step|`` lax.slice of the (for a negative step, reversed) dim stops,
    for symbolic sizes (``start + length``: at a size where the slice is empty, the last
    taken index ``start + (size-1)*step`` is before ``start``); None for concrete ones."""
    step = 1 if s.step is None else s.step
    if type(n) is int and not any(is_expr(b) for b in (s.start, s.stop)):
        start, stop, step = s.indices(n)
        return start, step, len(range(start, stop, step)), None
    if step > 0:
        start = _sym_bound(s.start, n, 0, s)
        stop = _sym_bound(s.stop, n, n, s)
        length = _simplify(stop - start)
        try:
            empty = length < 0 if type(length) is int else \
                not greater_equal(length, 0)
        except InconclusiveDimensionError:   # (empty at some sizes: JAX's max(0, ...))
            length, empty = _simplify(max_dim(stop, start) - start), False
        if empty:
            return 0, step, 0, None
        size = length if step == 1 else _ceil_div(length, step)
        return start, step, size, _simplify(start + length)
    if s.start is None and s.stop is None:   # (reversed, it is [0, n) by -step)
        return _simplify(n - 1), step, n if step == -1 else _ceil_div(n, -step), n
    # the same elements, counted from the end: bound k (clamped to [-1, n-1]) is
    # n-1-k of the reversed dim, which a positive slice writes -1-k (clamped to [0, n])
    def flipped(k):
        return None if k is None else _simplify(-1 - k)
    start, _, size, end = _slice_window(slice(flipped(s.start), flipped(s.stop), -step), n)
    return _simplify(n - 1 - start), step, size, end


def _static_int(i, n, axis):
    """A static int index normalized to [0, n): negative ones count from the end, and
    out-of-bounds ones are clamped into range as JAX's gather clamps (``x[11]`` of 10
    elements is ``x[9]``, ``x[-11]`` is ``x[0]``); IndexError on a dim of size 0."""
    try:
        if type(n) is int:
            if n == 0:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size 0")
            return min(max(i + n if i < 0 else i, 0), n - 1)
        if i >= 0:
            return i if greater_equal(n, i + 1) else _simplify(n - 1)
        return _simplify(n + i) if greater_equal(n, -i) else 0
    except InconclusiveDimensionError:
        raise InconclusiveDimensionError(f"indexing: cannot tell whether index {i} is in "
                                         f"bounds for the symbolic dim {dim_str(n)}") from None


def _static_ints_in_range(shape, entries):
    """Whether each static int index is within its (concrete) dim. An out-of-range one
    takes the gather path, which clamps the same way but is a gather that
    ``checkify``'s index checks see (as JAX's dynamic_slice is)."""
    axis = 0
    for e in entries:
        if e is None:
            continue
        if isinstance(e, int):
            n = shape[axis]
            if type(n) is int and n and not -n <= e < n:
                return False
        axis += 1
    return True


def _static_take(x, entries):
    """Basic indexing (ints, slices, None) as rev + slice + squeeze + expand_dims."""
    starts, limits, strides, rev, squeeze, newaxis = [], [], [], [], [], []
    axis = out = 0
    for e in entries:
        if e is None:
            newaxis.append(out)
            out += 1
            continue
        n = x.shape[axis]
        if isinstance(e, slice):
            start, step, size, end = _slice_window(e, n)
            if step < 0:  # slice the reversed dim instead
                rev.append(axis)
                start, step = _simplify(n - 1 - start), -step
            starts.append(start)
            strides.append(step)
            limits.append(end if end is not None else start if size == 0 else
                          _simplify(start + (size - 1) * step + 1))
            out += 1
        else:
            i = _static_int(e, n, axis)
            starts.append(i)
            limits.append(_simplify(i + 1))
            strides.append(1)
            squeeze.append(axis)
        axis += 1
    y = lax.rev(x, rev) if rev else x
    y = lax.slice(y, starts, limits, strides)
    y = lax.squeeze(y, squeeze) if squeeze else y
    return lax.expand_dims(y, newaxis) if newaxis else y


# -- general indexing: one gather --------------------------------------------------------------
class _Indexer(NamedTuple):
    indices: object          # int array of shape batch + (k,)
    dnums: GatherDimensionNumbers
    slice_sizes: tuple
    gather_shape: tuple      # gather output shape (no newaxis dims)
    out_shape: tuple         # shape of x[idx]
    newaxis_dims: tuple
    advanced: bool


def _normalize(v, n, idt):
    """Wrap negative indices ``v`` (int, NumPy array or traced) by the dim ``n``."""
    if isinstance(v, int):
        if v >= 0:
            return v
        return v + n if type(n) is int else lax.add(dim_value(n, idt),
                                                    Array(np.asarray(v, idt), False))
    if isinstance(v, np.ndarray) and type(n) is int:
        v = v.astype(np.int64)
        return np.where(v < 0, v + n, v)
    if dtypes.is_unsigned(v.dtype):
        return _as_index_array(v, idt)
    v = _as_index_array(v, idt)
    return lax.select(lax.lt(v, lax.full((), 0, idt)), lax.add(v, dim_value(n, idt)), v)


def _range_indices(start, step, size, idt):
    if type(start) is int and type(size) is int:
        return np.arange(size, dtype=np.int64) * step + start
    base = start if type(start) is int else dim_value(start, idt)
    return lax.add(lax.mul(lax.iota(idt, size), lax.full((), step, idt)),
                   lax.convert_element_type(base, idt))


def _assemble(comps, batch_shape, idt):
    """Broadcast each component over its batch dims and stack them on a last dim."""
    rank = len(batch_shape)
    if all(isinstance(v, (int, np.ndarray)) for v, _ in comps):
        out = np.zeros(tuple(batch_shape) + (len(comps),), idt)
        for j, (v, dims) in enumerate(comps):
            v = np.asarray(v)
            shape = [1] * rank
            for p, s in zip(dims, v.shape):
                shape[p] = s
            out[..., j] = np.broadcast_to(_as_index_array(v, idt)._value.reshape(shape),
                                          batch_shape)
        return Array(out, False)
    parts = [lax.expand_dims(lax.broadcast_in_dim(_as_index_array(v, idt), tuple(batch_shape),
                                                  dims), (rank,)) for v, dims in comps]
    return lax.concatenate(parts, rank)


def _shape(v):
    return tuple(np.shape(v)) if isinstance(v, (int, np.ndarray)) else tuple(v.shape)


def _broadcast_index_shapes(shapes):
    try:
        return broadcast_shapes(*shapes, op="indexing")
    except ShapeError:  # NumPy's error type and words
        raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together "
                         f"with shapes {' '.join(shape_str(s) for s in shapes)}") from None


class _Parts:
    """The pieces of the gather that :func:`_index_to_gather` collects, dim by dim."""

    def __init__(self, idt):
        self.idt, self.gy = idt, 0  # gy: the next dim of the gather output
        self.comps, self.batch, self.offset, self.collapsed = [], [], [], []
        self.index_map, self.sizes, self.out, self.newaxis = [], [], [], []

    def indexed(self, comp, dims, ax):
        """Operand dim ``ax`` collapsed and indexed by ``comp`` over batch ``dims``."""
        self.comps.append((comp, dims))
        self.index_map.append(ax)
        self.collapsed.append(ax)

    def advanced(self, arrays, axes, shape):
        ashape = _broadcast_index_shapes([_shape(v) for v in arrays])
        end = len(self.batch) + len(ashape)
        for v, ax in zip(arrays, axes):
            self.indexed(_normalize(v, shape[ax], self.idt),
                         tuple(range(end - len(_shape(v)), end)), ax)
        self.batch += ashape
        self.out += ashape
        self.gy += len(ashape)

    def slice(self, s, n, ax):
        start, step, size = _slice_params(s, n)
        if step == 1:  # a window: an offset dim of the gather
            if not (start == 0 and dims_equal(size, n)):
                self.comps.append((start if type(start) is int else
                                   dim_value(start, self.idt), ()))
                self.index_map.append(ax)
            self.sizes.append(size)
            self.offset.append(self.gy)
        else:  # strided: an index range, i.e. a batch dim
            self.indexed(_range_indices(start, step, size, self.idt), (len(self.batch),), ax)
            self.batch.append(size)
            self.sizes.append(1)
        self.out.append(size)
        self.gy += 1


def _index_to_gather(shape, entries, contiguous):
    """The gather that computes ``x[entries]`` for ``x`` of ``shape``."""
    advanced = any(not isinstance(e, (int, slice)) and e is not None and e.ndim > 0
                   for e in entries)
    x_axes = [int(a) for a in np.cumsum([0] + [e is not None for e in entries])[:-1]]
    adv = [p for p, e in enumerate(entries) if advanced and e is not None and
           not isinstance(e, slice)]
    parts = _Parts(_index_dtype(shape, entries))
    for pos, e in enumerate(entries):
        if adv and pos == (adv[0] if contiguous else 0):  # NumPy's place for the adv dims
            parts.advanced([entries[p] for p in adv], [x_axes[p] for p in adv], shape)
        if pos in adv:
            parts.sizes.append(1)
        elif e is None:
            parts.newaxis.append(len(parts.out))
            parts.out.append(1)
        elif isinstance(e, slice):
            parts.slice(e, shape[x_axes[pos]], x_axes[pos])
        else:  # an int (static or traced 0-d) index
            ax, n = x_axes[pos], shape[x_axes[pos]]
            if type(n) is int and n == 0:  # no element to clamp to or update (NumPy, JAX)
                raise IndexError(f"index is out of bounds for axis {ax} with size 0")
            parts.indexed(_normalize(e, n, parts.idt), (), ax)
            parts.sizes.append(1)
    dn = GatherDimensionNumbers(tuple(parts.offset), tuple(sorted(parts.collapsed)),
                                tuple(parts.index_map))
    gather_shape = tuple(d for i, d in enumerate(parts.out) if i not in parts.newaxis)
    return _Indexer(_assemble(parts.comps, parts.batch, parts.idt), dn, tuple(parts.sizes),
                    gather_shape, tuple(parts.out), tuple(parts.newaxis), advanced)


def _prepare(x, parsed):
    entries, inserted, contiguous = parsed
    if inserted:
        x = lax.expand_dims(x, inserted)
    return x, _index_to_gather(x.shape, entries, contiguous)


def _is_empty(shape):
    return any(type(d) is int and d == 0 for d in shape)


# -- eager fast lane ----------------------------------------------------------------------------
def _is_basic(idx):
    """Whether ``idx`` is a basic index NumPy applies exactly as tjit does: Python ints,
    slices with int/None bounds, None and one Ellipsis (bools, arrays, NumPy ints and
    anything else take the general path)."""
    t = type(idx)
    if t is int or idx is None or idx is Ellipsis:
        return True
    if t is slice:
        return _plain_slice(idx)
    if t is not tuple:
        return False
    for e in idx:
        te = type(e)
        if not (te is int or e is None or e is Ellipsis or te is slice and _plain_slice(e)):
            return False
    return True


def _plain_slice(s):
    return (s.step != 0 and all(b is None or type(b) is int
                                for b in (s.start, s.stop, s.step)))


def _eager_numpy(x, idx):
    """``x``'s NumPy value when ``x[idx]`` can run on it directly: a NumPy-backed Array
    outside any transformation with a basic ``idx``; else None."""
    if type(x) is not Array or type(x._value) is not np.ndarray:
        return None
    if not (_is_basic(idx) and is_eager()):
        return None
    return x._value


def _eager_take(arr, idx):
    """``arr[idx]`` by NumPy's basic indexing (the values the slice/squeeze primitives
    give, with none of their tracing), or None when the general path must run: a
    non-basic index, or one NumPy rejects (the general path then raises tjit's error)."""
    v = _eager_numpy(arr, idx)
    if v is None:
        return None
    try:
        out = v[idx]
    except (IndexError, ValueError, TypeError):
        return None
    return Array(out if type(out) is np.ndarray else np.asarray(out), arr._weak)


#: x.at[idx].<name> -> the in-place NumPy update of the eager fast lane
_EAGER_UPDATES = {"set": None, "add": np.add, "subtract": np.subtract,
                  "multiply": np.multiply}


def _eager_scalar_fits(y, dt):
    """Whether Python scalar ``y`` converts to ``dt`` as ``asarray`` + ``astype`` would,
    with no overflow check or complex drop to reproduce."""
    t = type(y)
    if t is float:
        return dt.kind in "fc"
    if t is int:
        if dt.kind in "fc":
            return -2**31 <= y < 2**31
        return dt.kind in "iu" and np.iinfo(dt).min <= y <= np.iinfo(dt).max
    return t is bool


def _eager_update(x, idx, values, name, kw):
    """``x.at[idx].<name>(values)`` on a copy of ``x``'s NumPy value, or None when the
    general scatter path must run (an out-of-bounds basic index, an advanced one other
    than one integer array, values that need promotion or do not broadcast, bool
    arithmetic, keyword options)."""
    if kw or name not in _EAGER_UPDATES:
        return None
    basic = _is_basic(idx)
    if type(x) is not Array or type(x._value) is not np.ndarray or not is_eager():
        return None
    v = x._value
    if type(values) is Array:
        y = values._value
        if type(y) is not np.ndarray or y.dtype != v.dtype:
            return None
    elif _eager_scalar_fits(values, v.dtype):
        y = values
    else:
        return None
    ufunc = _EAGER_UPDATES[name]
    if ufunc is not None and v.dtype == np.bool_:
        return None
    if not basic:  # index arrays: NumPy's scatter with JAX's index rules
        out = eager_scatter(v, idx, y, ufunc)
        return None if out is None else Array(out, x._weak)
    out = v.copy()
    try:
        if dtypes.is_inexact(v.dtype):  # overflow gives inf silently, as in JAX
            _apply_update_quietly(np, out, idx, y, ufunc)
        else:  # integer updates of arrays wrap without warnings
            _apply_update(out, idx, y, ufunc)
    except (IndexError, ValueError, TypeError):
        return None
    return Array(out, x._weak)


def _apply_update(out, idx, y, ufunc):
    if ufunc is None:
        out[idx] = y
        return
    if type(idx) is not tuple:
        idx = (idx,)
    if Ellipsis not in idx:
        idx = idx + (Ellipsis,)  # a 0-d view for a single element, not a NumPy scalar
    view = out[idx]
    ufunc(view, y, out=view, casting="unsafe")


# (NumPy's floating-point warnings off, as the primitives' impls run)
_apply_update_quietly = _quiet(lambda xp, out, idx, y, ufunc: _apply_update(out, idx, y, ufunc))


def _rewriting_take(arr, idx, *, indices_are_sorted=False, unique_indices=False, mode=None,
                    fill_value=None):
    """``arr[idx]`` with NumPy semantics (see the module docstring)."""
    try:
        if mode is None:
            out = _eager_take(arr, idx)
            if out is None:
                out = eager_getitem(arr, idx)
            if out is not None:
                return out
        arr = ensure_array("indexing", arr)
        parsed = _expand(arr.shape, idx)
        if mode is None and not parsed[1] and all(e is None or isinstance(e, (int, slice))
                                                  for e in parsed[0]) and \
                _static_ints_in_range(arr.shape, parsed[0]):
            return _static_take(arr, parsed[0])
        x, ixr = _prepare(arr, parsed)
        if _is_empty(ixr.out_shape):
            return lax.full_like(x, 0, shape=ixr.out_shape)
        for ax, s in enumerate(x.shape):
            if type(s) is int and s == 0 and ax in ixr.dnums.collapsed_slice_dims:
                raise IndexError(f"index is out of bounds for axis {ax} with size 0")
        y = x
        if ixr.indices.shape[-1]:
            y = lax.gather(x, ixr.indices, ixr.dnums, ixr.slice_sizes, mode=mode,
                           fill_value=fill_value,
                           unique_indices=unique_indices or not ixr.advanced,
                           indices_are_sorted=indices_are_sorted or not ixr.advanced)
        return lax.expand_dims(y, ixr.newaxis_dims) if ixr.newaxis_dims else y
    except Exception as e:
        _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
        raise


# -- x.at[idx] -----------------------------------------------------------------------------------
def _broadcast_values(y, shape, name):
    while y.ndim > len(shape) and y.shape[0] == 1:  # NumPy drops leading size-1 dims
        y = lax.squeeze(y, (0,))
    try:
        if tuple(broadcast_shapes(tuple(y.shape), tuple(shape))) != tuple(shape):
            raise ValueError
    except InconclusiveDimensionError:
        raise   # (a size question, SpecializeSizes included: not a shape mismatch)
    except ValueError:
        raise ValueError(f"{name}: values of shape {shape_str(y.shape)} cannot be broadcast "
                         f"to the indexed shape {shape_str(shape)}") from None
    return broadcast_to_shape(y, tuple(shape))


def _scatter_update(x, idx, y, scatter_fn, name, *, indices_are_sorted=False,
                    unique_indices=False, mode=None):
    """``x`` with ``scatter_fn`` applied at ``x[idx]`` (values broadcast). As in JAX, an
    arithmetic update computes in the promoted dtype of ``x`` and the values and casts
    back (int8 7 .add(-0.25) is int8(6.75) = 6, not 7 + int8(-0.25) = 7); ``set`` casts
    the values to x.dtype, which gives the same."""
    x = ensure_array(name, x)
    promoted = None if scatter_fn is lax.scatter else result_type_of(x, y)[0]
    if promoted is not None and promoted != x.dtype:
        return _promoted_scatter_update(x, idx, y, promoted, scatter_fn, name,
                                        indices_are_sorted=indices_are_sorted,
                                        unique_indices=unique_indices, mode=mode)
    y = asarray(y)
    if y.dtype != x.dtype:
        y = lax.convert_element_type(y, x.dtype)
    parsed = _expand(x.shape, idx)
    inserted = parsed[1]
    xx, ixr = _prepare(x, parsed)
    y = _broadcast_values(y, ixr.out_shape, name)
    if ixr.newaxis_dims:
        y = lax.squeeze(y, ixr.newaxis_dims)
    if _is_empty(xx.shape) or _is_empty(y.shape):
        return x
    dn = ScatterDimensionNumbers(ixr.dnums.offset_dims, ixr.dnums.collapsed_slice_dims,
                                 ixr.dnums.start_index_map)
    out = scatter_fn(xx, ixr.indices, y, dn, mode=mode,
                     indices_are_sorted=indices_are_sorted or not ixr.advanced,
                     unique_indices=unique_indices or not ixr.advanced)
    return lax.squeeze(out, inserted) if inserted else out


def _promoted_scatter_update(x, idx, y, promoted, scatter_fn, name, **kw):
    """The arithmetic update of ``x`` by values ``y`` of another dtype, computed in
    ``promoted`` and cast back to x's dtype and weak type. Elements no index touches keep
    x's values: where ``x -> promoted`` is inexact (int32 through float16 or float32,
    weak float32 through float16), they are taken from ``x`` itself (JAX casts them
    through ``promoted`` too, so int32 100001 next to an .add(float16(1)) came back
    2147483647)."""
    xp = lax.convert_element_type(x, promoted)
    yp = lax.convert_element_type(asarray(y), promoted)
    out = lax.convert_element_type(_scatter_update(xp, idx, yp, scatter_fn, name, **kw),
                                   x.dtype, weak_type=x.weak_type)
    if np.can_cast(x.dtype, promoted, "safe"):
        return out
    touched = _scatter_update(lax.full_like(x, False, dtype=np.bool_), idx, True,
                              lax.scatter, name, **kw)
    return lax.select(touched, out, x)


class _IndexUpdateHelper:
    """``x.at``: ``x.at[idx]`` gives an :class:`_IndexUpdateRef` for functional updates."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """``x.at[idx]``: ``get``, ``set``, ``add``, ``subtract``, ``multiply``/``mul``,
    ``divide``, ``power``, ``min``, ``max``, ``apply``. Each returns an updated copy.

    Keyword args (all methods): ``indices_are_sorted``, ``unique_indices`` (promises),
    ``mode`` (``None``/``'drop'``/``'fill'``: out-of-bounds updates are dropped;
    ``'clip'``: indices are clamped; ``'promise_in_bounds'``). Duplicate indices: every
    update is applied for add/multiply/min/max; for ``set`` the last one wins.
    """

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None):
        """``x[idx]``; ``mode='fill'`` returns ``fill_value`` for out-of-bounds indices."""
        return _rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode, fill_value=fill_value)

    def _update(self, values, fn, name, **kw):
        out = _eager_update(self.array, self.index, values, name, kw)
        if out is not None:
            return out
        return _scatter_update(self.array, self.index, values, fn, f"x.at[idx].{name}", **kw)

    def set(self, values, **kw):
        """``x[idx] = values``."""
        return self._update(values, lax.scatter, "set", **kw)

    def add(self, values, **kw):
        """``x[idx] += values`` (duplicates accumulate)."""
        return self._update(values, lax.scatter_add, "add", **kw)

    def subtract(self, values, **kw):
        """``x[idx] -= values``."""
        return self._update(values, lax.scatter_sub, "subtract", **kw)

    def multiply(self, values, **kw):
        """``x[idx] *= values``."""
        return self._update(values, lax.scatter_mul, "multiply", **kw)

    mul = multiply

    def divide(self, values, **kw):
        """``x[idx] /= values`` (true division, as ``jnp.divide``)."""
        ones = lax.full_like(self.array, 1)
        return divide(self.array, _IndexUpdateRef(ones, self.index).multiply(values, **kw))

    def power(self, values, **kw):
        """``x[idx] **= values``."""
        ones = lax.full_like(self.array, 1)
        return power(self.array, _IndexUpdateRef(ones, self.index).multiply(values, **kw))

    def min(self, values, **kw):
        """``x[idx] = minimum(x[idx], values)``."""
        return self._update(values, lax.scatter_min, "min", **kw)

    def max(self, values, **kw):
        """``x[idx] = maximum(x[idx], values)``."""
        return self._update(values, lax.scatter_max, "max", **kw)

    def apply(self, func, **kw):
        """``x[idx] = func(x[idx])`` for a unary elementwise ``func``. As in JAX (and
        ``ufunc.at``), a repeated index applies ``func`` again: once per occurrence
        (``lax.scatter_apply``)."""
        def scatter_fn(x, indices, shaped, dn, **skw):
            return lax.scatter_apply(x, indices, func, dn, update_shape=tuple(shaped.shape),
                                     **skw)
        # (a zero of x's dtype stands for the updates: it gives the indexed shape)
        zero = lax.full((), 0, self.array.dtype)
        return _scatter_update(self.array, self.index, zero, scatter_fn, "x.at[idx].apply",
                               **kw)


# x.at[idx].set(...) and the others are entry points (their errors end in user code)
for _name in ("get", "set", "add", "subtract", "multiply", "divide", "power", "min", "max",
              "apply"):
    setattr(_IndexUpdateRef, _name, eager_boundary(getattr(_IndexUpdateRef, _name),
                                                   f"x.at[idx].{_name}"))
_IndexUpdateRef.mul = _IndexUpdateRef.multiply
del _name

__all__ = []  # private helpers only; the public routines are in _index_routines.py
