"""The benchmark's MLP training step (``benchmarks/bench_cpu.py``'s ``_mlp_step``:
dense layers with ReLU, a log-softmax cross-entropy, ``value_and_grad`` and an SGD
update) through HLS C simulation at several layer sizes and batch sizes, against the
reference interpreter. Its dataflow design forks row values (a layer's pre-activation,
the softmax's row max and sum) to consumers that start far apart: a stream too
shallow for the data its later consumer must hold back deadlocks the simulation."""

import itertools

import numpy as np
import pytest

import tjit
from benchmarks import bench_cpu as B
from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _args(sizes, batch, seed=0):
    rng = np.random.default_rng(seed)
    params = [((rng.standard_normal((m, k)) / np.sqrt(m)).astype(np.float32),
               (rng.standard_normal(k) * 0.01).astype(np.float32))
              for m, k in itertools.pairwise(sizes)]
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    return params, x, y


@pytest.mark.parametrize("sizes, batch", [
    ((784, 64, 64, 10), 16),        # bench_fpga's C-simulation size
    ((20, 32, 32, 5), 7),
    ((13, 8, 4), 1),
])
def test_mlp_step_matches_interpreter(sizes, batch):
    import tjit.numpy as jnp
    step = B._mlp_step(jnp, tjit.value_and_grad)
    args = _args(sizes, batch)
    got = tjit.jit(step, backend="hls")(*args)
    want = tjit.jit(step, backend="interpreter")(*args)
    gl, wl = tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)
    assert len(gl) == len(wl)
    for g, w in zip(gl, wl):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-6)
