"""OpenBLAS threads around the linalg primitives' LAPACK calls (primitives/lapack_threads.py):
the policy (which calls run OpenBLAS on one thread), that the limit is set and restored
(also across threads), and that results keep their bits (against the libraries at their default
threads) and their values (NumPy float64, the reference interpreter)."""

import threading

import numpy as np
import pytest
import scipy.linalg

import tjit
from tjit.lax import linalg as lax_linalg
from tjit.primitives import lapack_threads as lt
from tjit.primitives import linalg as plinalg

needs_openblas = pytest.mark.skipif(lt.libraries_found() == 0,
                                    reason="NumPy's OpenBLAS not found (another BLAS)")


def _threads_now(fn):
    """This thread's thread count of one OpenBLAS (read by setting it back)."""
    old = fn(1)
    fn(old)
    return old


def test_policy_small_per_matrix_work_runs_on_one_thread():
    assert lt.factorization_work((64, 48)) == 64 * 48 * 48
    assert lt.factorization_work((7, 3, 5, 200)) == 5 * 200 * 5     # per matrix
    assert lt.solve_work((9, 48, 48), (9, 48, 64)) == 48 * 48 * 64  # left side
    assert lt.solve_work((64, 64), (10, 64)) == 64 * 10 * 64         # right side
    assert lt.single_threaded(lt.factorization_work((127, 127)))
    assert not lt.single_threaded(lt.factorization_work((128, 128)))
    assert not lt.single_threaded(lt.solve_work((256, 256), (256, 4096)))
    # a batch of small matrices stays small: OpenBLAS threads each call on its own
    assert lt.single_threaded(lt.factorization_work((10_000, 32, 32)))


def test_contexts_by_namespace_size_and_library():
    assert lt.blas_threads(np, 10) is lt._LIMITS["numpy"]
    assert lt.blas_threads(np, 10, "scipy") is lt._LIMITS["scipy"]
    assert lt.blas_threads(np, lt.SINGLE_THREAD_BELOW) is lt._NO_LIMIT

    class OtherNamespace:      # e.g. CuPy: its calls never reach NumPy's OpenBLAS
        pass
    assert lt.blas_threads(OtherNamespace, 10) is lt._NO_LIMIT


def _all_setters():
    return lt.setters("numpy") + lt.setters("scipy")


@needs_openblas
def test_limit_is_set_inside_and_restored_after():
    fns = _all_setters()
    assert lt.libraries_found() == 2      # NumPy's and SciPy's wheels each ship one
    before = [_threads_now(f) for f in fns]
    for f in fns:
        f(2)
    try:
        with lt.blas_threads(np, 1, "numpy"), lt.blas_threads(np, 1, "scipy"):
            assert [_threads_now(f) for f in fns] == [1, 1]
            with lt.blas_threads(np, 1):        # nested: keeps the outer limit
                pass
            assert [_threads_now(f) for f in fns] == [1, 1]
        assert [_threads_now(f) for f in fns] == [2, 2]
        with lt.blas_threads(np, 1, "scipy"):   # only the library called
            assert [_threads_now(f) for f in fns] == [2, 1]
        with pytest.raises(ZeroDivisionError), lt.blas_threads(np, 1):  # restored on raise
            raise ZeroDivisionError
        assert [_threads_now(f) for f in fns] == [2, 2]
    finally:
        for f, b in zip(fns, before):
            f(b)


@needs_openblas
def test_blocks_of_two_threads_share_one_limit():
    """The count is process-wide (pthreads OpenBLAS): overlapping blocks of two threads
    keep it at 1 until the last one leaves, then restore the count from before."""
    fns = lt.setters("numpy")
    before = [_threads_now(f) for f in fns]
    entered, release, left = threading.Event(), threading.Event(), threading.Event()

    def other():
        with lt.blas_threads(np, 1):
            entered.set()
            release.wait(10)
        left.set()

    t = threading.Thread(target=other)
    t.start()
    assert entered.wait(10)
    with lt.blas_threads(np, 1):
        release.set()
        assert left.wait(10)             # the other block left first
        assert [_threads_now(f) for f in fns] == [1] * len(fns)
    t.join()
    assert [_threads_now(f) for f in fns] == before


def _impl_cases(rng, n, batch):
    a = rng.standard_normal(batch + (n, n))
    spd = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    tall = rng.standard_normal(batch + (n + 20, n))
    b = rng.standard_normal(batch + (n, 40))
    tri = {"conjugate_a": False, "unit_diagonal": False}
    return [
        (plinalg._cholesky_impl, (spd,), {}),
        (plinalg._qr_impl, (tall,), {"full_matrices": False}),
        (plinalg._lu_impl, (a,), {}),
        (plinalg._eigh_impl, (spd,), {"lower": True}),
        (plinalg._svd_impl, (tall,), {"full_matrices": False, "compute_uv": True}),
        (plinalg._triangular_solve_impl, (np.tril(a) + n * np.eye(n), b),
         dict(left_side=True, lower=True, transpose_a=False, **tri)),
        (plinalg._triangular_solve_impl, (np.triu(a) + n * np.eye(n), np.swapaxes(b, -1, -2)),
         dict(left_side=False, lower=False, transpose_a=True, **tri)),
    ]


@needs_openblas
@pytest.mark.parametrize("n", [8, 33, 100])
@pytest.mark.parametrize("batch", [(), (3,)])
def test_thread_limit_keeps_results(n, batch):
    """Each impl (OpenBLAS on one thread) against the same library calls at OpenBLAS's
    default threads (the impl unwrapped, every library at two threads). Bits agree on most
    hosts, but OpenBLAS does not promise thread-count-invariant rounding (on a Zen 5 host its
    threaded eigh of 100 x 100 differs in the last bits), so the check is float64 rounding
    level: a thread limit that changed what is computed would be far outside it."""
    rng = np.random.default_rng(n)
    fns = _all_setters()
    for impl, args, params in _impl_cases(rng, n, batch):
        new = impl(np, *args, **params)
        old_counts = [f(2) for f in fns]
        try:
            ref = impl.__wrapped__(np, *args, **params)
        finally:
            for f, c in zip(fns, old_counts):
                f(c)
        new, ref = (r if isinstance(r, list) else [r] for r in (new, ref))
        for x, y in zip(new, ref):
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-10 * np.abs(y).max(),
                                       err_msg=impl.__name__)


def test_jitted_qdwh_against_interpreter_and_scipy_polar(x64):
    x = np.random.default_rng(0).standard_normal((64, 48))
    u, h = tjit.jit(lambda x: lax_linalg.qdwh(x)[:2])(x)
    u_ref, h_ref = tjit.jit(lambda x: lax_linalg.qdwh(x)[:2], backend="interpreter")(x)
    np.testing.assert_allclose(u, u_ref, rtol=0, atol=1e-11)   # (fusion reorders sums)
    np.testing.assert_allclose(h, h_ref, rtol=0, atol=1e-11)
    u64, h64 = scipy.linalg.polar(x)
    np.testing.assert_allclose(u, u64, atol=1e-10)
    np.testing.assert_allclose(h, h64, atol=1e-10)


def test_vmapped_small_factorizations_against_numpy_float64(x64):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 24, 24))
    spd = a @ np.swapaxes(a, -1, -2) + 24 * np.eye(24)
    low = tjit.jit(tjit.vmap(lambda s: lax_linalg.cholesky(s)))(spd)
    np.testing.assert_allclose(low, np.linalg.cholesky(spd), rtol=1e-12, atol=1e-12)
    b = rng.standard_normal((5, 24, 3))
    x = tjit.jit(tjit.vmap(lambda l, b: lax_linalg.triangular_solve(
        l, b, left_side=True, lower=True)))(low, b)
    np.testing.assert_allclose(np.asarray(low) @ np.asarray(x), b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shape", [(6, 6), (3, 7, 7), (2, 3, 6, 4), (4, 9)])
def test_pivots_to_permutation_matches_scipy_lu(shape):
    """NumPy's path (swaps on lists) against SciPy's P L U = a, per matrix."""
    a = np.random.default_rng(2).standard_normal(shape)
    mats = a.reshape((-1,) + shape[-2:])
    piv = np.stack([scipy.linalg.lu_factor(m)[1] for m in mats]).astype(np.int32)
    perm = plinalg.pivots_to_permutation(np, piv.reshape(shape[:-2] + piv.shape[-1:]),
                                         shape[-2])
    assert perm.dtype == np.int32 and perm.shape == shape[:-1]
    for m, p in zip(mats, perm.reshape(-1, shape[-2])):
        _, low, up = scipy.linalg.lu(m)
        np.testing.assert_allclose(m[p], low @ up, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_triangular_solve_has_scipys_bits(dtype, layout):
    """The batch loop over LAPACK's trtrs gives SciPy's batched solve_triangular's bits
    (each trans/lower/unit case, C- and Fortran-ordered matrices); a zero pivot falls
    back to substitution (inf/nan), as before."""
    rng = np.random.default_rng(3)
    n = 9
    a = rng.standard_normal((2, 3, n, n)) + n * np.eye(n)
    b = rng.standard_normal((2, 3, n, 4))
    if np.dtype(dtype).kind == "c":
        a, b = a + 1j * rng.standard_normal(a.shape), b - 1j
    a, b = a.astype(dtype), b.astype(dtype)
    if layout == "F":
        a = np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)
    for kind in (0, 1, 2):
        for lower in (False, True):
            for unit in (False, True):
                for a_, b_ in ((a, b), (a[1, 2], b[1, 2])):      # a batch; one matrix
                    got = plinalg._trtrs_batch(a_, b_, kind, lower, unit)
                    ref = scipy.linalg.solve_triangular(a_, b_, trans=kind, lower=lower,
                                                        unit_diagonal=unit,
                                                        check_finite=False)
                    assert got.dtype == ref.dtype
                    np.testing.assert_array_equal(got, ref)
    singular = np.tril(a).copy()
    singular[1, 2, 4, 4] = 0
    x = plinalg._triangular_solve_impl(np, singular, b, left_side=True, lower=True,
                                       transpose_a=False, conjugate_a=False,
                                       unit_diagonal=False)
    assert not np.isfinite(x[1, 2]).all() and np.isfinite(x[0]).all()


def test_pivots_to_permutation_without_swaps_or_matrices():
    np.testing.assert_array_equal(
        plinalg.pivots_to_permutation(np, np.zeros((2, 0), np.int32), 3), [[0, 1, 2]] * 2)
    assert plinalg.pivots_to_permutation(np, np.zeros((0, 4), np.int32), 4).shape == (0, 4)
    _, piv, perm = plinalg._lu_impl(np, np.ones((2, 5, 0)))
    assert piv.shape == (2, 0) and perm.tolist() == [list(range(5))] * 2


def test_limit_without_openblas_changes_nothing(monkeypatch):
    monkeypatch.setattr(lt, "setters", lambda library: ())     # another BLAS
    limit = lt._OneThread("numpy")
    with limit, limit:
        pass
    assert limit._set is lt._unchanged and limit._depth == 0
