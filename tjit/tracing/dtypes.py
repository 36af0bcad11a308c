"""Dtypes: canonicalization under the x64 switch and JAX's type-promotion lattice.

Python scalars are *weakly typed*: ``x_f32 * 2.0`` stays float32 and ``x_i8 + 1``
stays int8, as in JAX. The lattice and its least-upper-bound rule follow JAX's
documented type promotion (jax.numpy type promotion semantics).
"""

import functools
import os
import sys
import warnings

import ml_dtypes
import numpy as np

from tjit.config import config

bool_ = np.dtype(np.bool_)
int8, int16, int32, int64 = (np.dtype(t) for t in ("int8", "int16", "int32", "int64"))
uint8, uint16, uint32, uint64 = (np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64"))
float16, float32, float64 = (np.dtype(t) for t in ("float16", "float32", "float64"))
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")
# bfloat16 is ml_dtypes' (as JAX's): NumPy computes on it in float32 and rounds. NumPy's
# issubdtype does not know it is a float, so the is_* tests below name it.
bfloat16 = np.dtype(ml_dtypes.bfloat16)

# The narrow ml_dtypes types JAX exposes (jnp.float8_e4m3fn, jnp.int4, ...). NumPy holds
# each element in one byte (int4/int2/int1 and float4/float6 too) and computes on the
# floats in float32, rounding each result, as XLA does on the CPU. JAX lets none of them
# promote implicitly except with Python scalars (see the lattice below). Under jit the
# LLVM backend computes their converts, arithmetic and most elementwise functions in
# kernels (xla_like/hlo.NARROW_KERNEL_PRIMITIVES, lower/llvm/narrow.py: float32 math
# rounded once per op, bit for bit ml_dtypes' casts); their other ops, and all of them
# on the C backends, are library steps run with ml_dtypes.
SMALL_FLOATS = tuple(np.dtype(getattr(ml_dtypes, n)) for n in (
    "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float6_e2m3fn", "float6_e3m2fn",
    "float4_e2m1fn"))
SMALL_SIGNED = tuple(np.dtype(getattr(ml_dtypes, n)) for n in ("int1", "int2", "int4"))
SMALL_UNSIGNED = tuple(np.dtype(getattr(ml_dtypes, n)) for n in ("uint1", "uint2", "uint4"))
SMALL_INTS = SMALL_SIGNED + SMALL_UNSIGNED
_SMALL_FLOAT_SET = frozenset(SMALL_FLOATS)
_SMALL_INT_SET = frozenset(SMALL_INTS)
#: floats NumPy (through ml_dtypes) computes on in float32: bfloat16 and the float8/6/4s
ML_FLOATS = frozenset((bfloat16, *SMALL_FLOATS))

SUPPORTED = frozenset(
    [bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
     bfloat16, float16, float32, float64, complex64, complex128, *SMALL_FLOATS, *SMALL_INTS])

_X32_NARROW = {int64: int32, uint64: uint32, float64: float32, complex128: complex64}

_SHORT = {bool_: "bool", int8: "i8", int16: "i16", int32: "i32", int64: "i64", uint8: "u8",
          uint16: "u16", uint32: "u32", uint64: "u64", bfloat16: "bf16", float16: "f16", float32: "f32",
          float64: "f64", complex64: "c64", complex128: "c128",
          # as JAX's jaxprs print them: f8_e4m3fn, f4_e2m1fn, i4, u2...
          **{t: "f" + t.name[len("float"):] for t in SMALL_FLOATS},
          **{t: "i" + t.name[len("int"):] for t in SMALL_SIGNED},
          **{t: "u" + t.name[len("uint"):] for t in SMALL_UNSIGNED}}


def key(dtype):
    """A string that names ``dtype`` uniquely, for cache and CSE keys. ``dtype.str``
    does not: it is '|V1' for every one-byte ml_dtypes type (float8_e4m3fn, float8_e5m2,
    int4, ...), so keys built from it let one type's program or value stand for another's."""
    dt = np.dtype(dtype)
    return f"{dt.str}:{dt.name}"


def short_name(dtype):
    """'f32', 'i32', ... as the jaxpr printer shows dtypes."""
    return _SHORT.get(np.dtype(dtype), str(dtype))


def check_dtype(dtype, op="tjit"):
    """Return ``np.dtype(dtype)`` or raise a TypeError naming the op when unsupported."""
    # a NumPy scalar stands for its type (NumPy and JAX accept np.float32(1) as a dtype)
    if hasattr(dtype, "shape") and not isinstance(dtype, (np.dtype, type, np.generic)):
        from tjit.tracing.errors import ArrayAsDtypeError
        raise ArrayAsDtypeError(
            f"{op}: an array ({type(dtype).__name__} of dtype {dtype.dtype}) was passed as "
            f"a dtype argument; pass a dtype such as dtype=x.dtype or jnp.float32")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{op}: {dtype!r} is not a valid dtype") from None
    if dt not in SUPPORTED:
        raise TypeError(
            f"{op}: dtype {dt} is not supported by tjit; use one of bool, int8..int64, "
            f"uint8..uint64, bfloat16, float16, float32, float64, complex64, complex128, "
            f"the float8/float6/float4 types and int4/uint4/int2/uint2/int1/uint1")
    return dt


def canonicalize(dtype):
    """Narrow 64-bit types to 32 bits unless x64 is enabled (JAX's default)."""
    dt = np.dtype(dtype)
    if not config.enable_x64:
        return _X32_NARROW.get(dt, dt)
    return dt


_TJIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_stacklevel():
    """``warnings.warn``'s stacklevel that names the innermost frame outside tjit."""
    frame, level = sys._getframe(2), 2  # 1: warn's caller (here), 2: its caller...
    while frame is not None and frame.f_code.co_filename.startswith(_TJIT_DIR):
        frame, level = frame.f_back, level + 1
    return level


def canonicalize_user_dtype(dtype, op):
    """A dtype the user asked for, checked and canonicalized; warns as JAX's
    ``check_user_dtype_supported`` does when x64 is off and it gets narrowed
    (``zeros(3, dtype=float64)``, ``x.astype(np.float64)``). Python's ``float``/``int``/
    ``complex`` mean the defaults and do not warn; neither does float64 *data*."""
    dt = check_dtype(dtype, op)
    out = canonicalize(dt)
    if out != dt and not (isinstance(dtype, type) and dtype in (bool, int, float, complex)):
        warnings.warn(
            f"Explicitly requested dtype {dt.name} requested in {op} is not available, and "
            f"will be truncated to dtype {out.name}. To enable more dtypes, set the "
            f"enable_x64 configuration option (tjit.config.update('enable_x64', True)) or "
            f"the TJIT_ENABLE_X64 shell environment variable.", UserWarning,
            stacklevel=_user_stacklevel())
    return out


def default_int():
    return int64 if config.enable_x64 else int32


def default_uint():
    return uint64 if config.enable_x64 else uint32


def default_float():
    return float64 if config.enable_x64 else float32


def default_complex():
    return complex128 if config.enable_x64 else complex64


def to_inexact(dt):
    """The dtype an integer or boolean ``dt`` computes in where an op needs an inexact one
    (``sqrt``, ``/``, ``mean``, ...), as JAX's ``to_inexact_dtype``: 64-bit integers
    become float64, narrower ones and bool float32, whatever the x64 switch (then
    canonicalized, so float32 without x64). Inexact dtypes are returned as they are."""
    dt = np.dtype(dt)
    if is_inexact(dt):
        return dt
    return canonicalize(float64 if dt.itemsize == 8 else float32)


# (NumPy's issubdtype does not know ml_dtypes' types are numbers: their kind is "V").
# A dtype object of a numeric kind is answered from its kind letter (issubdtype costs
# ~1 us, and eager ops and derivative rules ask at every call); ml_dtypes' types, kind
# "V" or not, are in the sets either way, and other kinds (timedelta64 is a NumPy
# integer) still ask issubdtype.
_NUMERIC_KINDS = frozenset("biufc")


def is_float(dt):
    if isinstance(dt, np.dtype) and dt.kind in _NUMERIC_KINDS:
        return dt.kind == "f"
    return np.issubdtype(dt, np.floating) or dt in ML_FLOATS


def is_complex(dt):
    if isinstance(dt, np.dtype):  # the common case, without issubdtype's ~0.4 us
        return dt.kind == "c"
    return np.issubdtype(dt, np.complexfloating)


def is_inexact(dt):
    if isinstance(dt, np.dtype) and dt.kind in _NUMERIC_KINDS:
        return dt.kind in "fc"
    return np.issubdtype(dt, np.inexact) or dt in ML_FLOATS


def is_int(dt):
    if isinstance(dt, np.dtype) and dt.kind in _NUMERIC_KINDS:
        return dt.kind in "iu"
    return np.issubdtype(dt, np.integer) or dt in _SMALL_INT_SET


def is_unsigned(dt):
    if isinstance(dt, np.dtype) and dt.kind in _NUMERIC_KINDS:
        return dt.kind == "u"
    return np.issubdtype(dt, np.unsignedinteger) or dt in SMALL_UNSIGNED


def is_small(dt):
    """One of the narrow ml_dtypes types (float8/6/4, int4/2/1, uint4/2/1)."""
    return dt in _SMALL_FLOAT_SET or dt in _SMALL_INT_SET


def is_one_byte(dt):
    """A narrow ml_dtypes type, held in one byte by NumPy (the float8/6/4s, int4/2/1...):
    their kind is "V", but float8_e5m2's is "f" (NumPy has no one-byte float of its own).
    Two attribute tests, no set lookup: eager ops ask it at every call."""
    return dt.itemsize == 1 and dt.kind in "Vf"


def kind(dt):
    """NumPy's kind letter ('b', 'i', 'u', 'f', 'c'), knowing ml_dtypes' types (whose own
    kind is "V")."""
    dt = np.dtype(dt)
    if dt in ML_FLOATS:
        return "f"
    if dt in _SMALL_INT_SET:
        return "u" if dt in SMALL_UNSIGNED else "i"
    return dt.kind


def supports_inf(dt):
    """Whether float dtype ``dt`` has infinities (float8_e4m3fn and the fnuz/fnu types
    do not: -inf becomes NaN there, so max/min identities use finfo's extremes)."""
    return not is_small(dt) or bool(np.isinf(np.asarray(np.inf).astype(dt)))


def lowest(dt):
    """The identity of max for float or int ``dt``: -inf where ``dt`` has it."""
    if is_int(dt):
        return iinfo(dt).min
    return -np.inf if supports_inf(dt) else float(finfo(dt).min)


def highest(dt):
    """The identity of min for float or int ``dt``: inf where ``dt`` has it."""
    if is_int(dt):
        return iinfo(dt).max
    return np.inf if supports_inf(dt) else float(finfo(dt).max)


def bit_width(dt):
    """The bits of an integer or float ``dt``'s values: 4 for int4 and float4_e2m1fn,
    which NumPy (through ml_dtypes) stores one to a byte, so ``itemsize * 8`` overstates
    them (shifts, population counts and clz must use this)."""
    dt = np.dtype(dt)
    if dt in _SMALL_INT_SET:
        return int(iinfo(dt).bits)
    if dt in _SMALL_FLOAT_SET:
        return int(finfo(dt).bits)
    return dt.itemsize * 8


def computes_in_float32(dt):
    """float16, bfloat16 and the float8/6/4 types: ops that accumulate (sums, dots,
    norms) compute in float32 and round once."""
    return dt == float16 or dt in ML_FLOATS


def is_bool(dt):
    return np.dtype(dt) == bool_


#: JAX's dtype of the tangent of an integer or boolean value: a zero-width void, so a
#: float0 array carries a shape and no data (NumPy holds it; no tjit Array does).
float0 = np.dtype([("float0", np.void, 0)])


def is_float0(x):
    """True for a value (array) whose dtype is float0."""
    return getattr(x, "dtype", None) == float0


def float0_zeros(shape):
    """The float0 array of ``shape`` (a float0 array has no values: all are "zero")."""
    return np.zeros(tuple(int(d) for d in shape), float0)


def has_tangent_space(dt):
    """Whether values of dtype ``dt`` have non-trivial tangents (else theirs are float0)."""
    return is_inexact(dt)


# -- promotion lattice ------------------------------------------------------------------
# Nodes are dtypes or the weak categories 'i*', 'f*', 'c*' (Python int, float, complex).
# The narrow types sit just above the weak ones and below nothing (JAX's lattice): an
# int4 or a float8 meets a Python scalar and stays itself, and meets any other dtype
# (int8, float32, another float8) with a TypePromotionError.
_LATTICE = {
    bool_: ["i*"],
    "i*": [uint8, int8, *SMALL_INTS],
    **{t: [] for t in (*SMALL_INTS, *SMALL_FLOATS)},
    uint8: [int16, uint16], uint16: [int32, uint32], uint32: [int64, uint64], uint64: ["f*"],
    int8: [int16], int16: [int32], int32: [int64], int64: ["f*"],
    "f*": ["c*", float16, bfloat16, *SMALL_FLOATS],
    float16: [float32], bfloat16: [float32], float32: [float64, complex64], float64: [complex128],
    "c*": [complex64], complex64: [complex128], complex128: [],
}


# numpy_dtype_promotion="strict" (JAX's strict lattice): a Python scalar's weak type
# still becomes any type of its kind or above; strongly typed dtypes never promote.
_INTS = [*SMALL_INTS, uint8, uint16, uint32, uint64, int8, int16, int32, int64]
_FLOATS = [*SMALL_FLOATS, float16, bfloat16, float32, float64]
_STRICT_LATTICE = {
    "i*": ["f*", *_INTS], "f*": ["c*", *_FLOATS], "c*": [complex64, complex128],
    **{t: [] for t in (bool_, *_INTS, *_FLOATS, complex64, complex128)},
}


class TypePromotionError(ValueError):
    """No implicit promotion between these dtypes (``numpy_dtype_promotion="strict"``),
    as JAX's ``TypePromotionError``."""


@functools.lru_cache(maxsize=None)
def _upper_set(node, strict=False):
    out = {node}
    for nxt in (_STRICT_LATTICE if strict else _LATTICE)[node]:
        out |= _upper_set(nxt, strict)
    return frozenset(out)


@functools.lru_cache(maxsize=4096)
def _lub(nodes, strict=False):
    common = functools.reduce(frozenset.intersection,
                              (_upper_set(n, strict) for n in nodes))
    for cand in common:
        if _upper_set(cand, strict) == common:
            return cand
    names = tuple(str(n) for n in nodes)
    if strict:
        raise TypePromotionError(
            f"Input dtypes {names} have no available implicit dtype promotion path when "
            f"jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the "
            f"desired output type, or set jax_numpy_dtype_promotion=standard.")
    # only the narrow types lack a bound in the standard lattice (as in JAX)
    small = next(n for n in nodes if not isinstance(n, str) and is_small(n))
    what = ("8-bit floats" if small.name.startswith("float8") else
            "4-bit and 6-bit floats" if small in _SMALL_FLOAT_SET else
            "1-bit, 2-bit and 4-bit integers")
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path. To avoid "
        f"unintended promotion, {what} do not support implicit promotion. Cast the inputs "
        f"explicitly to the type you want, e.g. x.astype('float32').")


def _node(dtype, weak):
    dt = np.dtype(dtype)
    if weak:
        if is_bool(dt):
            return bool_
        if is_int(dt):
            return "i*"
        if is_float(dt):
            return "f*"
        return "c*"
    return dt


_WEAK_DEFAULT = {"i*": default_int, "f*": default_float, "c*": default_complex}


def result_type(*dtypes_and_weak):
    """Promote ``(dtype, weak_type)`` pairs; returns ``(dtype, weak_type)``.

    >>> result_type((float32, False), (int32, True))   # f32 array * python int
    (dtype('float32'), False)
    """
    if len(dtypes_and_weak) == 1:
        dt, weak = dtypes_and_weak[0]
        return canonicalize(dt), weak
    strict = config.numpy_dtype_promotion == "strict"
    if not strict and all(w for _, w in dtypes_and_weak):
        # all weak: the bound of the dtypes themselves, weak (JAX's lattice_result_type),
        # so a weak float32 array with a Python int stays float32 under x64
        dt = canonicalize(_lub(tuple(np.dtype(d) for d, _ in dtypes_and_weak)))
        return dt, not is_bool(dt)
    node = _lub(tuple(_node(d, w) for d, w in dtypes_and_weak), strict)
    if isinstance(node, str):
        return _WEAK_DEFAULT[node](), True
    return canonicalize(node), False


def dtype_of_python_scalar(x):
    if isinstance(x, (bool, np.bool_)):
        return bool_
    if isinstance(x, int):
        return default_int()
    if isinstance(x, float):
        return default_float()
    if isinstance(x, complex):
        return default_complex()
    raise TypeError(f"{type(x).__name__} is not a Python scalar")


def finfo(dtype):
    return ml_dtypes.finfo(dtype) if np.dtype(dtype) in ML_FLOATS else np.finfo(dtype)


def iinfo(dtype):
    return ml_dtypes.iinfo(dtype) if np.dtype(dtype) in _SMALL_INT_SET else np.iinfo(dtype)


@functools.cache
def int_range(dtype):
    """``(min, max)`` as Python ints of integer ``dtype``, None for any other dtype.
    Cached: is_int and iinfo cost ~1 us each, and every Python int operand of an eager
    op (a loop's varying int included) is range-checked with it."""
    if not is_int(dtype):
        return None
    info = iinfo(dtype)
    return int(info.min), int(info.max)
