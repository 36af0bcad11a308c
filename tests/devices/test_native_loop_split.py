"""Native loops whose bodies have steps split across threads (a big gemm, a big
elementwise kernel): the driver runs them through the thread runtime's parallel-for
on the pool it holds for the call (``native_loop._Split``), or alone on its own thread
when another caller holds the pool. Oracles: a NumPy float64 loop and the reference
interpreter; the Python loop driver for bit equality (the gemm's blocks and the
kernels' results do not depend on the threads that run them)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import blas, native_loop, threads


@pytest.fixture(autouse=True)
def two_threads(monkeypatch):
    """Two threads and gemms planned in two blocks, whatever the machine's CPU count."""
    monkeypatch.setenv("TJIT_NUM_THREADS", "2")
    monkeypatch.setattr(blas, "cpu_count", lambda: 2)
    blas._plan.cache_clear()
    yield
    blas._plan.cache_clear()


def rnn(h, w, xs):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, jnp.sum(h, axis=1)
    return lax.scan(step, h, xs)


def rnn_np(h, w, xs):
    h, w, rows = np.asarray(h, np.float64), np.asarray(w, np.float64), []
    for x in np.asarray(xs, np.float64):
        h = np.tanh(h @ w + x)
        rows.append(h.sum(axis=1))
    return h, np.stack(rows)


def args(n=512, steps=3):
    rng = np.random.default_rng(3)
    return (rng.standard_normal((n, n)).astype(np.float32),
            (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32),
            rng.standard_normal((steps, n, n)).astype(np.float32))


def test_split_steps_run_in_the_native_loop(loops):
    a = args()
    h, rows = tjit.jit(rnn)(*a)
    (loop,) = loops
    assert loop is not None and loop.split_argvs   # (the gemm and the tanh kernel)
    want_h, want_rows = rnn_np(*a)
    np.testing.assert_allclose(np.asarray(h), want_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(rows), want_rows, rtol=1e-4, atol=2e-3)
    ref_h, ref_rows = tjit.jit(rnn, backend="interpreter")(*a)
    np.testing.assert_allclose(np.asarray(h), np.asarray(ref_h), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(rows), np.asarray(ref_rows), rtol=1e-5, atol=1e-4)
    # the Python driver (each step through parallel_for) gives the same bits
    native_loop_off = tjit.jit(lambda *a: rnn(*a))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(native_loop, "_driver", lambda: None)
        py_h, py_rows = native_loop_off(*a)
    np.testing.assert_array_equal(np.asarray(h), np.asarray(py_h))
    np.testing.assert_array_equal(np.asarray(rows), np.asarray(py_rows))


def test_pool_held_elsewhere_runs_the_split_steps_alone(loops):
    a = args()
    f = tjit.jit(rnn)
    h, rows = f(*a)
    pool = threads.get_pool(2)
    header = pool.hold_native()
    assert header is not None
    try:
        assert pool.hold_native() is None           # (held: a second caller runs alone)
        alone_h, alone_rows = f(*a)
    finally:
        pool.release_native()
    assert loops[0] is not None and loops[0].split_argvs
    np.testing.assert_array_equal(np.asarray(alone_h), np.asarray(h))
    np.testing.assert_array_equal(np.asarray(alone_rows), np.asarray(rows))
    # the pool is free again after every call
    assert pool.hold_native() is not None
    pool.release_native()


def test_gradient_of_a_scan_with_split_steps(loops):
    a = args(n=384, steps=2)

    def loss(w, h, xs):
        hT, rows = rnn(h, w, xs)
        return jnp.sum(hT * hT) + jnp.sum(rows)
    g = np.asarray(tjit.jit(tjit.grad(loss))(a[1], a[0], a[2]))
    assert loops and all(loop is not None for loop in loops)
    assert any(loop.split_argvs for loop in loops)
    want = np.asarray(tjit.jit(tjit.grad(loss), backend="interpreter")(a[1], a[0], a[2]))
    np.testing.assert_allclose(g, want, rtol=2e-4, atol=2e-4 * np.abs(want).max())
