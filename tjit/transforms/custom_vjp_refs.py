"""``custom_vjp`` functions called with refs as arguments (JAX's docs/array_refs.md:
plumbing data such as intermediate gradients out of a backward pass).

A ref argument is not differentiated: the call becomes a custom_vjp of the other
arguments whose function and rules close over the refs (so jit and the loops thread
their state as for any closed-over ref, tracing/refs.py). As in JAX, a ``fwd`` rule may
return refs among its residuals to share them with ``bwd``: they must be arguments of
the call; they are kept out of the saved residuals and given back to ``bwd`` in place.
``bwd`` returns one entry per argument, ``None`` for each ref argument.
"""

import numpy as np

from tjit.tracing.refs import Ref, RefError
from tjit.tracing.tree_util import tree_flatten, tree_unflatten


def call(cvjp, args):
    """``cvjp(*args)`` where some positional arguments are refs."""
    name = getattr(cvjp.fun, "__name__", "custom_vjp function")
    if cvjp.nondiff_argnums:
        raise NotImplementedError(f"custom_vjp function {name}: ref arguments together "
                                  f"with nondiff_argnums are not supported; close over "
                                  f"the non-array values instead")
    refs = {i: a for i, a in enumerate(args) if isinstance(a, Ref)}
    n = len(args)

    def merge(rest):
        it = iter(rest)
        return [refs[i] if i in refs else next(it) for i in range(n)]
    kept = {}   # the fwd rule's residual layout: (tree, ref at each leaf or None)

    def fun(*rest):
        return cvjp.fun(*merge(rest))

    def fwd(*rest):
        out, res = cvjp.fwd(*merge(rest))
        leaves, tree = tree_flatten(res)
        at = [x if isinstance(x, Ref) else None for x in leaves]
        for r in at:
            if r is not None and not any(r is a for a in refs.values()):
                raise RefError(f"custom_vjp fwd rule of {name} returned a mutable array "
                               f"reference that is not one of its arguments; refs in the "
                               f"residuals only say which ref arguments bwd shares")
        kept["layout"] = (tree, at)
        return out, [np.zeros((), np.float32) if r is not None else x
                     for x, r in zip(leaves, at)]

    def bwd(res, ct):
        tree, at = kept["layout"]
        res = tree_unflatten(tree, [r if r is not None else x for x, r in zip(res, at)])
        out = cvjp.bwd(res, ct)
        if not isinstance(out, (tuple, list)) or len(out) != n:
            raise TypeError(f"Custom VJP bwd rule for function {name} must produce a tuple "
                            f"with one entry per argument ({n}), None for ref arguments")
        return tuple(c for i, c in enumerate(out) if i not in refs)

    inner = type(cvjp)(fun)
    inner.defvjp(fwd, bwd, symbolic_zeros=cvjp.symbolic_zeros)
    return inner(*[a for i, a in enumerate(args) if i not in refs])


__all__ = ["call"]
