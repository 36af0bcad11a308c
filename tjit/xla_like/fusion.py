"""Fusion: which HLO values are materialized, and which kernels compute them.

The decision is made per value, consumers first (reverse topological order). A
fusible value that is not *materialized* is recomputed inline, from its operands, in
every kernel that needs it; a materialized value is written to a buffer by exactly one
kernel and loaded by the others. So fusion is: choose the materialized set ``M``,
then group the materialized values into kernels.

Forced into ``M``: program outputs and operands of non-fusible ops (dot, library
calls), and operands a kernel cannot index affinely (the operand of a reshape that
is not a pure unit-dim reshape, the gathered operand of a ``take``; its indices fuse).
Reductions are inlined as *stages* of the one kernel that consumes them when they
reduce a suffix of their operand's axes and that kernel iterates over the operand's
space (softmax, layernorm: reduce-then-broadcast chains become one row kernel);
otherwise they are materialized.

Rematerialization cost model (per element of the value ``p``, in bytes moved; compute
converted at measured rates on this class of machine, see PERF_NOTES.md):

* ``materialize(p) = itemsize * (1 + n_kernels)``: one write, one read per consumer.
* ``recompute(p) = (evals - 1) * cost(p)``, where ``evals`` is how many times each
  element would be computed across all consumer kernels (broadcasts along leading axes
  multiply it; broadcasts along trailing axes are hoisted by LLVM's LICM and do not),
  and ``cost(p)`` sums its op costs down to materialized operands: 0.25 per cheap op,
  1 per division/sqrt, each transcendental's measured cost per dtype (float32 exp 4,
  sin 29, pow 76, lgamma 390; ``benchmarks/bench_op_costs.py``) (the target's
  ``TargetInfo.op_cost`` and ``f64_op_cost``; these are the CPU's, ``target.py``).

``p`` is recomputed when ``recompute(p) <= materialize(p)``. Mish's forward values
used by its backward pass are cheap enough, so ``jit(grad(sum(mish)))`` is one
kernel with no temporary; a 1-D vector of ``exp`` broadcast along the leading axis of
a matrix is materialized. After the decision, kernels with the same iteration space
are merged: a row reduction into the row kernel that consumes it (its result becomes an
extra output), and siblings that read a common input (multi-output fusion), whenever
that creates no cycle: no path between the two through a third kernel, and no kernel
that loads one of its own outputs (the source of a gather or of a linear-index reshape
is loaded from memory even when the same kernel computes it).

**Kernel size limit.** No kernel's expression DAG grows without bound: after the
decision, a pass in program order counts each kernel's distinct inlined nodes (weighted:
``node_weight``), and when inlining the operands' DAGs would take a kernel past
``MAX_KERNEL_NODES``, the largest value that several operands share is materialized
(so no two kernels both compute it), then operands themselves (largest DAGs first), so
an unrolled loop of N steps becomes about N * (nodes per step) / ``MAX_KERNEL_NODES``
kernels of bounded size rather than one kernel whose LLVM compile grows faster than
linearly (measured: 500 nodes took 25 s in LLVM). Merging groups keeps the same bound. A materialized
value is stored and loaded in its own dtype, which is what the kernel computed in
registers (no fast-math flags on elementwise code), so splitting changes no result bit.
The bound also bounds the depth of the per-kernel walks of ``emit.py``.
"""

from tjit._sympy import sympy
from tjit.xla_like import hlo
from tjit.xla_like.target import CPU

#: When a dim is symbolic, evaluate the cost model as if each size symbol were this.
SYMBOL_GUESS = 1024

#: Most HLO ops one fused kernel computes (its expression DAG's distinct nodes, weighted
#: by :func:`node_weight`; loads of buffers and inlined scalar constants not counted). At
#: ~20 ODE steps per kernel the LLVM time per op is flat; at 500 ops one kernel took 25 s
#: to compile.
MAX_KERNEL_NODES = 128
#: Integer ops that are one machine instruction each count a quarter node: a random sampler
#: (Threefry's 20 rounds are ~130 uint32 add/xor/shift/or ops, plus the bit tricks and
#: erf_inv after them) then stays one kernel (``jit(random.normal)``: one kernel compiled
#: in ~0.3 s instead of four kernels that each recompute the hash's first rounds).
LIGHT_INT_OPS = frozenset({"add", "sub", "and", "or", "xor", "not", "shift_left",
                           "shift_right_logical", "shift_right_arithmetic"})


#: Ops a kernel turns into index maps of its loads (``emit.py``), adding no node to its
#: expression DAG: they count nothing. (Counted as nodes, the broadcasts of the ~50 scalar
#: constants under a random sampler took ``jit(random.normal)`` past the bound: three
#: kernels with two float64 temporaries where one kernel does.)
INDEX_MAP_OPS = frozenset({"broadcast", "transpose", "rev", "slice", "reshape"})


def node_weight(i):
    """What ``i`` counts towards ``MAX_KERNEL_NODES``."""
    if i.opcode in INDEX_MAP_OPS:
        return 0.0
    return 0.25 if i.opcode in LIGHT_INT_OPS and i.dtype.kind in "iu" else 1.0


class NeedMaterialize(Exception):
    """Raised while building a kernel when value ``instr`` cannot be inlined there."""

    def __init__(self, instr):
        super().__init__(f"materialize %{instr.id}")
        self.instr = instr


def numel(shape):
    n = 1
    for d in shape:
        n = n * d
    if isinstance(n, int):
        return n
    return int(sympy.sympify(n).subs({s: SYMBOL_GUESS for s in sympy.sympify(n).free_symbols}))


def is_buffer(i):
    """Values that always live in memory (never recomputed inside a kernel)."""
    return i.opcode in ("parameter", "get", "dot", "library", "control") or (
        i.opcode == "constant" and i.ndim > 0)


def is_inlined_constant(i):
    return i.opcode == "constant" and i.ndim == 0


def unit_only_reshape(i):
    """True when a reshape only inserts/removes size-1 dims."""
    a = [d for d in i.operands[0].shape if d != 1]
    b = [d for d in i.shape if d != 1]
    return len(a) == len(b) and all(x == y for x, y in zip(a, b))


def split_only_reshape(i):
    """True when a reshape only splits dims (each operand dim is the product of a run
    of result dims): the operand's indices are affine in the result's, so kernels
    address an inlined operand through it. Symbolic dims too, where each operand dim is
    the product of its run exactly (``(4096*floor(b/4096), 32) -> (4096, floor(b/4096),
    32)``, ``(b*t, d) -> (b, t, d)``)."""
    return split_runs(i.operands[0].shape, i.shape) is not None


def split_runs(src, dst):
    """For a split-only reshape ``src -> dst``: per operand dim, the result dims whose
    product it is (size-1 result dims join the run before them); else None."""
    if not all(isinstance(d, int) for d in tuple(src) + tuple(dst)):
        return _symbolic_split_runs(src, dst)
    runs, j = [], 0
    for d in src:
        run, n = [], 1
        while j < len(dst) and (n < d or (n == d and dst[j] == 1 and run)):
            run.append(j)
            n *= dst[j]
            j += 1
        if n != d or (d != 1 and not run):
            return None
        runs.append(run)
    return runs if j == len(dst) else None


def _symbolic_split_runs(src, dst):
    """``split_runs`` where dims may be size expressions: each operand dim takes result
    dims until their product is it exactly (expanded expressions equal; no order
    between sizes is assumed), then the size-1 dims after it; else None."""
    def same(a, b):
        return a == b or sympy.expand(a - b) == 0
    runs, j = [], 0
    for d in src:
        run, n = [], 1
        if d != 1:      # (a size-1 operand dim takes no result dims, as split_runs)
            while j < len(dst) and not (run and same(n, d)):
                run.append(j)
                n = n * dst[j]
                j += 1
            if not run or not same(n, d):
                return None
        while j < len(dst) and dst[j] == 1 and run:
            run.append(j)
            j += 1
        runs.append(run)
    return runs if j == len(dst) else None


def take_source(take, materialized):
    """The buffer a kernel's ``take`` loads: its operand, or the operand's own operand
    when the operand is a reshape or transpose that is not materialized (read at the same
    linear index or at permuted indices; ``_decide`` keeps that one in memory)."""
    x = take.operands[0]
    if x.opcode in ("reshape", "transpose") and x.id not in materialized:
        return x.operands[0]
    return x


def memory_operand(i, materialized):
    """The value a kernel computing ``i`` loads from memory whole instead of computing
    it (even when the same kernel stores it): a take's source, or the materialized operand
    of a reshape that is not unit-only (read by linear index). None for other ops."""
    if i.opcode == "take":
        return take_source(i, materialized)
    if i.opcode == "reshape" and not unit_only_reshape(i):
        x = i.operands[0]
        if is_buffer(x) or x.id in materialized:
            return x
    return None


def row_reduce(i):
    """A reduce over a suffix of its operand's axes (a candidate kernel stage)."""
    n = i.operands[0].ndim
    return i.opcode == "reduce" and tuple(i.attrs["axes"]) == tuple(
        range(n - len(i.attrs["axes"]), n))


def squeezed(shape):
    return tuple(d for d in shape if d != 1)


def space_of_root(i):
    """The iteration space a kernel rooted at ``i`` would use: (shape, reduce axes)."""
    if i.opcode == "reduce":
        return tuple(i.operands[0].shape), tuple(i.attrs["axes"])
    return tuple(i.shape), ()


def lead_amplification(u, target=CPU):
    """How many times a broadcast ``u`` evaluates each operand element. When the target
    hoists work that is invariant in the innermost loops (LLVM), only expansion along
    dims *before* the last mapped operand dim counts; otherwise every expanded dim."""
    dims = u.attrs["dims"]
    if not dims:
        return 1 if target.hoists_trailing_broadcasts else numel(u.shape)
    last = max(dims) if target.hoists_trailing_broadcasts else len(u.shape)
    n = 1
    for d in range(last):
        if d not in dims:
            n *= numel((u.shape[d],))
    for k, d in enumerate(dims):  # size-1 operand dims expanded before the last one
        if d < last and u.operands[0].shape[k] == 1 and u.shape[d] != 1:
            n *= numel((u.shape[d],))
    return n


def op_cost(i, target=CPU):
    return target.cost(i.opcode, i.dtype)


class FusionDecision:
    """``materialized``: set of instr ids written to buffers; ``kernel_of``: for each
    materialized fusible instr id, its kernel group id; ``groups``: group id -> list of
    root instrs (in program order)."""

    def __init__(self, module, forced=(), merge=True, target=CPU):
        self.module = module
        self.target = target
        self.merge = merge
        self.forced = set(forced)
        self.users = module.users()
        self.materialized = set()
        self.buffer_required = set(self.forced)  # values consumers must read from memory
        self._by_id = {i.id: i for i in module.instrs}
        self.kernel_nodes = {}   # materialized fusible id -> nodes its kernel computes
        self._decide()
        self._limit_kernel_size()
        self._group()

    # -- materialization ------------------------------------------------------------------
    def _decide(self):
        m = self.module
        order = {i.id: n for n, i in enumerate(m.instrs)}
        self.order = order
        outputs = {o.id for o in m.outputs}
        evals = {}
        for i in reversed(m.instrs):
            if is_buffer(i):
                self.materialized.add(i.id)
                continue
            if is_inlined_constant(i):
                if i.id in outputs:  # returned as is, no kernel
                    self.materialized.add(i.id)
                continue
            users = self.users[i.id]
            must = i.id in outputs or i.id in self.forced or any(
                u.opcode not in hlo.FUSIBLE or is_buffer(u) for u in users)
            ev = {}  # consumer kernel -> evaluations per element of i (max over paths)
            for u in users:
                if u.id in self.materialized:
                    ev[u.id] = max(ev.get(u.id, 0.0), self._edge_evals(u, i, 1.0))
                else:
                    for k, e in evals.get(u.id, {}).items():
                        ev[k] = max(ev.get(k, 0.0), self._edge_evals(u, i, e))
                if u.opcode == "take" and u.operands[0] is i and \
                        i.opcode in ("reshape", "transpose"):
                    # a take reads a reshape's operand at the same linear index, and a
                    # transpose's at permuted indices (emit's _take): that operand is
                    # the buffer, no copy of it is made
                    self.forced.add(i.operands[0].id)
                    self.buffer_required.add(i.operands[0].id)
                elif (u.opcode == "reshape" and not unit_only_reshape(u) and not (
                        self.target.inline_split_reshapes and split_only_reshape(u))) or (
                        u.opcode == "take" and u.operands[0] is i):
                    # a kernel addresses a reshape's operand by linear index, and a
                    # take's operand at indices it computes: both read memory
                    must = True
                    self.buffer_required.add(i.id)
            if must or not ev or not self._inline_ok(i, set(ev), sum(ev.values())):
                self.materialized.add(i.id)
            else:
                evals[i.id] = ev

    def _limit_kernel_size(self):
        """Materialize operands whose inlined DAG would take a kernel past
        ``MAX_KERNEL_NODES`` (see the module docs). One pass in program order; each
        value's member set holds at most 4 * ``MAX_KERNEL_NODES`` ids (light nodes count
        a quarter), so this is linear."""
        inlined = {}   # non-materialized fusible id -> ids of the nodes it inlines
        weight = {i.id: node_weight(i) for i in self.module.instrs}
        size = lambda ids: sum(weight[j] for j in ids)
        for i in self.module.instrs:
            if is_buffer(i) or is_inlined_constant(i) or (
                    i.opcode == "constant" and i.id in self.materialized):
                continue
            members = {i.id}
            parts = [(inlined[o.id], o) for o in dict.fromkeys(i.operands)
                     if o.id in inlined]
            if len(parts) > 1:
                parts = self._cut_shared(parts, inlined, size)
            parts.sort(key=lambda p: -len(p[0]))
            for part, o in parts:
                if len(members) + len(part) > MAX_KERNEL_NODES and \
                        size(members | part) > MAX_KERNEL_NODES:
                    self._materialize_inlined(o.id, inlined, size)
                else:
                    members |= part
            if i.id in self.materialized:
                self.kernel_nodes[i.id] = size(members)
            else:
                inlined[i.id] = members

    def _materialize_inlined(self, n, inlined, size):
        """Materialize the inlined value ``n``; the values that inline it read it from
        memory from now on, so its DAG leaves their member sets too (stale sets would
        count it again and cut their readers needlessly). Returns ``n``'s DAG."""
        cut = inlined.pop(n)
        self.materialized.add(n)
        self.kernel_nodes[n] = size(cut)
        # (the sets holding n are those of its readers through inlined values: a walk
        # along users that visits only them, not every set)
        stack, seen = [n], {n}
        while stack:
            for u in self.users[stack.pop()]:
                if u.id not in seen and n in inlined.get(u.id, ()):
                    seen.add(u.id)
                    inlined[u.id] = inlined[u.id] - cut
                    stack.append(u.id)
        return cut

    def _cut_shared(self, parts, inlined, size):
        """While the operands' DAGs together pass the bound, materialize the largest value
        that two or more of them inline (its DAG would otherwise be computed by each
        kernel that a later cut separates: the counters and hash under every use of a
        random sample, ``y`` under both terms of an ODE step). Returns the parts left."""
        while size(set().union(*(p for p, _ in parts))) + 1 > MAX_KERNEL_NODES:   # (+ i)
            seen, shared = set(), set()
            for p, _ in parts:
                shared |= p & seen
                seen |= p
            shared = [j for j in shared if j in inlined]
            if not shared:
                break
            n = max(shared, key=lambda j: (size(inlined[j]), j))
            if size(inlined[n]) < MAX_KERNEL_NODES / 8:   # (cutting small shares: no gain)
                break
            cut = self._materialize_inlined(n, inlined, size)
            parts = [(p - cut, o) for p, o in parts if o.id != n]
        return parts

    def _recompute_cost(self, i, limit=256, stop=float("inf")):
        """Op costs of the distinct values recomputed when ``i`` is inlined (its DAG down
        to buffers; shared subexpressions count once). The walk ends early once the
        total passes ``stop`` (costs are >= 0, so the caller's comparison with ``stop``
        comes out the same: that keeps this pass linear on long chains)."""
        total, stack, seen = 0.0, [i], set()
        while stack and len(seen) < limit and total <= stop:
            j = stack.pop()
            if j.id in seen or is_buffer(j) or is_inlined_constant(j):
                continue
            seen.add(j.id)
            total += op_cost(j, self.target)
            stack.extend(j.operands)
        return total

    def _edge_evals(self, u, i, ev_u):
        if u.opcode == "broadcast":
            return ev_u * lead_amplification(u, self.target)
        if u.opcode == "reduce":
            # an inlined reduce is a stage: folded once per row of its kernel, however
            # often the kernel then reads its value
            return 1.0
        return ev_u

    def _inline_ok(self, i, ks, ev):
        if i.opcode == "reduce":
            if len(ks) != 1 or not row_reduce(i):
                return False
            (k,) = ks
            root = self._instr(k)
            shape, axes = tuple(i.operands[0].shape), tuple(i.attrs["axes"])
            kept = shape[:len(shape) - len(axes)]
            rs, ra = space_of_root(root)
            return (rs, ra) == (shape, axes) or (not ra and rs in (shape, kept))
        if len(ks) == 1 and ev <= 1.0 + 1e-9:
            return True
        if ev <= 1.0:  # recomputing costs nothing extra (a zero-size space included)
            return True
        bound = i.dtype.itemsize * (1 + len(ks))
        # (ev - 1) * cost <= bound, the cost summed only while it can still hold
        cost = self._recompute_cost(i, stop=bound / (ev - 1.0))
        return (ev - 1.0) * cost <= bound

    def _instr(self, iid):
        return self._by_id[iid]

    # -- grouping -------------------------------------------------------------------------
    def _group(self):
        m = self.module
        self._by_id = {i.id: i for i in m.instrs}
        roots = [i for i in m.instrs if i.id in self.materialized and not is_buffer(i)
                 and i.opcode != "constant"]
        self.group_of = {r.id: r.id for r in roots}
        self._inputs_cache = {}
        self.groups = {r.id: [r] for r in roots}
        if self.merge:
            self._merge_row_producers()
            self._merge_siblings()

    def space(self, gid):
        """(shape, reduce_axes) of a group: from its reduce roots/stages, else its roots."""
        best = None
        for r in self.groups[gid]:
            s = space_of_root(r)
            for st in self._stages_under(r):
                s = space_of_root(st)
            if best is None or (s[1] and not best[1]) or len(s[0]) > len(best[0]):
                best = s
        return best

    def _stages_under(self, r):
        """Inlined (non-materialized) reduces reachable from root ``r`` without crossing
        a buffer."""
        out, stack, seen = [], list(r.operands), set()
        while stack:
            i = stack.pop()
            if i.id in seen or i.id in self.materialized or is_buffer(i):
                continue
            seen.add(i.id)
            if i.opcode == "reduce":
                out.append(i)
            stack.extend(i.operands)
        return out

    def group_inputs(self, gid):
        """Materialized values (buffers or other groups' roots) a group reads (cached
        until the group merges: the materialized set no longer changes here)."""
        hit = self._inputs_cache.get(gid)
        if hit is None:
            hit = self._inputs_cache[gid] = self._inputs_of(self.groups[gid])
        return hit

    def _inputs_of(self, roots):
        """The values a kernel computing ``roots`` loads, as ``KernelBuilder`` loads them:
        materialized values outside the group, and each value a take or reshape reads
        from memory (``memory_operand``), which is loaded even when it is one of the
        group's own roots (a self-read: that kernel would wait on its own output)."""
        members = {r.id for r in roots}
        out, stack, seen = {}, list(roots), set()
        while stack:
            i = stack.pop()
            if i.id in seen:
                continue
            seen.add(i.id)
            if i.id in self.materialized and i.id not in members:
                out[i.id] = i
                continue
            if is_inlined_constant(i):
                continue
            src = memory_operand(i, self.materialized)
            if src is None or not (is_buffer(src) or src.id in self.materialized):
                stack.extend(i.operands)    # (an unstored source: NeedMaterialize retries)
            else:       # (the source is loaded whole; a take's indices are computed)
                out[src.id] = src
                stack.extend(i.operands[1:])
        return list(out.values())

    def _node_of(self, i):
        """The plan node producing value ``i``: a group id, a dot/library instr id, or
        None for parameters and constants."""
        if i.id in self.group_of:
            return self.group_of[i.id]
        if i.opcode == "get":
            return i.operands[0].id
        if i.opcode in ("dot", "library", "control"):
            return i.id
        return None

    def _producers(self, node):
        if node in self.groups:
            ins = self.group_inputs(node)
        else:
            ins = self._by_id[node].operands
        return {n for n in (self._node_of(i) for i in ins) if n is not None}

    def _reaches(self, src, dst):
        """Is there a dependency path dst <- ... <- src (through groups, dots and library
        calls)?"""
        stack, seen = [dst], set()
        while stack:
            g = stack.pop()
            for p in self._producers(g):
                if p == src:
                    return True
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        return False

    def _merge(self, a, b):
        """Merge group ``b`` into ``a``."""
        for r in self.groups[b]:
            self.group_of[r.id] = a
        self._inputs_cache.pop(a, None)
        self._inputs_cache.pop(b, None)
        self.groups[a] = sorted(self.groups[a] + self.groups.pop(b),
                                key=lambda r: self.order[r.id])

    def group_nodes(self, gid):
        """An upper bound of the nodes group ``gid``'s kernel computes."""
        return sum(self.kernel_nodes.get(r.id, 1) for r in self.groups[gid])

    def _can_merge(self, a, b):
        if self.group_nodes(a) + self.group_nodes(b) > MAX_KERNEL_NODES:
            return False
        sa, sb = self.space(a), self.space(b)
        if sa != sb and (sa[1] or sb[1] or squeezed(sa[0]) != squeezed(sb[0])):
            return False
        pa, pb = self._producers(a), self._producers(b)
        if b in pa or a in pb:
            # a direct producer -> consumer pair merges only when the consumer recomputes
            # the producer's values inline; one it reads from memory (a take's source, a
            # reshape's operand) would be the merged kernel's input and output at once
            roots = self.groups[a] + self.groups[b]
            ids = {r.id for r in roots}
            if any(i.id in ids for i in self._inputs_of(roots)):
                return False
        # no path through a third group in either direction
        return not any(self._reaches(b, g) for g in pa - {b}) and \
            not any(self._reaches(a, g) for g in pb - {a})

    def _readers(self):
        """value id -> groups reading it (as a materialized input), for the groups now."""
        readers = {}
        for g in self.groups:
            for i in self.group_inputs(g):
                readers.setdefault(i.id, set()).add(g)
        return readers

    def _merge_row_producers(self):
        """A group feeding a consumer with the same space joins it (a row reduction
        becomes a stage of its consumer; an elementwise value an extra output).
        Consumers come from an index of readers (kept up to date across merges), not a
        scan of every group: linear in the program's size."""
        readers = self._readers()
        for gid in list(self.groups):
            if gid not in self.groups or any(
                    r.id in self.buffer_required for r in self.groups[gid]):
                continue
            # the groups whose producers include gid: readers of one of its roots
            consumers = set()
            for r in self.groups[gid]:
                consumers |= readers.get(r.id, set())
            consumers.discard(gid)
            for cons in sorted(consumers, key=lambda g: self.order[g]):
                if self._can_merge(cons, gid):
                    old = [i.id for g in (cons, gid) for i in self.group_inputs(g)]
                    self._merge(cons, gid)
                    for v in old:
                        readers[v].discard(cons)
                        readers[v].discard(gid)
                    for i in self.group_inputs(cons):
                        readers.setdefault(i.id, set()).add(cons)
                    break

    def _merge_siblings(self):
        """Groups with one iteration space reading a common input become one kernel (and,
        where the target asks, groups reading outputs of one producer kernel: the folds
        of a split column reduction's partials)."""
        changed = True
        while changed:
            changed = False
            gids = sorted(self.groups, key=lambda g: self.order[g])
            inputs = {g: {i.id for i in self.group_inputs(g)} for g in gids}
            if self.target.merge_same_producer:
                for g in gids:
                    inputs[g] |= {("group", p) for p in self._producers(g)
                                  if p in self.groups}
            nodes = {g: self.group_nodes(g) for g in gids}
            for x in range(len(gids)):
                for y in range(x + 1, len(gids)):
                    a, b = gids[x], gids[y]
                    # (the size bound first: it is the cheap test that ends most pairs)
                    if nodes[a] + nodes[b] <= MAX_KERNEL_NODES and inputs[a] & inputs[b] \
                            and not (a in self._producers(b) or b in self._producers(a)) \
                            and self._can_merge(a, b):
                        self._merge(a, b)
                        changed = True
                        break
                if changed:
                    break
