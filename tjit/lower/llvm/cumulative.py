"""Cumulative sums, products, maxima and minima along one axis as compiled code.

The function has the kernel ABI of ``devices/threads.py``,

    void NAME(void **args, int64 *sizes, int64 start, int64 end)

with ``args = (x, out)``, both viewed as ``(outer, n, inner)`` (the scanned axis in the
middle), and ``sizes = (n, inner, blocks, reverse)``. Unit ``u`` of ``[start, end)`` is
outer index ``u // blocks`` and the ``u % blocks``-th run of ``COLUMNS`` inner columns,
so the runtime splits rows (a scan along the last axis: ``inner`` = 1) or columns (a
scan along a leading axis) across threads. Along the axis each element is combined
with the result before it, ``out[i] = out[i - 1] (op) x[i]`` (from the end when
``reverse``), one IEEE operation and no fast-math flags: the order and bits of NumPy's
``ufunc.accumulate``, which the library impl uses; the loop over a run of columns
vectorizes. Max/min are ``llvm.maximum``/``minimum`` (NaN propagates, -0.0 below +0.0:
``ieee_minmax.accumulate``). Two functions per (op, dtype), one for scans along the last
axis (``inner`` = 1: the running value stays in a register) and one for the others
(``FORMS``), each compiled once per process or loaded from the runtime's disk cache.
"""

import functools

import numpy as np
from llvmlite import ir

from tjit.lower.llvm import codegen_ops as ops
from tjit.lower.llvm import target

__all__ = ["COLUMNS", "FORMS", "OPS", "function", "function_ir", "supported"]

I64 = ops.I64
PTR = ir.PointerType()
#: the kernel IR op of each cumulative primitive's combine
OPS = {"cumsum": "add", "cumprod": "mul", "cummax": "max", "cummin": "min"}
#: Inner columns one unit of work scans (a scan along a leading axis is split in these).
COLUMNS = 512
#: The two functions per (op, dtype) and their LLVM pipelines (``target.PROFILES``): a
#: row scan is a register chain that the loop vectorizer cannot help (LLVM 90 -> 22 ms),
#: a column scan is a vector loop over the columns (0.7 -> 0.26 ms on (1024, 1024)).
FORMS = {"rows": "explicit", "columns": "vector"}

def supported(op, dtype):
    """Whether the cumulative ``op`` (a kernel IR op: add, mul, max, min) of ``dtype``
    values has a compiled form (bools only for max/min)."""
    dtype = np.dtype(dtype)
    if op not in OPS.values() or dtype not in ops.SUPPORTED:
        return False
    return dtype.kind != "b" or op in ("max", "min")


def symbol(op, dtype, form):
    return f"tjit_cumulative_{op}_{np.dtype(dtype).name}_{form}"


def function_ir(op, dtype, form):
    """LLVM IR text of the cumulative ``op`` over ``dtype`` values (see the module docs);
    ``form`` ``"rows"`` scans the last axis (``inner`` = 1), ``"columns"`` a leading one."""
    dt = np.dtype(dtype)
    if not supported(op, dt) or form not in FORMS:
        raise ValueError(f"cumulative: no compiled form for op {op!r} on dtype {dt.name} "
                         f"({form})")
    name = symbol(op, dt, form)
    module = ir.Module(name=name)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I64]), name=name)
    args, sizes, start, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    ety = ops.mem_type(dt)
    one, zero = ir.Constant(I64, 1), ir.Constant(I64, 0)
    (x, out), (n, inner, blocks, reverse) = ops.abi_values(b, args, sizes, 2, 4)
    reverse = b.icmp_signed("!=", reverse, zero)

    loop = functools.partial(ops.counted_loop, b)

    def elem(ptr, at):
        return b.gep(ptr, [at], inbounds=True, source_etype=ety)

    step_dir = b.select(reverse, ir.Constant(I64, -1), one)     # along the axis

    def combine(before, v):
        return ops.emit_op(b, op, [before, v], [dt, dt], dt)

    def row_scan(r):
        """A scan along the last axis (``inner`` = 1): the running value in a register,
        the first element peeled off (copied)."""
        first = b.add(b.mul(r, n, flags=("nsw",)), b.select(reverse, b.sub(n, one), zero))
        v0 = ops.load(b, elem(x, first), dt)
        ops.store(b, v0, elem(out, first), dt)
        pre = b.block
        head, done = fn.append_basic_block("row.loop"), fn.append_basic_block("row.end")
        b.cbranch(b.icmp_signed("<", one, n), head, done)
        b.position_at_end(head)
        t = b.phi(I64, name="t")
        acc = b.phi(ops.reg_type(dt), name="acc")
        t.add_incoming(one, pre)
        acc.add_incoming(v0, pre)
        at = b.add(first, b.mul(t, step_dir, flags=("nsw",)), flags=("nsw",))
        new = combine(acc, ops.load(b, elem(x, at), dt))
        ops.store(b, new, elem(out, at), dt)
        nxt = b.add(t, one, flags=("nuw", "nsw"))
        t.add_incoming(nxt, b.block)
        acc.add_incoming(new, b.block)
        b.cbranch(b.icmp_signed("<", nxt, n), head, done)
        b.position_at_end(done)

    def unit(u):
        """One run of columns of one outer index: the first row copied, then each row
        combined with the one before it (a vector loop over the columns)."""
        o, cb = b.sdiv(u, blocks), b.srem(u, blocks)
        c0 = b.mul(cb, ir.Constant(I64, COLUMNS), flags=("nsw",))
        c_end = b.add(c0, ir.Constant(I64, COLUMNS), flags=("nsw",))
        c1 = b.select(b.icmp_signed("<", c_end, inner), c_end, inner)
        first = b.mul(b.add(b.mul(o, n, flags=("nsw",)),
                            b.select(reverse, b.sub(n, one), zero)), inner, flags=("nsw",))
        stride = b.mul(step_dir, inner, flags=("nsw",))

        def copy(c):
            at = b.add(first, c, flags=("nsw",))
            ops.store(b, ops.load(b, elem(x, at), dt), elem(out, at), dt)
        loop(c0, c1, copy, "c0")

        def step(t):    # the t-th row along the axis from the start (or the end)
            row = b.add(first, b.mul(t, stride, flags=("nsw",)), flags=("nsw",))
            prev = b.sub(row, stride, flags=("nsw",))

            def column(c):
                at = b.add(row, c, flags=("nsw",))
                before = ops.load(b, elem(out, b.add(prev, c, flags=("nsw",))), dt)
                ops.store(b, combine(before, ops.load(b, elem(x, at), dt)), elem(out, at), dt)
            loop(c0, c1, column, "c")
        loop(one, n, step, "t")

    exit_bb, some = fn.append_basic_block("exit"), fn.append_basic_block("some")
    b.cbranch(b.icmp_signed("<", zero, n), some, exit_bb)   # (an empty axis: nothing)
    b.position_at_end(some)
    loop(start, end, row_scan if form == "rows" else unit, "u")
    b.branch(exit_bb)
    b.position_at_end(exit_bb)
    b.ret_void()
    fn.attributes.add("nounwind")
    return str(module)


def function(op, dtype, form, load=target.compile_ir):
    """The address of the compiled cumulative ``op`` of ``dtype`` in ``form`` (kernel ABI:
    see the module docs), compiled by ``load(ir_text, names, profile=...) -> {name:
    address}`` (the runtime passes its disk cache's ``load_or_compile`` and keeps one per
    process: ``devices/cpu_cumulative.py``)."""
    name = symbol(op, dtype, form)
    return load(function_ir(op, dtype, form), [name], profile=FORMS[form])[name]
