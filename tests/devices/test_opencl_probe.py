"""The OpenCL device's usability probe (``opencl_context.probe_compiler``): a device
whose compiler rejects a trivial kernel (PoCL's LLVM 14 on a CPU it does not know:
"unknown target CPU 'generic'") makes the "opencl" backend unusable with a message
naming the device, its driver version, the compiler's log and what to do, while the CPU
default keeps working. Runs everywhere: pyopencl is replaced by a fake module."""

import sys
import types

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import backend, opencl_context
from tjit.lower.c import OPENCL

LOG = ("clBuildProgram failed: BUILD_PROGRAM_FAILURE\n\nBuild on <Device 'pthread-Zen5'>:"
       "\n\nerror: unknown target CPU 'generic'\nDevice pthread-Zen5 failed to build")
PLATFORM_VERSION = "OpenCL 3.0 PoCL 3.0-rc2  Linux, Release, RELOC, LLVM 14.0.6"


def _fake_pyopencl(build_error):
    """A pyopencl module with one CPU device whose ``Program.build`` raises
    ``build_error`` (None: builds succeed); ``built`` records each build's options."""
    cl = types.ModuleType("pyopencl")
    cl.built = []

    class Error(Exception):
        pass

    class RuntimeError_(Error):
        pass

    cl.Error, cl.RuntimeError, cl.CompilerWarning = Error, RuntimeError_, UserWarning
    cl.device_type = types.SimpleNamespace(GPU=4)
    platform = types.SimpleNamespace(name="Portable Computing Language",
                                     version=PLATFORM_VERSION)
    device = types.SimpleNamespace(name="pthread-Zen5", type=2, platform=platform,
                                   max_work_group_size=4096, extensions="cl_khr_fp64",
                                   max_compute_units=2)
    platform.get_devices = lambda: [device]
    cl.get_platforms = lambda: [platform]
    cl.Context = lambda devices: types.SimpleNamespace(devices=devices)

    class Program:
        def __init__(self, ctx, source):
            self.source = source

        def build(self, options=()):
            cl.built.append((self.source, list(options)))
            if build_error is not None:
                raise RuntimeError_(build_error)
            return self

    cl.Program = Program
    cl.tools = types.ModuleType("pyopencl.tools")
    return cl, device


@pytest.fixture
def fresh_context(monkeypatch):
    """opencl_context with no device chosen yet (restored afterwards)."""
    monkeypatch.setattr(opencl_context, "_DEVICE", None)
    monkeypatch.setattr(opencl_context, "_ERROR", None)


def test_probe_passes_a_compiler_that_builds_and_uses_tjits_options():
    cl, device = _fake_pyopencl(build_error=None)
    assert opencl_context.probe_compiler(cl, cl.Context([device]), device,
                                         OPENCL.compile_options) is None
    (source, options), = cl.built
    assert "__kernel" in source and options == list(OPENCL.compile_options)


def test_probe_names_device_driver_log_and_fix():
    cl, device = _fake_pyopencl(build_error=LOG)
    why = opencl_context.probe_compiler(cl, cl.Context([device]), device, ())
    for part in ("pthread-Zen5", "LLVM 14.0.6", "PoCL 3.0-rc2",
                 "unknown target CPU 'generic'", "OpenCL driver whose compiler",
                 "TJIT_OPENCL_DEVICE", "'cpu'"):
        assert part in why, (part, why)
    assert "Build on <" not in why and "BUILD_PROGRAM_FAILURE" not in why   # (pyopencl's noise)


def test_a_device_that_builds_nothing_makes_the_backend_unusable(monkeypatch, fresh_context):
    cl, _ = _fake_pyopencl(build_error=LOG)
    monkeypatch.setitem(sys.modules, "pyopencl", cl)
    monkeypatch.setitem(sys.modules, "pyopencl.tools", cl.tools)
    monkeypatch.delenv("TJIT_OPENCL_DEVICE", raising=False)

    why = opencl_context.unavailable_reason()
    assert why is not None and "unknown target CPU 'generic'" in why
    assert opencl_context.unavailable_reason() == why
    assert len(cl.built) == 1                       # probed once per process
    with pytest.raises(opencl_context.Unavailable, match="pthread-Zen5"):
        opencl_context.get()

    x = np.linspace(-1, 1, 5, dtype=np.float32)
    with pytest.raises(RuntimeError, match=r"(?s)opencl.*cannot run here.*unknown target CPU"):
        tjit.jit(jnp.sin, backend="opencl")(x)
    with pytest.raises(RuntimeError, match="unknown target CPU"):
        tjit.devices("opencl")
    if not tjit.config.platforms:                   # (TJIT_PLATFORMS is read when unset)
        monkeypatch.setenv("TJIT_PLATFORMS", "opencl")
        with pytest.raises(RuntimeError, match=r"(?s)TJIT_PLATFORMS.*unknown target CPU"):
            backend.default_backend()
        monkeypatch.delenv("TJIT_PLATFORMS")
    np.testing.assert_allclose(tjit.jit(jnp.sin)(x), np.sin(x), rtol=1e-6)   # CPU default
