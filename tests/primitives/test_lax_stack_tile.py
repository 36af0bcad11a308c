"""lax.stack/unstack/tile/broadcast_like (JAX's lax names) against NumPy's stack, tile and
broadcast_to, eager and under jit, vmap (Python-loop reference) and grad."""

import numpy as np
import pytest

import tjit
from tjit import lax

_RNG = np.random.default_rng(8)
_X = _RNG.normal(size=(2, 3)).astype(np.float32)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_and_unstack_against_numpy(axis):
    ops = [_X, _X + 1, _X * 2]
    for f in (lax.stack, tjit.jit(lax.stack, static_argnums=1)):
        np.testing.assert_array_equal(np.asarray(f(ops, axis)), np.stack(ops, axis))
    stacked = np.stack(ops, axis)
    parts = lax.unstack(stacked, axis)
    assert len(parts) == 3
    for got, want in zip(parts, ops):
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("reps", [(1, 1), (2, 3), (3, 1), (1, 2), (0, 2)])
def test_tile_against_numpy(reps):
    np.testing.assert_array_equal(np.asarray(lax.tile(_X, reps)), np.tile(_X, reps))
    np.testing.assert_array_equal(np.asarray(tjit.jit(lambda v: lax.tile(v, reps))(_X)),
                                  np.tile(_X, reps))
    batched = tjit.vmap(lambda v: lax.tile(v, reps))(np.stack([_X, -_X]))
    for b, v in enumerate([_X, -_X]):
        np.testing.assert_array_equal(np.asarray(batched[b]), np.tile(v, reps))


def test_tile_gradient_sums_the_copies():
    w = _RNG.normal(size=(4, 9)).astype(np.float32)
    g = tjit.grad(lambda v: (lax.tile(v, (2, 3)) * w).sum())(_X)
    want = w.reshape(2, 2, 3, 3).sum(axis=(0, 2))  # each element's copies
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)


@pytest.mark.parametrize("shape, like", [((3,), (2, 3)), ((3, 1), (2, 3, 4)), ((), (2,)),
                                         ((1, 1), (1, 5)), ((2, 3), (2, 3))])
def test_broadcast_like_against_numpy(shape, like):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    np.testing.assert_array_equal(np.asarray(lax.broadcast_like(a, np.zeros(like))),
                                  np.broadcast_to(a, like))


def test_errors_name_the_operation():
    with pytest.raises(TypeError, match="lax.stack requires arguments to have the same dtypes"):
        lax.stack([np.ones(2, np.float32), np.ones(2, np.int32)])
    with pytest.raises(ValueError, match="lax.stack.*same shape"):
        lax.stack([np.ones(2, np.float32), np.ones(3, np.float32)])
    with pytest.raises(ValueError, match="non-empty"):
        lax.stack([])
    with pytest.raises(TypeError, match="reps length must be equal to the ndim"):
        lax.tile(_X, (2,))
    with pytest.raises(ValueError, match="broadcast_like"):
        lax.broadcast_like(np.ones(3), np.ones((2, 4)))
