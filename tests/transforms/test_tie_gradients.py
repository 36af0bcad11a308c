"""Derivatives at ties and kinks.

Functions composed from max/min/abs/where/sort have, at a tie (``x == y``, ``|x| == 0``,
equal elements), the derivative their convention defines, not whatever the composition
happens to give. Each record below is (function, tie point, JAX's gradient there, JAX's
hessian there): the numbers JAX 0.10 returns, its documented conventions (``maximum``
and the max/min reductions split the derivative equally among tied operands, ``abs``
has slope +1 at 0, ``relu``/``relu6`` 0 at their kinks, ``lax.clamp`` 0 at its bounds,
``fmax``/``fmin`` give the tie to the second operand, ``sinc`` is smooth at 0 to every
order, ``logaddexp`` is smooth at ``x == y``). Where a function is smooth at the tie
and JAX's value there is an artifact of its formula (hypot's curvature at |x| == |y|,
i0'' at 0, logaddexp at infinities) the row holds the true value and says so; finite
differences at such ties check it. Each row is checked under grad, jvp, jacfwd (jvp
under vmap), jacrev (vjp), vmap, hessian and jit; finite differences next to the tie
check the rules away from it. Two guards keep the table complete: every jnp ufunc built
on a tie-deciding primitive, and every nn activation, must have a row.
"""

import math
from typing import Any, Callable, NamedTuple

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax, nn
from tjit.numpy import _ufuncs
from tests.transforms.check import check_grads

NAN = np.nan
LN2_4 = math.log(2) / 4  # logaddexp2's curvature at a tie: sigmoid'(0) * ln 2


class Tie(NamedTuple):
    name: str
    f: Callable
    x: Any          # the tie point
    grad: Any       # JAX's gradient at x
    hess: Any = 0   # JAX's hessian at x (0: all zeros; None: not checked)


def _lse_hess(c):
    return [[c, -c], [-c, c]]


_POWERS = np.float32([1., 2., 4., 8., 16.])


def _sort_weighted(v, descending=False):
    return jnp.sum(jnp.sort(v, descending=descending) * jnp.arange(1., 1. + v.shape[0]))


TABLE = [
    # the report: logistic loss at a zero logit; 1.0 / 0.0 before (max + |x - y| composed)
    Tie("logaddexp(0,x)", lambda x: jnp.logaddexp(0., x), 0., 0.5, 0.25),
    Tie("logaddexp(x,0)", lambda x: jnp.logaddexp(x, 0.), 0., 0.5, 0.25),
    Tie("logaddexp(x,x)", lambda x: jnp.logaddexp(x, x), 0., 1.0, 0.),
    Tie("logaddexp(v0,v1)", lambda v: jnp.logaddexp(v[0], v[1]), [0., 0.], [.5, .5],
        _lse_hess(.25)),
    Tie("logaddexp(v0,v1)", lambda v: jnp.logaddexp(v[0], v[1]), [2., 2.], [.5, .5],
        _lse_hess(.25)),
    Tie("logaddexp2(0,x)", lambda x: jnp.logaddexp2(0., x), 0., 0.5, LN2_4),
    Tie("logaddexp2(x,0)", lambda x: jnp.logaddexp2(x, 0.), 0., 0.5, LN2_4),
    Tie("logaddexp2(v0,v1)", lambda v: jnp.logaddexp2(v[0], v[1]), [2., 2.], [.5, .5],
        _lse_hess(LN2_4)),
    Tie("softplus", nn.softplus, 0., 0.5, 0.25),
    Tie("log_sigmoid", nn.log_sigmoid, 0., 0.5, -0.25),
    Tie("logsumexp", nn.logsumexp, [0., 0.], [.5, .5], _lse_hess(.25)),
    Tie("logsumexp(b)", lambda v: nn.logsumexp(v, b=jnp.array([1., 2.])), [0., 0.],
        [1 / 3, 2 / 3], _lse_hess(2 / 9)),
    Tie("logmeanexp", nn.logmeanexp, [1., 1.], [.5, .5], _lse_hess(.25)),
    # max / min: equal split
    Tie("maximum(x,0)", lambda x: jnp.maximum(x, 0.), 0., 0.5),
    Tie("minimum(x,0)", lambda x: jnp.minimum(x, 0.), 0., 0.5),
    Tie("maximum(x,x)", lambda x: jnp.maximum(x, x), 0., 1.0),
    Tie("maximum(v0,v1)", lambda v: jnp.maximum(v[0], v[1]), [1., 1.], [.5, .5]),
    Tie("minimum(v0,v1)", lambda v: jnp.minimum(v[0], v[1]), [1., 1.], [.5, .5]),
    Tie("maximum broadcast", lambda v: jnp.sum(jnp.maximum(v, v[0])), [1., 1., 0.],
        [2.5, .5, 0.]),
    Tie("hinge maximum(0,1-x)", lambda x: jnp.maximum(0., 1. - x), 1., -0.5),
    Tie("max", jnp.max, [1., 3., 3., 2.], [0., .5, .5, 0.]),
    Tie("min", jnp.min, [1., 0., 0., 0.], [0., 1 / 3, 1 / 3, 1 / 3]),
    Tie("amax", jnp.amax, [3., 3., 3.], [1 / 3] * 3),
    Tie("amin", jnp.amin, [3., 3., 3.], [1 / 3] * 3),
    Tie("max(initial)", lambda v: jnp.max(v, initial=1.), [1., 0.], [.5, 0.]),
    Tie("max(axis)", lambda v: jnp.sum(jnp.max(jnp.reshape(v, (2, 2)), axis=1)
                                       * jnp.arange(1., 3.)), [1., 1., 2., 2.],
        [.5, .5, 1., 1.]),
    Tie("nanmax", jnp.nanmax, [1., 3., 3., 2.], [0., .5, .5, 0.]),
    Tie("nanmax(nan)", jnp.nanmax, [NAN, 3., 3.], [0., .5, .5]),
    Tie("nanmin", jnp.nanmin, [1., 0., 0., 0.], [0., 1 / 3, 1 / 3, 1 / 3]),
    Tie("ptp", jnp.ptp, [3., 3., 1., 1.], [.5, .5, -.5, -.5]),
    Tie("lax.reduce_max", lambda v: lax.reduce_max(v, (0,)), [2., 2.], [.5, .5]),
    Tie("clip(x,0,1)", lambda x: jnp.clip(x, 0., 1.), 0., 0.5),
    Tie("clip(x,0,1)", lambda x: jnp.clip(x, 0., 1.), 1., 0.5),
    Tie("clip(v0,v1,v2)", lambda v: jnp.clip(v[0], v[1], v[2]), [0., 0., 1.], [.5, .5, 0.]),
    Tie("clip(v0,v1,v2)", lambda v: jnp.clip(v[0], v[1], v[2]), [1., 0., 1.], [.5, 0., .5]),
    Tie("clip(v0,v1,v2)", lambda v: jnp.clip(v[0], v[1], v[2]), [1., 1., 1.],
        [.25, .25, .5]),
    # fmax/fmin: the tie goes to the second operand
    Tie("fmax(x,0)", lambda x: jnp.fmax(x, 0.), 0., 0.),
    Tie("fmin(x,0)", lambda x: jnp.fmin(x, 0.), 0., 0.),
    Tie("fmax(v0,v1)", lambda v: jnp.fmax(v[0], v[1]), [1., 1.], [0., 1.]),
    Tie("fmin(v0,v1)", lambda v: jnp.fmin(v[0], v[1]), [1., 1.], [0., 1.]),
    # lax.clamp: 0 at either bound (its own rule, not max/min's)
    Tie("lax.clamp(0,x,1)", lambda x: lax.clamp(0., x, 1.), 0., 0.),
    Tie("lax.clamp(0,x,1)", lambda x: lax.clamp(0., x, 1.), 1., 0.),
    Tie("lax.clamp(v1,v0,v2)", lambda v: lax.clamp(v[1], v[0], v[2]), [0., 0., 1.],
        [0., 0., 0.]),
    Tie("lax.clamp(v1,v0,v2)", lambda v: lax.clamp(v[1], v[0], v[2]), [1., 1., 1.],
        [0., 0., 0.]),
    # abs and friends: slope +1 at 0
    Tie("abs", jnp.abs, 0., 1.),
    Tie("fabs", jnp.fabs, 0., 1.),
    Tie("lax.abs", lax.abs, 0., 1.),
    Tie("copysign(x,1)", lambda x: jnp.copysign(x, 1.), 0., 1.),
    Tie("copysign(1,x)", lambda x: jnp.copysign(1., x), 0., 0.),
    Tie("copysign(v0,v1)", lambda v: jnp.copysign(v[0], v[1]), [0., 0.], [1., 0.]),
    Tie("hypot(x,0)", lambda x: jnp.hypot(x, 0.), 0., 0.5),
    Tie("hypot(v0,v1)", lambda v: jnp.hypot(v[0], v[1]), [0., 0.], [.5, .5]),
    # |x| == |y|: hypot is smooth there, its hessian (I - u u^T) / h with u = (x, y) / h;
    # JAX's 0 is an artifact of the max/min in its formula, not followed
    Tie("hypot(v0,v1)", lambda v: jnp.hypot(v[0], v[1]), [1., -1.],
        [.70710677, -.70710677], [[.35355339, .35355339], [.35355339, .35355339]]),
    Tie("hypot(v0,v1)", lambda v: jnp.hypot(v[0], v[1]), [2., 2.],
        [.70710677, .70710677], [[.17677670, -.17677670], [-.17677670, .17677670]]),
    Tie("norm1", lambda v: jnp.linalg.norm(v, ord=1), [0., 0.], [1., 1.]),
    Tie("norm2", jnp.linalg.norm, [0., 0.], [NAN, NAN], [[NAN, NAN], [NAN, NAN]]),
    Tie("norm3", lambda v: jnp.linalg.norm(v, ord=3), [0., 0.], [NAN, NAN],
        [[NAN, NAN], [NAN, NAN]]),
    Tie("norm_inf", lambda v: jnp.linalg.norm(v, ord=np.inf), [1., -1.], [.5, -.5]),
    Tie("norm_-inf", lambda v: jnp.linalg.norm(v, ord=-np.inf), [1., -1.], [.5, -.5]),
    Tie("norm_inf(matrix)", lambda v: jnp.linalg.norm(jnp.reshape(v, (2, 2)), ord=np.inf),
        [1., -1., 2., 0.], [.5, -.5, .5, .5]),
    Tie("norm_1(matrix)", lambda v: jnp.linalg.norm(jnp.reshape(v, (2, 2)), ord=1),
        [1., 2., -1., 0.], [.5, .5, -.5, .5]),
    Tie("std", jnp.std, [1., 1.], [NAN, NAN], [[NAN, NAN], [NAN, NAN]]),
    Tie("var", jnp.var, [1., 1.], [0., 0.], _lse_hess(.5)),
    # activations at their kinks
    Tie("relu", nn.relu, 0., 0.),
    Tie("relu(1-x)", lambda x: nn.relu(1. - x), 1., 0.),
    Tie("relu6", nn.relu6, 0., 0.),
    Tie("relu6", nn.relu6, 6., 0.),
    Tie("hard_tanh", nn.hard_tanh, -1., 1.),
    Tie("hard_tanh", nn.hard_tanh, 1., 1.),
    Tie("leaky_relu", nn.leaky_relu, 0., 1.),
    Tie("elu", nn.elu, 0., 1., 1.),
    Tie("celu", nn.celu, 0., 1., 0.25),
    Tie("selu", nn.selu, 0., 1.7580993, 1.7580993),
    Tie("gelu", nn.gelu, 0., 0.5, 0.7978846),
    Tie("gelu(exact)", lambda x: nn.gelu(x, approximate=False), 0., 0.5, 0.7978846),
    Tie("hard_sigmoid", nn.hard_sigmoid, -3., 0.),
    Tie("hard_sigmoid", nn.hard_sigmoid, 3., 0.),
    Tie("hard_silu", nn.hard_silu, -3., 0.),
    Tie("hard_silu", nn.hard_silu, 3., 1.),
    Tie("sparse_plus", nn.sparse_plus, -1., 0.),
    Tie("sparse_plus", nn.sparse_plus, 1., 1.),
    Tie("sparse_sigmoid", nn.sparse_sigmoid, -1., 0.25),
    Tie("sparse_sigmoid", nn.sparse_sigmoid, 1., 0.25),
    Tie("soft_sign", nn.soft_sign, 0., 1., -2.),
    Tie("squareplus", nn.squareplus, 0., 0.5, 0.25),
    Tie("sigmoid", nn.sigmoid, 0., 0.25, 0.),
    Tie("silu", nn.silu, 0., 0.5, 0.5),
    Tie("mish", nn.mish, 0., 0.6, 0.64),
    Tie("log1mexp", nn.log1mexp, math.log(2), 1., -2.),
    # where-guarded and piecewise-constant
    Tie("sinc", jnp.sinc, 0., 0., -math.pi ** 2 / 3),
    Tie("sign", jnp.sign, 0., 0.),
    Tie("heaviside", lambda x: jnp.heaviside(x, 0.5), 0., 0.),
    Tie("round", jnp.round, 0.5, 0.),
    Tie("trunc", jnp.trunc, 0., 0.),
    Tie("floor", jnp.floor, 1., 0.),
    Tie("ceil", jnp.ceil, 1., 0.),
    Tie("rint", jnp.rint, 0.5, 0.),
    Tie("floor_divide", lambda x: jnp.floor_divide(x, 1.), 1., 0.),
    Tie("divmod", lambda x: jnp.divmod(x, 1.)[0], 1., 0.),
    Tie("divmod", lambda x: jnp.divmod(x, 1.)[1], 1., 1.),
    Tie("divmod", lambda y: jnp.divmod(2., y)[1], 1., -2.),
    Tie("modf", lambda x: jnp.modf(x)[0], 1., 1.),
    Tie("modf", lambda x: jnp.modf(x)[1], 1., 0.),
    Tie("modf", lambda x: jnp.modf(x)[0], 0., 1.),
    # mantissa x * 2**-e: 2**-e where e is constant (bit operations alone gave 0)
    Tie("frexp", lambda x: jnp.frexp(x)[0], 1., 0.5),
    Tie("frexp", lambda x: jnp.frexp(x)[0], 3., 0.25),
    Tie("frexp", lambda x: jnp.frexp(x)[0], 0., 1.),
    Tie("ldexp", lambda x: jnp.ldexp(x, 3), 0., 8.),
    Tie("ldexp", lambda x: jnp.ldexp(x, -1), 3., 0.5),
    # i0 is even and smooth: i0'(0) = 0, i0''(0) = 1/2 (JAX's 0 there comes from its
    # bessel_i1e rule at 0, not followed)
    Tie("i0", jnp.i0, 0., 0., 0.5),
    Tie("remainder(x,1)", lambda x: jnp.remainder(x, 1.), 1., 1.),
    Tie("remainder(v0,v1)", lambda v: jnp.remainder(v[0], v[1]), [2., 1.], [1., -2.]),
    Tie("fmod(v0,v1)", lambda v: jnp.fmod(v[0], v[1]), [2., 1.], [1., -2.]),
    # sort-based: ties keep their (stable) order
    Tie("median", jnp.median, [1., 2., 2., 3.], [0., .5, .5, 0.]),
    Tie("median", jnp.median, [2., 2., 2.], [0., 1., 0.]),
    Tie("median", jnp.median, [1., 1., 2., 2.], [0., .5, .5, 0.]),
    Tie("quantile(.5)", lambda v: jnp.quantile(v, .5), [2., 2., 2., 1.], [.5, .5, 0., 0.]),
    Tie("quantile(lower)", lambda v: jnp.quantile(v, .5, method="lower"), [2., 2., 1.],
        [1., 0., 0.]),
    Tie("percentile(30)", lambda v: jnp.percentile(v, 30.), [2., 2., 2., 1.],
        [.9, 0., 0., .1]),
    # d/dq at a knot of the interpolation (an integer position): 0, as JAX
    Tie("quantile(q) at a knot", lambda q: jnp.quantile(_POWERS, q), 0.25, 0.),
    Tie("percentile(q) at a knot", lambda q: jnp.percentile(_POWERS, q), 50., 0.),
    # the picked value equals the mask value of a max-based selection
    Tie("quantile(0) at -inf", lambda v: jnp.quantile(v, 0.), [-np.inf, 0., 1.], [1., 0., 0.]),
    Tie("quantile(1) at inf", lambda v: jnp.quantile(v, 1.), [np.inf, 0., 1.], [1., 0., 0.]),
    # -0.0 ties with +0.0 (whatever order max/min give them)
    Tie("maximum(v0,v1)", lambda v: jnp.maximum(v[0], v[1]), [0., -0.], [.5, .5]),
    Tie("max", jnp.max, [0., -0.], [.5, .5]),
    Tie("clip(x,0,1)", lambda x: jnp.clip(x, 0., 1.), -0., 0.5),
    Tie("fmax(x,0)", lambda x: jnp.fmax(x, 0.), -0., 0.),
    Tie("abs", jnp.abs, -0., 1.),
    Tie("relu", nn.relu, -0., 0.),
    Tie("sort", _sort_weighted, [1., 1., 2.], [1., 2., 3.]),
    Tie("sort", _sort_weighted, [2., 1., 1.], [3., 1., 2.]),
    Tie("sort(descending)", lambda v: _sort_weighted(v, True), [1., 1., 2.], [3., 2., 1.]),
]
IDS = [f"{t.name}@{t.x}" for t in TABLE]


def _close(got, want, what, t):
    want = np.broadcast_to(np.asarray(want, np.float32), np.shape(got))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6, equal_nan=True,
                               err_msg=f"{t.name} at {t.x}: {what}")


@pytest.mark.parametrize("t", TABLE, ids=IDS)
def test_derivative_at_tie(t):
    x = jnp.asarray(np.float32(t.x))
    for what, df in [("grad", tjit.grad(t.f)), ("jacfwd", tjit.jacfwd(t.f)),
                     ("jacrev", tjit.jacrev(t.f))]:
        _close(df(x), t.grad, what, t)
    ones = jnp.ones_like(x)  # jvp along (1, ..., 1): the sum of the gradient's entries
    _close(tjit.jvp(t.f, (x,), (ones,))[1], np.sum(np.float32(t.grad)), "jvp", t)
    both = tjit.jit(lambda x: (tjit.grad(t.f)(x), tjit.hessian(t.f)(x)))(x)
    _close(both[0], t.grad, "jit(grad)", t)
    if t.hess is not None:
        _close(tjit.hessian(t.f)(x), t.hess, "hessian", t)
        _close(both[1], t.hess, "jit(hessian)", t)


@pytest.mark.parametrize("t", TABLE, ids=IDS)
def test_vmap_at_tie(t):
    xs = jnp.asarray(np.stack([np.float32(t.x)] * 3))
    _close(tjit.vmap(tjit.grad(t.f))(xs), np.stack([np.float32(t.grad)] * 3), "vmap(grad)", t)


NEAR = [t for t in TABLE if np.all(np.isfinite(t.x))]


@pytest.mark.parametrize("t", NEAR, ids=[f"{t.name}@{t.x}" for t in NEAR])
def test_finite_differences_next_to_tie(t):
    rng = np.random.default_rng(sum(map(ord, t.name)))
    x = np.float64(t.x) + 0.05 * rng.choice([-1.0, 1.0], size=np.shape(t.x)) \
        * rng.uniform(0.5, 1.0, size=np.shape(t.x))
    check_grads(t.f, (x,), order=2, eps=1e-4, rtol=2e-3, atol=2e-3)


# Ties where the function itself is smooth: finite differences at the tie are a reference
# too (the derivative there is no convention).
SMOOTH = [t for t in TABLE if t.name.startswith(("logaddexp", "hypot", "softplus", "sinc", "i0",
                                                  "logsumexp", "logmeanexp", "log_sigmoid"))
          and not (t.name.startswith("hypot") and not np.any(t.x))]  # a cone at 0


@pytest.mark.parametrize("t", SMOOTH, ids=[f"{t.name}@{t.x}" for t in SMOOTH])
def test_finite_differences_at_smooth_tie(t):
    check_grads(t.f, (np.float64(t.x),), order=2, eps=1e-4, rtol=2e-3, atol=2e-3)


def test_logaddexp_at_infinities():
    # d/dx log(e^x + e^y) = sigmoid(x - y): (1, 0) at (inf, 0), and the tie value (1/2,
    # 1/2) at (inf, inf). (JAX gives (1, 1) at (inf, 0): its rule maps inf to 0 in
    # exp(y - out), an artifact not followed here.)
    f = tjit.grad(lambda v: jnp.logaddexp(v[0], v[1]))
    for x, want in [([np.inf, 0.], [1., 0.]), ([-np.inf, 0.], [0., 1.]),
                    ([np.inf, np.inf], [.5, .5]), ([NAN, 0.], [NAN, NAN])]:
        for g in (f, tjit.jit(f)):
            np.testing.assert_array_equal(np.asarray(g(jnp.asarray(np.float32(x)))), want)


def test_zero_initialized_logistic_regression():
    # The report: every logit is 0 at a zero init, the tie of logaddexp(0, z). The loss
    # mean(log(1 + e^z) - y z) has gradient X^T (sigmoid(z) - y) / n, here (1/2 - y).
    rng = np.random.default_rng(0)
    X = rng.standard_normal((32, 3)).astype(np.float32)
    y = (rng.uniform(size=32) < 0.3).astype(np.float32)

    def loss(params):
        w, b = params
        z = jnp.matmul(X, w) + b
        return jnp.mean(jnp.logaddexp(0., z) - y * z)

    r = 0.5 - y.astype(np.float64)
    want_w, want_b = X.astype(np.float64).T @ r / len(y), r.mean()
    params = (jnp.zeros(3), jnp.zeros(()))
    for g in (tjit.grad(loss), tjit.jit(tjit.grad(loss))):
        gw, gb = g(params)
        np.testing.assert_allclose(np.asarray(gw), want_w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(float(gb), want_b, rtol=1e-5, atol=1e-6)


# Primitives whose derivative is decided at a tie, a kink or a jump, or which make a
# value from its bits (derivative 0 unless a rule says otherwise).
_TIE_PRIMITIVES = {"max", "min", "abs", "sign", "select_n", "clamp", "floor", "ceil", "round",
                   "rem", "sort", "reduce_max", "reduce_min", "cummax", "cummin",
                   "bitcast_convert_type"}


def _primitive_names(jaxpr, acc):
    for eqn in jaxpr.eqns:
        acc.add(eqn.primitive.name)
        for v in eqn.params.values():
            inner = getattr(v, "jaxpr", v)
            if hasattr(inner, "eqns"):
                _primitive_names(inner, acc)
    return acc


def _call_on_floats(f):
    """(args, outputs) of f on one float32 argument, else two; ((), ()) if it takes neither."""
    for args in ((np.float32(0.5),), (np.float32(0.5), np.float32(0.5))):
        try:
            outs = f(*args)
        except TypeError:
            continue
        return args, outs if isinstance(outs, tuple) else (outs,)
    return (), ()


def test_every_ufunc_with_a_tie_has_a_row():
    # A jnp ufunc built on any of those primitives gets its derivative at the tie checked:
    # a new one (or one rewritten onto them) fails here until it has a row above.
    rows = [getattr(jnp, t.name.split("(")[0], None) for t in TABLE]
    missing = []
    for name in _ufuncs.__all__:
        f = getattr(jnp, name)
        args, outs = _call_on_floats(f)
        if not any(np.issubdtype(o.dtype, np.floating) for o in outs):
            continue  # predicates, integer-only ops: nothing to differentiate
        used = _primitive_names(tjit.make_jaxpr(f)(*args).jaxpr, set())
        if used & _TIE_PRIMITIVES and not any(r is f for r in rows):
            missing.append(f"{name} ({', '.join(sorted(used & _TIE_PRIMITIVES))})")
    assert not missing, f"add tie rows for: {missing}"


# nn's elementwise functions, every one of which must have a row above (a new activation
# with a kink or a where-guard gets its tie checked); the rest are reductions/utilities.
_NN_NOT_ELEMENTWISE = {"identity", "tanh", "glu", "softmax", "log_softmax", "logsumexp",
                       "logmeanexp", "standardize", "normalize", "one_hot", "swish",
                       "hard_swish", "initializers", "dot_product_attention"}


def test_every_nn_activation_has_a_tie_row():
    named = {t.name.split("(")[0] for t in TABLE}
    missing = set(nn.__all__) - _NN_NOT_ELEMENTWISE - named
    assert not missing, f"add tie rows for: {sorted(missing)}"
