"""The generated binding of a CPU runner (``devices/rebind_code.py``): a runner re-bound
to size after size through it computes what the reference interpreter does, and ends in
the state of a runner made afresh for the size (``bind_sizes`` and prepared steps: the
generic path), for programs with several size symbols, temporaries, reductions, donated
buffers, library and control steps, mixed-dtype dots and thread splits that come and
go."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import cpu, rebind_code

RNG = np.random.default_rng(1313)
W = (RNG.standard_normal((12, 20)) / 4).astype(np.float32)
V = (RNG.standard_normal((20, 6)) / 5).astype(np.float32)

# up, down, back to a size seen before, across the thread-split threshold
SIZES = [3, 40, 7, 5000, 2, 40, 900, 3, 12001, 64]


@pytest.fixture
def one_runner(monkeypatch):
    monkeypatch.setattr(cpu, "KEPT_RUNNERS", 1)     # every new size re-binds the one runner


def _executable(f):
    (exe,) = {id(e.executable): e.executable for e in f._cache.values()
              if getattr(e.executable, "symbols", ())}.values()
    return exe


def _check(f, fn, args, rtol=2e-5, atol=2e-5):
    """``f(*args)`` against the reference interpreter's ``fn(*args)``."""
    got, want = f(*args), tjit.jit(fn, backend="interpreter")(*args)
    for g, w in zip(tjit.tree_util.tree_leaves(got), tjit.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def _same_state(runner, fresh):
    """What the generated re-bind wrote equals what the generic path gives a fresh
    runner at the same binding."""
    assert runner.shape == fresh.shape
    assert [s.nbytes for s in runner.slots] == [s.nbytes for s in fresh.slots]
    for a, b in zip(runner.fixed, fresh.fixed):
        assert (a is None) == (b is None)
        if a is not None:
            assert (a.shape, a.dtype) == (b.shape, b.dtype)
    assert runner.size_values.vals == fresh.size_values.vals
    assert runner.size_values.kernels == fresh.size_values.kernels
    assert runner.size_values.dots == fresh.size_values.dots
    for kid, (sizes, n, parallel) in fresh._launches.items():
        mine = runner._launches[kid]
        assert (list(mine[0]), mine[1], mine[2]) == (list(sizes), n, parallel)
    for sid, kb in fresh._binder_of.items():
        if isinstance(kb, rebind_code.KernelBinding):
            mine = runner._binder_of[sid]
            assert mine.state == kb.state
            for pos, slot in mine.moving:       # (the temporaries' addresses: this arena)
                assert mine.argv[pos] == runner.slot_addresses[slot]
            assert mine.launch.ctx[8] == kb.launch.ctx[8]
            assert mine.launch.ctx[0] == kb.launch.ctx[0]
    for sid, gemm in fresh.gemms.items():
        if gemm is not None:
            mine = runner.gemms[sid]
            assert list(mine.sizes) == list(gemm.sizes)
            assert (mine.n_units, mine.parallel) == (gemm.n_units, gemm.parallel)


def _rebound_runner(f):
    (runner,) = _executable(f)._idle
    assert runner._rebind is not None          # (re-bound by the generated function)
    return runner


def test_two_symbols_temporaries_and_reductions(one_runner):
    def fn(x, y):
        h = jnp.tanh(x @ W)                        # (b, 20): a dot, then a kernel
        s = jnp.sum(h * h, axis=1, keepdims=True)  # a row reduction into a temporary
        z = (h / (1.0 + s)) @ V                    # (b, 6)
        return z, jnp.mean(y, axis=0) * 2.0 + jnp.max(z)

    f = tjit.jit(fn, polymorphic_shapes=["(b, 12)", "(c, 6)"])
    for k, b in enumerate(SIZES):
        c = SIZES[-1 - k]
        x = RNG.standard_normal((b, 12)).astype(np.float32)
        y = RNG.standard_normal((c, 6)).astype(np.float32)
        _check(f, fn, (x, y))
        exe = _executable(f)
        if k:
            runner = _rebound_runner(f)
            _same_state(runner, exe._make_runner(exe._solve([x, y]), shared=False))


def test_runner_with_its_own_slots(one_runner):
    # a runner whose temporaries are its own memory (not the shared arena), re-bound
    def fn(x):
        return jnp.tanh(jnp.exp(x @ W) - 1.0) @ V

    f = tjit.jit(fn, polymorphic_shapes=["(b, 12)"])
    x = RNG.standard_normal((5, 12)).astype(np.float32)
    f(x)
    exe = _executable(f)
    runner = exe._make_runner(exe._solve([x]), shared=False)
    for b in SIZES:
        x = RNG.standard_normal((b, 12)).astype(np.float32)
        env = exe._solve([x])
        runner.rebind(env)
        want = np.tanh(np.exp(x.astype(np.float64) @ W) - 1.0) @ V
        np.testing.assert_allclose(runner.run([x])[0], want, rtol=3e-5, atol=3e-5)
        _same_state(runner, exe._make_runner(env, shared=False))


def test_donated_argument_across_rebinds(one_runner):
    def step(w, g):
        return w - 0.1 * g * jnp.sum(g, axis=1, keepdims=True)

    f = tjit.jit(step, polymorphic_shapes=["(b, 7)", "(b, 7)"], donate_argnums=0)
    for b in SIZES:
        w0 = RNG.standard_normal((b, 7)).astype(np.float32)
        g = RNG.standard_normal((b, 7)).astype(np.float32)
        want = w0 - 0.1 * g * g.astype(np.float64).sum(1, keepdims=True)
        w = jnp.asarray(w0)
        out = f(w, g)
        np.testing.assert_allclose(np.asarray(out), want, rtol=2e-5, atol=2e-5)


def test_library_control_and_mixed_dtype_steps(one_runner):
    # a library step (sort), a loop (control step) and a mixed-dtype dot (np.matmul):
    # prepared anew at each binding, beside kernels and gemms re-bound in place
    def fn(x, n):
        y = jnp.sort(x, axis=0) @ W
        y = lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c) + 0.25, y)
        return y @ V, (n.astype(jnp.float32) @ W[:4]) * 2.0

    f = tjit.jit(fn, polymorphic_shapes=["(b, 12)", "(c, 4)"])
    for k, b in enumerate(SIZES[:7]):
        x = RNG.standard_normal((b, 12)).astype(np.float32)
        n = RNG.integers(-3, 4, (SIZES[6 - k], 4)).astype(np.int32)
        _check(f, fn, (x, n))


def test_generated_code_is_shared_by_runners_of_a_program(one_runner):
    def fn(x):
        return jnp.tanh(x @ W) @ V

    f = tjit.jit(fn, polymorphic_shapes=["(b, 12)"])
    f(np.ones((4, 12), np.float32))
    exe = _executable(f)
    env = exe._solve([np.ones((9, 12), np.float32)])
    a, b = exe._make_runner(env), exe._make_runner(env)
    assert a._rebind is not b._rebind                       # each its own tables
    assert a._rebind.__code__ is b._rebind.__code__         # one compiled code object


def test_binding_code_is_shared_by_programs_of_one_structure():
    """The generated binding's text names kernels' ids and addresses through globals, so
    programs of one structure (new functions, new kernels) reuse one compiled code."""
    x, w = np.ones((16, 8), np.float32), np.ones((8, 4), np.float32)
    before = None
    for i in range(4):
        f = tjit.jit(lambda x, w, i=i: jnp.tanh(x @ w) * (i + 2.0) + jnp.sum(x, axis=1,
                                                                            keepdims=True))
        np.testing.assert_allclose(f(x, w), np.tanh(x @ w) * (i + 2.0) + 8.0, rtol=1e-6)
        if before is None:
            before = len(rebind_code._CODE)
    assert len(rebind_code._CODE) == before
