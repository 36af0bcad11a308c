"""OpenBLAS on one thread around the native shims (devices/one_thread.py): its results
depend on its (process-wide) thread count, so a gemm block must never run while another
block, or an eager LAPACK call, has put the count back. Without the shared guard a
grouped gemm differed from a lone one by 1.5e-5 on a loaded machine."""

import ctypes
import threading

import numpy as np
import pytest

from tjit.devices import blas, cpu_lapack, one_thread
from tjit.primitives import lapack_threads as lt

needs_openblas = pytest.mark.skipif(not lt.setters("numpy") or blas._openblas() is None,
                                    reason="NumPy's OpenBLAS not found (another BLAS)")


def _setter():
    return lt.setters("numpy")[0]


def _count_now():
    fn = _setter()
    old = fn(1)
    fn(old)
    return old


@pytest.fixture
def two_threads():
    """NumPy's OpenBLAS at 2 threads (the user's setting), restored after."""
    before = _setter()(2)
    yield
    _setter()(before)


def _shim_guard():
    """(enter, leave) of NumPy's OpenBLAS's guard, as the shims take it (a shim module
    loaded first: loading one shares its guard with eager calls)."""
    blas._library().get(np.float32)
    return lt._SHARED[ctypes.cast(_setter(), ctypes.c_void_p).value][:2]


@needs_openblas
def test_openblas_bits_depend_on_its_thread_count(two_threads):
    """Why the guard exists: the same sgemm at 1 and at 2 OpenBLAS threads (if this ever
    holds with equal bits, the guard is still right, only no longer needed)."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 128)).astype(np.float32)
    b = rng.standard_normal((128, 160)).astype(np.float32)
    outs = []
    for count in (1, 2):
        _setter()(count)
        outs.append(a @ b)
    ref = a.astype(np.float64) @ b
    for out in outs:
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    if np.array_equal(outs[0], outs[1]):
        pytest.skip("this OpenBLAS gives the same bits at 1 and 2 threads")


@needs_openblas
def test_overlapping_calls_keep_one_thread_until_the_last_leaves(two_threads):
    """The interleaving that changed bits: A enters, B enters, A leaves while B is still
    inside. The count must stay 1 until B leaves, then be the user's 2 again; an eager
    LAPACK block (lapack_threads) in between must not restore it either."""
    enter, leave = _shim_guard()
    enter()                                   # block A
    assert _count_now() == 1
    enter()                                   # block B
    leave()                                   # A leaves first
    assert _count_now() == 1
    with lt.blas_threads(np, 1):              # an eager call meanwhile
        pass
    assert _count_now() == 1
    leave()                                   # B, the last
    assert _count_now() == 2
    with lt.blas_threads(np, 1):              # eager blocks take the same guard
        enter()
    assert _count_now() == 1
    leave()
    assert _count_now() == 2


@needs_openblas
def test_a_users_single_thread_is_left_alone():
    before = _setter()(1)
    try:
        enter, leave = _shim_guard()
        enter()
        leave()
        assert _count_now() == 1
    finally:
        _setter()(before)


def _shim_sources():
    """The IR of every shim that calls NumPy's OpenBLAS, without the guard's functions
    (and their exported entry and exit)."""
    texts = {f"gemm {t}": blas._shim_ir(t).replace(one_thread.exported_ir(f"tjit_gemm_{t}"), "")
             for t in ("float", "double")}
    for routine, (ir, fields, _) in cpu_lapack._ROUTINES.items():
        if ir is None:                        # (a routine another shim calls)
            continue
        texts[routine] = ir
        assert "one_thread" in fields, routine
    return {name: text.replace(one_thread.GUARD_IR, "") for name, text in texts.items()}


def test_every_openblas_shim_goes_through_the_guard():
    """The class of the defect: a shim that sets the count itself (a per-call save and
    restore) races with the others. Every shim enters and leaves the shared guard once
    and calls no setter of its own."""
    for name, text in _shim_sources().items():
        text = text.replace("{ENTER}", cpu_lapack._ENTER).replace("{LEAVE}", cpu_lapack._LEAVE)
        assert text.count("@tjit_one_thread_enter(") == 1, name
        assert text.count("@tjit_one_thread_leave(") == 1, name
        assert "%setl" not in text and "set_num_threads" not in text, name


def _calls(nthreads):
    rng = np.random.default_rng(3)
    calls, operands = [], []
    for ls, rs in [((128, 128), (128, 160)), ((160, 128), (128, 128))]:
        a = rng.standard_normal(ls).astype(np.float32)
        b = rng.standard_normal(rs).astype(np.float32)
        bmkn = (1, ls[0], ls[1], rs[1])
        calls.append(blas.GemmCall.build(ls, rs, np.float32, (0, 1), (0, 1), bmkn,
                                         nthreads=nthreads))
        operands.append((a, b, np.full((1, ls[0], rs[1]), np.nan, np.float32)))
    return calls, operands


@needs_openblas
def test_gemm_bits_do_not_depend_on_load_or_threads(monkeypatch, two_threads):
    """Busy and idle: each product alone on the calling thread (one thread), split across
    the pool, grouped one per thread, and all of them at once from four Python threads
    (blocks overlapping in every way, beside eager LAPACK blocks), with OpenBLAS at 2
    threads otherwise: the same bits every time."""
    monkeypatch.setenv("TJIT_GEMM", "blas")       # OpenBLAS's sgemm, not tjit's own
    serial, operands = _calls(nthreads=1)
    assert all(not c.parallel for c in serial)
    ref = [c(a, b, out.copy()) for c, (a, b, out) in zip(serial, operands)]
    for r, (a, b, _) in zip(ref, operands):
        np.testing.assert_allclose(r[0], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    failures = []
    spd = np.eye(8) * 2.0

    def hammer(kind):
        parallel, _ = _calls(nthreads=2)      # a call's arguments are its own thread's
        group = blas.GemmGroup(_calls(nthreads=2)[0])
        for _ in range(30):
            if kind == "group":
                outs = [out.copy() for _, _, out in operands]
                group([(a, b, o) for (a, b, _), o in zip(operands, outs)])
            elif kind == "eager":             # its guard taken and given back
                with lt.blas_threads(np, 1):
                    np.linalg.cholesky(spd)
                continue
            else:
                outs = [c(a, b, out.copy()) for c, (a, b, out) in zip(parallel, operands)]
            if not all(np.array_equal(o, r) for o, r in zip(outs, ref)):
                failures.append(kind)

    workers = [threading.Thread(target=hammer, args=(k,))
               for k in ("group", "lone", "lone", "eager")]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert failures == []
    assert _count_now() == 2


_GEMM_SIGNATURE = ctypes.CFUNCTYPE(
    None, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int64, ctypes.c_int64,
    ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
    ctypes.c_int64, ctypes.c_float, ctypes.c_void_p, ctypes.c_int64)


def _call_into(library_call):
    """A one-block float32 GemmCall of the BLAS shim whose library call is the Python
    function ``library_call()`` (in place of cblas_sgemm), with its operands."""
    call = blas.GemmCall.build((16, 16), (16, 16), np.float32, (0, 1), (0, 1),
                               (1, 16, 16, 16), nthreads=1)
    callback = _GEMM_SIGNATURE(lambda *args: library_call())
    call.sizes[blas._F["gemm"]] = ctypes.cast(callback, ctypes.c_void_p).value
    a = np.zeros((16, 16), np.float32)
    return call, callback, (a, a, np.zeros((1, 16, 16), np.float32))


@needs_openblas
def test_a_shim_call_keeps_one_thread_while_another_leaves(monkeypatch, two_threads):
    """Drives the race that changed bits, deterministically, through two real shims:
    shim A enters and waits inside its library call; shim B enters; A leaves; B's
    library call must still find OpenBLAS on one thread (the per-call save and restore
    of before found the user's 2 there)."""
    monkeypatch.setenv("TJIT_GEMM", "blas")
    a_inside, b_inside, a_left = threading.Event(), threading.Event(), threading.Event()
    counts = []

    def a_library_call():
        a_inside.set()
        assert b_inside.wait(10)

    def b_library_call():
        b_inside.set()
        assert a_left.wait(10)
        counts.append(_count_now())

    call_a, keep_a, ops_a = _call_into(a_library_call)
    call_b, keep_b, ops_b = _call_into(b_library_call)

    def run_a():
        call_a(*ops_a)
        a_left.set()

    thread_a = threading.Thread(target=run_a)
    thread_a.start()
    assert a_inside.wait(10)
    call_b(*ops_b)
    thread_a.join()
    assert counts == [1]
    assert _count_now() == 2


@needs_openblas
def test_eager_blocks_inside_when_a_shim_loads_are_handed_over(monkeypatch):
    """An eager block entered before any shim was loaded saved the count itself; the
    first shim module loaded then makes it one call inside the guard, so its exit does
    not restore the count under a shim that entered meanwhile. (A library of its own:
    a setter written in Python, the guard's native entry and exit.)"""
    count = [2]

    def set_count(n):
        old, count[0] = count[0], n
        return old

    setter = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)(set_count)
    address = ctypes.cast(setter, ctypes.c_void_p).value
    _shim_guard()                                       # a shim module loaded
    native = lt._SHARED[ctypes.cast(_setter(), ctypes.c_void_p).value][3]
    limit = lt._OneThread("numpy")
    limit._set = setter                                 # (as if looked up)
    monkeypatch.setattr(lt, "_LIMITS", {"numpy": limit})
    monkeypatch.setattr(lt, "_SHARED", {})
    state = one_thread.guard(address)
    try:
        with limit:
            assert count == [1]
            one_thread.share_with_eager_calls(
                state, [ctypes.cast(f, ctypes.c_void_p).value for f in native])
            native[0](state)                            # a shim enters
        assert count == [1]                             # the eager block left first
        native[1](state)                                # the shim leaves
        assert count == [2]
        with limit:                                     # now through the guard
            assert count == [1]
        assert count == [2]
    finally:
        one_thread._GUARDS.pop(address)
