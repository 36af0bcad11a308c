"""``tjit.extend.core`` (as ``jax.extend.core``): the jaxpr types a custom interpreter
walks (``ClosedJaxpr.jaxpr``, its ``invars``/``constvars``/``eqns``/``outvars``, a
``Literal``'s ``val``, an equation's ``primitive``, ``params``, ``invars``,
``outvars``) and ``jaxpr_as_fun``.

JAX's ``Primitive`` is not offered here: tjit's primitives take their reference
implementation as ``impl(xp, *values)`` (an array namespace first), so a primitive
written for JAX's ``def_impl(impl(*values))`` would get the wrong arguments."""

from tjit.tracing.core import get_aval
from tjit.tracing.jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, eval_jaxpr


def jaxpr_as_fun(closed_jaxpr):
    """The function a ClosedJaxpr computes: ``jaxpr_as_fun(c)(*args)`` returns the list
    of its outputs (primitives bound again, so it can be traced and transformed)."""
    def fun(*args):
        return eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.consts, *args)
    return fun


__all__ = ["ClosedJaxpr", "Jaxpr", "JaxprEqn", "Literal", "Var", "get_aval", "jaxpr_as_fun"]
