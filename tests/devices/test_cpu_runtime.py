"""The CPU runtime end to end: disk cache across processes (round trip, corrupted entries,
two processes compiling at once), threads vs one thread, and no compilation for a new
batch size of a polymorphic jit."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.devices import kernel_cache

SCRIPT = r"""
import hashlib, json, sys, warnings
import numpy as np
warnings.simplefilter("always")
import tjit, tjit.numpy as jnp
from tjit.devices import kernel_cache
x = np.linspace(-4, 4, 300_000, dtype=np.float32).reshape(600, 500)
f = tjit.jit(lambda x: jnp.sum(jnp.tanh(x) * jnp.exp(-x * x) + jnp.log1p(jnp.abs(x)), axis=1))
with warnings.catch_warnings(record=True) as w:
    out = np.asarray(f(x))
# a product big enough to be split into blocks across threads (tjit/devices/blas.py)
a, b = x[:, :400], x[:400, :].T.copy()
dot = np.asarray(tjit.jit(lambda a, b: jnp.tanh(a @ b.T))(a, b))
print(json.dumps({"out": out.tolist(), "stats": kernel_cache.STATS,
                  "dot": hashlib.sha256(dot.tobytes()).hexdigest(),
                  "warnings": [str(m.message) for m in w]}))
"""


def run_child(cache_dir, **env):
    e = dict(os.environ, TJIT_CACHE_DIR=str(cache_dir), **env)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=e, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def reference():
    x = np.linspace(-4, 4, 300_000, dtype=np.float32).reshape(600, 500).astype(np.float64)
    return np.sum(np.tanh(x) * np.exp(-x * x) + np.log1p(np.abs(x)), axis=1)


def test_disk_cache_round_trip_and_corrupted_entries(tmp_path):
    first = run_child(tmp_path)
    assert first["stats"]["compiled"] >= 1 and first["stats"]["disk_hits"] == 0
    np.testing.assert_allclose(first["out"], reference(), rtol=1e-5)
    second = run_child(tmp_path)
    assert second["stats"]["compiled"] == 0 and second["stats"]["disk_hits"] >= 1
    assert second["out"] == first["out"]
    entries = [p for p in pathlib.Path(tmp_path).rglob("*") if p.is_file()]
    assert entries
    for p in entries:  # truncate every entry: each must be detected and recompiled
        p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
    third = run_child(tmp_path)
    assert third["stats"]["compiled"] >= 1
    assert any("recompiled" in w for w in third["warnings"]), third["warnings"]
    assert third["out"] == first["out"]


def test_two_processes_compiling_at_once(tmp_path):
    e = dict(os.environ, TJIT_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT], env=e, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = []
    for p in procs:
        so, se = p.communicate(timeout=120)
        assert p.returncode == 0, se
        outs.append(json.loads(so.strip().splitlines()[-1]))
    assert outs[0]["out"] == outs[1]["out"]
    assert not any(o["warnings"] for o in outs)  # nobody saw a half-written entry
    assert run_child(tmp_path)["stats"]["compiled"] == 0


def test_threads_and_one_thread_agree(tmp_path):
    one = run_child(tmp_path, TJIT_NUM_THREADS="1")
    two = run_child(tmp_path, TJIT_NUM_THREADS="2")
    assert one["out"] == two["out"]  # rows are never split across threads: bit-equal
    assert one["dot"] == two["dot"]  # gemm blocks do not depend on the thread count


def test_parallel_kernels_in_process_match_interpreter():
    rng = np.random.RandomState(3)
    x = rng.randn(512, 300).astype(np.float32)  # above the parallel threshold
    f = lambda x: (jnp.exp(x) * 2 - x, jnp.max(x, axis=1), jnp.sum(x, axis=0))  # noqa: E731
    got = tjit.jit(f)(x)
    want = tjit.jit(f, backend="interpreter")(x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-6, atol=1e-5)


def test_new_batch_size_of_polymorphic_jit_compiles_nothing():
    f = tjit.jit(lambda x: jnp.tanh(x) * jnp.sum(x * x, axis=1, keepdims=True),
                 polymorphic_shapes=["(b, 16)"])
    rng = np.random.RandomState(4)
    f(rng.randn(8, 16).astype(np.float32))
    before = kernel_cache.STATS["compiled"]
    for b in (1, 3, 9, 64, 1000):
        x = rng.randn(b, 16).astype(np.float32)
        np.testing.assert_allclose(np.asarray(f(x)),
                                   np.tanh(x) * np.sum(x * x, axis=1, keepdims=True),
                                   rtol=2e-5, atol=1e-5)
    assert kernel_cache.STATS["compiled"] == before
    assert f.trace_count == 1


def test_only_kernels_with_enough_work_are_split(monkeypatch):
    from tjit.devices import cpu
    monkeypatch.setenv("TJIT_NUM_THREADS", "2")
    calls = []
    real = cpu.parallel_for

    def spy(fn, args, sizes, n, *rest, **kw):
        calls.append(n)
        return real(fn, args, sizes, n, *rest, **kw)
    monkeypatch.setattr(cpu, "parallel_for", spy)
    x = np.random.RandomState(7).randn(128, 1024).astype(np.float32)   # 2^17 points
    cheap = tjit.jit(lambda x: jnp.maximum(x + 1.0, 0.0))
    np.testing.assert_array_equal(np.asarray(cheap(x)), np.maximum(x + 1.0, 0.0))
    assert calls == []      # an add and a max per point: the hand-off would cost more
    dear = tjit.jit(lambda x: x * jnp.tanh(jnp.log1p(jnp.exp(x))))
    np.testing.assert_allclose(np.asarray(dear(x)), x * np.tanh(np.log1p(np.exp(x))),
                               rtol=1e-5, atol=1e-6)
    assert calls == [128]   # transcendental work: split over the rows


def test_concurrent_calls_from_threads_do_not_share_kernel_arguments():
    # Regression: runners keep per-call state (kernel argument arrays) and ctypes
    # releases the GIL during a kernel, so two threads must never share one runner.
    import threading
    f = tjit.jit(lambda x: jnp.sin(x) * 2 + 1)
    xs = [np.full(20000, k, np.float32) for k in range(4)]
    want = [np.sin(x.astype(np.float64)) * 2 + 1 for x in xs]
    bad = []

    def work(k):
        for _ in range(300):
            got = np.asarray(f(xs[k]))
            if not np.allclose(got, want[k], rtol=1e-6):
                bad.append(k)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


def test_concurrent_dots_and_loops_from_threads():
    """Threads calling programs with big gemms (the own sgemm's workspace slots are
    taken concurrently) and with a natively driven loop with a cond, at once."""
    import threading
    from tjit import lax
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 200, 300)).astype(np.float32)
    b = rng.standard_normal((300, 260)).astype(np.float32)
    f = tjit.jit(lambda a, b: jnp.tanh(a @ b))
    g = tjit.jit(lambda x: lax.fori_loop(0, 200, lambda i, x: lax.cond(
        i % 2 == 0, lambda x: x * 0.5, lambda x: x + 1.0, x), x))
    want_f = [np.tanh(a[k].astype(np.float64) @ b) for k in range(4)]
    xs = [np.full(16, k, np.float32) for k in range(4)]
    want_g = []
    for x in xs:
        for i in range(200):
            x = x * np.float32(0.5) if i % 2 == 0 else x + np.float32(1.0)
        want_g.append(x)
    bad = []

    def work(k):
        for _ in range(30):
            if not np.allclose(np.asarray(f(a[k], b)), want_f[k], rtol=1e-4, atol=1e-4):
                bad.append(("dot", k))
            if not np.array_equal(np.asarray(g(xs[k])), want_g[k]):
                bad.append(("loop", k))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad, bad
