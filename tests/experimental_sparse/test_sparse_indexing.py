"""BCOO indexing with None and integer arrays, and @ of N-D sparse with 1-D/2-D operands,
against NumPy float64 on the dense array (and finite differences for the gradient)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.experimental import sparse

RNG = np.random.default_rng(1907)
X = RNG.normal(size=(3, 4, 5)) * (RNG.random((3, 4, 5)) < 0.4)
X[1, 2, 3] = 1.5                                           # at least one entry per batch

KEYS = [None, (None,), (slice(None), None), (0, None), (Ellipsis, None), (None, 1, None, 2),
        np.array([2, 0, -1]), (slice(None), np.array([3, 3, 0])),
        (0, slice(1, 3), np.array([[4, 0], [1, 1]])), (np.array([1, 2]), slice(None), 0),
        (0, slice(None), np.array([1, 4])), (slice(None), np.array([0, 2]), None),
        (None, np.array([1]), 1), (Ellipsis, np.array([0, 4])), [2, 1],
        slice(None, None, -1), (slice(None), slice(3, 0, -2), slice(None, 1, -1)),
        (np.array([0, 2]), slice(None, None, -1), None)]


@pytest.mark.parametrize("layout", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_getitem_matches_numpy(layout):
    m = sparse.BCOO.fromdense(jnp.asarray(X, jnp.float32), n_batch=layout[0],
                              n_dense=layout[1])
    for key in KEYS:
        want = X[key]
        got = np.asarray(m[key].todense())
        assert got.shape == want.shape, key
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=str(key))


def test_getitem_traced_index_under_jit():
    m = sparse.BCOO.fromdense(jnp.asarray(X, jnp.float32), n_batch=1)
    f = tjit.jit(lambda m, i: m[:, i].todense())
    np.testing.assert_allclose(f(m, jnp.array([3, 1, 0])), X[:, [3, 1, 0]], rtol=1e-6)


def test_getitem_grad_matches_finite_differences():
    m = sparse.BCOO.fromdense(jnp.asarray(X, jnp.float32))
    w = RNG.normal(size=(3, 2, 5)).astype(np.float32)
    idx = np.array([3, 0])

    def loss(data):
        return jnp.sum(sparse.BCOO((data, m.indices), shape=m.shape)[:, idx].todense() ** 2 * w)

    g = np.asarray(tjit.grad(loss)(m.data))
    data = np.asarray(m.data, np.float64)
    eps = 1e-3
    for j in range(data.shape[0]):
        e = np.zeros_like(data)
        e[j] = eps
        fd = (float(loss(jnp.asarray(data + e, jnp.float32))) -
              float(loss(jnp.asarray(data - e, jnp.float32)))) / (2 * eps)
        assert abs(g[j] - fd) < 1e-2 * max(1.0, abs(fd)), j


def test_getitem_bad_keys_raise_clearly():
    m = sparse.BCOO.fromdense(jnp.asarray(X, jnp.float32))
    with pytest.raises(NotImplementedError, match="more than one integer array"):
        m[np.array([0]), np.array([1])]
    with pytest.raises(IndexError, match="too many indices"):
        m[0, 0, 0, 0]
    with pytest.raises(TypeError, match="integers"):
        m[np.array([0.5])]
    with pytest.raises(NotImplementedError, match="boolean mask"):
        m[np.array([True, False, True])]


@pytest.mark.parametrize("n_batch", [0, 1, 2])
def test_nd_matmul_with_vector_and_matrix(n_batch):
    m = sparse.BCOO.fromdense(jnp.asarray(X, jnp.float32), n_batch=n_batch)
    v = RNG.normal(size=5)
    w = RNG.normal(size=(5, 2))
    u = RNG.normal(size=4)
    np.testing.assert_allclose(m @ jnp.asarray(v, jnp.float32), X @ v, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m @ jnp.asarray(w, jnp.float32), X @ w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(jnp.asarray(u, jnp.float32) @ m, u @ X, rtol=1e-4, atol=1e-5)


GATHER_CASES = [   # (start indices, offset, collapsed, start_index_map, slice sizes, NumPy)
    ([[1], [3], [0]], (1, 2), (0,), (0,), (1, 5, 3), lambda x: x[[1, 3, 0]]),
    ([[1, 2], [3, 0]], (1,), (0, 1), (0, 1), (1, 1, 3), lambda x: x[[1, 3], [2, 0]]),
    ([[2], [4]], (0, 2), (1,), (1,), (4, 1, 3), lambda x: x[:, [2, 4]]),
    ([[1, 0], [2, 1]], (1, 2), (0,), (0, 1), (1, 3, 3),
     lambda x: np.stack([x[1, 0:3], x[2, 1:4]])),
]


@pytest.mark.parametrize("layout", [(0, 0), (1, 0), (0, 1)])
def test_bcoo_gather_matches_numpy_indexing(layout):
    from tjit import lax
    x = X.transpose(1, 2, 0)[:, :, :3].copy()       # shape (4, 5, 3)
    m = sparse.BCOO.fromdense(jnp.asarray(x, jnp.float32), n_batch=layout[0],
                              n_dense=layout[1])
    for idx, offset, collapsed, index_map, sizes, ref in GATHER_CASES:
        dn = lax.GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=collapsed,
                                        start_index_map=index_map)
        got = sparse.bcoo_gather(m, jnp.array(idx), dn, sizes)
        np.testing.assert_allclose(got.todense(), ref(x), rtol=1e-6, err_msg=str(idx))
    jitted = tjit.jit(lambda m, i: sparse.bcoo_gather(m, i, dn, sizes).todense())
    np.testing.assert_allclose(jitted(m, jnp.array(idx)), ref(x), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="mode="):
        sparse.bcoo_gather(m, jnp.array(idx), dn, sizes, mode="fill")


def test_sparsify_of_dense_fancy_indexing_matches_numpy():
    x = X[0]
    m = sparse.BCOO.fromdense(jnp.asarray(x, jnp.float32))
    funs = [(lambda a: a[jnp.array([2, 0])], lambda a: a[[2, 0]]),
            (lambda a: a[:, jnp.array([1, 3])] * 2, lambda a: a[:, [1, 3]] * 2),
            (lambda a: a[jnp.array([1, 2]), jnp.array([0, 3])], lambda a: a[[1, 2], [0, 3]])]
    for f, ref in funs:
        out = sparse.sparsify(f)(m)
        assert isinstance(out, sparse.BCOO)
        np.testing.assert_allclose(out.todense(), ref(x), rtol=1e-6)
