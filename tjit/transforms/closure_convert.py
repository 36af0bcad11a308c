"""``closure_convert`` (as ``jax.closure_convert``): a function's closed-over traced
values made explicit arguments, so that a higher-order ``custom_vjp``/``custom_jvp``
function can take them as formal arguments and differentiate through them.

``fun`` is traced at the types of ``example_args``; of the values it closes over
(however deep: arrays captured by functions it calls count too), the floating-point
ones that belong to an enclosing transformation (tracers, which may carry tangents) are
hoisted; concrete arrays and integer values stay closed over, as in JAX.
"""

from tjit.tracing import dtypes
from tjit.tracing.core import Tracer, get_aval
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.transforms.ad import _to_array
from tjit.transforms.custom_derivatives import _name, trace_flat


def closure_convert(fun, *example_args):
    """Closure-convert ``fun`` specialized to the types of ``example_args``.

    Args:
      fun: a pure function of pytrees of arrays.
      example_args: arrays, scalars or pytrees of them, giving the types of ``fun``'s
        arguments.
    Returns:
      ``(converted_fun, hoisted)``: ``converted_fun(*args, *hoisted)`` equals
      ``fun(*args)`` for arguments of the example's structure and types, and
      ``hoisted`` is the list of values taken out of ``fun``'s closure.

    >>> def outer(w):
    ...     f, hoisted = jax.closure_convert(lambda x: jnp.sum(x * w), jnp.ones(3))
    ...     return f(jnp.arange(3.0), *hoisted)      # w is now an argument of f
    >>> jax.grad(outer)(jnp.ones(3))
    Array([0., 1., 2.], dtype=float32)
    """
    fname = _name(fun)
    leaves, in_tree = tree_flatten(example_args)
    avals = [get_aval(_to_array(x)) for x in leaves]
    store = {}

    def flat_fun(*xs):
        outs, store["tree"] = tree_flatten(fun(*tree_unflatten(in_tree, list(xs))))
        return outs
    closed, consts = trace_flat(flat_fun, avals, fname)
    hoist = [_maybe_perturbed(c) for c in consts]
    hoisted = [c for c, h in zip(consts, hoist) if h]
    kept = [c for c, h in zip(consts, hoist) if not h]
    out_tree = store["tree"]

    def converted_fun(*args_and_hoisted):
        n = len(args_and_hoisted) - len(hoisted)
        if n < 0:
            raise TypeError(f"closure_convert({fname}): the converted function takes the "
                            f"arguments followed by the {len(hoisted)} hoisted values, got "
                            f"{len(args_and_hoisted)} arguments in all")
        args, extra = args_and_hoisted[:n], args_and_hoisted[n:]
        flat, tree = tree_flatten(tuple(args))
        if tree != in_tree:
            raise TypeError(f"The inputs to the closure produced by closure_convert must "
                            f"have the same Pytree structure as the example arguments passed "
                            f"when closure_convert was called. Expected {in_tree}, but got "
                            f"{tree}")
        k, h = iter(kept), iter(extra)
        all_consts = [next(h) if x else next(k) for x in hoist]
        outs = eval_jaxpr(closed.jaxpr, closed.consts, *all_consts,
                          *[_to_array(x) for x in flat])
        return tree_unflatten(out_tree, outs)
    converted_fun.__name__ = f"closure_converted_{fname}"
    return converted_fun, hoisted


def _maybe_perturbed(x):
    """Could ``x`` carry a tangent? Tracers of an enclosing transformation with a
    floating-point (or complex) dtype; concrete arrays and integers cannot."""
    return isinstance(x, Tracer) and dtypes.is_inexact(get_aval(x).dtype)


__all__ = ["closure_convert"]
