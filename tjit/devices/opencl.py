"""The "opencl" backend: compiled programs whose kernels run on an OpenCL device.

``jit(f, backend="opencl")`` (or ``TJIT_PLATFORMS=opencl``) compiles with
:func:`~tjit.xla_like.compile.compile_program` for the device's
:func:`~tjit.xla_like.target.opencl_target` (float64 kernels only with
``cl_khr_fp64``; no gemm, so dots are kernels, their epilogues fused in), renders every
fused kernel with the C renderer's ``opencl`` dialect and builds them as one program
(``opencl_context``: memory and disk caches). Arrays stay host NumPy arrays (eager ops
compute on the host); a call uploads the arguments its kernels read, runs the plan and
downloads the outputs.

How each plan step runs (``_Runner``, a ``runner.ProgramRunner``):

* kernel steps: launched on the device's in-order queue, one work-group per row of a
  row-style kernel, grid-stride loops otherwise (``LaunchSpec.grid``); a float dot's
  kernel is tiled (``lower/c/tiled_dot.py``: work-group tiles in local memory, a
  register block per work-item; PoCL: a 512^3 float32 dot 1.1 s -> 55 ms);
* temporaries: one device buffer per slot of the plan's buffer assignment, allocated
  once per size binding and reused by every call; outputs come from a memory pool;
* library steps (linalg, sort, scatter, ...) and dots the target leaves as dots (bool):
  the primitive's NumPy implementation on the host, their device inputs
  downloaded and their results uploaded when a kernel reads them; transfers are
  counted (``opencl_context.STATS``, ``OpenCLExecutable.transfers()``) and each host
  step is marked in ``as_text()``;
* cond / while / scan: driven from the host (``opencl_control``), carries staying on
  the device and updated in their own buffers; a cond's index and a while's predicate
  are read back each time.

``backend="opencl_swi"`` is the same backend with the kernels in single-work-item form
(the ``opencl_swi`` dialect: each kernel one work-item running its loop nest, Intel's
recommended style for FPGA OpenCL compilers), launched 1 x 1.

Donation (``donate_argnums``): a donated argument that the plan pairs with an output
(``Program.aliases``) and that the caller gives up (a tjit Array owning its buffer)
lends both its buffers to that output: the device buffer it is uploaded into *is* the
output's (a kernel that updates it in place reads and writes it there: no second
buffer, no device copy; an SGD step's weights stay in one buffer), and the output is
downloaded into the argument's host array, which becomes the result's; the donated
Array is deleted, as in JAX. An argument that is not given up (a NumPy array, an Array
with other references) is left intact: an output updated in place then starts as a
device copy of it. Without pyopencl or an OpenCL device, asking for this backend raises an error
saying which and how to install (``pip install "tjit[opencl]"`` plus a driver, e.g.
``pocl-binary-distribution``); the CPU default is unaffected.
"""

import collections

import numpy as np

from tjit.devices import backend, opencl_context, opencl_control
from tjit.devices.executable import Executable
from tjit.devices.opencl_context import DevArray, Unavailable
from tjit.devices.runner import PlanInspection, PooledCalls, ProgramRunner, RunnerPools
from tjit.lower.c import OPENCL, render
from tjit.lower.c.dialects import OPENCL_SWI
from tjit.xla_like import kernel_ir as K
from tjit.xla_like.compile import compile_program, size_symbols
from tjit.xla_like.plan import ControlStep, DotStep, LibraryStep
from tjit.xla_like.target import opencl_target

#: Size bindings of a polymorphic program whose prepared runners are kept (as the CPU).
MAX_SIZE_BINDINGS = 8


def kernel_entry(k):
    """The OpenCL function name of kernel ``k``: by content, so equal kernels of a
    program (and its bodies) are one function."""
    return "k_" + K.kernel_hash(k)[:20]


class OpenCLExecutable(PooledCalls, PlanInspection, Executable):
    """One traced program's kernels built for the OpenCL device, and its runners."""

    backend = "opencl"

    def __init__(self, program, dev, in_specs=None, symbols=(), dialect=OPENCL):
        self.program = program
        self.dialect = dialect
        self.backend = "opencl" if dialect is OPENCL else dialect.name
        self.dev = dev
        self.in_specs = in_specs
        self.symbols = tuple(symbols)
        self.sources = {}       # kernel entry -> CSource
        for p in [program] + program.sub_programs():
            for k in p.kernels:
                e = kernel_entry(k)
                if e not in self.sources:
                    self.sources[e] = render(k, dialect, e)
        self.text = _unit(self.sources.values())
        self.cl_program = dev.program(self.text) if self.sources else None
        self.counts = collections.Counter()   # this executable's transfers and launches
        opencl_context.STATS["executables"] += 1
        self._runners = RunnerPools(lambda env: _Runner(self.program, self, env), MAX_SIZE_BINDINGS)

    # -- inspection -----------------------------------------------------------------------
    def as_text(self, source=False, llvm=False):
        """The plan (host steps marked), the transfers so far and, with ``source``, the
        OpenCL C of every kernel."""
        lines = [(f"opencl backend on {self.dev.name!r}: {len(self.sources)} kernels in one "
                  f"OpenCL program; host steps (NumPy, inputs copied from the device, "
                  f"results to it when a kernel reads them):")]
        progs = [self.program] + self.program.sub_programs()
        host = [(p.name, s) for p in progs for s in p.steps
                if isinstance(s, (DotStep, LibraryStep)) and not isinstance(s, ControlStep)]
        lines += [f"  {name}: {getattr(s, 'name', 'dot_general')}" for name, s in host] or \
            ["  (none)"]
        c = self.counts
        lines.append(f"transfers so far: {c['to_device']} to the device "
                     f"({c['to_device_bytes']} bytes), {c['to_host']} to the host "
                     f"({c['to_host_bytes']} bytes); {c['launches']} kernel launches, "
                     f"{c['host_steps']} host steps")
        text = "\n".join(lines) + "\n\n" + self.program.text()
        if source:
            text += "\n\n// ---- OpenCL C\n" + self.text
        return text

    def kernel_source(self, kernel):
        src = self.sources.get(kernel_entry(kernel))
        return None if src is None else ("OpenCL C", src.text)

    def transfers(self):
        """Counts of this executable's calls so far: ``to_device``/``to_host`` copies
        and bytes, kernel ``launches``, ``host_steps``."""
        return dict(self.counts)

    def donation(self):
        """``({argument position: output value or None}, usable positions)``: the
        plan's pairs, and the arguments handed to a loop as a carry's first buffer."""
        writes = dict(self.program.aliases)
        for given in self.program.loop_donations.values():
            writes.update(dict.fromkeys(given.values()))
        return writes, set(self.program.donation_usable)



def _unit(srcs):
    """One OpenCL translation unit: the union of the preludes (the float64 pragma once),
    then every kernel's body (helpers are ``#ifndef``-guarded)."""
    lines = []
    for s in srcs:
        lines += [ln for ln in s.prelude.splitlines() if ln not in lines]
    return "\n".join(lines + [s.body for s in srcs]) + "\n"


class _Runner(ProgramRunner):
    """A plan on the OpenCL device at one size binding. Values are host arrays or
    :class:`DevArray`; a step converts what it reads (counted)."""

    def __init__(self, prog, exe, env):
        self.exe, self.dev = exe, exe.dev
        super().__init__(prog, env)
        # parameters a device step reads: a donated one is uploaded into the buffer
        # its output then reuses (one only host steps read is not uploaded for it)
        on_dev = {v for st in prog.steps if not isinstance(st, (DotStep, LibraryStep)) or
                  isinstance(st, ControlStep) for v in st.ins}
        self.read_on_device = {self.index[v] for v in prog.params if v in on_dev}
        self.prepare_steps()

    # -- buffers --------------------------------------------------------------------------
    def alloc(self, nbytes):
        return self.dev.empty((nbytes,), np.uint8)

    def slot_view(self, slot, shape, dtype):
        return DevArray(slot.buf, shape, dtype)

    def constant(self, value):
        return self.dev.put(np.array(value, order="C"))

    def on_device(self, a):
        if isinstance(a, DevArray):
            return a
        self._count("to_device", np.asarray(a).nbytes)
        return self.dev.put(a)

    def on_host(self, a):
        if not isinstance(a, DevArray):
            return a
        if a.host is None:
            self._count("to_host", a.nbytes)
        return self.dev.fetch(a)

    def _count(self, what, nbytes):
        c = self.exe.counts
        c[what] += 1
        c[what + "_bytes"] += nbytes

    # -- calling --------------------------------------------------------------------------
    def run(self, flat_args, donated=()):
        """Outputs as host arrays; an output in a donated argument's buffers is
        downloaded into that argument's host array (see the module docstring)."""
        into = {}
        outs = self.execute(flat_args, donated, into)
        return [self._download(o, into.get(k)) for k, o in zip(self.out_slots, outs)]

    def _download(self, o, host):
        if host is None or not isinstance(o, DevArray) or o.host is not None:
            return self.on_host(o)
        self._count("to_host", o.nbytes)
        return self.dev.fetch(o, into=host)

    def execute(self, flat_args, donated=(), into=None):
        """Run the plan on ``flat_args`` (host arrays or DevArrays); outputs as they are
        (device outputs stay on the device: loop bodies pass them on). ``donated``:
        argument positions the caller gives up; ``into`` receives {output slot: the
        donated host array to download it into}."""
        self.given = donated        # (read by loop steps during this call)
        vals = list(self.fixed)
        for k, a in zip(self.param_slots, flat_args):
            if not isinstance(a, DevArray) and (type(a) is not np.ndarray or
                                                not a.flags.c_contiguous):
                a = np.array(a, order="C")
            vals[k] = a
        for k_out, pos, k_arg, inplace, shape, dtype in self.aliases:
            if pos in donated and self._lend(vals, (k_out, pos, k_arg, shape, dtype),
                                             flat_args, into):
                continue
            if inplace:     # the kernel reads the argument through the output
                src = vals[k_arg]
                out = self.dev.empty(shape, dtype)
                if isinstance(src, DevArray):
                    self.dev.copy(out, src, out.nbytes)
                else:
                    self._count("to_device", out.nbytes)
                    self.dev.write(out, src)
                vals[k_out] = out
        for step in self.steps:
            step(vals)
        return [vals[k] for k in self.out_slots]

    def _lend(self, vals, alias, flat_args, into):
        """Output ``k_out`` in the buffers of donated argument ``pos`` (its device copy
        and, for the result, its host array) when the caller's array can be given up
        and has the output's type; False otherwise (the argument is left as it is)."""
        k_out, pos, k_arg, shape, dtype = alias
        a = vals[k_arg]
        if isinstance(a, DevArray) and a.host is None:   # a device value a loop owns
            if a is not flat_args[pos] or a.shape != shape or a.dtype != dtype:
                return False
            vals[k_out] = DevArray(a.buf, shape, dtype)
            return True
        host = a.host if isinstance(a, DevArray) else a
        if a is not flat_args[pos] or type(host) is not np.ndarray or \
                not host.flags.writeable or host.shape != shape or host.dtype != dtype:
            return False
        if k_arg in self.read_on_device:
            dev = vals[k_arg] = self.on_device(a)      # (uploaded once, read by steps)
            vals[k_out] = DevArray(dev.buf, shape, dtype)   # its buffer, the output's
        if into is not None:
            into[k_out] = host
        return True

    # -- steps ----------------------------------------------------------------------------
    def kernel_step(self, s):
        entry = kernel_entry(s.kernel)
        src = self.exe.sources[entry]
        knl = self.dev.cl.Kernel(self.exe.cl_program, entry)   # (per runner: arg state)
        sizes = {str(sym): v for sym, v in self.env.items()}
        n_buf = len(s.ins) + len(s.outs)
        for j, p in enumerate(src.params[n_buf:]):
            knl.set_arg(n_buf + j, np.int64(sizes[p.symbol]))
        groups, local = src.launch.grid(sizes, max_groups=self.dev.max_groups)
        gsize, lsize = (groups * local,), (local,)
        if not self.exe.dialect.threaded:     # single work-item: it runs every loop
            gsize, lsize = (1,), (1,)
        ins = [self.index[v] for v in s.ins]
        outs = [(self.index[v], self.shape[v], self.dtype[v], self.fixed[self.index[v]])
                for v in s.outs]
        aliased = {a[0] for a in self.aliases}
        dev, cl, queue, counts = self.dev, self.dev.cl, self.dev.queue, self.exe.counts
        on_device = self.on_device

        def run(vals):
            for j, k in enumerate(ins):
                a = vals[k] = on_device(vals[k])
                knl.set_arg(j, dev.arg(a))
            for j, (k, shape, dtype, fixed) in enumerate(outs, len(ins)):
                if fixed is not None:
                    o = fixed
                    o.host = None           # (a slot's earlier host copy is stale)
                elif k in aliased and vals[k] is not None:
                    o = vals[k]             # in a donated buffer, or prefilled by execute
                    o.host = None
                else:
                    o = vals[k] = dev.empty(shape, dtype)
                knl.set_arg(j, dev.arg(o))
            cl.enqueue_nd_range_kernel(queue, knl, gsize, lsize)
            counts["launches"] += 1
        return run

    def library_step(self, s):
        ins = [self.index[v] for v in s.ins]
        outs = [(self.index[v], self.shape[v], self.dtype[v]) if v is not None else None
                for v in s.outs]
        fn, env, name = s.fn, self.env, s.name
        on_host, counts = self.on_host, self.exe.counts

        def run(vals):
            res = fn(np, env, *[on_host(vals[k]) for k in ins])
            counts["host_steps"] += 1
            for o, r in zip(outs, res):
                if o is not None:
                    vals[o[0]] = _owned(r, o[1], o[2], f"library call {name}")
        return run

    def dot_step(self, s):
        """A dot the target left as a dot (bool, or a dtype kernels cannot compute):
        NumPy's matmul on the host over the plan's GemmSpec."""
        li, ri = (self.index[v] for v in s.ins[:2])
        xi = self.index[s.x] if s.x is not None else None   # (the folded beta term)
        (out,) = s.outs
        k, shape, dtype = self.index[out], self.shape[out], self.dtype[out]
        spec = s.gemm_spec(self.shape[s.ins[0]], self.shape[s.ins[1]])
        B, M, Kc, N = spec.bmkn
        alpha, beta, on_host, counts = s.alpha, s.beta, self.on_host, self.exe.counts

        def run(vals):
            a = np.transpose(on_host(vals[li]), spec.lperm).reshape(B, M, Kc)
            b = np.transpose(on_host(vals[ri]), spec.rperm).reshape(B, Kc, N)
            with np.errstate(all="ignore"):
                r = np.matmul(a.astype(dtype), b.astype(dtype)).reshape(shape)
                if alpha != 1.0:
                    r = r * dtype.type(alpha)
                if xi is not None:
                    r = r + on_host(vals[xi]) * dtype.type(beta)
            counts["host_steps"] += 1
            vals[k] = _owned(r, shape, dtype, "dot_general")
        return run

    def control_step(self, s):
        return opencl_control.step(self, s, lambda prog: _Runner(prog, self.exe, self.env))


def _owned(r, shape, dtype, what):
    """A host result as an array of its own (a view may alias an argument), checked."""
    r = np.asarray(r)
    if r.dtype != dtype:
        r = r.astype(dtype)
    if r.shape != shape:
        raise RuntimeError(f"opencl backend: {what} returned shape {r.shape}, expected "
                           f"{shape}")
    if not r.flags.owndata or not r.flags.c_contiguous:
        r = np.array(r, order="C")
    return r


class OpenCLBackend:
    """The "opencl" backend (see the module docstring); ``dialect`` OPENCL_SWI gives
    the "opencl_swi" backend (single-work-item kernels)."""

    platform = "opencl"

    def __init__(self, name="opencl", dialect=OPENCL):
        self.name, self.dialect = name, dialect

    def available(self):
        return opencl_context.unavailable_reason() is None

    def unavailable_reason(self):
        return opencl_context.unavailable_reason()

    def devices(self):
        return [backend.Device("opencl", 0)] if self.available() else []

    @property
    def target(self):
        return opencl_target(opencl_context.get().fp64)

    def compile(self, closed_jaxpr, in_specs=None, donated=()):
        try:
            dev = opencl_context.get()
        except Unavailable as e:
            raise RuntimeError(f"opencl backend: {e}") from None
        program = compile_program(closed_jaxpr, opencl_target(dev.fp64), donated)
        return OpenCLExecutable(program, dev, in_specs, size_symbols(closed_jaxpr),
                                self.dialect)


backend.register(OpenCLBackend())
backend.register(OpenCLBackend("opencl_swi", OPENCL_SWI))

__all__ = ["OpenCLBackend", "OpenCLExecutable", "kernel_entry"]
