"""Regressions from the pytree differential hunt (benchmarks/diff_pytrees.py, tjit against
jax.tree_util in one process). The expected structures, strings and values below were
computed once with JAX 0.10.2's tree_util and are hard-coded here, so these tests do not
import jax."""

import collections
import dataclasses

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import tree_util as tu

Pt = collections.namedtuple("Pt", "x y")


# -- PyTreeDef methods ---------------------------------------------------------------------------
def test_treedef_children_is_a_method_returning_the_child_structures():
    # treedef.children() raised "'tuple' object is not callable"
    td = tu.tree_structure([(1, 2), {"a": 3}, None])
    assert [str(c) for c in td.children()] == [
        "PyTreeDef((*, *))", "PyTreeDef({'a': *})", "PyTreeDef(None)"]
    assert tu.tree_structure(1).children() == []
    assert td.children() == tu.treedef_children(td)


@pytest.mark.parametrize("tree, node_data, num_nodes", [
    ({"b": 1, "a": 2}, (dict, ["a", "b"]), 3),
    ([1], (list, None), 2),
    ((1,), (tuple, None), 2),
    (None, (type(None), None), 1),
    (Pt(1, 2), (Pt, None), 3),
    (collections.OrderedDict(b=1, a=2), (collections.OrderedDict, ("b", "a")), 3),
    (collections.defaultdict(int, {"a": 1}), (collections.defaultdict, (int, ("a",))), 2),
    (1, None, 1),
])
def test_node_data_and_num_nodes_as_jax(tree, node_data, num_nodes):
    td = tu.tree_structure(tree)
    assert td.node_data() == node_data
    assert td.num_nodes == num_nodes


def test_compose_and_from_node_data_and_children():
    composed = tu.tree_structure([1, 2]).compose(tu.tree_structure((1, {"a": 3})))
    assert str(composed) == "PyTreeDef([(*, {'a': *}), (*, {'a': *})])"
    leaf, none = tu.tree_structure(1), tu.tree_structure(None)
    built = leaf.from_node_data_and_children(tu.default_registry, (dict, ["a", "b"]),
                                             [leaf, none])
    assert str(built) == "PyTreeDef({'a': *, 'b': None})"
    assert built == tu.tree_structure({"a": 0, "b": None})
    with pytest.raises(ValueError, match="2 keys needs 2 children, got 1"):
        leaf.from_node_data_and_children(tu.default_registry, (dict, ["a", "b"]), [leaf])


# -- unflatten / flatten_up_to / tree_map errors --------------------------------------------------
def test_unflatten_with_too_few_leaves_is_a_value_error():
    # was a bare StopIteration
    td = tu.tree_structure([1, [2, 3]])
    with pytest.raises(ValueError, match="too few leaves.*expected 3, got 1"):
        tu.tree_unflatten(td, [1])
    with pytest.raises(ValueError, match="too many leaves.*expected 3, got 4"):
        tu.tree_unflatten(td, [1, 2, 3, 4])
    assert tu.tree_unflatten(td, iter([1, 2, 3])) == [1, [2, 3]]


@pytest.mark.parametrize("first, second, where, expected, has", [
    ([1, 2], (1, 2), "at the root", "a list of length 2", "a tuple of length 2"),
    ([1, 2], [1, 2, 3], "at the root", "a list of length 2", "a list of length 3"),
    ([1, None], [1, 3], "at key path [1]", "None", "a leaf of type int"),
    ([1, {"a": 2}], [1, {"b": 2}], "at key path [1]", "a dict with keys ['a']",
     "a dict with keys ['b']"),
])
def test_tree_map_mismatch_names_the_key_path_and_both_sides(first, second, where,
                                                             expected, has):
    with pytest.raises(ValueError) as e:
        tu.tree_map(lambda a, b: a, first, second)
    msg = str(e.value)
    assert "tree_map" in msg and "mismatch" in msg and where in msg
    assert f"the structure has {expected}, but tree 2 (of 2) has {has}" in msg
    assert str(tu.tree_structure(first)) in msg


def test_tree_map_rest_trees_may_be_deeper_below_the_first_trees_leaves():
    assert tu.tree_map(lambda a, b: (a, b), [1, 2], [[5], {"a": 2}]) == [(1, [5]), (2, {"a": 2})]


def test_flatten_up_to_compares_array_aux_data_without_raising():
    class Box:
        def __init__(self, v, meta):
            self.v, self.meta = v, meta

    tu.register_pytree_node(Box, lambda b: ((b.v,), b.meta), lambda m, ch: Box(ch[0], m))
    td = tu.tree_structure(Box(1.0, np.arange(3)))
    with pytest.raises(ValueError, match="mismatch"):
        td.flatten_up_to(Box(2.0, np.arange(4)))


def test_tree_transpose_of_the_wrong_structure_is_a_type_error():
    outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    with pytest.raises(TypeError, match=r"PyTreeDef\(\[\(\*, \*\), \(\*, \*\)\]\)"):
        tu.tree_transpose(outer, inner, [(1, 2), (3, 4, 5)])


def test_tree_broadcast_mismatch_names_the_key_path():
    with pytest.raises(ValueError, match=r"not a prefix.*at key path \[1\].*None.*dict"):
        tu.tree_broadcast([1, None], [(0, 0), {"a": 0}])


# -- reduce, all_leaves, treedef_is_leaf ----------------------------------------------------------
def test_tree_reduce_takes_none_as_an_initializer():
    # None meant "no initializer": JAX gives (((None, 1), 2), 3)
    assert tu.tree_reduce(lambda a, b: (a, b), [1, [2, 3]], None) == (((None, 1), 2), 3)
    assert tjit.tree.reduce(lambda a, b: (a, b), [1, 2], None) == ((None, 1), 2)
    assert tu.tree_reduce(lambda a, b: a + b, [1, [2, 3]]) == 6
    with pytest.raises(TypeError):
        tu.tree_reduce(lambda a, b: a + b, [])


def test_all_leaves_and_treedef_is_leaf_as_jax():
    # JAX: [False, False, True, False, True]; with is_leaf=(x is None): [T, F, T, F, T]
    cases = [[None], [()], [1, 2], [[1]], []]
    assert [tu.all_leaves(c) for c in cases] == [False, False, True, False, True]
    assert [tu.all_leaves(c, is_leaf=lambda x: x is None) for c in cases] == [
        True, False, True, False, True]
    # an is_leaf that takes the list itself: the elements are not its leaves (JAX: False)
    assert not tu.all_leaves([1, [2]], is_leaf=lambda x: isinstance(x, list))
    # JAX: one node is a leaf structure, None and empty containers included
    assert [tu.treedef_is_leaf(tu.tree_structure(t)) for t in (1, None, (), [], {}, [1])] == [
        True, True, True, True, True, False]


# -- key paths ------------------------------------------------------------------------------------
def test_flattened_index_keys_render_as_jax():
    class Plain:
        def __init__(self, v):
            self.v = v

    tu.register_pytree_node(Plain, lambda p: ((p.v, 2), None), lambda a, c: Plain(c[0]))
    paths = [tu.keystr(p) for p, _ in tu.tree_flatten_with_path([Plain((1,))])[0]]
    assert paths == ["[0][<flat index 0>][0]", "[0][<flat index 1>]"]
    assert tu.keystr((tu.FlattenedIndexKey(2),), simple=True) == "2"


def test_flatten_one_level_containers_as_jax():
    # JAX: a dict's children as a tuple; with keys, a tuple for the built-in nodes and a
    # list for the others (namedtuple, registered classes)
    assert tu.flatten_one_level({"b": 2, "a": [1]}) == (([1], 2), ("a", "b"))
    keyed, _ = tu.flatten_one_level_with_keys([5, 6])
    assert keyed == ((tu.SequenceKey(0), 5), (tu.SequenceKey(1), 6))
    keyed, _ = tu.flatten_one_level_with_keys(tu.Partial(max, 1))
    assert type(keyed) is list


# -- pytrees through transformations --------------------------------------------------------------
def _custom_vjp_with_bwd(bwd_out):
    @tjit.custom_vjp
    def f(a, t):
        return a * t["w"] + t["b"][0]

    f.defvjp(lambda a, t: (f(a, t), (a, t)), lambda res, g: bwd_out(g))
    return f


X = np.arange(6.0, dtype=np.float32).reshape(2, 3)
TREE = {"w": X + 2, "b": (X, X[0])}


@pytest.mark.parametrize("bwd_out, expected", [
    # (JAX: None anywhere in bwd's output is a zero cotangent for that whole subtree)
    (lambda g: (g, None), (1.0, {"w": 0.0, "b": (0.0, 0.0)})),
    (lambda g: (g, {"w": g, "b": None}), (1.0, {"w": 1.0, "b": (0.0, 0.0)})),
    (lambda g: (None, {"w": None, "b": (g, None)}), (0.0, {"w": 0.0, "b": (1.0, 0.0)})),
])
def test_custom_vjp_bwd_none_is_a_zero_for_any_subtree(bwd_out, expected):
    f = _custom_vjp_with_bwd(bwd_out)
    got = tjit.grad(lambda a, t: f(a, t).sum(), argnums=(0, 1))(X, TREE)
    want = tu.tree_map(lambda v, ref: np.full(np.shape(ref), v, np.float32), expected,
                       (X, TREE))
    assert tu.tree_structure(got) == tu.tree_structure(want)
    for g, w in zip(tu.tree_leaves(got), tu.tree_leaves(want)):
        np.testing.assert_array_equal(np.asarray(g), w)


@pytest.mark.parametrize("bwd_out", [
    lambda g: (g, {"w": g, "b": g}),               # an array for the tuple at ['b']
    lambda g: (g, {"w": g, "b": None, "c": g}),    # a key the argument lacks
    lambda g: (g, {"w": g, "b": [g, g[0]]}),       # a list for a tuple
])
def test_custom_vjp_bwd_of_another_structure_is_an_error(bwd_out):
    f = _custom_vjp_with_bwd(bwd_out)
    with pytest.raises(TypeError, match="same container"):
        tjit.grad(lambda a, t: f(a, t).sum(), argnums=(0, 1))(X, TREE)


def test_custom_vjp_residuals_may_be_pytrees_holding_none():
    @tjit.custom_vjp
    def f(a, t):
        return a * t["w"] + t["b"][0]

    def fwd(a, t):
        return f(a, t), (Pt(a, {"w": t["w"]}), [t["b"]])

    def bwd(res, g):
        p, _ = res
        return g * p.y["w"], {"w": g * p.x, "b": (g, None)}

    f.defvjp(fwd, bwd)
    ga, gt = tjit.grad(lambda a, t: f(a, t).sum(), argnums=(0, 1))(
        X, {"w": X + 2, "b": (X, None)})
    np.testing.assert_array_equal(np.asarray(ga), X + 2)
    np.testing.assert_array_equal(np.asarray(gt["w"]), X)
    np.testing.assert_array_equal(np.asarray(gt["b"][0]), np.ones_like(X))
    assert gt["b"][1] is None


@dataclasses.dataclass
class _Params:
    w: object
    b: object
    name: str = dataclasses.field(default="p", metadata=dict(static=True))


tu.register_dataclass(_Params)


def test_grad_of_a_registered_dataclass_keeps_its_static_field():
    p = _Params(jnp.asarray(X), jnp.asarray(X[0]), "layer")
    g = tjit.grad(lambda p: (p.w * 2).sum() + (p.b ** 2).sum())(p)
    assert type(g) is _Params and g.name == "layer"
    np.testing.assert_array_equal(np.asarray(g.w), np.full_like(X, 2))
    np.testing.assert_array_equal(np.asarray(g.b), 2 * X[0])


# -- equal keys of different types (1 == 1.0 == True) ---------------------------------------------
@pytest.mark.parametrize("keys", [(True, 1, 1.0), ((0, True), (0, 1), (0, 1.0))])
def test_dict_keys_equal_by_value_keep_their_own_type(keys):
    # Interned structures made {1: x} flatten to {True: x}'s treedef once {True: x} had been
    # seen: tree_map({1: 0}) returned {True: 0}. Every key keeps its own type now (JAX too,
    # in tree_util), in tree_map, unflatten and jit outputs
    f = tjit.jit(lambda t: t)
    for k in keys + keys:
        out = tu.tree_map(lambda x: x, {k: {k: 1}})
        assert [type(key) for key in out] == [type(k)]
        assert [type(key) for key in out[k]] == [type(k)]
        assert [type(key) for key in f({k: 1.0})] == [type(k)]
    # tjit's structures of differently typed keys are not equal (JAX calls them equal)
    assert tu.tree_structure({keys[0]: 0}) != tu.tree_structure({keys[1]: 0})


def test_dataclass_static_field_keeps_its_type_through_jit():
    p_true, p_one = _Params(1.0, 2.0, True), _Params(1.0, 2.0, 1)
    f = tjit.jit(lambda p: p)
    assert type(f(p_true).name) is bool and type(f(p_one).name) is int
    assert type(tu.tree_map(lambda x: x, p_one).name) is int


def test_tree_broadcast_is_leaf_applies_to_the_prefix_only():
    # the full tree's structure was taken with is_leaf too: broadcast(None, None, is_leaf=
    # (x is None)) raised "too few leaves" (JAX: None)
    assert tjit.tree.broadcast(None, None, is_leaf=lambda s: s is None) is None
    assert tjit.tree.broadcast([1, None], [[2, 3], {"a": None}],
                               is_leaf=lambda s: s is None) == [[1, 1], {"a": None}]


# -- registration -----------------------------------------------------------------------------------
def test_register_dataclass_checks_the_fields_as_jax():
    @dataclasses.dataclass
    class Two:
        a: object
        b: object

    # JAX: "... Missing fields: {'b'}. Add them to drop_fields ..." (tjit registered it,
    # and unflatten failed later with a missing constructor argument)
    with pytest.raises(ValueError, match=r"Missing fields: \{'b'\}.*drop_fields"):
        tu.register_dataclass(Two, data_fields=["a"], meta_fields=[])
    with pytest.raises(ValueError, match=r"Unexpected fields: \{'c'\}"):
        tu.register_dataclass(Two, data_fields=["a", "b", "c"], meta_fields=[])
    with pytest.raises(ValueError, match="must not overlap"):
        tu.register_dataclass(Two, data_fields=["a", "b"], meta_fields=["a"],
                              drop_fields=())
    tu.register_dataclass(Two, data_fields=["a"], meta_fields=[], drop_fields=["b"])


def test_partial_of_a_partial_keeps_the_inner_one_static():
    # JAX: leaves of Partial(Partial(max, 1), 2) are [2] (tjit merged them: [1, 2])
    p = tu.Partial(tu.Partial(max, 1), 2)
    assert tu.tree_leaves(p) == [2]
    assert p(5) == 5 and p(0) == 2 and p.func.args == (1,)
    doubled = tu.tree_map(lambda x: x * 10, p)
    assert doubled(0) == 20 and doubled.func.func is max


def test_walk_folds_leaves_up_the_structure_as_jax():
    td = tu.tree_structure({"b": [1, 2], "a": 3})
    got = td.walk(lambda c, d: ("N", c, d), lambda x: ("L", x), [10, 20, 30])
    assert got == ("N", (("L", 10), ("N", (("L", 20), ("L", 30)), None)), ["a", "b"])


def test_key_arrays_are_leaves_in_the_one_level_views():
    # JAX: flatten_one_level(key) raises "can't tree-flatten type", is_tree_node is False
    # (tjit flattened the key array into its uint32 data)
    key = tjit.random.key(0)
    for one_level in (tu.flatten_one_level, tu.flatten_one_level_with_keys):
        with pytest.raises(ValueError, match="can't tree-flatten type"):
            one_level(key)
    assert not tu.is_tree_node(type(key)) and not tu.default_registry.is_node(type(key))
    assert tu.default_registry.flatten_one_level(key) is None
    assert tu.is_tree_node(dict)
