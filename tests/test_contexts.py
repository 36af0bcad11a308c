"""JAX's debugging contexts: no_tracing, no_execution, checking_leaks and the transfer
guards (behaviour compared side by side with JAX 0.10.2's CPU backend; device-to-host on
the simulated CUDA device of ``tests/devices/fake_cupy.py``)."""

import logging

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.devices.fake_cupy import FakeDeviceArray, simulated_gpu
from tjit.tracing.transfer_guard import TransferGuardError

F32 = np.float32


def double(x):
    return x * 2


# -- no_tracing -----------------------------------------------------------------------------
def test_no_tracing_allows_cached_calls_and_names_function_and_cause():
    f = tjit.jit(double)
    x = np.arange(3, dtype=F32)
    f(jnp.asarray(x))
    with tjit.no_tracing():
        np.testing.assert_array_equal(f(jnp.asarray(x)), x * 2)   # cached: runs
        with pytest.raises(RuntimeError, match=r"re-tracing function double at .*"
                                               r"test_contexts.py:\d+ .*no_tracing.*"
                                               r"new shape for arg x: \(3,\) → \(4,\)"):
            f(jnp.ones(4, F32))
    np.testing.assert_array_equal(f(jnp.ones(4, F32)), np.full(4, 2, F32))  # (after the block)


def test_no_tracing_first_call_static_arg_lower_and_make_jaxpr():
    g = tjit.jit(lambda x, n: x * n, static_argnums=1)
    with tjit.no_tracing(), pytest.raises(RuntimeError, match="first call"):
        g(jnp.ones(2), 2)
    g(jnp.ones(2), 2)
    with tjit.no_tracing():
        with pytest.raises(RuntimeError, match="static"):
            g(jnp.ones(2), 3)
        with pytest.raises(RuntimeError, match="no_tracing"):
            tjit.jit(double).lower(1.0)
        with pytest.raises(RuntimeError, match="no_tracing"):
            tjit.make_jaxpr(double)(1.0)


def test_no_tracing_nests_and_has_jax_option_names():
    f = tjit.jit(double)
    assert tjit.config.jax_no_tracing is False
    with tjit.no_tracing():
        with tjit.no_tracing(False):
            assert float(f(jnp.float32(2))) == 4.0   # traced inside the inner block
        assert tjit.config.read("jax_no_tracing") is True
        with pytest.raises(RuntimeError):
            f(jnp.ones(5))
    assert tjit.config.no_tracing is False
    tjit.config.update("jax_no_tracing", True)
    try:
        with pytest.raises(RuntimeError):
            f(jnp.ones(6))
    finally:
        tjit.config.update("jax_no_tracing", False)


# -- no_execution ---------------------------------------------------------------------------
def test_no_execution_refuses_compiled_and_eager_runs_but_traces():
    f = tjit.jit(double)
    x = jnp.arange(3.0)
    f(x)
    with tjit.no_execution():
        with pytest.raises(RuntimeError, match=r"execute function jit\(double\).*no_execution"):
            f(x)
        with pytest.raises(RuntimeError, match="execute function sin"):
            jnp.sin(x)
        with pytest.raises(RuntimeError, match="no_execution"):
            tjit.jit(double).lower(x).compile()(x)
        jaxpr = tjit.make_jaxpr(f)(x)                 # tracing is allowed
        assert jaxpr.out_avals[0].shape == (3,)
        assert "Array(" in repr(x)                    # reading an array runs nothing
        with tjit.no_execution(False):
            np.testing.assert_allclose(jnp.sin(x), np.sin(np.arange(3.0)), rtol=1e-6)
    np.testing.assert_array_equal(f(x), [0, 2, 4])


def test_checking_leaks_is_check_tracer_leaks():
    assert tjit.config.check_tracer_leaks is False
    with tjit.checking_leaks():
        assert tjit.config.jax_check_tracer_leaks is True
        assert float(tjit.jit(double)(1.5)) == 3.0
    assert tjit.config.check_tracer_leaks is False


# -- transfer guards: host to device ------------------------------------------------------
# what each level does with an implicit and an explicit transfer: None (allowed silently),
# "log", "raise" (JAX's documented table)
LEVELS = {
    "allow": (None, None),
    "log": ("log", None),
    "disallow": ("raise", None),
    "log_explicit": ("log", "log"),
    "disallow_explicit": ("raise", "raise"),
}


def _outcome(fn, caplog):
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tjit.transfer_guard"):
        try:
            out = fn()
        except TransferGuardError as e:
            assert "Disallowed" in str(e) and "host-to-device" in str(e)
            return "raise", None
    logged = [r for r in caplog.records if r.name == "tjit.transfer_guard"]
    return ("log" if logged else None), out


@pytest.mark.parametrize("level", list(LEVELS))
def test_host_to_device_levels(level, caplog):
    host = np.linspace(-1, 1, 5).astype(F32)
    f = tjit.jit(jnp.tanh)
    f(jnp.asarray(host))
    implicit, explicit = LEVELS[level]
    want = np.tanh(host.astype(np.float64))
    calls = ((lambda: f(host), want), (lambda: jnp.tanh(host), want),
             (lambda: jnp.asarray(host), host), (lambda: f(0.5), np.tanh(0.5)))
    with tjit.transfer_guard_host_to_device(level):
        for call, expected in calls:
            got, out = _outcome(call, caplog)
            assert got == implicit
            if out is not None:    # (results unchanged by a guard that lets it through)
                np.testing.assert_allclose(out, expected, rtol=1e-6)
        got, out = _outcome(lambda: tjit.device_put(host), caplog)
        assert got == explicit
        if out is not None:
            np.testing.assert_array_equal(out, host)


def test_host_to_device_not_counted_arrays_statics_constants_and_tracing():
    x = jnp.arange(4.0)
    g = tjit.jit(lambda x, n: x * n + np.ones(4, F32), static_argnums=1)
    with tjit.transfer_guard("disallow"):
        np.testing.assert_array_equal(g(x, 3), np.arange(4.0) * 3 + 1)  # static, constant
        np.testing.assert_array_equal(x + x, np.arange(4.0) * 2)
        np.testing.assert_array_equal(np.asarray(x), np.arange(4.0))   # CPU: no transfer
        assert float(x.sum()) == 6.0 and x.tolist() == [0.0, 1.0, 2.0, 3.0]
        np.testing.assert_array_equal(tjit.device_get(x), np.arange(4.0))
        with pytest.raises(TransferGuardError,
                           match=r"ShapedArray\(int32\[\], weak_type=True\), into add"):
            x + 1
        jaxpr = tjit.make_jaxpr(lambda y: jnp.sin(y) + 2.0)(1.0)   # tracing moves nothing
        assert len(jaxpr.jaxpr.eqns) == 2


def test_transfer_guard_nesting_and_global_option():
    host = np.ones(3, F32)
    with tjit.transfer_guard("disallow"):
        with tjit.transfer_guard_host_to_device("allow"):
            np.testing.assert_allclose(jnp.exp(host), np.e * host, rtol=1e-6)
        with pytest.raises(TransferGuardError):
            jnp.exp(host)
        assert tjit.config.transfer_guard_device_to_host == "disallow"
    for d in ("host_to_device", "device_to_host", "device_to_device"):
        assert tjit.config.read(f"jax_transfer_guard_{d}") is None
    tjit.config.update("jax_transfer_guard", "disallow")
    try:
        assert tjit.config.transfer_guard_device_to_device == "disallow"
        with pytest.raises(TransferGuardError):
            jnp.exp(host)
    finally:
        tjit.config.update("jax_transfer_guard", None)
    assert tjit.config.transfer_guard_host_to_device is None
    np.testing.assert_allclose(jnp.exp(host), np.e * host, rtol=1e-6)
    with pytest.raises(ValueError, match="transfer_guard_host_to_device must be one of"), \
            tjit.transfer_guard("bogus"):
        pass
    assert tjit.config.transfer_guard_host_to_device is None


# -- transfer guards: device to host and device to device (simulated GPU) -----------------
@pytest.fixture
def gpu(monkeypatch):
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    with simulated_gpu(monkeypatch, devices=2) as fake:
        yield fake


def test_device_to_host_on_an_accelerator(gpu, caplog):
    host = np.arange(4, dtype=F32)
    a = tjit.device_put(host)
    assert type(a._value) is FakeDeviceArray
    s = a.sum()
    reads = (lambda: np.asarray(a), lambda: float(s), lambda: s.item(), lambda: a.tolist(),
             lambda: repr(a), lambda: str(a), lambda: bool(s))
    with tjit.transfer_guard_device_to_host("disallow"):
        for read in reads:
            with pytest.raises(TransferGuardError, match="device-to-host"):
                read()
        np.testing.assert_array_equal(tjit.device_get(a), host)       # explicit
        np.testing.assert_array_equal(tjit.device_get(jnp.exp(a)), np.exp(host))
    with tjit.transfer_guard_device_to_host("disallow_explicit"), \
            pytest.raises(TransferGuardError, match="explicit device-to-host"):
        tjit.device_get(a)
    with tjit.transfer_guard_device_to_host("log"):
        got, out = _outcome(lambda: float(s), caplog)
        assert got == "log" and out == 6.0
    assert float(s) == 6.0 and repr(a).startswith("Array(")


def test_host_data_into_a_device_program_and_device_to_device(gpu):
    host_array = jnp.asarray(np.ones(3, F32))        # (host memory: eager creation)
    a = tjit.device_put(np.ones(3, F32))
    f = tjit.jit(double)
    np.testing.assert_array_equal(np.asarray(f(a)), np.full(3, 2, F32))
    with tjit.transfer_guard_host_to_device("disallow"):
        np.testing.assert_array_equal(tjit.device_get(f(a)), np.full(3, 2, F32))
        assert type(host_array._value) is np.ndarray
        with pytest.raises(TransferGuardError, match=r"jit\(double\)"):
            f(host_array)
        with pytest.raises(TransferGuardError, match="host-to-device"):
            a + host_array
        tjit.device_put(np.ones(2, F32))                 # explicit: allowed
    gpu1 = tjit.devices("gpu")[1]
    with tjit.transfer_guard_device_to_device("disallow"):
        b = tjit.device_put(a, gpu1)                     # explicit: allowed
    with tjit.transfer_guard_device_to_device("disallow_explicit"), \
            pytest.raises(TransferGuardError, match="device-to-device"):
        tjit.device_put(a, gpu1)
    np.testing.assert_array_equal(tjit.device_get(b), np.ones(3, F32))
