"""``tjit.flatten_util.ravel_pytree`` against NumPy: the flat vector is the leaves raveled
in tree order, promoted as JAX's lattice says; ``unravel`` rebuilds shapes and dtypes."""

import collections

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.flatten_util import ravel_pytree

Point = collections.namedtuple("Point", "x y")


def _leaves_in_order(tree):
    return [np.asarray(leaf) for leaf in tjit.tree_util.tree_leaves(tree)]


@pytest.mark.parametrize("tree, dtype", [
    ({"w": np.arange(6.0).reshape(2, 3), "b": np.array([7.0, 8.0])}, np.float32),
    ([np.arange(3, dtype=np.int32), np.ones(2, np.float16)], np.float16),  # JAX: i32+f16
    ((np.ones(2, np.int8), np.array([300], np.int16)), np.int16),
    (Point(np.array(True), np.array([2, 3], np.uint8)), np.uint8),
    ([np.array(1 + 2j, np.complex64), 2.0], np.complex64),
    ([np.zeros((0, 3), np.float32), 3.0], np.float32),
])
def test_flat_vector_is_the_raveled_leaves_in_tree_order(tree, dtype):
    flat, unravel = ravel_pytree(tree)
    want = np.concatenate([x.ravel().astype(dtype) for x in _leaves_in_order(tree)])
    assert flat.dtype == dtype and flat.shape == want.shape
    np.testing.assert_array_equal(np.asarray(flat), want)
    back = unravel(flat)
    assert tjit.tree_util.tree_structure(back) == tjit.tree_util.tree_structure(tree)
    for got, leaf in zip(tjit.tree_util.tree_leaves(back), _leaves_in_order(tree)):
        want_dtype = tjit.dtypes.canonicalize_dtype(leaf.dtype)
        assert got.shape == leaf.shape and got.dtype == want_dtype
        np.testing.assert_array_equal(np.asarray(got), leaf.astype(want_dtype))


def test_empty_tree_is_an_empty_float32_vector():
    flat, unravel = ravel_pytree({})
    assert flat.shape == (0,) and flat.dtype == np.float32
    assert unravel(flat) == {}


def test_unravel_of_one_dtype_keeps_the_given_dtype_and_of_several_checks_it():
    _, unravel = ravel_pytree([np.ones(2, np.float32), np.ones(1, np.float32)])
    a, b = unravel(jnp.arange(3, dtype=jnp.int32))          # dtype-polymorphic, as JAX
    assert a.dtype == b.dtype == np.int32 and b.tolist() == [2]
    _, mixed = ravel_pytree([np.ones(2, np.float32), np.ones(1, np.int32)])
    with pytest.raises(TypeError, match="expected dtype float32"):
        mixed(jnp.arange(3, dtype=jnp.int32))


def test_unravel_of_the_wrong_length_names_the_expected_one():
    _, unravel = ravel_pytree([np.ones(2), np.ones(3)])
    with pytest.raises(ValueError, match="length 5"):
        unravel(jnp.ones(4))


def test_unravel_functions_of_one_structure_are_equal_static_arguments():
    _, u1 = ravel_pytree([np.ones(2), np.ones(3)])
    _, u2 = ravel_pytree([np.zeros(2), np.zeros(3)])
    _, u3 = ravel_pytree([np.zeros(3), np.zeros(2)])
    assert u1 == u2 and hash(u1) == hash(u2) and u1 != u3


def test_gradient_through_unravel_matches_finite_differences():
    params = {"w": np.array([[0.5, -1.0], [2.0, 0.25]]), "b": np.array([0.1, -0.3])}
    flat, unravel = ravel_pytree(params)

    def loss(v):
        p = unravel(v)
        return jnp.sum(jnp.tanh(p["w"] @ p["b"]) ** 2)

    def loss_np(v):
        w, b = v[2:].reshape(2, 2), v[:2]           # tree order: "b" before "w"
        return np.sum(np.tanh(w @ b) ** 2)

    v = np.asarray(flat, np.float64)
    eps = 1e-6
    fd = [(loss_np(v + eps * e) - loss_np(v - eps * e)) / (2 * eps) for e in np.eye(v.size)]
    np.testing.assert_allclose(np.asarray(tjit.jit(tjit.grad(loss))(flat)), fd, rtol=1e-4,
                               atol=1e-6)


def test_vmap_of_unravel_matches_a_loop():
    flat, unravel = ravel_pytree([np.ones((2, 2)), np.ones(3)])
    batch = np.arange(4 * 7, dtype=np.float32).reshape(4, 7)
    got = tjit.vmap(lambda v: unravel(v)[0])(batch)
    want = np.stack([row[:4].reshape(2, 2) for row in batch])
    np.testing.assert_array_equal(np.asarray(got), want)
