"""A CPU runner's binding to a size binding as one generated Python function.

A runner (``cpu._Runner``) re-bound to a new size rewrites, in place, everything its
steps' closures read of the sizes: the shapes, the temporaries' views and addresses,
each kernel's sizes array, thread split, output shapes and launch extent, each gemm's
plan. Walking generic tables for that (per value, per slot, per step binder) ran a few
hundred lines of Python once per size, mostly cache misses in situ. This module writes
that work out for one runner as straight-line code, generated once per program
structure (the code object is kept by its text; each runner gets its own globals: its
ctypes arrays, launchers, state lists). On the MLP of ``bench_dynamic_shapes.py``: a
re-bind warm ~17 -> ~12 us, in situ ~134-139 -> ~108 us (calling thread's CPU, load
~9), about half of it the gemms' re-plans (``blas._plan``, cold in situ).

``rebind(r, env)``: the size expressions' values (``RunnerLayout._values``), then every
templated shape as a tuple display, the slot bytes and their offsets in the shared arena
(``slot_arena``'s layout), the temporaries' views, the runner's ``shape`` and
``fixed`` (its ``size_values`` are made from ``env`` where asked for); then per step in
order: a kernel's sizes, split (``split_worth``), the addresses of its temporaries, its
outputs' shapes and launch extent; a dot's binder given its operands' shapes and gemm
extents (``GemmCall.replan``); a library or control step prepared anew.
Returns False where a gemm cannot run at the new sizes or dots become worth grouping
(the caller prepares the steps again). ``bind_kernels(r)``: the kernel part alone at the
runner's current binding (what a freshly prepared runner's kernel steps start from).
"""

import collections

import numpy as np

from tjit.devices.slot_arena import ALIGN

#: What a kernel step's closure reads of the sizes (``cpu._Runner._bound_kernel_step``):
#: ``sizes`` (its int64 array), ``moving`` ((argument position, slot) of each
#: temporary), ``fresh``/``given`` ((value index, value, dtype) of its outputs made per
#: call / preset), ``state`` (the list its closure reads: those outputs with shapes,
#: split?, extent), ``launch`` (its ``ArrayLauncher``), ``address`` (the kernel's).
KernelBinding = collections.namedtuple(
    "KernelBinding", "kernel axis work sizes argv moving fresh given state launch address")

# code objects by source text (a program structure's code is compiled once)
_CODE = {}
_CODE_LIMIT = 512


def compile_rebind(runner, steps, split_worth, with_rebind):
    """``(rebind, bind_kernels)`` for ``runner`` (``rebind`` None without
    ``with_rebind``). ``steps``: per program step, a :class:`KernelBinding`, a dot
    step's binder (a function returning False where its gemm cannot run at the sizes,
    with the ``gemm`` it binds), or None (prepared anew per binding)."""
    gen = _Writer(runner, steps, split_worth)
    text = gen.bind_kernels()
    if with_rebind:
        text += "\n" + gen.rebind()
    code = _CODE.get(text)
    if code is None:
        if len(_CODE) >= _CODE_LIMIT:
            _CODE.clear()
        code = _CODE[text] = compile(text, "<tjit runner binding>", "exec")
    scope = gen.scope
    exec(code, scope)  # noqa: S102  (text made here of ints, names and displays)
    return scope.get("rebind"), scope["bind_kernels"]


class _Writer:
    """The source text of one runner's binding functions, and the objects it names."""

    def __init__(self, runner, steps, split_worth):
        self.r, self.steps = runner, steps
        layout = self.layout = runner.runner_layout
        # value -> the local holding its shape (one per distinct template)
        self.shape_locals = {}
        self.local_of = {v: self.shape_locals.setdefault(t, f"t{len(self.shape_locals)}")
                         for v, t in layout.shape_templates}
        self.scope = {"SPLIT": split_worth, "NT": runner.nthreads, "ND": np.ndarray,
                      "VALUES": layout._values, "STATIC": layout.static_shapes,
                      "TEMPLATED": layout.templated_values}
        self.names = {}     # id(object) -> its global name

    # -- pieces of text --------------------------------------------------------------
    def name(self, obj, prefix):
        """A global name for ``obj`` in the generated code."""
        key = id(obj)
        if key not in self.names:
            self.names[key] = f"{prefix}{len(self.names)}"
            self.scope[self.names[key]] = obj
        return self.names[key]

    @staticmethod
    def dim(d):
        return str(d) if d >= 0 else f"x{~d}"

    def dims(self, template):
        return "(" + "".join(self.dim(d) + ", " for d in template) + ")"

    def shape(self, v):
        """The text of value ``v``'s shape: a local of a templated shape, or a constant."""
        local = self.local_of.get(v)
        return local if local is not None else repr(tuple(self.layout.static_shapes[v]))

    def head(self):
        """Locals every function starts from: the expressions' values ``x<i>`` (from
        ``v``) and the templated shapes ``t<j>``."""
        n = len(self.layout.exprs)
        lines = [f"    {''.join(f'x{i}, ' for i in range(n))}= v"] if n else []
        return lines + [f"    {local} = {self.dims(t)}" for t, local in self.shape_locals.items()]

    # -- the kernels -----------------------------------------------------------------
    def kernel_lines(self, n, kb):
        """The binding of kernel step ``n`` (its ``KernelBinding`` ``kb``)."""
        sz, argv = self.name(kb.sizes, "SZ"), self.name(kb.argv, "ARGV")
        st, launch = self.name(kb.state, "ST"), self.name(kb.launch, "LAUNCH")
        lines = [f"    {sz}[{i}] = e[{name!r}]" for i, name in
                 enumerate(kb.kernel.size_symbols)]
        space = self.layout.kernel_templates[id(kb.kernel)]
        if kb.axis is None:
            lines += [f"    n{n} = 1", f"    p{n} = False"]
        else:
            points = " * ".join(self.dim(d) for d in space) or "1"
            lines += [f"    n{n} = {self.dim(space[kb.axis])}",
                      f"    p{n} = SPLIT(n{n}, {points}, {kb.work!r}, NT)"]
        # the kernel's id and address are globals, not literals: the text (the key of the
        # compiled code) then depends on the program's structure only, and is reused
        self.scope[f"KID{n}"], self.scope[f"KADDR{n}"] = id(kb.kernel), kb.address
        lines.append(f"    L[KID{n}] = ({sz}, n{n}, p{n})")
        lines += [f"    {argv}[{pos}] = a[{slot}]" for pos, slot in kb.moving]
        for j, outs in ((0, kb.fresh), (1, kb.given)):
            items = "".join(f"({k}, {self.shape(v)}, {self.name(dt, 'DT')}), "
                            for k, v, dt in outs)
            lines.append(f"    {st}[{j}] = [{items}]")
        lines += [f"    {st}[2] = p{n}", f"    {st}[3] = n{n}",
                  f"    {launch}.retarget(0 if p{n} else KADDR{n}, n{n})"]
        return lines

    def threads_line(self):
        """Whether the binding runs anything on the thread pool (``uses_threads``: a
        re-bind wakes the pool's workers ahead of the call when it did)."""
        parts = [f"p{n}" for n, s in enumerate(self.steps) if isinstance(s, KernelBinding)]
        parts += [f"{self.name(s.gemm, 'G')}.parallel" for s in self.steps
                  if s is not None and not isinstance(s, KernelBinding)]
        return f"    r.uses_threads = bool({' or '.join(parts) or 'False'})"

    def bind_kernels(self):
        lines = ["def bind_kernels(r):", "    v = r.size_values.vals"] + self.head() + \
            ["    e = r._sizes_by_name", "    a = r.slot_addresses", "    L = r._launches"]
        for n, s in enumerate(self.steps):
            if isinstance(s, KernelBinding):
                lines += self.kernel_lines(n, s)
        return "\n".join(lines + [self.threads_line()]) + "\n"

    # -- the whole re-bind -----------------------------------------------------------
    def rebind(self):
        r, layout = self.r, self.layout
        lines = ["def rebind(r, env):", "    v = VALUES(env)"] + self.head() + [
            "    e = {s.name: z for s, z in env.items()}",
            "    r.env = env", "    r._sizes_by_name = e"]
        lines += self.slot_lines()
        shapes = "(" + "".join(self.local_of[v] + ", " for v in layout.templated_values) + ")"
        lines += ["    sh = STATIC.copy()", f"    sh.update(zip(TEMPLATED, {shapes}))",
                  "    r.shape = sh",
                  "    r.size_values = None    # (made from r.env where asked for)"]
        lines += self.fixed_lines()
        if r.prog.aliases or r.prog.hosted:
            lines.append("    r.bind_aliases()")
        lines.append("    L = r._launches = {}")
        for n, s in enumerate(self.steps):
            if isinstance(s, KernelBinding):
                lines += self.kernel_lines(n, s)
            elif s is not None:     # (a dot's binder, given its shapes and gemm extents)
                step = r.prog.steps[n]
                args = ", ".join([self.shape(v) for v in step.ins[:2]] +
                                 [self.dims(layout.dot_templates[id(step)]),
                                  self.shape(step.outs[0])])
                lines += [f"    if not {self.name(s, 'BIND')}({args}):", "        return False"]
            else:
                lines.append(f"    r.steps[{n}] = r._prepare({self.name(r.prog.steps[n], 'STEP')})")
        if r._dot_candidates:
            lines += ["    if r._dot_groups_worth():", "        return False"]
        lines += [self.threads_line(), "    return True"]
        return "\n".join(lines) + "\n"

    def slot_lines(self):
        """The slots' bytes ``b``, the runner's slots and their addresses ``a``: laid
        out in the shared arena as ``SlotArena.carve_at`` does, else ``alloc_slots``."""
        template = self.layout.slot_template
        lines = [f"    b = [{', '.join(self.dim(d) for d in template)}]"]
        if self.r.shared_slots is None or not template:
            return lines + ["    r.slots = sl = r.alloc_slots(b)", "    a = r.slot_addresses"]
        self.scope["SHARED"] = self.r.shared_slots
        lines += ["    ar = r.arena = SHARED.arena_for(b)", "    buf = ar.buffer",
                  "    base = ar.address", "    o0 = 0"]
        for i, d in enumerate(template[:-1]):
            lines.append(f"    o{i + 1} = o{i} + -(-{self.dim(d)} // {ALIGN}) * {ALIGN}")
        views = ", ".join(f"buf[o{i}:o{i} + {self.dim(d)}]" for i, d in enumerate(template))
        addresses = ", ".join(f"base + o{i}" for i in range(len(template)))
        return lines + [f"    r.slots = [{views}]", f"    r.slot_addresses = a = [{addresses}]"]

    def fixed_lines(self):
        """``r.fixed``: the constants (the runner's own arrays) and the temporaries'
        views at their slots (the CPU's ``slot_view``: one ndarray constructor)."""
        r = self.r
        fixed = [None] * len(r.index)
        for k, c in r.consts:
            fixed[k] = c
        self.scope["FIXED"] = fixed
        shared = r.shared_slots is not None and self.layout.slot_template
        lines = ["    fx = FIXED.copy()"]
        for k, slot, v in self.layout.slot_values:
            dt = self.name(r.dtype[v], "DT")
            where = f"buf, o{slot}" if shared else f"sl[{slot}]"
            lines.append(f"    fx[{k}] = ND({self.shape(v)}, {dt}, {where})")
        return lines + ["    r.fixed = fx"]
