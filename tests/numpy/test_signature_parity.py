"""Keyword parameters of jax.numpy functions that tjit accepts with JAX's (and NumPy's)
meaning, each checked against NumPy in float64 or a Python loop."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


# -- var/std/nanvar/nanstd(mean=): NumPy 2 semantics ----------------------------------------
@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("ddof", [0, 1])
def test_moments_with_given_mean(rng, name, ddof):
    x = rng.normal(size=(5, 4))
    if name.startswith("nan"):
        x[1, 2] = x[3, 0] = np.nan
    given = getattr(np, name.replace("var", "mean").replace("std", "mean"))(
        x, axis=0, keepdims=True) + 0.25   # not the true mean: it must be used as given
    want = getattr(np, name)(x, axis=0, ddof=ddof, mean=given)
    got = getattr(jnp, name)(jnp.asarray(x, jnp.float32), axis=0, ddof=ddof, mean=given)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    # a mean that broadcasts (NumPy accepts it; shape without the kept axis)
    got_b = getattr(jnp, name)(jnp.asarray(x, jnp.float32), axis=0, ddof=ddof,
                               mean=given[0])
    np.testing.assert_allclose(got_b, want, rtol=1e-5)


def test_var_mean_under_jit_and_grad(rng):
    x = rng.normal(size=(6,))
    m = np.float32(0.3)
    f = tjit.jit(lambda x, m: jnp.var(x, mean=m))
    np.testing.assert_allclose(f(x.astype(np.float32), m), np.var(x, mean=0.3), rtol=1e-5)
    # d/dm mean((x - m)**2) = -2 * mean(x - m)
    g = tjit.grad(lambda m: jnp.var(x.astype(np.float32), mean=m))(m)
    np.testing.assert_allclose(g, -2 * np.mean(x - 0.3), rtol=1e-4)


def test_var_mean_wrong_shape():
    with pytest.raises(Exception, match=r"jnp.var\(mean=...\).*\(2, 4\)"):
        jnp.var(jnp.ones((3, 4)), axis=0, mean=jnp.ones((2, 4)))


# -- cov/corrcoef(dtype=) ---------------------------------------------------------------------
def test_cov_corrcoef_dtype(rng, x64):
    x = rng.normal(size=(3, 7))
    fw = rng.integers(1, 4, size=7)
    got = jnp.cov(x.astype(np.float32), fweights=fw, dtype=jnp.float64)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, np.cov(x.astype(np.float32), fweights=fw,
                                           dtype=np.float64), rtol=1e-12)
    r = jnp.corrcoef(np.arange(7) % 3, np.arange(7) ** 2, dtype=jnp.complex128)
    assert r.dtype == np.complex128
    np.testing.assert_allclose(r, np.corrcoef(np.arange(7) % 3, np.arange(7) ** 2),
                               rtol=1e-12)


def test_cov_dtype_lowers_precision():
    x = np.linspace(0, 1, 10)
    assert jnp.cov(x, dtype=jnp.float16).dtype == np.float16
    np.testing.assert_allclose(jnp.cov(x, dtype=jnp.float16), np.cov(x), rtol=1e-2)


@pytest.mark.parametrize("fn", [jnp.cov, jnp.corrcoef])
def test_cov_dtype_must_be_inexact(fn):
    with pytest.raises(ValueError, match="dtype must be a subclass of float or complex"):
        fn(np.ones((2, 3)), dtype=jnp.int32)
