"""Transformation rules of cond / switch / while_loop / fori_loop / scan / map: jvp and
vjp against float64 finite differences (check_grads), vmap against Python loops
(check_vmap), an RNN's gradient against hand-written NumPy backpropagation through time,
compositions (grad of grad, vmap of grad, jit of grad) and reverse mode's error for
while_loop."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives.control_flow import cond_p, scan_p, while_p
from tjit.tracing.jaxpr import check_jaxpr
from tests.transforms.check import check_grads, check_vmap

def _r(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _eqn_prims(closed):
    """Names of the primitives of a jaxpr's top-level equations."""
    return [e.primitive.name for e in closed.jaxpr.eqns]


# -- functions shared by the gradient and vmap tables -------------------------------------
def cond_both(x, y):
    return lax.cond(jnp.sum(x) > 0, lambda a, b: jnp.sin(a) * b, lambda a, b: a * a - b, x, y)


def cond_one_branch_uses_y(x, y):
    # y only reaches the output through the true branch
    return lax.cond(x[0] > 0, lambda a, b: a * b, lambda a, b: jnp.cos(a), x, y)


def cond_pytree(x, y):
    out = lax.cond(x[0] < 0, lambda d: {"s": d["a"] * 2.0, "t": (jnp.exp(d["b"]), d["a"])},
                   lambda d: {"s": jnp.tanh(d["a"]), "t": (d["b"] * d["a"][0], d["a"] * 3.0)},
                   {"a": x, "b": y})
    return out["s"], out["t"][0], out["t"][1]


def switch3(x, y):
    i = jnp.argmax(x).astype(jnp.int32) - 1  # -1 (clamped), 0 or 1
    return lax.switch(i, [lambda a, b: a * b, lambda a, b: jnp.sin(a + b), lambda a, b: a], x, y)


def cond_closure(x, y):
    # the branches close over y: it is hoisted into an operand
    return lax.cond(y[0] > 0, lambda a: a * y, lambda a: a + jnp.exp(y), x)


def fori_static(x, y):
    return lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * y + i.astype(jnp.float32) * 0.1, x)


def fori_two_carries(x, y):
    def body(i, c):
        a, b = c
        return a * 0.9 + jnp.tanh(b), b + a * y
    return lax.fori_loop(1, 3, body, (x, y))


def scan_carry_and_ys(x, y):
    def body(c, xi):
        c2 = jnp.tanh(c * xi + y)
        return c2, c2 * xi
    return lax.scan(body, y, x[:, None] * jnp.ones((1, y.shape[0])))


def scan_reverse(x, y):
    return lax.scan(lambda c, xi: (c * jnp.cos(xi) + y, jnp.sin(c) * xi), y,
                    jnp.stack([x, x * 2.0]), reverse=True)


def scan_no_xs(x, y):
    return lax.scan(lambda c, _: ((c[0] * y, c[1] + c[0]), c[0] * 2.0), (x, y), None,
                    length=3)


def scan_int_carry(x, y):
    # an integer carry (no tangent) beside a float one
    def body(c, xi):
        i, v = c
        return (i + 1, v * xi + i.astype(jnp.float32)), v
    return lax.scan(body, (jnp.int32(0), y), x[:, None] * jnp.ones((1, y.shape[0])))


def scan_const_only_in_carry(x, y):
    # y's tangent reaches the carry only from the second iteration on (fixed point)
    def body(c, _):
        a, b = c
        return (b, a * y), a
    return lax.scan(body, (x, jnp.zeros_like(x)), None, length=3)


def lax_map(x, y):
    return lax.map(lambda a: jnp.sin(a) * y[0] + a * a, x)


def cond_in_scan(x, y):
    def body(c, xi):
        c = lax.cond(xi > 0, lambda v: v * xi, lambda v: jnp.sin(v) + xi, c)
        return c, c * 2.0
    return lax.scan(body, y, x)


def scan_in_cond(x, y):
    return lax.cond(x[0] > 0, lambda a, b: lax.scan(lambda c, v: (c * v, c), b, a)[0] * 1.0,
                    lambda a, b: b * 2.0, x, y)


def nested_scan(x, y):
    def inner(c, v):
        return c * jnp.cos(v) + v, c
    def outer(c, row):
        c, ys = lax.scan(inner, c, row)
        return c, jnp.sum(ys)
    return lax.scan(outer, y[0], x.reshape(2, 2))


X = np.array([0.3, -0.8, 1.1, 0.5], np.float32)
Y = np.array([0.4, 0.9, -0.6, 1.2], np.float32)
GRAD_CASES = [
    (cond_both, (X, Y)), (cond_both, (-X, Y)),
    (cond_one_branch_uses_y, (X, Y)), (cond_one_branch_uses_y, (-X, Y)),
    (cond_pytree, (X, Y)), (cond_pytree, (-X, Y)),
    (switch3, (X, Y)), (switch3, (np.array([2., 0, 3, 0], np.float32), Y)),
    (switch3, (np.array([0., 2, 0, 3], np.float32), Y)),
    (cond_closure, (X, Y)), (cond_closure, (X, -Y)),
    (fori_static, (X, Y)), (fori_two_carries, (X, Y)),
    (scan_carry_and_ys, (X, Y)), (scan_reverse, (X, Y)), (scan_no_xs, (X, Y)),
    (scan_int_carry, (X, Y)), (scan_const_only_in_carry, (X, Y)), (lax_map, (X, Y)),
    (cond_in_scan, (X, np.float32(0.7))), (scan_in_cond, (X, np.float32(0.7))),
    (nested_scan, (X, Y)),
]


@pytest.mark.parametrize("f,args", GRAD_CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(GRAD_CASES)])
def test_jvp_and_vjp_vs_finite_differences(f, args):
    check_grads(f, args, order=1)


@pytest.mark.parametrize("f", [cond_both, scan_reverse, scan_no_xs, cond_in_scan])
def test_second_order_vs_finite_differences(f):
    args = (X, np.float32(0.7)) if f is cond_in_scan else (X, Y)
    check_grads(f, args, order=2, modes=("fwd", "rev"))


# -- cond ---------------------------------------------------------------------------------
def test_grad_of_cond_where_only_one_branch_uses_the_input():
    def f(x, y):
        return jnp.sum(cond_one_branch_uses_y(x, y))
    gx, gy = tjit.grad(f, argnums=(0, 1))(-X, Y)  # false branch: y unused
    np.testing.assert_allclose(np.asarray(gy), np.zeros(4), atol=0)
    np.testing.assert_allclose(np.asarray(gx), -np.sin(-X), rtol=1e-6)
    gx, gy = tjit.grad(f, argnums=(0, 1))(X, Y)
    np.testing.assert_allclose(np.asarray(gy), X, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gx), Y, rtol=1e-6)


def test_cond_jvp_keeps_output_tangent_types_and_zeros():
    # the false branch's output does not depend on the operand: its tangent is zero
    def f(x):
        return lax.cond(x > 0, lambda a: a * 3.0, lambda a: jnp.float32(1.0), x)
    _, t = tjit.jvp(f, (jnp.float32(2.0),), (jnp.float32(1.0),))
    assert float(t) == 3.0
    _, t = tjit.jvp(f, (jnp.float32(-2.0),), (jnp.float32(1.0),))
    assert float(t) == 0.0
    closed = tjit.make_jaxpr(lambda x, t: tjit.jvp(f, (x,), (t,)))(np.float32(1), np.float32(1))
    check_jaxpr(closed)
    assert "cond" in _eqn_prims(closed)


def test_cond_residuals_are_joined_across_branches():
    # branches keep different residuals (types f32[3] vs f32[] and f32[2,3])
    def f(x, m):
        return lax.cond(x[0] > 0, lambda a, b: jnp.sum(jnp.sin(a) * a),
                        lambda a, b: jnp.sum((b @ a) * jnp.cos(a[0])), x, m)
    m = _r(2, 3, seed=3)
    for x in (np.array([0.5, 1., 2.], np.float32), np.array([-0.5, 1., 2.], np.float32)):
        check_grads(f, (x, m))
        closed = tjit.make_jaxpr(tjit.grad(f))(x, m)
        check_jaxpr(closed)
        assert _eqn_prims(closed).count("cond") == 2  # forward (known) and transposed


def test_vmap_of_cond_with_batched_predicate_vs_loop():
    p = np.array([1., -1., 2., -3., 0.], np.float32)
    x = _r(5, 3, seed=1)
    f = lambda p, x: lax.cond(p > 0, lambda a: jnp.sin(a) * p, lambda a: a - 1.0, x)
    check_vmap(f, (p, x))
    check_vmap(f, (p, x[0]), in_axes=(0, None))
    check_vmap(f, (p, x.T), in_axes=(0, 1))
    closed = tjit.make_jaxpr(tjit.vmap(f))(p, x)
    assert "cond" not in _eqn_prims(closed) and "select_n" in _eqn_prims(closed)


def test_vmap_of_cond_with_unbatched_predicate_keeps_cond():
    x = _r(5, 3, seed=1)
    f = lambda p, x: lax.cond(p > 0, lambda a: jnp.sin(a), lambda a: jnp.float32(2.0) + 0 * a, x)
    for p in (np.float32(1), np.float32(-1)):
        check_vmap(f, (p, x), in_axes=(None, 0))
        check_vmap(f, (p, x), in_axes=(None, 1))
    closed = tjit.make_jaxpr(tjit.vmap(f, in_axes=(None, 0)))(np.float32(1), x)
    assert "cond" in _eqn_prims(closed)
    # only one branch produces a batched output: the other's is broadcast
    g = lambda p, x: lax.cond(p > 0, lambda a: a * 2.0, lambda a: jnp.ones(3), x)
    check_vmap(g, (np.float32(-1), x), in_axes=(None, 0))


def test_vmap_of_switch_with_batched_index_clamps_like_switch():
    i = np.array([0, 1, 2, 7, -4], np.int32)
    x = _r(5, 2, seed=2)
    f = lambda i, x: lax.switch(i, [lambda a: a * 2.0, jnp.sin, lambda a: -a], x)
    check_vmap(f, (i, x))
    check_vmap(f, (i, x[0]), in_axes=(0, None))


def test_vmap_of_grad_through_cond_vs_loop():
    x = _r(6, 3, seed=4)
    f = lambda x: jnp.sum(lax.cond(x[0] > 0, lambda a: jnp.sin(a) * a, jnp.exp, x))
    check_vmap(tjit.grad(f), (x,), rtol=1e-5)
    check_vmap(tjit.grad(f), (x.T,), in_axes=1, rtol=1e-5)


def test_nested_vmap_of_cond():
    p = np.array([[1., -1.], [-2., 3.], [0.5, -0.5]], np.float32)
    x = _r(3, 2, 4, seed=5)
    f = lambda p, x: lax.cond(p > 0, jnp.sin, jnp.cos, x)
    got = tjit.vmap(tjit.vmap(f))(p, x)
    want = np.where(p[..., None] > 0, np.sin(x), np.cos(x))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


# -- while / fori -------------------------------------------------------------------------
def while_pow(x, y):
    def body(c):
        i, v = c
        return i + 1, v * y + jnp.sin(v)
    return lax.while_loop(lambda c: c[0] < 3, body, (0, x))[1]


def test_while_jvp_vs_finite_differences():
    check_grads(while_pow, (X, Y), modes=("fwd",))
    # the predicate depends on the carry being differentiated
    f = lambda x: lax.while_loop(lambda v: jnp.sum(v) < 5.0, lambda v: v * 1.5 + 0.1, x)
    check_grads(f, (np.array([0.3, 0.2], np.float32),), modes=("fwd",))


def test_while_jvp_fixed_point_over_carry_tangents():
    # the tangent of x reaches carry b only through carry a
    def f(x):
        def body(c):
            i, a, b = c
            return i + 1, a * 2.0 + x, b + a
        return lax.while_loop(lambda c: c[0] < 3, body, (0, jnp.float32(0.0),
                                                          jnp.float32(0.0)))[2]
    _, t = tjit.jvp(f, (jnp.float32(1.0),), (jnp.float32(1.0),))
    assert float(t) == 4.0  # b = a0 + a1 + a2 with a = 0, x, 3x


def test_linearize_through_while_and_reverse_mode():
    y, f_jvp = tjit.linearize(lambda x: while_pow(x, Y), X)
    np.testing.assert_allclose(np.asarray(y), np.asarray(while_pow(X, Y)), rtol=1e-6)
    _, want = tjit.jvp(lambda x: while_pow(x, Y), (X,), (np.ones(4, np.float32),))
    np.testing.assert_allclose(np.asarray(f_jvp(np.ones(4, np.float32))), np.asarray(want),
                               rtol=1e-6)
    # reverse mode (which JAX refuses) against finite differences
    check_grads(lambda x, y: jnp.sum(while_pow(x, y)), (X, Y), modes=("rev",))


def test_fori_loop_with_traced_bounds_in_reverse_mode():
    def f(x, n):
        return lax.fori_loop(0, n, lambda i, c: c * x, x)
    np.testing.assert_allclose(float(tjit.jit(tjit.grad(f))(np.float32(1.1), 3)),
                               4 * 1.1 ** 3, rtol=1e-6)
    # static bounds lower to scan: reverse mode works, even under jit
    g = tjit.jit(tjit.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, x)))
    np.testing.assert_allclose(float(g(np.float32(1.1))), 4 * 1.1 ** 3, rtol=1e-6)


def test_grad_of_while_with_unknowns_not_reaching_the_carry():
    # y is read by the body but never reaches the carry: no error, the loop runs as known
    def f(x, y):
        def body(v):
            unused = y * 2.0  # noqa: F841  (traced, so the loop takes y as an operand)
            return v * 2.0
        return jnp.sum(lax.while_loop(lambda v: jnp.sum(v) < 10.0, body, x)) + jnp.sum(y * y)
    ones = np.ones(4, np.float32)
    np.testing.assert_allclose(np.asarray(tjit.grad(f, argnums=1)(ones, Y)), 2 * Y, rtol=1e-6)
    closed = tjit.make_jaxpr(tjit.grad(f, argnums=1))(ones, Y)
    check_jaxpr(closed)
    # x reaches the carry: two trips (sum 4 -> 8 -> 16) double it twice
    np.testing.assert_allclose(np.asarray(tjit.grad(f)(ones, Y)), 4 * ones, rtol=1e-6)


def test_vmap_of_while_with_batched_predicate_vs_loop():
    n = np.array([0, 3, 1, 6, 2], np.int32)
    x = _r(5, seed=6)

    def f(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5 + 1.0),
                              (0, x))
    got = check_vmap(f, (n, x))
    np.testing.assert_array_equal(np.asarray(got[0]), n)  # different trip counts
    check_vmap(f, (n, x[0]), in_axes=(0, None))
    closed = tjit.make_jaxpr(tjit.vmap(f))(n, x)
    check_jaxpr(closed)
    assert "while" in _eqn_prims(closed)


def test_vmap_of_while_with_batched_predicate_from_the_carry():
    x = np.array([0.1, 3.0, 0.7, 9.0], np.float32)
    f = lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0 + 0.5, x)
    check_vmap(f, (x,))
    g = lambda x: lax.fori_loop(0, (x * 3).astype(jnp.int32), lambda i, c: c + i, jnp.int32(0))
    check_vmap(g, (np.array([0.5, 2.0, 1.0, 3.2], np.float32),))


def test_vmap_of_while_with_unbatched_predicate():
    x = _r(4, 3, seed=7)
    f = lambda x: lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, jnp.sin(c[1])),
                                 (0, x))
    check_vmap(f, (x,), out_axes=0)
    check_vmap(f, (x,), in_axes=1)
    # a batched body const makes an unbatched carry batched (fixed point)
    g = lambda w: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * w + 1.0),
                                 (0, jnp.zeros(3)))
    check_vmap(g, (x,))


def test_vmap_of_jvp_of_while_and_fori():
    x = _r(4, 3, seed=8)
    f = lambda x: tjit.jvp(lambda v: while_pow(v, Y[:3]), (x,), (jnp.ones_like(x),))
    check_vmap(f, (x,), rtol=1e-5)
    g = lambda x: tjit.grad(lambda v: jnp.sum(fori_static(v, Y[:3])))(x)
    check_vmap(g, (x,), rtol=1e-5)


# -- scan -----------------------------------------------------------------------------------
def _rnn_params(seed, h, d, dtype):
    rng = np.random.default_rng(seed)
    return {"W": (rng.standard_normal((h, h)) * 0.5).astype(dtype),
            "U": (rng.standard_normal((h, d)) * 0.5).astype(dtype),
            "b": (rng.standard_normal(h) * 0.1).astype(dtype)}


def _rnn_loss(params, h0, xs, all_hs):
    def cell(h, x):
        h = jnp.tanh(params["W"] @ h + params["U"] @ x + params["b"])
        return h, h
    h, hs = lax.scan(cell, h0, xs)
    return jnp.sum(hs) if all_hs else jnp.sum(h)


def _numpy_bptt(params, h0, xs, all_hs):
    """Gradients of the tanh RNN's loss by hand-written backpropagation through time."""
    W, U, b = params["W"], params["U"], params["b"]
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + U @ x + b))
    g = {k: np.zeros_like(v) for k, v in params.items()}
    dh_next = np.zeros_like(h0)
    for t in range(len(xs), 0, -1):
        dh = dh_next + (1.0 if (all_hs or t == len(xs)) else 0.0)
        da = dh * (1 - hs[t] ** 2)
        g["W"] += np.outer(da, hs[t - 1])
        g["U"] += np.outer(da, xs[t - 1])
        g["b"] += da
        dh_next = W.T @ da
    return g, dh_next


@pytest.mark.parametrize("all_hs", [False, True])
def test_grad_through_rnn_scan_vs_numpy_bptt(x64, all_hs):
    params = _rnn_params(0, 5, 3, np.float64)
    h0 = np.random.default_rng(1).standard_normal(5)
    xs = np.random.default_rng(2).standard_normal((7, 3))
    g, gh0 = tjit.grad(_rnn_loss, argnums=(0, 1))(params, h0, xs, all_hs)
    want, want_h0 = _numpy_bptt(params, h0, xs, all_hs)
    for k in params:
        assert np.asarray(g[k]).dtype == np.float64
        np.testing.assert_allclose(np.asarray(g[k]), want[k], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(gh0), want_h0, rtol=1e-12, atol=1e-12)


def test_rnn_grad_stores_weights_once_not_per_step():
    # loop-invariant residuals (the weights) are consts of the backward scan, not stacked
    params = _rnn_params(0, 4, 2, np.float32)
    xs = _r(6, 2, seed=3)
    loss = lambda p, h0: _rnn_loss(p, h0, xs, False)
    closed = tjit.make_jaxpr(tjit.grad(loss))(params, np.zeros(4, np.float32))
    check_jaxpr(closed)
    scans = [e for e in closed.jaxpr.eqns if e.primitive is scan_p]
    assert len(scans) == 2 and scans[1].params["reverse"]
    fwd_ys = scans[0].outvars[scans[0].params["num_carry"]:]
    assert all(v.aval.shape != (6, 4, 4) for v in fwd_ys)


def test_jit_of_grad_of_scan_is_one_jaxpr_equal_to_eager():
    params = _rnn_params(1, 4, 2, np.float32)
    h0, xs = _r(4, seed=4), _r(5, 2, seed=5)
    loss = lambda p, h0: _rnn_loss(p, h0, xs, True)
    eager = tjit.grad(loss, argnums=(0, 1))(params, h0)
    jitted = tjit.jit(tjit.grad(loss, argnums=(0, 1)))(params, h0)
    for a, b in zip(tjit.tree_leaves(eager), tjit.tree_leaves(jitted)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-5, atol=1e-6)
    closed = tjit.make_jaxpr(tjit.grad(loss, argnums=(0, 1)))(params, h0)
    check_jaxpr(closed)
    prims = _eqn_prims(closed)
    assert prims.count("scan") == 2  # forward and backward passes in the one program


def test_grad_of_grad_through_scan():
    # f(a) = a^8 by repeated squaring in a scan: f'' = 56 a^6
    f = lambda a: lax.scan(lambda c, _: (c * c, c), a, None, length=3)[0]
    a = jnp.float32(0.9)
    np.testing.assert_allclose(float(tjit.grad(f)(a)), 8 * 0.9 ** 7, rtol=1e-5)
    np.testing.assert_allclose(float(tjit.grad(tjit.grad(f))(a)), 56 * 0.9 ** 6, rtol=1e-5)
    g = lambda w: jnp.sum(lax.scan(lambda c, x: (jnp.sin(c * w + x), c), 0.5, X)[1])
    check_grads(g, (np.float32(0.8),), order=2)
    h = tjit.hessian(lambda w: jnp.sum(lax.scan(lambda c, x: (c * jnp.tanh(w * x), c), jnp.ones(4),
                                                X)[0]))
    np.testing.assert_allclose(np.asarray(h(Y)), np.asarray(tjit.jacfwd(tjit.jacrev(
        lambda w: jnp.sum(lax.scan(lambda c, x: (c * jnp.tanh(w * x), c), jnp.ones(4), X)[0])))(Y)),
        rtol=1e-4, atol=1e-5)


def test_vmap_of_scan_vs_loop():
    w, xs = _r(3, 4, seed=9), _r(5, 3, 4, seed=10)

    def f(w, xs):
        return lax.scan(lambda c, x: (jnp.tanh(c * w + x), c * x), jnp.zeros(4), xs)
    check_vmap(f, (w, xs[:, 0]), in_axes=(0, None))  # only a const batched: carry follows
    check_vmap(f, (w[0], xs), in_axes=(None, 1))  # xs batched along its second axis
    check_vmap(f, (w, xs), in_axes=(0, 1))
    check_vmap(f, (w.T, np.moveaxis(xs, 1, 2)), in_axes=(1, 2), out_axes=1)
    # batched init carry only
    g = lambda c0: lax.scan(lambda c, x: (c * x, c + x), c0, xs[:, 0, :2])
    check_vmap(g, (_r(6, 2, seed=11),))
    check_vmap(lambda x: lax.map(lambda a: jnp.sin(a) * a, x), (_r(2, 3, 4, seed=12),))


def test_nested_vmap_and_vmap_of_grad_through_scan():
    xs = _r(2, 3, 5, seed=13)
    f = lambda x: jnp.sum(lax.scan(lambda c, v: (jnp.sin(c) * v, c * v), 0.3, x)[1])
    got = tjit.vmap(tjit.vmap(f))(xs)
    want = np.array([[float(f(xs[i, j])) for j in range(3)] for i in range(2)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    check_vmap(tjit.grad(f), (xs[0],), rtol=1e-5)
    check_vmap(tjit.grad(f), (xs[0],), in_axes=1, rtol=1e-5)


def test_grad_of_vmap_of_scan_and_cond():
    xs = _r(4, 5, seed=14)
    f = lambda x: jnp.sum(tjit.vmap(lambda r: cond_in_scan(r, r[0] * 0 + 0.3)[1])(x))
    check_grads(f, (xs,))


def test_scan_jvp_only_differentiates_what_is_perturbed():
    # tangents only for the carry: the const's tangent stays symbolic zero
    def f(c0):
        return lax.scan(lambda c, x: (c * x, c), c0, X)
    closed = tjit.make_jaxpr(lambda c, t: tjit.jvp(f, (c,), (t,)))(np.float32(1),
                                                                    np.float32(1))
    check_jaxpr(closed)
    (scan,) = [e for e in closed.jaxpr.eqns if e.primitive is scan_p]
    assert scan.params["num_carry"] == 2 and scan.params["num_consts"] == 0


def test_polymorphic_shapes_through_the_rules():
    f = lambda x: jnp.sum(lax.scan(lambda c, v: (c * jnp.cos(v), c), 1.0, x)[1])
    closed = tjit.make_jaxpr(tjit.grad(f), polymorphic_shapes=["(n,)"])(X)
    check_jaxpr(closed)
    assert "n" in str(closed)
    closed = tjit.make_jaxpr(tjit.vmap(f), polymorphic_shapes=["(b, 4)"])(np.stack([X, Y]))
    check_jaxpr(closed)
    g = lambda n, x: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0),
                                    (0, x))
    closed = tjit.make_jaxpr(tjit.vmap(g), polymorphic_shapes=["(b,)", "(b, 3)"])(
        np.ones(2, np.int32), np.ones((2, 3), np.float32))
    check_jaxpr(closed)
    h = lambda x: jnp.sum(lax.cond(x[0] > 0, lambda v: jnp.sin(v) * v, jnp.exp, x))
    closed = tjit.make_jaxpr(tjit.vmap(tjit.grad(h)), polymorphic_shapes=["(b, n)"])(
        np.ones((2, 3), np.float32))
    check_jaxpr(closed)


def test_rules_are_registered_on_the_primitives():
    for p in (cond_p, while_p, scan_p):
        assert p.jvp is not None and p.batch is not None and p.partial_eval is not None
        assert p.transpose is not None


def test_scan_grad_hoists_loop_invariant_residuals():
    # cos(w) and sin(w) are computed once before the loop; only the carry is stacked,
    # and it is not stacked twice (the y that equals it is reused as the residual)
    f = lambda w, xs: jnp.sum(lax.scan(lambda c, x: (c * jnp.sin(w) + x, c), jnp.zeros(3),
                                       xs)[1])
    w, xs = _r(3, seed=15), _r(5, 3, seed=16)
    check_grads(f, (w, xs))
    closed = tjit.make_jaxpr(tjit.grad(f))(w, xs)
    check_jaxpr(closed)
    prims = _eqn_prims(closed)
    assert "cos" in prims and "sin" in prims  # hoisted out of the loop
    fwd = next(e for e in closed.jaxpr.eqns if e.primitive is scan_p)
    assert len(fwd.outvars) == 2  # final carry and ys: no per-step copies of anything else


def test_reverse_mode_through_while_nested_in_scan_or_cond():
    def f(x):
        body = lambda c, _: (lax.while_loop(lambda v: v < 5.0, lambda v: v * x, c), c)
        return lax.scan(body, 1.0, None, length=2)[0]
    fd = float((f(1.5 + 1e-3) - f(1.5 - 1e-3)) / 2e-3)
    np.testing.assert_allclose(float(tjit.grad(f)(jnp.float32(1.5))), fd, rtol=1e-2)
    np.testing.assert_allclose(float(tjit.jvp(f, (1.5,), (1.0,))[1]), fd, rtol=1e-2)
    g = lambda x: lax.cond(x > 0, lambda v: lax.while_loop(lambda u: u < 5.0,
                                                           lambda u: u * v, v), jnp.sin, x)
    # every branch is transposed when the program is built (as in JAX), whichever runs
    for x in (1.5, -1.5):
        want = float((g(x + 1e-3) - g(x - 1e-3)) / 2e-3)
        np.testing.assert_allclose(float(tjit.grad(g)(jnp.float32(x))), want, rtol=1e-2)


def test_linearize_of_scan_matches_jvp():
    f = lambda x: scan_carry_and_ys(x, Y)
    y, f_jvp = tjit.linearize(f, X)
    t = _r(4, seed=17)
    _, want = tjit.jvp(f, (X,), (t,))
    for a, b in zip(tjit.tree_leaves(f_jvp(t)), tjit.tree_leaves(want)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)


def test_vmap_of_cond_inside_scan_and_jit_of_vmapped_while():
    x = _r(3, 4, seed=18)
    f = lambda x: cond_in_scan(x, x[0] * 0 + 0.5)  # the predicate is batched inside the body
    check_vmap(f, (x,), rtol=1e-5)
    n = np.array([2, 0, 5], np.int32)
    g = lambda n, v: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, jnp.sin(c[1])),
                                    (0, v))
    eager = tjit.vmap(g)(n, x)
    jitted = tjit.jit(tjit.vmap(g))(n, x)
    for a, b in zip(tjit.tree_leaves(eager), tjit.tree_leaves(jitted)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-6)
    check_vmap(g, (n, x))
