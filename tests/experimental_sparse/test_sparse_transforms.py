"""Sparse arrays through jit, grad (vs central differences in float64) and vmap (vs a
Python loop over the batch)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.experimental import sparse
from tjit.tracing.errors import ConcretizationTypeError


def _sparse_dense(rng, shape, density=0.4, dtype=np.float32):
    x = rng.standard_normal(shape)
    return np.where(rng.random(shape) < density, x, 0.0).astype(dtype)


def _central_diff(f, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (float(f(x + d)) - float(f(x - d))) / (2 * eps)
    return g


def test_jit_matches_eager_and_compiles_once(rng):
    x = _sparse_dense(rng, (8, 6))
    m = sparse.BCOO.fromdense(x)
    v = rng.standard_normal(6).astype(np.float32)
    traces = []

    @tjit.jit
    def f(m, v):
        traces.append(1)
        return (m @ v) * 2 + (m.T @ jnp.ones(8)).sum()

    want = 2 * (x.astype(np.float64) @ v) + x.sum()
    np.testing.assert_allclose(f(m, v), want, rtol=1e-5, atol=1e-5)
    m2 = sparse.BCOO((m.data * 3, m.indices), shape=m.shape, indices_sorted=True,
                     unique_indices=True)           # same structure and flags: no retrace
    np.testing.assert_allclose(f(m2, v), 3 * want, rtol=1e-5, atol=1e-5)
    assert len(traces) == 1


def test_jit_returns_sparse_and_builds_from_dense(rng):
    x = _sparse_dense(rng, (5, 4))
    out = tjit.jit(lambda a: sparse.BCOO.fromdense(a, nse=12) * 2)(x)
    assert isinstance(out, sparse.BCOO) and out.nse == 12
    np.testing.assert_allclose(out.todense(), 2 * x)
    with pytest.raises(ConcretizationTypeError, match="bcoo_fromdense: nse must be known"):
        tjit.jit(lambda a: sparse.BCOO.fromdense(a))(x)
    srt = tjit.jit(lambda m: m.sum_duplicates(nse=m.nse))(sparse.BCOO.fromdense(x))
    np.testing.assert_allclose(srt.todense(), x)


@pytest.mark.parametrize("n_batch", [0, 1])
def test_grad_wrt_data_and_dense_operand(x64, rng, n_batch):
    x = _sparse_dense(rng, (2, 5, 4), dtype=np.float64)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch)
    w = rng.standard_normal((2, 4, 3))
    dims = (((2,), (1,)), ((0,), (0,))) if n_batch else (((2,), (1,)), ((), ()))

    def loss(data, w):
        mat = sparse.BCOO((data, m.indices), shape=m.shape)
        y = sparse.bcoo_dot_general(mat, w, dimension_numbers=dims)
        return jnp.sum(jnp.tanh(y) ** 2) + (mat * 0.5).sum()

    g_data, g_w = tjit.grad(loss, argnums=(0, 1))(m.data, w)
    np.testing.assert_allclose(g_data, _central_diff(lambda d: loss(d, w), m.data),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g_w, _central_diff(lambda v: loss(m.data, v), w),
                               rtol=1e-6, atol=1e-7)
    g_jit = tjit.jit(tjit.grad(loss, argnums=(0, 1)))(m.data, w)
    np.testing.assert_allclose(g_jit[0], g_data, rtol=1e-10)
    np.testing.assert_allclose(g_jit[1], g_w, rtol=1e-10)


def test_grad_through_bcoo_pytree_and_todense(x64, rng):
    x = _sparse_dense(rng, (4, 4), dtype=np.float64)
    m = sparse.BCOO.fromdense(x)
    v = rng.standard_normal(4)
    f = lambda mat: jnp.sum((v @ mat) ** 3) + jnp.sum(mat.todense() ** 2)
    with pytest.raises(TypeError, match="int32"):   # as JAX: the indices are not inexact
        tjit.grad(f)(m)
    g = sparse.grad(f)(m)                        # a BCOO: the gradient on the pattern
    assert isinstance(g, sparse.BCOO) and g.indices is m.indices
    ref = _central_diff(lambda d: f(sparse.BCOO((d, m.indices), shape=m.shape)), m.data)
    np.testing.assert_allclose(g.data, ref, rtol=1e-6, atol=1e-7)
    val, (g2, gv) = sparse.value_and_grad(lambda mat, v: jnp.sum(mat @ v), (0, 1))(m, v)
    np.testing.assert_allclose(val, (x @ v).sum(), rtol=1e-12)
    cols = np.asarray(m.indices)[:, 1]
    np.testing.assert_allclose(g2.data, v[cols], rtol=1e-12)   # d(sum M v)/dM_rc = v_c
    np.testing.assert_allclose(gv, x.sum(0), rtol=1e-12)


def test_sparse_jacobians_on_the_pattern(x64, rng):
    x = _sparse_dense(rng, (3, 4), dtype=np.float64)
    m = sparse.BCOO.fromdense(x)
    v = rng.standard_normal(4)
    want = np.einsum("ir,c->irc", np.eye(3), v) * (x != 0)   # d(Mv)_i/dM_rc on the pattern
    for jac in (sparse.jacrev, sparse.jacfwd):
        j = jac(lambda mat: mat @ v)(m)
        assert isinstance(j, sparse.BCOO) and j.shape == (3, 3, 4)
        np.testing.assert_allclose(j.todense(), want, rtol=1e-12)


def test_grad_of_fromdense_and_dense_rmatmul(x64, rng):
    x = _sparse_dense(rng, (4, 3), dtype=np.float64)
    v = rng.standard_normal(4)

    def f(a):
        mat = sparse.BCOO.fromdense(a, nse=int((x != 0).sum()))
        return jnp.sum(jnp.sin(v @ mat))

    g = tjit.grad(f)(x)
    ref = _central_diff(lambda a: f(a), x)
    np.testing.assert_allclose(g, ref * (x != 0), rtol=1e-6, atol=1e-7)


def test_vmap_over_batched_bcoo_matches_loop(rng):
    x = _sparse_dense(rng, (4, 6, 5))
    mb = sparse.BCOO.fromdense(x, n_batch=1)
    vs = rng.standard_normal((4, 5)).astype(np.float32)

    def f(m, v):
        assert m.shape == (6, 5) and m.n_batch == 0
        return (m @ v) + (m * 2.0).sum(1).todense()

    got = tjit.vmap(f)(mb, vs)
    for i in range(4):
        mi = sparse.BCOO.fromdense(x[i])
        np.testing.assert_allclose(got[i], f(mi, vs[i]), rtol=1e-5, atol=1e-6)
    shared = tjit.vmap(f, in_axes=(0, None))(mb, vs[0])
    np.testing.assert_allclose(shared, np.einsum("bij,j->bi", x, vs[0]) + 2 * x.sum(2),
                               rtol=1e-5, atol=1e-5)


def test_vmap_returns_stacked_bcoo(rng):
    x = _sparse_dense(rng, (3, 4, 4))
    out = tjit.vmap(lambda a: sparse.BCOO.fromdense(a, nse=16).T)(x)
    assert isinstance(out, sparse.BCOO) and out.shape == (3, 4, 4) and out.n_batch == 1
    np.testing.assert_allclose(out.todense(), x.transpose(0, 2, 1))


def test_vmap_over_unbatched_bcoo_is_refused(rng):
    m = sparse.BCOO.fromdense(_sparse_dense(rng, (4, 4)))
    with pytest.raises(ValueError, match="must map one of its batch dims"):
        tjit.vmap(lambda m: m.todense())(m)


def test_vmap_over_dense_operand_only(rng):
    x = _sparse_dense(rng, (6, 5))
    m = sparse.BCOO.fromdense(x)
    vs = rng.standard_normal((3, 5)).astype(np.float32)
    got = tjit.vmap(lambda v: m @ v)(vs)
    np.testing.assert_allclose(got, vs @ x.T.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_grad_with_duplicates_and_padding(x64, rng):
    """Duplicated coordinates each get the full derivative; padding (out-of-bounds) slots
    get zero, whatever their stored value."""
    indices = np.array([[0, 1], [2, 0], [0, 1], [3, 0], [1, 4], [1, 2]])   # 2 padding slots
    data = rng.standard_normal(6)
    v = rng.standard_normal(3)

    def loss(d, v):
        return jnp.sum(jnp.cos(sparse.BCOO((d, indices), shape=(3, 3)) @ v))

    gd, gv = tjit.grad(loss, argnums=(0, 1))(data, v)
    np.testing.assert_allclose(gd, _central_diff(lambda d: loss(d, v), data), atol=1e-8)
    np.testing.assert_allclose(gv, _central_diff(lambda w: loss(data, w), v), atol=1e-8)
    assert gd[3] == 0 and gd[4] == 0


def test_gcn_training_step_matches_dense(x64, rng):
    """A two-layer graph convolution (normalized adjacency as a BCOO): the jitted loss
    and its gradient w.r.t. the weights equal the dense computation; vmap over a batch of
    graphs (n_batch=1) equals a loop."""
    n, f, h = 12, 5, 4
    adj = (rng.random((n, n)) < 0.25).astype(np.float64)
    adj = np.maximum(adj, adj.T) + np.eye(n)
    deg = adj.sum(1)
    norm = adj / np.sqrt(np.outer(deg, deg))
    feats, labels = rng.standard_normal((n, f)), rng.standard_normal((n, 2))
    params = {"w1": rng.standard_normal((f, h)), "w2": rng.standard_normal((h, 2))}

    def loss(params, a, x):
        hid = jnp.tanh(a @ (x @ params["w1"]))
        return jnp.mean((a @ (hid @ params["w2"]) - labels) ** 2)

    a_sp = sparse.BCOO.fromdense(norm)
    val, grads = tjit.jit(tjit.value_and_grad(loss))(params, a_sp, feats)
    val_d, grads_d = tjit.value_and_grad(loss)(params, jnp.asarray(norm), feats)
    np.testing.assert_allclose(val, val_d, rtol=1e-12)
    for k in params:
        np.testing.assert_allclose(grads[k], grads_d[k], rtol=1e-10, atol=1e-12)
    batch = np.stack([norm, norm * 0.5, norm.T])
    a_b = sparse.BCOO.fromdense(batch, n_batch=1)
    per_graph = tjit.vmap(loss, in_axes=(None, 0, None))(params, a_b, feats)
    loop = [loss(params, jnp.asarray(a), feats) for a in batch]
    np.testing.assert_allclose(per_graph, loop, rtol=1e-12)


def test_conjugate_gradient_on_a_sparse_laplacian(x64):
    """A sparse linear solve as programs write it: scipy.sparse.linalg.cg with a BCOO
    matvec, jitted; against numpy.linalg.solve."""
    from tjit.scipy.sparse.linalg import cg
    n = 40
    lap = 4 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    b = np.random.default_rng(0).standard_normal(n)
    m = sparse.BCOO.fromdense(lap)
    x, _ = tjit.jit(lambda m, b: cg(lambda v: m @ v, b, tol=1e-12))(m, b)
    np.testing.assert_allclose(x, np.linalg.solve(lap, b), rtol=1e-9, atol=1e-10)
    x_direct, _ = cg(m, b, tol=1e-12)          # the BCOO itself as the operator
    np.testing.assert_allclose(x_direct, np.linalg.solve(lap, b), rtol=1e-9, atol=1e-10)
