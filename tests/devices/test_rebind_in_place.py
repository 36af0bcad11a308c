"""A CPU runner re-bound to a new size keeps its steps' closures and rewrites what the
sizes change in place (``cpu._Runner.rebind``: ``rebind_code``'s generated re-bind;
``runner_layout``'s generated size function; ``blas._plan``). Each test checks the results against NumPy in float64
or the reference interpreter, and what was rewritten against an independent
evaluation (sympy per dim, NumPy's own strides, the arrays' own addresses)."""

import numpy as np

import tjit
import tjit.numpy as jnp
from tjit.devices import blas, cpu
from tjit.devices.array_args import data_pointer
from tjit.devices.runner_layout import RunnerLayout
from tjit.xla_like.plan import DotStep, GemmSpec, concrete

RNG = np.random.default_rng(131)
W1 = (RNG.standard_normal((24, 40)) / 5).astype(np.float32)
W2 = (RNG.standard_normal((40, 7)) / 6).astype(np.float32)
B1 = RNG.standard_normal(40).astype(np.float32)


def _mlp(x):
    return jnp.tanh(x @ W1 + B1) @ W2


def _want(x):
    return np.tanh(x.astype(np.float64) @ W1 + B1) @ W2


def _executable(f):
    (exe,) = {id(e.executable): e.executable for e in f._cache.values()
              if getattr(e.executable, "symbols", ())}.values()
    return exe


def test_rebinding_keeps_closures_and_matches_numpy(monkeypatch):
    monkeypatch.setattr(cpu, "KEPT_RUNNERS", 1)     # every new size re-binds the one runner
    f = tjit.jit(_mlp, polymorphic_shapes=["(b, 24)"])
    x = RNG.standard_normal((5, 24)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(f(x)), _want(x), rtol=2e-5, atol=2e-5)
    (runner,) = _executable(f)._idle
    assert runner._rebind is not None
    steps = list(runner.steps)
    for b in [64, 3, 700, 9, 2, 64, 1500, 33]:
        x = RNG.standard_normal((b, 24)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(f(x)), _want(x), rtol=2e-5, atol=2e-5)
        (again,) = _executable(f)._idle
        assert again is runner and runner.binding == (("b", b),)
        assert [a is b for a, b in zip(runner.steps, steps)] == [True] * len(steps)
        # the temporaries' addresses in the kernels' argument arrays are the views' own
        assert runner.slot_addresses == [data_pointer(s) for s in runner.slots]


def test_rebound_runner_equals_a_runner_made_for_the_size(monkeypatch):
    # the bits of a re-bound runner's results against those of a fresh runner per size
    monkeypatch.setattr(cpu, "KEPT_RUNNERS", 1)
    f = tjit.jit(_mlp, polymorphic_shapes=["(b, 24)"])
    f(np.ones((4, 24), np.float32))
    exe = _executable(f)
    for b in [2, 300, 17, 2, 1200]:
        x = RNG.standard_normal((b, 24)).astype(np.float32)
        got = np.asarray(f(x))
        fresh = exe._make_runner(exe._solve([x]), shared=False)
        np.testing.assert_array_equal(got, fresh.run([x])[0])


def test_library_and_control_steps_are_prepared_anew_per_size(monkeypatch):
    monkeypatch.setattr(cpu, "KEPT_RUNNERS", 1)

    def f(x):
        y = jnp.sort(x, axis=0) @ W1                   # a library step, then a dot
        return tjit.lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c) + 0.5, y)

    g = tjit.jit(f, polymorphic_shapes=["(b, 24)"])
    ref = tjit.jit(f, backend="interpreter")
    for b in [6, 40, 3, 200, 6]:
        x = RNG.standard_normal((b, 24)).astype(np.float32)
        np.testing.assert_allclose(np.asarray(g(x)), np.asarray(ref(x)), rtol=2e-5,
                                   atol=2e-5)


def test_generated_sizes_match_each_dim_evaluated_alone():
    def f(x, y):
        z = jnp.concatenate([x, x[1:]], axis=0)        # 2b - 1 rows
        return (z @ W1[:3]).reshape(-1), jnp.einsum("bi,ci->bc", x, y[:, :3]) * 2.0

    g = tjit.jit(f, polymorphic_shapes=["(b, 3)", "(c, 5)"])
    g(np.ones((6, 3), np.float32), np.ones((9, 5), np.float32))
    exe = _executable(g)
    prog, syms = exe.program, {s.name: s for s in exe.symbols}
    layout = RunnerLayout.of(prog)
    dots = [s for s in prog.steps if isinstance(s, DotStep)]
    assert dots
    for b, c in [(2, 2), (6, 9), (7, 3), (101, 40)]:
        env = {syms["b"]: b, syms["c"]: c}
        shapes, slots, sized = layout.at(env)
        for v, val in prog.values.items():
            assert shapes[v] == tuple(concrete(d, env) for d in val.shape)
        assert slots == [concrete(s, env) for s in prog.slot_sizes]
        for k in prog.kernels:
            assert layout.kernel_shape(k, sized) == tuple(concrete(d, env) for d in k.shape)
        for s in dots:
            lhs, rhs = (tuple(concrete(d, env) for d in prog.values[v].shape)
                        for v in s.ins[:2])
            assert layout.dot_bmkn(s, sized) == GemmSpec.of(s.dimension_numbers, lhs,
                                                            rhs).bmkn


def test_gemm_plan_strides_are_numpys():
    # every operand layout the plan writes, against the strides NumPy gives the same
    # batched view (natural axis order and transposed)
    f32 = np.dtype(np.float32)
    for lshape, rshape, lperm, rperm, bmkn in [
            ((37, 24), (24, 40), (0, 1), (0, 1), (1, 37, 24, 40)),
            ((5, 37, 24), (5, 24, 40), (0, 1, 2), (0, 1, 2), (5, 37, 24, 40)),
            ((24, 37), (24, 40), (1, 0), (0, 1), (1, 37, 24, 40)),
            ((37, 24), (40, 24), (0, 1), (1, 0), (1, 37, 24, 40))]:
        plan = blas._plan(lshape, rshape, bmkn, f32, lperm, rperm, 1.0, 0.0, False, 2,
                          blas.own_sgemm_used())
        fields = dict(zip(blas._FIELDS, plan.sizes))
        B, M, K, N = bmkn
        for side, shape, perm, mat in (("a", lshape, lperm, (B, M, K)),
                                       ("b", rshape, rperm, (B, K, N))):
            view = np.transpose(np.empty(shape, f32), perm).reshape(mat)
            st = [s // 4 for s in view.strides]
            trans = fields[f"trans_{side}"] == blas._TRANS
            assert fields[f"ld{side}"] == (st[2] if trans else st[1])
            assert (st[1] if trans else st[2]) == 1
            assert fields[f"stride_{side}"] == (st[0] if B > 1 else 0)
        assert (fields["m"], fields["n"], fields["k"], fields["batch"]) == (M, N, K, B)
