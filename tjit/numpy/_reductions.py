"""Reductions of ``tjit.numpy``: sums, products, extrema, statistics, quantiles, their
NaN-ignoring variants and cumulative sums/products.

All follow JAX's conventions: ``axis`` is None, an int or a tuple; ``keepdims``;
``where=`` masks elements out; ``initial=`` folds a start value in (sum/prod/max/min);
``out=`` is not supported (arrays are immutable). Sums and products of bools and small
ints accumulate in the default int (uint) type, means of ints are default floats, and
results are strongly typed.

Counts of symbolic dims (``mean`` under ``polymorphic_shapes``) are computed as arrays
by :func:`tjit.numpy._creation.dim_value` (a sum of ones, which the compiler turns into
the size itself, read by kernels from their run-time sizes), so one trace serves every
size.
"""

import builtins

import numpy as np

from tjit import lax
from tjit.primitives import reductions as rd
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer, concrete_value, remember
from tjit.tracing.errors import AxisError, traced_static_error
from tjit.tracing.shapes import broadcast_shapes, normalize_axes, shape_str
from tjit.numpy._core import (broadcast_to_shape, check_arraylike, ensure_array,
                              host_numpy_array, promote_dtypes_inexact, result_type_of,
                              takes_out_sharding)
from tjit.numpy._creation import canonical_dtype, dim_value


# -- argument handling ----------------------------------------------------------------------
def _check_out(out, name):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported: tjit "
                                  f"arrays are immutable; use the returned array instead")


def _axes(a, axis, name):
    """Sorted, non-negative reduction axes of ``a``."""
    if axis is None:
        return tuple(range(a.ndim))
    if isinstance(axis, (Array, Tracer)):
        axis = concrete_value(axis, f"the axis argument of jnp.{name}").tolist()
    if a.ndim == 0:  # as JAX: a 0-d array has no axis to name (only axis=None or ())
        if axis == () or axis == []:
            return ()
        raise AxisError(f"jnp.{name}: axis {axis} is out of bounds for an array of "
                        f"dimension 0")
    return tuple(sorted(normalize_axes(axis, a.ndim, f"jnp.{name}")))


def _promote_int(dt):
    """JAX's accumulator for sum/prod: bools and narrow ints widen to the default int."""
    if dtypes.is_bool(dt):
        return dtypes.default_int()
    if dtypes.is_unsigned(dt):
        return dt if dt.itemsize >= dtypes.default_uint().itemsize else dtypes.default_uint()
    if dtypes.is_int(dt):
        return dt if dt.itemsize >= dtypes.default_int().itemsize else dtypes.default_int()
    return dt


def _upcast_f16(dt):
    return dtypes.float32 if dtypes.computes_in_float32(dt) else dt


def _mask(where, a, name):
    """``where`` as a bool array of ``a``'s shape."""
    w = ensure_array(name, where)
    if not dtypes.is_bool(w.dtype):  # JAX's ValueError; NumPy refuses the cast (TypeError)
        raise ValueError(f"jnp.{name}: where must be None or a boolean array, got dtype "
                         f"{w.dtype}; compare it first, e.g. where=mask != 0")
    shape = tuple(a.shape)
    if tuple(w.shape) != shape:
        out = broadcast_shapes(tuple(w.shape), shape, op=f"jnp.{name}(where=...)")
        if tuple(out) != shape:
            raise ValueError(f"jnp.{name}: where mask of shape {shape_str(w.shape)} does not "
                             f"broadcast to the array's shape {shape_str(shape)}")
        w = broadcast_to_shape(w, shape)
    return w


def _lowest(dt):
    if dtypes.is_bool(dt):
        return False
    return dtypes.lowest(dt)


def _highest(dt):
    if dtypes.is_bool(dt):
        return True
    return dtypes.highest(dt)


# -- the generic reduction ------------------------------------------------------------------
#: lax's reducers -> their primitives, which an eager plan binds directly (its axes are
#: normalised already)
_REDUCTION_PRIMITIVES = {lax.reduce_sum: rd.reduce_sum_p, lax.reduce_prod: rd.reduce_prod_p,
                         lax.reduce_max: rd.reduce_max_p, lax.reduce_min: rd.reduce_min_p,
                         lax.reduce_and: rd.reduce_and_p, lax.reduce_or: rd.reduce_or_p}

#: (name, shape, dtype, weak, axis, dtype argument, promote, to_bool, x64) -> (axes,
#: result dtype, accumulator dtype) of an eager reduction checked once by the general
#: path: a notebook's jnp.sum(x) then skips axis normalisation and dtype rules (most of
#: its cost on small arrays). Only concrete Arrays with hashable int/tuple/None axes.
_eager_plans = {}


def _plannable_axis(axis):
    """Whether ``axis`` can key a plan: None, an int or a tuple of ints (not a list, an
    Array or a NumPy integer, which the general path reads)."""
    t = type(axis)
    return axis is None or t is int or (t is tuple and builtins.all(type(d) is int
                                                                     for d in axis))


def _eager_plan(name, a, axis, dtype, promote, to_bool, has_identity):
    """The cached ``(axes, dt, comp)`` of this eager call, or None: the general path runs
    (and its errors are raised there). A signature is recorded when the cache can key it
    and the general path's checks would pass (no empty reduction without an identity)."""
    v = a._value
    if type(v) is not np.ndarray or not _plannable_axis(axis):
        return None
    key = (name, v.shape, v.dtype, a._weak, axis, dtype, promote, to_bool,
           dtypes.default_int())
    try:
        plan = _eager_plans.get(key)
    except TypeError:  # an unhashable dtype argument
        return None
    if plan is None and (a.ndim != 0 or axis is None):  # (0-d with an axis: the error)
        axes = _axes(a, axis, name)  # (the general path's checks, in its order)
        if not has_identity and builtins.any(a.shape[d] == 0 for d in axes):
            return None
        if to_bool:
            dt = comp = dtypes.bool_
        else:
            dt = canonical_dtype(dtype, name) or (_promote_int(a.dtype) if promote
                                                  else a.dtype)
            comp = _upcast_f16(dt) if promote else dt
        plan = remember(_eager_plans, key, (axes, dt, comp))
    return plan


def _reduce(name, a, axis, dtype, out, keepdims, initial, where, *, reducer, combine,
            identity, promote=False, has_identity=True, to_bool=False):
    """Shared body of sum/prod/max/min/all/any (the shape of JAX's ``_reduction``)."""
    if type(a) is Array and out is None and where is None and initial is None:
        plan = _eager_plan(name, a, axis, dtype, promote, to_bool, has_identity)
        if plan is not None:  # an eager call whose arguments were checked before
            axes, dt, comp = plan
            if to_bool and not dtypes.is_bool(a.dtype):
                x = lax.ne(a, lax.full((), 0, a.dtype))
            elif a.dtype == comp and not a._weak:
                x = a
            else:
                x = lax.convert_element_type(a, comp)
            fn = reducer(comp)
            prim = _REDUCTION_PRIMITIVES.get(fn)
            if not axes:  # (as lax's reducers: nothing to reduce)
                r = x
            elif prim is not None:  # axes already sorted and non-negative
                r = prim.bind(x, axes=axes)
            else:
                r = fn(x, axes)
            if keepdims:
                r = lax.expand_dims(r, axes)
            return r if r.dtype == dt and not r.weak_type else lax.convert_element_type(r, dt)
    _check_out(out, name)
    a = ensure_array(name, a)
    axes = _axes(a, axis, name)
    if initial is None and not has_identity:
        if where is not None:
            raise ValueError(f"reduction operation {name} does not have an identity, so to "
                             f"use a where mask one has to specify 'initial'")
        if builtins.any(type(a.shape[d]) is int and a.shape[d] == 0 for d in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             f"identity (shape {shape_str(a.shape)}, axis {axis}); pass "
                             f"initial=...")
    if to_bool:
        dt = comp = dtypes.bool_
        x = a if dtypes.is_bool(a.dtype) else lax.ne(a, lax.full((), 0, a.dtype))
    else:
        dt = canonical_dtype(dtype, name) or (_promote_int(a.dtype) if promote else a.dtype)
        comp = _upcast_f16(dt) if promote else dt
        x = lax.convert_element_type(a, comp)
    if where is not None:
        x = lax.select(_mask(where, a, name), x, lax.full((), identity(comp), comp))
    r = reducer(comp)(x, axes)
    if initial is not None:
        init = ensure_array(name, initial)
        if init.ndim != 0:
            raise ValueError(f"jnp.{name}: initial value must be a scalar, got an array of "
                             f"shape {shape_str(init.shape)}")
        r = combine(comp)(lax.convert_element_type(init, comp), r)
    if keepdims:
        r = lax.expand_dims(r, axes)
    return lax.convert_element_type(r, dt)


def _plain(fn):
    return lambda dt: fn


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,  # noqa: A001
        where=None, promote_integers=True):
    """Sum of elements over ``axis`` (bools and narrow ints sum in the default int).

    Args:
      a: input array. axis: None (all), an int or a tuple of ints. dtype: accumulator
        and result dtype. keepdims: keep reduced dims as size 1. initial: added to the
        sum. where: bool mask of elements to include.
    """
    return _reduce("sum", a, axis, dtype, out, keepdims, initial, where,
                   reducer=_bool_or(lax.reduce_or, lax.reduce_sum),
                   combine=_bool_or(lax.bitwise_or, lax.add),
                   identity=lambda dt: 0, promote=promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    """Product of elements over ``axis`` (same arguments as :func:`sum`)."""
    return _reduce("prod", a, axis, dtype, out, keepdims, initial, where,
                   reducer=_bool_or(lax.reduce_and, lax.reduce_prod),
                   combine=_bool_or(lax.bitwise_and, lax.mul),
                   identity=lambda dt: 1, promote=promote_integers)


def _bool_or(fn_bool, fn):
    """``fn_bool`` where the accumulator is bool: a sum or product with ``dtype=bool`` adds
    and multiplies booleans, i.e. or/and (NumPy's and JAX's), as max/min of booleans do."""
    return lambda dt: fn_bool if dtypes.is_bool(dt) else fn


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Maximum over ``axis`` (NaN-propagating). An empty reduction needs ``initial``;
    ``where`` needs ``initial`` too."""
    return _reduce("max", a, axis, None, out, keepdims, initial, where,
                   reducer=_bool_or(lax.reduce_or, lax.reduce_max),
                   combine=_bool_or(lax.bitwise_or, lax.max), identity=_lowest,
                   has_identity=False)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Minimum over ``axis`` (NaN-propagating); see :func:`max`."""
    return _reduce("min", a, axis, None, out, keepdims, initial, where,
                   reducer=_bool_or(lax.reduce_and, lax.reduce_min),
                   combine=_bool_or(lax.bitwise_and, lax.min), identity=_highest,
                   has_identity=False)


amax, amin = max, min


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """Whether all elements (over ``axis``) are non-zero."""
    return _reduce("all", a, axis, None, out, keepdims, None, where,
                   reducer=_plain(lax.reduce_and), combine=_plain(lax.bitwise_and),
                   identity=lambda dt: True, to_bool=True)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    """Whether any element (over ``axis``) is non-zero."""
    return _reduce("any", a, axis, None, out, keepdims, None, where,
                   reducer=_plain(lax.reduce_or), combine=_plain(lax.bitwise_or),
                   identity=lambda dt: False, to_bool=True)


def count_nonzero(a, axis=None, keepdims=False):
    """Number of non-zero elements over ``axis`` (default int)."""
    a = ensure_array("count_nonzero", a)
    nz = a if dtypes.is_bool(a.dtype) else lax.ne(a, lax.full((), 0, a.dtype))
    return sum(nz, axis, dtype=dtypes.default_int(), keepdims=keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (max - min) over ``axis``."""
    _check_out(out, "ptp")
    a = ensure_array("ptp", a)
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


# -- means and moments ----------------------------------------------------------------------
def _count(a, axes, dt):
    """Number of elements reduced (a Python number, or an array when a dim is symbolic)."""
    n, symbolic = 1, []
    for d in axes:
        if type(a.shape[d]) is int:
            n *= a.shape[d]
        else:
            symbolic.append(a.shape[d])
    c = lax.full((), n, dt)
    for d in symbolic:
        c = lax.mul(c, lax.convert_element_type(dim_value(d), dt))
    return c


def _inexact_result(a, dtype, name):
    dt = canonical_dtype(dtype, name)
    if dt is None:
        dt = dtypes.to_inexact(a.dtype)
    comp = _upcast_f16(dtypes.to_inexact(dt))
    return dt, comp


def _mean_plan(a, axis, dtype):
    """``(dt, comp, count)`` of an eager mean on a signature seen before (as
    :func:`_eager_plan`; the count is the constant Array the general path divides by)."""
    v = a._value
    if type(v) is not np.ndarray or not _plannable_axis(axis):
        return None
    key = ("mean", v.shape, v.dtype, a._weak, axis, dtype, dtypes.default_int())
    try:
        plan = _eager_plans.get(key)
    except TypeError:  # an unhashable dtype argument
        return None
    if plan is None and (a.ndim != 0 or axis is None):
        dt, comp = _inexact_result(a, dtype, "mean")
        count = _count(a, _axes(a, axis, "mean"), comp)
        if type(count) is not Array:  # (made under a trace: not a constant to keep)
            return None
        plan = remember(_eager_plans, key, (dt, comp, count))
    return plan


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean over ``axis`` (ints give the default float).

    Args: as :func:`sum`; ``where`` averages only the selected elements.
    """
    if type(a) is Array and out is None and where is None:
        plan = _mean_plan(a, axis, dtype)
        if plan is not None:  # an eager call whose arguments were checked before
            dt, comp, count = plan
            r = lax.div(sum(a, axis, comp, keepdims=keepdims), count)
            return r if r.dtype == dt and not r.weak_type else lax.convert_element_type(r, dt)
    _check_out(out, "mean")
    a = ensure_array("mean", a)
    dt, comp = _inexact_result(a, dtype, "mean")
    axes = _axes(a, axis, "mean")
    total = sum(a, axis, comp, keepdims=keepdims, where=where)
    if where is None:
        count = _count(a, axes, comp)
    else:
        count = sum(_mask(where, a, "mean"), axis, comp, keepdims=keepdims)
    return lax.convert_element_type(lax.div(total, count), dt)


_mean_of = mean  # var/std's ``mean`` parameter shadows the function


def _given_mean(m, x, name):
    """NumPy 2's ``mean=`` of var/std: the mean the caller already has (the shape of
    ``mean(keepdims=True)``, or any that broadcasts to ``x``), cast to the computation
    type."""
    m = ensure_array(name, m)
    if broadcast_shapes(tuple(m.shape), tuple(x.shape), op=f"jnp.{name}(mean=...)") \
            != tuple(x.shape):
        raise ValueError(f"jnp.{name}: mean of shape {shape_str(m.shape)} does not broadcast "
                         f"to a's shape {shape_str(x.shape)}; pass the mean computed with "
                         f"keepdims=True")
    return lax.convert_element_type(m, x.dtype)


def _var_types(a, dtype, name):
    dt = canonical_dtype(dtype, name)
    if dt is not None:
        # a deviation is not a bool, and std's square root needs a float (JAX's rule)
        need = "inexact" if name.endswith("std") else "numeric"
        if dtypes.is_bool(dt) or need == "inexact" and not dtypes.is_inexact(dt):
            raise ValueError(f"jnp.{name}: dtype must be {need}, got {dt}; pass e.g. "
                             f"dtype=float32 or cast the result")
        if dtypes.is_complex(a.dtype) and not dtypes.is_complex(dt):
            raise ValueError(f"jnp.{name}: a real dtype {dt} is not supported for the "
                             f"variance of complex values ({a.dtype})")
        comp = dtypes.to_inexact(dt)
    elif dtypes.is_inexact(a.dtype):
        comp = a.dtype
        dt = dtypes.finfo(a.dtype).dtype  # the real type of a complex input
    else:
        dt = comp = dtypes.to_inexact(a.dtype)
    return _upcast_f16(comp), dtypes.canonicalize(dt)


def _squared_magnitude(c):
    if dtypes.is_complex(c.dtype):
        return lax.real(lax.mul(c, lax.conj(c)))
    return lax.mul(c, c)


def _correction(ddof, correction, name):
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError(f"jnp.{name}: ddof and correction can't both be specified")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """Variance over ``axis``: ``sum(|x - mean|**2) / (N - ddof)``.

    Args: as :func:`mean`, plus ``ddof`` (or its Array-API name ``correction``) and
      ``mean``, a mean already computed (shaped as with ``keepdims=True``) to use instead
      of computing it again, as NumPy 2's.
    """
    _check_out(out, "var")
    a = ensure_array("var", a)
    ddof = _correction(ddof, correction, "var")
    comp, dt = _var_types(a, dtype, "var")
    axes = _axes(a, axis, "var")
    x = lax.convert_element_type(a, comp)
    m = (_mean_of(x, axis, comp, keepdims=True, where=where) if mean is None
         else _given_mean(mean, x, "var"))
    centered = _broadcast_sub(x, m)
    sq = _squared_magnitude(centered)
    rdt = sq.dtype
    if where is None:
        n = _count(a, axes, rdt)
    else:
        n = sum(_mask(where, a, "var"), axis, rdt, keepdims=keepdims)
    total = sum(sq, axis, rdt, keepdims=keepdims, where=where)
    # NumPy clamps the degrees of freedom at 0, so too few elements give NaN (or inf)
    dof = lax.max(lax.sub(n, lax.full((), ddof, rdt)), lax.full((), 0, rdt))
    return lax.convert_element_type(lax.div(total, dof), dt)


def _broadcast_sub(x, m):
    return lax.sub(x, broadcast_to_shape(m, tuple(x.shape)))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        mean=None, correction=None):
    """Standard deviation over ``axis``: ``sqrt(var(...))`` (``mean`` as :func:`var`'s)."""
    _check_out(out, "std")
    _var_types(ensure_array("std", a), dtype, "std")
    return lax.sqrt(var(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean,
                        correction=correction))


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    """Weighted average over ``axis``; ``weights`` has ``a``'s shape or is 1-D along a
    single ``axis``.

    Returns:
      The average, and with ``returned`` also the sum of the weights (broadcast to the
      average's shape).
    """
    a = ensure_array("average", a)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        wsum = lax.full(tuple(avg.shape), 0, avg.dtype)
        wsum = lax.add(wsum, _count(a, _axes(a, axis, "average"), avg.dtype))
    else:
        a, w = promote_dtypes_inexact(a, weights)
        w = _weights_like(a, w, axis)
        wsum = sum(w, axis, keepdims=keepdims)
        avg = lax.div(sum(lax.mul(a, w), axis, keepdims=keepdims), wsum)
    if returned:
        return avg, broadcast_to_shape(wsum, tuple(avg.shape))
    return avg


def _weights_like(a, w, axis, name="average"):
    """``w`` broadcast to ``a``'s shape: the same shape, or 1-D along a single ``axis``."""
    if tuple(w.shape) == tuple(a.shape):
        return w
    if axis is None:
        raise TypeError(f"jnp.{name}: axis must be specified when the shapes of a "
                        f"{shape_str(a.shape)} and weights {shape_str(w.shape)} differ")
    if not isinstance(axis, int) and len(axis) != 1 or w.ndim != 1:
        raise TypeError(f"jnp.{name}: 1-D weights along a single axis expected when "
                        f"shapes of a {shape_str(a.shape)} and weights "
                        f"{shape_str(w.shape)} differ")
    ax = _axes(a, axis, name)[0]
    if w.shape[0] != a.shape[ax]:
        raise ValueError(f"jnp.{name}: length of weights {w.shape[0]} is not compatible "
                         f"with axis {axis} of a of shape {shape_str(a.shape)}")
    return lax.broadcast_in_dim(w, tuple(a.shape), (ax,))


# -- arg-reductions -------------------------------------------------------------------------
def _arg_reduce(name, lax_fn, a, axis, out, keepdims):
    _check_out(out, name)
    a = ensure_array(name, a)
    if axis is None or a.ndim == 0:
        if axis is not None:
            _axes(a, axis, name)  # validates
        x, ax = lax.reshape(a, (a.size,)), 0
    else:
        if not isinstance(axis, (int, np.integer)):
            _bad_axis(name, axis)
        x, ax = a, _axes(a, axis, name)[0]
    if type(x.shape[ax]) is int and x.shape[ax] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence (jnp.{name} of shape "
                         f"{shape_str(a.shape)}, axis {axis})")
    r = lax_fn(x, ax, dtypes.default_int())
    if keepdims:
        r = lax.reshape(r, (1,) * a.ndim) if axis is None else lax.expand_dims(r, (ax,))
    return r


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the (first) maximum over ``axis`` (the flattened array if None); a NaN
    counts as the maximum."""
    return _arg_reduce("argmax", lax.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the (first) minimum over ``axis`` (the flattened array if None)."""
    return _arg_reduce("argmin", lax.argmin, a, axis, out, keepdims)


# -- NaN-ignoring variants ------------------------------------------------------------------
def _isnan(x):
    return lax.ne(x, x)


def _replace_nan(a, value):
    if not dtypes.is_inexact(a.dtype):
        return a
    return lax.select(_isnan(a), lax.full((), value, a.dtype), a)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """:func:`sum` treating NaNs as zero."""
    a = ensure_array("nansum", a)
    return sum(_replace_nan(a, 0), axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """:func:`prod` treating NaNs as one."""
    a = ensure_array("nanprod", a)
    return prod(_replace_nan(a, 1), axis, dtype, out, keepdims, initial, where)


def _nan_extreme(name, fn, fill, a, axis, out, keepdims, initial, where):
    a = ensure_array(name, a)
    if not dtypes.is_inexact(a.dtype):
        return fn(a, axis, out, keepdims, initial, where)
    r = fn(_replace_nan(a, fill(a.dtype)), axis, out, keepdims, initial, where)
    if initial is not None:
        return r
    all_nan = all(_isnan(a), axis, keepdims=keepdims, where=where)
    return lax.select(all_nan, lax.full((), np.nan, r.dtype), r)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """:func:`max` ignoring NaNs (NaN where a slice is all NaN)."""
    return _nan_extreme("nanmax", max, dtypes.lowest, a, axis, out, keepdims, initial,
                        where)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """:func:`min` ignoring NaNs (NaN where a slice is all NaN)."""
    return _nan_extreme("nanmin", min, dtypes.highest, a, axis, out, keepdims, initial,
                        where)


def _nan_arg(name, fn, fill, a, axis, out, keepdims):
    a = ensure_array(name, a)
    if not dtypes.is_inexact(a.dtype):
        return fn(a, axis, out, keepdims)
    nan_mask = _isnan(a)
    # (fill(dtype): -inf/inf, or finfo's extremes in float8s without infinities)
    r = fn(lax.select(nan_mask, lax.full((), fill(a.dtype), a.dtype), a), axis, out, keepdims)
    all_nan = all(nan_mask, axis, keepdims=bool(keepdims))
    if axis is None and keepdims:
        all_nan = lax.reshape(all_nan, tuple(r.shape))
    return lax.select(all_nan, lax.full((), -1, r.dtype), r)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """:func:`argmax` ignoring NaNs; -1 where a slice is all NaN (as JAX)."""
    return _nan_arg("nanargmax", argmax, dtypes.lowest, a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """:func:`argmin` ignoring NaNs; -1 where a slice is all NaN (as JAX)."""
    return _nan_arg("nanargmin", argmin, dtypes.highest, a, axis, out, keepdims)


def _check_nan_stat_dtype(a, dtype, name):
    """NumPy's rule for nanmean/nanvar/nanstd: an inexact input needs an inexact dtype
    (an all-NaN slice's NaN has no integer value)."""
    dt = canonical_dtype(dtype, name)
    if dt is not None and dtypes.is_inexact(a.dtype) and not dtypes.is_inexact(dt):
        raise TypeError(f"jnp.{name}: a is {a.dtype} (inexact), so dtype must be inexact "
                        f"too, got {dt}; pass a float dtype or cast the result")


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """:func:`mean` of the non-NaN elements (NaN where there are none)."""
    _check_out(out, "nanmean")
    a = ensure_array("nanmean", a)
    _check_nan_stat_dtype(a, dtype, "nanmean")
    if not dtypes.is_inexact(a.dtype):
        return mean(a, axis, dtype, None, keepdims, where=where)
    dt, comp = _inexact_result(a, dtype, "nanmean")
    count = sum(lax.bitwise_not(_isnan(a)), axis, comp, keepdims=keepdims, where=where)
    total = sum(_replace_nan(a, 0), axis, comp, keepdims=keepdims, where=where)
    return lax.convert_element_type(lax.div(total, count), dt)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    """:func:`var` of the non-NaN elements (NaN where fewer than ``ddof + 1``); ``mean``
    as :func:`var`'s (the mean of the non-NaN elements)."""
    _check_out(out, "nanvar")
    a = ensure_array("nanvar", a)
    _check_nan_stat_dtype(a, dtype, "nanvar")
    ddof = _correction(ddof, correction, "nanvar")
    comp, dt = _var_types(a, dtype, "nanvar")
    x = lax.convert_element_type(a, comp)
    nan_mask = _isnan(x)
    m = (nanmean(x, axis, comp, keepdims=True, where=where) if mean is None
         else _given_mean(mean, x, "nanvar"))
    centered = _broadcast_sub(x, m)
    sq = _squared_magnitude(lax.select(nan_mask, lax.full((), 0, comp), centered))
    rdt = sq.dtype
    n = sum(lax.bitwise_not(nan_mask), axis, rdt, keepdims=keepdims, where=where)
    n = lax.sub(n, lax.full((), ddof, rdt))
    bad = lax.le(n, lax.full((), 0, rdt))
    total = sum(sq, axis, rdt, keepdims=keepdims, where=where)
    r = lax.div(total, lax.select(bad, lax.full((), 1, rdt), n))
    return lax.convert_element_type(lax.select(bad, lax.full((), np.nan, rdt), r), dt)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    """:func:`std` of the non-NaN elements (``mean`` as :func:`nanvar`'s)."""
    _check_out(out, "nanstd")
    arr = ensure_array("nanstd", a)
    _check_nan_stat_dtype(arr, dtype, "nanstd")
    _var_types(arr, dtype, "nanstd")
    return lax.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean,
                           correction=correction))


# -- quantiles ------------------------------------------------------------------------------
# NumPy's continuous methods other than 'linear' (Hyndman & Fan 1996, types 4-6, 8, 9):
# (alpha, beta) of the virtual index n*q + alpha + q*(1 - alpha - beta) - 1
_PLOTTING_POSITIONS = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5),
                       "weibull": (0.0, 0.0), "median_unbiased": (1 / 3, 1 / 3),
                       "normal_unbiased": (3 / 8, 3 / 8)}
_VIRTUAL_INDEX_METHODS = (*_PLOTTING_POSITIONS, "averaged_inverted_cdf",
                          "closest_observation")
_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf",
                     *_VIRTUAL_INDEX_METHODS)
_MEDIAN = "median"  # median/nanmedian's own rule (a mean, not a lerp); not a user method


def _check_q_range(q, lo, hi, name, what):
    if isinstance(q, Tracer):
        return  # a traced q cannot be checked; out-of-range values give garbage, as in JAX
    v = q._value if isinstance(q, Array) else host_numpy_array(q, f"jnp.{name}", "q")
    if v.dtype.kind not in "biufc":  # None, strings: no numbers to compare with lo/hi
        raise TypeError(f"jnp.{name}: q must be a number or an array of numbers, got "
                        f"{type(q).__name__} {q!r:.40}")
    if v.size and (np.nanmin(v) < lo or np.nanmax(v) > hi):
        raise ValueError(f"jnp.{name}: {what} must be in the range [{lo}, {hi}], got {q!r}")


def _take_last(x, idx):
    """``x[..., idx]``: ``x`` of shape ``(*batch, n)``, ``idx`` ints of shape
    ``(nq, *batch)``; exact selection by zeroing every other entry and summing (no gather
    needed, so it works for symbolic ``n`` too). Not a max over a -inf mask: the max's
    derivative would split among the mask's entries where the picked value is -inf."""
    full_shape = (idx.shape[0],) + tuple(x.shape)
    last = len(full_shape) - 1
    xb = lax.broadcast_in_dim(x, full_shape, tuple(range(1, last + 1)))
    ib = lax.broadcast_in_dim(idx, full_shape, tuple(range(last)))
    pos = lax.broadcasted_iota(idx.dtype, full_shape, last)
    sel = lax.select(lax.eq(pos, ib), xb, lax.full((), 0, x.dtype))
    return lax.reduce_sum(sel, (last,))


def _lerp(a, b, t):
    """NumPy's interpolation: ``a + (b-a)*t`` below t = 0.5, ``b - (b-a)*(1-t)`` above
    (each exact at its end), and exactly ``a`` at t = 0, ``b`` at t = 1. Between an infinite end and
    another value the difference is inf - inf = NaN; there the limit ``a*(1-t) + b*t``
    answers (-inf between -inf and 1, inf between 1 and inf, NaN between -inf and inf),
    where NumPy gives NaN."""
    diff = lax.sub(b, a)
    one = lax.full((), 1, t.dtype)
    lo = lax.add(a, lax.mul(diff, t))
    hi = lax.sub(b, lax.mul(diff, lax.sub(one, t)))
    r = lax.select(lax.ge(t, lax.full((), 0.5, t.dtype)), hi, lo)
    weighted = lax.add(lax.mul(a, lax.sub(one, t)), lax.mul(b, t))
    r = lax.select(lax.bitwise_and(lax.is_finite(a), lax.is_finite(b)), r, weighted)
    r = lax.select(lax.eq(t, one), b, r)  # (inf * 0 is NaN in the limit form)
    return lax.select(lax.eq(t, lax.full((), 0, t.dtype)), a, r)


def _rows(a, axes):
    """``a`` with the reduced ``axes`` merged into one last dim, and that dim's size."""
    keep = [i for i in range(a.ndim) if i not in axes]
    x = lax.transpose(a, tuple(keep) + tuple(axes))
    n = 1
    for d in axes:
        n = n * a.shape[d]
    return lax.reshape(x, tuple(a.shape[i] for i in keep) + (n,)), n


def _sorted_rows(a, axes):
    """``a`` with the reduced ``axes`` merged into one last dim, sorted (NaNs last)."""
    x, n = _rows(a, axes)
    return lax.sort(x, -1), n


def _quantile_weights(name, a, weights, axis):
    """``weights`` for a weighted quantile: ``a``'s dtype and shape (see _weights_like);
    negative concrete weights raise, as NumPy."""
    w = lax.convert_element_type(ensure_array(name, weights), a.dtype)
    w = _weights_like(a, w, axis, name)
    if not isinstance(w, Tracer) and bool(np.any(np.asarray(w._value) < 0)):
        raise ValueError(f"jnp.{name}: weights must be non-negative")
    return w


def _as_dtype(r, dt):
    """``r`` in ``dt`` (its weak type kept when it is already ``dt``)."""
    return r if r.dtype == dt else lax.convert_element_type(r, dt)


def _inverted_cdf(name, a, q, axis, weights, keepdims, squash_nans):
    """method='inverted_cdf' (the one NumPy and JAX take ``weights`` with): per slice,
    the first sorted value whose cumulative weight share reaches ``q``."""
    a = ensure_array(name, a)
    if dtypes.is_complex(a.dtype):
        raise TypeError(f"jnp.{name} does not support complex input ({a.dtype})")
    # the result's dtype: a's (with the weights' when given), whatever q's, as JAX
    check_arraylike(name, a, q)  # a list q is refused naming the function, as JAX
    out_dt = dtypes.to_inexact(a.dtype if weights is None else
                               result_type_of(a, weights)[0])
    a, q = promote_dtypes_inexact(a, q)
    axes = _axes(a, axis, name)
    w = lax.full(a.shape, 1, a.dtype) if weights is None else \
        _quantile_weights(name, a, weights, axis)
    x, n = _rows(a, axes)
    wr, _ = _rows(w, axes)
    dt = x.dtype
    nan = _isnan(x)
    if squash_nans:
        wr = lax.select(nan, lax.full(wr.shape, 0, dt), wr)
    x, wr = lax.sort([x, wr], -1, True, 1)  # NaNs last, weights follow their values
    cw = lax.cumsum(wr, x.ndim - 1)
    batch = tuple(x.shape[:-1])
    total = lax.slice_in_dim(cw, n - 1, n, 1, x.ndim - 1) if n else lax.full(batch + (1,), 0, dt)
    cdf = lax.div(cw, broadcast_to_shape(total, tuple(cw.shape)))
    # leading zero weights: q = 0 picks the first value of positive weight (NumPy's rule)
    cdf = lax.select(lax.eq(cdf, lax.full((), 0, dt)), lax.full(cdf.shape, -1, dt), cdf)
    qf = lax.reshape(q, (q.size,))
    full = (q.size,) + tuple(x.shape)
    below = lax.lt(lax.broadcast_in_dim(cdf, full, tuple(range(1, len(full)))),
                   lax.broadcast_in_dim(qf, full, (0,)))
    idt = dtypes.default_int()
    idx = lax.reduce_sum(lax.convert_element_type(below, idt), (len(full) - 1,))
    idx = lax.min(idx, lax.full((), builtins.max(n - 1, 0), idt))  # q past the last share
    r = _take_last(x, idx) if n else lax.full((q.size,) + batch, np.nan, dt)
    empty = lax.le(lax.reshape(total, batch), lax.full((), 0, dt))
    if not squash_nans and n:
        empty = lax.bitwise_or(empty, any(nan, -1))
    r = lax.select(broadcast_to_shape(empty, r.shape), lax.full(r.shape, np.nan, dt), r)
    out_batch = tuple(1 if i in axes else a.shape[i] for i in range(a.ndim)) if keepdims \
        else batch
    return _as_dtype(lax.reshape(r, tuple(q.shape) + out_batch), out_dt)


def _quantile(name, a, q, axis, method, keepdims, squash_nans):
    if method not in _QUANTILE_METHODS and method != _MEDIAN:
        raise ValueError(f"jnp.{name}: method must be one of {_QUANTILE_METHODS}, got "
                         f"{method!r}")
    a = ensure_array(name, a)
    if dtypes.is_complex(a.dtype):
        raise TypeError(f"jnp.{name} does not support complex input ({a.dtype})")
    out_dt = dtypes.to_inexact(a.dtype)  # the result's, whatever q's dtype (as JAX)
    # a to inexact first, as JAX's: an int4 meeting the Python float q is a promotion
    # error (median of an int4 array raised one; JAX's is a float32)
    check_arraylike(name, a, q)  # a list q is refused naming the function, as JAX
    a, q = promote_dtypes_inexact(promote_dtypes_inexact(a)[0], q)
    axes = _axes(a, axis, name)
    x, n = _sorted_rows(a, axes)
    dt = x.dtype
    if squash_nans:
        count = sum(lax.bitwise_not(_isnan(x)), -1, dt)
    else:
        count = lax.convert_element_type(dim_value(n), dt)
    qf = lax.reshape(q, (q.size,))
    batch = tuple(x.shape[:-1])
    pos_shape = (q.size,) + batch
    qb = lax.broadcast_in_dim(qf, pos_shape, (0,))
    if method in _VIRTUAL_INDEX_METHODS:
        r = _virtual_index_quantile(x, qb, broadcast_to_shape(count, pos_shape), method)
    else:
        pos = lax.mul(qb, broadcast_to_shape(lax.sub(count, lax.full((), 1, dt)), pos_shape))
        r = _interpolate(x, pos, method)
    # An empty slice (or one all NaN for the nan* names) gives NaN, as NumPy's median and
    # nan* functions do (with a warning). NumPy's quantile/percentile raise IndexError and
    # JAX 0.10 raises an internal gather error for every name here; neither is documented,
    # so every name follows the NaN convention.
    empty = broadcast_to_shape(lax.le(count, lax.full((), 0, dt)), pos_shape)
    if not squash_nans:
        empty = lax.bitwise_or(empty, broadcast_to_shape(
            any(_isnan(x), -1) if x.shape[-1] != 0 else lax.full(batch, False, bool),
            pos_shape))
    r = lax.select(empty, lax.full((), np.nan, dt), r)
    out_batch = tuple(1 if i in axes else a.shape[i] for i in range(a.ndim)) if keepdims \
        else batch
    return _as_dtype(lax.reshape(r, tuple(q.shape) + out_batch), out_dt)


def _interpolate(x, pos, method):
    idt = dtypes.default_int()

    def take(p):
        return _take_last(x, lax.convert_element_type(p, idt))

    if method == "nearest":
        return take(lax.round(pos, lax.ROUND_TO_NEAREST_EVEN))
    lo, hi = lax.floor(pos), lax.ceil(pos)
    if method == "lower":
        return take(lo)
    if method == "higher":
        return take(hi)
    t = lax.sub(pos, lo)
    if method == _MEDIAN:  # NumPy's median: the mean of the two middle values, so
        # (1, inf) gives inf where the lerp gives inf - inf = NaN; a sum that overflows
        # (or is inf/NaN) halves each value first
        a, b = take(lo), take(hi)
        half = lax.full((), 0.5, a.dtype)
        total = lax.add(a, b)
        mean = lax.select(lax.is_finite(total), lax.mul(total, half),
                          lax.add(lax.mul(a, half), lax.mul(b, half)))
        return lax.select(lax.eq(t, lax.full((), 0, t.dtype)), a, mean)
    if method == "midpoint":
        t = lax.select(lax.eq(t, lax.full((), 0, t.dtype)), t, lax.full(t.shape, 0.5, t.dtype))
    return _lerp(take(lo), take(hi), t)


def _virtual_index_quantile(x, q, n, method):
    """NumPy's methods by virtual index (numpy/lib/_function_base_impl.py): ``q`` and the
    per-slice counts ``n`` of shape ``(nq, *batch)`` over the sorted rows ``x``."""
    dt = x.dtype
    idt = dtypes.default_int()

    def c(v):
        return lax.full((), v, dt)

    def take(p):
        return _take_last(x, lax.convert_element_type(p, idt))

    if method == "closest_observation":  # the nearest even order statistic (1-based) at a tie
        vi = lax.sub(lax.mul(n, q), c(1.5))
        lo = lax.floor(vi)
        odd_tie = lax.bitwise_and(lax.eq(vi, lo), lax.eq(lax.rem(lo, c(2)), c(1)))
        return take(lax.max(lax.select(odd_tie, lo, lax.add(lo, c(1))), c(0)))
    if method == "averaged_inverted_cdf":
        vi = lax.sub(lax.mul(n, q), c(1))
    else:
        alpha, beta = _PLOTTING_POSITIONS[method]
        vi = lax.sub(lax.add(lax.mul(n, q), lax.add(c(alpha), lax.mul(q, c(1 - alpha - beta)))),
                     c(1))
    lo = lax.floor(vi)
    gamma = lax.sub(vi, lo)
    if method == "averaged_inverted_cdf":  # the mean of two values where the cdf steps
        gamma = lax.select(lax.eq(gamma, c(0)), lax.full(gamma.shape, 0.5, dt),
                           lax.full(gamma.shape, 1, dt))
    last = lax.sub(n, c(1))  # past either end: the end value
    above, below = lax.ge(vi, last), lax.lt(vi, c(0))
    zero = lax.full(vi.shape, 0, dt)
    lo_i = lax.select(above, last, lax.select(below, zero, lo))
    hi_i = lax.select(above, last, lax.select(below, zero, lax.add(lo, c(1))))
    return _lerp(take(lo_i), take(hi_i), gamma)


def _dispatch(name, a, q, axis, method, keepdims, squash_nans, weights):
    if method == "inverted_cdf":
        return _inverted_cdf(name, a, q, axis, weights, keepdims, squash_nans)
    if weights is not None:
        raise NotImplementedError(f"jnp.{name}: {method} doesn't support weights. Only "
                                  f"method 'inverted_cdf' supports weights.")
    return _quantile(name, a, q, axis, method, keepdims, squash_nans)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """The ``q``-th quantiles of ``a`` over ``axis`` with any of NumPy's 13 methods (JAX
    has 'linear', 'lower', 'higher', 'midpoint', 'nearest' and 'inverted_cdf', the one that
    takes ``weights``, an array of ``a``'s shape or 1-D along a single ``axis``); NaN if a
    slice holds a NaN or is empty.

    Returns:
      An array of shape ``q.shape + reduced shape``.
    """
    _check_out(out, "quantile")
    _check_q_range(q, 0, 1, "quantile", "Quantiles")
    return _dispatch("quantile", a, q, axis, interpolation or method, keepdims, False, weights)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    """:func:`quantile` ignoring NaNs."""
    _check_out(out, "nanquantile")
    _check_q_range(q, 0, 1, "nanquantile", "Quantiles")
    return _dispatch("nanquantile", a, q, axis, interpolation or method, keepdims, True,
                     weights)


def _scaled(q, name):
    _check_q_range(q, 0, 100, name, "Percentiles")
    q = ensure_array(name, q)
    q = lax.convert_element_type(q, dtypes.to_inexact(q.dtype), weak_type=q.weak_type)
    # A Python-number q stays weak: percentile(float32, 30.0) is float32 (NumPy, JAX).
    return lax.div(q, lax.convert_element_type(100, q.dtype, weak_type=q.weak_type))


@takes_out_sharding("percentile")
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """The ``q``-th percentiles (``q`` in [0, 100]); see :func:`quantile`."""
    _check_out(out, "percentile")
    return _dispatch("percentile", a, _scaled(q, "percentile"), axis, interpolation or method,
                     keepdims, False, weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """:func:`percentile` ignoring NaNs."""
    _check_out(out, "nanpercentile")
    return _dispatch("nanpercentile", a, _scaled(q, "nanpercentile"), axis,
                     interpolation or method, keepdims, True, weights)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """Median over ``axis`` (mean of the two middle values for even counts)."""
    _check_out(out, "median")
    return _quantile("median", a, 0.5, axis, _MEDIAN, keepdims, False)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """:func:`median` ignoring NaNs."""
    _check_out(out, "nanmedian")
    return _quantile("nanmedian", a, 0.5, axis, _MEDIAN, keepdims, True)


# -- cumulative -----------------------------------------------------------------------------
def _cumulative(name, lax_fn, a, axis, dtype, nan_fill=None, promote_integers=False):
    """As JAX's: cumsum/cumprod keep an integer input's dtype (int8 stays int8; only
    bool widens to the default int), ``cumulative_sum`` widens narrow ints as ``sum``."""
    a = ensure_array(name, a)
    if axis is None or a.ndim == 0:
        if axis is not None:
            _axes(a, axis, name)
        a, ax = (a if a.ndim == 1 else lax.reshape(a, (a.size,))), 0
    else:
        ax = _axes(a, axis, name)[0] if isinstance(axis, (int, np.integer)) else \
            _bad_axis(name, axis)
    dt = canonical_dtype(dtype, name) or (
        _promote_int(a.dtype) if promote_integers or dtypes.is_bool(a.dtype) else a.dtype)
    if nan_fill is not None:
        a = _replace_nan(a, nan_fill)
    if dtypes.is_bool(dt):  # dtype=bool: a running or (sum) / and (product) of booleans
        lax_fn = {lax.cumsum: lax.cummax, lax.cumprod: lax.cummin}[lax_fn]
    if a.dtype != dt or getattr(a, "weak_type", False):  # (a conversion changing nothing
        a = lax.convert_element_type(a, dt)                # returns ``a``: skip its call)
    return lax_fn(a, ax)


def _bad_axis(name, axis):
    if isinstance(axis, Tracer):
        raise traced_static_error(axis, "axis", f"jnp.{name}")
    raise TypeError(f"jnp.{name}: axis must be an int or None, got {axis!r}")


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (over the flattened array if None)."""
    _check_out(out, "cumsum")
    return _cumulative("cumsum", lax.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` (over the flattened array if None)."""
    _check_out(out, "cumprod")
    return _cumulative("cumprod", lax.cumprod, a, axis, dtype)


def nancumsum(a, axis=None, dtype=None, out=None):
    """:func:`cumsum` treating NaNs as zero."""
    _check_out(out, "nancumsum")
    return _cumulative("nancumsum", lax.cumsum, a, axis, dtype, nan_fill=0)


def nancumprod(a, axis=None, dtype=None, out=None):
    """:func:`cumprod` treating NaNs as one."""
    _check_out(out, "nancumprod")
    return _cumulative("nancumprod", lax.cumprod, a, axis, dtype, nan_fill=1)


def _array_api_cumulative(name, lax_fn, init, x, axis, dtype, include_initial):
    x = ensure_array(name, x)
    if x.ndim == 0:
        raise ValueError(f"jnp.{name}: the input must be non-scalar, got a 0-d array")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"jnp.{name}: the input has rank {x.ndim}, so axis must be "
                             f"given (it is optional only for 1-D arrays)")
        axis = 0
    out = _cumulative(name, lax_fn, x, axis, dtype,
                      promote_integers=lax_fn is lax.cumsum)
    if include_initial:
        ax = _axes(x, axis, name)[0]
        shape = tuple(1 if i == ax else d for i, d in enumerate(out.shape))
        out = lax.concatenate([lax.full(shape, init, out.dtype), out], ax)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array-API cumulative sum; ``include_initial`` prepends a zero along ``axis``."""
    return _array_api_cumulative("cumulative_sum", lax.cumsum, 0, x, axis, dtype,
                                 include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array-API cumulative product; ``include_initial`` prepends a one along ``axis``."""
    return _array_api_cumulative("cumulative_prod", lax.cumprod, 1, x, axis, dtype,
                                 include_initial)


__all__ = ["sum", "prod", "max", "min", "amax", "amin", "all", "any", "count_nonzero", "ptp",
           "mean", "var", "std", "average", "argmax", "argmin", "nansum", "nanprod",
           "nanmax", "nanmin", "nanargmax", "nanargmin", "nanmean", "nanvar", "nanstd",
           "quantile", "nanquantile", "percentile", "nanpercentile", "median", "nanmedian",
           "cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum",
           "cumulative_prod"]
