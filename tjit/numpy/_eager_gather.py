"""The eager lane of advanced indexing: ``x[i]``, ``x[:, i]``, ``x[i, 2]``, ``x[i, j]``,
``x[mask]``, ``jnp.take``, ``jnp.take_along_axis`` and ``x.at[i].set/add/...`` on
NumPy-backed arrays outside any transformation.

JAX's index rules are applied to the index arrays first (negative indices wrap by the
dim, out-of-bounds ones are clamped, or filled for the take functions, or dropped for
updates); NumPy's own fancy indexing then places the result dims exactly as tjit's
general gather does (tjit follows NumPy's rules). Each function returns None where the general path must run (traced values,
empty or symbolic dims, masks that do not match, index arrays that do not broadcast,
keyword options): that path stays the definition and raises tjit's errors.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import Array, is_eager
from tjit.primitives.indexing import default_fill_value

_I32 = np.iinfo(np.int32)
_ALL = slice(None)
_MAX = np.maximum.reduce  # (the ufunc's reduce directly: a third of ndarray.max's cost)
_UNSIGNED = {np.dtype(s): np.dtype(u) for s, u in (
    (np.int8, np.uint8), (np.int16, np.uint16), (np.int32, np.uint32), (np.int64, np.uint64))}


def _numpy_value(x):
    """``x``'s NumPy buffer when ``x`` is a concrete NumPy-backed Array, else None."""
    if type(x) is not Array:
        return None
    v = x._value
    return v if type(v) is np.ndarray else None


def _index_value(e):
    """An index array's NumPy value (a concrete Array or a NumPy array of integer or
    bool dtype), else None."""
    if type(e) is Array:
        e = e._value
    if type(e) is not np.ndarray or e.dtype.kind not in "iub":
        return None
    return e


def _as_int32_range(k):
    """Signed ``intp`` copy of index values ``k`` with values past int32 clipped into its
    range, as the general path's int32 index arrays hold them (they stay out of bounds)."""
    if k.dtype.itemsize > 4 or k.dtype == np.uint32:
        k = np.minimum(k, _I32.max) if k.dtype.kind == "u" else np.clip(k, _I32.min, _I32.max)
    return np.array(k, np.intp)  # (a copy, and an array even where clip gave a scalar)


def _in_bounds(k, n, wrap=False):
    """Whether every value of integer array ``k`` is in ``[0, n)`` (``[-n, n)`` if
    ``wrap``): one reduction, as negative values read as unsigned are past any ``n``."""
    if wrap:
        return k.size == 0 or (-n <= k.min() and k.max() < n)
    u = _UNSIGNED.get(k.dtype)
    return k.size == 0 or _MAX(k if u is None else k.view(u), None) < n


def _list_index(e, lists):
    """A (nested) list of ints as an index array (noted in ``lists``), else None."""
    try:
        a = np.asarray(e)
    except (ValueError, OverflowError):  # ragged, or ints past int64
        return None
    if a.dtype.kind != "i":  # (bool masks and floats: the general path)
        return None
    lists.append(a)
    return a


def _clamped(e, n):
    """Index array ``e`` along a dim of size ``n > 0``: negatives wrap, then clamp into
    ``[0, n)`` (JAX's gather on ``x[i]``); ``e`` itself where it is in bounds."""
    if _in_bounds(e, n):
        return e
    k = _as_int32_range(e)
    np.add(k, n, out=k, where=k < 0)
    np.maximum(k, 0, out=k)
    np.minimum(k, n - 1, out=k)
    return k


def _one_axis(idx, ndim):
    """``(axis, index values)`` when ``idx`` is ``i``, ``(:, i)`` or ``(..., i)`` for an
    integer Array ``i`` with dims, else ``(None, None)``."""
    if type(idx) is tuple and len(idx) == 2 and type(idx[1]) is Array:
        first, i = idx
        axis = 1 if type(first) is slice and first == _ALL else \
            ndim - 1 if first is Ellipsis else None
    else:
        axis, i = 0, idx
    if axis is None or type(i) is not Array or not 0 <= axis < ndim:
        return None, None
    k = i._value
    if type(k) is not np.ndarray or k.dtype.kind not in "iu" or not k.ndim:
        return None, None
    return axis, k


def eager_getitem(x, idx):
    """``x[idx]`` for an advanced ``idx`` (integer/bool arrays with ints, plain slices,
    None and one Ellipsis), or None when the general gather path must run."""
    v = _numpy_value(x)
    if v is None or not is_eager():
        return None
    axis, k = _one_axis(idx, v.ndim)
    if k is not None and v.shape[axis]:  # x[i], x[:, i], x[..., i] without the walk below
        return Array(np.take(v, _clamped(k, v.shape[axis]), axis), x._weak)
    entries = idx if type(idx) is tuple else (idx,)
    kinds, used, arrays, lists = [], 0, 0, []
    for e in entries:
        te = type(e)
        if te is int or te is slice:
            if te is slice and not all(b is None or type(b) is int
                                       for b in (e.start, e.stop, e.step)):
                return None
            kinds.append(te)
            used += 1
        elif e is None or e is Ellipsis:
            kinds.append(e)
        else:
            a = _index_value(e) if te is not list else _list_index(e, lists)
            if a is None or a.ndim == 0 and a.dtype == np.bool_:
                return None
            kinds.append(a)
            used += a.ndim if a.dtype == np.bool_ else 1
            arrays += a.ndim > 0
    if not arrays or used > v.ndim or sum(k is Ellipsis for k in kinds) > 1:
        return None
    out, ax = [], 0
    for e, k in zip(entries, kinds):
        if k is None:
            out.append(None)
        elif k is Ellipsis:
            out.append(Ellipsis)
            ax += v.ndim - used
        elif k is slice:
            out.append(e)
            ax += 1
        elif k is int:  # beside index arrays an int is clamped too (as in JAX)
            n = v.shape[ax]
            if n == 0:
                return None
            out.append(min(max(e + n if e < 0 else e, 0), n - 1))
            ax += 1
        elif k.dtype == np.bool_:
            if k.shape != v.shape[ax:ax + k.ndim]:
                return None
            out.append(k)
            ax += k.ndim
        else:
            n = v.shape[ax]
            if n == 0 or any(k is a for a in lists) and not _in_bounds(k, n, wrap=True):
                return None  # (a list past [-n, n): the general path's asarray decides)
            c = _clamped(k, n)
            out.append(int(c) if c.ndim == 0 else c)  # a 0-d array index acts as an int
            ax += 1
    try:
        res = v[tuple(out)]
    except (IndexError, ValueError):  # e.g. index arrays that do not broadcast
        return None
    return Array(res if type(res) is np.ndarray else np.asarray(res), x._weak)


def eager_take(a, indices, axis, mode, fill_value):
    """``jnp.take(a, indices, axis, mode=mode)`` for Arrays ``a`` and ``indices`` (an
    integer one), or None when the general gather path must run."""
    v, k = _numpy_value(a), _numpy_value(indices)
    if v is None or k is None or k.dtype.kind not in "iu" or fill_value is not None or \
            mode not in (None, "fill", "clip"):
        return None
    if not is_eager() or k.dtype.itemsize > 4 or k.dtype == np.uint32:
        return None  # (wider indices convert as the general path's int32 arrays do)
    if axis is None:
        v, axis = v.reshape(-1), 0
    elif type(axis) is not int or not -v.ndim <= axis < v.ndim:
        return None
    axis %= v.ndim
    n = v.shape[axis]
    if n == 0:
        return None
    if _in_bounds(k, n):
        res = np.take(v, k, axis)
        return Array(res if type(res) is np.ndarray else np.asarray(res), a._weak)
    k = k.astype(np.intp)
    if mode == "clip":  # NumPy's take: negative indices clamp to 0
        res = np.take(v, k, axis, mode="clip")
    else:
        np.add(k, n, out=k, where=k < 0)
        res = np.take(v, k, axis, mode="clip")
        ok = (k >= 0) & (k < n)
        if not ok.all():
            ok = ok.reshape((1,) * axis + ok.shape + (1,) * (v.ndim - axis - 1))
            fv = np.asarray(default_fill_value(v.dtype), v.dtype)
            res = np.where(ok, res, fv)
    return Array(res if type(res) is np.ndarray else np.asarray(res), a._weak)


def eager_scatter(v, idx, y, ufunc):
    """A copy of NumPy array ``v`` updated as ``x.at[idx].set(y)`` (``ufunc`` None) or
    ``.add/.subtract/.multiply(y)`` (``ufunc`` np.add, ...) for one integer index array
    ``idx`` on axis 0, with JAX's scatter rules: negative indices wrap, out-of-bounds
    updates are dropped, repeated indices accumulate (``ufunc.at``) or, for ``set``,
    the last one wins (as the reference scatter). ``y`` is a NumPy array of ``v``'s dtype
    or a Python scalar that converts exactly. None when the general path must run."""
    k = _index_value(idx)
    if k is None or k.ndim == 0 or k.dtype == np.bool_ or v.ndim == 0 or v.shape[0] == 0:
        return None
    if ufunc is np.multiply and v.dtype.kind == "c":
        return None  # (the last bit of a complex product depends on NumPy's loop)
    if type(y) is float and v.dtype.itemsize < 4:  # (float16: the general path rounds
        return None                                 # through float32 first)
    if type(y) is not np.ndarray:  # ufunc.at would compute a Python float in float64
        y = np.asarray(y, v.dtype)
    n, target = v.shape[0], k.shape + v.shape[1:]
    if y.ndim:
        while y.ndim > len(target) and y.shape[0] == 1:  # NumPy drops leading 1s
            y = y[0]
        try:
            y = np.broadcast_to(y, target)
        except ValueError:
            return None
    if not _in_bounds(k, n):
        k = _as_int32_range(k)
        np.add(k, n, out=k, where=k < 0)
        ok = (k >= 0) & (k < n)
        k = k[ok]  # drop the out-of-bounds updates
        y = y[ok] if y.ndim else y
    out = v.copy()
    if ufunc is None:
        out[k] = y
    elif dtypes.is_inexact(v.dtype):
        with np.errstate(all="ignore"):  # overflow and NaN stay silent, as in JAX
            ufunc.at(out, k, y)
    else:
        ufunc.at(out, k, y)  # (integers wrap without warnings)
    return out


def eager_take_along_axis(a, indices, axis, mode, fill_value):
    """``jnp.take_along_axis(a, indices, axis, mode=mode)`` for Arrays ``a`` and
    ``indices`` (an integer one; the dims other than ``axis`` broadcast), or None when the
    general gather path must run. Negative indices wrap; out-of-bounds ones fill (the
    default) or, with ``mode='clip'``, clamp after wrapping (as JAX)."""
    v, k = _numpy_value(a), _numpy_value(indices)
    if v is None or k is None or k.dtype.kind not in "iu" or fill_value is not None or \
            mode not in (None, "fill", "clip") or not is_eager():
        return None
    if k.dtype.itemsize > 4 or k.dtype == np.uint32:
        return None  # (wider indices convert as the general path's int32 arrays do)
    if axis is None:
        if k.ndim != 1:
            return None
        v, axis = v.reshape(-1), 0
    if v.ndim != k.ndim or type(axis) is not int or not -v.ndim <= axis < v.ndim:
        return None
    axis %= v.ndim
    n = v.shape[axis]
    if n == 0:
        return None
    try:
        if _in_bounds(k, n):
            return Array(np.take_along_axis(v, k, axis), a._weak)
        k = k.astype(np.intp)
        np.add(k, n, out=k, where=k < 0)
        ok = (k >= 0) & (k < n)
        res = np.take_along_axis(v, np.clip(k, 0, n - 1), axis)
    except (IndexError, ValueError):  # dims that do not broadcast: the general error
        return None
    if mode != "clip" and not ok.all():
        res = np.where(ok, res, np.asarray(default_fill_value(v.dtype), v.dtype))
    return Array(res, a._weak)
