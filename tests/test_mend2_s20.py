"""Regressions of the second mend list: the cached integer ranges and the Python-int
fast path with x64, custom_linear_solve's lazy transpose, helpers_ahead's thread cap."""

import ml_dtypes
import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.numpy import _core
from tjit.tracing import dtypes

_INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
         ml_dtypes.int4, ml_dtypes.uint4]


@pytest.mark.parametrize("dt", _INTS + [np.float32, np.bool_, np.complex64])
def test_int_range_matches_iinfo(dt):
    got = dtypes.int_range(np.dtype(dt))
    if np.dtype(dt).kind in "iu" or dt in (ml_dtypes.int4, ml_dtypes.uint4):
        info = ml_dtypes.iinfo(dt)
        assert got == (int(info.min), int(info.max))
        assert all(type(b) is int for b in got)
    else:
        assert got is None


@pytest.mark.parametrize("v", [2**31, 2**40 + 3, 2**63 - 1, -2**63, -2**31 - 1, 7])
@pytest.mark.parametrize("dt", [np.int64, np.float64, np.float32])
def test_x64_python_int_fast_path_agrees_with_numpy(x64, v, dt):
    """With x64 a Python int is a weak int64: ints beyond int32 keep the array's dtype
    (the fast path of promote_args) and equal NumPy's float64/int64 result."""
    base = np.array([1, -2, 5], dt)
    for a, b in ((jnp.asarray(base), v), (v, jnp.asarray(base))):
        x, y = _core.promote_args("test", a, b)
        assert x.dtype == y.dtype == np.dtype(dt)
    got = np.asarray(lax.max(jnp.asarray(base), jnp.asarray(np.asarray(v, dt))))
    np.testing.assert_array_equal(np.asarray(jnp.maximum(jnp.asarray(base), v)), got)
    np.testing.assert_array_equal(got, np.maximum(base, np.asarray(v, dt)))


@pytest.mark.parametrize("a_dt, v", [(np.int32, 2**31), (np.int32, -2**31 - 1),
                                     (np.int64, 2**63), (np.float32, -2**63 - 1),
                                     (np.int16, 2**15)])
def test_x64_python_int_overflow_still_raises(x64, a_dt, v):
    a = jnp.asarray(np.array([1, 2], a_dt))
    with pytest.raises(OverflowError, match="too large to convert"):
        _core.promote_args("test", a, v)
    with pytest.raises(OverflowError, match="too large to convert"):
        _core.promote_args("test", v, a)


def test_lax_python_int_range_checked():
    with pytest.raises(OverflowError, match="int32"):
        lax.add(jnp.ones(2, jnp.float32), 2**40)
    with pytest.raises(OverflowError, match="int8"):
        lax.add(jnp.ones(2, jnp.int8), 128)
    np.testing.assert_array_equal(np.asarray(lax.add(jnp.ones(2, jnp.int8), -128)),
                                  np.array([-127, -127], np.int8))


def _nonsymmetric_solve(a, b):
    return lax.custom_linear_solve(lambda x: a @ x, b,
                                   lambda mv, r: jnp.linalg.solve(a, r),
                                   lambda vm, r: jnp.linalg.solve(a.T, r))


def test_custom_linear_solve_transposes_matvec_only_when_differentiated(x64, monkeypatch):
    from tjit.lax import _solves
    calls = []
    real = _solves.linear_transpose
    monkeypatch.setattr(_solves, "linear_transpose",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    rs = np.random.RandomState(3)
    a64 = rs.randn(4, 4) + 3 * np.eye(4)
    b64 = rs.randn(4)
    a, b = jnp.asarray(a64), jnp.asarray(b64)
    np.testing.assert_allclose(np.asarray(_nonsymmetric_solve(a, b)),
                               np.linalg.solve(a64, b64), rtol=1e-12)
    assert not calls  # nothing differentiated: matvec is never transposed
    # d/dA of w . A^-1 b = -(A^-T w)(A^-1 b)^T; d/db = A^-T w
    w = rs.randn(4)
    ga, gb = tjit.grad(lambda a, b: jnp.dot(jnp.asarray(w), _nonsymmetric_solve(a, b)),
                       argnums=(0, 1))(a, b)
    lam, x = np.linalg.solve(a64.T, w), np.linalg.solve(a64, b64)
    np.testing.assert_allclose(np.asarray(ga), -np.outer(lam, x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(gb), lam, rtol=1e-10)


def test_custom_linear_solve_second_derivative_in_matrix(x64):
    """The Hessian in A's scale s of w . (s A)^-1 b = w . A^-1 b / s is 2 w.A^-1 b / s^3."""
    rs = np.random.RandomState(4)
    a64, b64, w = rs.randn(3, 3) + 3 * np.eye(3), rs.randn(3), rs.randn(3)
    f = lambda s: jnp.dot(jnp.asarray(w), _nonsymmetric_solve(s * jnp.asarray(a64),  # noqa: E731
                                                              jnp.asarray(b64)))
    s = 1.5
    want = 2 * w @ np.linalg.solve(a64, b64) / s ** 3
    np.testing.assert_allclose(float(tjit.hessian(f)(s)), want, rtol=1e-9)


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_helpers_build_on_at_most_the_cap_of_threads(monkeypatch, cap):
    """Seven helpers, each holding its thread until a second one is building (or a short
    wait runs out): all are made, at most ``cap`` at once, and side by side when cap > 1."""
    import threading
    import time
    from tjit.devices import helpers_ahead, threads
    from tjit.lower.llvm import parallel
    monkeypatch.setattr(parallel, "_usable_cores", lambda: cap)
    monkeypatch.setattr(threads, "default_num_threads", lambda: 8)
    lock, live, most, made = threading.Lock(), [0], [0], []
    want = min(cap, parallel.threads_for(7))  # (1 where LLVM cannot compile side by side)

    def helper(i):
        def make():
            with lock:
                live[0] += 1
                most[0] = max(most[0], live[0])
            deadline = time.monotonic() + 0.5
            while most[0] < min(want, 2) and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(0.02)  # (held long enough that an uncapped build overlaps more)
            with lock:
                live[0] -= 1
                made.append(i)
            if i == 3:
                raise RuntimeError("a failing helper does not stop the others")
        return make
    before = threading.active_count()
    helpers_ahead._build([helper(i) for i in range(7)])
    assert sorted(made) == list(range(7))
    assert min(want, 2) <= most[0] <= want
    assert threading.active_count() == before  # every builder thread joined
