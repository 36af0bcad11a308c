"""jit(f) applied again to the same function shares the first wrapper's compiled
signatures, as JAX's cache keyed by the function: `jit(f)(x)` written inline traces
once. Other options, other functions (closures included) and clear_caches() start
afresh; a collected function takes its entries with it."""

import gc

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit import api


def test_inline_jit_traces_once_per_signature():
    traces = []

    def f(x):
        traces.append(x.shape)
        return jnp.sin(x) * 2
    x = np.linspace(-1, 1, 7).astype(np.float32)
    for _ in range(5):
        np.testing.assert_allclose(tjit.jit(f)(x), np.sin(x.astype(np.float64)) * 2,
                                   rtol=1e-6)
    assert traces == [(7,)]
    tjit.jit(f)(np.ones(3, np.float32))          # a new shape: one more trace
    assert len(traces) == 2
    tjit.jit(f)(np.ones(4, np.float32))          # (tjit's dynamic shapes: that one served)
    assert len(traces) == 2
    tjit.jit(f, donate_argnums=0)(jnp.ones(7))   # other options: caches of their own
    assert len(traces) == 3
    tjit.clear_caches()
    tjit.jit(f)(x)
    assert len(traces) == 4


def test_common_gotchas_globals_as_jax():
    # docs/notebooks/Common_Gotchas_in_JAX.md: the second call uses the cached trace
    # (the global it read when traced); a new type traces again and reads the new one
    g = 0.

    def impure_uses_globals(x):
        return x + g
    assert float(tjit.jit(impure_uses_globals)(4.)) == 4.0
    g = 10.
    assert float(tjit.jit(impure_uses_globals)(5.)) == 5.0
    np.testing.assert_array_equal(tjit.jit(impure_uses_globals)(jnp.array([4.])), [14.0])


def test_closures_and_collected_functions():
    x = np.ones(3, np.float32)
    outs = [tjit.jit(lambda v, k=k: v * k)(x) for k in range(3)]   # three functions
    np.testing.assert_array_equal(np.stack(outs), np.arange(3)[:, None] * np.ones(3))
    gc.collect()
    assert not any(getattr(f, "__name__", "") == "<lambda>" for f in list(api._SHARED))


def test_unhashable_callables_keep_caches_of_their_own():
    class Scale:
        __hash__ = None   # unhashable: cannot be a cache key

        def __call__(self, v):
            return v * 3
    s = Scale()
    np.testing.assert_array_equal(tjit.jit(s)(np.ones(2, np.float32)), [3.0, 3.0])
    np.testing.assert_array_equal(tjit.jit(s)(np.ones(2, np.float32)), [3.0, 3.0])
