"""Kernel IR -> LLVM IR: the loop nest of one fused kernel as an LLVM module (text).

``kernel_to_llvm_ir(kernel, name)`` returns a module defining

    void NAME(void **args, int64_t *sizes, int64_t start, int64_t end)

(the ABI of DESIGN.md / preamble: ``args[i]`` is argument i's flat row-major buffer,
``sizes[j]`` the value of ``kernel.size_symbols[j]``, ``[start, end)`` the part of
the split axis this call covers: ``split.split_axis(kernel)``, ``[0, 1)`` when None). The wrapper loads the pointers and sizes
and calls an internal body function whose buffer parameters are ``noalias``, so LLVM
may reorder loads and stores and vectorize (the runtime must never pass one buffer as
two arguments). Size expressions (strides, extents, offsets) are computed once at
entry; loops count with i64 ``nuw nsw`` induction variables; GEPs are ``inbounds``.

**Axes** (``lower/loops.py``, shared with the C renderer). Before rendering, extent-1
axes are dropped and adjacent axes are collapsed when every index map (loads, stores,
iota values) sees them as one linear axis (``coef[a] == coef[a+1] * shape[a+1]``,
decided with sympy for symbolic sizes), never across the reduce/keep boundary and never
merging the parallel axis with an axis before it. A parallel axis merged with later axes keeps its meaning: the merged axis
covers ``[start * M, end * M)``, M the product of the later extents. So a (1000000, 3)
elementwise kernel is one flat, vectorizable loop.

**Loop styles** (see ``kernel_ir``): row style runs, per outer point, one loop per
"level" of stages (stages that do not depend on each other share a loop), then the
outer stores, then one loop of inner stores; a transcendental value that a stage and an
inner store both need (softmax's ``exp(x - max)``) is left in the output by the stage
loop and loaded back by the store loop instead of being computed twice. Accumulate
style first sets every output element of this call's range to the monoid identity, then
walks the whole space in order updating ``out = out (monoid) Stage(k)``; the parallel
axis is a kept axis, so calls on disjoint ranges write disjoint outputs.

**Accumulation.** Row-style float sums/products accumulate in registers of the stage
dtype (float32 sums in float32) with ``reassoc contract`` on the accumulating
fadd/fmul only: within one call the vectorizer keeps several vector partial sums (like
BLAS sdot; PERF_NOTES measured 4.5e-5 relative error on 12.8M float32 terms).
Accumulate-style updates are exact in iteration order (no flags: they vectorize along
the kept axis). Float max/min reductions use ``llvm.maximum``/``minimum``: NaN
propagates as in JAX. Integer and bool reductions are exact.

**Compile profiles** (``profile.py``): small elementwise kernels call the math library
compiled once per process (``mathlink``) and are built without vectorization; the
rest inline ``mathlib``'s polynomials for the vectorizer. Either gives the same bits.

**Transposing kernels** (``_transpose_tile``): an elementwise kernel that reads an
argument with a large constant stride along the innermost loop and contiguously along
another loop walks those two loops in 8 x 8 blocks, inside the other loops. 8 rows: the
rows of a power-of-two stride share cache sets, and more than 8 evict each other
(measured on a (32,32,32,32) f32 transpose: plain 20 ms, 8x8 1.5 ms, 8x16 16.5 ms,
16x8 5.9 ms, 32x32 17 ms; (2048, 2048) 36-52 -> 19-24 ms).

**Short loops around loops** (``SHORT_LOOP_TRIPS``): a loop of at most 16 constant
trips around a loop that stays a loop after vectorizing carries
``llvm.loop.unroll.disable``, so LLVM does not copy the vector loop once per trip
(compile time: a pooling gradient's kernels took 4x the LLVM time; run time the same
or better).

Innermost loops whose body calls a mathlib transcendental get
``llvm.loop.interleave.count`` 4 (1.2-1.6x, PERF_NOTES). Functions are ``nounwind``
and, on AVX-512 hosts, ``"prefer-vector-width"="512"``.
"""

import dataclasses
import hashlib
import re

import numpy as np
from llvmlite import ir

from tjit.lower import loops
from tjit.lower.llvm import codegen_ops as ops
from tjit.lower.llvm import narrow
from tjit.lower.llvm.profile import compile_profile, linked_math
from tjit.lower.llvm.split import OP_WEIGHTS, split_axis
from tjit.lower.loops import AxisPlan, reused_value, same, stage_levels
from tjit.lower.sizes import SizeEmitter
from tjit.xla_like import kernel_ir as K

__all__ = ["AxisPlan", "kernel_to_llvm_ir", "plan_axes", "shared_ir_key"]

I64 = ops.I64
PTR = ir.PointerType()


def _as_index(b, v, dt):
    """Integer value ``v`` of dtype ``dt`` as an int64 index: a uint64 value beyond
    int64 is clamped to INT64_MAX (still out of range), not wrapped to a negative one
    (the kernel IR's meaning of an unsigned gather index: see ``kernel_ir.evaluate``)."""
    if np.dtype(dt) == np.uint64:
        big = ir.Constant(I64, 2**63 - 1)
        return b.select(b.icmp_unsigned(">", v, big), big, v)
    return ops.convert(b, v, dt, np.dtype(np.int64))


def _narrow_code(value, dt):
    """The byte ml_dtypes stores for ``value`` in narrow type ``dt``, as an i8 constant."""
    return ir.Constant(ops.I8, int(np.asarray(value).astype(dt).view(np.uint8)))


def plan_axes(k):
    """``loops.plan_axes`` with the CPU thread-split axis (``split.split_axis``) kept
    apart: the loop axes of kernel ``k``."""
    return loops.plan_axes(k, split_axis(k))


def _costly(op):
    """Worth keeping in the output rather than computing twice (a transcendental)."""
    return OP_WEIGHTS.get(op, 0) > 1


def _prod(dims):
    out = 1
    for d in dims:
        out = out * d
    return out


# ----------------------------------------------------------------------------------------
# Size expressions -> i64 values (emitted once, in the entry block).

class _SizeEmitter(SizeEmitter):
    """``lower/sizes.py``'s forms as i64 values of the entry block."""

    who = "LLVM codegen"

    def __init__(self, builder, symbols):
        super().__init__(symbols)     # name -> i64 value
        self.b = builder

    def const(self, v):
        return ir.Constant(I64, v)

    def symbol_value(self, name):
        return self.symbols[name]

    def add(self, x, y):
        return self.b.add(x, y, flags=("nsw",))

    def sub(self, x, y):
        return self.b.sub(x, y)

    def mul(self, x, y):
        return self.b.mul(x, y, flags=("nsw",))

    def div(self, x, y):
        return self.b.sdiv(x, y)

    def max(self, x, y):
        return self.b.select(self.b.icmp_signed(">", x, y), x, y)

    def min(self, x, y):
        return self.b.select(self.b.icmp_signed("<", x, y), x, y)

    def floordiv(self, x, y):
        b = self.b
        q = b.sdiv(x, y)
        r = b.srem(x, y)
        zero = ir.Constant(I64, 0)
        fix = b.and_(b.icmp_signed("!=", r, zero),
                     b.icmp_signed("!=", b.icmp_signed("<", r, zero),
                                   b.icmp_signed("<", y, zero)))
        return b.sub(q, b.zext(fix, I64))


# ----------------------------------------------------------------------------------------
# The renderer.

class _Renderer:
    def __init__(self, kernel, fn_name, profile, clamp_end=True):
        self.k = kernel
        self.name = fn_name
        self.clamp_end = clamp_end
        self.plan = plan_axes(kernel)
        self.module = ir.Module(name=fn_name)
        self.math_calls = 0
        self.n_loops = 0
        self.n_kept_loops = 0   # loops emitted that LLVM keeps as loops (_loop)
        # small elementwise kernels call the process-wide math library (profile.py)
        self.linked_math = profile == "scalar"
        self.rolled_group = _rolled_group(kernel, self.plan) if profile == "vector" else None
        self.tile = _transpose_tile(kernel, self.plan)

    # -- functions and entry ---------------------------------------------------------------
    def render(self):
        k = self.k
        nargs, nsyms = len(k.args), len(k.size_symbols)
        body_ty = ir.FunctionType(ir.VoidType(), [PTR] * nargs + [I64] * (nsyms + 2))
        fn = ir.Function(self.module, body_ty, name=self.name + ".body")
        fn.linkage = "internal"
        for i in range(nargs):
            fn.args[i].add_attribute("noalias")
        self.fn = fn
        self.ptrs = fn.args[:nargs]
        entry = fn.append_basic_block("entry")
        start_bb = fn.append_basic_block("start")
        ir.IRBuilder(entry).branch(start_bb)
        self.eb = ir.IRBuilder(entry)
        self.eb.position_before(entry.terminator)
        syms = {s: fn.args[nargs + j] for j, s in enumerate(k.size_symbols)}
        self.sizes = _SizeEmitter(self.eb, syms)
        self.start, self.end = fn.args[nargs + nsyms], fn.args[nargs + nsyms + 1]
        self.b = ir.IRBuilder(start_bb)
        self._setup_axes()
        self.plane = None
        if k.hyperplane is not None:
            self._enter_hyperplane()
        if k.row_style:
            self._row_style()
        else:
            self._accumulate_style()
        self.b.ret_void()
        self._wrapper()
        return self._finish(str(self.module))

    def _wrapper(self):
        k = self.k
        ty = ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I64])
        fn = ir.Function(self.module, ty, name=self.name)
        args, sizes, start, end = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        vals = []
        for i in range(len(k.args)):
            vals.append(b.load(b.gep(args, [ir.Constant(I64, i)], inbounds=True,
                                     source_etype=PTR), typ=PTR, align=8))
        for j in range(len(k.size_symbols)):
            vals.append(b.load(b.gep(sizes, [ir.Constant(I64, j)], inbounds=True,
                                     source_etype=I64), typ=I64, align=8))
        b.call(self.fn, vals + [start, end])
        b.ret_void()

    def _finish(self, text):
        # Loop IDs must be distinct self-referencing nodes, which llvmlite cannot write.
        text = re.sub(r'^(!\d+) = !\{ ?!"tjit\.loop\.\d+"',
                      lambda m: f"{m.group(1)} = distinct !{{ {m.group(1)}", text,
                      flags=re.MULTILINE)
        from tjit.lower.llvm import target
        attrs = "nounwind"
        if target.prefers_512():
            attrs += ' "prefer-vector-width"="512"'
        group = 1 + max((int(g) for g in re.findall(r"#(\d+)", text)), default=0)

        def tag(m):
            line = m.group(0).rstrip()
            if line.endswith("{"):
                return f"{line[:-1].rstrip()} #{group} {{"
            return f"{line} #{group}"

        text = re.sub(r"^define\b[^\n]*$", tag, text, flags=re.MULTILINE)
        return f"{text}\nattributes #{group} = {{ {attrs} }}\n"

    # -- axes and loops ---------------------------------------------------------------------
    def _setup_axes(self):
        plan, shape = self.plan, self.k.shape
        self.extents = [self.sizes(_prod(shape[a] for a in g)) for g in plan.groups]
        self.idx = [None] * len(plan.groups)
        self.bounds = [(ir.Constant(I64, 0), e) for e in self.extents]
        if plan.parallel is not None:
            g = plan.parallel
            scale = self.sizes(_prod(shape[a] for a in plan.groups[g][1:]))
            eb, ext, zero = self.eb, self.extents[g], ir.Constant(I64, 0)
            lo = eb.mul(self.start, scale)
            hi = eb.mul(self.end, scale)
            # clamp to [0, extent]: a bad range from a caller must not write out of bounds
            # (a body shared by several extents leaves the upper clamp to its callers'
            # wrappers: see shared_ir_key)
            lo = eb.select(eb.icmp_signed("<", lo, zero), zero, lo)
            if self.clamp_end:
                hi = eb.select(eb.icmp_signed(">", hi, ext), ext, hi)
            self.bounds[g] = (lo, hi)

    def _enter_hyperplane(self):
        """The plane's index (computed once) and the early return when it is out of
        range; ``_affine`` then adds it on the hyperplane axis."""
        axis, offset, size = self.k.hyperplane
        b = self.b
        odt = ops.check_dtype(offset.dtype, "hyperplane index")
        v = _as_index(b, self.value(offset, {}), odt)
        inside = b.and_(b.icmp_signed(">=", v, ir.Constant(I64, 0)),
                        b.icmp_signed("<", v, self.sizes(size)))
        body_bb = self.fn.append_basic_block("plane")
        out_bb = self.fn.append_basic_block("off_plane")
        b.cbranch(inside, body_bb, out_bb)
        b.position_at_end(out_bb)
        b.ret_void()
        b.position_at_end(body_bb)
        self.plane = (axis, v)

    def _loop(self, lo, hi, body, rolled=False):
        b = self.b
        pre = b.block
        n = self.n_loops = self.n_loops + 1
        loop_bb = self.fn.append_basic_block(f"loop{n}")
        exit_bb = self.fn.append_basic_block(f"after{n}")
        b.cbranch(b.icmp_signed("<", lo, hi), loop_bb, exit_bb)
        b.position_at_end(loop_bb)
        i = b.phi(I64, name=f"i{n}")
        i.add_incoming(lo, pre)
        calls, kept = self.math_calls, self.n_kept_loops
        body(i)
        innermost = self.n_loops == n  # no loop was emitted inside this one
        nxt = b.add(i, ir.Constant(I64, 1), flags=("nuw", "nsw"))
        i.add_incoming(nxt, b.block)
        br = b.cbranch(b.icmp_signed("<", nxt, hi), loop_bb, exit_bb)
        hints = []
        if innermost and self.math_calls > calls:
            hints.append(("llvm.loop.interleave.count", 4))
        trips = _constant_trips(lo, hi)
        if rolled or (trips is not None and trips <= SHORT_LOOP_TRIPS
                      and self.n_kept_loops > kept):
            # (see SHORT_LOOP_TRIPS: unrolling a short loop around a loop copies it)
            hints.append(("llvm.loop.unroll.disable", None))
        if trips is None or trips >= KEPT_LOOP_TRIPS or self.n_kept_loops > kept:
            self.n_kept_loops += 1
        if hints:
            self._loop_hints(br, n, hints)
        b.position_at_end(exit_bb)

    def _loop_hints(self, br, n, hints):
        """Loop metadata ``hints`` ((name, i32 value or None), ...) on loop ``n``.

        The ``"tjit.loop.n"`` string is a placeholder: LLVM ignores a loop ID whose first
        operand is not the node itself, and ``_finish`` rewrites it to ``!k = distinct
        !{ !k, ...}``. So the hints are applied: interleave 4 gave 1.2x on tanh(tanh),
        1.27x on Mish, 1.08x on erf, 0.94x on lgamma's long body (2M float32, one
        thread, same bits), and left the softmax/logsumexp row loops' optimized IR
        unchanged (LLVM interleaves their reductions already). Checked by
        tests/lower/test_loop_hints.py."""
        m = self.module
        nodes = [m.add_metadata([ir.MetaDataString(m, name)] + (
            [] if v is None else [ir.Constant(ir.IntType(32), v)])) for name, v in hints]
        loop_id = m.add_metadata([ir.MetaDataString(m, f"tjit.loop.{n}")] + nodes)
        br.set_metadata("llvm.loop", loop_id)

    def _nest(self, groups, body):
        """Loops over plan groups ``groups`` (outer to inner) around ``body()``."""
        if not groups:
            body()
            return
        g = groups[0]

        def inner(i):
            self.idx[g] = i
            self._nest(groups[1:], body)

        lo, hi = self.bounds[g]
        self._loop(lo, hi, inner, rolled=g == self.rolled_group)
        self.idx[g] = None

    def _tiled_nest(self, groups, body):
        """``_nest`` with the two groups of ``self.tile`` walked in TILE blocks, inside
        the other groups (an elementwise kernel: any order is correct)."""
        gt, gl = self.tile
        rest = [g for g in groups if g not in self.tile]
        b = self.b
        sizes = {gt: TILE[0], gl: TILE[1]}

        def count(g):   # tiles over [lo, hi): ceil((hi - lo) / size)
            lo, hi = self.bounds[g]
            return b.sdiv(b.add(b.sub(hi, lo), ir.Constant(I64, sizes[g] - 1)),
                          ir.Constant(I64, sizes[g]))

        def block(g, t):    # tile t's range [lo + t*size, min(lo + (t+1)*size, hi))
            lo, hi = self.bounds[g]
            size = ir.Constant(I64, sizes[g])
            start = b.add(lo, b.mul(t, size, flags=("nsw",)), flags=("nsw",))
            stop = b.add(start, size, flags=("nsw",))
            return start, b.select(b.icmp_signed("<", stop, hi), stop, hi)

        def points(ranges):
            def inner_loop(j):
                self.idx[gl] = j
                body()

            def outer_loop(i):
                self.idx[gt] = i
                self._loop(*ranges[1], inner_loop, rolled=gl == self.rolled_group)
            self._loop(*ranges[0], outer_loop)

        def tiles():
            zero = ir.Constant(I64, 0)
            n_t, n_l = count(gt), count(gl)
            self._loop(zero, n_t, lambda t: self._loop(
                zero, n_l, lambda u: points([block(gt, t), block(gl, u)])))

        self._nest(rest, tiles)
        self.idx[gt] = self.idx[gl] = None

    # -- values -----------------------------------------------------------------------------
    def _affine(self, a, scope):
        key = ("affine", id(a))
        v = scope.get(key)
        if v is not None:
            return v
        b = self.b
        v = None if same(a.offset, 0) else self.sizes(a.offset)
        # (coefficient, index value) per loop group, and the hyperplane's fixed index
        terms = [(a.coefs[axes[-1]], self.idx[g]) for g, axes in enumerate(self.plan.groups)]
        if self.plane is not None:
            terms.append((a.coefs[self.plane[0]], self.plane[1]))
        for c, i in terms:
            if i is None or same(c, 0):
                continue
            term = i if same(c, 1) else b.mul(self.sizes(c), i, flags=("nsw",))
            v = term if v is None else b.add(v, term, flags=("nsw",))
        v = ir.Constant(I64, 0) if v is None else v
        scope[key] = v
        return v

    def _ptr(self, arg, index, dt, scope):
        return self.b.gep(self.ptrs[arg], [self._affine(index, scope)], inbounds=True,
                          source_etype=ops.mem_type(dt))

    def _emit_math(self, b, name, args, ty):
        """mathlib.emit_math, counted (the count decides loop interleaving)."""
        try:
            from tjit.lower.llvm import mathlib
        except ImportError as e:
            raise NotImplementedError(
                f"LLVM codegen: op {name!r} needs tjit.lower.llvm.mathlib, which failed "
                f"to import: {e}") from None
        self.math_calls += 1
        if self.linked_math:
            from tjit.lower.llvm import mathlink
            return mathlink.call(b, name, args, ty)
        return mathlib.emit_math(b, name, args, ty)

    def value(self, root, scope):
        """The LLVM value of expression ``root`` at the current indices (memo: scope)."""
        for n in K.walk(root):
            if id(n) in scope:
                continue
            if isinstance(n, K.Load):
                dt = ops.check_dtype(n.dtype, f"load of argument {n.arg}")
                v = ops.load(self.b, self._ptr(n.arg, n.index, dt, scope), dt)
            elif isinstance(n, K.IndexedLoad):
                v = self._indexed_load(n, scope)
            elif isinstance(n, K.Const):
                v = ops.const(ops.check_dtype(n.dtype, "constant"), n.value)
            elif isinstance(n, K.IndexValue):
                dt = ops.check_dtype(n.dtype, "iota")
                v = ops.convert(self.b, self._affine(n.index, scope), np.int64, dt)
            elif isinstance(n, K.Stage):
                v = self.stage_vals[n.k]
            else:
                v = ops.emit_op(self.b, n.op, [scope[id(a)] for a in n.args],
                                [a.dtype for a in n.args], n.dtype, self._emit_math)
            scope[id(n)] = v
        return scope[id(root)]

    def _indexed_load(self, n, scope, raw=False):
        """``arg[index + clamp(offset, 0, size - 1) * stride]``, or ``fill`` when the
        offset is out of range (the clamped address is loaded either way: safe).
        ``raw``: a narrow type's byte (an i8), not its value."""
        b = self.b
        dt = ops.check_dtype(n.dtype, f"indexed load of argument {n.arg}")
        odt = ops.check_dtype(n.offset.dtype, "gather index")
        off = _as_index(b, scope[id(n.offset)], odt)
        size = self.sizes(n.size)
        last = b.sub(size, ir.Constant(I64, 1))
        lo = b.icmp_signed("<", off, ir.Constant(I64, 0))
        hi = b.icmp_signed(">", off, last)
        i = b.select(hi, last, b.select(lo, ir.Constant(I64, 0), off))
        at = b.add(self._affine(n.index, scope), b.mul(i, self.sizes(n.stride)))
        ptr = b.gep(self.ptrs[n.arg], [at], inbounds=True, source_etype=ops.mem_type(dt))
        v = b.load(ptr, typ=ops.I8, align=1) if raw else ops.load(b, ptr, dt)
        if n.fill is None:
            return v
        fill = _narrow_code(n.fill, dt) if raw else ops.const(dt, n.fill)
        return b.select(b.or_(lo, hi), fill, v)

    def _typed_value(self, expr, dt, scope, what):
        """``expr``'s value converted (convert semantics) to dtype ``dt``."""
        v = self.value(expr, scope)
        return ops.convert(self.b, v, ops.check_dtype(expr.dtype, what),
                           ops.check_dtype(dt, what))

    def _store(self, st, scope):
        dt = ops.check_dtype(self.k.args[st.arg].dtype, f"store to argument {st.arg}")
        if np.dtype(st.expr.dtype) != dt:
            raise ValueError(f"kernel {self.k.name}: store of a {np.dtype(st.expr.dtype)} "
                             f"value into argument {st.arg} of dtype {dt}")
        raw = self._narrow_bytes(st.expr, scope) if dt in narrow.DTYPES else None
        if raw is not None:
            self.b.store(raw, self._ptr(st.arg, st.index, dt, scope), align=1)
            return
        v = self.value(st.expr, scope)
        ops.store(self.b, v, self._ptr(st.arg, st.index, dt, scope), dt)

    def _narrow_bytes(self, expr, scope):
        """The bytes of a float8/int4 ``expr`` that only moves values (a load, a constant,
        a select of such) as an i8, else None. Stored as they are: decoding and encoding
        would rewrite the NaN payloads (float8_e5m2 has six NaN codes) and stray high
        bits of int4 bytes that the eager path's NumPy copies keep."""
        if isinstance(expr, K.Load):
            ptr = self._ptr(expr.arg, expr.index, expr.dtype, scope)
            return self.b.load(ptr, typ=ops.I8, align=1)
        if isinstance(expr, K.IndexedLoad):     # (concatenate, pad: a clamped read or fill)
            self.value(expr.offset, scope)
            return self._indexed_load(expr, scope, raw=True)
        if isinstance(expr, K.Const):
            return _narrow_code(expr.value, expr.dtype)
        if isinstance(expr, K.Op) and expr.op == "select":
            on_true, on_false = (self._narrow_bytes(a, scope) for a in expr.args[1:])
            if on_true is not None and on_false is not None:
                return self.b.select(self.value(expr.args[0], scope), on_true, on_false)
        return None

    # -- row style --------------------------------------------------------------------------
    def _row_style(self):
        plan = self.plan
        outer = [g for g, r in enumerate(plan.reduce) if not r]
        inner = [g for g, r in enumerate(plan.reduce) if r]
        levels = stage_levels(self.k)
        accs = {j: self.eb.alloca(ops.reg_type(s.dtype), name=f"acc{j}")
                for j, s in enumerate(self.k.stages) if inner}
        outer_st = [s for s in self.k.stores if s.level == "outer" and inner]
        inner_st = [s for s in self.k.stores if not (s.level == "outer" and inner)]
        cache = reused_value(self.k, inner_st, _costly) if inner else None

        def outer_body():
            self.stage_vals = {}
            for lv in levels:
                self._stage_loop(lv, inner, accs, cache)
            scope = {}
            for st in outer_st:
                self._store(st, scope)
            if inner_st:
                self._nest(inner, inner_stores)

        def inner_stores():
            scope = {}
            if cache is not None:   # left in the output by the stage loop
                node, st, _ = cache
                dt = np.dtype(node.dtype)
                scope[id(node)] = ops.load(self.b, self._ptr(st.arg, st.index, dt, scope), dt)
            for st in inner_st:
                self._store(st, scope)

        if self.tile is not None:
            self._tiled_nest(outer, outer_body)
        else:
            self._nest(outer, outer_body)

    def _stage_loop(self, stages, inner, accs, cache=None):
        ks = self.k.stages
        if not inner:  # no reduced axes: each stage is its expression at the point
            scope = {}
            for j in stages:
                self.stage_vals[j] = self._typed_value(ks[j].expr, ks[j].dtype, scope,
                                                       "reduction")
            return
        for j in stages:
            self.b.store(ops.identity(ks[j].monoid, ks[j].dtype), accs[j])

        def body():
            scope = {}
            for j in stages:
                s = ks[j]
                x = self._typed_value(s.expr, s.dtype, scope, "reduction")
                acc = self.b.load(accs[j], typ=ops.reg_type(s.dtype))
                self.b.store(ops.combine(self.b, s.monoid, acc, x, s.dtype, True), accs[j])
            if cache is not None and cache[2] in stages:
                node, st, _ = cache
                dt = np.dtype(node.dtype)
                ops.store(self.b, scope[id(node)], self._ptr(st.arg, st.index, dt, scope), dt)

        self._nest(inner, body)
        for j in stages:
            self.stage_vals[j] = self.b.load(accs[j], typ=ops.reg_type(ks[j].dtype))

    # -- accumulate style -------------------------------------------------------------------
    def _accumulate_style(self):
        k, plan = self.k, self.plan
        red = [g for g, r in enumerate(plan.reduce) if r]
        for j, s in enumerate(k.stages):
            if any(isinstance(n, K.Stage) for n in K.walk(s.expr)):
                raise ValueError(f"kernel {k.name}: accumulate-style stage {j} refers to "
                                 "another stage (only row-style kernels may chain stages)")
        for st in k.stores:
            dt, sdt = np.dtype(k.args[st.arg].dtype), np.dtype(k.stages[st.expr.k].dtype)
            if dt != sdt:
                raise ValueError(f"kernel {k.name}: Stage({st.expr.k}) of dtype {sdt} "
                                 f"stored into argument {st.arg} of dtype {dt}")
            if st.index.uses_axes(k.reduce_axes):
                raise ValueError(f"kernel {k.name}: accumulate-style store to argument "
                                 f"{st.arg} is indexed by a reduced axis")
            p = split_axis(k)
            # a zero-size dim (later in row-major order) makes p's stride 0, and the
            # kernel has no kept points to update: nothing can race
            if p is not None and same(st.index.coefs[p], 0) and k.shape[p] != 1 \
                    and not any(same(d, 0) for d in k.shape):
                raise ValueError(f"kernel {k.name}: accumulate-style store to argument "
                                 f"{st.arg} does not depend on kept axis {p}: calls on "
                                 "disjoint ranges of it would update the same elements")
        self.stage_vals = {}
        kept = [g for g in range(len(plan.groups)) if g not in red]

        def init():
            scope = {}
            for st in k.stores:
                s = k.stages[st.expr.k]
                ops.store(self.b, ops.identity(s.monoid, s.dtype),
                          self._ptr(st.arg, st.index, s.dtype, scope), s.dtype)

        self._nest(kept, init)

        def update():
            scope = {}
            for st in k.stores:
                s = k.stages[st.expr.k]
                x = self._typed_value(s.expr, s.dtype, scope, "reduction")
                ptr = self._ptr(st.arg, st.index, s.dtype, scope)
                old = ops.load(self.b, ptr, s.dtype)
                ops.store(self.b, ops.combine(self.b, s.monoid, old, x, s.dtype, False),
                          ptr, s.dtype)

        self._nest(list(range(len(plan.groups))), update)


#: Smallest constant extent of a kept-rolled innermost loop (``_rolled_group``).
ROLLED_MIN_EXTENT = 8

#: A loop of at most SHORT_LOOP_TRIPS constant trips around a kept loop carries
#: ``llvm.loop.unroll.disable``. A kept loop is one that stays a loop after LLVM
#: vectorizes it: of a symbolic or thread-split range, of at least KEPT_LOOP_TRIPS
#: constant trips (two 512-bit vectors of float32: a loop of 16 becomes one vector and
#: folds away), or itself around a kept loop. Fully unrolling a short loop around a kept
#: one gains nothing at run time (the body is a loop either way) but copies the vector
#: loop once per trip: the max-pool gradient's broadcast over (32, 16, 2, 16, 2, 32)
#: became 64 copies of its vector loop, 110 ms of LLVM CPU for a copy kernel (28 ms with
#: the hint), and the sum-pool over (32, 8, 2, 8, 2, 32) ran 0.9 ms unrolled, 0.02 ms
#: kept. Longer loops keep LLVM's choice (it cannot unroll them fully, and where the
#: inner loop folds away it unrolls them partly, which pays: an im2col gather over
#: 9216 x 16 ran 1.2x slower with the hint), and so do loops around a loop that folds
#: away (NCHW avg-pool's gradient over (.., 16, 2, 16, 2): 1.4x slower with the hint).
SHORT_LOOP_TRIPS = 16
KEPT_LOOP_TRIPS = 32


def _constant_trips(lo, hi):
    """The trip count of the loop ``[lo, hi)`` when both bounds are constants, else None."""
    if isinstance(lo, ir.Constant) and isinstance(hi, ir.Constant):
        return max(0, int(hi.constant) - int(lo.constant))
    return None


def _rolled_group(k, plan):
    """The innermost loop group of elementwise kernel ``k`` to keep rolled, or None.

    LLVM fully unrolls a short constant inner loop before the loop vectorizer runs and
    then vectorizes the outer loop with gathers and scatters (a 16x16
    ``out = a + g[:, None] * h[None, :]``: 16 gather/scatter pairs). Kept rolled, the
    contiguous inner axis is what vectorizes (one load/fma/store row per vector, the
    outer loop's values broadcast). Chosen for innermost groups of a constant extent
    of at least ``ROLLED_MIN_EXTENT`` along which every store is contiguous; reductions
    keep LLVM's choice (their accumulation order follows the vectorizer). Measured
    (float32 ``a + g h^T``, ns a call, unrolled -> rolled): 32x8 158 -> 19, 16x16
    415 -> 10, 8x32 415 -> 16, 64x12 1285 -> 85, 64x4 70 -> 62, 4x64 59 -> 59."""
    if k.reduce_axes or k.stages or len(plan.groups) < 2:
        return None
    g = len(plan.groups) - 1
    axis = plan.groups[g][-1]
    extent = _prod(k.shape[a] for a in plan.groups[g])
    if not isinstance(extent, int) or extent < ROLLED_MIN_EXTENT:
        return None
    if not all(same(st.index.coefs[axis], 1) for st in k.stores):
        return None
    return g


#: (rows, columns) of the blocks a transposing elementwise kernel is walked in
#: (``_transpose_tile``; the module docstring has the measurements).
TILE = (8, 8)


def _transpose_tile(k, plan):
    """(g, last): the loop groups of elementwise kernel ``k`` to walk in TILE blocks, or
    None. A transposing kernel (an NCHW gradient's ``x.transpose(0, 2, 3, 1)`` fused
    with its elementwise ops) reads some argument with a large stride along the
    innermost loop ``last`` and contiguously along another loop ``g``: in the plain
    nest every read of it touches a new cache line (a (32, 32, 32, 32) f32 one ran
    14-20 ms, 4 MB at under 1 GB/s). In blocks, a block's lines are read once for all
    its rows. Only constant strides of at least 2 x TILE and loops that long."""
    if k.reduce_axes or not k.row_style or k.hyperplane is not None or len(plan.groups) < 2:
        return None
    last = len(plan.groups) - 1

    def coef(m, g):
        c = m.coefs[plan.groups[g][-1]]
        return c if isinstance(c, (int, np.integer)) else None

    def long(g):
        return isinstance(plan.extents[g], (int, np.integer)) and plan.extents[g] >= 2 * max(TILE)

    if not long(last):
        return None
    for m in loops.index_maps(k):
        c = coef(m, last)
        if c is None or abs(c) < 2 * max(TILE):
            continue
        for g in range(last):
            if coef(m, g) == 1 and long(g):
                return g, last
    return None


#: Stands for the thread-split axis's extent in ``shared_ir_key`` (no size prints so).
_SPLIT_EXTENT = "<split extent>"


def shared_ir_key(k, profile):
    """A hash of the LLVM IR that kernel ``k`` renders to with compile ``profile`` and
    ``clamp_end=False``, which leaves out the extent of its thread-split axis; None where
    there is no such axis of a constant extent of at least 2 (or a hyperplane).

    Without the clamp of the split range's end, the IR reads that extent nowhere: the
    loop over the split axis runs over the caller's ``[start, end)``, and the other
    loops, strides and offsets are the kernel's other facts. So kernels that differ only
    in it (the row sums of an (8192, 32) and a (64, 32) array) render the same IR and can
    share one compiled body, each called through a wrapper that clamps ``end`` to its
    own extent (``devices/shared_kernels.py``). The rendering choices that the extent does
    sway (transpose blocks, a rolled inner loop) are part of the key."""
    p = split_axis(k)
    if p is None or k.hyperplane is not None or type(k.shape[p]) is not int \
            or k.shape[p] < 2:
        return None
    plan = plan_axes(k)
    choices = (_transpose_tile(k, plan), _rolled_group(k, plan) if profile == "vector"
               else None)
    blank = k.shape[:p] + (_SPLIT_EXTENT,) + k.shape[p + 1:]
    text = K.kernel_text(dataclasses.replace(k, name="k", shape=blank))
    return hashlib.sha256(f"{text}\nsyms={k.size_symbols}\n{profile}\n{choices}"
                          .encode()).hexdigest()


def kernel_to_llvm_ir(kernel, fn_name, profile=None, clamp_end=True):
    """Render one kernel as an LLVM module.

    Args:
      kernel: a ``kernel_ir.Kernel`` (checked with ``kernel_ir.check_kernel``).
      fn_name: the exported function's symbol name (callers derive it from
        ``kernel_ir.kernel_hash`` so equal names mean equal code).
      profile: ``profile.py``'s compile profile it is built for (default
        ``compile_profile(kernel)``).
      clamp_end: clamp the end of the split range to the split axis's extent. False
        leaves the extent out of the IR (``shared_ir_key``): then the caller must pass
        ``end`` at most the extent.
    Returns:
      The module as LLVM IR text: ``void fn_name(i8** args, i64* sizes, i64 start,
      i64 end)`` plus an internal body function.
    Raises:
      NotImplementedError: float16/complex dtypes (route those to library calls).
      ValueError/TypeError: a kernel that breaks the IR's rules.
    """
    K.check_kernel(kernel)
    profile = profile or compile_profile(kernel)
    text = _Renderer(kernel, fn_name, profile, clamp_end).render()
    symbols = linked_math(kernel, profile)
    if symbols:     # the math functions it calls must be linkable wherever it is built
        from tjit.lower.llvm import mathlink
        mathlink.ensure_loaded(symbols)
    return text
