"""Padding and other edits of an array's extent for ``tjit.numpy``: pad, diff,
ediff1d, diagonal, trace, resize, insert, delete and trim_zeros, with NumPy's semantics.

Like ``_shape.py`` they are compositions of the structural ``lax`` operations (pad,
slice, concatenate, rev, reshape), so they trace under ``jit``; pad widths and
insert/delete positions decide the output shape and must be concrete, as in JAX.
"""


import numpy as np

from tjit._sympy import is_expr
from tjit import lax
from tjit import numpy as jnp  # sibling modules (sum, subtract) looked up at call time
from tjit.tracing import dtypes
from tjit.tracing import shapes as sh
from tjit.tracing.core import Array, Tracer, concrete_value
from tjit.tracing.errors import ShapeError, static_index
from tjit.numpy._core import asarray, ensure_array
from tjit.numpy._shape import (
    _concrete_int_dim, _replace, _slice_axis, _zero, broadcast_to, concatenate, moveaxis,
    ravel, tile)


# -- padding ------------------------------------------------------------------------------------
# Statistic modes: the reduction each pads with (computed over the whole axis, or over
# ``stat_length`` values at each end).
_PAD_STATS = {"maximum": "max", "minimum": "min", "mean": "mean", "median": "median"}
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "empty", "linear_ramp",
              *_PAD_STATS)
_PAD_KWARGS = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
               **{m: {"stat_length"} for m in _PAD_STATS}}


def _as_pairs(value, ndim, name, integral=True):
    """``value`` (a scalar, a (before, after) pair or one pair per axis; concrete)
    broadcast to ``ndim`` (before, after) pairs, as NumPy's ``pad`` reads its arguments."""
    try:
        pw = np.asarray(concrete_value(value, f"{name} of jnp.pad"))
    except ValueError:  # ragged nesting
        kind = "an int" if integral else "a scalar"
        raise ValueError(f"pad: {name} must be {kind}, a (before, after) pair, or one "
                         f"pair per axis, got {value!r:.60}") from None
    if integral and pw.size and pw.dtype.kind not in "iu":
        raise TypeError(f"pad: {name} must be of integral type, got {value!r:.60}")
    if pw.dtype.kind in "iub" or pw.size == 0:
        pw = pw.astype(np.int64)
    try:
        pw = np.broadcast_to(pw, (ndim, 2))
    except ValueError:
        raise ValueError(f"pad: {name} of shape {pw.shape} cannot be broadcast to "
                         f"({ndim}, 2) for an array of rank {ndim}; give "
                         f"{'an int' if integral else 'a scalar'}, a (before, after) pair, "
                         f"or one pair per axis") from None
    if integral:
        if (pw < 0).any():
            raise ValueError(f"pad: {name} can't contain negative values, got {pw.tolist()}")
        return [(int(b), int(e)) for b, e in pw]
    return [(b.item(), e.item()) for b, e in pw]


def _pad_pairs(pad_width, ndim):
    """``pad_width`` broadcast to ``ndim`` (before, after) pairs of Python ints (or size
    expressions of polymorphic dims, ``x.shape[0]``)."""
    sizes = _size_pairs(pad_width, ndim)
    return sizes if sizes is not None else _as_pairs(pad_width, ndim, "pad_width")


def _size_pairs(value, ndim):
    """Pairs of ``value`` when it holds a size expression (as JAX, which pads by
    symbolic widths), else None."""
    leaves = list(value) if isinstance(value, (tuple, list)) else [value]
    flat = [w for v in leaves for w in (v if isinstance(v, (tuple, list)) else [v])]
    if not any(is_expr(w) and w.free_symbols for w in flat):
        return None
    if not isinstance(value, (tuple, list)):
        value = (value,)
    if all(not isinstance(v, (tuple, list)) for v in value):
        value = (tuple(value),)     # (one pair, or one width for both sides)
    pairs = [tuple(v) * (2 if len(v) == 1 else 1) for v in value]
    if len(pairs) == 1:
        pairs = pairs * ndim
    if len(pairs) != ndim or any(len(p) != 2 for p in pairs):
        raise ValueError(f"pad: pad_width {value!r:.60} cannot be broadcast to ({ndim}, 2)")
    for w in (w for p in pairs for w in p):
        if not sh.greater_equal(w, 0):
            raise ValueError(f"pad: pad_width can't contain negative values, got {w}")
    return [tuple(static_index(w, "pad_width", "pad", dims=True) for w in p) for p in pairs]


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array (NumPy's ``pad``).

    Args:
      array: the array to pad.
      pad_width: an int, a (before, after) pair, or one pair per axis (concrete ints).
      mode: "constant" (``constant_values``: a scalar, a pair or pairs per axis, may be
        traced), "edge", "reflect" / "symmetric" (``reflect_type`` "even" or "odd"),
        "wrap", "linear_ramp" (to ``end_values``), "maximum" / "minimum" / "mean" /
        "median" (of the whole axis, or of ``stat_length`` values at each end; rounded
        for integer arrays), "empty" (zeros here), or a callable
        ``f(row, pad_width, iaxis, kwargs)`` that returns the zero-padded 1-d ``row``
        with its pads filled (JAX's form: it returns the row instead of editing it).

    Returns:
      The padded array.
    """
    a = ensure_array("pad", array)
    pairs = _pad_pairs(pad_width, a.ndim)
    if callable(mode):
        return _pad_func(a, pairs, mode, kwargs)
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode {mode!r} is not supported; use one of "
                         f"{', '.join(_PAD_MODES)} or a callable")
    allowed = _PAD_KWARGS.get(mode, set())
    if set(kwargs) - allowed:
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: "
                         f"{sorted(set(kwargs) - allowed)}")
    if mode in ("constant", "empty"):
        return _pad_constant(a, pairs, kwargs.get("constant_values", 0))
    for i, (b, e) in enumerate(pairs):
        if (b or e) and sh.dims_equal(a.shape[i], 0):
            raise ValueError(f"pad: can't extend empty axis {i} using modes other than "
                             f"'constant' or 'empty' (array shape {sh.shape_str(a.shape)})")
    if mode == "edge":
        return _pad_edge(a, pairs)
    if mode == "wrap":
        return _pad_wrap(a, pairs)
    if mode == "linear_ramp":
        return _pad_linear_ramp(a, pairs, _as_pairs(kwargs.get("end_values", 0), a.ndim,
                                                    "end_values", integral=False))
    if mode in _PAD_STATS:
        stat_length = kwargs.get("stat_length")
        lengths = None if stat_length is None else _as_pairs(stat_length, a.ndim,
                                                             "stat_length")
        return _pad_stats(a, pairs, _PAD_STATS[mode], lengths)
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    for i, (b, e) in enumerate(pairs):
        if b or e:
            a = _pad_reflect_axis(a, i, b, e, mode == "reflect", reflect_type == "odd")
    return a


def _pad_constant(a, pairs, cv):
    if not isinstance(cv, (Array, Tracer)):
        cv = asarray(cv)
    cv = lax.convert_element_type(cv, a.dtype)
    if cv.ndim == 0:
        return lax.pad(a, cv, [(b, e, 0) for b, e in pairs]) if a.ndim else a
    try:
        cv = broadcast_to(cv, (a.ndim, 2))
    except ShapeError:
        raise ValueError(f"pad: constant_values of shape {sh.shape_str(cv.shape)} cannot be "
                         f"broadcast to ({a.ndim}, 2)") from None
    # Axis by axis, as NumPy does: corners take the value of the later axis.
    for i, (b, e) in enumerate(pairs):
        for j, w in ((0, b), (1, e)):
            if w:
                v = lax.reshape(lax.slice(cv, (i, j), (i + 1, j + 1)), ())
                cfg = [(0, 0, 0)] * a.ndim
                cfg[i] = (w, 0, 0) if j == 0 else (0, w, 0)
                a = lax.pad(a, v, cfg)
    return a


def _pad_func(a, pairs, func, kwargs):
    """Callable mode, as JAX defines it: zero-pad, then map ``func`` over the 1-d rows
    of each axis in turn (so later axes see the earlier axes' pads)."""
    padded = _pad_constant(a, pairs, 0)
    for axis in range(a.ndim):
        padded = jnp.apply_along_axis(func, axis, padded, pairs[axis], axis, kwargs)
        padded = ensure_array("pad", padded)
    return padded


def _pad_linear_ramp(a, pairs, end_values):
    """Ramps from each end value up to (not including) the edge value, as NumPy's
    ``linspace(end, edge, width, endpoint=False)`` (floored for integer arrays)."""
    cdt = a.dtype if dtypes.is_inexact(a.dtype) else dtypes.default_float()
    for i, (b, e) in enumerate(pairs):
        if not (b or e):
            continue
        n = a.shape[i]
        parts = []
        for is_before, width, end in ((True, b, end_values[i][0]),
                                      (False, e, end_values[i][1])):
            if not width:
                continue
            edge = _slice_axis(a, 0, 1, i) if is_before else _slice_axis(a, n - 1, n, i)
            # Ramp in a float type, so end values outside an integer dtype's range
            # (a negative end for uint8) ramp as NumPy's float linspace does.
            edge = lax.convert_element_type(lax.reshape(edge, _remove(a.shape, i)), cdt)
            ramp = jnp.linspace(asarray(end, dtype=cdt), edge, width, endpoint=False,
                                dtype=a.dtype, axis=i)
            parts.append((is_before, ramp if is_before else lax.rev(ramp, (i,))))
        a = lax.concatenate([r for p, r in parts if p] + [a] + [r for p, r in parts if not p],
                            i)
    return a


def _remove(shape, axis):
    return tuple(shape[:axis]) + tuple(shape[axis + 1:])


def _pad_stats(a, pairs, reduction, lengths):
    """Pads of each axis filled with a statistic of its first / last values (whole axis
    when ``lengths`` is None); axis by axis, so corners take the later axis's statistic
    of the earlier pads, as NumPy does."""
    func = getattr(jnp, reduction)
    for i, pair in enumerate(lengths or ()):
        if 0 in pair:  # refused even where the axis gets no padding, as JAX (and NumPy's
            # maximum/minimum) do
            raise ValueError(f"pad: stat_length of 0 yields no value for padding (axis "
                             f"{i}, stat_length {pair}); give lengths of at least 1")
    for i, (b, e) in enumerate(pairs):
        if not (b or e):
            continue
        if lengths is None:
            before = after = func(a, axis=i, keepdims=True)
        else:
            n = _concrete_int_dim(a.shape[i], f"pad(mode={reduction!r})", f"axis {i}")
            lb, le = lengths[i]
            before = func(_slice_axis(a, 0, min(lb, n), i), axis=i, keepdims=True)
            after = func(_slice_axis(a, n - min(le, n), n, i), axis=i, keepdims=True)
        parts = []
        for stat, width in ((before, b), (after, e)):
            if dtypes.is_int(a.dtype) and not dtypes.is_int(stat.dtype):
                stat = jnp.round(stat)  # NumPy rounds a mean/median for integer arrays
            stat = lax.convert_element_type(stat, a.dtype)
            parts.append(lax.broadcast_in_dim(lax.reshape(stat, _remove(stat.shape, i)),
                                              _replace(a.shape, i, width),
                                              [k for k in range(a.ndim) if k != i]))
        a = lax.concatenate([parts[0], a, parts[1]], i)
    return a


def _pad_edge(a, pairs):
    for i, (b, e) in enumerate(pairs):
        n = a.shape[i]
        parts = []
        if b:
            first = _slice_axis(a, 0, 1, i)
            parts.append(lax.broadcast_in_dim(first, _replace(a.shape, i, b), range(a.ndim)))
        parts.append(a)
        if e:
            last = _slice_axis(a, n - 1, n, i)
            parts.append(lax.broadcast_in_dim(last, _replace(a.shape, i, e), range(a.ndim)))
        if len(parts) > 1:
            a = lax.concatenate(parts, i)
    return a


def _pad_wrap(a, pairs):
    for i, (b, e) in enumerate(pairs):
        if not (b or e):
            continue
        n = _concrete_int_dim(a.shape[i], "pad(mode='wrap')", f"axis {i}")
        before, after = -(-b // n), -(-e // n)  # whole copies needed on each side
        t = lax.concatenate([a] * (before + 1 + after), i) if before + after else a
        a = _slice_axis(t, before * n - b, (before + 1) * n + e, i)
    return a


def _pad_reflect_axis(a, axis, before, after, reflect, odd):
    """Reflect/symmetric padding of one axis; pads wider than the axis reflect the
    already-padded array again, as NumPy does."""
    n = a.shape[axis]
    offset = 1 if reflect and not sh.is_one(n) else 0
    if offset and type(n) is not int:
        n = _concrete_int_dim(n, "pad(mode='reflect')", f"axis {axis}")
    for is_before, width in ((True, before), (False, after)):
        size = a.shape[axis]
        edge = _slice_axis(a, 0, 1, axis) if is_before else _slice_axis(a, size - 1, size, axis)
        while width > 0:
            size = a.shape[axis]
            cur = min(width, n - offset) if type(n) is int else width
            width -= cur
            if is_before:
                x = _slice_axis(a, offset, offset + cur, axis)
            else:
                x = _slice_axis(a, size - cur - offset, size - offset, axis)
            x = lax.rev(x, (axis,))
            if odd:
                x = lax.convert_element_type(jnp.subtract(jnp.multiply(2, edge), x), a.dtype)
                if not sh.is_one(n):
                    m = x.shape[axis]
                    edge = _slice_axis(x, 0, 1, axis) if is_before else \
                        _slice_axis(x, m - 1, m, axis)
            a = lax.concatenate([x, a] if is_before else [a, x], axis)
    return a


# -- differences, diagonals ---------------------------------------------------------------------
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis`` (``!=`` for booleans).

    Args:
      a: input array (at least 1-d).
      n: number of times to difference (0 returns ``a``).
      axis: the axis to difference along.
      prepend, append: values joined to ``a`` along ``axis`` first (scalars are
        broadcast to size 1 along the axis).

    Returns:
      An array with ``n`` fewer elements along ``axis``.
    """
    a = ensure_array("diff", a)
    n = static_index(n, "n", "diff")
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n}")
    if n == 0:
        return a
    if a.ndim == 0:
        raise ShapeError("diff requires input that is at least one dimensional")
    axis = sh.normalize_axis(axis, a.ndim, "diff")
    parts = []
    for v, is_pre in ((prepend, True), (append, False)):
        if v is None:
            continue
        v = ensure_array("diff", v)
        if v.ndim == 0:
            v = broadcast_to(v, _replace(a.shape, axis, 1))
        parts.append((is_pre, v))
    if parts:
        a = concatenate([v for p, v in parts if p] + [a] + [v for p, v in parts if not p],
                        axis)
    op = jnp.not_equal if a.dtype == dtypes.bool_ else jnp.subtract
    for _ in range(n):
        m = a.shape[axis]
        if sh.dims_equal(m, 0):
            break
        a = op(_slice_axis(a, 1, m, axis), _slice_axis(a, 0, m - 1, axis))
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of the flattened array, with optional
    values before and after (cast to the array's dtype)."""
    a = ravel(ensure_array("ediff1d", ary))
    m = a.shape[0]
    out = jnp.subtract(_slice_axis(a, 1, m, 0), _slice_axis(a, 0, m - 1, 0)) \
        if not sh.dims_equal(m, 0) else a
    parts = [out]
    if to_begin is not None:
        parts.insert(0, lax.convert_element_type(ravel(asarray(to_begin)), a.dtype))
    if to_end is not None:
        parts.append(lax.convert_element_type(ravel(asarray(to_end)), a.dtype))
    return concatenate(parts) if len(parts) > 1 else out


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the 2-D sub-arrays in axes ``axis1``/``axis2``; the
    diagonal becomes the last axis of the result."""
    a = ensure_array("diagonal", a)
    if a.ndim < 2:
        raise ShapeError(f"diagonal requires an array of at least two dimensions, got shape "
                         f"{sh.shape_str(a.shape)}")
    i, j = (sh.normalize_axis(x, a.ndim, "diagonal") for x in (axis1, axis2))
    if i == j:
        raise ValueError(f"diagonal: axis1 and axis2 cannot be the same (both {axis1})")
    offset = static_index(offset, "offset", "diagonal")
    x = lax.transpose(a, [k for k in range(a.ndim) if k not in (i, j)] + [i, j])
    r, c = x.shape[-2:]
    if offset >= 0:
        x = _slice_axis(x, _dim_min(offset, c, "diagonal"), c, x.ndim - 1)
    else:
        x = _slice_axis(x, _dim_min(-offset, r, "diagonal"), r, x.ndim - 2)
    r, c = x.shape[-2:]
    length = _dim_min(r, c, "diagonal")
    batch = tuple(x.shape[:-2])
    x = _slice_axis(x, 0, length, x.ndim - 2)  # (..., L, c) with L <= c
    if sh.dims_equal(length, 0):
        return lax.reshape(x, batch + (0,))
    # Row-major, element (k, k) of an (L, c) block sits at k * (c + 1): append L zeros
    # to the flattened block so it reshapes to (L, c + 1), and read column 0. Only
    # reshapes, slices and a concatenate, so symbolic sizes work.
    flat = lax.reshape(x, batch + (length * c,))
    zeros = lax.broadcast_in_dim(lax.full_like(x, 0, shape=()), batch + (length,), ())
    x = lax.reshape(lax.concatenate([flat, zeros], len(batch)), batch + (length, c + 1))
    return strong_main_diagonal(a, offset,
                                lax.reshape(_slice_axis(x, 0, 1, x.ndim - 1), batch + (length,)))


def strong_main_diagonal(a, offset, diag):
    """``diag`` (a diagonal of ``a``) with JAX's weak type: JAX computes the main diagonal
    of a square 2-D non-bool matrix as ``sum(eye * a)`` with a strong ``eye`` (so it is
    strong), and every other diagonal as a gather that keeps ``a``'s weak type."""
    if (getattr(diag, "weak_type", False) and a.ndim == 2 and offset == 0 and
            sh.dims_equal(a.shape[0], a.shape[1]) and not dtypes.is_bool(a.dtype)):
        return lax.convert_element_type(diag, diag.dtype, weak_type=False)
    return diag


def _dim_min(p, q, fname):
    if type(p) is int and type(q) is int:
        return min(p, q)
    try:
        if sh.dims_equal(p, q) or sh.greater_equal(q, p):
            return p
        return q if sh.greater_equal(p, q) else p
    except ShapeError:
        raise ShapeError(f"{fname}: cannot tell which of the symbolic sizes {sh.dim_str(p)} "
                         f"and {sh.dim_str(q)} is smaller; trace with concrete sizes") from None


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along a diagonal (see :func:`diagonal`)."""
    if out is not None:
        raise NotImplementedError("trace: the 'out' argument is not supported")
    return jnp.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def resize(a, new_shape):
    """An array of ``new_shape`` filled by repeating ``a``'s flattened elements (zeros
    when ``a`` is empty, as in NumPy)."""
    a = ensure_array("resize", a)
    new_shape = sh.canonical_shape(new_shape, "resize")
    if any(type(d) is int and d < 0 for d in new_shape):
        raise ValueError(f"resize: all elements of `new_shape` must be non-negative, got "
                         f"{sh.shape_str(new_shape)}")
    total = _concrete_int_dim(sh.size(new_shape), "resize", "the new shape")
    size = _concrete_int_dim(sh.size(a.shape), "resize", "the input")
    flat = ravel(a)
    if size == 0:
        return lax.broadcast(_zero(a.dtype), new_shape)
    reps = -(-total // size)
    return lax.reshape(_slice_axis(tile(flat, reps), 0, total, 0), new_shape)


# -- insert, delete, trim_zeros (concrete positions) ---------------------------------------------
def _assemble(sources, axis):
    """Concatenate runs of (array, index) entries along ``axis``; consecutive indices of
    the same array become one slice."""
    pieces, run = [], None
    for arr, k in sources:
        if run is not None and run[0] is arr and run[2] == k:
            run[2] = k + 1
            continue
        if run is not None:
            pieces.append(_slice_axis(run[0], run[1], run[2], axis))
        run = [arr, k, k + 1]
    if run is not None:
        pieces.append(_slice_axis(run[0], run[1], run[2], axis))
    return pieces[0] if len(pieces) == 1 else lax.concatenate(pieces, axis)


def _positions(fname, obj, n, axis):
    """Concrete integer positions from an int, sequence, array or slice."""
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n)), False
    idx = np.asarray(concrete_value(obj, f"the indices of {fname}"))
    if idx.size == 0:
        idx = idx.astype(np.int64)
    if idx.dtype.kind not in "iu":
        raise IndexError(f"{fname}: index arrays must be integers, got dtype {idx.dtype}")
    if idx.ndim > 1:
        raise ValueError(f"{fname}: index array argument obj must be one dimensional or "
                         f"scalar, got shape {idx.shape}")
    return idx.astype(np.int64), idx.ndim == 0


def insert(arr, obj, values, axis=None):
    """Insert ``values`` before the positions ``obj`` (concrete) along ``axis``.

    Args:
      arr: input array (flattened when ``axis`` is None).
      obj: an int, a sequence of ints, or a slice: positions before which to insert.
      values: values to insert, broadcast to the inserted block; cast to ``arr``'s dtype.
      axis: the axis to insert along.

    Returns:
      A new array with the values inserted.
    """
    a = ensure_array("insert", arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = sh.normalize_axis(axis, a.ndim, "insert")
    n = _concrete_int_dim(a.shape[axis], "insert", f"axis {axis}")
    v = values if isinstance(values, (Array, Tracer)) else asarray(values)
    v = lax.convert_element_type(v, a.dtype)
    if isinstance(obj, Tracer):
        return _insert_traced(a, obj, v, axis, n)
    idx, scalar = _positions("insert", obj, n, axis)
    bad = idx[(idx < -n) | (idx > n)]
    if bad.size:
        raise IndexError(f"insert: index {int(bad[0])} is out of bounds for axis {axis} with "
                         f"size {n}")
    idx = np.where(idx < 0, idx + n, idx)
    if idx.size == 1:
        v = lax.reshape(v, (1,) * (a.ndim - v.ndim) + tuple(v.shape))
        if scalar:
            v = moveaxis(v, 0, axis)
        v = broadcast_to(v, _replace(a.shape, axis, v.shape[axis]))
        k = int(idx.reshape(()))
        return concatenate([_slice_axis(a, 0, k, axis), v, _slice_axis(a, k, n, axis)], axis)
    v = broadcast_to(v, _replace(a.shape, axis, idx.size))  # (refuses 2 values for 0 slots)
    if idx.size == 0:
        return a
    pos = idx.copy()
    pos[np.argsort(idx, kind="stable")] += np.arange(idx.size)
    src = [None] * (n + idx.size)
    for k, p in enumerate(pos):
        src[p] = (v, k)
    it = iter(range(n))
    src = [s if s is not None else (a, next(it)) for s in src]
    return _assemble(src, axis)


def _insert_traced(a, idx, v, axis, n):
    """``insert`` at positions known only at run time (as JAX allows): out-of-range
    positions are clipped to [0, n] (JAX's rule; NumPy raises). The result gathers from
    ``concatenate([a, v])``: output slot p takes inserted value j when the j-th value
    lands on p, else entry p - (values landing before p) of ``a``."""
    if idx.ndim > 1:
        raise ValueError(f"insert: index array argument obj must be one dimensional or "
                         f"scalar, got shape {tuple(idx.shape)}")
    if not dtypes.is_int(idx.dtype):
        raise IndexError(f"insert: index arrays must be integers, got dtype {idx.dtype}")
    idt = dtypes.default_int()
    idx = lax.convert_element_type(idx, idt)
    v = lax.reshape(v, (1,) * (a.ndim - v.ndim) + tuple(v.shape))
    if idx.ndim == 0:
        v = moveaxis(v, 0, axis)
        k = v.shape[axis]
    else:
        k = sh.broadcast_shapes(tuple(idx.shape), (v.shape[axis],), op="insert")[0]
    if k == 0:
        return a
    idx = jnp.broadcast_to(idx, (k,))
    v = broadcast_to(v, _replace(a.shape, axis, k))
    idx = jnp.clip(jnp.where(idx < 0, idx + n, idx), 0, n)
    order = jnp.argsort(idx, stable=True)  # equal positions keep the values' order
    dest = jnp.zeros((k,), idt).at[order].set(jnp.take(idx, order) + jnp.arange(k, dtype=idt))
    p = jnp.arange(n + k, dtype=idt)[:, None]
    hit = dest[None, :] == p
    before = jnp.sum(dest[None, :] < p, axis=1, dtype=idt)
    src = jnp.where(jnp.any(hit, axis=1), n + jnp.argmax(hit, axis=1), p[:, 0] - before)
    return jnp.take(concatenate([a, v], axis), src, axis=axis, mode="clip")


def _delete_unique_traced(a, obj, axis, n):
    """``delete`` of unique integer positions known only at run time (JAX's
    ``assume_unique_indices=True``): the kept index i of the result skips every deleted
    position at or below it, found against the sorted positions less their rank."""
    obj = jnp.ravel(lax.convert_element_type(obj, dtypes.default_int()))
    k = obj.shape[0]
    if k > n:
        raise ValueError(f"delete: {k} unique indices cannot be deleted from axis {axis} of "
                         f"size {n}")
    obj = jnp.sort(jnp.clip(jnp.where(obj < 0, obj + n, obj), 0, n))
    obj = obj - jnp.arange(k, dtype=obj.dtype)
    i = jnp.arange(n - k, dtype=obj.dtype)
    i = i + jnp.sum(i[None, :] >= obj[:, None], axis=0, dtype=i.dtype)
    return jnp.take(a, i, axis=axis, mode="clip")


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """``arr`` without the entries at positions ``obj`` (int, ints, slice or a boolean
    mask; concrete) along ``axis`` (flattened when None)."""
    a = ensure_array("delete", arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = sh.normalize_axis(axis, a.ndim, "delete")
    n = _concrete_int_dim(a.shape[axis], "delete", f"axis {axis}")
    if assume_unique_indices and isinstance(obj, Tracer) and dtypes.is_int(obj.dtype):
        return _delete_unique_traced(a, obj, axis, n)
    keep = np.ones(n, bool)
    mask = None if isinstance(obj, slice) else np.asarray(concrete_value(obj, "delete indices"))
    if mask is not None and mask.dtype == np.bool_:
        if mask.shape != (n,):
            raise ValueError(f"delete: boolean mask of shape {mask.shape} does not match axis "
                             f"{axis} of size {n}")
        keep = ~mask
    else:
        idx, _ = _positions("delete", obj, n, axis)
        bad = idx[(idx < -n) | (idx >= n)]
        if bad.size:
            raise IndexError(f"delete: index {int(bad[0])} is out of bounds for axis {axis} "
                             f"with size {n}")
        keep[idx] = False
    kept = np.flatnonzero(keep).tolist()
    if not kept:
        return _slice_axis(a, 0, 0, axis)
    return _assemble([(a, k) for k in kept], axis)


def trim_zeros(filt, trim="fb", axis=None):
    """Trim leading (``'f'``) and/or trailing (``'b'``) zeros; needs a concrete array
    (the result's shape depends on the values)."""
    a = ensure_array("trim_zeros", filt)
    v = np.asarray(concrete_value(a, "the input of trim_zeros (its values decide the shape)"))
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise ValueError(f"trim_zeros: unexpected character(s) in `trim`: {trim!r}; use 'f', "
                         f"'b' or 'fb'")
    nz = np.argwhere(v)
    for ax in sh.normalize_axes(axis, a.ndim, "trim_zeros"):
        if not nz.size:  # all zeros: empty along every trimmed axis, as in NumPy
            a = _slice_axis(a, 0, 0, ax)
            continue
        start = int(nz[:, ax].min()) if "f" in trim else 0
        stop = int(nz[:, ax].max()) + 1 if "b" in trim else v.shape[ax]
        a = _slice_axis(a, start, stop, ax)
    return a


__all__ = [
    "pad", "diff", "ediff1d", "diagonal", "trace", "resize", "insert", "delete",
    "trim_zeros",
]
