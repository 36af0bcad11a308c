"""The scatter of whole rows as compiled code: ``out[ids[u]] = combine(out[ids[u]], upd[u])``.

A scatter whose indices pick rows of the operand's leading axis and whose updates are
whole rows (``x.at[ids].add(v)``, ``segment_sum``, the gradient of an embedding lookup)
is one loop over the ids, in order, and an inner loop over the row:

    void NAME(const IDX *ids, const T *upd, T *out, int64 n_ids, int64 n_rows, int64 width)

Each output element receives its updates in the order of the ids, one IEEE operation
each and no fast-math flags, so the result has the bits of a Python loop (and of the
NumPy fold in ``primitives/indexing.py``); the inner loop over a row vectorizes (the
pointers are ``noalias``). Out-of-range ids are clamped into ``[0, n_rows)`` (``clip``)
or skip their row (``drop``: JAX's fill/drop modes for scatters); a uint64 id beyond
int64 stays out of range. One function per (combine, dtype, index dtype, mode),
compiled once per process (~20 ms of LLVM, or loaded from the runtime's disk cache)
and shared by every program.
"""

import ctypes
import functools

import numpy as np
from llvmlite import ir

from tjit.lower.llvm import codegen_ops as ops
from tjit.lower.llvm import target

__all__ = ["COMBINES", "function", "function_ir", "supported"]

I64 = ops.I64
PTR = ir.PointerType()

#: NumPy ufunc name of the scatter's combine (None: set) -> the kernel IR's binary op
COMBINES = {None: None, "add": "add", "subtract": "sub", "multiply": "mul",
            "minimum": "min", "maximum": "max"}
_INDEX_DTYPES = frozenset(np.dtype(d) for d in (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"))
_FUNCTYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)


def supported(combine, dtype, index_dtype):
    """Whether a row scatter with NumPy combine ``combine`` (None: set) of values of
    ``dtype`` at ids of ``index_dtype`` has a compiled form (bool only sets, adds
    (or) and multiplies (and): NumPy's bool arithmetic)."""
    dtype, index_dtype = np.dtype(dtype), np.dtype(index_dtype)
    if combine not in COMBINES or dtype not in ops.SUPPORTED or \
            index_dtype not in _INDEX_DTYPES:
        return False
    return dtype.kind != "b" or combine in (None, "add", "multiply")


def symbol(combine, dtype, index_dtype, mode):
    return (f"tjit_scatter_rows_{combine or 'set'}_{np.dtype(dtype).name}_"
            f"{np.dtype(index_dtype).name}_{mode}")


def function_ir(combine, dtype, index_dtype, mode):
    """LLVM IR text of the row scatter (see the module docs); ``mode`` is ``"clip"`` or
    ``"drop"``."""
    dtype, index_dtype = np.dtype(dtype), np.dtype(index_dtype)
    if mode not in ("clip", "drop") or not supported(combine, dtype, index_dtype):
        raise ValueError(f"scatter_rows: no compiled form for combine {combine!r}, dtype "
                         f"{dtype.name}, ids {index_dtype.name}, mode {mode!r}")
    name = symbol(combine, dtype, index_dtype, mode)
    module = ir.Module(name=name)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR] * 3 + [I64] * 3),
                     name=name)
    ids, upd, out, n_ids, n_rows, width = fn.args
    for p in (ids, upd, out):
        p.add_attribute("noalias")
    entry = fn.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    zero = ir.Constant(I64, 0)
    ty = ops.mem_type(dtype)

    loop = functools.partial(ops.counted_loop, b)

    def row(u):
        raw = ops.load(b, b.gep(ids, [u], inbounds=True, source_etype=ops.mem_type(
            index_dtype)), index_dtype)
        r = _as_int64(b, raw, index_dtype)
        if mode == "clip":
            last = b.sub(n_rows, ir.Constant(I64, 1))
            r = b.select(b.icmp_signed("<", r, zero), zero, r)
            r = b.select(b.icmp_signed(">", r, last), last, r)
            write(u, r)
            return
        # (unsigned compare: a negative id is a huge unsigned one, out of range too)
        inside = b.icmp_unsigned("<", r, n_rows)
        with b.if_then(inside):
            write(u, r)

    def write(u, r):
        dst_row = b.mul(r, width, flags=("nsw",))
        src_row = b.mul(u, width, flags=("nsw",))

        def element(j):
            dst = b.gep(out, [b.add(dst_row, j, flags=("nsw",))], inbounds=True,
                        source_etype=ty)
            src = b.gep(upd, [b.add(src_row, j, flags=("nsw",))], inbounds=True,
                        source_etype=ty)
            v = ops.load(b, src, dtype)
            op = COMBINES[combine]
            if op is not None:
                v = ops.emit_op(b, op, [ops.load(b, dst, dtype), v], [dtype, dtype], dtype)
            ops.store(b, v, dst, dtype)
        loop(zero, width, element, "j")

    loop(zero, n_ids, row, "u")
    b.ret_void()
    fn.attributes.add("nounwind")
    return str(module)


def _as_int64(b, v, dt):
    """An id as int64; a uint64 id beyond int64 becomes INT64_MAX (out of range, as
    ``indexing._window_starts`` keeps it), not a negative number."""
    if dt == np.uint64:
        big = ir.Constant(I64, 2**63 - 1)
        return b.select(b.icmp_unsigned(">", v, big), big, v)
    return ops.convert(b, v, dt, np.dtype(np.int64))


def function(combine, dtype, index_dtype, mode, load=target.compile_ir):
    """The compiled row scatter as a ctypes function ``(ids, upd, out, n_ids, n_rows,
    width)`` taking addresses and counts (see the module docs), compiled by
    ``load(ir_text, names) -> {name: address}`` (the runtime passes its disk cache's
    ``load_or_compile`` and keeps one per process: ``devices/cpu_scatter.py``)."""
    name = symbol(combine, dtype, index_dtype, mode)
    return _FUNCTYPE(load(function_ir(combine, dtype, index_dtype, mode), [name])[name])
