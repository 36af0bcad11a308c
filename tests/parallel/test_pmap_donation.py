"""pmap's donate_argnums, as JAX's: each device's slice of a donated argument is handed
to its program (usable for an output of its shape and dtype: no warning; otherwise
jit's "Some donated buffers were not usable" warning), and the donated Arrays are
deleted after the call. Results against NumPy."""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices.backend import cpu_device_count

N = 4


def _x():
    return np.random.default_rng(0).standard_normal((N, 3)).astype(np.float32)


def test_donated_arrays_are_used_and_deleted_the_others_kept():
    X, Y = _x(), _x() + 1
    with cpu_device_count(N):
        x, y = jnp.asarray(X), jnp.asarray(Y)
        f = tjit.pmap(lambda a, b, k: a * k + b, donate_argnums=(0,),
                      static_broadcasted_argnums=(2,))
        with warnings.catch_warnings():
            warnings.simplefilter("error")    # (a usable donation says nothing)
            out = f(x, y, 3.0)
        np.testing.assert_allclose(np.asarray(out), X.astype(np.float64) * 3 + Y, rtol=1e-6)
        assert x.is_deleted() and not y.is_deleted()
        with pytest.raises(RuntimeError, match="has been deleted"):
            x + 1
        again = f(jnp.asarray(X), y, 3.0)     # (the compiled program, a fresh argument)
        np.testing.assert_allclose(np.asarray(again), np.asarray(out))


def test_donated_pytree_and_unmapped_arguments():
    X = _x()
    with cpu_device_count(N):
        tree = {"w": jnp.asarray(X), "b": jnp.asarray(X[0])}
        with pytest.warns(UserWarning, match="not usable"):   # (one output for two)
            out = tjit.pmap(lambda t: t["w"] - t["b"], in_axes=({"w": 0, "b": None},),
                            donate_argnums=0)(tree)
        np.testing.assert_allclose(np.asarray(out), X - X[0], rtol=1e-6)
        assert tree["w"].is_deleted() and tree["b"].is_deleted()


def test_unusable_or_numpy_donations_warn_and_keep_the_value():
    X = _x()
    with cpu_device_count(N):
        x = jnp.asarray(X)
        with pytest.warns(UserWarning, match="Some donated buffers were not usable"):
            s = tjit.pmap(lambda a: a.sum(), donate_argnums=0)(x)   # (no output of its shape)
        np.testing.assert_allclose(np.asarray(s), X.astype(np.float64).sum(1), rtol=1e-5)
        with pytest.warns(UserWarning, match="NumPy array, which tjit never writes into"):
            out = tjit.pmap(lambda a: a * 2, donate_argnums=0)(X)
        np.testing.assert_array_equal(X, _x())
        np.testing.assert_allclose(np.asarray(out), 2 * X)


def test_static_and_donated_is_an_error():
    with pytest.raises(ValueError, match="both static_broadcasted_argnums and donate_argnums"):
        tjit.pmap(lambda a, k: a * k, static_broadcasted_argnums=1, donate_argnums=1)
