"""``jit(f, device=tjit.devices("gpu")[i])`` on a simulated pair of GPUs (``fake_cupy``
with two devices: arrays carry their device's id, kernels assert that their buffers
live on the launching device) and, marked ``cuda``, on a machine with two GPUs."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices.fake_cupy import simulated_gpu
from tjit.devices import cuda

F32 = np.float32


@pytest.fixture
def two_gpus(monkeypatch):
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    with simulated_gpu(monkeypatch, devices=2) as fake:
        yield fake


def f(x, y):
    return jnp.tanh(x) * y + jnp.sum(x, axis=0), x @ y.T


def _ref(*args):
    return tjit.jit(f, backend="interpreter")(*args)


def _inputs():
    rng = np.random.default_rng(1)
    return rng.standard_normal((8, 8)).astype(F32), rng.standard_normal((8, 8)).astype(F32)


def _check(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


def test_program_runs_on_the_chosen_gpu(two_gpus):
    x, y = _inputs()
    gpu1 = tjit.devices("gpu")[1]
    g = tjit.jit(f, device=gpu1)
    for args in [(x, y), (tjit.device_put(x, gpu1), tjit.device_put(y, gpu1))]:
        got = g(*args)          # (host arguments are copied to GPU 1)
        assert all(o.device == gpu1 for o in got)
        _check(got, _ref(x, y))
    assert set(two_gpus.launch_devices) == {1}
    two_gpus.launch_devices.clear()
    got = tjit.jit(f)(x, y)     # (no device=: the current device, GPU 0)
    assert all(o.device == tjit.devices("gpu")[0] for o in got)
    assert set(two_gpus.launch_devices) == {0}


def test_one_kernel_fast_path_and_polymorphic_sizes_stay_on_the_gpu(two_gpus):
    gpu1 = tjit.devices("gpu")[1]
    one = tjit.jit(lambda x: x * 2 + 1, device=gpu1)
    poly = tjit.jit(lambda x: jnp.exp(x) / jnp.sum(jnp.exp(x)), device=gpu1,
                    polymorphic_shapes=["(n,)"])
    for n in (3, 17, 40):
        x = np.linspace(-1, 1, n).astype(F32)
        for fn, want in ((one, x * 2 + 1), (poly, np.exp(x) / np.exp(x).sum())):
            out = fn(x)
            assert out.device == gpu1
            np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5)
    assert set(two_gpus.launch_devices) == {1}


def test_argument_on_another_gpu_is_refused(two_gpus):
    x, y = _inputs()
    on0 = tjit.device_put(x, tjit.devices("gpu")[0])
    g = tjit.jit(f, device=tjit.devices("gpu")[1])
    with pytest.raises(ValueError, match=r"incompatible devices.*argument 0 of shape "
                                         r"float32\[8, 8\].*GpuDevice\(id=0\).*device_put"):
        g(on0, y)
    assert not two_gpus.launch_devices


def test_device_of_another_platform_is_refused(two_gpus):
    with pytest.raises(ValueError, match="device"):
        tjit.jit(f, backend="gpu", device=tjit.devices("cpu")[0])(*_inputs())


@pytest.mark.cuda
@pytest.mark.skipif(cuda.unavailable_reason() is not None,
                    reason=str(cuda.unavailable_reason()))
def test_real_second_gpu():
    import cupy
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs 2 GPUs")
    x, y = _inputs()
    gpu1 = tjit.devices("gpu")[1]
    got = tjit.jit(f, device=gpu1)(x, y)
    assert all(o.device == gpu1 and o._value.device.id == 1 for o in got)
    _check(got, _ref(x, y))
    with pytest.raises(ValueError, match="incompatible devices"):
        tjit.jit(f, device=gpu1)(tjit.device_put(x, tjit.devices("gpu")[0]), y)
