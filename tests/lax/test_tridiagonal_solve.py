"""``lax.linalg.tridiagonal_solve`` against NumPy's dense solve (float64), including
matrices that need pivoting, batches, complex entries, gradients against central
differences and vmap against a loop."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.lax import linalg as L


def _dense(dl, d, du):
    m = d.shape[-1]
    a = np.zeros(d.shape + (m,), np.result_type(dl, d, du))
    i = np.arange(m)
    a[..., i, i] = d
    a[..., i[1:], i[:-1]] = dl[..., 1:]
    a[..., i[:-1], i[1:]] = du[..., :-1]
    return a


def _system(rng, batch, m, n, complex_=False):
    def draw(*shape):
        v = rng.standard_normal(shape)
        return v + 1j * rng.standard_normal(shape) if complex_ else v
    dl, d, du = draw(*batch, m), draw(*batch, m), draw(*batch, m)
    dl[..., 0] = 0
    du[..., -1] = 0
    if m > 1:
        d[..., 0] = 0            # a zero leading pivot: elimination must swap rows
    return dl, d, du, draw(*batch, m, n)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("batch, m, n", [((), 1, 1), ((), 2, 3), ((), 9, 2), ((3,), 6, 1),
                                         ((2, 2), 17, 4)])
@pytest.mark.parametrize("complex_", [False, True])
def test_solution_matches_the_dense_solve(batch, m, n, complex_):
    rng = np.random.default_rng(m * 10 + n)
    dl, d, du, b = _system(rng, batch, m, n, complex_)
    want = np.linalg.solve(_dense(dl, d, du), b)
    for solve in (L.tridiagonal_solve, tjit.jit(L.tridiagonal_solve)):
        got = np.asarray(solve(*(jnp.asarray(v) for v in (dl, d, du, b))))
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_float32_needs_pivoting_to_stay_accurate():
    # d[0] tiny in a well-conditioned matrix (condition ~10): without row swaps the first
    # multiplier is 1e8 and the digits are lost
    dl = np.array([0, 1, 1, 1], np.float32)
    d = np.array([1e-8, 1, 3, 1], np.float32)
    du = np.array([1, 2, 1, 0], np.float32)
    b = np.arange(1.0, 5.0, dtype=np.float32)[:, None]
    want = np.linalg.solve(_dense(dl.astype(float), d.astype(float), du.astype(float)),
                           b.astype(float))
    got = np.asarray(L.tridiagonal_solve(dl, d, du, b))
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.usefixtures("x64")
def test_gradients_of_all_four_operands_match_finite_differences():
    rng = np.random.default_rng(3)
    dl, d, du, b = _system(rng, (), 5, 2)
    w = rng.standard_normal((5, 2))

    def loss(dl, d, du, b):
        return jnp.sum(jnp.sin(L.tridiagonal_solve(dl, d, du, b)) * w)

    def loss_np(args):
        return np.sum(np.sin(np.linalg.solve(_dense(*args[:3]), args[3])) * w)

    grads = tjit.grad(loss, argnums=(0, 1, 2, 3))(dl, d, du, b)
    args = [dl, d, du, b]
    for k, g in enumerate(grads):
        fd = np.zeros_like(args[k])
        for idx in np.ndindex(*args[k].shape):
            if (k == 0 and idx[-1] == 0) or (k == 2 and idx[-1] == 4):
                continue          # entries the solve never reads: zero gradient
            hi = [a.copy() for a in args]
            lo = [a.copy() for a in args]
            hi[k][idx] += 1e-6
            lo[k][idx] -= 1e-6
            fd[idx] = (loss_np(hi) - loss_np(lo)) / 2e-6
        np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-5, atol=1e-8)


def test_vmap_matches_a_loop():
    rng = np.random.default_rng(4)
    dl, d, du, b = (v.astype(np.float32) for v in _system(rng, (4,), 6, 2))
    got = tjit.vmap(L.tridiagonal_solve, in_axes=(0, 0, 0, 0))(dl, d, du, b)
    want = np.stack([np.asarray(L.tridiagonal_solve(*(v[i] for v in (dl, d, du, b))))
                     for i in range(4)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_singular_system_is_non_finite_unless_perturbed():
    dl, d, du = np.zeros(3, np.float32), np.array([1, 0, 1], np.float32), np.zeros(3,
                                                                                  np.float32)
    b = np.ones((3, 1), np.float32)
    assert not np.all(np.isfinite(np.asarray(L.tridiagonal_solve(dl, d, du, b))))
    x = np.asarray(L.tridiagonal_solve(dl, d, du, b, perturb_singular=True))
    eps = np.finfo(np.float32).eps
    np.testing.assert_allclose(x.ravel(), [1, 1 / eps, 1], rtol=1e-6)


def test_bad_shapes_name_the_operands():
    with pytest.raises(ValueError, match=r"dl, d and du must have one shape"):
        L.tridiagonal_solve(np.zeros(3), np.zeros(4), np.zeros(3), np.zeros((3, 1)))
    with pytest.raises(ValueError, match=r"b must have shape \[..., m, n\]"):
        L.tridiagonal_solve(np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3))
