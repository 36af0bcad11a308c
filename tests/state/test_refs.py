"""Mutable array references (jax.new_ref / jax.Ref): values against NumPy float64 and
Python loops, eager vs jit vs the interpreter backend, gradients against finite
differences, vmap against a loop, and JAX's documented errors (docs/array_refs.md)."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.state import RefError

BACKENDS = [None, "interpreter"]


def _jit(f, backend):
    return tjit.jit(f, backend=backend) if backend else tjit.jit(f)


def test_indexing_reads_and_writes_follow_numpy():
    ref_np = np.arange(12.).reshape(3, 4)
    x_ref = tjit.new_ref(jnp.arange(12., dtype=jnp.float32).reshape(3, 4))
    for r in (ref_np, None):
        if r is None:
            r = x_ref
        r[1] = r[0]
        r[2, 3] = r[1, 2]
        r[0, :3] = r[:, 1]
        vals = r[np.array([0, 0, 1]), np.array([1, 2, 3])]
        r[np.array([1, 2, 1]), np.array([0, 0, 1])] = vals
        r[1:, 2] += 10.
    np.testing.assert_array_equal(np.asarray(x_ref[...]), ref_np)
    assert x_ref.shape == (3, 4) and x_ref.dtype == np.float32
    assert repr(tjit.new_ref(jnp.zeros(2))) == "Ref([0., 0.], dtype=float32)"


def test_ref_functions_get_swap_set_addupdate():
    r = tjit.new_ref(jnp.arange(3.))
    assert float(tjit.ref.get(r, 1)) == 1.0
    assert float(tjit.ref.swap(r, 0, 5.)) == 0.0
    tjit.ref.addupdate(r, 1, 2.)
    tjit.ref.set(r, 2, 7.)
    np.testing.assert_array_equal(np.asarray(tjit.freeze(r)), [5., 3., 7.])
    e = tjit.empty_ref(tjit.ShapeDtypeStruct((2,), jnp.int32))
    assert e.shape == (2,) and e.dtype == np.int32
    tjit.free_ref(e)
    with pytest.raises(RefError, match="free_ref"):
        e[...]


@pytest.mark.parametrize("backend", BACKENDS)
def test_jit_closed_over_ref_is_updated_every_call(backend):
    x_ref = tjit.new_ref(jnp.zeros(3))

    def f():
        x_ref[1] += 1.
    g = _jit(f, backend)
    g()
    g()
    np.testing.assert_array_equal(np.asarray(x_ref[...]), [0., 2., 0.])
    x_ref[...] = jnp.ones(3)      # a write between calls is seen by the next call
    g()
    np.testing.assert_array_equal(np.asarray(x_ref[...]), [1., 2., 1.])


@pytest.mark.parametrize("backend", BACKENDS)
def test_jit_ref_arguments_mutated_in_place(backend, rng):
    x = rng.standard_normal(5).astype(np.float32)

    def step(x_ref, y_ref, s):
        y_ref[...] = y_ref[...] + jnp.sin(x_ref[...]) * s
        x_ref[::2] = 0.
        return jnp.sum(y_ref[...])
    f = _jit(step, backend)
    xr, yr = tjit.new_ref(jnp.asarray(x)), tjit.new_ref(jnp.zeros(5))
    out1 = f(xr, yr, 2.)
    out2 = f(xr, yr, 2.)
    x0 = x.astype(np.float64)
    y1 = np.sin(x0) * 2
    x1 = x0.copy()
    x1[::2] = 0
    y2 = y1 + np.sin(x1) * 2
    np.testing.assert_allclose([float(out1), float(out2)], [y1.sum(), y2.sum()], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(yr[...]), y2, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(xr[...]), x1, rtol=1e-6)


def test_jit_errors_return_alias_closure():
    x_ref = tjit.new_ref(0.)

    @tjit.jit
    def ret(r):
        return r
    with pytest.raises(RefError, match="(?s)cannot be returned.*argument r"):
        ret(x_ref)

    @tjit.jit
    def two(a, b):
        pass
    with pytest.raises(RefError, match="appeared at both a and b"):
        two(x_ref, x_ref)

    @tjit.jit
    def both(y_ref):
        y_ref[...] = x_ref[...]
    with pytest.raises(RefError, match="both closed over and passed"):
        both(x_ref)
    with pytest.raises(TypeError, match="sin requires ndarray or scalar arguments, got Ref"):
        jnp.sin(x_ref)


@pytest.mark.parametrize("backend", BACKENDS)
def test_refs_in_loops_and_branches_match_python(backend):
    xs = np.arange(10, dtype=np.int32)

    def run(xs):
        total, hits, flags = tjit.new_ref(0), tjit.new_ref(0), tjit.new_ref(jnp.zeros(2))

        def body(c, x):
            total[...] += x
            return c + 1, x * 2
        _, ys = lax.scan(body, 0, xs)

        def wbody(v):
            hits[...] += 1
            return v * 2.
        v = lax.while_loop(lambda v: v < 100., wbody, 1.)

        def tb(x):
            flags[0] = x
            return x

        def fb(x):
            flags[1] = x
            return -x
        c = lax.cond(total[...] > 40, tb, fb, 3.)
        lax.fori_loop(0, 3, lambda i, u: (flags.addupdate(1, 1.), u)[1], 0)
        return total[...], hits[...], flags[...], ys, v, c

    want = (45, 7, np.array([3., 3.]), xs * 2, 128., 3.)
    for got in (run(jnp.asarray(xs)), _jit(run, backend)(jnp.asarray(xs))):
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w)


def test_scan_closing_over_an_eager_ref_inside_jit():
    acc = tjit.new_ref(jnp.zeros(3))

    @tjit.jit
    def f(xs):
        def body(c, x):
            acc[...] += x
            return c, None
        lax.scan(body, 0., xs)
    xs = np.arange(6., dtype=np.float32).reshape(2, 3)
    f(jnp.asarray(xs))
    f(jnp.asarray(xs))
    np.testing.assert_array_equal(np.asarray(acc[...]), 2 * xs.sum(0))


def test_grad_of_pure_function_with_internal_refs():
    def g(x):
        r = tjit.new_ref(0.)
        r[...] = jnp.sin(x)
        r[...] += r[...] * x
        return r[...]
    x, eps = 0.7, 1e-3
    fd = (np.sin(x + eps) * (1 + x + eps) - np.sin(x - eps) * (1 + x - eps)) / (2 * eps)
    np.testing.assert_allclose(float(tjit.grad(g)(x)), fd, rtol=1e-3)
    np.testing.assert_allclose(float(tjit.jit(tjit.grad(g))(x)), fd, rtol=1e-3)
    np.testing.assert_allclose(float(tjit.grad(tjit.jit(g))(x)), fd, rtol=1e-3)


def test_plumbing_ref_takes_only_stop_gradient_values():
    plumb = tjit.new_ref(0.)

    def ok(x):
        y = x * x
        plumb[...] += lax.stop_gradient(y)
        return y

    def bad(x):
        plumb[...] += x * x
        return x
    assert float(tjit.grad(ok)(3.)) == 6.0
    assert float(plumb[...]) == 9.0
    with pytest.raises(RefError, match="stop_gradient"):
        tjit.grad(bad)(3.)


def test_vmap_ref_arguments_match_loop_and_closed_over_ref_errors():
    def dist(x, y, out_ref):
        out_ref[...] = jnp.sum((x - y) ** 2)
    vecs = np.arange(12., dtype=np.float32).reshape(3, 4)
    out = tjit.new_ref(jnp.zeros((3, 3)))
    tjit.vmap(tjit.vmap(dist, (0, None, 0)), (None, 0, 0))(vecs, vecs, out)
    want = np.array([[((vecs[i] - vecs[j]) ** 2).sum() for i in range(3)] for j in range(3)])
    np.testing.assert_allclose(np.asarray(out[...]), want)
    x_ref = tjit.new_ref(0.)

    def err(x):
        x_ref[...] = x
    with pytest.raises(RefError, match="vmapped value on an unbatched array reference"):
        tjit.vmap(err)(jnp.arange(3.))


def test_vjp_with_refs_accumulates_and_dont_want_skips_work():
    def take(x, i):
        return x[i]
    x = jnp.arange(10.)
    grad_ref = tjit.new_ref(jnp.zeros(10))
    for i in [3, 5, 3]:
        _, f_vjp = tjit.vjp(take, x, i)
        out = f_vjp.with_refs(grad_ref, tjit.ad.GradValue())(1.0)
        assert out[0] == tjit.ad.GradRef()
    want = np.zeros(10)
    want[[3, 5]] = [2., 1.]
    np.testing.assert_array_equal(np.asarray(grad_ref[...]), want)

    W, v = jnp.ones((4, 4)), jnp.arange(4.)
    _, f_vjp = tjit.vjp(lambda W, v: W @ v, W, v)
    W_bar, v_bar = f_vjp.with_refs(tjit.ad.GradValue(), tjit.ad.DontWant())(jnp.ones(4))
    np.testing.assert_allclose(np.asarray(W_bar), np.outer(np.ones(4), np.arange(4.)))
    assert v_bar == tjit.ad.DidntWant()
    both = str(tjit.make_jaxpr(lambda: f_vjp(jnp.ones(4)))())
    only_w = str(tjit.make_jaxpr(lambda: f_vjp.with_refs(
        tjit.ad.GradValue(), tjit.ad.DontWant())(jnp.ones(4)))())
    assert both.count("dot_general") == 2 and only_w.count("dot_general") == 1


def test_microbatch_gradient_accumulation_matches_summed_grad(rng):
    Ws = jnp.asarray(rng.standard_normal((3, 4, 4)).astype(np.float32) * 0.5)
    xs = jnp.asarray(rng.standard_normal((5, 7, 4)).astype(np.float32))

    def loss(Ws, x):
        act, _ = lax.scan(lambda a, W: (jnp.tanh(a @ W), None), x, Ws)
        return jnp.mean(act)

    def batch(Ws, xs):
        acc = tjit.new_ref(jnp.zeros_like(Ws))

        def mub(_, x):
            l, f_vjp = tjit.vjp(lambda Ws: loss(Ws, x), Ws)
            f_vjp.with_refs(acc)(jnp.ones_like(l))
            return (), l
        _, losses = lax.scan(mub, (), xs)
        return tjit.freeze(acc), losses
    want = tjit.grad(lambda Ws: sum(loss(Ws, xs[i]) for i in range(5)))(Ws)
    for got, _ in (batch(Ws, xs), tjit.jit(batch)(Ws, xs)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-6)


def test_make_jaxpr_of_closed_over_ref_does_not_mutate():
    r = tjit.new_ref(jnp.ones(2))

    def f():
        r[...] += 1.
    text = str(tjit.make_jaxpr(f)())
    assert "add" in text
    np.testing.assert_array_equal(np.asarray(r[...]), [1., 1.])


def test_checkpoint_of_impure_function_raises_clearly():
    r = tjit.new_ref(0.)

    def f(x):
        r[...] = x
        return x
    with pytest.raises(RefError, match="cannot carry the state"):
        tjit.jit(tjit.checkpoint(f))(1.)


def test_custom_vjp_stashes_gradients_into_a_plumbing_ref():
    @tjit.custom_vjp
    def stash(grads_ref, x):
        return x

    def fwd(grads_ref, x):
        return x, grads_ref

    def bwd(grads_ref, g):
        grads_ref[...] = g
        return None, g
    stash.defvjp(fwd, bwd)

    def f(x, grads_ref):
        return jnp.sin(stash(grads_ref, x) * 2.)
    gr = tjit.new_ref(0.)
    for x, run in ((1., tjit.grad(f)), (2., tjit.jit(tjit.grad(f))), (3., tjit.grad(tjit.jit(f)))):
        np.testing.assert_allclose(float(run(x, gr)), 2 * np.cos(2 * x), rtol=1e-6)
        np.testing.assert_allclose(float(gr[...]), 2 * np.cos(2 * x), rtol=1e-6)
    np.testing.assert_allclose(float(f(0.5, gr)), np.sin(1.), rtol=1e-6)   # no bwd: kept
    np.testing.assert_allclose(float(gr[...]), 2 * np.cos(6.), rtol=1e-6)


def test_vjp_with_respect_to_ref_arguments():
    def g(x_ref, w):
        x_ref[...] = jnp.sin(x_ref[...]) * w
        return x_ref[...] ** 2
    x_ref = tjit.new_ref(2.)
    y, g_vjp = tjit.vjp(g, x_ref, 3.)
    np.testing.assert_allclose(float(x_ref[...]), np.sin(2.) * 3, rtol=1e-6)   # ran g
    np.testing.assert_allclose(float(y), (np.sin(2.) * 3) ** 2, rtol=1e-5)
    with pytest.raises(RefError, match="with_refs"):
        g_vjp(1.0)
    with pytest.raises(RefError, match="with_refs"):
        g_vjp.with_refs(tjit.ad.GradValue(), tjit.ad.GradValue())(1.0)
    grad_ref = tjit.new_ref(100.)
    _, w_bar = g_vjp.with_refs(grad_ref, tjit.ad.GradValue())(1.0)
    # d/dx (3 sin x)^2 = 18 sin x cos x; d/dw (w sin x)^2 = 2 w sin^2 x, at x=2, w=3
    np.testing.assert_allclose(float(grad_ref[...]), 100. + 18 * np.sin(2.) * np.cos(2.),
                               rtol=1e-5)
    np.testing.assert_allclose(float(w_bar), 6 * np.sin(2.) ** 2, rtol=1e-5)
    with pytest.raises(TypeError, match="gradient for a ref must itself live in a ref"):
        tjit.grad(lambda r: r[...] ** 2)(tjit.new_ref(1.))


def test_transformations_of_jitted_functions_with_ref_arguments():
    @tjit.jit
    def h(x, r):
        r[...] += lax.stop_gradient(x)
        return jnp.sin(x)
    r = tjit.new_ref(0.)
    np.testing.assert_allclose(float(tjit.grad(h)(1.0, r)), np.cos(1.), rtol=1e-6)
    np.testing.assert_allclose(float(tjit.grad(h)(2.0, r)), np.cos(2.), rtol=1e-6)
    assert float(r[...]) == 3.0

    @tjit.jit
    def outer(x):
        q = tjit.new_ref(x)
        h(x, q)          # a jitted function with a ref argument, inside jit
        h(x, r)          # and with a ref the outer function closes over
        return q[...]
    np.testing.assert_allclose(float(outer(1.5)), 3.0)
    np.testing.assert_allclose(float(tjit.grad(outer)(1.5)), 1.0)   # q = x + stop_grad(x)
    assert float(r[...]) == 6.0


def test_loop_rules_for_refs():
    r = tjit.new_ref(0.)

    def bad_cond(v):
        r[...] = v
        return v < 3.
    with pytest.raises(RefError, match="cond_fun wrote"):
        lax.while_loop(bad_cond, lambda v: v + 1., 0.)
    with pytest.raises(TypeError, match="cannot be an operand or carry"):
        lax.scan(lambda c, x: (c, x), r, jnp.arange(3.))
    # cond_fun may read a ref the body writes
    n = tjit.new_ref(0)

    def body(v):
        n[...] += 1
        return v * 2.
    out = lax.while_loop(lambda v: n[...] < 4, body, 1.)
    assert float(out) == 16.0 and int(n[...]) == 4


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_constructs_thread_a_ref_found_deep_inside(backend):
    hist = tjit.new_ref(jnp.zeros(2, jnp.int32))

    def run(xs):
        def body(c, x):
            def inner(i, u):
                lax.cond(x > 4, lambda: hist.addupdate(1, 1), lambda: hist.addupdate(0, 1))
                return u
            return lax.fori_loop(0, 2, inner, c), None
        return lax.scan(body, 0, xs)[0]
    xs = jnp.arange(10)
    run(xs)
    _jit(run, backend)(xs)
    # per call: 5 elements <= 4 and 5 above, each counted twice by the inner loop
    np.testing.assert_array_equal(np.asarray(hist[...]), [20, 20])
