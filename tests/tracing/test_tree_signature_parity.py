"""jax.tree_util / jax.tree keyword parameters with JAX's meaning: ``is_leaf_takes_path``
of the ``*_with_path`` functions, ``register_dataclass(nodetype=)``,
``tree_reduce(function=)``."""

import collections
import dataclasses

import numpy as np
import pytest

import tjit
import tjit.tree_util as tu
from tjit.tree_util import DictKey, GetAttrKey, SequenceKey

Point = collections.namedtuple("Point", "x y")
TREE = {"a": [1, 2], "b": (3, {"c": 4, "d": None}), "p": Point(5, [6, 7])}


def _stop_at_b(path, x):
    return path == (DictKey("b"),)


def test_flatten_with_path_is_leaf_takes_path():
    pairs, treedef = tu.tree_flatten_with_path(TREE, is_leaf=_stop_at_b,
                                               is_leaf_takes_path=True)
    assert pairs == [((DictKey("a"), SequenceKey(0)), 1), ((DictKey("a"), SequenceKey(1)), 2),
                     ((DictKey("b"),), (3, {"c": 4, "d": None})),
                     ((DictKey("p"), GetAttrKey("x")), 5),
                     ((DictKey("p"), GetAttrKey("y"), SequenceKey(0)), 6),
                     ((DictKey("p"), GetAttrKey("y"), SequenceKey(1)), 7)]
    # the same structure as a path-free predicate that picks the same node
    b = TREE["b"]
    assert treedef == tu.tree_structure(TREE, is_leaf=lambda x: x is b)
    assert treedef.unflatten([x for _, x in pairs]) == TREE


def test_is_leaf_takes_path_tells_equal_subtrees_apart():
    # the two lists are equal (even the same object): only the path differs
    shared = [1.0, 2.0]
    tree = (shared, shared)
    out = tu.tree_map_with_path(lambda p, x: np.sum(x) if p == (SequenceKey(0),) else x * 10,
                                tree, is_leaf=lambda p, x: p == (SequenceKey(0),),
                                is_leaf_takes_path=True)
    assert out == (3.0, [10.0, 20.0])
    leaves = tjit.tree.leaves_with_path(tree, is_leaf=lambda p, x: len(p) == 1,
                                        is_leaf_takes_path=True)
    assert [p for p, _ in leaves] == [(SequenceKey(0),), (SequenceKey(1),)]
    pairs, _ = tjit.tree.flatten_with_path(tree, is_leaf=lambda p, x: len(p) == 1,
                                           is_leaf_takes_path=True)
    assert pairs == leaves


def test_is_leaf_takes_path_false_keeps_one_argument_predicate():
    got = tu.tree_leaves_with_path(TREE, is_leaf=lambda x: isinstance(x, tuple),
                                   is_leaf_takes_path=False)
    assert got[2] == ((DictKey("b"),), (3, {"c": 4, "d": None}))


def test_map_with_path_rest_trees_and_path_predicate():
    out = tjit.tree.map_with_path(lambda p, x, y: (len(p), x + y), {"u": [1, 2], "v": 3},
                                  {"u": [10, 20], "v": 30},
                                  is_leaf=lambda p, x: p == (DictKey("u"),),
                                  is_leaf_takes_path=True)
    assert out == {"u": (1, [1, 2, 10, 20]), "v": (1, 33)}


def test_register_dataclass_nodetype_keyword():
    @dataclasses.dataclass
    class Pair:
        w: object
        tag: str = dataclasses.field(metadata=dict(static=True))

    assert tu.register_dataclass(nodetype=Pair) is Pair
    leaves, treedef = tu.tree_flatten(Pair(np.float32(2.0), "t"))
    assert leaves == [2.0] and treedef.unflatten([3.0]) == Pair(3.0, "t")
    g = tjit.grad(lambda p: p.w ** 2)(Pair(np.float32(2.0), "t"))
    assert g.tag == "t" and float(g.w) == 4.0


def test_tree_reduce_function_keyword():
    assert tu.tree_reduce(function=lambda a, b: a * b, tree=[2, (3, 4)], initializer=5) == 120
    with pytest.raises(TypeError):
        tu.tree_reduce(function=lambda a, b: a + b, tree=[])
