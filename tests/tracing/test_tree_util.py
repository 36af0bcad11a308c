import collections

import pytest

from tjit import tree_util as tu

Point = collections.namedtuple("Point", "x y")


@tu.register_pytree_node_class
class Box:
    def __init__(self, a, b, tag):
        self.a, self.b, self.tag = a, b, tag

    def tree_flatten(self):
        return (self.a, self.b), self.tag

    @classmethod
    def tree_unflatten(cls, tag, children):
        return cls(*children, tag)

    def __eq__(self, other):
        return isinstance(other, Box) and (self.a, self.b, self.tag) == (other.a, other.b,
                                                                         other.tag)


TREES = [
    1,
    None,
    (),
    [1, 2, (3, None)],
    {"b": 1, "a": [2, 3], "c": {"d": (4,)}},
    Point(1, (2, 3)),
    collections.OrderedDict([("z", 1), ("a", 2)]),
    Box(1, [2, 3], tag="t"),
]


@pytest.mark.parametrize("tree", TREES, ids=str)
def test_round_trip(tree):
    leaves, treedef = tu.tree_flatten(tree)
    assert tu.tree_unflatten(treedef, leaves) == tree
    assert treedef.num_leaves == len(leaves)


def test_dict_leaves_sorted_by_key():
    assert tu.tree_leaves({"b": 1, "a": 2}) == [2, 1]


def test_none_is_empty_node():
    assert tu.tree_leaves([None, 1, None]) == [1]


def test_tree_map_multiple_trees():
    out = tu.tree_map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)})
    assert out == {"a": 11, "b": (22, 33)}


def test_tree_map_structure_mismatch():
    with pytest.raises(ValueError, match="mismatch"):
        tu.tree_map(lambda x, y: x, [1, 2], (1, 2))


def test_structure_equality_and_hash():
    s1 = tu.tree_structure({"a": [1, 2]})
    s2 = tu.tree_structure({"a": [5, 6]})
    assert s1 == s2 and hash(s1) == hash(s2)
    assert s1 != tu.tree_structure({"a": (1, 2)})


def test_is_leaf():
    assert tu.tree_leaves([[1, 2], [3]], is_leaf=lambda x: isinstance(x, list) and
                          len(x) == 1) == [1, 2, [3]]


def test_register_pytree_node():
    class Pair:
        def __init__(self, x, y):
            self.x, self.y = x, y
    tu.register_pytree_node(Pair, lambda p: ((p.x, p.y), None), lambda _, c: Pair(*c))
    out = tu.tree_map(lambda v: v * 2, Pair(1, 2))
    assert (out.x, out.y) == (2, 4)


def test_tree_transpose():
    outer = tu.tree_structure([0, 0])
    inner = tu.tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])


def test_partial_is_pytree():
    import tjit.numpy as jnp
    p = tu.Partial(lambda a, b: a + b, jnp.asarray(1.0))
    leaves, td = tu.tree_flatten(p)
    assert len(leaves) == 1
    assert float(tu.tree_unflatten(td, leaves)(2.0)) == 3.0
