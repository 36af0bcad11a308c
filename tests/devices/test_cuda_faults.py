"""The CUDA backend where it cannot run, and its compiler without a GPU.

No CuPy / no driver / no device: ``jit(backend="cuda")``, ``tjit.devices("gpu")`` and
``device_put`` to a GPU say what is missing and how to install it, and the CPU stays the
default. NVRTC runs without a GPU, so the compile path is checked here: a compile
failure carries the source and NVRTC's log, realistic programs (softmax, layernorm, an
MLP step, loops, symbolic sizes) compile for sm_90, and a corrupted disk-cache entry is
recompiled, never used.
"""

import sys
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import backend, cuda, cuda_compile, cuda_probe, disk_cache
from tjit.xla_like.compile import compile_program
from tjit.xla_like.target import CUDA

NVRTC_MISSING = None
try:
    cuda_compile.nvrtc_version()
except Exception as e:  # noqa: BLE001
    NVRTC_MISSING = f"NVRTC not usable here: {e}"
needs_nvrtc = pytest.mark.skipif(NVRTC_MISSING is not None, reason=str(NVRTC_MISSING))


@pytest.fixture
def no_gpu(monkeypatch):
    """The CUDA backend as if the probe found ``reason`` missing (set by the test)."""
    def set_reason(reason):
        monkeypatch.setattr(cuda, "unavailable_reason", lambda: reason)
    yield set_reason


def test_probe_without_cupy_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)     # import cupy -> ImportError
    reason = cuda._probe()
    assert "CuPy is not installed" in reason and 'pip install "tjit[cuda]"' in reason


def test_probe_without_driver_library_does_not_import_cupy(monkeypatch):
    """A machine with CuPy but no driver answers from a dlopen: the CPU user's first jit
    probes CUDA first and must not pay CuPy's import (0.3-1 s)."""
    pytest.importorskip("cupy")
    monkeypatch.setattr(cuda_probe, "DRIVER_LIBRARY", "libtjit-no-such-driver.so.1")
    monkeypatch.delitem(sys.modules, "cupy", raising=False)
    reason = cuda._probe()
    assert "no NVIDIA driver found" in reason and "libtjit-no-such-driver" in reason
    assert "cupy" not in sys.modules


def test_probe_without_driver_or_device(monkeypatch):
    cupy = pytest.importorskip("cupy")
    monkeypatch.setattr(cuda_probe, "driver_missing", lambda: None)   # (as on a GPU machine)
    monkeypatch.setattr(cupy.cuda.runtime, "driverGetVersion", lambda: 0)
    assert "no NVIDIA driver" in cuda._probe()
    monkeypatch.setattr(cupy.cuda.runtime, "driverGetVersion", lambda: 12090)
    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", lambda: 0)
    assert "no CUDA device" in cuda._probe()


@pytest.mark.parametrize("missing", [
    ('CuPy is not installed (No module named cupy); install tjit\'s CUDA extra: '
     'pip install "tjit[cuda]"'),
    "no NVIDIA driver usable by CuPy (CUDARuntimeError: cudaErrorInsufficientDriver)"])
def test_cuda_requests_fail_clearly_and_cpu_stays_default(no_gpu, missing, monkeypatch):
    no_gpu(missing)
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    with pytest.raises(RuntimeError) as e:
        tjit.jit(lambda x: x + 1, backend="cuda")
    assert missing in str(e.value) and "'cpu'" in str(e.value)
    with pytest.raises(RuntimeError, match="cannot run here"):
        tjit.jit(lambda x: x + 1, backend="gpu")   # (JAX's name for it)
    with pytest.raises(RuntimeError) as e:
        tjit.devices("gpu")
    assert missing in str(e.value)
    with pytest.raises(ValueError, match="no usable backend runs on"):
        tjit.device_put(np.ones(3), backend.Device("gpu", 0))
    assert tjit.default_backend() == "cpu"
    x = np.arange(4.0, dtype=np.float32)
    np.testing.assert_array_equal(tjit.jit(lambda x: x * 2)(x), x * 2)
    assert tjit.device_put(x).device == backend.CPU_DEVICE


def test_platforms_naming_only_cuda_says_why(no_gpu, monkeypatch):
    no_gpu("no CUDA device")
    monkeypatch.setenv("TJIT_PLATFORMS", "cuda")
    with pytest.raises(RuntimeError, match="TJIT_PLATFORMS='cuda' names no usable backend"):
        tjit.default_backend()
    monkeypatch.setenv("TJIT_PLATFORMS", "gpu,cpu")
    assert tjit.default_backend() == "cpu"


@needs_nvrtc
def test_nvrtc_failure_holds_source_and_log():
    bad = 'extern "C" __global__ void k(float *a) { a[0] = undefined_name; }\n'
    with pytest.raises(cuda_compile.CudaCompileError) as e:
        cuda_compile.compile_source(bad, "sm_90")
    err = e.value
    assert err.source == bad and "undefined_name" in err.log
    assert "NVRTC log" in str(err) and "undefined_name" in str(err) and "--fmad=false" in str(err)


def test_nvrtc_options_keep_the_accuracy_contract():
    opts = cuda_compile.options("sm_90")
    assert "--fmad=false" in opts and "--ftz=false" in opts and "--prec-div=true" in opts
    assert not any("fast_math" in o or o == "-ftz=true" for o in opts)


def _mlp_step(params, x, y):
    def loss(p):
        h = jnp.tanh(x @ p[0] + p[1])
        return jnp.mean((h @ p[2] - y) ** 2)
    g = tjit.grad(loss)(params)
    return [p - 0.1 * d for p, d in zip(params, g)]


def _programs():
    f32 = np.float32
    x = np.ones((4, 16), f32)

    def softmax(x):
        e = jnp.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def layernorm(x):
        m = x.mean(-1, keepdims=True)
        return (x - m) * lax.rsqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)

    def loops(x):
        y = lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x)
        return lax.while_loop(lambda c: c.sum() < 1e4, lambda c: c * 3.0, y)

    params = [np.ones((16, 8), f32), np.zeros(8, f32), np.ones((8, 2), f32)]
    yield "softmax", tjit.make_jaxpr(softmax)(x)
    yield "layernorm grad", tjit.make_jaxpr(tjit.grad(lambda x: layernorm(x).sum()))(x)
    yield "mish grad", tjit.make_jaxpr(tjit.grad(
        lambda x: (x * jnp.tanh(jnp.log1p(jnp.exp(x)))).sum()))(x)
    yield "loops", tjit.make_jaxpr(loops)(x)
    yield "gather", tjit.make_jaxpr(lambda x, i: x[i] * 2)(x, np.array([3, 0, 1], np.int32))
    yield "mlp step", tjit.make_jaxpr(_mlp_step)(params, x, np.ones((4, 2), f32))
    yield "polymorphic", tjit.make_jaxpr(softmax, polymorphic_shapes=["(b, 16)"])(x)


@needs_nvrtc
@pytest.mark.parametrize("name,closed", list(_programs()), ids=lambda v: v
                         if isinstance(v, str) else "")
def test_programs_compile_for_sm90_without_a_gpu(name, closed):
    """The CUDA target's plan, rendered and compiled by NVRTC (the GPU's null device)."""
    prog = compile_program(closed, CUDA)
    sources, text = cuda.render_program(prog)
    assert sources, name
    image = cuda_compile.compile_source(text, "sm_90")
    assert image[:4] == b"\x7fELF"


@needs_nvrtc
def test_corrupted_disk_cache_entry_is_recompiled(tmp_path, monkeypatch):
    monkeypatch.setenv("TJIT_CACHE_DIR", str(tmp_path))
    closed = tjit.make_jaxpr(lambda x: jnp.tanh(x) * 3)(np.ones(8, np.float32))
    _, text = cuda.render_program(compile_program(closed, CUDA))
    first = cuda_compile.cubin_for(text, "sm_90")
    key = cuda_compile.cache_key(text, "sm_90")
    path = disk_cache.default_cache().path(key)
    assert disk_cache.get(key) == first
    # a flipped payload byte: disk_cache's checksum rejects it, NVRTC compiles again
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[-10] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))
    with pytest.warns(RuntimeWarning):
        again = cuda_compile.cubin_for(text, "sm_90")
    assert again[:4] == b"\x7fELF" and disk_cache.get(key)[:4] == b"\x7fELF"
    # a well-formed entry that is no cubin: reported and replaced, never loaded
    disk_cache.put(key, b"not a cubin at all")
    with pytest.warns(RuntimeWarning, match="not a CUDA cubin"):
        third = cuda_compile.cubin_for(text, "sm_90")
    assert third[:4] == b"\x7fELF" and disk_cache.get(key) == third
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cuda_compile.cubin_for(text, "sm_90") == third   # a clean hit


def test_cache_key_names_arch_and_nvrtc():
    if NVRTC_MISSING:
        pytest.skip(NVRTC_MISSING)
    text = "// kernel"
    assert cuda_compile.cache_key(text, "sm_90") != cuda_compile.cache_key(text, "sm_80")
    assert cuda_compile.cache_key(text, "sm_90") != cuda_compile.cache_key(text + " ", "sm_90")
