"""Keyword parameters of JAX's transformation API that tjit accepts with JAX's meaning:
``linearize(has_aux=)``, ``checkpoint(static_argnames=, concrete=)``,
``vjp(reduce_axes=)``. References are finite differences and NumPy in float64."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp


def _fd(f, x, t, eps=1e-6):
    return (f(x + eps * t) - f(x - eps * t)) / (2 * eps)


def test_linearize_has_aux_returns_aux_and_linear_map():
    x = np.array([0.3, -1.2, 2.0])
    t = np.array([1.0, 0.5, -2.0])

    def f(x):
        return jnp.sin(x) * x, {"norm": jnp.sum(x ** 2)}

    out, f_jvp, aux = tjit.linearize(f, x, has_aux=True)
    np.testing.assert_allclose(out, np.sin(x) * x, rtol=1e-6)
    np.testing.assert_allclose(aux["norm"], np.sum(x ** 2), rtol=1e-6)
    np.testing.assert_allclose(f_jvp(t), _fd(lambda v: np.sin(v) * v, x, t), rtol=1e-5)


def test_linearize_has_aux_aux_is_not_a_tracer_under_jit():
    def g(x):
        out, f_jvp, aux = tjit.linearize(lambda v: (v * v, v + 1.0), x, has_aux=True)
        return f_jvp(jnp.ones_like(x)), aux
    tangent, aux = tjit.jit(g)(np.array([1.0, 2.0]))
    np.testing.assert_allclose(tangent, [2.0, 4.0])
    np.testing.assert_allclose(aux, [2.0, 3.0])


def test_linearize_has_aux_requires_a_pair():
    with pytest.raises(TypeError, match="has_aux=True requires"):
        tjit.linearize(lambda x: x * 2.0, np.array([1.0]), has_aux=True)


def test_vjp_reduce_axes_only_default():
    out, vjp_fn = tjit.vjp(lambda x: x * 3.0, np.array([1.0, 2.0]), reduce_axes=())
    np.testing.assert_allclose(vjp_fn(np.ones(2))[0], [3.0, 3.0])
    with pytest.raises(NotImplementedError, match="reduce_axes"):
        tjit.vjp(lambda x: x, np.array([1.0]), reduce_axes=("i",))


def _scaled_power(x, power, *, scale):
    # Python control flow on `power` and `scale`: they must be static
    y = x
    for _ in range(power - 1):
        y = y * x
    return jnp.sum(y) * (2.0 if scale == "double" else 1.0)


@pytest.mark.parametrize("how", ["keyword", "positional"])
def test_checkpoint_static_argnames(how):
    x = np.array([0.5, -1.5, 2.0])
    f = tjit.checkpoint(_scaled_power, static_argnames=("power", "scale"))
    if how == "keyword":
        g = tjit.grad(lambda v: f(v, power=3, scale="double"))
    else:
        g = tjit.grad(lambda v: f(v, 3, scale="double"))
    np.testing.assert_allclose(g(x), 2.0 * 3 * x ** 2, rtol=1e-6)
    np.testing.assert_allclose(tjit.jit(g)(x), 2.0 * 3 * x ** 2, rtol=1e-6)


def test_checkpoint_static_argnames_unknown_name():
    with pytest.raises(ValueError, match="static_argnames.*names no parameter"):
        tjit.checkpoint(_scaled_power, static_argnames="powr")


def test_checkpoint_concrete_is_removed_as_in_jax():
    with pytest.raises(NotImplementedError, match="concrete"):
        tjit.checkpoint(lambda x: x, concrete=True)
    with pytest.raises(NotImplementedError, match="concrete"):
        tjit.remat(lambda x: x, concrete=False)
    np.testing.assert_allclose(
        tjit.grad(tjit.remat(lambda x, n: x ** n, static_argnums=1))(3.0, 2), 6.0)


def test_vmap_sum_match_sums_mapped_outputs_with_out_axes_none(rng):
    x = rng.normal(size=(4, 3)).astype(np.float32)

    def f(v):
        return v * 2.0, jnp.sum(v), v > 0.0

    got = tjit.vmap(f, out_axes=(None, 0, None), sum_match=True)(x)
    want = [sum(f(np.asarray(r))[0] for r in x), [np.sum(r) for r in x],
            sum((r > 0).astype(np.int32) for r in x)]   # a Python loop over the batch
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_array_equal(got[2], want[2])
    jitted = tjit.jit(tjit.vmap(f, out_axes=(None, 0, None), sum_match=True))(x)
    np.testing.assert_allclose(jitted[0], want[0], rtol=1e-6)
    # its gradient: d/dx sum_b(2 x_b) = 2 everywhere
    g = tjit.grad(lambda x: jnp.sum(tjit.vmap(lambda v: v * 2.0, out_axes=None,
                                              sum_match=True)(x)))(x)
    np.testing.assert_allclose(g, np.full_like(x, 2.0))


def test_vmap_without_sum_match_still_rejects_mapped_none_output():
    with pytest.raises(ValueError, match="out_axes is None"):
        tjit.vmap(lambda v: v, out_axes=None)(np.ones((2, 3)))
