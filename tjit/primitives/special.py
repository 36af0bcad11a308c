"""Special-function primitives that no composition of other primitives computes
accurately: the regularized incomplete gamma and beta functions, Hurwitz zeta,
polygamma, the exponentially scaled Bessel functions I0e/I1e and the inverse normal CDF.

Names and derivative rules follow ``jax.lax`` (``igamma``, ``igammac``, ``igamma_grad_a``,
``random_gamma_grad``, ``betainc``, ``zeta``, ``polygamma``, ``bessel_i0e``,
``bessel_i1e``); ``ndtri`` is tjit's own (JAX composes it from polynomials). Reference
implementations call ``scipy.special`` (``cupyx.scipy.special`` on CuPy), so under ``jit``
they run as library steps. Derivatives JAX does not define (betainc in ``a``/``b``, zeta in ``x``,
polygamma in ``n``) raise a ``ValueError``, as JAX's do.
"""

import functools
import math

import numpy as np

from tjit.primitives import rules as _r
from tjit.primitives.base import (
    REAL_FLOAT,
    check_dtype_kind,
    new_primitive,
    same_dtypes,
    same_shapes,
)
from tjit.primitives.elementwise import (
    _const,
    _quiet,
    _same,
    abs_p,
    add_p,
    cos_p,
    div_p,
    erf_p,
    exp_p,
    lgamma_p,
    log1p_p,
    log_p,
    lt_p,
    mul_p,
    neg_p,
    rem_p,
    select_n_p,
    sign_p,
    sin_p,
    special,
    sqrt_p,
    sub_p,
)
from tjit.tracing.avals import ShapedArray


def _nary(name, n, impl):
    """An elementwise primitive of ``n`` real float operands of one dtype (rank-0
    operands broadcast, as in ``lax``), batched by broadcasting."""
    p = new_primitive(name)

    def abstract_eval(*args, **params):
        for i, a in enumerate(args):
            check_dtype_kind(name, REAL_FLOAT, a, f"operand {i}")
        return ShapedArray(same_shapes(name, args), same_dtypes(name, args))

    p.def_abstract_eval(abstract_eval)
    p.def_impl(_quiet(impl))
    (_r.defvectorized if n == 1 else _r.defbroadcasting)(p)
    return p


def _sp(name):
    """An impl calling ``scipy.special.<name>`` in float64 and returning the first
    operand's dtype. (SciPy's own float32 loops are Boost's routines evaluated in
    float32: betainc(1000, 30, 0.3) overflows to inf there, and polygamma's n + 1
    rounds a non-integer order such as 1e-8 to an integer.)"""
    def impl(xp, *args):
        wide = [xp.asarray(a, np.float64) for a in args]
        return _same(xp, getattr(special(xp), name)(*wide), xp.asarray(args[0]))
    impl.__name__ = name
    return impl


def _igamma_log_stencil(xp, a64, x64):
    """``(log f, d log f / da, sign)`` with f the smaller of P = gammainc and
    Q = gammaincc at (a, x) and ``sign`` = dP/df (+1 for P, -1 for Q), d/da by a five-point
    stencil. log f is smooth in ``a`` and SciPy's P, Q are relatively accurate in their
    tails, so this keeps ~1e-9 relative accuracy even where P underflows or rounds to 1
    (differencing P itself would not). Step: 2e-3 * min(a, 1), so a - 2h stays positive."""
    sp = special(xp)
    use_q = x64 > a64 + 1  # where Q is the smaller one
    f = lambda aa: xp.where(use_q, sp.gammaincc(aa, x64), sp.gammainc(aa, x64))
    h = 2e-3 * xp.minimum(a64, 1.0)
    lg = [xp.log(f(a64 + k * h)) for k in (-2, -1, 1, 2)]
    dlog = (lg[0] - 8 * lg[1] + 8 * lg[2] - lg[3]) / (12 * h)
    return xp.log(f(a64)), dlog, xp.where(use_q, -1.0, 1.0)


def _igamma_grad_a_impl(xp, a, x):
    """d/da P(a, x) = sign * f * (log f)' (see :func:`_igamma_log_stencil`)."""
    a64, x64 = (xp.asarray(v, np.float64) for v in (a, x))
    a64, x64 = xp.broadcast_arrays(a64, x64)
    log_f, dlog, sign = _igamma_log_stencil(xp, a64, x64)
    out = xp.exp(log_f) * dlog * sign
    # x = 0 or inf, or f = 0: P is constant (0 or 1) in a; the stencil gives 0 * nan there
    out = xp.where((x64 == 0) | xp.isinf(x64) | xp.isneginf(log_f), 0.0, out)
    out = xp.where(xp.isnan(a64) | xp.isnan(x64) | (a64 <= 0) | (x64 < 0), np.nan, out)
    return _same(xp, out, xp.asarray(a))


def _random_gamma_grad_impl(xp, a, x):
    """d x / d a of a Gamma(a, 1) sample ``x`` with its CDF value held fixed (implicit
    reparameterization): ``-(dP/da)(a, x) / p(x; a)``. The ratio is taken in logs and in
    float64, so ``(a - 1) log x - lgamma(a)`` does not cancel for large ``a`` (XLA's
    float32 kernel, which JAX uses, loses all digits at a = 1e7). x = 0 gives 0, as in
    JAX."""
    sp = special(xp)
    a64, x64 = (xp.asarray(v, np.float64) for v in (a, x))
    a64, x64 = xp.broadcast_arrays(a64, x64)
    safe_x = xp.where((x64 > 0) & xp.isfinite(x64), x64, 1.0)
    log_density = (a64 - 1) * xp.log(safe_x) - safe_x - sp.gammaln(a64)
    log_f, dlog, sign = _igamma_log_stencil(xp, a64, safe_x)
    out = -sign * dlog * xp.exp(log_f - log_density)
    out = xp.where(x64 == 0, 0.0, out)
    out = xp.where(xp.isnan(a64) | xp.isnan(x64) | (a64 <= 0) | (x64 < 0), np.nan, out)
    return _same(xp, out, xp.asarray(a))


igamma_p = _nary("igamma", 2, _sp("gammainc"))
igammac_p = _nary("igammac", 2, _sp("gammaincc"))
igamma_grad_a_p = _nary("igamma_grad_a", 2, _igamma_grad_a_impl)
random_gamma_grad_p = _nary("random_gamma_grad", 2, _random_gamma_grad_impl)
betainc_p = _nary("betainc", 3, _sp("betainc"))
zeta_p = _nary("zeta", 2, _sp("zeta"))
polygamma_p = _nary("polygamma", 2, _sp("polygamma"))
bessel_i0e_p = _nary("bessel_i0e", 1, _sp("i0e"))
bessel_i1e_p = _nary("bessel_i1e", 1, _sp("i1e"))
ndtri_p = _nary("ndtri", 1, _sp("ndtri"))

# -- derivatives (JAX's formulas, jax/_src/lax/special.py) --------------------------------------
_add, _sub, _mul, _div, _neg = add_p.bind, sub_p.bind, mul_p.bind, div_p.bind, neg_p.bind


def _igamma_density(a, x):
    """d/dx P(a, x) = x**(a-1) e**-x / Gamma(a), in logs so large a and x do not
    overflow."""
    return exp_p.bind(_sub(_sub(_mul(_sub(a, _const(a, 1)), log_p.bind(x)), x),
                           lgamma_p.bind(a)))


_r.defjvp(igamma_p, lambda g, a, x: _mul(g, igamma_grad_a_p.bind(a, x)),
          lambda g, a, x: _mul(g, _igamma_density(a, x)))
_r.defjvp(igammac_p, lambda g, a, x: _neg(_mul(g, igamma_grad_a_p.bind(a, x))),
          lambda g, a, x: _neg(_mul(g, _igamma_density(a, x))))


def _not_differentiable_in(prim, arg):
    def rule(g, *args):
        raise ValueError(f"{prim}: the derivative with respect to {arg} is not "
                         f"implemented (as in JAX); stop_gradient it or treat it as a "
                         f"constant")
    return rule


# The second derivative in a would need d2P/da2, which neither JAX nor SciPy provides.
_r.defjvp(igamma_grad_a_p, _not_differentiable_in("igamma_grad_a", "a"),
          _not_differentiable_in("igamma_grad_a", "x"))
_r.defjvp(random_gamma_grad_p, _not_differentiable_in("random_gamma_grad", "a"),
          _not_differentiable_in("random_gamma_grad", "x"))


def _betainc_jvp_x(g, a, b, x):  # x**(a-1) (1-x)**(b-1) / B(a, b)
    one = _const(x, 1)
    log_beta = _sub(_add(lgamma_p.bind(a), lgamma_p.bind(b)), lgamma_p.bind(_add(a, b)))
    return _mul(g, exp_p.bind(_sub(_add(_mul(_sub(a, one), log_p.bind(x)),
                                        _mul(_sub(b, one), log1p_p.bind(_neg(x)))),
                                   log_beta)))


_r.defjvp(betainc_p, _not_differentiable_in("betainc", "a"),
          _not_differentiable_in("betainc", "b"), _betainc_jvp_x)
# d/dq zeta(x, q) = -x zeta(x + 1, q)
_r.defjvp(zeta_p, _not_differentiable_in("zeta", "x"),
          lambda g, x, q: _mul(g, _neg(_mul(x, zeta_p.bind(_add(x, _const(x, 1)), q)))))
_r.defjvp(polygamma_p, _not_differentiable_in("polygamma", "n"),
          lambda g, n, x: _mul(g, polygamma_p.bind(_add(n, _const(n, 1)), x)))
# i0e' = i1e - sign(x) i0e; i1e' = i0e - i1e (sign(x) + 1/x), 1/2 at x = 0. Both cancel
# ~2|x|-fold for large |x| (float32 grad(i0e) at 1e5 gave -6.286e-9, true -6.308e-9; at 1e8
# 0, true -1.99e-13; JAX gives +3.6 there); past _SLOPE_FROM they are asymptotic series.
def _i0e_jvp(g, ans, x):
    d = _sub(bessel_i1e_p.bind(x), _mul(sign_p.bind(x), ans))
    far, ax = _far_and_abs(x)
    if far is None:
        return _mul(g, d)
    # i0e is even: its slope is sign(x) times the series' (odd)
    slope = _mul(sign_p.bind(x), _bessel_e_slope_asymptotic(ax, _asymptotic_coefficients(
        0, _SLOPE_FROM[np.dtype(_const(x, 0).dtype)][1])))
    return _mul(g, select_n_p.bind(far, d, slope))


_r.defjvp2(bessel_i0e_p, _i0e_jvp)


def _far_and_abs(x):
    """(|x| > the series' start, |x| with 100 in the other lanes) or (None, None) for dtypes
    without a series (narrow floats compute in float32 and round)."""
    dt = np.dtype(_const(x, 0).dtype)
    if dt not in _SLOPE_FROM:
        return None, None
    ax = abs_p.bind(x)
    far = lt_p.bind(_const(x, _SLOPE_FROM[dt][0]), ax)
    return far, select_n_p.bind(far, _const(x, 100), ax)


def _i1e_jvp(g, ans, x):
    # i1e / x is taken as ans / x (1/x overflows at subnormal x, and inf * ans gave -inf).
    # Below |x| = 1 the slope is exp(-|x|) (I1'(x) - |x| I1(x)/x) by the Maclaurin series
    # of I1' and I1/x: the derivative of i0e - i1e sign(x) - i1e/x (grad of grad)
    # cancelled there (float32 at 1e-3: 0.998199, true 0.998127), and the series avoids
    # the ratio of two rounded subnormals
    ax = abs_p.bind(x)
    small = lt_p.bind(ax, _const(x, 1.0))
    safe = select_n_p.bind(small, x, _const(x, 1))
    d = _sub(_sub(bessel_i0e_p.bind(x), _mul(ans, sign_p.bind(x))), _div(ans, safe))
    x_near = select_n_p.bind(small, _const(x, 0), x)  # (x*x overflowing elsewhere: NaN
    ax_near = abs_p.bind(x_near)                       # in grad of grad through select)
    u = _mul(x_near, x_near)
    slope = _horner(u, _I1_SLOPE_SERIES)
    i1_over_x = _horner(u, _I1_OVER_X_SERIES)
    near = _mul(exp_p.bind(neg_p.bind(ax_near)), _sub(slope, _mul(ax_near, i1_over_x)))
    d = select_n_p.bind(small, d, near)
    # i0e - i1e - i1e/x ~ -1/(2x sqrt(2 pi x)) cancels ~2|x|-fold (float32 at 1e5 gave
    # -6.40e-9, true -6.31e-9); past _SLOPE_FROM the slope is its asymptotic series
    far, ax = _far_and_abs(x)
    if far is None:
        return _mul(g, d)
    terms = _SLOPE_FROM[np.dtype(_const(x, 0).dtype)][1]
    return _mul(g, select_n_p.bind(far, d, _bessel_e_slope_asymptotic(
        ax, _asymptotic_coefficients(1, terms))))


def _horner(u, coeffs):  # sum_k coeffs[k] u**k
    total = _const(u, coeffs[-1])
    for c in coeffs[-2::-1]:
        total = _add(_mul(total, u), _const(u, c))
    return total


# I1'(x) = sum_k (2k + 1) x^(2k) / (2^(2k+1) k! (k+1)!) and I1(x)/x = sum_k x^(2k) /
# (2^(2k+1) k! (k+1)!), 10 terms: 1e-19 relative for |x| < 1
_I1_OVER_X_SERIES = tuple(1 / (2 ** (2 * k + 1) * math.factorial(k) * math.factorial(k + 1))
                          for k in range(10))
_I1_SLOPE_SERIES = tuple((2 * k + 1) * c for k, c in enumerate(_I1_OVER_X_SERIES))


#: (|x| beyond which i0e's and i1e's slopes are their asymptotic series, its terms): 20
#: terms are good to < 5e-9 relative from 10, 30 to < 1e-18 from 25 (more terms diverge
#: sooner); below it the cancellation loses up to ~2|x| ulps
_SLOPE_FROM = {np.dtype(np.float32): (10.0, 20), np.dtype(np.float64): (25.0, 30)}


@functools.lru_cache(maxsize=None)
def _asymptotic_coefficients(order, terms):
    """d/dx [e^-x I_m(x)] = -(2 pi x)^(-1/2) / x * sum_k c_k / x^k for x -> inf, from
    e^-x I_m(x) ~ (2 pi x)^(-1/2) sum_k (-1)^k a_k / x^k, a_k = prod_{j<=k} (4 m^2 -
    (2j-1)^2) / (k! 8^k) (Abramowitz & Stegun 9.7.1): c_k = (-1)^k a_k (k + 1/2). Highest
    power first."""
    coeffs, a = [], 1.0
    for k in range(terms):
        if k:
            a *= (4 * order * order - (2 * k - 1) ** 2) / (k * 8)
        coeffs.append((-1) ** k * a * (k + 0.5))
    return tuple(coeffs[::-1])


def _bessel_e_slope_asymptotic(ax, coeffs):  # the slope at |x|
    u = _div(_const(ax, 1), ax)
    total = _const(ax, coeffs[0])
    for c in coeffs[1:]:
        total = _add(_mul(total, u), _const(ax, c))
    # (2 pi x)^(-1/2) / x, not 1 / (x sqrt(2 pi x)): x^1.5 overflows float32 past 5e25
    scale = _div(_div(_const(ax, 1), sqrt_p.bind(_mul(_const(ax, 2 * np.pi), ax))), ax)
    return _neg(_mul(scale, total))


_r.defjvp2(bessel_i1e_p, _i1e_jvp)
# ndtri' = sqrt(2 pi) exp(ndtri(p)**2 / 2)
_r.defjvp2(ndtri_p, lambda g, ans, p: _mul(g, _mul(_const(p, np.sqrt(2 * np.pi)), exp_p.bind(
    _mul(_const(p, 0.5), _mul(ans, ans))))))


# -- hypergeometric functions, Owen's T, Fresnel integrals, Faddeeva ----------------------------
# (jax.scipy.special's hyp1f1, hyp2f1, owens_t, fresnel and wofz; JAX composes them from
# series and quadratures, tjit evaluates SciPy's float64 routines as for the ones above)
#: SciPy 1.17's hyp1f1/hyp2f1 crash the process (segfault) on some extreme arguments
#: (hyp1f1(-1e10, -9.2e18, -1e10), hyp2f1(1.8e308, 1e-308, 1.8e308, nan)): they are only
#: called where every argument is finite and at most this large; elsewhere the result is NaN
_HYPERGEOMETRIC_BOUND = 1e6


def _scipy_hypergeometric(xp, name, *args):
    """``scipy.special.<name>(*args)`` (float64) where all arguments are finite and within
    :data:`_HYPERGEOMETRIC_BOUND`, NaN elsewhere (see there)."""
    ok = functools.reduce(lambda m, v: m & (xp.abs(v) <= _HYPERGEOMETRIC_BOUND), args,
                          xp.ones(args[0].shape, bool))
    safe = [xp.where(ok, v, 0.25) for v in args]  # (1F1 and 2F1 are finite there)
    with np.errstate(all="ignore"):
        return xp.where(ok, getattr(special(xp), name)(*safe), np.nan)


#: below this |b| (nonzero) 1F1 is taken as its limit for b -> 0 (``_hyp1f1_tiny_b``)
_TINY_B = 1e-30


def _hyp1f1_tiny_b(xp, a, b, x):
    """1F1(a; b; x) for tiny nonzero b: ``1 + (a x / b) 2F2(a + 1, 1; b + 1, 2; x)``, and
    the 2F2 at b = 0 is 1F1(a + 1; 2; x) (relative change O(b * log(terms)), below 1e-28
    here). SciPy's own evaluation at subnormal b takes ~20 ms a point and gives +inf or
    NaN where the limit is -inf (mpmath: 1F1(-1.5; -5e-324; -1.5) = -6.1e323; JAX +inf).
    The product is formed from mantissas with the exponents summed apart (ldexp last),
    so a subnormal ``a`` over a subnormal ``b`` keeps its ratio."""
    mb, eb = xp.frexp(b)
    with np.errstate(all="ignore"):
        m = _scipy_hypergeometric(xp, "hyp1f1", a + 1, xp.full_like(b, 2.0), x)
        (ma, ea), (mx, ex) = xp.frexp(a / mb), xp.frexp(x * m)
        return 1.0 + xp.ldexp(ma * mx, ea + ex - eb)


def _hyp1f1_impl(xp, a, b, x):
    """SciPy's 1F1 in float64 with JAX's conventions: 1 where ``a == 0`` (SciPy: inf at
    ``a == b == 0``), ``exp(x)`` where ``a == b``, inf where ``b == 0`` and ``a != 0``."""
    a64, b64, x64 = xp.broadcast_arrays(*(xp.asarray(v, np.float64) for v in (a, b, x)))
    tiny_b = (xp.abs(b64) < _TINY_B) & (b64 != 0)
    out = _scipy_hypergeometric(xp, "hyp1f1", a64, xp.where(tiny_b, 0.5, b64), x64)
    if bool(xp.any(tiny_b)):
        out = xp.where(tiny_b, _hyp1f1_tiny_b(xp, a64, b64, x64), out)
    out = xp.where((b64 == 0) & (a64 != 0), np.inf, out)
    out = xp.where((a64 == b64) & (a64 != 0), xp.exp(x64), out)
    out = xp.where(a64 == 0, 1.0, out)
    out = xp.where(xp.isnan(a64) | xp.isnan(b64) | xp.isnan(x64), np.nan, out)
    return _same(xp, out, xp.asarray(a))


def _is_nonpositive_int(xp, v):
    return (v <= 0) & (v == xp.floor(v))


def _hyp2f1_impl(xp, a, b, c, x):
    """SciPy's 2F1 in float64 with JAX's conventions where the real series has no value:
    1 where ``x == 0`` or ``a`` or ``b`` is 0 (``c != 0``); inf where ``c`` is a
    non-positive integer, where ``x > 1``, and at ``x == 1`` when ``c - a - b <= 0``.
    Where ``c - a - b`` is an integer <= -1, Euler's transformation
    ``(1 - x)**(c - a - b) 2F1(c - a, c - b; c; x)`` (JAX's branch; finite for some x > 1)."""
    a64, b64, c64, x64 = xp.broadcast_arrays(*(xp.asarray(v, np.float64) for v in (a, b, c, x)))
    d, s = c64 - a64 - b64, 1 - x64
    with np.errstate(all="ignore"):
        euler = xp.power(s, d) * _scipy_hypergeometric(xp, "hyp2f1", c64 - a64, c64 - b64,
                                                       c64, x64)
    d_int = d == xp.round(d)
    out = _scipy_hypergeometric(xp, "hyp2f1", a64, b64, c64, x64)
    out = xp.where(x64 > 1, np.inf, out)
    out = xp.where((d <= 0) & (x64 == 1), np.inf, out)
    out = xp.where((d <= -1) & (d_int | (s >= 0)), euler, out)
    out = xp.where(_is_nonpositive_int(xp, c64), np.inf, out)
    out = xp.where((x64 == 0) | (((a64 == 0) | (b64 == 0)) & (c64 != 0)), 1.0, out)
    nan_in = xp.isnan(a64) | xp.isnan(b64) | xp.isnan(c64) | xp.isnan(x64)
    return _same(xp, xp.where(nan_in, np.nan, out), xp.asarray(a))


def _parameter_derivative(fn):
    """An impl of d fn / d(operand ``argnum``) by a five-point central difference of fn
    in float64, step 1e-3 (1 + |p|): truncation ~h**4, rounding ~eps / h, so about 1e-10
    relative where fn is smooth at that scale (JAX differentiates its truncated series,
    which stops being accurate where the series does)."""
    def impl(xp, *args, argnum):
        wide = list(xp.broadcast_arrays(*(xp.asarray(v, np.float64) for v in args)))
        p = wide[argnum]
        h = 1e-3 * (1 + xp.abs(p))

        def at(k):
            shifted = list(wide)
            shifted[argnum] = p + k * h
            return fn(xp, *shifted)
        with np.errstate(all="ignore"):
            out = (at(-2) - 8 * at(-1) + 8 * at(1) - at(2)) / (12 * h)
        return _same(xp, out, xp.asarray(args[0]))
    impl.__name__ = f"{fn.__name__}_parameter_derivative"
    return impl


def _fresnel_part(index):
    def impl(xp, x):
        return _same(xp, special(xp).fresnel(xp.asarray(x, np.float64))[index], xp.asarray(x))
    impl.__name__ = ("fresnel_sin", "fresnel_cos")[index]
    return impl


def _wofz_impl(xp, z):
    z = xp.asarray(z)
    return special(xp).wofz(xp.asarray(z, np.complex128)).astype(z.dtype)


hyp1f1_p = _nary("hyp1f1", 3, _hyp1f1_impl)
hyp1f1_grad_p = _nary("hyp1f1_grad", 3, _parameter_derivative(_hyp1f1_impl))
hyp2f1_p = _nary("hyp2f1", 4, _hyp2f1_impl)
hyp2f1_grad_p = _nary("hyp2f1_grad", 4, _parameter_derivative(_hyp2f1_impl))
owens_t_p = _nary("owens_t", 2, _sp("owens_t"))
fresnel_sin_p = _nary("fresnel_sin", 1, _fresnel_part(0))
fresnel_cos_p = _nary("fresnel_cos", 1, _fresnel_part(1))

wofz_p = new_primitive("wofz")
# (cupyx.scipy.special, CuPy 14, has none of these SciPy functions)
for _p, _fn in ((hyp1f1_p, "hyp1f1"), (hyp1f1_grad_p, "hyp1f1"), (hyp2f1_p, "hyp2f1"),
                (hyp2f1_grad_p, "hyp2f1"), (owens_t_p, "owens_t"),
                (fresnel_sin_p, "fresnel"), (fresnel_cos_p, "fresnel"), (wofz_p, "wofz")):
    _p.host_only = f"scipy.special.{_fn}, which cupyx.scipy.special lacks"


def _wofz_abstract_eval(z):
    if not np.issubdtype(z.dtype, np.complexfloating):
        raise TypeError(f"wofz: operand must have a complex dtype, got {z.dtype} "
                        f"({z.str_short()}); convert with x.astype(complex) first")
    return ShapedArray(z.shape, z.dtype)


wofz_p.def_abstract_eval(_wofz_abstract_eval)
wofz_p.def_impl(_quiet(_wofz_impl))
_r.defvectorized(wofz_p)


def _param_jvp(grad_p, argnum):
    return lambda g, *args: _mul(g, grad_p.bind(*args, argnum=argnum))


# d/dx 1F1(a; b; x) = a / b 1F1(a + 1; b + 1; x)
_r.defjvp(hyp1f1_p, _param_jvp(hyp1f1_grad_p, 0), _param_jvp(hyp1f1_grad_p, 1),
          lambda g, a, b, x: _mul(g, _mul(_div(a, b), hyp1f1_p.bind(
              _add(a, _const(a, 1)), _add(b, _const(b, 1)), x))))
# d/dx 2F1(a, b; c; x) = a b / c 2F1(a + 1, b + 1; c + 1; x)
_r.defjvp(hyp2f1_p, _param_jvp(hyp2f1_grad_p, 0), _param_jvp(hyp2f1_grad_p, 1),
          _param_jvp(hyp2f1_grad_p, 2),
          lambda g, a, b, c, x: _mul(g, _mul(_div(_mul(a, b), c), hyp2f1_p.bind(
              _add(a, _const(a, 1)), _add(b, _const(b, 1)), _add(c, _const(c, 1)), x))))
for _p in (hyp1f1_grad_p, hyp2f1_grad_p):
    _r.defjvp(_p, *[_not_differentiable_in(_p.name, "any operand")] * (
        3 if _p is hyp1f1_grad_p else 4))


def _owens_t_jvp_h(g, h, a):  # -exp(-h^2 / 2) erf(a h / sqrt 2) / (2 sqrt(2 pi))
    e = exp_p.bind(_mul(_const(h, -0.5), _mul(h, h)))
    return _mul(g, _mul(_const(h, -1 / (2 * np.sqrt(2 * np.pi))),
                        _mul(e, erf_p.bind(_mul(_mul(a, h), _const(h, np.sqrt(0.5)))))))


def _owens_t_jvp_a(g, h, a):  # exp(-(1 + a^2) h^2 / 2) / (2 pi (1 + a^2))
    q = _add(_const(a, 1), _mul(a, a))
    e = exp_p.bind(_mul(_const(h, -0.5), _mul(q, _mul(h, h))))
    return _mul(g, _div(e, _mul(_const(a, 2 * np.pi), q)))


_r.defjvp(owens_t_p, _owens_t_jvp_h, _owens_t_jvp_a)


def _sin_cos_half_pi_square(x):
    """``(sin(pi x^2 / 2), cos(pi x^2 / 2))`` with the argument reduced exactly: with
    ``s = x mod 2``, ``x^2 / 2 = s (x - s / 2) (mod 2)``, so large x keeps its digits."""
    ax = abs_p.bind(x)
    two = _const(x, 2)
    s = rem_p.bind(ax, two)
    r = _mul(_const(x, np.pi), rem_p.bind(_mul(s, _sub(ax, _mul(_const(x, 0.5), s))), two))
    return sin_p.bind(r), cos_p.bind(r)


_r.defjvp(fresnel_sin_p, lambda g, x: _mul(g, _sin_cos_half_pi_square(x)[0]))
_r.defjvp(fresnel_cos_p, lambda g, x: _mul(g, _sin_cos_half_pi_square(x)[1]))
# w'(z) = 2i / sqrt(pi) - 2 z w(z)
_r.defjvp2(wofz_p, lambda g, ans, z: _mul(g, _sub(
    _const(z, 2j / np.sqrt(np.pi)), _mul(_const(z, 2), _mul(z, ans)))))
