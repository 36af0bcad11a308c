"""lax.custom_root and lax.custom_linear_solve: values, gradients (reverse and forward)
against central differences of NumPy float64 solves and against differentiating the
unrolled solver, the stated transpose solve being the one reverse mode runs, and
jit/vmap."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

A0 = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.3, 0.1, 2.0]])
B0 = np.array([1.0, -2.0, 0.5])
H = 1e-6


def _fd(f, x):
    """Central differences of a float64 NumPy function, one input element at a time."""
    x = np.asarray(x, np.float64)
    out = []
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = H
        out.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * H))
    return np.stack(out, -1).reshape(np.shape(f(x)) + x.shape)


def _cg(matvec, b, iters=30):
    """Conjugate gradients in a while_loop (not what the gradient goes through)."""
    def body(state):
        x, r, p, i = state
        ap = matvec(p)
        alpha = jnp.dot(r, r) / jnp.dot(p, ap)
        x, r_new = x + alpha * p, r - alpha * ap
        p = r_new + jnp.dot(r_new, r_new) / jnp.dot(r, r) * p
        return x, r_new, p, i + 1
    def cond(state):
        return jnp.logical_and(state[3] < iters, jnp.dot(state[1], state[1]) > 1e-28)
    return lax.while_loop(cond, body, (jnp.zeros_like(b), b, b, 0))[0]


def _solve_direct(a):
    return lambda matvec, b: jnp.linalg.solve(a, b)


def _loss_linear(a, b, transpose_scale=1.0):
    x = lax.custom_linear_solve(lambda v: a @ v, b, _solve_direct(a),
                                lambda vecmat, c: transpose_scale * jnp.linalg.solve(a.T, c))
    return jnp.sum(x * jnp.asarray([1.0, 2.0, 3.0]))


def _np_loss_linear(a, b):
    return np.sum(np.linalg.solve(a, b) * np.array([1.0, 2.0, 3.0]))


def test_linear_solve_value_and_gradients_match_central_differences(x64):
    ga, gb = tjit.grad(_loss_linear, argnums=(0, 1))(A0, B0)
    np.testing.assert_allclose(np.asarray(ga), _fd(lambda a: _np_loss_linear(a, B0), A0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.asarray(gb), _fd(lambda b: _np_loss_linear(A0, b), B0),
                               rtol=1e-6, atol=1e-8)
    # forward mode: the tangent solve (no transpose involved)
    tangent = tjit.jvp(lambda b: _loss_linear(A0, b), (B0,), (np.ones(3),))[1]
    np.testing.assert_allclose(float(tangent), _fd(lambda b: _np_loss_linear(A0, b), B0).sum(),
                               rtol=1e-6)


def test_reverse_mode_runs_the_stated_transpose_solve(x64):
    # a transpose_solve that returns twice the true answer doubles the gradient in b:
    # the solve is differentiated through transpose_solve, not through its own ops
    gb = tjit.grad(_loss_linear, argnums=1)(A0, B0, 2.0)
    np.testing.assert_allclose(np.asarray(gb), 2 * _fd(lambda b: _np_loss_linear(A0, b), B0),
                               rtol=1e-6, atol=1e-8)


def test_while_loop_solver_matches_differentiating_the_unrolled_solver(x64):
    spd = A0 @ A0.T + np.eye(3)

    def implicit(a, b):
        return jnp.sum(lax.custom_linear_solve(lambda v: a @ v, b, _cg, symmetric=True) ** 2)

    def unrolled(a, b):  # the same iteration as plain ops: differentiated step by step
        x, r, p = jnp.zeros(3), b, b
        for _ in range(12):
            ap = a @ p
            alpha = jnp.dot(r, r) / jnp.dot(p, ap)
            x, r_new = x + alpha * p, r - alpha * ap
            p, r = r_new + jnp.dot(r_new, r_new) / jnp.dot(r, r) * p, r_new
        return jnp.sum(x ** 2)

    got = tjit.jit(tjit.grad(implicit, argnums=(0, 1)))(spd, B0)
    want = tjit.grad(unrolled, argnums=(0, 1))(spd, B0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-9)


def test_linear_solve_vmap_aux_and_missing_transpose(x64):
    bs = np.stack([B0, 2 * B0, -B0])
    solve = lambda b: lax.custom_linear_solve(lambda v: A0 @ v, b, _solve_direct(A0))
    got = tjit.vmap(solve)(bs)
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(A0, bs.T).T, rtol=1e-12)

    x, aux = lax.custom_linear_solve(lambda v: A0 @ v, B0,
                                     lambda mv, b: (jnp.linalg.solve(A0, b), jnp.sum(b)),
                                     lambda vm, b: (jnp.linalg.solve(A0.T, b), 0.0),
                                     has_aux=True)
    np.testing.assert_allclose(np.asarray(x), np.linalg.solve(A0, B0), rtol=1e-12)
    assert float(aux) == pytest.approx(B0.sum())

    with pytest.raises(TypeError, match="transpose_solve required"):
        tjit.grad(lambda b: jnp.sum(solve(b)))(B0)
    with pytest.raises(ValueError, match=r"solve\(\) output shapes must match"):
        lax.custom_linear_solve(lambda v: A0 @ v, B0, lambda mv, b: b[:2])


def _newton_sqrt(y):
    def solve(f, x0):
        return lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)
    return lax.custom_root(lambda x: x ** 2 - y, 1.0, solve, lambda g, r: r / g(1.0))


def test_custom_root_scalar_gradient_is_implicit(x64):
    ys = np.array([0.5, 2.0, 9.0])
    got = tjit.vmap(tjit.grad(_newton_sqrt))(ys)
    np.testing.assert_allclose(np.asarray(got), _fd(np.sqrt, ys).diagonal(), rtol=1e-7)
    np.testing.assert_allclose(float(tjit.jit(_newton_sqrt)(2.0)), np.sqrt(2.0), rtol=1e-12)


def test_custom_root_vector_matches_differences_and_the_unrolled_newton(x64):
    def root(a, c):  # x with x + 0.1 x^3 = a @ c (componentwise): a nonlinear root
        f = lambda x: x + 0.1 * x ** 3 - a @ c
        def solve(f, x0):
            jac = tjit.jacfwd(f)
            return lax.fori_loop(0, 40, lambda i, x: x - jnp.linalg.solve(jac(x), f(x)), x0)
        tangent_solve = lambda g, y: jnp.linalg.solve(tjit.jacfwd(g)(y), y)
        return lax.custom_root(f, jnp.zeros(3), solve, tangent_solve)

    def np_root(a, c):
        rhs, x = a @ c, np.zeros(3)
        for _ in range(60):
            x = x - (x + 0.1 * x ** 3 - rhs) / (1 + 0.3 * x ** 2)
        return x

    def loss(a, c):
        return jnp.sum(root(a, c) * jnp.asarray([1.0, -1.0, 0.5]))

    ga, gc = tjit.grad(loss, argnums=(0, 1))(A0, B0)
    w = np.array([1.0, -1.0, 0.5])
    np.testing.assert_allclose(np.asarray(ga), _fd(lambda a: np_root(a, B0) @ w, A0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.asarray(gc), _fd(lambda c: np_root(A0, c) @ w, B0),
                               rtol=1e-6, atol=1e-8)

    def unrolled(a, c):  # Newton's iterations differentiated step by step
        x = jnp.zeros(3)
        for _ in range(30):
            x = x - (x + 0.1 * x ** 3 - a @ c) / (1 + 0.3 * x ** 2)
        return jnp.sum(x * jnp.asarray(w))
    for g, u in zip((ga, gc), tjit.grad(unrolled, argnums=(0, 1))(A0, B0)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(u), rtol=1e-8, atol=1e-10)


def test_custom_root_has_aux_and_tree_checks(x64):
    def solve(f, x0):
        x = lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)
        return x, jnp.abs(f(x))
    y = 3.0
    sol, resid = lax.custom_root(lambda x: x ** 2 - y, 1.0, solve, lambda g, r: r / g(1.0),
                                 has_aux=True)
    assert float(sol) == pytest.approx(np.sqrt(3.0)) and float(resid) < 1e-12
    g = tjit.grad(lambda y: lax.custom_root(lambda x: x ** 2 - y, 1.0, solve,
                                            lambda g, r: r / g(1.0), has_aux=True)[0])(3.0)
    assert float(g) == pytest.approx(0.5 / np.sqrt(3.0), rel=1e-9)
    with pytest.raises(TypeError, match=r"f\(\) output pytree structure must match"):
        lax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, r: r)
