"""Partial evaluation: split a computation into what is known now and what is not.

:class:`LinearizeTrace` is a :class:`~tjit.tracing.jaxpr_trace.JaxprTrace` whose
primitives run in the parent trace when all inputs are known, and are recorded as
equations otherwise; known values used by recorded equations become the jaxpr's
constants (the residuals of linearization). A primitive can override the split with
a ``partial_eval(trace, args, params)`` rule (control flow, checkpoint).

:func:`partial_eval_jaxpr` applies the same split to a whole jaxpr, given which of
its inputs are unknown: it returns a known jaxpr (known inputs -> known outputs +
residuals) and an unknown jaxpr (residuals + unknown inputs -> unknown outputs).

Two kinds of split share this machinery. In linearization the unknown inputs are
tangents, so every unknown value is affine in them, and a rule may exploit that
(``while_transpose``'s measures a Jacobian). In a *dependence split* (``linear=False``:
loop-invariant code motion, where "unknown" means "varies per iteration") the unknown
inputs are arbitrary values; rules marked :func:`linear_inputs_only` are then not used
and their primitive is recorded whole, which is right for any inputs.
"""

import contextvars

from tjit.tracing.core import current_trace, set_current_trace
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr
from tjit.tracing.jaxpr_trace import JaxprTrace, JaxprTracer, trace_to_jaxpr


# set for the dynamic extent of a dependence split: every split nested in it (a rule of
# a loop inside the loop being split) sees non-linear unknowns too
_dependence_split = contextvars.ContextVar("tjit_dependence_split", default=False)


def linear_inputs_only(rule):
    """Mark a ``partial_eval`` rule that is valid only when the unknown inputs are
    tangents (it assumes the outputs are affine in them)."""
    rule.linear_inputs_only = True
    return rule


def _rule_for(prim):
    rule = getattr(prim, "partial_eval", None)
    if rule is not None and _dependence_split.get() and \
            getattr(rule, "linear_inputs_only", False):
        return None
    return rule


class LinearizeTrace(JaxprTrace):
    """Known inputs: compute in the parent. Any unknown input: record an equation."""

    name = "linearize"

    def __init__(self, parent, fun_name="<function>"):
        super().__init__(fun_name)
        self.parent = parent

    def is_unknown(self, x):
        return isinstance(x, JaxprTracer) and x._trace is self

    def process_primitive(self, prim, args, params):
        for a in args:   # (a loop, not any() of a generator: every known op passes here)
            if isinstance(a, JaxprTracer) and a._trace is self:
                break
        else:
            with set_current_trace(self.parent):
                return prim.bind(*args, **params)
        rule = _rule_for(prim)
        if rule is not None:
            return rule(self, args, params)
        return super().process_primitive(prim, args, params)


def partial_eval_jaxpr(closed, unknowns, instantiate=False, linear=True):
    """Split ``closed`` (a ClosedJaxpr) by which inputs are ``unknowns`` (bools).

    ``linear=False`` makes it a dependence split: the unknown inputs need not be tangents
    (see the module docstring).

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

    token = None if linear else _dependence_split.set(True)
    try:
        known_closed = trace_to_jaxpr(known_fun, known_avals, "known")
    finally:
        if token is not None:
            _dependence_split.reset(token)
    unknown_closed = record["unknown"]
    num_res = len(unknown_closed.consts)
    # residuals become leading inputs of the unknown jaxpr
    uj = unknown_closed.jaxpr
    unknown_jaxpr = ClosedJaxpr(Jaxpr([], list(uj.constvars) + list(uj.invars), uj.outvars,
                                      uj.eqns), [])
    assert n_in == len(unknowns), "one unknown flag per input"
    return known_closed, unknown_jaxpr, record["out_unknowns"], num_res
