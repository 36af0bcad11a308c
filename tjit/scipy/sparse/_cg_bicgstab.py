"""The iterations of conjugate gradients and BiCGSTAB (as JAX's and SciPy's), each one
``lax.while_loop`` over pytree vectors; ``linalg.py`` wraps them in
``lax.custom_linear_solve`` for implicit gradients."""

import functools

from tjit import dtypes, lax
from tjit import numpy as jnp
from tjit.scipy.sparse._tree_vectors import add, mul, sub, vdot_real_tree, vdot_tree
from tjit.tree_util import tree_leaves, tree_map


def identity(x):
    """The preconditioner used when none is given (cg then reuses r^H z as ||r||^2)."""
    return x


def _tolerance_squared(b, tol, atol):
    # SciPy's non-legacy rule: stop when ||r|| <= max(tol * ||b||, atol)
    return jnp.maximum(jnp.square(tol) * vdot_real_tree(b, b), jnp.square(atol))


def cg_solve(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned conjugate gradients for a Hermitian positive definite ``A``."""
    atol2 = _tolerance_squared(b, tol, atol)
    r0 = sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = dtypes.result_type(*tree_leaves(p0))
    gamma0 = vdot_real_tree(r0, z0).astype(dtype)

    def cond_fun(value):
        _, r, gamma, _, k = value
        rs = gamma.real if M is identity else vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body_fun(value):
        x, r, gamma, p, k = value
        Ap = A(p)
        alpha = gamma / vdot_real_tree(p, Ap).astype(dtype)
        x_ = add(x, mul(alpha, p))
        r_ = sub(r, mul(alpha, Ap))
        z_ = M(r_)
        gamma_ = vdot_real_tree(r_, z_).astype(dtype)
        p_ = add(z_, mul(gamma_ / gamma, p))
        return x_, r_, gamma_, p_, k + 1

    x_final, *_ = lax.while_loop(cond_fun, body_fun, (x0, r0, gamma0, p0, 0))
    return x_final


def bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):
    """Preconditioned BiCGSTAB for a general ``A``; a breakdown (rho, alpha or omega
    exactly 0) stops the loop with the current iterate, as JAX's does."""
    atol2 = _tolerance_squared(b, tol, atol)

    def cond_fun(value):
        _, r, *_, k = value
        return (vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def body_fun(value):
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_ = vdot_tree(rhat, r)
        beta = rho_ / rho * alpha / omega
        p_ = add(r, mul(beta, sub(p, mul(omega, q))))
        phat = M(p_)
        q_ = A(phat)
        alpha_ = rho_ / vdot_tree(rhat, q_)
        s = sub(r, mul(alpha_, q_))
        exit_early = vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega_ = vdot_tree(t, s) / vdot_tree(t, t)
        where = functools.partial(jnp.where, exit_early)
        x_ = tree_map(where, add(x, mul(alpha_, phat)),
                      add(x, add(mul(alpha_, phat), mul(omega_, shat))))
        r_ = tree_map(where, s, sub(s, mul(omega_, t)))
        # negative counts mark a breakdown (JAX's -11 and -10) and end the loop
        k_ = jnp.where((omega_ == 0) | (alpha_ == 0), -11, k + 1)
        k_ = jnp.where(rho_ == 0, -10, k_)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    r0 = sub(b, A(x0))
    dtype, weak = dtypes.result_type(*tree_leaves(b), return_weak_type_flag=True)
    one = lax.convert_element_type(1, dtype, weak_type=weak)
    init = (x0, r0, r0, one, one, one, r0, r0, 0)
    x_final, *_ = lax.while_loop(cond_fun, body_fun, init)
    return x_final
