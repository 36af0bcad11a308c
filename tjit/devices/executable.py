"""The ``Executable`` interface ``jit`` calls, and the reference-interpreter backend.

``jit`` hands a backend (``devices/backend.py``) a closed jaxpr and gets back an object
with ``call(flat_values) -> flat_values`` (raw NumPy values in, raw values out). Every
backend's executables implement this interface, so ``jit`` does not change with the
backend. This module imports no backend; the "interpreter" backend registers here.
"""

import numpy as np

from tjit.devices import backend

from tjit.tracing.jaxpr import eval_jaxpr_reference, is_polymorphic, specialize
from tjit.tracing.shapes import solve_dims


class Executable:
    """What a backend returns for one traced program."""

    backend = "abstract"

    def call(self, flat_args, donated=()):
        """Run on raw values. ``donated``: positions of arguments whose buffers the
        caller gives up (they may hold outputs afterwards)."""
        raise NotImplementedError

    def prepare(self, flat_args):
        """Validate ``flat_args`` (sizes); return ``run(flat_args, donated=())``. Errors
        about the arguments are raised here, before any donated buffer is written."""
        return self.call

    def donation(self):
        """``(aliases, usable)``: {donated argument position: output value it holds},
        and the donated positions the program uses (aliased or returned unchanged)."""
        return {}, set()

    def as_text(self, source=False, llvm=False):
        raise NotImplementedError

    def memory_analysis(self, env=None):
        """Byte counts at the size binding ``env`` ({symbol: int}); None if unknown."""
        return None

    def step_summary(self):
        """``(kind, name)`` per step of a compiled plan; empty for an interpreter."""
        return []

    def kernels(self):
        """The kernel IR of each fused kernel; empty for an interpreter."""
        return []


class InterpreterExecutable(Executable):
    """Runs a closed jaxpr with the primitives' reference implementations (NumPy).

    A polymorphic jaxpr is specialized per binding of its size symbols (cheap: no
    re-trace), so one trace serves every batch size.
    """

    backend = "interpreter"

    def __init__(self, closed_jaxpr, in_specs=None, xp=np):
        self.closed_jaxpr = closed_jaxpr
        self.xp = xp
        self.in_specs = in_specs  # per flat input: tuple of spec dims, or None
        self.polymorphic = is_polymorphic(closed_jaxpr)
        self._specialized = {}
        j = closed_jaxpr.jaxpr
        self._consts = [getattr(c, "_value", c) for c in closed_jaxpr.consts]
        self._jaxpr = j

    def _jaxpr_for(self, flat_args):
        env = {}
        for i, (spec, a) in enumerate(zip(self.in_specs, flat_args)):
            if spec is not None:
                solve_dims(spec, np.shape(a), env, f"argument {i}")
        key = tuple(sorted((s.name, v) for s, v in env.items()))
        j = self._specialized.get(key)
        if j is None:
            if len(self._specialized) >= 64:   # (a bound: one jaxpr per size binding)
                self._specialized.clear()
            j = self._specialized[key] = specialize(self._jaxpr, env)
        return j

    def call(self, flat_args, donated=()):  # donation is not implemented here (ignored)
        j = self._jaxpr_for(flat_args) if self.polymorphic else self._jaxpr
        return eval_jaxpr_reference(j, self._consts, flat_args, self.xp)

    def as_text(self, source=False, llvm=False):
        return str(self.closed_jaxpr)


class InterpreterBackend:
    """The reference backend: runs the jaxpr with the primitives' implementations on
    the host (NumPy). It ignores donation."""

    name = "interpreter"
    platform = "cpu"

    def available(self):
        return True

    def devices(self):
        return backend.cpu_devices()

    def compile(self, closed_jaxpr, in_specs=None, donated=()):
        return InterpreterExecutable(closed_jaxpr, in_specs)


backend.register(InterpreterBackend())
