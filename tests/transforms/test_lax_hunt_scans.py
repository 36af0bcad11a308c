"""Derivatives of cumulative and scan ops at the edges of their domains, against float64
closed forms (found comparing tjit with JAX: cumlogsumexp's gradient was NaN everywhere
once an entry was -inf, as masked log-probabilities are)."""

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
