"""A CPU program's first call imports no other backend's code.

``jit`` without a backend asks the default order, which starts with CUDA; importing
``tjit.devices.cuda`` (its C renderer, NVRTC and CUDA graph modules) only to learn that
there is no GPU cost every CPU user's first call ~30-50 ms. The check runs in a fresh
process, where nothing has imported those modules yet.
"""

import json
import os
import subprocess
import sys

import pytest

from tjit.devices import cuda_probe

#: Module prefixes of backends a CPU program does not use.
OTHER_BACKENDS = ("tjit.devices.cuda", "tjit.devices.opencl", "tjit.devices.hls",
                  "tjit.lower.c", "tjit.fpga", "cupy", "pyopencl")
#: What the default-backend choice may import to rule CUDA out (no CuPy import).
PROBES = ("tjit.devices.cuda_probe",)

CHILD = r"""
import json, sys
import numpy as np
import tjit
import tjit.numpy as jnp

@tjit.jit
def f(x, w):
    return jnp.tanh(x @ w).sum(axis=0)

x = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
w = np.ones((4, 2), np.float32)
out = np.asarray(f(x, w))
expected = np.tanh(x.astype(np.float64) @ w).sum(axis=0)
print(json.dumps({"default": tjit.default_backend(), "close": bool(np.allclose(out, expected, rtol=1e-6)),
                  "modules": sorted(m for m in sys.modules)}))
"""


@pytest.mark.skipif(cuda_probe.quick_reason() is None,
                    reason="CuPy and an NVIDIA driver are here: CUDA may be the default")
def test_cpu_first_call_imports_no_other_backend(tmp_path):
    env = dict(os.environ, TJIT_CACHE_DIR=str(tmp_path))
    env.pop("TJIT_PLATFORMS", None)
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["default"] == "cpu" and got["close"]
    imported = [m for m in got["modules"]
                if m.startswith(OTHER_BACKENDS) and m not in PROBES]
    assert imported == [], f"a CPU first call imported other backends' modules: {imported}"


def test_quick_probe_reasons(monkeypatch):
    """Without CuPy, or with no driver that loads, the probe says so and names the fix;
    the CUDA backend's own probe starts from the same answer."""
    monkeypatch.setitem(sys.modules, "cupy", None)     # find_spec -> ValueError: absent
    reason = cuda_probe.quick_reason()
    assert "CuPy is not installed" in reason and 'pip install "tjit[cuda]"' in reason
    monkeypatch.setattr(cuda_probe, "DRIVER_LIBRARY", "libtjit-no-such-driver.so.1")
    missing = cuda_probe.driver_missing()
    assert "libtjit-no-such-driver.so.1 cannot be loaded" in missing
