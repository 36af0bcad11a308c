"""The files of an exported project agree with each other: ``connectivity.cfg`` names
the top function's compute unit and maps every ``m_axi`` argument of the top function
to a memory bank of the part (HBM on a U280, DDR on a U250) exactly once, an alias port
to its buffer's bank; every ``m_axi`` port has a bundle of its own; the XRT host passes
one buffer object per argument, in order; the Makefile builds the same kernel name."""

import re

import numpy as np
import pytest

import tjit.fpga
import tjit.numpy as jnp
from tjit import nn
from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(hls_compile.unavailable_reason() is not None,
                                reason=str(hls_compile.unavailable_reason()))


def _softmax_layernorm(x, w):
    y = nn.softmax(x @ w, axis=-1)
    m = jnp.mean(y, axis=-1, keepdims=True)
    ln = (y - m) / jnp.sqrt(jnp.mean((y - m) ** 2, axis=-1, keepdims=True) + 1e-5)
    return y, ln, x * jnp.tanh(jnp.log1p(jnp.exp(x)))   # (x read by two stages: an alias)


@pytest.mark.parametrize("part, memory", [("u280", "HBM"), ("u250", "DDR")])
def test_exported_files_agree(tmp_path, part, memory):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 37)).astype(np.float32)
    w = rng.standard_normal((37, 20)).astype(np.float32)
    out = tjit.fpga.export(_softmax_layernorm, x, w, out_dir=tmp_path / "p", part=part)
    kernel = (out / "src" / "kernel.cpp").read_text()
    top, params = re.search(r'extern "C" void (\w+)\(([^)]*)\)', kernel).groups()
    args = [p.split()[-1].lstrip("*") for p in params.split(",")]
    maxi = dict(re.findall(r"#pragma HLS INTERFACE m_axi port=(\w+) bundle=(\w+)", kernel))
    assert set(maxi) == set(args) and len(set(maxi.values())) == len(maxi)
    assert any(a.endswith("_a1") for a in args)      # (the case has an alias port)
    cfg = (out / "connectivity.cfg").read_text()
    (nk,) = re.findall(r"^nk=(\w+):1:(\w+)$", cfg, re.MULTILINE)
    assert nk[0] == top
    sp = re.findall(rf"^sp={nk[1]}\.(\w+):{memory}\[(\d+)\]$", cfg, re.MULTILINE)
    assert sorted(a for a, _ in sp) == sorted(args)
    bank = dict(sp)
    for a in args:
        if re.search(r"_a\d+$", a):              # an alias: its buffer's bank
            assert bank[a] == bank[re.sub(r"_a\d+$", "", a)]
    host = (out / "host" / "host.cpp").read_text()
    assert f'xrt::kernel krnl(device, uuid, "{top}");' in host
    call = re.search(r"auto run = krnl\(([^)]*)\);", host).group(1)
    assert len(call.split(",")) == len(args)
    for n, (a, passed) in enumerate(zip(args, (c.strip() for c in call.split(",")))):
        base = re.sub(r"_a\d+$", "", a)
        assert passed == f"bo_{base}", (a, passed)
        if a == base:
            assert f"krnl.group_id({n})" in host
    assert re.search(rf"^NAME := {top}$", (out / "Makefile").read_text(), re.MULTILINE)
    assert f"`{top}`" in (out / "README.md").read_text()
