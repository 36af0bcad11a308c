"""From an HLO module to an executable plan: fused kernels, library calls, buffers.

A :class:`Program` is an ordered list of steps over numbered values (HLO instr ids):

* ``KernelStep``: one fused kernel (kernel IR) reading/writing buffers;
* ``DotStep``: ``dot_general`` through BLAS (NumPy's matmul) into a preallocated buffer;
* ``LibraryStep``: a host function returning new arrays.

Buffer assignment is liveness based: a temporary takes a slot that an earlier
temporary no longer needs (same byte size, or for concrete sizes any slot at least as
big), so a training step's intermediates share memory. Slots are allocated once per
set of sizes and reused across calls; program outputs get fresh arrays every call;
a donated argument may become the buffer of an output of its shape and dtype once
nothing reads it any more (or when the kernel that writes the output reads it only at
the same element: an in-place elementwise update).
"""

import dataclasses

import numpy as np
import sympy

from tjit.xla_like import kernel_ir as K
from tjit.xla_like.emit import CannotFuse, KernelBuilder
from tjit.xla_like.fusion import FusionDecision, NeedMaterialize


@dataclasses.dataclass
class Value:
    id: int
    shape: tuple
    dtype: np.dtype
    kind: str                 # "param", "const", "temp", "output"
    const: object = None

    @property
    def nbytes(self):
        n = self.dtype.itemsize
        for d in self.shape:
            n = n * d
        return n


@dataclasses.dataclass
class KernelStep:
    kernel: K.Kernel
    ins: list
    outs: list


@dataclasses.dataclass
class DotStep:
    dimension_numbers: tuple
    ins: list
    outs: list


@dataclasses.dataclass
class LibraryStep:
    name: str
    fn: object
    ins: list
    outs: list


class Program:
    def __init__(self, name, values, params, outputs, steps):
        self.name = name
        self.values = values          # id -> Value
        self.params = params          # value ids, in argument order
        self.outputs = outputs        # value ids, in result order
        self.steps = steps
        self.slot_of, self.slot_sizes = assign_buffers(self)

    @property
    def kernels(self):
        return [s.kernel for s in self.steps if isinstance(s, KernelStep)]

    def text(self, kernels=True):
        lines = [f"program {self.name}: {len(self.steps)} steps, "
                 f"{len(self.kernels)} fused kernels, {len(self.slot_sizes)} temp buffers"]
        for n, s in enumerate(self.steps):
            ins = ", ".join(f"%{v}" for v in s.ins)
            outs = ", ".join(f"%{v}" + (f"@slot{self.slot_of[v]}" if v in self.slot_of else "")
                             for v in s.outs)
            what = (f"kernel {s.kernel.name}" if isinstance(s, KernelStep) else
                    "dot (BLAS)" if isinstance(s, DotStep) else f"library {s.name}")
            lines.append(f"  {n}: {outs} = {what}({ins})")
        if kernels:
            for k in self.kernels:
                lines.append("")
                lines.append(K.kernel_text(k))
        return "\n".join(lines)


def build_program(module):
    """Fuse ``module`` and order its steps; retries with more values materialized when
    a kernel cannot inline one (rare index patterns)."""
    forced, merge = set(), True
    for _ in range(len(module.instrs) + 2):
        d = FusionDecision(module, forced, merge=merge)
        try:
            built = {gid: KernelBuilder(d, gid, f"fusion_{n}").build()
                     for n, gid in enumerate(sorted(d.groups, key=lambda g: d.order[g]))}
        except NeedMaterialize as e:
            forced.add(e.instr.id)
            continue
        except CannotFuse:
            merge = False
            continue
        return _order_steps(module, d, built)
    raise RuntimeError("fusion did not converge")  # pragma: no cover


def _order_steps(module, d, built):
    values = {}
    for i in module.instrs:
        if i.opcode == "library":
            continue
        kind = {"parameter": "param", "constant": "const"}.get(i.opcode, "temp")
        values[i.id] = Value(i.id, tuple(i.shape), i.dtype, kind, i.attrs.get("value"))
    out_ids = [o.id for o in module.outputs]
    for v in out_ids:
        if values[v].kind == "temp":
            values[v].kind = "output"
    pending = []   # (order key, step, produced ids, needed ids)
    for gid, (kernel, ins, roots) in built.items():
        pending.append((d.order[gid], KernelStep(kernel, [i.id for i in ins],
                                                 [r.id for r in roots])))
    for i in module.instrs:
        if i.opcode == "dot":
            pending.append((d.order[i.id], DotStep(i.attrs["dimension_numbers"],
                                                   [o.id for o in i.operands], [i.id])))
        elif i.opcode == "library":
            gets = [u for u in d.users[i.id] if u.opcode == "get"]
            outs = [None] * len(i.attrs["out_avals"])
            for g in gets:
                outs[g.attrs["index"]] = g.id
            pending.append((d.order[i.id], LibraryStep(i.attrs["name"], i.attrs["fn"],
                                                       [o.id for o in i.operands], outs)))
    steps = _topo(pending, values)
    params = [p.id for p in module.params]
    return Program(module.name, values, params, out_ids, steps)


def _topo(pending, values):
    ready = {v for v, val in values.items() if val.kind in ("param", "const")}
    pending = sorted(pending, key=lambda t: t[0])
    steps = []
    while pending:
        for n, (_, s) in enumerate(pending):
            if all(v in ready for v in s.ins):
                steps.append(s)
                ready.update(v for v in s.outs if v is not None)
                del pending[n]
                break
        else:  # pragma: no cover
            raise RuntimeError("plan: cyclic dependency between fused kernels")
    return steps


def assign_buffers(prog):
    """Liveness-based slots for temporaries: {value id: slot}, [slot nbytes]."""
    last_use = {}
    for n, s in enumerate(prog.steps):
        for v in s.ins:
            last_use[v] = n
    slot_of, sizes, free = {}, [], []
    for n, s in enumerate(prog.steps):
        if not isinstance(s, LibraryStep):  # library calls return fresh arrays
            for v in s.outs:
                val = prog.values[v]
                if val.kind != "temp":
                    continue
                slot_of[v] = _take_slot(val.nbytes, sizes, free)
        for v in set(s.ins) | set(s.outs):
            if v in slot_of and last_use.get(v, n) <= n and slot_of[v] not in free:
                free.append(slot_of[v])
    return slot_of, sizes


def _take_slot(nbytes, sizes, free):
    best = None
    for k in free:
        if sizes[k] == nbytes:
            best = k
            break
        if isinstance(nbytes, int) and isinstance(sizes[k], int) and sizes[k] >= nbytes and (
                best is None or sizes[k] < sizes[best]):
            best = k
    if best is not None:
        free.remove(best)
        return best
    sizes.append(nbytes)
    return len(sizes) - 1


def concrete(d, env):
    if isinstance(d, int):
        return d
    return int(sympy.sympify(d).subs(env))


@dataclasses.dataclass
class MemoryStats:
    """Bytes of a compiled program at one set of sizes (like JAX's memory_analysis)."""
    argument_size_in_bytes: int
    output_size_in_bytes: int
    temp_size_in_bytes: int
    alias_size_in_bytes: int = 0
    generated_code_size_in_bytes: int = 0
    temp_buffers: int = 0


def memory_stats(prog, env=None):
    env = env or {}
    arg = sum(concrete(prog.values[v].nbytes, env) for v in prog.params)
    out = sum(concrete(prog.values[v].nbytes, env) for v in set(prog.outputs))
    temp = sum(concrete(s, env) for s in prog.slot_sizes)
    lib = sum(concrete(prog.values[v].nbytes, env) for s in prog.steps
              if isinstance(s, LibraryStep) for v in s.outs
              if v is not None and prog.values[v].kind == "temp")
    return MemoryStats(arg, out, temp + lib, temp_buffers=len(prog.slot_sizes))


__all__ = ["Program", "build_program", "memory_stats"]
