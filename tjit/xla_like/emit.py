"""Build the kernel IR for one fusion group.

Every value of the group is expressed at an index map: one :class:`kernel_ir.Affine`
per dim of the value, as a function of the kernel's iteration indices. Walking from the
roots towards the buffers, structural ops only rewrite the map (broadcast drops or
zeroes dims, transpose permutes, rev negates, slice scales and offsets, a reshape of a
buffer addresses its row-major linear index, a reshape that only splits dims addresses
an inlined operand at the row-major index of each split run, a take loads its buffer at
an index computed in the kernel), elementwise ops keep it, and an inlined row reduction
becomes a stage read back where the map is the identity on the outer axes.
"""

from tjit._sympy import sympy
from tjit.xla_like import kernel_ir as K
from tjit.xla_like.fusion import (
    NeedMaterialize,
    is_buffer,
    is_inlined_constant,
    memory_operand,
    space_of_root,
    split_only_reshape,
    split_runs,
    squeezed,
    take_source,
    unit_only_reshape,
)


class CannotFuse(Exception):
    """A merged group cannot be one kernel; the driver splits it."""


def row_major_strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc = acc * d
    return tuple(reversed(strides))


def _simp(d):
    if isinstance(d, int):
        return d
    d = sympy.expand(d)
    return int(d) if d.is_Integer else d


def _linear(maps, shape, n):
    """Affine of the row-major linear index of a value addressed through ``maps``."""
    offset, coefs = 0, [0] * n
    for a, s in zip(maps, row_major_strides(shape)):
        offset = offset + a.offset * s
        for ax in range(n):
            coefs[ax] = coefs[ax] + a.coefs[ax] * s
    return K.Affine(_simp(offset), tuple(_simp(c) for c in coefs))


def _axis(ax, n, scale=1, offset=0):
    return K.Affine(offset, tuple(scale if a == ax else 0 for a in range(n)))


class KernelBuilder:
    """Builds ``Kernel`` for group ``gid`` of a :class:`~fusion.FusionDecision`."""

    def __init__(self, decision, gid, name):
        self.d = decision
        self.roots = decision.groups[gid]
        self.root_ids = {r.id for r in self.roots}
        self.name = name
        self.shape, self.axes = decision.space(gid)
        self.n = len(self.shape)
        self.n_outer = self.n - len(self.axes)
        self.row = tuple(self.axes) == tuple(range(self.n_outer, self.n))
        self.memo = {}
        self.stages, self.stage_of = [], {}
        self.inputs = []        # Instrs loaded, in argument order
        self.arg_of = {}

    # -- entry point ----------------------------------------------------------------------
    def build(self):
        ident = tuple(_axis(a, self.n) for a in range(self.n))
        outer = ident[:self.n_outer] if self.row else tuple(
            _axis(a, self.n) for a in range(self.n) if a not in self.axes)
        stores = []
        for r in self.roots:
            if r.opcode == "reduce":
                if space_of_root(r) != (self.shape, self.axes):
                    raise CannotFuse()
                k = self._drive(self._stage(r))
                stores.append((r, outer, K.Stage(k, r.dtype), "outer"))
            elif tuple(r.shape) == self.shape:
                stores.append((r, ident, self.expr(r, ident), "inner"))
            elif not self.axes and squeezed(r.shape) == squeezed(self.shape):
                maps = _unit_maps(r.shape, self.shape)
                stores.append((r, maps, self.expr(r, maps), "inner"))
            elif self.row and tuple(r.shape) == self.shape[:self.n_outer]:
                stores.append((r, outer, self.expr(r, outer), "outer"))
            else:
                raise CannotFuse()
        n_in = len(self.inputs)
        args = [K.Arg(i.dtype, "in") for i in self.inputs] + [
            K.Arg(r.dtype, "out") for r in self.roots]
        kstores = tuple(
            K.Store(n_in + j, _linear(maps, r.shape, self.n), e, level)
            for j, (r, maps, e, level) in enumerate(stores))
        if not self.row and any(not isinstance(s.expr, K.Stage) for s in kstores):
            raise CannotFuse()
        kernel = K.Kernel(
            name=self.name, shape=tuple(_simp(d) for d in self.shape), args=tuple(args),
            stages=tuple(self.stages), stores=kstores, reduce_axes=tuple(self.axes),
            size_symbols=())
        kernel = K.Kernel(**{**kernel.__dict__, "size_symbols": _symbols(kernel)})
        K.check_kernel(kernel)
        return kernel, list(self.inputs), list(self.roots)

    # -- expressions ----------------------------------------------------------------------
    def _stage(self, r):
        """(A generator: see ``_drive``.)"""
        if r.id in self.stage_of:
            return self.stage_of[r.id]
        if space_of_root(r) != (self.shape, self.axes) or (
                not self.row and r.id not in self.root_ids):
            raise NeedMaterialize(r)  # accumulate style: stages are the roots only
        ident = tuple(_axis(a, self.n) for a in range(self.n))
        e = yield (r.operands[0], ident)
        k = len(self.stages)
        self.stages.append(K.Reduction(e, r.attrs["monoid"], r.dtype))
        self.stage_of[r.id] = k
        return k

    def _load(self, i, maps):
        """Load buffer ``i`` at the row-major linear index of ``maps`` over its shape."""
        return self._load_linear(i, _linear(maps, i.shape, self.n))

    def _load_linear(self, i, index):
        if i.id not in self.arg_of:
            self.arg_of[i.id] = len(self.inputs)
            self.inputs.append(i)
        return K.Load(self.arg_of[i.id], index, i.dtype)

    def expr(self, i, maps):
        """The kernel expression of value ``i`` at index maps ``maps`` (memoized)."""
        key = (i.id, maps)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._drive(self._expr(i, maps))
        return hit

    def _drive(self, gen):
        """Run an expression generator to its value without Python recursion.

        ``_expr`` and its helpers are generators: ``(yield (value, maps))`` asks for an
        operand's expression. This loop keeps the pending requests on an explicit
        stack, so the depth of an expression DAG never meets the recursion limit.
        """
        stack, value = [(None, gen)], None
        while True:
            key, g = stack[-1]
            try:
                request = g.send(value)
            except StopIteration as done:
                value = done.value
                stack.pop()
                if key is not None:
                    self.memo[key] = value
                if not stack:
                    return value
                continue
            i, maps = request
            key = (i.id, maps)
            value = self.memo.get(key)
            if value is None:
                stack.append((key, self._expr(i, maps)))

    def _expr(self, i, maps):
        """(A generator: see ``_drive``.)"""
        if is_inlined_constant(i):
            return K.Const(i.attrs["value"].item(), i.dtype)
        if is_buffer(i) or (i.id in self.d.materialized and i.id not in self.root_ids):
            return self._load(i, maps)
        op = i.opcode
        if op == "reduce":
            if maps != tuple(_axis(a, self.n) for a in range(self.n_outer)):
                if i.id in self.root_ids:
                    raise CannotFuse()
                raise NeedMaterialize(i)
            return K.Stage((yield from self._stage(i)), i.dtype)
        if op in K.OTHER_OPS or op in K.UNARY_OPS or op in K.BINARY_OPS:
            args = []
            for o in i.operands:
                args.append((yield (o, maps)))
            return K.Op(op, tuple(args), i.dtype)
        if op == "iota":
            return K.IndexValue(maps[i.attrs["dimension"]], i.dtype)
        if op == "size":    # (an index map with no axes: the size expression itself)
            return K.IndexValue(K.Affine(i.attrs["size"], (0,) * self.n), i.dtype)
        x = i.operands[0]
        if op == "broadcast":
            zero = K.Affine(0, (0,) * self.n)
            sub = tuple(zero if (x.shape[k] == 1 and i.shape[d] != 1) else maps[d]
                        for k, d in enumerate(i.attrs["dims"]))
            return (yield (x, sub))
        if op == "transpose":
            sub = [None] * x.ndim
            for k, p in enumerate(i.attrs["perm"]):
                sub[p] = maps[k]
            return (yield (x, tuple(sub)))
        if op == "rev":     # position a of a reversed dim of n reads n - 1 - a
            sub = tuple(K.Affine(_simp(n - 1 - a.offset), tuple(_simp(-c) for c in a.coefs))
                        if d in i.attrs["dims"] else a
                        for d, (a, n) in enumerate(zip(maps, x.shape)))
            return (yield (x, sub))
        if op == "slice":
            sub = tuple(K.Affine(_simp(s + st * a.offset), tuple(_simp(st * c) for c in a.coefs))
                        for a, s, st in zip(maps, i.attrs["start"], i.attrs["strides"]))
            return (yield (x, sub))
        if op == "reshape":
            return (yield from self._reshape(i, x, maps))
        if op == "take":
            return (yield from self._take(i, x, maps))
        raise NeedMaterialize(i)

    def _take(self, i, x, maps):
        """An indexed load of buffer ``x``: the other operand dims follow ``maps``, the
        taken axis comes from the index expression (evaluated at the batch dims)."""
        # (a reshape keeps row-major order: its operand's linear index is x's)
        base = take_source(i, self.d.materialized)
        if not (is_buffer(base) or base.id in self.d.materialized):
            raise NeedMaterialize(x)
        axis, out_dims = i.attrs["axis"], i.attrs["out_dims"]
        idx = i.operands[1]
        batch = [None] * idx.ndim
        sub = [K.Affine(0, (0,) * self.n)] * x.ndim
        for m, (kind, *dims) in zip(maps, out_dims):
            if kind == "b":
                batch[dims[0]] = m
            elif kind == "o":
                sub[dims[0]] = m
            else:       # "s": a batch dim shared by the indices and the operand
                batch[dims[0]] = sub[dims[1]] = m
        offset = yield (idx, tuple(batch))
        shape, stride = x.shape, row_major_strides(x.shape)[axis]
        if base is not x and x.opcode == "transpose":
            # a take of a transpose reads the transpose's operand: x's dim k is its
            # dim perm[k] (a vmapped gather of an operand batched along a later axis)
            perm = x.attrs["perm"]
            moved = [None] * x.ndim
            for k, p in enumerate(perm):
                moved[p] = sub[k]
            sub, shape = moved, base.shape
            stride = row_major_strides(base.shape)[perm[axis]]
        load = self._load_linear(base, _linear(tuple(sub), shape, self.n))
        return K.IndexedLoad(load.arg, load.index, offset, stride,
                             _simp(x.shape[axis]), i.attrs["fill"], i.dtype)

    def _reshape(self, i, x, maps):
        if unit_only_reshape(i):
            it = iter(m for m, d in zip(maps, i.shape) if d != 1)
            zero = K.Affine(0, (0,) * self.n)
            return (yield (x, tuple(zero if d == 1 else next(it) for d in x.shape)))
        if memory_operand(i, self.d.materialized) is not None:
            # a reshape keeps row-major order: x's linear index is the result's
            return self._load_linear(x, _linear(maps, i.shape, self.n))
        if split_only_reshape(i):
            # each of x's dims is a run of result dims: its index is their row-major one
            sub = []
            for run in split_runs(x.shape, i.shape):
                sub.append(_linear([maps[j] for j in run], [i.shape[j] for j in run], self.n))
            return (yield (x, tuple(sub)))
        raise NeedMaterialize(x)


def _unit_maps(shape, space):
    """Maps for a value whose shape equals the space's up to size-1 dims."""
    n = len(space)
    axes = iter(a for a, d in enumerate(space) if d != 1)
    zero = K.Affine(0, (0,) * n)
    return tuple(zero if d == 1 else _axis(next(axes), n) for d in shape)


def _symbols(k):
    syms = set()
    for d in k.shape:
        if not isinstance(d, int):
            syms |= d.free_symbols
    for node in K.all_nodes(k):
        if isinstance(node, (K.Load, K.IndexedLoad, K.IndexValue)):
            syms |= _affine_syms(node.index)
        if isinstance(node, K.IndexedLoad):
            syms |= _affine_syms(K.Affine(node.size, (node.stride,)))
    for st in k.stores:
        syms |= _affine_syms(st.index)
    return tuple(sorted(s.name for s in syms))


def _affine_syms(a):
    out = set()
    for d in (a.offset,) + tuple(a.coefs):
        if not isinstance(d, int):
            out |= d.free_symbols
    return out
