"""BCSR, the constructors (eye, empty, random_bcoo) and the public namespace."""

import types

import numpy as np
import pytest
import scipy.sparse

import tjit
import tjit.numpy as jnp
from tjit.experimental import sparse


def _sparse_dense(rng, shape, density=0.4):
    x = rng.standard_normal(shape)
    return np.where(rng.random(shape) < density, x, 0.0).astype(np.float32)


@pytest.mark.parametrize("shape,n_batch,n_dense", [((6, 5), 0, 0), ((3, 6, 5), 1, 0),
                                                   ((6, 5, 2), 0, 1)])
def test_bcsr_fromdense_matches_scipy_csr(rng, shape, n_batch, n_dense):
    x = _sparse_dense(rng, shape)
    m = sparse.BCSR.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    np.testing.assert_array_equal(m.todense(), x)
    np.testing.assert_array_equal(sparse.bcsr_todense(m), x)
    if n_batch == n_dense == 0:
        ref = scipy.sparse.csr_matrix(x)
        np.testing.assert_array_equal(m.indptr, ref.indptr)
        np.testing.assert_array_equal(m.indices, ref.indices)
        np.testing.assert_array_equal(m.data, ref.data)


def test_bcsr_bcoo_roundtrip_with_padding_and_unsorted_input(rng):
    x = _sparse_dense(rng, (5, 4))
    coo = sparse.BCOO.fromdense(x, nse=int((x != 0).sum()) + 3)          # 3 padding slots
    perm = rng.permutation(coo.nse)
    shuffled = sparse.BCOO((coo.data[perm], coo.indices[perm]), shape=coo.shape)
    csr = sparse.BCSR.from_bcoo(shuffled)
    assert int(csr.indptr[-1]) == int((x != 0).sum())
    np.testing.assert_array_equal(csr.todense(), x)
    back = csr.to_bcoo()
    np.testing.assert_array_equal(back.todense(), x)
    np.testing.assert_array_equal(back.indices[-3:], [[5, 4]] * 3)   # padding stays padding


def test_bcsr_from_scipy_and_operators(rng):
    a = scipy.sparse.random(30, 20, density=0.15, random_state=1, format="csr", dtype=np.float32)
    m = sparse.BCSR.from_scipy_sparse(a)
    v = rng.standard_normal(20).astype(np.float32)
    np.testing.assert_allclose(m @ v, a.astype(np.float64) @ v, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose((m * 2).todense(), 2 * a.toarray())
    assert isinstance(m * 2, sparse.BCSR)
    out = tjit.jit(lambda m, v: m @ v)(m, v)
    np.testing.assert_allclose(out, a.astype(np.float64) @ v, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="indptr must have shape"):
        sparse.BCSR((m.data, m.indices, m.indptr[:-1]), shape=m.shape)


@pytest.mark.parametrize("N,M,k", [(4, None, 0), (4, 6, 2), (5, 3, -1), (3, 3, 5)])
def test_eye(N, M, k):
    for fmt in ("bcoo", "bcsr"):
        e = sparse.eye(N, M, k, sparse_format=fmt)
        np.testing.assert_array_equal(e.todense(), np.eye(N, M, k))
    e1 = sparse.eye(N, M, k, n_batch=1)
    np.testing.assert_array_equal(e1.todense(), np.eye(N, M, k))


def test_empty_and_todense():
    e = sparse.empty((3, 4), dtype=jnp.float32, nse=2)
    assert e.nse == 2
    np.testing.assert_array_equal(e.todense(), np.zeros((3, 4)))
    np.testing.assert_array_equal(sparse.empty((2, 3, 4), n_batch=1).todense(),
                                  np.zeros((2, 3, 4)))
    np.testing.assert_array_equal(sparse.todense(e), np.zeros((3, 4)))
    x = jnp.ones(3)
    assert sparse.todense(x) is x
    with pytest.raises(ValueError, match="sparse_format must be one of"):
        sparse.empty((2, 2), sparse_format="csc")


def test_random_bcoo():
    key = tjit.random.PRNGKey(3)
    m = sparse.random_bcoo(key, (10, 8), nse=0.25)
    assert m.nse == 20 and m.unique_indices
    idx = np.asarray(m.indices)
    assert len({tuple(r) for r in idx}) == 20 and (idx < [10, 8]).all()
    np.testing.assert_allclose(np.asarray(m.todense())[tuple(idx.T)], m.data)
    mb = sparse.random_bcoo(key, (3, 10, 8), nse=5, n_batch=1, n_dense=0,
                            sorted_indices=True)
    assert mb.indices.shape == (3, 5, 2)
    for b in range(3):
        keys = [tuple(r) for r in np.asarray(mb.indices[b])]
        assert keys == sorted(set(keys))
    np.testing.assert_array_equal(sparse.random_bcoo(key, (10, 8), nse=0.25).data, m.data)
    with pytest.raises(ValueError, match="unique entries do not fit"):
        sparse.random_bcoo(key, (2, 2), nse=5)


def test_namespace_lists_public_api_with_docstrings():
    shown = dir(sparse)
    assert not [n for n in shown if n.startswith("_") or n.endswith("_p")]
    assert not [n for n in shown if isinstance(getattr(sparse, n), types.ModuleType)]
    assert {"BCOO", "BCSR", "sparsify", "bcoo_dot_general", "grad", "eye"} <= set(shown)
    undocumented = [n for n in shown if callable(getattr(sparse, n))
                    and not (getattr(sparse, n).__doc__ or "").strip()]
    assert not undocumented


def test_bcsr_functions(rng):
    x, y = _sparse_dense(rng, (5, 4)), _sparse_dense(rng, (3, 4))
    m = sparse.BCSR.fromdense(x)
    w = rng.standard_normal((4, 2)).astype(np.float32)
    np.testing.assert_allclose(
        sparse.bcsr_dot_general(m, w, dimension_numbers=(((1,), (0,)), ((), ()))),
        x.astype(np.float64) @ w, rtol=1e-5, atol=1e-6)
    dense = rng.standard_normal((5, 4)).astype(np.float32)
    got = sparse.bcsr_extract(m.indices, m.indptr, dense)
    np.testing.assert_array_equal(sparse.BCSR((got, m.indices, m.indptr), shape=(5, 4))
                                  .todense(), np.where(x != 0, dense, 0))
    both = sparse.bcsr_concatenate([m, sparse.BCSR.fromdense(y)], dimension=0)
    assert isinstance(both, sparse.BCSR)
    np.testing.assert_array_equal(both.todense(), np.concatenate([x, y]))
    dup = sparse.BCSR((jnp.array([1., 2., 3.]), jnp.array([1, 1, 0]), jnp.array([0, 2, 3])),
                      shape=(2, 2))
    summed = sparse.bcsr_sum_duplicates(dup)
    assert summed.nse == 2
    np.testing.assert_array_equal(summed.todense(), [[0, 3], [3, 0]])


@pytest.mark.parametrize("shape", [(-1,), ((2, 12),), (2, 3, 2, 2), ((2, -1, 4),)])
def test_bcoo_reshape_method_as_ndarray(shape):
    """(BCOO had no reshape method, which JAX's has: AttributeError)"""
    m = np.arange(24.0).reshape(2, 3, 4)
    m[m % 3 == 0] = 0
    out = sparse.BCOO.fromdense(jnp.asarray(m)).reshape(*shape)
    assert isinstance(out, sparse.BCOO)
    np.testing.assert_array_equal(out.todense(), m.reshape(*shape))
