"""``tjit.fpga.export``: the project's files, and its ``make csim`` (g++ only) passing
in a fresh folder: the design's C simulation checks its outputs against tjit's."""

import shutil
import subprocess

import numpy as np
import pytest

import tjit.fpga
import tjit.numpy as jnp
from tjit import lax, nn
from tjit.devices import hls_compile

pytestmark = pytest.mark.skipif(
    hls_compile.unavailable_reason() is not None or shutil.which("make") is None,
    reason=f"{hls_compile.unavailable_reason() or 'no make on PATH'}")


def _softmax_mish(x, w):
    y = nn.softmax(x @ w, axis=-1)
    return y, x * jnp.tanh(jnp.log1p(jnp.exp(x)))


def test_export_project_passes_make_csim(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w = rng.standard_normal((16, 12)).astype(np.float32)
    out = tjit.fpga.export(_softmax_mish, x, w, out_dir=tmp_path / "proj", part="u280",
                           clock_mhz=300)
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    for f in ("src/kernel.cpp", "src/tjit_dataflow.h", "csim/testbench.cpp",
              "csim/include/hls_stream.h", "host/host.cpp", "Makefile", "connectivity.cfg",
              "README.md"):
        assert f in names
    assert sum(n.startswith("data/") for n in names) == 4    # x, w and two outputs
    kernel = (out / "src" / "kernel.cpp").read_text()
    assert 'extern "C" void _softmax_mish(' in kernel and "#pragma HLS DATAFLOW" in kernel
    host = (out / "host" / "host.cpp").read_text()
    assert "xrt::kernel" in host and "load_xclbin" in host
    cfg = (out / "connectivity.cfg").read_text()
    assert "HBM[" in cfg and "nk=_softmax_mish:1" in cfg
    make = (out / "Makefile").read_text()
    for target in ("csim:", "csynth:", "hw_emu:", "hw:", "v++ -c -t", "v++ -l -t"):
        assert target in make
    r = subprocess.run(["make", "-s", "csim"], cwd=out, capture_output=True, text=True,
                       check=False, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout and "mismatches" in r.stdout


def test_export_refuses_host_steps(tmp_path):
    def f(x):
        return lax.while_loop(lambda v: jnp.sum(v) < 10, lambda v: v * 2, x)
    with pytest.raises(ValueError, match="not one dataflow design.*ControlStep"):
        tjit.fpga.export(f, np.ones(3, np.float32), out_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown part"):
        tjit.fpga.export(jnp.exp, np.ones(3, np.float32), out_dir=tmp_path, part="x")
