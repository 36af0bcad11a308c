"""Array conversion, dtype promotion and broadcasting for ``tjit.numpy``.

Every ``tjit.numpy`` function funnels its array inputs through :func:`promote_args`
(JAX's promotion rules with weak Python scalars, then NumPy broadcasting), so the
primitives below see equal shapes and dtypes.
"""

import functools
import operator
import warnings

import numpy as np

from tjit._sympy import is_expr
from tjit.config import config
from tjit.tracing import dtypes, transfer_guard
from tjit.tracing.basearray import refusal_hint
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import ArrayConversionError, BroadcastShapeError, ShapeError
from tjit.tracing.extended_dtypes import ExtendedArray
from tjit.tracing.fp_quiet import quiet_off, quiet_on
from tjit.tracing.shapes import broadcast_shapes
from tjit import lax
from tjit.lax._annotations import accepts_out_sharding, apply_out_sharding

_SCALARS = (bool, int, float, complex)


def is_array(x):
    return isinstance(x, (Array, Tracer))


def dim_as_array(d):
    """A symbolic dim (``x.shape[0]`` under ``polymorphic_shapes``) as a weakly typed
    0-d int array, so ``x / x.shape[0]`` works as in JAX: the sum of ``d`` ones, which
    the executor evaluates once the size symbols are bound. A non-integer expression
    (``5. + b``, ``b / 2``: sympy's results of float or true-division arithmetic on a
    dim), or one that may be negative (``b - 4``: no count of ones), is that arithmetic
    on its dims' values, as in JAX."""
    if not (d.is_integer and d.is_nonnegative):
        return asarray(_dim_arithmetic(d))
    ones = lax.full((d,), 1, dtypes.default_int())
    return lax.convert_element_type(lax.reduce_sum(ones, (0,)), dtypes.default_int(),
                                    weak_type=True)


def _dim_arithmetic(e):
    """The value of a sympy expression over dims: integer parts as dims, numbers as
    Python numbers (weak), sums, products and powers as array arithmetic."""
    if e.is_integer and e.is_nonnegative:
        return dim_as_array(e)
    if e.is_Number:
        return int(e) if e.is_integer else float(e)
    if e.is_Mul or e.is_Pow:
        # sympy writes c / b as c * b**-1: a true division, as JAX's dims compute it
        # (an integer dim to a negative power has no integer value)
        num, den = e.as_numer_denom()
        if den != 1:
            return _dim_arithmetic(num) / _dim_arithmetic(den)
    args = [_dim_arithmetic(a) for a in e.args]
    if e.is_Add:
        return functools.reduce(operator.add, args)
    if e.is_Mul:
        return functools.reduce(operator.mul, args)
    if e.is_Pow:
        return args[0] ** args[1]
    raise TypeError(f"asarray: cannot compute the value of the symbolic dim expression "
                    f"{e} ({type(e).__name__}); write it with +, -, *, / and ** of dims "
                    f"(x.shape[i]), or use concrete shapes")


def _dims_in_object_array(a, dtype):
    """A NumPy object array holding symbolic dims (``np.arange(3) + x.shape[0]``:
    NumPy's operator makes one) as an array of their values."""
    from tjit.numpy._shape import stack
    out = stack([asarray(x, dtype) for x in a.flat]).reshape(a.shape)
    # (a NumPy array is never weakly typed)
    return lax.convert_element_type(out, out.dtype) if out.weak_type else out


# How to get numbers out of what NumPy keeps as strings, objects or records
_NON_NUMERIC_FIX = {
    "U": "keep the text in NumPy or pandas and pass integer codes, e.g. "
         "codes, labels = pandas.factorize(values) or numpy.unique(values, return_inverse=True)",
    "O": "convert it to a numeric dtype first (values.astype(float)); strings become integer "
         "codes with pandas.factorize(values), and ragged lists need equal lengths",
    "V": "pass each field of a structured array as its own array (values['field'])",
}
_NON_NUMERIC_FIX["S"] = _NON_NUMERIC_FIX["U"]


def is_arraylike(a):
    """True for what jnp functions take as an array: arrays, NumPy values, Python numbers
    and symbolic dims (not lists, as in JAX)."""
    return (isinstance(a, (Array, Tracer, np.ndarray, np.generic)) or type(a) in _SCALARS
            or isinstance(a, _SCALARS) or is_expr(a))


def defers_to(other):
    """Whether an Array operator returns NotImplemented for ``other`` when jnp refuses
    it (a TypeError): neither array-like nor a list/tuple/set/dict, so ``other``'s
    reflected operator runs (``Array + pandas.Series`` is a Series, as with jax.Array,
    and ``a == "x"`` is False); JAX's rejected types keep jnp's error, which says to
    wrap them in jnp.asarray (``a == [1, 2, 3]`` raises, as in JAX, rather than being
    False where NumPy compares elementwise)."""
    return not is_arraylike(other) and not isinstance(other, (list, tuple, set, dict))


def refuses_operand(e):
    """Whether jnp's error ``e`` means it refused an operand's type (a TypeError), so an
    Array operator may return NotImplemented and let Python try the other operand's.
    A ShapeError that is also a TypeError (JAX's class for shapes that do not broadcast
    or contract) is about the user's shapes, and must reach the user: ``a == b`` with
    such shapes raises, as in JAX, instead of becoming False."""
    return isinstance(e, TypeError) and not isinstance(e, ShapeError)


def _refuse(fname, a, where):
    fix = "; wrap it with jnp.asarray(...) first" if isinstance(a, (list, tuple)) else ""
    if hasattr(type(a), "_refusal_hint"):
        fix = refusal_hint(a)
    elif hasattr(type(a), "__jax_array__"):  # as JAX: only an explicit conversion calls it
        fix = ("; it defines __jax_array__, which tjit.numpy functions do not call "
               "implicitly (as in JAX): convert it first with jnp.asarray(...)")
    raise TypeError(f"{fname} requires ndarray or scalar arguments, got "
                    f"{type(a).__name__}{where}{fix}")


def check_arraylike(fname, *args):
    for i, a in enumerate(args):
        if not is_arraylike(a):
            _refuse(fname, a, f" at position {i}")


def dtype_and_weak(x):
    if isinstance(x, (Array, Tracer)):
        return x.dtype, x.weak_type
    if isinstance(x, bool):
        return dtypes.bool_, False
    if isinstance(x, (np.ndarray, np.generic)):  # before _SCALARS: np.float64 is a float
        return dtypes.canonicalize(x.dtype), False  # NumPy scalars are strong, as in JAX
    if isinstance(x, _SCALARS):
        return dtypes.dtype_of_python_scalar(x), True
    if is_expr(x):  # a symbolic dim: a weak int, like a Python int
        return dtypes.default_int(), True
    raise TypeError(f"expected an array or scalar, got {type(x).__name__}")


def out_sharded(x, out_sharding, fname):
    """JAX's ``out_sharding=`` of a jnp function: None gives ``x``; a sharding is checked
    against the result (lax.apply_out_sharding; one device places nothing)."""
    return x if out_sharding is None else \
        apply_out_sharding(x, out_sharding, f"jnp.{fname}(out_sharding=...)")


def takes_out_sharding(fname):
    """Decorator: JAX's keyword-only ``out_sharding=None`` on the jnp function ``fname``,
    checked against its result as :func:`out_sharded` does."""
    return lambda fun: accepts_out_sharding(fun, f"jnp.{fname}")


def check_memory_order(order, op):
    """A NumPy memory-layout ``order`` ('K', 'A', 'C', 'F' or None) given to ``op``, which
    keeps no layout of its own, so any of them gives the same array (JAX implements 'K'
    only and raises NotImplementedError for the rest; tjit takes NumPy's, ported code
    passes them). Anything else raises NumPy's ValueError."""
    if order is not None and not (isinstance(order, str) and order.upper() in "KACF"
                                  and len(order) == 1):
        raise ValueError(f"{op}: order must be one of 'C', 'F', 'A' or 'K', got {order!r}")


def asarray(a, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
    """Convert ``a`` (array, scalar, nested lists of them) to a tjit Array.

    ``device``: where the result lives (None: the host, or where ``a`` already is), as
    in ``jax.numpy.asarray`` and the Array API; ``out_sharding`` as JAX's (checked)."""
    if order is not None:  # (no call on the hot path: asarray runs everywhere)
        check_memory_order(order, "asarray")
    out = _asarray(a, dtype, copy, "asarray")
    if device is not None and isinstance(out, Array):
        out = out.to_device(device)
    return out_sharded(out, out_sharding, "asarray")


def host_numpy_array(a, op, what=None):
    """``np.asarray(a)`` for a host value given to ``op``, whose failure names ``op``
    (and the argument ``what``): a ragged nested list surfaced NumPy's "setting an array
    element with a sequence ... inhomogeneous shape" from wherever it was converted."""
    try:
        return np.asarray(a)
    except Exception as e:
        arg = f" {what}" if what else ""
        if isinstance(e, ValueError) and "inhomogeneous" in str(e):
            raise ArrayConversionError(
                f"{op}: the{arg} {type(a).__name__} {a!r:.60} is ragged (its rows differ "
                f"in length), so it is no array; give every row the same length") from None
        raise TypeError(f"{op}: cannot convert{arg} {type(a).__name__} to an array: "
                        f"{e}") from None


def _asarray(a, dtype, copy, op):
    if dtypes.is_float0(a) and (dtype is None or np.dtype(dtype) == dtypes.float0):
        return np.asarray(a)  # a float0 tangent holds no data: NumPy's, as JAX's is
    if dtype is not None:
        dtype = dtypes.canonicalize_user_dtype(dtype, op)
    if hasattr(type(a), "__jax_array__") and not isinstance(a, (Array, Tracer)):
        # JAX's protocol: jnp.asarray/jnp.array call it (other functions refuse such
        # objects, _refuse); it may return an array, a scalar or a list
        a = a.__jax_array__()
    if isinstance(a, (Array, Tracer)):
        # an explicit dtype gives a strong array, a weak input's own dtype included (JAX)
        if dtype is not None and (a.dtype != dtype or a.weak_type):
            return lax.convert_element_type(a, dtype)
        return a
    if isinstance(a, ExtendedArray):  # a key array is its own array
        return a._as_array(dtype, op)
    if is_expr(a):
        return asarray(dim_as_array(a), dtype)
    if isinstance(a, np.ndarray) and a.dtype == object and a.size and \
            any(is_expr(x) for x in a.flat):
        return _dims_in_object_array(a, dtype)
    if isinstance(a, (list, tuple)) and any(isinstance(x, Tracer) or is_expr(x)
                                            for x in _flat_seq(a)):
        from tjit.numpy._shape import stack  # lists of traced values
        out = stack([asarray(x, dtype) for x in a])
        # A list is never weakly typed (JAX), even when all its entries are.
        return lax.convert_element_type(out, out.dtype) if out.weak_type else out
    from_python = not isinstance(a, (np.ndarray, np.generic))
    if config.guards_host_to_device:
        transfer_guard.check_host_operand(a, f"tjit.numpy.{op}")
    if isinstance(a, (list, tuple)) and any(isinstance(x, _TYPED_LEAVES)
                                            for x in _flat_seq(a)):
        # JAX's promotion over the leaves, Python scalars weak: [np.float32(1), 2] is
        # float32 and [np.uint8(250), 7] uint8 (NumPy's value-based rules give float64/int64)
        if dtype is None:
            dtype = result_type_of(*_flat_seq(a))[0]
        a = _to_numpy_nested(a)
    weak = False
    if type(a) in _SCALARS and dtype is None:
        weak = not isinstance(a, bool)
        dt = dtypes.dtype_of_python_scalar(a)
        if isinstance(a, int) and not isinstance(a, bool):
            check_int_fits(a, dt)
        return Array(np.asarray(a, dt), weak)
    v = host_numpy_array(a, op)
    # (kind "V" is also that of ml_dtypes' bfloat16, a number: only true voids are refused)
    if v.dtype == object or v.dtype.kind in "US" or issubclass(v.dtype.type, np.void):
        raise ArrayConversionError(
            f"asarray: unsupported input of type {type(a).__name__} (NumPy dtype "
            f"{v.dtype}); tjit arrays hold numbers and bools, as JAX's do: "
            f"{_NON_NUMERIC_FIX[v.dtype.kind]}")
    if dtype is None:
        if v.dtype == np.float64 and not isinstance(a, np.ndarray) and not \
                isinstance(a, np.generic):
            dtype = dtypes.default_float()  # Python float lists -> default float
        elif v.dtype == np.int64 and not isinstance(a, (np.ndarray, np.generic)):
            dtype = dtypes.default_int()
        else:
            dtype = dtypes.canonicalize(dtypes.check_dtype(v.dtype, "asarray"))
    if v.dtype != dtype:
        if from_python and v.dtype.kind in "iu" and dtypes.is_int(dtype):
            _check_int_range(v, dtype)
        v = v.astype(dtype)
    elif copy or (isinstance(a, np.ndarray) and v is a):
        v = v.copy()  # an Array never aliases a mutable user buffer
    return Array(v, weak)


def check_int_fits(v, dt):
    """Python int ``v`` must fit the integer dtype ``dt`` it becomes: OverflowError
    otherwise (as NumPy 2; JAX wraps it today, with a TODO to raise)."""
    lo, hi = dtypes.int_range(dt)
    if not lo <= v <= hi:
        raise OverflowError(f"Python int {v} too large to convert to {dt}")


def check_operand_int(v, dt):
    """Python int operand ``v`` of a tjit.numpy function, promoted to ``dt``: as in JAX,
    it is first a weak value of the default int dtype (int32 unless x64 is on), so it
    must fit that whatever ``dt`` is (float32_array * 2**40 raises OverflowError, as in
    JAX, rather than rounding silently), then the integer ``dt`` it becomes."""
    default = dtypes.default_int()
    lo, hi = dtypes.int_range(default)
    if not lo <= v <= hi:
        raise OverflowError(
            f"Python int {v} too large to convert to {np.dtype(default)}: a Python int "
            f"operand is a weak {np.dtype(default)} (as in JAX). Fix: write it as a float "
            f"({float(v)!r}), pass a NumPy scalar or array of a wider dtype, or enable x64 "
            f"(tjit.config.update('jax_enable_x64', True))")
    fits = dtypes.int_range(dt)
    if fits is not None and not fits[0] <= v <= fits[1]:
        check_int_fits(v, dt)  # (raises)


def _check_int_range(v, dtype):
    """Python ints must fit the integer dtype they become (no silent wrapping; as JAX
    and NumPy 2 do)."""
    info = dtypes.iinfo(dtype)
    if v.size and (v.min() < info.min or v.max() > info.max):
        bad = v.max() if v.max() > info.max else v.min()
        raise OverflowError(f"Python int {int(bad)} too large to convert to {np.dtype(dtype)}"
                            f"; pass a wider dtype (e.g. dtype=jnp.int64 with x64 enabled)")


def array(object, dtype=None, copy=True, order="K", ndmin=0, *, device=None,  # noqa: A002
          out_sharding=None):
    """Like ``numpy.array``; always copies host data. ``device`` and ``out_sharding``
    as :func:`asarray`'s."""
    check_memory_order(order, "array")
    out = _asarray(object, dtype, None, "array")
    if copy and out is object and isinstance(out, Array):  # a new array, as in JAX
        from tjit.numpy._creation import copied
        out = copied(out)
    if ndmin > out.ndim:
        out = lax.broadcast(out, (1,) * (ndmin - out.ndim))
    if device is not None and isinstance(out, Array):
        out = out.to_device(device)
    return out_sharded(out, out_sharding, "array")


_TYPED_LEAVES = (Array, np.ndarray, np.generic)


def _flat_seq(a):
    for x in a:
        if isinstance(x, (list, tuple)):
            yield from _flat_seq(x)
        else:
            yield x


def _to_numpy_nested(a):
    if isinstance(a, (list, tuple)):
        return [_to_numpy_nested(x) for x in a]
    if isinstance(a, Array):
        return np.asarray(a._value)
    return a


def result_type_of(*args):
    """Promoted ``(dtype, weak_type)`` of array/scalar/dtype arguments."""
    pairs = []
    for a in args:
        if isinstance(a, (np.dtype, type, str)) and not isinstance(a, _SCALARS):
            pairs.append((dtypes.check_dtype(a), False))
        else:
            pairs.append(dtype_and_weak(a))
    return dtypes.result_type(*pairs)


def _convert(x, dt, weak):
    if isinstance(x, (Array, Tracer)):
        if x.dtype == dt and x.weak_type == weak:
            return x
        return lax.convert_element_type(x, dt, weak_type=weak)
    if config.guards_host_to_device and not is_expr(x):
        transfer_guard.check_host_operand(x, "tjit.numpy")
    if type(x) in _SCALARS or isinstance(x, _SCALARS):
        if isinstance(x, int) and not isinstance(x, bool):
            check_operand_int(x, dt)
        if isinstance(x, complex) and not dtypes.is_complex(dt):
            raise TypeError(f"cannot convert complex scalar {x} to {dt}")
        return Array(scalar_as(x, dt), weak)
    if is_expr(x):
        return lax.convert_element_type(dim_as_array(x), dt, weak_type=weak)
    if isinstance(x, np.ndarray) and x.dtype == object and any(map(is_expr, x.flat)):
        return lax.convert_element_type(_dims_in_object_array(x, None), dt, weak_type=weak)
    v = np.asarray(x)
    return Array(v.astype(dt) if v.dtype != dt else v.copy(), weak)


def promote_dtypes(*args):
    """Convert every argument to the promoted dtype (no broadcasting). Arrays of one
    dtype keep it (JAX's trivial promotion), weak only if all are: a dtype the x64 switch
    would not make now (weak int32 after x64 was turned on, float64 after it was turned
    off) is not re-canonicalized, as the equal-shape path does not either."""
    if len(args) > 1 and all(isinstance(a, (Array, Tracer)) for a in args):
        dt = args[0].dtype
        if all(a.dtype == dt for a in args[1:]):
            weak = all(a.weak_type for a in args)
            return [_convert(a, dt, weak) for a in args]
    dt, weak = result_type_of(*args)
    return [_convert(a, dt, weak) for a in args]


def promote_dtypes_inexact(*args):
    dt, weak = result_type_of(*args)
    dt = dtypes.to_inexact(dt)
    return [_convert(a, dt, weak) for a in args]


def broadcast_arrays_(fname, *args):
    """Broadcast to a common shape; 0-d operands stay scalars (primitives accept them)."""
    shapes = [tuple(a.shape) for a in args]
    if all(s == shapes[0] for s in shapes):
        return list(args)
    if config.numpy_rank_promotion != "allow":
        check_rank_promotion(fname, shapes)
    # elementwise operands: a misfit is a TypeError too, as JAX's (errors.py)
    shape = broadcast_shapes(*shapes, op=fname, error=BroadcastShapeError)
    return [a if a.ndim == 0 else broadcast_to_shape(a, shape) for a in args]


def check_rank_promotion(fname, shapes):
    """The ``numpy_rank_promotion`` option ("warn", "raise") for operands of different
    ranks, none 0-d (JAX's rule: scalars always broadcast)."""
    if len({len(s) for s in shapes if s}) < 2:
        return
    listed = " ".join(str(s) for s in shapes)
    if config.numpy_rank_promotion == "raise":
        raise ValueError(f"Operands could not be broadcast together for {fname} on shapes "
                         f"{listed} and with the config option "
                         f"jax_numpy_rank_promotion='raise'. Add the missing axes "
                         f"explicitly (e.g. x[None, :] or jnp.expand_dims), or set the "
                         f"option to 'allow'.")
    warnings.warn(f"Following NumPy automatic rank promotion for {fname} on shapes {listed}."
                  f" Set the jax_numpy_rank_promotion config option to 'allow' to disable "
                  f"this warning.", stacklevel=3)


def broadcast_to_shape(a, shape):
    if tuple(a.shape) == tuple(shape):
        return a
    nlead = len(shape) - a.ndim
    if nlead < 0:
        raise ValueError(f"broadcast_to: cannot broadcast shape {a.shape} to {shape}")
    keep = [i for i, d in enumerate(a.shape) if not (d == 1 and shape[i + nlead] != 1)]
    if len(keep) != a.ndim:  # drop size-1 dims that get expanded
        a = lax.reshape(a, tuple(a.shape[i] for i in keep))
    return lax.broadcast_in_dim(a, shape, tuple(i + nlead for i in keep))


def promote_args(fname, *args):
    """Promote dtypes and broadcast shapes, NumPy/JAX style."""
    if len(args) == 2:  # fast paths: same-typed arrays of equal shape; array and scalar
        x, y = args
        tx, ty = type(x), type(y)
        if tx is Array:
            if ty is Array:
                if x._value.dtype == y._value.dtype and x._weak == y._weak \
                        and x._value.shape == y._value.shape:
                    return x, y
            elif not x._weak and _scalar_keeps_dtype(y, ty, x._value.dtype):
                if config.guards_host_to_device:
                    transfer_guard.check_host_operand(y, fname)
                return x, Array(scalar_as(y, x._value.dtype), False)
        elif ty is Array and not y._weak and _scalar_keeps_dtype(x, tx, y._value.dtype):
            if config.guards_host_to_device:
                transfer_guard.check_host_operand(x, fname)
            return Array(scalar_as(x, y._value.dtype), False), y
        # a traced array and a Python scalar (``a * 1.0001`` while tracing): the scalar a
        # constant of the array's dtype, as the general path makes it (half its cost)
        elif (ty is float or ty is int) and isinstance(x, Tracer):
            aval = x.aval
            if not aval.weak_type and _scalar_keeps_dtype(y, ty, aval.dtype):
                if config.guards_host_to_device:
                    transfer_guard.check_host_operand(y, fname)
                return x, Array(scalar_as(y, aval.dtype), False)
        elif (tx is float or tx is int) and isinstance(y, Tracer):
            aval = y.aval
            if not aval.weak_type and _scalar_keeps_dtype(x, tx, aval.dtype):
                if config.guards_host_to_device:
                    transfer_guard.check_host_operand(x, fname)
                return Array(scalar_as(x, aval.dtype), False), y
    check_arraylike(fname, *args)
    return broadcast_arrays_(fname, *promote_dtypes(*args))


def scalar_as(v, dt):
    """Python scalar ``v`` as a 0-d NumPy array of ``dt``: one that overflows ``dt``
    (``1e300`` in float32) becomes inf silently, as in JAX, not with NumPy's warning."""
    if (type(v) is float or type(v) is int) and -65504.0 <= v <= 65504.0:
        # fits every float dtype (float16's max): no warning to silence
        return np.asarray(v, dt)
    token = quiet_on()
    try:
        return np.asarray(v, dt)
    finally:
        quiet_off(token)


def _scalar_keeps_dtype(v, t, dt):
    """True when Python scalar ``v`` combined with a (non-weak) ``dt`` array gives ``dt``."""
    if t is float:
        return dtypes.is_inexact(dt)
    if t is int:  # it is a weak default int first (JAX): outside that, the general
        lo, hi = dtypes.int_range(dtypes.default_int())  # path raises (check_operand_int)
        if not lo <= v <= hi:
            return False
        if dtypes.is_inexact(dt):
            return True
        fits = dt.kind == "i" and dt.itemsize >= 4 and dtypes.int_range(dt)
        return bool(fits) and fits[0] <= v <= fits[1]
    return False


def promote_args_numeric(fname, *args):
    """``promote_args``, with bool operands made int32 (JAX's ``promote_args_numeric``,
    whose ``to_numeric_dtype`` gives int32 with or without x64: ``True % True`` and
    ``True << True`` are integer arithmetic, as in NumPy, which gives int8)."""
    args = promote_args(fname, *args)
    if dtypes.is_bool(args[0].dtype):
        return [lax.convert_element_type(a, dtypes.int32) for a in args]
    return args


def promote_args_inexact(fname, *args):
    check_arraylike(fname, *args)
    return broadcast_arrays_(fname, *promote_dtypes_inexact(*args))


def ensure_array(fname, x):
    if not is_arraylike(x):  # one argument of several: its position here is not the user's
        _refuse(fname, x, "")
    if isinstance(x, (Array, Tracer)):
        return x
    return promote_dtypes(x)[0]
