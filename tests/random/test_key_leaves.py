"""Typed key arrays as JAX ports meet them: a key array is one pytree leaf of the public
tree API (JAX's documented key-array behaviour, JEP 9263), while jit, vmap, scan and
cond still carry keys. References: NumPy on the key data, Python loops."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, random, tree_util


def data(k):
    return np.asarray(random.key_data(k))


def test_key_array_is_one_leaf_of_the_public_tree_api():
    k, ks = random.key(0), random.split(random.key(1), 3)
    tree = {"k": k, "ks": ks, "x": 1.0}
    leaves = tree_util.tree_leaves(tree)
    assert len(leaves) == 3 and leaves[0] is k and leaves[1] is ks and leaves[2] == 1.0
    assert str(tree_util.tree_structure(k)) == "PyTreeDef(*)"
    assert tree_util.treedef_is_leaf(tree_util.tree_structure(ks))
    assert tjit.tree.map(jnp.shape, tree) == {"k": (), "ks": (3,), "x": ()}
    assert tjit.tree_map(lambda a: a, k) is k
    assert tjit.tree.leaves([ks]) == [ks] and tree_util.all_leaves([k, ks])
    flat, treedef = tree_util.tree_flatten(tree)
    assert tree_util.tree_unflatten(treedef, flat)["ks"] is ks
    (path, leaf), = tree_util.tree_leaves_with_path({"key": k})
    assert tree_util.keystr(path) == "['key']" and leaf is k
    # a user is_leaf is combined with, not replacing, the key rule
    assert tree_util.tree_leaves([k, (1, 2)], is_leaf=lambda x: isinstance(x, tuple)) \
        == [k, (1, 2)]
    assert tree_util.tree_broadcast(0, {"a": k, "b": (1.0, 2.0)}) == \
        {"a": 0, "b": (0, 0)}


def test_tree_map_over_keys_inside_jit_and_a_train_state():
    state = {"key": random.key(3), "w": jnp.ones(2)}

    @tjit.jit
    def step(state):
        key, sub = random.split(state["key"])
        new = tjit.tree.map(lambda a: a, state)       # keys pass through as leaves
        new["key"] = key
        new["w"] = state["w"] + random.normal(sub, (2,))
        return new, len(tjit.tree.leaves(state))

    out, n = step(state)
    assert n == 2 and out["key"].dtype == state["key"].dtype
    key, sub = random.split(random.key(3))
    np.testing.assert_array_equal(data(out["key"]), data(key))
    np.testing.assert_allclose(np.asarray(out["w"]),
                               1 + np.asarray(random.normal(sub, (2,))), rtol=1e-6)
    # vmap and lax.map over keys whose leaves the user's tree_map saw as keys
    ks = random.split(random.key(4), 3)
    got = tjit.vmap(lambda k: random.uniform(k))(ks)
    want = [float(random.uniform(ks[i])) for i in range(3)]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    got = lax.map(lambda k: random.uniform(k), ks)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_where_select_at_broadcast_take_copy_on_keys_follow_the_data():
    ks1, ks2 = random.split(random.key(5), 3), random.split(random.key(6), 3)
    d1, d2 = data(ks1), data(ks2)
    c = np.array([True, False, True])
    for got in (jnp.where(jnp.asarray(c), ks1, ks2), lax.select(jnp.asarray(c), ks1, ks2),
                tjit.jit(lambda c, a, b: jnp.where(c, a, b))(jnp.asarray(c), ks1, ks2)):
        assert got.dtype == ks1.dtype and got.shape == (3,)
        np.testing.assert_array_equal(data(got), np.where(c[:, None], d1, d2))
    # a scalar condition and a broadcast key
    np.testing.assert_array_equal(data(jnp.where(False, ks1[0], ks2)),
                                  np.broadcast_to(d2, (3, 2)))
    got = ks1.at[1].set(ks2[2])
    want = d1.copy()
    want[1] = d2[2]
    np.testing.assert_array_equal(data(got), want)
    np.testing.assert_array_equal(data(ks1.at[2].get()), d1[2])
    np.testing.assert_array_equal(data(jnp.broadcast_to(ks1[0], (2, 2))),
                                  np.broadcast_to(d1[0], (2, 2, 2)))
    np.testing.assert_array_equal(data(jnp.take(ks1, jnp.array([2, 0]))), d1[[2, 0]])
    grid = jnp.stack([ks1, ks2])
    np.testing.assert_array_equal(data(jnp.take(grid, jnp.array([1]), axis=1)),
                                  np.stack([d1, d2])[:, [1]])
    assert jnp.asarray(ks1) is ks1 and jnp.copy(ks1).dtype == ks1.dtype
    np.testing.assert_array_equal(data(jnp.array(ks1)), d1)


def test_key_operations_that_jax_refuses_raise_naming_the_fix():
    ks = random.split(random.key(0), 2)
    with pytest.raises(TypeError, match="only .get"):
        ks.at[0].add(ks[1])
    with pytest.raises(TypeError, match="cannot mix key arrays"):
        jnp.where(True, ks, jnp.zeros((2,), jnp.uint32))
    with pytest.raises(TypeError, match="lax.select: pred must be"):
        lax.select(jnp.array([True, False, True]), ks, ks)
    with pytest.raises(TypeError, match="key_data"):
        jnp.asarray(ks, dtype=jnp.uint32)


def test_typeof_shape_dtype_struct_and_eval_shape_of_keys():
    ks = random.split(random.key(0), 2)
    # JAX 0.10.2 documents these reprs: ShapedArray(key<fry>[2]), str key<fry>[2]
    assert repr(tjit.typeof(ks)) == "ShapedArray(key<fry>[2])"
    assert str(tjit.typeof(ks[0])) == "key<fry>[]" and tjit.typeof(ks).dtype == ks.dtype
    sds = tjit.ShapeDtypeStruct((3,), ks.dtype)
    assert repr(sds) == "ShapeDtypeStruct(shape=(3,), dtype=key<fry>)"
    assert tjit.eval_shape(lambda k: random.split(k, 3), ks[0]) == sds
    out = tjit.eval_shape(lambda k: (random.split(k, 3), random.normal(k, (2,))),
                          tjit.ShapeDtypeStruct((), ks.dtype))
    assert out == (sds, tjit.ShapeDtypeStruct((2,), jnp.float32))
    seen = []
    tjit.jit(lambda k: seen.append(repr(k)) or k)(ks[0])
    assert seen[0] == "JitTracer(key<fry>[])"  # JAX 0.10.2 prints this


def test_zeros_like_of_keys_and_a_tree_map_over_a_state_with_keys():
    ks = random.split(random.key(3), 2)
    # JAX 0.10.2: zeros_like/ones_like/full_like of keys are keys with constant data
    for f, fill in [(jnp.zeros_like, 0), (jnp.ones_like, 1), (jnp.empty_like, 0),
                    (lambda k: jnp.full_like(k, 7), 7)]:
        got = f(ks)
        assert got.dtype == ks.dtype and got.shape == (2,)
        np.testing.assert_array_equal(data(got), np.full((2, 2), fill, np.uint32))
    assert jnp.zeros_like(ks, shape=(3,)).shape == (3,)
    zeros = tjit.tree.map(jnp.zeros_like, {"k": ks, "w": jnp.ones(2)})
    assert zeros["k"].dtype == ks.dtype and not np.asarray(zeros["w"]).any()


def test_default_registry_sees_a_key_array_as_a_leaf():
    ks = random.split(random.key(0), 2)
    leaves, treedef = tree_util.default_registry.flatten({"k": ks})
    assert len(leaves) == 1 and leaves[0] is ks and treedef.num_leaves == 1
    assert tree_util.default_registry.flatten_one_level(ks) is None
    children, _ = tree_util.default_registry.flatten_one_level((ks,))
    assert list(children)[0] is ks


def test_key_structs_through_make_jaxpr_trace_and_lower():
    key = random.key(0)
    spec = tjit.ShapeDtypeStruct((), key.dtype)
    _, shapes = tjit.make_jaxpr(lambda k: random.split(k), return_shape=True)(spec)
    assert shapes == tjit.ShapeDtypeStruct((2,), key.dtype)
    assert tjit.jit(lambda k: (k, random.uniform(k))).trace(spec).out_info == (
        spec, tjit.ShapeDtypeStruct((), jnp.float32))
    compiled = tjit.jit(lambda k: random.normal(k, (2,))).lower(spec).compile()
    np.testing.assert_array_equal(np.asarray(compiled(key)),
                                  np.asarray(random.normal(key, (2,))))
