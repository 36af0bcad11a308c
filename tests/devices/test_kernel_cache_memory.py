"""Memory of compiled kernels: returned when no live program uses them.

A discarded jitted function's kernels are freed once they fall out of the kernel table
(``kernel_cache.CACHE_SIZE`` most recent kept), so a process that makes and drops many
jitted functions stays flat; ``tjit.clear_caches()`` drops the table, and functions and
compiled programs still alive keep working (they hold their code, or recompile).
"""

import ctypes
import gc
import os
import weakref

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.devices import kernel_cache
from tjit.lower.llvm import target

N_FUNCTIONS = 200
#: Allowed growth per discarded function. Before the fix each leaked ~90 KiB (an O3 pass
#: pipeline per compile, never freed, plus the machine code); now ~6 KiB stays (llvmlite
#: leaks ~2.5 KiB of pass-instrumentation callbacks per compile; LLVM's global context
#: keeps some uniqued constants).
BOUND_PER_FUNCTION = 20 << 10


def _rss():
    try:
        ctypes.CDLL(None).malloc_trim(0)   # glibc: give freed heap pages back first
    except (AttributeError, OSError):
        pass
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _make_and_drop(start, n, x):
    for i in range(start, start + n):
        c = 7919.25 + i                                  # a distinct kernel per function
        f = tjit.jit(lambda x, c=c: x * c + 1.0)
        np.testing.assert_allclose(np.asarray(f(x)), np.asarray(x) * np.float32(c) + 1,
                                   rtol=1e-6)


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")
def test_discarded_jitted_functions_return_their_memory(monkeypatch):
    monkeypatch.setattr(kernel_cache, "CACHE_SIZE", 8)
    x = jnp.arange(8, dtype=jnp.float32)
    _make_and_drop(0, 40, x)                             # warm up allocator and tables
    gc.collect()
    rss0, freed0 = _rss(), target.ARENA_STATS["freed"]
    _make_and_drop(1000, N_FUNCTIONS, x)
    gc.collect()
    grown = _rss() - rss0
    assert grown < N_FUNCTIONS * BOUND_PER_FUNCTION, \
        f"{grown / N_FUNCTIONS / 1024:.1f} KiB per discarded function"
    assert kernel_cache.cached_count() <= kernel_cache.CACHE_SIZE + 4
    engines_freed = target.ARENA_STATS["freed"] - freed0
    assert engines_freed >= (N_FUNCTIONS - 8) // target.ARENA_SIZE - 2


def _kernel_fns(f):
    """The compiled kernel functions of ``f``'s (only) compiled signature."""
    (entry,) = f._cache.values()
    return list(entry.executable.fns.values())


def test_clear_caches_frees_unused_code_and_live_functions_recompile(monkeypatch):
    monkeypatch.setattr(target, "ARENA_SIZE", 1)  # an engine of its own (no other tenants)
    f = tjit.jit(lambda x: x * 3.5 + 0.25)
    x = jnp.arange(5, dtype=jnp.float32)
    expect = np.arange(5, dtype=np.float32) * 3.5 + 0.25
    np.testing.assert_allclose(np.asarray(f(x)), expect)
    codes = [weakref.ref(fn.code) for fn in _kernel_fns(f)]
    freed = target.ARENA_STATS["freed"]
    tjit.clear_caches()
    gc.collect()
    assert all(c() is None for c in codes), "clear_caches kept unused machine code"
    assert target.ARENA_STATS["freed"] > freed
    np.testing.assert_allclose(np.asarray(f(x)), expect)   # recompiles (or loads)
    assert f.trace_count == 2


def test_held_code_survives_clear_caches():
    """What a running call holds (a compiled program, a kernel function) stays loaded."""
    f = tjit.jit(lambda x: x * 2.5 - 1.0)
    x = jnp.arange(300, dtype=jnp.float32)
    compiled = f.lower(x).compile()
    code = weakref.ref(kernel_cache.compile_kernel(compiled.kernels()[0]).code)
    tjit.clear_caches()
    gc.collect()
    assert code() is not None, "code a compiled program holds was freed"
    expect = np.arange(300, dtype=np.float32) * 2.5 - 1.0
    np.testing.assert_allclose(np.asarray(compiled(x)), expect)
    del compiled
    gc.collect()
    target.release_unused()
    assert code() is None


def test_kernel_table_keeps_recent_kernels_within_its_bound(monkeypatch):
    monkeypatch.setattr(kernel_cache, "CACHE_SIZE", 4)
    x = jnp.arange(8, dtype=jnp.float32)
    _make_and_drop(5000, 10, x)
    gc.collect()
    assert kernel_cache.cached_count() <= 4
    before = dict(kernel_cache.STATS)
    _make_and_drop(5009, 1, x)                 # the most recent one is still compiled
    assert kernel_cache.STATS["memory_hits"] == before["memory_hits"] + 1
    assert kernel_cache.STATS["compiled"] == before["compiled"]
    assert kernel_cache.STATS["disk_hits"] == before["disk_hits"]


def _object(name, value):
    return target.emit_object(f"define double @{name}() {{\n  ret double {value}\n}}\n")


def test_owned_code_is_shared_while_loaded_and_freed_after(monkeypatch):
    monkeypatch.setattr(target, "ARENA_SIZE", 1)    # an engine of its own per object
    name = f"tjit_test_owned_{os.getpid()}"
    obj = _object(name, "2.5")
    a = target.load_owned(obj, [name])
    b = target.load_owned(obj, [name])          # the same code: linked once
    assert a.addresses == b.addresses
    call = ctypes.CFUNCTYPE(ctypes.c_double)(a.addresses[name])
    assert call() == 2.5
    with pytest.raises(ValueError, match="different code"):
        target.load_owned(_object(name, "3.5"), [name])
    with pytest.raises(ValueError, match="defines no function"):
        target.load_owned(_object(name + "_x", "1.0"), [name + "_y"])
    freed = target.ARENA_STATS["freed"]
    del a, b, call
    gc.collect()
    target.release_unused()
    assert target.ARENA_STATS["freed"] > freed
    c = target.load_owned(_object(name, "3.5"), [name])  # the name is free again
    assert ctypes.CFUNCTYPE(ctypes.c_double)(c.addresses[name])() == 3.5


def test_polymorphic_program_keeps_runners_for_a_bounded_number_of_sizes():
    """A polymorphic program keeps runners for the most recent ``cpu.KEPT_RUNNERS``
    batch sizes; every other size re-binds one of them."""
    from tjit.devices import cpu

    w = np.full((16, 16), 1 / 16, np.float32)
    f = tjit.jit(lambda x: jnp.tanh(jnp.tanh(x @ w) @ w) @ w, polymorphic_shapes=["(b, 16)"])
    sizes = list(range(1, 3 * cpu.KEPT_RUNNERS)) + [1]    # the first one again at the end
    for b in sizes:
        x = np.linspace(-1, 1, b * 16, dtype=np.float32).reshape(b, 16)
        expect = np.tanh(np.tanh(x @ w) @ w) @ w
        np.testing.assert_allclose(np.asarray(f(x)), expect, rtol=1e-5, atol=1e-6)
    (entry,) = f._cache.values()
    runners = entry.executable._idle
    assert len(runners) == cpu.KEPT_RUNNERS
    assert [r.binding for r in runners] == [(("b", b),) for b in sizes[-cpu.KEPT_RUNNERS:]]
    assert f.trace_count == 1


def test_clear_caches_while_other_threads_call():
    """Calls in flight keep their code; calls after a clear recompile (or reuse code a
    running call still holds). Every result stays right."""
    import threading

    f = tjit.jit(lambda x: x * 1.75 + 2.0)
    x = jnp.arange(64, dtype=jnp.float32)
    expect = np.arange(64, dtype=np.float32) * 1.75 + 2.0
    stop, started, errors, calls = threading.Event(), threading.Barrier(3), [], [0, 0]

    def caller(i):
        started.wait(60)
        while not stop.is_set():
            try:
                np.testing.assert_allclose(np.asarray(f(x)), expect)
            except BaseException as e:  # noqa: BLE001  (reported below)
                errors.append(e)
                return
            calls[i] += 1

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    started.wait(60)
    try:
        for _ in range(5):
            tjit.clear_caches()     # (collects garbage itself)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    assert not errors, errors[0]
    np.testing.assert_allclose(np.asarray(f(x)), expect)


def _kinds(c):
    """Jitted functions of each kind of compiled step, closing over the constant ``c``
    (distinct code per ``c``): fused elementwise, reduction, dot (a gemm step) and scan
    (a native loop whose body kernels are built for many calls)."""
    def scan(x):
        def body(carry, row):
            carry = carry * c + row
            return carry, carry.sum()
        return tjit.lax.scan(body, jnp.zeros(x.shape[1], x.dtype), x)
    return {
        "elementwise": (tjit.jit(lambda x: jnp.sin(x) * c + x),
                        lambda x: np.sin(x) * c + x),
        "reduction": (tjit.jit(lambda x: jnp.sum(x * c, axis=0)),
                      lambda x: np.sum(x * c, axis=0)),
        "dot": (tjit.jit(lambda x: jnp.sin(jnp.dot(x, x.T)) * c),
                lambda x: np.sin(np.dot(x, x.T)) * c),
        "scan": (tjit.jit(scan), None),
    }


def _scan_reference(x, c):
    carry, ys = np.zeros(x.shape[1]), []
    for row in x:
        carry = carry * c + row
        ys.append(carry.sum())
    return carry, np.array(ys)


@pytest.mark.parametrize("kind", ["elementwise", "reduction", "dot", "scan"])
def test_dropped_jitted_function_and_its_program_are_collected(kind, monkeypatch):
    """Nothing process-wide keeps a dropped jitted function, its compiled program or
    its machine code (beyond the kernel table's bounded recent kernels)."""
    monkeypatch.setattr(kernel_cache, "CACHE_SIZE", 0)     # only held kernels stay
    x64 = np.linspace(-1, 1, 48).reshape(6, 8)
    x = jnp.asarray(x64, jnp.float32)
    c = 1.0 + 0.001 * (hash(kind) % 997)
    f, ref = _kinds(c)[kind]
    before = set(kernel_cache._LIVE.keys())
    got = f(x)
    if ref is None:
        for g, r in zip(got, _scan_reference(x64, c)):
            np.testing.assert_allclose(np.asarray(g), r, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(np.asarray(got), ref(x64), rtol=1e-5, atol=1e-5)
    (entry,) = f._cache.values()
    program = weakref.ref(entry.executable)
    # every kernel it compiled, loop bodies' included
    codes = [weakref.ref(fn.code) for h, fn in list(kernel_cache._LIVE.items())
             if h not in before]
    assert codes, f"{kind}: compiled no kernel (the test would check nothing)"
    jitted = weakref.ref(f)
    del f, entry, got
    gc.collect()
    assert jitted() is None, f"{kind}: a dropped jitted function is still referenced"
    assert program() is None, f"{kind}: a dropped function's compiled program is kept"
    assert all(code() is None for code in codes), f"{kind}: its machine code is kept"


def test_caches_stay_bounded_over_many_distinct_functions(monkeypatch):
    """Over more distinct functions than the kernel table holds, every process-wide
    table tjit fills per compile stays within its bound."""
    from tjit import api
    from tjit.devices import rebind_code

    monkeypatch.setattr(kernel_cache, "CACHE_SIZE", 6)
    monkeypatch.setattr(rebind_code, "_CODE_LIMIT", 5)
    monkeypatch.setattr(rebind_code, "_CODE", {})   # (earlier tests' entries: over 5)
    x = jnp.asarray(np.linspace(-1, 1, 48).reshape(6, 8), jnp.float32)
    # in a whole test run other tests' programs may still be alive, holding kernels,
    # engines and jitted functions of their own: the bounds count from what is live here
    kernel_cache.clear()
    base_kernels = kernel_cache.cached_count()
    base_engines = target.ARENA_STATS["engines"] - target.ARENA_STATS["freed"]
    base_shared, base_jitted = len(api._SHARED), len(api._ALL_JITTED)
    engines = []
    for i in range(24):
        f, _ = _kinds(2.0 + i * 0.01)[("elementwise", "reduction", "dot", "scan")[i % 4]]
        tjit.block_until_ready(f(x))
        del f
        gc.collect()
        assert kernel_cache.cached_count() <= base_kernels + kernel_cache.CACHE_SIZE
        assert len(rebind_code._CODE) <= rebind_code._CODE_LIMIT
        assert len(api._SHARED) <= base_shared and len(api._ALL_JITTED) <= base_jitted
        engines.append(target.ARENA_STATS["engines"] - target.ARENA_STATS["freed"]
                       - base_engines)
    # live engines: those holding the recent kernels (each may pin ARENA_SIZE - 1 dead)
    # and the one being filled
    assert max(engines[8:]) <= kernel_cache.CACHE_SIZE + 1, engines
