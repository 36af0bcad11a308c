"""tree_util's one-level views, structure builders, prefix broadcasting, associative
reduction and static registration (jax.tree_util's names), checked against what each
must give by construction (hand-written expected trees)."""

import collections
import dataclasses

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import tree_util as tu

Point = collections.namedtuple("Point", "x y")


def test_flatten_one_level_returns_children_and_aux():
    # (the containers are JAX 0.10.2's: a tuple of a dict's children, a list's own list)
    assert tu.flatten_one_level({"b": 2, "a": [1]}) == (([1], 2), ("a", "b"))
    assert tu.flatten_one_level((1, (2, 3))) == ((1, (2, 3)), None)
    assert tu.flatten_one_level(Point(1, 2)) == ([1, 2], Point)
    assert tu.flatten_one_level(None) == ((), None)
    with pytest.raises(ValueError, match="can't tree-flatten type: <class 'float'>"):
        tu.flatten_one_level(1.0)


def test_flatten_one_level_with_keys_names_the_children():
    keyed, aux = tu.flatten_one_level_with_keys({"b": 2, "a": 1})
    assert keyed == ((tu.DictKey("a"), 1), (tu.DictKey("b"), 2)) and aux == ("a", "b")
    keyed, _ = tu.flatten_one_level_with_keys([5, 6])
    assert list(keyed) == [(tu.SequenceKey(0), 5), (tu.SequenceKey(1), 6)]
    keyed, _ = tu.flatten_one_level_with_keys(Point(1, 2))
    assert [str(k) for k, _ in keyed] == [".x", ".y"]


def test_treedef_children_and_tuple_rebuild_structures():
    tree = [(1, 2), 3, {"a": 4}]
    kids = tu.treedef_children(tu.tree_structure(tree))
    assert kids == [tu.tree_structure((1, 2)), tu.tree_structure(3),
                    tu.tree_structure({"a": 4})]
    assert tu.treedef_children(tu.tree_structure(1.0)) == []
    both = tu.treedef_tuple([tu.tree_structure([1, 2]), tu.tree_structure({"a": 3})])
    assert both == tu.tree_structure(([1, 2], {"a": 3}))
    assert both.unflatten([7, 8, 9]) == ([7, 8], {"a": 9})
    with pytest.raises(TypeError, match="expected PyTreeDefs"):
        tu.treedef_tuple([1])


def test_tree_broadcast_repeats_prefix_leaves_over_subtrees():
    assert tu.tree_broadcast([1, 2], [(0, 0), {"a": 0, "b": 0}]) == [(1, 1), {"a": 2, "b": 2}]
    assert tu.tree_broadcast(5, {"x": (0, 0)}) == {"x": (5, 5)}
    # is_leaf stops the prefix early: the pair is one leaf, repeated
    assert tu.tree_broadcast((1, 2), [0, 0], is_leaf=lambda x: isinstance(x, tuple)) == \
        [(1, 2), (1, 2)]
    with pytest.raises(ValueError, match="is not a prefix"):
        tu.tree_broadcast([1, 2], [0])


def test_tree_reduce_associative_pairs_halves():
    assert tu.tree_reduce_associative(lambda a, b: (a, b), [1, 2, 3, 4, 5]) == \
        ((1, 2), (3, (4, 5)))
    assert tu.tree_reduce_associative(lambda a, b: a + b, {"a": 1, "b": (2, 3)}) == 6
    assert tu.tree_reduce_associative(max, [], identity=-1) == -1
    with pytest.raises(TypeError, match="Must specify identity"):
        tu.tree_reduce_associative(max, [])


def test_is_tree_node_and_default_registry():
    assert tu.is_tree_node(dict) and tu.is_tree_node(Point) and tu.is_tree_node(type(None))
    assert not tu.is_tree_node(float) and not tu.is_tree_node(np.ndarray)
    reg = tu.default_registry
    leaves, treedef = reg.flatten({"a": 1, "b": [2]})
    assert leaves == [1, 2] and treedef == tu.tree_structure({"a": 0, "b": [0]})
    assert reg.flatten_one_level(3.0) is None
    assert reg.flatten_one_level([1, 2]) == ([1, 2], None)


def test_register_static_makes_a_leafless_hashable_node_that_jit_keys_on():
    @tu.register_static
    class Mode(str):
        pass

    assert tu.tree_leaves([1.0, Mode("add")]) == [1.0]
    assert tu.is_tree_node(Mode)
    calls = []

    @tjit.jit
    def f(x, y, mode):
        calls.append(mode)
        return x + y if mode == "add" else x - y

    assert float(f(1.0, 2.0, Mode("add"))) == 3.0
    assert float(f(1.0, 2.0, Mode("sub"))) == -1.0
    assert float(f(5.0, 2.0, Mode("add"))) == 7.0
    assert calls == ["add", "sub"]  # one trace per static value


def test_register_static_dataclass_passes_grad():
    @tu.register_static
    @dataclasses.dataclass(frozen=True)
    class Scale:
        factor: float

    g = tjit.grad(lambda x, s: jnp.sum(x * s.factor))(jnp.ones(3), Scale(2.5))
    np.testing.assert_array_equal(np.asarray(g), [2.5, 2.5, 2.5])


# -- jax.tree's broadcast / reduce_associative / static, and JAX's treedef text -----------
def test_tree_broadcast_repeats_prefix_leaves_over_subtrees():
    assert tjit.tree.broadcast((1, 2, 3), (0, {"a": 0, "b": 0}, (0, 0))) == \
        (1, {"a": 2, "b": 2}, (3, 3))


@pytest.mark.parametrize("n", range(1, 9))
def test_reduce_associative_equals_a_left_fold_for_an_associative_operation(n):
    import functools
    import operator
    leaves = [[i] for i in range(n)]               # list concatenation: not commutative
    got = tjit.tree.reduce_associative(operator.add, {"x": leaves[:n // 2],
                                                      "y": leaves[n // 2:]},
                                       is_leaf=lambda v: isinstance(v, list) and
                                       len(v) == 1 and isinstance(v[0], int))
    assert got == functools.reduce(operator.add, leaves)


def test_reduce_associative_of_no_leaves_needs_the_identity():
    import operator
    assert tjit.tree.reduce_associative(operator.add, [], identity=0) == 0
    with pytest.raises(TypeError, match="identity"):
        tjit.tree.reduce_associative(operator.add, [])


def test_static_field_stays_in_the_structure_of_a_registered_dataclass():
    import dataclasses

    @tjit.tree_util.register_dataclass
    @dataclasses.dataclass
    class Op:
        x: object
        y: object
        kind: str = tjit.tree.static(default="add")
    leaves, treedef = tjit.tree.flatten(Op(1.0, 2.0))
    assert leaves == [1.0, 2.0] and tjit.tree.unflatten(treedef, leaves).kind == "add"
    assert repr(treedef) == "PyTreeDef(CustomNode(Op[('add',)], [*, *]))"  # JAX's text


def test_treedef_text_of_custom_nodes_is_jaxs():
    import collections
    Pair = collections.namedtuple("Pair", "a b")

    class Box:
        def __init__(self, v):
            self.v = v
    tjit.tree_util.register_pytree_node(Box, lambda b: ((b.v,), "meta"),
                                        lambda aux, kids: Box(kids[0]))
    text = {t: repr(tjit.tree.structure(v)) for t, v in [
        ("namedtuple", Pair(1, [2])), ("box", [Box([1, 2])]),
        ("ordered", collections.OrderedDict(z=1, a=2)), ("plain", [1, (2, None), {"k": 3}])]}
    assert text == {  # as jax.tree.structure prints them (JAX 0.10)
        "namedtuple": "PyTreeDef(CustomNode(namedtuple[Pair], [*, [*]]))",
        "box": "PyTreeDef([CustomNode(Box[meta], [[*, *]])])",
        "ordered": "PyTreeDef(CustomNode(OrderedDict[('z', 'a')], [*, *]))",
        "plain": "PyTreeDef([*, (*, None), {'k': *}])"}
