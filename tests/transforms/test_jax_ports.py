"""JAX programs ported by changing imports only, in the style of JAX's documentation
(autodiff cookbook, vmap tutorial, custom derivatives, checkpointing, "training a simple
neural network").

Every program is checked against an independent oracle: a NumPy float64 implementation
with hand-derived gradients, central finite differences in float64, or a Python loop in
place of vmap. The module only uses JAX's public names through the aliases below.
"""

from collections import namedtuple
from functools import partial

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import lax, nn, random
from tests.transforms.check import check_grads

tree_map = jax.tree_util.tree_map
RTOL, ATOL = 2e-4, 2e-5  # float32 results vs float64 references


def f32(x):
    return np.asarray(x, np.float32)


def close(got, want, rtol=RTOL, atol=ATOL):
    got = np.asarray(got)
    got = got.astype(np.complex128 if np.iscomplexobj(got) else np.float64)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def tree_close(got, want, rtol=RTOL, atol=ATOL):
    g_leaves, g_tree = jax.tree_util.tree_flatten(got)
    w_leaves, w_tree = jax.tree_util.tree_flatten(want)
    assert g_tree == w_tree, f"structure {g_tree} != {w_tree}"
    for g, w in zip(g_leaves, w_leaves):
        assert np.shape(g) == np.shape(w), (np.shape(g), np.shape(w))
        close(g, w, rtol, atol)


# -- "Training a simple neural network": list of (W, b) tuples, SGD, softmax x-entropy ---
def _mlp_data(rng):
    x = rng.standard_normal((24, 4))
    y = rng.integers(0, 3, 24)
    params = [(rng.standard_normal((4, 8)) * 0.5, rng.standard_normal(8) * 0.1),
              (rng.standard_normal((8, 3)) * 0.5, rng.standard_normal(3) * 0.1)]
    return x, y, params


def _np_mlp_loss_and_grads(params, x, y):
    """float64 forward + hand-written backprop of the same network."""
    (w1, b1), (w2, b2) = params
    h = np.tanh(x @ w1 + b1)
    z = h @ w2 + b2
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    onehot = np.eye(3)[y]
    loss = -np.mean(np.sum(onehot * np.log(p), axis=1))
    dz = (p - onehot) / len(x)
    dh = dz @ w2.T * (1 - h ** 2)
    return loss, [(x.T @ dh, dh.sum(0)), (h.T @ dz, dz.sum(0))]


def predict(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(jnp.dot(x, w) + b)
    w, b = params[-1]
    return jnp.dot(x, w) + b


def xent_loss(params, x, y):
    logits = predict(params, x)
    return -jnp.mean(jnp.sum(nn.one_hot(y, 3) * nn.log_softmax(logits), axis=1))


def test_mlp_sgd_training_matches_numpy_backprop(rng):
    x, y, params = _mlp_data(rng)
    j_params = tree_map(lambda a: jnp.asarray(f32(a)), params)

    @jax.jit
    def update(params, x, y):
        loss, grads = jax.value_and_grad(xent_loss)(params, x, y)
        return [(w - 0.5 * dw, b - 0.5 * db) for (w, b), (dw, db) in zip(params, grads)], loss

    loss0, g0 = _np_mlp_loss_and_grads(params, x, y)
    l, g = jax.value_and_grad(xent_loss)(j_params, f32(x), y)
    assert isinstance(g, list) and isinstance(g[0], tuple)  # the params' structure
    close(l, loss0)
    tree_close(g, g0, atol=1e-5)
    np_params, losses = params, []
    for _ in range(15):
        j_params, loss = update(j_params, f32(x), y)
        np_loss, np_g = _np_mlp_loss_and_grads(np_params, x, y)
        np_params = [(w - 0.5 * dw, b - 0.5 * db) for (w, b), (dw, db) in zip(np_params, np_g)]
        close(loss, np_loss, rtol=1e-3)
        losses.append(float(loss))
    tree_close(j_params, np_params, rtol=2e-3, atol=2e-4)
    assert losses[-1] < 0.7 * losses[0]


# -- Adam on dict params with a namedtuple optimizer state -------------------------------
AdamState = namedtuple("AdamState", "count mu nu")


def adam_update(grads, state, params, lr=0.05, b1=0.9, b2=0.999, eps=1e-8):
    count = state.count + 1
    mu = tree_map(lambda m, g: b1 * m + (1 - b1) * g, state.mu, grads)
    nu = tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state.nu, grads)
    new = tree_map(lambda p, m, v: p - lr * (m / (1 - b1 ** count)) /
                   (jnp.sqrt(v / (1 - b2 ** count)) + eps), params, mu, nu)
    return new, AdamState(count, mu, nu)


def test_adam_namedtuple_state_linear_regression(rng):
    x = rng.standard_normal((32, 3))
    y = x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3 + 0.01 * rng.standard_normal((32, 1))

    def loss(params, x, y):
        return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)

    @jax.jit
    def step(params, state, x, y):
        grads = jax.grad(loss)(params, x, y)
        return adam_update(grads, state, params)

    params = {"w": jnp.zeros((3, 1)), "b": jnp.zeros(1)}
    state = AdamState(0, tree_map(jnp.zeros_like, params), tree_map(jnp.zeros_like, params))
    npp = {"w": np.zeros((3, 1)), "b": np.zeros(1)}
    m = {k: np.zeros_like(v) for k, v in npp.items()}
    v = {k: np.zeros_like(v) for k, v in npp.items()}
    for t in range(1, 41):
        params, state = step(params, state, f32(x), f32(y))
        r = x @ npp["w"] + npp["b"] - y  # hand-derived MSE gradient
        g = {"w": 2 * x.T @ r / len(x), "b": 2 * r.mean(0)}
        for k in npp:
            m[k] = 0.9 * m[k] + 0.1 * g[k]
            v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
            npp[k] = npp[k] - 0.05 * (m[k] / (1 - 0.9 ** t)) / (
                np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    assert isinstance(state, AdamState) and int(state.count) == 40
    tree_close(params, npp, rtol=1e-3, atol=1e-4)
    tree_close(state.mu, m, rtol=1e-2, atol=1e-4)


# -- per-example gradients (autodiff cookbook / vmap tutorial) ---------------------------
def logistic_loss(params, x, y):
    w, b = params
    z = jnp.dot(x, w) + b
    return -(y * nn.log_sigmoid(z) + (1 - y) * nn.log_sigmoid(-z))


def test_per_example_gradients_vmap_grad_in_axes_none(rng):
    x = rng.standard_normal((6, 3))
    y = (rng.random(6) > 0.5).astype(np.float64)
    w, b = rng.standard_normal(3), 0.3
    sig = 1 / (1 + np.exp(-(x @ w + b)))
    want_w, want_b = (sig - y)[:, None] * x, sig - y  # hand-derived per-example gradients
    params = (jnp.asarray(f32(w)), jnp.asarray(np.float32(b)))
    per_ex = jax.vmap(jax.grad(logistic_loss), in_axes=(None, 0, 0))
    for fn in (per_ex, jax.jit(per_ex)):
        gw, gb = fn(params, f32(x), f32(y))
        assert gw.shape == (6, 3) and gb.shape == (6,)
        close(gw, want_w)
        close(gb, want_b)
    # Python-loop oracle of the same thing
    loop = [jax.grad(logistic_loss)(params, f32(x[i]), f32(y[i])) for i in range(6)]
    close(gw, np.stack([np.asarray(g[0]) for g in loop]), rtol=1e-6, atol=1e-7)
    # the batch-mean gradient equals the mean of the per-example gradients
    mean_g = jax.grad(lambda p: jnp.mean(logistic_loss(p, f32(x), f32(y))))(params)
    close(mean_g[0], want_w.mean(0))


# -- Hessian-vector products (autodiff cookbook) ------------------------------------------
def test_hessian_vector_products_three_ways(rng):
    a = rng.standard_normal((4, 4))
    x, v = rng.standard_normal(4), rng.standard_normal(4)

    def f(x):
        return jnp.sum(jnp.sin(x) * x ** 2) + x @ f32(a) @ x

    hess = np.diag(2 * np.sin(x) + 4 * x * np.cos(x) - x ** 2 * np.sin(x)) + a + a.T
    want = hess @ v
    xj, vj = jnp.asarray(f32(x)), jnp.asarray(f32(v))

    def hvp_fwd_over_rev(f, x, v):
        return jax.jvp(jax.grad(f), (x,), (v,))[1]

    def hvp_rev_over_rev(f, x, v):
        return jax.grad(lambda x: jnp.vdot(jax.grad(f)(x), v))(x)

    def hvp_rev_over_fwd(f, x, v):
        return jax.grad(lambda x: jax.jvp(f, (x,), (v,))[1])(x)

    for hvp in (hvp_fwd_over_rev, hvp_rev_over_rev, hvp_rev_over_fwd):
        close(hvp(f, xj, vj), want, rtol=1e-4, atol=1e-4)
        close(jax.jit(hvp, static_argnums=0)(f, xj, vj), want, rtol=1e-4, atol=1e-4)
    close(jax.hessian(f)(xj), hess, rtol=1e-4, atol=1e-4)
    # batched HVPs: one per column of V
    vs = rng.standard_normal((3, 4))
    got = jax.vmap(partial(hvp_fwd_over_rev, f, xj))(jnp.asarray(f32(vs)))
    close(got, vs @ hess.T, rtol=1e-4, atol=1e-4)


# -- jacfwd / jacrev / hessian on pytrees ------------------------------------------------
def _g_tree(d, lib):
    x, y = d["x"], d["y"]
    return {"a": x * lib.sum(y), "b": (lib.sum(x ** 2), y @ x[:2])}


def _fd_jacobian_tree(f_np, d, eps=1e-6):
    """jac[out_key][in_key] of shape out.shape + in.shape by float64 central differences."""
    out_leaves, out_tree = jax.tree_util.tree_flatten(f_np(d))
    in_keys = sorted(d)
    blocks = [[np.zeros(np.shape(o) + d[k].shape) for k in in_keys] for o in out_leaves]
    for j, k in enumerate(in_keys):
        for idx in np.ndindex(d[k].shape):
            hi = {kk: vv.copy() for kk, vv in d.items()}
            lo = {kk: vv.copy() for kk, vv in d.items()}
            hi[k][idx] += eps
            lo[k][idx] -= eps
            diffs = [(np.asarray(h) - np.asarray(lo_)) / (2 * eps) for h, lo_ in zip(
                jax.tree_util.tree_leaves(f_np(hi)), jax.tree_util.tree_leaves(f_np(lo)))]
            for i, dd in enumerate(diffs):
                blocks[i][j][(Ellipsis,) + idx] = dd
    per_out = [dict(zip(in_keys, b)) for b in blocks]
    return jax.tree_util.tree_unflatten(out_tree, per_out)


def test_jacfwd_jacrev_pytree_in_and_out_structure(rng):
    d = {"x": rng.standard_normal(3), "y": rng.standard_normal((2, 2))}
    want = _fd_jacobian_tree(lambda d: _g_tree(d, np), d)
    shapes = {"a": {"x": (3, 3), "y": (3, 2, 2)},
              "b": ({"x": (3,), "y": (2, 2)}, {"x": (2, 3), "y": (2, 2, 2)})}
    dj = tree_map(lambda a: jnp.asarray(f32(a)), d)
    for jac in (jax.jacfwd, jax.jacrev):
        got = jac(lambda d: _g_tree(d, jnp))(dj)
        # JAX's nesting: output structure outside, input structure inside
        assert tree_map(lambda a: tuple(a.shape), got) == shapes
        tree_close(got, want, rtol=1e-4, atol=1e-4)
        got_jit = jax.jit(jac(lambda d: _g_tree(d, jnp)))(dj)
        tree_close(got_jit, want, rtol=1e-4, atol=1e-4)


def test_jacobians_namedtuple_and_list_inputs_with_argnums(rng):
    Params = namedtuple("Params", "w b")
    w, b, x = rng.standard_normal((2, 3)), rng.standard_normal(2), rng.standard_normal(3)

    def f(p, x):
        return jnp.tanh(p.w @ x + p.b)

    t = np.tanh(w @ x + b)
    dz = 1 - t ** 2
    want_w = dz[:, None, None] * np.eye(2)[:, :, None] * x[None, None, :]  # (2, 2, 3)
    want_b = np.diag(dz)
    want_x = dz[:, None] * w
    p = Params(jnp.asarray(f32(w)), jnp.asarray(f32(b)))
    for jac in (jax.jacfwd, jax.jacrev):
        jp, jx = jac(f, argnums=(0, 1))(p, f32(x))
        assert isinstance(jp, Params) and jp.w.shape == (2, 2, 3) and jp.b.shape == (2, 2)
        close(jp.w, want_w)
        close(jp.b, want_b)
        close(jx, want_x)
        jl = jac(lambda l: l[0] * l[1])([f32(x), f32(x[::-1])])
        assert isinstance(jl, list) and [a.shape for a in jl] == [(3, 3), (3, 3)]
        close(jl[0], np.diag(x[::-1]))


def test_hessian_of_pytree_input(rng):
    x, y = rng.standard_normal(3), rng.standard_normal((2, 2))

    def f(d):
        return jnp.sum(d["x"] ** 2) * jnp.sum(d["y"]) + jnp.sum(jnp.sin(d["x"]))

    h = jax.hessian(f)({"x": jnp.asarray(f32(x)), "y": jnp.asarray(f32(y))})
    assert tree_map(lambda a: tuple(a.shape), h) == {
        "x": {"x": (3, 3), "y": (3, 2, 2)}, "y": {"x": (2, 2, 3), "y": (2, 2, 2, 2)}}
    close(h["x"]["x"], 2 * y.sum() * np.eye(3) - np.diag(np.sin(x)))
    close(h["x"]["y"], np.broadcast_to((2 * x)[:, None, None], (3, 2, 2)))
    close(h["y"]["x"], np.broadcast_to(2 * x, (2, 2, 3)))
    close(h["y"]["y"], np.zeros((2, 2, 2, 2)))


# -- stop_gradient: the straight-through estimator ---------------------------------------
def test_straight_through_estimator(rng):
    x, t = rng.standard_normal(5) * 3, rng.standard_normal(5) * 3

    def quantize(v):
        return v + lax.stop_gradient(jnp.round(v) - v)  # forward: round, backward: identity

    def loss(w, x, t):
        return jnp.sum((quantize(w * x) - t) ** 2)

    w = 0.7
    got_v, got_g = jax.value_and_grad(loss)(w, f32(x), f32(t))
    q = np.round(np.float32(w) * f32(x)).astype(np.float64)
    close(got_v, np.sum((q - t) ** 2), rtol=1e-5)
    close(got_g, np.sum(2 * (q - t) * x), rtol=1e-4)
    # without the trick the gradient of round is zero everywhere
    assert float(jax.grad(lambda w: jnp.sum((jnp.round(w * f32(x)) - t) ** 2))(w)) == 0.0


# -- lax.scan RNN trained with grad (backprop through time) ------------------------------
def _np_rnn(p, xs, ys):
    """float64 loss and hand-written BPTT gradients of the scan RNN below."""
    hs = [np.zeros(p["W"].shape[0])]
    for x in xs:
        hs.append(np.tanh(p["W"] @ hs[-1] + p["U"] @ x + p["b"]))
    T = len(xs)
    loss = 0.5 * sum(np.sum((p["V"] @ h - y) ** 2) for h, y in zip(hs[1:], ys)) / T
    g = {k: np.zeros_like(v) for k, v in p.items()}
    dh_next = np.zeros_like(hs[0])
    for t in reversed(range(T)):
        h, h_prev = hs[t + 1], hs[t]
        dy = (p["V"] @ h - ys[t]) / T
        g["V"] += np.outer(dy, h)
        dz = (p["V"].T @ dy + dh_next) * (1 - h ** 2)
        g["W"] += np.outer(dz, h_prev)
        g["U"] += np.outer(dz, xs[t])
        g["b"] += dz
        dh_next = p["W"].T @ dz
    return loss, g


def rnn_loss(p, xs, ys):
    def cell(h, xy):
        x, y = xy
        h = jnp.tanh(p["W"] @ h + p["U"] @ x + p["b"])
        return h, 0.5 * jnp.sum((p["V"] @ h - y) ** 2)
    _, losses = lax.scan(cell, jnp.zeros(p["W"].shape[0]), (xs, ys))
    return jnp.mean(losses)


def test_scan_rnn_training_matches_numpy_bptt(rng):
    p = {"W": rng.standard_normal((4, 4)) * 0.4, "U": rng.standard_normal((4, 2)) * 0.5,
         "b": np.zeros(4), "V": rng.standard_normal((1, 4)) * 0.5}
    xs = rng.standard_normal((7, 2))
    ys = np.cumsum(xs[:, :1], axis=0) * 0.3
    jp = tree_map(lambda a: jnp.asarray(f32(a)), p)
    want_l, want_g = _np_rnn(p, xs, ys)
    l, g = jax.value_and_grad(rnn_loss)(jp, f32(xs), f32(ys))
    close(l, want_l, rtol=1e-4)
    tree_close(g, want_g, rtol=1e-3, atol=1e-5)
    step = jax.jit(lambda p, xs, ys: tree_map(lambda a, d: a - 0.3 * d, p,
                                              jax.grad(rnn_loss)(p, xs, ys)))
    for _ in range(10):
        jp = step(jp, f32(xs), f32(ys))
        p = {k: p[k] - 0.3 * v for k, v in _np_rnn(p, xs, ys)[1].items()}
    tree_close(jp, p, rtol=2e-3, atol=2e-4)
    assert float(rnn_loss(jp, f32(xs), f32(ys))) < want_l


# -- differentiating fori_loop-based iterative solvers -----------------------------------
def newton_sqrt(a):
    return lax.fori_loop(0, 8, lambda i, x: 0.5 * (x + a / x), a)


def test_fori_loop_newton_sqrt_derivatives():
    for d in (jax.grad, lambda f: jax.jit(jax.grad(f))):
        close(d(newton_sqrt)(2.0), 0.5 / np.sqrt(2.0), rtol=1e-5)
    close(jax.grad(jax.grad(newton_sqrt))(2.0), -0.25 * 2.0 ** -1.5, rtol=1e-4)
    close(jax.jvp(newton_sqrt, (3.0,), (2.0,))[1], 2 * 0.5 / np.sqrt(3.0), rtol=1e-5)
    close(jax.vmap(jax.grad(newton_sqrt))(jnp.array([1.0, 4.0, 9.0])),
          0.5 / np.sqrt([1.0, 4.0, 9.0]), rtol=1e-5)


def test_fori_loop_richardson_solver_implicit_gradient(rng):
    q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    a = q @ np.diag([1.0, 1.3, 1.6, 2.0]) @ q.T  # SPD, iteration contracts by 0.4
    b, c = rng.standard_normal(4), rng.standard_normal(4)

    def solve(a, b):
        return lax.fori_loop(0, 60, lambda i, x: x + 0.6 * (b - a @ x), jnp.zeros_like(b))

    def loss(a, b):
        return jnp.dot(f32(c), solve(a, b))

    x = np.linalg.solve(a, b)
    lam = np.linalg.solve(a.T, c)  # adjoint solve: d loss/db = A^-T c, d loss/dA = -lam x^T
    ga, gb = jax.jit(jax.grad(loss, argnums=(0, 1)))(f32(a), f32(b))
    close(solve(f32(a), f32(b)), x, rtol=1e-4, atol=1e-5)
    close(gb, lam, rtol=1e-4, atol=1e-5)
    close(ga, -np.outer(lam, x), rtol=1e-4, atol=1e-5)


# -- vmap: in_axes/out_axes pytrees, negative axes, nesting ------------------------------
def test_vmap_dict_in_axes_and_out_axes_negative(rng):
    w, scale, x = rng.standard_normal((3, 2)), rng.standard_normal(5), rng.standard_normal((3, 5))

    def f(params, col):
        y = params["scale"] * (col @ params["w"])
        return {"y": y, "n": jnp.sum(y ** 2)}

    out = jax.vmap(f, in_axes=({"w": None, "scale": 0}, -1), out_axes={"y": -1, "n": 0})(
        {"w": f32(w), "scale": f32(scale)}, f32(x))
    ys = np.stack([scale[i] * (x[:, i] @ w) for i in range(5)], axis=-1)
    assert out["y"].shape == (2, 5) and out["n"].shape == (5,)
    close(out["y"], ys)
    close(out["n"], np.sum(ys ** 2, axis=0))
    # negative in_axes on several arguments, out_axes=-2 on a rank-2 result
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2, 3))
    got = jax.vmap(lambda u, v: jnp.outer(u, v), in_axes=(-1, -1), out_axes=-2)(
        f32(a.T), f32(b[0]))
    want = np.stack([np.outer(a.T[:, i], b[0][:, i]) for i in range(3)], axis=-2)
    close(got, want)
    # keyword arguments are mapped over their leading axis (as in JAX)
    close(jax.vmap(lambda x, s: x * s, in_axes=(None,))(2.0, s=f32(scale)), 2 * scale)


def test_nested_vmap_over_matrices(rng):
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 4))

    def sqdist(u, v):
        return jnp.sum((u - v) ** 2)

    pair = jax.vmap(jax.vmap(sqdist, in_axes=(None, 0)), in_axes=(0, None))
    close(pair(f32(a), f32(b.T)), ((a[:, None, :] - b.T[None]) ** 2).sum(-1))
    matmul = jax.vmap(jax.vmap(jnp.dot, in_axes=(None, 1)), in_axes=(0, None))
    close(matmul(f32(a), f32(b)), a @ b, rtol=1e-5, atol=1e-5)
    # out_axes=1 on the inner map transposes the result
    mt = jax.vmap(jax.vmap(jnp.dot, in_axes=(None, 1), out_axes=0), in_axes=(0, None),
                  out_axes=1)
    close(mt(f32(a), f32(b)), (a @ b).T, rtol=1e-5, atol=1e-5)


def _loop(f, args, in_axes, wrap=jnp.asarray):
    """The vmap oracle: f on each slice in a Python loop, results stacked."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [f(*[wrap(a if ax is None else np.take(a, i, axis=ax))
                for a, ax in zip(args, in_axes)]) for i in range(size)]
    return np.stack([np.asarray(o) for o in outs])


@pytest.mark.parametrize("name,f,axes", [
    ("solve", jnp.linalg.solve, (0, 0)),
    ("solve_shared_a", jnp.linalg.solve, (None, 0)),
    ("solve_shared_b", jnp.linalg.solve, (0, None)),
    ("take", lambda x, i: jnp.take(x, i), (0, 0)),
    ("take_shared_x", lambda x, i: jnp.take(x, i), (None, 0)),
    ("at_add_dupes", lambda x, i: x.at[i].add(1.0), (0, 0)),
    ("at_add_shared_x", lambda x, i: x.at[i].add(1.0), (None, 0)),
    ("where", lambda x, y: jnp.where(x > 0, x, y), (0, None)),
    ("sort", lambda x, y: jnp.sort(x) + y, (1, None)),
])
def test_vmap_of_library_functions_matches_loop(name, f, axes, rng):
    mats = rng.standard_normal((4, 3, 3)) + 3 * np.eye(3)
    vecs = rng.standard_normal((4, 3))
    idx = np.array([[0, 0, 2], [1, 1, 1], [2, 0, 1], [1, 2, 2]])
    args = {"solve": (mats, vecs), "solve_shared_a": (mats[0], vecs),
            "solve_shared_b": (mats, vecs[0]), "take": (vecs, idx),
            "take_shared_x": (vecs[0], idx), "at_add_dupes": (vecs, idx),
            "at_add_shared_x": (vecs[0], idx), "where": (vecs, vecs[0]),
            "sort": (vecs.T, vecs[0])}[name]
    args = tuple(f32(a) if a.dtype == np.float64 else a for a in args)
    got = jax.vmap(f, in_axes=axes)(*[jnp.asarray(a) for a in args])
    close(got, _loop(f, args, axes), rtol=1e-5, atol=1e-6)
    np_f = {"solve": np.linalg.solve, "take": np.take, "sort": lambda x, y: np.sort(x) + y,
            "where": lambda x, y: np.where(x > 0, x, y)}
    if name in np_f:  # and against NumPy itself
        close(got, _loop(np_f[name], args, axes, np.asarray), rtol=1e-4, atol=1e-5)
    if name == "at_add_dupes":  # duplicate indices accumulate
        want = vecs.copy()
        for r in range(4):
            np.add.at(want[r], idx[r], 1.0)
        close(got, want, rtol=1e-5, atol=1e-6)


# -- grad through norms and softmax cross-entropy ----------------------------------------
def test_grad_through_linalg_norm(rng):
    x = rng.standard_normal((4, 3))
    close(jax.grad(jnp.linalg.norm)(f32(x)), x / np.linalg.norm(x))
    close(jax.grad(lambda m: jnp.sum(jnp.linalg.norm(m, axis=1)))(f32(x)),
          x / np.linalg.norm(x, axis=1, keepdims=True))
    # least squares residual norm: d/dw ||Aw - y|| = A^T r / ||r||
    a, y, w = rng.standard_normal((6, 3)), rng.standard_normal(6), rng.standard_normal(3)
    r = a @ w - y
    close(jax.grad(lambda w: jnp.linalg.norm(f32(a) @ w - f32(y)))(f32(w)),
          a.T @ r / np.linalg.norm(r))
    check_grads(lambda m: jnp.linalg.norm(m, ord=1, axis=0), (f32(x) + 0.1,), order=1)


def test_softmax_cross_entropy_gradient(rng):
    logits, labels = rng.standard_normal((5, 4)), rng.integers(0, 4, 5)

    def loss(z):
        return -jnp.mean(jnp.sum(nn.one_hot(labels, 4) * jnp.log(nn.softmax(z)), axis=-1))

    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    want = (p - np.eye(4)[labels]) / 5
    close(jax.grad(loss)(f32(logits)), want)
    close(jax.jit(jax.grad(loss))(f32(logits)), want)
    # and per-example via vmap
    per = jax.vmap(jax.grad(lambda z, y: -jnp.sum(nn.one_hot(y, 4) * nn.log_softmax(z))))
    close(per(f32(logits), labels), want * 5)


# -- random keys inside vmap -------------------------------------------------------------
def test_vmap_over_split_keys_gives_per_example_noise(rng):
    x = f32(rng.standard_normal((4, 3)))
    keys = random.split(random.PRNGKey(42), 4)

    def noisy(key, row):
        return row + 0.1 * random.normal(key, row.shape)

    got = np.asarray(jax.vmap(noisy)(keys, x))
    want = np.stack([np.asarray(noisy(keys[i], x[i])) for i in range(4)])
    close(got, want, rtol=1e-6, atol=1e-6)
    noise = got - x
    assert not np.allclose(noise[0], noise[1])  # different keys, different noise
    same = np.asarray(jax.vmap(noisy, in_axes=(None, 0))(keys[0], x)) - x
    close(same, np.broadcast_to(noise[0], (4, 3)), rtol=1e-5, atol=1e-6)
    # dropout-style masks drawn inside jit(vmap(...))
    masks = jax.jit(jax.vmap(lambda k: random.bernoulli(k, 0.5, (50,))))(keys)
    loop = np.stack([np.asarray(random.bernoulli(k, 0.5, (50,))) for k in keys])
    np.testing.assert_array_equal(np.asarray(masks), loop)


# -- transformation combos: jit(vmap(grad)), grad(jit(...)), ... -------------------------
def test_jit_vmap_grad_combinations_agree(rng):
    w, xs = rng.standard_normal(3), rng.standard_normal((5, 3))

    def f(w, x):
        return jnp.tanh(jnp.dot(x, w))

    want = (1 - np.tanh(xs @ w) ** 2)[:, None] * xs
    g = jax.grad(f)
    combos = {
        "vmap(grad)": jax.vmap(g, in_axes=(None, 0)),
        "jit(vmap(grad))": jax.jit(jax.vmap(g, in_axes=(None, 0))),
        "vmap(jit(grad))": jax.vmap(jax.jit(g), in_axes=(None, 0)),
        "vmap(grad(jit))": jax.vmap(jax.grad(jax.jit(f)), in_axes=(None, 0)),
        "jit(vmap(grad(jit)))": jax.jit(jax.vmap(jax.grad(jax.jit(f)), in_axes=(None, 0))),
    }
    for name, fn in combos.items():
        got = fn(f32(w), f32(xs))
        assert got.shape == (5, 3), name
        close(got, want)
    # grad of a jitted batched loss: sum over the batch
    total = jax.grad(jax.jit(lambda w: jnp.sum(jax.vmap(f, in_axes=(None, 0))(w, f32(xs)))))
    close(total(f32(w)), want.sum(0))


# -- lax.cond with branches closing over traced values, under grad -----------------------
def test_cond_branches_closing_over_traced_values_under_grad():
    def f(x, y):
        return lax.cond(x > 0, lambda: jnp.sin(y) * x, lambda: y * y * x)

    def want(x, y):
        return (np.sin(y), x * np.cos(y)) if x > 0 else (y * y, 2 * x * y)

    for x, y in [(1.5, 0.7), (-2.0, 0.7)]:
        for g in (jax.grad(f, argnums=(0, 1)), jax.jit(jax.grad(f, argnums=(0, 1)))):
            close(g(x, y), want(x, y), rtol=1e-5)
    xs = jnp.array([1.5, -2.0, 0.5])
    got = jax.jit(jax.vmap(jax.grad(f, argnums=1), in_axes=(0, None)))(xs, 0.7)
    close(got, [want(float(x), 0.7)[1] for x in xs], rtol=1e-5)
    check_grads(lambda y: lax.cond(y < 1.0, lambda: jnp.exp(y) * y, lambda: y ** 3), (0.3,))


# -- error behavior on dtypes ------------------------------------------------------------
def test_complex_inputs_and_holomorphic():
    z = 1.0 + 2.0j
    with pytest.raises(TypeError, match="grad requires real-valued outputs.*complex64.*"
                       "holomorphic=True"):
        jax.grad(lambda z: z ** 2)(z)
    close(jax.grad(lambda z: z ** 2, holomorphic=True)(z), 2 * z)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex"):
        jax.grad(lambda z: z ** 2, holomorphic=True)(1.0)
    with pytest.raises(TypeError, match="holomorphic=True requires outputs with complex"):
        jax.grad(lambda z: jnp.abs(z), holomorphic=True)(z)
    # a real function of a complex input: JAX returns the conjugate gradient, 2 conj(z)
    close(jax.grad(lambda z: jnp.real(z * jnp.conj(z)))(z), 2 * np.conj(z))
    zs = jnp.array([1.0 + 2.0j, -0.5j])
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs.*complex64"):
        jax.jacfwd(lambda z: z ** 2)(zs)
    with pytest.raises(TypeError, match="jacrev requires real-valued outputs.*complex64"):
        jax.jacrev(lambda z: z ** 2)(zs)
    for jac in (jax.jacfwd, jax.jacrev):
        close(jac(lambda z: z ** 2, holomorphic=True)(zs), np.diag(2 * np.asarray(zs)))


def test_integer_inputs_are_rejected_with_clear_errors():
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs.*int32"
                       ".*allow_int"):
        jax.grad(lambda n: n * 2.0)(3)
    with pytest.raises(TypeError, match="grad requires real- or complex-valued.*int32"):
        jax.grad(lambda p: jnp.sum(p["a"] * p["n"]))({"a": jnp.ones(2), "n": jnp.arange(2)})
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs.*int32"):
        jax.jacfwd(lambda n: n * 2.0)(jnp.arange(3))
    with pytest.raises(TypeError, match="grad requires real-valued outputs.*int32"):
        jax.grad(lambda x: jnp.round(x).astype(jnp.int32))(2.0)
    # integers as non-differentiated arguments are fine
    close(jax.grad(lambda x, n: x ** n)(2.0, 3), 12.0)


def test_value_and_grad_has_aux_returning_dict(rng):
    x, t = rng.standard_normal((6, 2)), rng.standard_normal(6)
    w = rng.standard_normal(2)

    def loss(w, x, t):
        pred = x @ w
        err = pred - t
        return jnp.mean(err ** 2), {"pred": pred, "mae": jnp.mean(jnp.abs(err)), "n": 6}

    for vg in (jax.value_and_grad(loss, has_aux=True),
               jax.jit(jax.value_and_grad(loss, has_aux=True))):
        (l, aux), g = vg(f32(w), f32(x), f32(t))
        err = x @ w - t
        close(l, np.mean(err ** 2))
        close(g, 2 * x.T @ err / 6)
        assert set(aux) == {"pred", "mae", "n"} and int(aux["n"]) == 6
        close(aux["pred"], x @ w)
        close(aux["mae"], np.mean(np.abs(err)))
    g2, aux2 = jax.grad(loss, has_aux=True)(f32(w), f32(x), f32(t))
    close(g2, 2 * x.T @ err / 6)
    assert aux2["n"] == 6  # non-array aux passes through untouched outside jit


# -- custom derivatives and checkpointing (JAX docs examples) -----------------------------
@jax.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return log1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * x_dot


@jax.custom_vjp
def clip_gradient(lo, hi, x):
    return x


clip_gradient.defvjp(lambda lo, hi, x: (x, (lo, hi)),
                     lambda res, g: (None, None, jnp.clip(g, res[0], res[1])))


def test_custom_derivative_doc_examples():
    xs = np.array([-3.0, 0.0, 2.0, 100.0])
    sig = 1 / (1 + np.exp(-xs))
    close(jax.jit(jax.vmap(jax.grad(log1pexp)))(f32(xs)), sig)  # finite at x=100
    s = 1 / (1 + np.exp(-0.5))
    close(jax.grad(jax.grad(log1pexp))(0.5), s * (1 - s), rtol=1e-5)  # sigmoid'
    t = np.linspace(0, 10, 7)
    got = jax.vmap(jax.grad(lambda x: jnp.sin(clip_gradient(-0.75, 0.75, x))))(f32(t))
    close(got, np.clip(np.cos(t), -0.75, 0.75), rtol=1e-5, atol=1e-6)


def test_checkpointed_mlp_gradient_matches_plain(rng):
    ws = [f32(rng.standard_normal((3, 3)) * 0.5) for _ in range(3)]
    x = f32(rng.standard_normal(3))

    def layer(w, x):
        return jnp.sin(jnp.dot(w, x))

    def net(ws, x, ck):
        for w in ws:
            x = (jax.checkpoint(layer) if ck else layer)(w, x)
        return jnp.sum(x)

    plain = jax.grad(net)(ws, x, False)
    for g in (jax.grad(net)(ws, x, True), jax.jit(jax.grad(net), static_argnums=2)(ws, x, True)):
        tree_close(g, plain, rtol=1e-5, atol=1e-6)
    check_grads(lambda w0: net([w0] + ws[1:], x, True), (ws[0],), order=2)


# -- regressions for bugs this audit found -------------------------------------------------
def test_regression_python_scalar_conversion_under_eager_grad():
    # JAX allows int()/bool() of a differentiated value when its primal is concrete, and
    # refuses float()/complex(): float(x) * x would differentiate as c * x (3.0, not 6.0)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="float.*no derivative"):
        jax.grad(lambda x: float(x) * x)(3.0)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="complex"):
        jax.jacfwd(lambda x: complex(x[0]).real * x)(jnp.ones(2))
    close(jax.grad(lambda x: float(jax.lax.stop_gradient(x)) * x)(3.0), 3.0)
    close(jax.grad(lambda x: int(x) * x)(3.5), 3.0)
    close(jax.grad(lambda x: jnp.sum(x[:int(x[0])]))(jnp.array([2.0, 3.0, 4.0])), [1, 1, 0])
    close(jax.grad(jax.grad(lambda x: x ** 3 if x > 0 else -x))(2.0), 12.0)

    def loss(x):
        return float(x) * x

    with pytest.raises(jax.errors.ConcretizationTypeError, match="float.*'loss'"):
        jax.jit(jax.grad(loss))(3.0)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="float"):
        jax.vmap(jax.grad(loss))(jnp.ones(2))


def test_regression_vmap_axes_validation_and_kwargs():
    x = jnp.ones((2, 3))
    with pytest.raises(ValueError, match=r"out_axes=2 is out of bounds for an output of rank 2"
                       r".*shape \(3,\).*\[-2, 1\]"):
        jax.vmap(lambda r: r, out_axes=2)(x)  # used to wrap around silently to axis 0
    with pytest.raises(ValueError, match="out_axes=-3 is out of bounds"):
        jax.vmap(lambda r: r, out_axes=-3)(x)
    with pytest.raises(ValueError, match=r"out_axes=1 is out of bounds.*shape \(\)"):
        jax.vmap(lambda r: 1.0, out_axes=1)(x)
    with pytest.raises(TypeError, match="in_axes must be an int, None, or .*got 1.0"):
        jax.vmap(lambda r: r, in_axes=(1.0,))(x)
    # keyword arguments are mapped over axis 0, positional ones follow in_axes
    got = jax.vmap(lambda a, b, scale: a * b + scale, in_axes=(1, None))(
        jnp.arange(6.0).reshape(2, 3), 2.0, scale=jnp.arange(3.0))
    close(got, np.arange(6.0).reshape(2, 3).T * 2 + np.arange(3.0)[:, None])


# -- nesting and shape polymorphism --------------------------------------------------------
def test_nested_differentiation_has_no_perturbation_confusion():
    # d/dx [x * d/dy (x + y)] = 1 (a confused implementation gives 2)
    close(jax.grad(lambda x: x * jax.grad(lambda y: x + y)(1.0))(1.0), 1.0)
    close(jax.jvp(lambda x: x * jax.jvp(lambda y: x + y, (1.0,), (1.0,))[1], (1.0,), (1.0,))[1],
          1.0)
    # x * d/dy (x y^2)|_{y=x} = 2 x^3, derivative 6 x^2, also under jit
    close(jax.jit(jax.grad(lambda x: x * jax.grad(lambda y: x * y * y)(x)))(2.0), 24.0)
    # grad over a vmap of inner grads that close over the outer variable
    got = jax.grad(lambda a: jnp.sum(jax.vmap(lambda x: jax.grad(
        lambda y: a * x * y ** 2)(3.0))(jnp.arange(3.0))))(2.0)
    close(got, 6.0 * 3.0)


def test_polymorphic_batch_jit_vmap_grad_and_hessian_of_loop():
    def loss(w, x, y):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    per_ex = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)),
                     polymorphic_shapes=[None, "(b, 3)", "(b,)"])
    rng = np.random.default_rng(1)
    w = rng.standard_normal(3)
    for n in (2, 5):
        x, y = rng.standard_normal((n, 3)), rng.standard_normal(n)
        t = np.tanh(x @ w)
        close(per_ex(f32(w), f32(x), f32(y)), (2 * (t - y) * (1 - t ** 2))[:, None] * x)
    check_grads(lambda x: lax.fori_loop(0, 3, lambda i, c: c * jnp.sum(x ** 2) + x[i], 1.0),
                (f32([0.3, -0.2, 0.5]),), order=2)


def test_linear_transpose_and_jacobian_alias(rng):
    a = rng.standard_normal((2, 3))
    ft = jax.linear_transpose(lambda x: f32(a) @ x, jnp.ones(3))
    got, = ft(jnp.asarray(f32([1.0, -2.0])))
    close(got, a.T @ [1.0, -2.0])
    # pytree in/out, a ShapeDtypeStruct standing for a primal, under jit
    def f(x, y):
        return {"s": x * 2.0 + y[:2], "c": jnp.cumsum(y)}

    ft = jax.linear_transpose(f, jax.ShapeDtypeStruct((2,), jnp.float32), jnp.ones(3))
    ct = {"s": jnp.asarray(f32([1.0, 2.0])), "c": jnp.asarray(f32([1.0, 0.0, 3.0]))}
    gx, gy = jax.jit(ft)(ct)
    close(gx, [2.0, 4.0])
    close(gy, np.array([1.0, 2.0, 0.0]) + np.cumsum([3.0, 0.0, 1.0])[::-1])
    _, vjp_fn = jax.vjp(f, jnp.ones(2), jnp.ones(3))
    tree_close(vjp_fn(ct), (gx, gy), rtol=1e-6, atol=1e-6)
    with pytest.raises(NotImplementedError, match="linear_transpose of sin.*linear"):
        jax.linear_transpose(jnp.sin, 1.0)(1.0)
    close(jax.jacobian(jnp.sin)(f32([0.5, 1.0])), np.diag(np.cos([0.5, 1.0])))
