"""A transformation of ``jit(f)`` met under another transformation is traced once per
signature and trace context (``grad(grad(jit(f)))`` differentiates the cached jaxpr of
``grad(f)``), and an eager backward pass through a jitted call runs its transpose
compiled; both caches stay correct when what the program depends on changes.

Counts: a ``custom_jvp`` rule that counts its calls (it runs whenever ``f``'s jaxpr is
differentiated), a Python counter in ``f`` (once per trace) and the compile log. Oracles:
closed forms in NumPy float64, central differences, a Python loop for vmap.
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import compile_log

X = np.float32([0.5, -1.25, 2.0, 0.75])


def counting_sin():
    """``(sin, count)``: ``sin`` with a jvp rule that adds one to ``count[0]`` per call."""
    count = [0]

    @tjit.custom_jvp
    def sin(x):
        return jnp.sin(x)

    @sin.defjvp
    def sin_jvp(primals, tangents):
        count[0] += 1
        (x,), (t,) = primals, tangents
        return jnp.sin(x), jnp.cos(x) * t
    return sin, count


def counted(body):
    count = [0]

    def f(*args):
        count[0] += 1
        return body(*args)
    return f, count


def d2_sum_sin3(t, x):
    """d^2/dt^2 of sum(sin(x t)^3), in float64."""
    x = np.asarray(x, np.float64)
    s, c = np.sin(x * t), np.cos(x * t)
    return float(np.sum(3 * x * x * (2 * s * c * c - s ** 3)))


def central_d2(f, t, eps=1e-3):
    return (f(t + eps) - 2 * f(t) + f(t - eps)) / eps ** 2


def test_grad_of_grad_of_jit_transforms_once_per_signature():
    sin, rules = counting_sin()
    f, traces = counted(lambda t, x: jnp.sum(sin(x * t) ** 3))
    gg = tjit.grad(tjit.grad(tjit.jit(f)))
    x = jnp.asarray(X)
    got = gg(np.float32(0.3), x)
    after_first = rules[0]
    for t in (0.3, 0.7, -1.1):
        got = gg(np.float32(t), x)
        assert float(got) == pytest.approx(d2_sum_sin3(t, X), rel=2e-4, abs=1e-4)
        assert got.dtype == np.float32 and not got.weak_type
    assert rules[0] == after_first and traces[0] == 1
    # the oracle itself, against central differences of the float64 function
    assert d2_sum_sin3(0.7, X) == pytest.approx(central_d2(
        lambda t: np.sum(np.sin(X.astype(np.float64) * t) ** 3), 0.7), rel=1e-5)

    # a new shape, a weak type and x64 are new signatures: traced again, and right
    got = gg(np.float32(0.7), jnp.asarray(X[:3]))
    assert float(got) == pytest.approx(d2_sum_sin3(0.7, X[:3]), rel=2e-4, abs=1e-4)
    assert traces[0] == 2
    got = gg(0.7, x)   # a Python float: weakly typed, as JAX
    assert float(got) == pytest.approx(d2_sum_sin3(0.7, X), rel=2e-4, abs=1e-4)
    assert got.weak_type and traces[0] == 3
    with tjit.enable_x64(True):
        x64 = X.astype(np.float64)
        got = gg(np.float64(0.7), jnp.asarray(x64))
        assert got.dtype == np.float64
        assert float(got) == pytest.approx(d2_sum_sin3(0.7, x64), rel=1e-12)
    assert traces[0] == 4
    before = rules[0]
    gg(np.float32(-1.1), x)   # the first signature is still cached
    assert (rules[0], traces[0]) == (before, 4)


def test_grad_of_grad_of_jit_under_jit_and_vmap():
    f, traces = counted(lambda t, x: jnp.sum(jnp.sin(x * t) ** 3))
    gg = tjit.grad(tjit.grad(tjit.jit(f)))
    x = jnp.asarray(X)
    ts = np.float32([0.3, -0.6, 1.2])
    want = [d2_sum_sin3(t, X) for t in ts]
    for _ in range(2):
        batched = tjit.vmap(gg, in_axes=(0, None))(jnp.asarray(ts), x)
        np.testing.assert_allclose(np.asarray(batched), want, rtol=2e-4, atol=1e-4)
        compiled = tjit.jit(lambda t: gg(t, x))
        assert float(compiled(ts[1])) == pytest.approx(want[1], rel=2e-4, abs=1e-4)
    assert traces[0] == 1


def test_a_closed_over_python_value_is_baked_in_as_jit():
    scale = [2.0]
    f, traces = counted(lambda t: jnp.sum(jnp.sin(jnp.asarray(X) * t) ** 3) * scale[0])
    gg = tjit.grad(tjit.grad(tjit.jit(f)))
    assert float(gg(np.float32(0.4))) == pytest.approx(2 * d2_sum_sin3(0.4, X), rel=2e-4)
    scale[0] = 5.0   # as jit(f): this signature's trace is kept (JAX's semantics)
    assert float(gg(np.float32(0.4))) == pytest.approx(2 * d2_sum_sin3(0.4, X), rel=2e-4)
    assert traces[0] == 1
    tjit.clear_caches()
    assert float(gg(np.float32(0.4))) == pytest.approx(5 * d2_sum_sin3(0.4, X), rel=2e-4)


def test_a_jitted_function_closing_over_an_outer_tracer_is_transformed_per_call():
    box = {}

    @tjit.jit
    def loss(u):
        return jnp.sum(jnp.sin(u * box["y"]))   # box["y"]: a tracer of the outer grad

    def outer(y):
        box["y"] = y
        return jnp.sum(tjit.grad(loss)(jnp.asarray(X)))   # sum_i y cos(x_i y)

    x = X.astype(np.float64)
    for y in (2.0, 0.5, 2.0):   # d/dy: sum_i cos(x_i y) - x_i y sin(x_i y)
        v, g = tjit.value_and_grad(outer)(np.float32(y))
        assert float(v) == pytest.approx(np.sum(y * np.cos(x * y)), rel=1e-5)
        assert float(g) == pytest.approx(np.sum(np.cos(x * y) - x * y * np.sin(x * y)),
                                         rel=1e-5, abs=1e-5)


def loss_body(x):
    return jnp.sum(jnp.tanh(x * 1.5 + 0.25) ** 2 + jnp.sin(x))


def loss_grad64(x):
    x = np.asarray(x, np.float64)
    h = np.tanh(x * 1.5 + 0.25)
    return 3.0 * h * (1 - h * h) + np.cos(x)


def test_an_eager_backward_pass_through_a_jitted_call_runs_its_transpose_compiled():
    jl = tjit.jit(loss_body)
    g = tjit.grad(lambda y: jl(y) * 2.0)
    records = []
    compile_log.add_sink(records.append)
    try:
        first = g(jnp.asarray(X))
        names = [r.fun_name for r in records]
        del records[:]
        for k in range(3):
            got = g(jnp.asarray(X * (k + 1)))
            np.testing.assert_allclose(np.asarray(got), 2 * loss_grad64(X * (k + 1)),
                                       rtol=2e-5, atol=1e-6)
            assert got.dtype == np.float32 and not got.weak_type
        assert records == []   # nothing traced or compiled again
        with tjit.enable_x64(True):   # a new signature: its own programs, in float64
            got = g(jnp.asarray(X.astype(np.float64)))
            assert got.dtype == np.float64
            np.testing.assert_allclose(np.asarray(got), 2 * loss_grad64(X), rtol=1e-12)
    finally:
        compile_log.remove_sink(records.append)
    assert "transpose(loss_body)" in names
    np.testing.assert_allclose(np.asarray(first), 2 * loss_grad64(X), rtol=2e-5, atol=1e-6)
    # (the oracle against central differences)
    x, eps = X.astype(np.float64), 1e-6
    fd = [(np.sum(np.tanh((x + e) * 1.5 + 0.25) ** 2 + np.sin(x + e))
           - np.sum(np.tanh((x - e) * 1.5 + 0.25) ** 2 + np.sin(x - e))) / (2 * eps)
          for e in np.eye(4) * eps]
    np.testing.assert_allclose(fd, loss_grad64(X), rtol=1e-6)


def test_a_vjp_pullback_of_a_jitted_call_reused_and_batched():
    jl = tjit.jit(lambda w: jnp.tanh(w) * w)
    w = jnp.asarray(X)
    _, pullback = tjit.vjp(lambda v: jl(v) * 3.0, w)
    x = X.astype(np.float64)
    dydw = 3 * (np.tanh(x) + x * (1 - np.tanh(x) ** 2))
    for scale in (1.0, 2.0):
        (ct,) = pullback(jnp.full(4, scale, jnp.float32))
        np.testing.assert_allclose(np.asarray(ct), scale * dydw, rtol=2e-5, atol=1e-6)
    # jacrev vmaps the pullback: the transpose is batched, not run compiled
    jac = tjit.jacrev(lambda v: jl(v) * 3.0)(w)
    np.testing.assert_allclose(np.asarray(jac), np.diag(dydw), rtol=2e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"cotangent 0 has shape f32\[3\]"):
        pullback(jnp.ones(3, jnp.float32))


def test_options_set_and_restored_reuse_the_programs_of_the_first_setting():
    f, traces = counted(lambda x: x * 0.1 + jnp.arange(4))
    jf, g = tjit.jit(f), tjit.grad(tjit.jit(lambda x: jnp.sum(f(x) ** 2)))
    x = jnp.asarray(X)
    want = X.astype(np.float64) * 0.1 + np.arange(4)
    for _ in range(3):
        np.testing.assert_allclose(np.asarray(jf(x)), want, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(g(x)), 0.2 * want, rtol=1e-6)
        with tjit.enable_x64(True):   # another setting: its own programs
            assert jf(x).dtype == np.float32          # (x is float32; the literals weak)
            out = jf(np.float64(X))
            assert out.dtype == np.float64
            np.testing.assert_allclose(np.asarray(out), want, rtol=1e-15)
        assert jf(x).dtype == np.float32
    # one trace of f per (setting, signature): jit's float32 one, its x64 one and its
    # float64 one, and grad's float32 one; none again after the first round
    assert traces[0] == 4


def test_an_eager_jvp_through_a_jitted_call_runs_its_jvp_compiled():
    sin, rules = counting_sin()
    grad_f = tjit.grad(tjit.jit(lambda x: jnp.sum(sin(x) ** 3)))
    x64 = X.astype(np.float64)
    v = np.float32([1.0, -2.0, 0.5, 3.0])

    def hvp64(x, v):   # the Hessian of sum(sin^3) is diagonal
        s, c = np.sin(x), np.cos(x)
        return (6 * s * c * c - 3 * s ** 3) * v
    records = []
    compile_log.add_sink(records.append)
    try:
        tjit.jvp(grad_f, (jnp.asarray(X),), (jnp.asarray(v),))
        names = [r.fun_name for r in records]
        after_first = rules[0]
        records.clear()
        for k in (1.0, 2.0):
            g, hv = tjit.jvp(grad_f, (jnp.asarray(X),), (jnp.asarray(v * k),))
            np.testing.assert_allclose(np.asarray(g), 3 * np.sin(x64) ** 2 * np.cos(x64),
                                       rtol=2e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(hv), hvp64(x64, v * k), rtol=2e-5,
                                       atol=1e-5)
            assert hv.dtype == np.float32
        assert rules[0] == after_first and records == []
    finally:
        compile_log.remove_sink(records.append)
    assert any(name.startswith("jvp(") for name in names)   # the jvp compiled, once
    with tjit.enable_x64(True):
        _, hv = tjit.jvp(grad_f, (jnp.asarray(x64),), (jnp.asarray(v.astype(np.float64)),))
        assert hv.dtype == np.float64
        np.testing.assert_allclose(np.asarray(hv), hvp64(x64, v), rtol=1e-12)
    # (the oracle against central differences of the float64 gradient)
    eps = 1e-6
    fd = (3 * np.sin(x64 + eps * v) ** 2 * np.cos(x64 + eps * v)
          - 3 * np.sin(x64 - eps * v) ** 2 * np.cos(x64 - eps * v)) / (2 * eps)
    np.testing.assert_allclose(fd, hvp64(x64, v), rtol=1e-6, atol=1e-8)


def test_an_eager_jvp_through_a_jitted_call_with_integer_and_constant_outputs():
    jf = tjit.jit(lambda x, n: (x * n, n * 2, jnp.sum(n) * 1.5))
    n = jnp.asarray(np.int32([1, 2, 3, 4]))
    t = np.float32([1.0, 1.0, 0.5, -2.0])
    for _ in range(2):
        (y, m, c), (ty, tm, tc) = tjit.jvp(lambda x: jf(x, n), (jnp.asarray(X),),
                                           (jnp.asarray(t),))
        np.testing.assert_allclose(np.asarray(y), X * np.float32([1, 2, 3, 4]))
        np.testing.assert_allclose(np.asarray(ty), t * np.float32([1, 2, 3, 4]))
        np.testing.assert_array_equal(np.asarray(m), [2, 4, 6, 8])
        assert tm.dtype == tjit.dtypes.float0 and tm.shape == (4,)
        assert float(c) == 15.0 and float(tc) == 0.0 and tc.dtype == np.float32


@pytest.mark.parametrize("first", ["compiled", "transformed"])
def test_compiled_and_transformed_calls_of_one_jit_trace_it_once(first):
    x = jnp.asarray(X)
    x64 = X.astype(np.float64)
    f, traces = counted(lambda x: jnp.sum(jnp.sin(x) ** 2) + 0.5)
    jf = tjit.jit(f)
    calls = [lambda: jf(x), lambda: tjit.grad(jf)(x),
             lambda: tjit.grad(lambda y: jf(y) * 2.0)(x),
             lambda: tjit.vmap(jf)(jnp.stack([x, x]))]
    for call in (calls if first == "compiled" else calls[::-1]):
        call()
    assert traces[0] == 1
    assert float(jf(x)) == pytest.approx(np.sum(np.sin(x64) ** 2) + 0.5, rel=1e-6)
    np.testing.assert_allclose(np.asarray(tjit.grad(lambda y: jf(y) * 2.0)(x)),
                               4 * np.sin(x64) * np.cos(x64), rtol=1e-5, atol=1e-6)
    with tjit.enable_x64(True):   # another context: traced again, in float64
        assert jf(jnp.asarray(x64)).dtype == np.float64
        np.testing.assert_allclose(np.asarray(tjit.grad(jf)(jnp.asarray(x64))),
                                   2 * np.sin(x64) * np.cos(x64), rtol=1e-12)
    assert traces[0] == 2


def test_make_jaxpr_keeps_the_dead_code_that_shared_traces_drop():
    mj = tjit.make_jaxpr(lambda x: (jnp.exp(x), x * 2.0)[1])
    x = jnp.asarray(X)
    for _ in range(2):
        assert "exp" in str(mj(x))
