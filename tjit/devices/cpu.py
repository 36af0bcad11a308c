"""The CPU executable: runs a fused :class:`~tjit.xla_like.plan.Program`.

A :class:`_Runner` (the CPU's launchers on ``runner.ProgramRunner``) is prepared for a
set of sizes (the one of a concrete program, a size binding of a polymorphic one):
concrete shapes, the temporary slots, each kernel's ``void*`` argument array with the
temporaries' pointers already in place, and its sizes array. A call then only fills in
argument/output pointers and calls kernels: no compilation ever happens for a new size
binding, because the kernels take sizes as run-time arguments. Nor is a new runner made
for one: an idle runner is re-bound (``_Runner.rebind``, ``KEPT_RUNNERS``), its tables
rewritten in place for the new sizes. Nor are its steps' closures made again: one
function generated per program structure (``rebind_code``) rewrites, in place, what
the closures read of the sizes (each kernel's sizes array, thread split and
temporaries' addresses, its outputs' shapes; each gemm's plan) in straight-line code,
so a new size costs its sizes, not a new runner. A runner whose last binding used the
thread pool wakes its workers before re-binding (``ThreadPool.prewake``): their
wake-up overlaps the re-bind instead of delaying the first parallel step.

Kernels whose iteration space is large run on all cores (``threads.parallel_for``
splits the axis ``lower/llvm/split.py`` picks); small ones run on the calling thread, where a thread
hand-off would cost more than the work.

Donation: ``call(flat_args, donated)`` names the arguments whose buffers the caller
gives up. An output the plan aliased to such an argument is written into the
argument's array, which is returned as the result; when the argument is not given up
(a NumPy input, say) the output gets a fresh array, pre-filled with the argument's
data when its kernel was rewritten to update in place.
"""

import ctypes
import math
import threading

import numpy as np

from tjit.devices import (array_args, backend, blas, control_flow, cpu_cumulative,
                          cpu_fill_copy, cpu_lapack, cpu_scatter, cpu_top_k, helpers_ahead,
                          kernel_cache, rebind_code)
from tjit.devices.array_args import data_pointer as _ptr
from tjit.devices.executable import Executable
from tjit.devices.runner import (IN_PLACE_TYPES, PlanInspection, ProgramRunner, binding_key,
                                 solve_sizes)
from tjit.devices.slot_arena import SharedSlots
from tjit.devices.threads import default_num_threads, get_pool, parallel_for
from tjit.lower.llvm.split import split_axis, work_per_point
from tjit.xla_like.compile import compile_program, size_symbols
from tjit.xla_like.plan import (
    ControlStep,
    KernelStep,
    carry_inputs,
    memory_of,
)
from tjit.xla_like.target import CPU

#: Kernels run single-threaded below this much work (iteration points times
#: ``split.work_per_point``): measured here, splitting a cheap elementwise kernel
#: across the 2 cores only pays from ~2^19 points (~80 µs of work; below, the hand-off and
#: moving cache lines between cores cost more), one with a transcendental from ~2^16.
PARALLEL_MIN_WORK = 1 << 19

#: Idle runners an executable keeps, each bound to one size binding. A call at a binding
#: one of them has runs on it; a call at another binding re-binds the least recently
#: used one once this many are kept (``_Runner.rebind``: new shapes, temporaries, kernel
#: sizes and gemm plans written into the tables it has; no new launchers), else makes
#: one. Their temporaries share one arena (``slot_arena``), so a kept runner costs launch
#: tables, not memory. A few runners let a program alternate between a few sizes (a
#: last partial batch, train and eval sizes) at no cost per call. Measured on the MLP
#: of ``benchmarks/bench_dynamic_shapes.py`` between calls (caches cold, on this
#: 2-core machine under a load of ~9, the calling thread's CPU): re-binding a runner
#: to a new batch size takes ~110 us (~12 us with warm caches; its generated function,
#: ``rebind_code``), where re-building its steps took ~300 us and making a runner more. The memory they hold is bounded: this
#: many runners per executable, gemm plans per process (``blas._plan``, 4096), and
#: one arena per executable at most twice the largest binding's temporaries.
KEPT_RUNNERS = 4


class CpuExecutable(PlanInspection, Executable):
    """Fused LLVM kernels + BLAS calls for one traced program."""

    backend = "cpu"

    def __init__(self, program, in_specs=None, symbols=()):
        self.program = program
        self.in_specs = in_specs
        self.symbols = tuple(symbols)       # sympy size symbols of the program
        # (the runtime helpers it will call, built beside its kernels' compile; joined
        # before returning, so no thread is left inside LLVM's lock at a later fork)
        helpers = helpers_ahead.start(program, PARALLEL_MIN_WORK)
        try:
            self.fns = _compile(self.program)
        finally:
            if helpers is not None:
                helpers.join()
        self._idle = []                     # idle runners, the most recently used last
        self._idle_lock = threading.Lock()
        self._shared_slots = SharedSlots() if self.symbols else None

    # -- calling --------------------------------------------------------------------------
    # A runner holds per-call state (kernel argument arrays, temporaries), so one runs
    # one call at a time: a call takes an idle runner (of its size binding if there is
    # one) and puts it back; concurrent calls from other threads find none idle and make
    # runners of their own, which join the idle ones.
    def call(self, flat_args, donated=()):
        env = self._solve(flat_args) if self.symbols else {}
        return self._run(env, flat_args, donated)

    def prepare(self, flat_args):
        """Check the arguments' sizes now; the returned function runs the program
        (so a size error never comes after donated buffers were written)."""
        env = self._solve(flat_args) if self.symbols else {}
        return lambda flat_args, donated=(): self._run(env, flat_args, donated)

    def _run(self, env, flat_args, donated):
        runner = self._take(env)
        held = runner.arena.lock if runner.arena is not None else None
        if held is not None and not held.acquire(False):
            # another call runs on the shared temporaries: this one gets its own
            self._give_back(runner)
            runner, held = self._make_runner(env, shared=False), None
        try:
            return runner.run(flat_args, donated)
        finally:
            if held is not None:
                held.release()
            self._give_back(runner)

    def _take(self, env):
        """An idle runner bound to ``env``: one already bound to it, else the least
        recently used re-bound (once ``KEPT_RUNNERS`` are kept), else a new one."""
        key = binding_key(env) if env else ()
        with self._idle_lock:
            idle = self._idle
            for i in range(len(idle) - 1, -1, -1):
                if idle[i].binding == key:
                    return idle.pop(i)
            runner = idle.pop(0) if len(idle) >= KEPT_RUNNERS else None
        if runner is None:
            return self._make_runner(env)
        if runner.uses_threads:   # (likely at the new size too: wake the workers now)
            get_pool(runner.nthreads).prewake()
        runner.rebind(env)
        runner.binding = key
        return runner

    def _give_back(self, runner):
        with self._idle_lock:
            self._idle.append(runner)
            if len(self._idle) > KEPT_RUNNERS:     # (after calls from several threads)
                del self._idle[0]

    def _solve(self, flat_args):
        return solve_sizes(self.in_specs, flat_args)

    def _make_runner(self, env, shared=True):
        runner = _Runner(self.program, self.fns, env, self._shared_slots if shared else None)
        runner.binding = binding_key(env) if env else ()
        return runner

    # -- inspection -----------------------------------------------------------------------
    def as_text(self, source=False, llvm=False):
        text = self.program.text()
        if source or llvm:     # the CPU backend's kernel source is LLVM IR
            for p, many in _programs(self.program):
                for k in p.kernels:
                    text += ("\n\n; ---- LLVM IR of " + k.name + "\n"
                             + kernel_cache.llvm_ir(k, many))
        return text

    def kernel_source(self, kernel):
        return "LLVM IR", kernel_cache.llvm_ir(kernel)

    def donation(self):
        """({position: output} the program may write into, usable positions); a
        position a loop takes over maps to None."""
        writes = dict(self.program.aliases)
        for given in self.program.loop_donations.values():
            writes.update(dict.fromkeys(given.values()))
        return writes, set(self.program.donation_usable)



class _Runner(ProgramRunner):
    """The CPU's step launchers (``runner.ProgramRunner`` holds the rest): kernels
    called through ctypes, split across threads when large; dots through BLAS (runs of
    independent ones side by side); loops over body runners; and the single-kernel fast
    path."""

    def __init__(self, prog, fns, env, shared_slots=None, many_calls=False):
        self.fns = fns
        self.many_calls = many_calls    # (a loop body's runner: see control_step)
        self.shared_slots = shared_slots    # (slot_arena.SharedSlots, or None: own memory)
        self.arena = None
        self.nthreads = default_num_threads()   # (read once per runner, not per step)
        self.binding = None   # (set by CpuExecutable: the key of the size binding)
        self.uses_threads = False   # (its binding splits a step across threads)
        self._rebind = None         # (rebind_code's function, where the steps follow)
        # ctypes objects kept across size bindings (see rebind): per step its argument
        # array and launcher or its GemmCall, per kernel its sizes array
        self._kept = {}
        self._kernel_sizes = {}
        super().__init__(prog, env)
        self._prepare_run()

    def rebind(self, env):
        """Re-point this runner at the size binding ``env`` instead of making a new one:
        shapes, temporaries, the kernels' sizes, thread splits and gemm plans are redone
        and written into the argument and sizes arrays the launchers already point at;
        compiled kernels, launchers, the steps' closures and the program's layout are
        kept (one generated function, ``rebind_code``: a new size costs its sizes, not
        a new runner). Loop bodies' runners are made again; where the steps cannot
        follow (a gemm the shim cannot do at these sizes, dots now worth grouping) they
        are prepared again."""
        if self._rebind is None:
            self.bind_sizes(env)
            self._prepare_run()
        elif not self._rebind(self, env):
            self._prepare_run()

    def _prepare_run(self):
        """The steps' closures at the current binding, and the single-kernel fast path
        where it applies; the generated binding of the kernel steps (run once now) and,
        where the closures can follow a new binding, the generated re-bind."""
        prog = self.prog
        self.control_runners = {}   # id(control step) -> its bodies' runners
        self._launches = {}   # id(kernel) -> (sizes array, extent, split across threads?)
        self.gemms = {}       # id(dot step) -> its GemmCall, or None (np.matmul)
        self.native_calls = {}  # id(library step) -> its native call (cpu_lapack.NativeCall)
        # id(step) -> what re-binds its closure: a rebind_code.KernelBinding, or a dot
        # step's bind() (None: a step prepared anew per binding)
        self._binder_of = {}
        self._sizes_by_name = {s.name: v for s, v in self.env.items()}
        self.prepare_steps()
        self.__dict__.pop("run", None)      # (the general path: ProgramRunner.run)
        single = len(prog.steps) == 1 and isinstance(prog.steps[0], KernelStep) and \
            not self.aliases and prog.steps[0].kernel.name in self.fns
        rebindable = self.runner_layout.symbolic
        if single and not prog.slot_sizes and all(v in prog.params for v in prog.steps[0].ins):
            self.run = self._single_kernel_runner(prog.steps[0],
                                                  self.fns[prog.steps[0].kernel.name])
            rebindable = False
        elif len(self.steps) != len(prog.steps):    # (dots grouped: prepared per binding)
            rebindable = False
        self._rebind, bind_kernels = rebind_code.compile_rebind(
            self, [self._binder_of.get(id(s)) for s in prog.steps], _split_worth, rebindable)
        bind_kernels(self)

    def _dot_groups_worth(self):
        """Whether a run of independent dots is now worth running as a group
        (``blas.GemmGroup.worth``): then the steps are prepared again, grouped."""
        steps, gemms = self.prog.steps, self.gemms
        return any(blas.GemmGroup.worth([gemms[id(steps[k])] for k in group], self.nthreads)
                   for group in self._dot_candidates)

    def alloc_slots(self, sizes):
        """The temporary slots (in the shared arena, or memory of this runner's own), and
        their addresses in ``slot_addresses`` (what kernels' argument arrays hold)."""
        if self.shared_slots is None or not sizes:
            slots = super().alloc_slots(sizes)
            self.slot_addresses = [_ptr(s) for s in slots]
            return slots
        self.arena = self.shared_slots.arena_for(sizes)
        slots, self.slot_addresses = self.arena.carve_at(sizes)
        return slots

    @staticmethod
    def slot_view(slot, shape, dtype):
        # (a NumPy slot: one constructor call instead of a slice, a view and a reshape)
        return np.ndarray(shape, dtype, slot)

    def _single_kernel_runner(self, s, fn):
        """The common tiny-function case, one kernel reading arguments and writing
        outputs, without the general step machinery (dispatch cost matters here)."""
        n_in = len(s.ins)
        argv = self._kept.get("single")
        if argv is None:
            argv = self._kept["single"] = (ctypes.c_void_p * (n_in + len(s.outs)))()
        params = list(self.prog.params)
        in_pos = [(pos, params.index(v)) for pos, v in enumerate(s.ins)]
        out_of = {v: (n_in + j, self.shape[v], self.dtype[v]) for j, v in enumerate(s.outs)}
        if any(v not in out_of for v in self.prog.outputs) or \
                len(set(self.prog.outputs)) != len(self.prog.outputs):
            return self.run  # an argument passed through, or one value twice: general path
        outs = [out_of[v] for v in self.prog.outputs]
        sizes, n, parallel = self.launch(s.kernel)
        if array_args.available():
            launch = self._kept.get("single launch")
            if launch is None:
                positions = [pos for pos, _ in in_pos] + [pos for pos, _, _ in outs]
                launch = self._kept["single launch"] = array_args.ArrayLauncher(
                    argv, positions, None, sizes)
            launch.retarget(0 if parallel else _address(fn), n)
            return self._single_kernel_native(fn, launch, sizes, n, parallel, in_pos, outs)
        empty, ptr = np.empty, _ptr

        def run(flat_args, donated=()):
            for pos, k in in_pos:
                a = flat_args[k]
                if type(a) not in IN_PLACE_TYPES or not a.flags.c_contiguous:
                    a = np.array(a, order="C")
                argv[pos] = ptr(a)
            res = []
            for pos, shape, dtype in outs:
                o = empty(shape, dtype)
                argv[pos] = ptr(o)
                res.append(o)
            if parallel:
                parallel_for(fn, argv, sizes, n)
            else:
                fn(argv, sizes, 0, n)
            return res
        return run

    @staticmethod
    def _single_kernel_native(fn, launch, sizes, n, parallel, in_pos, outs):
        """The single-kernel path with pointers read natively (array_args): one foreign
        call fills the argument array and, when not split across threads, runs it."""
        argv = launch.argv
        params = [k for _, k in in_pos]
        out_specs = [(shape, dtype) for _, shape, dtype in outs]
        empty = np.empty

        def run(flat_args, donated=()):
            arrays = []
            for k in params:
                a = flat_args[k]
                if type(a) not in IN_PLACE_TYPES or not a.flags.c_contiguous:
                    a = np.array(a, order="C")
                arrays.append(a)
            res = [empty(shape, dtype) for shape, dtype in out_specs]
            launch(arrays + res)
            if parallel:
                parallel_for(fn, argv, sizes, n)
            return res
        return run

    def kernel_step(self, s):
        if s.kernel.name not in self.fns:   # (a fill or copy: cpu_fill_copy)
            return self._numpy_kernel_step(s)
        fn = self.fns[s.kernel.name]
        sizes, n, parallel = self.launch(s.kernel)
        kept = self._kept.get(id(s))
        if kept is None:
            kept = self._kept[id(s)] = self._kernel_args(s, fn, sizes)
        argv, fixed, dynamic_in, outs, launch = kept
        shape, dtype, preset = self.shape, self.dtype, self.preset
        if launch is not None:
            return self._bound_kernel_step(s, fn, kept)
        for pos, k in fixed:    # temporaries and constants: where this binding has them
            argv[pos] = _ptr(self.fixed[k])
        dynamic_out = [(pos, k, shape[v], dtype[v]) for pos, k, v in outs if k not in preset]
        given = [(pos, k, shape[v], dtype[v]) for pos, k, v in outs if k in preset]

        def run(vals):
            for pos, k in dynamic_in:
                argv[pos] = _ptr(vals[k])
            for pos, k, shape, dtype in dynamic_out:
                a = vals[k] = np.empty(shape, dtype)
                argv[pos] = _ptr(a)
            for pos, k, shape, dtype in given:  # a donated buffer (or its copy), if any
                a = vals[k]
                if a is None:
                    a = vals[k] = np.empty(shape, dtype)
                argv[pos] = _ptr(a)
            if parallel:
                parallel_for(fn, argv, sizes, n)
            else:
                fn(argv, sizes, 0, n)
        return run

    def _numpy_kernel_step(self, s):
        """A kernel that only fills or copies memory, run by NumPy (``cpu_fill_copy``;
        prepared anew per size binding: it reads where this binding's temporaries are)."""
        run_kernel = cpu_fill_copy.step(s.kernel)
        ins = [self.index[v] for v in s.ins]
        out_v = (list(s.ins) + list(s.outs))[s.kernel.stores[0].arg]
        k_out, shape, dtype = self.index[out_v], self.shape[out_v], self.dtype[out_v]
        fixed_out, preset = self.fixed[k_out], k_out in self.preset

        def run(vals):
            out = fixed_out
            if out is None:
                out = vals[k_out] if preset else None   # (a donated buffer, if any)
                if out is None:
                    out = np.empty(shape, dtype)
                vals[k_out] = out
            run_kernel([vals[k] for k in ins], out)
        return run

    def _bound_kernel_step(self, s, fn, kept):
        """A kernel step with a native launcher (array_args). What a binding changes (its
        kernel's sizes and thread split, the addresses of its temporaries, its outputs'
        shapes) its ``rebind_code.KernelBinding`` says, and the generated binding writes
        in place (``_prepare_run``): the closure stays across bindings."""
        argv, fixed, dynamic_in, outs, launch = kept
        ax, work = _kernel_facts(s.kernel)
        sizes = self.launch(s.kernel)[0]    # (the kernel's sizes array, kept per kernel)
        for pos, k in fixed:                # temporaries and constants
            argv[pos] = _ptr(self.fixed[k])
        slot_of = {k: slot for k, slot, _ in self.runner_layout.slot_values}
        moving = [(pos, slot_of[k]) for pos, k in fixed if k in slot_of]  # (constants stay)
        # (preset: donated buffers, outputs hosting temporaries, those temporaries)
        fresh = [(k, v, self.dtype[v]) for _, k, v in outs if k not in self.preset]
        given = [(k, v, self.dtype[v]) for _, k, v in outs if k in self.preset]
        state = [[], [], False, 1]  # fresh and preset outputs, split?, extent
        self._binder_of[id(s)] = rebind_code.KernelBinding(
            s.kernel, ax, work, sizes, argv, moving, fresh, given, state, launch, _address(fn))
        return self._kernel_step_native(fn, launch, sizes, state, dynamic_in)

    def _kernel_args(self, s, fn, sizes):
        """What a kernel step keeps across size bindings: its argument array; which
        positions hold a temporary or constant (set per binding), an input, an output
        (set per call); and the native launcher over them (None without array_args)."""
        vids = list(s.ins) + list(s.outs)
        argv = (ctypes.c_void_p * len(vids))()
        fixed, dynamic_in, outs = [], [], []
        for pos, v in enumerate(vids):
            k = self.index[v]
            if self.fixed[k] is not None:
                fixed.append((pos, k))
            elif pos < len(s.ins):
                dynamic_in.append((pos, k))
            else:
                outs.append((pos, k, v))
        launch = None
        if array_args.available():   # (inputs, fresh outputs, then preset outputs)
            positions = [p for p, _ in dynamic_in] + \
                [p for p, k, _ in outs if k not in self.preset] + \
                [p for p, k, _ in outs if k in self.preset]
            launch = array_args.ArrayLauncher(argv, positions, None, sizes)
        return argv, fixed, dynamic_in, outs, launch

    @staticmethod
    def _kernel_step_native(fn, launch, sizes, state, dynamic_in):
        """A kernel step whose argument pointers are read natively (array_args);
        ``state``: [fresh outputs, preset outputs (each (value index, shape, dtype)),
        split across threads?, extent], rewritten by its binder at a new binding."""
        argv = launch.argv
        ins = [k for _, k in dynamic_in]

        def run(vals):
            arrays = [vals[k] for k in ins]
            outs, donated_outs, parallel, n = state
            for k, shape, dtype in outs:
                a = vals[k] = np.empty(shape, dtype)
                arrays.append(a)
            for k, shape, dtype in donated_outs:  # a donated buffer (or its copy), if any
                a = vals[k]
                if a is None:
                    a = vals[k] = np.empty(shape, dtype)
                arrays.append(a)
            launch(arrays)
            if parallel:
                parallel_for(fn, argv, sizes, n)
        return run

    def finish_steps(self, steps, runs):
        out, self._dot_candidates = self._group_dots(steps, runs, self.prog, self.nthreads)
        return out

    @staticmethod
    def _group_dots(steps, runs, prog, nthreads):
        """Runs of consecutive independent BLAS dots, one per thread, become one
        ``blas.GemmGroup`` step (e.g. a layer's weight and input gradients). A dot that
        writes into a donated argument's buffer stays alone: a member running beside it
        may still read that argument; nor does a dot join a group whose members use
        memory it writes (a slot, or an output's buffer, that a value read before it
        last used). Returns the steps and the candidate groups (step positions), worth
        it at these sizes or not (a re-bound runner asks them again)."""
        aliased = set(prog.aliases.values())

        def groupable(k):
            # (a group calls the gemms with the alpha bound once: not for alpha read per
            # call, nor one whose run-time factors make it 0 or inf at this binding,
            # where the dot step runs the unfolded formula)
            run = runs[k]
            return getattr(run, "gemm", None) is not None and run.alpha_usable() and \
                not aliased.intersection(steps[k].outs) and not steps[k].scalar_ids
        out, candidates, i = [], [], 0
        while i < len(runs):
            group = [i]
            while groupable(i) and len(group) < nthreads:
                j = group[-1] + 1
                written = {v for k in group for v in steps[k].outs}
                if j >= len(runs) or not groupable(j) or written & set(steps[j].ins) or \
                        _overlaps(prog, steps[j].outs,
                                  [v for k in group for v in steps[k].ins + steps[k].outs]):
                    break
                group.append(j)
            members = [runs[k] for k in group]
            if len(members) > 1:
                candidates.append(group)
            if len(members) > 1 and blas.GemmGroup.worth([r.gemm for r in members],
                                                         nthreads):
                out.append(_gemm_group_step(members))
            else:
                out.extend(members)
            i = group[-1] + 1
        return out, candidates

    def launch(self, kernel):
        """(sizes array, parallel-axis extent, split across threads?) for a kernel."""
        hit = self._launches.get(id(kernel))
        if hit is None:
            hit = self._launches[id(kernel)] = self._launch(kernel)
        return hit

    def _launch(self, kernel):
        ax, work = _kernel_facts(kernel)
        values = [_size(self._sizes_by_name, n) for n in kernel.size_symbols]
        sizes = self._kernel_sizes.get(id(kernel))
        if sizes is None:       # (kept across bindings: launchers point at it)
            sizes = self._kernel_sizes[id(kernel)] = \
                (ctypes.c_int64 * max(1, len(values)))(*values)
        else:
            sizes[:len(values)] = values
        if ax is None:
            return sizes, 1, False
        shape = self.runner_layout.kernel_shape(kernel, self.size_values)
        n = shape[ax]
        return sizes, n, _split_worth(n, math.prod(shape), work, self.nthreads)

    def dot_step(self, s):
        lhs_v, rhs_v = s.ins[:2]
        (out_v,) = s.outs
        li, ri, k_out = self.index[lhs_v], self.index[rhs_v], self.index[out_v]
        xi = self.index[s.x] if s.x is not None else None   # folded beta * x term
        scalar_ks = {v: self.index[v] for v in s.scalar_ids}
        out_dtype = self.dtype[out_v]
        layout = self.runner_layout
        gemm = self._kept.get(id(s))    # (kept across bindings, re-planned per binding)
        planned = gemm is None
        if planned:
            if self.dtype[lhs_v] != out_dtype or self.dtype[rhs_v] != out_dtype:
                return self._matmul_step(s)     # (mixed dtypes)
            lshape, rshape = self.shape[lhs_v], self.shape[rhs_v]
            spec = s.gemm_spec(lshape, rshape)
            gemm = blas.GemmCall.build(lshape, rshape, out_dtype, spec.lperm, spec.rperm,
                                       layout.dot_bmkn(s, self.size_values), s.alpha,
                                       s.beta, prefill=xi is not None,
                                       nthreads=self.nthreads)
            if gemm is None:
                return self._matmul_step(s)     # (no gemm at these sizes)
            self._kept[id(s)] = gemm
        # the output's temporary (or None) and shape, per binding, and whether alpha with
        # its size factors (value factors: 1) is finite and not 0
        state = [None, None, True]

        def bind(lshape=None, rshape=None, bmkn=None, out_shape=None, replan=True):
            # (the shapes and gemm extents at the binding: given by the generated
            # re-bind, else read from the runner's tables)
            if lshape is None:
                lshape, rshape = self.shape[lhs_v], self.shape[rhs_v]
                bmkn, out_shape = layout.dot_bmkn(s, self.size_values), self.shape[out_v]
            if replan and not gemm.replan(lshape, rshape, bmkn):
                return False
            state[0], state[1] = self.fixed[k_out], out_shape
            if s.scale or s.parts:  # (run-time factors: sizes known now, values per call)
                state[2] = s.alpha_usable(self.env, lambda v: 1.0, out_dtype)
                gemm.set_alpha(s.alpha_at(self.env, lambda v: 1.0))
            self.gemms[id(s)] = gemm
            run_gemm.operands = (li, ri, k_out, state[0], state[1], out_dtype, xi)
            return True

        def run_gemm(vals):
            fixed_out, out_shape, usable = state
            if scalar_ks or not usable:
                # (0-d values read at this call) BLAS skips the product at alpha 0 (its
                # NaNs too), and a non-finite factor belongs where the program applies
                # it: then the unfused formula (DotStep.alpha_usable)
                value_of = lambda v: vals[scalar_ks[v]]     # noqa: E731
                if not (usable and s.alpha_usable(self.env, value_of, out_dtype)):
                    with np.errstate(all="ignore"):     # (as the kernel: no warnings)
                        return self._unfused_dot(s)(vals)
                gemm.set_alpha(s.alpha_at(self.env, value_of))
            out = fixed_out if fixed_out is not None else vals[k_out]  # (donated)
            if out is None:
                out = np.empty(out_shape, out_dtype)
            vals[k_out] = gemm(vals[li], vals[ri], out, None if xi is None else vals[xi])
        run_gemm.gemm = bind.gemm = gemm
        run_gemm.alpha_usable = lambda: state[2]    # (at the binding: see _group_dots)
        if not bind(replan=not planned):
            return self._matmul_step(s)         # (no gemm at these sizes)
        self._binder_of[id(s)] = bind
        return run_gemm

    def _matmul_step(self, s):
        self.gemms[id(s)] = None
        return super().dot_step(s)

    def _unfused_dot(self, s):
        """The generic ``matmul``-then-epilogue run of a folded dot at this binding (made
        per use: only for a run-time alpha of 0 or not finite)."""
        return super().dot_step(s)

    def library_step(self, s):
        # a scatter of whole rows runs as a compiled loop over its ids (cpu_scatter), a
        # top_k along the last axis as a compiled selection per row (cpu_top_k),
        # a cumulative op as a compiled scan (cpu_cumulative), a small triangular solve,
        # cholesky, lu or reduced qr as a native LAPACK call (cpu_lapack)
        return cpu_scatter.row_scatter_step(self, s) or cpu_top_k.top_k_step(self, s) or \
            cpu_cumulative.cumulative_step(self, s) or cpu_lapack.lapack_step(self, s) or \
            super().library_step(s)

    def control_step(self, s):
        ins = [self.index[v] for v in s.ins]
        outs = [(n, self.index[v]) for n, v in enumerate(s.outs) if v is not None]
        many = _bodies_called_often(s, self.many_calls)
        loop = control_flow.build(
            s, lambda prog: _Runner(prog, _compile(prog, many), self.env, many_calls=many),
            self.env)
        self.control_runners[id(s)] = loop.runners
        first = carry_inputs(s).start
        # carries whose initial value is a donated argument: the loop may update it
        donated = [(j - first, pos, self.shape[s.ins[j]], self.dtype[s.ins[j]])
                   for j, pos in self.prog.loop_donations.get(id(s), {}).items()]

        def run(vals):
            args = [vals[k] for k in ins]
            owned = {k for k, pos, shape, dtype in donated if pos in self.given and
                     _writable_as(args[first + k], shape, dtype)}
            res = loop(args, owned)
            for n, k in outs:
                vals[k] = res[n]
        return run


class CpuBackend:
    """The "cpu" backend: :func:`~tjit.xla_like.compile.compile_program`, then each
    kernel compiled with LLVM for the host (``kernel_cache``)."""

    name = "cpu"
    platform = "cpu"
    target = CPU        # (what fusion and planning assume of this backend)

    def available(self):
        return True

    def devices(self):
        return backend.cpu_devices()

    def compile(self, closed_jaxpr, in_specs=None, donated=()):
        program = compile_program(closed_jaxpr, self.target, donated)
        return CpuExecutable(program, in_specs, size_symbols(closed_jaxpr))


backend.register(CpuBackend())


def _bodies_called_often(step, many_calls):
    """Whether control step ``step``'s bodies run many times a call (a loop's run once
    per trip: their kernels are built for speed); ``many_calls``: its program's."""
    return many_calls or step.name != "cond"


def _programs(prog, many_calls=False):
    """``(program, many_calls)`` for ``prog`` and its bodies, nested ones included."""
    out = [(prog, many_calls)]
    for s in prog.steps:
        if isinstance(s, ControlStep):
            for b in s.bodies:
                out += _programs(b, _bodies_called_often(s, many_calls))
    return out


def _compile(prog, many_calls=False):
    """{kernel name: compiled function} for the kernels of ``prog`` (not its bodies');
    ``many_calls``: ``prog`` is a loop body (``kernel_cache.compile_kernel``)."""
    return kernel_cache.compile_kernels(
        [k for k in prog.kernels if not cpu_fill_copy.runs_in_numpy(k, many_calls)],
        many_calls)


def _writable_as(a, shape, dtype):
    return type(a) is np.ndarray and a.flags.writeable and a.flags.c_contiguous and \
        a.shape == shape and a.dtype == dtype


def _gemm_group_step(runs):
    group = blas.GemmGroup([r.gemm for r in runs])
    specs = [r.operands for r in runs]

    def run(vals):
        operands = []
        for li, ri, k_out, fixed_out, shape, dtype, xi in specs:
            out = fixed_out if fixed_out is not None else vals[k_out]  # (donated)
            if out is None:
                out = np.empty(shape, dtype)
            operands.append((vals[li], vals[ri], out, None if xi is None else vals[xi]))
            vals[k_out] = out
        group(operands)
    return run


def _overlaps(prog, written, used):
    """Whether a value of ``written`` shares bytes of memory with one of ``used``."""
    spans = [memory_of(prog, v) for v in used]
    for v in written:
        mine = memory_of(prog, v)
        if mine is not None and any(
                s is not None and s[0] == mine[0] and s[1] < mine[2] and mine[1] < s[2]
                for s in spans):
            return True
    return False


def _split_worth(n, points, work, nthreads):
    """Whether a kernel of ``points`` iteration points, ``work`` each, with ``n`` along
    its split axis runs across ``nthreads`` threads (``PARALLEL_MIN_WORK``)."""
    return n >= 2 and nthreads > 1 and points * work >= PARALLEL_MIN_WORK


def _kernel_facts(kernel):
    """(split axis, work per point) of ``kernel``: the same at every size binding, so
    worked out once per kernel (a walk of its IR) rather than per new size."""
    facts = kernel.__dict__.get("_cpu_launch_facts")
    if facts is None:
        facts = (split_axis(kernel), work_per_point(kernel))
        object.__setattr__(kernel, "_cpu_launch_facts", facts)
    return facts


def _address(fn):
    """The address of a compiled kernel (a ctypes function), kept on it."""
    try:
        return fn.address
    except AttributeError:
        fn.address = ctypes.cast(fn, ctypes.c_void_p).value
        return fn.address


def _size(sizes_by_name, name):
    try:
        return sizes_by_name[name]
    except KeyError:
        raise KeyError(f"cpu runtime: no value for size symbol {name!r}") from None
