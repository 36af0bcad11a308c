"""Array creation in ``tjit.numpy``: filled arrays, ranges, grids and triangular/diagonal
matrices.

Shapes may hold symbolic dims (``x.shape[0]`` under ``jit(..., polymorphic_shapes=...)``):
everything here is built from ``lax.full``/``broadcast``/``iota``, whose shape params
accept sympy dims, so ``jnp.zeros(x.shape)`` traces once for every batch size.
"""

import functools

import numpy as np

from tjit._sympy import is_expr, sympy
from tjit import lax
from tjit.lax._structural import dim_value
from tjit.numpy._padding import strong_main_diagonal
from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer, concrete_value
from tjit.tracing.errors import ConcretizationTypeError, NegativeDimensionError, static_index
from tjit.tracing.extended_dtypes import ExtendedArray
from tjit.transforms.batching import vmap
from tjit.tracing.shapes import (broadcast_shapes, canonical_shape, dim_str, max_dim,
                                 normalize_axis, shape_str)
from tjit.numpy._core import (
    asarray, broadcast_to_shape, check_arraylike, check_memory_order, ensure_array,
    out_sharded, promote_dtypes, result_type_of)
from tjit.numpy._dtypes import _np_dtype


# -- helpers shared by the creation, reduction and misc modules -----------------------------
def canonical_dtype(dtype, fname, default=None):
    """A user's dtype argument (``jnp.float32``, ``np.int8``, ``float``, ``"f4"``) as the
    canonical NumPy dtype; ``None`` gives ``default``. Python ``float``/``int``/``complex``
    mean the default float/int/complex (float32/int32 unless x64 is on)."""
    if dtype is None:
        return default
    dtype = _np_dtype(dtype)
    if dtype is float:
        return dtypes.default_float()
    if dtype is int:
        return dtypes.default_int()
    if dtype is complex:
        return dtypes.default_complex()
    if dtype is bool:
        return dtypes.bool_
    return dtypes.canonicalize_user_dtype(dtype, fname)


def canonical_index_dtype(dtype, fname, count):
    """A user's ``dtype=`` for indices into ``count`` positions (argsort,
    ravel_multi_index): an integer type that holds ``count - 1``; None gives the default
    int. ``count`` may be symbolic (then it is not checked)."""
    dt = canonical_dtype(dtype, fname, dtypes.default_int())
    if not dtypes.is_int(dt):
        raise ValueError(f"jnp.{fname}: dtype={dt} is not an integer type; indices need one "
                         f"such as int32")
    if type(count) is int and count - 1 > dtypes.iinfo(dt).max:
        raise ValueError(f"jnp.{fname}: dtype={dt} is not large enough to hold indices "
                         f"up to {count - 1}; pass a wider integer dtype (e.g. "
                         f"dtype=np.min_scalar_type({count - 1}))")
    return dt


def check_shape(shape, fname):
    """Canonical shape tuple; negative dims raise a ValueError naming ``fname``."""
    if isinstance(shape, (Array, Tracer, np.ndarray)):  # 0-d: one dim; 1-d: the dims
        shape = np.asarray(concrete_value(shape, f"the shape argument of jnp.{fname}")).tolist()
    try:
        shape = canonical_shape(shape, f"jnp.{fname}")
    except ConcretizationTypeError:
        raise  # a traced dim: its message names the argument and the fix
    except TypeError:
        raise TypeError(f"jnp.{fname}: shape must be an int or a sequence of ints (or "
                        f"symbolic dims), got {shape!r}") from None
    if any(type(d) is int and d < 0 for d in shape):
        raise NegativeDimensionError(f"jnp.{fname}: negative dimensions are not allowed, "
                                     f"got shape {shape_str(shape)}")
    return shape


def _static_int(x, fname, what):
    """A concrete Python int from ``x`` (int, NumPy int, concrete 0-d integer Array)."""
    if is_expr(x) and not x.is_Integer:
        return x  # a symbolic dim: allowed where shapes may be symbolic
    x = concrete_value(x, f"the {what} argument of jnp.{fname}")
    return static_index(x, what, f"jnp.{fname}")


# -- filled arrays --------------------------------------------------------------------------
def _filled(fname, shape, value, dtype, out_sharding):
    if _is_float0(dtype):
        return dtypes.float0_zeros(check_shape(shape, fname))
    dt = canonical_dtype(dtype, fname, dtypes.default_float())
    return out_sharded(lax.full(check_shape(shape, fname), value, dt), out_sharding, fname)


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of ``shape`` filled with zeros (default dtype: default float)."""
    return on_device(_filled("zeros", shape, 0, dtype, out_sharding), device)


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    """An array of ``shape`` filled with ones (default dtype: default float)."""
    return on_device(_filled("ones", shape, 1, dtype, out_sharding), device)


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    """Like ``zeros``: tjit arrays are immutable, so "uninitialized" means zeros."""
    return on_device(_filled("empty", shape, 0, dtype, out_sharding), device)


def full(shape, fill_value, dtype=None, *, device=None, out_sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (a scalar, or an array that
    broadcasts to ``shape``); the dtype defaults to ``fill_value``'s."""
    shape = check_shape(shape, "full")
    if _is_float0(dtype):
        return dtypes.float0_zeros(shape)
    dt = canonical_dtype(dtype, "full")
    if np.ndim(fill_value) == 0:  # np.ndim reads .ndim, so tracers are fine here
        return on_device(out_sharded(lax.full(shape, fill_value, dt), out_sharding, "full"),
                         device)
    fill = asarray(fill_value, dtype=dt)
    broadcast_shapes(tuple(fill.shape), shape, op="jnp.full")  # clear error when impossible
    return on_device(out_sharded(broadcast_to_shape(fill, shape), out_sharding, "full"),
                     device)


def _is_float0(dtype):
    # float0 (JAX's tangent dtype of integers) holds no values: creation functions give
    # the NumPy float0 array of the shape whatever the fill, as JAX's do
    return isinstance(dtype, np.dtype) and dtype == dtypes.float0


def _like(fname, a, fill_value, dtype, shape):
    if isinstance(a, ExtendedArray):  # key arrays: keys of constant data, as JAX
        return a._full_like(fill_value, dtype, shape, fname)
    if _is_float0(dtype if dtype is not None else getattr(a, "dtype", None)):
        return dtypes.float0_zeros(np.shape(a) if shape is None else check_shape(shape, fname))
    if not hasattr(a, "shape") or not hasattr(a, "dtype"):
        a = asarray(a)
    dt = canonical_dtype(dtype, fname)
    shape = tuple(a.shape) if shape is None else check_shape(shape, fname)
    if np.ndim(fill_value):
        fill = asarray(fill_value, dtype=dt if dt is not None else a.dtype)
        broadcast_shapes(tuple(fill.shape), shape, op=f"jnp.{fname}")
        return broadcast_to_shape(fill, shape)
    return lax.full_like(a, fill_value, dt, shape)


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Zeros with the shape and dtype of ``a`` (either may be overridden)."""
    return on_device(out_sharded(_like("zeros_like", a, 0, dtype, shape), out_sharding,
                                 "zeros_like"), device)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Ones with the shape and dtype of ``a`` (either may be overridden)."""
    return on_device(out_sharded(_like("ones_like", a, 1, dtype, shape), out_sharding,
                                 "ones_like"), device)


def empty_like(prototype, dtype=None, shape=None, *, device=None, out_sharding=None):
    """Like ``zeros_like`` (tjit arrays are immutable)."""
    return on_device(out_sharded(_like("empty_like", prototype, 0, dtype, shape),
                                 out_sharding, "empty_like"), device)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None, out_sharding=None):
    """``fill_value`` with the shape and dtype of ``a`` (either may be overridden)."""
    return on_device(out_sharded(_like("full_like", a, fill_value, dtype, shape),
                                 out_sharding, "full_like"), device)


def copy(a, order=None):
    """A copy of ``a`` (tjit arrays are immutable, so this never aliases mutable data),
    laid out as ``a`` (JAX keeps a committed array's sharding)."""
    check_memory_order(order, "copy")
    if isinstance(a, Array):
        return copied(a)
    return asarray(a)


def copied(a):
    """A new Array holding a copy of the Array ``a``'s buffer, with ``a``'s layout."""
    out = Array(a._value.copy(), a._weak)
    layout = getattr(a, "_sharding", None)
    if layout is not None:   # (the copy of a LaidOutValue is one)
        out._sharding = layout
    return out


def on_device(x, device):
    """JAX's ``device=`` of a creation function: ``x`` placed on a device, or laid out
    as a sharding (``x.sharding`` is then that sharding); None leaves ``x`` where it is
    made. Under a trace the value stays as traced (JAX places it when the computation
    runs; tjit runs a traced program on one device)."""
    if device is None or not isinstance(x, Array):
        return x
    import tjit   # placing data on a device is the runtime's job (tjit.device_put)
    return tjit.device_put(x, device)


# -- ranges ---------------------------------------------------------------------------------
def _concrete_range_arg(x, what):
    if isinstance(x, Tracer):
        raise _range_error(x, what)
    if not isinstance(x, (int, float, complex, np.generic, np.ndarray, Array)) and \
            not hasattr(type(x), "__jax_array__"):
        # (a list or another object: JAX's check_arraylike raises TypeError, not a shape's)
        raise TypeError(f"jnp.arange: {what} must be a scalar, got a {type(x).__name__} "
                        f"{x!r:.40}")
    if isinstance(x, Array):
        if x.ndim:
            _bad_range_arg(x, what)
        return x._value[()]
    if np.ndim(x) != 0:
        _bad_range_arg(x, what)
    return x


def _range_error(x, what):
    return ConcretizationTypeError(
        f"jnp.arange: the {what} argument must be a concrete value, got a traced array "
        f"{x.aval.str_short()}: the length of the result would depend on a traced value. "
        f"Fix: pass it as a static argument (jit(..., static_argnums=...)), use a dim "
        f"(jnp.arange(x.shape[0])), or build the range with a fixed length, e.g. "
        f"start + step * jnp.arange(n) with a static n.")


class _ZeroStepError(ValueError, ZeroDivisionError):
    """step=0: a ValueError, and the ZeroDivisionError NumPy (and JAX) raise."""


def _bad_range_arg(x, what):
    raise ValueError(f"jnp.arange: {what} must be a scalar, got an array of shape "
                     f"{np.shape(x)}")


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Evenly spaced values in ``[start, stop)`` (NumPy semantics; the dtype follows
    JAX's promotion of the arguments: Python ints give the default int, floats the
    default float). ``start``/``stop``/``step`` must be concrete; ``arange(n)`` also
    accepts a symbolic dim ``n``."""
    return on_device(out_sharded(_arange(start, stop, step, dtype), out_sharding,
                                 "arange"), device)


def _arange(start, stop, step, dtype):
    if start is None:   # (JAX: TypeError too; stop alone is passed as the first argument)
        raise TypeError("jnp.arange: start is None; pass the stop first, arange(stop), "
                        "or both bounds, arange(start, stop)")
    dt = canonical_dtype(dtype, "arange")
    start, stop, step = (int(v) if is_expr(v) and v.is_Integer else v
                         for v in (start, stop, step))
    if any(is_expr(v) for v in (start, stop, step)):
        return _symbolic_arange(start, stop, step, dt)
    start, stop, step = (None if v is None else _concrete_range_arg(v, w) for v, w in
                         ((start, "start"), (stop, "stop"), (step, "step")))
    given = [v for v in (start, stop, step) if v is not None]
    if any(isinstance(v, (complex, np.complexfloating)) for v in given):
        raise TypeError("jnp.arange: complex arguments are not supported")
    if dt is None:
        dt = result_type_of(*given)[0]
        if dtypes.is_bool(dt):
            dt = dtypes.default_int()
    if step is not None and step == 0:
        raise _ZeroStepError("jnp.arange: step must not be zero; pass a non-zero step "
                             "(its sign sets the direction)")
    stop_only = stop is None and step is None   # arange(n): JAX's iota, of any dtype
    if stop is None:  # arange(n) and arange(n, step=k) both mean [0, n): start is the stop
        start, stop = 0, start
    step = 1 if step is None else step
    # NumPy's own arange (as JAX's) fixes the length and the values; cast once at the end.
    ends = [np.asarray(v).item() for v in (start, stop, step)]
    ref = np.arange(*ends)
    if dtypes.is_int(dt) and not dtypes.is_int(ref.dtype):
        ref = np.arange(*ends, dtype=dt)  # NumPy's int steps: delta = int(start+step)-start
    if ref.size and ref[0] == 0 and step == 1 and (ref.dtype.kind in "iu" or stop_only):
        return lax.iota(dt, ref.size)   # (k exactly, rounded once to dt: np.arange's values)
    return Array(ref.astype(dt), False)


def _symbolic_arange(start, stop, step, dt):
    """``arange`` with symbolic-dim bounds (``arange(1, x.shape[0] + 1)`` under
    polymorphic shapes), as JAX allows: integer bounds and a concrete non-zero integer
    step; the length is a dim, ``max(0, ceil((stop - start) / step))``."""
    def integral(v, what):
        if v is None:
            return v
        return static_index(v, f"{what} (beside a symbolic-dim bound)", "jnp.arange",
                            dims=True)
    start, stop = integral(start, "start"), integral(stop, "stop")
    if is_expr(step):
        raise TypeError(f"jnp.arange: step must be a concrete integer, got the symbolic dim "
                        f"{dim_str(step)}")
    step = 1 if step is None else integral(step, "step")
    if step == 0:
        raise _ZeroStepError("jnp.arange: step must not be zero; pass a non-zero step "
                             "(its sign sets the direction)")
    if stop is None:
        start, stop = 0, start
    # ceil(span / |step|) as a floor of integers (sizes are evaluated exactly, see shapes)
    span = stop - start if step > 0 else start - stop
    length = max_dim(0, sympy.floor((span + abs(step) - 1) / sympy.Integer(abs(step))))
    length = int(length) if is_expr(length) and length.is_Integer else length
    dt = dt or dtypes.default_int()
    n_dt = dtypes.default_int()
    values = lax.iota(n_dt, length)
    if step != 1:
        values = lax.mul(values, lax.full((), step, n_dt))
    if not (type(start) is int and start == 0):
        values = lax.add(values, dim_value(start, n_dt))
    return lax.convert_element_type(values, dt)


def _linspace_parts(start, stop, num, endpoint, dtype, axis, fname):
    num = _static_int(num, fname, "num")
    if isinstance(num, int) and num < 0:
        raise ValueError(f"jnp.{fname}: number of samples, {num}, must be non-negative")
    dt = canonical_dtype(dtype, fname)
    check_arraylike(fname, start, stop)  # a list end is refused naming the function, as JAX
    start, stop = promote_dtypes(start, stop)
    if dt is None:
        dt = dtypes.to_inexact(start.dtype)
    cdt = dtypes.to_inexact(dt)
    if dtypes.computes_in_float32(cdt):  # float16, bfloat16, float8s: round once at the end
        cdt = np.dtype(np.float32)          # (steps in float8 gave 2, not 1.75, in -1.5..6)
    start, stop = lax.convert_element_type(start, cdt), lax.convert_element_type(stop, cdt)
    bshape = broadcast_shapes(tuple(start.shape), tuple(stop.shape), op=f"jnp.{fname}")
    start, stop = broadcast_to_shape(start, bshape), broadcast_to_shape(stop, bshape)
    axis = normalize_axis(axis, len(bshape) + 1, fname)
    out_shape = bshape[:axis] + (num,) + bshape[axis:]
    bdims = tuple(i for i in range(len(out_shape)) if i != axis)
    start_b = lax.broadcast_in_dim(start, out_shape, bdims)
    stop_b = lax.broadcast_in_dim(stop, out_shape, bdims)
    return num, dt, cdt, axis, out_shape, start_b, stop_b, start, stop


def _host_numpy_value(x):
    """``x`` as a NumPy value when it is a Python number or a NumPy value of a dtype NumPy
    computes on (not bfloat16), else None (tjit Arrays stay on their device)."""
    if isinstance(x, (Tracer, Array)):
        return None
    v = np.asarray(x)
    return v if v.dtype.kind in "biufc" else None


def _host_linspace(given, num, endpoint, axis, dt, cdt):
    """``(samples, step)`` of ``numpy.linspace`` on concrete endpoints, else None.

    NumPy computes Python-number endpoints in float64 and rounds once at the end; the
    traced formula in ``dt`` (float32 without x64) is an ulp off in between
    (linspace(0, 1, 11)[9] was 0.90000004, not float32(0.9)), which moves histogram
    values that sit on a bin edge into the neighbouring bin."""
    values = [_host_numpy_value(v) for v in given]
    if not isinstance(num, int) or any(v is None for v in values):
        return None
    with np.errstate(all="ignore"):
        out, step = np.linspace(*values, num, endpoint=endpoint, retstep=True, axis=axis)
        if dtypes.is_int(dt):
            out = np.floor(out)
    return (lax.convert_element_type(asarray(out.astype(dt)), dt),
            lax.convert_element_type(asarray(np.asarray(step).astype(cdt)), cdt))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (arrays broadcast; the
    samples run along ``axis``), placed as ``device`` says (a device or a sharding).

    Returns:
      The samples, and the step as well when ``retstep`` is true.
    """
    out = _linspace(start, stop, num, endpoint, retstep, dtype, axis)
    if retstep:
        return on_device(out[0], device), out[1]
    return on_device(out, device)


def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
    given = (start, stop)
    num, dt, cdt, axis, out_shape, start_b, stop_b, start, stop = _linspace_parts(
        start, stop, num, endpoint, dtype, axis, "linspace")
    host = _host_linspace(given, num, endpoint, axis, dt, dtypes.to_inexact(dt))
    if host is not None:
        return host if retstep else host[0]
    bdims = tuple(i for i in range(len(out_shape)) if i != axis)
    div = (num - 1) if endpoint else num
    if isinstance(num, int) and num <= 1:
        out = start_b
        step = lax.sub(stop, start) if (num == 1 and not endpoint) else \
            lax.full(start.shape, np.nan, cdt)
    else:
        if isinstance(div, int):
            divv = lax.convert_element_type(div, cdt)
        else:  # symbolic num: at run time num may be 1, where NumPy gives [start]
            divv = lax.convert_element_type(lax.max(dim_value(div), lax.full(
                (), 1, dtypes.default_int())), cdt)
        step = lax.div(lax.sub(stop, start), divv)
        # NumPy's formula, k * step + start (stop pinned last), so that samples, and the
        # floor of integer ones, agree with NumPy's: a lerp start*(1-t) + stop*t is off
        # by an ulp in between, which flooring turns into an off-by-one integer.
        k = lax.broadcasted_iota(cdt, out_shape, axis)
        step_b = lax.broadcast_in_dim(step, out_shape, bdims)
        delta_b = lax.sub(stop_b, start_b)
        zero = lax.full((), 0, cdt)
        # a step that underflows to 0: k / div * delta, as NumPy does
        out = lax.add(lax.select(lax.eq(step_b, lax.broadcast(zero, out_shape)),
                                 lax.mul(lax.div(k, divv), delta_b), lax.mul(k, step_b)),
                      start_b)
        if endpoint:
            last = lax.eq(k, lax.broadcast(lax.convert_element_type(divv, cdt), out_shape))
            out = lax.select(last, stop_b, out)
    if dtypes.is_int(dt):
        out = lax.floor(out)
    out = lax.convert_element_type(out, dt)
    step = lax.convert_element_type(step, dtypes.to_inexact(dt))
    return (out, step) if retstep else out


def _host_spaced(np_fn, given, num, dt, base=10.0, **kwargs):
    """``np_fn`` (numpy.logspace or geomspace) on concrete arguments, cast as NumPy casts
    to ``dt`` (integers truncate), else None: NumPy computes Python numbers in float64
    and rounds once, where the traced formula is an ulp off and floors negative
    integers."""
    values = [_host_numpy_value(v) for v in given + (base,)]
    if not isinstance(num, int) or num < 0 or any(v is None for v in values):
        return None  # (the traced path reports a negative num)
    if np_fn is np.logspace:
        kwargs["base"] = values[-1]
    # checked here: NumPy's message for axis=1.5 ("'float' object is not iterable") names
    # neither the function nor the axis
    kwargs["axis"] = normalize_axis(kwargs["axis"], np.broadcast(*values).ndim + 1,
                                    f"jnp.{np_fn.__name__}")
    with np.errstate(all="ignore"):
        out = np_fn(*values[:-1], num, **kwargs)
    # the traced path's (and JAX's) type: start and stop promoted, made inexact; NumPy's
    # float64 kept float32 inputs float64 with x64 on, and eager and jit disagreed
    out_dt = dt if dt is not None else dtypes.to_inexact(promote_dtypes(*given)[0].dtype)
    return lax.convert_element_type(asarray(out.astype(out_dt)), out_dt)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``."""
    dt = canonical_dtype(dtype, "logspace")
    host = _host_spaced(np.logspace, (start, stop), _static_int(num, "logspace", "num"), dt,
                        base, endpoint=endpoint, axis=axis)
    if host is not None:
        return host
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    base = asarray(base, dtype=lin.dtype) if not isinstance(base, (Array, Tracer)) else base
    if getattr(base, "ndim", 0):
        base = lax.expand_dims(ensure_array("logspace", base), (normalize_axis(
            axis, lin.ndim, "logspace"),))
    from tjit.numpy._ufuncs import power
    out = power(base, lin)
    if dt is not None:  # integers truncate, as NumPy's astype
        out = lax.convert_element_type(out, dt)
    return out


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Samples evenly spaced on a log scale from ``start`` to ``stop`` (same sign, non-zero
    real values); the ends are exactly ``start`` and ``stop``."""
    from tjit.numpy._ufuncs import log10, multiply, power, sign
    dt = canonical_dtype(dtype, "geomspace")
    given = (start, stop)
    check_arraylike("geomspace", start, stop)
    start, stop = promote_dtypes(start, stop)
    for v in (start, stop):
        if isinstance(v, Array) and np.any(v._value == 0):
            raise ValueError("jnp.geomspace: a geometric sequence cannot include zero")
    host = _host_spaced(np.geomspace, given, _static_int(num, "geomspace", "num"), dt,
                        endpoint=endpoint, axis=axis)
    if host is not None:
        return host
    if dtypes.is_complex(start.dtype):
        raise NotImplementedError("jnp.geomspace: complex endpoints are supported only as "
                                  "concrete values (not traced)")
    s = sign(start)
    lin = linspace(log10(multiply(start, s)), log10(multiply(stop, s)), num,
                   endpoint=endpoint, axis=axis)
    ax = normalize_axis(axis, lin.ndim, "geomspace")
    out = multiply(power(lax.convert_element_type(10, lin.dtype), lin),
                   _expand_at(lax.convert_element_type(s, lin.dtype), lin, ax))
    n = lin.shape[ax]
    if isinstance(n, int) and n > 0:  # NumPy pins the ends to the exact inputs
        idx = lax.broadcasted_iota(dtypes.default_int(), out.shape, ax)
        ends = [(0, start)] + ([(n - 1, stop)] if endpoint and n > 1 else [])
        for i, v in ends:
            v = broadcast_to_shape(_expand_at(lax.convert_element_type(v, out.dtype), lin, ax),
                                   tuple(out.shape))
            out = lax.select(lax.eq(idx, lax.full((), i, idx.dtype)), v, out)
    if dt is not None:  # integers truncate, as NumPy's astype
        out = lax.convert_element_type(out, dt)
    return out


def _expand_at(x, like, ax):
    """``x`` broadcast to ``like``'s shape without dim ``ax``, then given a size-1 dim
    there."""
    x = broadcast_to_shape(x, tuple(like.shape[:ax]) + tuple(like.shape[ax + 1:]))
    return lax.expand_dims(x, (ax,))


# -- matrices -------------------------------------------------------------------------------
def _row_col(n, m, dt=None):
    """Row and column index grids of an ``(n, m)`` matrix."""
    dt = dt or dtypes.default_int()
    return lax.broadcasted_iota(dt, (n, m), 0), lax.broadcasted_iota(dt, (n, m), 1)


def _diag_mask(n, m, k, fname, cmp):
    """``cmp(j - i, k)`` over an ``(n, m)`` grid (bool)."""
    k = _static_int(k, fname, "k")
    i, j = _row_col(n, m)
    return cmp(lax.sub(j, i), lax.full((), k, i.dtype))


def eye(N, M=None, k=0, dtype=None, *, device=None):  # noqa: N803 (NumPy's names)
    """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    Args:
      N: number of rows; M: number of columns (default ``N``); k: diagonal offset
        (positive: above the main diagonal).
    """
    dt = canonical_dtype(dtype, "eye", dtypes.default_float())
    n = _static_int(N, "eye", "N")
    m = n if M is None else _static_int(M, "eye", "M")
    check_shape((n, m), "eye")
    return on_device(lax.convert_element_type(_diag_mask(n, m, k, "eye", lax.eq), dt),
                     device)


def identity(n, dtype=None):
    """The ``n x n`` identity matrix."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):  # noqa: N803
    """Ones at and below the ``k``-th diagonal of an ``N x M`` matrix."""
    dt = canonical_dtype(dtype, "tri", dtypes.default_float())
    n = _static_int(N, "tri", "N")
    m = n if M is None else _static_int(M, "tri", "M")
    check_shape((n, m), "tri")
    return lax.convert_element_type(_diag_mask(n, m, k, "tri", lax.le), dt)


def _triangle(m, k, fname, cmp):
    m = ensure_array(fname, m)
    if m.ndim < 2:
        raise ValueError(f"jnp.{fname}: input must have at least 2 dims, got shape "
                         f"{shape_str(m.shape)}")
    mask = _diag_mask(m.shape[-2], m.shape[-1], k, fname, cmp)
    mask = broadcast_to_shape(mask, tuple(m.shape))
    return lax.select(mask, m, lax.full_like(m, 0, shape=()))  # (m's weak type, as JAX)


def tril(m, k=0):
    """``m`` with the elements above the ``k``-th diagonal (of the last two dims) zeroed."""
    return _triangle(m, k, "tril", lax.le)


def triu(m, k=0):
    """``m`` with the elements below the ``k``-th diagonal (of the last two dims) zeroed."""
    return _triangle(m, k, "triu", lax.ge)


def diag(v, k=0):
    """The ``k``-th diagonal of a 2-D ``v``, or a 2-D array with the 1-D ``v`` on its
    ``k``-th diagonal."""
    v = ensure_array("diag", v)
    k = _static_int(k, "diag", "k")
    if v.ndim == 1:
        return _diag_from_vector(v, k)
    if v.ndim == 2:
        return strong_main_diagonal(v, k, _diag_of_matrix(v, k))
    raise ValueError(f"jnp.diag: input must be 1-D or 2-D, got shape {shape_str(v.shape)}")


def _diag_from_vector(v, k):
    n = v.shape[0]
    size = n + abs(k)
    zero = lax.full_like(v, 0, shape=())  # (v's weak type, as JAX's zeros)
    vpad = lax.pad(v, zero, ((0, abs(k), 0),)) if k else v
    # out[i, j] = v[min(i, j)] on the diagonal j - i == k
    vals = lax.broadcast_in_dim(vpad, (size, size), (0,) if k >= 0 else (1,))
    mask = _diag_mask(size, size, k, "diag", lax.eq)
    return lax.select(mask, vals, zero)


def _diag_length(n, m, k):
    if type(n) is int and type(m) is int:
        return max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    if k == 0 and n == m:
        return n
    from tjit.tracing.errors import InconclusiveDimensionError
    raise InconclusiveDimensionError(
        f"jnp.diag: cannot tell the length of diagonal {k} of a matrix of symbolic shape "
        f"{shape_str((n, m))}; only the main diagonal of a square symbolic matrix is "
        f"supported")


def _diag_of_matrix(x, k):
    n, m = x.shape
    length = _diag_length(n, m, k)
    if type(length) is int and length == 0:
        return lax.full((0,), 0, x.dtype)
    if type(n) is not int or type(m) is not int:  # square symbolic: mask the diagonal
        mask = _diag_mask(n, m, 0, "diag", lax.eq)
        return lax.reduce_sum(lax.select(mask, x, lax.full((), 0, x.dtype)), (1,))
    flat = lax.reshape(x, (n * m,))
    # Element (i, i + k) sits at i*(m + 1) + k of the row-major flattening.
    start = k if k >= 0 else -k * m
    limit = start + (length - 1) * (m + 1) + 1
    return lax.slice(flat, (start,), (limit,), (m + 1,))


def diagflat(v, k=0):
    """A 2-D array with the flattened ``v`` on its ``k``-th diagonal."""
    v = ensure_array("diagflat", v)
    out = _diag_from_vector(lax.reshape(v, (v.size,)), _static_int(k, "diagflat", "k"))
    # strong, as JAX's (which scatters v into strong zeros)
    return lax.convert_element_type(out, out.dtype, weak_type=False)


# -- grids ----------------------------------------------------------------------------------
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate grids from 1-D coordinate vectors (``indexing`` 'xy': Cartesian, the
    first two output dims swapped; 'ij': matrix indexing).

    Returns:
      A list with one array per input.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"jnp.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    vecs = []
    for x in xi:
        x = ensure_array("meshgrid", x)
        vecs.append(lax.reshape(x, (x.size,)) if x.ndim != 1 else x)
    n = len(vecs)
    pos = list(range(n))
    if indexing == "xy" and n >= 2:
        pos[0], pos[1] = 1, 0
    shape = [None] * n
    for p, x in zip(pos, vecs):
        shape[p] = x.shape[0]
    out = []
    for p, x in zip(pos, vecs):
        if sparse:
            out.append(lax.reshape(x, tuple(shape[p] if i == p else 1 for i in range(n))))
        else:
            out.append(lax.broadcast_in_dim(x, tuple(shape), (p,)))
    return out


def indices(dimensions, dtype=None, sparse=False):
    """An array (or with ``sparse``, a tuple of broadcastable arrays) of the index grid
    of an array of shape ``dimensions``; ``out[i]`` varies along dim ``i``."""
    dt = canonical_dtype(dtype, "indices", dtypes.default_int())
    dims = check_shape(tuple(dimensions), "indices")
    n = len(dims)
    if sparse:
        return tuple(lax.broadcasted_iota(dt, tuple(d if i == j else 1 for j in range(n)), i)
                     for i, d in enumerate(dims))
    if n == 0:
        return lax.full((0,), 0, dt)
    grids = [lax.broadcasted_iota(dt, (1,) + dims, i + 1) for i in range(n)]
    return lax.concatenate(grids, 0) if n > 1 else grids[0]


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """An array made by calling ``function`` at each index of ``shape``.

    As in JAX (unlike NumPy, which passes whole index grids), ``function`` is vmapped over
    each axis: it sees one scalar index per axis (of ``dtype``, default float), so it may
    return arrays or pytrees of them, which gain ``shape`` as leading axes.

    Args:
      function: called as ``function(*indices, **kwargs)``.
      shape: the index space.
      dtype: the indices' dtype.
    """
    dt = canonical_dtype(dtype, "fromfunction", dtypes.default_float())
    shape = check_shape(shape, "fromfunction")
    n = len(shape)
    if kwargs:  # passed whole to every call, not mapped
        function = functools.partial(function, **kwargs)
    for i in range(n):  # innermost vmap maps the last axis, so axis 0 ends up leading
        in_axes = tuple(0 if j == n - 1 - i else None for j in range(n))
        function = vmap(function, in_axes=in_axes)
    return function(*(lax.iota(dt, d) for d in shape))


__all__ = ["zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
           "full_like", "copy", "arange", "linspace", "logspace", "geomspace", "eye",
           "identity", "tri", "tril", "triu", "diag", "diagflat", "meshgrid", "indices",
           "fromfunction"]
