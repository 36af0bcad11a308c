"""Reverse mode through ``lax.while_loop`` with a data-dependent trip count (JAX raises
here): gradients of Newton's method, an RNN iterated to a fixed point, an adaptive-step
integrator and a backtracking line search, checked against float64 finite differences
and against the same loop unrolled in Python with its trip count fixed; second order;
under jit, vmap (a batched predicate: every example its own trip count) and jvp; a
loop of no trips; int carries; the Revolve schedule's saved states and its gradients."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads
from tjit import lax
from tjit.primitives import loop_tape


# -- loops, written against a `loop` with while_loop's signature --------------------------
def newton_sqrt(a, loop=lax.while_loop):
    def cond(c):
        x, i = c
        return (jnp.abs(x * x - a) > 1e-12 * a) & (i < 60)

    def body(c):
        x, i = c
        return 0.5 * (x + a / x), i + 1
    return loop(cond, body, (a + 1.0, 0))[0]


def rnn_fixed_point(w, u):
    """h <- tanh(W h + u) until the update is small (a contraction: |W| < 1)."""
    def loop_fn(loop=lax.while_loop):
        def cond(c):
            h, h_old = c
            return jnp.max(jnp.abs(h - h_old)) > 1e-9

        def body(c):
            h, _ = c
            return jnp.tanh(w @ h + u), h
        h0 = jnp.zeros_like(u)
        return loop(cond, body, (jnp.tanh(u), h0))[0]
    return loop_fn


def adaptive_decay(k, y0, loop=lax.while_loop):
    """y' = -k y on [0, 1] by Euler steps whose size shrinks where |k y| is large; the
    last step lands on t = 1, so y(1) is continuous in k."""
    def cond(c):
        return c[0] < 1.0

    def body(c):
        t, y = c
        h = jnp.minimum(0.2 / (1.0 + jnp.max(jnp.abs(k * y))), 1.0 - t)
        return t + h, y - h * k * y
    return loop(cond, body, (jnp.zeros((), y0.dtype), y0))[1]


def line_search_value(x, d, loop=lax.while_loop):
    """Backtracking (Armijo) line search on a Rosenbrock-like f from x along d; the
    value at the accepted step."""
    f = lambda z: jnp.sum((1.0 - z[:-1]) ** 2 + 5.0 * (z[1:] - z[:-1] ** 2) ** 2)
    f0, slope = f(x), jnp.dot(tjit.grad(f)(x), d)

    def cond(c):
        alpha, _ = c
        return f(x + alpha * d) > f0 + 1e-4 * alpha * slope

    def body(c):
        alpha, i = c
        return 0.5 * alpha, i + 1
    alpha, _ = loop(cond, body, (jnp.ones_like(f0) * 4.0, 0))
    return f(x + alpha * d)


# -- a Python loop with the trip count fixed, as the reference -------------------------------
def counted(store):
    """A while_loop that runs in Python on concrete values and records its trip count."""
    def loop(cond, body, init):
        n = 0
        while bool(cond(init)):
            init = body(init)
            n += 1
        store.append(n)
        return init
    return loop


def unrolled(n):
    """The loop unrolled ``n`` times in Python: differentiable without while_loop."""
    def loop(cond, body, init):
        for _ in range(n):
            init = body(init)
        return init
    return loop


def trips(fn, *args):
    store = []
    fn(*args, loop=counted(store))
    return store[0]


R = np.random.default_rng(0)
W = (0.4 * R.standard_normal((4, 4)) / 2.0).astype(np.float64)
U = R.standard_normal(4)


def rnn_loss(w, u, loop=lax.while_loop):
    return jnp.sum(rnn_fixed_point(w, u)(loop) ** 2)


CASES = {
    "newton_sqrt": (newton_sqrt, (np.float64(2.0),)),
    "rnn_fixed_point": (rnn_loss, (W, U)),
    "adaptive_decay": (lambda k, y0, loop=lax.while_loop: jnp.sum(adaptive_decay(k, y0, loop)),
                       (np.float64(1.7), np.array([1.0, -0.5, 2.0]))),
    "line_search": (line_search_value, (np.array([-1.2, 1.0, 0.3]),
                                        np.array([0.9, 0.4, -0.2]))),
}


@pytest.fixture
def checkpoints():
    """Set while_loop_checkpoints for one test, restoring it afterwards."""
    old = tjit.config.while_loop_checkpoints
    yield lambda k: tjit.config.update("while_loop_checkpoints", k)
    tjit.config.update("while_loop_checkpoints", old)


# -- first order -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_vs_finite_differences_and_unrolled(name, x64):
    fn, args = CASES[name]
    n = trips(fn, *args)
    assert n > 1
    argnums = tuple(range(len(args)))
    got = tjit.grad(fn, argnums)(*args)
    want = tjit.grad(lambda *a: fn(*a, loop=unrolled(n)), argnums)(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-10, atol=1e-12)
    check_grads(fn, args, modes=("rev",), eps=1e-6, rtol=1e-5, atol=1e-7)


def test_newton_sqrt_derivative_is_the_analytic_one(x64):
    a = np.float64(3.0)
    np.testing.assert_allclose(float(tjit.grad(newton_sqrt)(a)), 0.5 / np.sqrt(a), rtol=1e-9)


@pytest.mark.parametrize("name", ["newton_sqrt", "rnn_fixed_point"])
def test_grad_under_jit_matches_the_interpreter_and_unrolled(name, x64):
    fn, args = CASES[name]
    n = trips(fn, *args)
    g = tjit.grad(fn)
    want = tjit.grad(lambda *a: fn(*a, loop=unrolled(n)))(*args)
    np.testing.assert_allclose(np.asarray(tjit.jit(g)(*args)), np.asarray(want), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(tjit.jit(g, backend="interpreter")(*args)),
                               np.asarray(want), rtol=1e-10)


# -- second order -------------------------------------------------------------------------------
def test_grad_of_grad_vs_unrolled_and_finite_differences(x64):
    fn = lambda k: jnp.sum(adaptive_decay(k, np.array([1.0, -0.5, 2.0])))
    k = np.float64(1.7)
    n = trips(adaptive_decay, k, np.array([1.0, -0.5, 2.0]))
    fixed = lambda k: jnp.sum(adaptive_decay(k, np.array([1.0, -0.5, 2.0]), unrolled(n)))
    got = float(tjit.grad(tjit.grad(fn))(k))
    np.testing.assert_allclose(got, float(tjit.grad(tjit.grad(fixed))(k)), rtol=1e-9)
    g = tjit.grad(fn)
    fd = (float(g(k + 1e-5)) - float(g(k - 1e-5))) / 2e-5
    np.testing.assert_allclose(got, fd, rtol=1e-5)
    check_grads(fn, (k,), order=2, modes=("fwd", "rev"), eps=1e-5, rtol=1e-5, atol=1e-7)


def test_hessian_of_rnn_loss_vs_unrolled(x64):
    n = trips(rnn_loss, W, U)
    h = tjit.hessian(lambda u: rnn_loss(W, u))(U)   # forward over reverse (jvp of grad)
    want = tjit.hessian(lambda u: rnn_loss(W, u, unrolled(n)))(U)
    np.testing.assert_allclose(np.asarray(h), np.asarray(want), rtol=1e-9, atol=1e-12)
    # reverse over reverse
    gg = tjit.grad(lambda u: jnp.sum(tjit.grad(rnn_loss, 1)(W, u) ** 2))(U)
    gg_want = tjit.grad(lambda u: jnp.sum(tjit.grad(rnn_loss, 1)(W, u, unrolled(n)) ** 2))(U)
    np.testing.assert_allclose(np.asarray(gg), np.asarray(gg_want), rtol=1e-9, atol=1e-12)


def test_jit_of_grad_of_grad(x64):
    f = lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * x, x)
    x = np.float64(1.3)   # 8 trips: f = x^9
    np.testing.assert_allclose(float(tjit.jit(tjit.grad(tjit.grad(f)))(x)), 72 * x ** 7,
                               rtol=1e-10)


# -- vmap: a batched predicate, different trip counts ---------------------------------------
def test_vmap_of_grad_with_batched_predicate(x64):
    ks = np.array([0.3, 1.7, 6.0, 15.0])
    y0 = np.array([1.0, -0.5, 2.0])
    fn = lambda k: jnp.sum(adaptive_decay(k, y0))
    counts = [trips(adaptive_decay, k, y0) for k in ks]
    assert len(set(counts)) == len(counts)  # every example its own trip count
    want = [float(tjit.grad(lambda k, n=n: jnp.sum(adaptive_decay(k, y0, unrolled(n))))(k))
            for k, n in zip(ks, counts)]
    np.testing.assert_allclose(np.asarray(tjit.vmap(tjit.grad(fn))(ks)), want, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(tjit.jit(tjit.vmap(tjit.grad(fn)))(ks)), want,
                               rtol=1e-10)
    # grad of a vmapped loop: the batched-predicate loop is transposed as it is
    np.testing.assert_allclose(np.asarray(tjit.grad(lambda k: jnp.sum(tjit.vmap(fn)(k)))(ks)),
                               want, rtol=1e-10)


def test_vmap_of_hessian_vector_product(x64):
    ks = np.array([0.3, 6.0])
    y0 = np.array([1.0, -0.5, 2.0])
    fn = lambda k: jnp.sum(adaptive_decay(k, y0))
    hvp = lambda k: tjit.jvp(tjit.grad(fn), (k,), (jnp.ones_like(k),))[1]
    want = [float(tjit.grad(tjit.grad(fn))(k)) for k in ks]
    np.testing.assert_allclose(np.asarray(tjit.vmap(hvp)(ks)), want, rtol=1e-10)


# -- edge cases --------------------------------------------------------------------------------
def test_loop_of_zero_trips(x64):
    def f(x, c):
        return jnp.sum(lax.while_loop(lambda v: jnp.sum(v) < c, lambda v: v * x, x * 2.0))
    x = np.array([1.0, 2.0])
    assert trips(lambda x, c, loop: loop(lambda v: jnp.sum(v) < c, lambda v: v * x, x * 2.0),
                 x, 1.0) == 0
    gx, gc = tjit.grad(f, (0, 1))(x, np.float64(1.0))
    np.testing.assert_array_equal(np.asarray(gx), [2.0, 2.0])
    assert float(gc) == 0.0
    np.testing.assert_array_equal(np.asarray(tjit.jit(tjit.grad(f))(x, 1.0)), [2.0, 2.0])


def test_carry_pytree_with_int_parts(x64):
    def f(carry, scale):
        def body(c):
            return {"x": c["x"] * scale + c["k"], "i": c["i"] + 1,
                    "k": c["k"] + jnp.ones_like(c["k"])}
        out = lax.while_loop(lambda c: jnp.sum(c["x"]) < 50.0, body, carry)
        return jnp.sum(out["x"] ** 2) + out["i"].astype(np.float64)

    carry = {"x": np.array([1.0, 2.0]), "i": np.int32(0), "k": np.array([1, 2], np.int32)}
    scale = np.float64(1.5)
    n = trips(lambda c, s, loop: loop(lambda c: jnp.sum(c["x"]) < 50.0,
                                      lambda c: {"x": c["x"] * s + c["k"], "i": c["i"] + 1,
                                                 "k": c["k"] + 1}, c), carry, scale)
    out, vjp_fn = tjit.vjp(f, carry, scale)
    ct_carry, ct_scale = vjp_fn(jnp.ones_like(out))
    for key in ("i", "k"):  # no derivative through integers: float0 cotangents, as JAX
        assert ct_carry[key].dtype == tjit.dtypes.float0
        assert ct_carry[key].shape == np.shape(carry[key])
    # the float part against the loop unrolled with the trip count fixed
    x, k = np.array([1.0, 2.0]), np.array([1.0, 2.0])

    def fixed(x0, s):
        xx, kk = x0, k
        for _ in range(n):
            xx, kk = xx * s + kk, kk + 1.0
        return jnp.sum(xx ** 2)
    gx, gs = tjit.grad(fixed, (0, 1))(x, scale)
    np.testing.assert_allclose(np.asarray(ct_carry["x"]), np.asarray(gx), rtol=1e-12)
    np.testing.assert_allclose(float(ct_scale), float(gs), rtol=1e-12)


# -- Revolve checkpointing ------------------------------------------------------------------
def test_revolve_schedule_reverses_every_trip_in_order_within_k_states():
    for n in (0, 1, 2, 7, 50, 233):
        for k in (1, 2, 3, 5, 10, 300):
            seen = []
            loop_tape.reverse_sweep(lambda s, n=n: s[0] < n, lambda s: ([s[0] + 1], s),
                                    lambda r, acc, seen=seen: seen.append(r[0]) or acc,
                                    [0], [], np, checkpoints=k)
            st = loop_tape.last_stats
            assert seen == list(range(n - 1, -1, -1)), (n, k)
            assert st.trips == n and st.backward_steps == n
            assert st.peak_saved <= k, (n, k, st)
            if k == 1:  # no snapshot but the start: every trip recomputed from it
                assert st.forward_steps == n + n * (n + 1) // 2
    # binomial: 233 trips with 10 snapshots cost few recomputations
    assert loop_tape.last_stats.forward_steps < 3 * 233


def test_tape_doubles_and_reverses_every_trip():
    seen = []
    loop_tape.reverse_sweep(lambda s: s[0] < 100, lambda s: ([s[0] + 1], [s[0] * 2]),
                            lambda r, acc: seen.append(int(r[0])) or acc,
                            [np.int64(0)], [], np)
    assert seen == list(range(198, -1, -2))   # the records, last trip first
    assert loop_tape.last_stats.peak_saved == 100


@pytest.mark.parametrize("k", [1, 3, 10])
def test_checkpointed_gradients_equal_the_taped_ones(k, checkpoints, x64):
    w = W * 0.5
    g_tape = tjit.grad(rnn_loss, (0, 1))(w, U)
    n = loop_tape.last_stats.trips
    assert loop_tape.last_stats.peak_saved == n > k
    checkpoints(k)
    g_rev = tjit.grad(rnn_loss, (0, 1))(w, U)
    st = loop_tape.last_stats
    assert st.checkpoints == k and st.trips == n and st.peak_saved <= k
    assert st.forward_steps > n  # the price: recomputed steps
    for a, b in zip(g_rev, g_tape):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    g_jit = tjit.jit(tjit.grad(rnn_loss, (0, 1)))(w, U)
    assert loop_tape.last_stats.peak_saved <= k
    for a, b in zip(g_jit, g_tape):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "3"])
def test_bad_checkpoint_option_is_rejected(bad, checkpoints):
    with pytest.raises(ValueError, match="while_loop_checkpoints must be None"):
        checkpoints(bad)


@pytest.mark.parametrize("n", [1, 3, 4, 5, 12, 13, 1000])
def test_compiled_sweep_across_burst_boundaries(n, x64):
    # the CPU runs both sweeps natively, the forward one in bursts of 4, 8, ... trips:
    # trip counts at and around the burst ends against the interpreter and x^(n+1)
    def f(x, m):
        def body(c):
            i, v, w = c
            return i + 1, v * x, w + jnp.sin(v)
        _, v, w = lax.while_loop(lambda c: c[0] < m, body, (0, x, x))
        return v + w
    x = np.float64(1.0 + 1e-3)
    g = tjit.jit(tjit.grad(f))(x, n)
    assert loop_tape.last_stats.trips == n
    ref = tjit.jit(tjit.grad(f), backend="interpreter")(x, n)
    np.testing.assert_allclose(float(g), float(ref), rtol=1e-12)
    def fixed(x):
        _, v, w = unrolled(n)(None, lambda c: (c[0] + 1, c[1] * x, c[2] + jnp.sin(c[1])),
                              (0, x, x))
        return v + w
    np.testing.assert_allclose(float(g), float(tjit.grad(fixed)(x)), rtol=1e-10)


def test_compiled_revolve_on_a_long_loop(checkpoints, x64):
    # counting and advancing natively in calls of at most 256 trips; k = 4 snapshots
    def f(x):
        def body(c):
            i, v, w = c
            return i + 1, v * x, w + jnp.sin(v)
        _, v, w = lax.while_loop(lambda c: c[0] < 600, body, (0, x, x))
        return v + w
    x = np.float64(1.0 + 1e-4)
    want = float(tjit.jit(tjit.grad(f))(x))
    checkpoints(4)
    got = float(tjit.jit(tjit.grad(f))(x))
    st = loop_tape.last_stats
    assert st.trips == 600 and st.peak_saved <= 4 and st.forward_steps > 1200
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("k", [None, 3])
def test_grad_on_the_simulated_cuda_runtime(k, checkpoints, monkeypatch):
    # CUDA drives the sweep from the host over device arrays (CuPy's API; simulated here)
    from tests.devices.fake_cupy import FakeDeviceArray, simulated_gpu
    monkeypatch.delenv("TJIT_PLATFORMS", raising=False)
    w, u = (W * 0.5).astype(np.float32), U.astype(np.float32)
    want = tjit.jit(tjit.grad(rnn_loss, (0, 1)), backend="interpreter")(w, u)
    checkpoints(k)
    with simulated_gpu(monkeypatch):
        got = tjit.jit(tjit.grad(rnn_loss, (0, 1)))(w, u)
        assert type(got[0]._value) is FakeDeviceArray
        assert loop_tape.last_stats.peak_saved <= (k or loop_tape.last_stats.trips)
        for g, r in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-4, atol=1e-6)


def test_nested_data_dependent_loops(x64):
    def f(x):
        def outer_body(c):
            i, v = c
            v = lax.while_loop(lambda w: w < 2.0 + i, lambda w: w * x, v)
            return i + 1, jnp.sin(v) + 1.0
        return lax.while_loop(lambda c: c[0] < 4, outer_body, (0, x))[1]
    x = np.float64(1.3)
    g = float(tjit.grad(f)(x))
    np.testing.assert_allclose(g, float((f(x + 1e-6) - f(x - 1e-6)) / 2e-6), rtol=1e-6)
    np.testing.assert_allclose(float(tjit.jit(tjit.grad(f))(x)), g, rtol=1e-12)
    gg = float(tjit.grad(tjit.grad(f))(x))
    fd2 = (float(tjit.grad(f)(x + 1e-5)) - float(tjit.grad(f)(x - 1e-5))) / 2e-5
    np.testing.assert_allclose(gg, fd2, rtol=1e-5)


def test_grad_under_polymorphic_jit_compiles_once():
    def f(x):
        v = lax.while_loop(lambda v: jnp.sum(v * v) < 100.0, lambda v: v * 1.5 + jnp.sin(v), x)
        return jnp.sum(v)
    g = tjit.jit(tjit.grad(f), polymorphic_shapes=["(n,)"])
    for n in (3, 5, 8):
        x = np.linspace(0.1, 1, n).astype(np.float32)
        want = tjit.jit(tjit.grad(f), backend="interpreter")(x)
        np.testing.assert_allclose(np.asarray(g(x)), np.asarray(want), rtol=1e-5)
    assert g._cache_size() == 1


def test_jacrev_and_its_jacrev_vs_forward_mode(x64):
    # jacrev: a batch of cotangents through one forward sweep; jacrev of jacrev: reverse
    # over reverse with batches
    def f(x):
        return lax.while_loop(lambda v: jnp.sum(v * v) < 100.0,
                              lambda v: v * 1.5 + jnp.sin(v[::-1]), x)
    x = np.linspace(0.1, 1.0, 4)
    jf = np.asarray(tjit.jacfwd(f)(x))
    np.testing.assert_allclose(np.asarray(tjit.jacrev(f)(x)), jf, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(tjit.jit(tjit.jacrev(f))(x)), jf, rtol=1e-12,
                               atol=1e-12)
    loss = lambda x: jnp.sum(f(x) ** 2)
    np.testing.assert_allclose(np.asarray(tjit.jacrev(tjit.jacrev(loss))(x)),
                               np.asarray(tjit.hessian(loss)(x)), rtol=1e-10)


def test_changing_the_option_retraces_a_jitted_gradient(checkpoints):
    g = tjit.jit(tjit.grad(lambda x: lax.while_loop(lambda v: v < 100.0, lambda v: v * x, x)))
    want = float(g(np.float32(1.1)))
    assert loop_tape.last_stats.peak_saved == loop_tape.last_stats.trips == 48
    checkpoints(3)
    assert float(g(np.float32(1.1))) == want and loop_tape.last_stats.peak_saved == 3


def test_compiled_sweep_as_trip_counts_change_between_calls(x64):
    # the native forward sweep stops at the loop's end (no trip past it) and sizes its
    # tape from the previous call's trip count: counts that shrink, grow past it (the
    # sweep continues in longer scans) and hit zero, through one compiled gradient
    def f(x, m):
        def body(c):
            i, v, w = c
            return i + 1, v * x, w + jnp.sin(v)
        _, v, w = lax.while_loop(lambda c: c[0] < m, body, (0, x, x))
        return v + w
    x = np.float64(1.0 + 1e-3)
    g = tjit.jit(tjit.grad(f))
    ref = tjit.jit(tjit.grad(f), backend="interpreter")
    for n in (5, 50, 3, 0, 50, 51, 1000, 7):
        got = float(g(x, n))
        st = loop_tape.last_stats
        assert st.trips == n, (n, st)
        np.testing.assert_allclose(got, float(ref(x, n)), rtol=1e-12, err_msg=str(n))


@pytest.mark.parametrize("native_fill", [True, False])
def test_compiled_sweep_when_the_driver_pauses_and_without_the_pointer_filler(
        native_fill, monkeypatch, x64):
    # the driver pauses every 3 trips (the stop rows checked across pauses); the
    # argument pointers filled natively (tjit_fill_at) or through ctypes per array
    from tjit.devices import native_loop
    monkeypatch.setattr(native_loop, "BURST", 3)
    if not native_fill:
        monkeypatch.setattr(native_loop, "data_offset", lambda: None)
    scale = 0.5 if native_fill else 0.25     # (a program of its own per case)

    def f(x, m):
        def body(c):
            i, v, w = c
            return i + 1, v * x, w + scale * jnp.sin(v)
        _, v, w = lax.while_loop(lambda c: c[0] < m, body, (0, x, x))
        return v + w
    x = np.float64(1.0 + 1e-3)
    g = tjit.jit(tjit.grad(f))
    ref = tjit.jit(tjit.grad(f), backend="interpreter")
    for n in (0, 1, 2, 3, 4, 7, 40, 6):
        got = float(g(x, n))
        assert loop_tape.last_stats.trips == n
        np.testing.assert_allclose(got, float(ref(x, n)), rtol=1e-12, err_msg=str(n))
