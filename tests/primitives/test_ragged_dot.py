"""``lax.ragged_dot`` / ``ragged_dot_general`` against a NumPy loop over the groups in
float64 (ragged non-contracting, contracting and batch dims), eager, jit and the
reference interpreter; gradients against finite differences, vmap against a loop."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads, check_vmap
from tjit import lax


def np_ragged_dot(lhs, rhs, gs):
    out = np.zeros((lhs.shape[0], rhs.shape[2]))
    start = 0
    for g, size in enumerate(gs):
        rows = slice(start, min(start + size, lhs.shape[0]))
        out[rows] = lhs[rows].astype(np.float64) @ rhs[g].astype(np.float64)
        start += size
    return out


@pytest.mark.parametrize("gs", [[2, 0, 4], [7, 0, 0], [1, 1, 1], [0, 0, 0]])
def test_ragged_dot_is_a_per_group_product(gs):
    rng = np.random.default_rng(0)
    lhs = rng.standard_normal((7, 3)).astype(np.float32)
    rhs = rng.standard_normal((3, 3, 4)).astype(np.float32)
    gs = np.array(gs, np.int32)
    want = np_ragged_dot(lhs, rhs, gs)  # rows past sum(gs) stay zero
    for f in (lax.ragged_dot, tjit.jit(lax.ragged_dot),
              tjit.jit(lax.ragged_dot, backend="interpreter")):
        got = f(jnp.asarray(lhs), jnp.asarray(rhs), jnp.asarray(gs))
        assert got.shape == (7, 4) and got.dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_ragged_dot_grad_vmap_and_preferred_type():
    rng = np.random.default_rng(1)
    lhs = rng.standard_normal((5, 2)).astype(np.float32)
    rhs = rng.standard_normal((2, 2, 3)).astype(np.float32)
    gs = jnp.asarray(np.array([3, 2], np.int32))
    check_grads(lambda a, b: lax.ragged_dot(a, b, gs), (lhs, rhs))
    check_vmap(lambda a: lax.ragged_dot(a, jnp.asarray(rhs), gs),
               (jnp.asarray(rng.standard_normal((3, 5, 2)).astype(np.float32)),),
               rtol=1e-5, atol=1e-5)
    i8 = lax.ragged_dot(jnp.asarray(lhs * 4).astype(jnp.int8),
                        jnp.asarray(rhs * 4).astype(jnp.int8), gs,
                        preferred_element_type=jnp.int32)
    want = np_ragged_dot(np.asarray(jnp.asarray(lhs * 4).astype(jnp.int8)),
                         np.asarray(jnp.asarray(rhs * 4).astype(jnp.int8)), [3, 2])
    assert i8.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(i8), want)


def test_ragged_contracting_dimension_gives_one_product_per_group():
    rng = np.random.default_rng(2)
    lhs = rng.standard_normal((2, 6)).astype(np.float32)
    rhs = rng.standard_normal((6, 3)).astype(np.float32)
    gs = [2, 3, 1]
    dn = lax.RaggedDotDimensionNumbers((((1,), (0,)), ((), ())), [1], [])
    got = lax.ragged_dot_general(lhs, rhs, np.array(gs, np.int32), dn)
    bounds = np.cumsum([0] + gs)
    want = np.stack([lhs[:, a:b].astype(np.float64) @ rhs[a:b] for a, b in
                     zip(bounds[:-1], bounds[1:])])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_ragged_batch_dimension_is_a_batched_product():
    rng = np.random.default_rng(3)
    lhs = rng.standard_normal((4, 2, 3)).astype(np.float32)
    rhs = rng.standard_normal((4, 3, 5)).astype(np.float32)
    dn = lax.RaggedDotDimensionNumbers((((2,), (1,)), ((0,), (0,))), [0], [])
    got = lax.ragged_dot_general(lhs, rhs, np.array([1, 3], np.int32), dn)
    np.testing.assert_allclose(np.asarray(got), np.einsum("bij,bjk->bik", lhs, rhs),
                               rtol=1e-5, atol=1e-5)


def test_errors():
    with pytest.raises(Exception, match=r"ragged_dot: lhs must be \(m, k\)"):
        lax.ragged_dot(jnp.ones(3), jnp.ones((1, 3, 2)), jnp.array([3]))
    with pytest.raises(Exception, match="group dimension 0 .* has size 2, but group_sizes "
                                        "has 3 groups"):
        lax.ragged_dot(jnp.ones((3, 3)), jnp.ones((2, 3, 2)), jnp.array([1, 1, 1]))
    with pytest.raises(NotImplementedError, match="group_offset"):
        lax.ragged_dot(jnp.ones((3, 3)), jnp.ones((1, 3, 2)), jnp.array([3]),
                       group_offset=jnp.array([0]))
