"""Special matrices (hankel ... dft) and polar, qr_multiply, eigh_tridiagonal against
scipy.linalg in float64; under jit, batched against a Python loop; gradients against
finite differences; errors that name the function."""

import numpy as np
import pytest
import scipy.linalg as sl

import tjit
from tests.transforms.check import check_grads
from tjit.scipy import linalg as L


@pytest.fixture(autouse=True)
def _x64(x64):
    yield


def close(got, want, tol=1e-10):
    got = np.asarray(got)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


RNG = np.random.default_rng(0)
C, R, F = RNG.standard_normal(4), RNG.standard_normal(3), RNG.standard_normal(5)


@pytest.mark.parametrize("name,args", [
    ("hankel", (C, R)), ("hankel", (C,)), ("circulant", (C,)), ("leslie", (F, F[:4])),
    ("companion", (F,)), ("fiedler", (F,)), ("fiedler_companion", (F,)),
    ("fiedler_companion", (F[:2],)), ("fiedler_companion", (F[:4],)),
    ("convolution_matrix", (C, 2)), ("convolution_matrix", (C, 7, "same")),
    ("convolution_matrix", (C, 3, "valid")), ("convolution_matrix", (C, 6, "valid")),
    ("hilbert", (5,)), ("invhilbert", (6,)), ("pascal", (6,)), ("pascal", (5, "lower")),
    ("pascal", (5, "upper")), ("invpascal", (6,)), ("invpascal", (5, "lower")),
    ("invpascal", (5, "upper")), ("helmert", (5,)), ("helmert", (4, True)),
    ("hadamard", (8,)), ("dft", (6,)), ("dft", (5, "sqrtn")), ("dft", (4, "n")),
])
def test_matrix_vs_scipy(name, args):
    close(getattr(L, name)(*args), getattr(sl, name)(*args))


@pytest.mark.parametrize("name,args", [
    ("hankel", (C, R)), ("circulant", (C,)), ("leslie", (F, F[:4])), ("companion", (F,)),
    ("fiedler_companion", (F,)), ("convolution_matrix", (C, 5, "same")),
])
def test_matrix_jit_and_grad(name, args):
    fn = getattr(L, name)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    rest = args[len(arrays):]
    f = tjit.jit(lambda *xs: fn(*xs, *rest))
    close(f(*arrays), getattr(sl, name)(*args))
    check_grads(lambda *xs: fn(*xs, *rest), arrays)


def test_matrix_batched_vs_loop():
    cb, fb = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 5))
    for got, want in [
        (L.hankel(cb, R), [sl.hankel(x, R) for x in cb]),
        (L.circulant(cb), [sl.circulant(x) for x in cb]),
        (L.companion(fb), [sl.companion(x) for x in fb]),
        (L.fiedler(fb), [sl.fiedler(x) for x in fb]),
        (L.leslie(fb, fb[:, :4]), [sl.leslie(x, x[:4]) for x in fb]),
        (L.convolution_matrix(cb, 3), [sl.convolution_matrix(x, 3) for x in cb]),
        (tjit.vmap(L.circulant)(cb), [sl.circulant(x) for x in cb]),
    ]:
        close(got, np.stack(want))


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_polar(side, shape):
    a = RNG.standard_normal(shape)
    u, p = L.polar(a, side=side)
    ur, pr = sl.polar(a, side=side)
    close(u, ur)
    close(p, pr)
    u, p = tjit.jit(lambda x: L.polar(x, side=side, method="svd"))(a)
    close(u, ur)
    check_grads(lambda x: L.polar(x, side=side)[0], [RNG.standard_normal((3, 3))])


def test_polar_complex_and_batched():
    a = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3))
    u, p = L.polar(a)
    for i in range(2):
        ur, pr = sl.polar(a[i])
        close(u[i], ur)
        close(p[i], pr)


@pytest.mark.parametrize("mode", ["left", "right"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("conjugate", [False, True])
def test_qr_multiply(mode, shape, conjugate):
    a = RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
    m, n = shape
    k = min(m, n)
    c = RNG.standard_normal((k, 2) if mode == "left" else (2, m))
    got, r = L.qr_multiply(a, c, mode=mode, conjugate=conjugate)
    want, rr = sl.qr_multiply(a, c, mode=mode, conjugate=conjugate)
    close(r, rr)  # both from LAPACK's Householder QR: same signs
    close(got, want)
    # the identity itself: the product with the economic Q of a = q r
    q = np.asarray(a) @ np.linalg.inv(np.asarray(r)[:, :k]) if m >= n else None
    if q is not None:
        q = np.conj(q) if conjugate else q
        close(got, q @ c if mode == "left" else c @ q, 1e-9)


def test_qr_multiply_vector_and_jit():
    a = RNG.standard_normal((5, 3))
    b = RNG.standard_normal(5)
    got, r = tjit.jit(lambda a, b: L.qr_multiply(a, b))(a, b)
    want, rr = sl.qr_multiply(a, b)
    close(got, want)
    close(r, rr)
    # the least-squares use from JAX's docstring
    x = sl.solve_triangular(np.asarray(r), np.asarray(got))
    close(x, np.linalg.lstsq(a, b, rcond=None)[0])


@pytest.mark.parametrize("select,rng", [("a", None), ("i", (1, 3))])
def test_eigh_tridiagonal(select, rng):
    d, e = RNG.standard_normal(5), RNG.standard_normal(4)
    w = L.eigh_tridiagonal(d, e, eigvals_only=True, select=select, select_range=rng)
    close(w, sl.eigh_tridiagonal(d, e, eigvals_only=True, select=select, select_range=rng))
    w, v = tjit.jit(lambda d, e: L.eigh_tridiagonal(d, e, select=select,
                                                    select_range=rng))(d, e)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    v = np.asarray(v)
    close(t @ v, v * np.asarray(w))
    close(v.T @ v, np.eye(v.shape[1]))
    check_grads(lambda d, e: L.eigh_tridiagonal(d, e, eigvals_only=True), [d, e])


def test_eigh_tridiagonal_batched():
    d, e = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 3))
    w = L.eigh_tridiagonal(d, e, eigvals_only=True)
    close(w, np.stack([sl.eigh_tridiagonal(x, y, eigvals_only=True) for x, y in zip(d, e)]))


def test_errors_name_the_function():
    with pytest.raises(Exception, match="scipy.linalg.leslie"):
        L.leslie(np.ones(3), np.ones(3))
    with pytest.raises(Exception, match="scipy.linalg.companion"):
        L.companion(np.ones(1))
    with pytest.raises(ValueError, match="scipy.linalg.convolution_matrix: mode"):
        L.convolution_matrix(C, 2, "wide")
    with pytest.raises(ValueError, match="scipy.linalg.hadamard"):
        L.hadamard(6)
    with pytest.raises(ValueError, match="scipy.linalg.pascal: kind"):
        L.pascal(3, "diag")
    with pytest.raises(ValueError, match="scipy.linalg.dft: scale"):
        L.dft(3, "x")
    with pytest.raises(Exception, match=r"scipy.linalg.polar: .*\(3,\)"):
        L.polar(np.ones(3))
    with pytest.raises(Exception, match="scipy.linalg.qr_multiply: c @ Q"):
        L.qr_multiply(np.ones((4, 3)), np.ones((2, 3)))
    with pytest.raises(Exception, match="scipy.linalg.eigh_tridiagonal"):
        L.eigh_tridiagonal(np.ones(4), np.ones(4))
    with pytest.raises(NotImplementedError, match="eigh_tridiagonal: select='v'"):
        L.eigh_tridiagonal(np.ones(4), np.ones(3), select="v", select_range=(0, 1))
