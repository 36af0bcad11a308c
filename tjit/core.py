"""``tjit.core`` (as ``jax.core``): the names user-defined primitives use from it
(``core.ShapedArray`` in an abstract evaluation rule, JAX's "How JAX primitives work"
page). The IR types are in ``tjit.extend.core``."""

from tjit.extend.core import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    Primitive,
    Var,
    get_aval,
    jaxpr_as_fun,
)
from tjit.tracing.avals import ShapedArray

__all__ = ["ClosedJaxpr", "Jaxpr", "JaxprEqn", "Literal", "Primitive", "ShapedArray", "Var",
           "get_aval", "jaxpr_as_fun"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
