"""sparsify: functions written for dense arrays, run on BCOO/BCSR, against the same
function on the dense arrays (float64)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.experimental import sparse


def _sparse_dense(rng, shape, density=0.4, dtype=np.float64):
    x = rng.standard_normal(shape)
    return np.where(rng.random(shape) < density, x, 0.0).astype(dtype)


def _dense(x):
    return np.asarray(x.todense() if isinstance(x, sparse.JAXSparse) else x)


FUNCTIONS = {  # name -> (function of (m, v, w), result stays sparse)
    "matvec": (lambda m, v, w: m @ v, False),
    "rmatvec_T": (lambda m, v, w: w @ m + m.T @ w, False),
    "dot": (lambda m, v, w: jnp.dot(m, v) - jnp.matmul(w, m) @ v, False),
    "scaled": (lambda m, v, w: (-(2.0 * m) * v) / 4.0, True),
    "unary": (lambda m, v, w: jnp.sin(m) + jnp.tanh(m) ** 3 - jnp.abs(m), True),
    "sums": (lambda m, v, w: m.sum(0) @ w[:4] + jnp.sum(m, axis=1) @ w, False),
    "sum_all": (lambda m, v, w: jnp.sum(m * v), False),     # a full sum is dense (JAX)
    "same_pattern": (lambda m, v, w: m * m + 2 * m - m, True),   # values combine in place
    "slicing": (lambda m, v, w: jnp.concatenate([m[1:3], m[:1]]) * 2.0, True),
    "row": (lambda m, v, w: m[2] @ v + jnp.squeeze(m[:, 1:2], 1) @ w, False),
    "reshape_flip": (lambda m, v, w: jnp.flip(m, 0).reshape(4, 5).T * 3.0, True),
    "dynamic_slice": (lambda m, v, w: tjit.lax.dynamic_slice(m, (1, 1), (3, 2)), True),
    "expand": (lambda m, v, w: jnp.expand_dims(m, 1)[:, 0] * jnp.broadcast_to(m, (2, 5, 4))[1]
               + m[None][0], True),
    "todense": (lambda m, v, w: jnp.exp(sparse.todense(m)) @ v, False),
    "gram": (lambda m, v, w: (m @ m.T) @ w + (m.T * m.T).sum(0) @ w, False),  # sparse x sparse
    "add_dense": (lambda m, v, w: m + jnp.outer(w, v), False),
    "astype": (lambda m, v, w: m.astype(jnp.float32) * 1.5, True),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_sparsify_matches_dense(x64, rng, name):
    f, stays_sparse = FUNCTIONS[name]
    x = _sparse_dense(rng, (5, 4))
    v, w = rng.standard_normal(4), rng.standard_normal(5)
    want = np.asarray(f(jnp.asarray(x), v, w))
    for mat in (sparse.BCOO.fromdense(x), sparse.BCSR.fromdense(x)):
        got = sparse.sparsify(f)(mat, v, w)
        assert isinstance(got, sparse.JAXSparse) == stays_sparse
        np.testing.assert_allclose(_dense(got), want, rtol=1e-6, atol=1e-12)
    jitted = tjit.jit(sparse.sparsify(f))(sparse.BCOO.fromdense(x), v, w)
    np.testing.assert_allclose(_dense(jitted), want, rtol=1e-6, atol=1e-12)


def test_sparsify_pytrees_and_kwargs(x64, rng):
    x = _sparse_dense(rng, (6, 3))
    v = rng.standard_normal(3)
    f = lambda params, *, scale: {"y": scale * (params["m"] @ params["v"])}
    got = sparse.sparsify(f)({"m": sparse.BCOO.fromdense(x), "v": v}, scale=3.0)
    np.testing.assert_allclose(got["y"], 3 * x @ v, rtol=1e-12)


def test_sparsified_logistic_regression_gradient_descent(x64, rng):
    """JAX's sparsify example (logistic regression), with plain gradient descent."""
    X = _sparse_dense(rng, (40, 6), density=0.5)
    y = (rng.random(40) < 0.5).astype(np.float64)

    def loss(params, X, y):
        logits = jnp.dot(X, params[1:]) + params[0]
        return -jnp.mean(y * tjit.nn.log_sigmoid(logits) +
                         (1 - y) * tjit.nn.log_sigmoid(-logits))

    def fit(X, y, steps=30):
        params = jnp.zeros(X.shape[1] + 1)
        for _ in range(steps):
            params = params - 0.5 * tjit.grad(loss)(params, X, y)
        return params

    dense = fit(jnp.asarray(X), y)
    sparse_fit = sparse.sparsify(lambda X, y: fit(X, y))(sparse.BCOO.fromdense(X), y)
    np.testing.assert_allclose(sparse_fit, dense, rtol=1e-10, atol=1e-12)
    assert np.abs(np.asarray(dense)).max() > 1e-2     # it moved from zero


def test_sparsify_vmap_over_dense_argument(rng):
    x = _sparse_dense(rng, (5, 4), dtype=np.float32)
    vs = rng.standard_normal((3, 4)).astype(np.float32)
    m = sparse.BCOO.fromdense(x)
    got = tjit.vmap(lambda v: sparse.sparsify(lambda m, v: m @ v)(m, v))(vs)
    np.testing.assert_allclose(got, vs @ x.T.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_sparsify_unsupported_operation_names_primitive():
    m = sparse.BCOO.fromdense(jnp.eye(3))
    with pytest.raises(NotImplementedError, match="no sparse rule for primitive 'exp'"):
        sparse.sparsify(jnp.exp)(m)
    with pytest.raises(NotImplementedError, match="would densify the sparse array"):
        m + jnp.ones(3)     # (under sparsify jnp.add broadcasts the dense operand first)
    with pytest.raises(NotImplementedError, match="integer_pow with y=-1"):
        sparse.sparsify(lambda a: a ** -1)(m)


def test_sparsify_jax_docs_bfgs_logistic_regression(rng):
    """JAX's sparsify example as written: scipy.optimize.minimize(BFGS) inside (a while
    loop whose body closes over the sparse matrix)."""
    import functools

    from tjit.scipy import optimize
    X = _sparse_dense(rng, (60, 8), density=0.5, dtype=np.float32)
    y = (rng.random(60) < 0.5).astype(np.float32)

    def loss(params, X, y):
        y_hat = 0.5 * (jnp.tanh((jnp.dot(X, params[1:]) + params[0]) / 2) + 1)
        return -jnp.mean(y * jnp.log(y_hat) + (1 - y) * jnp.log(1 - y_hat))

    def fit_logreg(X, y):
        params = jnp.zeros(X.shape[1] + 1)
        return optimize.minimize(functools.partial(loss, X=X, y=y), x0=params,
                                 method="BFGS").x

    dense = fit_logreg(jnp.asarray(X), y)
    sparse_fit = sparse.sparsify(fit_logreg)(sparse.BCOO.fromdense(X), y)
    # The reference is SciPy's float64 optimum. Float32 BFGS stops where the loss (0.63)
    # no longer resolves its steps (status 3, |grad| ~1e-4), ~1e-3 of max|params| from the
    # optimum; where it stops depends on the last bits of the gradient, so dense and sparse
    # (other summation orders) need not agree more closely than that (JAX's two fits differ
    # by 3.9e-4 of max|params| here, each 1e-3 from the optimum).
    import scipy.optimize
    X64, y64 = X.astype(np.float64), y.astype(np.float64)

    def loss64(p):
        z = X64 @ p[1:] + p[0]
        return np.mean(np.logaddexp(0, z) - y64 * z)
    optimum = scipy.optimize.minimize(loss64, np.zeros(9), method="BFGS",
                                      options=dict(gtol=1e-10)).x
    scale = np.max(np.abs(optimum))
    for fit in (dense, sparse_fit):
        np.testing.assert_allclose(np.asarray(fit, np.float64), optimum, atol=3e-3 * scale)
        # and the loss there is the optimum's to float32 resolution
        assert float(loss(fit, jnp.asarray(X), y)) - loss64(optimum) < 1e-6


def test_sparsify_control_flow(x64, rng):
    x = _sparse_dense(rng, (5, 5))
    m = sparse.BCOO.fromdense(x)
    v = rng.standard_normal(5)

    def power(m, v):     # fori_loop -> while with the sparse matrix closed over
        return tjit.lax.fori_loop(0, 3, lambda i, u: m @ u / 2, v)

    def branch(m, v, k):
        return tjit.lax.cond(k > 0, lambda a, u: a @ u, lambda a, u: (a.T @ u) * 2, m, v)

    def scanned(m, v):
        return tjit.lax.scan(lambda c, s: (c + s * (m @ c), (m.T @ c).sum()), v,
                             jnp.arange(3.0))

    np.testing.assert_allclose(sparse.sparsify(power)(m, v), power(jnp.asarray(x), v),
                               rtol=1e-12)
    for k in (1, -1):
        np.testing.assert_allclose(sparse.sparsify(branch)(m, v, k),
                                   branch(jnp.asarray(x), v, k), rtol=1e-12)
    got, want = sparse.sparsify(scanned)(m, v), scanned(jnp.asarray(x), v)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    jitted = tjit.jit(sparse.sparsify(power))(m, v)
    np.testing.assert_allclose(jitted, power(jnp.asarray(x), v), rtol=1e-12)


def test_sparsify_composes_with_sparse_grad_and_vmap(x64, rng):
    x = _sparse_dense(rng, (4, 3))
    v = rng.standard_normal(3)
    f = sparse.sparsify(lambda m, v: jnp.sum(jnp.sin(m @ v)))
    m = sparse.BCOO.fromdense(x)
    g = sparse.grad(f)(m, v)                     # d/d(stored values) = cos((Mv)_r) v_c
    rows, cols = np.asarray(m.indices).T
    np.testing.assert_allclose(g.data, np.cos(x @ v)[rows] * v[cols], rtol=1e-12)
    np.testing.assert_allclose(tjit.grad(f, argnums=1)(m, v), x.T @ np.cos(x @ v),
                               rtol=1e-12)
    xs = np.stack([x, 2 * x, -x])
    got = tjit.vmap(f, in_axes=(0, None))(sparse.BCOO.fromdense(xs, n_batch=1), v)
    np.testing.assert_allclose(got, [np.sum(np.sin(a @ v)) for a in xs], rtol=1e-12)
