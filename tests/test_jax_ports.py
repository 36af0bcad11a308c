"""Small faithful ports of JAX tutorial programs (the docs' external-callbacks, gradient
checkpointing, custom pytrees, jit, custom derivative rules and jax.custom_batching
pages) that did not run, or showed something else, when ported by changing imports.
Each keeps the tutorial's code and checks its values against NumPy in float64 or
finite differences."""

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import tree_util
from tjit.ad_checkpoint import print_saved_residuals
from tjit.custom_batching import custom_vmap, sequential_vmap


def _fd(f, x, h=1e-4):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_external_callbacks_pure_callback_with_shape_dtype_struct_like():
    # docs/external-callbacks.md: the result shape comes from ShapeDtypeStruct.like
    def f_host(x):
        return np.sin(x).astype(x.dtype)

    def f(x):
        result_shape = jax.ShapeDtypeStruct.like(x)
        return jax.pure_callback(f_host, result_shape, x, vmap_method="sequential")

    x = jnp.arange(5.0)
    want = np.sin(np.arange(5.0))
    np.testing.assert_allclose(f(x), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(f)(x), want, rtol=1e-6)

    def body_fun(_, x):
        return _, f(x)
    np.testing.assert_allclose(jax.lax.scan(body_fun, None, jnp.arange(5.0))[1], want,
                               rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(f)(x), want, rtol=1e-6)
    like = jax.ShapeDtypeStruct.like(3.0)
    assert (like.shape, like.dtype, like.weak_type) == ((), np.float32, True)


def test_gradient_checkpointing_print_saved_residuals(capsys):
    # docs/gradient-checkpointing.md: the cell ends in print_saved_residuals (None)
    def g(W, x):
        return jnp.sin(jnp.dot(W, x))

    def f2(W1, W2, W3, x):
        x = jax.checkpoint(g)(W1, x)
        x = jax.checkpoint(g)(W2, x)
        return jax.checkpoint(g)(W3, x)

    rng = np.random.default_rng(0)
    W1, W2, W3 = (rng.standard_normal(s).astype(np.float32) for s in [(5, 4), (6, 5),
                                                                         (7, 6)])
    x = rng.standard_normal(4).astype(np.float32)
    assert print_saved_residuals(f2, W1, W2, W3, x) is None
    lines = capsys.readouterr().out.splitlines()
    # the saved arguments come first, in argument order (as JAX lists them)
    args = [ln for ln in lines if "from the argument" in ln]
    assert [a.split()[-1] for a in args] == ["W1", "W2", "W3", "x"]
    assert lines.index(args[-1]) == len(args) - 1
    # and the checkpointed gradient is the function's (finite differences in float64)
    W1d, W2d, W3d, xd = (a.astype(np.float64) for a in (W1, W2, W3, x))

    def ref(x0):
        return np.sum(np.sin(W3d @ np.sin(W2d @ np.sin(W1d @ x0))))
    grad = jax.grad(lambda x: jnp.sum(f2(W1, W2, W3, x)))(x)
    fd = [_fd(lambda t, i=i: ref(xd + t * np.eye(4)[i]), 0.0) for i in range(4)]
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-4)


def test_custom_pytrees_register_pytree_node_returns_none():
    # docs/custom_pytrees.md and the jit page: a cell ending in register_pytree_node
    class Special:
        def __init__(self, x, y):
            self.x, self.y = x, y

    assert tree_util.register_pytree_node(
        Special, lambda v: ((v.x, v.y), None), lambda _, c: Special(*c)) is None
    out = jax.tree.map(lambda v: v + 1, [Special(0, 1), Special(2, 4)])
    assert [(s.x, s.y) for s in out] == [(1, 2), (3, 5)]

    class CustomClass:
        def __init__(self, x, mul):
            self.x, self.mul = x, mul

        @jax.jit
        def calc(self, y):
            return self.x * y if self.mul else y

    assert tree_util.register_pytree_node(
        CustomClass, lambda c: ((c.x,), {"mul": c.mul}),
        lambda aux, ch: CustomClass(*ch, **aux)) is None
    np.testing.assert_allclose(CustomClass(2.0, True).calc(3.0), 6.0)
    np.testing.assert_allclose(CustomClass(2.0, False).calc(3.0), 3.0)


def test_custom_jvp_defjvps_returns_none_and_gives_the_rule():
    # docs/notebooks/Custom_derivative_rules_for_Python_code.md
    @jax.custom_jvp
    def log1pexp(x):
        return jnp.log(1. + jnp.exp(x))

    assert log1pexp.defjvps(lambda t, ans, x: (1 - 1 / (1 + jnp.exp(x))) * t) is None
    # the point of the rule: finite at 100. (the plain derivative is nan there)
    np.testing.assert_allclose(jax.grad(log1pexp)(100.), 1.0)
    np.testing.assert_allclose(jax.grad(log1pexp)(3.), 1 / (1 + np.exp(-3.0)), rtol=1e-6)

    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    assert f.defjvps(lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
                     lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot) is None
    gx, gy = jax.grad(f, (0, 1))(2., 3.)
    np.testing.assert_allclose([gx, gy], [np.cos(2.) * 3., np.sin(2.)], rtol=1e-6)


def test_custom_batching_docstring_programs():
    # jax.custom_batching.custom_vmap's docstring: vmap prints xs * ys, not xs + ys
    @custom_vmap
    def f(x, y):
        return x + y

    @f.def_vmap
    def f_vmap_rule(axis_size, in_batched, xs, ys):
        assert all(in_batched)
        assert xs.shape[0] == axis_size and ys.shape[0] == axis_size
        return xs * ys, True

    xs, ys = jnp.arange(3), jnp.arange(1, 4)
    out = jax.vmap(f)(xs, ys)
    np.testing.assert_array_equal(out, np.arange(3) * np.arange(1, 4))
    assert out.dtype == np.int32

    # sequential_vmap's docstring: the function runs once per element (debug.print)
    seen = []

    @sequential_vmap
    def g(x):
        jax.debug.callback(lambda v: seen.append(int(v)), x)
        return x + 1
    np.testing.assert_array_equal(jax.vmap(g)(jnp.arange(3)), [1, 2, 3])
    assert seen == [0, 1, 2]


def test_writing_custom_interpreters_notebook():
    # docs/notebooks/Writing_custom_interpreters_in_Jax.md: an interpreter over the
    # jaxpr (tjit.extend.core's types, ClosedJaxpr.literals, lax.exp_p...) inverting f
    from functools import wraps

    from tjit import lax
    from tjit.extend import core

    def f(x):
        return jnp.exp(jnp.tanh(x))

    def eval_jaxpr(jaxpr, consts, *args):
        env = {}

        def read(var):
            return var.val if type(var) is core.Literal else env[var]
        for v, a in zip(jaxpr.invars, args):
            env[v] = a
        for v, c in zip(jaxpr.constvars, consts):
            env[v] = c
        for eqn in jaxpr.eqns:
            outvals = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            if not eqn.primitive.multiple_results:
                outvals = [outvals]
            for v, o in zip(eqn.outvars, outvals):
                env[v] = o
        return [read(v) for v in jaxpr.outvars]

    closed_jaxpr = jax.make_jaxpr(f)(jnp.ones(5))
    (out,) = eval_jaxpr(closed_jaxpr.jaxpr, closed_jaxpr.literals, jnp.ones(5))
    np.testing.assert_allclose(out, np.exp(np.tanh(np.ones(5))), rtol=1e-6)
    np.testing.assert_allclose(core.jaxpr_as_fun(closed_jaxpr)(jnp.ones(5))[0], out)

    inverse_registry = {lax.exp_p: jnp.log, lax.tanh_p: jnp.arctanh}

    def inverse_jaxpr(jaxpr, consts, *args):
        env = {}

        def read(var):
            return var.val if type(var) is core.Literal else env[var]
        for v, a in zip(jaxpr.outvars, args):
            env[v] = a
        for eqn in jaxpr.eqns[::-1]:
            invals = [read(v) for v in eqn.outvars]
            env[eqn.invars[0]] = inverse_registry[eqn.primitive](*invals)
        return [read(v) for v in jaxpr.invars]

    def inverse(fun):
        @wraps(fun)
        def wrapped(*args, **kwargs):
            cj = jax.make_jaxpr(fun)(*args, **kwargs)
            return inverse_jaxpr(cj.jaxpr, cj.literals, *args)[0]
        return wrapped

    f_inv = inverse(f)
    np.testing.assert_allclose(f_inv(f(1.0)), 1.0, rtol=1e-5)
    # d/dy arctanh(log y) = 1 / (y (1 - log(y)^2)), through jit(vmap(grad(...)))
    y = (np.arange(5) + 1.0) / 5.0
    got = jax.jit(jax.vmap(jax.grad(inverse(f))))(jnp.asarray(y, jnp.float32))
    np.testing.assert_allclose(got, 1 / (y * (1 - np.log(y) ** 2)), rtol=1e-5)
    assert lax.scatter_add_p.name == "scatter-add" and lax.while_p.name == "while"


def test_remat_offload_policy(capsys):
    # docs/new_docs/301/remat.md: y saved, z offloaded (kept here: one memory space),
    # w recomputed; the gradient is the function's
    from functools import partial

    from tjit.ad_checkpoint import checkpoint_name
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=['y'], names_which_can_be_offloaded=['z'],
        offload_src='device', offload_dst='pinned_host')

    @partial(jax.checkpoint, policy=policy)
    def f_offload(x):
        y = checkpoint_name(jnp.sin(x), 'y')
        z = checkpoint_name(jnp.sin(y), 'z')
        w = checkpoint_name(jnp.sin(z), 'w')
        return jnp.sum(w)
    x = np.arange(4.)
    want = np.cos(np.sin(np.sin(x))) * np.cos(np.sin(x)) * np.cos(x)
    np.testing.assert_allclose(jax.grad(f_offload)(jnp.arange(4.)), want, rtol=1e-6)
    print_saved_residuals(f_offload, jnp.arange(4.))
    out = capsys.readouterr().out
    assert "named 'y'" in out and "named 'z'" in out and "named 'w'" not in out
    with pytest.raises(ValueError, match="should not intersect"):
        jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=['a'], names_which_can_be_offloaded=['a'],
            offload_src='device', offload_dst='pinned_host')


def test_vjp_objects_split_forward_and_backward():
    # docs/new_docs/301/vjp-objects.md: vjp's function is a pytree of its residuals, so
    # jitted forward and backward passes can run on one's own schedule
    def fwd_and_bwd(f):
        def fwd(*args):
            return jax.vjp(f, *args)

        def bwd(f_vjp, y_bar):
            return f_vjp(y_bar)
        return jax.jit(fwd), jax.jit(bwd)

    def layer(W, x):
        return jnp.tanh(x @ W)

    fwd, bwd = fwd_and_bwd(layer)
    rng = np.random.default_rng(0)
    W1, W2 = (rng.standard_normal((3, 3)).astype(np.float32) * 0.5 for _ in range(2))
    x0 = rng.standard_normal((2, 3)).astype(np.float32)
    x1, res1 = fwd(W1, x0)
    x2, res2 = fwd(W2, x1)
    dW2, dx1 = bwd(res2, jnp.ones_like(x2))
    dW1, dx0 = bwd(res1, dx1)
    assert jax.tree.leaves(res1) and all(isinstance(v, jax.Array)
                                         for v in jax.tree.leaves(res1))

    # NumPy float64: the same two layers' backward pass by hand
    W1d, W2d, x0d = (a.astype(np.float64) for a in (W1, W2, x0))
    h1 = np.tanh(x0d @ W1d)
    h2 = np.tanh(h1 @ W2d)
    g2 = 1 - h2 ** 2                       # d sum(h2) / d (h1 @ W2)
    g1 = (g2 @ W2d.T) * (1 - h1 ** 2)      # d sum(h2) / d (x0 @ W1)
    np.testing.assert_allclose(dW2, h1.T @ g2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dW1, x0d.T @ g1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dx0, g1 @ W1d.T, rtol=1e-5, atol=1e-6)
    # the residuals map like any pytree's leaves
    doubled = jax.tree.map(lambda r: r, res1)
    np.testing.assert_allclose(doubled(dx1)[0], dW1, rtol=1e-6)


def test_fwd_and_bwd():
    # docs/new_docs/301/vjp-objects.md: jax.fwd_and_bwd, the backward pass compiled once
    def layer(W, x):
        return jnp.tanh(x @ W)

    rng = np.random.default_rng(1)
    W = rng.standard_normal((3, 3)).astype(np.float32) * 0.5
    fwd, bwd = jax.fwd_and_bwd(layer, argnums=(0, 1))
    for k in range(3):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        y, residuals = fwd(W, x)
        dW, dx = bwd(residuals, jnp.ones_like(y))
        xd, Wd = x.astype(np.float64), W.astype(np.float64)
        g = 1 - np.tanh(xd @ Wd) ** 2
        np.testing.assert_allclose(dW, xd.T @ g, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dx, g @ Wd.T, rtol=1e-5, atol=1e-6)
    assert bwd.trace_count == 1 and fwd.trace_count == 1
    fwd1, bwd1 = jax.fwd_and_bwd(layer, argnums=1, jitted=False)
    y, res = fwd1(W, x)
    # eager and compiled tanh may differ by an ulp, and dx's sums cancel (-0.0399 from terms
    # of +-0.2): a few eps times the sum of the terms' sizes (|slope| <= 1)
    np.testing.assert_allclose(bwd1(res, jnp.ones_like(y)), dx, rtol=1e-6,
                               atol=4 * np.finfo(np.float32).eps * np.abs(W).sum(1).max())
    with pytest.raises(ValueError, match=r"argnums \[2\] out of range for 2"):
        jax.fwd_and_bwd(layer, argnums=2)[0](W, x)


def test_vjp_objects_saved_state_and_saveable_args():
    # docs/new_docs/301/vjp-objects.md: args_res, NotNeeded/NotSaveable, restoring
    from tjit.transforms.vjp_object import NotNeeded, NotSaveable

    def layer(W, x):
        return jnp.tanh(x @ W)

    rng = np.random.default_rng(2)
    W = rng.standard_normal((3, 3)).astype(np.float32) * 0.5
    x = rng.standard_normal((2, 3)).astype(np.float32)
    xd, Wd = x.astype(np.float64), W.astype(np.float64)
    g = 1 - np.tanh(xd @ Wd) ** 2
    want_dW, want_dx = xd.T @ g, g @ Wd.T

    y, f_vjp = jax.vjp(layer, W, x)
    assert [type(a) for a in f_vjp.args_res] == [jax.tracing.core.Array] * 2  # both verbatim
    n_leaves = len(jax.tree.leaves(f_vjp))
    y, f_vjp = jax.vjp(layer, W, x, saveable_args=(False, True))
    assert f_vjp.args_res[0] == NotSaveable()
    assert len(jax.tree.leaves(f_vjp)) == n_leaves - 1    # W is not part of the state
    with pytest.raises(ValueError, match=r"argument\(s\) \[0\].*restore them first"):
        f_vjp(jnp.ones_like(y))
    f_vjp.args_res[0] = W
    dW, dx = f_vjp(jnp.ones_like(y))
    np.testing.assert_allclose(dW, want_dW, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-5, atol=1e-6)

    # the weights left out of the saved state, passed to the jitted backward pass
    def fwd_light(W, x):
        return jax.vjp(layer, W, x, saveable_args=(False, True))

    def bwd_light(f_vjp, W, y_bar):
        f_vjp.args_res[0] = W
        return f_vjp(y_bar)
    y, res = jax.jit(fwd_light)(W, x)
    dW, dx = jax.jit(bwd_light)(res, W, jnp.ones_like(y))
    np.testing.assert_allclose(dW, want_dW, rtol=1e-5, atol=1e-6)

    # a dict argument: the tuple prefix matches its children (sorted keys), and it is
    # restored with the original dict; an argument the backward pass does not read
    def gfun(d):
        return d['bye'] @ d['hi']
    d = {'hi': jnp.ones((4, 5)), 'bye': jnp.full((3, 4), 2.0)}
    _, g_vjp = jax.vjp(gfun, d, saveable_args=((True, False),))
    assert g_vjp.args_res[0]['hi'] == NotSaveable()
    g_vjp = g_vjp.replace(args_res=[d])
    (d_grad,) = g_vjp(jnp.ones((3, 5)))
    np.testing.assert_allclose(d_grad['bye'], np.full((3, 4), 5.0))
    np.testing.assert_allclose(d_grad['hi'], np.full((4, 5), 6.0))
    _, s_vjp = jax.vjp(lambda a, b: a * 3.0, jnp.ones(2), jnp.ones(2))
    assert s_vjp.args_res[1] == NotNeeded()
