"""Control flow on the CPU backend: while/cond/scan bodies run as compiled sub-programs.

Every test runs twice: with small kernel-only loop bodies driven natively
(``devices/native_loop.py``) and with the native driver switched off (the Python loop of
``devices/control_flow.py``, which big bodies always use). Oracles: plain NumPy loops
(float64 where it helps) and the reference interpreter (``backend="interpreter"``),
never the compiled path itself.
"""

import threading
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import kernel_cache, native_loop

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True, params=["native", "python"])
def loop_driver(request, monkeypatch):
    if request.param == "python":
        monkeypatch.setattr(native_loop, "_driver", lambda: None)
    return request.param


def _native_calls(monkeypatch):
    """A list that records each native loop run."""
    calls = []
    run = native_loop.NativeLoop.__call__

    def counted(self, args, *rest):
        calls.append(self.kind)
        return run(self, args, *rest)
    monkeypatch.setattr(native_loop.NativeLoop, "__call__", counted)
    return calls


def _plan(f, *args, **jit_kw):
    return tjit.jit(f, **jit_kw).lower(*args).compile()


def _interp(f, *args, **jit_kw):
    return tjit.jit(f, backend="interpreter", **jit_kw)(*args)


def _close(got, want, rtol=2e-6, atol=1e-6):
    for g, w in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def _fori(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * 0.5 + jnp.sin(c) + i, x)


def test_loop_bodies_are_compiled_kernels_not_library_calls():
    x = RNG.standard_normal(1000).astype(np.float32)
    c = _plan(_fori, x, 5, static_argnums=1)
    assert [k for k, _ in c.fusion_summary()] == ["control"]
    text = c.as_text()
    assert "program scan_0" in text and "kernel fusion_" in text and "sin(" in text
    assert "library" not in text


def test_fori_loop_matches_numpy_loop():
    x = RNG.standard_normal(1000).astype(np.float32)
    want = x.astype(np.float64)
    for i in range(12):
        want = want * 0.5 + np.sin(want) + i
    got = tjit.jit(_fori, static_argnums=1)(x, 12)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(x, x.copy())  # the caller's buffer is never written


def test_while_with_traced_bound_compiles_nothing_for_new_trip_counts():
    f = tjit.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 1.5 - 1.0, x))
    x = np.ones(64, np.float32)
    f(x, 3)
    before = kernel_cache.STATS["compiled"]
    for n in (0, 1, 7, 20):
        want = np.ones(64)
        for _ in range(n):
            want = want * 1.5 - 1.0
        np.testing.assert_allclose(np.asarray(f(x, n)), want, rtol=1e-6)
    assert kernel_cache.STATS["compiled"] == before
    assert f._cache_size() == 1


def test_while_loop_tuple_carry_against_interpreter():
    def g(x):
        def body(c):
            i, v, s = c
            v = v * 1.1 + jnp.tanh(v)
            return i + 1, v, s + jnp.sum(v)
        return lax.while_loop(lambda c: c[0] < 9, body, (0, x, jnp.float32(0)))
    x = RNG.standard_normal((30, 17)).astype(np.float32)
    _close(tjit.jit(g)(x), _interp(g, x), rtol=1e-5)
    assert [k for k, _ in _plan(g, x).fusion_summary()] == ["control"]


def test_zero_trip_while_returns_a_copy_of_its_input():
    x = RNG.standard_normal(10).astype(np.float32)
    f = tjit.jit(lambda x: lax.while_loop(lambda c: jnp.sum(c) > 1e9, lambda c: c + 1, x))
    out = np.asarray(f(x))
    np.testing.assert_array_equal(out, x)
    assert not np.shares_memory(out, x)


def test_pass_through_and_repeated_carries_are_never_overwritten():
    # A carry replaced by a constant and a value returned twice: donating either
    # buffer to the next iteration would corrupt the other.
    const = np.arange(5, dtype=np.float32)

    def g(x):
        def body(c):
            i, a, b, k = c
            y = a + b + 1.0
            return i + 1, y, y, jnp.asarray(const)
        return lax.while_loop(lambda c: c[0] < 6, body, (0, x, x, x))
    x = np.zeros(5, np.float32)
    i, a, b, k = tjit.jit(g)(x)
    want_a = np.zeros(5)
    want_b = np.zeros(5)
    for _ in range(6):
        want_a = want_b = want_a + want_b + 1.0
    np.testing.assert_array_equal(np.asarray(a), want_a)
    np.testing.assert_array_equal(np.asarray(b), want_b)
    np.testing.assert_array_equal(np.asarray(k), const)
    assert int(i) == 6


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_carry_and_stacked_outputs_match_numpy(reverse):
    xs = RNG.standard_normal((11, 4, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3)).astype(np.float32)

    def f(w, xs):
        def body(h, x):
            h = jnp.tanh(x @ w + h)
            return h, (h.sum(axis=1), h * 2)
        return lax.scan(body, jnp.zeros((4, 3), jnp.float32), xs, reverse=reverse)
    h, (s, hh) = tjit.jit(f)(w, xs)
    hw, sw, hhw = np.zeros((4, 3)), np.zeros((11, 4)), np.zeros((11, 4, 3))
    for t in (range(10, -1, -1) if reverse else range(11)):
        hw = np.tanh(xs[t].astype(np.float64) @ w + hw)
        sw[t], hhw[t] = hw.sum(axis=1), hw * 2
    np.testing.assert_allclose(np.asarray(h), hw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(s), sw, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(hh), hhw, rtol=1e-5, atol=1e-5)


def _loss(w, xs):
    def body(c, x):
        c = jnp.sin(c * w + x)
        return c, c
    c, ys = lax.scan(body, jnp.zeros(5, xs.dtype), xs)
    return jnp.sum(ys ** 2) + jnp.sum(c)


def _loss_np(w, xs):
    c, total = np.zeros(5), 0.0
    for x in xs:
        c = np.sin(c * w + x)
        total += np.sum(c ** 2)
    return total + np.sum(c)


def test_grad_through_scan_compiled_matches_finite_differences():
    xs = RNG.standard_normal((8, 5))
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    try:
        g = tjit.jit(tjit.grad(_loss))(np.float64(0.7), xs)
        assert "control" in [k for k, _ in _plan(tjit.grad(_loss), 0.7, xs).fusion_summary()]
    finally:
        tjit.config.update("enable_x64", old)
    eps = 1e-6
    fd = (_loss_np(0.7 + eps, xs) - _loss_np(0.7 - eps, xs)) / (2 * eps)
    np.testing.assert_allclose(float(g), fd, rtol=1e-6)


@pytest.mark.parametrize("index", [-3, 0, 1, 2, 7])
def test_switch_clamps_the_index_like_lax(index):
    branches = [lambda x: x + 1.0, lambda x: jnp.exp(x), lambda x: x * x]
    x = RNG.standard_normal((6, 6)).astype(np.float32)
    f = tjit.jit(lambda i, x: lax.switch(i, branches, x))
    want = [x + 1.0, np.exp(x), x * x][min(max(index, 0), 2)]
    np.testing.assert_allclose(np.asarray(f(index, x)), want, rtol=1e-6)


def test_cond_identity_branch_result_does_not_alias_the_argument():
    x = RNG.standard_normal(8).astype(np.float32)
    f = tjit.jit(lambda p, x: lax.cond(p, lambda v: v, lambda v: v * 3.0, x))
    out = np.asarray(f(True, x))
    np.testing.assert_array_equal(out, x)
    assert not np.shares_memory(out, x)


def test_nested_loops_and_cond_inside_a_body():
    def f(x):
        def outer(i, c):
            inner = lax.fori_loop(0, 3, lambda j, v: v * 0.9 + j, c)
            return lax.cond(i % 2 == 0, lambda v: v + 1.0, lambda v: v - 0.5, inner)
        return lax.fori_loop(0, 5, outer, x)
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    want = x.astype(np.float64)
    for i in range(5):
        for j in range(3):
            want = want * 0.9 + j
        want = want + 1.0 if i % 2 == 0 else want - 0.5
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)), want, rtol=1e-5, atol=1e-5)


def test_polymorphic_loop_body_at_several_sizes():
    def f(x):
        return lax.fori_loop(0, 4, lambda i, c: jnp.tanh(c) * 2.0 + jnp.mean(c), x)
    g = tjit.jit(f, polymorphic_shapes=["(b, 3)"])
    for b in (1, 5, 40):
        x = RNG.standard_normal((b, 3)).astype(np.float32)
        want = x.astype(np.float64)
        for _ in range(4):
            want = np.tanh(want) * 2.0 + want.mean()
        np.testing.assert_allclose(np.asarray(g(x)), want, rtol=2e-5, atol=2e-5)


def test_scan_over_symbolic_length():
    def f(xs):
        return lax.scan(lambda c, x: (c + x, c * x), jnp.zeros(2, xs.dtype), xs)
    g = tjit.jit(f, polymorphic_shapes=["(n, 2)"])
    for n in (1, 6, 13):
        xs = RNG.standard_normal((n, 2)).astype(np.float32)
        _close(g(xs), _interp(f, xs))


def test_complex_carry_runs_through_library_steps_in_the_body():
    x = (RNG.standard_normal(4) + 1j * RNG.standard_normal(4)).astype(np.complex64)
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * (1 + 1j) + 0.5, x)  # noqa: E731
    _close(tjit.jit(f)(x), _interp(f, x))


def test_concurrent_calls_give_the_same_results():
    f = tjit.jit(lambda x: lax.fori_loop(0, 20, lambda i, c: jnp.sin(c) + 0.1 * i, x))
    xs = [RNG.standard_normal(5000).astype(np.float32) for _ in range(4)]
    want = [np.asarray(f(x)) for x in xs]
    got = [None] * 4

    def work(k):
        for _ in range(5):
            got[k] = np.asarray(f(xs[k]))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_memory_analysis_counts_body_temporaries():
    x = RNG.standard_normal((64, 64)).astype(np.float32)

    def f(x):
        def body(i, c):
            e = jnp.exp(c - jnp.max(c, axis=1, keepdims=True))
            return e / jnp.sum(e, axis=1, keepdims=True) @ c
        return lax.fori_loop(0, 2, body, x)
    m = _plan(f, x).memory_analysis()
    assert m.temp_size_in_bytes >= x.nbytes


def test_small_and_split_bodies_loop_natively(loop_driver, monkeypatch):
    calls = _native_calls(monkeypatch)
    small = tjit.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 0.5 + 1.0, x))
    np.testing.assert_allclose(float(small(np.float32(0), 30)), 2.0, rtol=1e-6)
    assert calls == (["while"] if loop_driver == "native" else [])
    calls.clear()
    big = tjit.jit(lambda x: lax.fori_loop(0, 2, lambda i, c: jnp.sin(c) * 2.0, x))
    x = RNG.standard_normal(1 << 20).astype(np.float32)  # split across threads
    np.testing.assert_allclose(np.asarray(big(x)), np.sin(np.sin(x) * 2.0) * 2.0,
                               rtol=1e-5, atol=1e-6)
    # (a split kernel runs on the thread pool from the native loop: native_loop._Split)
    assert calls == (["scan"] if loop_driver == "native" else [])


def test_native_loop_resumes_across_bursts(monkeypatch):
    monkeypatch.setattr(native_loop, "BURST", 3)   # odd: bursts end on both parities
    f = tjit.jit(lambda x, n: lax.while_loop(
        lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0 - c[0]), (0, x)))
    for n in (0, 1, 3, 4, 10):
        want = 1.5
        for i in range(n):
            want = want * 2.0 - i
        i, v = f(np.float32(1.5), n)
        assert int(i) == n and float(v) == want


def test_scan_stacks_rows_in_place_forward_and_reverse():
    xs = RNG.standard_normal((9, 2)).astype(np.float32)
    for reverse in (False, True):
        f = tjit.jit(lambda xs: lax.scan(lambda c, x: (c * 0.5 + x, c + x * 2.0),
                                         jnp.zeros(2, jnp.float32), xs, reverse=reverse))
        c, ys = f(xs)
        cw, yw = np.zeros(2), np.zeros((9, 2))
        for t in (range(8, -1, -1) if reverse else range(9)):
            cw, yw[t] = cw * 0.5 + xs[t], cw + xs[t] * 2.0
        np.testing.assert_allclose(np.asarray(c), cw, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(ys), yw, rtol=1e-6, atol=1e-6)


def test_bodies_that_pass_values_through_swap_or_repeat_them():
    # carries that swap places, stacked outputs that are an input slice, a carry or a
    # constant, and a value returned twice: the native driver copies them into place
    const = np.array([1.0, -2.0], np.float32)

    def body(c, x):
        a, b, n = c
        s = a * 0.5 + x
        return (b, s, n), (x, a, s, s, jnp.asarray(const))
    xs = RNG.standard_normal((7, 2)).astype(np.float32)
    init = (np.ones(2, np.float32), np.full(2, 3.0, np.float32), np.float32(4.0))
    (a, b, n), ys = tjit.jit(lambda c, xs: lax.scan(body, c, xs))(init, xs)
    aw, bw, rows = init[0].astype(np.float64), init[1].astype(np.float64), []
    for x in xs:
        s = aw * 0.5 + x
        rows.append((x, aw, s, s, const))
        aw, bw = bw, s
    np.testing.assert_allclose(np.asarray(a), aw, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(b), bw, rtol=1e-6)
    assert float(n) == 4.0
    for got, want in zip(ys, zip(*rows)):
        np.testing.assert_allclose(np.asarray(got), np.stack(want), rtol=1e-6)


def test_training_loop_with_small_dots_runs_natively(loop_driver, monkeypatch):
    calls = _native_calls(monkeypatch)
    x = RNG.standard_normal((32, 6)).astype(np.float32)
    y = RNG.standard_normal((32, 1)).astype(np.float32)
    w1 = (RNG.standard_normal((6, 8)) * 0.4).astype(np.float32)
    w2 = (RNG.standard_normal((8, 1)) * 0.4).astype(np.float32)

    def loss(p):
        return jnp.mean((jnp.tanh(x @ p[0]) @ p[1] - y) ** 2)

    def train(p):
        return lax.fori_loop(0, 25, lambda i, p: [a - 0.1 * g for a, g in
                                                   zip(p, tjit.grad(loss)(p))], p)
    got = tjit.jit(train)([w1, w2])
    assert calls == (["scan"] if loop_driver == "native" else [])
    a, b = w1.astype(np.float64), w2.astype(np.float64)
    for _ in range(25):    # hand-written backprop in float64
        h = np.tanh(x @ a)
        d = 2 * (h @ b - y) / len(x)
        ga, gb = x.T @ ((d @ b.T) * (1 - h * h)), h.T @ d
        a, b = a - 0.1 * ga, b - 0.1 * gb
    np.testing.assert_allclose(np.asarray(got[0]), a, rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(np.asarray(got[1]), b, rtol=2e-4, atol=2e-5)


def test_indexing_by_the_loop_counter_runs_natively(loop_driver, monkeypatch):
    calls = _native_calls(monkeypatch)
    x = RNG.standard_normal((40, 3)).astype(np.float32)
    f = tjit.jit(lambda x: lax.fori_loop(0, 40, lambda i, acc: acc * 0.5 + x[39 - i], x[0]))
    want = x[0].astype(np.float64)
    for i in range(40):
        want = want * 0.5 + x[39 - i]
    np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-6)
    assert calls == (["scan"] if loop_driver == "native" else [])


def test_minibatches_sliced_by_the_counter_run_natively(loop_driver, monkeypatch):
    calls = _native_calls(monkeypatch)
    X = RNG.standard_normal((48, 4)).astype(np.float32)
    w0 = np.zeros(4, np.float32)

    def epoch(w, X):   # 6 minibatches of 8 rows; the last start is clamped like lax's
        def step(i, w):
            xb = lax.dynamic_slice_in_dim(X, i * 8, 8)
            return w + 0.1 * jnp.mean(xb, axis=0) * (1.0 + 0.01 * i)
        return lax.fori_loop(0, 7, step, w)
    got = tjit.jit(epoch)(w0, X)
    want = w0.astype(np.float64)
    for i in range(7):
        start = min(max(i * 8, 0), 48 - 8)
        want = want + 0.1 * X[start:start + 8].mean(axis=0) * (1.0 + 0.01 * i)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    assert calls == (["scan"] if loop_driver == "native" else [])


def test_row_updates_by_the_loop_counter_run_natively(loop_driver, monkeypatch):
    calls = _native_calls(monkeypatch)
    x = RNG.standard_normal((30, 4)).astype(np.float32)

    def f(x):   # a prefix sum written row by row
        return lax.fori_loop(1, 30, lambda i, y: y.at[i].set(y[i - 1] + y[i]), x)
    np.testing.assert_allclose(np.asarray(tjit.jit(f)(x)), np.cumsum(x, axis=0),
                               rtol=1e-5, atol=1e-5)
    assert calls == (["scan"] if loop_driver == "native" else [])


# -- donated arguments as loop carries ------------------------------------------------------

def _ptr(a):
    return a._value.ctypes.data


@pytest.mark.parametrize("kind", ["fori", "while", "scan"])
def test_donated_initial_carry_becomes_the_loops_buffer(kind, loop_driver):
    """jit(loop, donate_argnums=0): no 'not usable' warning, the Array is consumed, the
    loop updates its buffer in place (the result lives there), results as a loop in
    NumPy."""
    x0 = RNG.standard_normal((64, 33)).astype(np.float32)

    def step(x):
        return x * 0.5 + 1.0

    if kind == "fori":
        def f(x):
            return lax.fori_loop(0, 7, lambda i, x: step(x), x)
    elif kind == "while":
        def f(x):
            return lax.while_loop(lambda c: c[0] < 7, lambda c: (c[0] + 1, step(c[1])),
                                  (0, x))[1]
    else:
        def f(x):
            return lax.scan(lambda x, _: (step(x), None), x, None, length=7)[0]
    g = tjit.jit(f, donate_argnums=0)
    x = jnp.asarray(x0)
    ptr = _ptr(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = g(x)
    want = x0.copy()
    for _ in range(7):
        want = want * np.float32(0.5) + np.float32(1.0)
    np.testing.assert_array_equal(np.asarray(out), want)
    assert x.is_deleted()
    assert _ptr(out) == ptr
    # A NumPy argument, or an Array someone else holds, is never written.
    kept = x0.copy()
    with pytest.warns(UserWarning):
        np.testing.assert_array_equal(np.asarray(g(kept)), want)
    np.testing.assert_array_equal(kept, x0)


def test_donated_argument_also_read_after_the_loop_is_not_given_to_it():
    x0 = RNG.standard_normal((16, 8)).astype(np.float32)
    g = tjit.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x) - x,
                 donate_argnums=0)
    out = g(jnp.asarray(x0))
    np.testing.assert_array_equal(np.asarray(out), x0 * 8 - x0)


def test_filling_a_buffer_row_by_row_visits_one_row_per_iteration():
    """out = out.at[i].set(row(i)) in a fori_loop: the update kernel runs on the row
    (its hyperplane), not over the whole carry; results as a NumPy loop."""
    def fill(buf):
        return lax.fori_loop(0, 50, lambda i, b: b.at[i].set(
            jnp.sin(i * 0.1) * jnp.arange(8.0, dtype=np.float32) + b[i]), buf)
    buf = RNG.standard_normal((50, 8)).astype(np.float32)
    g = tjit.jit(fill)
    assert "only at i0" in g.lower(buf).compile().as_text()
    want = buf.copy()
    for i in range(50):
        want[i] = np.sin(np.float32(i) * np.float32(0.1)) * np.arange(8, dtype=np.float32) \
            + want[i]
    np.testing.assert_allclose(np.asarray(g(buf)), want, rtol=1e-6, atol=1e-6)


# -- conds inside natively driven loops -----------------------------------------------------

def test_cond_in_a_fori_loop_runs_natively(loop_driver, monkeypatch):
    calls = _native_calls(monkeypatch)

    def f(x):
        return lax.fori_loop(0, 300, lambda i, x: lax.cond(
            i % 3 == 0, lambda x: x * 0.5 + 1.0, lambda x: x - 0.25, x), x)
    x0 = np.linspace(-1, 1, 8).astype(np.float32)
    got = tjit.jit(f)(x0)
    assert calls == (["scan"] if loop_driver == "native" else [])
    want = x0.copy()
    for i in range(300):
        want = want * np.float32(0.5) + np.float32(1.0) if i % 3 == 0 else \
            want - np.float32(0.25)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_switch_with_several_operands_results_and_pass_throughs(loop_driver, monkeypatch):
    """lax.switch in a scan over xs: three branches (one a dot, one passing operands
    through, one returning a constant), several results, an index out of range
    (clamped), per-iteration slices read inside a branch and stacked results."""
    calls = _native_calls(monkeypatch)
    w = (RNG.standard_normal((4, 4)) * 0.3).astype(np.float32)
    xs = RNG.standard_normal((40, 4)).astype(np.float32)
    ks = np.array([(t * 7) % 5 - 1 for t in range(40)], np.int32)   # -1 .. 3

    def f(a, b):
        def step(carry, inp):
            a, b = carry
            x, k = inp
            a, b = lax.switch(k, [lambda a, b, x: (jnp.tanh(a @ w + x), b + 1.0),
                                  lambda a, b, x: (a, b),
                                  lambda a, b, x: (a * 0.0 + 2.0, b * x)], a, b, x)
            return (a, b), a.sum() + b.sum()
        return lax.scan(step, (a, b), (xs, ks))
    a0, b0 = np.ones(4, np.float32) * 0.1, np.zeros(4, np.float32)
    (a, b), ys = tjit.jit(f)(a0, b0)
    assert calls == (["scan"] if loop_driver == "native" else [])
    ra, rb, rys = a0.astype(np.float64), b0.astype(np.float64), []
    for x, k in zip(xs, ks):
        k = min(max(k, 0), 2)
        if k == 0:
            ra, rb = np.tanh(ra @ w + x), rb + 1.0
        elif k == 2:
            ra, rb = ra * 0.0 + 2.0, rb * x
        rys.append(ra.sum() + rb.sum())
    np.testing.assert_allclose(np.asarray(a), ra, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(b), rb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(ys), rys, rtol=1e-5, atol=1e-5)


def test_nested_conds_and_a_while_predicate(loop_driver, monkeypatch):
    calls = _native_calls(monkeypatch)

    def f(x):
        def body(c):
            i, x = c
            x = lax.cond(x[0] > 0, lambda x: lax.cond(i % 2 == 0, lambda x: x - 1.0,
                                                      lambda x: x * 0.5, x),
                         lambda x: x + 3.0, x)
            return i + 1, x
        return lax.while_loop(lambda c: c[0] < 50, body, (0, x))[1]
    x0 = np.array([2.0, -1.0, 0.5], np.float32)
    got = tjit.jit(f)(x0)
    assert calls == (["while"] if loop_driver == "native" else [])
    x = x0.copy()
    for i in range(50):
        if x[0] > 0:
            x = x - np.float32(1.0) if i % 2 == 0 else x * np.float32(0.5)
        else:
            x = x + np.float32(3.0)
    np.testing.assert_array_equal(np.asarray(got), x)
