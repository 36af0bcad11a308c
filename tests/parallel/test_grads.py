"""Gradients of every collective against central finite differences of the NumPy
reference (float64): through vmap's elimination (grad of the vmapped total), through the
collectives' own jvp/transpose rules (vmap(grad) and vmap(jvp) per member) and through the
compiled per-device plan (pmap(grad))."""

import numpy as np
import pytest

import tjit
from tests.parallel.cases import CASES, SHAPE, N
from tjit.devices.backend import cpu_device_count

DIFFERENTIABLE = [c for c in CASES if c.differentiable]


def _data(case, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N,) + SHAPE)
    W = rng.standard_normal(case.ref(X).shape)
    return X, W


def _fd_grad(case, X, W, eps=1e-6):
    """d/dX of sum(W * ref(X)) by central differences, in float64."""
    g = np.zeros_like(X)
    for k in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[k] = eps
        g[k] = (np.sum(W * case.ref(X + e)) - np.sum(W * case.ref(X - e))) / (2 * eps)
    return g


def _member_loss(case):
    return lambda x, w: tjit.numpy.sum(w * case.fn(x))


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=lambda c: c.name)
def test_grad_matches_finite_differences(case):
    X, W = _data(case, 10)
    want = _fd_grad(case, X, W)
    X32, W32 = X.astype(np.float32), W.astype(np.float32)
    loss = _member_loss(case)

    def total(X):
        return tjit.numpy.sum(tjit.vmap(loss, axis_name="i")(X, W32))

    per_member = tjit.vmap(tjit.grad(loss), axis_name="i")(X32, W32)  # transpose rules
    with cpu_device_count(N):
        on_devices = tjit.pmap(tjit.grad(loss), axis_name="i")(X32, W32)
    for name, got in (("grad(vmap)", tjit.grad(total)(X32)), ("vmap(grad)", per_member),
                      ("pmap(grad)", on_devices)):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=lambda c: c.name)
def test_jvp_matches_finite_differences(case):
    X, _ = _data(case, 11)
    T = np.random.default_rng(12).standard_normal(X.shape)
    eps = 1e-6
    want = (case.ref(X + eps * T) - case.ref(X - eps * T)) / (2 * eps)
    got = tjit.vmap(lambda x, t: tjit.jvp(case.fn, (x,), (t,))[1], axis_name="i")(
        X.astype(np.float32), T.astype(np.float32))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)
