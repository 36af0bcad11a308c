"""custom_vmap / sequential_vmap (jax.custom_batching): the rule runs under vmap with
JAX's arguments, the function runs as written elsewhere, forward mode goes through the
rule's jvp, reverse mode is refused as in JAX. References: NumPy float64, a Python loop
over the batch for vmap, finite differences for jvp."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit.custom_batching import custom_vmap, sequential_vmap

RNG = np.random.default_rng(0)


def _make_f(calls):
    @custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        calls.append((axis_size, list(in_batched)))
        # a rule that differs from the function, so its use is visible
        ys_b = ys if in_batched[1] else jnp.broadcast_to(ys, (axis_size,) + jnp.shape(ys))
        return jnp.cos(xs) * ys_b, True
    return f


def test_rule_runs_under_vmap_with_jax_arguments():
    calls = []
    f = _make_f(calls)
    x = RNG.standard_normal(4).astype(np.float32)
    y = RNG.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(f(x, y), np.sin(x) * y, rtol=1e-6)  # outside vmap: as written
    assert not calls
    np.testing.assert_allclose(tjit.vmap(f)(x, y), np.cos(x) * y, rtol=1e-6)
    assert calls == [(4, [True, True])]
    out = tjit.vmap(f, in_axes=(0, None))(x, np.float32(2.0))
    np.testing.assert_allclose(out, np.cos(x) * 2.0, rtol=1e-6)
    assert calls[-1] == (4, [True, False])
    # under jit the function is traced into the call primitive; vmap outside jit and
    # jit outside vmap both use the rule
    np.testing.assert_allclose(tjit.jit(f)(x, y), np.sin(x) * y, rtol=1e-6)
    np.testing.assert_allclose(tjit.jit(tjit.vmap(f))(x, y), np.cos(x) * y, rtol=1e-6)
    np.testing.assert_allclose(tjit.vmap(tjit.jit(f))(x, y), np.cos(x) * y, rtol=1e-6)


def test_batch_axis_is_moved_to_the_front_for_the_rule():
    seen = []

    @custom_vmap
    def total(x):
        return jnp.sum(x)

    @total.def_vmap
    def rule(axis_size, in_batched, xs):
        seen.append(xs.shape)
        return jnp.sum(xs, axis=1), True
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    np.testing.assert_allclose(tjit.vmap(total, in_axes=1)(x), x.sum(0), rtol=1e-5)
    assert seen == [(5, 3)]


def test_pytree_arguments_and_outputs():
    @custom_vmap
    def f(p):
        return {"s": p["a"] + p["b"], "d": p["a"] - p["b"]}

    @f.def_vmap
    def rule(axis_size, in_batched, p):
        assert in_batched == [{"a": True, "b": False}]
        return {"s": p["a"] + p["b"], "d": 2 * p["a"]}, {"s": True, "d": True}
    a = RNG.standard_normal(3).astype(np.float32)
    out = tjit.vmap(f, in_axes=({"a": 0, "b": None},))({"a": a, "b": np.float32(1.5)})
    np.testing.assert_allclose(out["s"], a + 1.5, rtol=1e-6)
    np.testing.assert_allclose(out["d"], 2 * a, rtol=1e-6)


def test_unbatched_output_of_the_rule():
    @custom_vmap
    def f(x, c):
        return x * 2, c + 1

    @f.def_vmap
    def rule(axis_size, in_batched, xs, c):
        return (xs * 2, c + 1), (True, False)
    xs = np.arange(3, dtype=np.float32)
    out, c = tjit.vmap(f, in_axes=(0, None))(xs, np.float32(5))
    np.testing.assert_allclose(out, xs * 2)
    np.testing.assert_allclose(c, [6, 6, 6])   # vmap broadcasts the unbatched output


def test_jvp_and_vmap_of_jvp_against_finite_differences():
    calls = []
    f = _make_f(calls)
    x, y, h = 0.7, 1.3, 1e-6
    out, t = tjit.jvp(f, (np.float32(x), np.float32(y)), (np.float32(1.0), np.float32(0.5)))
    fd = ((np.sin(x + h) * (y + 0.5 * h)) - (np.sin(x - h) * (y - 0.5 * h))) / (2 * h)
    np.testing.assert_allclose(out, np.sin(x) * y, rtol=1e-6)
    np.testing.assert_allclose(t, fd, rtol=1e-5)
    assert not calls
    # vmap over a jvp: the rule's own jvp (the rule here computes cos(x) * y)
    xs = RNG.standard_normal(4).astype(np.float32)

    def jvp_at(a):
        return tjit.jvp(f, (a, np.float32(y)), (np.float32(1.0), np.float32(0.0)))
    outs, ts = tjit.vmap(jvp_at)(xs)
    xs64 = xs.astype(np.float64)
    np.testing.assert_allclose(outs, np.cos(xs64) * y, rtol=1e-5)
    np.testing.assert_allclose(ts, -np.sin(xs64) * y, rtol=1e-5)
    assert calls and calls[-1][0] == 4


def test_reverse_mode_is_refused_as_in_jax():
    f = _make_f([])
    with pytest.raises(TypeError, match="reverse-mode.*custom_vmap.*custom_vjp"):
        tjit.grad(f)(np.float32(1.0), np.float32(2.0))


def test_custom_vjp_outside_custom_vmap_gives_both_rules():
    # JAX's docstring example: vmap uses the custom_vmap rule, grad the custom_vjp one
    @tjit.custom_vjp
    @custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def f_vmap_rule(axis_size, in_batched, xs, ys):
        return jnp.cos(xs) * ys, True

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)
    f.defvjp(f_fwd, f_bwd)
    np.testing.assert_allclose(tjit.vmap(f)(jnp.zeros(3), jnp.ones(3)), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(tjit.grad(f)(jnp.zeros(()), jnp.ones(())), 1.0)


def test_rule_errors_name_the_rule_and_the_fix():
    @custom_vmap
    def f(x):
        return x + 1

    with pytest.raises(AttributeError, match="No batching rule defined for custom_vmap "
                                             "function f"):
        tjit.vmap(f)(jnp.ones(2))

    @f.def_vmap
    def bad_shape(axis_size, in_batched, xs):
        return xs[0], True
    with pytest.raises(ValueError, match=r"bad_shape: output 0 is f32\[\].*expected shape "
                                         r"\(2,\)"):
        tjit.vmap(f)(jnp.ones(2))

    @f.def_vmap
    def bad_tree(axis_size, in_batched, xs):
        return xs + 1, (True, True)
    with pytest.raises(ValueError, match="bad_tree.*do not match"):
        tjit.vmap(f)(jnp.ones(2))


def test_a_closure_over_a_batched_value_is_refused():
    def outer(ws):      # ws is batched by vmap; g closes over it
        @custom_vmap
        def g(x):
            return x * ws

        g.def_vmap(lambda n, b, xs: (xs * ws, True))
        return g(jnp.ones(2))
    with pytest.raises(ValueError, match="g closes over a value that vmap batches; pass"):
        tjit.vmap(outer)(jnp.ones((3, 2)))


def test_sequential_vmap_loops_over_the_batch():
    calls = []

    def host(a):  # a NumPy function that knows nothing of batch axes
        calls.append(a.shape)
        return (np.sum(a) * 2).astype(a.dtype)

    @sequential_vmap
    def f(x, scale):
        out = tjit.pure_callback(host, tjit.ShapeDtypeStruct((), x.dtype), x)
        return out * scale
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    out = tjit.vmap(f, in_axes=(0, None))(x, np.float32(3.0))
    np.testing.assert_allclose(out, x.astype(np.float64).sum(1) * 6, rtol=1e-5)
    assert calls and all(s == (3,) for s in calls)   # one call per batch element
    jaxpr = str(tjit.make_jaxpr(tjit.vmap(f, in_axes=(0, None)))(x, np.float32(3.0)))
    assert "scan" in jaxpr
