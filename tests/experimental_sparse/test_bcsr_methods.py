"""BCSR.transpose / .T and .sum against NumPy float64 on the dense array."""

import numpy as np
import pytest

import tjit.numpy as jnp
from tjit.experimental import sparse

RNG = np.random.default_rng(2027)
X = RNG.normal(size=(3, 4, 5)) * (RNG.random((3, 4, 5)) < 0.4)


def test_transpose_is_bcsr_of_the_transposed_matrix():
    m = sparse.BCSR.fromdense(jnp.asarray(X[0], jnp.float32))
    t = m.T
    assert isinstance(t, sparse.BCSR) and t.shape == (5, 4)
    np.testing.assert_allclose(t.todense(), X[0].T, rtol=1e-6)
    np.testing.assert_allclose(t.T.todense(), X[0], rtol=1e-6)
    # a CSR matrix's rows must come out sorted: indptr marks each row's slots
    np.testing.assert_array_equal(np.diff(np.asarray(t.indptr)), (X[0].T != 0).sum(1))


def test_batched_transpose_keeps_groups_and_refuses_mixing():
    m = sparse.BCSR.fromdense(jnp.asarray(X, jnp.float32), n_batch=1)
    np.testing.assert_allclose(m.transpose((0, 2, 1)).todense(), X.transpose(0, 2, 1),
                               rtol=1e-6)
    with pytest.raises(NotImplementedError, match="mixes batch"):
        m.T


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
def test_sum_matches_numpy(axis):
    m = sparse.BCSR.fromdense(jnp.asarray(X[1], jnp.float32))
    got = m.sum(axis)
    got = got.todense() if isinstance(got, sparse.BCOO) else got
    np.testing.assert_allclose(got, X[1].sum(axis), rtol=1e-5, atol=1e-6)
    mb = sparse.BCSR.fromdense(jnp.asarray(X, jnp.float32), n_batch=1)
    np.testing.assert_allclose(mb.sum((0, 2)).todense(), X.sum((0, 2)), rtol=1e-5, atol=1e-6)
