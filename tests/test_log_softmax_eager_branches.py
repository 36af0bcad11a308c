"""log_softmax / logsumexp take one branch per slice: log(total) from a total of 2 up,
log1p(rest) below (one maximum; the rest the total rounds away). An eager call computes
only the branch its totals need (the rest not at all when every total is 2 or more), a
traced one both. Each regime alone, mixed in one array, and under jit must give every
row the same values, within a few ulps of mpmath, and the same slopes."""

import mpmath as mp
import numpy as np
import pytest

import tjit
import tjit.nn as tnn
import tjit.numpy as tnp

mp.mp.dps = 40
BOUND = {np.float32: 4.0, np.float64: 8.0}
NEG_INF = -np.inf
REGIMES = {
    # one dominant maximum: every total in [1, 2)
    "dominant": [[-20.926164627075195, 0.0, -40.0], [-5.0, 0.0, -7.5], [3.0, -30.0, -31.0],
                 [-1e-3, -2.0, -60.0]],
    # totals of 2 and more: spread values and ties
    "spread": [[0.1, -0.3, 0.2], [0.0, 0.0, -5.0], [1.0, 1.0, 1.0], [-1e-3, 0.0, -1e-4]],
}


def _ulps(got, true, dtype):
    spacing = np.array([float(np.spacing(np.abs(dtype(float(t))))) for t in true])
    return np.abs(np.asarray(got, np.float64) - np.array([float(t) for t in true])) / spacing


def _lse_ref(row):
    return mp.log(mp.fsum(mp.exp(mp.mpf(v)) for v in row))


def _forms():
    return (("eager", tnn.log_softmax, lambda v: tnn.logsumexp(v, axis=-1)),
            ("jit", tjit.jit(tnn.log_softmax), tjit.jit(lambda v: tnn.logsumexp(v, axis=-1))))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_each_regime_alone_and_mixed_vs_mpmath(x64, dtype):
    arrays = {name: np.array(rows, dtype) for name, rows in REGIMES.items()}
    arrays["mixed"] = np.concatenate([arrays["dominant"], arrays["spread"]])
    results = {}
    for name, x in arrays.items():
        for mode, log_softmax, logsumexp in _forms():
            ls = np.asarray(log_softmax(tnp.asarray(x)))
            lse = np.asarray(logsumexp(tnp.asarray(x)))
            assert ls.dtype == lse.dtype == dtype
            results[name, mode] = ls, lse
            for i, row in enumerate(x.astype(np.float64).tolist()):
                total = _lse_ref(row)
                assert _ulps([lse[i]], [total], dtype)[0] <= BOUND[dtype], (name, mode, row)
                err = _ulps(ls[i], [mp.mpf(v) - total for v in row], dtype)
                assert err.max() <= BOUND[dtype], (name, mode, row, ls[i])
    # a row's values do not depend on the branch its neighbours take (eager: the same
    # operations, selected or alone)
    n = len(REGIMES["dominant"])
    for k in (0, 1):
        mixed = results["mixed", "eager"][k]
        np.testing.assert_array_equal(mixed[:n], results["dominant", "eager"][k])
        np.testing.assert_array_equal(mixed[n:], results["spread", "eager"][k])


@pytest.mark.parametrize("rows", [[[NEG_INF, NEG_INF]], [[NEG_INF, NEG_INF], [-20.0, 0.0]],
                                  [[NEG_INF, NEG_INF], [0.0, 0.0]], [[NEG_INF, 0.0]]],
                         ids=["alone", "with_dominant", "with_tie", "one_finite"])
def test_logsumexp_without_a_finite_maximum(rows):
    x = np.array(rows, np.float32)
    for mode, _, logsumexp in _forms():
        got = np.asarray(logsumexp(tnp.asarray(x)))
        want = np.array([float(_lse_ref(r)) if np.isfinite(r).any() else -np.inf for r in rows])
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=2e-7, err_msg=mode)


@pytest.mark.parametrize("regime", ["dominant", "spread"])
def test_slopes_are_softmax(regime):
    # d logsumexp / dx = softmax(x); eager grad traces, so it takes the selected form
    x = np.array(REGIMES[regime], np.float32)
    ref = np.exp(x.astype(np.float64) - np.log(np.exp(x.astype(np.float64)).sum(-1, keepdims=True)))
    loss = lambda v: tnp.sum(tnn.logsumexp(v, axis=-1))  # noqa: E731
    for f in (tjit.grad(loss), tjit.jit(tjit.grad(loss))):
        np.testing.assert_allclose(np.asarray(f(tnp.asarray(x))), ref, rtol=2e-6, atol=1e-30)
    # log_softmax's row sums of slopes: d/dx sum_j log_softmax_j = 1 - n softmax
    g = tjit.grad(lambda v: tnp.sum(tnn.log_softmax(v)))(tnp.asarray(x))
    np.testing.assert_allclose(np.asarray(g), 1 - x.shape[-1] * ref, rtol=2e-5, atol=2e-6)
