"""lax.top_k (a selection, not a full sort) compiled for the CPU against the reference
interpreter and a Python-loop reference, on rows wide enough for the partition to matter,
with ties across the k-th value, signed zeros and NaNs; its gradient, jvp and vmap."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax


def _tricky(shape, seed=0):
    """Values on a coarse grid (many ties at every rank), signed zeros, a few NaNs."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape).astype(np.float32)
    x[rng.random(shape) < 0.2] = -0.0
    x[rng.random(shape) < 0.03] = np.nan
    return x


def _loop_top_k(x, k):
    """Per row: NaNs first, then descending values, ties in ascending index order."""
    idx = np.array([sorted(range(x.shape[-1]),
                           key=lambda i, r=r: (0, 0.0) if r[i] != r[i] else (1, -float(r[i])))
                    for r in x.reshape(-1, x.shape[-1])], np.int32)
    idx = idx.reshape(x.shape)[..., :k]
    return np.take_along_axis(x, idx, -1), idx


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("k", [1, 7, 40])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_compiled_top_k_matches_interpreter_and_loop(k, dtype):
    x = _tricky((24, 301), seed=k).astype(dtype) if dtype != np.int32 else \
        np.random.default_rng(k).integers(-5, 5, (24, 301)).astype(np.int32)

    def f(v):
        return lax.top_k(v, k)
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", dtype == np.float64)   # float64 keys are 64-bit
    try:
        got = tjit.jit(f)(x)
        ref = tjit.jit(f, backend="interpreter")(x)
    finally:
        tjit.config.update("enable_x64", old)
    want = _loop_top_k(x, k)
    for g, r, w in zip(got, ref, want):
        _same(g, w)
        _same(r, w)


def test_top_k_grad_puts_the_cotangent_at_the_chosen_indices():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 50)).astype(np.float32)
    x[:, 10] = x[:, 11] = 5.0        # a tie at the top: the lower index is chosen
    w = rng.standard_normal((6, 4)).astype(np.float32)

    def loss(v):
        return jnp.sum(lax.top_k(v, 4)[0] * w)
    _, idx = _loop_top_k(x, 4)
    want = np.zeros_like(x)
    np.put_along_axis(want, idx, w, -1)
    np.testing.assert_array_equal(tjit.jit(tjit.grad(loss))(x), want)
    np.testing.assert_array_equal(tjit.grad(loss)(x), want)
    t = rng.standard_normal(x.shape).astype(np.float32)
    _, (dvals, _) = tjit.jvp(lambda v: lax.top_k(v, 4), (x,), (t,))
    np.testing.assert_array_equal(dvals, np.take_along_axis(t, idx, -1))


def test_top_k_vmap_matches_a_loop():
    x = _tricky((5, 9, 40), seed=3)
    vals, idx = tjit.jit(tjit.vmap(lambda v: lax.top_k(v, 3, axis=0), in_axes=2,
                                   out_axes=0))(x)
    for b in range(x.shape[2]):
        wv, wi = _loop_top_k(np.moveaxis(x[:, :, b], 0, -1), 3)
        _same(vals[b], np.moveaxis(wv, -1, 0))
        _same(idx[b], np.moveaxis(wi, -1, 0))


def test_top_k_errors_name_the_operation():
    with pytest.raises(ValueError, match=r"top_k: k=5 must be between 0 and the size 4"):
        lax.top_k(jnp.zeros((2, 4)), 5)
    with pytest.raises(TypeError, match=r"top_k: complex operands have no order"):
        lax.top_k(jnp.zeros((2, 4), jnp.complex64), 1)


def _wide_rows(seed):
    """Rows of 512 normal values with NaNs, signed zeros and ties among the largest
    (blocks of TOP_K_BLOCK strided elements then share maxima)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((40, 512)).astype(np.float32)
    x[rng.random(x.shape) < 0.004] = np.nan
    x[:, [5, 37, 69, 300]] = 2.5                 # ties at the top, in several blocks
    x[3, :] = -0.0
    x[3, [7, 100]] = 0.0
    x[4, :] = 7.0                                # a row of one value
    return x


@pytest.mark.parametrize("k", [1, 5, 8])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_block_candidates_give_the_same_top_k(k, dtype):
    """Long rows take the block-candidate path (checked), and give the loop's answer."""
    from tjit.primitives import reductions as rd
    x = _wide_rows(k)
    if dtype == np.int32:
        x = np.nan_to_num(x * 100, nan=-7).astype(np.int32)
    key = rd._top_k_key(np, x)
    rows_ok = [r for r in range(x.shape[0]) if r not in (3, 4)]   # (all-tied rows: every
    # block holds a top value, and the whole batch takes the plain selection)
    assert rd._top_k_candidates(np, key[rows_ok], k) is not None
    f = tjit.jit(lambda v: lax.top_k(v, k))
    for rows in (x[rows_ok], x):    # the candidate path, then the plain one
        for g, w in zip(f(rows), _loop_top_k(rows, k)):
            _same(g, w)
