"""Kernel IR -> C-family source: one renderer, dialects as attribute tables.

``render(kernel, dialect, name)`` returns a :class:`CSource` whose text defines

    <kernel_prefix> void NAME(<buffer_qual> T *restrict a0, ..., int64 n_<symbol>, ...)

one typed pointer per kernel argument (inputs ``const``; element ``i`` of the flat
row-major buffer is ``a<arg>[i]``, bool stored as one byte) followed by one int64 per
``Kernel.size_symbols`` entry, so one compiled kernel serves every size. Buffers are
``restrict``: the runtime never passes one buffer as two arguments (an in-place pair's
input is never accessed, its data is read through the output).

**Without threads** (dialect ``c``) the kernel is the loop nest of ``kernel_ir``'s
docstring. Accumulate-style kernels loop over the kept points and, inside, over the
reduced axes in iteration order, so every output element folds its terms in the same
order as a sequential loop (bit for bit what the LLVM backend's in-order updates give).

**With threads** (``opencl``, ``cuda``; see ``LaunchSpec``):

* pointwise kernels (no reduced axes) are a grid-stride loop over the flat index of
  the iteration space, decomposed into axis indices; where every store walks the
  innermost loop axis contiguously, a thread takes a chunk of 16 bytes of points with
  vector loads/stores, the alignment checked at run time (``vectors.py``);
* row-style kernels with a static row of up to ``rows.LANE_BYTES`` per lane run as
  row segments with the row in registers (``rows.py``: a warp per short row, several
  rows a group; a group per longer row; ``LaunchSpec.rows`` rows a group); others (a
  symbolic or very long row) run one work-group per outer point (a group-stride loop
  over the outer points): every stage level folds a strided share of the row per
  thread, then a tree reduction in shared/local memory of ``dialect.local_size`` slots
  (its last steps as warp shuffles on CUDA: the same pairs, so the same bits) gives
  every thread the stage's value; outer stores run on thread 0, inner stores are
  strided over the threads. The launch must use exactly ``local_size`` threads per
  group;
* accumulate-style kernels run one work-group per tile of ``tile`` consecutive kept
  points (flat index); the group's ``slices = local_size / tile`` thread slices split
  the reduced points: **summation order**: slice s folds the flat reduced indices
  s, s + slices, s + 2 slices, ... in increasing order, then the slices fold pairwise
  in shared memory (slice s with s + w, w = slices/2, ..., 1; the last steps as warp
  shuffles on CUDA) and slice 0 stores (``columns.py``). ``column_split`` picks one
  slice (a thread per kept point, folding in iteration order: bit-exact like the
  loops) when there are few reduced points or many kept ones; otherwise tiles of 8 kept points (fewer
  when the kept points are few) and as many slices as fill the group.

Results are deterministic for a given dialect, kernel and launch (the tile and slice
counts are fixed at render time, the grid does not change them). Float sums and
products of row-style stages and of sliced columns are reassociated (strided partials,
then a tree): accurate like the LLVM backend's vector partial sums, not bit-identical
to a sequential loop. Stores whose index ignores a distributed axis (several points
write one element) are done only at the last such point, the element ``evaluate``
leaves there.

A row-style value that a stage and an inner store both compute (softmax's
``exp(x - max)``: ``loops.reused_value``, transcendentals only) is left in the
store's output by the stage loop and loaded back by the store loop: the same thread
writes and reads each element (the stage and store loops share their distribution),
and the value round-trips in its own dtype, so results are bit-identical to
computing it twice.

Loops run over the loop axes of ``lower/loops.py``'s ``plan_axes`` (extent-1 axes
dropped, linear runs merged), so a contiguous (B, H, C) elementwise kernel is one flat
loop. Each loop body opens with ``dialect.loop_pragmas(innermost, trip)`` (none in
c/opencl/cuda; HLS pipelines its innermost loops).

**Streams and interleaved partials** (non-threaded dialects; HLS). ``render(io=...)``
makes arguments FIFO streams (``streams.py`` says which may be): a streamed input is
read once per point (``a0.read()``), or once per row into an on-chip row buffer that a
row-style kernel's passes then index; a streamed output is written once per point it
is stored at; a ``"discard"`` output is not a parameter and its stores are dropped (a
value no one reads). With ``dialect.tiled_dots``, a dot kernel is the tiled
matrix-multiply template of ``tiled_dot.py``. With ``dialect.partials`` > 1, a float sum or product folds
point t of its loop into accumulator ``t % partials`` and the accumulators are folded
pairwise at the end (``hls_dialect.py`` states the order), so a pipelined loop keeps
II=1.
"""

import contextlib
import dataclasses
import functools

import numpy as np

from tjit._sympy import sympy
from tjit.lower.c import columns, dialects, rows, streams, tiled_dot, vectors
from tjit.lower.c import lanes as lanes_mod
from tjit.lower.c.scalar import F16, TRANSCENDENTAL, Scalar, check_dtype
from tjit.lower.c.sizes import Sizes, param_name
from tjit.lower.loops import plan_axes, prod, reused_value, stage_levels
from tjit.xla_like import kernel_ir as K

__all__ = ["CSource", "LaunchSpec", "Param", "render"]

I64 = np.dtype(np.int64)


@dataclasses.dataclass(frozen=True)
class Param:
    """One kernel parameter: a buffer (``role`` "in"/"out", its element dtype) or a
    size (``symbol``: the size symbol's name; an int64 passed by value)."""
    name: str
    kind: str               # "buffer" | "size"
    dtype: np.dtype
    role: str = ""
    symbol: str = ""


@dataclasses.dataclass(frozen=True)
class LaunchSpec:
    """How to launch a threaded kernel: ``kind`` "pointwise" (work = chunks of
    ``vector`` consecutive points, ``unroll`` per thread and grid-stride step; any
    groups of ``local_size`` threads), "row" (work = outer points, one group each) or
    "column" (work = tiles of ``tile`` kept points of an accumulate-style kernel, one
    group each; its ``slices = local_size / tile`` thread slices split the reduced
    points). Row and column groups must have exactly ``local_size`` threads. Any grid
    is correct (the kernels stride); ``grid`` picks one: a group per work item up to
    ``max_groups`` (pointwise: ``ceil(work / (local_size * unroll))``). Column results
    depend on ``tile``/``slices`` (fixed at render time), not on the grid."""
    kind: str
    work: object            # int or sympy expression over size symbols
    local_size: int
    tile: int = 1           # "column": kept points per group
    slices: int = 1         # "column": threads folding one kept point
    vector: int = 1         # "pointwise": points per work item (a chunk)
    unroll: int = 1         # "pointwise": chunks per thread and grid-stride step
    rows: int = 1           # "row": rows per group (row segments, ``rows.py``)

    def items(self, sizes=None):
        """The work count for ``sizes`` (symbol name -> int)."""
        if isinstance(self.work, (int, np.integer)):
            return int(self.work)
        names, fn = _work_fn(self.work)
        return int(fn(*(sizes[n] for n in names)))

    def grid(self, sizes=None, max_groups=65535):
        """``(groups, local_size)``: groups of ``local_size`` threads to launch."""
        n = self.items(sizes)
        per = self.local_size * self.unroll if self.kind == "pointwise" else self.rows
        groups = -(-n // per)
        return max(1, min(groups, max_groups)), self.local_size


@functools.lru_cache(maxsize=1024)
def _work_fn(work):
    """A plain Python function of the size symbols (sympy's ``subs`` costs ~100 us,
    an order more than a launch)."""
    syms = sorted(sympy.sympify(work).free_symbols, key=str)
    return tuple(str(s) for s in syms), sympy.lambdify(syms, work, "math")


@dataclasses.dataclass(frozen=True)
class CSource:
    """Rendered source of one kernel: ``text`` (prelude included), the ``entry``
    function's name, its ``params`` in order, the ``launch`` spec and the dialect."""
    text: str
    entry: str
    params: tuple
    launch: LaunchSpec
    dialect: str
    #: ``text`` in two parts: the dialect's prelude (macros, includes, the float64
    #: pragma) and the body (guarded helpers, then the kernel). Several kernels' bodies
    #: may follow one prelude in one translation unit / program.
    prelude: str = ""
    body: str = ""


def _zero(c):
    return c == 0


class _Known(set):
    """``K.walk``'s visited set, counting the nodes ``scope`` already names as visited:
    a value request walks only what is new, not the whole DAG below it again (vectorized
    chunks ask once per lane and per invariant node: quadratic in the kernel's size)."""

    __slots__ = ("scope",)

    def __init__(self, scope):
        super().__init__()
        self.scope = scope

    def __contains__(self, i):
        return i in self.scope or set.__contains__(self, i)


class _Renderer:
    def __init__(self, kernel, dialect, name, io=None, top=True, lanes=1, packet_row=None,
                 dot_grid=None, row_slack=None):
        self.k = kernel
        self.d = dialect
        self.name = name
        self.io = dict(io or {})     # arg -> "stream" | "discard" (others: memory)
        self.top = top
        self.rowbuf = {}             # streamed input of a row-style kernel -> its buffer
        self.row_in = {}             # streamed row input -> points a row (streams.py)
        self.row_vals = {}           # streamed row input -> its value for this row
        self.lanes = lanes           # points a step (lanes.py: W-lane pointwise stages)
        self.lane = {}               # streamed arg -> its packet's lane at this point
        self.packet_row = packet_row  # W-lane pointwise: packets cut rows of this many
        self.row_slack = row_slack   # W-lane row style: steps between passes (lanes.py)
        self.dot_grid = dot_grid     # HLS dots: the PE grid (P, Q) (tiled_dot.py)
        self.s = Scalar(dialect)
        i64 = dialect.type(I64)
        self.i64 = i64
        self.sizes = Sizes(kernel.size_symbols, i64, lambda: self.s.helper(
            "tj_floordiv", f"{i64} tj_floordiv({i64} x, {i64} y) {{ {i64} q = x / y; "
                           f"return (x % y != 0 && ((x % y < 0) != (y < 0))) ? q - 1 : q; }}"))
        self.lines = []
        self.depth = 1
        self.plan = plan_axes(kernel)
        self.idx = {g: "0" for g in range(len(self.plan.groups))}   # loop axis -> index
        self.plane = None         # (axis, index) of the hyperplane
        self.nvar = 0
        self.shared = []
        self.stage_vals = {}
        self.reuse = None         # loops.reused_value of a row-style kernel

    # -- text --------------------------------------------------------------------------
    def emit(self, line):
        self.lines.append("    " * self.depth + line)

    @contextlib.contextmanager
    def block(self, head):
        self.emit(head + " {")
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.emit("}")

    def var(self, prefix="v"):
        self.nvar += 1
        return f"{prefix}{self.nvar}"

    # -- entry -------------------------------------------------------------------------
    def render(self):
        k, d = self.k, self.d
        K.check_kernel(k)
        self._check_io()
        params = []
        for i, a in enumerate(k.args):
            dt = check_dtype(a.dtype, f"argument {i}")
            if dt == F16 and not d.half_mem:
                raise NotImplementedError(f"C renderer: dialect {d.name!r} does not render "
                                          "float16; route it to a library call")
            if self.io.get(i) == "discard":
                continue
            if self.io.get(i) == "stream":
                t = lanes_mod.packet_type(d, dt, lanes_mod.arg_lanes(k, i, self.lanes))
                params.append((f"{d.stream_type.format(t=t)}a{i}",
                               Param(f"a{i}", "stream", dt, a.role)))
                continue
            const = "const " if a.role == "in" else ""
            params.append((f"{d.buffer_qual} {const}{d.mem_type(dt)} *{d.restrict} a{i}"
                           .strip(), Param(f"a{i}", "buffer", dt, a.role)))
        for s in k.size_symbols:
            params.append((f"{self.i64} {param_name(s)}",
                           Param(param_name(s), "size", I64, symbol=str(s))))
        if k.hyperplane is not None:
            self._hyperplane()
        if not k.row_style:
            work, tile, slices = columns.render(self)
            launch = LaunchSpec("column", work, d.local_size, tile=tile, slices=slices)
        elif k.reduce_axes:
            launch = self._row_style()
        else:
            launch = self._pointwise()
        prefix = d.kernel_prefix if self.top else d.static_prefix
        head = f"{prefix} void {self.name}(" + ", ".join(p for p, _ in params) + ")"
        ports = d.interface_pragmas([p for _, p in params]) if self.top else ()
        top = [s for s in ports] + ["    " + s for s in self.shared] + \
            ["    " + s for s in self.sizes.decls()]
        body = "\n".join([head.strip() + " {"] + top + self.lines + ["}"])
        uses_f64 = any(np.dtype(getattr(n, "dtype", I64)) == np.float64
                       for n in K.all_nodes(k)) or \
            any(np.dtype(a.dtype) == np.float64 for a in k.args) or \
            any(np.dtype(s.dtype) == np.float64 for s in k.stages)
        prelude = "\n".join(p for p in (d.prelude, d.f64_prelude if uses_f64 else "") if p)
        helpers = self.s.prelude()
        text = "\n".join(p for p in (prelude, helpers, body) if p) + "\n"
        return CSource(text, self.name, tuple(p for _, p in params), launch, d.name,
                       prelude, helpers + "\n" + body + "\n")

    def _check_io(self):
        if not self.io:
            return
        if self.d.threaded or not self.d.stream_type:
            raise ValueError(f"C renderer: dialect {self.d.name} has no streams "
                             f"(kernel {self.k.name}, io={self.io})")
        ok = streams.stream_args(self.k)
        for arg, how in self.io.items():
            if how == "discard" and self.k.args[arg].role == "out":
                continue
            if how != "stream" or arg not in ok:
                raise ValueError(
                    f"kernel {self.k.name}: argument {arg} cannot be a {how!r} (streams: "
                    f"{sorted(ok)}; only outputs are discarded; see lower/c/streams.py)")
        rows = streams.row_inputs(self.k)
        self.row_in = {a: rows[a] for a, how in self.io.items() if how == "stream" and
                       ok.get(a) == "row"}
        for arg in self.io:
            if self.io[arg] == "stream" and self.k.args[arg].role == "in" and \
                    self.k.reduce_axes and self.k.row_style and arg not in self.row_in:
                n = streams.row_capacity(self.k)
                self.rowbuf[arg] = f"rb{arg}"
                if lanes_mod.overlapped_rows(self.k, self.io, self.lanes):
                    continue        # (read a packet a step: delay lines, lanes.py)
                self.shared.append(f"{self.d.mem_type(self.k.args[arg].dtype)} rb{arg}[{n}];")

    def _hyperplane(self):
        """The plane's index, computed once; off the range the kernel does nothing."""
        axis, offset, size = self.k.hyperplane
        v = self.value(offset, {})
        odt = check_dtype(offset.dtype, "hyperplane index")
        self.emit(f"const {self.i64} plane = {self._to_i64(v, odt)};")
        self.emit(f"if (plane < 0 || plane >= {self.sizes(size)}) return;")
        self.plane = (axis, "plane")

    def _to_i64(self, v, dt):
        """An integer value as an index; uint64 values beyond int64 stay out of range
        (clamped to INT64_MAX, as ``evaluate`` does)."""
        dt = np.dtype(dt)
        if dt == np.uint64:
            return f"({v} > {self.s.const(2**63 - 1, dt)} ? {self.s.const(2**63 - 1, I64)} " \
                   f": ({self.i64}){v})"
        return self.s.convert(v, dt, I64)

    # -- loops (over loop axes: plan groups) -------------------------------------------
    @contextlib.contextmanager
    def nest(self, gs, innermost=True):
        """Sequential loops over loop axes ``gs`` (outer to inner), in iteration order;
        ``innermost``: no loop is rendered inside them (for ``loop_pragmas``)."""
        with contextlib.ExitStack() as stack:
            for n, g in enumerate(gs):
                ext = self.sizes(self.plan.extents[g])
                stack.enter_context(self.block(
                    f"for ({self.i64} i{g} = 0; i{g} < {ext}; i{g}++)"))
                self.pragmas(innermost and n == len(gs) - 1, self.plan.extents[g])
                self.idx[g] = f"i{g}"
            yield
        for g in gs:
            self.idx[g] = "0"

    def pragmas(self, innermost, trip):
        for line in self.d.loop_pragmas(innermost, trip):
            self.emit(line)

    @contextlib.contextmanager
    def strided(self, gs, first, step, extents=None, innermost=True):
        """``for (f = first; f < total; f += step)`` over the flat index of loop axes
        ``gs`` (their ``extents``, default the plan's), decomposed into their indices
        (the innermost varies fastest)."""
        ext = extents or {g: self.plan.extents[g] for g in gs}
        total = prod(ext[g] for g in gs)
        f = self.var("f")
        with self.block(f"for ({self.i64} {f} = {first}; {f} < {self.sizes(total)}; "
                        f"{f} += {step})"):
            self.pragmas(innermost, total)
            self.decompose(f, gs, ext)
            yield
        for g in gs:
            self.idx[g] = "0"

    def decompose(self, flat, gs, ext, suffix=""):
        """``i<g><suffix>`` for loop axes ``gs`` from their flat index ``flat`` (extents
        ``ext``); ``suffix`` tells apart several points decomposed in one scope."""
        rest = flat
        for n, g in enumerate(reversed(gs)):
            name = f"i{g}{suffix}"
            if n == len(gs) - 1:
                self.emit(f"const {self.i64} {name} = {rest};")
            else:   # (an extent 0 means no iterations: keep C from dividing by 0)
                e = self.sizes(ext[g]) if ext[g] != 0 else "1"
                self.emit(f"const {self.i64} {name} = {rest} % {e};")
                nxt = self.var("r")
                self.emit(f"const {self.i64} {nxt} = {rest} / {e};")
                rest = nxt
            self.idx[g] = name

    # -- values ------------------------------------------------------------------------
    def affine(self, a):
        """The element index of affine map ``a`` at the current loop indices (a merged
        loop axis steps by its innermost axis' coefficient)."""
        terms = [] if _zero(a.offset) else [self.sizes(a.offset)]
        pairs = [(a.coefs[axes[-1]], self.idx[g]) for g, axes in enumerate(self.plan.groups)]
        if self.plane is not None:
            pairs.append((a.coefs[self.plane[0]], self.plane[1]))
        for c, i in pairs:
            if _zero(c) or i == "0":
                continue
            terms.append(i if c == 1 else f"{self.sizes(c)} * {i}")
        return " + ".join(terms) or "0"

    def _load(self, arg, at, dt):
        if np.dtype(dt) == F16:
            return self.s.half("half_load", ptr=f"a{arg}", at=at)
        ref = f"a{arg}[{at}]"
        return f"({ref} != 0)" if np.dtype(dt).kind == "b" else ref

    def store_line(self, arg, at, v, dt):
        """The statement ``a<arg>[at] = v`` for the C value ``v`` of dtype ``dt``."""
        dt = np.dtype(dt)
        if dt == F16:
            return self.s.half("half_store", ptr=f"a{arg}", at=at, value=v)
        if dt.kind == "b":
            v = f"({self.d.mem_type(dt)}){v}"
        return f"a{arg}[{at}] = {v};"

    def value(self, root, scope):
        """The C name/literal of expression ``root`` at the current indices (memo:
        ``scope``, one per loop body)."""
        if id(root) in scope:
            return scope[id(root)]
        for n in K.walk(root, _Known(scope)):
            if isinstance(n, K.Const):
                scope[id(n)] = self.s.const(n.value, n.dtype)
                continue
            if isinstance(n, K.Stage):   # (a float16 sum is a float until used)
                v = self.stage_vals[n.k]
                scope[id(n)] = self.s.round_half(v) if np.dtype(n.dtype) == F16 else v
                continue
            dt = check_dtype(n.dtype, "value")
            if isinstance(n, K.Load) and self.io.get(n.arg) == "stream":
                key = ("stream", n.arg)     # equal loads: one read per point
                if key not in scope:
                    scope[key] = self._stream_load(n)
                scope[id(n)] = scope[key]
                continue
            if isinstance(n, K.Load):
                text = self._load(n.arg, self.affine(n.index), dt)
            elif isinstance(n, K.IndexedLoad):
                text = self._indexed_load(n, scope)
            elif isinstance(n, K.IndexValue):
                text = self.s.convert(f"(({self.i64})({self.affine(n.index)}))", I64, dt)
            else:
                text = self.s.op(n.op, [scope[id(a)] for a in n.args],
                                 [a.dtype for a in n.args], dt)
            name = self.var()
            self.emit(f"const {self.d.type(dt)} {name} = {text};")
            scope[id(n)] = name
        return scope[id(root)]

    def _stream_load(self, n):
        """A streamed input's value at this point: from its row buffer (row style) or
        the stream's next element."""
        if n.arg in self.row_vals:
            ref = self.row_vals[n.arg]
        elif n.arg in self.lane:
            ref = self.lane[n.arg]
        elif n.arg in self.rowbuf:
            ref = f"{self.rowbuf[n.arg]}[{self._inner_affine(n.index)}]"
        else:
            ref = f"a{n.arg}.read()"
        name = self.var()
        dt = np.dtype(n.dtype)
        text = f"({ref} != 0)" if dt.kind == "b" else ref
        self.emit(f"const {self.d.type(dt)} {name} = {text};")
        return name

    def _inner_affine(self, a):
        """The index within the row (the reduced loop axes' terms of ``a``)."""
        terms = []
        for g, axes in enumerate(self.plan.groups):
            c, i = a.coefs[axes[-1]], self.idx[g]
            if self.plan.reduce[g] and not _zero(c) and i != "0":
                terms.append(i if c == 1 else f"{self.sizes(c)} * {i}")
        return " + ".join(terms) or "0"

    def _fill_rows(self):
        """Each streamed input's row, read once into its row buffer."""
        n = streams.row_buffered_len(self.k)
        for arg, buf in self.rowbuf.items():
            j = self.var("j")
            with self.block(f"for ({self.i64} {j} = 0; {j} < {self.sizes(n)}; {j}++)"):
                self.pragmas(True, n)
                self.emit(f"{buf}[{j}] = a{arg}.read();")

    def _indexed_load(self, n, scope):
        """``arg[index + clamp(offset, 0, size - 1) * stride]``, or ``fill`` when the
        offset is out of range (the clamped address is read either way: safe)."""
        odt = check_dtype(n.offset.dtype, "gather index")
        off, at = self.var("o"), self.var("c")
        size = self.sizes(n.size)
        self.emit(f"const {self.i64} {off} = {self._to_i64(scope[id(n.offset)], odt)};")
        self.emit(f"const {self.i64} {at} = {off} < 0 ? 0 : {off} > {size} - 1 ? "
                  f"({size} > 0 ? {size} - 1 : 0) : {off};")
        v = self._load(n.arg, f"{self.affine(n.index)} + {at} * {self.sizes(n.stride)}",
                       n.dtype)
        if n.fill is None:
            return v
        return f"(({off} < 0 || {off} >= {size}) ? {self.s.const(n.fill, n.dtype)} : {v})"

    def typed(self, expr, dt, scope):
        """``expr``'s value converted (convert semantics) to dtype ``dt``."""
        return self.s.convert(self.value(expr, scope), check_dtype(expr.dtype, "reduction"),
                              check_dtype(dt, "reduction"))

    def store(self, st, scope, guard=()):
        """``a<arg>[index] = expr``; with threads, only at the last point along the
        loop axes of ``guard`` that the index ignores (the write ``evaluate`` keeps)."""
        dt = check_dtype(self.k.args[st.arg].dtype, f"store to argument {st.arg}")
        if np.dtype(st.expr.dtype) != dt:
            raise ValueError(f"kernel {self.k.name}: store of a {np.dtype(st.expr.dtype)} "
                             f"value into argument {st.arg} of dtype {dt}")
        v = self.value(st.expr, scope)
        how = self.io.get(st.arg)
        if how == "discard":
            return
        if how == "stream" and dt.kind == "b":
            v = f"({self.d.mem_type(dt)}){v}"
        if how == "stream" and st.arg in self.lane:
            self.emit(f"{self.lane[st.arg]} = {v};")
            return
        if how == "stream":
            self.emit(f"a{st.arg}.write({v});")
            return
        line = self.store_line(st.arg, self.affine(st.index), v, dt)
        groups = self.plan.groups
        ignored = [g for g in guard if _zero(st.index.coefs[groups[g][-1]])]
        if ignored and self.d.threaded:
            cond = " && ".join(f"i{g} == {self.sizes(self.plan.extents[g])} - 1"
                               for g in ignored)
            line = f"if ({cond}) {line}"
        self.emit(line)

    # -- pointwise ---------------------------------------------------------------------
    def _pointwise(self):
        k, d = self.k, self.d
        vp = vectors.vector_plan(k, self.plan, d)
        if vp is not None:
            return LaunchSpec("pointwise", vectors.render(self, vp), d.local_size,
                              vector=vp.points, unroll=vp.u)
        if self.lanes > 1:
            return LaunchSpec("pointwise", lanes_mod.render(self), d.local_size)
        axes = list(range(len(self.plan.groups)))
        loop = self.strided(axes, d.global_id, d.global_size) if d.threaded \
            else self.nest(axes)
        count = self.row_input_decls()
        with loop:
            if count is not None:
                self.row_input_reads(f"{count} == 0")
                self.emit(f"{count} = {count} + 1 == {self._row_points()} ? 0 : "
                          f"{count} + 1;")
            self.point_body(axes)
        return LaunchSpec("pointwise", prod(self.plan.extents), d.local_size)

    # -- row inputs (streams.row_inputs: a value a row, read at the row's start) ----------
    def _row_points(self):
        return self.sizes(next(iter(self.row_in.values())))

    def row_input_decls(self, count=True):
        """A pointwise kernel's row inputs: their values and (``count``) the point count
        within the row, declared before the loop; returns the count's name."""
        if not self.row_in:
            return None
        for a in self.row_in:
            self.row_vals[a] = self.var("rv")
            self.emit(f"{self.d.mem_type(self.k.args[a].dtype)} {self.row_vals[a]}{{}};")
        if not count:
            return None
        count = self.var("rc")
        self.emit(f"{self.i64} {count} = 0;")
        return count

    def row_input_reads(self, cond=None):
        """Read each row input's value for the row that starts here (where ``cond``)."""
        for a in self.row_in:
            if cond is None:
                self.row_vals[a] = self.var("rv")
                self.emit(f"const {self.d.mem_type(self.k.args[a].dtype)} "
                          f"{self.row_vals[a]} = a{a}.read();")
            else:
                self.emit(f"if ({cond}) {self.row_vals[a]} = a{a}.read();")

    def point_body(self, axes):
        """A pointwise kernel's stages and stores at the current point."""
        scope = {}
        for j, s in enumerate(self.k.stages):   # a stage is its expression at the point
            self.stage_vals[j] = self._bind(self.typed(s.expr, s.dtype, scope), s.dtype)
        for st in self.k.stores:
            self.store(st, scope, axes)

    def _bind(self, text, dt):
        name = self.var("s")
        self.emit(f"const {self.d.type(dt)} {name} = {text};")
        return name

    # -- row style ---------------------------------------------------------------------
    def _row_style(self):
        k, d = self.k, self.d
        outer = [g for g, r in enumerate(self.plan.reduce) if not r]
        inner = [g for g, r in enumerate(self.plan.reduce) if r]
        if not d.threaded and lanes_mod.overlapped_rows(k, self.io, self.lanes):
            return LaunchSpec("row", lanes_mod.render_rows(self), d.local_size)
        dot = tiled_dot.match(k, self.plan, d.threaded, self.dot_grid) if d.tiled_dots \
            else None
        if dot is not None:     # (HLS: the matrix-multiply template; OpenCL: tiles)
            return LaunchSpec("row", tiled_dot.render(self, dot), d.local_size)
        rp = rows.row_plan(k, self.plan, d) if not self.io else None
        if rp is not None:      # (threads: row segments, the row in registers)
            return LaunchSpec("row", rows.render(self, rp), d.local_size, rows=rp.rows)
        outer_st = [s for s in k.stores if s.level == "outer"]
        inner_st = [s for s in k.stores if s.level != "outer"]
        threads = d.threaded
        # a store that ignores an outer axis is written at one outer point only (the
        # last): it cannot also hold a value at every point
        whole = [st for st in inner_st if not any(
            _zero(st.index.coefs[self.plan.groups[g][-1]]) for g in outer)]
        self.reuse = reused_value(k, whole, TRANSCENDENTAL.__contains__) \
            if inner and d.reuse_stores else None
        loop = self.strided(outer, d.group_id, d.num_groups, innermost=False) if threads \
            else self.nest(outer, innermost=False)
        with loop:
            self.row_input_reads()
            self._fill_rows()
            for lv in stage_levels(k):
                self._stage_level(lv, inner)
            if outer_st:
                cm = self.block(f"if ({d.local_id} == 0)") if threads else \
                    contextlib.nullcontext()
                with cm:
                    scope = {}
                    for st in outer_st:
                        self.store(st, scope, outer)
            if inner_st:
                with self._inner(inner):
                    scope = {}
                    if self.reuse is not None:   # left in the output by the stage loop
                        node, st, _ = self.reuse
                        scope[id(node)] = self._bind(
                            self._load(st.arg, self.affine(st.index), node.dtype), node.dtype)
                    for st in inner_st:
                        self.store(st, scope, outer + inner)
        return LaunchSpec("row", prod(self.plan.extents[g] for g in outer), d.local_size)

    def _inner(self, inner):
        d = self.d
        if d.threaded:
            return self.strided(inner, d.local_id, str(d.local_size))
        return self.nest(inner)

    def _stage_level(self, js, inner):
        """Stages ``js`` (independent of each other) folded in one pass over the row."""
        ks, d = self.k.stages, self.d
        accs = {}
        for j in js:
            accs[j] = self.var("acc")
            self.emit(f"{d.type(ks[j].dtype)} {accs[j]} = "
                      f"{self.s.identity(ks[j].monoid, ks[j].dtype)};")
        part = self._partials(js) if not d.threaded else {}
        with self._inner(inner):
            scope = {}
            for j in js:
                x = self.typed(ks[j].expr, ks[j].dtype, scope)
                self._accumulate(j, accs[j], x, part)
            self._advance(part)
            if self.reuse is not None and self.reuse[2] in js:
                node, st, _ = self.reuse
                self.emit(self.store_line(st.arg, self.affine(st.index), scope[id(node)],
                                          node.dtype))
        if d.threaded:
            self._tree_reduce(js, accs)
        else:
            self._fold_partials(accs, part)
            for j in js:
                self.stage_vals[j] = self._bind(accs[j], ks[j].dtype)

    # -- interleaved partial accumulators (dialect.partials) ------------------------------
    def _partials(self, js):
        """``{stage: array name}`` of the float sums/products of ``js`` that fold into
        ``dialect.partials`` interleaved accumulators (declared here), plus the point
        counter under the key None; {} when there are none."""
        n, ks = self.d.partials, self.k.stages
        arrs = {j: self.var("part") for j in js
                if n > 1 and ks[j].monoid in ("sum", "prod") and
                np.dtype(ks[j].dtype).kind == "f"}
        if not arrs:
            return {}
        for j, a in arrs.items():
            t = self.d.type(ks[j].dtype)
            ident = self.s.identity(ks[j].monoid, ks[j].dtype)
            self.emit(f"{t} {a}[{n}] = {{{', '.join([ident] * n)}}};")
            self.emit(f"#pragma HLS ARRAY_PARTITION variable={a} complete")
            self.emit(f"#pragma HLS DEPENDENCE variable={a} inter distance={n} true")
        arrs[None] = self.var("slot")
        self.emit(f"int {arrs[None]} = 0;")
        return arrs

    def _accumulate(self, j, acc, x, part):
        s = self.k.stages[j]
        if j in part:
            ref = f"{part[j]}[{part[None]}]"
            self.emit(f"{ref} = {self.s.combine(s.monoid, ref, x, s.dtype)};")
        else:
            self.emit(f"{acc} = {self.s.combine(s.monoid, acc, x, s.dtype)};")

    def _advance(self, part):
        if part:
            c = part[None]
            self.emit(f"{c} = {c} == {self.d.partials - 1} ? 0 : {c} + 1;")

    def _fold_partials(self, accs, part):
        """Each partial array folded pairwise (p0 (+) p1, p2 (+) p3, ..., then the pairs'
        results the same way) into the stage's accumulator."""
        for j, arr in part.items():
            if j is None:
                continue
            s = self.k.stages[j]
            vals = [f"{arr}[{i}]" for i in range(self.d.partials)]
            self.emit(f"{accs[j]} = {self.fold_pairwise(vals, s.monoid, s.dtype, 'pf')};")

    def fold_pairwise(self, vals, monoid, dtype, prefix):
        """``vals`` (C expressions) combined pairwise: v0 (+) v1, v2 (+) v3, ..., then the
        pairs' results the same way (an odd one out goes up a level as it is); returns
        the name holding the result. The reduction order the tolerance tables assume."""
        while len(vals) > 1:
            nxt = []
            for a, b in zip(vals[::2], vals[1::2]):
                name = self.var(prefix)
                self.emit(f"const {self.d.type(dtype)} {name} = "
                          f"{self.s.combine(monoid, a, b, dtype)};")
                nxt.append(name)
            if len(vals) % 2:
                nxt.append(vals[-1])
            vals = nxt
        return vals[0]

    def _tree_reduce(self, js, accs, stride=1, lane="0"):
        """Every thread's partials folded pairwise (``x[i] (+) x[i + w]``, w halving
        down to ``stride``) in shared memory, the last steps within one warp by shuffles
        where the dialect has them (the same pairs: the same bits); every thread reads
        the result of its ``lane`` (< stride), and the last barrier frees the slots for
        the next row, level or tile. Rows use stride 1; column tiles fold their slices
        (stride: the kept points per tile)."""
        ks, d = self.k.stages, self.d
        n, lid, warp = d.local_size, d.local_id, d.warp_size
        warp = warp if warp and n >= warp and stride < warp else 0
        sh = {}
        for j in js:
            dt = np.dtype(ks[j].dtype)
            sh[j] = f"sh{j}"
            self.shared.append(f"{d.shared_qual} {d.shared_type(dt)} {sh[j]}[{n}];")
            self.emit(f"{sh[j]}[{lid}] = {self._to_mem(accs[j], dt)};")
        self.emit(d.barrier)
        step = self.var("w")
        with self.block(f"for (int {step} = {n // 2}; {step} >= {max(warp, stride)}; "
                        f"{step} >>= 1)"):
            with self.block(f"if ({lid} < {step})"):
                for j in js:
                    dt = np.dtype(ks[j].dtype)
                    a, b = self.var("x"), self.var("y")
                    self.emit(f"const {d.type(dt)} {a} = "
                              f"{self._from_mem(f'{sh[j]}[{lid}]', dt)};")
                    self.emit(f"const {d.type(dt)} {b} = "
                              f"{self._from_mem(f'{sh[j]}[{lid} + {step}]', dt)};")
                    c = self.s.combine(ks[j].monoid, a, b, dt)
                    self.emit(f"{sh[j]}[{lid}] = {self._to_mem(c, dt)};")
            self.emit(d.barrier)
        if warp:
            self._warp_reduce(js, sh, warp, stride)
        for j in js:
            dt = np.dtype(ks[j].dtype)
            self.stage_vals[j] = self._bind(self._from_mem(f"{sh[j]}[{lane}]", dt), dt)
        self.emit(d.barrier)

    def _warp_reduce(self, js, sh, warp, stride):
        """The last tree steps (offsets warp/2 .. stride) in the first warp's registers."""
        ks, d, lid = self.k.stages, self.d, self.d.local_id
        with self.block(f"if ({lid} < {warp})"):
            vals = {}
            for j in js:
                dt = np.dtype(ks[j].dtype)
                vals[j] = self.var("p")
                self.emit(f"{d.type(dt)} {vals[j]} = {self._from_mem(f'{sh[j]}[{lid}]', dt)};")
            off = self.var("o")
            with self.block(f"for (int {off} = {warp // 2}; {off} >= {stride}; {off} >>= 1)"):
                for j in js:
                    dt = np.dtype(ks[j].dtype)
                    other = self.var("q")
                    self.emit(f"const {d.type(dt)} {other} = "
                              f"{self._shuffle(d.shuffle_down, vals[j], dt, offset=off)};")
                    self.emit(f"{vals[j]} = {self.s.combine(ks[j].monoid, vals[j], other, dt)};")
            with self.block(f"if ({lid} < {stride})"):
                for j in js:
                    self.emit(f"{sh[j]}[{lid}] = {self._to_mem(vals[j], ks[j].dtype)};")
        self.emit(d.barrier)

    def _shuffle(self, spelling, v, dt, **where):
        """The dialect's shuffle ``spelling`` of ``v`` (``where``: its offset, width;
        narrow types travel as int)."""
        dt = np.dtype(dt)
        if dt.itemsize >= 4 or dt == F16:    # (a float16 value is a float)
            return spelling.format(value=v, **where)
        moved = spelling.format(value=f"(int){v}", **where)
        return f"({moved} != 0)" if dt.kind == "b" else f"({self.d.type(dt)}){moved}"

    def _to_mem(self, v, dt):
        return f"({self.d.mem_type(dt)}){v}" if np.dtype(dt).kind == "b" else v

    def _from_mem(self, ref, dt):
        return f"({ref} != 0)" if np.dtype(dt).kind == "b" else ref


def render(kernel, dialect="c", name=None, io=None, top=True, lanes=1, packet_row=None,
           dot_grid=None, row_slack=None):
    """Render one kernel as C-family source.

    Args:
      kernel: a ``kernel_ir.Kernel`` (checked with ``kernel_ir.check_kernel``).
      dialect: a ``dialects.Dialect`` or its name: ``"c"``, ``"opencl"``, ``"cuda"``,
        ``"hls"``.
      name: the entry function's name (default: ``tjit_`` + the kernel hash's start,
        so equal names mean equal code).
      io: ``{arg: "stream" | "discard"}`` for dialects with streams (HLS dataflow
        stages; ``streams.stream_args`` says which arguments may be streams).
      top: a top-level function (``kernel_prefix``, the dialect's interface pragmas);
        False: a stage called by a generated top (``static_prefix``, no ports).
      lanes: points a pipelined step of a pointwise HLS stage handles, its streams
        carrying packets of that many lanes (``lanes.kernel_lanes`` says which can).
      packet_row: a W-lane pointwise stage on streams only whose packets cut rows of
        this many points (the last step of each row masked: the cut of a ragged
        row-style stage it streams with; ``lanes.render``).
      dot_grid: HLS: the (P, Q) grid of multiply-add PEs of a dot in the matrix-multiply
        template (``tiled_dot.py``; default ``tiled_dot.DEFAULT_GRID``).
      row_slack: a W-lane row-style HLS stage: the steps each of its passes but the
        last needs after a row's last step before the row's values are ready (the
        schedule of ``lanes.render_rows``: ``fpga/row_passes.py``); None: 0, and no
        dependence pragmas (the tool finds the distances itself).
    Returns:
      a :class:`CSource`.
    Raises:
      NotImplementedError: complex dtypes, float16 in a dialect without it (hls): route
        those to library calls.
      ValueError/TypeError: a kernel that breaks the IR's rules.
    """
    d = dialects.get(dialect)
    name = name or "tjit_" + K.kernel_hash(kernel)[:16]
    if lanes != 1 and lanes != lanes_mod.kernel_lanes(kernel, io or {}):
        raise ValueError(f"C renderer: kernel {kernel.name} cannot take {lanes} lanes a "
                         f"step (io={io}; see lower/c/lanes.py)")
    if packet_row is not None and (lanes == 1 or kernel.reduce_axes or any(
            (io or {}).get(i) not in ("stream", "discard") for i in range(len(kernel.args)))):
        raise ValueError(f"C renderer: kernel {kernel.name} cannot cut its packets per row "
                         f"of {packet_row} (a W-lane pointwise stage on streams only can)")
    return _Renderer(kernel, d, name, io, top, lanes, packet_row, dot_grid,
                     row_slack).render()

