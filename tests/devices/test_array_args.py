"""Kernel arguments filled natively from array objects (devices/array_args.py): the
pointers equal NumPy's own, and jitted calls through that path give NumPy's results."""

import ctypes

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import array_args

pytestmark = pytest.mark.skipif(not array_args.available(),
                                reason="array layout not confirmed on this Python")


def _arrays():
    base = np.arange(24, dtype=np.float32)
    ro = np.ones(7, np.int64)
    ro.flags.writeable = False
    return [base, base[5:], base.reshape(4, 6)[1:], np.array(2.5), ro,
            np.empty(0, np.float64), np.frombuffer(bytearray(16), np.int32)]


def test_fill_only_writes_numpys_data_pointers():
    arrays = _arrays()
    argv = (ctypes.c_void_p * (len(arrays) + 2))()
    positions = [n + 2 for n in range(len(arrays))][::-1]   # any slot order
    array_args.ArrayLauncher(argv, positions)(arrays)
    for a, pos in zip(arrays, positions):
        assert argv[pos] == a.ctypes.data
    assert argv[0] is None and argv[1] is None               # untouched slots


@pytest.mark.parametrize("make", [
    lambda x: x,                           # C-contiguous
    lambda x: x[::2],                      # strided view: copied before the call
    lambda x: x.reshape(2, -1)[1],         # offset view
    lambda x: np.require(x, requirements="C").copy(),
])
def test_jit_calls_through_the_native_path(make):
    x = make(np.linspace(-3, 3, 2 * 3000, dtype=np.float32))
    f = tjit.jit(lambda v: jnp.exp(v) * 2 - v)
    np.testing.assert_allclose(np.asarray(f(x)), np.exp(x) * 2 - x, rtol=2e-6)
    x_ro = x.copy()
    x_ro.flags.writeable = False
    np.testing.assert_allclose(np.asarray(f(x_ro)), np.exp(x) * 2 - x, rtol=2e-6)


def test_scalar_and_multi_output_programs():
    f = tjit.jit(lambda a, b: (a * b, a + b, jnp.sum(a)))
    a, b = np.float32(1.5), np.arange(5, dtype=np.float32)
    got = f(a, b)
    for g, w in zip(got, (a * b, a + b, np.float32(1.5))):
        np.testing.assert_allclose(np.asarray(g), w)


def test_ctypes_fallback_path_agrees(monkeypatch):
    # where the array layout cannot be confirmed, pointers come from ctypes
    monkeypatch.setattr(array_args, "_state", lambda: None)
    assert not array_args.available()
    x = np.linspace(-3, 3, 50_000, dtype=np.float32).reshape(100, 500)
    f = tjit.jit(lambda v: (jnp.tanh(v) * 3, jnp.sum(v * v, axis=1)))
    got = f(x)
    np.testing.assert_allclose(np.asarray(got[0]), np.tanh(x) * 3, rtol=3e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(got[1]), np.sum(x.astype(np.float64) ** 2, axis=1),
                               rtol=1e-5)
    g = tjit.jit(tjit.grad(lambda v: jnp.sum(jnp.sin(v) @ v.T)))
    y = x[:8, :6]
    s = np.sin(y.astype(np.float64))
    want = np.cos(y) * (np.ones((8, 8)) @ y) + np.ones((8, 8)).T @ s
    np.testing.assert_allclose(np.asarray(g(y)), want, rtol=1e-4, atol=1e-4)
