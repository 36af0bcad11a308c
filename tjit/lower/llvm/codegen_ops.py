"""Scalar operations of the kernel IR rendered as LLVM IR (llvmlite builder calls).

One function per concern: dtype -> LLVM type, constants, loads/stores (bool is ``i1`` in
registers and ``i8`` in memory), the elementwise ops of ``kernel_ir`` and the monoids
of reductions. Semantics are those of tjit's reference implementations, bit for bit,
as stated for every backend in ``tjit/xla_like/kernel_semantics.py``; in LLVM terms:

* integer ``div``/``rem`` never trap: ``x / 0`` is -1 (signed) or all ones
  (unsigned), ``x rem 0`` is ``x``, ``INT_MIN / -1`` is ``INT_MIN`` (LLVM's sdiv/srem
  would be undefined there, so the divisor is replaced by 1 first);
* shift amounts outside ``[0, bits)`` give 0 (or the sign fill for the arithmetic
  right shift) instead of LLVM's poison;
* float -> int conversion saturates and maps NaN to 0 (``llvm.fpto[su]i.sat``);
  float -> bool is ``x != 0`` (NaN is true);
* ``max``/``min`` are ``llvm.maximum``/``llvm.minimum`` (IEEE 754-2019): NaN
  propagates and -0.0 < +0.0, as in the reference impls and the reductions;
* ``sign`` is +-1, +0 for +-0, and the NaN itself for NaN;
* ``round`` is ``llvm.round`` (half away from zero), ``round_even`` is ``llvm.rint``;
* float comparisons are ordered except ``ne``, which is unordered.

No fast-math flags on elementwise code. Transcendentals go to ``mathlib.emit_math``;
float16 and complex dtypes are not rendered here (the compiler routes those to
library calls), so they raise ``NotImplementedError``. The one-byte ml_dtypes types
(float8/6/4, int4/2/1...) are: a narrow float is a ``float`` in registers and an op on
it computes in float and rounds once; a narrow int an ``i8`` that wraps (``narrow.py``).
"""

import numpy as np
from llvmlite import ir

from tjit.lower.llvm import narrow
from tjit.lower.llvm.fmod import emit_fmod
from tjit.xla_like.kernel_ir import TRANSCENDENTAL_OPS

I1, I8, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(32), ir.IntType(64)

#: ops computed by mathlib's inline polynomial implementations
MATH_OPS = TRANSCENDENTAL_OPS
SUPPORTED = frozenset(np.dtype(d) for d in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64")) | narrow.DTYPES
_F32, _I8, _U8 = np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.uint8)
#: ops whose float result is already a value of the narrow float type of the operands
#: (neg only where the type negates exactly: narrow.negates_exactly)
_NARROW_EXACT = frozenset(("neg", "abs", "max", "min", "select"))


def check_dtype(dt, what):
    """Raise NotImplementedError unless LLVM codegen renders dtype ``dt`` (for ``what``)."""
    dt = np.dtype(dt)
    if dt not in SUPPORTED:
        raise NotImplementedError(
            f"LLVM codegen: {what} on dtype {dt.name} is not supported (supported: bool, "
            "int8-64, uint8-64, float32, float64, the float8/6/4s, "
            "int4/2/1, uint4/2/1); the compiler must route float16/complex kernels to "
            "library calls instead of the LLVM backend")
    return dt


def wide(dt):
    """The dtype a value of ``dt`` computes in: float32 for a narrow float, int8/uint8
    for a narrow int (their register forms), ``dt`` itself otherwise."""
    dt = np.dtype(dt)
    if dt not in narrow.DTYPES:
        return dt
    if dt in narrow.FLOATS:
        return _F32
    return _I8 if narrow.is_signed_int(dt) else _U8


def kind(dt):
    """'f' float, 'i' signed int, 'u' unsigned int, 'b' bool."""
    return wide(dt).kind


def reg_type(dt):
    """LLVM type of a value of dtype ``dt`` in registers (bool is i1)."""
    dt = wide(dt)
    if dt.kind == "b":
        return I1
    if dt.kind == "f":
        return ir.FloatType() if dt.itemsize == 4 else ir.DoubleType()
    return ir.IntType(8 * dt.itemsize)


def mem_type(dt):
    """LLVM type of an element of dtype ``dt`` in memory (bool and narrow types: i8)."""
    dt = np.dtype(dt)
    return I8 if dt.kind == "b" or dt in narrow.DTYPES else reg_type(dt)


def const(dt, value):
    """An LLVM constant of dtype ``dt`` holding the Python/NumPy scalar ``value``."""
    dt = np.dtype(dt)
    if dt in narrow.DTYPES:   # the value the type holds (ml_dtypes rounds or wraps it)
        held = np.asarray(value).astype(dt)
        return const(wide(dt), held.astype(np.float32 if dt in narrow.FLOATS else np.int32))
    if dt.kind == "b":
        return ir.Constant(I1, int(bool(value)))
    if dt.kind == "f":
        return ir.Constant(reg_type(dt), float(dt.type(value)))
    bits = 8 * dt.itemsize
    v = int(value) & ((1 << bits) - 1)       # two's complement (uint64 max -> -1)
    if v >= 1 << (bits - 1):
        v -= 1 << bits
    return ir.Constant(ir.IntType(bits), v)


def load(b, ptr, dt):
    """Load one element of dtype ``dt`` from ``ptr`` (bool: i8 != 0)."""
    dt = np.dtype(dt)
    v = b.load(ptr, typ=mem_type(dt), align=dt.itemsize)
    if dt in narrow.FLOATS:
        return narrow.decode(b, v, dt)
    if dt in narrow.INTS:
        return narrow.wrap_int(b, v, dt)
    return b.icmp_unsigned("!=", v, ir.Constant(I8, 0)) if dt.kind == "b" else v


def store(b, value, ptr, dt):
    """Store ``value`` (register form of ``dt``) to ``ptr`` (bool: zext to i8)."""
    dt = np.dtype(dt)
    if dt in narrow.FLOATS:
        value = narrow.encode(b, value, dt)
    elif dt in narrow.INTS:
        value = narrow.store_int(b, value, dt)
    elif dt.kind == "b":
        value = b.zext(value, I8)
    b.store(value, ptr, align=dt.itemsize)


def counted_loop(b, lo, hi, body, tag):
    """``for i in range(lo, hi): body(i)`` with i64 bounds, at ``b``'s position (no
    iteration when ``lo >= hi``); ``b`` is left after the loop."""
    one = ir.Constant(ir.IntType(64), 1)
    pre = b.block
    head = b.function.append_basic_block(f"{tag}.loop")
    done = b.function.append_basic_block(f"{tag}.end")
    b.cbranch(b.icmp_signed("<", lo, hi), head, done)
    b.position_at_end(head)
    i = b.phi(ir.IntType(64), name=tag)
    i.add_incoming(lo, pre)
    body(i)
    nxt = b.add(i, one, flags=("nuw", "nsw"))
    i.add_incoming(nxt, b.block)
    b.cbranch(b.icmp_signed("<", nxt, hi), head, done)
    b.position_at_end(done)


def abi_values(b, args, sizes, n_args, n_sizes):
    """The first ``n_args`` pointers of ``args`` and ``n_sizes`` int64s of ``sizes``, the
    parameters of a hand-written function of the kernel ABI (``devices/threads.py``)."""
    i64, ptr = ir.IntType(64), ir.PointerType()

    def at(base, i, ty):
        return b.load(b.gep(base, [ir.Constant(i64, i)], inbounds=True, source_etype=ty),
                      typ=ty)
    return ([at(args, i, ptr) for i in range(n_args)],
            [at(sizes, i, i64) for i in range(n_sizes)])


def intrinsic(b, name, ret, args):
    """Declare (once per module) and call an intrinsic with the given types."""
    mod = b.module
    fn = mod.globals.get(name)
    if fn is None:
        fn = ir.Function(mod, ir.FunctionType(ret, [a.type for a in args]), name=name)
    return b.call(fn, args)


def _fsuffix(ty):
    return "f32" if isinstance(ty, ir.FloatType) else "f64"


def fcall(b, base, *args):
    """Call the float intrinsic ``llvm.<base>.f32/f64`` on ``args``."""
    ty = args[0].type
    return intrinsic(b, f"llvm.{base}.{_fsuffix(ty)}", ty, list(args))


# ----------------------------------------------------------------------------------------
# Conversions.

def convert(b, x, src, dst):
    """``convert_element_type`` from dtype ``src`` to ``dst`` (tjit's semantics)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return x
    if src in narrow.DTYPES or dst in narrow.DTYPES:
        return _convert_narrow(b, x, src, dst)
    sk, dk = src.kind, dst.kind
    ty = reg_type(dst)
    if dk == "b":
        if sk == "f":
            return b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0))  # NaN -> True
        return b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
    if sk == "b":
        return b.uitofp(x, ty) if dk == "f" else b.zext(x, ty)
    if sk == "f" and dk == "f":
        return b.fpext(x, ty) if dst.itemsize > src.itemsize else b.fptrunc(x, ty)
    if sk == "f":  # saturating, NaN -> 0, like tjit's clip-then-cast
        name = f"llvm.fpto{'s' if dk == 'i' else 'u'}i.sat.i{ty.width}.{_fsuffix(x.type)}"
        return intrinsic(b, name, ty, [x])
    if dk == "f":
        return b.sitofp(x, ty) if sk == "i" else b.uitofp(x, ty)
    if ty.width < x.type.width:
        return b.trunc(x, ty)
    if ty.width > x.type.width:
        return b.sext(x, ty) if sk == "i" else b.zext(x, ty)
    return x  # same width, other signedness: same bits


def _convert_narrow(b, x, src, dst):
    """A conversion from or to a narrow type, as the eager path converts: from a narrow
    type through its register form (exact); to a narrow float by rounding the float32
    (ints, bools, float32) or, for the float8s, the float64 value once; to a narrow int
    by wrapping an integer (ml_dtypes keeps the low bits) or saturating a float (the
    eager path clips to iinfo, NaN -> 0)."""
    if src in narrow.DTYPES:
        src = wide(src)
        if src == dst:
            return x
    if dst in narrow.FLOATS:
        if src.kind == "f" and src.itemsize == 8:
            return narrow.from_double(b, x, dst)
        return narrow.round_float(b, convert(b, x, src, _F32), dst)
    if dst in narrow.INTS:
        if src.kind == "f":
            return narrow.clamp_int(b, convert(b, x, src, np.dtype(np.int32)), dst)
        return narrow.wrap_int(b, convert(b, x, src, wide(dst)), dst)
    return convert(b, x, src, dst)


# ----------------------------------------------------------------------------------------
# Elementwise ops.

_FCMP = {"eq": "==", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_ICMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def compare(b, op, x, y, dt):
    """Comparison ``op`` of two values of dtype ``dt`` -> i1."""
    k = kind(dt)
    if k == "f":
        if op == "ne":
            return b.fcmp_unordered("!=", x, y)
        return b.fcmp_ordered(_FCMP[op], x, y)
    if k == "i":
        return b.icmp_signed(_ICMP[op], x, y)
    return b.icmp_unsigned(_ICMP[op], x, y)


def _fmaxmin(b, x, y, op):
    # Order-independent at ties of signed zeros, so elementwise max agrees with the
    # reductions (which visit elements in any order).
    return fcall(b, "maximum" if op == "max" else "minimum", x, y)


def _imaxmin(b, x, y, op, dt):
    pred = ">" if op == "max" else "<"
    cmp = b.icmp_signed if kind(dt) == "i" else b.icmp_unsigned
    return b.select(cmp(pred, x, y), x, y)


def _fsign(b, x):
    one = ir.Constant(x.type, 1.0)
    zero = ir.Constant(x.type, 0.0)
    r = b.select(b.fcmp_ordered("<", x, zero), ir.Constant(x.type, -1.0), zero)
    r = b.select(b.fcmp_ordered(">", x, zero), one, r)
    return b.select(b.fcmp_unordered("uno", x, x), x, r)


def _isign(b, x, dt):
    zero = ir.Constant(x.type, 0)
    if kind(dt) == "u":
        return b.zext(b.icmp_unsigned("!=", x, zero), x.type)
    r = b.select(b.icmp_signed("<", x, zero), ir.Constant(x.type, -1), zero)
    return b.select(b.icmp_signed(">", x, zero), ir.Constant(x.type, 1), r)


def _idiv_rem(b, x, y, dt, op):
    ty = x.type
    zero, one = ir.Constant(ty, 0), ir.Constant(ty, 1)
    by_zero = b.icmp_unsigned("==", y, zero)
    if kind(dt) == "i":
        int_min = ir.Constant(ty, -(1 << (ty.width - 1)))
        overflow = b.and_(b.icmp_unsigned("==", x, int_min),
                          b.icmp_unsigned("==", y, ir.Constant(ty, -1)))
        safe = b.select(b.or_(by_zero, overflow), one, y)
        # INT_MIN / 1 = INT_MIN and INT_MIN rem 1 = 0: XLA's answers for INT_MIN, -1
        r = b.sdiv(x, safe) if op == "div" else b.srem(x, safe)
    else:
        safe = b.select(by_zero, one, y)
        r = b.udiv(x, safe) if op == "div" else b.urem(x, safe)
    return b.select(by_zero, ir.Constant(ty, -1) if op == "div" else x, r)


def _shift(b, x, y, op):
    ty = x.type
    bits = ir.Constant(ty, ty.width)
    oob = b.icmp_unsigned(">=", y, bits)  # negative amounts are huge unsigned
    zero = ir.Constant(ty, 0)
    if op == "shift_right_arithmetic":
        return b.ashr(x, b.select(oob, ir.Constant(ty, ty.width - 1), y))
    safe = b.select(oob, zero, y)
    r = b.shl(x, safe) if op == "shift_left" else b.lshr(x, safe)
    return b.select(oob, zero, r)


def _float_unary(b, op, x):
    ty = x.type
    if op == "neg":
        return b.fneg(x)
    if op == "abs":
        return fcall(b, "fabs", x)
    if op == "sign":
        return _fsign(b, x)
    if op in ("floor", "ceil", "round", "sqrt"):
        return fcall(b, op, x)
    if op == "round_even":
        return fcall(b, "rint", x)
    if op == "rsqrt":
        return b.fdiv(ir.Constant(ty, 1.0), fcall(b, "sqrt", x))
    if op == "is_finite":
        return b.fcmp_ordered("<", fcall(b, "fabs", x), ir.Constant(ty, float("inf")))
    return None


def _nextafter(b, x, y):
    """C's nextafter (exact, on the bits): one step of x's bit pattern towards y; y when
    x == y (so nextafter(0, -0) = -0); the signed smallest denormal from +-0; x + y
    (NaN) when either is NaN."""
    ity = ir.IntType(64 if isinstance(x.type, ir.DoubleType) else 32)
    zero = ir.Constant(x.type, 0.0)
    bits = b.bitcast(x, ity)
    # magnitude grows when y lies beyond x, away from zero: +1 on the bits, else -1
    away = b.icmp_unsigned("==", b.fcmp_ordered(">", y, x), b.fcmp_ordered(">", x, zero))
    step = b.add(bits, b.select(away, ir.Constant(ity, 1), ir.Constant(ity, -1)))
    sign = b.and_(b.bitcast(y, ity), ir.Constant(ity, 1 << (ity.width - 1)))
    tiny = b.or_(sign, ir.Constant(ity, 1))
    r = b.bitcast(b.select(b.fcmp_ordered("==", x, zero), tiny, step), x.type)
    r = b.select(b.fcmp_ordered("==", x, y), y, r)
    return b.select(b.fcmp_unordered("uno", x, y), b.fadd(x, y), r)


def _float_binary(b, op, x, y):
    table = {"add": b.fadd, "sub": b.fsub, "mul": b.fmul, "div": b.fdiv, "rem": b.frem}
    if op == "rem" and isinstance(x.type, (ir.FloatType, ir.DoubleType)):
        return emit_fmod(b, x, y)  # exact and vectorizable; frem is a libm call
    if op in table:
        return table[op](x, y)
    if op in ("max", "min"):
        return _fmaxmin(b, x, y, op)
    if op == "nextafter":
        return _nextafter(b, x, y)
    return None


def _int_unary(b, op, x, dt):
    ty = x.type
    zero = ir.Constant(ty, 0)
    if op == "neg":
        return b.sub(zero, x)
    if op == "abs":  # INT_MIN stays INT_MIN (wraps, as NumPy)
        return x if kind(dt) == "u" else b.select(b.icmp_signed("<", x, zero),
                                                  b.sub(zero, x), x)
    if op == "sign":
        return _isign(b, x, dt)
    if op == "not":
        return b.xor(x, ir.Constant(ty, -1))
    if op == "population_count":
        return intrinsic(b, f"llvm.ctpop.i{ty.width}", ty, [x])
    return None


def _int_binary(b, op, x, y, dt):
    table = {"add": b.add, "sub": b.sub, "mul": b.mul, "and": b.and_, "or": b.or_,
             "xor": b.xor}
    if op in table:
        return table[op](x, y)
    if op in ("div", "rem"):
        return _idiv_rem(b, x, y, dt, op)
    if op in ("max", "min"):
        return _imaxmin(b, x, y, op, dt)
    if op.startswith("shift_"):
        return _shift(b, x, y, op)
    return None


def _bool_op(b, op, args):
    # Logical ops; add/mul/max/min on bool are or/and/or/and (NumPy's bool arithmetic).
    if op == "not":
        return b.xor(args[0], ir.Constant(I1, 1))
    table = {"and": b.and_, "mul": b.and_, "min": b.and_, "or": b.or_, "add": b.or_,
             "max": b.or_, "xor": b.xor}
    if op in table and len(args) == 2:
        return table[op](*args)
    return None


def emit_op(b, op, args, arg_dtypes, out_dtype, math=None):
    """Render elementwise op ``op`` of ``kernel_ir``.

    Args:
      b: the llvmlite IRBuilder, positioned where the op goes.
      op: op name (``kernel_ir.UNARY_OPS``, ``BINARY_OPS`` or ``OTHER_OPS``).
      args: LLVM operand values; arg_dtypes: their NumPy dtypes.
      out_dtype: the node's dtype.
      math: ``f(builder, name, args, ty)`` for transcendentals (``mathlib.emit_math``).
    Returns:
      The result value (register form of ``out_dtype``).
    Raises:
      NotImplementedError: float16/complex dtypes; TypeError: an op outside its kind.
    """
    out_dtype = check_dtype(out_dtype, f"op {op!r}")
    dts = [check_dtype(d, f"op {op!r}") for d in arg_dtypes]
    if op == "convert":
        return convert(b, args[0], dts[0], out_dtype)
    if out_dtype in narrow.DTYPES or any(d in narrow.DTYPES for d in dts):
        return _narrow_op(b, op, args, dts, out_dtype, math)
    if op == "bitcast":
        if dts[0].itemsize != out_dtype.itemsize or "b" in (dts[0].kind, out_dtype.kind):
            raise TypeError(f"LLVM codegen: bitcast needs non-bool dtypes of one width, got "
                            f"{dts[0].name} -> {out_dtype.name}")
        return b.bitcast(args[0], reg_type(out_dtype))
    if op == "select":
        if dts[0].kind != "b" or dts[1] != dts[2]:
            raise TypeError(f"LLVM codegen: select needs a bool predicate and equal case "
                            f"dtypes, got {[d.name for d in dts]}")
        return b.select(*args)
    if len(set(dts)) != 1:
        raise TypeError(f"LLVM codegen: op {op!r} needs operands of one dtype, got "
                        f"{[d.name for d in dts]}; insert a convert")
    dt = dts[0]
    if op in ("eq", "ne", "lt", "le", "gt", "ge"):
        return compare(b, op, args[0], args[1], dt)
    if op == "fma":
        return _fma(b, args, dt)
    k = dt.kind
    r = None
    if k == "f":
        if op in MATH_OPS:
            if math is None:
                raise NotImplementedError(f"LLVM codegen: {op} needs mathlib.emit_math")
            return math(b, op, list(args), reg_type(dt))
        r = _float_unary(b, op, *args) if len(args) == 1 else _float_binary(b, op, *args)
    elif k == "b":
        r = _bool_op(b, op, args)
    else:
        r = (_int_unary(b, op, args[0], dt) if len(args) == 1
             else _int_binary(b, op, args[0], args[1], dt))
    if r is None:
        raise TypeError(f"LLVM codegen: op {op!r} is not defined for dtype {dt.name}")
    return r


def _fma(b, args, dt):
    """``a * b + c`` rounded once: ``llvm.fma`` (one instruction where the target has FMA,
    as the host machine's features say; else libm's exact ``fma``)."""
    if dt.itemsize not in (4, 8) or dt.kind != "f":
        raise TypeError(f"LLVM codegen: fma needs float32 or float64 operands, got {dt.name}")
    ty = reg_type(dt)
    fn = b.module.declare_intrinsic("llvm.fma", [ty], ir.FunctionType(ty, [ty] * 3))
    return b.call(fn, list(args))


def _narrow_exact(op, dt):
    """Whether ``op``'s float32 result on values of narrow float ``dt`` needs no rounding
    (a register must hold a value of the type: the next op and converts read it as is)."""
    return op in _NARROW_EXACT and (op != "neg" or narrow.negates_exactly(dt))


def _narrow_op(b, op, args, dts, out_dtype, math):
    """``op`` on narrow operands: computed on their register forms (float32, int8), the
    result rounded once to the narrow float type or wrapped to the narrow int type."""
    if op in ("bitcast", "fma"):     # (fma in float32 then rounded would round twice)
        raise NotImplementedError(f"LLVM codegen: {op} of {[d.name for d in dts]} to "
                                  f"{out_dtype.name}; route it to a library call")
    r = emit_op(b, op, args, [wide(d) for d in dts], wide(out_dtype), math)
    if out_dtype in narrow.FLOATS and not _narrow_exact(op, out_dtype):
        return narrow.round_float(b, r, out_dtype)
    if out_dtype in narrow.INTS:
        return narrow.wrap_int(b, r, out_dtype)
    return r


# ----------------------------------------------------------------------------------------
# Reductions.

def identity(monoid, dt):
    """The monoid's identity as an LLVM constant (``kernel_ir.identity``'s values)."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return const(dt, monoid in ("prod", "and", "min"))
    if monoid in ("sum", "or"):
        return const(dt, 0)
    if monoid in ("prod", "and"):
        return const(dt, 1) if monoid == "prod" or dt.kind == "f" else const(dt, -1)
    if dt.kind == "f":
        return const(dt, -np.inf if monoid == "max" else np.inf)
    info = np.iinfo(dt)
    return const(dt, info.min if monoid == "max" else info.max)


_REASSOC = ("reassoc", "contract")


def combine(b, monoid, acc, x, dt, reassoc):
    """``acc (monoid) x``. ``reassoc``: put ``reassoc contract`` on a float sum/product
    (only for register accumulators: lets the vectorizer keep vector partial sums).
    Float max/min use ``llvm.maximum``/``llvm.minimum``: NaN propagates and the loop
    vectorizer still recognises the reduction."""
    dt = np.dtype(dt)
    k = dt.kind
    flags = _REASSOC if reassoc else ()
    if k == "b":
        return (b.or_ if monoid in ("sum", "max", "or") else b.and_)(acc, x)
    if monoid == "sum":
        return b.fadd(acc, x, flags=flags) if k == "f" else b.add(acc, x)
    if monoid == "prod":
        return b.fmul(acc, x, flags=flags) if k == "f" else b.mul(acc, x)
    if monoid in ("max", "min"):
        if k == "f":
            return fcall(b, "maximum" if monoid == "max" else "minimum", acc, x)
        return _imaxmin(b, acc, x, monoid, dt)
    if k == "f":
        raise TypeError(f"LLVM codegen: reduction {monoid!r} is not defined for {dt.name}")
    return (b.and_ if monoid == "and" else b.or_)(acc, x)
