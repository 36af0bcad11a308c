"""``lax.stop_gradient``: the identity whose derivative is zero."""

from tjit.tracing import dtypes
from tjit.tracing.core import Array, EvalTrace, Tracer, get_aval, trace_ctx
from tjit.tracing.tree_util import tree_map
from tjit.primitives.ad_prims import stop_gradient_p
from tjit.lax._elementwise import asarray_for_lax


def stop_gradient(x):
    """Stop gradients from flowing through ``x`` (a pytree of arrays): the values are
    unchanged, but every derivative through them is zero (``jax.lax.stop_gradient``).

    Args:
      x: array or pytree of arrays. Integer and boolean leaves are returned as they are
        (they have no gradient anyway).

    Returns:
      ``x``, with each floating-point leaf marked as constant for differentiation.
    """
    if type(x) is Array and not x._weak and type(trace_ctx.trace) is EvalTrace:
        return x    # eagerly the identity, as the primitive's result (strong) would be

    def stop(v):
        v = v if isinstance(v, (Array, Tracer)) else asarray_for_lax(v)
        if dtypes.is_inexact(get_aval(v).dtype):
            return stop_gradient_p.bind(v)
        return v
    return tree_map(stop, x)


__all__ = ["stop_gradient"]
