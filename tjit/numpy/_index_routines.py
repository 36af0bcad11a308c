"""The indexing routines of ``tjit.numpy``: take, take_along_axis, put,
put_along_axis, fill_diagonal, nonzero/flatnonzero/argwhere, compress/extract/place,
choose, the index helpers (diag_indices, tril_indices, ix_, ...) and the index
conversions ravel_multi_index/unravel_index.

They follow JAX: out-of-bounds indices fill (take, take_along_axis) or clamp (put);
functions whose result shape depends on values (nonzero, compress) need concrete input
or a static ``size`` under ``jit``; in-place NumPy functions (put, place) need
``inplace=False``. Gathers and scatters are built with the helpers of ``_indexing.py``.
"""

import math

import numpy as np

from tjit import lax
from tjit.lax._structural import dim_value
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer, concrete_value
from tjit.tracing.errors import ConcretizationTypeError, NegativeDimensionError, static_index
from tjit.tracing.extended_dtypes import ExtendedArray
from tjit.tracing.shapes import (
    broadcast_shapes, definitely_equal, normalize_axis, shape_str, size as shape_size)
from tjit.primitives.indexing import GatherDimensionNumbers, ScatterDimensionNumbers
from tjit.numpy._core import (
    asarray, broadcast_to_shape, ensure_array, promote_args, promote_dtypes)
from tjit.numpy._creation import canonical_index_dtype
from tjit.numpy._eager_gather import eager_take, eager_take_along_axis
from tjit.numpy._indexing import (
    _IndexUpdateRef, _as_index_array, _bool_error, _index_dtype, _is_empty,
    _normalize, saturating_int_cast)
from tjit.numpy import _ufuncs as uf
from tjit.numpy._ufuncs import remainder


# -- take / take_along_axis / put ----------------------------------------------------------------
def _int_indices(fname, indices):
    indices = asarray(indices)
    if not dtypes.is_int(indices.dtype):
        raise TypeError(f"jnp.{fname}: indices must have an integer dtype, got "
                        f"{indices.dtype}; convert with .astype(jnp.int32)")
    return indices


def _ravel(a):
    return a if a.ndim == 1 else lax.reshape(a, (shape_size(a.shape),))


def _mode_indices(fname, indices, n, mode, idt, wrap_clipped=False, wrap_negative=True):
    """Indices and gather mode for take-like functions (JAX's default: 'fill'). In 'clip'
    mode negative indices clamp to 0 (NumPy's take), or wrap first if ``wrap_clipped``
    (JAX's take_along_axis). Without ``wrap_negative`` a negative index is out of bounds
    in the other modes but 'wrap'."""
    if mode == "raise":
        raise NotImplementedError(f"jnp.{fname}: mode='raise' is not supported (tjit cannot "
                                  f"raise from compiled code); use 'fill', 'clip' or 'wrap'")
    if mode == "wrap":
        return remainder(_as_index_array(indices, idt), dim_value(n, idt)), \
            "promise_in_bounds"
    if mode not in (None, "fill", "clip", "promise_in_bounds"):
        raise ValueError(f"jnp.{fname}: invalid mode {mode!r}; use 'fill', 'clip' or 'wrap'")
    if mode == "clip" and not wrap_clipped:
        return _as_index_array(indices, idt), "clip"
    idx = _normalize(indices, n, idt) if wrap_negative else _as_index_array(indices, idt)
    return idx, "fill" if mode is None else mode


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Take elements of ``a`` at ``indices`` along ``axis`` (flattened if None).

    Args:
      a: source array.
      indices: integer indices (any shape).
      axis: the axis to index; None indexes the flattened array.
      mode: ``'fill'`` (default: out-of-bounds gives ``fill_value``, NaN for floats),
        ``'clip'`` or ``'wrap'``.
      fill_value: value for out-of-bounds indices in fill mode.

    Returns:
      ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``-shaped array.
    """
    if out is not None:
        raise NotImplementedError("jnp.take: the 'out' argument is not supported")
    if isinstance(a, ExtendedArray):  # key arrays take along their own axes
        return a._take(indices, axis, mode)
    fast = eager_take(a, indices, axis, mode, fill_value)
    if fast is not None:
        return fast
    a = ensure_array("take", a)
    indices = _int_indices("take", indices)
    a, axis = (_ravel(a), 0) if axis is None else (a, normalize_axis(axis, a.ndim, "take"))
    n = a.shape[axis]
    out_shape = tuple(a.shape[:axis]) + tuple(indices.shape) + tuple(a.shape[axis + 1:])
    if _is_empty(out_shape):
        return lax.full_like(a, 0, shape=out_shape)
    if type(n) is int and n == 0:
        raise IndexError("jnp.take: cannot do a non-empty take from an empty axis")
    idt = _index_dtype(a.shape, [indices])
    idx, gmode = _mode_indices("take", indices, n, mode, idt)
    sizes = tuple(1 if i == axis else d for i, d in enumerate(a.shape))
    nd = indices.ndim
    dn = GatherDimensionNumbers(
        tuple(range(axis)) + tuple(range(axis + nd, a.ndim + nd - 1)), (axis,), (axis,))
    return lax.gather(a, lax.expand_dims(_as_index_array(idx, idt), (nd,)), dn, sizes,
                      mode=gmode, fill_value=fill_value, unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted)


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """Pick ``arr`` values along ``axis`` at ``indices`` (same rank as ``arr``; the other
    dims broadcast), e.g. with the output of ``argsort``.

    Args:
      arr: source array.
      indices: integer array with ``arr.ndim`` dims (1-D when ``axis`` is None).
      axis: the axis to index; None flattens ``arr``.
      mode: ``'fill'`` (default), ``'clip'`` or ``'wrap'``; fill_value as for ``take``.
      wrap_negative_indices: True: a negative index counts from the end (NumPy); False:
        it is out of bounds (filled, or clipped to 0 with ``mode='clip'``); None (JAX's
        legacy default): True. ``mode='wrap'`` wraps every index either way.
    """
    if wrap_negative_indices is None or wrap_negative_indices:
        fast = eager_take_along_axis(arr, indices, axis, mode, fill_value)
        if fast is not None:
            return fast
    a = ensure_array("take_along_axis", arr)
    indices = _int_indices("take_along_axis", indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(f"take_along_axis: indices must be 1-D when axis=None, got "
                             f"shape {shape_str(indices.shape)}")
        a, axis = _ravel(a), 0
    if a.ndim != indices.ndim:
        raise ValueError(f"take_along_axis: indices and arr must have the same number of "
                         f"dims; got {shape_str(indices.shape)} vs {shape_str(a.shape)}")
    axis = normalize_axis(axis, a.ndim, "take_along_axis")
    n = a.shape[axis]
    repl = (lambda s, v: tuple(v if i == axis else d for i, d in enumerate(s)))
    common = broadcast_shapes(repl(a.shape, 1), repl(indices.shape, 1),
                              op="take_along_axis")
    out_shape = repl(common, indices.shape[axis])
    if _is_empty(out_shape) or (type(n) is int and n == 0):
        return lax.full(out_shape, 0, a.dtype)
    a = broadcast_to_shape(a, repl(common, n))
    idt = _index_dtype(a.shape, [indices])
    indices = broadcast_to_shape(indices, out_shape)
    wrap = wrap_negative_indices is None or bool(wrap_negative_indices)
    idx, gmode = _mode_indices("take_along_axis", indices, n, mode, idt, wrap_clipped=wrap,
                               wrap_negative=wrap)
    others = tuple(i for i in range(a.ndim) if i != axis)
    dn = GatherDimensionNumbers((), (axis,), (axis,), others, others)
    return lax.gather(a, lax.expand_dims(_as_index_array(idx, idt), (a.ndim,)), dn,
                      (1,) * a.ndim, mode=gmode, fill_value=fill_value)


def _not_inplace(fname):
    return ValueError(f"jnp.{fname} cannot modify arrays in-place, because tjit arrays "
                      f"are immutable. Pass inplace=False to instead return an updated array.")


def put(a, ind, v, mode=None, *, inplace=True):
    """A copy of ``a`` with ``a.flat[ind] = v`` (``v`` repeated to ``len(ind)`` values).

    Args:
      mode: None (default: as JAX, which unravels the indices with ``unravel_index``:
        negative ones in [-size, 0) count from the end, the rest clamp into [0, size)),
        ``'clip'`` (indices clamped to [0, size), negative ones to 0) or ``'wrap'``.
      inplace: must be False (tjit arrays are immutable).

    Example::

        >>> jnp.put(jnp.zeros(4), jnp.asarray([0, 2]), 5.0, inplace=False)
        Array([5., 0., 5., 0.], dtype=float32)
    """
    if inplace:
        raise _not_inplace("put")
    a = ensure_array("put", a)
    ind = _ravel(_int_indices("put", ind))
    v = _ravel(asarray(v, dtype=a.dtype))
    m, k = ind.shape[0], v.shape[0]
    if m == 0 or k == 0 or _is_empty(a.shape):
        return a
    if k != m:  # NumPy repeats v (or drops extra values) to match the indices
        v = take(v, Array((np.arange(m) % k).astype(np.int32), False))
    n = shape_size(a.shape)
    idt = _index_dtype(a.shape, [ind])
    if mode == "wrap":
        idx, smode = _mode_indices("put", ind, n, "wrap", idt)[0], "promise_in_bounds"
    elif mode is None:
        idx, smode = _normalize(ind, n, idt), "clip"
    elif mode == "clip":
        idx, smode = _as_index_array(ind, idt), "clip"
    else:
        raise ValueError(f"jnp.put: invalid mode {mode!r}; use 'clip' or 'wrap'")
    out = lax.scatter(_ravel(a), lax.expand_dims(idx, (1,)), v,
                      ScatterDimensionNumbers((), (0,), (0,)), mode=smode)
    return lax.reshape(out, a.shape)


def _sparse_iota(shape, d, idt):
    return lax.broadcasted_iota(idt, tuple(s if i == d else 1 for i, s in enumerate(shape)), d)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """A copy of ``arr`` with ``values`` written at ``indices`` along ``axis`` (the mirror
    of :func:`take_along_axis`); ``inplace`` must be False.

    Example::

        >>> jnp.put_along_axis(jnp.zeros((2, 2)), jnp.asarray([[1], [0]]), 9.0, axis=1, inplace=False)
        Array([[0., 9.],
               [9., 0.]], dtype=float32)
    """
    if inplace:
        raise _not_inplace("put_along_axis")
    a = ensure_array("put_along_axis", arr)
    indices = _int_indices("put_along_axis", indices)
    shape0 = a.shape
    if axis is None:
        a, axis = _ravel(a), 0
    if a.ndim != indices.ndim:
        raise ValueError(f"put_along_axis: 'arr' and 'indices' must have the same ndim, got "
                         f"{shape_str(a.shape)} and {shape_str(indices.shape)}")
    axis = normalize_axis(axis, a.ndim, "put_along_axis")
    idt = _index_dtype(a.shape, [indices])
    idx = tuple(indices if d == axis else _sparse_iota(a.shape, d, idt) for d in range(a.ndim))
    out = _IndexUpdateRef(a, idx).set(values, mode=mode)
    return lax.reshape(out, shape0) if tuple(out.shape) != tuple(shape0) else out


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """A copy of ``a`` with its main diagonal set to ``val`` (repeated as needed), as
    NumPy's ``fill_diagonal``; ``inplace`` must be False.

    Args:
      a: an array of rank >= 2 (all dims equal when rank > 2; concrete shape).
      val: a scalar or an array of values written in order along the diagonal.
      wrap: for tall 2-D arrays, restart the diagonal below the first N columns.

    Example::

        >>> jnp.fill_diagonal(jnp.zeros((2, 2)), 5.0, inplace=False)
        Array([[5., 0.],
               [0., 5.]], dtype=float32)
    """
    if inplace:
        raise _not_inplace("fill_diagonal")
    a = ensure_array("fill_diagonal", a)
    if a.ndim < 2 or not all(type(d) is int for d in a.shape):
        raise ValueError(f"jnp.fill_diagonal: array must be at least 2-d with a concrete "
                         f"shape, got {shape_str(a.shape)}")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError(f"jnp.fill_diagonal: all dimensions of input must be of equal "
                         f"length, got shape {shape_str(a.shape)}")
    if a.ndim == 2:
        step, end = a.shape[1] + 1, None if wrap else a.shape[1] * a.shape[1]
    else:
        step, end = 1 + int(np.cumprod(a.shape[:-1]).sum()), None
    idx = np.arange(a.size)[:end:step]
    v = _ravel(asarray(val, dtype=a.dtype)) if not isinstance(val, (Array, Tracer)) else \
        _ravel(lax.convert_element_type(val, a.dtype))
    if idx.size == 0 or v.shape[0] == 0:
        return a
    if v.shape[0] != idx.size:  # NumPy repeats (or truncates) the values
        v = take(v, Array((np.arange(idx.size) % v.shape[0]).astype(np.int32), False))
    flat = _IndexUpdateRef(_ravel(a), Array(idx.astype(np.int32), False)).set(v)
    return lax.reshape(flat, a.shape)


# -- nonzero and friends --------------------------------------------------------------------------
def _size_arg(size, fname):
    if size is None:
        return None
    size = static_index(concrete_value(size, f"the size argument of jnp.{fname}"), "size",
                        f"jnp.{fname}")
    if size < 0:
        raise ValueError(f"jnp.{fname}: size must be non-negative, got {size}")
    return size


def _fills(fill_value, ndim, fname):
    fills = fill_value if isinstance(fill_value, (tuple, list)) else (fill_value,) * ndim
    if len(fills) != ndim:
        raise ValueError(f"jnp.{fname}: fill_value must be a scalar or a tuple of length "
                         f"{ndim}, got {fill_value!r}")
    return [0 if f is None else f if isinstance(f, Tracer) else
            static_index(concrete_value(f, "fill_value"), "fill_value", f"jnp.{fname}")
            for f in fills]


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the non-zero elements of ``a``, one array per dim.

    Args:
      a: array (rank >= 1).
      size: static number of results; under ``jit`` it is required. Extra results are
        dropped, missing ones are padded with ``fill_value`` (default 0; a scalar or one
        value per dim).

    Returns:
      A tuple of ``a.ndim`` integer arrays.
    """
    a = ensure_array("nonzero", a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    size = _size_arg(size, "nonzero")
    idt = dtypes.default_int()
    fills = None if size is None else _fills(fill_value, a.ndim, "nonzero")
    traced_fill = fills is not None and any(isinstance(f, Tracer) for f in fills)
    if isinstance(a, Array) and not traced_fill:  # concrete: NumPy does the work
        found = np.nonzero(a._value)
        if size is None:
            return tuple(Array(f.astype(idt), False) for f in found)
        return tuple(Array(np.concatenate([f[:size], np.full(max(size - f.size, 0), fv)])
                           .astype(idt), False) for f, fv in zip(found, fills))
    if size is None:
        raise ConcretizationTypeError(
            f"The size argument of jnp.nonzero must be statically specified to use "
            f"jnp.nonzero (or argwhere, flatnonzero, compress, extract) within tjit "
            f"transformations: the number of results depends on the values of "
            f"{a.aval.str_short()}. Fix: pass size=N (and fill_value=...), or use "
            f"jnp.where(mask, x, 0) to keep the shape.")
    return _traced_nonzero(a, size, fills, idt)


def _traced_nonzero(a, size, fills, idt):
    mask = _ravel(lax.ne(a, lax.full((), 0, a.dtype)))
    pos = lax.sub(lax.cumsum(lax.convert_element_type(mask, idt)), lax.full((), 1, idt))
    target = lax.select(mask, pos, lax.full(mask.shape, size, idt))  # size: dropped
    target = lax.expand_dims(target, (1,))
    dn = ScatterDimensionNumbers((), (0,), (0,))
    return tuple(lax.scatter(_fill_vector(fv, size, idt), target,
                             _ravel(lax.broadcasted_iota(idt, a.shape, d)), dn)
                 for d, fv in enumerate(fills))


def _fill_vector(fv, size, idt):
    """``size`` copies of a fill value, a Python int or (as JAX allows) a traced scalar."""
    if not isinstance(fv, Tracer):
        return lax.full((size,), fv, idt)
    if fv.ndim != 0 or not (dtypes.is_int(fv.dtype) or dtypes.is_bool(fv.dtype)):
        raise TypeError(f"jnp.nonzero: a traced fill_value must be an integer scalar, got "
                        f"{fv.aval.str_short()}")
    return lax.broadcast_in_dim(lax.convert_element_type(fv, idt), (size,), ())


def flatnonzero(a, *, size=None, fill_value=None):
    """Indices of the non-zero elements of the flattened ``a`` (see :func:`nonzero`)."""
    return nonzero(_ravel(ensure_array("flatnonzero", a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """``(N, a.ndim)`` array of the indices of the non-zero elements (see nonzero)."""
    a = ensure_array("argwhere", a)
    nz = nonzero(a if a.ndim else lax.reshape(a, (1,)), size=size, fill_value=fill_value)
    out = lax.concatenate([lax.expand_dims(i, (1,)) for i in nz], 1)
    return out if a.ndim else lax.slice(out, (0, 0), (out.shape[0], 0))


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of ``a`` along ``axis`` where 1-D ``condition`` is true (flattened ``a``
    if axis is None); ``size``/``fill_value`` give a static result length under jit."""
    if out is not None:
        raise NotImplementedError("jnp.compress: the 'out' argument is not supported")
    cond = ensure_array("compress", condition)
    a = ensure_array("compress", a)
    if cond.ndim != 1:
        raise ValueError(f"jnp.compress: condition must be 1-D, got shape "
                         f"{shape_str(cond.shape)}")
    a, axis = (_ravel(a), 0) if axis is None else (a, normalize_axis(axis, a.ndim, "compress"))
    n = a.shape[axis]
    if type(n) is int and type(cond.shape[0]) is int and cond.shape[0] > n:
        # NumPy and JAX ignore a longer condition's tail when it holds no True entry
        # (JAX checks only without size=; with it the tail is dropped unseen).
        extra = lax.slice(cond, (n,), (cond.shape[0],))
        if size is None and not isinstance(extra, Tracer) and np.any(np.asarray(extra)):
            raise IndexError(f"jnp.compress: condition of length {cond.shape[0]} has True "
                             f"entries past axis {axis} of size {n}")
        cond = lax.slice(cond, (0,), (n,))
    idx = nonzero(cond, size=size, fill_value=cond.shape[0] if size is not None else None)[0]
    if size is None:
        return take(a, idx, axis=axis)
    # Padded positions point past the condition: give them fill_value.
    in_range = lax.lt(idx, lax.full((), cond.shape[0], idx.dtype))
    got = take(a, lax.select(in_range, idx, lax.full(idx.shape, 0, idx.dtype)), axis=axis,
               mode="clip")
    shape = tuple(1 if i != axis else size for i in range(a.ndim))
    mask = broadcast_to_shape(lax.reshape(in_range, shape), tuple(got.shape))
    return lax.select(mask, got, lax.full_like(got, fill_value))


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of ``arr`` where ``condition`` is non-zero (both flattened)."""
    cond = _ravel(ensure_array("extract", condition))
    cond = lax.ne(cond, lax.full((), 0, cond.dtype))
    return compress(cond, _ravel(ensure_array("extract", arr)), size=size,
                    fill_value=fill_value)


def place(arr, mask, vals, *, inplace=True):
    """A copy of ``arr`` whose masked entries take the values ``vals`` in order (``vals``
    repeats when too short); ``inplace`` must be False.

    Example::

        >>> jnp.place(jnp.arange(4), jnp.asarray([True, False, True, False]), jnp.asarray([9]), inplace=False)
        Array([9, 1, 9, 3], dtype=int32)
    """
    if inplace:
        raise _not_inplace("place")
    a = ensure_array("place", arr)
    m = _ravel(lax.ne(*promote_dtypes(ensure_array("place", mask), 0)))
    v = _ravel(asarray(vals, dtype=a.dtype))
    if tuple(m.shape) != (shape_size(a.shape),):
        raise ValueError(f"jnp.place: mask of shape {shape_str(np.shape(mask))} must have the "
                         f"size of arr {shape_str(a.shape)}")
    if v.shape[0] == 0:
        if isinstance(m, Array) and not m._value.any():
            return a
        raise ValueError("jnp.place: cannot insert from an empty array of vals")
    idt = dtypes.default_int()
    k = lax.sub(lax.cumsum(lax.convert_element_type(m, idt)), lax.full((), 1, idt))
    k = remainder(lax.max(k, lax.full((), 0, idt)), v.shape[0])
    return lax.reshape(lax.select(m, take(v, k, mode="clip"), _ravel(a)), a.shape)


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` elementwise (all arguments broadcast together).

    Args:
      mode: ``'raise'`` (needs a concrete ``a``), ``'wrap'`` or ``'clip'``.
    """
    if out is not None:
        raise NotImplementedError("jnp.choose: the 'out' argument is not supported")
    a = _int_indices("choose", a)
    if isinstance(choices, (Array, Tracer, np.ndarray)):
        choices = [choices[i] for i in range(len(choices))]
    n = len(choices)
    if n == 0:  # (checked before promotion, which fails on no operands)
        raise ValueError("jnp.choose: choices must not be empty")
    choices = promote_dtypes(*[asarray(c) for c in choices])
    if mode == "raise":
        av = concrete_value(a, "the choice array of jnp.choose with mode='raise' (use "
                               "mode='wrap' or mode='clip' under jit)")
        if np.any((av < 0) | (av >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = remainder(a, n)
    elif mode == "clip":
        a = lax.clamp(0, a, n - 1)
    else:
        raise ValueError(f"jnp.choose: invalid mode {mode!r}; use 'raise', 'wrap' or 'clip'")
    shape = broadcast_shapes(tuple(a.shape), *[tuple(c.shape) for c in choices], op="choose")
    which = broadcast_to_shape(lax.convert_element_type(a, dtypes.int32), shape)
    return lax.select_n(which, *[broadcast_to_shape(c, shape) for c in choices])


# -- index helpers ---------------------------------------------------------------------------------
def _static_n(n, fname, what="n"):
    n = static_index(concrete_value(n, f"the {what} argument of jnp.{fname}"), what,
                     f"jnp.{fname}")
    if n < 0:  # (a TypeError too: JAX's for tril_indices & co., its ValueError for others)
        raise NegativeDimensionError(f"jnp.{fname}: {what} must be non-negative, got {n}")
    return n


def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an ``n x ... x n`` array: ``ndim`` equal aranges."""
    idx = lax.iota(dtypes.default_int(), _static_n(n, "diag_indices"))
    return (idx,) * _static_n(ndim, "diag_indices", "ndim")


def diag_indices_from(arr):
    """``diag_indices`` for a square (all dims equal, rank >= 2) array."""
    arr = ensure_array("diag_indices_from", arr)
    if arr.ndim < 2 or not all(definitely_equal(d, arr.shape[0]) for d in arr.shape):
        raise ValueError(f"jnp.diag_indices_from: input must be at least 2-d with all dims "
                         f"of equal length, got shape {shape_str(arr.shape)}")
    return diag_indices(arr.shape[0], arr.ndim)


def _tri_indices(np_fn, fname, n, k, m):
    rows, cols = np_fn(_static_n(n, fname), static_index(k, "k", f"jnp.{fname}"),
                       None if m is None else _static_n(m, fname, "m"))
    idt = dtypes.default_int()
    return Array(rows.astype(idt), False), Array(cols.astype(idt), False)


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle (diagonal offset ``k``) of n x m."""
    return _tri_indices(np.tril_indices, "tril_indices", n, k, m)


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle (diagonal offset ``k``) of n x m."""
    return _tri_indices(np.triu_indices, "triu_indices", n, k, m)


def mask_indices(n, mask_func, k=0, *, size=None):
    """Indices of the n x n array where ``mask_func(ones((n, n)), k)`` is nonzero, as
    ``numpy.mask_indices`` (``mask_func`` is e.g. ``jnp.triu``); ``size`` as in
    ``jnp.nonzero`` (JAX)."""
    return nonzero(mask_func(asarray(np.ones((n, n), dtypes.default_int())), k), size=size)


def _from_2d(arr, fname):
    arr = ensure_array(fname, arr)
    if arr.ndim != 2:
        raise ValueError(f"jnp.{fname}: input array must be 2-d, got shape "
                         f"{shape_str(arr.shape)}")
    return arr.shape


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-d ``arr``."""
    n, m = _from_2d(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-d ``arr``."""
    n, m = _from_2d(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def ix_(*args):
    """Open mesh from 1-D sequences: ``x[jnp.ix_(rows, cols)]`` selects a sub-grid."""
    out = []
    for i, a in enumerate(args):
        a = asarray(a) if not (isinstance(a, (list, tuple)) and len(a) == 0) else \
            Array(np.zeros((0,), dtypes.default_int()), False)
        if a.ndim != 1:
            raise ValueError(f"jnp.ix_: cross index must be 1-dimensional, got shape "
                             f"{shape_str(a.shape)} for argument {i}")
        if dtypes.is_bool(a.dtype):
            if isinstance(a, Tracer):
                raise _bool_error(a, a.shape)
            a = nonzero(a)[0]
        shape = [1] * len(args)
        shape[i] = a.shape[0]
        out.append(lax.reshape(a, tuple(shape)))
    return tuple(out)


# -- index conversions ------------------------------------------------------------------------
def _static_dims(dims, fname):
    return tuple(_static_n(d, fname, "dims") for d in (dims if np.ndim(dims) else (dims,)))


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """Flat indices of the coordinate arrays ``multi_index`` into an array of shape
    ``dims`` (``mode`` 'raise' (eager check), 'wrap' or 'clip'; ``order`` 'C' or 'F'),
    of the integer ``dtype`` (default int), which must hold ``prod(dims) - 1``."""
    dims = _static_dims(dims, "ravel_multi_index")
    out_dt = canonical_index_dtype(dtype, "ravel_multi_index", math.prod(dims))
    if len(multi_index) != len(dims):
        raise ValueError(f"jnp.ravel_multi_index: {len(multi_index)} coordinate arrays for "
                         f"{len(dims)} dims")
    if order not in ("C", "F"):
        raise ValueError(f"jnp.ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"jnp.ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', "
                         f"got {mode!r}")
    # computed in the default int or a wider out_dt: the wrap/clip of a coordinate must
    # see its value before a narrow out_dt could wrap it
    idt = max(dtypes.default_int(), out_dt, key=lambda t: np.dtype(t).itemsize)
    idx = [ensure_array("ravel_multi_index", i) for i in multi_index]
    for i in idx:
        if not dtypes.is_int(i.dtype):
            raise TypeError(f"jnp.ravel_multi_index: coordinates must be integers, got "
                            f"{i.dtype}")
    idx = promote_args("ravel_multi_index", *idx) if idx else []  # dims () -> index 0
    if mode == "raise":
        _check_in_bounds(idx, dims)
    elif mode == "wrap":
        idx = [_wrap_index(i, d, idt) for i, d in zip(idx, dims)]
    idx = [saturating_int_cast(i, idt) for i in idx]
    if mode == "clip":
        idx = [lax.clamp(0, i, d - 1 if d else 0) for i, d in zip(idx, dims)]
    pairs = list(zip(idx, dims))
    if order == "F":
        pairs.reverse()
    out = lax.full((), 0, idt)
    for i, d in pairs:
        out = uf.add(uf.multiply(out, d), i)
    return lax.convert_element_type(out, out_dt)


def _wrap_index(i, d, idt):
    """``i mod d`` with its value intact: unsigned types at least as wide as ``idt`` take
    the remainder before the cast (which would wrap 2**32 - 1 to -1), narrower ones
    after it (``d`` may not fit them)."""
    src = np.dtype(i.dtype)
    if src.kind == "u" and src.itemsize >= idt.itemsize:
        return uf.remainder(i, d)
    return uf.remainder(lax.convert_element_type(i, idt), d)


def _check_in_bounds(idx, dims):
    for i, d in zip(idx, dims):
        if isinstance(i, Tracer):
            raise ConcretizationTypeError(
                "jnp.ravel_multi_index: mode='raise' needs concrete indices to check them; "
                "under jit use mode='wrap' or mode='clip'")
        v = np.asarray(i._value)
        if v.size and (v.min() < 0 or v.max() >= d):
            raise ValueError(f"jnp.ravel_multi_index: invalid entry in coordinates array "
                             f"(index out of bounds for dim of size {d})")


def unravel_index(indices, shape):
    """Coordinate arrays of the flat ``indices`` in an array of ``shape``. As JAX:
    negative indices count from the end and out-of-range ones are clipped."""
    shape = _static_dims(shape, "unravel_index")
    i = ensure_array("unravel_index", indices)
    if not dtypes.is_int(i.dtype):
        raise TypeError(f"jnp.unravel_index: indices must be integers, got {i.dtype}")
    total = 1
    for d in shape:
        total *= d
    if total == 0 and i.size:
        raise ValueError(f"jnp.unravel_index: cannot unravel into the empty shape {shape}")
    # computed in the default int (the clamp bounds may not fit a narrow dtype); the
    # coordinates have the indices' dtype and weak type, as JAX's (they fit: each is at
    # most the index itself or a clamped one below it)
    in_dtype, weak = i.dtype, i.weak_type
    idt = dtypes.default_int()
    i = lax.clamp(-total, saturating_int_cast(i, idt), total - 1 if total else 0)
    i = uf.remainder(i, total) if total else i
    out = []
    for d in reversed(shape):
        out.append(uf.remainder(i, d) if d else i)
        i = uf.floor_divide(i, d) if d else i
    return tuple(lax.convert_element_type(o, in_dtype, weak_type=weak) for o in reversed(out))


index_exp = np.index_exp
s_ = np.s_

__all__ = ["take", "take_along_axis", "put", "put_along_axis", "fill_diagonal", "nonzero",
           "flatnonzero", "argwhere", "compress", "extract", "place", "choose", "diag_indices",
           "diag_indices_from", "tril_indices", "triu_indices", "tril_indices_from",
           "triu_indices_from", "ix_", "index_exp", "s_", "ravel_multi_index",
           "unravel_index", "mask_indices"]
