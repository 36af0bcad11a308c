"""Key paths of pytrees (tree_flatten_with_path, keystr, the key classes,
register_pytree_with_keys) and the ``tjit.tree`` namespace, against JAX's documented
formats and an independent oracle: following each path into the tree by indexing /
getattr must reach exactly that leaf."""

import collections
import dataclasses
import functools
import operator

import pytest
from hypothesis import given, strategies as st

import tjit
from tjit import tree_util as tu
from tjit.tree_util import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey, keystr

Point = collections.namedtuple("Point", "x y")


@tu.register_pytree_node_class
class _Pair:  # registered WITHOUT keys: children get FlattenedIndexKey
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, ch):
        return cls(*ch)


@tu.register_pytree_with_keys_class
class _Named:  # registered WITH keys
    def __init__(self, w, b):
        self.w, self.b = w, b

    def tree_flatten_with_keys(self):
        return [(GetAttrKey("w"), self.w), (DictKey("bias"), self.b)], "meta"

    @classmethod
    def tree_unflatten(cls, aux, ch):
        assert aux == "meta"
        return cls(*ch)


@dataclasses.dataclass
class _DC:
    p: object
    q: object
    tag: str = "t"


tu.register_dataclass(_DC, data_fields=["p", "q"], meta_fields=["tag"])


def _follow(tree, path):
    """The independent oracle: walk ``path`` into ``tree`` with indexing/getattr."""
    for k in path:
        if isinstance(k, SequenceKey):
            tree = tree[k.idx]
        elif isinstance(k, DictKey):
            tree = tree.b if isinstance(tree, _Named) else tree[k.key]
        elif isinstance(k, GetAttrKey):
            tree = getattr(tree, k.name)
        elif isinstance(k, FlattenedIndexKey):
            tree = tree.tree_flatten()[0][k.key]
        else:
            raise AssertionError(k)
    return tree


# -- JAX's documented outputs ----------------------------------------------------------------
def test_flatten_with_path_doc_example():
    path_vals, treedef = tu.tree_flatten_with_path([1, {"x": 3}])
    assert path_vals == [((SequenceKey(0),), 1), ((SequenceKey(1), DictKey("x")), 3)]
    assert repr(path_vals) == ("[((SequenceKey(idx=0),), 1), "
                               "((SequenceKey(idx=1), DictKey(key='x')), 3)]")
    assert treedef == tu.tree_structure([1, {"x": 3}])


def test_keystr_doc_example():
    params = {"foo": {"bar": {"baz": 1, "bat": [2, 3]}}}
    paths = [p for p, _ in tu.tree_leaves_with_path(params)]
    assert [keystr(p) for p in paths] == [
        "['foo']['bar']['bat'][0]", "['foo']['bar']['bat'][1]", "['foo']['bar']['baz']"]
    assert [keystr(p, simple=True, separator="/") for p in paths] == [
        "foo/bar/bat/0", "foo/bar/bat/1", "foo/bar/baz"]


def test_key_rendering():
    assert keystr((DictKey("a"), SequenceKey(0))) == "['a'][0]"
    assert str(GetAttrKey("name")) == ".name"
    assert str(FlattenedIndexKey(3)) == "[<flat index 3>]"   # (JAX's rendering)
    assert str(DictKey(1)) == "[1]" and str(DictKey("1")) == "['1']"
    assert keystr(()) == ""
    assert keystr((GetAttrKey("w"), DictKey("k")), simple=True, separator=".") == "w.k"
    assert repr(GetAttrKey("x")) == "GetAttrKey(name='x')"
    assert repr(FlattenedIndexKey(2)) == "FlattenedIndexKey(key=2)"


def test_keys_hashable_comparable_immutable():
    assert DictKey("a") == DictKey("a") and DictKey("a") != DictKey("b")
    assert SequenceKey(0) != FlattenedIndexKey(0)  # same value, different kind
    assert len({DictKey("a"), DictKey("a"), SequenceKey(0)}) == 2
    with pytest.raises(AttributeError, match="immutable"):
        SequenceKey(0).idx = 1
    match GetAttrKey("w"):  # __match_args__, as JAX's keys
        case GetAttrKey(name):
            assert name == "w"


# -- node kinds ------------------------------------------------------------------------------
CASES = [
    (None, []),
    ((), []),
    (5, [()]),
    ([1, None, (2,)], [(SequenceKey(0),), (SequenceKey(2), SequenceKey(0))]),
    ({"b": 1, "a": 2}, [(DictKey("a"),), (DictKey("b"),)]),  # sorted, like the leaves
    (collections.OrderedDict([("z", 1), ("a", 2)]), [(DictKey("z"),), (DictKey("a"),)]),
    (collections.defaultdict(int, {"q": 1, "p": 2}), [(DictKey("p"),), (DictKey("q"),)]),
    (Point(1, (2, 3)), [(GetAttrKey("x"),), (GetAttrKey("y"), SequenceKey(0)),
                        (GetAttrKey("y"), SequenceKey(1))]),
    (_Pair(1, [2]), [(FlattenedIndexKey(0),), (FlattenedIndexKey(1), SequenceKey(0))]),
    (_Named(1, 2), [(GetAttrKey("w"),), (DictKey("bias"),)]),
    (_DC(1, {"k": 2}), [(GetAttrKey("p"),), (GetAttrKey("q"), DictKey("k"))]),
]


@pytest.mark.parametrize("tree,want", CASES, ids=lambda v: type(v).__name__)
def test_paths_per_node_kind(tree, want):
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert [p for p, _ in pairs] == want
    assert [x for _, x in pairs] == tu.tree_leaves(tree)
    assert treedef == tu.tree_structure(tree)
    for p, x in pairs:
        assert _follow(tree, p) is x


def test_partial_paths():
    p = tu.Partial(operator.add, 1.0)
    pairs = tu.tree_leaves_with_path(p)
    assert pairs == [((FlattenedIndexKey(0), SequenceKey(0)), 1.0)]


def test_is_leaf_stops_descent():
    tree = {"a": (1, 2), "b": [3]}
    pairs, treedef = tu.tree_flatten_with_path(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert pairs == [((DictKey("a"),), (1, 2)), ((DictKey("b"), SequenceKey(0)), 3)]
    assert treedef == tu.tree_structure(tree, is_leaf=lambda x: isinstance(x, tuple))


def test_tree_map_with_path_multiple_trees():
    tree = {"w": [1, 2], "b": 3}
    out = tu.tree_map_with_path(lambda p, x, y: (keystr(p), x + y), tree,
                                {"w": [10, 20], "b": 30})
    assert out == {"w": [("['w'][0]", 11), ("['w'][1]", 22)], "b": ("['b']", 33)}
    with pytest.raises(ValueError, match="mismatch"):
        tu.tree_map_with_path(lambda p, x, y: x, tree, {"w": (1, 2), "b": 3})


leaves_st = st.integers(-5, 5)
trees_st = st.recursive(
    leaves_st | st.none(),
    lambda ch: (st.lists(ch, max_size=3) | st.tuples(ch, ch)
                | st.dictionaries(st.sampled_from("abcd"), ch, max_size=3)
                | st.builds(Point, ch, ch) | st.builds(_Pair, ch, ch)),
    max_leaves=12)


@given(trees_st)
def test_paths_reach_their_leaves(tree):
    tree = tu.tree_map(lambda _: object(), tree)  # distinct leaves: `is` pins the position
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert [x for _, x in pairs] == tu.tree_leaves(tree)
    assert treedef == tu.tree_structure(tree)
    assert len({p for p, _ in pairs}) == len(pairs)  # paths are distinct
    for p, x in pairs:
        assert _follow(tree, p) is x
    rebuilt = tu.tree_map_with_path(lambda p, x: keystr(p), tree)
    assert tu.tree_leaves(rebuilt) == [keystr(p) for p, _ in pairs]


# -- registration ----------------------------------------------------------------------------
def test_register_pytree_with_keys_function_form():
    class Lin:
        def __init__(self, w, b):
            self.w, self.b = w, b

    tu.register_pytree_with_keys(
        Lin, lambda o: ([(GetAttrKey("w"), o.w), (GetAttrKey("b"), o.b)], None),
        lambda aux, ch: Lin(*ch))
    pairs = tu.tree_leaves_with_path({"lin": Lin(1.0, [2.0])})
    assert [keystr(p) for p, _ in pairs] == ["['lin'].w", "['lin'].b[0]"]
    out = tu.tree_map(lambda x: x * 2, Lin(1.0, [2.0]))
    assert (out.w, out.b) == (2.0, [4.0])


def test_registering_a_type_twice_is_an_error():
    # JAX: "Duplicate custom PyTreeDef type registration" (tjit replaced the first one)
    class Node:
        def __init__(self, v):
            self.v = v

    tu.register_pytree_with_keys(Node, lambda o: ([(GetAttrKey("v"), o.v)], None),
                                 lambda aux, ch: Node(*ch))
    assert tu.tree_leaves_with_path(Node(1))[0][0] == (GetAttrKey("v"),)
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration"):
        tu.register_pytree_node(Node, lambda o: ((o.v,), None), lambda aux, ch: Node(*ch))
    assert tu.tree_leaves_with_path(Node(1))[0][0] == (GetAttrKey("v"),)
    with pytest.raises(ValueError, match="Duplicate"):
        tu.register_pytree_node(list, lambda o: ((), None), lambda aux, ch: [])
    assert tu.tree_leaves([1, [2]]) == [1, 2]


def test_bad_flatten_with_keys_is_reported():
    class Bad:
        pass

    tu.register_pytree_with_keys(Bad, lambda o: ([1, 2], None), lambda aux, ch: Bad(),
                                 flatten_func=lambda o: ([1, 2], None))
    with pytest.raises(ValueError, match=r"Bad must return \(\[\(key, child\)"):
        tu.tree_flatten_with_path(Bad())

    class Inconsistent:
        pass

    tu.register_pytree_with_keys(Inconsistent, lambda o: ([(GetAttrKey("a"), 1)], None),
                                 lambda aux, ch: Inconsistent(),
                                 flatten_func=lambda o: ([1, 2], None))
    with pytest.raises(ValueError, match="1 leaves but flatten gives 2"):
        tu.tree_flatten_with_path(Inconsistent())


# -- tjit.tree namespace ---------------------------------------------------------------------
def test_tree_namespace_matches_tree_util():
    tree = {"a": [1, 2], "b": (3, None), "c": Point(4, 5)}
    assert tjit.tree.leaves(tree) == [1, 2, 3, 4, 5]
    leaves, td = tjit.tree.flatten(tree)
    assert td == tjit.tree.structure(tree) and tjit.tree.unflatten(td, leaves) == tree
    assert tjit.tree.map(lambda x, y: x * y, tree, tree) == {
        "a": [1, 4], "b": (9, None), "c": Point(16, 25)}
    assert tjit.tree.reduce(operator.add, tree) == 15
    assert tjit.tree.reduce(operator.add, tree, 100) == 115
    # an explicit None initializer is a value, not "no initializer" (jax.tree.reduce)
    assert tjit.tree.reduce(lambda acc, x: (acc, x), [1, 2], None) == ((None, 1), 2)
    assert tjit.tree.all([True, (1, {"k": 2})]) and not tjit.tree.all([1, 0])
    assert tjit.tree.all([[0], 1], is_leaf=lambda x: isinstance(x, list) and x == [0])
    assert tjit.tree.flatten_with_path(tree) == tu.tree_flatten_with_path(tree)
    assert tjit.tree.leaves_with_path(tree) == tu.tree_leaves_with_path(tree)
    assert tjit.tree.map_with_path(lambda p, x: keystr(p), {"a": [0]}) == {"a": ["['a'][0]"]}


def test_tree_transpose():
    outer = tjit.tree.structure([0, 0, 0])
    inner = tjit.tree.structure({"m": 0, "v": 0})
    x = [{"m": 1, "v": 2}, {"m": 3, "v": 4}, {"m": 5, "v": 6}]
    want = {"m": [1, 3, 5], "v": [2, 4, 6]}
    assert tjit.tree.transpose(outer, inner, x) == want
    assert tjit.tree.transpose(outer, None, x) == want  # inner structure inferred
    with pytest.raises(ValueError, match="inner_treedef=None"):
        tjit.tree.transpose(tjit.tree.structure([]), None, [])


def test_tree_util_importable_as_module():
    import tjit.tree_util as mod
    assert mod is tjit.tree_util
    assert mod.tree_flatten_with_path is tu.tree_flatten_with_path
    assert functools.reduce(operator.add, mod.tree_leaves([1, [2]])) == 3
