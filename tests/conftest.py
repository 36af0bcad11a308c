import gc
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The persistent program cache is off in the suite (tests/xla_like/test_program_cache.py
# turns it on): tests monkeypatch compiler constants, which its key cannot see.
os.environ.setdefault("TJIT_PROGRAM_CACHE", "0")


@pytest.fixture(autouse=True)
def _fresh_jit_caches():
    """Each test's jit wrappers start with caches of their own: jit(f) of a function
    already jitted shares that wrapper's compiled signatures (as JAX's cache keyed by
    the function does), which across tests would hide the traces a test counts."""
    from tjit import api
    api._SHARED.clear()


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def x64():
    """Run a test with 64-bit types enabled, restoring the switch afterwards."""
    import tjit
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    yield
    tjit.config.update("enable_x64", old)


def pytest_configure(config):
    """Every kernel the session makes is also compiled as CUDA by NVRTC at the end
    (tests/lower/c/nvrtc_check.py)."""
    from tests.lower.c import nvrtc_check
    if not config.pluginmanager.is_registered(nvrtc_check):
        config.pluginmanager.register(nvrtc_check, "tjit-nvrtc-check")


def pytest_collection_finish(session):
    """What collection built lives the whole session: the test modules and what they
    import, and one item per test (~650k objects for the whole suite). Frozen out of the
    collector's sight (``gc.freeze``), they are not scanned again by each full
    collection (the automatic ones, and ``gc.collect()`` in tests and in
    ``tjit.clear_caches``): 0.34 s of CPU less each. Frozen objects are left out of
    ``gc.get_objects()``, so of ``tjit.live_arrays()`` too (arrays made at import)."""
    gc.collect()
    gc.freeze()


def pytest_runtest_setup(item):
    """A test marked ``opencl`` is skipped, with the reason, where the OpenCL backend
    cannot run: no pyopencl, no device, or a device whose compiler builds nothing (PoCL's
    LLVM on a CPU it does not know). ``opencl_context.unavailable_reason`` is the one
    judge; pyopencl is imported only when such a test runs."""
    if item.get_closest_marker("opencl") is not None:
        from tjit.devices import opencl_context
        why = opencl_context.unavailable_reason()
        if why is not None:
            pytest.skip(f"no usable OpenCL: {why}")


def pytest_collection_modifyitems(items):
    """A test parametrized over backend names runs on OpenCL when given "opencl" or
    "opencl_swi": it is marked ``opencl`` (so skipped with the reason where OpenCL
    cannot run), whether or not its parametrization says so."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if any(isinstance(v, str) and v in ("opencl", "opencl_swi") for v in params.values()):
            item.add_marker(pytest.mark.opencl)
