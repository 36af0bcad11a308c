"""jit's per-call fast paths for pytree arguments (the last argument structure checked
leaf by leaf; the precomputed output unflattener) and the tree_util helpers behind them
(``flatten_as``, ``unflattener``): every call that changes the structure, an aval, the
weak type or the leaf kind must take the full path and get the same results as NumPy
in float64, with the trace counts of a jit without the fast path."""

import collections
import itertools
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.tracing.tree_matchers import flatten_as, flattener, unflattener
from tjit.tracing.tree_util import register_pytree_node, tree_flatten, tree_unflatten

Point = collections.namedtuple("Point", "x y")


class Box:
    def __init__(self, v, tag):
        self.v, self.tag = v, tag


register_pytree_node(Box, lambda b: ((b.v,), b.tag), lambda tag, ch: Box(ch[0], tag))

TREES = [
    1.0,
    (1.0,),
    [1.0, (2.0, 3.0)],
    {"b": [1.0, None], "a": (2.0,), "c": {"z": 3.0, "y": Point(4.0, [5.0])}},
    ({"w": 1.0}, [Box(2.0, "t")], None, ()),
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_flatten_as_agrees_with_tree_flatten(tree):
    leaves, treedef = tree_flatten(tree)
    generated = flattener(treedef)
    for flat in (lambda t: flatten_as(treedef, t), generated):
        assert flat(tree) == leaves
        # a structure that differs anywhere is refused
        for other in TREES:
            other_leaves, other_def = tree_flatten(other)
            got = flat(other)
            assert (got == other_leaves) if other_def == treedef else got is None


@pytest.mark.parametrize("changed", [
    {"b": [1.0, None], "a": (2.0,), "c": {"z": 3.0, "x": Point(4.0, [5.0])}},   # key
    {"b": [1.0, None], "a": [2.0], "c": {"z": 3.0, "y": Point(4.0, [5.0])}},   # tuple->list
    {"b": [1.0, 7.0], "a": (2.0,), "c": {"z": 3.0, "y": Point(4.0, [5.0])}},   # None->leaf
    {"b": [1.0, None], "a": (2.0,), "c": {"z": 3.0, "y": (4.0, [5.0])}},   # namedtuple
    {"b": [1.0, None], "a": (2.0,), "c": {"z": 3.0, "y": Point(4.0, [5.0, 6.0])}},
    {"b": [1.0, None], "a": (2.0,), "c": {"z": [3.0], "y": Point(4.0, [5.0])}},  # leaf->node
])
def test_flatten_as_refuses_changed_structure(changed):
    _, treedef = tree_flatten(TREES[3])
    assert flatten_as(treedef, changed) is None
    assert flattener(treedef)(changed) is None


def test_flatten_as_checks_registered_aux():
    _, treedef = tree_flatten([Box(1.0, "t")])
    assert flatten_as(treedef, [Box(2.0, "t")]) == [2.0]
    assert flatten_as(treedef, [Box(2.0, "u")]) is None


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_unflattener_agrees_with_tree_unflatten(tree):
    leaves, treedef = tree_flatten(tree)
    new = [f"leaf{i}" for i in range(len(leaves))]
    got, want = unflattener(treedef)(new), tree_unflatten(treedef, new)
    assert tree_flatten(got) == tree_flatten(want)
    assert type(got) is type(want)


def _params(rng, sizes=(3, 4, 2)):
    return [(rng.standard_normal((m, n)).astype(np.float32),
             rng.standard_normal(n).astype(np.float32)) for m, n in itertools.pairwise(sizes)]


def _np_forward(params, x):
    h = np.asarray(x, np.float64)
    for w, b in params:
        h = np.tanh(h @ np.asarray(w, np.float64) + np.asarray(b, np.float64))
    return h


def _forward(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return {"out": h, "n": [len(params)]}


def test_pytree_calls_take_fast_path_and_stay_correct():
    rng = np.random.default_rng(0)
    f = tjit.jit(_forward, dynamic_shapes=False)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    params = _params(rng)
    jp = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params]
    for _ in range(3):   # same structure and avals: one trace, same numbers
        out = f(jp, jnp.asarray(x))
        assert set(out) == {"out", "n"} and isinstance(out["n"], list)
        np.testing.assert_allclose(np.asarray(out["out"]), _np_forward(params, x),
                                   rtol=1e-5, atol=1e-6)
    assert f.trace_count == 1
    # new values, same avals: still no trace, new numbers
    params2 = _params(np.random.default_rng(1))
    jp2 = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params2]
    np.testing.assert_allclose(np.asarray(f(jp2, jnp.asarray(x))["out"]),
                               _np_forward(params2, x), rtol=1e-5, atol=1e-6)
    assert f.trace_count == 1
    # tuple of tuples instead of a list: another structure, another trace
    np.testing.assert_allclose(np.asarray(f(tuple(jp2), jnp.asarray(x))["out"]),
                               _np_forward(params2, x), rtol=1e-5, atol=1e-6)
    assert f.trace_count == 2
    # back to the list: served from the cache, no trace
    f(jp2, jnp.asarray(x))
    assert f.trace_count == 2


def test_fast_path_rechecks_avals_weak_types_and_leaf_kinds():
    f = tjit.jit(lambda t: {"s": t["a"] * 2, "d": t["b"] + t["a"].sum()},
                 dynamic_shapes=False)
    a, b = np.arange(3, dtype=np.float32), np.ones(2, np.float32)
    f({"a": jnp.asarray(a), "b": jnp.asarray(b)})
    assert f.trace_count == 1
    # another shape
    a4 = np.arange(4, dtype=np.float32)
    out = f({"a": jnp.asarray(a4), "b": jnp.asarray(b)})
    np.testing.assert_allclose(np.asarray(out["d"]), b + a4.sum())
    assert f.trace_count == 2
    # another dtype
    out = f({"a": jnp.asarray(a.astype(np.int32)), "b": jnp.asarray(b)})
    assert out["s"].dtype == np.int32 and f.trace_count == 3
    np.testing.assert_array_equal(np.asarray(out["s"]), a.astype(np.int32) * 2)
    # a weak-typed leaf (a Python scalar made an Array) traces separately
    f({"a": jnp.asarray(a), "b": jnp.asarray(b)})
    n = f.trace_count
    out = f({"a": jnp.asarray(a), "b": jnp.asarray(1.0)})
    assert f.trace_count == n + 1
    np.testing.assert_allclose(np.asarray(out["d"]), 1.0 + a.sum())
    # NumPy leaves in place of Arrays: the full path, right numbers, no new trace
    f({"a": jnp.asarray(a), "b": jnp.asarray(b)})
    n = f.trace_count
    out = f({"a": a, "b": b})
    np.testing.assert_allclose(np.asarray(out["s"]), a * 2)
    assert f.trace_count == n


def test_fast_path_respects_config_change_and_clear_cache():
    from tjit.config import config
    f = tjit.jit(lambda t: t[0] + t[1])
    t = (jnp.ones(2), jnp.ones(2))
    f(t)
    f(t)
    f.clear_cache()
    np.testing.assert_allclose(np.asarray(f(t)), [2.0, 2.0])
    assert f.trace_count == 2
    f(t)
    old = config.enable_x64
    try:   # a compiled-in option changed: the same structure traces again
        config.update("enable_x64", not old)
        f(t)
        assert f.trace_count == 3
    finally:
        config.update("enable_x64", old)


def test_donated_pytree_leaves_deleted_on_fast_path():
    g = tjit.jit(lambda p: [(w + 1.0, b * 2.0) for w, b in p], donate_argnums=0)
    for i in range(3):   # the second and third calls take the fast path
        p = [(jnp.asarray(np.full(4, float(i), np.float32)),
              jnp.asarray(np.ones(4, np.float32)))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = g(p)
        np.testing.assert_allclose(np.asarray(out[0][0]), np.full(4, i + 1.0))
        np.testing.assert_allclose(np.asarray(out[0][1]), np.full(4, 2.0))
        assert p[0][0].is_deleted() and p[0][1].is_deleted()
    assert g.trace_count == 1


def test_bare_int_static_argnums_keeps_calls_off_the_fast_path():
    # static_argnums=0 is falsy, yet argument 0 is static: a later call that leaves it
    # out must not be served the program compiled with n=2 baked in
    f = tjit.jit(lambda n, x: x * n, static_argnums=0)
    x = jnp.ones(2)
    np.testing.assert_array_equal(np.asarray(f(2, x)), np.full(2, 2.0, np.float32))
    np.testing.assert_array_equal(np.asarray(f(3, x)), np.full(2, 3.0, np.float32))
    with pytest.raises(ValueError, match="static argument 'n' must be hashable"):
        f(x)
