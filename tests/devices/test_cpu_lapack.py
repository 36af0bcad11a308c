"""``triangular_solve``, ``cholesky`` and ``lu`` steps on the CPU as native LAPACK calls
(``devices/cpu_lapack.py``): the same bits as the primitives' NumPy implementations (the
reference interpreter), close to NumPy float64 solves and factors, and loops of them run
by the native driver (``native_loop``)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import cpu_lapack
from tjit.lax import linalg as tl
from tjit.tracing.jaxpr import eval_jaxpr_reference

RNG = np.random.default_rng(3)


def _triangle(n, lower, unit, batch=(), dtype=np.float64):
    a = RNG.standard_normal(batch + (n, n)) + n * np.eye(n)
    a = np.tril(a) if lower else np.triu(a)
    if unit:   # (what is on the diagonal must not matter)
        a = a + 5.0 * np.eye(n)
    return a.astype(dtype)


def _numpy_solve(a, b, lower, transpose, unit):
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        t = t - t * np.eye(a.shape[-1]) + np.eye(a.shape[-1])
    if transpose:
        t = np.swapaxes(t, -1, -2)
    return np.linalg.solve(t.astype(np.float64), b.astype(np.float64))


@pytest.fixture
def served(monkeypatch):
    """The library steps cpu_lapack was asked for: its closure, or None where it declined."""
    seen = []
    real = cpu_lapack.lapack_step

    def record(runner, s):
        run = real(runner, s)
        seen.append(run)
        return run
    monkeypatch.setattr(cpu_lapack, "lapack_step", record)
    return seen


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lower,transpose,unit", [
    (True, False, False), (True, True, False), (False, False, True), (False, True, True)])
@pytest.mark.parametrize("batch", [(), (3,)])
def test_compiled_solve_has_the_reference_bits(x64, served, dtype, lower, transpose, unit,
                                              batch):
    a = _triangle(9, lower, unit, batch, dtype)
    b = RNG.standard_normal(batch + (9, 4)).astype(dtype)

    def f(a, b):
        return tl.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose,
                                   unit_diagonal=unit)
    got = np.asarray(tjit.jit(f)(a, b))
    assert served and all(run is not None for run in served)
    closed = tjit.make_jaxpr(f)(a, b)
    (ref,) = eval_jaxpr_reference(closed.jaxpr, closed.consts, [a, b])
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.asarray(ref))
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, _numpy_solve(a, b, lower, transpose, unit), rtol=tol,
                               atol=tol)


def test_loop_of_solves_runs_natively_and_matches_numpy(x64, loops):
    low = _triangle(12, True, False)
    b = RNG.standard_normal((12, 3))

    def f(m, c):
        return lax.fori_loop(0, 7, lambda i, c: tl.triangular_solve(
            m, c, left_side=True, lower=True) * 0.5 + c * 0.5, c)
    got = np.asarray(tjit.jit(f)(low, b))
    assert loops and all(loop is not None for loop in loops)
    ref = b.copy()
    for _ in range(7):
        ref = np.linalg.solve(low, ref) * 0.5 + ref * 0.5
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_loop_whose_carry_is_the_solution(x64, loops):
    # the solve's result is the next carry itself (written into the carry's buffer), and
    # the operand b is the carry the iteration read
    up = _triangle(5, False, False) / 5.0
    b = RNG.standard_normal((5, 2))
    got = np.asarray(tjit.jit(lambda m, c: lax.fori_loop(
        0, 4, lambda i, c: tl.triangular_solve(m, c, left_side=True, lower=False), c))(up, b))
    assert loops and loops[-1] is not None
    ref = b
    for _ in range(4):
        ref = np.linalg.solve(up, ref)
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_steps_the_shim_does_not_serve_keep_the_numpy_implementation(x64):
    n = 130       # n * k above MAX_ELEMENTS
    k = cpu_lapack.MAX_ELEMENTS // n + 1
    a = _triangle(n, True, False)
    b = RNG.standard_normal((n, k))
    assert cpu_lapack.trsm_call(a.shape, b.shape, b.dtype, True, False, False) is None
    got = tjit.jit(lambda a, b: tl.triangular_solve(a, b, left_side=True, lower=True))(a, b)
    np.testing.assert_allclose(np.asarray(got), _numpy_solve(a, b, True, False, False),
                               rtol=1e-10)
    # a on the right: x @ a = b
    a = _triangle(6, True, False)
    b = RNG.standard_normal((4, 6))
    got = tjit.jit(lambda a, b: tl.triangular_solve(a, b, left_side=False, lower=True))(a, b)
    np.testing.assert_allclose(np.asarray(got) @ np.tril(a), b, rtol=1e-10, atol=1e-12)
    assert cpu_lapack.trsm_call((6, 6), (6, 4), np.float16, True, False, False) is None


def test_zero_on_the_diagonal_gives_non_finite_values_not_an_error(x64, served):
    a = _triangle(4, True, False)
    a[2, 2] = 0.0
    b = np.ones((4, 2))
    got = np.asarray(tjit.jit(lambda a, b: tl.triangular_solve(
        a, b, left_side=True, lower=True))(a, b))
    assert served and served[-1] is not None
    np.testing.assert_allclose(got[:2], np.linalg.solve(a[:2, :2], b[:2]), rtol=1e-12)
    assert not np.isfinite(got[2:]).any()


def _spd(n, batch=(), dtype=np.float64):
    a = RNG.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [(), (2, 3)])
def test_compiled_cholesky_has_the_reference_bits(x64, served, dtype, batch):
    x = _spd(11, batch, dtype)
    x = x + np.triu(np.full(x.shape, 7.0, dtype), 1)    # (only the lower triangle is read)
    f = lax.linalg.cholesky
    got = np.asarray(tjit.jit(lambda x: f(x, symmetrize_input=False))(x))
    assert served and all(run is not None for run in served)
    closed = tjit.make_jaxpr(lambda x: f(x, symmetrize_input=False))(x)
    (ref,) = eval_jaxpr_reference(closed.jaxpr, closed.consts, [x])
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.asarray(ref))
    tol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, np.linalg.cholesky(np.tril(x) + np.swapaxes(
        np.tril(x, -1), -1, -2).astype(np.float64)), rtol=tol, atol=tol)


def test_matrices_that_are_not_positive_definite_give_nan_below_and_zeros_above(x64, served):
    x = _spd(5, (3,))
    x[1] = -x[1]
    got = np.asarray(tjit.jit(lambda x: lax.linalg.cholesky(x))(x))
    assert served and served[-1] is not None
    np.testing.assert_allclose(got[[0, 2]], np.linalg.cholesky(x[[0, 2]]), rtol=1e-13)
    assert np.isnan(np.tril(got[1])[np.tril_indices(5)]).all()
    assert (np.triu(got[1], 1) == 0).all()


def test_loop_of_factorizations_runs_natively_and_matches_numpy(x64, loops):
    spd = _spd(10)
    b = RNG.standard_normal((10, 3))

    def step(m, c):
        return jnp.linalg.cholesky(m + c[:1, :1] ** 2)[:, :3] * 0.5 + c * 0.5

    got = np.asarray(tjit.jit(lambda m, c: lax.fori_loop(
        0, 6, lambda i, c: step(m, c), c))(spd, b))
    assert loops and all(loop is not None for loop in loops)
    ref = b.copy()
    for _ in range(6):
        ref = np.linalg.cholesky(spd + ref[0, 0] ** 2)[:, :3] * 0.5 + ref * 0.5
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert cpu_lapack.potrf_call((200, 200), np.float64) is None    # (above MAX_ELEMENTS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7, 7), (7, 5), (5, 7), (2, 3, 6, 6)])
def test_compiled_lu_has_the_reference_bits(x64, served, dtype, shape):
    x = RNG.standard_normal(shape).astype(dtype)
    x[..., :, 2] = x[..., :, 1]     # singular (or of lower rank): still factored
    got = [np.asarray(r) for r in tjit.jit(lax.linalg.lu)(x)]
    assert served and all(run is not None for run in served)
    closed = tjit.make_jaxpr(lax.linalg.lu)(x)
    ref = eval_jaxpr_reference(closed.jaxpr, closed.consts, [x])
    for g, r in zip(got, ref):
        assert g.dtype == np.asarray(r).dtype
        np.testing.assert_array_equal(g, np.asarray(r))
    lu, piv, perm = got
    m, n = shape[-2:]
    k = min(m, n)
    low = np.tril(lu, -1)[..., :, :k] + np.eye(m, k)
    up = np.triu(lu)[..., :k, :]
    rows = np.take_along_axis(x.astype(np.float64), perm[..., None].astype(np.int64), -2)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(low.astype(np.float64) @ up, rows, rtol=tol, atol=tol)
    assert piv.shape == shape[:-2] + (k,) and perm.shape == shape[:-2] + (m,)
    assert (np.sort(perm, axis=-1) == np.arange(m)).all()


def test_loop_of_solves_of_a_changing_matrix_runs_natively(x64, loops):
    spd = _spd(9)
    b = RNG.standard_normal((9, 2))

    def step(m, c):     # (the matrix depends on the carry: nothing to hoist)
        return jnp.linalg.solve(m + c[:1, :1] ** 2, c) * 0.5 + c * 0.5

    got = np.asarray(tjit.jit(lambda m, c: lax.fori_loop(
        0, 5, lambda i, c: step(m, c), c))(spd, b))
    assert loops and all(loop is not None for loop in loops)
    ref = b.copy()
    for _ in range(5):
        ref = np.linalg.solve(spd + ref[0, 0] ** 2, ref) * 0.5 + ref * 0.5
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    assert cpu_lapack.getrf_call((200, 100), np.float64) is None    # (above MAX_ELEMENTS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(7, 7), (9, 5), (5, 9), (2, 3, 6, 4)])
def test_compiled_qr_has_the_reference_bits(x64, served, dtype, shape):
    x = RNG.standard_normal(shape).astype(dtype)

    def qr(x):
        return lax.linalg.qr(x, full_matrices=False)
    got = [np.asarray(r) for r in tjit.jit(qr)(x)]
    assert served and all(run is not None for run in served)
    closed = tjit.make_jaxpr(qr)(x)
    ref = eval_jaxpr_reference(closed.jaxpr, closed.consts, [x])
    for g, r in zip(got, ref):
        assert g.dtype == dtype
        np.testing.assert_array_equal(g, np.asarray(r))
    q, r = got
    k = min(shape[-2:])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(q.astype(np.float64) @ r, x, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2).astype(np.float64) @ q,
                               np.broadcast_to(np.eye(k), shape[:-2] + (k, k)), atol=tol)
    assert (np.tril(r, -1) == 0).all()


def test_complete_qr_of_a_tall_matrix_keeps_the_implementation(x64, served):
    x = RNG.standard_normal((6, 4))
    q, r = tjit.jit(lambda x: lax.linalg.qr(x, full_matrices=True))(x)
    assert served and served[-1] is None
    assert q.shape == (6, 6) and r.shape == (6, 4)
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), x, atol=1e-12)
    q, r = tjit.jit(lambda x: lax.linalg.qr(x, full_matrices=True))(x.T)   # (wide: served)
    assert served[-1] is not None
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), x.T, atol=1e-12)


def test_loop_of_qr_steps_runs_natively_and_matches_numpy(x64, loops):
    a = RNG.standard_normal((8, 8))
    b = RNG.standard_normal((8, 3))

    def step(m, c):
        return jnp.linalg.qr(m + c[:, :1])[0][:, :3] * 0.5 + c * 0.5

    got = np.asarray(tjit.jit(lambda m, c: lax.fori_loop(
        0, 5, lambda i, c: step(m, c), c))(a, b))
    assert loops and all(loop is not None for loop in loops)
    ref = b.copy()
    for _ in range(5):
        ref = np.linalg.qr(a + ref[:, :1])[0][:, :3] * 0.5 + ref * 0.5
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


def test_wide_qr_beyond_the_shims_columns_keeps_the_implementation(x64, served):
    x = RNG.standard_normal((3, cpu_lapack.MAX_QR_COLUMNS + 1))
    q, r = tjit.jit(lambda x: lax.linalg.qr(x, full_matrices=False))(x)
    assert served and served[-1] is None
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), x, atol=1e-12)
