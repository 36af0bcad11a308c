"""jax.numpy's aliases of NumPy's non-numeric scalar types and ComplexWarning: the very
NumPy objects, so issubdtype checks and warning filters written for JAX port."""

import warnings

import numpy as np

import tjit.numpy as jnp


def test_aliases_are_numpys():
    assert jnp.character is np.character and jnp.flexible is np.flexible
    assert jnp.object_ is np.object_
    assert jnp.ComplexWarning is np.exceptions.ComplexWarning
    assert not jnp.issubdtype(jnp.float32, jnp.flexible)
    assert jnp.issubdtype(np.dtype("U3"), jnp.character)


def test_complex_warning_filters_numpys_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", jnp.ComplexWarning)
        try:
            np.array([1 + 1j]).astype(np.float64)
        except jnp.ComplexWarning:
            return
    raise AssertionError("the filter on jnp.ComplexWarning did not catch NumPy's warning")
