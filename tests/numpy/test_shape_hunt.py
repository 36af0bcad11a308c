"""Regressions from the array creation/manipulation differential hunt
(benchmarks/diff_numpy_shape.py), each checked against NumPy: eager and under jit."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


@pytest.mark.parametrize("cond, axis", [
    ([False, False, True, True, False], None),  # longer than the flattened (1, 4) array
    ([True, False, True, False, False, False], 0),
    ([False, True, True, False, False], 1),
    ([True, False], 1),  # shorter: the array is cut to its length
])
def test_compress_condition_longer_than_axis_with_false_tail(cond, axis):
    a = np.arange(12).reshape(3, 4) if axis is not None else np.arange(4).reshape(1, 4)
    cond = np.asarray(cond)
    want = np.compress(cond, a, axis=axis)
    np.testing.assert_array_equal(jnp.compress(cond, a, axis=axis), want)
    size = want.shape[0 if axis is None else axis]
    got = tjit.jit(lambda c, x: jnp.compress(c, x, axis=axis, size=size))(cond, a)
    np.testing.assert_array_equal(got, want)


def test_compress_condition_true_past_the_axis_is_an_error():
    with pytest.raises(IndexError, match="compress.*length 5.*size 4"):
        jnp.compress(np.array([False, False, True, True, True]), np.arange(4))


def test_ravel_multi_index_of_no_dims_is_zero():
    # NumPy: the flat index of the single element of a 0-d array; tjit crashed in reduce()
    got = jnp.ravel_multi_index((), ())
    assert got.shape == () and int(got) == np.ravel_multi_index((), ()) == 0


# JAX promotes the leaves of a list with its own rules, Python scalars weak (NumPy's
# value-based rules give float64/int64 for the first three). References: JAX 0.10.2.
@pytest.mark.parametrize("leaves, want", [
    ([np.float32(1), 2], np.float32),
    ([np.int8(1), 2], np.int8),
    ([[np.uint8(250)], [7]], np.uint8),
    ([np.array(1.5, np.float32), np.array(2, np.int64)], np.float32),  # JAX: i64 + f32 = f32
    ([np.float32(1), 2.5, True], np.float32),
    ([[1, 2], np.array([3, 4], np.int16)], np.int16),
])
def test_array_of_list_with_numpy_leaves_promotes_as_jax(leaves, want):
    got = jnp.array(leaves)
    assert got.dtype == want and not got.weak_type
    np.testing.assert_array_equal(got, np.array(leaves).astype(want))
    assert jnp.asarray(leaves).dtype == want


def test_array_of_list_with_numpy_leaf_refuses_out_of_range_python_int():
    with pytest.raises(OverflowError, match="-7.*uint8"):
        jnp.array([np.uint8(250), -7])


# JAX takes insert positions (and delete positions with assume_unique_indices=True)
# that are known only at run time; tjit raised ConcretizationTypeError. References: NumPy.
A34 = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("i", [0, 2, 3, -1, -3])
@pytest.mark.parametrize("vals, axis", [
    (5.0, 1), (np.array([7., 8., 9.]), 1), (np.array([[7.], [8.], [9.]]), 1),
    (np.array([1., 2., 3., 4.]), 0), (9., None)])
def test_insert_at_traced_scalar_position(i, vals, axis):
    got = tjit.jit(lambda a, i: jnp.insert(a, i, vals, axis=axis))(A34, np.int64(i))
    want = np.insert(A34, i, vals, axis=axis)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("idx", [[0, 2], [3, 1, 3], [-1, 0], [4, 4], []])
@pytest.mark.parametrize("axis", [1, None])
def test_insert_at_traced_positions(idx, axis):
    vals = np.arange(len(idx)) + 100.
    got = tjit.jit(lambda a, i: jnp.insert(a, i, vals, axis=axis))(A34, np.array(idx, np.int64))
    np.testing.assert_array_equal(got, np.insert(A34, idx, vals, axis=axis))


def test_insert_traced_position_out_of_range_is_clipped_as_in_jax():
    # JAX 0.10.2: jnp.insert(jnp.arange(4), 10, -1) under jit appends, -10 prepends
    f = tjit.jit(lambda i: jnp.insert(jnp.arange(4), i, -1))
    np.testing.assert_array_equal(f(10), [0, 1, 2, 3, -1])
    np.testing.assert_array_equal(f(-10), [-1, 0, 1, 2, 3])
    got = tjit.vmap(lambda i: jnp.insert(jnp.arange(4), i, -1))(np.array([0, 2, 4]))
    np.testing.assert_array_equal(got, [np.insert(np.arange(4), i, -1) for i in (0, 2, 4)])


@pytest.mark.parametrize("idx", [[0], [2, 1], [-1, 0], [0, 1, 2], []])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_delete_traced_unique_positions(idx, axis):
    f = tjit.jit(lambda a, i: jnp.delete(a, i, axis=axis, assume_unique_indices=True))
    got = f(A34, np.array(idx, dtype=np.int64))
    np.testing.assert_array_equal(got, np.delete(A34, idx, axis=axis))
    got = tjit.vmap(lambda i: jnp.delete(jnp.arange(4), i, assume_unique_indices=True))(
        np.array([[0, 2], [3, 1]]))
    np.testing.assert_array_equal(got, [[1, 3], [0, 2]])


def test_insert_into_no_slots_refuses_several_values():
    # NumPy (and JAX) raise: 2 values cannot fill the 0 slots an empty slice selects;
    # tjit returned the array unchanged. One value broadcasts to nothing.
    with pytest.raises(Exception, match=r"\(2,\).*\(0,\)"):
        jnp.insert(np.zeros((1, 0)), slice(1, None, 2), np.array([1.0, 2.0]))
    np.testing.assert_array_equal(jnp.insert(np.arange(3), slice(5, None), 9),
                                  np.insert(np.arange(3), slice(5, None), 9))
