"""From an HLO module to an executable plan: fused kernels, library calls, buffers.

A :class:`Program` is an ordered list of steps over numbered values (HLO instr ids):

* ``KernelStep``: one fused kernel (kernel IR) reading/writing buffers;
* ``DotStep``: ``dot_general`` through BLAS (``devices/blas.py``) into a preallocated buffer,
  with a linear epilogue kernel folded in where there was one (``gemm_epilogue.py``);
* ``LibraryStep``: a host function returning new arrays;
* ``ControlStep``: ``cond``/``while``/``scan`` whose bodies are Programs of their own
  (compiled like the top level; the runtime loops over them, see ``devices/control_flow``).
  A loop body's carry parameters are donated to its outputs, so a carry is updated in
  the previous iteration's buffer instead of a new one each time.

Buffer assignment is liveness based: a temporary takes a slot that an earlier
temporary no longer needs (same byte size, or for concrete sizes one at most twice as
big, or a smaller one grown), so a training step's intermediates share memory. Slots
are allocated once per set of sizes and reused across calls; program outputs get fresh
arrays every call. Liveness is on the clock of :func:`step_times`: a step's index, or,
on a target whose runtime runs a run of consecutive kernels at once
(``TargetInfo.concurrent_kernels``: an HLS dataflow design's stages), one time for the
whole run, so neither slot reuse nor donation pairs a value written in the run with a
buffer the run still reads. On the CPU (``TargetInfo.temps_in_outputs``), as in XLA's buffer
assignment, a temporary whose last reader runs before an output is written may live in
that output's buffer (:func:`host_temporaries`): a training step's activations wait
for the backward pass in the buffers of the gradients written last, so its
temporaries shrink to what is live beside the gradients being written (16-layer tanh
MLP ``value_and_grad``, width 2048, batch 512: 68 -> 4 MiB; JAX/XLA: 8 MiB);
a donated argument may become the buffer of an output of its shape and dtype once
nothing reads it any more (or when the kernel that writes the output reads it only at
the same element: an in-place elementwise update).

**Donation** (``jit(..., donate_argnums=...)``). :func:`plan_donation` pairs each
donated parameter with at most one output of exactly its shape and dtype that a kernel
or a BLAS call writes (library calls return fresh arrays). The pair is sound when the
parameter's last reader runs before the writer, or when the writer is the last reader
and is a kernel that reads the parameter only at the element it is writing (see
:func:`_inplace_kernel`). Kernel pointer arguments are ``noalias`` in the LLVM code, so
such a kernel must not receive one buffer as both an input and an output: it is
rewritten to load the parameter's values *through the output argument* (one pointer
that is read and written; LLVM sees the zero dependence distance and still
vectorizes), and the input argument is left unused. (Dropping ``noalias`` instead
would make LLVM guard the vector loop with an overlap check that the identical
buffers always fail: scalar code.) At run time the donated buffer, when the caller
can give it up, *is* the output; otherwise the output is a fresh copy of the argument.
A folded gemm (``gemm_epilogue``) whose ``beta`` term reads the parameter accumulates
into it the same way. A donated parameter that only a while/scan step reads, as a
carry's initial value, is handed to that loop, which updates it in place.
"""

import bisect
import dataclasses
import functools
import math

import numpy as np

from tjit._sympy import sympy
from tjit.xla_like import kernel_ir as K
from tjit.xla_like import sweep_memory
from tjit.xla_like.hlo import has_effect
from tjit.xla_like.emit import CannotFuse, KernelBuilder
from tjit.xla_like.fusion import FusionDecision, NeedMaterialize
from tjit.xla_like.gemm_epilogue import fold_gemm_epilogues, scalar_ids
from tjit.xla_like.reshape_copies import drop_reshape_copies, view_argument_reshapes
from tjit.xla_like.target import CPU


@dataclasses.dataclass
class Value:
    id: int
    shape: tuple
    dtype: np.dtype
    kind: str                 # "param", "const", "temp", "output", "view"
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
    #: indices of the top-level jaxpr equations the step computes (for views; may be
    #: empty where a pass did not say)
    origin: tuple = ()


@dataclasses.dataclass(frozen=True)
class GemmSpec:
    """A ``dot_general`` as a batched gemm ``(B, M, K) @ (B, K, N) -> (B, M, N)``: what
    every gemm library needs (BLAS, cuBLAS). ``lperm``/``rperm`` order the operands' axes
    as (batch, free, contracting) and (batch, contracting, free); ``bmkn`` are the
    four extents (ints, or sympy expressions for symbolic shapes)."""
    lperm: tuple
    rperm: tuple
    bmkn: tuple

    @classmethod
    def of(cls, dimension_numbers, lshape, rshape):
        (lc, rc), (lb, rb) = dimension_numbers
        lfree = [d for d in range(len(lshape)) if d not in lc and d not in lb]
        rfree = [d for d in range(len(rshape)) if d not in rc and d not in rb]

        def size(shape, dims):
            n = 1
            for d in dims:
                n = n * shape[d]
            return int(n) if isinstance(n, (int, np.integer)) else n
        return cls(tuple(lb) + tuple(lfree) + tuple(lc), tuple(rb) + tuple(rc) + tuple(rfree),
                   (size(lshape, lb), size(lshape, lfree), size(lshape, lc),
                    size(rshape, rfree)))


def factors_at(factors, env, value_of=None):
    """The product of run-time ``factors`` (``((kind, key), power)``, as ``DotStep.scale``)
    as a Python float: sizes from ``env``, values through ``value_of(value id)``. IEEE
    results throughout (a division by 0 is a signed inf, or NaN for 0 / 0), in Python
    floats: it runs at every call of a gemm with a value factor."""
    a = 1.0
    for (kind, key), p in factors:
        v = float(concrete(key, env) if kind == "size" else _number(value_of(key)))
        for _ in range(abs(p)):
            a = a * v if p > 0 else a / v if v else _divided_by_zero(a, v)
    return a


def _number(value):
    """A value factor as a number: a factor may be any size-1 array (``(a @ b) * s`` with
    ``s`` of shape (1, 1) folds ``s`` like a scalar), which ``float()`` refuses."""
    return value.item() if hasattr(value, "item") else value


def _divided_by_zero(a, zero):
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, zero)


@functools.lru_cache(maxsize=None)
def _alpha_range(dtype):
    """(least, greatest): a factor ``dtype`` holds as a finite non-zero number has a
    magnitude above ``least`` (half the least subnormal, which rounds to 0 too: ties go
    to the even 0; for float64 that half is itself 0.0) and at most ``greatest``."""
    info = np.finfo(dtype)
    return float(info.smallest_subnormal) / 2, float(info.max)


@dataclasses.dataclass
class DotStep:
    """``out = alpha * scale * dot(ins[0], ins[1]) + beta * x`` (``x`` = ``ins[2]`` only
    when an epilogue was folded in, see ``gemm_epilogue``). ``scale``: run-time factors
    of ``alpha``, ``((("size", expr) | ("value", value id), power), ...)``. ``parts``:
    when an operand's run-time scale was folded, ``scale`` split into (lhs's factors,
    rhs's factors, the epilogue's factors), so that a run-time 0 or non-finite factor can
    be applied where the program applies it (``(inf * a) @ b`` is NaN where ``a @ b``
    has mixed signs; ``inf * (a @ b)`` is not), and a factor that cancels in ``scale``
    (``(s * a) @ b / s``) is still read. The ids of the value factors of both are the
    last inputs (after ``x``)."""
    dimension_numbers: tuple
    ins: list
    outs: list
    alpha: float = 1.0
    beta: float = 0.0
    origin: tuple = ()      # (as KernelStep.origin)
    scale: tuple = ()
    parts: tuple = ()

    @property
    def scalar_ids(self):
        """The value ids of every run-time factor (``scale`` and ``parts``), in input
        order."""
        return scalar_ids(self.scale, self.parts)

    @property
    def x(self):
        """The value of the folded ``beta`` term, or None."""
        return self.ins[2] if len(self.ins) > 2 + len(self.scalar_ids) else None

    def alpha_at(self, env, value_of=None):
        """``alpha`` with its run-time factors: sizes from ``env`` ({symbol: int}),
        values through ``value_of(value id)`` (a number)."""
        return self.alpha * factors_at(self.scale, env, value_of)

    def parts_at(self, env, value_of=None):
        """``(lhs factor, rhs factor, epilogue factor times alpha)`` as floats (``parts``
        evaluated; ``(1, 1, alpha_at)`` without them)."""
        if not self.parts:
            return 1.0, 1.0, self.alpha_at(env, value_of)
        lhs, rhs, rest = (factors_at(f, env, value_of) for f in self.parts)
        return lhs, rhs, self.alpha * rest

    def scaled(self, part, array, env, value_of=None):
        """``array`` times the factors of one part (0: lhs, 1: rhs, 2: the epilogue's,
        with the constant ``alpha``), applied one at a time in ``array``'s dtype as the
        program's kernels apply them (``s * (s * d)`` stays 0 where ``d`` is 0 even when
        ``s * s`` overflows)."""
        factors = self.parts[part] if self.parts else (self.scale if part == 2 else ())
        dtype = array.dtype
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if part == 2 and self.alpha != 1.0:
                array = array * dtype.type(self.alpha)
            for (kind, key), p in factors:
                v = dtype.type(concrete(key, env) if kind == "size" else _number(value_of(key)))
                for _ in range(abs(p)):
                    array = array * v if p > 0 else array / v
        return array

    def alpha_usable(self, env, value_of, dtype):
        """Whether BLAS may apply the run-time factors as one ``alpha`` in ``dtype``:
        ``alpha`` and, with ``parts``, each part's factor finite and not 0 in ``dtype``.
        Else the product runs unfolded: BLAS skips it at alpha 0 (dropping its NaNs),
        and an infinite or overflowing factor would meet the product's zeros (NaN) where
        the program meets the operands' elements. (Without ``parts`` the total
        suffices: a factor of 0, inf or NaN makes it 0, inf or NaN.)"""
        least, greatest = _alpha_range(dtype)
        numbers = (self.alpha_at(env, value_of),) + (
            self.parts_at(env, value_of) if self.parts else ())
        return all(least < abs(k) <= greatest for k in numbers)     # (NaN: False)

    @property
    def folded(self):
        """A linear epilogue was folded in (``alpha``, its factors or the ``beta * x``
        term)."""
        return self.alpha != 1.0 or self.x is not None or bool(self.scale or self.parts)

    @property
    def name(self):
        return "dot_general+linear_epilogue" if self.folded else "dot_general"

    def gemm_spec(self, lshape, rshape):
        """This dot as a batched gemm over operands of these shapes (:class:`GemmSpec`)."""
        return GemmSpec.of(self.dimension_numbers, lshape, rshape)


@dataclasses.dataclass
class LibraryStep:
    """``fn(xp, env, *arrays)`` on the runtime's array namespace ``xp``; ``primitive``
    and ``params`` name the primitive it runs, when it is one (None otherwise)."""
    name: str
    fn: object
    ins: list
    outs: list
    primitive: object = None
    params: dict = None
    origin: tuple = ()      # (as KernelStep.origin)


@dataclasses.dataclass
class ControlStep(LibraryStep):
    """``name`` is the kind (cond, while, scan); ``bodies`` are Programs; ``attrs`` the
    control op's parameters (counts of consts/carries, scan length...); ``out_avals``
    the (shape, dtype) of every result, used or not."""
    bodies: list = None
    attrs: dict = None
    out_avals: list = None


def _carry_donation(kind, attrs, n_params):
    """(index of the body that loops, its carry parameter positions) of a control op."""
    if kind == "while":
        return 1, range(attrs["body_nconsts"], n_params)
    if kind == "scan":
        first = attrs["num_consts"]
        return 0, range(first, first + attrs["num_carry"])
    return None, ()


class Program:
    def __init__(self, name, values, params, outputs, steps, donated=(),
                 temps_in_outputs=False, concurrent_kernels=False, views=None):
        self.name = name
        # {value: argument}: values that are the argument's array reshaped, made by the
        # runner per call (kind "view", see reshape_copies.view_argument_reshapes)
        self.views = dict(views or {})
        self.values = values          # id -> Value
        self.params = params          # value ids, in argument order
        self.outputs = outputs        # value ids, in result order
        self.steps = steps
        self.donated = tuple(sorted(set(donated)))   # donated argument positions
        # each run of consecutive kernel steps runs at once (TargetInfo.concurrent_kernels)
        self.concurrent_kernels = concurrent_kernels
        # aliases: argument position -> output value id written into its buffer;
        # inplace_outputs: outputs whose kernel reads the argument through the output
        (self.aliases, self.donation_usable, self.inplace_outputs,
         self.loop_donations) = plan_donation(self)
        # hosted: temporary id -> (output id, byte offset) of those living in an
        # output's buffer before the output is written (host_temporaries)
        self.hosted = host_temporaries(self) if temps_in_outputs else {}
        self.host_outputs = {o for o, _ in self.hosted.values()}
        self.slot_of, self.slot_sizes = assign_buffers(self, skip=self.hosted)

    @property
    def kernels(self):
        return [s.kernel for s in self.steps if isinstance(s, KernelStep)]

    def sub_programs(self):
        """The bodies of control steps, nested ones included (depth first)."""
        out = []
        for s in self.steps:
            if isinstance(s, ControlStep):
                for b in s.bodies:
                    out += [b] + b.sub_programs()
        return out

    def text(self, kernels=True):
        lines = [f"program {self.name}: {len(self.steps)} steps, "
                 f"{len(self.kernels)} fused kernels, {len(self.slot_sizes)} temp buffers"]
        arg_of = {o: pos for pos, o in self.aliases.items()}
        for v, src in self.views.items():
            shape = ",".join(str(d) for d in self.values[v].shape)
            lines.append(f"  view %{v} = %{src} as [{shape}]")
        for n, s in enumerate(self.steps):
            ins = ", ".join(f"%{v}" for v in s.ins)
            outs = ", ".join("_" if v is None else f"%{v}" + (
                f"@slot{self.slot_of[v]}" if v in self.slot_of else "") + (
                "@%{}+{}".format(*self.hosted[v]) if v in self.hosted else "") + (
                f"@arg{arg_of[v]}" if v in arg_of else "") for v in s.outs)
            what = (f"kernel {s.kernel.name}" if isinstance(s, KernelStep) else
                    _dot_text(s) if isinstance(s, DotStep) else
                    f"{s.name}[" + ", ".join(b.name for b in s.bodies) + "]"
                    if isinstance(s, ControlStep) else f"library {s.name}")
            lines.append(f"  {n}: {outs} = {what}({ins})")
        if kernels:
            for k in self.kernels:
                lines.append("")
                lines.append(K.kernel_text(k))
        for s in self.steps:
            for b in s.bodies if isinstance(s, ControlStep) else ():
                lines.append("")
                lines.extend("  " + line for line in b.text(kernels).split("\n"))
        return "\n".join(lines)


def _dot_text(s):
    if not s.folded:
        return "dot (BLAS)"
    acc = f" + {s.beta:g}*%{s.x}" if s.x is not None else ""
    factors = "".join(f"*{'%' if kind == 'value' else ''}{key}" + (f"^{p}" if p != 1 else "")
                      for (kind, key), p in s.scale)
    return f"dot (BLAS, {s.alpha:g}{factors}*dot{acc})"


def build_program(module, donated=(), target=CPU, fusion=FusionDecision, top_level=True):
    """Fuse ``module`` and order its steps; retries with more values materialized when
    a kernel cannot inline one (rare index patterns). ``donated``: positions of the
    parameters whose buffers the program may reuse for outputs; ``target``: the
    ``TargetInfo`` whose costs and gemm decide fusion and epilogue folding; ``fusion``:
    the FusionDecision class (``remat.py`` passes one that keeps its phases apart);
    ``top_level``: False for control-flow bodies, whose outputs host no temporaries
    (loops hand their output buffers from one trip to the next)."""
    forced, merge = set(), True
    for _ in range(len(module.instrs) + 2):
        d = fusion(module, forced, merge=merge, target=target)
        try:
            built = {gid: KernelBuilder(d, gid, f"fusion_{n}").build()
                     for n, gid in enumerate(sorted(d.groups, key=lambda g: d.order[g]))}
        except NeedMaterialize as e:
            forced.add(e.instr.id)
            continue
        except CannotFuse:
            merge = False
            continue
        # run-time factors of a gemm's alpha: sizes (set when sizes are bound), and at
        # the top level 0-d values (read per call: loop bodies run in native drivers)
        runtime = {"size", "value"} if top_level else {"size"}
        return _order_steps(module, d, built, donated,
                            top_level and target.temps_in_outputs, target.concurrent_kernels,
                            top_level and target.param_views,
                            runtime if target.gemm_runtime_alpha else frozenset())
    raise RuntimeError("fusion did not converge")  # pragma: no cover


def _order_steps(module, d, built, donated, temps_in_outputs, concurrent_kernels,
                 param_views=False, runtime_alpha=frozenset()):
    values = {}
    for i in module.instrs:
        if i.opcode in ("library", "control"):
            continue
        kind = {"parameter": "param", "constant": "const"}.get(i.opcode, "temp")
        values[i.id] = Value(i.id, tuple(i.shape), i.dtype, kind, i.attrs.get("value"))
    out_ids = [o.id for o in module.outputs]
    for v in out_ids:
        if values[v].kind == "temp":
            values[v].kind = "output"
    pending = []   # (order key, step)
    effects = set()   # id() of the steps that run host effects (callbacks): kept in order
    for gid, (kernel, ins, roots) in built.items():
        pending.append((d.order[gid], KernelStep(kernel, [i.id for i in ins],
                                                 [r.id for r in roots],
                                                 _kernel_origin(roots, ins))))
    for i in module.instrs:
        if i.opcode == "dot":
            pending.append((d.order[i.id], DotStep(i.attrs["dimension_numbers"],
                                                   [o.id for o in i.operands], [i.id],
                                                   origin=_origin([i]))))
        elif i.opcode == "library":
            gets = [u for u in d.users[i.id] if u.opcode == "get"]
            outs = [None] * len(i.attrs["out_avals"])
            for g in gets:
                outs[g.attrs["index"]] = g.id
            pending.append((d.order[i.id], LibraryStep(
                i.attrs["name"], i.attrs["fn"], [o.id for o in i.operands], outs,
                i.attrs.get("primitive"), i.attrs.get("params"), _origin([i]))))
        elif i.opcode == "control":
            pending.append((d.order[i.id], _control_step(i, d)))
        if i.opcode in ("library", "control") and has_effect(i):
            effects.add(id(pending[-1][1]))
    params = [p.id for p in module.params]
    steps = drop_reshape_copies(_topo(pending, values, effects), values, out_ids, KernelStep,
                                DotStep)
    donated_ids = {params[pos] for pos in donated}
    views = {}
    if param_views:
        steps, views = view_argument_reshapes(steps, values, params, donated_ids, out_ids,
                                              KernelStep)
    if d.target.gemm_alpha_beta:
        steps = fold_gemm_epilogues(steps, values, out_ids, donated_ids,
                                    DotStep, KernelStep, d.target.gemm_dtypes, runtime_alpha)
    return Program(module.name, values, params, out_ids, steps, donated, temps_in_outputs,
                   concurrent_kernels, views)


def _origin(instrs):
    return tuple(sorted({n for i in instrs for n in i.origin}))


def _kernel_origin(roots, ins):
    """The equations of the instructions a kernel computes: from its roots back to the
    buffers it reads (a producer recomputed in several kernels counts in each)."""
    return _origin(_walk_members(roots, {i.id for i in ins}))


def _walk_members(roots, stop):
    seen, stack = set(), list(roots)
    while stack:
        i = stack.pop()
        if i.id in seen or i.id in stop:
            continue
        seen.add(i.id)
        yield i
        stack.extend(i.operands)


def _control_step(i, d):
    outs = [None] * len(i.attrs["out_avals"])
    for g in d.users[i.id]:
        outs[g.attrs["index"]] = g.id
    kind, bodies = i.attrs["kind"], i.attrs["bodies"]
    attrs = {k: v for k, v in i.attrs.items() if k not in ("kind", "bodies", "out_avals")}
    loop, carry = _carry_donation(kind, attrs, len(bodies[-1].params))
    programs = [build_program(b, carry if n == loop else (), d.target, top_level=False)
                for n, b in enumerate(bodies)]
    return ControlStep(kind, None, [o.id for o in i.operands], outs, bodies=programs,
                       attrs=attrs, out_avals=i.attrs["out_avals"], origin=_origin([i]))


def _topo(pending, values, effects=frozenset()):
    """Steps in dependency order, each as early in program order as its inputs allow;
    the steps in ``effects`` (ids) keep their program order among themselves (a
    callback's prints and ordered calls happen as the program states them)."""
    ready = {v for v, val in values.items() if val.kind in ("param", "const")}
    pending = sorted(pending, key=lambda t: t[0])
    steps = []
    while pending:
        first_effect = next((id(s) for _, s in pending if id(s) in effects), None)
        for n, (_, s) in enumerate(pending):
            if id(s) in effects and id(s) != first_effect:
                continue
            if all(v in ready for v in s.ins):
                steps.append(s)
                ready.update(v for v in s.outs if v is not None)
                del pending[n]
                break
        else:  # pragma: no cover  (fusion keeps the step graph acyclic: a compiler bug)
            waits = "; ".join(
                f"{s.kernel.name if isinstance(s, KernelStep) else s.name} waits on "
                + ", ".join(f"%{v}" for v in s.ins if v not in ready) for _, s in pending[:4])
            raise RuntimeError("plan: cyclic dependency between fused kernels (a compiler "
                               f"bug: please report the program): {waits}")
    return steps


# ----------------------------------------------------------------------------------------
# The planner's clock: when steps run.

def kernel_runs(steps):
    """Maximal runs of consecutive kernel steps: ``[(first index, [steps])]`` (on a
    target with ``concurrent_kernels``, each run is one step of the runtime: an HLS
    dataflow design, ``devices/hls.py``)."""
    runs, cur = [], None
    for i, s in enumerate(steps):
        if isinstance(s, KernelStep):
            if cur is None:
                cur = (i, [])
                runs.append(cur)
            cur[1].append(s)
        else:
            cur = None
    return runs


def step_times(steps, concurrent_kernels):
    """The time at which each step runs, for liveness: its index, or, where runs of
    kernel steps run at once (``concurrent_kernels``), one time for the whole run, so
    every value a run's kernels read or write is live from the run's start to its end
    (a slot one of them reads is not given to a value another writes; a donated
    argument one of them reads does not hold a value another writes)."""
    times = list(range(len(steps)))
    if concurrent_kernels:
        for first, run in kernel_runs(steps):
            times[first:first + len(run)] = [first] * len(run)
    return times


# ----------------------------------------------------------------------------------------
# Donation.

def plan_donation(prog):
    """Pair donated parameters with outputs; rewrite kernels that update in place.

    Returns ``(aliases, usable, inplace_outputs, loop_donations)``: ``{argument
    position: output value id}``, the positions whose donation is used (aliased,
    returned unchanged, or given to a loop), the outputs whose (rewritten) kernel
    expects the argument's data in the output buffer on entry, and ``{id(loop step):
    {input index: argument position}}``: a donated argument that is the initial value
    of a while/scan carry and read by nothing else becomes that carry's first buffer
    (the loop updates it in place). Replaces those kernels in ``prog.steps``, and may
    move steps that read a donated parameter before the writer of its output (when
    their inputs are ready there), so that ``(x * 2, sum(x))`` can still update ``x``
    in place. On a target that runs a run of kernels at once (``step_times``), a writer
    beside a reader of the parameter in one run is not paired with it.
    """
    steps, concurrent = prog.steps, prog.concurrent_kernels
    accepted, inplace = [], {}   # (param, output); id(step) -> [(param, output)]
    aliases, usable = {}, set()
    for pos in prog.donated:
        p = prog.params[pos]
        if p in prog.outputs:  # returned unchanged: the result is the buffer itself
            usable.add(pos)
            continue
        taken = {o for _, o in accepted}
        positions = _positions(steps)
        for o in dict.fromkeys(prog.outputs):
            if o in taken or prog.values[o].kind != "output" or \
                    not _same_type(prog.values[p], prog.values[o]):
                continue
            writer, last_read = positions
            n = writer.get(o)
            if n is None or isinstance(steps[n], LibraryStep):
                continue
            order = steps
            if last_read.get(p, -1) > n:
                order = _hoist_readers(steps, p, n, writer)
                if order is None:
                    continue
            n = _positions(order)[0][o]
            s = order[n]
            pairs = inplace.get(id(s), [])
            reads = _read_order(order, step_times(order, concurrent), p, n)
            if reads in ("after", "beside"):   # (a reader runs at once with the writer)
                continue
            if reads == "inplace":  # the writer reads the parameter too
                pairs = pairs + [(p, o)]
                if not (_gemm_accumulates_into(s, p) if isinstance(s, DotStep) else
                        isinstance(s, KernelStep) and
                        _inplace_kernel(s, pairs, prog.values) is not None):
                    continue
            if not _aliases_hold(order, accepted, inplace, concurrent):
                continue
            steps = order
            inplace[id(s)] = pairs
            accepted.append((p, o))
            aliases[pos] = o
            usable.add(pos)
            break
    kernels = {id(s) for s in steps if isinstance(s, KernelStep)}
    prog.steps = [KernelStep(_on_hyperplane(_inplace_kernel(s, inplace[id(s)], prog.values)),
                             s.ins, s.outs, s.origin)
                  if inplace.get(id(s)) and id(s) in kernels else s for s in steps]
    loops = _loop_donations(prog, usable)
    usable.update(pos for given in loops.values() for pos in given.values())
    return aliases, usable, {o for k, pairs in inplace.items() if k in kernels
                             for _, o in pairs}, loops


def _loop_donations(prog, usable):
    """{id(loop step): {input index: argument position}} for donated arguments not used
    otherwise that a while/scan step alone reads, once, as a carry's initial value."""
    loops = {}
    for pos in prog.donated:
        p = prog.params[pos]
        if pos in usable or p in prog.outputs:
            continue
        readers = [s for s in prog.steps if p in s.ins]
        if len(readers) != 1 or not isinstance(readers[0], ControlStep):
            continue
        s = readers[0]
        at = [j for j, v in enumerate(s.ins) if v == p]
        if len(at) == 1 and at[0] in carry_inputs(s):
            loops.setdefault(id(s), {})[at[0]] = pos
    return loops


def carry_inputs(step):
    """The input indices of a while/scan step that are carries' initial values."""
    a = step.attrs
    if step.name == "while":
        return range(a["cond_nconsts"] + a["body_nconsts"], len(step.ins))
    if step.name == "scan":
        return range(a["num_consts"], a["num_consts"] + a["num_carry"])
    return range(0)


def _gemm_accumulates_into(step, p):
    """A folded gemm whose ``beta`` term reads ``p`` may accumulate into ``p``'s buffer
    (it starts from ``p``'s data; BLAS reads each element of ``C`` before writing it),
    unless ``p`` is also one of the product's operands."""
    return step.x == p and p not in step.ins[:2] and p not in step.ins[3:]


def _positions(steps):
    """({value: index of the step writing it}, {value: index of its last reader})."""
    writer, last_read = {}, {}
    for n, s in enumerate(steps):
        for v in s.ins:
            last_read[v] = n
        for v in s.outs:
            writer[v] = n
    return writer, last_read


def _hoist_readers(steps, p, n, writer):
    """``steps`` with every reader of ``p`` after step ``n`` moved just before it, or
    None if one of them needs a value computed at ``n`` or later or runs a host effect
    (a callback keeps its place among the others)."""
    ready = {v for v, m in writer.items() if m < n}
    moved = []
    for m in range(n + 1, len(steps)):
        s = steps[m]
        if p in s.ins:
            if any(v in writer and v not in ready for v in s.ins) or _runs_effect(s):
                return None
            moved.append(s)
            ready.update(s.outs)
    ids = {id(s) for s in moved}
    return steps[:n] + moved + [s for s in steps[n:] if id(s) not in ids]


def _runs_effect(s):
    """Whether step ``s`` runs an effectful primitive (a callback), itself or in a body."""
    if isinstance(s, ControlStep):
        return any(_runs_effect(t) for b in s.bodies for t in b.steps)
    return isinstance(s, LibraryStep) and getattr(s.primitive, "effectful", False)


def _aliases_hold(steps, accepted, inplace, concurrent):
    """Every accepted (param, output) pair is still sound in this step order: the
    parameter is last read before its output is written, or by that very kernel
    when it was checked to update in place (on the clock of ``step_times``)."""
    writer = _positions(steps)[0]
    times = step_times(steps, concurrent)
    for p, o in accepted:
        w = writer[o]
        reads = _read_order(steps, times, p, w)
        if reads in ("after", "beside") or \
                (reads == "inplace" and (p, o) not in inplace.get(id(steps[w]), ())):
            return False
    return True


def _read_order(steps, times, p, w):
    """How the readers of ``p`` stand to step ``w`` (the writer of the output paired
    with it) on the clock ``times``: "after" (one runs later), "beside" (another one runs
    at ``w``'s time: at once, in a concurrent run), "inplace" (``w`` is the last and
    the only one at its time) or "before" (all run earlier, or none)."""
    t, how = times[w], "before"
    for m, s in enumerate(steps):
        if p not in s.ins:
            continue
        if times[m] > t:
            return "after"
        if times[m] == t:
            how = "beside" if m != w or how == "beside" else "inplace"
    return how


def _same_type(a, b):
    return a.dtype == b.dtype and len(a.shape) == len(b.shape) and all(
        _dims_equal(x, y) for x, y in zip(a.shape, b.shape))


def _dims_equal(x, y):
    if isinstance(x, int) and isinstance(y, int):
        return x == y
    return sympy.expand(x - y) == 0


def _count(dims):
    n = 1
    for d in dims:
        n = n * d
    return n


def _inplace_kernel(step, pairs, values):
    """``step``'s kernel rewritten so each output of ``pairs`` ((param id, output id))
    is updated in the parameter's buffer, or None when that is not sound.

    Sound when, for each pair: the kernel is row style, exactly one store writes the
    output, every load of the parameter (in stores and in reduction stages) uses that
    store's index map, the store's points are as many as the output's elements (so
    each point has its own element), and no store that runs after it at the same
    point loads the parameter. Then a point reads only its own element before writing
    it; a stage that loads the parameter needs an inner-level store, so the stages of
    an outer point (a row: softmax, ``x - mean(x)``) read the row before its stores
    run. Threads split a kept axis, so each element is read and written by the one
    thread that owns its point.
    """
    k = step.kernel
    if not k.row_style:  # accumulate style: outputs are running updates
        return None
    n_in, red = len(step.ins), set(k.reduce_axes)
    stage_loads = [n for st in k.stages for n in K.walk(st.expr) if isinstance(n, K.Load)]
    is_outer = [st.level == "outer" and bool(red) for st in k.stores]
    remap, pair_args, inplace_stores = {}, [], set()
    for p, o in pairs:
        in_args = {j for j, v in enumerate(step.ins) if v == p}
        out_arg = n_in + list(step.outs).index(o)
        mine = [j for j, st in enumerate(k.stores) if st.arg == out_arg]
        if len(mine) != 1:
            return None
        st = k.stores[mine[0]]
        in_stages = [n for n in stage_loads if n.arg in in_args]
        if in_stages and is_outer[mine[0]]:
            return None
        loads = in_stages + [n for s2 in k.stores for n in K.walk(s2.expr)
                             if isinstance(n, K.Load) and n.arg in in_args]
        if any(n.index != st.index for n in loads):
            return None
        if any(isinstance(n, K.IndexedLoad) and n.arg in in_args for n in K.all_nodes(k)):
            return None   # a gather may read any element: not in place
        axes = [a for a in range(len(k.shape)) if not (is_outer[mine[0]] and a in red)]
        if not _dims_equal(_count(k.shape[a] for a in axes), _count(values[o].shape)):
            return None
        remap.update({j: out_arg for j in in_args})
        pair_args += [(j, out_arg) for j in sorted(in_args)]
        inplace_stores.add(mine[0])
    # Execution order: outer stores, then inner ones; in-place stores go last in each.
    order = sorted(range(len(k.stores)), key=lambda j: (not is_outer[j], j in inplace_stores))
    executed = [k.stores[j] for j in order]
    for pos, j in enumerate(order):
        if j in inplace_stores:
            args = {i for i, o in remap.items() if o == k.stores[j].arg}
            if any(isinstance(n, K.Load) and n.arg in args
                   for later in executed[pos + 1:] for n in K.walk(later.expr)):
                return None
    memo = {}
    stages = tuple(dataclasses.replace(sg, expr=_reload(sg.expr, remap, memo))
                   for sg in k.stages)
    stores = tuple(dataclasses.replace(st, expr=_reload(st.expr, remap, memo))
                   for st in executed)
    return dataclasses.replace(k, stages=stages, stores=stores, inplace=tuple(pair_args))


def _on_hyperplane(k):
    """An in-place kernel that changes one hyperplane only, restricted to it.

    ``out[p] = select(index_a(p) == s, new(p), out[p])`` with ``s`` loop-invariant (the
    lowering of ``x.at[s].set/add/...(v)``) leaves every point off the plane ``a = s``
    as it is: the buffer already holds those values, so the kernel needs to visit the
    plane only (``Kernel.hyperplane``), and stores ``new`` there. A row update in a
    loop then costs a row, not a pass over the whole carry.
    """
    if k.reduce_axes or k.stages or len(k.stores) != 1 or k.hyperplane is not None:
        return k
    st = k.stores[0]
    if st.arg not in {o for _, o in k.inplace}:
        return k
    e = st.expr
    if not (isinstance(e, K.Op) and e.op == "select" and isinstance(e.args[2], K.Load)
            and e.args[2].arg == st.arg and e.args[2].index == st.index):
        return k
    pred = e.args[0]
    if not (isinstance(pred, K.Op) and pred.op == "eq"):
        return k
    for iv, s in (pred.args, pred.args[::-1]):
        axis = _single_axis(iv)
        if axis is not None and K.is_loop_invariant_int(s):
            break
    else:
        return k
    n = k.shape[axis]
    shape = k.shape[:axis] + (1,) + k.shape[axis + 1:]
    return dataclasses.replace(k, shape=shape, hyperplane=(axis, s, n),
                               stores=(dataclasses.replace(st, expr=e.args[1]),))


def _single_axis(node):
    """The axis ``a`` when ``node`` is the iteration index along ``a`` (iota), else None."""
    if not isinstance(node, K.IndexValue) or not _dims_equal(node.index.offset, 0):
        return None
    axes = [a for a, c in enumerate(node.index.coefs) if not _dims_equal(c, 0)]
    if len(axes) != 1 or not _dims_equal(node.index.coefs[axes[0]], 1):
        return None
    return axes[0]


def _reload(expr, remap, memo):
    """``expr`` with loads of ``remap``'s arguments reading the mapped argument instead
    (shared subexpressions stay shared)."""
    for node in K.walk(expr):
        if id(node) in memo:
            continue
        new = node
        if isinstance(node, K.Load) and node.arg in remap:
            new = K.Load(remap[node.arg], node.index, node.dtype)
        elif isinstance(node, K.IndexedLoad) and memo[id(node.offset)] is not node.offset:
            new = dataclasses.replace(node, offset=memo[id(node.offset)])
        elif isinstance(node, K.Op):
            args = tuple(memo[id(a)] for a in node.args)
            if any(a is not b for a, b in zip(args, node.args)):
                new = dataclasses.replace(node, args=args)
        memo[id(node)] = new
    return memo[id(expr)]


#: Temporaries smaller than this keep slots rather than living in an output's buffer:
#: a hosted temporary's array is a view made on every call (about 0.3 us), which a small
#: program's dispatch would feel, for bytes that do not matter.
HOST_MIN_BYTES = 1 << 16
#: Offsets inside an output's buffer are multiples of this (as slots in the arena are).
HOST_ALIGN = 64
#: Outputs tried per temporary, the soonest written first (planning stays linear).
HOST_TRIES = 16


def host_temporaries(prog):
    """Temporaries that live in output buffers before the outputs are written, as in
    XLA's buffer assignment: {temporary id: (output id, byte offset)}.

    An output that a kernel or a BLAS call writes (not into a donated argument) has a
    buffer the runtime makes at the start of the call; until the step that writes it,
    the buffer is free. A temporary whose last reader runs before that step may live
    there, at an offset where it overlaps no other temporary hosted there whose live
    range meets its own (a step that reads one and writes another counts as both
    alive). Temporaries are placed in the order they are made (a linear scan: hosted
    ones that died leave each output's list), each in the output written soonest after
    its last reader that has room, so the outputs written last stay free for the values
    that live longest (a forward pass's activations, until the backward pass).
    """
    written, made, last_use = {}, {}, {}
    times = step_times(prog.steps, prog.concurrent_kernels)
    for s, n in zip(prog.steps, times):
        for v in s.ins:
            last_use[v] = n
        if isinstance(s, LibraryStep):      # (library and control results: fresh arrays)
            continue
        for v in s.outs:
            kind = prog.values[v].kind
            if kind == "output":
                written.setdefault(v, n)
            elif kind == "temp":
                made.setdefault(v, n)
    excluded = set(prog.aliases.values()) | set(prog.inplace_outputs)
    hosts = sorted((n, o) for o, n in written.items()
                   if o not in excluded and isinstance(prog.values[o].nbytes, int))
    writers = [n for n, _ in hosts]
    live = {o: [] for _, o in hosts}       # output -> [(last use, start, end)] hosted
    hosted = {}
    for v, n in sorted(made.items(), key=lambda t: t[1]):
        size = prog.values[v].nbytes
        if not hosts or not isinstance(size, int) or size < HOST_MIN_BYTES:
            continue
        end = last_use.get(v, n)
        first = bisect.bisect_right(writers, end)
        for _, o in hosts[first:first + HOST_TRIES]:
            capacity = prog.values[o].nbytes
            if capacity < size:
                continue
            ranges = live[o] = [r for r in live[o] if r[0] >= n]
            at = _first_gap(sorted(r[1:] for r in ranges), size, capacity)
            if at is not None:
                ranges.append((end, at, at + size))
                hosted[v] = (o, at)
                break
    return hosted


def _first_gap(taken, size, capacity):
    """The first aligned offset where ``size`` bytes fit between the sorted ``taken``
    ranges within ``capacity`` bytes, or None."""
    at = 0
    for lo, hi in taken:
        if lo - at >= size:
            return at
        at = max(at, -(-hi // HOST_ALIGN) * HOST_ALIGN)
    return at if capacity - at >= size else None


def memory_of(prog, v):
    """(buffer, first byte, end byte) of value ``v`` in the plan's shared memory (a
    temporary slot, or an output's buffer with the temporaries it hosts), or None for
    a buffer of its own (arguments, fresh outputs, library results). Two values whose
    ranges in one buffer overlap must not be written while the other is used."""
    val = prog.values[v]
    if v in prog.hosted:
        o, at = prog.hosted[v]
        return ("output", o), at, at + val.nbytes
    if v in prog.slot_of:
        return ("slot", prog.slot_of[v]), 0, val.nbytes
    if v in prog.host_outputs:
        return ("output", v), 0, val.nbytes
    return None


def assign_buffers(prog, skip=()):
    """Liveness-based slots for temporaries: {value id: slot}, [slot nbytes]; ``skip``:
    temporaries that have memory elsewhere (hosted in outputs). Liveness is on the
    clock of :func:`step_times`: the steps of one time (a concurrent run of kernels)
    take their slots before any value they last use frees one."""
    steps = prog.steps
    times = step_times(steps, prog.concurrent_kernels)
    last_use = {}
    for s, n in zip(steps, times):
        for v in s.ins:
            last_use[v] = n
    slot_of, sizes, free = {}, [], []
    first = 0
    while first < len(steps):
        n = times[first]
        end = first + 1
        while end < len(steps) and times[end] == n:
            end += 1
        for s in steps[first:end]:
            if not isinstance(s, LibraryStep):  # library calls return fresh arrays
                for v in s.outs:
                    val = prog.values[v]
                    if val.kind != "temp" or v in skip:
                        continue
                    slot_of[v] = _take_slot(val.nbytes, sizes, free)
        for s in steps[first:end]:
            for v in set(s.ins) | set(s.outs):
                if v in slot_of and last_use.get(v, n) <= n and slot_of[v] not in free:
                    free.append(slot_of[v])
        first = end
    return slot_of, sizes


def _take_slot(nbytes, sizes, free):
    """A free slot for a value of ``nbytes``: one of exactly that size; for concrete
    sizes, else the smallest at most twice as big, else the biggest smaller one, grown
    to fit (its earlier values used its start); else a new slot. (A small value that
    took a much bigger slot would hold it for its whole life, and the next big value
    would need a new slot: a training step's long-lived small values, kept in freed
    activation slots, tripled its temporaries.)"""
    exact = fit = grow = None
    for k in free:
        size = sizes[k]
        if size == nbytes:
            exact = k
            break
        if not (isinstance(nbytes, int) and isinstance(size, int)):
            continue
        if nbytes < size <= 2 * nbytes:
            if fit is None or size < sizes[fit]:
                fit = k
        elif size < nbytes and (grow is None or size > sizes[grow]):
            grow = k
    best = next((k for k in (exact, fit, grow) if k is not None), None)
    if best is None:
        sizes.append(nbytes)
        return len(sizes) - 1
    free.remove(best)
    if best == grow:
        sizes[best] = nbytes
    return best


def concrete(d, env):
    if isinstance(d, int):
        return d
    v = env.get(d)      # (a dim that is just a size symbol)
    if type(v) is int:
        return v
    d = sympy.sympify(d)
    # A runner for each new size of a dynamic-shape program evaluates a few dozen of
    # these: each expression is compiled to Python once (~1 us a call, subs takes ~50 us)
    syms, fn = _size_function(d)
    try:
        v = fn(*[env[s] for s in syms])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        v = None
    if type(v) is int:
        return v
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 52:
        return int(v)
    return int(d.subs(env))     # (a symbol left unbound raises here, as before)


@functools.lru_cache(maxsize=4096)
def _size_function(d):
    """(its symbols, a Python function of their values) for the size expression ``d``."""
    syms = tuple(sorted(d.free_symbols, key=str))
    return syms, sympy.lambdify(syms, d, modules="math")


@dataclasses.dataclass
class MemoryStats:
    """Bytes of a compiled program at one set of sizes (like JAX's memory_analysis)."""
    argument_size_in_bytes: int
    output_size_in_bytes: int
    temp_size_in_bytes: int
    alias_size_in_bytes: int = 0
    generated_code_size_in_bytes: int = 0
    temp_buffers: int = 0

    @property
    def peak_memory_in_bytes(self):
        """Bytes the program holds at once (JAX's name): its arguments, outputs and
        temporary buffers, each once (outputs written into donated arguments count once)."""
        return (self.argument_size_in_bytes + self.output_size_in_bytes
                - self.alias_size_in_bytes + self.temp_size_in_bytes)


def memory_stats(prog, env=None, size=None):
    """The program's byte counts at the sizes ``env`` ({symbol: int}); ``size``: how a
    byte count (an int or a size expression) becomes a number instead (``sympy.sympify``
    keeps the expressions: the counts of every size at once)."""
    if size is None:
        env = env or {}

        def size(d):
            return concrete(d, env)
    arg = sum(size(prog.values[v].nbytes) for v in prog.params)
    out = sum(size(prog.values[v].nbytes) for v in set(prog.outputs))
    temp = sum(size(s) for s in prog.slot_sizes)
    lib = sum(size(prog.values[v].nbytes) for s in prog.steps
              if isinstance(s, LibraryStep) for v in s.outs
              if v is not None and prog.values[v].kind == "temp")
    # control bodies keep their own temporaries for as long as the program lives
    lib += sum(size(n) for b in prog.sub_programs() for n in b.slot_sizes)
    # the reverse sweeps of while loops hold loop states and records of their own
    lib += sweep_memory.counted_bytes(prog, size)
    # JAX's meaning: bytes of outputs that live in (donated) argument buffers; outputs
    # still count them, so arguments + outputs - aliases + temporaries is the total.
    alias_ids = set(prog.aliases.values()) | {prog.params[pos] for pos in prog.donation_usable
                                              if pos not in prog.aliases}
    alias = sum(size(prog.values[v].nbytes) for v in alias_ids)
    return MemoryStats(arg, out, temp + lib, alias, temp_buffers=len(prog.slot_sizes))


__all__ = ["ControlStep", "Program", "build_program", "memory_stats"]
