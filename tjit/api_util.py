"""Helpers for writing transformations and wrappers over tjit's API, as ``jax.api_util``.

The functions here work on plain callables and pytree definitions. JAX's
``flatten_fun``, ``flatten_fun_nokwargs``, ``argnums_partial`` and ``debug_info``
transform ``linear_util.WrappedFun`` objects, a JAX internal with no counterpart in
tjit (tjit traces plain callables), so they are not offered.
"""

from tjit._src.util import safe_map
from tjit.tracing.core import get_aval
from tjit.tracing.tree_util import broadcast_prefix, tree_structure, tree_unflatten


def shaped_abstractify(x):
    """The abstract value (``ShapedArray``) tracing gives ``x``: its shape and dtype, weakly
    typed for Python scalars (``1.0`` -> ``float32[]`` weak, under default precision)."""
    return get_aval(x)


class _Leaf:
    def __repr__(self):
        return "pytree leaf"


def flatten_axes(name, treedef, axis_tree, *, kws=False, tupled_args=False):
    """One axis spec per leaf of ``treedef``: ``axis_tree`` (ints and Nones; a tree prefix
    of the value, e.g. vmap's ``in_axes``) broadcast to the full tree and flattened.

    Raises ValueError naming ``name`` when ``axis_tree`` is not a prefix. (``kws`` and
    ``tupled_args`` only shape JAX's message there; they are accepted for its signature.)
    """
    del kws
    dummy = tree_unflatten(treedef, [_Leaf()] * treedef.num_leaves)
    try:
        return broadcast_prefix(axis_tree, dummy, is_leaf=lambda x: x is None)
    except ValueError as e:
        hint = (f" Note that {name} that are non-trivial pytrees should always be wrapped "
                f"in a tuple representing the argument list." if tupled_args else "")
        raise ValueError(f"{name} specification must be a tree prefix of the "
                         f"corresponding value;{hint} {e}") from None


def rebase_donate_argnums(donate_argnums, static_argnums):
    """``donate_argnums`` renumbered for the argument list with the static arguments
    removed: ``rebase_donate_argnums((3, 4), (0, 1)) == (1, 2)``. An argument that is
    both static and donated is an error."""
    static = sorted(set(static_argnums))
    donate = sorted(set(donate_argnums))
    both = set(static) & set(donate)
    if both:
        raise ValueError(f"`static_argnums` {static} and `donate_argnums` {donate} cannot "
                         f"intersect (argument(s) {sorted(both)}): a static argument is "
                         f"not an array, so it cannot be donated")
    return tuple(d - sum(s < d for s in static) for d in donate)


def donation_vector(donate_argnums, donate_argnames, in_tree, kws=True):
    """One bool per leaf of ``in_tree`` (the treedef of ``(args, kwargs)``, or of ``args``
    with ``kws=False``): whether that leaf's argument is donated."""
    dummy = tree_unflatten(in_tree, [0] * in_tree.num_leaves)
    args, kwargs = dummy if kws else (dummy, {})
    res = []
    for i, arg in enumerate(args):
        res += [i in donate_argnums] * tree_structure(arg).num_leaves
    for key in sorted(kwargs):   # dicts flatten in sorted key order
        res += [key in donate_argnames] * tree_structure(kwargs[key]).num_leaves
    return tuple(res)


__all__ = ["donation_vector", "flatten_axes", "rebase_donate_argnums", "safe_map",
           "shaped_abstractify"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
