"""Taylor-series rules of tjit's primitives for ``tjit.experimental.jet``.

Every rule maps the primals and *unscaled* Taylor coefficients of its operands (``u =
[u0, u1, ..., uK]`` stands for ``u0 + u1 t + ... + uK t^K``) to those of its output,
running under the parent trace. The recurrences are the classical ones of Taylor-mode
AD (Griewank & Walther, "Evaluating Derivatives", ch. 13): a product is a Cauchy
product; ``y = f(u)`` with ``f' = g`` gives ``k y_k = sum_{j=1..k} j u_j g_{k-j}``; a
power ``y = u^r`` solves ``u y' = r u' y``. What has an exact cheaper form (a linear
map, a selection, a composition of ruled primitives) uses it.

Kinds of rule (each registered in :data:`jet_rules` below):

* zero: piecewise-constant results of floating type (floor, sign, stop_gradient...).
  Integer and boolean results need no rule (the trace gives them zero series).
* linear: the primitive applied to each coefficient (add, reshape, gather, fft...).
* nonlinear: Cauchy products, the derivative recurrence, power recurrence, sinusoids.
* call primitives (custom_jvp, custom_vjp, checkpoint): the body's series, so, as in
  JAX, a custom_jvp/custom_vjp function is expanded through its primal definition.
"""

import functools
import itertools

import numpy as np

import tjit.numpy as jnp
from tjit import lax
from tjit.tracing import dtypes
from tjit.tracing.core import Tracer, get_aval
from tjit.tracing.jaxpr import eval_jaxpr
from tjit.primitives import collectives as co
from tjit.primitives import elementwise as ew
from tjit.primitives import indexing as ix
from tjit.primitives import reductions as rd
from tjit.primitives import slicing as sl
from tjit.primitives import special as sp
from tjit.primitives import structural as st
from tjit.primitives.ad_prims import (
    CALL_JAXPR_PARAM, checkpoint_name_p, stop_gradient_p)
from tjit.primitives.sharding_constraint import sharding_constraint_p
from tjit.primitives.complex_square import square_p
from tjit.primitives.conv import conv_general_dilated_p
from tjit.primitives.dot import dot_general_p
from tjit.primitives.fma import fma_p
from tjit.primitives.fft import fft_p
from tjit.primitives import windowed as win
from tjit.experimental._jet_trace import (
    jet_call, jet_flat, jet_rules, no_rule, zero_series)


def keeps_zero_series(rule):
    """Mark ``rule`` as taking :data:`zero_series` for operands that do not vary (it
    has a cheaper or more exact form then) instead of instantiated zeros."""
    rule.keeps_zero_series = True
    return rule


# -- zero and linear rules ------------------------------------------------------------------
def defzero(prim):
    def rule(primals, series, **params):
        out = prim.bind(*primals, **params)
        return out, ([zero_series] * len(out) if prim.multiple_results else zero_series)
    jet_rules[prim] = rule


def deflinear(prim, n_linear=None):
    """``prim`` is linear in its first ``n_linear`` operands (all by default), the
    others (indices) taken from the primals."""
    def rule(primals, series, **params):
        k = len(primals) if n_linear is None else n_linear
        out = prim.bind(*primals, **params)
        terms = [prim.bind(*ts[:k], *primals[k:], **params) for ts in zip(*series)]
        if not prim.multiple_results:
            return out, terms
        return out, [[t[i] for t in terms] for i in range(len(out))]
    jet_rules[prim] = rule


for _p in (ew.floor_p, ew.ceil_p, ew.round_p, ew.sign_p, stop_gradient_p):
    defzero(_p)

for _p in (ew.neg_p, ew.add_p, ew.sub_p, ew.real_p, ew.imag_p, ew.conj_p, ew.complex_p,
           ew.convert_element_type_p, st.broadcast_in_dim_p, st.reshape_p, st.squeeze_p,
           st.expand_dims_p, st.transpose_p, sl.concatenate_p, sl.pad_p, sl.slice_p,
           sl.rev_p, rd.reduce_sum_p, rd.cumsum_p, win.reduce_window_sum_p, fft_p,
           checkpoint_name_p, sharding_constraint_p):
    deflinear(_p)

for _p in (co.psum_p, co.psum_scatter_p, co.all_gather_p, co.all_to_all_p, co.ppermute_p):
    deflinear(_p)   # collectives that move or sum values: linear maps

deflinear(sl.dynamic_slice_p, n_linear=1)          # operand, *start_indices
deflinear(sl.dynamic_update_slice_p, n_linear=2)   # operand, update, *start_indices
deflinear(ix.gather_p, n_linear=1)                 # operand, indices


def _scatter_linear(prim):
    """scatter (set), scatter-add/sub: linear in (operand, updates) at fixed indices."""
    def rule(primals, series, **params):
        operand, indices, updates = primals
        out = prim.bind(operand, indices, updates, **params)
        return out, [prim.bind(a, indices, b, **params) for a, _, b in zip(*series)]
    jet_rules[prim] = rule


for _p in (ix.scatter_p, ix.scatter_add_p, ix.scatter_sub_p):
    _scatter_linear(_p)


def _select_n_rule(primals, series, **params):
    which, *cases = primals
    return (ew.select_n_p.bind(which, *cases),
            [ew.select_n_p.bind(which, *ts[1:]) for ts in zip(*series)])


jet_rules[ew.select_n_p] = _select_n_rule


# -- products -------------------------------------------------------------------------------
def _bilinear(prim):
    """Cauchy product ``v_k = sum_j op(u_j, w_{k-j})``; one linear map when an operand
    does not vary."""
    @keeps_zero_series
    def rule(primals, series, **params):
        op = functools.partial(prim.bind, **params)
        x, y = primals
        xs, ys = series
        if ys is zero_series:
            return op(x, y), [op(t, y) for t in xs]
        if xs is zero_series:
            return op(x, y), [op(x, t) for t in ys]
        u, w = [x] + xs, [y] + ys
        v = [sum_terms(op(u[j], w[k - j]) for j in range(k + 1)) for k in range(len(u))]
        return v[0], v[1:]
    jet_rules[prim] = rule


for _p in (ew.mul_p, dot_general_p, conv_general_dilated_p):
    _bilinear(_p)


def _fma_rule(primals, series):
    """fma(a, b, c) = a b + c: the product's Cauchy series plus c's (the primal once
    rounded, as fma; the higher terms rounded per op, as mul's)."""
    a, b, c = primals
    u, w = [a] + list(series[0]), [b] + list(series[1])
    out = [sum_terms([ew.mul_p.bind(u[j], w[k - j]) for j in range(k + 1)] + [ck])
           for k, ck in enumerate(series[2], start=1)]
    return fma_p.bind(a, b, c), out


jet_rules[fma_p] = _fma_rule


def deriv_conv(a, b, k):
    """``(1/k) sum_{j=1..k} j a_j b_{k-j}``: the k-th coefficient of ``y`` where
    ``y' = a' b`` (``a``, ``b``: coefficient lists)."""
    return sum_terms(_times(j / k, a[j]) * b[k - j] for j in range(1, k + 1))


def _times(c, x):
    """``c * x``, skipping the product when ``c`` is 1."""
    return x if c == 1 else c * x


def sum_terms(terms):
    """Sum without Python's leading integer 0 (which would change a weak type)."""
    terms = iter(terms)
    total = next(terms)
    for t in terms:
        total = total + t
    return total


def _div_rule(primals, series):
    x, y = primals
    u, w = [x] + series[0], [y] + series[1]
    v = []
    for k in range(len(u)):
        conv = sum_terms([u[k]] + [-(v[j] * w[k - j]) for j in range(k)])
        v.append(conv / w[0])
    return v[0], v[1:]


jet_rules[ew.div_p] = _div_rule


# -- the derivative recurrence: y = f(u), f' = g  =>  k y_k = sum_j j u_j g_{k-j} --------------
def _from_derivative(u, y0, g):
    """Coefficients of ``y`` from those of ``u`` and of ``g = f'(u)`` (``g[:K]``)."""
    y = [y0]
    for k in range(1, len(u)):
        y.append(deriv_conv(u, g, k))
    return y


def derivative_rule(fun, deriv):
    """Rule for a unary function ``fun(x)`` (a primitive's bind) whose derivative is the
    traceable ``deriv(x)``. The derivative's series is needed to one order less, so
    rules defined through each other (lgamma -> digamma -> polygamma) terminate."""
    def rule(primals, series, **params):
        x, = primals
        terms, = series
        y0 = fun(x, **params)
        if not terms:
            return y0, []
        g0, gs = jet_call(deriv, [x], [terms[:-1]])
        return y0, _from_derivative([x] + terms, y0, [g0] + gs)[1:]
    return rule


def _exp_series(u, y0):
    """exp: y' = y u' (the output is its own derivative)."""
    y = [y0]
    for k in range(1, len(u)):
        y.append(deriv_conv(u, y, k))
    return y


def _exp_rule(primals, series):
    x, = primals
    y = _exp_series([x] + series[0], lax.exp(x))
    return y[0], y[1:]


def _expm1_rule(primals, series):
    # the coefficients are exp's (its value exp(x) = expm1(x) + 1); the primal keeps
    # expm1's accuracy near 0
    x, = primals
    y = _exp_series([x] + series[0], lax.exp(x))
    return lax.expm1(x), y[1:]


def _exp2_rule(primals, series):
    x, = primals
    ln2 = np.log(2.0)
    y = _exp_series([x * ln2] + [t * ln2 for t in series[0]], lax.exp2(x))
    return y[0], y[1:]


def _log_series(u, y0):
    """log: u y' = u'  =>  y_k = (u_k - sum_{j<k} (j/k) y_j u_{k-j}) / u_0."""
    y = [y0]
    for k in range(1, len(u)):
        acc = sum_terms([u[k]] + [-_times(j / k, y[j]) * u[k - j] for j in range(1, k)])
        y.append(acc / u[0])
    return y


def _log_rule(primals, series):
    x, = primals
    y = _log_series([x] + series[0], lax.log(x))
    return y[0], y[1:]


def _log1p_rule(primals, series):
    x, = primals
    y = _log_series([1 + x] + series[0], lax.log1p(x))
    return y[0], y[1:]


jet_rules[ew.exp_p] = _exp_rule
jet_rules[ew.expm1_p] = _expm1_rule
jet_rules[ew.exp2_p] = _exp2_rule
jet_rules[ew.log_p] = _log_rule
jet_rules[ew.log1p_p] = _log1p_rule


def power_series(u, r, y0):
    """``y = u^r`` for a constant ``r``: ``u y' = r u' y`` gives
    ``k u_0 y_k = sum_{j=1..k} (r j - (k - j)) u_j y_{k-j}``."""
    y = [y0]
    for k in range(1, len(u)):
        acc = sum_terms((r * j - (k - j)) * u[j] * y[k - j] for j in range(1, k + 1))
        y.append(acc / (k * u[0]))
    return y


def _power_rule(prim, r):
    def rule(primals, series):
        x, = primals
        y = power_series([x] + series[0], r, prim.bind(x))
        return y[0], y[1:]
    jet_rules[prim] = rule


_power_rule(ew.sqrt_p, 0.5)
_power_rule(ew.rsqrt_p, -0.5)
_power_rule(ew.cbrt_p, 1.0 / 3.0)


def _pow_by_squaring(x, n):
    """``x ** n`` for a Python int ``n`` by multiplications only (exact at x = 0)."""
    if n < 0:
        return _pow_by_squaring(1 / x, -n)
    acc = None
    while n:
        if n & 1:
            acc = x if acc is None else acc * x
        n >>= 1
        if n:
            x = x * x
    return acc


def _integer_pow_rule(primals, series, *, y):
    x, = primals
    if y == 0:
        return ew.integer_pow_p.bind(x, y=0), zero_series
    return jet_call(lambda a: _pow_by_squaring(a, y), primals, series)


jet_rules[ew.integer_pow_p] = _integer_pow_rule


def _square_rule(primals, series):
    """complex ``lax.square``: the series of ``z * z``, the primal from square itself."""
    _, terms = jet_call(lambda a: a * a, primals, series)
    return square_p.bind(*primals), terms


jet_rules[square_p] = _square_rule


def _small_integer(r):
    """``r`` as a Python int when it is a concrete scalar with an integer value."""
    if isinstance(r, Tracer) or np.ndim(r) != 0 or dtypes.is_complex(get_aval(r).dtype):
        return None
    v = float(r)
    return int(v) if v.is_integer() and abs(v) <= 64 else None


@keeps_zero_series
def _pow_rule(primals, series):
    x, r = primals
    xs, rs = series
    if xs is zero_series:   # c ** y(t) = exp(y(t) log c); the primal from pow itself
        log_c = lax.log(x)
        y = _exp_series([r * log_c] + [t * log_c for t in rs], ew.pow_p.bind(x, r))
        return y[0], y[1:]
    if rs is zero_series:   # x(t) ** c: the power recurrence (valid for x < 0 too)
        n = _small_integer(r)
        if n is not None:
            return ew.pow_p.bind(x, r), jet_call(lambda a: _pow_by_squaring(a, n),
                                                 [x], [xs])[1]
        y = power_series([x] + xs, r, ew.pow_p.bind(x, r))
        return y[0], y[1:]
    # both vary: exp(r log x)
    z0, zs = jet_call(lambda a, b: b * lax.log(a), [x, r], [xs, rs])
    y = _exp_series([z0] + zs, ew.pow_p.bind(x, r))
    return y[0], y[1:]


jet_rules[ew.pow_p] = _pow_rule


# -- trigonometric and hyperbolic ----------------------------------------------------------------
def _sin_cos_series(u, s0, c0, sign):
    """s' = c u', c' = sign * s u' (sign -1: sin/cos, +1: sinh/cosh)."""
    s, c = [s0], [c0]
    for k in range(1, len(u)):
        s.append(deriv_conv(u, c, k))
        c.append(sign * deriv_conv(u, s, k))
    return s, c


def _sinusoid(prim, pair, which, sign):
    def rule(primals, series):
        x, = primals
        s, c = _sin_cos_series([x] + series[0], pair[0](x), pair[1](x), sign)
        y = (s, c)[which]
        return y[0], y[1:]
    jet_rules[prim] = rule


_sinusoid(ew.sin_p, (lax.sin, lax.cos), 0, -1)
_sinusoid(ew.cos_p, (lax.sin, lax.cos), 1, -1)
_sinusoid(ew.sinh_p, (lax.sinh, lax.cosh), 0, 1)
_sinusoid(ew.cosh_p, (lax.sinh, lax.cosh), 1, 1)


def _quadratic_ode(prim, a, b):
    """``y' = (a + b y^2) u'``: tan (1, 1), tanh (1, -1). The derivative's series is
    built from ``y``'s own as the recurrence goes."""
    def rule(primals, series):
        x, = primals
        u = [x] + series[0]
        y = [prim.bind(x)]
        g = [a + b * y[0] * y[0]]
        for k in range(1, len(u)):
            y.append(deriv_conv(u, g, k))
            g.append(b * sum_terms(y[j] * y[k - j] for j in range(k + 1)))
        return y[0], y[1:]
    jet_rules[prim] = rule


_quadratic_ode(ew.tan_p, 1, 1)
_quadratic_ode(ew.tanh_p, 1, -1)


def _logistic_rule(primals, series):
    """s' = s (1 - s) u'."""
    x, = primals
    u = [x] + series[0]
    s = [lax.logistic(x)]
    g = [s[0] * (1 - s[0])]
    for k in range(1, len(u)):
        s.append(deriv_conv(u, g, k))
        g.append(s[k] - sum_terms(s[j] * s[k - j] for j in range(k + 1)))
    return s[0], s[1:]


jet_rules[ew.logistic_p] = _logistic_rule

_DERIVATIVES = {
    ew.atan_p: lambda x: 1 / (1 + x * x),
    ew.asin_p: lambda x: lax.rsqrt(1 - x * x),
    ew.acos_p: lambda x: -lax.rsqrt(1 - x * x),
    ew.asinh_p: lambda x: lax.rsqrt(x * x + 1),
    ew.acosh_p: lambda x: lax.rsqrt(x * x - 1),
    ew.atanh_p: lambda x: 1 / (1 - x * x),
    ew.erf_p: lambda x: (2 / np.sqrt(np.pi)) * lax.exp(-(x * x)),
    ew.erfc_p: lambda x: (-2 / np.sqrt(np.pi)) * lax.exp(-(x * x)),
    ew.lgamma_p: lax.digamma,
    ew.digamma_p: lambda x: lax.polygamma(jnp.ones_like(x), x),
    sp.ndtri_p: lambda p: np.sqrt(2 * np.pi) * lax.exp(0.5 * lax.square(sp.ndtri_p.bind(p))),
    sp.fresnel_sin_p: lambda x: lax.sin((np.pi / 2) * (x * x)),
    sp.fresnel_cos_p: lambda x: lax.cos((np.pi / 2) * (x * x)),
    # w'(z) = 2i/sqrt(pi) - 2 z w(z)
    sp.wofz_p: lambda z: 2j / np.sqrt(np.pi) - 2 * z * sp.wofz_p.bind(z),
}
for _p, _d in _DERIVATIVES.items():
    jet_rules[_p] = derivative_rule(_p.bind, _d)


@keeps_zero_series
def _polygamma_rule(primals, series):
    n, x = primals
    if series[0] is not zero_series:
        raise NotImplementedError("jet: polygamma(n, x) with a varying order n has no "
                                  "Taylor series (n is an integer); keep n constant")
    # d/dx polygamma(n, x) = polygamma(n + 1, x)
    return derivative_rule(lambda a: sp.polygamma_p.bind(n, a),
                           lambda a: sp.polygamma_p.bind(n + 1, a))([x], [series[1]])


jet_rules[sp.polygamma_p] = _polygamma_rule


@keeps_zero_series
def _zeta_rule(primals, series):
    s, q = primals
    if series[0] is not zero_series:
        raise NotImplementedError("jet: zeta(s, q) has no rule for a varying s (tjit "
                                  "differentiates it in q only); keep s constant")
    # d/dq zeta(s, q) = -s zeta(s + 1, q)
    return derivative_rule(lambda a: sp.zeta_p.bind(s, a),
                           lambda a: -s * sp.zeta_p.bind(s + 1, a))([q], [series[1]])


jet_rules[sp.zeta_p] = _zeta_rule


def _erf_inv_rule(primals, series):
    """y = erf_inv(u): y' = (sqrt(pi)/2) exp(y^2) u'; exp(y^2)'s series grows with y's."""
    x, = primals
    u = [x] + series[0]
    y = [lax.erf_inv(x)]
    sq = [y[0] * y[0]]
    e = [lax.exp(sq[0])]
    half_sqrt_pi = np.sqrt(np.pi) / 2
    for k in range(1, len(u)):
        y.append(half_sqrt_pi * deriv_conv(u, e, k))
        sq.append(sum_terms(y[j] * y[k - j] for j in range(k + 1)))
        e.append(deriv_conv(sq, e, k))
    return y[0], y[1:]


jet_rules[ew.erf_inv_p] = _erf_inv_rule


def _atan2_rule(primals, series):
    """theta = atan2(x, y): ``theta' r = y x' - x y'`` with ``r = x^2 + y^2``, whose
    t^(k-1) terms give ``k r_0 theta_k = sum_{j=1..k} j (y_{k-j} x_j - x_{k-j} y_j) -
    sum_{j=1..k-1} j theta_j r_{k-j}``. Unlike going through x / y (JAX), this holds
    where y = 0 too; only r_0 = 0 is singular."""
    x, y = primals
    xs, ys = [x] + series[0], [y] + series[1]
    r = [sum_terms(xs[j] * xs[k - j] + ys[j] * ys[k - j] for j in range(k + 1))
         for k in range(len(xs))]
    theta = [ew.atan2_p.bind(x, y)]
    for k in range(1, len(xs)):
        acc = sum_terms(_times(j, ys[k - j] * xs[j] - xs[k - j] * ys[j])
                        for j in range(1, k + 1))
        if k > 1:
            acc = acc - sum_terms(_times(j, theta[j]) * r[k - j] for j in range(1, k))
        theta.append(acc / (k * r[0]))
    return theta[0], theta[1:]


jet_rules[ew.atan2_p] = _atan2_rule


def _rem_rule(primals, series):
    # rem(x, y) = x - y * trunc(x / y); the quotient is piecewise constant
    x, y = primals
    q = lax.stop_gradient(jnp.trunc(x / y))
    return ew.rem_p.bind(x, y), [a - q * b for a, b in zip(*series)]


jet_rules[ew.rem_p] = _rem_rule


# -- piecewise: abs, max/min, clamp ---------------------------------------------------------
def _abs_rule(primals, series):
    x, = primals
    if dtypes.is_complex(x.dtype):   # |z| = sqrt(re^2 + im^2), smooth away from 0
        _, terms = jet_call(lambda z: lax.sqrt(lax.real(z) ** 2 + lax.imag(z) ** 2),
                            primals, series)
        return ew.abs_p.bind(x), terms
    negative = x < 0
    return ew.abs_p.bind(x), [lax.select(negative, -t, t) for t in series[0]]


jet_rules[ew.abs_p] = _abs_rule


def _choose_rule(prim, strict):
    """max/min: the series of the chosen operand; ties take the mean (as JAX)."""
    def rule(primals, series):
        x, y = jnp.broadcast_arrays(*primals)
        first = strict(x, y)
        tie = x == y

        def pick(a, b):
            a, b = jnp.broadcast_arrays(a, b)
            return lax.select(tie, (a + b) / 2, lax.select(first, a, b))
        return prim.bind(*primals), [pick(a, b) for a, b in zip(*series)]
    jet_rules[prim] = rule


_choose_rule(ew.max_p, lambda x, y: x > y)
_choose_rule(ew.min_p, lambda x, y: x < y)


def _clamp_rule(primals, series):
    _, terms = jet_call(lambda a, b, c: lax.min(lax.max(a, b), c), primals, series)
    return ew.clamp_p.bind(*primals), terms


jet_rules[ew.clamp_p] = _clamp_rule


# -- reductions -----------------------------------------------------------------------------
def _reduce_choose_rule(prim):
    """reduce_max/min: the mean of the series at the positions that attain the extremum."""
    def rule(primals, series, *, axes):
        x, = primals
        out = prim.bind(x, axes=axes)
        keep = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        hit = lax.convert_element_type(x == jnp.reshape(out, keep), x.dtype)
        count = rd.reduce_sum_p.bind(hit, axes=axes)
        return out, [rd.reduce_sum_p.bind(t * hit, axes=axes) / count for t in series[0]]
    jet_rules[prim] = rule


_reduce_choose_rule(rd.reduce_max_p)
_reduce_choose_rule(rd.reduce_min_p)


def _reduce_window_choose_rule(prim, reduce, fill):
    """Max/min pooling: each window's elements gathered along a new last axis (one
    strided slice of the padded operand per window offset), then reduced by the
    reduction's rule (ties take the mean, as reduce_max)."""
    def rule(primals, series, **params):
        _, terms = jet_call(lambda a: reduce(_window_patches(a, fill, **params), axis=-1),
                            primals, series)
        return prim.bind(*primals, **params), terms
    jet_rules[prim] = rule


def _window_patches(x, fill, *, window_dimensions, window_strides, padding, base_dilation,
                    window_dilation):
    """``x``'s windows as ``(*output_shape, window_size)``, padded with ``fill``."""
    config = [(lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation)]
    xp = lax.pad(x, jnp.asarray(fill, x.dtype), config)
    out = [(n - (w - 1) * d - 1) // s + 1 for n, w, d, s in
           zip(xp.shape, window_dimensions, window_dilation, window_strides)]
    pieces = []
    for offset in itertools.product(*[range(w) for w in window_dimensions]):
        start = [o * d for o, d in zip(offset, window_dilation)]
        limit = [b + (n - 1) * s + 1 for b, n, s in zip(start, out, window_strides)]
        pieces.append(lax.slice(xp, start, limit, window_strides))
    return jnp.stack(pieces, axis=-1)


_reduce_window_choose_rule(win.reduce_window_max_p, jnp.max, -np.inf)
_reduce_window_choose_rule(win.reduce_window_min_p, jnp.min, np.inf)


def _cumulative_rule(combine):
    """cumprod/cummax/cummin: the series of a parallel prefix scan of ``combine`` (each
    step a ruled primitive), as JAX does."""
    def rule(primals, series, *, axis, reverse):
        return jet_call(lambda a: lax.associative_scan(combine, a, reverse=reverse,
                                                       axis=axis), primals, series)
    return rule


jet_rules[rd.cumprod_p] = _cumulative_rule(lax.mul)
jet_rules[rd.cummax_p] = _cumulative_rule(lax.max)
jet_rules[rd.cummin_p] = _cumulative_rule(lax.min)


def _reduce_prod_rule(primals, series, *, axes):
    """The product over ``axes``: the last element of a prefix product over them,
    gathered into one trailing axis."""
    x, = primals
    rest = [i for i in range(x.ndim) if i not in axes]
    n = int(np.prod([x.shape[i] for i in axes]))

    def prod(a):
        a = jnp.reshape(jnp.transpose(a, rest + list(axes)),
                        tuple(x.shape[i] for i in rest) + (n,))
        return lax.associative_scan(lax.mul, a, axis=a.ndim - 1)[..., -1]
    if n == 0:
        return rd.reduce_prod_p.bind(x, axes=axes), zero_series
    _, terms = jet_call(prod, primals, series)
    return rd.reduce_prod_p.bind(x, axes=axes), terms


jet_rules[rd.reduce_prod_p] = _reduce_prod_rule


# -- primitives without a rule, and why ------------------------------------------------------
def _say(reason, *names):
    no_rule.update(dict.fromkeys(names, reason))


_say("the helpers of max pooling's gradient have no series rule yet (max/min pooling "
     "itself has one)", "select_and_gather_add", "select_and_scatter_add")
_say("scatter with a nonlinear combiner has no series rule yet (scatter, scatter-add "
     "and scatter-sub have one)", "scatter-mul", "scatter-min", "scatter-max")
_say("collective extrema have no series rule yet (psum and the data movers have one)",
     "pmax", "pmin")
_say("matrix decompositions have no series rule yet (JAX's jet has none either; "
     "lu, cholesky, eigh and triangular_solve have one)",
     "eig", "svd", "qr", "schur",
     "hessenberg", "tridiagonal", "geqrf", "householder_product", "ormqr")
_say("special functions whose derivatives leave the ruled set (incomplete gamma/beta, "
     "hypergeometric, Owen's T, Bessel) have no series rule yet",
     "bessel_i0e", "bessel_i1e", "betainc", "igamma", "igammac", "igamma_grad_a",
     "random_gamma_grad", "hyp1f1", "hyp1f1_grad", "hyp2f1", "hyp2f1_grad", "owens_t")
_say("nextafter is a step to the neighbouring float, not a smooth function", "nextafter")
_say("host callbacks run opaque Python: their series are unknown (JAX: the same)",
     "pure_callback", "io_callback")
_say("shard_map bodies are not expanded by jet yet; apply jet inside the mapped function",
     "shard_map")
_say("it is internal to reverse-mode differentiation and never reaches jet",
     "custom_lin", "while_transpose")


# -- call primitives: the series of the body ------------------------------------------------
def _call_rule(param):
    def rule(primals, series, **params):
        body = params[param]
        order = len(series[0]) if series else 0
        return jet_flat(lambda *xs: eval_jaxpr(body.jaxpr, body.consts, *xs),
                        primals, series, order)
    return rule


for _p, _param in CALL_JAXPR_PARAM.items():
    jet_rules[_p] = _call_rule(_param)


__all__ = ["defzero", "deflinear", "derivative_rule", "deriv_conv", "keeps_zero_series",
           "power_series", "sum_terms"]
