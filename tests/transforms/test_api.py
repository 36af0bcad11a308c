"""The transformation API: jvp / vjp / grad / value_and_grad / linearize / vmap /
jacobians: pytrees, argnums, has_aux, symbolic zeros and error messages."""

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.transforms.check import check_grads


def f_scalar(x, y):
    return jnp.sin(x) * y + jnp.exp(x / y)


def test_grad_matches_analytic():
    x, y = 0.7, 1.3
    gx = np.cos(x) * y + np.exp(x / y) / y
    gy = np.sin(x) - np.exp(x / y) * x / y ** 2
    np.testing.assert_allclose(float(tjit.grad(f_scalar)(x, y)), gx, rtol=1e-5)
    got = tjit.grad(f_scalar, argnums=(0, 1))(x, y)
    assert isinstance(got, tuple) and len(got) == 2
    np.testing.assert_allclose([float(got[0]), float(got[1])], [gx, gy], rtol=1e-5)


def test_value_and_grad_and_has_aux():
    v, g = tjit.value_and_grad(lambda x: jnp.sin(x) * 2.0)(0.5)
    np.testing.assert_allclose([float(v), float(g)], [2 * np.sin(0.5), 2 * np.cos(0.5)],
                               rtol=1e-5)
    g, aux = tjit.grad(lambda x: (x * x, {"x2": x * x}), has_aux=True)(3.0)
    assert float(g) == 6.0 and float(aux["x2"]) == 9.0
    (v, aux), g = tjit.value_and_grad(lambda x: (x * x, x + 1.0), has_aux=True)(3.0)
    assert (float(v), float(aux), float(g)) == (9.0, 4.0, 6.0)


def test_grad_of_pytree_argument():
    def loss(p):
        return jnp.sin(p["a"]) * p["b"][0] + p["b"][1] * p["a"]
    p = {"a": jnp.asarray(0.3), "b": (jnp.asarray(2.0), jnp.asarray(-1.0))}
    g = tjit.grad(loss)(p)
    assert set(g) == {"a", "b"} and isinstance(g["b"], tuple)
    np.testing.assert_allclose(float(g["a"]), 2 * np.cos(0.3) - 1, rtol=1e-5)
    np.testing.assert_allclose([float(g["b"][0]), float(g["b"][1])], [np.sin(0.3), 0.3],
                               rtol=1e-5)


def test_higher_order_grads():
    d = tjit.grad
    x = 0.4
    np.testing.assert_allclose(float(d(d(jnp.sin))(x)), -np.sin(x), rtol=1e-5)
    np.testing.assert_allclose(float(d(d(d(jnp.sin)))(x)), -np.cos(x), rtol=1e-5)
    np.testing.assert_allclose(float(d(d(lambda t: jnp.exp(t) * t))(x)),
                               np.exp(x) * (x + 2), rtol=1e-5)


def test_jvp_and_linearize():
    y, t = tjit.jvp(jnp.sin, (0.5,), (2.0,))
    np.testing.assert_allclose([float(y), float(t)], [np.sin(0.5), 2 * np.cos(0.5)],
                               rtol=1e-5)
    y, f_jvp = tjit.linearize(lambda x: jnp.sin(x) * x, 0.5)
    np.testing.assert_allclose(float(f_jvp(1.0)), np.cos(0.5) * 0.5 + np.sin(0.5), rtol=1e-5)
    np.testing.assert_allclose(float(f_jvp(2.0)), 2 * (np.cos(0.5) * 0.5 + np.sin(0.5)),
                               rtol=1e-5)


def test_vjp_pytree_cotangent():
    out, vjp_fn = tjit.vjp(lambda a, b: {"s": a * b, "d": a - b}, 2.0, 3.0)
    ga, gb = vjp_fn({"s": jnp.asarray(1.0), "d": jnp.asarray(1.0)})
    assert (float(ga), float(gb)) == (4.0, 1.0)


def test_finite_difference_oracle_elementwise_chain():
    x = np.linspace(0.2, 1.5, 7).astype(np.float32)
    check_grads(lambda x: jnp.tanh(jnp.sin(x) * x + jnp.log(x)), (x,), order=2)


def test_unused_input_gets_zero_gradient():
    g = tjit.grad(lambda x, y: x * 2.0, argnums=1)(1.0, 5.0)
    assert float(g) == 0.0


def test_symbolic_zeros_cost_nothing():
    # y does not influence the output: its tangent path records no equations
    j = tjit.make_jaxpr(tjit.grad(lambda x, y: jnp.sin(x) + y * 0.0 + jnp.cos(y) * 0.0))(
        1.0, 2.0)
    names = [e.primitive.name for e in j.eqns]
    assert names.count("cos") == 2  # forward cos(x) for sin's derivative and forward cos(y)


def test_grad_errors():
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions. "
                       r"Output had shape: \(3,\)"):
        tjit.grad(lambda x: x * 2.0)(jnp.ones(3))
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs.*int32"):
        tjit.grad(lambda x: x * 2)(3)
    with pytest.raises(TypeError, match="argnums"):
        tjit.grad(lambda x: x, argnums=2)(1.0)
    with pytest.raises(TypeError, match="has_aux=True requires"):
        tjit.grad(lambda x: x, has_aux=True)(1.0)
    with pytest.raises(ValueError, match="equal shapes"):
        tjit.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(2),))


def test_vmap_in_axes_out_axes():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    out = tjit.vmap(lambda r: jnp.sin(r) * 2.0)(x)
    np.testing.assert_allclose(np.asarray(out), np.sin(x) * 2, rtol=1e-5)
    out = tjit.vmap(lambda c: c * 3.0, in_axes=1, out_axes=1)(x)
    np.testing.assert_allclose(np.asarray(out), x * 3)
    out = tjit.vmap(lambda a, s: a * s, in_axes=(0, None))(x, 2.0)
    np.testing.assert_allclose(np.asarray(out), x * 2)
    out = tjit.vmap(lambda d: d["a"] + d["b"], in_axes=({"a": 0, "b": None},))(
        {"a": x, "b": jnp.asarray(1.0)})
    np.testing.assert_allclose(np.asarray(out), x + 1)
    out = tjit.vmap(lambda: jnp.asarray(1.0), axis_size=5)()
    assert out.shape == (5,)
    nested = tjit.vmap(tjit.vmap(lambda a: a * a))(x)
    np.testing.assert_allclose(np.asarray(nested), x * x)


def test_vmap_errors():
    with pytest.raises(ValueError, match="inconsistent sizes"):
        tjit.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))
    with pytest.raises(ValueError, match="in_axes must be an int, None, or a tuple"):
        tjit.vmap(lambda a, b: a, in_axes=(0,))(jnp.ones(3), jnp.ones(3))
    with pytest.raises(ValueError, match="at least one non-None value"):
        tjit.vmap(lambda a: a, in_axes=None)(jnp.ones(3))
    with pytest.raises(ValueError, match="out_axes is None"):
        tjit.vmap(lambda a: a, out_axes=None)(jnp.ones(3))


def test_jacobians_and_hessian_analytic():
    x = np.array([0.3, -0.5, 1.2], np.float32)
    f = lambda v: jnp.sin(v) * v  # noqa: E731
    jf = np.diag(np.cos(x) * x + np.sin(x))
    np.testing.assert_allclose(np.asarray(tjit.jacfwd(f)(x)), jf, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(tjit.jacrev(f)(x)), jf, rtol=1e-5, atol=1e-6)
    g = lambda v: jnp.exp(v[0]) * v[1] + v[2] * v[2] * v[0]  # noqa: E731
    a, b, c = x
    h = np.array([[np.exp(a) * b, np.exp(a), 2 * c],
                  [np.exp(a), 0, 0],
                  [2 * c, 0, 2 * a]])
    np.testing.assert_allclose(np.asarray(tjit.hessian(g)(x)), h, rtol=1e-5, atol=1e-5)


def test_jit_of_grad_is_one_jaxpr():
    f = tjit.jit(tjit.grad(lambda x: jnp.sin(x) * x))
    np.testing.assert_allclose(float(f(0.5)), np.cos(0.5) * 0.5 + np.sin(0.5), rtol=1e-5)
    j = tjit.make_jaxpr(tjit.grad(lambda x: jnp.sin(x) * x))(0.5)
    assert {e.primitive.name for e in j.eqns} <= {"sin", "cos", "mul", "add"}


def test_grad_of_jit_and_vmap_of_grad():
    f = tjit.jit(lambda x: jnp.sin(x) * x)
    np.testing.assert_allclose(float(tjit.grad(f)(0.5)), np.cos(0.5) * 0.5 + np.sin(0.5),
                               rtol=1e-5)
    xs = np.linspace(0, 1, 5).astype(np.float32)
    per = tjit.vmap(tjit.grad(lambda x: jnp.sin(x) * x))(xs)
    np.testing.assert_allclose(np.asarray(per), np.cos(xs) * xs + np.sin(xs), rtol=1e-5)
