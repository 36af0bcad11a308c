"""``vjp`` with respect to ref arguments (JAX's docs/array_refs.md, "Differentiating
with respect to Ref arguments").

The primal of a ref argument is its value when ``vjp`` is called. The differentiated
function gets a fresh ref holding that value being differentiated; its in-place updates
are differentiated like any computation, and its final (primal) value is written back
into the caller's ref, since ``vjp`` runs the function. The gradient is with respect to
the ref's initial value and must be accumulated into a ref: the VJP function's
``with_refs(grad_ref, ...)`` adds it there; calling it without one raises.
"""

from tjit.tracing.refs import Ref, RefError
from tjit.tracing.tree_util import tree_flatten, tree_unflatten


def has_refs(flat_primals):
    return any(isinstance(p, Ref) for p in flat_primals)


def thread(fun, flat_primals, in_tree):
    """``(fun2, values, write_back)``: ``fun2`` takes the ref arguments' values (in
    ``values``, the flat primals with each ref replaced by its value) and hands ``fun``
    fresh refs holding them; ``write_back(lower)`` puts the final values, lowered out of
    the differentiation by ``lower``, into the caller's refs."""
    at = [p if isinstance(p, Ref) else None for p in flat_primals]
    values = [p._get() if r is not None else p for p, r in zip(flat_primals, at)]
    fresh = []

    def fun2(*args):
        leaves = tree_flatten(args)[0]
        fresh[:] = [Ref(x) if r is not None else None for x, r in zip(leaves, at)]
        return fun(*tree_unflatten(in_tree, [f if f is not None else x
                                             for x, f in zip(leaves, fresh)]))

    def write_back(lower):
        for r, f in zip(at, fresh):
            if r is not None:
                r._set(lower(f._value))
    return fun2, values, write_back


def is_ref(x):
    return isinstance(x, Ref)


def grad_of_ref_message(fname, ref):
    return (f"{fname}: cannot differentiate with respect to a mutable array reference "
            f"({ref.type_str()}): the gradient for a ref must itself live in a ref. Use "
            f"jax.vjp(f, ...) and f_vjp.with_refs(grad_ref, ...)(cotangent), or leave the "
            f"ref out of argnums (a ref that only plumbs data needs no gradient)")


def ref_arguments(primals):
    """Positions of the positional arguments that hold a ref."""
    return frozenset(i for i, a in enumerate(primals)
                     if any(isinstance(x, Ref) for x in tree_flatten(a)[0]))


def missing_grad_ref_error(ref_args):
    return RefError(
        f"vjp: argument(s) {sorted(ref_args)} of the differentiated function are refs, "
        f"and the gradient for a ref-typed input must be accumulated into a ref: bind one "
        f"with f_vjp.with_refs(grad_ref, ...)(cotangent) (jax.ad.GradValue() for the "
        f"value arguments), or pass jax.ad.DontWant() for it")


__all__ = ["has_refs", "thread", "is_ref", "grad_of_ref_message", "ref_arguments",
           "missing_grad_ref_error"]
