"""jax.experimental.hijax.VJPHiPrimitive: values, the rule each transformation uses,
derived rules and errors, checked against NumPy float64, analytic derivatives and
Python loops (the examples follow JAX's custom-derivatives page)."""

from typing import ClassVar

import numpy as np
import pytest

import tjit as jax
import tjit.numpy as jnp
from tjit import grad, jit, jvp, vmap
from tjit.experimental.hijax import (
    NullAccum,
    RefAccum,
    ShapedArray,
    VJPHiPrimitive,
    Zero,
    instantiate_zeros,
    jvp_from_lin,
    linearize_from_jvp,
    vjp_from_jvp,
    vjp_from_lin,
)


class SinTimesY(VJPHiPrimitive):
    def __init__(self, x_aval, y_aval):
        self.in_avals = (x_aval, y_aval)
        self.out_aval = x_aval
        self.params = {}
        super().__init__()

    def expand(self, x, y):
        return jnp.sin(x) * y

    def vjp_fwd(self, nzs_in, x, y):
        return self(x, y), (jnp.cos(x), jnp.sin(x), y)

    def vjp_bwd_retval(self, res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    def jvp(self, primals, tangents):
        (x, y), (x_dot, y_dot) = primals, tangents
        return self(x, y), jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot


def sin_times_y(x, y):
    return SinTimesY(jax.typeof(x), jax.typeof(y))(x, y)


def test_value_jvp_and_grad_match_the_analytic_derivatives():
    x, y = 2.0, 3.0
    np.testing.assert_allclose(sin_times_y(x, y), np.sin(x) * y, rtol=1e-6)
    _, t = jvp(sin_times_y, (x, y), (1.0, 0.5))
    np.testing.assert_allclose(t, np.cos(x) * y + 0.5 * np.sin(x), rtol=1e-6)
    gx, gy = grad(sin_times_y, argnums=(0, 1))(x, y)
    np.testing.assert_allclose([gx, gy], [np.cos(x) * y, np.sin(x)], rtol=1e-6)
    np.testing.assert_allclose(jit(grad(sin_times_y))(x, y), np.cos(x) * y, rtol=1e-6)


class TwoRules(VJPHiPrimitive):
    """Identity whose jvp rule scales by 10 and vjp rule by 3: shows which one ran."""

    def __init__(self, x_aval):
        self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
        super().__init__()

    def expand(self, x):
        return x

    def vjp_fwd(self, nzs_in, x):
        return self(x), None

    def vjp_bwd_retval(self, res, g):
        return (3.0 * g,)

    def jvp(self, primals, tangents):
        return self(*primals), 10.0 * tangents[0]


def test_reverse_mode_uses_the_vjp_rule_and_forward_mode_the_jvp_rule():
    f = lambda x: TwoRules(jax.typeof(x))(x)
    assert float(grad(f)(1.0)) == 3.0
    assert float(jit(grad(f))(1.0)) == 3.0
    assert float(jvp(f, (1.0,), (1.0,))[1]) == 10.0
    assert float(jax.jacfwd(f)(1.0)) == 10.0
    # forward over reverse: the vjp rule inside, its derivative (0) outside
    assert float(jax.jacfwd(grad(f))(1.0)) == 0.0


class Log1pExp(VJPHiPrimitive):
    def __init__(self, x_aval):
        self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
        super().__init__()

    def expand(self, x):
        return jnp.log(1. + jnp.exp(x))

    def vjp_fwd(self, nzs_in, x):
        return self(x), x

    def vjp_bwd_retval(self, x, g):
        return ((1 - 1 / (1 + jnp.exp(x))) * g,)

    def batch_dim_rule(self, axis_data, in_dims):
        return in_dims[0]


def log1pexp(x):
    return Log1pExp(jax.typeof(x))(x)


def test_stable_rule_gives_finite_gradient_and_batches():
    assert float(grad(log1pexp)(100.)) == 1.0  # the naive formula gives nan
    xs = np.linspace(-3, 3, 7).astype(np.float32)
    want = 1 / (1 + np.exp(-xs.astype(np.float64)))
    np.testing.assert_allclose(vmap(jit(grad(log1pexp)))(xs), want, rtol=1e-6)
    np.testing.assert_allclose(vmap(log1pexp)(xs), np.log1p(np.exp(xs.astype(np.float64))),
                               rtol=1e-6)


class FixedPoint(VJPHiPrimitive):
    """Implicit differentiation of a fixed point (the page's Newton square root)."""

    def __init__(self, a_aval, x_aval, *, f):
        self.in_avals, self.out_aval, self.params = (a_aval, x_aval), x_aval, {"f": f}
        super().__init__()

    def expand(self, a, x_guess):
        def body(carry):
            _, x = carry
            return x, self.f(a, x)
        return jax.lax.while_loop(lambda c: jnp.abs(c[0] - c[1]) > 1e-6, body,
                                  (x_guess, self.f(a, x_guess)))[1]

    def vjp_fwd(self, nzs_in, a, x_guess):
        x_star = self(a, x_guess)
        return x_star, (a, x_star)

    def vjp_bwd_retval(self, res, x_star_bar):
        a, x_star = res
        _, vjp_a = jax.vjp(lambda a: self.f(a, x_star), a)
        _, vjp_x = jax.vjp(lambda x: self.f(a, x), x_star)
        # u = x_bar + (df/dx)^T u, solved by iteration (|df/dx| < 1 at the fixed point)
        u = jax.lax.fori_loop(0, 30, lambda i, u: x_star_bar + vjp_x(u)[0], x_star_bar)
        return vjp_a(u)[0], jnp.zeros_like(x_star)


def newton_sqrt(a):
    update = lambda a, x: 0.5 * (x + a / x)
    return FixedPoint(jax.typeof(a), jax.typeof(a), f=update)(a, a)


def test_implicit_gradient_of_a_fixed_point_matches_sqrt_derivatives():
    np.testing.assert_allclose(newton_sqrt(2.), np.sqrt(2.), rtol=1e-6)
    np.testing.assert_allclose(grad(newton_sqrt)(2.), 0.5 / np.sqrt(2.), rtol=1e-5)
    np.testing.assert_allclose(grad(grad(newton_sqrt))(2.), -0.25 * 2. ** -1.5, rtol=1e-4)


class Mul2(VJPHiPrimitive):
    seen: ClassVar[list] = []

    def __init__(self, x_aval, y_aval):
        self.in_avals, self.out_aval, self.params = (x_aval, y_aval), x_aval, {}
        super().__init__()

    def expand(self, x, y):
        return x * y

    def vjp_fwd(self, nzs_in, x, y):
        Mul2.seen.append(tuple(nzs_in))
        x_nz, y_nz = nzs_in
        return self(x, y), (x if y_nz else None, y if x_nz else None)

    def vjp_bwd_retval(self, res, g):
        x, y = res
        return (g * y if y is not None else None, x * g if x is not None else None)

    def batch_dim_rule(self, axis_data, in_dims):
        x_dim, y_dim = in_dims
        return y_dim if x_dim is None else x_dim


def mul2(x, y):
    return Mul2(jax.typeof(x), jax.typeof(y))(x, y)


def test_nzs_in_says_which_inputs_are_differentiated():
    Mul2.seen.clear()
    assert float(grad(mul2, 0)(2., 3.)) == 3.0
    assert float(grad(mul2, 1)(2., 3.)) == 2.0
    assert Mul2.seen == [(True, False), (False, True)]


def test_batch_dim_rule_against_a_python_loop():
    x = np.arange(3.).astype(np.float32)
    y = x + 1
    np.testing.assert_allclose(vmap(mul2)(x, y), [a * b for a, b in zip(x, y)])
    np.testing.assert_allclose(vmap(mul2, in_axes=(0, None))(x, 2.), 2 * x)
    np.testing.assert_allclose(vmap(grad(mul2))(x, y), y)
    np.testing.assert_allclose(grad(lambda v: jnp.sum(vmap(mul2)(v, y)))(x), y)


class MatVec(VJPHiPrimitive):
    calls: ClassVar[list] = []

    def __init__(self, A_aval, x_aval):
        self.in_avals = (A_aval, x_aval)
        self.out_aval = ShapedArray((A_aval.shape[0],), A_aval.dtype)
        self.params = {}
        super().__init__()

    def expand(self, A, x):
        return A @ x

    def batch(self, axis_data, args, dims):
        MatVec.calls.append((axis_data.size, dims))
        A, X = args
        X = jnp.moveaxis(X, dims[1], 0)
        return X @ A.T, 0


def test_custom_batch_rule_is_used_and_correct():
    MatVec.calls.clear()
    A = np.arange(6.).reshape(2, 3).astype(np.float32)
    xs = np.arange(12.).reshape(4, 3).astype(np.float32)
    out = vmap(lambda A, x: MatVec(jax.typeof(A), jax.typeof(x))(A, x),
               in_axes=(None, 0))(A, xs)
    np.testing.assert_allclose(out, np.stack([A @ x for x in xs]))
    assert MatVec.calls == [(4, (None, 0))]


class FPt(VJPHiPrimitive):
    """Pytree input and output; the backward rule cleans up symbolic zeros."""

    def __init__(self, pt_aval):
        self.in_avals = (pt_aval,)
        self.out_aval = {'a': pt_aval[0], 'b': (pt_aval[0], pt_aval[1])}
        self.params = {}
        super().__init__()

    def expand(self, pt):
        return {'a': pt[0] ** 2, 'b': (jnp.sin(pt[0]), jnp.cos(pt[1]))}

    def vjp_fwd(self, nzs_in, pt):
        return self(pt), pt

    def vjp_bwd_retval(self, pt, g):
        g = jax.tree.map(instantiate_zeros, g, is_leaf=lambda x: isinstance(x, Zero))
        a_bar, (b0_bar, b1_bar) = g['a'], g['b']
        return ((2 * pt[0] * a_bar + jnp.cos(pt[0]) * b0_bar,
                 -jnp.sin(pt[1]) * b1_bar),)


def test_pytree_arguments_and_unused_outputs():
    def fun(pt):
        d = FPt(jax.tree.map(jax.typeof, pt))(pt)
        return d['a'] + d['b'][0]          # d['b'][1] unused: a zero cotangent
    gx, gy = grad(fun)((1., 2.))
    np.testing.assert_allclose([gx, gy], [2 + np.cos(1.), 0.], rtol=1e-6)


class TakeElt(VJPHiPrimitive):
    def __init__(self, x_aval, i):
        self.in_avals = (x_aval,)
        self.out_aval = ShapedArray((), x_aval.dtype)
        self.params = {"i": i}
        super().__init__()

    def expand(self, x):
        return x[self.i]

    def vjp_fwd(self, nzs_in, x):
        return self(x), None

    def vjp_bwd(self, res, g, x_acc):
        if isinstance(x_acc, NullAccum):
            return
        elif isinstance(x_acc, RefAccum):
            x_acc.ref[self.i] += g
        else:
            x_acc.accum(jnp.zeros(x_acc.aval.shape, x_acc.aval.dtype).at[self.i].add(g))
            x_acc.accum(jnp.zeros(x_acc.aval.shape, x_acc.aval.dtype).at[0].add(g))


class MulAcc(VJPHiPrimitive):
    kinds: ClassVar[list] = []

    def __init__(self, x_aval, y_aval):
        self.in_avals, self.out_aval, self.params = (x_aval, y_aval), x_aval, {}
        super().__init__()

    def expand(self, x, y):
        return x * y

    def vjp_fwd(self, nzs_in, x, y):
        return self(x, y), (x, y)

    def vjp_bwd(self, res, g, x_acc, y_acc):
        MulAcc.kinds.append((type(x_acc).__name__, type(y_acc).__name__))
        x, y = res
        x_acc.accum(g * y)
        y_acc.accum(g * x)


def test_vjp_bwd_gets_null_accumulators_for_inputs_not_differentiated():
    mul = lambda x, y: MulAcc(jax.typeof(x), jax.typeof(y))(x, y)
    MulAcc.kinds.clear()
    assert float(grad(mul, 0)(2., 3.)) == 3.0
    assert float(grad(mul, 1)(2., 3.)) == 2.0
    assert [float(v) for v in grad(mul, (0, 1))(2., 3.)] == [3.0, 2.0]
    assert MulAcc.kinds == [("ValAccum", "NullAccum"), ("NullAccum", "ValAccum"),
                            ("ValAccum", "ValAccum")]


def test_vjp_bwd_accumulates_into_the_input_cotangent():
    x = jnp.arange(10.)
    want = np.zeros(10)
    want[3] += 1
    want[0] += 1        # the rule accumulates twice: both land
    np.testing.assert_allclose(grad(lambda x: TakeElt(jax.typeof(x), 3)(x))(x), want)


class SinFromJvp(VJPHiPrimitive):
    def __init__(self, x_aval):
        self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
        super().__init__()

    def expand(self, x):
        return jnp.sin(x)

    def jvp(self, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return self(x), jnp.cos(x) * x_dot

    lin, linearized = linearize_from_jvp
    vjp_fwd, vjp_bwd_retval = vjp_from_lin


class SinVjpFromJvp(SinFromJvp):
    vjp_fwd, vjp_bwd_retval = vjp_from_jvp


class SinFromLin(VJPHiPrimitive):
    def __init__(self, x_aval):
        self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
        super().__init__()

    def expand(self, x):
        return jnp.sin(x)

    def lin(self, nzs_in, x):
        return self(x), jnp.cos(x)

    def linearized(self, cos_x, x_dot):
        return cos_x * x_dot

    jvp = jvp_from_lin
    vjp_fwd, vjp_bwd_retval = vjp_from_lin


@pytest.mark.parametrize("cls", [SinFromJvp, SinVjpFromJvp, SinFromLin])
def test_derived_rules_give_sin_derivatives(cls):
    sin = lambda x: cls(jax.typeof(x))(x)
    x = 3.0
    np.testing.assert_allclose(grad(sin)(x), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(grad(grad(sin))(x), -np.sin(x), rtol=1e-5)
    _, f_lin = jax.linearize(sin, x)
    np.testing.assert_allclose(f_lin(1.0), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(jvp(sin, (x,), (2.0,))[1], 2 * np.cos(x), rtol=1e-6)


def test_circular_derivation_is_refused():
    class Circle(SinFromLin):
        lin, linearized = linearize_from_jvp
    with pytest.raises(AttributeError, match="one of the two rules"):
        Circle(jax.typeof(1.0))


class Noisy(VJPHiPrimitive):
    expands = 0

    def __init__(self, x_aval):
        self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
        super().__init__()

    def expand(self, x):
        Noisy.expands += 1
        return jnp.sin(x)


def test_eager_calls_expand_each_time_jit_traces_once():
    noisy = lambda x: Noisy(jax.typeof(x))(x)
    Noisy.expands = 0
    noisy(3.)
    noisy(3.)
    assert Noisy.expands == 2
    f = jit(noisy)
    f(3.)
    f(4.)
    assert Noisy.expands == 3


class G(VJPHiPrimitive):
    def __init__(self, x_aval):
        self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
        super().__init__()

    def expand(self, x):
        return jnp.sin(x) if x > 0 else jnp.cos(x)

    def vjp_fwd(self, nzs_in, x):
        return self(x), x

    def vjp_bwd_retval(self, x, g):
        return (2 * g,) if x > 0 else (3 * g,)


def test_python_control_flow_in_rules_works_eagerly():
    g = lambda x: G(jax.typeof(x))(x)
    assert float(grad(g)(1.)) == 2.0
    assert float(grad(g)(-1.)) == 3.0


def test_errors_name_the_missing_rule_or_the_mismatch():
    class NoInit(VJPHiPrimitive):
        def __init__(self):
            self.in_avals, self.params = (), {}
            super().__init__()
    with pytest.raises(AttributeError, match="out_aval"):
        NoInit()

    f = lambda x: Noisy(jax.typeof(x))(x)
    with pytest.raises(NotImplementedError, match="vjp_fwd"):
        grad(f)(1.0)
    with pytest.raises(NotImplementedError, match="batch_dim_rule"):
        vmap(f)(jnp.ones(3))
    with pytest.raises(NotImplementedError, match="for jvp support"):
        jvp(f, (1.0,), (1.0,))
    with pytest.raises(NotImplementedError, match="for jvp support"):
        jvp(log1pexp, (1.0,), (1.0,))    # a vjp rule only
    with pytest.raises(TypeError, match="declares f32\\[\\]"):
        Noisy(jax.typeof(1.0))(jnp.ones(3))

    class BadOut(Noisy):
        def expand(self, x):
            return jnp.stack([x, x])
    with pytest.raises(TypeError, match="out_aval declares"):
        BadOut(jax.typeof(1.0))(1.0)
