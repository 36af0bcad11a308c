"""``custom_gradient`` (``jax.custom_gradient``): a function that returns its value and
its own vjp, ``f(x) -> (y, lambda g: grads)``, made a :class:`custom_vjp`.

The vjp closure may capture values of the forward pass (``x``, intermediates): fwd traces
it into a jaxpr over the output cotangents whose constants are those captured values, and
passes them to bwd as residuals (the jaxpr rides along as static pytree aux data), as
JAX does.
"""

from tjit.tracing.core import get_aval
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.jaxpr_trace import trace_to_jaxpr
from tjit.tracing.tree_util import register_pytree_node, tree_flatten, tree_unflatten
from tjit.primitives.rules import tangent_aval
from tjit.transforms.ad import _to_array
from tjit.transforms.custom_derivatives import custom_vjp
from tjit.transforms.float0 import hide_float0


class _VJPResiduals:
    """The traced vjp rule (static) and the forward values it closed over (arrays)."""

    def __init__(self, jaxpr, in_tree, out_tree, consts):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts


register_pytree_node(
    _VJPResiduals,
    lambda r: (r.consts, (r.jaxpr, r.in_tree, r.out_tree)),
    lambda aux, consts: _VJPResiduals(aux[0], aux[1], aux[2], list(consts)))


def custom_gradient(fun):
    """Define a function's gradient with the function: ``fun(*args)`` returns
    ``(value, vjp)`` where ``vjp(g)`` gives one cotangent per argument (a tuple, or a
    single value for one argument).

    Args:
      fun: the function returning ``(output, vjp_function)``.

    Returns:
      A function of the same arguments returning only the output, differentiated by the
      given vjp.
    """
    name = getattr(fun, "__name__", "<function>")

    @custom_vjp
    def wrapped(*args):
        return fun(*args)[0]

    def fwd(*args):
        ans, rule = fun(*args)
        ans_flat, out_tree = tree_flatten(ans)
        ct_avals = [tangent_aval(get_aval(_to_array(a))) for a in ans_flat]
        store = {}

        def flat_rule(*cts):
            out = rule(tree_unflatten(out_tree, list(cts)))
            # float0 cotangents (integer arguments) hold no data: kept in the structure
            flat, store["in_tree"] = tree_flatten(hide_float0(out))
            return flat
        closed = trace_to_jaxpr(flat_rule, ct_avals, f"{name}'s vjp")
        return ans, _VJPResiduals(closed.jaxpr, store["in_tree"], out_tree, closed.consts)

    def bwd(res, ct):
        cts_flat, tree = tree_flatten(ct)
        if tree != res.out_tree:
            raise TypeError(f"custom_gradient {name}: cotangent structure {tree} differs "
                            f"from the output's {res.out_tree}")
        out = tree_unflatten(res.in_tree, eval_jaxpr(res.jaxpr, res.consts, *cts_flat))
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)

    wrapped.defvjp(fwd, bwd)
    return wrapped


__all__ = ["custom_gradient"]
