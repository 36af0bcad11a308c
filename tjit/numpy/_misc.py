"""Miscellaneous ``tjit.numpy`` functions: selection (where, select, clip), comparisons
(isclose, array_equal), signal and numerical helpers (convolve, interp, gradient,
trapezoid), counting (bincount, histogram, digitize), statistics (cov, corrcoef), set
operations. Index conversions (ravel_multi_index, unravel_index) are in
``_index_routines``.

Lookups into small tables (interp, bincount, histogram) use one-hot masks rather than a
gather: O(n * table) work, but every function here then traces under ``jit`` with
nothing more than elementwise ops and reductions. Functions whose output size depends
on the data (one-argument ``where``, the set operations) run eagerly, or take ``size=``.
Counting and statistics (bincount, histogram, cov, ...) live in ``_statistics``.
"""


import numpy as np

from tjit import lax
from tjit.tracing import dtypes
from tjit.tracing.core import Array, EvalTrace, Tracer, concrete_value, trace_ctx
from tjit.tracing.errors import ConcretizationTypeError, InconclusiveDimensionError, static_index
from tjit.tracing.extended_dtypes import ExtendedArray
from tjit.tracing.shapes import (
    axis_tuple, broadcast_shapes, dim_str, greater_equal, normalize_axis, shape_str)
from tjit.numpy import _ufuncs as uf
from tjit.numpy._core import (
    asarray, broadcast_to_shape, check_arraylike, ensure_array, promote_args,
    promote_args_inexact, promote_dtypes, promote_dtypes_inexact, result_type_of)
from tjit.numpy import _reductions as red
from tjit.numpy._setops_sized import is_traced, sized_setop
from tjit.numpy._creation import canonical_dtype, dim_value


# -- small helpers --------------------------------------------------------------------------
def _broadcast_all(fname, *arrays):
    shape = broadcast_shapes(*[tuple(a.shape) for a in arrays], op=f"jnp.{fname}")
    return [broadcast_to_shape(a, shape) for a in arrays], shape


_to_bool = uf._to_bool


def _ravel(x):
    return lax.reshape(x, (x.size,)) if x.ndim != 1 else x


def _moveaxis(x, src, dst):
    src, dst = normalize_axis(src, x.ndim), normalize_axis(dst, x.ndim)
    perm = [i for i in range(x.ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, tuple(perm))


def _take1d(table, idx):
    """``table[idx]`` for a 1-D ``table`` and integer ``idx`` of any shape (entries out of
    range give 0), by summing a one-hot selection."""
    n = table.shape[0]
    full = tuple(idx.shape) + (n,)
    last = len(full) - 1
    pos = lax.broadcasted_iota(idx.dtype, full, last)
    hit = lax.eq(pos, lax.broadcast_in_dim(idx, full, tuple(range(last))))
    vals = lax.broadcast_in_dim(table, full, (last,))
    return lax.reduce_sum(lax.select(hit, vals, lax.full_like(table, 0, shape=())), (last,))


def _count_le(sorted_1d, x, strict=False):
    """``searchsorted(sorted_1d, x, side='left' if strict else 'right')`` by counting,
    in the default int type."""
    full = tuple(x.shape) + (sorted_1d.shape[0],)
    last = len(full) - 1
    xb = lax.broadcast_in_dim(x, full, tuple(range(last)))
    sb = lax.broadcast_in_dim(sorted_1d, full, (last,))
    hit = lax.lt(sb, xb) if strict else lax.le(sb, xb)
    if dtypes.is_inexact(x.dtype):  # NaN sorts after everything, as in NumPy: a NaN x
        # follows every number, and (side='right') the NaNs too, but precedes them for 'left'
        below = lax.eq(sb, sb) if strict else lax.full((), True, dtypes.bool_)
        hit = lax.bitwise_or(hit, lax.bitwise_and(lax.ne(xb, xb), below))
    return lax.reduce_sum(lax.convert_element_type(hit, dtypes.default_int()), (last,))


def _static(x, fname, what):
    x = concrete_value(x, f"the {what} argument of jnp.{fname}")
    return static_index(x, what, f"jnp.{fname}")


# -- selection --------------------------------------------------------------------------------
def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` is true, else ``y`` (broadcast together). With only
    ``condition`` it is ``nonzero(condition)``: eager, or under ``jit`` with a static
    ``size`` (missing entries are ``fill_value``, default 0)."""
    if x is None and y is None:
        return _nonzero(condition, size, fill_value)
    if x is None or y is None:
        raise ValueError("jnp.where: either both or neither of the x and y arguments "
                         "must be given")
    if isinstance(x, ExtendedArray) or isinstance(y, ExtendedArray):  # key arrays
        return type(x if isinstance(x, ExtendedArray) else y)._where(condition, x, y)
    cond = _to_bool(ensure_array("where", condition))
    x, y = promote_dtypes(x, y)
    if type(cond) is Array and type(x) is Array and type(y) is Array and \
            type(trace_ctx.trace) is EvalTrace:
        out = _where_eager(cond._value, x, y)
        if out is not None:
            return out
    (cond, x, y), _ = _broadcast_all("where", cond, x, y)
    return lax.select(cond, x, y)


def _where_eager(c, x, y):
    """``where`` of NumPy-backed operands (a bool condition, ``x`` and ``y`` of one dtype
    after promotion) as one ``np.where``, which broadcasts as the general path does
    (without its broadcast and select equations); None sends the call there (other
    values, or shapes that do not broadcast: the general path's error names them)."""
    xv, yv = x._value, y._value
    if type(c) is not np.ndarray or type(xv) is not np.ndarray or \
            type(yv) is not np.ndarray or c.dtype != np.bool_ or xv.dtype != yv.dtype:
        return None
    try:
        out = np.where(c, xv, yv)
    except ValueError:  # shapes that do not broadcast
        return None
    if type(out) is not np.ndarray or out.dtype != xv.dtype:
        return None
    return Array(out, x._weak and y._weak)  # (select_n's weak rule: all cases weak)


def _nonzero(a, size, fill_value):
    a = ensure_array("where", a)
    if a.ndim == 0:
        raise ValueError("jnp.where(condition) / nonzero of a 0-d array is not allowed; use "
                         "jnp.atleast_1d(condition) first")
    idt = dtypes.default_int()
    if isinstance(a, Array):
        idx = np.nonzero(np.asarray(a._value))
        if size is None:
            return tuple(Array(i.astype(idt)) for i in idx)
        return tuple(Array(v.astype(idt)) for v in _pad_eager(idx, size, fill_value))
    if size is None:
        raise ConcretizationTypeError(
            "jnp.where(condition) (nonzero) with a traced condition has a data-dependent "
            f"output size ({a.aval.str_short()}). Fix: pass size=... (and optionally "
            "fill_value=...), or call it outside jit.")
    return _nonzero_traced(a, _static(size, "where", "size"), fill_value)


def _fills(fill_value, ndim):
    if fill_value is None:
        return [0] * ndim
    f = np.asarray(concrete_value(fill_value, "the fill_value argument of jnp.where"))
    return list(np.broadcast_to(f, (ndim,)))


def _pad_eager(idx, size, fill_value):
    fills = _fills(fill_value, len(idx))
    out = []
    for i, f in zip(idx, fills):
        v = np.full(size, f, dtype=np.int64)
        n = min(size, i.size)
        v[:n] = i[:n]
        out.append(v)
    return out


def _nonzero_traced(a, size, fill_value):
    idt = dtypes.default_int()
    flat = _to_bool(_ravel(a))
    rank = lax.cumsum(lax.convert_element_type(flat, idt), 0)  # 1-based rank of each hit
    n = flat.shape[0]
    slots = lax.broadcasted_iota(idt, (size, n), 0)
    hit = lax.bitwise_and(lax.broadcast_in_dim(flat, (size, n), (1,)),
                          lax.eq(lax.broadcast_in_dim(rank, (size, n), (1,)),
                                 lax.add(slots, lax.full((), 1, idt))))
    where_ = lax.broadcasted_iota(idt, (size, n), 1)
    flat_idx = lax.reduce_sum(lax.select(hit, where_, lax.full((), 0, idt)), (1,))
    found = lax.reduce_or(hit, (1,))
    out = []
    for d, f in zip(reversed(range(a.ndim)), reversed(_fills(fill_value, a.ndim))):
        dim = lax.full((), a.shape[d], idt) if type(a.shape[d]) is int else \
            dim_value(a.shape[d])
        out.append(lax.select(found, lax.rem(flat_idx, dim), lax.full((), f, idt)))
        flat_idx = lax.div(flat_idx, dim)
    return tuple(reversed(out))


def select(condlist, choicelist, default=0):
    """``choicelist[i]`` where ``condlist[i]`` is the first true condition, else
    ``default`` (all broadcast together)."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"jnp.select: condlist has {len(condlist)} entries but choicelist "
                         f"has {len(choicelist)}; they must have the same length")
    if len(condlist) == 0:
        raise ValueError("jnp.select: condlist must not be empty")
    conds = [ensure_array("select", c) for c in condlist]
    for i, c in enumerate(conds):
        if not dtypes.is_bool(c.dtype):
            raise TypeError(f"jnp.select: condlist entries must be boolean arrays, got "
                            f"dtype {c.dtype} at position {i}")
    vals = promote_dtypes(default, *choicelist)
    out = vals[0]
    for c, v in zip(reversed(conds), reversed(vals[1:])):
        out = where(c, v, out)
    return out


def _is_python_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def clip(arr=None, /, min=None, max=None, *, a=None, a_min=None, a_max=None):  # noqa: A002
    """``arr`` limited to ``[min, max]`` (either may be None). ``a``, ``a_min`` and
    ``a_max`` are NumPy's older names for the same arguments."""
    if a is not None:
        if arr is not None:
            raise TypeError("jnp.clip: pass the array once (positionally or as a=)")
        arr = a
    if a_min is not None:
        if min is not None:
            raise TypeError("jnp.clip: pass min or a_min, not both")
        min = a_min  # noqa: A001
    if a_max is not None:
        if max is not None:
            raise TypeError("jnp.clip: pass max or a_max, not both")
        max = a_max  # noqa: A001
    if arr is None:
        raise TypeError("jnp.clip: missing the array argument")
    out = ensure_array("clip", arr)
    if any(isinstance(v, complex) or dtypes.is_complex(getattr(v, "dtype", np.float32))
           for v in (out, min, max)):
        # JAX's rule (NumPy orders complex numbers lexicographically)
        raise ValueError("jnp.clip: complex values have no ordering and cannot be clipped; "
                         "clip jnp.real(x) and jnp.imag(x) separately")
    if dtypes.is_int(out.dtype):
        # A Python int bound beyond the dtype's range on its own side clips nothing
        # (NumPy: np.clip(uint8_array, -1, 300) is the array); converting it would overflow.
        info = dtypes.iinfo(out.dtype)
        if _is_python_int(min) and min < info.min:
            min = None  # noqa: A001
        if _is_python_int(max) and max > info.max:
            max = None  # noqa: A001
    if min is not None:
        out = uf.maximum(min, out)
    if max is not None:
        out = uf.minimum(max, out)
    return out


# -- comparisons -----------------------------------------------------------------------------
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|``; infinities are close only to the same
    infinity, NaNs to nothing (or to NaN with ``equal_nan``)."""
    a, b = promote_args_inexact("isclose", a, b)
    rdt = dtypes.finfo(a.dtype).dtype
    rtol = lax.convert_element_type(rtol, rdt)
    atol = lax.convert_element_type(atol, rdt)
    out = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    a_inf, b_inf = uf.isinf(a), uf.isinf(b)
    out = lax.bitwise_and(out, lax.bitwise_not(lax.bitwise_or(a_inf, b_inf)))
    out = lax.bitwise_or(out, lax.bitwise_and(lax.bitwise_and(a_inf, b_inf), lax.eq(a, b)))
    a_nan, b_nan = uf.isnan(a), uf.isnan(b)
    out = lax.bitwise_and(out, lax.bitwise_not(lax.bitwise_or(a_nan, b_nan)))
    if equal_nan:
        out = lax.bitwise_or(out, lax.bitwise_and(a_nan, b_nan))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are :func:`isclose` (a bool array)."""
    return red.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether ``a1`` and ``a2`` have the same shape and elements (a bool array)."""
    a1, a2 = ensure_array("array_equal", a1), ensure_array("array_equal", a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return asarray(False)
    a1, a2 = promote_dtypes(a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan and dtypes.is_inexact(a1.dtype):
        eq = lax.bitwise_or(eq, lax.bitwise_and(uf.isnan(a1), uf.isnan(a2)))
    return red.all(eq)


def array_equiv(a1, a2):
    """Whether ``a1`` and ``a2`` are equal after broadcasting (False if they do not
    broadcast)."""
    a1, a2 = ensure_array("array_equiv", a1), ensure_array("array_equiv", a2)
    try:
        a1, a2 = promote_args("array_equiv", a1, a2)
    except ValueError:
        return asarray(False)
    return red.all(uf.equal(a1, a2))


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (a Python bool)."""
    dt = getattr(x, "dtype", None)
    if dt is None:
        dt = np.asarray(x).dtype
    return dtypes.is_complex(dt)


def isrealobj(x):
    """Whether ``x`` does not have a complex dtype (a Python bool)."""
    return not iscomplexobj(x)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf``
    (default: the largest finite values of the dtype); complex parts separately."""
    x = ensure_array("nan_to_num", x)
    if not dtypes.is_inexact(x.dtype):
        return x
    if dtypes.is_complex(x.dtype):
        re = nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(re, im)
    info = dtypes.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = lax.select(uf.isnan(x), lax.full((), nan, x.dtype), x)
    out = lax.select(uf.isposinf(x), lax.full((), posinf, x.dtype), out)
    return lax.select(uf.isneginf(x), lax.full((), neginf, x.dtype), out)


# -- signals and numerics ---------------------------------------------------------------------
def _conv_full(a, v):
    """Full 1-D convolution of same-dtype vectors: the outer product with row ``i``
    shifted right by ``i`` (pad, flatten, drop the tail, reshape), summed over rows.
    The shorter vector indexes the rows, so the work is O(N*M)."""
    if type(a.shape[0]) is int and type(v.shape[0]) is int and a.shape[0] < v.shape[0]:
        a, v = v, a
    n, m = v.shape[0], a.shape[0]  # n rows (the shorter), m columns
    outer = lax.mul(lax.broadcast_in_dim(v, (n, m), (0,)), lax.broadcast_in_dim(a, (n, m), (1,)))
    padded = lax.pad(outer, lax.full((), 0, a.dtype), ((0, 0, 0), (0, n, 0)))
    flat = lax.reshape(padded, (n * (m + n),))
    flat = lax.slice(flat, (0,), (n * (m + n - 1),))
    return lax.reduce_sum(lax.reshape(flat, (n, m + n - 1)), (0,))


def _conv_args(fname, a, v, mode, preferred_element_type):
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"jnp.{fname}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    a, v = ensure_array(fname, a), ensure_array(fname, v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"jnp.{fname}: only 1-D inputs are supported, got shapes "
                         f"{shape_str(a.shape)} and {shape_str(v.shape)}")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"jnp.{fname}: inputs cannot be empty, got shapes "
                         f"{shape_str(a.shape)} and {shape_str(v.shape)}")
    if preferred_element_type is None:  # JAX: integer/bool inputs give an inexact result
        return promote_dtypes_inexact(a, v)
    a, v = promote_dtypes(a, v)  # computed in (and returned as) the preferred type
    dt = canonical_dtype(preferred_element_type, fname)
    return lax.convert_element_type(a, dt), lax.convert_element_type(v, dt)


def _lo_hi(n, m, fname, mode):
    """``(min(n, m), max(n, m))`` of two lengths, int or symbolic."""
    try:
        if greater_equal(m, n):
            return n, m
        if greater_equal(n, m):
            return m, n
    except InconclusiveDimensionError:
        pass
    raise InconclusiveDimensionError(
        f"jnp.{fname}: mode={mode!r} needs to know which input is shorter, but the lengths "
        f"{dim_str(n)} and {dim_str(m)} are symbolic and either may be; use mode='full' or "
        f"trace with concrete shapes")


def _conv_mode(full, n, m, mode, same_start, fname):
    if mode == "full":
        return full
    lo, hi = _lo_hi(n, m, fname, mode)
    if mode == "same":
        return lax.slice(full, (same_start,), (same_start + hi,))
    return lax.slice(full, (lo - 1,), (hi,))


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """Discrete linear convolution of two 1-D arrays (``mode`` 'full', 'same' or
    'valid', as NumPy). As in JAX, integer and bool inputs give a float result unless
    ``preferred_element_type`` names the result's dtype."""
    a, v = _conv_args("convolve", a, v, mode, preferred_element_type)
    n, m = a.shape[0], v.shape[0]
    full = _conv_full(a, v)
    if mode == "full":
        return full
    return _conv_mode(full, n, m, mode, (_lo_hi(n, m, "convolve", mode)[0] - 1) // 2,
                      "convolve")


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation ``c[k] = sum_n a[n + k] * conj(v[n])`` of two 1-D arrays
    (``mode`` 'valid' (default), 'same' or 'full', as NumPy); dtypes as :func:`convolve`."""
    a, v = _conv_args("correlate", a, v, mode, preferred_element_type)
    n, m = a.shape[0], v.shape[0]
    w = lax.rev(v, (0,))
    if dtypes.is_complex(w.dtype):
        w = lax.conj(w)
    full = _conv_full(a, w)
    if mode == "full":
        return full
    same_start = (m - 1) // 2 if _lo_hi(n, m, "correlate", mode)[1] == n else n // 2
    return _conv_mode(full, n, m, mode, same_start, "correlate")


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points ``(xp, fp)`` at ``x`` (``xp``
    increasing; ``left``/``right`` outside the range, default ``fp[0]``/``fp[-1]``, or
    ``'extrapolate'`` to extend the end segments, as JAX; ``period`` for periodic ``x``,
    which ignores ``left`` and ``right`` as NumPy and JAX do)."""
    for name, v in (("left", left), ("right", right)):
        if isinstance(v, str) and v != "extrapolate":
            raise ValueError(f"jnp.interp: the only string value of {name} is "
                             f"'extrapolate', got {v!r}")
    check_arraylike("interp", x, xp, fp)
    if period is not None:
        left = right = None
    x, xp = promote_dtypes_inexact(x, xp)
    (fp,) = promote_dtypes_inexact(fp)
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"jnp.interp: xp and fp must be 1-D, got shapes "
                         f"{shape_str(xp.shape)} and {shape_str(fp.shape)}")
    if xp.shape[0] != fp.shape[0] or xp.shape[0] == 0:
        raise ValueError(f"jnp.interp: xp and fp must have the same non-zero length, got "
                         f"shapes {shape_str(xp.shape)} and {shape_str(fp.shape)}")
    if dtypes.is_complex(fp.dtype):  # the two parts apart, as NumPy: a complex product
        # with an infinite part has a NaN one ((0.5+0j) * (inf+0j) is inf + nanj)
        def part(take, v):
            return v if v is None or isinstance(v, str) else take(v)

        return lax.complex(*(interp(x, xp, take(fp), part(take, left), part(take, right),
                                    period) for take in (uf.real, uf.imag)))
    if period is not None:
        x, xp, fp = _periodic_table(x, xp, fp, period)
    n = xp.shape[0]
    idt = dtypes.default_int()
    if type(n) is int:
        hi = n - 1 if n > 1 else 1
    else:  # symbolic: max(n - 1, 1) at run time
        hi = lax.max(lax.sub(dim_value(n), lax.full((), 1, idt)), lax.full((), 1, idt))
    i = lax.clamp(lax.full((), 1, idt), _count_le(xp, x), hi)
    im1 = lax.sub(i, lax.full((), 1, idt))
    xp_lo, xp_hi = _take1d(xp, im1), _take1d(xp, i)
    fp_lo, fp_hi = _take1d(fp, im1), _take1d(fp, i)
    dx = lax.sub(xp_hi, xp_lo)
    dx0 = lax.le(lax.abs(dx), lax.full((), np.spacing(dtypes.finfo(dx.dtype).eps), dx.dtype))
    # promoted as JAX's formula: the result has the type of x, xp and fp together (a
    # weak one where all three are weak)
    slope = lax.div(lax.sub(x, xp_lo), where(dx0, 1, dx))
    df = lax.sub(fp_hi, fp_lo)
    f = uf.add(fp_lo, uf.multiply(slope, df))
    # an infinite fp makes inf - inf = NaN from fp_lo's side: NumPy then tries fp_hi's
    # side, and answers fp_lo at a node or between two equal values (so interp(2, [0, 2,
    # 4], [0, inf, 20]) is inf, not NaN); only where f is NaN, so gradients keep the slope
    from_hi = uf.add(fp_hi, uf.multiply(uf.subtract(slope, 1), df))
    at_lo = lax.bitwise_or(lax.eq(x, xp_lo), uf.equal(fp_lo, fp_hi))
    from_hi = where(lax.eq(x, xp_hi), fp_hi, from_hi)  # the last node
    f = where(uf.isnan(f) & ~uf.isnan(x), where(at_lo, fp_lo, from_hi), f)
    f = where(dx0, fp_lo, f)
    if type(n) is int and n == 1 and period is None:  # one node: NumPy (and JAX) answer
        # fp[0] at every x neither left nor right of it, a NaN x included
        f = where(uf.isnan(x), broadcast_to_shape(lax.index_in_dim(fp, 0, 0, False), x.shape), f)
    if period is None:
        first, last = lax.index_in_dim(xp, 0, 0, False), lax.index_in_dim(xp, n - 1, 0, False)
        lv = lax.index_in_dim(fp, 0, 0, False) if left is None else left
        rv = lax.index_in_dim(fp, n - 1, 0, False) if right is None else right
        # (outside, the end segments' lines are f already: 'extrapolate' keeps them)
        if not isinstance(left, str):
            f = where(lax.lt(x, broadcast_to_shape(first, x.shape)), lv, f)
        if not isinstance(right, str):
            f = where(lax.gt(x, broadcast_to_shape(last, x.shape)), rv, f)
    return f


def _periodic_table(x, xp, fp, period):
    period = lax.abs(lax.convert_element_type(asarray(period), xp.dtype))
    x = uf.remainder(x, period)
    xp = uf.remainder(xp, period)
    xp, fp = lax.sort([xp, fp], 0, True, 1)
    n = xp.shape[0]
    xp = lax.concatenate([lax.sub(lax.slice(xp, (n - 1,), (n,)), period), xp,
                          lax.add(lax.slice(xp, (0,), (1,)), period)], 0)
    fp = lax.concatenate([lax.slice(fp, (n - 1,), (n,)), fp, lax.slice(fp, (0,), (1,))], 0)
    return x, xp, fp


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (or 2-vectors: the z component) along the given
    axes; the rest broadcast."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote_dtypes(ensure_array("cross", a), ensure_array("cross", b))
    a, b = _moveaxis(a, axisa, -1), _moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(f"jnp.cross: incompatible dimensions for cross product (dimension "
                         f"must be 2 or 3), got shapes {shape_str(a.shape)} and "
                         f"{shape_str(b.shape)}")

    def comp(x, i):
        if i >= x.shape[-1]:
            return None
        return lax.index_in_dim(x, i, x.ndim - 1, False)

    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))
    z = uf.subtract(uf.multiply(a0, b1), uf.multiply(a1, b0))
    if a2 is None and b2 is None:
        return z

    def mul(p, q):
        return None if p is None or q is None else uf.multiply(p, q)

    def sub(p, q):
        if p is None:
            return uf.negative(q) if q is not None else None
        return p if q is None else uf.subtract(p, q)

    x_ = sub(mul(a1, b2), mul(a2, b1))
    y_ = sub(mul(a2, b0), mul(a0, b2))
    parts, shape = _broadcast_all("cross", x_, y_, z)
    c = lax.concatenate([lax.expand_dims(p, (len(shape),)) for p in parts], len(shape))
    # strong, as JAX's (which assembles the 3-vector with jnp.array, whose result is)
    return _moveaxis(lax.convert_element_type(c, c.dtype, weak_type=False), -1, axisc)


def polyval(p, x, *, unroll=16):
    """Evaluate the polynomial with coefficients ``p`` (highest power first) at ``x``
    (Horner's rule). As NumPy and JAX, an N-d ``p`` holds one polynomial per trailing
    index: ``p[i]`` broadcasts against ``x``."""
    p, x = promote_dtypes(ensure_array("polyval", p), ensure_array("polyval", x))
    if p.ndim == 0:
        raise ValueError("jnp.polyval: p must have at least 1 dimension (the coefficients, "
                         "highest power first), got a scalar; wrap it as [p]")
    shape = broadcast_shapes(tuple(p.shape[1:]), tuple(x.shape), op="jnp.polyval")
    y = lax.full(shape, 0, x.dtype)
    for i in range(p.shape[0]):
        y = uf.add(uf.multiply(y, x), lax.index_in_dim(p, i, 0, False))
    return y


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule, with sample points ``x``
    (1-D, or ``y``'s shape) or spacing ``dx``."""
    y = ensure_array("trapezoid", y)
    if x is None:
        (y,) = promote_dtypes_inexact(y)
        y = _moveaxis(y, axis, -1)
        d = dx
    else:
        y, x = promote_dtypes_inexact(y, x)
        x = x if x.ndim == 1 else _moveaxis(x, axis, -1)
        y = _moveaxis(y, axis, -1)
        d = _diff_last(x)
    mid = lax.div(_pair_sum(y), lax.full((), 2, y.dtype))
    return red.sum(uf.multiply(d, mid), -1)


def _neighbours(x):
    """``x[..., 1:]`` and ``x[..., :-1]`` (both empty for an empty last dim)."""
    n = x.shape[-1]
    ax = x.ndim - 1
    if type(n) is int and n == 0:
        return x, x
    return lax.slice_in_dim(x, 1, n, 1, ax), lax.slice_in_dim(x, 0, n - 1, 1, ax)


def _diff_last(x):
    return lax.sub(*_neighbours(x))


def _pair_sum(x):
    return lax.add(*_neighbours(x))


trapz = trapezoid


def vander(x, N=None, increasing=False):  # noqa: N803
    """The Vandermonde matrix of the 1-D ``x``: columns are powers of ``x``
    (decreasing unless ``increasing``), built by cumulative products as NumPy does."""
    x = ensure_array("vander", x)
    if x.ndim != 1:
        raise ValueError(f"jnp.vander: x must be 1-D, got shape {shape_str(x.shape)}")
    n = x.shape[0] if N is None else _static(N, "vander", "N")
    if type(n) is int and n < 0:
        raise ValueError(f"jnp.vander: N must be non-negative, got {n}")
    shape = (x.shape[0], n)
    xb = lax.broadcast_in_dim(x, shape, (0,))
    col = lax.broadcasted_iota(dtypes.default_int(), shape, 1)
    base = lax.select(lax.eq(col, lax.full((), 0, col.dtype)), lax.full((), 1, x.dtype), xb)
    if dtypes.is_bool(x.dtype):
        return lax.cumprod(lax.convert_element_type(base, dtypes.default_int()), 1) if \
            increasing else lax.rev(lax.cumprod(lax.convert_element_type(
                base, dtypes.default_int()), 1), (1,))
    out = lax.cumprod(base, 1)
    return out if increasing else lax.rev(out, (1,))


def gradient(f, *varargs, axis=None, edge_order=None):
    """Gradient of sampled ``f`` by central differences inside and one-sided
    differences (order ``edge_order``, 1 or 2) at the ends. ``varargs``: one scalar
    spacing for all axes, or one scalar / 1-D coordinate array per axis.

    Returns:
      One array, or a tuple of arrays (one per axis) when several axes are differentiated.
    """
    (f,) = promote_dtypes_inexact(ensure_array("gradient", f))
    edge_order = 1 if edge_order is None else edge_order
    if edge_order not in (1, 2):
        raise ValueError(f"jnp.gradient: edge_order must be 1 or 2, got {edge_order}")
    axes = tuple(range(f.ndim)) if axis is None else tuple(
        normalize_axis(a, f.ndim, "jnp.gradient") for a in axis_tuple(axis))
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError(f"jnp.gradient: expected 0, 1 or {len(axes)} spacing arguments, got "
                        f"{len(varargs)}")
    outs = tuple(_gradient_along(f, h, ax, edge_order) for h, ax in zip(spacing, axes))
    # one axis, however named (axis=1, (1,), [1]): the array itself, as NumPy and JAX
    return outs[0] if len(outs) == 1 else outs


def _gradient_along(f, h, ax, edge_order):
    n = f.shape[ax]
    if type(n) is int and n < edge_order + 1:
        raise ValueError(f"jnp.gradient: shape {shape_str(f.shape)} is too small along axis "
                         f"{ax}: at least edge_order + 1 = {edge_order + 1} samples needed")
    y = _moveaxis(f, ax, -1)
    last = y.ndim - 1

    def s(lo, hi):  # y[..., lo:hi] (negative bounds count from the end)
        return lax.slice_in_dim(y, lo if lo >= 0 else n + lo, hi if hi > 0 else n + hi, 1,
                                last)

    h = ensure_array("gradient", h)
    # (a Python spacing stays weak: the weak type of f survives, as in JAX)
    h = lax.convert_element_type(h, f.dtype, weak_type=h.weak_type)
    if h.ndim == 0:
        two_h = lax.mul(h, lax.full_like(h, 2))
        inner = uf.divide(lax.sub(s(2, n), s(0, -2)), two_h)
        if edge_order == 1:
            first = uf.divide(lax.sub(s(1, 2), s(0, 1)), h)
            end = uf.divide(lax.sub(s(-1, n), s(-2, -1)), h)
        else:
            first = uf.divide(_lin3(s(0, 1), s(1, 2), s(2, 3), -1.5, 2.0, -0.5, f.dtype), h)
            end = uf.divide(_lin3(s(-3, -2), s(-2, -1), s(-1, n), 0.5, -2.0, 1.5, f.dtype), h)
    else:
        inner, first, end = _nonuniform(s, h, n, edge_order)
    out = lax.concatenate([first, inner, end], last)
    return _moveaxis(out, -1, ax)


def _lin3(p, q, r, a, b, c, dt):
    def k(v):
        return lax.full((), v, dt)
    return lax.add(lax.add(lax.mul(p, k(a)), lax.mul(q, k(b))), lax.mul(r, k(c)))


def _nonuniform(s, x, n, edge_order):
    """NumPy's second-order-accurate differences for sample coordinates ``x``."""
    dx = lax.sub(lax.slice(x, (1,), (n,)), lax.slice(x, (0,), (n - 1,)))
    dx1, dx2 = lax.slice(dx, (0,), (n - 2,)), lax.slice(dx, (1,), (n - 1,))
    m = uf.multiply
    dv = uf.divide
    a = uf.negative(dv(dx2, m(dx1, uf.add(dx1, dx2))))
    b = dv(uf.subtract(dx2, dx1), m(dx1, dx2))
    c = dv(dx1, m(dx2, uf.add(dx1, dx2)))
    inner = uf.add(uf.add(m(a, s(0, -2)), m(b, s(1, -1))), m(c, s(2, n)))
    d0, d1 = lax.slice(dx, (0,), (1,)), lax.slice(dx, (n - 2,), (n - 1,))
    if edge_order == 1:
        return inner, dv(uf.subtract(s(1, 2), s(0, 1)), d0), dv(uf.subtract(s(-1, n),
                                                                            s(-2, -1)), d1)
    e1, e2 = lax.slice(dx, (0,), (1,)), lax.slice(dx, (1,), (2,))
    a0 = uf.negative(dv(uf.add(m(2.0, e1), e2), m(e1, uf.add(e1, e2))))
    b0 = dv(uf.add(e1, e2), m(e1, e2))
    c0 = uf.negative(dv(e1, m(e2, uf.add(e1, e2))))
    first = uf.add(uf.add(m(a0, s(0, 1)), m(b0, s(1, 2))), m(c0, s(2, 3)))
    e1, e2 = lax.slice(dx, (n - 3,), (n - 2,)), d1
    a1 = dv(e2, m(e1, uf.add(e1, e2)))
    b1 = uf.negative(dv(uf.add(e2, e1), m(e1, e2)))
    c1 = dv(uf.add(m(2.0, e2), e1), m(e2, uf.add(e1, e2)))
    end = uf.add(uf.add(m(a1, s(-3, -2)), m(b1, s(-2, -1))), m(c1, s(-1, n)))
    return inner, first, end


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """Unwrap phases: add multiples of ``period`` so consecutive differences along
    ``axis`` stay within ``max(discont, period / 2)``. An integer ``p`` with an integer
    ``period`` stays integer, half a period rounded down (NumPy's rule)."""
    p = ensure_array("unwrap", p)
    integer = dtypes.is_int(p.dtype) and isinstance(period, (int, np.integer)) \
        and not isinstance(period, bool)
    if integer:
        half, odd = divmod(int(period), 2)
        ambiguous = not odd  # a difference of exactly half a period goes up, as NumPy's
    else:
        (p,) = promote_dtypes_inexact(p)
        half, ambiguous = period / 2, True
    limit = period / 2 if discont is None or discont < period / 2 else discont
    y = _moveaxis(p, axis, -1)
    n, last = y.shape[-1], y.ndim - 1
    if type(n) is int and n < 2:
        return p
    d = _diff_last(y)
    dt = d.dtype

    def k(v):
        return lax.full((), v, dt)

    ddmod = lax.add(uf.remainder(lax.add(d, k(half)), k(period)), k(-half))
    if ambiguous:
        ddmod = lax.select(lax.bitwise_and(lax.eq(ddmod, k(-half)), lax.gt(d, k(0))),
                           broadcast_to_shape(k(half), d.shape), ddmod)
    # |d| < limit; for integers that is |d| < ceil(limit)
    small = lax.lt(lax.abs(d), k(int(np.ceil(limit)) if integer else limit))
    correct = lax.select(small, broadcast_to_shape(k(0), d.shape), lax.sub(ddmod, d))
    rest = lax.add(lax.slice_in_dim(y, 1, n, 1, last), lax.cumsum(correct, last))
    return _moveaxis(lax.concatenate([lax.slice_in_dim(y, 0, 1, 1, last), rest], last), -1,
                     axis)


def piecewise(x, condlist, funclist, *args, **kw):
    """Evaluate ``funclist[i]`` (callables of ``x`` or constants) where ``condlist[i]``
    holds; a later true condition wins; an extra last function covers the rest (else 0).
    Every function is evaluated on all of ``x`` (no data-dependent control flow)."""
    x = ensure_array("piecewise", x)
    if isinstance(condlist, (Array, Tracer, np.ndarray)) and np.ndim(condlist) <= x.ndim or \
            isinstance(condlist, bool):
        condlist = [condlist]
    n = len(condlist)
    if len(funclist) == n + 1:
        otherwise, funcs = funclist[-1], funclist[:n]
    elif len(funclist) == n:
        otherwise, funcs = 0, funclist
    else:
        raise ValueError(f"jnp.piecewise: with {n} condition(s), {n} or {n + 1} functions "
                         f"are expected, got {len(funclist)}")

    def value(f):
        v = f(x, *args, **kw) if callable(f) else f
        return broadcast_to_shape(lax.convert_element_type(
            asarray(v) if not isinstance(v, (Array, Tracer)) else v, x.dtype), x.shape)

    out = value(otherwise)
    for c, f in zip(condlist, funcs):
        c = broadcast_to_shape(_to_bool(ensure_array("piecewise", c)), tuple(x.shape))
        out = lax.select(c, value(f), out)
    return out


# -- sets -------------------------------------------------------------------------------------
_ISIN_METHODS = ("compare_all", "binary_search", "sort", "auto")


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element of ``element`` occurs in ``test_elements`` (an all-pairs
    comparison, so it traces under ``jit``)."""
    # scalars unconverted, so one that does not fit the integer dtype raises OverflowError
    # instead of wrapping (isin(uint8_array, -1) matched 255)
    check_arraylike("isin", element, test_elements)
    if method not in _ISIN_METHODS:  # JAX's options; every one gives the same answer here
        raise ValueError(f"isin: method={method!r} is not implemented; options are "
                         f"{', '.join(map(repr, _ISIN_METHODS))}")
    e, t = promote_dtypes(element, test_elements)
    t = _ravel(t)
    full = tuple(e.shape) + (t.shape[0],)
    last = len(full) - 1
    eq = lax.eq(lax.broadcast_in_dim(e, full, tuple(range(last))),
                lax.broadcast_in_dim(t, full, (last,)))
    out = lax.reduce_or(eq, (last,))
    out = lax.bitwise_not(out) if invert else out
    return lax.convert_element_type(out, out.dtype, weak_type=False)  # (strong, as JAX's)


def in1d(ar1, ar2, assume_unique=False, invert=False, *, method="auto"):
    """``isin`` of the flattened ``ar1`` (NumPy's older name).

    Example::

        >>> jnp.in1d(jnp.asarray([1, 2, 5]), jnp.asarray([2, 5]))
        Array([False,  True,  True], dtype=bool)
    """
    return isin(_ravel(ensure_array("in1d", ar1)), ar2, assume_unique, invert)


def _set_inputs(fname, ar1, ar2, size):
    ar1, ar2 = ensure_array(fname, ar1), ensure_array(fname, ar2)
    for a in (ar1, ar2):
        if isinstance(a, Tracer):
            hint = "" if size is None else " (tjit computes set operations eagerly only)"
            raise ConcretizationTypeError(
                f"jnp.{fname}: the output size depends on the values of traced inputs "
                f"({a.aval.str_short()}){hint}. Fix: call jnp.{fname} outside jit, or "
                f"pass the arrays as static/concrete values.")
    dt = promote_dtypes(ar1, ar2)[0].dtype
    # NumPy sorts bfloat16/float8 with ml_dtypes' sort, which stops at a NaN (union1d of
    # a float8 array with itself came back longer than it); float32 holds their values
    # exactly, and _sized casts the result back
    a, b = (np.asarray(x._value).ravel() for x in (ar1, ar2))
    a, b = (x.astype(np.float32) if x.dtype in dtypes.ML_FLOATS else x for x in (a, b))
    return a, b, dt


def _set_size(size, fname):
    """A set operation's ``size`` (None or a non-negative int), checked once at the public
    entry so that errors name that function."""
    if size is None:
        return None
    size = _static(size, fname, "size")
    if size < 0:
        raise ValueError(f"jnp.{fname}: size must be non-negative, got {size}")
    return size


def _sized(values, size, fill_value, default_fill, dt, weak=False):
    """``values`` as an Array of ``dt`` (weak or not: JAX's set operations keep their
    inputs' weak type), padded or truncated to ``size`` (checked by ``_set_size``)."""
    values = np.asarray(values)
    if size is not None:
        fill = default_fill if fill_value is None else \
            np.asarray(concrete_value(fill_value, "fill_value"))
        out = np.full(size, fill, dtype=dt)
        k = min(size, values.size)
        out[:k] = values[:k]
        values = out
    return Array(values.astype(dt), weak)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """Sorted unique values of ``ar1`` not in ``ar2`` (eager; ``size`` pads with
    ``fill_value`` (default 0) or truncates)."""
    size = _set_size(size, "setdiff1d")
    if size is not None and is_traced(ar1, ar2):
        return sized_setop("setdiff1d", ar1, ar2, size, fill_value,
                           ensure_array("setdiff1d", ar1).dtype, smallest_fill=False)
    a, b, _ = _set_inputs("setdiff1d", ar1, ar2, size)
    ar1 = ensure_array("setdiff1d", ar1)
    return _sized(np.setdiff1d(a, b, assume_unique), size, fill_value, 0, ar1.dtype,
                  ar1.weak_type)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """Sorted unique values in either array (eager; ``size`` pads with ``fill_value``,
    default the smallest value)."""
    size = _set_size(size, "union1d")
    if size is not None and is_traced(ar1, ar2):
        return sized_setop("union1d", ar1, ar2, size, fill_value,
                           promote_dtypes(ar1, ar2)[0].dtype, smallest_fill=True)
    a, b, dt = _set_inputs("union1d", ar1, ar2, size)
    r = np.union1d(a, b)
    return _sized(r, size, fill_value, r.min() if r.size else 0, dt,
                  result_type_of(ar1, ar2)[1])


def iterable(y):
    """True when ``iter(y)`` works, as ``numpy.iterable`` (a 0-d array is not iterable).

    >>> jnp.iterable(jnp.ones(2)), jnp.iterable(jnp.float32(1))
    (True, False)
    """
    try:
        iter(y)
    except TypeError:
        return False
    return True


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """Sorted unique values in exactly one of the arrays, as ``numpy.setxor1d``.

    ``jnp.setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None)``.
    tjit (as JAX): eager only, since the result's length depends on the values; with
    ``size`` the result is padded with ``fill_value`` (default: its smallest value) or
    truncated.

    >>> jnp.setxor1d(jnp.asarray([1, 2, 6]), jnp.asarray([2, 3]))
    Array([1, 3, 6], dtype=int32)
    """
    size = _set_size(size, "setxor1d")
    if size is not None and is_traced(ar1, ar2):
        return sized_setop("setxor1d", ar1, ar2, size, fill_value,
                           promote_dtypes(ar1, ar2)[0].dtype, smallest_fill=True)
    a, b, dt = _set_inputs("setxor1d", ar1, ar2, size)
    r = np.setxor1d(a, b, assume_unique)
    return _sized(r, size, fill_value, r.min() if r.size else 0, dt,
                  result_type_of(ar1, ar2)[1])


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """Sorted unique values in both arrays, and with ``return_indices`` their first
    indices in each (eager; ``size`` pads values with ``fill_value`` (default the
    smallest value) and indices with the array sizes)."""
    size = _set_size(size, "intersect1d")
    if size is not None and not return_indices and is_traced(ar1, ar2):
        return sized_setop("intersect1d", ar1, ar2, size, fill_value,
                           promote_dtypes(ar1, ar2)[0].dtype, smallest_fill=True)
    a, b, dt = _set_inputs("intersect1d", ar1, ar2, size)
    weak = result_type_of(ar1, ar2)[1]
    if not return_indices:
        r = np.intersect1d(a, b, assume_unique)
        return _sized(r, size, fill_value, r.min() if r.size else 0, dt, weak)
    r, i1, i2 = np.intersect1d(a, b, assume_unique, return_indices=True)
    idt = dtypes.default_int()
    return (_sized(r, size, fill_value, r.min() if r.size else 0, dt, weak),
            _sized(i1, size, a.size, a.size, idt), _sized(i2, size, b.size, b.size, idt))


__all__ = ["where", "select", "clip", "isclose", "allclose", "array_equal", "array_equiv",
           "iscomplexobj", "isrealobj", "nan_to_num", "convolve", "correlate", "interp",
           "cross", "polyval", "trapezoid", "trapz", "vander", "gradient", "unwrap",
           "piecewise", "isin", "in1d", "setdiff1d", "union1d", "intersect1d",
           "setxor1d", "iterable"]
