"""The backend registry: names, devices, ``TJIT_PLATFORMS``, ``jit(backend=, device=)``."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import backend
from tjit.devices.executable import InterpreterExecutable


class _Fake:
    """A backend of its own platform that runs the interpreter and counts compiles."""
    name = "fake"
    platform = "fake"

    def __init__(self, usable=True):
        self.usable = usable
        self.compiled = 0

    def available(self):
        return self.usable

    def devices(self):
        return [backend.Device("fake", 0), backend.Device("fake", 1)]

    def compile(self, closed_jaxpr, in_specs=None, donated=()):
        self.compiled += 1
        return InterpreterExecutable(closed_jaxpr, in_specs)


@pytest.fixture
def fake():
    b = backend.register(_Fake())
    yield b
    backend._REGISTRY.pop("fake", None)


def test_builtin_backends_and_devices():
    assert tjit.default_backend() == "cpu"
    assert {"cpu", "interpreter"} <= set(backend.registered())
    assert tjit.devices() == [backend.CPU_DEVICE] == tjit.local_devices()
    assert tjit.devices("interpreter") == [backend.CPU_DEVICE]
    assert repr(tjit.devices()[0]) == "CpuDevice(id=0)"
    assert tjit.devices()[0].platform == "cpu"
    x = jnp.ones(3)
    assert x.device == backend.CPU_DEVICE and x.devices() == {backend.CPU_DEVICE}
    # (the package stays a package while callable)
    assert tjit.devices.backend is backend and tjit.devices.cpu.CpuBackend.name == "cpu"


@pytest.mark.parametrize("name,hint", [("rocm", 'pip install "tjit[opencl]"'),
                                       ("tpu", 'pip install "tjit[cuda]"')])
def test_unknown_backend_names_available_and_install(name, hint):
    with pytest.raises(ValueError) as e:
        tjit.jit(lambda x: x, backend=name)
    msg = str(e.value)
    for part in (f"unknown backend {name!r}", "'cpu'", "'interpreter'", hint):
        assert part in msg
    with pytest.raises(ValueError, match="unknown backend"):
        tjit.devices(name)


def test_device_of_another_platform_is_refused():
    with pytest.raises(ValueError) as e:
        tjit.jit(lambda x: x, device=backend.Device("cuda", 0))
    assert "CudaDevice(id=0)" in str(e.value) and 'pip install "tjit[cuda]"' in str(e.value)
    with pytest.raises(ValueError, match="not a device of backend 'cpu'"):
        tjit.jit(lambda x: x, backend="cpu", device=backend.Device("cuda", 0))
    with pytest.raises(TypeError, match="tjit Device"):
        tjit.jit(lambda x: x, device="cpu")


def test_backend_and_device_pick_the_executable():
    x = np.arange(4.0)
    f = tjit.jit(lambda x: x * 2 + 1, backend="interpreter", device=tjit.devices()[0])
    np.testing.assert_array_equal(f(x), x * 2 + 1)
    entry, = f._cache.values()
    assert entry.executable.backend == "interpreter"
    g = tjit.jit(lambda x: x * 2 + 1, device=tjit.devices()[0])
    g(x)
    entry, = g._cache.values()
    assert entry.executable.backend == "cpu"
    assert any("interpreter" in k for k in f._cache) and any("cpu" in k for k in g._cache)


def test_registered_backend_by_name_device_and_env(fake, monkeypatch):
    x = np.arange(3.0)
    f = tjit.jit(lambda x: x - 1, backend="fake")
    np.testing.assert_array_equal(f(x), x - 1)
    assert fake.compiled == 1
    tjit.jit(lambda x: x + 1, device=backend.Device("fake", 1))(x)
    assert fake.compiled == 2
    assert tjit.devices("fake")[1] == backend.Device("fake", 1)
    monkeypatch.setenv("TJIT_PLATFORMS", "fake,cpu")
    assert tjit.default_backend() == "fake"
    tjit.jit(lambda x: x * 3)(x)
    assert fake.compiled == 3
    fake.usable = False     # not usable here: the next one named is the default
    assert tjit.default_backend() == "cpu"
    with pytest.raises(RuntimeError, match="cannot run here"):
        tjit.jit(lambda x: x, backend="fake")


def test_tjit_platforms_env(monkeypatch):
    monkeypatch.setenv("TJIT_PLATFORMS", "interpreter")
    assert tjit.default_backend() == "interpreter"
    f = tjit.jit(lambda x: x + 1)
    f(np.ones(2))
    entry, = f._cache.values()
    assert entry.executable.backend == "interpreter"
    monkeypatch.setenv("TJIT_PLATFORMS", "cuda")
    with pytest.raises(RuntimeError) as e:
        tjit.default_backend()
    assert "TJIT_PLATFORMS='cuda'" in str(e.value) and 'pip install "tjit[cuda]"' in str(e.value)
    assert tjit.make_jaxpr(lambda x: x + 1)(1.0) is not None   # tracing needs no backend
