"""``tjit.tree``: the short names for pytree utilities, as ``jax.tree``
(``tjit.tree.map(f, tree)`` is ``tjit.tree_util.tree_map(f, tree)``)."""

import builtins as _builtins
import dataclasses as _dataclasses

from tjit import tree_util as _tu
from tjit.tracing.tree_util import NO_INITIALIZER as _NO_INITIALIZER


def map(f, tree, *rest, is_leaf=None):  # noqa: A001 (jax.tree.map's name)
    """Apply ``f`` leafwise over ``tree`` and the same-structured ``rest`` trees."""
    return _tu.tree_map(f, tree, *rest, is_leaf=is_leaf)


def flatten(tree, is_leaf=None):
    """Returns ``(leaves, treedef)``."""
    return _tu.tree_flatten(tree, is_leaf)


def unflatten(treedef, leaves):
    """Rebuild a pytree of structure ``treedef`` from ``leaves``."""
    return _tu.tree_unflatten(treedef, leaves)


def leaves(tree, is_leaf=None):
    """The leaves of ``tree``, in flattening order."""
    return _tu.tree_leaves(tree, is_leaf)


def structure(tree, is_leaf=None):
    """The ``PyTreeDef`` of ``tree``."""
    return _tu.tree_structure(tree, is_leaf)


def reduce(function, tree, initializer=_NO_INITIALIZER, is_leaf=None):  # noqa: A001
    """``functools.reduce(function, leaves(tree)[, initializer])``."""
    return _tu.tree_reduce(function, tree, initializer, is_leaf)


def all(tree, *, is_leaf=None):  # noqa: A001
    """True when every leaf of ``tree`` is truthy."""
    return _builtins.all(_tu.tree_leaves(tree, is_leaf))


def transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """Turn a tree of structure ``outer`` of trees of structure ``inner`` into a tree of
    structure ``inner`` of trees of structure ``outer``; ``inner_treedef=None`` takes
    the structure of the first inner tree."""
    if inner_treedef is None:
        first = outer_treedef.flatten_up_to(pytree_to_transpose)
        if not first:
            raise ValueError("tree.transpose: inner_treedef=None needs at least one inner "
                             "tree to infer the structure from; pass inner_treedef")
        inner_treedef = _tu.tree_structure(first[0])
    return _tu.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


def map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """Like :func:`map`, calling ``f(path, leaf, *rest_leaves)`` (and ``is_leaf(path, x)``
    when ``is_leaf_takes_path``)."""
    return _tu.tree_map_with_path(f, tree, *rest, is_leaf=is_leaf,
                                  is_leaf_takes_path=is_leaf_takes_path)


def flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """Returns ``([(path, leaf), ...], treedef)``."""
    return _tu.tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)


def leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """Returns ``[(path, leaf), ...]``."""
    return _tu.tree_leaves_with_path(tree, is_leaf, is_leaf_takes_path)


def broadcast(prefix_tree, full_tree, is_leaf=None):
    """``prefix_tree`` with each leaf repeated over its subtree of ``full_tree``:
    ``broadcast((1, 2), (0, {'a': 0, 'b': 0}))`` is ``(1, {'a': 2, 'b': 2})``."""
    return _tu.tree_broadcast(prefix_tree, full_tree, is_leaf=is_leaf)


def reduce_associative(operation, tree, *, identity=_tu._tu._NO_IDENTITY, is_leaf=None):
    """Reduce the leaves of ``tree`` with the associative ``operation`` pairwise, in
    logarithmic depth; ``identity`` is the result for a tree without leaves."""
    return _tu.tree_reduce_associative(operation, tree, identity=identity, is_leaf=is_leaf)


def static(**kwargs):
    """``dataclasses.field(**kwargs)`` marked static (``metadata={"static": True}``): a
    field ``tree_util.register_dataclass`` keeps in the tree structure, not a leaf."""
    metadata = {"static": True, **(kwargs.pop("metadata", None) or {})}
    return _dataclasses.field(metadata=metadata, **kwargs)


__all__ = ["map", "flatten", "unflatten", "leaves", "structure", "reduce", "all", "transpose",
           "map_with_path", "flatten_with_path", "leaves_with_path", "broadcast",
           "reduce_associative", "static"]
