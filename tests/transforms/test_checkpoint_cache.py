"""checkpoint's trace cache: the checkpointed function is traced once per argument
structure, avals and static arguments (as JAX's ``weakref_lru_cache``), the cached
trace gives the same values and gradients as a fresh one, and what it keys on (shapes,
dtypes, weak types, static arguments, x64) retraces when it changes."""

import gc
import weakref

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.transforms import checkpoint as ckpt_mod


def counted(fn):
    """``fn`` with a counter of how many times its body runs (traces)."""
    calls = []

    def body(*a, **k):
        calls.append(1)
        return fn(*a, **k)
    return body, calls


def loss(x, w):
    h = jnp.tanh(x @ w + 0.25)
    return jnp.sum(h * h + jnp.sin(x) @ w)


def loss64(x, w):
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    h = np.tanh(x @ w + 0.25)
    return np.sum(h * h + np.sin(x) @ w)


def fd_grad(f, x, w, eps=1e-6):
    g = np.zeros_like(x, dtype=np.float64)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(g)
        d[i] = eps
        g[i] = (f(x + d, w) - f(x - d, w)) / (2 * eps)
    return g


rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype(np.float32)
W = rng.standard_normal((4, 2)).astype(np.float32)


@pytest.mark.parametrize("policy", [None, tjit.checkpoint_policies.dots_saveable,
                                    tjit.checkpoint_policies.everything_saveable])
def test_repeated_grads_trace_once_and_match_finite_differences(policy):
    body, calls = counted(loss)
    g = tjit.grad(tjit.checkpoint(body, policy=policy))
    ref = fd_grad(loss64, X.astype(np.float64), W.astype(np.float64))
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(X), jnp.asarray(W))), ref,
                                   rtol=2e-4, atol=2e-4)
    assert len(calls) == 1


def test_new_shapes_dtypes_and_weak_types_retrace():
    body, calls = counted(lambda x: jnp.sum(jnp.sin(x) * x))
    g = tjit.grad(tjit.checkpoint(body))
    for x in (np.ones(3, np.float32), np.ones(3, np.float32)):
        g(jnp.asarray(x))
    assert len(calls) == 1
    x5 = np.linspace(0.1, 1.0, 5).astype(np.float32)
    np.testing.assert_allclose(np.asarray(g(jnp.asarray(x5))),
                               np.sin(x5) + x5 * np.cos(x5), rtol=1e-5)
    assert len(calls) == 2
    g(jnp.asarray(np.ones(3, np.float16)))           # a new dtype
    assert len(calls) == 3
    np.testing.assert_allclose(float(g(0.5)), np.sin(.5) + .5 * np.cos(.5), rtol=1e-5)
    assert len(calls) == 4                           # weak-typed scalar
    g(jnp.asarray(np.float32(0.5)))                  # same shape and dtype, not weak
    assert len(calls) == 5
    g(0.7)
    assert len(calls) == 5


def test_a_new_wrapper_of_the_same_function_reuses_the_trace():
    # as JAX: keyed on the function, so grad(checkpoint(f)) made per step traces once
    body, calls = counted(lambda x: jnp.sum(jnp.cos(x)))
    x = jnp.asarray(np.linspace(0, 1, 4, dtype=np.float32))
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(tjit.grad(tjit.checkpoint(body))(x)),
                                   -np.sin(np.asarray(x)), rtol=1e-6)
    assert len(calls) == 1
    # another policy or prevent_cse: the same trace (they are not part of it), right grads
    h = tjit.grad(tjit.checkpoint(body, policy=tjit.checkpoint_policies.dots_saveable,
                                  prevent_cse=False))
    np.testing.assert_allclose(np.asarray(h(x)), -np.sin(np.asarray(x)), rtol=1e-6)
    assert len(calls) == 1


def test_static_arguments_are_part_of_the_key():
    body, calls = counted(lambda x, n: jnp.sum(x ** n))
    g = tjit.grad(tjit.checkpoint(body, static_argnums=(1,)))
    x = np.linspace(0.5, 1.5, 3).astype(np.float32)
    for n in (2, 3, 2, 3):
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(x), n)), n * x ** (n - 1),
                                   rtol=1e-5)
    assert len(calls) == 2
    # an unhashable static argument is traced at each call, not cached by identity
    b2, calls2 = counted(lambda x, p: jnp.sum(x ** p[0]))
    g2 = tjit.grad(tjit.checkpoint(b2, static_argnums=(1,)))
    p = [2]
    np.testing.assert_allclose(np.asarray(g2(jnp.asarray(x), p)), 2 * x, rtol=1e-5)
    p[0] = 3
    np.testing.assert_allclose(np.asarray(g2(jnp.asarray(x), p)), 3 * x ** 2, rtol=1e-5)
    assert len(calls2) == 2


def test_x64_is_part_of_the_key():
    body, calls = counted(lambda x: jnp.sum(jnp.sin(x)))
    g = tjit.grad(tjit.checkpoint(body))
    g(1.0)
    with tjit.enable_x64(True):
        out = g(1.0)
        assert out.dtype == np.float64
        np.testing.assert_allclose(float(out), np.cos(1.0), rtol=1e-13)
    assert len(calls) == 2
    assert g(1.0).dtype == np.float32


def test_new_closures_are_traced_afresh_not_served_stale():
    # a closure made per call is a new function object: its new values are used
    x = jnp.asarray(np.float32(0.5))
    for s in (2.0, 5.0, np.float32(7.0), jnp.asarray(3.0)):
        got = tjit.grad(tjit.checkpoint(lambda y, s=s: jnp.sin(y) * s))(x)
        np.testing.assert_allclose(float(got), np.cos(0.5) * float(s), rtol=1e-6)


def test_closure_over_an_outer_tracer_is_not_cached():
    # the inner function closes over y, a tracer of the outer grad: each call is fresh
    def inner(x, y):
        return jnp.sin(x) * y
    f = tjit.checkpoint(lambda x: inner(x, Y[0]))
    Y = [None]

    def outer(y):
        Y[0] = y
        return f(jnp.asarray(np.float32(0.3)))
    for y in (1.0, 2.0, 4.0):
        # d/dy sin(0.3) * y
        np.testing.assert_allclose(float(tjit.grad(outer)(y)), np.sin(0.3), rtol=1e-6)
        np.testing.assert_allclose(float(tjit.grad(lambda t: outer(t) * t)(y)),
                                   2 * np.sin(0.3) * y, rtol=1e-6)


def test_cache_does_not_keep_dropped_functions_alive():
    def make():
        def f(x):
            return jnp.sum(jnp.exp(x))
        return f
    f = make()
    tjit.grad(tjit.checkpoint(f))(jnp.ones(2))
    assert f in ckpt_mod._BODY_TRACES
    ref = weakref.ref(f)
    del f
    gc.collect()
    assert ref() is None


def test_cached_trace_inside_jit_and_vmap_matches_reference():
    body, calls = counted(lambda x: jnp.sum(jnp.tanh(x) ** 2))
    c = tjit.checkpoint(body)
    xs = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)
    want = 2 * np.tanh(xs) * (1 - np.tanh(xs) ** 2)
    for _ in range(2):
        np.testing.assert_allclose(np.asarray(tjit.vmap(tjit.grad(c))(jnp.asarray(xs))),
                                   want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(tjit.jit(tjit.grad(c))(jnp.asarray(xs[0]))),
                                   want[0], rtol=1e-5, atol=1e-6)
    assert len(calls) == 1   # the vmapped body is traced per example: (3,) as jit's


SCALE = 2.0


def _scaled(x):
    return jnp.sin(x) * SCALE


def test_rebinding_a_global_keeps_the_trace_as_jax_does():
    # JAX 0.10.2 keys checkpoint's trace on the function object: a global the body read
    # was traced as a constant, and rebinding it does not retrace (checked against
    # jax.grad(jax.checkpoint(f)): 2 cos(0.5) after SCALE = 5.0). A new signature (here
    # a weak-typed Python float) retraces and reads the new value, in JAX too.
    global SCALE
    g = tjit.grad(tjit.checkpoint(_scaled))
    x = jnp.asarray(np.float32(0.5))
    try:
        np.testing.assert_allclose(float(g(x)), 2.0 * np.cos(0.5), rtol=1e-6)
        SCALE = 5.0
        np.testing.assert_allclose(float(g(x)), 2.0 * np.cos(0.5), rtol=1e-6)
        np.testing.assert_allclose(float(g(0.5)), 5.0 * np.cos(0.5), rtol=1e-6)
    finally:
        SCALE = 2.0


def test_each_function_keeps_its_most_recently_used_traces_only(monkeypatch):
    # a long-lived function called at ever new shapes must not hold every trace
    monkeypatch.setattr(ckpt_mod, "_TRACES_PER_OWNER", 2)
    body, calls = counted(lambda x: jnp.sum(jnp.sin(x)))
    g = tjit.grad(tjit.checkpoint(body))

    def check(n):
        x = np.linspace(0.1, 1.0, n).astype(np.float32)
        np.testing.assert_allclose(np.asarray(g(jnp.asarray(x))), np.cos(x), rtol=1e-6)
    for n in (2, 3, 2, 4):       # 2 is used again before 4 comes: 3 is the one dropped
        check(n)
    assert len(calls) == 3 and len(ckpt_mod._BODY_TRACES[body]) == 2
    check(2)
    assert len(calls) == 3       # kept
    check(3)
    assert len(calls) == 4       # dropped, traced again
    assert len(ckpt_mod._BODY_TRACES[body]) == 2
