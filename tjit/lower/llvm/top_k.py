"""``lax.top_k`` along the last axis as compiled code: one pass over each row.

The function has the kernel ABI of ``devices/threads.py``,

    void NAME(void **args, int64 *sizes, int64 start, int64 end)

with ``args = (x, values, indices)`` (rows of ``n`` elements in, rows of ``k`` out,
indices int32) and ``sizes = (n, k)``, and computes rows ``[start, end)``, so the
runtime splits the rows across threads. Each row keeps its k largest (key, index)
pairs seen so far in a sorted buffer: an element enters only when its key beats the
k-th kept one (one compare for most elements of a long row), by insertion after the
kept keys it does not beat, so equal keys stay in index order. A first pass takes
the largest key of every block of ``BLOCK`` elements (one vector) and the k-th largest
of those, a floor that every top-k key reaches (k keys do); the second pass then looks
only at the blocks that reach it, about k of them (``_top_k_candidates`` in NumPy). The
order is top_k's
(``primitives/reductions.py``): floats compare by a key that puts every NaN above +inf
and -0.0 equal to +0.0 (the IEEE bits of ``x + 0.0`` as a signed integer, negative
magnitudes flipped), integers by value, bools as 0/1; ties go to the lower index. The
values written are the row's own elements at the chosen indices (a -0.0 stays -0.0).
One function per dtype, compiled once per process (~40 ms of LLVM) or loaded from
the runtime's disk cache.
"""

import functools

import numpy as np
from llvmlite import ir

from tjit.lower.llvm import codegen_ops as ops
from tjit.lower.llvm import target

__all__ = ["function", "function_ir", "supported"]

I32, I64 = ops.I32, ops.I64
PTR = ir.PointerType()
_DTYPES = frozenset(np.dtype(d) for d in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64"))

#: Elements a row is scanned in: one vector of keys, compared at once with the k-th kept.
BLOCK = 16

#: Blocks of a row whose maxima pass 1 keeps for pass 2 (on the stack: 8 KiB at most).
KEPT_BLOCKS = 1024
#: Largest k with a compiled form: its kept keys and positions live on the stack
#: (16 bytes each: 64 KiB at most).
MAX_K = 4096

def supported(dtype):
    """Whether top_k of ``dtype`` values has a compiled form (not float16/complex)."""
    return np.dtype(dtype) in _DTYPES


def symbol(dtype):
    return f"tjit_top_k_rows_{np.dtype(dtype).name}"


def _key(b, v, dt):
    """The top_k order key of value ``v`` (a scalar, or a vector of ``dt`` elements): an
    integer that compares signed (unsigned for unsigned dtypes) in top_k's order."""
    lanes = v.type.count if isinstance(v.type, ir.VectorType) else None

    def like(t):
        return t if lanes is None else ir.VectorType(t, lanes)

    def const(t, c):
        return ir.Constant(like(t), c if lanes is None else [c] * lanes)
    if dt.kind == "f":
        w = 8 * dt.itemsize
        ity = ir.IntType(w)
        fty = ops.reg_type(dt)
        bits = b.bitcast(b.fadd(v, const(fty, 0.0)), like(ity))   # (-0.0 -> +0.0)
        top = const(ity, 2 ** (w - 1) - 1)
        flipped = b.xor(bits, b.and_(b.ashr(bits, const(ity, w - 1)), top))
        return b.select(b.fcmp_unordered("uno", v, v), top, flipped)
    if dt.kind == "b":
        return b.zext(v, like(I32))
    return v


def function_ir(dtype):
    """LLVM IR text of the row-wise top_k of ``dtype`` values (see the module docs)."""
    dt = np.dtype(dtype)
    if not supported(dt):
        raise ValueError(f"top_k: no compiled form for dtype {dt.name} (float16 and "
                         "complex stay library calls)")
    name = symbol(dt)
    module = ir.Module(name=name)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I64]), name=name)
    args, sizes, start, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    ety = ops.mem_type(dt)
    (x, vals, idxs), (n, k) = ops.abi_values(b, args, sizes, 3, 2)
    kty = ir.IntType(32 if dt.kind == "b" else 8 * dt.itemsize)
    signed = dt.kind != "u"
    keys = b.alloca(kty, size=k, name="keys")
    pos = b.alloca(I64, size=k, name="pos")
    lowest = ir.Constant(kty, -2 ** (kty.width - 1) if signed else 0)
    bmax = b.alloca(kty, size=ir.Constant(I64, KEPT_BLOCKS), name="bmax")
    row_x_now = [None]      # (the row being scanned, for kept_max)
    count = b.alloca(I64, name="count")
    at = b.alloca(I64, name="at")
    one, zero = ir.Constant(I64, 1), ir.Constant(I64, 0)

    def below(a, c):          # key a < key c
        return (b.icmp_signed if signed else b.icmp_unsigned)("<", a, c)

    loop = functools.partial(ops.counted_loop, b)

    def insert(key, j):
        """Keep (key, j) if it is among the k largest so far (j ascends, so a kept
        equal key, of a lower index, stays ahead of it)."""
        c = b.load(count, typ=I64)
        full_bb, open_bb = fn.append_basic_block("full"), fn.append_basic_block("open")
        insert_bb, next_bb = fn.append_basic_block("insert"), fn.append_basic_block("next")
        b.cbranch(b.icmp_signed("==", c, k), full_bb, open_bb)
        b.position_at_end(full_bb)     # enters only above the k-th kept key
        last = b.sub(k, one)
        kth = b.load(b.gep(keys, [last], inbounds=True, source_etype=kty), typ=kty)
        b.store(last, at)
        b.cbranch(below(kth, key), insert_bb, next_bb)
        b.position_at_end(open_bb)
        b.store(b.add(c, one), count)
        b.store(c, at)
        b.branch(insert_bb)
        # shift the kept keys it beats one place down, then write it in the gap
        b.position_at_end(insert_bb)
        test, move = fn.append_basic_block("shift.test"), fn.append_basic_block("shift.move")
        check, place = fn.append_basic_block("shift.check"), fn.append_basic_block("place")
        b.branch(test)
        b.position_at_end(test)
        p = b.load(at, typ=I64)
        b.cbranch(b.icmp_signed(">", p, zero), check, place)
        b.position_at_end(check)
        q = b.sub(p, one)
        kq = b.load(b.gep(keys, [q], inbounds=True, source_etype=kty), typ=kty)
        b.cbranch(below(kq, key), move, place)
        b.position_at_end(move)
        b.store(kq, b.gep(keys, [p], inbounds=True, source_etype=kty))
        b.store(b.load(b.gep(pos, [q], inbounds=True, source_etype=I64), typ=I64),
                b.gep(pos, [p], inbounds=True, source_etype=I64))
        b.store(q, at)
        b.branch(test)
        b.position_at_end(place)
        p = b.load(at, typ=I64)
        b.store(key, b.gep(keys, [p], inbounds=True, source_etype=kty))
        b.store(j, b.gep(pos, [p], inbounds=True, source_etype=I64))
        b.branch(next_bb)
        b.position_at_end(next_bb)

    def when(cond, body):
        then, after = fn.append_basic_block("then"), fn.append_basic_block("after")
        b.cbranch(cond, then, after)
        b.position_at_end(then)
        body()
        b.branch(after)
        b.position_at_end(after)

    def element(row_x, j, floor):
        key = _key(b, ops.load(b, b.gep(row_x, [j], inbounds=True, source_etype=ety), dt),
                   dt)
        when(b.not_(below(key, floor)), lambda: insert(key, j))

    def block_max(row_x, blk):
        vec = b.load(b.gep(row_x, [b.mul(blk, ir.Constant(I64, BLOCK), flags=("nsw", "nuw"))],
                           inbounds=True, source_etype=ety),
                     typ=ir.VectorType(ety, BLOCK), align=dt.itemsize)
        if dt.kind == "b":
            vec = b.icmp_unsigned("!=", vec, ir.Constant(vec.type, [0] * BLOCK))
        return ops.intrinsic(b, f"llvm.vector.reduce.{'s' if signed else 'u'}max."
                             f"v{BLOCK}i{kty.width}", kty, [_key(b, vec, dt)])

    def kept_max(blk, compute):
        """Block ``blk``'s largest key: kept in ``bmax`` for the first ``KEPT_BLOCKS``
        blocks of a row (written when ``compute``), computed again for the rest (no
        scratch that grows with the row; the block is in cache)."""
        kept = b.icmp_signed("<", blk, ir.Constant(I64, KEPT_BLOCKS))
        slot = b.gep(bmax, [b.select(kept, blk, zero)], inbounds=True, source_etype=kty)
        if compute:
            top = block_max(row_x_now[0], blk)
            with b.if_then(kept):
                b.store(top, slot)
            return top
        pre = b.block
        again, join = fn.append_basic_block("again"), fn.append_basic_block("join")
        stored = b.load(slot, typ=kty)
        b.cbranch(kept, join, again)
        b.position_at_end(again)
        computed = block_max(row_x_now[0], blk)
        after = b.block
        b.branch(join)
        b.position_at_end(join)
        top = b.phi(kty)
        top.add_incoming(stored, pre)
        top.add_incoming(computed, after)
        return top

    def scan_block(row_x, blk, floor):
        j0 = b.mul(blk, ir.Constant(I64, BLOCK), flags=("nsw", "nuw"))
        when(b.not_(below(kept_max(blk, False), floor)), lambda: loop(
            j0, b.add(j0, ir.Constant(I64, BLOCK)), lambda j: element(row_x, j, floor), "j"))

    def row(r):
        row_x = b.gep(x, [b.mul(r, n, flags=("nsw",))], inbounds=True, source_etype=ety)
        blocks = b.sdiv(n, ir.Constant(I64, BLOCK))
        # pass 1: the blocks' largest keys, and the k-th largest of those (the floor:
        # k keys reach it, so every top-k key does; lowest key when there are fewer)
        b.store(zero, count)
        row_x_now[0] = row_x
        loop(zero, blocks, lambda blk: insert(kept_max(blk, True), blk), "blk")
        full = b.icmp_signed("==", b.load(count, typ=I64), k)
        kth = b.load(b.gep(keys, [b.sub(k, one)], inbounds=True, source_etype=kty), typ=kty)
        floor = b.select(full, kth, lowest)
        # pass 2: the elements of the blocks that reach the floor, in index order
        b.store(zero, count)
        loop(zero, blocks, lambda blk: scan_block(row_x, blk, floor), "scan")
        loop(b.mul(blocks, ir.Constant(I64, BLOCK)), n,
             lambda j: element(row_x, j, floor), "tail")
        out_at = b.mul(r, k, flags=("nsw",))

        def emit(t):
            j = b.load(b.gep(pos, [t], inbounds=True, source_etype=I64), typ=I64)
            o = b.add(out_at, t, flags=("nsw",))
            v = ops.load(b, b.gep(row_x, [j], inbounds=True, source_etype=ety), dt)
            ops.store(b, v, b.gep(vals, [o], inbounds=True, source_etype=ety), dt)
            b.store(b.trunc(j, I32), b.gep(idxs, [o], inbounds=True, source_etype=I32))
        loop(zero, k, emit, "t")

    loop(start, end, row, "r")
    b.ret_void()
    fn.attributes.add("nounwind")
    return str(module)


def function(dtype, load=target.compile_ir):
    """The address of the compiled row-wise top_k of ``dtype`` (kernel ABI: see the
    module docs), compiled by ``load(ir_text, names, profile=...) -> {name: address}``
    (the runtime passes its disk cache's ``load_or_compile`` and keeps one per process:
    ``devices/cpu_top_k.py``)."""
    name = symbol(dtype)
    # (hand-vectorized: LLVM's pipelines would only add compile time; target.PROFILES)
    return load(function_ir(dtype), [name], profile="light")[name]
