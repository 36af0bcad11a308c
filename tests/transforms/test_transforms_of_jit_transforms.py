"""A transformation of a transformation of ``jit(f)`` (``jacfwd(grad(jit(f)))``, ``jvp``
of it, ``vmap(grad(jit(f)))``) runs as ``jit`` of the composition, traced and compiled
once per signature (``transforms/jit_of_transform.routed``), with the values of the
composition. Oracles: closed forms in NumPy float64 and a Python loop for vmap."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp

X = np.float32([0.5, -1.25, 2.0, 0.75])


def counted_loss():
    """``(f, traces)``: f(x) = sum(sin(x)^3), counting its traces."""
    traces = [0]

    def f(x):
        traces[0] += 1
        return jnp.sum(jnp.sin(x) ** 3)
    return f, traces


def grad64(x):
    x = np.asarray(x, np.float64)
    return 3 * np.sin(x) ** 2 * np.cos(x)


def hessian64(x):
    x = np.asarray(x, np.float64)
    return np.diag(6 * np.sin(x) * np.cos(x) ** 2 - 3 * np.sin(x) ** 3)


def _composite_keys(jitted):
    """The keys of the programs ``jitted`` keeps for transformations of its
    transformations (pairs of keys)."""
    return [k for k in jitted._transformed if isinstance(k[0], tuple)]


def test_jacfwd_of_grad_of_jit_is_one_program_per_signature():
    f, traces = counted_loss()
    jf = tjit.jit(f)
    hess = tjit.jacfwd(tjit.grad(jf))
    for k in range(3):
        x = X * (k + 1)
        got = hess(jnp.asarray(x))
        assert got.shape == (4, 4) and got.dtype == np.float32
        np.testing.assert_allclose(np.asarray(got), hessian64(x), rtol=2e-5, atol=2e-5)
    assert traces[0] == 1
    assert [tuple(k[i][0] for i in range(2)) for k in _composite_keys(jf)] == \
        [("grad", "jacfwd")]
    got = hess(jnp.asarray(X[:3]))      # a new signature: traced again
    np.testing.assert_allclose(np.asarray(got), hessian64(X[:3]), rtol=2e-5, atol=2e-5)
    assert traces[0] == 2
    # (the oracle against central differences of the float64 gradient)
    eps = 1e-6
    fd = np.stack([(grad64(X + e) - grad64(X - e)) / (2 * eps) for e in np.eye(4) * eps], 1)
    np.testing.assert_allclose(fd, hessian64(X), rtol=1e-6, atol=1e-8)


def test_jvp_and_vmap_of_grad_of_jit():
    f, traces = counted_loss()
    g = tjit.grad(tjit.jit(f))
    v = np.float32([1.0, -2.0, 0.5, 3.0])
    for _ in range(2):
        primal, tangent = tjit.jvp(g, (jnp.asarray(X),), (jnp.asarray(v),))
        np.testing.assert_allclose(np.asarray(primal), grad64(X), rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(tangent), hessian64(X) @ v, rtol=2e-5,
                                   atol=2e-5)
    xs = np.stack([X, X * 2, -X])
    got = tjit.vmap(g)(jnp.asarray(xs))
    np.testing.assert_allclose(np.asarray(got), [grad64(x) for x in xs], rtol=2e-5,
                               atol=1e-6)
    assert traces[0] == 1


def test_three_levels_and_an_outer_jit():
    def f(t):
        return jnp.sum(jnp.sin(X * t) ** 3)
    ggg = tjit.grad(tjit.grad(tjit.grad(tjit.jit(f))))
    t, x = 0.3, X.astype(np.float64)
    s, c = np.sin(x * t), np.cos(x * t)
    # d3/dt3 sum(sin(x t)^3) = sum(x^3 (6 c^3 - 21 s^2 c))
    want = float(np.sum(x ** 3 * (6 * c ** 3 - 21 * s * s * c)))
    assert float(ggg(np.float32(t))) == pytest.approx(want, rel=1e-4, abs=1e-4)
    assert float(tjit.jit(ggg)(np.float32(t))) == pytest.approx(want, rel=1e-4, abs=1e-4)


def test_jits_that_are_not_routed_transform_as_they_are():
    # static arguments are not kept by the transformation's own arguments: no routing
    def f(x, p):
        return jnp.sum(jnp.sin(x) ** p)
    jf = tjit.jit(f, static_argnums=1)
    got = tjit.jacfwd(tjit.grad(jf))(jnp.asarray(X), 3)
    np.testing.assert_allclose(np.asarray(got), hessian64(X), rtol=2e-5, atol=2e-5)
    assert _composite_keys(jf) == []
    with tjit.disable_jit():
        got = tjit.jacfwd(tjit.grad(tjit.jit(counted_loss()[0])))(jnp.asarray(X))
    np.testing.assert_allclose(np.asarray(got), hessian64(X), rtol=2e-5, atol=2e-5)
