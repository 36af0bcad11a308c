"""Constructors shared by primitive definitions (JAX's ``standard_unop`` style): one line
gives an elementwise primitive its shape/dtype rule and reference implementation; its
file then adds whatever else is specific to it.

Every primitive created here is recorded in :data:`REGISTRY` so tests can check that
each one has all of its rules or says explicitly why not.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import Primitive, never_weak
from tjit.tracing.errors import BroadcastShapeError, ShapeError
from tjit.tracing.shapes import definitely_equal, shape_str

REGISTRY = {}


def new_primitive(name, multiple_results=False):
    if name in REGISTRY:
        raise ValueError(f"primitive {name!r} defined twice")
    p = Primitive(name, multiple_results)
    REGISTRY[name] = p
    return p


# dtype classes accepted by elementwise ops
FLOAT = "float"        # floating or complex
REAL_FLOAT = "real"    # floating only
NUMBER = "number"      # int, uint, float, complex (not bool)
REAL_NUMBER = "real_number"  # int, uint, real float (rem: complex has no remainder)
INT = "int"            # signed or unsigned integer
INT_OR_BOOL = "int_or_bool"
ANY = "any"


def _accepts(kind, dt):
    if kind == ANY:
        return True
    if kind == FLOAT:
        return dtypes.is_inexact(dt)
    if kind == REAL_FLOAT:
        return dtypes.is_float(dt)
    if kind == NUMBER:
        return not dtypes.is_bool(dt)
    if kind == REAL_NUMBER:
        return dtypes.is_int(dt) or dtypes.is_float(dt)
    if kind == INT:
        return dtypes.is_int(dt)
    if kind == INT_OR_BOOL:
        return dtypes.is_int(dt) or dtypes.is_bool(dt)
    raise ValueError(kind)


_KIND_WORDS = {FLOAT: "a floating-point or complex", REAL_FLOAT: "a real floating-point",
               NUMBER: "a numeric (non-bool)", REAL_NUMBER: "an integer or real floating-point",
               INT: "an integer",
               INT_OR_BOOL: "an integer or bool", ANY: "any"}


def check_dtype_kind(name, kind, aval, which="operand"):
    """``aval`` (or a value with one: public wrappers such as lax.linalg's check the
    Array or tracer they were given) has a dtype of ``kind``, else a TypeError."""
    aval = getattr(aval, "aval", aval)
    if not _accepts(kind, aval.dtype):
        raise TypeError(f"{name}: {which} must have {_KIND_WORDS[kind]} dtype, got "
                        f"{aval.dtype} ({aval.str_short()}); convert with "
                        f"x.astype(...) / lax.convert_element_type first")


def same_shapes(name, avals):
    """The common shape of elementwise operands: equal shapes, where rank-0 operands
    (scalars) broadcast against the rest, as in jax.lax."""
    shaped = [a for a in avals if a.shape != ()]
    if not shaped:
        return ()
    s0 = shaped[0].shape
    for a in shaped[1:]:
        if a.shape is s0 or a.shape == s0:
            continue
        try:
            ok = len(a.shape) == len(s0) and all(definitely_equal(x, y)
                                                  for x, y in zip(a.shape, s0))
        except ShapeError as e:  # undecidable symbolic dims: say which op and shapes
            raise type(e)(f"{name}: operand shapes "
                          f"{', '.join(shape_str(x.shape) for x in avals)} may differ ({e}); "
                          f"use the same size symbols for dims that must be equal") from None
        if not ok:  # a TypeError too, as JAX's "add got incompatible shapes" (errors.py)
            raise BroadcastShapeError(
                f"{name}: operand shapes must be equal, got "
                f"{', '.join(shape_str(x.shape) for x in avals)}; use tjit.numpy (which "
                f"broadcasts) or lax.broadcast_in_dim")
    return s0


def same_dtypes(name, avals):
    d0 = avals[0].dtype
    for a in avals[1:]:
        if a.dtype != d0:
            raise TypeError(f"{name}: operand dtypes must be equal, got "
                            f"{', '.join(str(x.dtype) for x in avals)}; convert with "
                            f"lax.convert_element_type or use tjit.numpy (which promotes)")
    return d0


#: Operands with at least this many elements of a one-byte ml_dtypes type (float8s,
#: int4...) are computed by table lookup (:func:`by_byte_table`).
TABLE_MIN_SIZE = 4096
_TABLES = {}    # the one cache of byte tables, keyed by (impl or its key, dtype)


def by_byte_table(impl, x, y=None, *, key=None):
    """``impl(np, x[, y])`` for one-byte ml_dtypes operands as a lookup in the table of
    ``impl`` on every byte pattern (256 entries, 65536 for two operands): the same values
    by construction, without ml_dtypes' element-by-element loops (about 45 ns an
    element for a float8 add, against a few for the lookup). ``key`` names ``impl`` in
    the cache where ``impl`` is made per call (a conversion's, per target dtype)."""
    key = (impl if key is None else key, x.dtype)
    table = _TABLES.get(key)
    if table is None:
        every = np.arange(256, dtype=np.uint8)
        if y is None:
            table = impl(np, every.view(x.dtype))
        else:
            table = impl(np, np.repeat(every, 256).view(x.dtype),
                         np.tile(every, 256).view(x.dtype))
        table = _TABLES[key] = np.asarray(table)
    if y is None:
        return table[x.view(np.uint8)]
    index = x.view(np.uint8).astype(np.uint16) << 8
    index |= y.view(np.uint8)
    return table[index]


def declared_dtype_impl(impl, result_dtype=None):
    """``impl`` whose result on an ml_dtypes operand (NumPy kind "V": bfloat16, float8s,
    int4...) has the dtype the abstract rule declares: ml_dtypes registers few ufuncs
    for int4/int2 (negative, invert, abs return int8). Other dtypes pass straight through."""
    def run(xp, x, *rest, **params):
        dt = getattr(x, "dtype", None)
        if (dt is not None and dtypes.is_one_byte(dt) and xp is np
                and not params and x.size >= TABLE_MIN_SIZE and len(rest) <= 1
                and all(getattr(r, "dtype", None) == dt and r.shape == x.shape
                        for r in rest)):
            out = by_byte_table(impl, np.asarray(x), *(np.asarray(r) for r in rest))
        else:
            out = impl(xp, x, *rest, **params)
        if dt is not None and dt.kind == "V":
            want = dt if result_dtype is None else result_dtype(dt)
            if out.dtype != want:
                out = out.astype(want)
        return out
    return run


def unop(name, impl, kind=NUMBER, result_dtype=None):
    """Elementwise one-input primitive. ``impl(xp, x)``; ``result_dtype(dtype)``
    maps input to output dtype (default: same)."""
    p = new_primitive(name)

    def abstract_eval(x, **params):
        check_dtype_kind(name, kind, x)
        dt = x.dtype if result_dtype is None else result_dtype(x.dtype)
        return ShapedArray(x.shape, dt)

    p.def_abstract_eval(abstract_eval)
    p.def_impl(declared_dtype_impl(impl, result_dtype))
    if result_dtype is not None:
        p.def_weak_type(never_weak)
    return p


def binop(name, impl, kind=NUMBER, result_dtype=None):
    """Elementwise two-input primitive over equal shapes and dtypes."""
    p = new_primitive(name)

    def abstract_eval(x, y, **params):
        check_dtype_kind(name, kind, x, "lhs")
        check_dtype_kind(name, kind, y, "rhs")
        dt = same_dtypes(name, (x, y))
        shape = same_shapes(name, (x, y))
        return ShapedArray(shape, dt if result_dtype is None else result_dtype(dt))

    p.def_abstract_eval(abstract_eval)
    p.def_impl(declared_dtype_impl(impl, result_dtype))
    if result_dtype is not None:
        p.def_weak_type(never_weak)
    return p


def as_dtype_out(xp, out, dtype):
    """Cast an impl's result to the exact dtype the abstract rule promises."""
    out = xp.asarray(out)
    return out if out.dtype == dtype else out.astype(dtype)
