"""Derivatives of cumulative and scan ops at the edges of their domains, against float64
closed forms (found comparing tjit with JAX: cumlogsumexp's gradient was NaN everywhere
once an entry was -inf, as masked log-probabilities are; cumprod's Hessian was wrong where
the prefix held a zero)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _cumlogsumexp_jacobian(x):
    """d y_k / d x_j = exp(x_j - y_k) for j <= k (a softmax over the prefix), in float64;
    a prefix of -inf entries only is y_k = -inf, whose derivative is shared equally."""
    n = len(x)
    jac = np.zeros((n, n))
    for k in range(n):
        prefix = x[:k + 1]
        if np.all(prefix == -np.inf):
            jac[k, :k + 1] = 1.0 / (k + 1)
            continue
        y = np.logaddexp.reduce(prefix)
        jac[k, :k + 1] = np.exp(prefix - y)
    return jac


@pytest.mark.parametrize("x", [
    [-np.inf, 0.5, -1.0, 2.0, -np.inf],
    [0.3, 0.3, -np.inf, 1.5, 1.5],
    [-np.inf, -np.inf, 1.0, 2.0],
    [-800.0, 800.0, 1.0, -np.inf],
])
@pytest.mark.parametrize("jit", [False, True])
def test_cumlogsumexp_gradient_with_minus_inf_and_ties(x, jit, x64):
    x = np.asarray(x)
    jac = _cumlogsumexp_jacobian(x)
    cot = np.linspace(0.5, 1.5, len(x))
    f = lambda a: jnp.sum(lax.cumlogsumexp(a) * cot)
    grad = tjit.jit(tjit.grad(f)) if jit else tjit.grad(f)
    np.testing.assert_allclose(np.asarray(grad(x)), cot @ jac, rtol=1e-12, atol=1e-12)
    tangent = np.linspace(-1.0, 1.0, len(x))
    _, t_out = tjit.jvp(lax.cumlogsumexp, (x,), (tangent,))
    np.testing.assert_allclose(np.asarray(t_out), jac @ tangent, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(lax.cumlogsumexp(x)), np.logaddexp.accumulate(x))


def test_cumlogsumexp_reverse_gradient_under_vmap(x64):
    x = np.array([[-np.inf, 1.0, 2.0], [0.5, -np.inf, -np.inf]])
    got = tjit.vmap(tjit.grad(lambda a: jnp.sum(lax.cumlogsumexp(a, reverse=True))))(x)
    want = [np.sum(_cumlogsumexp_jacobian(row[::-1]), axis=0)[::-1] for row in x]
    np.testing.assert_allclose(np.asarray(got), np.stack(want), rtol=1e-12, atol=1e-12)


def _cumprod_weighted_hessian(x, w):
    """d2/dx_i dx_j of sum_k w_k prod_{m<=k} x_m: sum over k >= max(i, j) of w_k times the
    product of x_m (m <= k) but for i and j (0 on the diagonal), in float64."""
    n = len(x)
    hess = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                hess[i, j] = sum(w[k] * np.prod([x[m] for m in range(k + 1) if m not in (i, j)])
                                 for k in range(max(i, j), n))
    return hess


@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 0.5, -1.5], [0.0, 0.0, 3.0, 2.0, 1.0],
                               [1.5, 2.0, 0.0, -1.0, 0.0], [0.5, -2.0, 3.0, 1.25, 2.0]])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_hessian_with_zeros(x, reverse, x64):
    # the rule's own derivative must be exact where the prefix holds zeros
    x = np.asarray(x)
    w = np.arange(1.0, len(x) + 1)
    f = lambda a: jnp.sum(lax.cumprod(a, reverse=reverse) * w)
    want = (_cumprod_weighted_hessian(x[::-1], w[::-1])[::-1, ::-1] if reverse else
            _cumprod_weighted_hessian(x, w))
    np.testing.assert_allclose(np.asarray(tjit.hessian(f)(x)), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(tjit.jit(tjit.jacfwd(tjit.grad(f)))(x)), want,
                               rtol=1e-12, atol=1e-12)


def test_cumprod_hessian_along_a_batched_axis(x64):
    x = np.array([[2.0, 0.0, 3.0], [0.0, 1.5, 0.0]])
    w = np.array([1.0, 2.0, 3.0])
    per_row = tjit.vmap(tjit.hessian(lambda a: jnp.sum(lax.cumprod(a) * w)))(x)
    want = np.stack([_cumprod_weighted_hessian(row, w) for row in x])
    np.testing.assert_allclose(np.asarray(per_row), want, rtol=1e-12, atol=1e-12)
    # the product along axis 0 of the transposed rows, differentiated twice
    hess = tjit.hessian(lambda a: jnp.sum(lax.cumprod(a, axis=0) * w[:, None]))(x.T)
    for r in range(2):
        np.testing.assert_allclose(np.asarray(hess)[:, r, :, r], want[r], rtol=1e-12,
                                   atol=1e-12)


@pytest.mark.parametrize("x", [[1.0, 1.0, 0.0, 2.0], [1.0, 1.0, 1.0, 1.0], [0.5, -1.0, 2.0, 0.3]])
def test_cumlogsumexp_hessian_at_ties(x, x64):
    # logsumexp is analytic: its Hessian diag(p) - p p^T holds at ties too
    x = np.asarray(x)
    w = np.arange(1.0, len(x) + 1)
    want = np.zeros((len(x), len(x)))
    for k in range(len(x)):
        p = np.exp(x[:k + 1] - np.logaddexp.reduce(x[:k + 1]))
        want[:k + 1, :k + 1] += w[k] * (np.diag(p) - np.outer(p, p))
    got = tjit.hessian(lambda a: jnp.sum(lax.cumlogsumexp(a) * w))(x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
