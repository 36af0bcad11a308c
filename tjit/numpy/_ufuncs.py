"""Elementwise ``tjit.numpy`` functions (NumPy ufunc names, JAX dtype rules)."""

import functools

import numpy as np

from tjit.config import config as _config
from tjit.tracing import dtypes
from tjit.tracing.core import Array as _Array
from tjit.tracing.core import EvalTrace as _EvalTrace
from tjit.primitives.elementwise import integer_pow_p as _integer_pow_p
from tjit.primitives.fma import FMA_DTYPES as _FMA_DTYPES
from tjit.primitives.fma import fma as _fma
from tjit.tracing.core import fast_runner as _fast_runner
from tjit.tracing.core import signature as _signature
from tjit.tracing.errors import static_index as _static_index
from tjit.tracing.core import fast_runner1 as _fast_runner1, fast_runner2 as _fast_runner2
from tjit.tracing.core import trace_ctx as _trace_ctx
from tjit.tracing.fp_quiet import quiet_call as _quiet_call, quiet_run as _quiet_run
from tjit.tracing.traceback_util import filter_at_entry as _filter_at_entry
from tjit import lax
from tjit.lax._structural import constant_like as _constant_like
from tjit.transforms.custom_derivatives import custom_jvp
from tjit.numpy._core import dtype_and_weak as _dtype_and_weak
from tjit.numpy._core import (
    broadcast_arrays_, broadcast_to_shape, ensure_array, promote_args, promote_args_inexact,
    promote_dtypes_inexact)
from tjit.numpy._core import defers_to as _defers_to
from tjit.numpy._core import refuses_operand as _refuses_operand
from tjit.numpy._core import promote_args_numeric as _promote_args_numeric
from tjit.numpy import _lane_tables, _mixed_lane, _scalar_lane
from tjit.numpy._mixed_lane import REPLAY as _REPLAY


_ndarray, _asarray = np.ndarray, np.asarray
_new_array = _scalar_lane.new_array

#: inexact dtypes that an inexact function takes as they are (64-bit ones are canonical
#: only under x64, checked at the call)
_NARROW_INEXACT = frozenset([dtypes.float16, dtypes.float32, dtypes.complex64])
_WIDE_INEXACT = frozenset([dtypes.float64, dtypes.complex128])


def _kept(dt):
    return dt in _NARROW_INEXACT or (dt in _WIDE_INEXACT and _config.enable_x64)


def _eager_prim(lax_fn):
    """The primitive ``lax_fn`` binds for operands of dtype ``dt``, as ``prim_for(dt)``
    (None: ``lax_fn`` is not a single primitive, so no fast lane)."""
    prim_for = getattr(lax_fn, "prim_for", None)
    if prim_for is not None:
        return prim_for
    prim = getattr(lax_fn, "prim", None)
    return None if prim is None else (lambda dt: prim)


def _one_in(name, lax_fn, inexact=False, doc=None):
    prim_for = _eager_prim(lax_fn)
    # (shape, dtype, weak) of a NumPy-backed operand -> its fast-lane call
    runs = _lane_tables.new_table()

    def f(x, /):
        try:
            if type(x) is _Array:
                vx = x._value
                if type(_trace_ctx.trace) is _EvalTrace and type(vx) is _ndarray:
                    run = runs.get((vx.shape, vx.dtype, x._weak))
                    if run is not None:
                        return run(vx)
                if not inexact or _kept(vx.dtype):
                    # nothing to convert (the common eager call): run the primitive directly
                    # when its signature is known (fast_runner1), else bind it as usual
                    if prim_for is not None and type(_trace_ctx.trace) is _EvalTrace:
                        run = _fast_runner1(prim_for(vx.dtype), x)
                        if run is not None:
                            if not inexact or vx.dtype in _NARROW_INEXACT:  # x64 aside
                                _lane_tables.keep(runs, (vx.shape, vx.dtype, x._weak), run)
                            return run(vx)
                    return lax_fn(x)
            if inexact:
                x = promote_dtypes_inexact(ensure_array(name, x))[0]
            else:
                x = ensure_array(name, x)
            return lax_fn(x)
        except Exception as e:
            _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
            raise
    # (the qualified name is what Python's own TypeErrors print: ``sin() got an
    # unexpected keyword argument 'out'``)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc or f"Elementwise ``numpy.{name}``."
    return f


def _no_out(name, out, where=None):
    """JAX's ufuncs take ``out`` and ``where`` only as None: tjit arrays are immutable."""
    if out is not None:
        raise NotImplementedError(f"jnp.{name}: the 'out' argument is not supported (tjit "
                                  f"arrays are immutable, as JAX's); use the returned array")
    if where is not None:
        raise NotImplementedError(f"jnp.{name}: the 'where' argument is not supported (as "
                                  f"in JAX); use jnp.where(mask, jnp.{name}(...), other)")


def _two_in(name, lax_fn, inexact=False, doc=None):
    prim_for = _eager_prim(lax_fn)
    promote = promote_args_inexact if inexact else promote_args

    # the signature ids of two NumPy-backed operands -> the record of their fast-lane
    # call, or the plan of a call that promoted or broadcast them (_mixed_lane)
    runs = _lane_tables.new_table()
    # (dtype, weak of the Array, the Python number's type) -> the replay of what the
    # signature's first call did (_scalar_lane.plan; any shape: the number broadcasts);
    # one table per side of the number
    number_right, number_left = _lane_tables.new_table(), _lane_tables.new_table()

    def with_number(x, y, arr, number_type, side):
        """The general path of an Array and a Python number; keeps its plan."""
        x, y = promote(name, x, y)
        out = lax_fn(x, y)
        if prim_for is not None and type(_trace_ctx.trace) is _EvalTrace:
            _scalar_lane.remember(number_right if side else number_left,
                                  (arr._value.dtype, arr._weak, number_type),
                                  _scalar_lane.prim_run(prim_for(x.dtype), (x, y)), (x, y),
                                  arr, number_type, side)
        return out

    def with_arrays(x, y):
        """The general path of two NumPy-backed Arrays that need promotion or
        broadcasting; keeps its plan (_mixed_lane) in ``runs``."""
        px, py = promote(name, x, y)
        run = _fast_runner2(prim_for(px._value.dtype), px, py)
        out = lax_fn(px, py) if run is None else run(px._value, py._value)
        if type(_trace_ctx.trace) is _EvalTrace:
            record = _mixed_lane.plan(
                run or _fast_runner2(prim_for(px._value.dtype), px, py), (px, py), x, y, out)
            if record is not None:
                _lane_tables.keep(runs, (_signature(x), _signature(y)), record)
        return out

    def entry_point(operator=None, reflected=False):
        """The function, or (``operator``) an Array operator: one body, so an operator
        costs no Python call more than the function. ``"defer"`` and ``"compare"``: a
        TypeError for an operand type jnp does not know returns NotImplemented
        (``a + pandas.Series``; ``a == "x"`` is False, as Python's ``==`` of unrelated
        types), but not for JAX's rejected types (``a == [1, 2]`` raises, as in JAX;
        ``_core.defers_to``) nor for shapes that do not broadcast (``_core.
        refuses_operand``); ``reflected``: ``__radd__`` and the like (operands swapped)."""
        def f(x, y, /, *, out=None, where=None):
            if reflected:  # other.__rop__(self): x is the operator's self
                x, y = y, x
            try:
                if out is not None or where is not None:
                    _no_out(name, out, where)
                tx, ty = type(x), type(y)
                if tx is _Array:
                    vx = x._value
                    if ty is _Array:
                        if type(_trace_ctx.trace) is _EvalTrace:
                            # the plan of these two signatures (_mixed_lane), if seen; an
                            # Array's id is None until its first use here
                            lane = runs.get((x._sig, y._sig))
                            if lane is None and (x._sig is None or y._sig is None):
                                lane = runs.get((_signature(x), _signature(y)))
                            if lane is not None:
                                vy = y._value
                                fn, quiet, weak, sig, casts = lane  # (_mixed_lane's record)
                                if casts is not None:
                                    if casts is _REPLAY:
                                        return fn(vx, vy)
                                    cast_x, cast_y = casts
                                    if cast_x is not None:
                                        vx = vx.astype(cast_x)
                                    if cast_y is not None:
                                        vy = vy.astype(cast_y)
                                if not quiet:
                                    out = fn(vx, vy)
                                else:
                                    try:
                                        out = _quiet_run(fn, vx, vy)
                                    except RuntimeError:  # (its context in use: fp_quiet)
                                        out = _quiet_call(fn, vx, vy)
                                o = _new_array(_Array)
                                o._value = out if type(out) is _ndarray else _asarray(out)
                                o._weak = weak
                                o._sig = sig
                                return o
                        vy = y._value
                        if (vx.dtype == vy.dtype and vx.shape == vy.shape and
                                x._weak is y._weak and (not inexact or _kept(vx.dtype))):
                            # nothing to promote or broadcast (the common eager call): the
                            # primitive's fast lane when its signature is known, else bind it
                            if prim_for is not None and \
                                    type(_trace_ctx.trace) is _EvalTrace:
                                run = _fast_runner2(prim_for(vx.dtype), x, y)
                                if run is not None:
                                    out = run(vx, vy)
                                    # (x64 aside)
                                    if not inexact or vx.dtype in _NARROW_INEXACT:
                                        record = _mixed_lane.lane(run, out)
                                        if record is not None:
                                            _lane_tables.keep(
                                                runs, (_signature(x), _signature(y)), record)
                                    return out
                            return lax_fn(x, y)
                        if prim_for is not None and type(_trace_ctx.trace) is _EvalTrace and \
                                type(vx) is _ndarray and type(vy) is _ndarray:
                            return with_arrays(x, y)
                    elif ty is float or ty is int or ty is complex:
                        if type(vx) is _ndarray and type(_trace_ctx.trace) is _EvalTrace:
                            replay = number_right.get((vx.dtype, x._weak, ty))
                            if replay is not None:
                                out = replay(vx, y)
                                if out is not None:
                                    return out
                        return with_number(x, y, x, ty, 1)
                elif ty is _Array and (tx is float or tx is int or tx is complex):
                    vy = y._value
                    if type(vy) is _ndarray and type(_trace_ctx.trace) is _EvalTrace:
                        replay = number_left.get((vy.dtype, y._weak, tx))
                        if replay is not None:
                            out = replay(vy, x)
                            if out is not None:
                                return out
                    return with_number(x, y, y, tx, 0)
                x, y = promote(name, x, y)
                if prim_for is not None and type(x) is _Array and \
                        type(_trace_ctx.trace) is _EvalTrace:
                    run = _fast_runner2(prim_for(x._value.dtype), x, y)
                    if run is not None:
                        return run(x._value, y._value)
                return lax_fn(x, y)
            except Exception as e:
                if type(e) is OverflowError and name in _MIRRORED:
                    out = _compare_outside_dtype(name, x, y)
                    if out is not None:
                        return out
                if operator is not None and _refuses_operand(e) and \
                        _defers_to(x if reflected else y):
                    return NotImplemented  # the other operand's operator runs
                _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
                raise
        f.__name__ = f.__qualname__ = name
        f.__doc__ = doc or f"Elementwise ``numpy.{name}`` with broadcasting."
        return f

    f = entry_point()
    f.operator_form = entry_point  # read by Array's operators (_array_methods)
    return f


#: comparison -> the one with its operands swapped (3 < x is x > 3)
_MIRRORED = {"equal": "equal", "not_equal": "not_equal", "less": "greater",
             "greater": "less", "less_equal": "greater_equal",
             "greater_equal": "less_equal"}


def _compare_outside_dtype(name, x, y):
    """NumPy 2's exact answer to comparing an integer array with a Python int outside its
    dtype (int8_array < 300 is all True, == 300 all False), where arithmetic with that int
    raises OverflowError; None when that is not the case (the int must still fit the
    default int, JAX's weak type of a Python int: the OverflowError then stands)."""
    if type(y) is int:
        arr, v, op = x, y, name
    elif type(x) is int:
        arr, v, op = y, x, _MIRRORED[name]
    else:
        return None
    if not hasattr(arr, "dtype") or not dtypes.is_int(arr.dtype):
        return None
    default, info = dtypes.iinfo(dtypes.default_int()), dtypes.iinfo(arr.dtype)
    if not default.min <= v <= default.max or info.min <= v <= info.max:
        return None
    above = v > info.max   # v is above (or else below) every element of arr
    value = {"equal": False, "not_equal": True, "less": above, "less_equal": above,
             "greater": not above, "greater_equal": not above}[op]
    return lax.full_like(arr, value, _BOOL)


_BOOL = np.dtype(np.bool_)


def _bool_as(bool_fn, fn):
    """``fn``, or ``bool_fn`` for bool operands (NumPy adds bools with or, multiplies
    them with and)."""
    def op(x, y):
        return bool_fn(x, y) if x.dtype == _BOOL else fn(x, y)
    op.prim_for = lambda dt: bool_fn.prim if dt == _BOOL else fn.prim
    return op


add = _two_in("add", _bool_as(lax.bitwise_or, lax.add))
subtract = _two_in("subtract", lax.sub)
multiply = _two_in("multiply", _bool_as(lax.bitwise_and, lax.mul))
true_divide = _two_in("true_divide", lax.div, inexact=True)
divide = true_divide
maximum = _two_in("maximum", lax.max)
minimum = _two_in("minimum", lax.min)
arctan2 = _two_in("arctan2", lax.atan2, inexact=True)
nextafter = _two_in("nextafter", lax.nextafter, inexact=True)
equal = _two_in("equal", lax.eq)
not_equal = _two_in("not_equal", lax.ne)
less = _two_in("less", lax.lt)
less_equal = _two_in("less_equal", lax.le)
greater = _two_in("greater", lax.gt)
greater_equal = _two_in("greater_equal", lax.ge)


def _check_integer(name, x):
    if not (dtypes.is_int(x.dtype) or dtypes.is_bool(x.dtype)):
        raise TypeError(f"{name} does not accept dtype {x.dtype} (the promoted dtype of its "
                        f"operands); it takes integers and bools. For masks, combine "
                        f"comparisons, e.g. (x > 0) & (y < 1)")


def _integer_op(name, lax_fn):
    """A bitwise op: integers and bools only, checked here so the error names it."""
    def fn(x, y):
        _check_integer(name, x)
        return lax_fn(x, y)
    fn.prim = lax_fn.prim  # what the fast lane runs once a signature passed the check
    return fn


bitwise_and = _two_in("bitwise_and", _integer_op("bitwise_and", lax.bitwise_and))
bitwise_or = _two_in("bitwise_or", _integer_op("bitwise_or", lax.bitwise_or))
bitwise_xor = _two_in("bitwise_xor", _integer_op("bitwise_xor", lax.bitwise_xor))


def _logical(name, fn):
    def f(x, y, /, *, out=None, where=None):
        try:
            if out is not None or where is not None:
                _no_out(name, out, where)
            x, y = promote_args(name, x, y)
            return fn(_to_bool(x), _to_bool(y))
        except Exception as e:
            _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
            raise
    f.__name__ = f.__qualname__ = name
    return f


def _to_bool(x):
    """``x != 0`` (bool stays itself); weak for weak scalars, as JAX's (lax._const 0)."""
    return x if x.dtype == np.bool_ else lax.ne(x, _constant_like(x, 0))


logical_and = _logical("logical_and", lax.bitwise_and)
logical_or = _logical("logical_or", lax.bitwise_or)
logical_xor = _logical("logical_xor", lax.bitwise_xor)


def logical_not(x, /):
    return lax.bitwise_not(_to_bool(ensure_array("logical_not", x)))


def invert(x, /):
    x = ensure_array("invert", x)
    if dtypes.is_inexact(x.dtype):
        raise TypeError(f"invert: not supported for dtype {x.dtype}; only integers and bool")
    return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


def _shift_right(x, y):
    _check_integer("right_shift", x)
    if dtypes.is_unsigned(x.dtype):
        return lax.shift_right_logical(x, y)
    return lax.shift_right_arithmetic(x, y)


_shift_right.prim_for = lambda dt: (lax.shift_right_logical.prim if dt.kind == "u" else
                                    lax.shift_right_arithmetic.prim)
_left_shift = _two_in("left_shift", _integer_op("left_shift", lax.shift_left))
_right_shift = _two_in("right_shift", _shift_right)


def _is_bool(x):
    t = type(x)
    if t is _Array:  # (its value's dtype: no property call, dtype == dtype is cheapest)
        return x._value.dtype == _BOOL
    return t is bool or getattr(x, "dtype", None) == _BOOL


def _both_bool(x, y):
    """Both operands bool (Python or arrays): the only way a promoted dtype is bool."""
    return _is_bool(x) and _is_bool(y)


def left_shift(x, y, /):
    """Elementwise ``x << y`` for integers; bools shift as the default int (as in JAX)."""
    if _both_bool(x, y):
        x, y = _promote_args_numeric("left_shift", x, y)
    return _left_shift(x, y)


def right_shift(x, y, /):
    """Elementwise ``x >> y`` for integers: arithmetic for signed, logical for unsigned
    dtypes; bools shift as the default int (as in JAX)."""
    if _both_bool(x, y):
        x, y = _promote_args_numeric("right_shift", x, y)
    return _right_shift(x, y)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def floor_divide(x, y, /):
    """Floor division ``x // y`` (rounds toward -inf, like NumPy and Python).

    Integer division by zero gives JAX's values: the max for unsigned dtypes
    (``lax.div``'s all-ones), and for signed ones -1 when ``x == 0`` and -2 otherwise
    (``lax.div``'s -1 with the floor step, as ``rem(x, 0) == x``); float division by zero
    gives +-inf or NaN. Float results are NumPy's bit for
    bit (``npy_divmod``, see ``_float_divmod``), signed zeros included.
    """
    x, y = _promote_args_numeric("floor_divide", x, y)
    _check_real("floor_divide", x)
    if dtypes.is_int(x.dtype):
        q = lax.div(x, y)
        if dtypes.is_unsigned(x.dtype):
            return _weak_if_both(q, x, y)
        # JAX's rule: step down where the signs differ and the division is inexact (at
        # y == 0, r == x: nonzero x // 0 is lax.div's -1 stepped down to -2)
        r = lax.rem(x, y)
        zero = lax.convert_element_type(0, x.dtype)
        fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.sign(x), lax.sign(y)))
        return _weak_if_both(lax.select(fix, lax.sub(q, lax.convert_element_type(1, x.dtype)),
                                        q), x, y)
    return _float_divmod(x, y)[0]


def _weak_if_both(out, x, y):
    """``out`` weakly typed when ``x`` and ``y`` are (as JAX's result of bool // 2): the
    strong constants of an integer composite would drop the flag."""
    if x.weak_type and y.weak_type and not out.weak_type:
        return lax.convert_element_type(out, out.dtype, weak_type=True)
    return out


def _numpy_lane(name, numpy_form, general):
    """``general(x, y)``, a jnp function composed of lax ops, with an eager fast lane
    that calls ``numpy_form(dtype)`` (a NumPy ufunc, or a short function of NumPy calls;
    None: no lane) on operands of the result's dtype: there it gives the composite's
    values bit for bit (floats' ``npy_divmod``). A signature's first call runs the
    composite; later ones that call with NumPy's warnings off (a Python number operand
    through _scalar_lane's plans). Traced calls (jit, grad, vmap) see the composite
    only."""
    runs = _lane_tables.new_table()  # signature ids of two NumPy-backed Arrays -> run
    number_right, number_left = _lane_tables.new_table(), _lane_tables.new_table()

    def remember(x, y, out, ufunc):
        run = _scalar_lane.ufunc_run(ufunc, out._weak)
        if type(x) is _Array and type(y) is _Array:
            vx, vy = x._value, y._value
            if (type(vx) is _ndarray and type(vy) is _ndarray and vx.dtype == vy.dtype
                    == out.dtype and x._weak is y._weak):
                _lane_tables.keep(runs, (_signature(x), _signature(y)), run)
            return
        side = 1 if type(x) is _Array else 0
        arr, number_type = (x, type(y)) if side else (y, type(x))
        if type(arr) is not _Array or not _scalar_lane.is_number_type(number_type):
            return
        promoted = promote_args(name, x, y)
        if promoted[0].dtype == out.dtype:
            _scalar_lane.remember(number_right if side else number_left,
                                  (arr._value.dtype, arr._weak, number_type),
                                  run, promoted, arr, number_type, side)

    @functools.wraps(general)
    def f(x, y, /):
        try:
            if type(_trace_ctx.trace) is _EvalTrace:
                tx, ty = type(x), type(y)
                if tx is _Array and type(x._value) is _ndarray:
                    vx = x._value
                    if ty is _Array:
                        sx, sy = x._sig, y._sig
                        run = runs.get((_signature(x) if sx is None else sx,
                                        _signature(y) if sy is None else sy))
                        if run is not None:  # (a signature id: NumPy-backed)
                            return run(vx, y._value)
                    elif ty is float or ty is int or ty is complex:
                        replay = number_right.get((vx.dtype, x._weak, ty))
                        out = None if replay is None else replay(vx, y)
                        if out is not None:
                            return out
                elif ty is _Array and _scalar_lane.is_number_type(tx) and \
                        type(y._value) is _ndarray:
                    vy = y._value
                    replay = number_left.get((vy.dtype, y._weak, tx))
                    out = None if replay is None else replay(vy, x)
                    if out is not None:
                        return out
            out = general(x, y)
            if type(out) is _Array and type(_trace_ctx.trace) is _EvalTrace:
                form = numpy_form(out.dtype)
                if form is not None:
                    remember(x, y, out, form)
            return out
        except Exception as e:
            _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
            raise
    return f


def _integer_floor_divide(x, y):
    """NumPy's integer ``x // y`` with the composite's values at ``y == 0`` (the max
    unsigned; -1 for 0 // 0 and -2 for other signed x // 0), where NumPy gives 0;
    INT_MIN // -1 wraps in both."""
    q = np.floor_divide(x, y)
    if (bool(y) if y.ndim == 0 else np.count_nonzero(y) == y.size):  # (a number: cheap)
        return q
    by_zero = np.array(-1).astype(q.dtype)
    if q.dtype.kind == "i":
        by_zero = np.where(x == 0, by_zero, np.array(-2, q.dtype))
    return np.where(y == 0, by_zero, q)


def _floor_divide_form(dt):
    """floor_divide's NumPy form for result dtype ``dt`` (bfloat16 is kind "V": the
    composite only)."""
    if dt.kind == "f":
        return np.floor_divide
    return _integer_floor_divide if dt.kind in "iu" else None


floor_divide = _numpy_lane("floor_divide", _floor_divide_form, floor_divide)


def _check_real(name, x):
    if dtypes.is_complex(x.dtype):
        raise TypeError(f"{name}: not supported for complex arrays (got {x.dtype}); pass "
                        f"real values, e.g. jnp.real(x) or jnp.abs(x)")
    if dtypes.is_bool(x.dtype):
        raise TypeError(f"{name}: not supported for bool arrays; convert with "
                        f"x.astype(jnp.int32) first")


def _float_divmod(x, y):
    """NumPy's ``npy_divmod`` (CPython's float_divmod), operation for operation:

        mod = fmod(x, y); div = (x - mod) / y      # x - mod: nearly a multiple of y
        if mod != 0 and (y < 0) != (mod < 0): mod += y; div -= 1
        if mod == 0: mod = copysign(0, y)          # a zero remainder: y's sign
        floordiv = floor(div), plus 1 if div - floor(div) > 1/2   # snap to an integer
        if div == 0: floordiv = copysign(0, x / y)
        y == 0: floordiv = x / y (+-inf, NaN for 0 / 0), mod = fmod(x, 0) (NaN)

    floor(x / y) is off by one for e.g. 1.0 // 0.1, and rounding ``div`` half to even
    (or away from zero, as JAX) instead of snapping is off by one for quotients of
    2**22 and more in float32: -131569.83 // -0.015981581 is 8232591, not 8232592.
    float16 is computed in float32 and rounded, as NumPy's ``npy_half_divmod``; so are
    bfloat16 and the float8/6/4s, as ml_dtypes' ufuncs (in their own precision the steps
    round: bfloat16 13.0625 // -0.0444336 gave -292, not -294).
    """
    if dtypes.computes_in_float32(x.dtype):
        q, r = _float_divmod(*(lax.convert_element_type(v, np.float32) for v in (x, y)))
        return tuple(lax.convert_element_type(v, x.dtype) for v in (q, r))
    zero, one = lax.full_like(x, 0), lax.full_like(x, 1)
    mod = lax.rem(x, y)
    div = lax.div(lax.sub(x, mod), y)
    fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.lt(y, zero), lax.lt(mod, zero)))
    mod = lax.select(fix, lax.add(mod, y), mod)
    div = lax.select(fix, lax.sub(div, one), div)
    mod = _zero_with_sign_of(mod, y)
    floordiv = lax.floor(div)
    floordiv = lax.select(lax.gt(lax.sub(div, floordiv), lax.full_like(x, 0.5)),
                          lax.add(floordiv, one), floordiv)
    # div == 0: the sign of x / y, i.e. of x times that of y (x, y are finite here)
    signed_zero = lax.select(lax.ne(signbit(x), signbit(y)), lax.neg(zero), zero)
    floordiv = lax.select(lax.eq(div, zero), signed_zero, floordiv)
    by_zero = lax.eq(y, zero)
    return lax.select(by_zero, lax.div(x, y), floordiv), mod


@custom_jvp
def _zero_with_sign_of(r, y):
    """``r``, but a zero ``r`` takes ``y``'s sign (NumPy's remainder); its derivative
    is ``r``'s own (d remainder / dx stays 1 at exact multiples)."""
    zero = lax.full_like(r, 0)
    signed = lax.select(signbit(y), lax.neg(zero), zero)
    return lax.select(lax.eq(r, zero), signed, r)


@_zero_with_sign_of.defjvp
def _zero_with_sign_of_jvp(primals, tangents):
    return _zero_with_sign_of(*primals), tangents[0]


def remainder(x, y, /):
    """Remainder with the sign of the divisor (NumPy's ``%``); ``x % 0`` is 0 for
    integers (as in NumPy and JAX) and NaN for floats. Float results are NumPy's bit for
    bit (``npy_divmod``): a zero remainder has the divisor's sign, ``4.0 % -2.0`` is -0.0."""
    x, y = _promote_args_numeric("remainder", x, y)
    _check_real("remainder", x)
    if dtypes.is_inexact(x.dtype):
        return _float_divmod(x, y)[1]
    operands = x, y
    y = _nonzero_divisor(y)
    r = lax.rem(x, y)
    zero = lax.convert_element_type(0, x.dtype)
    fix = lax.bitwise_and(lax.ne(r, zero), lax.ne(lax.lt(r, zero), lax.lt(y, zero)))
    return _weak_if_both(lax.select(fix, lax.add(r, y), r), *operands)


remainder = _numpy_lane("remainder",  # ints too: x % 0 is 0 in both
                       lambda dt: np.remainder if dt.kind in "fiu" else None, remainder)
mod = remainder


def fmod(x, y, /):
    """Remainder with the sign of the dividend (C ``fmod``); an integer ``fmod(x, 0)``
    is 0, as in NumPy and JAX (``lax.rem`` alone gives x)."""
    x, y = _promote_args_numeric("fmod", x, y)
    _check_real("fmod", x)
    if dtypes.is_inexact(x.dtype):
        return lax.rem(x, y)
    return _weak_if_both(lax.rem(x, _nonzero_divisor(y)), x, y)


def _nonzero_divisor(y):
    """An integer divisor with zeros replaced by ones (JAX's remainder/fmod: x % 0 is 0)."""
    one = lax.convert_element_type(1, y.dtype)
    return lax.select(lax.eq(y, lax.convert_element_type(0, y.dtype)),
                      lax.broadcast_in_dim(one, y.shape, ()), y)


def divmod(x, y, /):  # noqa: A001
    """``(floor_divide(x, y), remainder(x, y))``."""
    x, y = _promote_args_numeric("divmod", x, y)
    _check_real("divmod", x)
    if dtypes.is_int(x.dtype):
        return floor_divide(x, y), remainder(x, y)
    return _float_divmod(x, y)


#: (dtype, weak of the Array, the Python number's type) -> the replay of ``x ** y``
#: with the number on the right / left (lax.pow on an inexact dtype; _scalar_lane.plan)
_POW_NUMBER_RIGHT, _POW_NUMBER_LEFT = _lane_tables.new_table(), _lane_tables.new_table()
_POW_P = lax.pow.prim
#: (shape, dtype, weak, n) -> the fast-lane call of ``x ** n`` for a Python int ``n``
_INT_POW_RUNS = _lane_tables.new_table()
_INTEGER_POW_P = _integer_pow_p


def _strong_integer(v):
    """Whether ``v`` is a strongly typed integer array (not a Python number, not bool)."""
    if type(v) in (int, float, complex, bool):
        return False
    dt, weak = _dtype_and_weak(v)
    return not weak and dtypes.is_int(dt)


def _square_run(weak):
    multiply = _scalar_lane.ufunc_run(np.multiply, weak)
    return lambda vx: multiply(vx, vx)


def power(x, y, /):
    """``x ** y`` with broadcasting and JAX's promotion.

    A static Python int exponent uses ``lax.integer_pow`` (a negative one needs an
    inexact ``x``: TypeError for integers, as in JAX). Integer arrays raised to integer
    arrays stay integral and wrap on overflow; a negative exponent gives the truncated
    value of ``1 / x**-y`` (0 unless ``x`` is 1 or -1), where NumPy raises.
    """
    try:
        tx, ty = type(x), type(y)
        if type(_trace_ctx.trace) is _EvalTrace:  # a Python number's plan (_scalar_lane)
            if tx is _Array and ty is int and type(x._value) is _ndarray:
                run = _INT_POW_RUNS.get((x._value.shape, x._value.dtype, x._weak, y))
                if run is not None:
                    return run(x._value)
            elif tx is _Array and (ty is float or ty is complex) and \
                    type(x._value) is _ndarray:
                replay = _POW_NUMBER_RIGHT.get((x._value.dtype, x._weak, ty))
                out = None if replay is None else replay(x._value, y)
                if out is not None:
                    return out
            elif ty is _Array and _scalar_lane.is_number_type(tx) and \
                    type(y._value) is _ndarray:
                replay = _POW_NUMBER_LEFT.get((y._value.dtype, y._weak, tx))
                out = None if replay is None else replay(y._value, x)
                if out is not None:
                    return out
        if isinstance(y, int) and not isinstance(y, bool):
            x = ensure_array("power", x)
            if dtypes.is_bool(x.dtype):  # JAX: bool bases become int32 first, x64 or not
                x = lax.convert_element_type(x, dtypes.int32)  # (its to_numeric_dtype)
            out = lax.integer_pow(x, y)
            if ty is int and type(x) is _Array and type(_trace_ctx.trace) is _EvalTrace:
                run = _fast_runner(_INTEGER_POW_P, (x,), {"y": y})
                if y == 2:  # the impl's chain is x * x: NumPy's multiply, bit for bit
                    run = _square_run(out._weak)
                elif run is not None:
                    run = functools.partial(run, y=y)
                if run is not None:
                    _lane_tables.keep(_INT_POW_RUNS,
                                      (x._value.shape, x._value.dtype, x._weak, y), run)
            return out
        arr, number_type, side = (x, ty, 1) if tx is _Array else (y, tx, 0)
        exponent = y
        x, y = promote_args("power", x, y)
        if dtypes.is_inexact(x.dtype) and x.weak_type and _strong_integer(exponent):
            # JAX raises an inexact base to an integer exponent unpromoted: the result is
            # weak only if both are (2.0 ** int32_array is a strong float32)
            x = lax.convert_element_type(x, x.dtype, weak_type=False)
        if dtypes.is_inexact(x.dtype) and type(arr) is _Array and \
                _scalar_lane.is_number_type(number_type):
            out = lax.pow(x, y)
            if type(_trace_ctx.trace) is _EvalTrace:
                table = _POW_NUMBER_RIGHT if side else _POW_NUMBER_LEFT
                _scalar_lane.remember(table, (arr._value.dtype, arr._weak, number_type),
                                      _scalar_lane.prim_run(_POW_P, (x, y)), (x, y), arr,
                                      number_type, side)
            return out
        if dtypes.is_int(x.dtype):  # strong, as JAX's (its loop's constants are)
            out = _int_power(x, y)
            return lax.convert_element_type(out, out.dtype) if out.weak_type else out
        if dtypes.is_bool(x.dtype):  # JAX: bools are raised as int32, x64 or not
            return _int_power(*(lax.convert_element_type(v, dtypes.int32) for v in (x, y)))
        return lax.pow(x, y)
    except Exception as e:
        _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
        raise


def _int_power(x, y):
    # Square-and-multiply over all bits of y: exact for every exponent, including
    # (-1) ** huge (JAX stops after 6 bits, enough only when |x| > 1).
    bits = np.dtype(y.dtype).itemsize * 8
    acc = lax.full_like(x, 1)
    b = x
    one = lax.convert_element_type(1, y.dtype)
    zero = lax.convert_element_type(0, y.dtype)
    e = y
    for i in range(bits):
        bit = lax.ne(lax.bitwise_and(e, one), zero)
        acc = lax.select(bit, lax.mul(acc, b), acc)
        if i + 1 < bits:
            b = lax.mul(b, b)
            e = lax.shift_right_logical(e, one)
    if dtypes.is_unsigned(y.dtype):
        return acc
    # x ** -n truncated toward zero: 1 for x == 1, +-1 for x == -1, 0 otherwise.
    x_one = lax.eq(x, lax.full_like(x, 1))  # x and y share a signed dtype here
    x_minus_one = lax.eq(x, lax.full_like(x, -1))
    odd = lax.ne(lax.bitwise_and(y, one), zero)
    neg_val = lax.select(x_one, lax.full_like(x, 1), lax.select(
        x_minus_one, lax.select(odd, lax.full_like(x, -1), lax.full_like(x, 1)),
        lax.full_like(x, 0)))
    return lax.select(lax.lt(y, zero), neg_val, acc)


pow = power  # noqa: A001


def float_power(x, y, /):
    """``x ** y`` in an inexact dtype: JAX's promotion (float16 stays float16, integers
    become the default float), not NumPy's float64."""
    x, y = promote_args_inexact("float_power", x, y)
    return lax.pow(x, y)


_NEG_P = lax.neg.prim


def negative(x, /, *, out=None, where=None):
    try:
        if out is not None or where is not None:
            _no_out("negative", out, where)
        if type(x) is _Array and type(_trace_ctx.trace) is _EvalTrace:
            # the fast lane's call for a known signature (bool never gets one: neg rejects it)
            run = _fast_runner1(_NEG_P, x)
            if run is not None:
                return run(x._value)
        x = ensure_array("negative", x)
        if dtypes.is_bool(x.dtype):
            raise TypeError("negative: not supported for bool arrays; use logical_not")
        return lax.neg(x)
    except Exception as e:
        _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
        raise


def positive(x, /):
    return ensure_array("positive", x)


def absolute(x, /):
    x = ensure_array("absolute", x)
    if dtypes.is_unsigned(x.dtype) or dtypes.is_bool(x.dtype):
        return x
    return lax.abs(x)


abs = absolute  # noqa: A001
_fabs = _one_in("fabs", lax.abs, inexact=True)


def fabs(x, /):
    # NumPy's and JAX's fabs have no complex loop (abs of a complex number is jnp.abs)
    if isinstance(x, complex) or dtypes.is_complex(getattr(x, "dtype", np.float32)):
        raise TypeError(f"fabs: complex input ({getattr(x, 'dtype', 'complex')}) is not "
                        f"supported; use jnp.abs for the magnitude of complex numbers")
    return _fabs(x)


def sign(x, /):
    x = ensure_array("sign", x)
    if dtypes.is_bool(x.dtype):  # NumPy and JAX have no bool sign
        raise TypeError("sign: bool input is not supported; convert it first, e.g. "
                        "x.astype(jnp.int32)")
    return lax.sign(x)


exp = _one_in("exp", lax.exp, inexact=True)
exp2 = _one_in("exp2", lax.exp2, inexact=True)
expm1 = _one_in("expm1", lax.expm1, inexact=True)
log = _one_in("log", lax.log, inexact=True)
log1p = _one_in("log1p", lax.log1p, inexact=True)
sqrt = _one_in("sqrt", lax.sqrt, inexact=True)
cbrt = _one_in("cbrt", lax.cbrt, inexact=True)
sin = _one_in("sin", lax.sin, inexact=True)
cos = _one_in("cos", lax.cos, inexact=True)
tan = _one_in("tan", lax.tan, inexact=True)
arcsin = _one_in("arcsin", lax.asin, inexact=True)
arccos = _one_in("arccos", lax.acos, inexact=True)
arctan = _one_in("arctan", lax.atan, inexact=True)
sinh = _one_in("sinh", lax.sinh, inexact=True)
cosh = _one_in("cosh", lax.cosh, inexact=True)
tanh = _one_in("tanh", lax.tanh, inexact=True)
arcsinh = _one_in("arcsinh", lax.asinh, inexact=True)
arccosh = _one_in("arccosh", lax.acosh, inexact=True)
arctanh = _one_in("arctanh", lax.atanh, inexact=True)
asin, acos, atan, asinh, acosh, atanh = arcsin, arccos, arctan, arcsinh, arccosh, arctanh
atan2 = arctan2


def _log_base(name, x, base):
    x = promote_dtypes_inexact(ensure_array(name, x))[0]
    r = lax.log(x)
    if dtypes.is_complex(x.dtype):
        # each part divided by the real log(base): a complex division would turn an
        # infinite real part into a nan imaginary one (log2(inf + 0j) is inf + 0j)
        re, im = lax.real(r), lax.imag(r)
        ln = lax.log(lax.convert_element_type(base, re.dtype))
        return lax.complex(lax.div(re, ln), lax.div(im, ln))
    return lax.div(r, lax.log(lax.convert_element_type(base, x.dtype)))


def log2(x, /):
    return _log_base("log2", x, 2)


def log10(x, /):
    return _log_base("log10", x, 10)


def _logaddexp_value(x, y, soft):
    """``max(x, y) + soft(-|x - y|)``: the value only. Its derivative through max and |.|
    is wrong at x == y (1 to one side, 0 to the other), so the callers carry a jvp rule.
    ``soft(d)`` gives the value and its slope at d; the slope times x - y's rounding error
    (exact, by Knuth's TwoSum) corrects it: unrounded, ulp(x - y) reached the result
    e^d-fold, float32 logaddexp(-13.895, -5.18e-7) was 12-14 ulps off (NumPy 0.5)."""
    hi, lo = lax.max(x, y), lax.min(x, y)
    d = lax.sub(lo, hi)     # -|x - y|, rounded (NaN for a NaN or infinities of one sign)
    # lo - hi = d + err exactly (TwoSum; no sign to choose, as d is formed as lo - hi)
    part = lax.sub(d, lo)
    err = lax.sub(lax.sub(lo, lax.sub(d, part)), lax.add(hi, part))
    err = lax.select(lax.is_finite(err), err, lax.full_like(err, 0))   # (infinite inputs)
    value, slope = soft(d)
    # d is NaN for a NaN input or for infinities of one sign: x + y is right then.
    return lax.select(lax.ne(d, d), lax.add(x, y),
                      lax.add(hi, lax.add(value, lax.mul(slope, err))))


def _soft_and_slope(e):
    """log1p(e) and e / (1 + e): for e = b^d, log_b(1 + b^d) (up to 1/ln b) and its slope."""
    one = lax.full_like(e, 1)
    return lax.log1p(e), lax.div(e, lax.add(one, e))


#: ln 2 rounded to float32 / float64, and ln 2 minus it
_LN2_PARTS = {
    np.dtype(np.float32): (0.6931471824645996, -1.9046542121259336e-09),
    np.dtype(np.float64): (0.6931471805599453, 2.3190468138462996e-17)}


def _logaddexp_weights(x, y, scale):
    """d/dx, d/dy of log(e^(s x) + e^(s y)) / s: sigmoid(s (x - y)) and sigmoid(s (y - x)).
    1/2 each at a tie, as JAX; smooth there, so higher derivatives are right too.

    A weight near 0 is ~e^delta and takes delta's absolute error as its relative one: the
    roundings of x - y (TwoSum) and of its product with ln 2 (one fma) are added
    back as w (1 - w) c, the first-order change (float64 logaddexp2 slopes at x - y ~ -760
    were 200-510 ulps off; JAX shares). Its own derivative corrects grad of grad alike."""
    delta = lax.sub(x, y)
    # infinities of one sign are a tie too (inf - inf is NaN); a NaN input stays NaN
    same_inf = lax.bitwise_and(lax.eq(x, y), lax.ne(delta, delta))
    delta = lax.select(same_inf, lax.full_like(delta, 0), delta)
    parts = _LN2_PARTS.get(np.dtype(delta.dtype))
    if parts is None:   # (half types: no correction)
        if scale is not None:
            delta = lax.mul(delta, lax.convert_element_type(scale, delta.dtype))
        return lax.logistic(delta), lax.logistic(lax.neg(delta))
    c = lambda v: lax.full_like(delta, v)
    part = lax.sub(delta, x)      # x - y = delta + err exactly (Knuth's TwoSum)
    err = lax.sub(lax.sub(x, lax.sub(delta, part)), lax.add(y, part))
    if scale is not None:
        ln2_rounded, ln2_rest = parts
        ln2 = c(ln2_rounded)
        prod = lax.mul(delta, ln2)         # delta ln2_rounded = prod + e exactly
        e = _fma(delta, ln2, lax.neg(prod))
        err = lax.add(e, lax.add(lax.mul(delta, c(ln2_rest)),
                                 lax.mul(err, c(float(scale)))))
        delta = prod
    err = lax.select(lax.is_finite(err), err, c(0))    # (infinities, huge |delta|)
    # Both weights and their product from one exp and one divide (two logistics took
    # one each, and a grad wrt x alone needed wy only for the shift): with q =
    # e^-|delta| and r = 1/(1 + q), the larger weight is r, the smaller q r, the product
    # q r**2, all to a few ulps. The select, not abs, picks the side at a tie, so q's
    # derivative there is -q, as smooth as the logistic's (abs' would give 0).
    ahead = lax.ge(delta, c(0))
    q = lax.exp(lax.select(ahead, lax.neg(delta), delta))
    r = lax.div(c(1), lax.add(c(1), q))
    small = lax.mul(q, r)
    wx, wy = lax.select(ahead, r, small), lax.select(ahead, small, r)
    shift = lax.mul(lax.mul(small, r), err)
    return lax.add(wx, shift), lax.sub(wy, shift)


def _logaddexp_jvp(fn, scale, primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    wx, wy = _logaddexp_weights(x, y, scale)
    return fn(x, y), lax.add(lax.mul(tx, wx), lax.mul(ty, wy))


@custom_jvp
def _logaddexp(x, y):
    return _logaddexp_value(x, y, lambda d: _soft_and_slope(lax.exp(d)))


@custom_jvp
def _logaddexp2(x, y):
    # typed as JAX's lax._const of the (broadcast) operands: weak for weak scalars only
    inv_ln2 = _constant_like(x if x.ndim else y, 1 / np.log(2.0))
    def soft(d):
        value, slope = _soft_and_slope(lax.exp2(d))
        return lax.mul(value, inv_ln2), slope
    return _logaddexp_value(x, y, soft)


_logaddexp.defjvp(functools.partial(_logaddexp_jvp, _logaddexp, None))
_logaddexp2.defjvp(functools.partial(_logaddexp_jvp, _logaddexp2, np.log(2.0)))


def logaddexp(x, y, /, *, out=None, where=None):
    """``log(exp(x) + exp(y))`` without overflow; its derivative is ``sigmoid(x - y)``
    (1/2 at ``x == y``, as JAX)."""
    try:
        if out is not None or where is not None:
            _no_out("logaddexp", out, where)
        x, y = promote_args_inexact("logaddexp", x, y)
        _check_real("logaddexp", x)
        return _logaddexp(x, y)
    except Exception as e:
        _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
        raise


def logaddexp2(x, y, /, *, out=None, where=None):
    """``log2(2**x + 2**y)`` without overflow; its derivative is 1/2 at ``x == y``."""
    try:
        if out is not None or where is not None:
            _no_out("logaddexp2", out, where)
        x, y = promote_args_inexact("logaddexp2", x, y)
        _check_real("logaddexp2", x)
        return _logaddexp2(x, y)
    except Exception as e:
        _filter_at_entry(e)  # tracebacks end in user code (free until a raise)
        raise


def square(x, /):
    x = ensure_array("square", x)
    if dtypes.is_bool(x.dtype):  # JAX: the default int, as NumPy's (int8) arithmetic
        x = lax.convert_element_type(x, dtypes.default_int())
    return lax.square(x)


def reciprocal(x, /):
    """``1 / x``; integer and bool inputs become the default float first, as in JAX."""
    x = promote_dtypes_inexact(ensure_array("reciprocal", x))[0]  # (weak kept, as JAX)
    return lax.integer_pow(x, -1)


def floor(x, /):
    x = ensure_array("floor", x)
    return x if not dtypes.is_inexact(x.dtype) else lax.floor(x)


def ceil(x, /):
    x = ensure_array("ceil", x)
    return x if not dtypes.is_inexact(x.dtype) else lax.ceil(x)


def trunc(x, /):
    x = ensure_array("trunc", x)
    if not dtypes.is_inexact(x.dtype):
        return x
    return lax.select(lax.lt(x, lax.convert_element_type(0, x.dtype)), lax.ceil(x), lax.floor(x))


fix = trunc


def rint(x, /):
    """Round to the nearest integer, halves to even; integer and bool inputs become the
    default float dtype, as in JAX (NumPy: float64)."""
    x = ensure_array("rint", x)
    if not dtypes.is_inexact(x.dtype):
        return lax.convert_element_type(x, dtypes.default_float())
    if dtypes.is_complex(x.dtype):  # each part rounded, as NumPy and JAX
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, lax.ROUND_TO_NEAREST_EVEN)


def _round_int_to_multiple(a, f):
    """Integers rounded to a multiple of ``f`` (10, 100, ...), halves to even: NumPy's
    ``rint(a / f) * f`` in exact integer arithmetic; results beyond the dtype wrap, as
    NumPy's do (round(int8(127), -1) is -126)."""
    if dtypes.is_bool(a.dtype):
        raise TypeError("round: boolean arrays cannot be rounded to tens (NumPy refuses "
                        "too); convert them to an integer dtype first")
    work = dtypes.int32 if np.dtype(a.dtype).itemsize < 4 else a.dtype
    if f > dtypes.iinfo(work).max:  # beyond every value's reach: all round to 0
        return lax.full_like(a, 0)
    x = lax.convert_element_type(a, work)
    fw = lax.full_like(x, f)
    q = lax.div(x, fw)  # truncates; floor it so that the remainder is in [0, f)
    r = lax.sub(x, lax.mul(q, fw))
    neg = lax.lt(r, lax.full_like(r, 0))
    q = lax.select(neg, lax.sub(q, lax.full_like(q, 1)), q)
    r = lax.select(neg, lax.add(r, fw), r)
    rest = lax.sub(fw, r)  # r > f / 2 without computing 2 r (which may overflow)
    odd = lax.ne(lax.bitwise_and(q, lax.full_like(q, 1)), lax.full_like(q, 0))
    up = lax.bitwise_or(lax.gt(r, rest), lax.bitwise_and(lax.eq(r, rest), odd))
    q = lax.select(up, lax.add(q, lax.full_like(q, 1)), q)
    return lax.convert_element_type(lax.mul(q, fw), a.dtype, weak_type=a.weak_type)


class _BoolRoundError(TypeError, ValueError):
    """round of a boolean array: JAX raises ValueError; it is a wrong-dtype error
    (TypeError) too, so either ``except`` catches it."""


def round(a, decimals=0, out=None):  # noqa: A001
    """Round to ``decimals`` decimal places, halves to even (as NumPy does).

    Args:
      a: input array (complex rounds both parts).
      decimals: a static int; negative values round to tens, hundreds, ... (integer
        arrays too, as NumPy; JAX refuses them), halves to even.
    """
    if out is not None:
        raise NotImplementedError("round: the 'out' argument is not supported (arrays are "
                                  "immutable)")
    decimals = _static_index(decimals, "decimals", "round")
    a = ensure_array("round", a)
    if dtypes.is_bool(a.dtype):  # JAX's ValueError (NumPy gives float16)
        raise _BoolRoundError("round: a boolean array has nothing to round (JAX refuses it); "
                              "convert it first, e.g. a.astype(jnp.float32) or a.astype(int)")
    if not dtypes.is_inexact(a.dtype):
        return a if decimals >= 0 else _round_int_to_multiple(a, 10 ** -decimals)
    if dtypes.is_complex(a.dtype):
        return lax.complex(round(lax.real(a), decimals), round(lax.imag(a), decimals))
    if decimals == 0:
        return lax.round(a, lax.ROUND_TO_NEAREST_EVEN)
    # float16 (and bfloat16, float8s) would lose the scaled value's digits: scale in
    # float32 (as JAX does for float16)
    x = lax.convert_element_type(a, np.float32) if dtypes.computes_in_float32(a.dtype) else a
    out = _round_scaled(x, decimals)
    return lax.convert_element_type(out, a.dtype, weak_type=a.weak_type)


def _round_scaled(x, decimals):
    """``x`` rounded to ``decimals`` places as NumPy does it: times 10**d for d > 0, but
    divided by 10**-d for d < 0 (10**-d is exact where 10**d is not: float32's 0.001
    turned round(-16500, -3) into -15999.999). Where the scaled value is already whole
    (2**mantissa bits and up, or 10**d past the dtype's range) ``x`` is its own answer;
    NumPy's inf and NaN there (round(1e300, 10), round(1.5, 309)) are overflow artefacts."""
    info = dtypes.finfo(x.dtype)
    k = decimals if decimals > 0 else -decimals
    finite = k <= 308 and 10.0 ** k <= float(info.max)  # (10.0 ** 309 overflows)
    f = lax.full((), 10.0 ** k if finite else np.inf, x.dtype)
    nearest = lax.ROUND_TO_NEAREST_EVEN
    if decimals < 0:  # |x| < 10**-d / 2 rounds to (signed) zero, even when 10**-d is inf
        q = lax.round(lax.div(x, f), nearest)
        return lax.select(lax.is_finite(x), lax.mul(q, f) if finite else q, x)
    y = lax.mul(x, f)
    whole = lax.full((), 2.0 ** info.nmant, x.dtype)
    return lax.select(lax.lt(lax.abs(y), whole), lax.div(lax.round(y, nearest), f), x)


around = round_ = round


def isfinite(x, /):
    x = ensure_array("isfinite", x)
    if not dtypes.is_inexact(x.dtype):
        return lax.full_like(x, True, dtype=bool)
    if dtypes.is_complex(x.dtype):
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)


def isnan(x, /):
    x = ensure_array("isnan", x)
    if not dtypes.is_inexact(x.dtype):  # (weak as x, as JAX's)
        return lax.full_like(x, False, dtype=bool) if not x.weak_type else lax.ne(x, x)
    return lax.ne(x, x)


def isinf(x, /):
    x = ensure_array("isinf", x)
    if not dtypes.is_inexact(x.dtype):
        return lax.full_like(x, False, dtype=bool)
    if dtypes.is_complex(x.dtype):
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return lax.eq(lax.abs(x), lax.convert_element_type(np.inf, x.dtype))


def _not_complex(name, x):
    # JAX's class (ValueError); NumPy raises TypeError: which infinity is ambiguous
    if dtypes.is_complex(x.dtype):
        raise ValueError(f"{name}: not defined for complex input ({x.dtype}); apply it to "
                         f"jnp.real(x) or jnp.imag(x)")
    return x


def isposinf(x, /, out=None):
    _no_out("isposinf", out)
    x = _not_complex("isposinf", ensure_array("isposinf", x))
    return lax.eq(x, lax.convert_element_type(np.inf, x.dtype)) if dtypes.is_float(x.dtype) \
        else lax.full_like(x, False, dtype=bool)


def isneginf(x, /, out=None):
    _no_out("isneginf", out)
    x = _not_complex("isneginf", ensure_array("isneginf", x))
    return lax.eq(x, lax.convert_element_type(-np.inf, x.dtype)) if dtypes.is_float(x.dtype) \
        else lax.full_like(x, False, dtype=bool)


def signbit(x, /):
    x = ensure_array("signbit", x)
    if dtypes.is_int(x.dtype):
        return lax.lt(x, lax.convert_element_type(0, x.dtype))
    if dtypes.is_bool(x.dtype):
        return lax.full_like(x, False, dtype=bool)
    _check_real("signbit", x)
    if dtypes.is_small(x.dtype):
        # float8/6/4s: no integer type of their width to bitcast to (float4/6's sign is
        # not the byte's top bit); float32 holds each value, its zero's and NaN's sign too
        # (JAX raises NotImplementedError; NumPy, through ml_dtypes, answers, and so must
        # remainder, divmod, floor_divide and copysign, which JAX gives)
        return signbit(lax.convert_element_type(x, np.float32))
    itype = {2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    return lax.lt(lax.bitcast_convert_type(x, itype), lax.convert_element_type(0, itype))


def copysign(x, y, /):
    x, y = promote_args_inexact("copysign", x, y)
    return lax.select(signbit(y), lax.neg(lax.abs(x)), lax.abs(x))


def heaviside(x, h0, /):
    """0 where ``x < 0``, 1 where ``x > 0``, ``h0`` where ``x == 0`` (either zero) and
    NaN where ``x`` is NaN (as NumPy)."""
    x, h0 = promote_args_inexact("heaviside", x, h0)
    _check_real("heaviside", x)  # complex: NumPy has no such loop, JAX's lt refuses it
    # 0 and 1 typed as JAX's lax._const: the result is strong unless x is a weak scalar
    zero, one = (lax.broadcast(_constant_like(x, c), x.shape) for c in (0, 1))
    step = lax.select(lax.lt(x, zero), zero, lax.select(lax.gt(x, zero), one, h0))
    return lax.select(lax.ne(x, x), x, step)


def hypot(x, y, /):
    """``sqrt(x**2 + y**2)`` without overflow or underflow, within 1 ulp (scaled, with a
    Newton correction as in Borges 2019); inf if either is infinite (even NaN).
    Its derivative is ``(x, y) / hypot`` (1/2 each at the origin, as JAX)."""
    x, y = promote_args_inexact("hypot", x, y)
    _check_real("hypot", x)
    return _hypot(x, y)


@custom_jvp
def _hypot(x, y):
    ax, ay = lax.abs(x), lax.abs(y)
    finite = _hypot_finite(ax, ay)
    # JAX's lax._const typing: strong unless the inputs are weak scalars, so is the result
    inf = lax.broadcast(_constant_like(finite, np.inf), finite.shape)
    any_inf = lax.bitwise_or(lax.eq(ax, inf), lax.eq(ay, inf))   # inf even with a NaN
    return lax.select(any_inf, inf, finite)


#: (threshold, scale) by dtype: the larger magnitude, when at least the threshold (the
#: first that applies; the last threshold is 0), is scaled by the power of two so that
#: squares and their Dekker tails stay normal: float32 [2**-39, 2**63], float64
#: [2**-458, 2**511].
_HYPOT_SCALES = {
    np.dtype(np.float32): ((2.0 ** 40, 2.0 ** -79), (2.0 ** -39, 1.0),
                           (2.0 ** -89, 2.0 ** 50), (0.0, 2.0 ** 100)),
    np.dtype(np.float64): ((2.0 ** 450, 2.0 ** -600), (2.0 ** -450, 1.0), (0.0, 2.0 ** 700)),
}


def _hypot_finite(ax, ay):
    """hypot of magnitudes within 1 ulp (observed: 0.75 for denormal results, above
    them 0.5 in float32 and 0.52 in float64): scaled by a power of two so the squares
    stay normal, then sqrt(b^2 + s^2) corrected by one Newton step
    h - (h^2 - b^2 - s^2) / 2h, with the squares' rounding errors taken exactly from
    Dekker's products (plain multiplies and adds: eager and jit agree bit for bit).
    Borges, "An improved algorithm for hypot(a, b)", 2019. float16, bfloat16 and the float8/6/4s are computed in float32
    (float16's squares overflow at 256; the others have no table of their own)."""
    if dtypes.computes_in_float32(ax.dtype):
        wide = [lax.convert_element_type(v, np.float32) for v in (ax, ay)]
        return lax.convert_element_type(_hypot_finite(*wide), ax.dtype)

    def c(v):
        return lax.full_like(ax, v)
    big, small = lax.max(ax, ay), lax.min(ax, ay)
    levels = _HYPOT_SCALES[np.dtype(ax.dtype)]
    scale = c(levels[-1][1])
    for threshold, k in reversed(levels[:-1]):
        scale = lax.select(lax.ge(big, c(threshold)), c(k), scale)
    b, s = lax.mul(big, scale), lax.mul(small, scale)
    h = lax.sqrt(lax.add(lax.mul(b, b), lax.mul(s, s)))
    sq_b, err_b = _two_square(b)
    sq_s, err_s = _two_square(s)
    sq_h, err_h = _two_square(h)
    # h^2 - b^2 - s^2: the leading parts cancel exactly (Sterbenz), the tails are tiny
    delta = lax.add(lax.sub(lax.sub(sq_h, sq_b), sq_s),
                    lax.sub(lax.sub(err_h, err_b), err_s))
    safe = lax.select(lax.eq(h, c(0.0)), c(1.0), h)
    h = lax.sub(h, lax.div(delta, lax.add(safe, safe)))
    return lax.mul(h, lax.div(c(1.0), scale))


def _two_square(a):
    """(a*a, its rounding error) exactly, for |a| below ~1e150 (float64) / ~1e19
    (float32) and where the error does not underflow: float32/float64 by one fma
    (exact on every backend and eagerly: eager and jit give the same bits), other
    dtypes by Dekker's splitting of ``a`` in halves (plain multiplies and adds; the
    split factor is a Python number cached per dtype: an eager call on a few elements
    is mostly dispatch, and a filled constant array per call cost a third of ndtr's)."""
    if np.dtype(a.dtype) in _FMA_DTYPES:
        p = lax.mul(a, a)
        return p, _fma(a, a, lax.neg(p))
    t = lax.mul(a, _dekker_split(np.dtype(a.dtype)))
    hi = lax.sub(t, lax.sub(t, a))
    lo = lax.sub(a, hi)
    p = lax.mul(a, a)
    err = lax.add(lax.add(lax.sub(lax.mul(hi, hi), p), lax.mul(lax.add(hi, hi), lo)),
                  lax.mul(lo, lo))
    return p, err


@functools.lru_cache(maxsize=None)
def _dekker_split(dtype):
    """2**ceil(p/2) + 1 for ``dtype``'s p-bit significand (bfloat16 too)."""
    return float(2 ** ((dtypes.finfo(dtype).nmant + 2) // 2) + 1)


@_hypot.defjvp
def _hypot_jvp(primals, tangents):
    # (x dx + y dy) / h: smooth where |x| == |y| too, where the max/min of the value's
    # formula would lose the curvature. At the origin 1/2 each and at an infinity 0, the
    # values the formula's own derivative gives there (JAX's).
    (x, y), (tx, ty) = primals, tangents
    h = _hypot(x, y)
    zero, inf = lax.eq(h, lax.full_like(h, 0)), lax.eq(h, lax.full_like(h, np.inf))
    bad = lax.bitwise_or(zero, inf)
    special = lax.select(zero, lax.full_like(h, 0.5), lax.full_like(h, 0))
    # (the weights see (1, 0) in those lanes: no 0/0 or inf/inf in grad of grad)
    xs, ys = lax.select(bad, lax.full_like(h, 1), x), lax.select(bad, lax.full_like(h, 0), y)
    safe = lax.select(bad, lax.full_like(h, 1), h)
    wx = lax.select(bad, special, _hypot_unit(xs, ys, safe))
    wy = lax.select(bad, special, _hypot_unit(ys, xs, safe))
    return h, lax.add(lax.mul(tx, wx), lax.mul(ty, wy))


@custom_jvp
def _hypot_unit(v, w, h):
    """``v / h`` for ``h = hypot(v, w)`` (nonzero, finite), passed in to be computed
    once; its slope follows from v's and w's (h's own tangent is not read)."""
    return lax.div(v, h)


@_hypot_unit.defjvp
def _hypot_unit_jvp(primals, tangents):
    # c (c dv - a dw) / h with a = v/h, c = w/h: the quotient rule's 1/h - v**2/h**3
    # cancelled where |w| << |v| (float32 grad(grad(hypot))(1000, 1) 9.31e-10, true
    # 1.0e-9; JAX right)
    (v, w, h), (tv, tw, _) = primals, tangents
    a, c = lax.div(v, h), lax.div(w, h)
    return a, lax.div(lax.mul(c, lax.sub(lax.mul(c, tv), lax.mul(a, tw))), h)


def deg2rad(x, /):
    x = promote_dtypes_inexact(ensure_array("deg2rad", x))[0]
    return lax.mul(x, _constant_like(x, np.pi / 180))  # (weak for weak scalars, as JAX)


def rad2deg(x, /):
    x = promote_dtypes_inexact(ensure_array("rad2deg", x))[0]
    return lax.mul(x, _constant_like(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


@functools.partial(custom_jvp, nondiff_argnums=(0,))
def _sinc_maclaurin(k, x):
    """The k-th derivative of sin(x)/x at 0, shaped like ``x``. Its jvp is the (k+1)-th,
    so derivatives of every order at 0 are right (JAX's construction); a where-guard
    alone would give 0 for all of them."""
    c = 0.0 if k % 2 else (-1.0) ** (k // 2) / (k + 1)
    return lax.full_like(x, c)


_sinc_maclaurin.defjvp(lambda k, primals, tangents: (
    _sinc_maclaurin(k, primals[0]), lax.mul(_sinc_maclaurin(k + 1, primals[0]), tangents[0])))


#: sin(t)/t = sum (-t^2)^k / (2k+1)!, k < 5: below these |t| the dropped terms are under
#: the dtype's rounding for the value and for the first derivatives (float64: t^8 * 7.5e-7
#: < 2**-53; the others: 0.5^8 * 7.5e-7 < 2**-24)
_SINC_SERIES = [1.0, -1 / 6, 1 / 120, -1 / 5040, 1 / 362880]
_SINC_SERIES_BELOW = {np.dtype(np.float64): 0.05, np.dtype(np.complex128): 0.05}


def sinc(x, /):
    """``sin(pi x) / (pi x)``, 1 at 0; derivatives of every order are right at 0.

    Near 0 (|pi x| below 0.05 in float64, 0.5 otherwise) the value is its Maclaurin
    series: differentiating sin(t) / t there subtracts cos(t) / t from sin(t) / t^2, two
    values near 1 / t, and float32 grad at x = 1e-9 gave -50 where the slope is ~2e-9."""
    x = promote_dtypes_inexact(ensure_array("sinc", x))[0]
    if dtypes.is_complex(x.dtype):
        # sinc(conj z) = conj(sinc z), as NumPy's and JAX's sin(pi z) / (pi z) keep it: the
        # series' constants have +0 imaginary parts, so sinc(-1e-3j) came out 1.0000016 + 0j
        # (NumPy and JAX: - 0j). Evaluated in the upper half plane and reflected back.
        lower = lax.lt(lax.imag(x), _constant_like(lax.imag(x), 0))  # (-0: as computed)
        z = lax.select(lower, lax.conj(x), x)
        out = _sinc(z)
        return lax.select(lower, lax.conj(out), out)
    return _sinc(x)


def _sinc(x):
    pix = lax.mul(x, _constant_like(x, np.pi))  # (JAX's lax._const: weak for weak scalars)
    zero = lax.eq(x, lax.full_like(x, 0))
    below = _SINC_SERIES_BELOW.get(np.dtype(x.dtype), 0.5)
    small = lax.lt(lax.abs(pix), lax.full_like(lax.abs(pix), below))
    safe = lax.select(small, lax.full_like(x, 1), pix)
    t2 = lax.mul(pix, pix)
    series = _constant_like(x, _SINC_SERIES[-1])
    for c in reversed(_SINC_SERIES[:-1]):
        series = lax.add(lax.mul(series, t2), _constant_like(x, c))
    near = lax.select(zero, _sinc_maclaurin(0, pix), series)
    return lax.select(small, near, lax.div(_sin_pi(x, safe), safe))


def _sin_pi(x, pix):
    """sin(pi x) (``pix``: pi x rounded). Real x: (-1)^n sin(pi (x - n)), n = round(x),
    the reduction exact, so sinc is 0 at every integer and keeps its relative accuracy
    near them (sin of pi x rounded gave float32 sinc(1) = -2.8e-8, sinc(1e5) 5.1e-8, sinc
    of the largest floats NaN, pi x overflowing; JAX and NumPy share the first two)."""
    if dtypes.is_complex(x.dtype):
        return lax.sin(pix)
    n = lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)
    half = lax.mul(n, lax.full_like(n, 0.5))
    odd = lax.ne(lax.floor(half), half)          # (n/2 is exact; huge floats are even)
    s = lax.sin(lax.mul(lax.sub(x, n), _constant_like(x, np.pi)))
    return lax.select(odd, lax.neg(s), s)


def real(x, /):
    x = ensure_array("real", x)
    return lax.real(x) if dtypes.is_complex(x.dtype) else x


def imag(x, /):
    x = ensure_array("imag", x)
    return lax.imag(x) if dtypes.is_complex(x.dtype) else lax.full_like(x, 0)


def iscomplex(x, /):
    """Elementwise: whether the imaginary part is non-zero (False for real dtypes)."""
    x = ensure_array("iscomplex", x)
    return lax.ne(imag(x), _constant_like(imag(x), 0))  # (weak for weak scalars, as JAX)


def isreal(x, /):
    """Elementwise: whether the imaginary part is zero (True for real dtypes)."""
    x = ensure_array("isreal", x)
    return lax.eq(imag(x), _constant_like(imag(x), 0))


def conjugate(x, /):
    x = ensure_array("conjugate", x)
    return lax.conj(x) if dtypes.is_complex(x.dtype) else x


conj = conjugate


def angle(z, deg=False):
    z = ensure_array("angle", z)
    re, im = real(z), imag(z)
    # as JAX's: integers and float scalars (a float16 one too) become the default float,
    # strong; float arrays keep their dtype and weak type
    if not dtypes.is_inexact(re.dtype) or (dtypes.is_float(z.dtype) and z.ndim == 0):
        re, im = (lax.convert_element_type(v, dtypes.default_float()) for v in (re, im))
    out = lax.atan2(im, re)
    return rad2deg(out) if deg else out


def _pick_first(name, x, y, beats):
    """x where it beats y or y is NaN, else y: at a tie the result and its derivative are
    y's, as JAX's fmax/fmin (``maximum`` would split the derivative 1/2 each)."""
    x, y = promote_args(name, x, y)
    if not dtypes.is_inexact(x.dtype):  # no NaNs and nothing to differentiate
        return (lax.max if beats is lax.gt else lax.min)(x, y)
    return lax.select(lax.bitwise_or(beats(x, y), isnan(y)), x, y)


def fmax(x1, x2):
    """Maximum ignoring NaNs (NaN only where both are); ``x2`` at ties, as JAX (whose
    parameters, unlike most ufuncs', may be passed by name)."""
    return _pick_first("fmax", x1, x2, lax.gt)


def fmin(x1, x2):
    """Minimum ignoring NaNs (NaN only where both are); ``x2`` at ties, as JAX."""
    return _pick_first("fmin", x1, x2, lax.lt)


def gcd(x1, x2, /):
    """Greatest common divisor of ``|x1|`` and ``|x2|`` (``gcd(0, 0) == 0``)."""
    x1, x2 = promote_args("gcd", x1, x2)
    if not dtypes.is_int(x1.dtype):
        raise TypeError(f"gcd: arguments must be integers, got {x1.dtype}")
    # The loop carry needs one shape: broadcast rank-0 operands too.
    shape = x1.shape if x1.ndim else x2.shape
    a, b = (broadcast_to_shape(lax.abs(v), shape) for v in (x1, x2))
    zero = lax.full_like(a, 0)

    def cond(c):
        from tjit.numpy._reductions import any as _any
        return _any(lax.ne(c[1], zero))

    def body(c):
        a, b = c
        safe_b = lax.select(lax.eq(b, zero), lax.full_like(b, 1), b)
        return (lax.select(lax.eq(b, zero), a, b),
                lax.select(lax.eq(b, zero), zero, lax.rem(a, safe_b)))
    # |INT_MIN| wraps to INT_MIN, so the loop may end on a negative divisor (gcd(5, int8
    # -128) came out -1): its magnitude is the answer (NumPy's; gcd(MIN, MIN) stays MIN)
    return lax.abs(lax.while_loop(cond, body, (a, b))[0])


def lcm(x1, x2, /):
    """Least common multiple of ``|x1|`` and ``|x2|`` (0 if either is 0)."""
    x1, x2 = promote_args("lcm", x1, x2)
    x1, x2 = lax.abs(x1), lax.abs(x2)   # (before the product: one that overflows wraps,
    g = gcd(x1, x2)                      # as in NumPy and JAX, sign included)
    zero = lax.full_like(g, 0)
    safe = lax.select(lax.eq(g, zero), lax.full_like(g, 1), g)
    return lax.select(lax.eq(g, zero), zero, lax.mul(x1, lax.div(x2, safe)))


def frexp(x, /):
    """Split ``x`` into a mantissa in ``[0.5, 1)`` (with the sign of ``x``) and an int32
    exponent: ``x == m * 2**e``. Zeros, infinities and NaNs give ``(x, 0)``."""
    x = promote_dtypes_inexact(ensure_array("frexp", x))[0]
    _check_real("frexp", x)
    info = dtypes.finfo(x.dtype)
    itype = np.dtype(f"i{x.dtype.itemsize}")
    mask, bias = (1 << info.nexp) - 1, 1 - info.minexp
    # Subnormals: scale into the normal range first (exactly), then correct e.
    sub = lax.lt(lax.abs(x), lax.full_like(x, info.tiny))
    xs = lax.select(sub, lax.mul(x, lax.full_like(x, float(2 ** info.nmant))), x)
    bits = lax.bitcast_convert_type(xs, itype)
    nmant = lax.full_like(bits, info.nmant)
    field = lax.bitwise_and(lax.shift_right_logical(bits, nmant), lax.full_like(bits, mask))
    e = lax.sub(lax.sub(field, lax.full_like(bits, bias - 1)),
                lax.select(sub, nmant, lax.full_like(bits, 0)))
    # Keep sign and fraction bits; set the exponent field to that of 0.5.
    mbits = lax.bitwise_or(lax.bitwise_and(bits, lax.full_like(bits, ~(mask << info.nmant))),
                           lax.full_like(bits, (bias - 1) << info.nmant))
    m = lax.bitcast_convert_type(mbits, x.dtype)
    special = lax.bitwise_or(lax.bitwise_not(lax.is_finite(x)), lax.eq(x, lax.full_like(x, 0)))
    e = lax.convert_element_type(lax.select(special, lax.full_like(e, 0), e), np.int32)
    return _mantissa(x, lax.select(special, x, m), e), e


@custom_jvp
def _mantissa(x, m, e):
    """``m``, the mantissa of ``x`` read from its bits, differentiable as ``x * 2**-e``
    (bit operations alone would give it derivative 0)."""
    return m


@_mantissa.defjvp
def _mantissa_jvp(primals, tangents):
    (x, m, e), tx = primals, tangents[0]
    return m, lax.mul(tx, _pow2(lax.neg(e), x.dtype))


def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for integer ``x2``, exact while the result is representable."""
    x1 = promote_dtypes_inexact(ensure_array("ldexp", x1))[0]
    x2 = ensure_array("ldexp", x2)
    _check_real("ldexp", x1)
    if dtypes.is_bool(x2.dtype):  # NumPy and JAX: a bool exponent is 0 or 1
        x2 = lax.convert_element_type(x2, np.int32)
    if not dtypes.is_int(x2.dtype):
        raise TypeError(f"ldexp: the exponent must have an integer dtype, got {x2.dtype}")
    x1, x2 = broadcast_arrays_("ldexp", x1, x2)
    if x2.dtype.itemsize < 4:       # (the clamp bound below does not fit in 8/16 bits)
        x2 = lax.convert_element_type(x2, np.int32)
    info = dtypes.finfo(x1.dtype)
    lim = 4 * (info.maxexp + info.nmant)  # beyond this every result is 0 or inf
    x2 = lax.min(x2, lax.full_like(x2, lim)) if dtypes.is_unsigned(x2.dtype) else \
        lax.clamp(-lim, x2, lim)
    return _ldexp(x1, lax.convert_element_type(x2, np.int32))


@custom_jvp
def _ldexp(x1, x2):
    m, e = frexp(x1)
    half, rest = _halves(lax.add(e, x2))
    # m * 2**half * 2**rest, in this order: each step stays finite where the result does
    out = lax.mul(lax.mul(m, _exp2_int(half, x1.dtype)), _exp2_int(rest, x1.dtype))
    special = lax.bitwise_or(lax.bitwise_not(lax.is_finite(x1)),
                             lax.eq(x1, lax.full_like(x1, 0)))
    return lax.select(special, x1, out)


@_ldexp.defjvp
def _ldexp_jvp(primals, tangents):
    # linear in x1: d out = 2**x2 dx1 (through frexp's mantissa a subnormal x1 would
    # give inf * 2**(e + x2) instead)
    (x1, x2), t1 = primals, tangents[0]
    return _ldexp(x1, x2), lax.mul(t1, _pow2(x2, x1.dtype))


def _halves(k):
    half = lax.shift_right_arithmetic(k, lax.full_like(k, 1))
    return half, lax.sub(k, half)


def _pow2(k, dtype):
    """``2**k`` for int32 ``k`` as two factors of about ``2**(k/2)``: each is exact and
    finite wherever ``2**k`` is."""
    half, rest = _halves(k)
    return lax.mul(_exp2_int(half, dtype), _exp2_int(rest, dtype))


def _exp2_int(k, dtype):
    return lax.exp2(lax.convert_element_type(k, dtype))


def modf(x, /, out=None):
    """``(fractional part, integral part)`` of ``x``, both with the sign of ``x``."""
    _no_out("modf", out)
    x = promote_dtypes_inexact(ensure_array("modf", x))[0]
    _check_real("modf", x)
    whole = trunc(x)
    frac = lax.select(isinf(x), lax.full_like(x, 0), lax.sub(x, whole))
    return copysign(frac, x), whole


try:  # Chebyshev coefficients of i0 (Cephes), as NumPy's own np.i0 uses them
    from numpy.lib._function_base_impl import _i0A as _I0_A, _i0B as _I0_B
except ImportError:  # pragma: no cover - older/newer NumPy layouts
    _I0_A = _I0_B = None


def _chbevl(t, coeffs):
    # Clenshaw recurrence for a Chebyshev series (Python-float constants stay scalars).
    b0, b1, b2 = lax.full_like(t, float(coeffs[0])), lax.full_like(t, 0), None
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = lax.add(lax.sub(lax.mul(t, b1), b2), float(c))
    return lax.mul(lax.sub(b0, b2), 0.5)


def i0(x, /):
    """Modified Bessel function of the first kind, order 0 (real inputs)."""
    x = promote_dtypes_inexact(ensure_array("i0", x))[0]
    _check_real("i0", x)
    return _i0(x)


@custom_jvp
def _i0(x):
    if _I0_A is None:  # pragma: no cover
        raise NotImplementedError("i0: this NumPy version does not expose the Cephes "
                                  "coefficients tjit uses")
    if dtypes.computes_in_float32(x.dtype):
        # the 30-term series drifts in narrow floats (float16 i0(3.5) gave 7.367, not
        # 7.379; float8 i0(0) gave 0.875): float32 and one rounding, as JAX's Bessel
        # functions compute narrow floats
        return lax.convert_element_type(i0(lax.convert_element_type(x, dtypes.float32)),
                                        x.dtype)
    ax = lax.abs(x)
    small = lax.le(ax, 8.0)
    # i0(x) = exp(x) * chebyshev(x); exp(x/2) twice keeps large x from overflowing early.
    half_exp = lax.exp(lax.mul(ax, 0.5))
    c_small = _chbevl(lax.sub(lax.mul(ax, 0.5), 2.0), _I0_A)
    safe = lax.select(small, lax.full_like(ax, 8.0), ax)
    c_large = lax.div(_chbevl(lax.sub(lax.div(32.0, safe), 2.0), _I0_B), lax.sqrt(safe))
    return lax.mul(lax.mul(half_exp, lax.select(small, c_small, c_large)), half_exp)


@_i0.defjvp
def _i0_jvp(primals, tangents):
    """I0' = I1 = exp(|x|) i1e(x). Differentiating the Chebyshev form above cancels (float32
    grad(i0)(1e-8) gave -6e-8, true 5e-9; JAX 0) and exp(|x|)'s two halves overflow its
    product rule near 89 (float32: NaN, true 2.6e37; JAX shares)."""
    (x,), (t,) = primals, tangents
    half_exp = lax.exp(lax.mul(lax.abs(x), 0.5))
    return _i0(x), lax.mul(t, lax.mul(lax.mul(half_exp, lax.bessel_i1e(x)), half_exp))


__all__ = [n for n in dir() if not n.startswith("_") and n not in (
    "np", "dtypes", "lax", "ensure_array", "promote_args", "promote_args_inexact",
    "promote_dtypes_inexact", "broadcast_arrays_", "broadcast_to_shape",
    "functools", "custom_jvp")]
