"""Automatic dynamic shapes on the (simulated) CUDA device: a plain ``jit`` called at
new batch sizes retraces once with a size symbol, and every later size runs the same
polymorphic kernels, whose size arguments must reach them by the symbols' names (the
automatic symbols are their own sympy class, so matching them by object would miss)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices.fake_cupy import simulated_gpu
from tjit.devices import cuda

REASON = cuda.unavailable_reason()


@pytest.fixture(params=["simulated", pytest.param("real", marks=[
    pytest.mark.cuda, pytest.mark.skipif(REASON is not None, reason=f"no usable GPU: {REASON}")])])
def gpu(request, monkeypatch):
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    monkeypatch.delenv("TJIT_DYNAMIC_SHAPES", raising=False)
    if request.param == "real":
        yield None
        return
    with simulated_gpu(monkeypatch) as fake:
        yield fake


def test_new_batch_sizes_on_the_gpu_match_numpy(gpu):
    def f(x, w):
        h = jnp.tanh(x @ w) * 2 + jnp.sum(x, axis=1, keepdims=True)
        return jax_softmax(h), jnp.mean(h, axis=0)

    def jax_softmax(h):
        e = jnp.exp(h - jnp.max(h, axis=1, keepdims=True))
        return e / jnp.sum(e, axis=1, keepdims=True)

    w = np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32)
    traces = []
    jf = tjit.jit(lambda x, w: (traces.append(x.shape), f(x, w))[1], backend="cuda")
    for b in (5, 7, 9, 12, 7):
        x = np.random.default_rng(b).standard_normal((b, 16)).astype(np.float32)
        got = [np.asarray(v) for v in jf(x, w)]
        h = np.tanh(x.astype(np.float64) @ w) * 2 + x.sum(1, keepdims=True)
        e = np.exp(h - h.max(1, keepdims=True))
        np.testing.assert_allclose(got[0], e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got[1], h.mean(0), rtol=1e-4, atol=1e-5)
    assert len(traces) == 2     # the first shape, then once with the batch dim symbolic
