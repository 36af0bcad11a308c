"""Inputs JAX accepts that ``jnp.polyval`` and ``lax.select_n`` refused: an N-d ``p``
(one polynomial per trailing index, as NumPy) and integer ``which`` of any dtype
(out of range: the nearest case, as JAX's lax_test checks with np.choose(mode='clip')).
References: NumPy in float64; eager, jit, vmap against a Python loop, gradients against
finite differences."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads, check_vmap
from tjit import lax


@pytest.mark.parametrize("p_shape,x_shape", [((3, 2), (2,)), ((4, 2), ()), ((3, 1, 2), (5, 2)),
                                             ((2, 3), (4, 1))])
def test_polyval_with_an_nd_p_is_numpys(p_shape, x_shape):
    rng = np.random.default_rng(0)
    p = rng.standard_normal(p_shape).astype(np.float32)
    x = rng.standard_normal(x_shape).astype(np.float32)
    want = np.polyval(p.astype(np.float64), x.astype(np.float64))
    for f in (jnp.polyval, tjit.jit(jnp.polyval)):
        got = f(jnp.asarray(p), jnp.asarray(x))
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    check_grads(jnp.polyval, (p, x))


def test_polyval_nd_p_vmap_and_errors():
    p = np.random.default_rng(1).standard_normal((2, 3, 2)).astype(np.float32)
    check_vmap(jnp.polyval, (jnp.asarray(p), jnp.asarray(np.ones((2, 2), np.float32))),
               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="jnp.polyval: p must have at least 1 dimension"):
        jnp.polyval(3.0, jnp.ones(2))
    with pytest.raises(Exception, match=r"jnp.polyval: shapes \(2,\), \(3,\)"):
        jnp.polyval(jnp.ones((3, 2)), jnp.ones(3))


@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "uint16", "uint32", "int64",
                                "uint64"])
def test_select_n_takes_any_integer_which(dt, x64):
    which = np.array([-1, 0, 1, 2, 3, 7], np.int64)
    if dt.startswith("u"):
        which = np.array([0, 1, 2, 3, 7, np.iinfo(dt).max], np.uint64)
    which = which.astype(dt)
    cases = [np.full(6, 10.0 * k, np.float32) for k in range(3)]
    want = np.choose(which.astype(np.float64).clip(0, 2).astype(int), cases)
    for f in (lax.select_n, tjit.jit(lax.select_n)):
        got = f(jnp.asarray(which), *cases)
        np.testing.assert_array_equal(np.asarray(got), want)
    check_vmap(lax.select_n, (jnp.asarray(which.reshape(2, 3)),
                              *[jnp.asarray(c.reshape(2, 3)) for c in cases]))

