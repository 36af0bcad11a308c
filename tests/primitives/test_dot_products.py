"""``dot_general`` where nothing or nothing of size > 0 is contracted, eager and compiled,
against NumPy.

* No contracting dims (outer products, with or without batch dims, free dims of either
  operand in any position): each element is one product, so the result must equal
  NumPy's broadcast multiply bit for bit, the sign of a zero product included
  (``-1 * 0 = -0``; a gemm with k = 1 adds it to +0.0 and loses the sign), NaN and
  inf as the multiply gives them, ``preferred_element_type`` as the reference.
* A contracting dim of size 0: the empty sum, +0.0 everywhere (as ``np.matmul``).
"""

import numpy as np
import pytest

import tjit
from tjit import lax

EDGE = [0.0, -0.0, 1.0, -1.0, 2.5, -3e-39, 1e30, -1e30, np.inf, -np.inf, np.nan, 5e-45]


def _bits_equal(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                  want.dtype, want.shape)
    if got.dtype.kind != "f":
        return np.array_equal(got, want)
    return np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")) or \
        np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(
            np.where(np.isnan(got), 0, got).view(f"u{got.itemsize}"),
            np.where(np.isnan(want), 0, want).view(f"u{want.itemsize}"))


# (lhs shape, rhs shape, ((lc, rc), (lb, rb)), einsum-style reference by broadcasting)
CASES = {
    "outer 1-d": ((12,), (12,), (((), ()), ((), ())),
                  lambda a, b: a[:, None] * b[None, :]),
    "outer 2-d x 1-d": ((3, 4), (12,), (((), ()), ((), ())),
                        lambda a, b: a[:, :, None] * b[None, None, :]),
    "batched outer": ((4, 3), (4, 12), (((), ()), ((0,), (0,))),
                      lambda a, b: a[:, :, None] * b[:, None, :]),
    "batch dim last": ((3, 4), (12, 4), (((), ()), ((1,), (1,))),
                       lambda a, b: a.T[:, :, None] * b.T[:, None, :]),
}


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_no_contraction_is_the_elementwise_product(case, dt, x64):
    ls, rs, dn, ref = CASES[case]
    rng = np.random.default_rng(0)
    if dt == "bool":
        a, b = rng.random(ls) < 0.5, rng.random(rs) < 0.5
    elif dt == "int32":
        a, b = (rng.integers(-2 ** 31, 2 ** 31, s).astype(np.int32) for s in (ls, rs))
    else:
        a = np.resize(np.array(EDGE, dt), ls)
        b = np.resize(np.array(EDGE[::-1] + [7.0], dt), rs)
    with np.errstate(all="ignore"):
        want = ref(a, b)
    f = lambda a, b: lax.dot_general(a, b, dn)
    assert _bits_equal(f(a, b), want), f"eager {case} {dt}"
    assert _bits_equal(tjit.jit(f)(a, b), want), f"compiled {case} {dt}"


def test_no_contraction_preferred_element_type(x64):
    a = np.array([-1.5, 0.0, 3.0], np.float32)
    b = np.array([0.0, -2.0], np.float32)
    dn = (((), ()), ((), ()))
    for pref, want in ((np.float64, a.astype(np.float64)[:, None] * b[None, :]),
                       (None, a[:, None] * b[None, :])):
        f = lambda a, b, pref=pref: lax.dot_general(
            a, b, dn, preferred_element_type=pref)
        assert _bits_equal(f(a, b), want) and _bits_equal(tjit.jit(f)(a, b), want)
    i8 = np.array([100, -100], np.int8)
    f = lambda a: lax.dot_general(a, a, dn, preferred_element_type=np.int32)
    want = i8.astype(np.int32)[:, None] * i8.astype(np.int32)[None, :]  # no int8 wrap
    assert _bits_equal(f(i8), want) and _bits_equal(tjit.jit(f)(i8), want)


def test_outer_product_gradients_and_vmap():
    a, b = np.array([1.0, -2.0, 0.5], np.float32), np.array([3.0, -0.0], np.float32)
    dn = (((), ()), ((), ()))

    def loss(a, b):
        return (lax.dot_general(a, b, dn) * np.float32(2)).sum()
    ga, gb = tjit.grad(loss, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(np.asarray(ga), 2 * b.sum() * np.ones(3))
    np.testing.assert_allclose(np.asarray(gb), 2 * a.sum() * np.ones(2))
    batched = tjit.jit(tjit.vmap(lambda a, b: lax.dot_general(a, b, dn)))(
        np.stack([a, -a]), np.stack([b, b]))
    assert _bits_equal(batched, np.stack([a, -a])[:, :, None] * b[None, None, :])


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_empty_contraction_is_positive_zero(dt, x64):
    dn = (((1,), (0,)), ((), ()))
    for ls, rs in (((3, 0), (0, 2)), ((1, 0), (0, 1))):
        a, b = np.zeros(ls, dt), np.zeros(rs, dt)
        want = np.matmul(a, b)
        assert not np.signbit(want).any()
        f = lambda a, b: lax.dot_general(a, b, dn)
        assert _bits_equal(f(a, b), want) and _bits_equal(tjit.jit(f)(a, b), want)
