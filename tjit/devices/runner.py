"""Running a planned :class:`~tjit.xla_like.plan.Program` at one set of sizes: the part
every backend shares.

A :class:`ProgramRunner` is prepared for a program at a size binding: the concrete
shape and dtype of every value, the temporary slots (``Program.slot_sizes``) and the
views of them each temporary uses, the constants, the donation aliases, and one
``run(vals)`` closure per step. A call then fills in the arguments, runs the closures
and returns the outputs: nothing is decided per call. What is the same at every binding
comes from the program's ``runner_layout.RunnerLayout``, made once; what depends on the
sizes is set by :meth:`ProgramRunner.bind_sizes`, which a backend may call again to
re-bind a runner to new sizes instead of making one (the CPU's ``_Runner.rebind``).

What differs per backend is how a step runs, so a backend subclasses it and supplies
the launchers: ``kernel_step`` (a compiled kernel), ``dot_step`` (a gemm),
``control_step`` (cond/while/scan over body programs) and, optionally,
``finish_steps`` (e.g. the CPU runs independent gemms side by side). Library steps
(``LibraryStep.fn(xp, env, *arrays)``) run here on the backend's array namespace
``xp``. Buffers are NumPy arrays by default; a device backend overrides ``alloc``,
``slot_view`` and ``constant`` (and the argument checks in :meth:`run`) for its own
arrays (the OpenCL runner: ``devices/opencl.py``).
"""

import collections
import math
import threading

import numpy as np

from tjit.devices.runner_layout import RunnerLayout
from tjit.xla_like.plan import ControlStep, DotStep, KernelStep, LibraryStep, memory_stats

#: array types that programs read where they are (when C-contiguous): ndarray, and
#: subclasses registered as plain buffers: tjit.sharding adds LaidOutValue, a committed
#: Array's buffer (a copy per call cost a committed 1e6-element argument 3x a plain
#: one's call). Any other array type (np.matrix, with shape rules of its own) is copied
#: to an ndarray first. (One set lookup per argument on the call path.)
IN_PLACE_TYPES = {np.ndarray}


def solve_sizes(in_specs, flat_args):
    """The size symbols' values that the arguments' shapes bind (``{}`` without specs);
    a shape that contradicts its spec raises, naming the argument."""
    from tjit.tracing.shapes import solve_dims
    env = {}
    for i, (spec, a) in enumerate(zip(in_specs or (), flat_args)):
        if spec is not None:
            solve_dims(spec, np.shape(a), env, f"argument {i}")
    return env


def binding_key(env):
    """A hashable key of a size binding."""
    return tuple(sorted((s.name, v) for s, v in env.items()))


class RunnerPools:
    """Idle runners per size binding, the most recent ``limit`` bindings kept.

    A runner holds one call's state (argument tables, temporaries), so it runs one call
    at a time: a call takes an idle runner of its binding (list.pop/append are atomic
    under the GIL) or makes one, and puts it back; concurrent calls from other threads
    make runners of their own, which join the pool.
    """

    def __init__(self, make_runner, limit):
        self._make_runner = make_runner        # env -> a new runner
        self._limit = limit
        self._pools = collections.OrderedDict()
        self._lock = threading.Lock()

    def prepare(self, env):
        """A function running one call with a runner of binding ``env``."""
        key = binding_key(env)
        with self._lock:
            pool = self._pools.get(key)
            if pool is None:
                pool = self._pools[key] = []
                while len(self._pools) > self._limit:
                    self._pools.popitem(last=False)
            else:
                self._pools.move_to_end(key)

        def run(flat_args, donated=()):
            try:
                runner = pool.pop()
            except IndexError:
                runner = self._make_runner(env)
            try:
                return runner.run(flat_args, donated)
            finally:
                pool.append(runner)
        return run


class PooledCalls:
    """``call``/``prepare`` of an executable that keeps its runners in ``self._runners``
    (a :class:`RunnerPools`) and has ``in_specs``/``symbols``: sizes are solved (and
    checked) before a runner is taken."""

    def call(self, flat_args, donated=()):
        return self.prepare(flat_args)(flat_args, donated)

    def prepare(self, flat_args):
        env = solve_sizes(self.in_specs, flat_args) if self.symbols else {}
        return self._runners.prepare(env)


class PlanInspection:
    """What an executable of a planned program (``self.program``) reports about it, the
    same on every backend: ``Executable``'s inspection methods."""

    def memory_analysis(self, env=None):
        return memory_stats(self.program, env)

    def kernels(self):
        return list(self.program.kernels)

    def step_summary(self):
        kinds = {KernelStep: "kernel", DotStep: "dot", LibraryStep: "library",
                 ControlStep: "control"}
        return [(kinds[type(s)], s.kernel.name if isinstance(s, KernelStep) else
                 getattr(s, "name", "dot_general")) for s in self.program.steps]

    @property
    def kernel_count(self):
        return len(self.program.kernels)

    def kernel_source(self, kernel):
        """``(language, text)`` of the backend source of one of the program's kernels
        (of its bodies too), or None where the backend has none per kernel."""


class ProgramRunner:
    """Everything about one program at one set of sizes that does not change per call."""

    #: The array namespace library steps run on.
    xp = np

    def __init__(self, prog, env):
        self.prog = prog
        self.given = ()       # the donated argument positions of the current call
        layout = self.runner_layout = RunnerLayout.of(prog)   # (alike at every binding)
        self.index, self.dtype = layout.index, layout.dtype
        self.param_slots, self.out_slots = layout.param_slots, layout.out_slots
        self.consts = [(k, self.constant(c)) for k, c in layout.consts]
        # (value index, argument's index, value id) of the arguments' reshaped views
        self.views = [(self.index[v], self.index[src], v) for v, src in prog.views.items()]
        self.bind_sizes(env)

    @property
    def size_values(self):
        """The layout's ``SizedValues`` at the current binding (made on first use after
        a re-bind that left them out)."""
        sized = self._size_values
        if sized is None:
            sized = self._size_values = self.runner_layout.at(self.env)[2]
        return sized

    @size_values.setter
    def size_values(self, sized):
        self._size_values = sized

    def bind_sizes(self, env):
        """What depends on the sizes: shapes, the temporaries' views, the aliases' shapes.
        A backend whose runner can be re-bound to new sizes calls it again (the CPU's
        ``rebind``); the rest of the runner stays."""
        self.env = env
        self.shape, slot_bytes, self.size_values = self.runner_layout.at(env)
        self.slots = slots = self.alloc_slots(slot_bytes)
        # temporaries and constants: reused per call
        self.fixed = fixed = [None] * len(self.index)
        shape, dtype, view = self.shape, self.dtype, self.slot_view
        for k, slot, v in self.runner_layout.slot_values:
            fixed[k] = view(slots[slot], shape[v], dtype[v])
        for k, c in self.consts:
            fixed[k] = c
        self.bind_aliases()

    def bind_aliases(self):
        """The donation aliases' and hosted temporaries' tables at the current shapes."""
        prog = self.prog
        if not prog.aliases and not prog.hosted:    # (most programs: nothing preset)
            self.aliases, self.hosts, self.preset = [], [], frozenset()
            return
        # (output slot, argument position, its slot, kernel reads it through the output,
        # output shape, dtype)
        self.aliases = [(self.index[o], pos, self.index[prog.params[pos]],
                         o in prog.inplace_outputs, self.shape[o], self.dtype[o])
                        for pos, o in prog.aliases.items()]
        # outputs whose buffers host temporaries until written (plan.host_temporaries):
        # made at the start of a call, with the hosted temporaries viewed inside them
        hosts = {}
        for t, (o, at) in prog.hosted.items():
            hosts.setdefault(o, []).append((self.index[t], self.shape[t], self.dtype[t], at))
        self.hosts = [(self.index[o], self.shape[o], self.dtype[o], temps)
                      for o, temps in hosts.items()]
        #: values whose arrays are in place before the steps run (a step writes into them)
        self.preset = {a[0] for a in self.aliases} | {k for k, *_ in self.hosts} | \
            {k for *_, temps in self.hosts for k, *_ in temps}

    def prepare_steps(self):
        """Build the per-step closures (call once the subclass is set up)."""
        self.steps = self.finish_steps(self.prog.steps,
                                       [self._prepare(s) for s in self.prog.steps])

    # -- what a backend supplies ----------------------------------------------------------
    def alloc(self, nbytes):
        """A temporary slot of ``nbytes`` bytes."""
        return np.empty(nbytes, np.uint8)

    def alloc_slots(self, sizes):
        """The temporary slots, of ``sizes`` bytes (a backend may place them together)."""
        return [self.alloc(n) for n in sizes]

    def slot_view(self, slot, shape, dtype):
        """The array of ``shape`` and ``dtype`` at the start of temporary slot ``slot``."""
        n = math.prod(shape) * dtype.itemsize
        return slot[:n].view(dtype).reshape(shape)

    def constant(self, value):
        """A program constant as the backend's array."""
        return np.array(value, order="C")

    def kernel_step(self, s):
        raise NotImplementedError

    def dot_step(self, s):
        """A dot as ``xp.matmul`` over the plan's GemmSpec (batched, operands converted to
        the output dtype), with a folded ``alpha``/``beta * x`` epilogue; the output goes
        into the donated buffer when there is one. Backends with their own gemm override
        it (and may fall back here)."""
        xp = self.xp
        lhs_v, rhs_v = s.ins[:2]
        (out_v,) = s.outs
        li, ri, k_out = self.index[lhs_v], self.index[rhs_v], self.index[out_v]
        xi = self.index[s.x] if s.x is not None else None   # folded beta * x term
        spec = s.gemm_spec(self.shape[lhs_v], self.shape[rhs_v])
        lperm, rperm = list(spec.lperm), list(spec.rperm)
        B, M, Kc, N = (int(d) for d in spec.bmkn)
        out_shape, out_dtype = self.shape[out_v], self.dtype[out_v]
        fixed_out = self.fixed[k_out]
        alpha, beta = out_dtype.type(s.alpha), out_dtype.type(s.beta)
        plain = not s.folded
        # run-time factors of alpha read per call (0-d values: see gemm_epilogue)
        scalar_ks = {v: self.index[v] for v in s.scalar_ids}

        def run(vals):
            a = xp.transpose(vals[li], lperm).reshape(B, M, Kc)
            b = xp.transpose(vals[ri], rperm).reshape(B, Kc, N)
            if a.dtype != out_dtype:
                a = a.astype(out_dtype)
            if b.dtype != out_dtype:
                b = b.astype(out_dtype)
            value_of = lambda v: vals[scalar_ks[v]]     # noqa: E731
            if s.parts:     # (operands' run-time scales where the program applies them)
                a, b = s.scaled(0, a, self.env, value_of), s.scaled(1, b, self.env, value_of)
            out = fixed_out if fixed_out is not None else vals[k_out]  # (donated buffer)
            if out is None:
                out = xp.empty(out_shape, out_dtype)
            if plain:
                xp.matmul(a, b, out=out.reshape(B, M, N))
            else:   # a folded epilogue (out may be x's own buffer: x is read first)
                acc = xp.matmul(a, b).reshape(out_shape)
                acc = acc * alpha if not (s.scale or s.parts) else \
                    s.scaled(2, acc, self.env, value_of)
                if xi is not None:
                    acc += vals[xi] * beta
                out[...] = acc
            vals[k_out] = out
        return run

    def control_step(self, s):
        raise NotImplementedError

    def finish_steps(self, steps, runs):
        """The closures to run, given one per step (a backend may group some)."""
        return runs

    # -- calling --------------------------------------------------------------------------
    def run(self, flat_args, donated=()):
        self.given = donated        # (read by loop steps during this call)
        vals = list(self.fixed)
        for k, a in zip(self.param_slots, flat_args):
            if type(a) not in IN_PLACE_TYPES or not a.flags.c_contiguous:
                a = np.array(a, order="C")  # (np.ascontiguousarray makes 0-d arrays 1-d)
            vals[k] = a
        if self.views:      # (an argument reshaped for a dot: the same memory)
            shape = self.shape
            for k, k_arg, v in self.views:
                vals[k] = vals[k_arg].reshape(shape[v])
        for k_out, pos, k_arg, inplace, shape, dtype in self.aliases:
            a = vals[k_arg]
            if pos in donated and a is flat_args[pos] and a.flags.writeable and \
                    a.shape == shape and a.dtype == dtype:
                vals[k_out] = a         # the output is written into the donated buffer
            elif inplace:               # the kernel reads the argument through the output
                vals[k_out] = np.array(a, order="C")
        for k_out, shape, dtype, temps in self.hosts:
            buf = vals[k_out] = np.empty(shape, dtype)
            for k, t_shape, t_dtype, at in temps:
                vals[k] = np.ndarray(t_shape, t_dtype, buf, at)
        for step in self.steps:
            step(vals)
        return [vals[k] for k in self.out_slots]

    def _prepare(self, s):
        if isinstance(s, KernelStep):
            return self.kernel_step(s)
        if isinstance(s, DotStep):
            return self.dot_step(s)
        if isinstance(s, ControlStep):
            return self.control_step(s)
        return self.library_step(s)

    def library_step(self, s):
        """``s.fn`` on ``self.xp``; its results are checked and owned (a view may alias
        a temporary slot that is reused later)."""
        ins = [self.index[v] for v in s.ins]
        outs = [(self.index[v], self.shape[v], self.dtype[v]) if v is not None else None
                for v in s.outs]
        fn, env, name, xp = s.fn, self.env, s.name, self.xp
        if len(ins) == 1 and len(outs) == 1 and outs[0] is not None and xp is np:
            return _one_in_one_out(fn, env, ins[0], *outs[0], name)

        def run(vals):
            res = fn(xp, env, *[vals[k] for k in ins])
            for o, r in zip(outs, res):
                if o is not None:
                    k, shape, dtype = o
                    vals[k] = owned_result(xp, r, shape, dtype, name)
        return run


def owned_result(xp, r, shape, dtype, name):
    """A library call's result ``r`` as a slot's value: an array of ``shape`` and
    ``dtype``, C-contiguous, that no other slot aliases."""
    r = xp.asarray(r)
    if r.base is not None:  # a view may alias a temporary slot reused later
        r = r.copy()
    if r.dtype != dtype:
        r = r.astype(dtype)
    if r.shape != shape:
        raise RuntimeError(f"library call {name} returned shape {r.shape}, expected {shape}")
    return r if r.flags.c_contiguous else r.copy(order="C")


def _one_in_one_out(fn, env, k_in, k_out, shape, dtype, name):
    """A host library step with one operand and one result (a collective, mostly): a
    result that is already a fresh C-contiguous array of the slot's shape and dtype (a
    collective's output buffer) is taken as it is, without ``_owned``'s conversions,
    part of the few µs a small collective's step costs."""
    def run(vals):
        r = fn(np, env, vals[k_in])[0]
        if type(r) is np.ndarray and r.base is None and r.dtype is dtype and \
                r.shape == shape and r.flags.c_contiguous:
            vals[k_out] = r
        else:
            vals[k_out] = owned_result(np, r, shape, dtype, name)
    return run
