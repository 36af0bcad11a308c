"""Runners of every size of a polymorphic CPU program share one block of temporaries
(tjit/devices/slot_arena.py): results at every size against NumPy, sizes called from
threads at once (a call that finds the shared block in use runs on memory of its own),
and the block grown only when a larger size needs it."""

import threading

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.devices import slot_arena

RNG = np.random.default_rng(0)
W = (RNG.standard_normal((16, 16)) / 4).astype(np.float32)


def _mlp(x):
    return jnp.tanh(jnp.tanh(x @ W) @ W) @ W


def _want(x):
    x = x.astype(np.float64)
    return np.tanh(np.tanh(x @ W) @ W) @ W


def _executable(f):
    (entry,) = {id(e): e for e in f._cache.values()}.values()
    return entry.executable


def test_sizes_share_one_arena_grown_on_demand():
    f = tjit.jit(_mlp, polymorphic_shapes=["(b, 16)"])
    for b in (64, 3, 17, 40, 64, 5):
        x = RNG.standard_normal((b, 16)).astype(np.float32)
        np.testing.assert_allclose(f(x), _want(x), rtol=1e-4, atol=1e-5)
    exe = _executable(f)
    arenas = {id(r.arena) for r in exe._idle}
    assert len(arenas) == 1     # 64 came first: every smaller size fits in its arena
    for b in (200, 7):          # a larger size grows it; older sizes keep theirs
        x = RNG.standard_normal((b, 16)).astype(np.float32)
        np.testing.assert_allclose(f(x), _want(x), rtol=1e-4, atol=1e-5)
    runners = {r.binding: r for r in exe._idle}
    big = runners[(("b", 200),)].arena
    assert big.capacity >= 2 * runners[(("b", 64),)].arena.capacity


def test_threads_calling_different_sizes_at_once():
    f = tjit.jit(_mlp, polymorphic_shapes=["(b, 16)"])
    sizes = [3, 9, 33, 64, 9, 3, 128, 33] * 4
    xs = {b: RNG.standard_normal((b, 16)).astype(np.float32) for b in set(sizes)}
    f(xs[128])
    out, errors = [None] * len(sizes), []
    start = threading.Barrier(len(sizes))

    def call(i, b):
        try:
            start.wait(30)
            for _ in range(5):
                out[i] = np.asarray(f(xs[b]))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=call, args=(i, b)) for i, b in enumerate(sizes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    for i, b in enumerate(sizes):
        np.testing.assert_allclose(out[i], _want(xs[b]), rtol=1e-4, atol=1e-5)


def test_arena_views_are_aligned_and_disjoint():
    arena = slot_arena.SlotArena(4096)
    views = arena.carve([10, 100, 1, 64])
    starts = [v.ctypes.data for v in views]
    assert all(s % slot_arena.ALIGN == 0 for s in starts)
    for (a, va), b in zip(zip(starts, views), starts[1:]):
        assert a + va.nbytes <= b
