"""bcoo_dot_general / @ / bcoo_dot_general_sampled against np.einsum in float64."""

import numpy as np
import pytest

import tjit.numpy as jnp
from tjit.experimental import sparse


def _sparse_dense(rng, shape, density=0.4):
    x = rng.standard_normal(shape)
    return np.where(rng.random(shape) < density, x, 0.0).astype(np.float32)


def _ref_dot(x, y, dims):
    """lax.dot_general in float64 by einsum: output (batch, x kept, y kept)."""
    (xc, yc), (xb, yb) = dims
    letters = iter("abcdefghijklmnop")
    xs = [next(letters) for _ in range(x.ndim)]
    ys = [next(letters) for _ in range(y.ndim)]
    for i, j in zip(list(xc) + list(xb), list(yc) + list(yb)):
        ys[j] = xs[i]
    out = ([xs[i] for i in xb] + [xs[i] for i in range(x.ndim) if i not in xc + xb] +
           [ys[j] for j in range(y.ndim) if j not in yc + yb])
    return np.einsum(f"{''.join(xs)},{''.join(ys)}->{''.join(out)}",
                     x.astype(np.float64), y.astype(np.float64))


CASES = [  # (sparse shape, n_batch, n_dense, dense shape, dims)
    ((6, 5), 0, 0, (5,), (((1,), (0,)), ((), ()))),                 # matvec
    ((6, 5), 0, 0, (5, 3), (((1,), (0,)), ((), ()))),               # matmat
    ((6, 5), 0, 0, (6,), (((0,), (0,)), ((), ()))),                 # M.T @ v
    ((6, 5), 0, 0, (3, 6), (((0,), (1,)), ((), ()))),
    ((6, 5), 0, 0, (4, 5, 6), (((0, 1), (2, 1)), ((), ()))),        # contract both dims
    ((6, 5), 0, 0, (3,), (((), ()), ((), ()))),                     # outer product
    ((6, 5, 2), 0, 1, (5, 3), (((1,), (0,)), ((), ()))),            # dense dim kept
    ((3, 6, 5), 1, 0, (3, 5), (((2,), (1,)), ((0,), (0,)))),        # batched matvec
    ((3, 6, 5), 1, 0, (3, 5, 2), (((2,), (1,)), ((0,), (0,)))),
    ((3, 6, 5), 1, 0, (5, 2), (((2,), (0,)), ((), ()))),            # free batch dim
    ((3, 6, 5), 1, 0, (3, 6), (((0, 1), (0, 1)), ((), ()))),        # contract a batch dim
    ((2, 3, 4, 5), 2, 0, (3, 2, 5), (((3,), (2,)), ((0, 1), (1, 0)))),
    ((4, 3, 5), 0, 0, (5, 3), (((1, 2), (1, 0)), ((), ()))),        # 3 sparse dims
]


@pytest.mark.parametrize("sp_shape,n_batch,n_dense,d_shape,dims", CASES)
def test_sparse_dense_dot_general(rng, sp_shape, n_batch, n_dense, d_shape, dims):
    x = _sparse_dense(rng, sp_shape)
    y = rng.standard_normal(d_shape).astype(np.float32)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    got = sparse.bcoo_dot_general(m, y, dimension_numbers=dims)
    np.testing.assert_allclose(got, _ref_dot(x, y, dims), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("sp_shape,n_batch,n_dense,d_shape,dims", CASES)
def test_dense_sparse_dot_general(rng, sp_shape, n_batch, n_dense, d_shape, dims):
    x = _sparse_dense(rng, sp_shape)
    y = rng.standard_normal(d_shape).astype(np.float32)
    m = sparse.BCOO.fromdense(x, n_batch=n_batch, n_dense=n_dense)
    swapped = tuple(tuple(d[::-1]) for d in dims)
    got = sparse.bcoo_dot_general(y, m, dimension_numbers=swapped)
    np.testing.assert_allclose(got, _ref_dot(y, x, swapped), rtol=2e-5, atol=2e-5)


def test_matmul_operators_both_sides(rng):
    x = _sparse_dense(rng, (7, 5))
    m = sparse.BCOO.fromdense(x)
    v, w, a = (rng.standard_normal(s).astype(np.float32) for s in [(5,), (7,), (5, 3)])
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(m @ v, x64 @ v, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(w @ m, w @ x64, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(jnp.asarray(w) @ m, w @ x64, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(m @ a, x64 @ a, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(a.T @ m.T, a.T @ x64.T, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(m.dot(v), x64 @ v, rtol=2e-5, atol=1e-5)
    mb = sparse.BCOO.fromdense(_sparse_dense(rng, (2, 4, 5)), n_batch=1)
    ab = rng.standard_normal((2, 5, 3)).astype(np.float32)
    np.testing.assert_allclose(mb @ ab, np.asarray(mb.todense(), np.float64) @ ab,
                               rtol=2e-5, atol=1e-5)


def test_bcsr_matmul(rng):
    x = _sparse_dense(rng, (7, 5))
    m = sparse.BCSR.fromdense(x)
    v = rng.standard_normal(5).astype(np.float32)
    np.testing.assert_allclose(m @ v, x.astype(np.float64) @ v, rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(v[:4] @ sparse.BCSR.fromdense(x[:4]),
                               v[:4] @ x[:4].astype(np.float64), rtol=2e-5, atol=1e-5)


def test_dot_general_errors():
    m = sparse.BCOO.fromdense(np.eye(3, dtype=np.float32))
    with pytest.raises(TypeError, match=r"lhs dim 1 \(size 3\) and rhs dim 0 \(size 4\)"):
        m @ np.ones(4)
    with pytest.raises(NotImplementedError, match="sparse x sparse needs n_batch"):
        m @ sparse.BCOO.fromdense(np.eye(3, dtype=np.float32), n_batch=1)
    with pytest.raises(NotImplementedError, match="batch dims"):
        sparse.bcoo_dot_general(m, np.ones((3, 3)), dimension_numbers=(((1,), (1,)),
                                                                       ((0,), (0,))))
    md = sparse.BCOO.fromdense(np.ones((3, 2), np.float32), n_dense=1)
    with pytest.raises(NotImplementedError, match="contracting over the dense dims"):
        md @ np.ones(2)


@pytest.mark.parametrize("a_shape,b_shape,dims", [
    ((6, 4), (4, 5), (((1,), (0,)), ((), ()))),
    ((4, 6), (5, 4), (((0,), (1,)), ((), ()))),
    ((6,), (5,), (((), ()), ((), ()))),
])
def test_dot_general_sampled(rng, a_shape, b_shape, dims):
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    pattern = sparse.BCOO.fromdense(_sparse_dense(rng, (6, 5)), nse=14)  # padding included
    got = sparse.bcoo_dot_general_sampled(a, b, pattern.indices, dimension_numbers=dims)
    full = _ref_dot(a, b, dims)
    idx = np.asarray(pattern.indices)
    ok = np.all(idx < [6, 5], -1)
    expect = np.where(ok, full[np.minimum(idx[:, 0], 5), np.minimum(idx[:, 1], 4)], 0)
    np.testing.assert_allclose(got, expect, rtol=2e-5, atol=2e-5)
    batched = sparse.BCOO.fromdense(_sparse_dense(rng, (6, 5)), n_batch=1)
    got_b = sparse.bcoo_dot_general_sampled(a, b, batched.indices, dimension_numbers=dims)
    ref_b = sparse.bcoo_extract(batched, full.astype(np.float32)).data
    np.testing.assert_allclose(got_b, ref_b, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("a_shape,b_shape,dims", [
    ((6, 5), (5, 4), (((1,), (0,)), ((), ()))),
    ((6, 5), (4, 5), (((1,), (1,)), ((), ()))),
    ((6, 5), (6, 5), (((0, 1), (0, 1)), ((), ()))),
    ((6,), (3, 6), (((0,), (1,)), ((), ()))),
    ((3, 4), (2,), (((), ()), ((), ()))),
])
def test_sparse_sparse_dot_general(rng, a_shape, b_shape, dims):
    a, b = _sparse_dense(rng, a_shape), _sparse_dense(rng, b_shape)
    ma = sparse.BCOO.fromdense(a, nse=int((a != 0).sum()) + 1)     # with a padding slot
    mb = sparse.BCOO.fromdense(b)
    out = sparse.bcoo_dot_general(ma, mb, dimension_numbers=dims)
    lk, rk = len(a_shape) > len(dims[0][0]), len(b_shape) > len(dims[0][1])
    want_nse = min((ma.nse if lk else 1) * (mb.nse if rk else 1), int(np.prod(out.shape)))
    assert isinstance(out, sparse.BCOO) and out.nse == want_nse      # JAX's nse
    assert out.unique_indices and out.indices_sorted
    np.testing.assert_allclose(out.todense(), _ref_dot(a, b, dims), rtol=2e-5, atol=2e-5)


def test_sparse_sparse_operators(rng):
    a, b = _sparse_dense(rng, (5, 4), 0.6), _sparse_dense(rng, (5, 4), 0.6)
    ma, mb = sparse.BCOO.fromdense(a), sparse.BCOO.fromdense(b)
    np.testing.assert_allclose((ma @ mb.T).todense(), a.astype(np.float64) @ b.T, rtol=2e-5,
                               atol=2e-5)
    prod = ma * mb
    np.testing.assert_allclose(prod.todense(), a * b, rtol=1e-6)
    np.testing.assert_allclose(prod.sum_duplicates().todense(), a * b, rtol=1e-6)
    np.testing.assert_allclose(sparse.bcoo_multiply_sparse(ma, ma).todense(), a * a,
                               rtol=1e-6)
    with pytest.raises(ValueError, match=r"shapes \(5, 4\) and \(4, 5\) differ"):
        ma * mb.T


@pytest.mark.parametrize("rhs_sparse", [False, True])
def test_preferred_element_type_widens_the_products(rhs_sparse):
    """(sparse x sparse dropped preferred_element_type: int8 100 * 100 wrapped to 16)"""
    m = np.diag(np.array([100, -100, 7], np.int8))
    lhs = sparse.BCOO.fromdense(jnp.asarray(m))
    rhs = sparse.BCOO.fromdense(jnp.asarray(m)) if rhs_sparse else jnp.asarray(m)
    out = sparse.bcoo_dot_general(lhs, rhs, dimension_numbers=(((1,), (0,)), ((), ())),
                                  preferred_element_type=np.int32)
    out = out.todense() if rhs_sparse else out
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, m.astype(np.int64) @ m.astype(np.int64))
