"""BCOO against NumPy float64 (dense references built by hand) and scipy.sparse."""

import numpy as np
import pytest
import scipy.sparse

import tjit
import tjit.numpy as jnp
from tjit.experimental import sparse

LAYOUTS = [  # (shape, n_batch, n_dense)
    ((5, 4), 0, 0), ((3, 5, 4), 1, 0), ((5, 4, 2), 0, 1), ((2, 5, 4, 3), 1, 1),
    ((2, 3, 4), 2, 0), ((6,), 0, 0), ((3, 4, 5), 0, 0)]


def _sparse_dense(rng, shape, density=0.35):
    x = rng.standard_normal(shape)
    return np.where(rng.random(shape) < density, x, 0.0).astype(np.float32)


def _ref_todense(data, indices, shape):
    """Python loop: add each entry's block; entries out of bounds are dropped."""
    data, indices = np.asarray(data, np.float64), np.asarray(indices)
    n_batch = indices.ndim - 2
    out = np.zeros(shape)
    for b in np.ndindex(*shape[:n_batch]):
        bi = tuple(i if indices.shape[k] > 1 else 0 for k, i in enumerate(b))
        bd = tuple(i if data.shape[k] > 1 else 0 for k, i in enumerate(b))
        sparse_shape = shape[n_batch:n_batch + indices.shape[-1]]
        for j in range(indices.shape[-2]):
            idx = tuple(indices[bi + (j,)])
            if all(0 <= i < s for i, s in zip(idx, sparse_shape)):
                out[b + idx] += data[bd + (j,)]
    return out


@pytest.mark.parametrize("shape,n_batch,n_dense", LAYOUTS)
def test_fromdense_todense_roundtrip(rng, shape, n_batch, n_dense):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    assert (m.n_batch, m.n_dense, m.shape) == (n_batch, n_dense, shape)
    assert m.indices_sorted and m.unique_indices
    # nse = the largest count of nonzero sparse positions over batch elements
    n_sparse = len(shape) - n_batch - n_dense
    mask = (x != 0).any(tuple(range(n_batch + n_sparse, x.ndim))) if n_dense else x != 0
    counts = mask.reshape(shape[:n_batch] + (-1,)).sum(-1)
    assert m.nse == counts.max()
    np.testing.assert_array_equal(m.todense(), x)
    np.testing.assert_array_equal(_ref_todense(m.data, m.indices, shape), x)


def test_fromdense_nse_pads_and_truncates():
    x = np.array([[0., 2., 0.], [1., 0., 4.]], np.float32)
    m = sparse.bcoo_fromdense(x, nse=5)
    np.testing.assert_array_equal(m.data, [2, 1, 4, 0, 0])
    np.testing.assert_array_equal(m.indices, [[0, 1], [1, 0], [1, 2], [2, 3], [2, 3]])
    np.testing.assert_array_equal(m.todense(), x)
    m2 = sparse.bcoo_fromdense(x, nse=2)            # row-major first two kept (as JAX)
    np.testing.assert_array_equal(m2.todense(), [[0, 2, 0], [1, 0, 0]])
    m3 = sparse.bcoo_fromdense(x, index_dtype=np.int16)
    assert m3.indices.dtype == np.int16


def test_todense_sums_duplicates_and_drops_out_of_bounds():
    data = np.array([1., 2., 3., 4., 5.], np.float32)
    indices = np.array([[0, 1], [2, 2], [0, 1], [3, 0], [1, 5]])   # last two out of bounds
    m = sparse.BCOO((data, indices), shape=(3, 3))
    np.testing.assert_array_equal(m.todense(), _ref_todense(data, indices, (3, 3)))
    assert m.todense()[0, 1] == 4.0


def test_batch_dims_of_size_one_broadcast():
    data = np.arange(6, dtype=np.float32).reshape(3, 2)
    indices = np.array([[[0], [2]]])                  # one index set shared by 3 batches
    m = sparse.BCOO((data, indices), shape=(3, 4))
    np.testing.assert_array_equal(m.todense(), _ref_todense(data, indices, (3, 4)))


@pytest.mark.parametrize("shape,n_batch,n_dense", LAYOUTS)
def test_transpose(rng, shape, n_batch, n_dense):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    n_sparse = len(shape) - n_batch - n_dense
    groups = [list(range(n_batch)), list(range(n_batch, n_batch + n_sparse)),
              list(range(n_batch + n_sparse, len(shape)))]
    perm = tuple(d for g in groups for d in g[::-1])
    np.testing.assert_array_equal(sparse.bcoo_transpose(m, permutation=perm).todense(),
                                  x.transpose(perm))
    if n_batch == 0 and n_dense == 0:
        np.testing.assert_array_equal(m.T.todense(), x.T)


def test_transpose_across_layout_groups_is_refused():
    m = sparse.BCOO.fromdense(np.eye(3, dtype=np.float32), n_batch=1)
    with pytest.raises(NotImplementedError, match="mixes batch"):
        m.T


@pytest.mark.parametrize("shape,n_batch,n_dense", LAYOUTS)
def test_reduce_sum_every_axis_subset(rng, shape, n_batch, n_dense):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense, nse=None)
    m = sparse.BCOO((m.data, m.indices.at[..., -1, :].set(99)), shape=shape)  # one padding
    x = _ref_todense(m.data, m.indices, shape)
    for r in range(len(shape) + 1):
        for axes in __import__("itertools").combinations(range(len(shape)), r):
            got = sparse.bcoo_reduce_sum(m, axes=axes).todense()
            np.testing.assert_allclose(got, x.sum(axes), rtol=1e-5, atol=1e-5,
                                       err_msg=str(axes))
    total = m.sum()                      # a full sum is a dense scalar (as JAX's)
    assert not isinstance(total, sparse.BCOO)
    np.testing.assert_allclose(total, x.sum(), rtol=1e-5)


@pytest.mark.parametrize("shape,n_batch,n_dense", LAYOUTS)
def test_multiply_dense_and_scalar(rng, shape, n_batch, n_dense):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    v = rng.standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose((m * v).todense(), x * v, rtol=1e-6)
    np.testing.assert_allclose((v[-1:] * m).todense(), x * v[-1:], rtol=1e-6)  # broadcast
    np.testing.assert_allclose((m * 3.0).todense(), 3 * x, rtol=1e-6)
    np.testing.assert_allclose((m / 2.0).todense(), x / 2, rtol=1e-6)
    np.testing.assert_allclose((-m).todense(), -x)
    assert (m * v).nse == m.nse


def test_multiply_dense_shape_errors():
    m = sparse.BCOO.fromdense(np.eye(3, dtype=np.float32))
    with pytest.raises(ValueError, match=r"bcoo_multiply_dense: a dense operand of shape "
                                         r"\(2, 3, 3\) must broadcast to the sparse shape"):
        m * np.ones((2, 3, 3))
    with pytest.raises(NotImplementedError, match="sparse / dense"):
        m / np.ones((3, 3))


def _unsorted_with_duplicates(rng, shape=(4, 5), nse=12):
    indices = np.stack([rng.integers(0, s + 1, nse) for s in shape], -1)  # some out of bounds
    data = rng.standard_normal(nse).astype(np.float32)
    data[3] = 0.0
    return data, indices


def test_sort_indices(rng):
    data, indices = _unsorted_with_duplicates(rng)
    m = sparse.BCOO((data, indices), shape=(4, 5)).sort_indices()
    assert m.indices_sorted
    keys = [tuple(r) for r in np.asarray(m.indices)]
    assert keys == sorted(keys)
    np.testing.assert_allclose(m.todense(), _ref_todense(data, indices, (4, 5)), rtol=1e-6)


@pytest.mark.parametrize("remove_zeros", [False, True])
def test_sum_duplicates(rng, remove_zeros):
    data, indices = _unsorted_with_duplicates(rng)
    m = sparse.BCOO((data, indices), shape=(4, 5))
    ref = _ref_todense(data, indices, (4, 5))
    out = m.sum_duplicates(remove_zeros=remove_zeros)
    ok = np.all(indices < [4, 5], -1)
    live = ok & (data != 0) if remove_zeros else ok
    expect_nse = len({tuple(r) for r in indices[live]})
    assert out.nse == expect_nse and out.unique_indices and out.indices_sorted
    keys = [tuple(r) for r in np.asarray(out.indices)]
    assert keys == sorted(set(keys))
    np.testing.assert_allclose(out.todense(), ref, rtol=1e-6, atol=1e-6)
    padded = m.sum_duplicates(nse=expect_nse + 3, remove_zeros=remove_zeros)
    assert (np.asarray(padded.indices[-3:]) == [4, 5]).all()
    np.testing.assert_allclose(padded.todense(), ref, rtol=1e-6, atol=1e-6)


def test_sum_duplicates_batched(rng):
    data = rng.standard_normal((3, 6)).astype(np.float32)
    indices = rng.integers(0, 3, (3, 6, 1))
    m = sparse.BCOO((data, indices), shape=(3, 3))
    out = sparse.bcoo_sum_duplicates(m)
    np.testing.assert_allclose(out.todense(), _ref_todense(data, indices, (3, 3)), rtol=1e-5)


def test_extract_first_occurrence_for_duplicates():
    indices = np.array([[0, 1], [0, 1], [1, 1]])
    m = sparse.BCOO((np.ones(3, np.float32), indices), shape=(2, 2))
    arr = np.array([[1., 2.], [3., 4.]], np.float32)
    np.testing.assert_array_equal(sparse.bcoo_extract(m, arr).data, [2, 0, 4])
    np.testing.assert_array_equal(sparse.bcoo_extract(m, arr, assume_unique=True).data,
                                  [2, 2, 4])


def test_from_scipy_sparse_matvec_matches_scipy(rng):
    a = scipy.sparse.random(40, 30, density=0.1, random_state=0, format="csr", dtype=np.float64)
    x = rng.standard_normal(30)
    m = sparse.BCOO.from_scipy_sparse(a)
    np.testing.assert_allclose(m @ x.astype(np.float32), a @ x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m.todense(), a.toarray(), rtol=1e-6)


def test_constructor_errors():
    with pytest.raises(ValueError, match=r"data must have shape batch \+ \(nse=2,\)"):
        sparse.BCOO((np.ones(3), np.zeros((2, 2), np.int32)), shape=(3, 3))
    with pytest.raises(TypeError, match="indices must be integers"):
        sparse.BCOO((np.ones(2), np.zeros((2, 2))), shape=(3, 3))
    with pytest.raises(ValueError, match="exceeds len"):
        sparse.BCOO((np.ones(2), np.zeros((2, 3), np.int32)), shape=(3, 3))
    with pytest.raises(ValueError, match="bcoo_fromdense: n_batch=3"):
        sparse.bcoo_fromdense(np.ones((2, 2)), n_batch=3)


def test_repr_and_properties():
    m = sparse.BCOO.fromdense(jnp.ones((2, 3, 4)), n_batch=1, n_dense=1)
    assert repr(m) == "BCOO(float32[2, 3, 4], nse=3, n_batch=1, n_dense=1)"
    assert (m.ndim, m.size, m.n_sparse, len(m), m.dtype) == (3, 24, 1, 2, np.float32)


@pytest.mark.parametrize("shape,n_batch,n_dense", LAYOUTS)
def test_update_layout_to_fewer_batch_and_dense_dims(rng, shape, n_batch, n_dense):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    for nb in range(n_batch + 1):
        for nd in range(n_dense + 1):
            out = sparse.bcoo_update_layout(m, n_batch=nb, n_dense=nd)
            assert (out.n_batch, out.n_dense, out.shape) == (nb, nd, shape)
            np.testing.assert_array_equal(out.todense(), x)
            if out.indices_sorted:
                for b in np.ndindex(*out.indices.shape[:nb]):
                    keys = [tuple(r) for r in np.asarray(out.indices[b])]
                    assert keys == sorted(keys)


def test_update_layout_to_more_dims_is_inefficient():
    x = np.eye(4, dtype=np.float32)
    m = sparse.BCOO.fromdense(x)
    with pytest.raises(sparse.SparseEfficiencyError, match="stores explicit zeros"):
        m.update_layout(n_batch=1)
    with pytest.warns(sparse.SparseEfficiencyWarning):
        out = m.update_layout(n_dense=1, on_inefficient="warn")
    assert out.n_dense == 1
    np.testing.assert_array_equal(out.todense(), x)


@pytest.mark.parametrize("shape,n_batch,n_dense", LAYOUTS)
def test_indexing_and_slicing_match_numpy(rng, shape, n_batch, n_dense):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    keys = [0, -1, slice(1, None), slice(None, None, 2), (Ellipsis, 1), (slice(1, 3), 0),
            (0, Ellipsis), (slice(None), slice(1, None, 2))]
    for key in keys:
        try:
            want = x[key]
        except IndexError:
            continue
        got = m[key]
        assert got.shape == want.shape, key
        np.testing.assert_array_equal(got.todense(), want, err_msg=str(key))
    with pytest.raises(IndexError, match="out of bounds for dim 0"):
        m[shape[0]]
    with pytest.raises(IndexError, match="only ints, slices"):
        m[1.5]


def test_slice_shrinks_nse_to_the_window():
    m = sparse.BCOO.fromdense(np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4))
    out = sparse.bcoo_slice(m, start_indices=(1, 1), limit_indices=(2, 3))
    assert out.nse == 2
    np.testing.assert_array_equal(out.todense(), [[6, 7]])
    np.testing.assert_array_equal(sparse.bcoo_squeeze(out, dimensions=(0,)).todense(), [6, 7])


@pytest.mark.parametrize("shape,n_batch,n_dense", LAYOUTS)
def test_concatenate_every_dim(rng, shape, n_batch, n_dense):
    for dim in range(len(shape)):
        other = shape[:dim] + (2,) + shape[dim + 1:]
        xs = [_sparse_dense(rng, shape), _sparse_dense(rng, other, density=0.7)]
        ms = [sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense) for x in xs]
        ms[0] = sparse.BCOO.fromdense(xs[0], n_batch=n_batch, n_dense=n_dense,
                                      nse=ms[0].nse + 1)      # padding must stay padding
        out = sparse.bcoo_concatenate(ms, dimension=dim)
        np.testing.assert_array_equal(out.todense(), np.concatenate(xs, axis=dim))


def test_concatenate_errors():
    a = sparse.BCOO.fromdense(np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match="differ in layout or in a dim other than 0"):
        sparse.bcoo_concatenate([a, sparse.BCOO.fromdense(np.ones((3, 5), np.float32))],
                                dimension=0)
    with pytest.raises(ValueError, match="differ in layout"):
        sparse.bcoo_concatenate([a, sparse.BCOO.fromdense(np.ones((3, 4)), n_batch=1)],
                                dimension=0)


@pytest.mark.parametrize("shape,n_batch,n_dense", LAYOUTS)
def test_rev_and_dynamic_slice(rng, shape, n_batch, n_dense):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense,
                              nse=None)
    m = sparse.BCOO((m.data, m.indices), shape=shape)
    for dims in [(0,), (len(shape) - 1,), tuple(range(len(shape)))]:
        np.testing.assert_array_equal(sparse.bcoo_rev(m, dims).todense(), np.flip(x, dims))
    sizes = tuple(max(1, n - 1) for n in shape)
    for start in [(1,) * len(shape), (-1,) * len(shape), (5,) * len(shape)]:
        got = tjit.jit(lambda m, s: sparse.bcoo_dynamic_slice(m, s, sizes))(
            m, [np.int32(s) for s in start])
        want = np.asarray(tjit.lax.dynamic_slice(jnp.asarray(x), start, sizes))
        np.testing.assert_array_equal(got.todense(), want, err_msg=str(start))


@pytest.mark.parametrize("shape,n_batch,n_dense,new", [
    ((4, 6), 0, 0, (24,)), ((4, 6), 0, 0, (2, 3, 4)), ((24,), 0, 0, (6, 1, 4)),
    ((2, 4, 6), 1, 0, (2, 3, 8)), ((6, 4, 2), 1, 1, (3, 2, 4, 2)),
    ((4, 6, 2), 0, 1, (24, 2)), ((1, 4), 0, 0, (4,)), ((4, 1), 0, 0, (4,))])
def test_reshape(rng, shape, n_batch, n_dense, new):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense, nse=m.nse + 1)  # padding
    np.testing.assert_array_equal(sparse.bcoo_reshape(m, new_sizes=new).todense(),
                                  x.reshape(new))


def test_reshape_refuses_mixing_groups():
    m = sparse.BCOO.fromdense(np.ones((2, 3), np.float32), n_batch=1)
    with pytest.raises(ValueError, match="mixes batch, sparse and dense dims"):
        sparse.bcoo_reshape(m, new_sizes=(3, 2))


def test_bad_sizes_and_axes_are_refused():
    m = sparse.BCOO.fromdense(np.eye(3, dtype=np.float32))
    for nse in (-1, 1.5, np.float32(2)):
        with pytest.raises(ValueError, match="bcoo_fromdense: nse must be a non-negative "
                                             "integer"):
            sparse.bcoo_fromdense(np.eye(2), nse=nse)
    with pytest.raises(ValueError, match="bcoo_sum_duplicates: nse must be a non-negative"):
        m.sum_duplicates(nse=-2)
    with pytest.raises(ValueError, match="bcoo_reduce_sum: axis 2 is out of bounds for an "
                                         "array of rank 2"):
        m.sum(2)
    with pytest.raises(ValueError, match="bcoo_squeeze: axis -3 is out of bounds"):
        sparse.bcoo_squeeze(m, dimensions=(-3,))
    with pytest.raises(ValueError, match="sparse.eye: N and M must be non-negative"):
        sparse.eye(-1)
    np.testing.assert_array_equal(m.sum(-1).todense(), np.ones(3))


def test_empty_arrays_through_every_operation():
    m = sparse.BCOO.fromdense(np.zeros((3, 4), np.float32))
    assert m.nse == 0
    np.testing.assert_array_equal(m.todense(), np.zeros((3, 4)))
    for out in (m.sum_duplicates(), m.sum_duplicates(nse=2), m.sort_indices(), m.T, m[1:],
                m * np.ones((3, 4)), m @ sparse.BCOO.fromdense(np.ones((4, 2), np.float32)),
                sparse.bcoo_reshape(m, new_sizes=(12,)), m.sum(0)):
        np.testing.assert_array_equal(np.asarray(out.todense()), 0)
    np.testing.assert_array_equal(m @ np.ones(4, np.float32), np.zeros(3))
    assert sparse.bcoo_extract(m, np.ones((3, 4)), assume_unique=False).data.shape == (0,)


@pytest.mark.parametrize("shape,n_batch,n_dense,target,bdims", [
    ((3, 4), 0, 0, (1, 3, 4), (1, 2)),            # a new leading (batch) dim
    ((3, 4), 0, 0, (5, 3, 4), (1, 2)),            # ... of any size
    ((3, 4), 0, 0, (3, 1, 4), (0, 2)),            # a size-1 dim among the sparse dims
    ((3, 4), 0, 0, (3, 4, 2), (0, 1)),            # a new trailing (dense) dim
    ((2, 3, 4), 1, 0, (2, 6, 3, 4), (0, 2, 3)),
    ((1, 3, 4), 1, 0, (5, 3, 4), (0, 1, 2)),      # a size-1 batch dim grows
    ((3, 4, 1), 0, 1, (3, 4, 6), (0, 1, 2)),      # a size-1 dense dim grows
])
def test_broadcast_in_dim(rng, shape, n_batch, n_dense, target, bdims):
    x = _sparse_dense(rng, shape)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    got = sparse.bcoo_broadcast_in_dim(m, shape=target, broadcast_dimensions=bdims)
    want = np.asarray(tjit.lax.broadcast_in_dim(jnp.asarray(x), target, bdims))
    np.testing.assert_array_equal(got.todense(), want)


def test_broadcast_in_dim_refuses_replicating_entries():
    m = sparse.BCOO.fromdense(np.ones((1, 4), np.float32))
    with pytest.raises(NotImplementedError, match="growing a sparse dim of size 1"):
        sparse.bcoo_broadcast_in_dim(m, shape=(3, 4), broadcast_dimensions=(0, 1))
