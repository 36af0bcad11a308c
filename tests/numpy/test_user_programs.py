"""Realistic user programs in the style of JAX tutorials and NumPy user code, each run
with ``tjit.numpy`` eagerly and under ``tjit.jit`` and compared with the same program
written against NumPy (in float64 where rounding could matter), plus regression tests
for the bugs this audit found (wrong dtypes, silent overflow, symbolic shapes)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit import ConcretizationTypeError

RNG = np.random.default_rng(42)
X = RNG.normal(size=(20, 3)).astype(np.float32)
LABELS = RNG.integers(0, 5, 20).astype(np.int32)


def _check(program, *args, rtol=1e-5, atol=1e-5, ref=None):
    """``program(xp, *args)`` with xp = tjit.numpy (eager and jit) vs NumPy in float64."""
    np_args = [a.astype(np.float64) if a.dtype == np.float32 else a for a in args]
    want = (ref or program)(np, *np_args)
    eager = program(jnp, *[jnp.asarray(a) for a in args])
    jitted = tjit.jit(lambda *a: program(jnp, *a))(*args)
    for got in (eager, jitted):
        for g, w in zip(*((got, want) if isinstance(want, tuple) else ((got,), (want,)))):
            assert isinstance(g, tjit.Array)
            assert g.shape == np.shape(w), (g.shape, np.shape(w))
            if np.asarray(w).dtype == np.float64:
                assert g.dtype == np.float32  # float32 by default, as in JAX
            np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=atol)
    return eager


def test_standardize_and_minmax_scaling():
    _check(lambda xp, x: (x - x.mean(0)) / x.std(0, ddof=1), X)
    _check(lambda xp, x: (x - x.min(axis=0, keepdims=True)) / xp.ptp(x, axis=0, keepdims=True),
           X)


def test_kmeans_step():
    def step(xp, x, c):
        d = ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1)
        lab = xp.argmin(d, axis=1)
        onehot = (lab[:, None] == xp.arange(c.shape[0])[None, :]).astype(x.dtype)
        counts = onehot.sum(0)[:, None]
        return (onehot.T @ x) / xp.maximum(counts, 1), lab
    _check(step, X, X[:4].copy())


def test_softmax_regression_loss_and_accuracy():
    w = RNG.normal(size=(3, 5)).astype(np.float32)

    def loss(xp, x, w, y):
        logits = x @ w
        logits = logits - logits.max(axis=1, keepdims=True)
        lse = xp.log(xp.exp(logits).sum(axis=1))
        ll = xp.take_along_axis(logits, y[:, None], axis=1)[:, 0] - lse
        acc = (xp.argmax(logits, axis=1) == y).mean()
        return -ll.mean(), acc
    _check(loss, X, w, LABELS)


def test_polynomial_fit_with_lstsq_and_vander():
    xs = np.linspace(-1, 1, 30).astype(np.float32)
    ys = (1 + 2 * xs - 3 * xs ** 2).astype(np.float32)

    def fit(xp, x, y):
        coef = xp.linalg.lstsq(xp.vander(x, 3, increasing=True), y, rcond=None)[0]
        return coef, xp.polyval(coef[::-1], x)
    _check(fit, xs, ys, rtol=1e-3, atol=1e-3)


def test_signal_smoothing_with_convolve_and_slicing():
    sig = RNG.normal(size=50).astype(np.float32)
    k = np.array([0.25, 0.5, 0.25], np.float32)
    for mode in ("full", "same", "valid"):
        _check(lambda xp, s, k: xp.convolve(s, k, mode=mode), sig, k)
    img = RNG.normal(size=(8, 9)).astype(np.float32)

    def box_blur(xp, a):  # 3x3 mean filter by summing shifted views
        h, w = a.shape
        return sum(a[i:h - 2 + i, j:w - 2 + j] for i in range(3) for j in range(3)) / 9
    _check(box_blur, img)
    _check(lambda xp, a: xp.pad(a, 1, mode="reflect")[1:-1, 1:-1] - a, img)


def test_masking_cumulative_stats_and_ranking():
    x = X.copy()
    _check(lambda xp, x: xp.where(x > 0, x, 0.0).sum(0) / xp.maximum((x > 0).sum(0), 1), x)
    _check(lambda xp, x: xp.cumsum(x, axis=0) / xp.arange(1, x.shape[0] + 1)[:, None], x)
    _check(lambda xp, x: xp.argsort(xp.argsort(x, axis=0), axis=0), x,
           ref=lambda xp, x: np.argsort(np.argsort(x, axis=0, kind="stable"), axis=0,
                                        kind="stable"))
    _check(lambda xp, x: xp.sort(x, axis=0)[::-1][:3], x)
    xn = x.copy()
    xn[::4, 1] = np.nan
    _check(lambda xp, x: (xp.nanmean(x, axis=0), xp.nanstd(x, axis=0)), xn)


def test_einsum_attention():
    q, k, v = (RNG.normal(size=s).astype(np.float32) for s in [(2, 4, 8), (2, 6, 8),
                                                                  (2, 6, 8)])

    def attention(xp, q, k, v):
        s = xp.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
        p = xp.exp(s - s.max(-1, keepdims=True))
        return xp.einsum("bqk,bkd->bqd", p / p.sum(-1, keepdims=True), v)
    _check(attention, q, k, v)


def test_one_hot_and_gathers():
    _check(lambda xp, y: (y[:, None] == xp.arange(5)).astype(xp.float32), LABELS)
    _check(lambda xp, y: xp.eye(5)[y], LABELS)
    _check(lambda xp, x, y: xp.take_along_axis(x, (y % 3)[:, None], axis=1), X, LABELS)


def test_batched_matmul_broadcasting():
    a = RNG.normal(size=(3, 1, 4, 5)).astype(np.float32)
    b = RNG.normal(size=(2, 5, 6)).astype(np.float32)
    _check(lambda xp, a, b: a @ b, a, b)
    _check(lambda xp, a, b: xp.matmul(a, b[0, :, 0]), a, b)
    _check(lambda xp, a, b: xp.einsum("...ij,...jk->...ik", a, b), a, b)


@pytest.mark.parametrize("index", [
    (slice(1, 3), np.array([0, 2, 1]), slice(None, None, 2)),
    (np.array([0, 2, 1]), slice(None), np.array([0, 2, 1])),
    (slice(None), None, np.array([0, 2, 1]), -1),
    (Ellipsis, np.array([[0, 1], [2, 3]])),
    (-1, slice(None, None, -2), np.array([1, 0])),
    (np.array([True, False, True, True]), 1),
])
def test_mixed_slice_and_array_indexing(index):
    z = RNG.normal(size=(4, 5, 6)).astype(np.float32)
    want = z[index]
    np.testing.assert_array_equal(jnp.asarray(z)[index], want)
    if not any(isinstance(e, np.ndarray) and e.dtype == bool for e in index):
        np.testing.assert_array_equal(tjit.jit(lambda a: a[index])(z), want)


def test_at_updates_in_fori_loops():
    def histogram(y):
        return lax.fori_loop(0, y.shape[0], lambda i, acc: acc.at[y[i]].add(1.0),
                             jnp.zeros(5))
    want = np.bincount(LABELS, minlength=5).astype(np.float32)
    np.testing.assert_array_equal(tjit.jit(histogram)(LABELS), want)
    np.testing.assert_array_equal(jnp.bincount(LABELS, length=5), want)

    def double_even_rows(x):
        return lax.fori_loop(0, x.shape[0] // 2, lambda i, a: a.at[2 * i].multiply(2.0), x)
    want = X.copy()
    want[::2] *= 2
    np.testing.assert_allclose(tjit.jit(double_even_rows)(X), want)


def test_symbolic_batch_dims_in_user_code():
    def normalize(x):
        centered = x - x.sum(0) / x.shape[0]
        return centered / jnp.sqrt((centered ** 2).sum() / (x.size - 1)), \
            jnp.arange(8) < x.shape[0], jnp.roll(x, 1, axis=0)
    f = tjit.jit(normalize, polymorphic_shapes=["(b, 3)"])
    for n in (2, 5, 9):
        x = RNG.normal(size=(n, 3)).astype(np.float32)
        c = x - x.mean(0)
        got = f(x)
        np.testing.assert_allclose(got[0], c / np.sqrt((c ** 2).sum() / (x.size - 1)),
                                   rtol=1e-5)
        np.testing.assert_array_equal(got[1], np.arange(8) < n)
        np.testing.assert_array_equal(got[2], np.roll(x, 1, axis=0))
    assert f.trace_count == 1


def test_symbolic_lengths_in_signal_and_statistics_functions():
    def g(x):
        return (jnp.convolve(x[:, 0], jnp.ones(3)), jnp.cov(x.T),
                jnp.interp(jnp.linspace(-1, 1, 5), jnp.sort(x[:, 1]), x[:, 2]))
    f = tjit.jit(g, polymorphic_shapes=["(b, 3)"])
    for n in (3, 6):
        x = RNG.normal(size=(n, 3)).astype(np.float32)
        got = f(x)
        np.testing.assert_allclose(got[0], np.convolve(x[:, 0], np.ones(3)), rtol=1e-5)
        np.testing.assert_allclose(got[1], np.cov(x.T), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got[2], np.interp(np.linspace(-1, 1, 5),
                                                     np.sort(x[:, 1]), x[:, 2]), rtol=1e-5)
    with pytest.raises(tjit.InconclusiveDimensionError, match="convolve: mode='same' needs"):
        tjit.make_jaxpr(lambda x: jnp.convolve(x, jnp.ones(3), mode="same"),
                        polymorphic_shapes=["(b,)"])(np.ones(4, np.float32))


def test_traced_and_symbolic_roll_agree_with_numpy():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    for shift in (-7, -1, 0, 2, 5):
        np.testing.assert_array_equal(tjit.jit(lambda a, s: jnp.roll(a, s, axis=1))(x, shift),
                                      np.roll(x, shift, axis=1))
        g = tjit.jit(lambda a: jnp.roll(a, shift, axis=0), polymorphic_shapes=["(b, 3)"])
        for n in (1, 3, 4):
            xx = x[:n]
            np.testing.assert_array_equal(g(xx), np.roll(xx, shift, axis=0))


# -- regressions: dtypes and overflow --------------------------------------------------------
def test_python_ints_out_of_range_raise_instead_of_wrapping():
    with pytest.raises(OverflowError, match="Python int 2147483648 too large to convert to "
                                            "int32"):
        jnp.array([1, 2 ** 31])
    with pytest.raises(OverflowError, match="-1 too large to convert to uint8"):
        jnp.array([-1, 2], dtype=jnp.uint8)
    with pytest.raises(OverflowError, match="300 too large to convert to int8"):
        jnp.asarray(300, dtype=jnp.int8)
    assert jnp.array([-2 ** 31, 2 ** 31 - 1]).tolist() == [-2 ** 31, 2 ** 31 - 1]
    assert jnp.array([2 ** 32 - 1], dtype=jnp.uint32).tolist() == [2 ** 32 - 1]


def test_lists_of_arrays_follow_jax_promotion():
    assert jnp.array([jnp.float16(1), 2.0]).dtype == jnp.float16
    assert jnp.array([jnp.array(1, jnp.int8), 2]).dtype == jnp.int8
    assert jnp.array([jnp.int8(1), jnp.uint8(2)]).dtype == jnp.int16
    assert jnp.array([jnp.arange(2), [1.5, 2.0]]).dtype == jnp.float32
    out = tjit.jit(lambda x: jnp.array([x[0], 2.0]))(jnp.arange(3.0))
    assert out.dtype == jnp.float32 and not out.weak_type  # a list is never weak


def test_reshape_and_tile_accept_0d_arrays_and_reject_traced_shapes():
    a = jnp.asarray(X)
    assert a.reshape(jnp.array(60)).shape == (60,)
    assert jnp.reshape(a, (np.int64(3), -1)).shape == (3, 20)
    with pytest.raises(ConcretizationTypeError, match="reshape: shapes must be static, but "
                                                      r"the argument contains a traced"):
        tjit.jit(lambda x: jnp.reshape(x, (x.sum(), 3)))(X)
    assert jnp.tile(a, jnp.array(2)).shape == (20, 6)
    with pytest.raises(ConcretizationTypeError, match="tile: shapes must be static"):
        tjit.jit(lambda r: jnp.tile(a, r))(2)


def test_pad_width_errors_are_clear():
    with pytest.raises(ValueError, match=r"pad: pad_width must be an int, a \(before, after\)"):
        jnp.pad(jnp.ones((2, 3)), ((1, 2), (3,), (1, 1)))
