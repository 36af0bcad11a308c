"""``lax.linalg.symmetric_product`` and ``cholesky_update`` against NumPy (float64) and
finite differences."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.lax import linalg as L


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("batch", [(), (3,)])
def test_symmetric_product_matches_numpy(batch):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(batch + (4, 6))
    c = rng.standard_normal(batch + (4, 4))
    c = c + np.swapaxes(c, -1, -2)
    want = 2.5 * a @ np.swapaxes(a, -1, -2) - 0.5 * c
    got = L.symmetric_product(a, c, alpha=2.5, beta=-0.5)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    lower_only = np.tril(want) + np.swapaxes(np.tril(want, -1), -1, -2)
    got = tjit.jit(lambda a, c: L.symmetric_product(a, c, alpha=2.5, beta=-0.5,
                                                    symmetrize_output=True))(a, c)
    np.testing.assert_allclose(np.asarray(got), lower_only, rtol=1e-12)
    with pytest.raises(ValueError, match="c_matrix"):
        L.symmetric_product(a, c[..., :3])


def _spd(rng, n):
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_cholesky_update_is_the_factor_of_the_updated_matrix(n):
    rng = np.random.default_rng(n)
    a, w = _spd(rng, n), rng.standard_normal(n)
    r = np.linalg.cholesky(a).T
    want = np.linalg.cholesky(a + np.outer(w, w)).T
    for update in (L.cholesky_update, tjit.jit(L.cholesky_update)):
        got = np.asarray(update(r, w))
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        assert np.allclose(np.tril(got, -1), 0)


@pytest.mark.usefixtures("x64")
def test_cholesky_update_gradient_matches_finite_differences():
    rng = np.random.default_rng(7)
    a, w = _spd(rng, 4), rng.standard_normal(4)
    r = np.linalg.cholesky(a).T
    weights = rng.standard_normal((4, 4))

    def loss(r, w):
        return jnp.sum(L.cholesky_update(r, w) * weights)

    def loss_np(r, w):
        return np.sum(np.linalg.cholesky(r.T @ r + np.outer(w, w)).T * weights)

    g_r, g_w = tjit.grad(loss, argnums=(0, 1))(r, w)
    fd_w = [(loss_np(r, w + 1e-6 * e) - loss_np(r, w - 1e-6 * e)) / 2e-6 for e in np.eye(4)]
    np.testing.assert_allclose(np.asarray(g_w), fd_w, rtol=1e-6)
    fd_r = np.zeros((4, 4))
    for i, j in zip(*np.triu_indices(4)):       # R is upper triangular: its entries there
        e = np.zeros((4, 4))
        e[i, j] = 1e-6
        fd_r[i, j] = (loss_np(r + e, w) - loss_np(r - e, w)) / 2e-6
    np.testing.assert_allclose(np.triu(np.asarray(g_r)), fd_r, rtol=1e-6, atol=1e-9)
