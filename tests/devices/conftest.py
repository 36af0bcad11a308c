"""Fixtures shared by the device tests."""

import pytest

from tjit.devices import native_loop


@pytest.fixture
def loops(monkeypatch):
    """The NativeLoops built (None for a loop left to the Python driver)."""
    built = []
    real = native_loop.NativeLoop.build.__func__

    def record(cls, step, runners, env):
        loop = real(cls, step, runners, env)
        built.append(loop)
        return loop
    monkeypatch.setattr(native_loop.NativeLoop, "build", classmethod(record))
    return built
