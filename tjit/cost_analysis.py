"""The cost estimate of a traced program, for ``Compiled.cost_analysis()`` (JAX's keys).

Counted on the jaxpr, before fusion, so the numbers do not depend on the backend:
``flops`` is one per result element of an arithmetic elementwise op (comparisons,
selects and conversions count nothing), ``2*M*N*K`` per dot, one per reduced input
element; ``transcendentals`` one per result element of exp, log, sin, tanh, ... (not
counted in ``flops``); ``bytes accessed`` the bytes each counted op reads and writes.
A scan body counts ``length`` times, a while body once (its trip count is not known),
a cond its costliest branch. Symbolic dims give symbolic counts.
"""

from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr
from tjit.tracing.shapes import size
from tjit.xla_like.kernel_ir import BINARY_OPS, COMPARE_OPS, TRANSCENDENTAL_OPS, UNARY_OPS

_ARITHMETIC = (set(UNARY_OPS) | set(BINARY_OPS)) - COMPARE_OPS - {"not", "is_finite"}
_REDUCTIONS = {"reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "argmax",
               "argmin", "reduce_and", "reduce_or"}
_KEYS = ("flops", "transcendentals", "bytes accessed")


def _bytes(avals):
    return sum(size(a.shape) * getattr(a.dtype, "itemsize", 0) for a in avals)


def _eqn_cost(eqn):
    name = eqn.primitive.name
    ins = [v.aval for v in eqn.invars]
    outs = [v.aval for v in eqn.outvars]
    if name == "dot_general":
        (lhs_contract, _), _ = eqn.params["dimension_numbers"]
        k = size([ins[0].shape[d] for d in lhs_contract])
        return {"flops": 2 * size(outs[0].shape) * k, "bytes accessed": _bytes(ins + outs)}
    if name in TRANSCENDENTAL_OPS:
        return {"transcendentals": size(outs[0].shape), "bytes accessed": _bytes(ins + outs)}
    if name in _ARITHMETIC:
        return {"flops": size(outs[0].shape), "bytes accessed": _bytes(ins + outs)}
    if name in _REDUCTIONS:
        return {"flops": size(ins[0].shape), "bytes accessed": _bytes(ins + outs)}
    return _sub_program_cost(eqn)


def _sub_program_cost(eqn):
    """Loops, branches and calls: their bodies' costs (see the module docstring)."""
    bodies = [p.jaxpr if isinstance(p, ClosedJaxpr) else p for p in _params_jaxprs(eqn)]
    costs = [jaxpr_cost(b) for b in bodies]
    if not costs:
        return {}
    if eqn.primitive.name == "cond":
        return max(costs, key=lambda c: (c["flops"], c["transcendentals"]))
    times = eqn.params.get("length", 1) if eqn.primitive.name == "scan" else 1
    return {k: times * sum(c[k] for c in costs) for k in _KEYS}


def _params_jaxprs(eqn):
    for v in eqn.params.values():
        for p in (v if isinstance(v, (tuple, list)) else (v,)):
            if isinstance(p, (ClosedJaxpr, Jaxpr)):
                yield p


def jaxpr_cost(jaxpr):
    """``{"flops", "transcendentals", "bytes accessed"}`` of ``jaxpr`` (a Jaxpr)."""
    total = dict.fromkeys(_KEYS, 0)
    for eqn in jaxpr.eqns:
        for k, v in _eqn_cost(eqn).items():
            total[k] += v
    return total


def cost_analysis(closed_jaxpr):
    """JAX's ``Compiled.cost_analysis()`` dict for a traced program (floats, or sympy
    expressions of the size symbols for a shape-polymorphic one)."""
    cost = jaxpr_cost(closed_jaxpr.jaxpr)
    return {k: float(v) if isinstance(v, int) else v for k, v in cost.items()}
