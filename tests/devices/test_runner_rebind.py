"""CPU runners re-bound to new sizes (``cpu._Runner.rebind``, ``cpu.KEPT_RUNNERS``).

A polymorphic program keeps a few runners; a call at a size none of them is bound to
re-binds the least recently used one: its shapes, temporaries, kernel sizes, thread
splits and gemm plans are rewritten in the tables its launchers point at. Every test
calls sizes in an order that re-binds runners many times (growing, shrinking, going
back to a size seen before) and checks each result against NumPy in float64 or the
reference interpreter, and that runners were re-bound rather than made.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.devices import cpu
from tjit.devices.runner_layout import RunnerLayout
from tjit.xla_like.plan import concrete

RNG = np.random.default_rng(21)
W1 = (RNG.standard_normal((24, 40)) / 5).astype(np.float32)
W2 = (RNG.standard_normal((40, 7)) / 6).astype(np.float32)
B2 = RNG.standard_normal(7).astype(np.float32)

# sizes that go up and down and come back; 1 and 0 rows are never symbolic
SIZES = [5, 64, 9, 300, 2, 64, 17, 1200, 5, 33, 300, 2, 8, 71, 9]


def _executable(f):
    (exe,) = {id(e.executable): e.executable for e in f._cache.values()
              if getattr(e.executable, "symbols", ())}.values()
    return exe


def _count_new_runners(monkeypatch):
    made = []
    init = cpu._Runner.__init__

    def counted(self, prog, *args, **kw):
        made.append(prog)
        init(self, prog, *args, **kw)
    monkeypatch.setattr(cpu._Runner, "__init__", counted)
    return made


def test_mlp_at_sizes_that_go_up_down_and_back(monkeypatch):
    made = _count_new_runners(monkeypatch)
    f = tjit.jit(lambda x: jnp.tanh(x @ W1) @ W2 + B2, polymorphic_shapes=["(b, 24)"])
    for b in SIZES:
        x = RNG.standard_normal((b, 24)).astype(np.float32)
        want = np.tanh(x.astype(np.float64) @ W1) @ W2 + B2
        np.testing.assert_allclose(np.asarray(f(x)), want, rtol=2e-5, atol=2e-5)
    assert len(made) == cpu.KEPT_RUNNERS       # the rest were re-bound
    recent = []                                # sizes, the most recently called last
    for b in SIZES:
        recent = [c for c in recent if c != b] + [b]
    assert [r.binding[0][1] for r in _executable(f)._idle] == recent[-cpu.KEPT_RUNNERS:]
    assert f.trace_count == 1


def test_threads_split_and_single_thread_sizes_alternate():
    # a kernel big enough to run split across threads at 2^17 rows, on one thread at
    # 3: re-binding switches the launcher between the two; the output must be whole
    f = tjit.jit(lambda x: jnp.sin(x) * 2.0 + jnp.exp(-x * x), polymorphic_shapes=["(n, 8)"])
    for n in [3, 1 << 17, 5, 1 << 17, 7, 6, 9, 3, (1 << 16) + 3]:
        x = RNG.standard_normal((n, 8)).astype(np.float32)
        x64 = x.astype(np.float64)
        np.testing.assert_allclose(np.asarray(f(x)), np.sin(x64) * 2.0 + np.exp(-x64 * x64),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("gemm", ["own", "blas"])
def test_gemm_plans_follow_the_sizes(gemm, monkeypatch):
    # thin products (fewer rows than the own sgemm's tile) and big ones (split across
    # threads) alternate in one runner: the shim, blocks and strides are re-planned
    if gemm == "blas":
        monkeypatch.setenv("TJIT_GEMM", "blas")
    w = RNG.standard_normal((96, 130)).astype(np.float32)
    f = tjit.jit(lambda x, v: (x @ w, x.T @ v), polymorphic_shapes=["(m, 96)", "(m, 5)"])
    for m in [2, 700, 3, 64, 1500, 2, 9, 700, 13, 5]:
        x = RNG.standard_normal((m, 96)).astype(np.float32)
        v = RNG.standard_normal((m, 5)).astype(np.float32)
        a, b = f(x, v)
        np.testing.assert_allclose(np.asarray(a), x.astype(np.float64) @ w, rtol=1e-4,
                                   atol=1e-4)
        np.testing.assert_allclose(np.asarray(b), x.T.astype(np.float64) @ v, rtol=1e-4,
                                   atol=1e-4)


def test_loops_reductions_and_reshapes_against_the_interpreter():
    def f(x):
        b = x.shape[0]
        y = x.reshape(b * 2, 3)
        s = lax.fori_loop(0, 3, lambda i, c: c * 0.5 + jnp.sum(y, axis=0), jnp.zeros(3))
        return jnp.cumsum(y, axis=0)[1:] * s, jnp.max(x, axis=1)

    g = tjit.jit(f, polymorphic_shapes=["(b, 6)"])
    ref = tjit.jit(f, backend="interpreter")
    for b in [4, 40, 7, 4, 123, 7, 2, 40, 11]:
        x = RNG.standard_normal((b, 6)).astype(np.float32)
        for got, want in zip(g(x), ref(x)):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5,
                                       atol=1e-5)


def test_donated_argument_across_rebinds():
    f = tjit.jit(lambda x: x * 2.0 + 1.0, polymorphic_shapes=["(n, 4)"], donate_argnums=0)
    for n in [3, 50, 9, 3, 77, 12, 50]:
        x0 = RNG.standard_normal((n, 4)).astype(np.float32)
        out = f(jnp.asarray(x0))
        np.testing.assert_array_equal(np.asarray(out), x0 * np.float32(2.0) + np.float32(1.0))


def test_layout_shapes_match_each_dim_evaluated_alone():
    # the layout's one compiled evaluation against plan.concrete per dim
    def f(x, y):
        z = jnp.concatenate([x, x[1:]], axis=0)       # 2b - 1 rows
        return z.reshape(-1) * 2.0, jnp.sum(y, axis=1) + 1.0, jnp.outer(x[:, 0], y[:, 1])

    g = tjit.jit(f, polymorphic_shapes=["(b, 3)", "(c, 2)"])
    x, y = np.ones((6, 3), np.float32), np.ones((9, 2), np.float32)
    g(x, y)
    exe = _executable(g)
    prog, syms = exe.program, {s.name: s for s in exe.symbols}
    layout = RunnerLayout.of(prog)
    assert layout.symbolic
    for b, c in [(2, 2), (6, 9), (7, 3), (101, 40)]:
        env = {syms["b"]: b, syms["c"]: c}
        shapes, slots, vals = layout.at(env)
        for v, val in prog.values.items():
            assert shapes[v] == tuple(concrete(d, env) for d in val.shape)
        assert slots == [concrete(s, env) for s in prog.slot_sizes]
        for k in prog.kernels:
            assert layout.kernel_shape(k, vals) == tuple(concrete(d, env) for d in k.shape)
