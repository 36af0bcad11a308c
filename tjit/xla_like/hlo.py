"""The HLO-like graph: tensor ops with explicit broadcasts, row-major layouts and dtypes.

This module is data only (primitives import it to state their lowerings). An
:class:`Instr` is one op; an :class:`HloModule` is a topologically ordered list of
them with parameters and outputs. The op vocabulary is closed:

=================  ======================================================================
opcode             meaning (attrs)
=================  ======================================================================
parameter          program input (``index``)
constant           a NumPy array (``value``); rank-0 constants are inlined into kernels
iota               index along ``dimension``
size               rank 0, integer: the value of the size expression ``size`` (a sympy
                   expression of size symbols), which kernels read from their run-time
                   sizes (a symbolic dim used as a value)
<elementwise>      every op of ``kernel_ir.UNARY_OPS``/``BINARY_OPS``, ``select``
                   (pred, on_true, on_false), ``convert``, ``bitcast`` (same-width
                   reinterpretation of the bits) and ``fma`` (a * b + c rounded
                   once); operands have the result's
                   shape exactly (broadcasts are explicit)
broadcast          operand dim ``i`` -> result dim ``dims[i]`` (size equal, or 1 expanded)
transpose          result dim ``i`` = operand dim ``perm[i]``
rev                reverse the order of the elements along each of ``dims``
reshape            row-major reshape (same element order)
slice              ``start``, ``limit``, ``strides`` per dim
take               gather along one axis: (operand, idx) with integer ``idx`` of the
                   batch shape; result dim ``k`` is ``out_dims[k]``: ``("b", j)`` (idx
                   dim j), ``("o", d)`` (operand dim d, whole) or ``("s", j, d)`` (both:
                   a batch dim of a batched gather); the element is operand
                   at ``axis`` = idx clamped into range, or ``fill`` when out of range
                   and ``fill`` is not None (lax.gather's clip / fill modes)
reduce             fold ``axes`` with ``monoid`` (sum, prod, max, min, and, or)
dot                ``dimension_numbers`` ((lhs_contract, rhs_contract), (lhs_batch,
                   rhs_batch)); result dims: batch, lhs free, rhs free (lax.dot_general)
library            ``fn(xp, env, *arrays) -> list of arrays`` run by the runtime on its
                   array namespace ``xp`` (``name``; ``out_avals``: list of (shape,
                   dtype); ``primitive``/``params`` when it is one primitive's impl;
                   ``effect`` when it must run even if its results are unused, in
                   program order with the other effects: a host callback);
                   results read with ``get``
get                result ``index`` of a library or control op
control            structured control flow whose bodies are HloModules compiled as
                   sub-programs (``kind``: ``cond`` with ``bodies`` = the branches,
                   operand 0 the int32 index; ``while`` with ``bodies`` = (cond, body)
                   and ``cond_nconsts``/``body_nconsts``; ``scan`` with ``bodies`` =
                   (body,), ``length``, ``reverse``, ``num_consts``, ``num_carry``);
                   results read with ``get``, like a library op
=================  ======================================================================

Shapes may hold sympy dims (polymorphic programs); the library ``env`` maps size
symbols to ints at run time.
"""

import itertools

import numpy as np

from tjit.tracing import dtypes
from tjit.xla_like import kernel_ir

ELEMENTWISE = (frozenset(kernel_ir.UNARY_OPS) | frozenset(kernel_ir.BINARY_OPS)
               | frozenset(kernel_ir.OTHER_OPS))
#: Ops a fused kernel can compute (everything else is a buffer boundary).
FUSIBLE = ELEMENTWISE | {"broadcast", "transpose", "rev", "reshape", "slice", "reduce",
                         "iota", "size", "constant", "take"}
#: Dtypes the kernel backends implement; other dtypes go through library calls.
KERNEL_DTYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float32, np.float64))
#: The one-byte ml_dtypes types the LLVM backend computes in kernels (the CPU target's
#: kernel dtypes add them; ``lower/llvm/narrow.py`` loads, rounds and stores them).
NARROW_KERNEL_DTYPES = frozenset(dtypes.SMALL_FLOATS + dtypes.SMALL_INTS)
#: The primitives computed in kernels on those types: layout ops (a kernel that only
#: moves narrow values copies their bytes), and elementwise ops that "compute in float32
#: (or int8) and round once (or wrap) to the type", the eager path's rule, giving the
#: eager result on every value (pair) of every type (tests/lower/test_narrow_kernels.py).
#: Others stay library steps: reductions, gathers, shifts, bitcasts, and the functions
#: whose eager result differs somewhere: sign (ml_dtypes' sign of -0 is -0, kernels' +0),
#: rsqrt and logistic (eager rounds each NumPy step), log, log1p, asin, acos, acosh,
#: atanh and pow (the sign of their NaN, which float6/float4 write as a zero of the other
#: sign), round (float8_e8m0fnu).
NARROW_KERNEL_PRIMITIVES = frozenset((
    "broadcast_in_dim", "reshape", "transpose", "squeeze", "expand_dims", "rev", "slice",
    "concatenate", "pad",
    "convert_element_type", "add", "sub", "mul", "div", "rem", "max", "min", "neg", "abs",
    "sqrt", "eq", "ne", "lt", "le", "gt", "ge", "select_n", "and", "or", "xor", "not",
    "exp", "exp2", "expm1", "tanh", "sin", "cos", "tan", "atan", "atan2", "sinh", "cosh",
    "asinh", "erf", "erfc", "cbrt", "floor", "ceil", "is_finite"))

_ids = itertools.count()


class Instr:
    """One op of the graph. ``shape`` is a tuple of int/sympy dims."""
    __slots__ = ("opcode", "operands", "shape", "dtype", "attrs", "id", "origin")

    def __init__(self, opcode, operands, shape, dtype, **attrs):
        self.opcode = opcode
        self.operands = tuple(operands)
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.attrs = attrs
        self.id = next(_ids)
        self.origin = ()    # indices of the top-level jaxpr equations it computes (views)

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"%{self.id} = {self.opcode}"


class HloModule:
    """``instrs`` in topological order; ``params``/``outputs`` lists of Instrs."""

    def __init__(self, name, params, instrs, outputs):
        self.name = name
        self.params = list(params)
        self.instrs = list(instrs)
        self.outputs = list(outputs)

    def users(self):
        out = {i.id: [] for i in self.instrs}
        for i in self.instrs:
            for o in i.operands:
                out[o.id].append(i)
        return out

    def text(self):
        return module_text(self)

    def __str__(self):
        return module_text(self)


def _dims(shape):
    return "[" + ",".join(str(d).replace(" ", "") for d in shape) + "]"


def _attr_str(i):
    parts = []
    for k, v in i.attrs.items():
        if k in ("fn", "sub", "out_avals"):
            continue
        if k == "bodies":
            v = "[" + ", ".join(b.name for b in v) + "]"
        if k == "value":
            v = np.asarray(v)
            v = repr(v.item()) if v.ndim == 0 else f"<{v.dtype}{list(v.shape)}>"
        parts.append(f"{k}={v}")
    return ", ".join(parts)


def module_text(m):
    """One line per op: ``%7 = f32[b,16] exp(%6)``."""
    lines = [f"HloModule {m.name}"]
    for i in m.instrs:
        ops = ", ".join(f"%{o.id}" for o in i.operands)
        args = ", ".join(a for a in (ops, _attr_str(i)) if a)
        lines.append(f"  %{i.id} = {i.dtype.name}{_dims(i.shape)} {i.opcode}({args})")
    lines.append("  ROOT (" + ", ".join(f"%{o.id}" for o in m.outputs) + ")")
    return "\n".join(lines)


def has_effect(i):
    """Whether instruction ``i`` matters beyond its results, so that it must run even when
    nothing reads them, in program order with the others that do: a library call marked
    ``effect`` or without results, or a control op whose bodies hold one."""
    if i.opcode == "library":
        return bool(i.attrs.get("effect")) or not i.attrs.get("out_avals")
    if i.opcode == "control":
        return any(has_effect(j) for b in i.attrs["bodies"] for j in b.instrs)
    return False


def rebuildable(factory, *args):
    """``factory(*args)``: a library call's function that remembers how it was made
    (``fn.recipe``), so that a compiled program written to disk stores the factory (a
    module-level function, by name) and its arguments (data), and loading it calls the
    same factory again (``program_cache``). ``args`` must pickle: primitives, params,
    shapes, dtypes; a function without a recipe keeps its program out of the cache."""
    fn = factory(*args)
    fn.recipe = (factory, args)
    return fn


class Builder:
    """Creates instructions in order; lowering rules receive one as ``ctx``."""

    rebuildable = staticmethod(rebuildable)   # (for rules that do not import this module)

    def __init__(self):
        self.instrs = []

    def add(self, opcode, operands, shape, dtype, **attrs):
        i = Instr(opcode, operands, shape, dtype, **attrs)
        self.instrs.append(i)
        return i

    def constant(self, value, dtype=None):
        value = np.asarray(value, dtype=dtype)
        return self.add("constant", (), value.shape, value.dtype, value=value)

    def broadcast(self, x, shape, dims=None):
        """``x`` broadcast to ``shape``; ``dims`` defaults to trailing alignment."""
        shape = tuple(shape)
        if dims is None:
            dims = tuple(range(len(shape) - x.ndim, len(shape)))
        if tuple(x.shape) == shape and tuple(dims) == tuple(range(len(shape))):
            return x
        return self.add("broadcast", (x,), shape, x.dtype, dims=tuple(dims))

    def elementwise(self, op, operands, dtype=None):
        """An elementwise op; rank-0 operands are broadcast to the common shape."""
        shape = max((o.shape for o in operands), key=len)
        operands = [self.broadcast(o, shape) if o.shape != shape else o for o in operands]
        if dtype is None:
            dtype = np.dtype(bool) if op in kernel_ir.COMPARE_OPS or op == "is_finite" \
                else operands[-1].dtype
        return self.add(op, operands, shape, dtype)

    def clamp(self, x, lo, hi):
        """``min(max(x, lo), hi)``; ``lo``/``hi`` are Instrs or Python numbers (then
        constants of x's dtype)."""
        lo, hi = (b if isinstance(b, Instr) else self.constant(b, x.dtype) for b in (lo, hi))
        return self.elementwise("min", [self.elementwise("max", [x, lo]), hi])

    def convert(self, x, dtype):
        dtype = np.dtype(dtype)
        return x if x.dtype == dtype else self.add("convert", (x,), x.shape, dtype)

    def library(self, name, fn, operands, out_avals, primitive=None, params=None,
                effect=False):
        """A library call ``fn(xp, env, *arrays)``; returns the list of its results
        (``get`` ops). ``primitive``/``params``: the primitive it runs, if it is one;
        ``effect``: the call matters beyond its results (a host callback). Make ``fn``
        with :func:`rebuildable` so that programs holding the call can be cached on
        disk."""
        attrs = {"effect": True} if effect else {}
        call = self.add("library", operands, (), np.dtype(np.uint8), name=name, fn=fn,
                        out_avals=list(out_avals), primitive=primitive, params=params,
                        **attrs)
        return self._gets(call, out_avals)

    def control(self, kind, bodies, operands, out_avals, **params):
        """Control flow over sub-modules ``bodies`` (see the opcode table); returns the
        list of its results (``get`` ops)."""
        call = self.add("control", operands, (), np.dtype(np.uint8), kind=kind,
                        bodies=tuple(bodies), out_avals=list(out_avals), **params)
        return self._gets(call, out_avals)

    def _gets(self, call, out_avals):
        return [self.add("get", (call,), s, d, index=k) for k, (s, d) in enumerate(out_avals)]
