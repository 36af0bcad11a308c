"""Tracing Python functions into jaxprs: the trace that records equations.

:func:`trace_to_jaxpr` runs a flat function on tracers of a fresh
:class:`JaxprTrace`; every primitive bound on them appends one equation. Values the
function closes over become constants: arrays are constvars, Python and 0-d scalars
are literals, and tracers of an enclosing transformation are constvars too, so a
sub-jaxpr (a cond branch, a scan body) closes over them by taking them as inputs.
"""

import numpy as np

from tjit.tracing import dtypes, source_info
from tjit.tracing.avals import ShapedArray, aval_of_value
from tjit.tracing.core import Array, Trace, Tracer, escaped_tracer_error, set_current_trace
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from tjit.tracing.refs import frame_of


class JaxprTracer(Tracer):
    __slots__ = ("_aval", "_atom", "_origin")

    def __init__(self, trace, aval, atom, origin=None):
        self._trace = trace
        self._aval = aval
        self._atom = atom
        self._origin = origin

    @property
    def aval(self):
        return self._aval

    def _describe(self):
        o = self._origin
        if isinstance(o, str):
            return o
        if o is not None:
            deps = self._trace.arguments_feeding(self._atom)
            src = f" from the traced argument(s) {', '.join(deps)}" if deps else ""
            return f"a value computed by '{o.name}'{src}"
        return "a traced value"


_SCALAR_TYPES = (int, float, complex, bool)


class JaxprTrace(Trace):
    """Records primitives applied to its tracers as jaxpr equations."""

    name = "jit"

    def __init__(self, fun_name="<function>"):
        self.fun_name = fun_name
        self.eqns = []
        self.invars = []
        self.constvars = []
        self.consts = []
        self._const_tracers = {}  # id(value) -> tracer (keeps value alive via consts)
        self.arg_names = []

    # inputs and constants -------------------------------------------------------------
    def new_arg(self, aval, origin=None):
        v = Var(aval)
        self.invars.append(v)
        return JaxprTracer(self, aval, v, origin)

    def _new_const(self, value, aval):
        t = self._const_tracers.get(id(value))
        if t is None:
            v = Var(aval)
            self.constvars.append(v)
            self.consts.append(value)
            t = self._const_tracers[id(value)] = JaxprTracer(self, aval, v, "a constant")
        return t

    def to_tracer(self, x):
        if isinstance(x, Tracer):
            if x._trace is self:
                return x
            if not x._trace.is_valid:
                raise escaped_tracer_error(x)
            return self._new_const(x, x.aval)  # closes over an enclosing trace's value
        t = type(x)
        if t is Array:
            if x._value.ndim == 0:
                return JaxprTracer(self, x.aval, Literal(x._value, x.aval), "a constant")
            return self._new_const(x, x.aval)
        if t in _SCALAR_TYPES:
            aval = aval_of_value(x)
            val = np.asarray(x, aval.dtype)
            return JaxprTracer(self, aval, Literal(val, aval), "a constant")
        if isinstance(x, (np.ndarray, np.generic)):
            dt = dtypes.canonicalize(x.dtype)
            if dt not in dtypes.SUPPORTED:
                raise TypeError(f"tjit: arrays of dtype {x.dtype} are not supported")
            x = np.asarray(x, dt)
            aval = ShapedArray(x.shape, dt)
            if x.ndim == 0:
                return JaxprTracer(self, aval, Literal(x, aval), "a constant")
            return self._new_const(x, aval)
        raise TypeError(f"tjit: value of type {t.__name__} cannot be used as an array "
                        f"inside a traced function: {x!r:.80}")

    def arguments_feeding(self, var):
        """Names of the function arguments ``var`` depends on (for error messages)."""
        producer = {v: e for e in self.eqns for v in e.outvars}
        names = dict(zip(self.invars, self.arg_names))
        seen, stack, found = set(), [var], []
        while stack:
            v = stack.pop()
            if v in seen or isinstance(v, Literal):
                continue
            seen.add(v)
            if v in names and names[v] not in found:
                found.append(names[v])
            if v in producer:
                stack.extend(producer[v].invars)
        return [f"'{n}'" for n in found if n]

    # equations -------------------------------------------------------------------------
    def process_primitive(self, prim, args, params):
        tracers = [self.to_tracer(a) for a in args]
        in_avals = [t._aval for t in tracers]
        out = prim.abstract_eval(*in_avals, **params)
        weak = prim.weak_type_rule(*[a.weak_type for a in in_avals], **params)
        outs = out if prim.multiple_results else [out]
        # a multiple-results rule may give one weak flag per output (control flow)
        weaks = weak if isinstance(weak, (list, tuple)) else [weak] * len(outs)
        out_tracers = []
        for aval, weak in zip(outs, weaks):
            if aval.weak_type != weak:
                aval = aval.update(weak_type=weak)
            out_tracers.append(JaxprTracer(self, aval, Var(aval), prim))
        self.eqns.append(JaxprEqn([t._atom for t in tracers],
                                  [t._atom for t in out_tracers], prim, params,
                                  source_info.current()))
        return out_tracers if prim.multiple_results else out_tracers[0]

    def to_jaxpr(self, out_tracers):
        outvars = [t._atom for t in out_tracers]
        jaxpr = Jaxpr(self.constvars, self.invars, outvars, self.eqns)
        return ClosedJaxpr(jaxpr, self.consts)


def trace_to_jaxpr(flat_fun, in_avals, fun_name="<function>", arg_names=None):
    """Trace ``flat_fun(*tracers) -> list of outputs`` into a ClosedJaxpr.

    Returns ``(closed_jaxpr, out_values)`` where out_values are the raw outputs (used
    to recover Python-level structure by the caller).
    """
    trace = JaxprTrace(fun_name)
    names = arg_names or [None] * len(in_avals)
    trace.arg_names = list(names)
    args = [trace.new_arg(a, f"the traced argument '{n}' of '{fun_name}'" if n else
                          f"a traced argument of '{fun_name}'") for a, n in zip(in_avals, names)]
    try:
        # (a frame: refs created outside must be threaded in, not captured: refs.py)
        with set_current_trace(trace), frame_of(trace, fun_name):
            outs = flat_fun(*args)
            out_tracers = [trace.to_tracer(o) for o in outs]
    finally:
        trace.invalidate()
    return trace.to_jaxpr(out_tracers)


def convert_constvars_jaxpr(closed):
    """Turn a ClosedJaxpr's constvars into leading invars: returns (jaxpr, consts)."""
    j = closed.jaxpr
    return Jaxpr([], list(j.constvars) + list(j.invars), j.outvars, j.eqns), list(closed.consts)
