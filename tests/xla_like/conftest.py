"""Fixtures shared by the planner tests."""

import pytest

from tests.devices.fake_cupy import simulated_gpu


@pytest.fixture
def gpu(monkeypatch):
    """The CUDA backend on a simulated GPU (``fake_cupy``: every kernel run by
    ``kernel_ir.evaluate``), whatever ``TJIT_PLATFORMS`` says."""
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    with simulated_gpu(monkeypatch) as fake:
        yield fake
