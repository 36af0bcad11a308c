"""lax.pshuffle, lax.pswapaxes and lax.pbroadcast (JAX's wrappers of ppermute, all_to_all
and a collective broadcast) under vmap and jit against NumPy indexing, pytrees, grad,
and their bad-input errors."""

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
    not_int = r"pshuffle: perm \(the source of each member\) must be an integer"
    with pytest.raises(TypeError, match=not_int):
        tjit.vmap(lambda v: lax.pshuffle(v, "i", [(0, 1)]), axis_name="i")(x)
    with pytest.raises(TypeError, match=not_int):
        # (was accepted as [0, 1, 2, 3]: int() truncated 1.5; JAX refuses it)
        tjit.vmap(lambda v: lax.pshuffle(v, "i", [0, 1.5, 2, 3]), axis_name="i")(x)
    got = tjit.vmap(lambda v: lax.pshuffle(v, "i", np.array([3, 2, 1, 0])), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(got), x[::-1])


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


def test_pbroadcast_copies_the_source_members_bits():
    x = np.array([[1.0, -0.0], [np.nan, 2.0], [-0.0, 3.0], [4.0, np.inf]], np.float32)
    for source in range(4):
        for wrap in (lambda f: f, tjit.jit):
            got = np.asarray(wrap(tjit.vmap(lambda v: lax.pbroadcast(v, "i", source),
                                            axis_name="i"))(x))
            want = np.broadcast_to(x[source], x.shape)
            np.testing.assert_array_equal(got, want)
            assert np.array_equal(np.signbit(got), np.signbit(want))   # -0.0 stays -0.0


def test_pbroadcast_two_axes_pytree_grad_and_errors():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    inner = tjit.vmap(lambda v: lax.pbroadcast({"a": v}, ("i", "j"), 4)["a"], axis_name="j")
    got = tjit.vmap(inner, axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(got), np.full((2, 3), x.reshape(-1)[4]))
    g = tjit.grad(lambda v: tjit.vmap(lambda u: lax.pbroadcast(u, "i", 1),
                                      axis_name="i")(v).sum())(np.arange(3.0, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(g), [0.0, 3.0, 0.0])
    for bad, err in ((3, ValueError), (-1, ValueError), (1.5, TypeError)):
        with pytest.raises(err, match="pbroadcast: source"):
            tjit.vmap(lambda v: lax.pbroadcast(v, "i", bad), axis_name="i")(x[0])


@pytest.mark.parametrize("call", [
    lambda v: lax.pswapaxes(v, "i", 1.5),
    lambda v: lax.all_to_all(v, "i", 0, 1.5),
    lambda v: lax.all_gather(v, "i", axis=0.5),
    lambda v: lax.psum_scatter(v, "i", scatter_dimension=1.5, tiled=True),
], ids=["pswapaxes", "all_to_all", "all_gather", "psum_scatter"])
def test_float_axis_of_a_collective_is_named(call):
    # a float axis went on as a position: "tuple indices must be integers or slices"
    x = np.ones((4, 4, 4), np.float32)
    with pytest.raises(TypeError, match=r"must be an integer, got (1\.5|0\.5)"):
        tjit.vmap(call, axis_name="i")(x)
