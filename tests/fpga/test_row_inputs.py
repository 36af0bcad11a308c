"""Values a row (layernorm's mean and variance) flow through streams of one element a
row (``streams.row_inputs``): each consumer reads one at the start of each row instead
of waiting for an on-chip buffer of the whole run, so the design's stages overlap row
by row and layernorm reads x from DRAM once (one m_axi read, one write). C simulation
against the interpreter at whole, ragged and 3-D shapes; ports, bytes and the
estimate asserted on the full-size design."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _layernorm(x):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5)


def _design(c):
    (d,) = c.executable.designs.values()
    return d


@pytest.mark.parametrize("shape", [(4, 32), (4, 37), (2, 3, 20)])
def test_layernorm_streams_its_row_values(shape):
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    c = tjit.jit(_layernorm).lower(x).compile(backend="hls")
    d = _design(c)
    assert not d.buffers                                  # every intermediate streamed
    assert [r for _, r, *_ in d.ports] == ["in", "out"]   # x read once, y written once
    row_stages = [st for st in d.stages if st.kind == "kernel" and st.kernel.shape == x.shape]
    assert {st.lanes for st in row_stages} == {16}
    want = tjit.jit(_layernorm, backend="interpreter")(x)
    np.testing.assert_allclose(np.asarray(c(x)), np.asarray(want), rtol=2e-5, atol=2e-6)


def test_full_size_layernorm_moves_x_once():
    """(8192, 1024) float32: DRAM traffic is one read of x and one write of y (it was
    three reads of x through alias ports), and the stages overlap row by row."""
    x = np.zeros((8192, 1024), np.float32)
    c = tjit.jit(_layernorm).lower(x).compile(backend="hls")
    d = _design(c)
    assert [r for _, r, *_ in d.ports] == ["in", "out"]
    assert not d.buffers
    (de,) = c.hls_report().designs
    assert de.dram_bytes == 2 * x.nbytes
    # the row stages run at once, a row or two apart: about one pass of x at 16 lanes
    # plus a row stage's second pass, not their sum
    assert de.latency_cycles < 2 * x.size // 16
