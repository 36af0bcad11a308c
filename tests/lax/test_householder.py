"""LAPACK's packed Householder forms (``jnp.linalg.qr(mode='raw')``/geqrf,
``lax.linalg.householder_product``, ``ormqr``, ``hessenberg``, ``tridiagonal``) against
SciPy's LAPACK wrappers in float64/complex128 and NumPy's raw QR, plus the identities
they stand for (Q unitary, Q R = A, Q H Q^H = A, the tridiagonal's eigenvalues); jit and
the interpreter backend vs eager; vmap vs a Python loop; errors."""

import numpy as np
import pytest
from scipy.linalg import lapack

import tjit
import tjit.numpy as jnp
from tjit.lax import linalg as L

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _tol(dtype):
    return 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def _matrix(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _wide(dtype):
    """The float64/complex128 type LAPACK references run in."""
    return np.complex128 if np.issubdtype(dtype, np.complexfloating) else np.float64


def _lapack(name, dtype):
    return lapack.get_lapack_funcs(name, (np.zeros(1, _wide(dtype)),))


def _each(x, core_ndim):
    batch = x.shape[:x.ndim - core_ndim]
    return x.reshape((int(np.prod(batch)),) + x.shape[x.ndim - core_ndim:])


def _ways(f):
    """eager, jit and the interpreter backend."""
    return [f, tjit.jit(f), tjit.jit(f, backend="interpreter")]


def _close(got, want, dtype, scale=1.0):
    tol = _tol(dtype) * scale
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


# -- geqrf / qr(mode="raw") ------------------------------------------------------------
@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (2, 1, 3, 2)])
def test_raw_qr_matches_numpy_and_lapack(shape, dtype):
    a = _matrix(np.random.default_rng(len(shape) * 7 + shape[-1]), shape, dtype)
    geqrf = _lapack("geqrf", dtype)
    wants = [geqrf(m.astype(_wide(dtype)))[:2] for m in _each(a, 2)]
    want_h = np.stack([w[0] for w in wants]).reshape(shape)
    want_tau = np.stack([w[1] for w in wants]).reshape(shape[:-2] + (min(shape[-2:]),))
    for qr in _ways(lambda x: jnp.linalg.qr(x, mode="raw")):
        h, tau = qr(a)
        assert h.shape == shape[:-2] + shape[:-3:-1] and h.dtype == dtype
        assert tau.dtype == dtype
        _close(h, np.swapaxes(want_h, -1, -2), dtype)
        _close(tau, want_tau, dtype)
    if len(shape) == 2:  # NumPy's own raw mode (float64 / complex128)
        nh, ntau = np.linalg.qr(a.astype(_wide(dtype)), mode="raw")
        h, tau = jnp.linalg.qr(a, mode="raw")
        _close(h, nh, dtype)
        _close(tau, ntau, dtype)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
def test_geqrf_then_householder_product_reconstructs(dtype):
    a = _matrix(np.random.default_rng(1), (3, 6, 4), dtype)
    packed, taus = L.geqrf(a)
    for product in _ways(L.householder_product):
        q = np.asarray(product(packed, taus))
        r = np.triu(np.asarray(packed))[..., :4, :]
        eye = np.broadcast_to(np.eye(4), q.shape[:-2] + (4, 4))
        _close(np.conj(np.swapaxes(q, -1, -2)) @ q, eye, dtype, 10)
        _close(q @ r, a, dtype, 10)


# -- householder_product ----------------------------------------------------------------
@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n, k", [(5, 3, 3), (5, 3, 1), (4, 4, 4), (3, 2, 0), (1, 1, 1)])
def test_householder_product_matches_orgqr(m, n, k, dtype):
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    a, taus = _matrix(rng, (m, n), dtype), _matrix(rng, (k,), dtype)
    if k:
        want = _lapack("ungqr" if np.iscomplexobj(a) else "orgqr", dtype)(
            a.astype(_wide(dtype)), taus.astype(_wide(dtype)))[0]
    else:
        want = np.eye(m, n)
    for product in _ways(L.householder_product):
        got = product(a, taus)
        assert got.shape == (m, n) and got.dtype == dtype
        _close(got, want, dtype)


@pytest.mark.usefixtures("x64")
def test_householder_product_vmap_matches_a_loop():
    rng = np.random.default_rng(3)
    a, taus = rng.standard_normal((4, 5, 3)), rng.standard_normal((4, 3))
    loop = np.stack([np.asarray(L.householder_product(x, t)) for x, t in zip(a, taus)])
    np.testing.assert_allclose(tjit.vmap(L.householder_product)(a, taus), loop, rtol=1e-12)
    # one unmapped operand is broadcast along the batch
    loop = np.stack([np.asarray(L.householder_product(a[0], t)) for t in taus])
    got = tjit.vmap(L.householder_product, in_axes=(None, 0))(a[0], taus)
    np.testing.assert_allclose(got, loop, rtol=1e-12)
    got = tjit.jit(tjit.vmap(L.householder_product, in_axes=(2, 1)))(
        np.moveaxis(a, 0, 2), taus.T)
    loop = np.stack([np.asarray(L.householder_product(x, t)) for x, t in zip(a, taus)])
    np.testing.assert_allclose(got, loop, rtol=1e-12)


# -- ormqr -------------------------------------------------------------------------------
@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_ormqr_applies_the_full_q(shape, dtype, left, transpose):
    rng = np.random.default_rng(sum(shape) + 2 * left + transpose)
    a = _matrix(rng, shape, dtype)
    m = shape[-2]
    c = _matrix(rng, shape[:-2] + ((m, 2) if left else (3, m)), dtype)
    packed, taus = L.geqrf(a)
    # the complete m x m Q of geqrf's reflectors, from LAPACK's orgqr in float64
    qs = []
    for mat, h, t in zip(_each(a, 2), _each(np.asarray(packed), 2),
                         _each(np.asarray(taus), 1)):
        padded = np.zeros((m, m), _wide(dtype))
        padded[:, :min(m, h.shape[1])] = h[:, :m]
        qs.append(_lapack("ungqr" if np.iscomplexobj(a) else "orgqr", dtype)(
            padded, t.astype(_wide(dtype)))[0])
        _close(qs[-1] @ np.triu(h), mat, dtype, 10)  # Q R = A
    q = np.stack(qs).reshape(shape[:-2] + (m, m))
    op = np.conj(np.swapaxes(q, -1, -2)) if transpose else q
    want = op @ c if left else c @ op
    for mult in _ways(lambda h, t, c: L.ormqr(h, t, c, left=left, transpose=transpose)):
        got = mult(packed, taus, c)
        assert got.shape == c.shape and got.dtype == dtype
        _close(got, want, dtype, 10)


@pytest.mark.usefixtures("x64")
def test_ormqr_vmap_matches_a_loop():
    rng = np.random.default_rng(5)
    a, c = rng.standard_normal((3, 4, 2)), rng.standard_normal((3, 4, 5))
    packed, taus = L.geqrf(a)

    def f(h, t, c):
        return L.ormqr(h, t, c, transpose=True)

    loop = np.stack([np.asarray(f(h, t, x)) for h, t, x in zip(packed, taus, c)])
    np.testing.assert_allclose(tjit.vmap(f)(packed, taus, c), loop, rtol=1e-12)
    loop = np.stack([np.asarray(f(packed[0], taus[0], x)) for x in c])
    got = tjit.vmap(f, in_axes=(None, None, 0))(packed[0], taus[0], c)
    np.testing.assert_allclose(got, loop, rtol=1e-12)


# -- hessenberg --------------------------------------------------------------------------
@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (2, 3, 4, 4)])
def test_hessenberg_matches_gehrd_and_reconstructs(shape, dtype):
    a = _matrix(np.random.default_rng(shape[-1] + len(shape)), shape, dtype)
    n = shape[-1]
    gehrd = _lapack("gehrd", dtype)
    wants = [gehrd(m.astype(_wide(dtype)))[:2] for m in _each(a, 2)]
    for hess in _ways(L.hessenberg):
        packed, taus = hess(a)
        assert packed.shape == shape and taus.shape == shape[:-2] + (n - 1,)
        assert taus.dtype == dtype
        _close(packed, np.stack([w[0] for w in wants]).reshape(shape), dtype, 10)
        _close(taus, np.stack([w[1] for w in wants]).reshape(taus.shape), dtype, 10)
    # JAX's jax.scipy.linalg.hessenberg: Q = diag(1, householder_product(a[1:, :-1], taus))
    packed, taus = L.hessenberg(a)
    h = np.triu(np.asarray(packed), -1)
    q = np.zeros(shape, _wide(dtype))
    q[..., 0, 0] = 1
    if n > 1:
        q[..., 1:, 1:] = np.asarray(L.householder_product(packed[..., 1:, :-1], taus))
    _close(q @ h @ np.conj(np.swapaxes(q, -1, -2)), a, dtype, 10)
    # jax.scipy.linalg.hessenberg, built on the packed form
    h_sp, q_sp = tjit.scipy.linalg.hessenberg(a, calc_q=True)
    _close(np.asarray(q_sp) @ np.asarray(h_sp) @ np.conj(np.swapaxes(np.asarray(q_sp), -1, -2)),
           a, dtype, 10)


@pytest.mark.usefixtures("x64")
def test_hessenberg_vmap_matches_a_loop():
    a = np.random.default_rng(8).standard_normal((4, 3, 3))
    outs = tjit.vmap(L.hessenberg, in_axes=1)(np.moveaxis(a, 0, 1))
    for got, k in zip(outs, range(2)):
        loop = np.stack([np.asarray(L.hessenberg(x)[k]) for x in a])
        np.testing.assert_allclose(got, loop, rtol=1e-12, atol=1e-15)


# -- tridiagonal -------------------------------------------------------------------------
def _hermitian(rng, shape, dtype):
    x = _matrix(rng, shape, dtype)
    return ((x + np.conj(np.swapaxes(x, -1, -2))) / 2).astype(dtype)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (6, 6), (3, 4, 4)])
@pytest.mark.parametrize("lower", [True, False])
def test_tridiagonal_matches_sytrd(shape, dtype, lower):
    rng = np.random.default_rng(shape[-1] * 2 + lower)
    a = _hermitian(rng, shape, dtype)
    # the triangle that is not read holds garbage: it must not matter
    junk = _matrix(rng, shape, dtype)
    keep = np.tril(np.ones(shape[-2:], bool)) if lower else np.triu(np.ones(shape[-2:], bool))
    a_in = np.where(keep, a, junk)
    n, real = shape[-1], np.finfo(dtype).dtype
    sytrd = _lapack("hetrd" if np.iscomplexobj(a) else "sytrd", dtype)
    wants = [sytrd(m.astype(_wide(dtype)), lower=int(lower))[:4] for m in _each(a_in, 2)]
    for trid in _ways(lambda x: L.tridiagonal(x, lower=lower)):
        out = trid(a_in)
        assert [o.dtype for o in out] == [np.dtype(dtype), real, real, np.dtype(dtype)]
        assert [o.shape for o in out] == [shape, shape[:-1], shape[:-2] + (n - 1,),
                                          shape[:-2] + (n - 1,)]
        for got, k in zip(out, range(4)):
            want = np.stack([w[k] for w in wants]).reshape(got.shape)
            _close(got, want, dtype, 10)
    # the tridiagonal matrix (d, e) has a's eigenvalues
    _, d, e, _ = L.tridiagonal(a_in, lower=lower)
    d, e = np.asarray(d, np.float64), np.asarray(e, np.float64)
    for dm, em, am in zip(_each(d, 1), _each(e, 1), _each(a, 2)):
        t = np.diag(dm) + np.diag(em, 1) + np.diag(em, -1)
        _close(np.linalg.eigvalsh(t), np.linalg.eigvalsh(am.astype(_wide(dtype))), dtype, 10)


@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_tridiagonal_lower_reconstructs(dtype):
    a = _hermitian(np.random.default_rng(11), (5, 5), dtype)
    packed, d, e, taus = L.tridiagonal(a)
    q = np.eye(5, dtype=dtype)
    q[1:, 1:] = np.asarray(L.householder_product(packed[1:, :-1], taus))
    t = np.diag(np.asarray(d)) + np.diag(np.asarray(e), 1) + np.diag(np.asarray(e), -1)
    np.testing.assert_allclose(q @ t @ q.conj().T, a, atol=1e-12)


@pytest.mark.usefixtures("x64")
def test_tridiagonal_vmap_matches_a_loop():
    a = _hermitian(np.random.default_rng(12), (3, 4, 4), np.float64)
    outs = tjit.vmap(lambda x: L.tridiagonal(x, lower=False))(a)
    for k, got in enumerate(outs):
        loop = np.stack([np.asarray(L.tridiagonal(x, lower=False)[k]) for x in a])
        np.testing.assert_allclose(got, loop, rtol=1e-12, atol=1e-15)


# -- dtypes, non-finite input, errors -----------------------------------------------------
def test_float16_is_computed_in_float32():
    a = np.random.default_rng(13).standard_normal((4, 3)).astype(np.float16)
    h, tau = jnp.linalg.qr(a, mode="raw")
    assert h.dtype == tau.dtype == np.float16
    want_h, want_tau = np.linalg.qr(a.astype(np.float64), mode="raw")
    np.testing.assert_allclose(np.asarray(h, np.float64), want_h, rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(np.asarray(tau, np.float64), want_tau, rtol=2e-2, atol=2e-2)


@pytest.mark.usefixtures("x64")
def test_non_finite_input_gives_lapacks_result():
    a = np.array([[1.0, 2.0, 3.0], [3.0, np.inf, 1.0], [1.0, 1.0, 1.0]])
    want = lapack.dgehrd(a)[:2]
    for got, w in zip(L.hessenberg(a), want):
        np.testing.assert_array_equal(np.isnan(np.asarray(got)), np.isnan(w))
    h, _ = L.geqrf(np.full((3, 2), np.nan))
    assert np.isnan(np.asarray(h)).all()


@pytest.mark.parametrize("call, match", [
    (lambda: L.householder_product(np.ones((2, 3)), np.ones(2)), "at least as many rows"),
    (lambda: L.householder_product(np.ones((3, 2)), np.ones(3)), "more reflectors"),
    (lambda: L.householder_product(np.ones((2, 3, 2)), np.ones((3, 2))), "batch dims"),
    (lambda: L.householder_product(np.ones((3, 2)), np.ones(2, np.float16)), "dtypes"),
    (lambda: L.ormqr(np.ones((3, 2)), np.ones(2), np.ones((4, 2))), "as many rows"),
    (lambda: L.ormqr(np.ones((3, 2)), np.ones(2), np.ones((4, 4)), left=False),
     "as many columns"),
    (lambda: L.ormqr(np.ones((3, 2)), np.ones(2), np.ones((2, 3, 5))), "batch dims"),
    (lambda: L.hessenberg(np.ones((0, 0))), "at least a 1 x 1"),
    (lambda: L.hessenberg(np.ones((2, 3))), "square"),
    (lambda: L.tridiagonal(np.ones((0, 0))), "at least a 1 x 1"),
    (lambda: L.geqrf(np.ones((3, 2), np.int32)), "floating-point"),
    (lambda: jnp.linalg.qr(np.ones(3), mode="raw"), "rank"),
])
def test_bad_input_is_refused_with_a_message(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_no_derivatives_as_in_jax():
    a = np.random.default_rng(14).standard_normal((3, 3)).astype(np.float32)
    for f in (lambda x: L.hessenberg(x)[0].sum(), lambda x: L.geqrf(x)[0].sum(),
              lambda x: L.tridiagonal(x)[1].sum(),
              lambda x: L.householder_product(x, x[0]).sum()):
        with pytest.raises(Exception, match="differentiable|derivative|not implemented"):
            tjit.grad(f)(a)
