"""checkpoint / remat with JAX's policies, checkpoint_name and print_saved_residuals.

The oracle for gradients is the same function without checkpoint (recomputation must
not change a single bit in eager mode); for what is saved, the residual lists that
saved_residuals reports (counts, bytes, where each comes from).
"""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, nn
from tjit.ad_checkpoint import checkpoint_name, print_saved_residuals, saved_residuals
from tests.transforms.check import check_vmap

cp = tjit.checkpoint_policies
RNG = np.random.default_rng(0)
W1 = jnp.asarray(RNG.standard_normal((4, 3)).astype(np.float32))
W2 = jnp.asarray(RNG.standard_normal((3, 4)).astype(np.float32))
X = jnp.asarray(RNG.standard_normal((2, 4)).astype(np.float32))


def mlp(w1, w2, x):
    h = checkpoint_name(jnp.sin(x @ w1), "h1")
    h = checkpoint_name(jnp.tanh(h @ w2), "h2")
    return jnp.sum(jnp.exp(h) * x)


POLICIES = {
    "default": None,
    "everything_saveable": cp.everything_saveable,
    "nothing_saveable": cp.nothing_saveable,
    "dots_saveable": cp.dots_saveable,
    "checkpoint_dots": cp.checkpoint_dots,
    "dots_with_no_batch_dims_saveable": cp.dots_with_no_batch_dims_saveable,
    "save_only_these_names": cp.save_only_these_names("h1"),
    "save_any_names_but_these": cp.save_any_names_but_these("h1"),
    "save_anything_except_these_names": cp.save_anything_except_these_names("h1"),
    "save_from_both_policies": cp.save_from_both_policies(
        cp.dots_saveable, cp.save_only_these_names("h2")),
}


def _grads(f, *args):
    return tjit.grad(f, argnums=tuple(range(len(args))))(*args)


def _assert_same(got, want, exact=True):
    for g, w in zip(got, want):
        if exact:
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        else:
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_gradients_equal_without_checkpoint(name):
    f = tjit.checkpoint(mlp, policy=POLICIES[name])
    want = _grads(mlp, W1, W2, X)
    _assert_same(_grads(f, W1, W2, X), want)
    _assert_same(tjit.jit(lambda *a: _grads(f, *a))(W1, W2, X), want, exact=False)
    np.testing.assert_array_equal(np.asarray(f(W1, W2, X)), np.asarray(mlp(W1, W2, X)))


def _sources(f, *args):
    """Each residual's description without the user line a computed value comes from."""
    return [src if src.startswith("from the argument") else src.split(" from ")[0]
            for _, src in saved_residuals(f, *args)]


def _bytes(f, *args):
    return sum(a.size * a.dtype.itemsize for a, _ in saved_residuals(f, *args))


def test_residuals_by_policy():
    def with_policy(p):
        return tjit.checkpoint(mlp, policy=p)
    args = (W1, W2, X)
    nothing = _sources(with_policy(cp.nothing_saveable), *args)
    assert sorted(nothing) == sorted(["from the argument w1", "from the argument w2",
                                      "from the argument x"])
    assert _sources(with_policy(None), *args) == nothing  # the default saves nothing
    everything = _sources(with_policy(cp.everything_saveable), *args)
    assert len(everything) > len(nothing) + 2
    assert _bytes(with_policy(cp.nothing_saveable), *args) < \
        _bytes(with_policy(cp.dots_saveable), *args) < \
        _bytes(with_policy(cp.everything_saveable), *args)
    # without checkpoint, reverse mode saves what everything_saveable saves
    assert sorted(_sources(mlp, *args)) == sorted(everything)
    dots = _sources(with_policy(cp.dots_saveable), *args)
    assert dots.count("output of dot_general") == 2
    assert all(s == "output of dot_general" or s.startswith("from the argument")
               for s in dots)
    assert _sources(with_policy(cp.dots_with_no_batch_dims_saveable), *args) == dots


def test_dots_with_no_batch_dims_saveable_skips_batched_dots():
    def f(a, b):
        return jnp.sin(jnp.einsum("bij,bjk->bik", a, b)).sum()
    a = jnp.ones((2, 3, 3))
    srcs = _sources(tjit.checkpoint(f, policy=cp.dots_with_no_batch_dims_saveable), a, a)
    assert "output of dot_general" not in srcs
    srcs = _sources(tjit.checkpoint(f, policy=cp.dots_saveable), a, a)
    assert "output of dot_general" in srcs


def test_named_policies():
    args = (W1, W2, X)

    def srcs(p):
        return [s for s in _sources(tjit.checkpoint(mlp, policy=p), *args)
                if not s.startswith("from the argument")]
    assert srcs(cp.save_only_these_names("h1")) == ["named 'h1'"]
    assert srcs(cp.save_only_these_names("h1", "h2")) == ["named 'h1'", "named 'h2'"]
    assert srcs(cp.save_any_names_but_these("h1")) == ["named 'h2'"]
    assert srcs(cp.save_only_these_names("nope")) == []
    anything_but = srcs(cp.save_anything_except_these_names("h1"))
    assert "named 'h1'" not in anything_but
    # every residual everything_saveable keeps but h1 is kept too (whatever the derivative
    # rules save: tanh's slope is a select_n of two forms, not tanh's output)
    everything = srcs(cp.everything_saveable)
    assert "named 'h1'" in everything and len(everything) > 2
    assert all(s in anything_but for s in everything if s != "named 'h1'")
    # h1 itself is recomputed, but the (equal) sin output it names may be saved, as in JAX
    assert "output of sin" in anything_but


def test_print_saved_residuals_text(capsys):
    def f(x, w):
        return jnp.sin(jnp.sin(x) @ w).sum()
    x, w = jnp.ones((4, 3)), jnp.ones((3, 2))
    assert print_saved_residuals(tjit.checkpoint(f), x, w) is None   # as JAX's
    # JAX's format: the type, then where the value comes from; arguments first
    assert capsys.readouterr().out == ("f32[4,3] from the argument x\n"
                                       "f32[3,2] from the argument w\n")
    print_saved_residuals(f, x, w)
    # computed values in the order computed, each with the user's line:column (0-based,
    # as Python counts) and function: sin(x) at column 23, the outer sin at 15
    line = f.__code__.co_firstlineno + 1
    where = f"{__file__}:{line}:{{}} (test_print_saved_residuals_text.<locals>.f)"
    assert capsys.readouterr().out.splitlines() == [
        "f32[3,2] from the argument w",
        "f32[4,3] output of sin from " + where.format(23),
        "f32[4,3] output of cos from " + where.format(23),
        "f32[4,2] output of cos from " + where.format(15)]


def test_jit_grad_checkpoint_recomputes_in_its_own_equation():
    def f(x):
        return jnp.sin(jnp.sin(jnp.sin(x))).sum()
    x = jnp.linspace(-1., 1., 5)
    want = tjit.grad(f)(x)
    g = tjit.jit(tjit.grad(tjit.checkpoint(f)))
    np.testing.assert_allclose(np.asarray(g(x)), np.asarray(want), rtol=1e-6)
    text = g.lower(x).as_text()
    assert "checkpoint[" in text  # the recomputation, kept apart from the forward pass
    # without prevent_cse, jit's CSE merges the recomputation into the forward pass
    g2 = tjit.jit(tjit.grad(tjit.checkpoint(f, prevent_cse=False)))
    np.testing.assert_allclose(np.asarray(g2(x)), np.asarray(want), rtol=1e-6)
    assert "checkpoint" not in g2.lower(x).as_text()


def test_nested_checkpoints():
    def inner(x):
        return jnp.sin(jnp.sin(x))

    def outer_with(pi):
        def outer(x):
            return jnp.sin(tjit.checkpoint(inner, policy=pi)(x)).sum()
        return outer
    x = jnp.arange(4.)
    want = tjit.grad(lambda x: jnp.sin(inner(x)).sum())(x)
    for po in (cp.nothing_saveable, cp.everything_saveable):
        for pi in (cp.nothing_saveable, cp.everything_saveable):
            f = tjit.checkpoint(outer_with(pi), policy=po)
            _assert_same([tjit.grad(f)(x)], [want])
            _assert_same([tjit.jit(tjit.grad(f))(x)], [want], exact=False)
    srcs = _sources(tjit.checkpoint(outer_with(cp.everything_saveable),
                                    policy=cp.nothing_saveable), x)
    assert srcs == ["from the argument x"]  # the outer policy wins for what it wraps
    srcs = _sources(tjit.checkpoint(outer_with(cp.nothing_saveable),
                                    policy=cp.everything_saveable), x)
    assert "from the argument x" in srcs and len(srcs) == 2  # x and the outer cos


def test_checkpoint_under_vmap_and_jit():
    f = lambda x: jnp.sin(jnp.sin(x) * x).sum()  # noqa: E731
    fc = tjit.checkpoint(f)
    xs = jnp.arange(6.).reshape(2, 3)
    want = tjit.vmap(tjit.grad(f))(xs)
    _assert_same([tjit.vmap(tjit.grad(fc))(xs)], [want])
    _assert_same([tjit.grad(lambda xs: tjit.vmap(fc)(xs).sum())(xs)], [want])
    _assert_same([tjit.jit(tjit.vmap(tjit.grad(fc)))(xs)], [want], exact=False)
    check_vmap(fc, (xs,), in_axes=1)
    check_vmap(tjit.grad(fc), (xs,))


def test_higher_order_and_forward_mode():
    f = lambda x: jnp.sin(jnp.sin(x))  # noqa: E731
    fc = tjit.checkpoint(f)
    for x in (0.3, 1.0):
        _assert_same([tjit.grad(tjit.grad(fc))(x)], [tjit.grad(tjit.grad(f))(x)], False)
        _assert_same([tjit.hessian(fc)(x)], [tjit.hessian(f)(x)], False)
        _assert_same(tjit.jvp(fc, (x,), (1.,)), tjit.jvp(f, (x,), (1.,)))
        _assert_same([tjit.linearize(fc, x)[1](2.)], [tjit.linearize(f, x)[1](2.)])
    _assert_same([tjit.jit(tjit.grad(tjit.grad(fc)))(0.3)], [tjit.grad(tjit.grad(f))(0.3)],
                 False)


def test_static_argnums_kwargs_closures_and_ints():
    def g(x, n, scale=1.0):
        for _ in range(n):
            x = jnp.sin(x)
        return x * scale
    gc = tjit.checkpoint(g, static_argnums=(1,))
    _assert_same([tjit.grad(lambda x: gc(x, 3, scale=2.0))(0.3)],
                 [tjit.grad(lambda x: g(x, 3, scale=2.0))(0.3)])
    with pytest.raises(TypeError, match="static_argnums"):
        tjit.grad(lambda x: tjit.checkpoint(g)(x, "three"))(0.3)
    # a checkpointed function closing over a value being differentiated
    f = lambda w: tjit.checkpoint(lambda x: jnp.sin(w * x))(2.0)  # noqa: E731
    np.testing.assert_allclose(float(tjit.grad(f)(1.5)), 2 * np.cos(3.0), rtol=1e-6)
    np.testing.assert_allclose(float(tjit.jit(tjit.grad(f))(1.5)), 2 * np.cos(3.0), rtol=1e-6)

    # integer inputs and outputs, constant outputs
    def h(x, i):
        return jnp.sin(x) * i, jnp.float32(3.0), i + 1
    hc = tjit.checkpoint(h)
    assert float(tjit.grad(lambda x: hc(x, 2)[0] + hc(x, 2)[1])(1.0)) == \
        float(tjit.grad(lambda x: h(x, 2)[0])(1.0))
    out = tjit.jit(hc)(1.0, 2)
    assert out[2].dtype == jnp.int32 and int(out[2]) == 3


def test_control_flow_and_custom_rules_inside_checkpoint():
    def body(c, x):
        c = jnp.sin(c) * x
        return c, c

    def f(c, xs):
        c, ys = lax.scan(body, c, xs)
        return c + ys.sum()
    xs = jnp.arange(1., 4.)
    want = _grads(f, 0.5, xs)
    _assert_same(_grads(tjit.checkpoint(f), 0.5, xs), want)
    # the policy reaches the scan too: with nothing_saveable only the inputs are kept
    assert sorted(_sources(tjit.checkpoint(f), 0.5, xs)) == [
        "from the argument c", "from the argument xs"]

    def remat_scan(c, xs):  # checkpoint inside a scan body
        c, ys = lax.scan(tjit.checkpoint(body), c, xs)
        return c + ys.sum()
    _assert_same(_grads(remat_scan, 0.5, xs), want, exact=False)
    g = lambda x: nn.relu(jnp.sin(x)).sum()  # noqa: E731  (custom_jvp inside)
    x = jnp.arange(-2., 2.)
    _assert_same([tjit.grad(tjit.checkpoint(g))(x)], [tjit.grad(g)(x)])
    f3 = lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)  # noqa: E731
    _assert_same([tjit.grad(tjit.checkpoint(f3))(1.)], [tjit.grad(f3)(1.)])


def test_checkpoint_name_is_identity():
    x = jnp.array([1., 2.])
    assert np.array_equal(np.asarray(checkpoint_name(x, "a")), [1., 2.])
    tree = checkpoint_name({"a": x, "b": (x, x)}, "t")
    assert set(tree) == {"a", "b"}
    assert float(tjit.grad(lambda x: checkpoint_name(x * x, "sq"))(3.)) == 6.0
    jaxpr = str(tjit.make_jaxpr(lambda x: checkpoint_name(jnp.sin(x), "s"))(x))
    assert "checkpoint_name[name=s]" in jaxpr
    check_vmap(lambda x: checkpoint_name(x, "v"), (jnp.ones((2, 3)),), in_axes=1)
    with pytest.raises(TypeError, match="name must be a string"):
        checkpoint_name(x, 3)


def test_policy_receives_primitive_avals_and_params():
    calls = []

    def policy(prim, *avals, **params):
        calls.append((prim.name, [a.shape for a in avals], dict(params)))
        return False
    tjit.grad(tjit.checkpoint(mlp, policy=policy))(W1, W2, X)
    dots = [c for c in calls if c[0] == "dot_general"]
    assert [(2, 4), (4, 3)] in [d[1] for d in dots]
    assert all("dimension_numbers" in d[2] for d in dots)
    assert ("checkpoint_name", [(2, 3)], {"name": "h1"}) in calls


def test_polymorphic_shapes_and_eager():
    f = tjit.checkpoint(lambda x: jnp.sin(jnp.sin(x)).sum())
    jaxpr = tjit.make_jaxpr(tjit.grad(f), polymorphic_shapes=["(b,)"])(jnp.ones(3))
    assert "f32[b]" in str(jaxpr)
    assert float(f(jnp.zeros(3))) == 0.0  # eager: just runs
    assert tjit.remat is tjit.checkpoint and tjit.ad_checkpoint.checkpoint is tjit.checkpoint
