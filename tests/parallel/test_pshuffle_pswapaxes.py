"""lax.pshuffle and lax.pswapaxes (JAX's wrappers of ppermute and all_to_all) under vmap
and jit against NumPy indexing, pytrees, and their bad-input errors."""

import numpy as np
import pytest

import tjit
from tjit import lax
from tjit.tracing.errors import ShapeError


def test_pshuffle_member_i_gets_member_perm_i():
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    perm = [3, 0, 4, 1, 2]
    for wrap in (lambda f: f, tjit.jit):
        got = wrap(tjit.vmap(lambda v: lax.pshuffle(v, "i", perm), axis_name="i"))(x)
        np.testing.assert_array_equal(np.asarray(got), x[perm])


def test_pshuffle_pytree_and_errors():
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    perm = (1, 2, 3, 0)
    got = tjit.vmap(lambda v: lax.pshuffle({"a": v, "b": 2 * v}, "i", perm), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(got["a"]), x[list(perm)])
    np.testing.assert_array_equal(np.asarray(got["b"]), 2 * x[list(perm)])
    with pytest.raises(ValueError, match=r"pshuffle: perm \[0, 0, 1, 2\] is not a permutation"):
        tjit.vmap(lambda v: lax.pshuffle(v, "i", [0, 0, 1, 2]), axis_name="i")(x)
    with pytest.raises(ValueError, match="pshuffle: perm has 2 entries but axes"):
        tjit.vmap(lambda v: lax.pshuffle(v, "i", [1, 0]), axis_name="i")(x)
    with pytest.raises(TypeError, match="pshuffle: perm must be a sequence of ints"):
        tjit.vmap(lambda v: lax.pshuffle(v, "i", [(0, 1)]), axis_name="i")(x)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_pswapaxes_swaps_the_named_axis_with_axis(axis):
    n = 4
    shape = [3, 3]
    shape[axis] = n
    x = np.random.default_rng(1).standard_normal([n] + shape).astype(np.float32)
    got = tjit.jit(tjit.vmap(lambda v: lax.pswapaxes(v, "i", axis), axis_name="i"))(x)
    # member i's result along `axis` at j is member j's x at i along `axis`
    want = np.swapaxes(x, 0, 1 + axis % 2)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_pswapaxes_pytree_and_size_error():
    x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    got = tjit.vmap(lambda v: lax.pswapaxes((v, -v), "i", 0), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(got[0]), x.T)
    np.testing.assert_array_equal(np.asarray(got[1]), -x.T)
    with pytest.raises(ShapeError, match=r"pswapaxes \(an all_to_all along axis 0\)"):
        tjit.vmap(lambda v: lax.pswapaxes(v, "i", 0), axis_name="i")(x[:, :3])
