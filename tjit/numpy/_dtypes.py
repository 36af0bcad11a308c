"""Dtype objects and dtype utilities of ``tjit.numpy`` (``jnp.float32(3)`` makes an
array, ``np.dtype(jnp.float32)`` is float32, as in JAX)."""

import builtins
import os
import sys
import warnings

import numpy as np

from tjit.tracing import dtypes as _dt
from tjit.tracing.extended_dtypes import ExtendedDType, extended_issubdtype
from tjit.tracing.core import Array, Tracer
from tjit.tracing.basearray import Array as AnyArray
from tjit import lax
from tjit.primitives import elementwise as _ew
from tjit.numpy._core import asarray, ensure_array, result_type_of
from tjit.tracing.shapes import normalize_axes, normalize_axis


class _ScalarType:
    """A dtype that can be called to make a 0-d (or n-d) array of that dtype."""

    def __init__(self, np_type):
        self.type = np_type
        self.dtype = np.dtype(np_type)
        self.__name__ = self.dtype.name if np_type is not np.bool_ else "bool"

    def __call__(self, x=0):
        if type(x) is int and _dt.is_int(self.dtype):
            info = np.iinfo(_dt.canonicalize(self.dtype))
            if not info.min <= x <= info.max:  # as NumPy and JAX: no silent wrapping
                raise OverflowError(f"Python int {x} too large to convert to "
                                    f"{_dt.canonicalize(self.dtype)}")
        return asarray(x, dtype=self.dtype)

    def __repr__(self):
        return f"<class 'tjit.numpy.{self.__name__}'>"

    def __eq__(self, other):
        # None (np.dtype(None) is float64) and arrays (np.dtype reads their .dtype) are
        # values, not dtype-likes: never equal to a dtype, as in NumPy and JAX.
        if other is None or isinstance(other, (Array, Tracer, np.ndarray, np.generic)):
            return False
        try:
            return np.dtype(_np_dtype(other)) == self.dtype
        except Exception:  # np.dtype's parser raises TypeError, ValueError, SyntaxError...
            return False

    def __hash__(self):
        return hash(self.dtype)


bool_ = _ScalarType(np.bool_)
int8, int16, int32, int64 = (_ScalarType(t) for t in (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (_ScalarType(t) for t in
                                 (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (_ScalarType(t) for t in (np.float16, np.float32, np.float64))
bfloat16 = _ScalarType(_dt.bfloat16.type)  # ml_dtypes' bfloat16, as JAX's
# ml_dtypes' narrow types, as JAX's (jnp.float8_e4m3fn, jnp.int4, ...)
(float8_e3m4, float8_e4m3, float8_e8m0fnu, float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz,
 float8_e5m2, float8_e5m2fnuz, float6_e2m3fn, float6_e3m2fn,
 float4_e2m1fn) = (_ScalarType(t.type) for t in _dt.SMALL_FLOATS)
int1, int2, int4 = (_ScalarType(t.type) for t in _dt.SMALL_SIGNED)
uint1, uint2, uint4 = (_ScalarType(t.type) for t in _dt.SMALL_UNSIGNED)
complex64, complex128 = _ScalarType(np.complex64), _ScalarType(np.complex128)
uint = uint64
int_ = int64
float_ = float64
complex_ = complex128
single, double = float32, float64
csingle, cdouble = complex64, complex128
half = float16

# abstract NumPy type categories, for issubdtype
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
complexfloating, integer, signedinteger = np.complexfloating, np.integer, np.signedinteger
unsignedinteger = np.unsignedinteger
# NumPy's abstract/non-numeric scalar types and its warning class, as jax.numpy exports
# them (for issubdtype checks and warning filters; tjit arrays never hold them)
character, flexible, object_ = np.character, np.flexible, np.object_
ComplexWarning = np.exceptions.ComplexWarning
dtype = np.dtype


def _np_dtype(t):
    if isinstance(t, _ScalarType):
        return t.dtype
    return np.bool_ if t is builtins.bool else t


# the NumPy categories ml_dtypes' types belong to (NumPy files them under void: kind "V")
_ML_PARENTS = {np.floating: _dt.ML_FLOATS, np.inexact: _dt.ML_FLOATS,
               np.signedinteger: frozenset(_dt.SMALL_SIGNED),
               np.unsignedinteger: frozenset(_dt.SMALL_UNSIGNED),
               np.integer: frozenset(_dt.SMALL_INTS),
               np.number: _dt.ML_FLOATS | frozenset(_dt.SMALL_INTS),
               np.generic: _dt.ML_FLOATS | frozenset(_dt.SMALL_INTS)}


def issubdtype(arg1, arg2):
    """``numpy.issubdtype`` accepting tjit dtype objects; bfloat16 and the float8s are
    floating types, int4 a signed integer one (NumPy does not know, JAX does); a key
    dtype is a ``prng_key``, as in JAX."""
    if isinstance(arg1, ExtendedDType):
        return extended_issubdtype(arg1, arg2)
    if isinstance(arg2, ExtendedDType):
        return False
    a1, a2 = _np_dtype(arg1), _np_dtype(arg2)
    if isinstance(a2, type) and a2 in _ML_PARENTS:
        try:  # strings too: 'bfloat16' names ml_dtypes' type (NumPy calls it not floating)
            if np.dtype(a1) in _ML_PARENTS[a2]:
                return True
        except (TypeError, ValueError):
            pass
    return np.issubdtype(a1, a2)


_ML_KINDS = {"real floating": _dt.ML_FLOATS, "signed integer": frozenset(_dt.SMALL_SIGNED),
             "unsigned integer": frozenset(_dt.SMALL_UNSIGNED),
             "integral": frozenset(_dt.SMALL_INTS),
             "numeric": _dt.ML_FLOATS | frozenset(_dt.SMALL_INTS)}


def isdtype(dtype, kind):
    """``numpy.isdtype`` accepting tjit dtype objects (for ``dtype`` and ``kind``); the
    kind names know ml_dtypes' types as JAX's do (bfloat16 is 'real floating')."""
    kind = tuple(_np_dtype(k) for k in kind) if isinstance(kind, tuple) else _np_dtype(kind)
    dt = np.dtype(_np_dtype(dtype))
    if dt in _dt.ML_FLOATS or _dt.is_small(dt):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        return any(dt in _ML_KINDS.get(k, ()) if isinstance(k, str) else dt == np.dtype(k)
                   for k in kinds)
    return np.isdtype(dt, kind)


def named_dtype(x):
    """What a dtype argument names, as NumPy reads it: a dtype, a scalar type (NumPy's,
    tjit's, Python's), a dtype string, or an array or scalar value (its ``.dtype``).
    Types are not asked for ``.dtype``: ``np.int8.dtype`` is a class attribute
    descriptor, not a dtype."""
    if isinstance(x, (type, str, np.dtype, _ScalarType)):
        return _np_dtype(x)
    return getattr(x, "dtype", x)


def iinfo(int_type):
    return _dt.iinfo(named_dtype(int_type))


def finfo(dtype):
    return _dt.finfo(named_dtype(dtype))


# Python scalar *types* promote like their (weak) values, as in JAX
_PY_TYPE_VALUE = {int: 0, float: 0.0, complex: 0j, builtins.bool: False}
_PY_TYPE_NODE = {int: "i*", float: "f*", complex: "c*"}


def result_type(*args):
    """The dtype of an operation on ``args`` under JAX's promotion rules (weakly typed
    Python scalars and scalar types), canonicalized for the x64 switch.

    Args:
      *args: arrays, Python scalars, dtypes, or dtype-like objects (``jnp.float32``,
        ``"int8"``, ``int``).

    Example::

        >>> jnp.result_type(jnp.int8, 2.0)
        dtype('float32')
        >>> jnp.result_type(jnp.asarray([1], jnp.uint8), jnp.int8)
        dtype('int16')
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    vals = [_PY_TYPE_VALUE[a] if isinstance(a, type) and a in _PY_TYPE_VALUE else
            _np_dtype(a) for a in args]
    return result_type_of(*vals)[0]


def _lattice_node(t):
    if isinstance(t, type) and t in _PY_TYPE_NODE:
        return _PY_TYPE_NODE[t]
    return _dt.check_dtype(_np_dtype(t), "promote_types")


def promote_types(a, b):
    """The dtype a binary operation on ``a`` and ``b`` computes in: their join on JAX's
    promotion lattice. Python scalar types (``int``, ``float``, ``complex``) are weak.
    Like ``jax.numpy.promote_types`` the result is not canonicalized for x64.

    Args:
      a, b: dtypes or dtype-like objects.
    Returns:
      A ``numpy.dtype``.

    Example::

        >>> jnp.promote_types(jnp.int8, jnp.uint8)
        dtype('int16')
        >>> jnp.promote_types(jnp.int32, jnp.float16)
        dtype('float16')
    """
    node = _dt._lub((_lattice_node(a), _lattice_node(b)))
    return np.dtype({"i*": int, "f*": float, "c*": complex}[node]) if isinstance(node, str) \
        else np.dtype(node)


def can_cast(from_, to, casting="safe"):
    f = from_.dtype if hasattr(from_, "dtype") else _np_dtype(from_)
    return np.can_cast(np.dtype(f), np.dtype(_np_dtype(to)), casting)


_OWN_FILES = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_PASS_THROUGH = ("_array_methods.py", "traceback_util.py")


def _called_by_user():
    """Whether astype's caller (past ``Array.astype`` and the entry-point wrappers) is
    user code, not tjit's own (whose casts drop imaginary parts on purpose)."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.endswith(_PASS_THROUGH):
        frame = frame.f_back
    return frame is None or not frame.f_code.co_filename.startswith(_OWN_FILES)


def astype(x, dtype, /, *, copy=False, device=None):
    """Convert ``x`` to ``dtype`` (float->int saturates, NaN -> 0)."""
    x = ensure_array("astype", x)
    dt = _dt.canonicalize_user_dtype(_np_dtype(dtype), "astype")
    if (_dt.is_complex(x.dtype) and not _dt.is_complex(dt) and dt != _dt.bool_
            and _called_by_user()):
        # JAX's deprecation warning: the imaginary part is dropped (NumPy warns as well)
        warnings.warn("Casting from complex to real dtypes will soon raise a ValueError. "
                      "Please first use jnp.real or jnp.imag to take the real/imaginary "
                      "component of your input.", DeprecationWarning,
                      stacklevel=_dt._user_stacklevel())
    if dt == _dt.bool_ and not _dt.is_bool(x.dtype):
        return lax.ne(x, lax.convert_element_type(0, x.dtype))
    return lax.convert_element_type(x, dt)


def bitcast_view(x, dtype):
    """``lax.bitcast_convert_type``: a smaller item size adds a trailing dim, a larger
    one consumes it (``x.view(dtype)`` keeps NumPy's shapes instead).

    Example::

        >>> jnp.bitcast_view(jnp.asarray([1.0], jnp.float32), jnp.int32)
        Array([1065353216], dtype=int32)
        >>> jnp.bitcast_view(jnp.asarray([1, 2], jnp.int32), jnp.int16).shape
        (2, 2)
    """
    return lax.bitcast_convert_type(ensure_array("view", x), _np_dtype(dtype))


def _bitcast(x, dt):
    # the primitive: x.view takes complex numbers (as JAX's), lax.bitcast_convert_type not
    return _ew.bitcast_convert_type_p.bind(x, new_dtype=dt)


def view(x, dtype):
    """``x.view(dtype)`` with NumPy's shapes: the bits of ``x`` reinterpreted as
    ``dtype``; when the item sizes differ the last axis grows or shrinks by their ratio
    (so it must be divisible, and ``x`` must be at least 1-d)."""
    x = ensure_array("view", x)
    if isinstance(dtype, type) and issubclass(dtype, (np.ndarray, AnyArray)):
        # NumPy's x.view(SubClass) (np.dtype would read the class as dtype object)
        raise TypeError(
            f"view: cannot view a tjit Array as the ndarray subclass {dtype.__name__}: "
            f"tjit arrays are not subclassable NumPy arrays (as JAX's); subclass "
            f"numpy.ndarray and view a host copy outside jit, "
            f"numpy.asarray(x).view({dtype.__name__}), or keep the tjit array and write "
            f"the extra behaviour as functions of it")
    dt = _dt.check_dtype(_np_dtype(dtype), "view")
    if dt == x.dtype:
        return x
    if x.dtype == _dt.bool_:  # bools travel as bytes
        x = lax.convert_element_type(x, _dt.uint8)
    old, new = x.dtype.itemsize, dt.itemsize
    out_dt = np.dtype(np.uint8) if dt == _dt.bool_ else dt
    if old != new and (x.ndim == 0 or type(x.shape[-1]) is not int
                       or (x.shape[-1] * old) % new):
        raise ValueError(f"view: cannot view an array of shape {tuple(x.shape)} and dtype "
                         f"{x.dtype} as {dt}: the last axis must be concrete with a byte "
                         f"size divisible by {new}")
    if old > new:  # (..., n) -> (..., n, r) -> (..., n * r)
        y = _bitcast(x, out_dt)
        y = lax.reshape(y, tuple(x.shape[:-1]) + (x.shape[-1] * (old // new),))
    elif old < new:  # (..., n) -> (..., n / r, r) -> (..., n / r)
        r = new // old
        x = lax.reshape(x, tuple(x.shape[:-1]) + (x.shape[-1] // r, r))
        y = _bitcast(x, out_dt)
    else:
        y = _bitcast(x, out_dt)
    return lax.ne(y, lax.convert_element_type(0, y.dtype)) if dt == _dt.bool_ else y


def isscalar(element):
    """Whether ``element`` is a scalar: a NumPy scalar, a Python number or string, or (as
    in JAX, unlike NumPy) any 0-d array, NumPy's included."""
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, Array, Tracer)):
        return element.ndim == 0
    return False


def ndim(a):
    return a.ndim if hasattr(a, "ndim") else _host_attr(np.ndim, a, "ndim")


def shape(a):
    return tuple(a.shape) if hasattr(a, "shape") else _host_attr(np.shape, a, "shape")


def _host_attr(read, a, name):
    """NumPy's ``read`` (np.ndim, np.shape) of a host value such as a nested list; a
    ragged list has neither, and NumPy's "inhomogeneous shape" message says so from
    inside its conversion."""
    try:
        return read(a)
    except ValueError as e:
        if "inhomogeneous" not in str(e):
            raise
        raise ValueError(f"jnp.{name}: the {type(a).__name__} {a!r:.60} is ragged (its rows "
                         f"differ in length), so it has no {name}; give every row the same "
                         f"length") from None


def size(a, axis=None):
    s = shape(a)
    if axis is None:
        n = 1
        for d in s:
            n *= d
        return n
    if isinstance(axis, (tuple, list)):  # JAX: the product of the sizes along these axes
        n = 1
        for ax in normalize_axes(axis, len(s), "size"):
            n *= s[ax]
        return n
    return s[normalize_axis(axis, len(s), "size")]


__all__ = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "bfloat16", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz",
           "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
           "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "int1", "int2", "int4", "uint1",
           "uint2", "uint4",
           "float16", "float32", "float64", "complex64", "complex128", "uint", "int_",
           "float_", "complex_", "single", "double", "csingle", "cdouble", "half", "generic",
           "number", "inexact", "floating", "complexfloating", "integer", "signedinteger",
           "unsignedinteger", "dtype", "issubdtype", "isdtype", "iinfo", "finfo",
           "result_type", "promote_types", "can_cast", "astype", "bitcast_view", "isscalar",
           "ndim", "shape", "size", "character", "flexible", "object_", "ComplexWarning"]

bool = bool_  # noqa: A001  (jnp.bool, as NumPy 2 and JAX spell it; defined last)
__all__.append("bool")
