"""lax.associative_scan (a composition of primitives) against a Python loop of the same
function: non-commutative functions (affine maps, 2x2 matrix products) and pytrees,
every axis, forward and reverse, lengths 0..9, under jit and vmap, gradients against
finite differences, errors."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads
from tjit import lax


def _loop_scan(fn, elems, reverse, axis):
    """The inclusive scan one element at a time (NumPy float64)."""
    leaves, tree = tjit.tree_util.tree_flatten(elems)
    n = leaves[0].shape[axis]
    order = range(n - 1, -1, -1) if reverse else range(n)
    outs, acc = [None] * n, None
    for k in order:
        e = tjit.tree_util.tree_unflatten(tree, [np.take(x, k, axis) for x in leaves])
        acc = e if acc is None else fn(acc, e)
        outs[k] = acc
    out_leaves = [tjit.tree_util.tree_leaves(o) for o in outs]
    return [np.stack([o[i] for o in out_leaves], axis) for i in range(len(leaves))]


def _affine(a, b):  # x -> a0 x + a1, then b: associative, not commutative
    return (a[0] * b[0], a[1] * b[0] + b[1])


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 9])
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("reverse", [False, True])
def test_affine_composition_against_a_loop(n, axis, reverse, x64, rng):
    shape = [3, 4]
    shape[axis] = n
    elems = (rng.standard_normal(shape), rng.standard_normal(shape))
    want = _loop_scan(_affine, elems, reverse, axis % 2)

    def f(e):
        return lax.associative_scan(_affine, e, reverse=reverse, axis=axis)
    for got in (f(elems), tjit.jit(f)(elems)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reverse", [False, True])
def test_matrix_products_and_dicts(reverse, x64, rng):
    mats = rng.standard_normal((7, 2, 2))
    got = lax.associative_scan(lambda a, b: a @ b, mats, reverse=reverse)
    want = _loop_scan(lambda a, b: a @ b, mats, reverse, 0)[0]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    x = rng.standard_normal(6)

    def fn(a, b):
        return {"m": jnp.maximum(a["m"], b["m"]), "s": a["s"] + b["s"]}
    got = lax.associative_scan(fn, {"m": x, "s": x}, reverse=reverse)
    acc = np.maximum.accumulate(x[::-1])[::-1] if reverse else np.maximum.accumulate(x)
    cs = np.cumsum(x[::-1])[::-1] if reverse else np.cumsum(x)
    np.testing.assert_allclose(np.asarray(got["m"]), acc)
    np.testing.assert_allclose(np.asarray(got["s"]), cs, rtol=1e-12)


def test_integers_empty_and_vmap(rng):
    k = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(lax.associative_scan(lax.add, k, axis=1),
                                  np.cumsum(k, axis=1))
    assert lax.associative_scan(lax.add, np.zeros((0, 2), np.float32)).shape == (0, 2)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    got = tjit.vmap(lambda r: lax.associative_scan(lax.mul, r, reverse=True))(x)
    want = np.stack([np.cumprod(r[::-1])[::-1] for r in x])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_gradients(x64, rng):
    a, b = rng.standard_normal(6), rng.standard_normal(6)
    check_grads(lambda a, b: lax.associative_scan(_affine, (a, b))[1].sum(), (a, b),
                rtol=1e-6, atol=1e-6)
    check_grads(lambda a: lax.associative_scan(lax.mul, a, reverse=True), (a,),
                rtol=1e-6, atol=1e-6)


def test_errors():
    with pytest.raises(tjit.ShapeError, match="same size along axis 0"):
        lax.associative_scan(lax.add, (np.ones(3), np.ones(4)))
    with pytest.raises(TypeError, match="structure of elems"):
        lax.associative_scan(lambda a, b: a[0], (np.ones(3), np.ones(3)))
    with pytest.raises(tjit.ShapeError, match="rank >= 1"):
        lax.associative_scan(lax.add, np.float32(1))
