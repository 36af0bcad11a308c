"""The "hls" backend: jitted programs as FPGA dataflow designs, run by C simulation.

``jit(f, backend="hls")`` (or ``jit(f).lower(...).compile(backend="hls")``) compiles
with :func:`~tjit.xla_like.compile.compile_program` for the HLS target
(``target.HLS``: dots as reduce kernels), makes each maximal run of consecutive kernel
steps one dataflow design (``tjit/fpga/design.py``: stages under ``#pragma HLS
DATAFLOW``, streams between them, on-chip or DRAM buffers), renders all designs of the
program (its loop bodies included) as one HLS C++ translation unit and builds it with
g++ against tjit's simulation headers (``hls_compile``; cached on disk). A call runs
each design through ctypes: its stages run in threads over bounded FIFOs, as on the
device, so a stream too shallow for the design deadlocks and is reported (a
``RuntimeError`` naming the region, the stages and the streams).

What a design cannot pipeline runs on the host between design invocations, as an FPGA
host program does: ``while`` loops with data-dependent trip counts, ``cond``, ``scan``
(``control_flow``: each body's designs are invoked once per iteration), library calls
(linalg, sort, ...) and dots the target leaves to the host's matmul. Arrays are host
NumPy arrays. ``compiled.hls_report()`` gives the designs' resource and latency
estimate (``tjit/fpga/estimate.py``).
"""

import ctypes
import types

import numpy as np

from tjit.devices import backend, control_flow, hls_compile
from tjit.devices.executable import Executable
from tjit.devices.runner import PlanInspection, PooledCalls, ProgramRunner, RunnerPools
from tjit.fpga.design import ONCHIP_BUDGET, build_design
from tjit.xla_like.compile import compile_program, size_symbols
from tjit.xla_like.plan import concrete, kernel_runs
from tjit.xla_like.target import HLS

__all__ = ["HlsBackend", "HlsExecutable", "designs_of"]

MAX_SIZE_BINDINGS = 8
#: The array namespace of host-driven loops: NumPy's arrays, passed as a namespace
#: that is not ``numpy`` itself so that ``control_flow`` does not take its native CPU
#: loops (those call LLVM kernels; a design's body is a C-simulation call).
_HOST = types.SimpleNamespace(empty=np.empty, asarray=np.asarray)


def _live_out(prog, first, steps):
    """Values of the run that a later step reads or the program returns."""
    later = set(prog.outputs)
    for s in prog.steps[first + len(steps):]:
        later |= set(s.ins)
    return later


def designs_of(prog, prefix="tjit", onchip_budget=ONCHIP_BUDGET, depths=None):
    """``{(id(program), first step index): Design}`` for ``prog`` and its bodies."""
    out = {}
    progs = [prog] + prog.sub_programs()
    for p_n, p in enumerate(progs):
        for first, steps in kernel_runs(p.steps):
            top = f"{prefix}_p{p_n}_d{first}"
            out[(id(p), first)] = build_design(p, steps, _live_out(p, first, steps), top,
                                               onchip_budget, depths)
    return out


class HlsExecutable(PooledCalls, PlanInspection, Executable):
    """One program's designs, built for C simulation, and their runners."""

    backend = "hls"

    def __init__(self, program, in_specs=None, symbols=(), onchip_budget=ONCHIP_BUDGET,
                 depths=None):
        self.program = program
        self.in_specs = in_specs
        self.symbols = tuple(symbols)
        self.designs = designs_of(program, "tjit", onchip_budget, depths)
        self.text = _unit(self.designs.values())
        self.lib = hls_compile.load(self.text) if self.designs else None
        self._fns = {}
        for d in self.designs.values():
            fn = getattr(self.lib, d.top)
            fn.restype = None
            self._fns[d.top] = fn
        if self.lib is not None:
            self.lib.tj_sim_last_error.restype = ctypes.c_char_p
        self._runners = RunnerPools(lambda env: _Runner(self.program, self, env), MAX_SIZE_BINDINGS)

    # -- calling (call/prepare: PooledCalls) -----------------------------------------------
    def run_design(self, design, pointers, sizes):
        """Run one design's C simulation; raises RuntimeError with its deadlock or
        stream error."""
        self.lib.tj_sim_clear_error()
        self._fns[design.top](*pointers, *[ctypes.c_int64(v) for v in sizes])
        err = self.lib.tj_sim_last_error()
        if err:
            raise RuntimeError(f"hls backend: C simulation of design {design.top} failed: "
                               f"{err.decode()}")

    # -- inspection -----------------------------------------------------------------------
    def as_text(self, source=False, llvm=False):
        lines = [f"hls backend (C simulation): {len(self.designs)} dataflow designs"]
        for d in self.designs.values():
            lines.append("  " + d.summary())
            lines += [f"    stream {s.name}: {s.producer} -> {s.consumer}, depth {s.depth}"
                      for s in d.streams]
            lines += [f"    buffer {b.name} ({b.where}): {b.producer} -> "
                      f"{', '.join(b.consumers)}" for b in d.buffers]
        text = "\n".join(lines) + "\n\n" + self.program.text()
        if source:
            text += "\n\n// ---- HLS C++\n" + self.text
        return text

    def hls_report(self, sizes=None, **kw):
        """The designs' resource and latency estimate (``tjit.fpga.estimate.report``)."""
        from tjit.fpga import estimate
        return estimate.report(list(self.designs.values()), sizes=sizes, **kw)


def _unit(designs):
    """One translation unit: each design's text (prelude lines once)."""
    seen, out = set(), []
    for d in designs:
        for line in d.text.splitlines():
            if line.startswith(("#include", "#define TJ_")):
                if line in seen:
                    continue
                seen.add(line)
            out.append(line)
    return "\n".join(out) + "\n"


class _Runner(ProgramRunner):
    """A program at one size binding: designs through ctypes, the rest on the host."""

    def __init__(self, prog, exe, env):
        self.exe = exe
        super().__init__(prog, env)
        self.sizes = {str(s): int(v) for s, v in env.items()}
        self.prepare_steps()

    def kernel_step(self, s):
        return None     # (grouped into designs by finish_steps)

    def finish_steps(self, steps, runs):
        out = []
        segs = {first: seg for first, seg in kernel_runs(self.prog.steps)}
        i = 0
        while i < len(steps):
            if i in segs:
                out.append(self._design_step(self.exe.designs[(id(self.prog), i)]))
                i += len(segs[i])
            else:
                out.append(runs[i])
                i += 1
        return out

    def _design_step(self, d):
        ports = []
        home = {}               # value -> its first port (an alias passes it again)
        for n, (v, role, dt, length) in enumerate(d.ports):
            k = self.index[v]
            scratch = None
            if role == "scratch":    # (allocated once per runner: a DRAM intermediate)
                scratch = np.empty(max(int(concrete(length, self.env)), 1), dt)
            ports.append((role, k, scratch, self.shape[v], self.dtype[v], home.get(v)))
            home.setdefault(v, n)
        sizes = [self.sizes[x] for x in d.symbols]
        fixed, exe = self.fixed, self.exe

        def run(vals):
            ptrs = []
            for role, k, scratch, shape, dtype, first in ports:
                if role == "alias":
                    ptrs.append(ptrs[first])
                    continue
                a = scratch if role == "scratch" else vals[k]
                if a is None:       # an output: its slot, or a fresh array
                    a = vals[k] = fixed[k] if fixed[k] is not None else \
                        np.empty(shape, dtype)
                ptrs.append(ctypes.c_void_p(a.ctypes.data))
            exe.run_design(d, ptrs, sizes)
        return run

    def control_step(self, s):
        ins = [self.index[v] for v in s.ins]
        outs = [(n, self.index[v]) for n, v in enumerate(s.outs) if v is not None]
        loop = control_flow.build(s, lambda prog: _Runner(prog, self.exe, self.env),
                                  self.env, xp=_HOST)

        def run(vals):     # (carries are copied: the loop updates none in place)
            res = loop([vals[k] for k in ins], set())
            for n, k in outs:
                vals[k] = res[n]
        return run


class HlsBackend:
    """The "hls" backend (see the module docstring)."""

    name = "hls"
    platform = "fpga"
    target = HLS

    def available(self):
        return hls_compile.unavailable_reason() is None

    def unavailable_reason(self):
        return hls_compile.unavailable_reason()

    def devices(self):
        return [backend.Device("fpga", 0)] if self.available() else []

    def compile(self, closed_jaxpr, in_specs=None, donated=()):
        program = compile_program(closed_jaxpr, HLS, donated)
        return HlsExecutable(program, in_specs, size_symbols(closed_jaxpr))


backend.register(HlsBackend())
