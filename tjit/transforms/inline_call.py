"""A ``jit`` call met by a differentiating trace: traced to a jaxpr, its dead code dropped,
then evaluated under that trace.

Inlining the Python function would differentiate everything it computes, results used
or not, so an unused ``custom_vjp`` call inside ``jvp(jit(f))`` (or ``hessian``'s forward
pass) raised "can't apply forward-mode autodiff". JAX's jit traces the function first
and runs dead-code elimination before differentiating the call; this does the same.
"""

from tjit.tracing.core import get_aval
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.jaxpr_trace import trace_to_jaxpr
from tjit.transforms.ad import JVPTrace
from tjit.transforms.partial_eval import LinearizeTrace
from tjit.transforms.passes import dce


def differentiates(trace):
    """Whether ``trace`` or a trace it hands values to computes derivatives (forward
    mode, or linearization in reverse mode), so that code it sees is differentiated
    (``jvp(vmap(jit(f)))`` differentiates what the vmap trace passes on)."""
    while trace is not None:
        if isinstance(trace, (JVPTrace, LinearizeTrace)):
            return True
        trace = getattr(trace, "parent", None)
    return False


def call_without_dead_code(flat_fun, leaves, name):
    """``flat_fun(*leaves)`` (flat lists in and out), evaluated from its jaxpr after
    dead-code elimination, under the current trace. ``leaves`` are arrays or tracers."""
    closed = dce(trace_to_jaxpr(flat_fun, [get_aval(x) for x in leaves], name))
    return eval_jaxpr(closed.jaxpr, closed.consts, *leaves)


__all__ = ["call_without_dead_code", "differentiates"]
