"""Wide lanes at every size: a point count that is not a multiple of the 512-bit beat's
W lanes (ragged or symbolic) keeps W lanes a step, its last step masked
(``lower/c/lanes.py``, ``fpga/design.py``); C simulation against the interpreter, and
the estimate counts the masked step."""

import shutil
import subprocess

import numpy as np
import pytest

import tjit
import tjit.fpga
import tjit.numpy as jnp
from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _mish(x):
    return x * jnp.tanh(jnp.log1p(jnp.exp(x)))


def _mish_fwd_bwd(x):
    y, vjp = tjit.vjp(_mish, x)
    return y, vjp(jnp.ones_like(y))[0]


def _ramp(x):
    """An iota beside the stream: each masked lane decomposes its own flat index."""
    return x * jnp.arange(x.shape[-1], dtype=x.dtype) + 1


def _close(f, x, got):
    want = tjit.jit(f, backend="interpreter")(x)
    for g, w in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


def _check(f, x, w):
    c = tjit.jit(f).lower(x).compile(backend="hls")
    (d,) = c.executable.designs.values()
    assert {st.lanes for st in d.stages} == {w}
    assert {s.lanes for s in d.streams} == {w}
    whole = x.size % w == 0
    # ports of whole beats are pointers to W-lane packets; ragged ones to elements
    assert d.port_lanes == [w if whole else 1] * len(d.ports)
    assert ("+ ln < " in d.text) == (not whole)       # the masked last step
    (de,) = c.hls_report().designs
    steps = -(-x.size // w)
    assert [e.trip for e in de.stages] == [steps] * len(de.stages)
    for e in de.stages:
        if e.kind == "kernel":
            assert e.cycles == e.trip + e.depth       # II=1: trip count + depth
    _close(f, x, c(x))


@pytest.mark.parametrize("n", [16 * 3, 16 * 3 + 1, 16 * 3 + 15, 5, 0])
def test_float32_sizes_keep_16_lanes(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    _check(_mish_fwd_bwd, x, 16)


@pytest.mark.usefixtures("x64")
def test_float64_ragged_keeps_8_lanes():
    x = np.random.default_rng(1).standard_normal(8 * 3 + 5)
    _check(_mish_fwd_bwd, x, 8)


def test_two_dims_and_an_iota():
    x = np.random.default_rng(2).standard_normal((3, 7)).astype(np.float32)
    _check(_ramp, x, 16)


def test_symbolic_size_keeps_16_lanes():
    """One design for every n: its loops run ceil(n / 16) steps, the last masked."""
    g = tjit.jit(_mish_fwd_bwd, polymorphic_shapes=["(n,)"])
    c = g.lower(np.zeros(7, np.float32)).compile(backend="hls")
    (d,) = c.executable.designs.values()
    assert {st.lanes for st in d.stages} == {16}
    assert d.port_lanes == [1] * len(d.ports)
    for n in (32, 33, 47, 3, 0):
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        _close(_mish_fwd_bwd, x, c(x))
    (de,) = c.hls_report(sizes={"n": 33}).designs
    assert [e.trip for e in de.stages] == [3] * len(de.stages)


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")
def test_exported_ragged_design_passes_make_csim(tmp_path):
    """The exported project's testbench and host pass element pointers to the ragged
    ports; its own C simulation checks the outputs tjit computed."""
    x = np.random.default_rng(3).standard_normal(16 * 2 + 3).astype(np.float32)
    out = tjit.fpga.export(_mish_fwd_bwd, x, out_dir=tmp_path / "proj", part="u280")
    kernel = (out / "src" / "kernel.cpp").read_text()
    assert "hls::vector<float, 16>" in kernel and "+ ln < " in kernel
    r = subprocess.run(["make", "-s", "csim"], cwd=out, capture_output=True, text=True,
                       check=False, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout
