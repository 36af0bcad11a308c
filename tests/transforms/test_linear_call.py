"""linear_call (JAX's jax.custom_derivatives.linear_call): a linear map with a stated
transpose. Forward mode uses the map, reverse mode the stated transpose, under jit, vmap
and jacfwd, against NumPy in float64; a deliberately different transpose shows which
rule each transformation took; residuals differentiated through the function; bad
transposes raise."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.custom_derivatives import linear_call

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
X = RNG.standard_normal(4).astype(np.float32)
T = RNG.standard_normal(4).astype(np.float32)


def matvec(a, x):
    """A @ x whose transpose is A^T @ ct (the true adjoint)."""
    return linear_call(lambda a, x: a @ x, lambda a, ct: a.T @ ct, a, x)


def scaled(x):
    """2 x, with the transpose 3 ct (not its adjoint: tells the rules apart)."""
    return linear_call(lambda _, x: 2.0 * x, lambda _, ct: 3.0 * ct, (), x)


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_values_jvp_and_grad_against_numpy():
    a64, x64 = A.astype(np.float64), X.astype(np.float64)
    _close(matvec(A, X), a64 @ x64)
    for f in (lambda x: matvec(A, x), tjit.jit(lambda x: matvec(A, x))):
        y, t = tjit.jvp(f, (X,), (T,))
        _close(y, a64 @ x64)
        _close(t, a64 @ T.astype(np.float64))
    ct = RNG.standard_normal(3)
    loss = lambda x: jnp.sum(jnp.sin(matvec(A, x)) * ct.astype(np.float32))
    want = a64.T @ (np.cos(a64 @ x64) * ct)
    _close(tjit.grad(loss)(X), want)
    _close(tjit.jit(tjit.grad(loss))(X), want)
    _close(tjit.jacfwd(lambda x: matvec(A, x))(X), a64)
    _close(tjit.jacrev(lambda x: matvec(A, x))(X), a64)
    _close(tjit.linearize(lambda x: matvec(A, x), X)[1](T), a64 @ T.astype(np.float64))


def test_forward_mode_uses_the_map_and_reverse_mode_the_stated_transpose():
    ones = np.ones(4, np.float32)
    _close(tjit.jvp(scaled, (X,), (ones,))[1], 2 * ones)
    _close(tjit.jacfwd(scaled)(X), 2 * np.eye(4))
    _close(tjit.grad(lambda x: jnp.sum(scaled(x)))(X), 3 * ones)
    _close(tjit.jacrev(scaled)(X), 3 * np.eye(4))
    # second order: the jvp of the transpose is the transpose (linear)
    _close(tjit.jvp(tjit.grad(lambda x: jnp.sum(scaled(x) ** 2)), (X,), (ones,))[1],
           2 * 3 * 2 * ones)


def test_vmap_against_a_python_loop():
    As = RNG.standard_normal((5, 3, 4)).astype(np.float32)
    Xs = RNG.standard_normal((5, 4)).astype(np.float32)
    want = np.stack([a.astype(np.float64) @ x for a, x in zip(As, Xs)])
    _close(tjit.vmap(matvec)(As, Xs), want)
    _close(tjit.vmap(matvec, in_axes=(None, 0))(A, Xs), Xs.astype(np.float64) @ A.T)
    _close(tjit.vmap(matvec, in_axes=(0, None))(As, X), As.astype(np.float64) @ X)
    g = tjit.vmap(tjit.grad(lambda a, x: jnp.sum(matvec(a, x) ** 2), argnums=1))(As, Xs)
    _close(g, np.stack([2 * a.T.astype(np.float64) @ (a @ x) for a, x in zip(As, Xs)]))
    # grad of a vmapped linear_call whose linear operand is broadcast (unbatched)
    g = tjit.grad(lambda x: jnp.sum(tjit.vmap(matvec, in_axes=(0, None))(As, x)))(X)
    _close(g, As.astype(np.float64).sum(0).sum(0))


def test_closure_constants_and_pytrees():
    b = jnp.asarray(RNG.standard_normal(3).astype(np.float32))

    def f(x):
        return linear_call(lambda _, xs: {"y": A @ xs[0] + b * 0 + A @ xs[1]},
                           lambda _, ct: (A.T @ ct["y"], A.T @ ct["y"]), (), (x, 2 * x))
    _close(f(X)["y"], 3 * A.astype(np.float64) @ X)
    _close(tjit.grad(lambda x: jnp.sum(f(x)["y"]))(X), 3 * A.astype(np.float64).sum(0))


def test_bad_transposes_raise():
    with pytest.raises(TypeError, match="linear_call.*cotangent 0 is f32\\[3\\].*f32\\[4\\]"):
        linear_call(lambda _, x: A @ x, lambda _, ct: ct, (), X)
    with pytest.raises(TypeError, match="linear_call.*structure"):
        linear_call(lambda _, x: A @ x, lambda _, ct: (A.T @ ct, ct), (), X)


def test_residuals_are_differentiated_through_the_function():
    a64, x64 = A.astype(np.float64), X.astype(np.float64)
    ct = RNG.standard_normal(3)
    loss = lambda a, x: jnp.sum(jnp.sin(matvec(a, x)) * ct.astype(np.float32))  # noqa: E731
    ga, gx = tjit.grad(loss, argnums=(0, 1))(A, X)
    dy = np.cos(a64 @ x64) * ct
    _close(ga, np.outer(dy, x64))
    _close(gx, a64.T @ dy)
    dA = RNG.standard_normal(A.shape).astype(np.float32)
    _close(tjit.jvp(lambda a: matvec(a, X), (A,), (dA,))[1], dA.astype(np.float64) @ x64)
    # second order in x through the residual-free path, in a through the residual one
    h = tjit.hessian(lambda x: jnp.sum(jnp.sin(matvec(A, x))))(X)
    _close(h, a64.T @ np.diag(-np.sin(a64 @ x64)) @ a64)
