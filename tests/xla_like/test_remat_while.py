"""jit(memory_budget=...) through reverse mode of while loops (xla_like/sweep_memory.py):
a ``while_loop`` whose trip count depends on the data and a ``fori_loop`` with traced
bounds (a while_loop). Their reverse sweeps tape records only while the tape fits the
budget's allowance and otherwise reverse by Revolve with the snapshots it holds, so the
peak of memory_analysis() stays within the budget for any trip count. Checked: that
peak, the bytes the sweep held (loop_tape.last_stats) and the bytes NumPy allocated
during a call (tracemalloc); gradients against the unbudgeted program (float32) and
central finite differences of float64 NumPy models; the unreachable budget's error."""

import gc
import tracemalloc

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import loop_tape
from tjit.xla_like.remat import MemoryBudgetError

BATCH, WIDTH, STEPS = 64, 32, 99


def rnn_loss(w, u, tol=1e-5):
    """h <- tanh(h W + u) until it moves less than ``tol`` (W a contraction)."""
    def cond(c):
        h, h_old = c
        return jnp.max(jnp.abs(h - h_old)) > tol

    def body(c):
        h, _ = c
        return jnp.tanh(h @ w + u), h
    h = lax.while_loop(cond, body, (jnp.tanh(u), jnp.zeros_like(u)))[0]
    return jnp.sum(h * h)


def fori_loss(w, u, n):
    """``n`` (traced under jit) steps of the same update: a while_loop."""
    h = lax.fori_loop(0, n, lambda i, h: jnp.tanh(h @ w + u), jnp.tanh(u))
    return jnp.sum(h * h)


def numpy_rnn_loss(w, u, tol):
    h, h_old = np.tanh(u), np.zeros_like(u)
    while np.max(np.abs(h - h_old)) > tol:
        h, h_old = np.tanh(h @ w + u), h
    return float(np.sum(h * h))


def numpy_fori_loss(w, u, n):
    h = np.tanh(u)
    for _ in range(n):
        h = np.tanh(h @ w + u)
    return float(np.sum(h * h))


def _data(dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    w = (0.9 * rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(dtype)
    u = rng.standard_normal((BATCH, WIDTH)).astype(dtype)
    return w, u


def _analysis(jitted, *args):
    return jitted.lower(*args).compile().memory_analysis()


def _allocated_peak(fn, *args):
    """The most bytes allocated at once during a call (NumPy's buffers report to
    tracemalloc), beyond what was allocated before it; after a warm-up call."""
    fn(*args)
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        fn(*args)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _close_in_float32(got, want):
    """Equal to float32 rounding accumulated over a loop of 50-100 trips (Revolve
    recomputes a trip's record through the body's runner where the taped sweep ran a
    native loop, whose gemm may sum in another order): within 1e-5 of the largest
    gradient entry (float64 gradients differ from either by ~6e-6 of it)."""
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5,
                               atol=1e-5 * np.abs(want).max())


def _sweep_allowance(jitted, *args):
    from tjit.xla_like import sweep_memory

    prog = jitted.lower(*args).compile().executable.program
    (step,) = sweep_memory.sweeps(prog)
    return step.attrs["sweep_bytes"]


LOSSES = {"while_loop": (rnn_loss, lambda: _data()),
          "fori_loop": (fori_loss, lambda: _data() + (np.int32(STEPS),))}


@pytest.fixture(scope="module", params=sorted(LOSSES))
def case(request):
    """(name, grad fn, args, unbudgeted gradients, trips, the least reachable peak, the
    peak with the whole tape: plan + the bytes the tape held)."""
    loss, data = LOSSES[request.param]
    grad = jax.grad(loss, argnums=(0, 1))
    args = data()
    free = jax.jit(grad)
    free(*args)   # (a second call tapes exactly its trips: the first one's count)
    want = [np.asarray(g) for g in free(*args)]
    stats = loop_tape.last_stats
    assert stats.trips > 10 and not stats.overflowed
    with pytest.raises(MemoryBudgetError) as e:
        jax.jit(grad, memory_budget=1000)(*args)
    least = e.value.smallest_peak
    whole = _analysis(free, *args).peak_memory_in_bytes + stats.peak_bytes
    return request.param, grad, args, want, stats.trips, least, whole


def test_a_budget_the_whole_tape_meets_keeps_the_tape(case):
    _, grad, args, want, trips, _, whole = case
    f = jax.jit(grad, memory_budget=whole)
    got = f(*args)
    stats = loop_tape.last_stats
    assert not stats.overflowed and stats.forward_steps == trips   # (nothing recomputed)
    assert _analysis(f, *args).peak_memory_in_bytes <= whole
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


@pytest.mark.parametrize("fraction", [0.5, 0.0], ids=["half-way", "least"])
def test_the_peak_stays_within_a_budget_the_tape_does_not_meet(case, fraction):
    _, grad, args, want, trips, least, whole = case
    budget = int(least + fraction * (whole - least))
    f = jax.jit(grad, memory_budget=budget)
    got = f(*args)
    stats = loop_tape.last_stats
    assert stats.overflowed and stats.trips == trips
    assert stats.forward_steps > trips   # (Revolve recomputed states)
    analysis = _analysis(f, *args)
    assert analysis.peak_memory_in_bytes <= budget
    assert stats.peak_bytes <= _sweep_allowance(f, *args)
    # what NumPy allocated during the call, beside the arguments (allocated before it)
    assert _allocated_peak(f, *args) + analysis.argument_size_in_bytes <= budget
    for g, w in zip(got, want):
        _close_in_float32(g, w)


def test_the_unreachable_budget_names_the_least_peak_which_is_reachable(case):
    _, grad, args, want, _, least, _ = case
    with pytest.raises(MemoryBudgetError, match=r"cannot be met.*smallest peak reachable "
                       rf"by recomputation is {least} bytes.*reverse sweeps of while loops"):
        jax.jit(grad, memory_budget=least - 1)(*args)
    f = jax.jit(grad, memory_budget=least)
    got = f(*args)
    assert loop_tape.last_stats.checkpoints == 1
    assert _analysis(f, *args).peak_memory_in_bytes <= least
    for g, w in zip(got, want):
        _close_in_float32(g, w)


@pytest.fixture
def x64():
    old = jax.config.enable_x64
    jax.config.update("enable_x64", True)
    yield
    jax.config.update("enable_x64", old)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_under_the_budget_match_finite_differences(name, x64):
    tol = 1e-13
    w, u = _data(np.float64, seed=1)
    if name == "while_loop":
        loss, extra = (lambda w, u: rnn_loss(w, u, tol)), ()
        model = lambda w, u: numpy_rnn_loss(w, u, tol)
    else:
        loss, extra = fori_loss, (np.int64(STEPS),)
        model = lambda w, u: numpy_fori_loss(w, u, STEPS)
    grad = jax.grad(loss, argnums=(0, 1))
    with pytest.raises(MemoryBudgetError) as e:
        jax.jit(grad, memory_budget=1000)(w, u, *extra)
    gw, gu = jax.jit(grad, memory_budget=e.value.smallest_peak)(w, u, *extra)
    assert loop_tape.last_stats.overflowed
    rng, eps = np.random.default_rng(2), 1e-6
    for which, g in enumerate((gw, gu)):
        v = rng.standard_normal((w, u)[which].shape)

        def at(t, which=which, v=v):
            p = [w, u]
            p[which] = p[which] + t * v
            return model(*p)
        fd = (at(eps) - at(-eps)) / (2 * eps)
        got = float(np.sum(np.asarray(g) * v))
        assert abs(got - fd) <= 1e-6 * max(1.0, abs(fd)), (name, which, got, fd)


def test_a_checkpoint_count_the_user_set_is_kept_at_most():
    w, u = _data()
    grad = jax.grad(rnn_loss, argnums=(0, 1))
    want = [np.asarray(g) for g in jax.jit(grad, backend="interpreter")(w, u)]
    jax.config.update("while_loop_checkpoints", 3)
    try:
        f = jax.jit(grad)
        plain = _analysis(f, w, u).peak_memory_in_bytes
        f(w, u)
        assert loop_tape.last_stats.peak_saved <= 3
        budgeted = jax.jit(grad, memory_budget=plain)   # (the budget meets k = 3)
        got = budgeted(w, u)
        stats = loop_tape.last_stats
    finally:
        jax.config.update("while_loop_checkpoints", None)
    assert stats.checkpoints == 3 and stats.peak_saved <= 3 and not stats.overflowed
    assert _analysis(budgeted, w, u).peak_memory_in_bytes <= plain
    for g, w_ in zip(got, want):
        _close_in_float32(g, w_)


# -- the tape's byte limit in the sweep driver (loop_tape), on plain NumPy callables ----------
def _counter_sweep(n, limit, k):
    """Reverse a loop of ``n`` trips (state [i, x]; record: x) accumulating sum x_i * i."""
    def step(s):
        return [s[0] + 1, s[1] * 1.5], [s[1] * s[0]]
    return loop_tape.reverse_sweep(lambda s: s[0] < n, step, lambda r, acc: [acc[0] + r[0]],
                                   [np.float64(0.0), np.ones(4)], [np.zeros(4)], np,
                                   checkpoints=k, tape_limit=limit)


@pytest.mark.parametrize("n", [0, 1, 7, 40, 200])
def test_a_limited_tape_falls_back_to_revolve_with_the_same_result(n):
    want = sum(i * 1.5 ** i for i in range(n)) * np.ones(4)
    row = 4 * 8   # (one record: four float64)
    for limit in (None, 0, row, 5 * row, 64 * row):
        k = None if limit is None else 3
        (got,) = _counter_sweep(n, limit, k)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        stats = loop_tape.last_stats
        assert stats.trips == n
        if limit is not None:
            assert stats.overflowed == (n * row > limit)
            assert stats.peak_bytes <= max(limit, 3 * (4 * 8 + 8))   # (k states)


def test_the_host_driven_sweep_keeps_the_budget_too(case, monkeypatch):
    """Without native loops (as on CUDA, where the runtime drives every trip), the tape
    with its limit and the Revolve fallback are loop_tape's own."""
    from tjit.devices import control_flow

    _, grad, args, want, trips, least, whole = case
    monkeypatch.setattr(control_flow.NativeLoop, "build", classmethod(lambda *a: None))
    monkeypatch.setattr(control_flow._NativeSweep, "build", classmethod(lambda *a: None))
    for budget, overflows in ((whole, False), ((least + whole) // 2, True)):
        f = jax.jit(grad, memory_budget=budget)
        got = f(*args)
        stats = loop_tape.last_stats
        assert stats.overflowed == overflows and stats.trips == trips
        assert stats.peak_bytes <= _sweep_allowance(f, *args)
        assert _analysis(f, *args).peak_memory_in_bytes <= budget
        for g, w in zip(got, want):
            _close_in_float32(g, w)


def _settle(h, w):
    """``h <- tanh(h W + 0.1)`` until it settles: a while_loop per call."""
    def cond(c):
        return jnp.max(jnp.abs(c[0] - c[1])) > 1e-5

    def body(c):
        return jnp.tanh(c[0] @ w + 0.1), c[0]
    return lax.while_loop(cond, body, (h, jnp.zeros_like(h)))[0]


def scan_of_loops(ws, x):
    h, _ = lax.scan(lambda h, w: (_settle(h, w), None), x, ws)
    return jnp.sum(h ** 2)


@pytest.mark.parametrize("kind", ["while in a scan body", "vmap (batched predicate)"])
def test_sweeps_in_loop_bodies_and_under_vmap_keep_the_budget(kind):
    rng = np.random.default_rng(5)
    ws = (0.1 * rng.standard_normal((3, 16, 16))).astype(np.float32)
    if kind.startswith("while"):
        grad, args = jax.grad(scan_of_loops), (ws, rng.standard_normal((32, 16)))
    else:
        grad = jax.vmap(jax.grad(rnn_loss), in_axes=(None, 0))
        args = (ws[0], rng.standard_normal((4, 16)))
    args = tuple(np.asarray(a, np.float32) for a in args)
    want = np.asarray(jax.jit(grad)(*args))
    with pytest.raises(MemoryBudgetError) as e:
        jax.jit(grad, memory_budget=1000)(*args)
    f = jax.jit(grad, memory_budget=e.value.smallest_peak)
    got = np.asarray(f(*args))
    assert loop_tape.last_stats.checkpoints == loop_tape.last_stats.peak_saved == 1
    assert _analysis(f, *args).peak_memory_in_bytes <= e.value.smallest_peak
    _close_in_float32(got, want)


@pytest.mark.opencl   # (skipped with the reason where OpenCL cannot run: conftest)
def test_a_library_call_sweep_is_refused_taped_and_counted_with_checkpoints():
    """OpenCL runs the sweep as a library call: no allowance can limit its tape, so a
    budget refuses it; with while_loop_checkpoints its Revolve bound is in the peak."""
    w, u = _data()
    grad = jax.grad(rnn_loss, argnums=(0, 1))
    with pytest.raises(ValueError, match="memory_budget: reverse mode through a while_loop"
                       ".*opencl.*while_loop_checkpoints"):
        jax.jit(grad, backend="opencl", memory_budget=10 ** 9)(w, u)
    want = [np.asarray(g) for g in jax.jit(grad, backend="opencl")(w, u)]
    jax.config.update("while_loop_checkpoints", 3)
    try:
        free = jax.jit(grad, backend="opencl")
        peak = _analysis(free, w, u).peak_memory_in_bytes
        f = jax.jit(grad, backend="opencl", memory_budget=peak)
        got = f(w, u)
        stats = loop_tape.last_stats
        budgeted = _analysis(f, w, u).peak_memory_in_bytes
    finally:
        jax.config.update("while_loop_checkpoints", None)
    assert stats.checkpoints == 3 and stats.peak_saved <= 3 and budgeted <= peak
    # the Revolve bound: two snapshots (h and h_old) besides the initial state
    taped = _analysis(jax.jit(grad, backend="opencl"), w, u).peak_memory_in_bytes
    assert peak - taped == 2 * (2 * BATCH * WIDTH * 4)
    for g, w_ in zip(got, want):
        _close_in_float32(g, w_)


def test_the_budget_holds_at_every_batch_size_of_a_dynamic_program():
    """Automatic dynamic shapes: the dynamic program's taped sweep has no bounded peak,
    so every size runs a program planned within the budget at its sizes."""
    w, u = _data()
    grad = jax.grad(rnn_loss, argnums=(0, 1))
    with pytest.raises(MemoryBudgetError) as e:
        jax.jit(grad, memory_budget=1000)(w, u)
    budget = e.value.smallest_peak + 40000   # (met at batch 64, so at every smaller one)
    f = jax.jit(grad, memory_budget=budget)
    for batch in (64, 48, 40, 56):
        got = f(w, u[:batch])
        stats = loop_tape.last_stats
        assert stats.trips > 10 and stats.peak_bytes <= _sweep_allowance(f, w, u[:batch])
        assert _analysis(f, w, u[:batch]).peak_memory_in_bytes <= budget
        for g, want in zip(got, jax.jit(grad)(w, u[:batch])):
            _close_in_float32(g, np.asarray(want))
