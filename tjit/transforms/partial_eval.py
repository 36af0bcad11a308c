"""Partial evaluation: split a computation into what is known now and what is not.

:class:`LinearizeTrace` is a :class:`~tjit.tracing.jaxpr_trace.JaxprTrace` whose
primitives run in the parent trace when all inputs are known, and are recorded as
equations otherwise; known values used by recorded equations become the jaxpr's
constants (the residuals of linearization). A primitive can override the split with
a ``partial_eval(trace, args, params)`` rule (control flow, checkpoint).

:func:`partial_eval_jaxpr` applies the same split to a whole jaxpr, given which of
its inputs are unknown: it returns a known jaxpr (known inputs -> known outputs +
residuals) and an unknown jaxpr (residuals + unknown inputs -> unknown outputs).
"""

from tjit.tracing.core import current_trace, set_current_trace
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr
from tjit.tracing.jaxpr_trace import JaxprTrace, JaxprTracer, trace_to_jaxpr


class LinearizeTrace(JaxprTrace):
    """Known inputs: compute in the parent. Any unknown input: record an equation."""

    name = "linearize"

    def __init__(self, parent, fun_name="<function>"):
        super().__init__(fun_name)
        self.parent = parent

    def is_unknown(self, x):
        return isinstance(x, JaxprTracer) and x._trace is self

    def process_primitive(self, prim, args, params):
        if not any(self.is_unknown(a) for a in args):
            with set_current_trace(self.parent):
                return prim.bind(*args, **params)
        if getattr(prim, "partial_eval", None) is not None:
            return prim.partial_eval(self, args, params)
        return super().process_primitive(prim, args, params)


def partial_eval_jaxpr(closed, unknowns, instantiate=False):
    """Split ``closed`` (a ClosedJaxpr) by which inputs are ``unknowns`` (bools).

    Returns ``(known_jaxpr, unknown_jaxpr, out_unknowns, num_res)``: ``known_jaxpr``
    maps the known inputs to the known outputs followed by ``num_res`` residuals;
    ``unknown_jaxpr`` maps the residuals followed by the unknown inputs to the unknown
    outputs. ``instantiate`` (bool or list) forces outputs to be unknown.
    """
    jaxpr, consts = closed.jaxpr, closed.consts
    n_in = len(jaxpr.invars)
    inst = [instantiate] * len(jaxpr.outvars) if isinstance(instantiate, bool) else \
        list(instantiate)
    known_avals = [v.aval for v, u in zip(jaxpr.invars, unknowns) if not u]
    unknown_avals = [v.aval for v, u in zip(jaxpr.invars, unknowns) if u]
    record = {}

    def known_fun(*known_args):
        lin = LinearizeTrace(current_trace(), "partial_eval")
        unknown_args = [lin.new_arg(a) for a in unknown_avals]
        it_k, it_u = iter(known_args), iter(unknown_args)
        args = [next(it_u) if u else next(it_k) for u in unknowns]
        try:
            with set_current_trace(lin):
                outs = eval_jaxpr(jaxpr, consts, *args)
                outs = [lin.to_tracer(o) if (inst[i] and not lin.is_unknown(o)) else o
                        for i, o in enumerate(outs)]
        finally:
            lin.invalidate()
        out_unknowns = [lin.is_unknown(o) for o in outs]
        unknown_closed = lin.to_jaxpr([o for o in outs if lin.is_unknown(o)])
        record["unknown"] = unknown_closed
        record["out_unknowns"] = out_unknowns
        known_outs = [o for o in outs if not lin.is_unknown(o)]
        return known_outs + list(unknown_closed.consts)

    known_closed = trace_to_jaxpr(known_fun, known_avals, "known")
    unknown_closed = record["unknown"]
    num_res = len(unknown_closed.consts)
    # residuals become leading inputs of the unknown jaxpr
    uj = unknown_closed.jaxpr
    unknown_jaxpr = ClosedJaxpr(Jaxpr([], list(uj.constvars) + list(uj.invars), uj.outvars,
                                      uj.eqns), [])
    assert n_in == len(unknowns), "one unknown flag per input"
    return known_closed, unknown_jaxpr, record["out_unknowns"], num_res
