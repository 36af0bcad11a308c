"""custom_jvp, custom_vjp and stop_gradient (JAX's documented examples and semantics), and
the custom derivative rules of tjit.nn (relu, softplus, softmax, logsumexp).

Oracles: closed-form derivatives computed with NumPy, float64 central differences
(check_grads), Python loops over the batch (check_vmap).
"""

import functools

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, nn
from tjit.transforms.custom_derivatives import CustomVJPPrimal, SymbolicZero
from tests.transforms.check import check_grads, check_vmap


def _np(x):
    return np.asarray(x)


# -- custom_jvp ------------------------------------------------------------------------------
@tjit.custom_jvp
def log1pexp(x):
    return jnp.log(1. + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    ans = log1pexp(x)
    ans_dot = (1 - 1 / (1 + jnp.exp(x))) * x_dot
    return ans, ans_dot


def _sigmoid(x):
    with np.errstate(over="ignore"):  # exp(1e4) = inf gives the right limit 0
        return 1 / (1 + np.exp(-x))


def test_log1pexp_stable_derivative():
    naive = tjit.grad(lambda x: jnp.log(1. + jnp.exp(x)))(100.)
    assert np.isnan(float(naive))  # what the rule fixes: inf / inf
    assert float(tjit.grad(log1pexp)(100.)) == 1.0
    assert float(tjit.jit(tjit.grad(log1pexp))(100.)) == 1.0
    xs = jnp.array([-3., 0., 2., 100.])
    np.testing.assert_allclose(_np(tjit.vmap(tjit.grad(log1pexp))(xs)), _sigmoid(_np(xs)),
                               rtol=1e-6)
    out, t = tjit.jvp(log1pexp, (3.,), (2.,))
    np.testing.assert_allclose([float(out), float(t)],
                               [np.log1p(np.exp(3.)), 2 * _sigmoid(3.)], rtol=1e-6)


def test_log1pexp_second_order_differentiates_the_rule():
    for x in (-1.0, 0.5, 3.0):
        want = _sigmoid(x) * (1 - _sigmoid(x))
        np.testing.assert_allclose(float(tjit.grad(tjit.grad(log1pexp))(x)), want, rtol=1e-5)
    check_grads(log1pexp, (jnp.array([-2., 0.3, 4.]),), order=2)


def test_custom_jvp_rule_is_used_not_the_function():
    @tjit.custom_jvp
    def f(x):
        return jnp.sin(x)
    f.defjvp(lambda p, t: (f(p[0]), 10.0 * t[0]))  # deliberately not cos
    x = jnp.array([0.1, 0.2])
    assert np.array_equal(_np(tjit.grad(lambda x: f(x).sum())(x)), [10., 10.])
    assert np.array_equal(_np(tjit.jvp(f, (x,), (jnp.ones(2),))[1]), [10., 10.])
    # the jaxpr path (vmap / jit / checkpoint) keeps the rule
    g = tjit.grad(lambda x: tjit.vmap(f)(x).sum())(x)
    assert np.array_equal(_np(g), [10., 10.])
    t = tjit.jvp(tjit.vmap(f), (x,), (jnp.ones(2),))[1]
    assert np.array_equal(_np(t), [10., 10.])
    g = tjit.grad(lambda x: tjit.checkpoint(f)(x).sum())(x)
    assert np.array_equal(_np(g), [10., 10.])
    g = tjit.grad(lambda x: lax.scan(lambda c, xi: (c + f(xi), None), 0., x)[0])(x)
    assert np.array_equal(_np(g), [10., 10.])
    # evaluation runs the primal function
    np.testing.assert_allclose(_np(tjit.jit(f)(x)), np.sin(_np(x)), rtol=1e-6)
    jaxpr = tjit.make_jaxpr(f)(x)
    assert "custom_jvp_call" in str(jaxpr) and "sin" in str(jaxpr)


def test_defjvps():
    @tjit.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y
    f.defjvps(lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
              lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot)
    x, y = 3., 4.
    np.testing.assert_allclose(float(f(x, y)), np.sin(x) * y, rtol=1e-6)
    gx, gy = tjit.grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose([float(gx), float(gy)], [np.cos(x) * y, np.sin(x)], rtol=1e-6)
    check_grads(f, (jnp.array([0.3, -1.]), jnp.array([2., 0.5])))
    check_vmap(f, (jnp.array([0.3, -1.]), jnp.array([2., 0.5])))


def test_defjvps_none_means_no_contribution():
    @tjit.custom_jvp
    def f(x, y):
        return x * y
    f.defjvps(lambda g, ans, x, y: g * y, None)
    assert float(tjit.grad(f, 1)(2., 3.)) == 0.0
    assert float(tjit.grad(f, 0)(2., 3.)) == 3.0


def test_nondiff_argnums_function_valued():
    @functools.partial(tjit.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    def app_jvp(f, primals, tangents):
        x, = primals
        x_dot, = tangents
        return f(x), 2. * x_dot
    app.defjvp(app_jvp)
    cube = lambda x: x ** 3  # noqa: E731
    assert float(app(cube, 3.)) == 27.0
    assert float(tjit.grad(app, 1)(cube, 3.)) == 2.0
    assert float(tjit.jit(tjit.grad(app, 1), static_argnums=0)(cube, 3.)) == 2.0
    got = tjit.vmap(tjit.grad(app, 1), in_axes=(None, 0))(cube, jnp.arange(3.))
    assert np.array_equal(_np(got), [2., 2., 2.])


@functools.partial(tjit.custom_jvp, nondiff_argnums=(1,))
def scale(x, s):
    return x * s


@scale.defjvp
def _scale_jvp(s, primals, tangents):
    return scale(primals[0], s), tangents[0] * s * 10.


def test_nondiff_argnums_array_valued():
    x, s = jnp.ones(3), jnp.arange(3.)
    want = 10 * _np(s)
    assert np.array_equal(_np(tjit.grad(lambda x, s: scale(x, s).sum())(x, s)), want)
    # the nondiff argument gets no gradient (JAX stops it)
    assert np.array_equal(_np(tjit.grad(lambda s, x: scale(x, s).sum())(s, x)), [0, 0, 0])
    assert np.array_equal(_np(tjit.jit(tjit.grad(lambda x, s: scale(x, s).sum()))(x, s)),
                          want)
    xb, sb = jnp.ones((2, 3)), jnp.arange(6.).reshape(2, 3)
    want_b = 10 * _np(sb)
    for g in (tjit.vmap(tjit.grad(lambda x, s: scale(x, s).sum())),
              tjit.grad(lambda x, s: tjit.vmap(scale)(x, s).sum())):
        assert np.array_equal(_np(g(xb, sb)), want_b)
    _, t = tjit.jvp(lambda x: tjit.vmap(scale)(x, sb), (xb,), (jnp.ones((2, 3)),))
    assert np.array_equal(_np(t), want_b)
    check_vmap(scale, (xb, sb.T), in_axes=(0, 1))
    check_vmap(scale, (xb, s), in_axes=(0, None))


def test_symbolic_zeros():
    seen = []

    @tjit.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append((type(tx), type(ty)))
        t = 0.
        if not isinstance(tx, SymbolicZero):
            t = t + tx * y
        if not isinstance(ty, SymbolicZero):
            t = t + x * ty
        return x * y, t
    f.defjvp(f_jvp, symbolic_zeros=True)
    assert float(tjit.grad(f)(2., 3.)) == 3.0
    assert seen[-1][1] is SymbolicZero and seen[-1][0] is not SymbolicZero
    assert float(tjit.grad(f, 1)(2., 3.)) == 2.0
    assert seen[-1][0] is SymbolicZero


def test_custom_jvp_pytrees_and_kwargs():
    @tjit.custom_jvp
    def f(p, scale=2.0):
        return {"out": p["a"] * scale, "sum": p["a"] + p["b"]}

    @f.defjvp
    def f_jvp(primals, tangents):
        (p, scale), (tp, _) = primals, tangents
        return f(p, scale), {"out": tp["a"] * scale, "sum": tp["a"] + tp["b"]}
    p = {"a": jnp.array(1.5), "b": jnp.array(2.0)}
    g = tjit.grad(lambda p: f(p, scale=3.0)["out"] + f(p)["sum"])(p)
    assert float(g["a"]) == 4.0 and float(g["b"]) == 1.0
    assert float(tjit.jit(lambda p: f(p)["out"])(p)) == 3.0


def test_custom_jvp_errors():
    @tjit.custom_jvp
    def f(x):
        return x
    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function f"):
        f(1.)
    f.defjvp(lambda p, t: p[0])
    with pytest.raises(TypeError, match="must produce a pair"):
        tjit.grad(f)(1.)
    f.defjvp(lambda p, t: ((p[0], p[0]), t[0]))
    with pytest.raises(TypeError, match="container"):
        tjit.grad(lambda x: tjit.jit(f)(x))(1.)
    f.defjvp(lambda p, t: (p[0], jnp.ones(3)))
    with pytest.raises(TypeError, match="corresponding shapes and dtypes"):
        tjit.jvp(f, (1.,), (1.,))
    f.defjvp(lambda p, t: (p[0], t[0].astype(jnp.int32)))
    with pytest.raises(TypeError, match="tangent outputs of the primal dtype"):
        tjit.jvp(f, (jnp.float32(1.),), (jnp.float32(1.),))
    with pytest.raises(TypeError, match="defjvps.*nondiff_argnums"):
        scale.defjvps(None)


def test_custom_jvp_closing_over_a_differentiated_value_is_an_error():
    def k(w):
        @tjit.custom_jvp
        def c(x):
            return x * w
        c.defjvp(lambda p, t: (c(p[0]), t[0] * w))
        return c(2.0)
    with pytest.raises(TypeError, match="closes over a value that is being differentiated"):
        tjit.grad(k)(1.0)


# -- custom_vjp --------------------------------------------------------------------------------
@tjit.custom_vjp
def clip_gradient(lo, hi, x):
    return x  # identity function


def clip_gradient_fwd(lo, hi, x):
    return x, (lo, hi)  # save bounds as residuals


def clip_gradient_bwd(res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))  # use None to indicate zero cotangents


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)


def test_clip_gradient():
    def f(x):  # JAX's clip_sin: the cotangent reaching x is clipped
        return jnp.sin(clip_gradient(-0.75, 0.75, x))
    np.testing.assert_allclose(float(tjit.grad(f)(2.)), np.cos(2.), rtol=1e-6)
    assert float(tjit.grad(f)(0.)) == 0.75  # cos(0) = 1 clipped
    assert float(tjit.jit(tjit.grad(f))(0.)) == 0.75
    xs = jnp.array([0., 2., 3.5])
    want = np.clip(np.cos(_np(xs)), -0.75, 0.75)
    np.testing.assert_allclose(_np(tjit.vmap(tjit.grad(f))(xs)), want, rtol=1e-6)
    np.testing.assert_allclose(_np(tjit.grad(lambda x: tjit.vmap(f)(x).sum())(xs)), want,
                               rtol=1e-6)
    np.testing.assert_allclose(_np(f(xs)), np.sin(_np(xs)), rtol=1e-6)
    assert "custom_vjp_call" in str(tjit.make_jaxpr(f)(1.))


@tjit.custom_vjp
def mulsin(x, y):
    return jnp.sin(x) * y


def _mulsin_fwd(x, y):
    return mulsin(x, y), {"cos": jnp.cos(x), "sin": jnp.sin(x), "y": y}


def _mulsin_bwd(res, g):
    return res["cos"] * res["y"] * g, res["sin"] * g


mulsin.defvjp(_mulsin_fwd, _mulsin_bwd)


def test_custom_vjp_residuals_jit_vmap():
    x, y = jnp.array([0., 1., 2.]), jnp.array([1., 2., 3.])
    gx, gy = np.cos(_np(x)) * _np(y), np.sin(_np(x))
    loss = lambda x, y: mulsin(x, y).sum()  # noqa: E731
    for fn in (tjit.grad(loss, (0, 1)), tjit.jit(tjit.grad(loss, (0, 1)))):
        a, b = fn(x, y)
        np.testing.assert_allclose(_np(a), gx, rtol=1e-6)
        np.testing.assert_allclose(_np(b), gy, rtol=1e-6)
    xb = jnp.stack([x, 2 * x])
    # y unbatched: its cotangent sums over the batch (the batched bwd must reduce)
    a, b = tjit.grad(lambda x, y: tjit.vmap(mulsin, in_axes=(0, None))(x, y).sum(),
                     (0, 1))(xb, y)
    np.testing.assert_allclose(_np(a), np.cos(_np(xb)) * _np(y), rtol=1e-6)
    np.testing.assert_allclose(_np(b), np.sin(_np(xb)).sum(0), rtol=1e-6)
    a, b = tjit.vmap(tjit.grad(loss, (0, 1)), in_axes=(0, None))(xb, y)
    np.testing.assert_allclose(_np(b), np.sin(_np(xb)), rtol=1e-6)
    check_vmap(mulsin, (xb, y), in_axes=(0, None))
    # vjp against float64 central differences of the primal
    ct = np.array([0.3, -1.2, 0.7])
    cx, cy = tjit.vjp(mulsin, x, y)[1](jnp.asarray(ct, jnp.float32))
    xs, ys, eps = _np(x).astype(np.float64), _np(y).astype(np.float64), 1e-6
    fd_x = ct * (np.sin(xs + eps) - np.sin(xs - eps)) / (2 * eps) * ys
    np.testing.assert_allclose(_np(cx), fd_x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(cy), ct * np.sin(xs), rtol=1e-5, atol=1e-6)


def test_custom_vjp_bwd_scales_cotangents_and_higher_order():
    @tjit.custom_vjp
    def f(x):
        return jnp.sin(x)
    f.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (3.0 * jnp.cos(x) * g,))
    x = 0.4
    np.testing.assert_allclose(float(tjit.grad(f)(x)), 3 * np.cos(x), rtol=1e-6)
    # the bwd rule is itself differentiated: d/dx 3 cos(x) = -3 sin(x)
    np.testing.assert_allclose(float(tjit.grad(tjit.grad(f))(x)), -3 * np.sin(x), rtol=1e-5)
    np.testing.assert_allclose(float(tjit.jacfwd(tjit.grad(f))(x)), -3 * np.sin(x), rtol=1e-5)
    _, vjp_fn = tjit.vjp(f, jnp.array([1., 2.]))
    ct, = vjp_fn(jnp.array([1., -1.]))
    np.testing.assert_allclose(_np(ct), 3 * np.cos([1., 2.]) * [1., -1.], rtol=1e-6)


def test_custom_vjp_forward_mode_raises():
    for fn in (lambda: tjit.jvp(mulsin, (1., 2.), (1., 0.)),
               lambda: tjit.jacfwd(mulsin)(1., 2.),
               lambda: tjit.jit(lambda x: tjit.jvp(mulsin, (x, 2.), (1., 0.)))(1.),
               lambda: tjit.vmap(lambda x: tjit.jvp(mulsin, (x, 2.), (1., 0.)))(jnp.ones(2))):
        with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to "
                                            r"a custom_vjp function"):
            fn()
    # a zero tangent needs no rule
    out, t = tjit.jvp(lambda y: mulsin(1., 2.) * y, (1.,), (1.,))
    np.testing.assert_allclose(float(t), 2 * np.sin(1.), rtol=1e-6)


def test_custom_vjp_nondiff_argnums():
    @functools.partial(tjit.custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)
    app.defvjp(lambda f, x: (f(x), x), lambda f, x, g: (5 * g,))
    assert float(tjit.grad(app, 1)(lambda x: x ** 2, 4.)) == 5.0
    with pytest.raises(TypeError, match="nondiff_argnums as non-differentiable"):
        tjit.grad(lambda x: app(x, x))(1.)


def test_custom_vjp_errors():
    @tjit.custom_vjp
    def f(x, y):
        return x * y
    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function f"):
        f(1., 2.)
    f.defvjp(lambda x, y: x * y, lambda r, g: (g, g))
    with pytest.raises(TypeError, match="fwd rule .* must produce a pair"):
        tjit.grad(f)(1., 2.)
    f.defvjp(lambda x, y: (x * y, None), lambda r, g: (g,))
    with pytest.raises(TypeError, match=r"tuple of length equal to the number of "
                                        r"differentiable arguments .*\(2\)"):
        tjit.grad(f)(1., 2.)
    f.defvjp(lambda x, y: (x * y, None), lambda r, g: (jnp.ones(3), g))
    with pytest.raises(ValueError, match="same shape/dtypes"):
        tjit.grad(f)(1., 2.)


def test_custom_vjp_symbolic_zeros():
    seen = []

    @tjit.custom_vjp
    def f(x, y):
        return x * y, x + y

    def fwd(x, y):
        assert isinstance(x, CustomVJPPrimal)
        seen.append((x.perturbed, y.perturbed))
        return f(x.value, y.value), (x.value, y.value)

    def bwd(res, g):
        (x, y), (g1, g2) = res, g
        seen.append((type(g1), type(g2)))
        g1, g2 = (0. if isinstance(g, SymbolicZero) else g for g in (g1, g2))
        return g1 * y + g2, g1 * x + g2
    f.defvjp(fwd, bwd, symbolic_zeros=True)
    assert float(tjit.grad(lambda x: f(x, 3.)[0])(2.)) == 3.0
    assert seen[0] == (True, False)
    assert seen[1][1] is SymbolicZero and seen[1][0] is not SymbolicZero
    g = tjit.vmap(tjit.grad(lambda x, y: f(x, y)[1]))(jnp.ones(2), jnp.arange(2.))
    assert np.array_equal(_np(g), [1., 1.])


def test_custom_vjp_closing_over_a_differentiated_value_is_an_error():
    def k(w):
        @tjit.custom_vjp
        def c(x):
            return x * w
        c.defvjp(lambda x: (c(x), None), lambda r, g: (g * w,))
        return c(2.0)
    with pytest.raises(TypeError, match="closes over a value that is being differentiated"):
        tjit.grad(k)(1.0)


# -- stop_gradient ---------------------------------------------------------------------------
def test_stop_gradient():
    sg = lax.stop_gradient
    assert float(tjit.grad(lambda x: sg(x) * 3.)(2.)) == 0.0
    assert float(tjit.grad(lambda x: sg(x) * x)(2.)) == 2.0  # only the unstopped factor
    assert float(tjit.jit(tjit.grad(lambda x: sg(x) * x))(2.)) == 2.0
    np.testing.assert_array_equal(_np(tjit.vmap(tjit.grad(lambda x: sg(x) * x))(
        jnp.array([1., 2.]))), [1., 2.])
    _, t = tjit.jvp(lambda x: sg(x ** 2) + x, (3.,), (1.,))
    assert float(t) == 1.0
    assert float(tjit.grad(tjit.grad(lambda x: sg(x) * x ** 2))(3.)) == 2 * 3.0
    tree = sg({"a": jnp.array([1., 2.]), "i": jnp.array([1, 2])})
    assert tree["i"].dtype == jnp.int32 and np.array_equal(_np(tree["a"]), [1., 2.])
    assert "stop_gradient" in str(tjit.make_jaxpr(sg)(1.))
    check_vmap(sg, (jnp.arange(6.).reshape(2, 3),), in_axes=1)


# -- tjit.nn custom rules ------------------------------------------------------------------------
def test_relu_derivative_at_zero():
    assert float(tjit.grad(nn.relu)(0.)) == 0.0
    assert float(tjit.grad(nn.relu)(1.)) == 1.0 and float(tjit.grad(nn.relu)(-1.)) == 0.0
    x = jnp.array([-1., 0., 0., 2.])
    np.testing.assert_array_equal(_np(tjit.vmap(tjit.grad(nn.relu))(x)), [0., 0., 0., 1.])
    np.testing.assert_array_equal(_np(tjit.jit(tjit.grad(lambda x: nn.relu(x).sum()))(x)),
                                  [0., 0., 0., 1.])
    np.testing.assert_array_equal(_np(nn.relu(jnp.array([-2, 0, 3]))), [0, 0, 3])


def test_softplus_gradient_stable_and_exact():
    x = jnp.array([-1e4, -100., -3., 0., 3., 100., 1e4])
    g = _np(tjit.vmap(tjit.grad(nn.softplus))(x))
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, _sigmoid(_np(x).astype(np.float64)), rtol=1e-6, atol=1e-30)
    assert float(tjit.grad(nn.softplus)(0.)) == 0.5
    check_grads(nn.softplus, (jnp.array([-30., -2., 0.1, 5., 80.]),), order=2)


def test_logsumexp_log_softmax_softmax_gradients_at_large_inputs():
    x = jnp.array([1000., 1000., 0., -1000.])
    sm = np.array([0.5, 0.5, 0., 0.])
    for f in (nn.logsumexp, lambda x: nn.log_softmax(x)[0] + 2 * nn.softmax(x)[1]):
        g = _np(tjit.grad(f)(x))
        assert np.all(np.isfinite(g))
    np.testing.assert_allclose(_np(tjit.grad(nn.logsumexp)(x)), sm, atol=1e-7)
    # d log_softmax(x)[0] = e_0 - softmax(x)
    np.testing.assert_allclose(_np(tjit.grad(lambda x: nn.log_softmax(x)[0])(x)),
                               np.eye(4)[0] - sm, atol=1e-7)
    # d softmax(x)[0] = y_0 (e_0 - y)
    np.testing.assert_allclose(_np(tjit.grad(lambda x: nn.softmax(x)[0])(x)),
                               0.5 * (np.eye(4)[0] - sm), atol=1e-7)
    xm = jnp.array([[300., 301., -2.], [0.5, -0.5, 2.]])
    check_grads(lambda x: nn.logsumexp(x, axis=1), (xm,), order=2)
    check_grads(lambda x: nn.log_softmax(x, axis=-1), (xm,))
    check_grads(lambda x: nn.softmax(x, axis=0), (xm,), order=2)
    mask = jnp.array([[True, True, False], [True, False, True]])
    check_grads(lambda x: nn.softmax(x, axis=1, where=mask), (xm,))
    check_vmap(lambda x: nn.softmax(x, where=mask[0]), (xm,))
