"""lax.split, collapse, broadcast_shapes, empty, index_take (against NumPy), the identity
annotations optimization_barrier and with_sharding_constraint (values, grad, vmap, the
sharding checks), and platform_dependent's branch choice per backend."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.sharding import NamedSharding, P

X = np.arange(24.0).reshape(2, 3, 4)


def test_split_matches_numpy_and_differentiates():
    parts = lax.split(X, [1, 3], axis=2)
    for got, want in zip(parts, np.split(X, [1], axis=2)):
        np.testing.assert_array_equal(np.asarray(got), want)
    assert [p.shape for p in lax.split(X, (0, 2), axis=-3)] == [(0, 3, 4), (2, 3, 4)]
    g = tjit.grad(lambda x: jnp.sum(lax.split(x, [2, 2], 2)[1] * 3.0))(X)
    np.testing.assert_array_equal(np.asarray(g), np.where(np.arange(4) >= 2, 3.0, 0.0)
                                  * np.ones_like(X))
    with pytest.raises(ValueError, match=r"sizes \(1, 2\) must .* add up to the size 4"):
        lax.split(X, [1, 2], axis=2)


def test_collapse_broadcast_shapes_and_empty():
    assert lax.collapse(X, 0, 2).shape == (6, 4)
    assert lax.collapse(X, 1).shape == (2, 12)
    np.testing.assert_array_equal(np.asarray(lax.collapse(X, -2)), X.reshape(2, 12))
    with pytest.raises(ValueError, match="Invalid dimension range passed to collapse"):
        lax.collapse(X, 2, 1)
    assert lax.broadcast_shapes((3, 1), (1, 4), (5, 1, 1)) == (5, 3, 4)
    assert lax.broadcast_shapes((2,)) == (2,)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        lax.broadcast_shapes((3, 1), (4, 1))
    e = lax.empty((2, 3), jnp.int16)
    assert e.shape == (2, 3) and e.dtype == jnp.int16
    assert lax.empty(4, jnp.float32).shape == (4,)


def test_index_take_gathers_points_with_wrapping():
    rows, cols = np.array([0, -1, 1]), np.array([3, 0, -2])
    got = lax.index_take(X, (rows, cols), (1, 2))
    np.testing.assert_array_equal(np.asarray(got), np.moveaxis(X[:, rows, cols], 1, 0))
    got = tjit.jit(lambda x: lax.index_take(x, (jnp.asarray([1, 0]),), (0,)))(X)
    np.testing.assert_array_equal(np.asarray(got), X[[1, 0]])
    with pytest.raises(ValueError, match="one index array per axis"):
        lax.index_take(X, (rows,), (1, 2))


def test_optimization_barrier_is_the_identity_under_transformations():
    tree = {"a": X, "b": (1.0, np.int32(3))}
    out = lax.optimization_barrier(tree)
    np.testing.assert_array_equal(np.asarray(out["a"]), X)
    assert float(out["b"][0]) == 1.0 and int(out["b"][1]) == 3
    g = tjit.jit(tjit.grad(lambda x: jnp.sum(lax.optimization_barrier(jnp.sin(x)) ** 2)))(X)
    np.testing.assert_allclose(np.asarray(g), 2 * np.sin(X) * np.cos(X), rtol=1e-5, atol=1e-6)
    v = tjit.vmap(lambda x: lax.optimization_barrier((x * 2, x)))(X)
    np.testing.assert_array_equal(np.asarray(v[0]), 2 * X)


def test_with_sharding_constraint_returns_values_and_checks_shardings():
    mesh = tjit.make_mesh((1,), ("i",))
    f = tjit.jit(lambda x: lax.with_sharding_constraint(x * 2, NamedSharding(mesh, P("i"))))
    np.testing.assert_array_equal(np.asarray(f(X)), 2 * X)
    g = tjit.grad(lambda x: jnp.sum(lax.with_sharding_constraint(
        x, NamedSharding(mesh, P(None, "i"))) ** 2))(X)
    np.testing.assert_array_equal(np.asarray(g), 2 * X)
    with mesh:  # PartitionSpecs need a mesh; a prefix tree gives one per subtree
        out = lax.with_sharding_constraint({"a": X, "b": (X, X)}, {"a": P("i"), "b": P()})
        assert out["b"][1].shape == X.shape
    assert lax.with_sharding_constraint(X, jnp.asarray(X).sharding).shape == X.shape
    with pytest.raises(ValueError, match="needs a mesh"):
        lax.with_sharding_constraint(X, P("i"))
    with pytest.raises(ValueError, match="has 4 entries but the array has rank 3"):
        lax.with_sharding_constraint(X, NamedSharding(mesh, P("i", None, None, None)))
    with pytest.raises(ValueError, match="names mesh axis 'j'"), mesh:
        lax.with_sharding_constraint(X, P("j"))
    with pytest.raises(ValueError, match="not allowed"):
        lax.with_sharding_constraint(X, None)
    with pytest.raises(ValueError, match="prefix"):
        lax.with_sharding_constraint((X, X), (P(), P(), P()))


def _branches(x):
    return lax.platform_dependent(x, cpu=lambda x: x + 1.0, cuda=lambda x: x + 2.0,
                                  default=lambda x: x - 1.0)


def test_platform_dependent_picks_the_branch_of_the_backend():
    assert tjit.default_backend() == "cpu"
    assert float(_branches(1.0)) == 2.0  # eager: the default backend
    assert float(tjit.jit(_branches)(1.0)) == 2.0
    assert float(tjit.jit(_branches, backend="interpreter")(1.0)) == 2.0  # runs on the host
    # no branch for cpu: the default; neither: a clear error
    assert float(lax.platform_dependent(1.0, tpu=lambda x: x, default=lambda x: x * 5)) == 5.0
    with pytest.raises(NotImplementedError, match="no branch for platform 'cpu'"):
        lax.platform_dependent(1.0, tpu=lambda x: x)
    with pytest.raises(ValueError, match="Use 'cuda' or 'rocm'"):
        lax.platform_dependent(1.0, gpu=lambda x: x)
    g = tjit.grad(lambda x: lax.platform_dependent(x, cpu=lambda x: x ** 3,
                                                   default=lambda x: x))(2.0)
    assert float(g) == 12.0


def test_platform_dependent_branch_follows_the_jit_backend():
    """A jit for another backend traces that backend's branch (the trace knows its
    target: tracing/target_platform.py)."""
    from tjit.tracing.target_platform import current_platform, tracing_for
    with tracing_for("opencl"):
        assert current_platform() == "opencl"
        assert float(lax.platform_dependent(1.0, opencl=lambda x: x * 7,
                                            default=lambda x: x)) == 7.0
    with tracing_for("cuda"):
        assert float(_branches(1.0)) == 3.0
    assert current_platform() == "cpu"
