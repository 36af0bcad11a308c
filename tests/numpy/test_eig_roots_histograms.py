"""jnp.linalg.eig/eigvals, jnp.roots, jnp.histogram2d/histogramdd against NumPy in
float64; eigvals' gradient against finite differences; vmap against a Python loop."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tests.transforms.check import check_grads, check_vmap

RNG = np.random.default_rng(0)


def _sorted(w):
    return np.sort_complex(np.asarray(w))


@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (1, 1)])
@pytest.mark.parametrize("cplx", [False, True])
def test_eig_against_numpy(x64, shape, cplx):
    a = RNG.standard_normal(shape)
    if cplx:
        a = a + 1j * RNG.standard_normal(shape)
    w, v = jnp.linalg.eig(a)
    assert w.dtype == np.complex128 and v.dtype == np.complex128
    w, v = np.asarray(w), np.asarray(v)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, rtol=1e-12)
    for got, want in zip(_sorted(w).reshape(-1, shape[-1]),
                         np.linalg.eigvals(a).reshape(-1, shape[-1])):
        np.testing.assert_allclose(got, np.sort_complex(want), atol=1e-10)
    np.testing.assert_allclose(_sorted(jnp.linalg.eigvals(a)), _sorted(w), atol=1e-12)


def test_eig_left_vectors_and_float32():
    a = RNG.standard_normal((5, 5)).astype(np.float32)
    w, vl, vr = (np.asarray(t) for t in lax.linalg.eig(a))
    assert w.dtype == np.complex64
    np.testing.assert_allclose(vl.conj().T @ a, w[:, None] * vl.conj().T, atol=1e-4)
    np.testing.assert_allclose(a @ vr, vr * w, atol=1e-4)


def test_eigvals_grad_against_finite_differences():
    a = RNG.standard_normal((4, 4))

    def f(a):
        w = jnp.linalg.eigvals(a)
        return jnp.stack([jnp.sum(jnp.real(w) ** 3), jnp.sum(jnp.imag(w) ** 2)])
    check_grads(f, (a,), eps=1e-6, rtol=1e-5, atol=1e-5)


def test_eig_vectors_not_differentiable_as_jax():
    with pytest.raises(NotImplementedError, match="derivatives of eigenvectors"):
        tjit.grad(lambda a: jnp.sum(jnp.real(jnp.linalg.eig(a)[1])))(np.eye(3))


def test_eigvals_vmap_and_jit():
    a = RNG.standard_normal((4, 3, 4)).astype(np.float32)
    f = lambda m: jnp.sort(jnp.linalg.eigvals(m))  # noqa: E731
    check_vmap(f, (a,), in_axes=1, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(a[:, 0])), np.asarray(f(a[:, 0])),
                               atol=1e-5)


def test_eig_errors():
    with pytest.raises(tjit.ShapeError, match="eig: expected square"):
        jnp.linalg.eig(np.ones((2, 3)))


@pytest.mark.parametrize("p", [[1, -3, 2], [2, 0, 0, 1, -5], [0, 0, 1, 4, 4], [1, 2, 0, 0],
                               [3], [0, 0], [1, 0, 1]])
def test_roots_against_numpy(x64, p):
    p = np.asarray(p, np.float64)
    got = jnp.roots(p)
    want = np.roots(p)
    assert got.shape == want.shape
    np.testing.assert_allclose(_sorted(got), np.sort_complex(want.astype(complex)), atol=1e-7)


def test_roots_without_stripping_under_jit_and_grad():
    p = jnp.array([0.0, 0.0, 1.0, -3.0, 2.0])
    got = np.asarray(tjit.jit(lambda p: jnp.roots(p, strip_zeros=False))(p))
    np.testing.assert_allclose(np.sort_complex(got[:2]), [1, 2], atol=1e-5)
    assert np.isnan(got[2:]).all()
    # d(sum of roots)/dp = d(-p1/p0)/dp = (p1/p0^2, -1/p0, 0)
    g = tjit.grad(lambda p: jnp.sum(jnp.real(jnp.roots(p, strip_zeros=False))))(
        jnp.array([2.0, -3.0, 1.0]))
    np.testing.assert_allclose(np.asarray(g), [-0.75, -0.5, 0.0], atol=1e-5)


@pytest.mark.parametrize("bins", [10, [3, 4], np.linspace(-2, 2, 6),
                                  [np.array([-1.0, 0, 2]), np.array([-3.0, -1, 0, 1, 3])]])
@pytest.mark.parametrize("kw", [{}, {"range": [(-1, 1), (-2, 2)]}, {"density": True},
                                {"weights": "abs"}])
def test_histogram2d_against_numpy(x64, bins, kw):
    x, y = RNG.standard_normal((2, 300))
    if kw.get("weights") == "abs":
        kw = {"weights": np.abs(x)}
    h, ex, ey = jnp.histogram2d(x, y, bins=bins, **kw)
    H, EX, EY = np.histogram2d(x, y, bins=bins, **kw)
    np.testing.assert_allclose(np.asarray(h), H, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(ex), EX, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ey), EY, rtol=1e-12)


def test_histogramdd_against_numpy_and_jit(x64):
    s = RNG.standard_normal((400, 3))
    s[0] = [2.0, 0.0, 0.0]  # a point on the last edge counts in the last bin
    kw = dict(bins=(2, 3, [-1, 0, 2.0]), range=[(-2, 2), None, None])
    h, e = jnp.histogramdd(s, **kw)
    H, E = np.histogramdd(s, **kw)
    np.testing.assert_array_equal(np.asarray(h), H)
    assert jnp.issubdtype(h.dtype, jnp.integer)  # integer counts, as JAX
    for a, b in zip(e, E):
        np.testing.assert_allclose(np.asarray(a), b)
    hd, _ = jnp.histogramdd(s, density=True, weights=s[:, 0] ** 2, **kw)
    Hd, _ = np.histogramdd(s, density=True, weights=s[:, 0] ** 2, **kw)
    np.testing.assert_allclose(np.asarray(hd), Hd, rtol=1e-10)
    jitted = tjit.jit(lambda s: jnp.histogramdd(s, bins=4)[0])(s)
    np.testing.assert_array_equal(np.asarray(jitted), np.histogramdd(s, bins=4)[0])


def test_histogramdd_errors():
    with pytest.raises(ValueError, match=r"sample must be an \(N, D\) array"):
        jnp.histogramdd(np.ones((5, 2, 1)))  # (a 1-D sample is N points of one dim)
    with pytest.raises(ValueError, match="one entry per dimension"):
        jnp.histogramdd(np.ones((5, 2)), bins=[2, 3, 4])
    with pytest.raises(ValueError, match="1-D of the same length"):
        jnp.histogram2d(np.ones(5), np.ones(4))
