"""``tjit.tree_util``: the public pytree API, as ``jax.tree_util``.

Everything is ``tjit.tracing.tree_util`` except one thing a user sees: an array of an
extended dtype (a typed PRNG key array, ``tjit.random.key``) is a leaf here, as JAX's
key arrays are, so ``tree_map(f, {"k": keys})`` calls ``f`` on the key array and
``tree_structure(key)`` is ``PyTreeDef(*)``.

Inside tjit the key array stays a pytree node over its raw ``uint32`` data
(``tjit/random/_key_array.py``): jit, vmap, grad and the loops flatten arguments with
``tjit.tracing.tree_util`` and so see ordinary arrays. A treedef made here describes a
key as one leaf; give it key arrays (not their data) to unflatten.
"""

from tjit.tracing import tree_util as _tu
from tjit.tracing.extended_dtypes import ExtendedArray as _ExtendedArray
from tjit.tracing.tree_util import is_extended_array as _is_extended
from tjit.tracing.tree_util import (  # noqa: F401  (re-exported as they are)
    PyTreeDef, Partial, register_pytree_node, register_pytree_node_class,
    register_dataclass, register_pytree_with_keys, register_pytree_with_keys_class,
    register_static, tree_unflatten, tree_transpose, treedef_is_leaf, treedef_children,
    treedef_tuple, keystr, KeyEntry, KeyPath, SequenceKey, DictKey,
    GetAttrKey, FlattenedIndexKey)


def _leaf_pred(is_leaf):
    """``is_leaf`` extended so that arrays of an extended dtype are leaves."""
    if is_leaf is None:
        return _is_extended
    return lambda x: isinstance(x, _ExtendedArray) or is_leaf(x)


def tree_flatten(tree, is_leaf=None):
    """Returns ``(leaves, treedef)``; key arrays are leaves."""
    return _tu.tree_flatten(tree, _leaf_pred(is_leaf))


def tree_leaves(tree, is_leaf=None):
    """The leaves of ``tree`` in flattening order (``None`` is an empty subtree).

    Example::

        >>> tree_leaves({"b": [1, 2], "a": (3, None)})
        [3, 1, 2]
    """
    return _tu.tree_leaves(tree, _leaf_pred(is_leaf))


def tree_structure(tree, is_leaf=None):
    """The ``PyTreeDef`` of ``tree`` (its shape without the leaves).

    Example::

        >>> tree_structure({"a": 1, "b": (2, 3)}).num_leaves
        3
    """
    return _tu.tree_structure(tree, _leaf_pred(is_leaf))


def tree_map(f, tree, *rest, is_leaf=None):
    """Apply ``f`` leafwise; ``rest`` trees must share ``tree``'s structure."""
    return _tu.tree_map(f, tree, *rest, is_leaf=_leaf_pred(is_leaf))


def tree_reduce(function, tree, initializer=_tu.NO_INITIALIZER, is_leaf=None):
    """``functools.reduce(function, tree_leaves(tree)[, initializer])``."""
    return _tu.tree_reduce(function, tree, initializer, _leaf_pred(is_leaf))


def tree_all(tree, *, is_leaf=None):
    """True when every leaf of ``tree`` is truthy."""
    return all(tree_leaves(tree, is_leaf))


def all_leaves(iterable, is_leaf=None):
    """True when every element of ``iterable`` is a leaf (None is not: it is an empty
    subtree); with ``is_leaf``, JAX's rule of :func:`tjit.tracing.tree_util.all_leaves`."""
    return _tu.all_leaves(iterable, _leaf_pred(is_leaf))


def _path_leaf_pred(is_leaf, is_leaf_takes_path):
    """``is_leaf`` for the ``*_with_path`` functions: ``is_leaf(path, x)`` when it takes
    the path (extended-dtype arrays are leaves either way)."""
    if not is_leaf_takes_path or is_leaf is None:
        return _leaf_pred(is_leaf)
    return lambda path, x: isinstance(x, _ExtendedArray) or is_leaf(path, x)


def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """Like :func:`tree_flatten`, but each leaf comes with its key path;
    ``is_leaf_takes_path``: ``is_leaf`` is called as ``is_leaf(path, x)``."""
    return _tu.tree_flatten_with_path(tree, _path_leaf_pred(is_leaf, is_leaf_takes_path),
                                      is_leaf_takes_path)


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    """``[(path, leaf), ...]`` of ``tree`` (``is_leaf`` as :func:`tree_flatten_with_path`)."""
    return _tu.tree_leaves_with_path(tree, _path_leaf_pred(is_leaf, is_leaf_takes_path),
                                     is_leaf_takes_path)


def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    """Like :func:`tree_map`, but calls ``f(path, leaf, *rest_leaves)`` (``is_leaf`` as
    :func:`tree_flatten_with_path`)."""
    return _tu.tree_map_with_path(f, tree, *rest,
                                  is_leaf=_path_leaf_pred(is_leaf, is_leaf_takes_path),
                                  is_leaf_takes_path=is_leaf_takes_path)


def broadcast_prefix(prefix_tree, full_tree, is_leaf=None):
    """The leaves of ``prefix_tree`` repeated to the leaves of ``full_tree`` below them."""
    return _tu.broadcast_prefix(prefix_tree, full_tree, _leaf_pred(is_leaf))


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """``prefix_tree`` broadcast to the structure of ``full_tree``."""
    # (is_leaf applies to the prefix only: full_tree keeps its own structure, as JAX's)
    return _tu.tree_structure(full_tree, _leaf_pred(None)).unflatten(
        _tu.broadcast_prefix(prefix_tree, full_tree, _leaf_pred(is_leaf)))


def tree_reduce_associative(operation, tree, *, identity=_tu._NO_IDENTITY, is_leaf=None):
    """Reduce the leaves of ``tree`` with the associative ``operation`` as a balanced tree."""
    return _tu.tree_reduce_associative(operation, tree, identity=identity,
                                       is_leaf=_leaf_pred(is_leaf))


def is_tree_node(typ):
    """Whether ``typ`` is a pytree node type (built in, registered or a namedtuple); a key
    array's type is not (its arrays are leaves here)."""
    if isinstance(typ, type) and issubclass(typ, _ExtendedArray):
        return False
    return _tu.is_tree_node(typ)


def _not_a_key_array(tree):
    if _is_extended(tree):
        raise ValueError(f"can't tree-flatten type: {type(tree)}")


def flatten_one_level(tree):
    """``(children, aux data)`` of one pytree node; ValueError for a leaf (a key array
    included)."""
    _not_a_key_array(tree)
    return _tu.flatten_one_level(tree)


def flatten_one_level_with_keys(tree):
    """``([(key, child), ...], aux data)`` of one pytree node; ValueError for a leaf (a
    key array included)."""
    _not_a_key_array(tree)
    return _tu.flatten_one_level_with_keys(tree)


class _PublicRegistry(type(_tu.default_registry)):
    """``jax.tree_util.default_registry`` with the public leaf rule: a key array is a leaf
    (``flatten`` gives it whole, ``flatten_one_level`` gives None)."""

    def flatten(self, tree, leaf_predicate=None):
        return tree_flatten(tree, leaf_predicate)

    def flatten_one_level(self, tree):
        return None if _is_extended(tree) else super().flatten_one_level(tree)

    def flatten_one_level_with_keys(self, tree):
        return None if _is_extended(tree) else super().flatten_one_level_with_keys(tree)

    def is_node(self, typ):
        return is_tree_node(typ)


default_registry = _PublicRegistry()


# JAX's names (broadcast_prefix is a helper other tjit modules import)
__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial",
    "PyTreeDef", "SequenceKey", "all_leaves", "default_registry", "flatten_one_level",
    "flatten_one_level_with_keys", "is_tree_node", "keystr", "register_dataclass",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_static", "tree_all", "tree_broadcast",
    "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
    "tree_map", "tree_map_with_path", "tree_reduce", "tree_reduce_associative",
    "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children",
    "treedef_is_leaf", "treedef_tuple"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
