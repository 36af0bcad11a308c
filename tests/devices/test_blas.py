"""The gemm shim: dot_general through single-threaded BLAS calls on tjit's pool,
compared with float64 NumPy; serial vs split; every operand layout."""

import ctypes
import os

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import blas

pytestmark = pytest.mark.skipif(not blas.available(),
                                reason="NumPy's BLAS has no scipy_openblas64_ symbols")


@pytest.fixture(autouse=True, params=["own", "blas"])
def gemm_impl(request, monkeypatch):
    """Every test with tjit's own sgemm for float32 (where the host has it) and with
    BLAS for everything."""
    if request.param == "own" and not blas.own_sgemm_used():
        pytest.skip("tjit's own sgemm needs AVX-512F")
    if request.param == "blas":
        monkeypatch.setenv("TJIT_GEMM", "blas")
    return request.param


def _gemm(lshape, rshape, dtype, lperm, rperm, bmkn, force_serial=False):
    call = blas.GemmCall.build(lshape, rshape, dtype, lperm, rperm, bmkn)
    assert call is not None
    if force_serial:
        call.parallel = False
    return call


def _ref(a, b, lperm, rperm, bmkn):
    B, M, K, N = bmkn
    a = np.transpose(a.astype(np.float64), lperm).reshape(B, M, K)
    b = np.transpose(b.astype(np.float64), rperm).reshape(B, K, N)
    return a @ b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", [
    # lshape, rshape, lperm, rperm, (B, M, K, N)
    ((300, 70), (70, 200), (0, 1), (0, 1), (1, 300, 70, 200)),             # A @ B, split M
    ((64, 70), (70, 500), (0, 1), (0, 1), (1, 64, 70, 500)),              # split N
    ((70, 300), (70, 200), (1, 0), (0, 1), (1, 300, 70, 200)),            # A.T @ B
    ((300, 70), (200, 70), (0, 1), (1, 0), (1, 300, 70, 200)),            # A @ B.T
    ((70, 300), (200, 70), (1, 0), (1, 0), (1, 300, 70, 200)),            # A.T @ B.T
    ((6, 40, 30), (6, 30, 50), (0, 1, 2), (0, 1, 2), (6, 40, 30, 50)),    # batch split
    ((40, 6, 30), (6, 30, 50), (1, 0, 2), (0, 1, 2), (6, 40, 30, 50)),    # A via strides
    ((30, 40, 6), (6, 30, 50), (2, 1, 0), (0, 1, 2), (6, 40, 30, 50)),    # A copied
    ((1, 70), (70, 1), (0, 1), (0, 1), (1, 1, 70, 1)),                    # vectors
    ((5, 3, 7), (7, 2), (0, 1, 2), (0, 1), (1, 15, 7, 2)),                # merged M dims
])
@pytest.mark.parametrize("serial", [False, True])
def test_gemm_matches_numpy(dtype, case, serial):
    lshape, rshape, lperm, rperm, bmkn = case
    rng = np.random.default_rng(0)
    a = rng.standard_normal(lshape).astype(dtype)
    b = rng.standard_normal(rshape).astype(dtype)
    out = np.full(bmkn[:2] + bmkn[3:], np.nan, dtype)
    _gemm(lshape, rshape, dtype, lperm, rperm, bmkn, serial)(a, b, out)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, _ref(a, b, lperm, rperm, bmkn), rtol=tol, atol=tol * 10)


def test_large_product_is_split_and_matches_serial():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((256, 512)).astype(np.float32)
    b = rng.standard_normal((512, 384)).astype(np.float32)
    shape = ((256, 512), (512, 384), np.float32, (0, 1), (0, 1), (1, 256, 512, 384))
    split = blas.GemmCall.build(*shape)
    if tjit.devices.threads.default_num_threads() > 1:
        assert split.parallel and split.n_units > 1
    out_split, out_serial = np.empty((1, 256, 384), np.float32), np.empty((1, 256, 384),
                                                                          np.float32)
    split(a, b, out_split)
    _gemm(*shape, force_serial=True)(a, b, out_serial)
    # one thread runs the same blocks as separate calls: the same bits
    np.testing.assert_array_equal(out_split, out_serial)


def test_unsupported_dtypes_and_empty_dims_fall_back():
    assert blas.GemmCall.build((3, 4), (4, 5), np.int32, (0, 1), (0, 1), (1, 3, 4, 5)) is None
    assert blas.GemmCall.build((3, 0), (0, 5), np.float32, (0, 1), (0, 1),
                               (1, 3, 0, 5)) is None


def test_numpy_keeps_its_blas_threads():
    # the shim limits BLAS to one thread only while it runs, on the calling thread
    from numpy._core import _multiarray_umath
    lib = ctypes.CDLL(_multiarray_umath.__file__)
    get = lib.scipy_openblas_get_num_threads64_
    get.restype = ctypes.c_int
    before = get()
    a = np.ones((64, 64), np.float32)
    blas.GemmCall.build((64, 64), (64, 64), np.float32, (0, 1), (0, 1), (1, 64, 64, 64))(
        a, a, np.empty((1, 64, 64), np.float32))
    assert get() == before


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_jit_dots_through_the_shim(dtype, x64):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 33, 17)).astype(dtype)
    w = rng.standard_normal((17, 65)).astype(dtype)
    y = rng.standard_normal((4, 65, 9)).astype(dtype)

    def f(x, w, y):
        h = jnp.tanh(x @ w)                      # (4, 33, 65)
        z = lax.dot_general(h, y, (((2,), (1,)), ((0,), (0,))))   # batched
        return z, jnp.einsum("bij,bik->jk", x, h)                  # contraction over 2 dims

    got = tjit.jit(f)(x, w, y)
    x64, w64, y64 = (v.astype(np.float64) for v in (x, w, y))
    h = np.tanh(x64 @ w64)
    want = (h @ y64, np.einsum("bij,bik->jk", x64, h))
    tol = 2e-4 if dtype == np.float32 else 1e-10
    for g, r in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), r, rtol=tol, atol=tol)


def test_gemm_group_runs_members_whole_and_matches_lone_calls(gemm_impl):
    rng = np.random.default_rng(3)
    shapes = [((128, 128), (128, 160)), ((160, 128), (128, 128))]   # 2.6M MACs each
    calls, operands, lone = [], [], []
    for ls, rs in shapes:
        a, b = rng.standard_normal(ls).astype(np.float32), rng.standard_normal(rs).astype(
            np.float32)
        bmkn = (1, ls[0], ls[1], rs[1])
        calls.append(blas.GemmCall.build(ls, rs, np.float32, (0, 1), (0, 1), bmkn))
        out = np.full((1, ls[0], rs[1]), np.nan, np.float32)
        operands.append((a, b, out))
        ref = np.empty_like(out)
        blas.GemmCall.build(ls, rs, np.float32, (0, 1), (0, 1), bmkn)(a, b, ref)
        lone.append(ref)
    blas.GemmGroup(calls)(operands)
    for (a, b, out), ref in zip(operands, lone):
        np.testing.assert_array_equal(out, ref)             # same blocks, same bits
        np.testing.assert_allclose(out[0], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    # worth it through BLAS only (the own sgemm splits each across the threads instead)
    assert blas.GemmGroup.worth(calls, 2) == (gemm_impl == "blas")
    assert not blas.GemmGroup.worth(calls, 4) and not blas.GemmGroup.worth(calls[:1], 1)


def test_independent_dots_in_a_program_run_as_a_group(monkeypatch, gemm_impl):
    """Through BLAS, two independent dots run side by side, one per thread; tjit's own
    sgemm splits each across the threads instead."""
    monkeypatch.setenv("TJIT_NUM_THREADS", "2")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((256, 200)).astype(np.float32)
    w = rng.standard_normal((200, 300)).astype(np.float32)
    v = rng.standard_normal((200, 300)).astype(np.float32)
    f = tjit.jit(lambda x, w, v: jnp.tanh(x @ w) + jnp.sin(x @ v))
    runner = f.lower(x, w, v).compile().executable._take({})
    grouped = any(s.__qualname__.startswith("_gemm_group_step") for s in runner.steps)
    assert grouped == (gemm_impl == "blas")
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(np.asarray(f(x, w, v)), np.tanh(x64 @ w) + np.sin(x64 @ v),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", [
    ((300, 70), (70, 200), (0, 1), (0, 1), (1, 300, 70, 200)),             # split M
    ((64, 70), (70, 500), (0, 1), (0, 1), (1, 64, 70, 500)),              # split N
    ((70, 300), (200, 70), (1, 0), (1, 0), (1, 300, 70, 200)),            # A.T @ B.T
    ((6, 40, 30), (6, 30, 50), (0, 1, 2), (0, 1, 2), (6, 40, 30, 50)),    # batch split
])
@pytest.mark.parametrize("serial", [False, True])
@pytest.mark.parametrize("in_place", [False, True])
def test_gemm_accumulates_into_a_copy_of_x_or_x_itself(dtype, case, serial, in_place):
    """out = alpha * dot + beta * x: each block of out is first copied from x, or, when
    out is x, accumulated in place."""
    lshape, rshape, lperm, rperm, bmkn = case
    rng = np.random.default_rng(5)
    a = rng.standard_normal(lshape).astype(dtype)
    b = rng.standard_normal(rshape).astype(dtype)
    x = rng.standard_normal(bmkn[:2] + bmkn[3:]).astype(dtype)
    want = -0.25 * _ref(a, b, lperm, rperm, bmkn) + 0.5 * x.astype(np.float64)
    call = blas.GemmCall.build(lshape, rshape, dtype, lperm, rperm, bmkn, alpha=-0.25,
                               beta=0.5, prefill=True)
    if serial:
        call.parallel = False
    x_before = x.copy()
    out = x if in_place else np.full_like(x, np.nan)
    call(a, b, out, x)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol * 10)
    if not in_place:
        np.testing.assert_array_equal(x, x_before)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_gets_the_workspace_slots_back(gemm_impl):
    """Slots other threads held at a fork are free again in the child (else a child
    whose slots were all taken would wait forever)."""
    if gemm_impl != "own":
        pytest.skip("the own sgemm's pool")
    a = np.ones((200, 300), np.float32)
    f = tjit.jit(lambda a: a @ a.T)
    np.asarray(f(a))                      # the pool exists
    flags = blas._POOL[:64 * blas._POOL_SLOTS]
    held = flags.copy()
    flags[::64] = 1                       # every slot held by some thread
    try:
        pid = os.fork()
        if pid == 0:                      # child: must not hang, must compute
            import signal
            signal.alarm(30)              # a hang fails the test instead of CI
            ok = np.allclose(np.asarray(tjit.jit(lambda a: a @ a.T * 2)(a)), 600.0)
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        flags[:] = held
    assert os.WEXITSTATUS(status) == 0
