"""tjit.scipy.special: SciPy's special functions on tjit arrays (as ``jax.scipy.special``).

Most functions are compositions of primitives (so ``grad``, ``vmap`` and ``jit`` work
through them); functions no composition computes accurately (incomplete gamma and beta,
zeta, polygamma, the scaled Bessel functions, ndtri) bind the primitives of
``primitives/special.py``. Derivatives follow JAX's conventions where a plain
composition would give NaN or lose accuracy (``xlogy`` at ``x = 0``, ``log_ndtr`` in its
tails, ``entr`` at 0): those functions are ``custom_jvp``s with JAX's rules.
``logsumexp``, ``softmax`` and ``log_softmax`` are ``tjit.nn``'s (one implementation).
"""


import numpy as np

from tjit import lax, nn
from tjit import numpy as jnp
from tjit.lax._structural import constant_like as _constant_like
from tjit.nn.functions import _erfc_arg_excess, _times_exp_of_excess
from tjit.numpy._core import promote_args_inexact
from tjit.scipy._special_common import any_lane as _any_lane
from tjit.scipy._special_common import real_args as _inexact
from tjit.scipy._special_common import square_pair
from tjit.scipy import _special_dd as _dd
from tjit.scipy._special_gamma import gamma_accurate as _gamma_accurate
from tjit.scipy._special_gamma import stirling_correction as _stirling_correction
from tjit.scipy._special_gamma import factors_limit as _gamma_factors_limit
from tjit.scipy._special_gamma import gamma_factors as _gamma_factors
from tjit.scipy._special_gamma import sinpi
from tjit.scipy._special_gamma import two_pi_pow as _two_pi_pow
from tjit.scipy._special_integrals import erfcx_asymptotic as _erfcx_asymptotic
from tjit.primitives.special import _I1_SLOPE_SERIES  # I1's Maclaurin slope (shared)
from tjit.primitives.special import ndtri_p
from tjit.tracing.core import Tracer
from tjit.tracing.errors import ConcretizationTypeError, static_index
from tjit.transforms.custom_derivatives import custom_jvp

__all__ = [
    "bernoulli", "beta", "boxcox", "boxcox1p", "comb", "dawsn", "erfcx", "exp1", "expi", "expn",
    "loggamma", "poch", "sici", "spence", "betainc", "betaln", "digamma", "entr", "erf", "erfc",
    "erfinv", "expit", "factorial", "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn",
    "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "multigammaln", "ndtr", "ndtri", "polygamma", "rel_entr", "softmax", "xlog1py", "xlogy",
    "zeta", "fresnel", "hyp1f1", "hyp2f1", "owens_t", "wofz", "bessel_jn", "sph_harm_y",
    "lpmn", "lpmn_values"]

logsumexp = nn.logsumexp


def softmax(x, axis=None):
    """``exp(x) / sum(exp(x), axis)``; SciPy's default ``axis=None`` normalizes over all
    axes (``tjit.nn.softmax`` defaults to the last)."""
    return nn.softmax(x, axis=axis)


def log_softmax(x, axis=None):
    """``log(softmax(x, axis))``, stable; ``axis=None`` as in SciPy."""
    return nn.log_softmax(x, axis=axis)


# -- error function and the normal distribution ----------------------------------------------
def erf(x):
    """Error function."""
    return lax.erf(*_inexact("erf", x))


def erfc(x):
    """Complementary error function ``1 - erf(x)``, accurate for large x."""
    return lax.erfc(*_inexact("erfc", x))


def erfinv(x):
    """Inverse error function on [-1, 1]."""
    return lax.erf_inv(*_inexact("erfinv", x))


def ndtr(x):
    """Standard normal CDF. erf near 0, erfc in the tails (JAX's formula): neither
    ``0.5 + 0.5 erf`` nor ``1 - 0.5 erfc`` alone is accurate on both sides. In the lower
    tail ``0.5 erfc(z)``, z = -x/sqrt(2) rounded, is off by ``x**2 eps`` relative (erfc's
    exp(-z**2) magnifies z's rounding: ~1,100 float64 ulps at x = -36, 63 float32 ulps at
    -12; SciPy and JAX share it); the factor ``exp(z**2 - x**2/2)``, whose exponent comes
    from exact square pairs (Sterbenz: the leading parts cancel exactly), undoes it."""
    return _ndtr(*_inexact("ndtr", x))


def _normal_pdf(x):
    """exp(-x**2 / 2) / sqrt(2 pi) with x**2 as an exact pair: exp of the rounded square is
    off by x**2 eps relative (through erfc's rule float64 ndtr'(30) was 352 ulps off; JAX
    shares). Past |x| = 40 the pdf is 0 and the clip keeps the pair finite."""
    xc = jnp.clip(x, -40.0, 40.0)
    p, e = square_pair(xc)
    return jnp.exp(-0.5 * p) * jnp.exp(-0.5 * e) * float(1 / np.sqrt(2 * np.pi))


@custom_jvp
def _ndtr(x):
    # Python-float constants: a NumPy float64 scalar is a strong float64 (as in JAX), so
    # x * np.sqrt(0.5) made float32 inputs float64 results under x64
    z = x * float(np.sqrt(0.5))
    # below -40 (float64) / -15 (float32) erfc(-z) is 0: the clip keeps the squares finite;
    # and at 0 from above, as this lane is unused there: a large x's square pair had a NaN
    # derivative, which the where() below turned into grad(ndtr)(1e5) = NaN (true 0)
    xl = jnp.minimum(jnp.maximum(x, -40.0 if x.dtype == np.float64 else -15.0), 0.0)
    zl = xl * float(np.sqrt(0.5))
    # one erfc serves both tails (its argument is >= 0 in each): half the work of two
    half_erfc = 0.5 * lax.erfc(jnp.where(z > 0, z, -zl))
    # z**2 - x**2/2 by one exact product (c split at trace time), as exact gelu's: two
    # exact squares took ~10 more operations per element (jit ndtr 1e6 float32 +10%)
    excess = _erfc_arg_excess(xl, np.array(np.sqrt(0.5), x.dtype))
    lower = _times_exp_of_excess(half_erfc, excess)
    y = jnp.where(z > 0, 1.0 - half_erfc, lower)
    return jnp.where(jnp.abs(z) < float(np.sqrt(0.5)), 0.5 + 0.5 * lax.erf(z), y)


_ndtr.defjvps(lambda g, ans, x: g * _normal_pdf(x))


def ndtri(p):
    """Inverse of :func:`ndtr`: the x with ``ndtr(x) = p``; -inf at 0, inf at 1, NaN
    outside [0, 1]."""
    (p,) = _inexact("ndtri", p)
    # strong, as JAX's (whose formula's constants are strong for Python numbers too)
    return lax.convert_element_type(_ndtri(p), p.dtype, weak_type=False)


@custom_jvp
def _ndtri(p):
    return ndtri_p.bind(p)


@_ndtri.defjvp
def _ndtri_jvp(primals, tangents):
    (p,), (dp,) = primals, tangents
    return _ndtri(p), _ndtri_slope(p) * dp


@custom_jvp
def _ndtri_slope(p):
    """ndtri'(p) = 1/npdf(x) = sqrt(pi/2) erfcx(|x|/sqrt 2) / q, q = min(p, 1 - p) (exact:
    1 - p is for p >= 1/2), x = ndtri(p). sqrt(2 pi) exp(x**2/2) is as right in exact
    arithmetic, but the rounding of x moves it by x**2 times x's relative error (float64
    ndtri'(1e-100) 262 ulps off, 354 with x**2 exact; JAX 1.5): erfcx(|x|/sqrt 2) / q
    depends on x only through the well-conditioned erfcx. inf at p = 0 and 1."""
    x = _ndtri(p)
    q = jnp.where(x < 0, p, 1 - p)
    slope = float(np.sqrt(np.pi / 2)) * erfcx(jnp.abs(x) * float(np.sqrt(0.5))) / q
    return jnp.where(q == 0, jnp.inf, slope).astype(p.dtype)


@_ndtri_slope.defjvp
def _ndtri_slope_jvp(primals, tangents):
    # ndtri'' = x ndtri'**2: the quotient's own derivative cancels to it (float64 at
    # p = 0.5 +- 1e-16 gave 1e14 ulps) and overflowed into NaN at tiny p
    (p,), (dp,) = primals, tangents
    slope = _ndtri_slope(p)
    return slope, _ndtri(p) * slope * slope * dp


def log_ndtr(x, series_order=3):
    """``log(ndtr(x))``, accurate in both tails: ``log1p(-ndtr(-x))`` for x > 0,
    ``log(ndtr(x))`` down to -37 (float64; -12.5 for float32, -3.5 float16; ndtr is a normal float
    there), and below ``-x**2/2 + log(erfcx(-x/sqrt 2) / 2)`` with ``x**2`` as an exact
    pair. JAX sums ``series_order`` terms of the asymptotic series there instead, which
    its truncation limits (3 terms: 212 float64 ulps at x = -38); tjit checks
    ``series_order`` as JAX does and evaluates the tail to full precision. The
    derivative is ``exp(log_phi(x) - log_ndtr(x))``, JAX's rule, stable in the tails.
    """
    if not isinstance(series_order, int) or not 0 <= series_order <= 30:
        raise ValueError(f"log_ndtr: series_order must be an int in [0, 30], got "
                         f"{series_order!r}")
    (x,) = _inexact("log_ndtr", x)
    return _log_ndtr(x, series_order)


def _log_ndtr_impl(x, series_order):
    del series_order  # the tail needs no truncated series (see log_ndtr)
    f64 = x.dtype == np.float64
    # ndtr(x) is a normal float down to `lower`; float16's range ends early (ndtr(-3.9)
    # is its smallest normal; below, log(ndtr) lost digits, then was -inf from -5.9)
    lower = -37.0 if f64 else -3.5 if x.dtype == np.float16 else -12.5
    # below -sqrt(2 * max) the result is below -max: -inf; the clip keeps the pairs finite
    edge = -float(np.sqrt(2.0) * np.sqrt(float(np.finfo(np.float64 if f64 else np.float32).max)))
    # each branch sees values inside its own range only (no inf/NaN in unused branches)
    mid = jnp.clip(x, lower, 0.0)
    hi = jnp.maximum(x, 0.0)
    lo = jnp.clip(x, edge, lower)
    # -x**2/2 = -2 (x/2)**2 (x/2 squared stays finite up to sqrt(2 max)), as an exact pair
    sq, err = square_pair(0.5 * lo)
    w = lo * -float(np.sqrt(0.5))
    # w >= 26 (float64) / 8.8 (float32): erfcx's series alone is accurate there (its next
    # term < 1e-8 relative at 8.8), and erfcx's erfc lane cost a third of log_ndtr
    scaled = erfcx(w) if x.dtype.itemsize < 4 else _erfcx_asymptotic(w)
    log_lo = -2.0 * sq + (-2.0 * err + jnp.log(0.5 * scaled))
    log_lo = jnp.where(x < edge, -jnp.inf, log_lo)
    # one ndtr serves both lanes that need one: ndtr(-x) above 0, ndtr(x) in the middle
    cdf = ndtr(jnp.where(x > 0, -hi, mid))
    return jnp.where(x > 0, jnp.log1p(-cdf), jnp.where(x < lower, log_lo, jnp.log(cdf)))


_log_ndtr = custom_jvp(_log_ndtr_impl, nondiff_argnums=(1,))


@_log_ndtr.defjvp
def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    ans = _log_ndtr(x, series_order)
    # pdf/cdf as exp(log_phi - ans) loses ulp(x**2/2) in the exponent: at float32 x = -1e3 it
    # gave 998.5 (true 1000), at -1e5 1, at -1e20 NaN (x*x overflows). Below -5 the ratio is
    # the inverse Mills ratio's continued fraction instead, which has neither x*x nor exp.
    tail = x < -5.0
    log_phi = -0.5 * x * x - float(0.5 * np.log(2 * np.pi))
    direct = jnp.exp(log_phi - ans)
    return ans, t * jnp.where(tail, _inverse_mills(-jnp.where(tail, x, -5.0)), direct)


def _inverse_mills(u):
    """phi(u) / Q(u) for u >= 5: u + 1/(u + 2/(u + 3/(u + ...))), 24 levels (relative
    error < 1e-16 at u = 5, shrinking fast with u); every step adds positives."""
    d = u
    for k in range(24, 0, -1):
        d = u + k / d
    return d


def logit(x):
    """``log(x / (1 - x))``, the inverse of :func:`expit`. On [1/4, 3/4], where the
    result is near 0 and the log would cancel, ``2 atanh(2x - 1)`` (2x - 1 is exact)."""
    return _logit(*_inexact("logit", x))


@custom_jvp
def _logit(x):
    mid = (x >= 0.25) & (x <= 0.75)
    one = _constant_like(x, 1)  # (JAX's lax._const: a weak array's result is strong)
    return jnp.where(mid, 2 * jnp.arctanh(2 * jnp.where(mid, x, 0.5) - 1), jnp.log(x / (one - x)))


# JAX's rule, 1 / (x (1 - x)): through the where above grad(logit)(0.0) was NaN (JAX: inf)
_logit.defjvps(lambda g, ans, x: g * _logit_slope(x))


@custom_jvp
def _logit_slope(x):
    return 1 / (x * (1 - x))


# (2x - 1) s**2 as one product: the product rule on x (1 - x) summed (1 - x) s**2 and
# -x s**2, each rounded, which cancel near x = 1/2 (float32 grad(grad(logit))(0.4995)
# was 273 ulps off, JAX the same); and -inf, not NaN, where s**2 overflows
@_logit_slope.defjvp
def _logit_slope_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    slope = _logit_slope(x)
    return slope, t * ((2 * x - 1) * slope * slope)


def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    (x,) = _inexact("expit", x)
    return lax.logistic(x)


# -- gamma family ---------------------------------------------------------------------------
def gammaln(x):
    """``log|Gamma(x)|``."""
    return lax.lgamma(*_inexact("gammaln", x))


def gammasgn(x):
    """The sign of Gamma(x): 1 for x > 0, alternating on the negative unit intervals,
    the sign of the zero at +-0; NaN at the poles -1, -2, ... and at NaN, as SciPy."""
    (x,) = _inexact("gammasgn", x)
    fl = jnp.floor(x)
    neg = jnp.where(jnp.remainder(fl, 2) == 0, 1.0, -1.0).astype(x.dtype)
    out = jnp.where(x > 0, jnp.ones_like(x), neg)
    out = jnp.where(x == 0, jnp.copysign(jnp.ones_like(x), x), out)
    return jnp.where((x < 0) & (x == fl) | jnp.isnan(x), np.nan, out)


@custom_jvp
def gamma(x):
    """Gamma(x): Stirling's formula with an exact power for ``x >= 10``, exact recurrence
    steps below and the reflection for ``x <= -1`` (``_special_gamma``), not
    ``exp(gammaln(x))``, whose exp amplified gammaln's rounding to ~1000 ulps; inf beyond
    the float range, NaN at the poles (as SciPy)."""
    (x,) = _inexact("gamma", x)
    return _gamma_accurate(x)


@gamma.defjvp
def _gamma_jvp(primals, tangents):
    (x,) = _inexact("gamma", *primals)
    out = gamma(x)
    return out, out * digamma(x) * jnp.asarray(tangents[0], out.dtype)


def digamma(x):
    """The logarithmic derivative of Gamma."""
    return lax.digamma(*_inexact("digamma", x))


def polygamma(n, x):
    """The ``n``-th derivative of digamma (``n`` a non-negative integer); differentiable
    in ``x`` only, as in JAX."""
    n, x = _inexact("polygamma", n, x)
    return lax.polygamma(n, x)


def betaln(a, b):
    """``log|B(a, b)|``. Where the larger argument ``hi`` is >= 10 (and ``lo + hi`` too:
    ``lo`` may be negative) the difference
    ``gammaln(hi) - gammaln(lo + hi)`` is taken from Stirling's series, as
    ``-(hi - 1/2) log1p(lo / hi) - lo log(lo + hi) + lo + d(hi) - d(lo + hi)`` with the
    correction ``d(x) = gammaln(x) - ((x - 1/2) log x - x + log(2 pi) / 2)``: the plain
    sum of three gammalns would lose ``|gammaln(a + b)| * eps`` to cancellation (1e-6
    relative at ``betaln(1e10, 1)``); where both are >= 10, Stirling's series for all
    three gammas, whose large terms then share one sign."""
    a, b = _inexact("betaln", a, b)
    lo, hi = jnp.minimum(a, b), jnp.maximum(a, b)
    big = hi >= 10
    # (a negative lo too, as JAX: betaln(-0.5, 966) lost 3e-4 to the plain sum in float32)
    series = big & (lo + hi >= 10)
    # (eagerly, a branch no lane takes is skipped; the select reads the other twice)
    by_series = by_plain = None
    if _any_lane(series):
        lo_s = jnp.where(series, lo, 1.0)  # the series branch sees only its own range
        hi_d = jnp.where(series, hi, 10.0)
        diff = -(hi_d - 0.5) * jnp.log1p(lo_s / hi_d) - lo_s * jnp.log(lo_s + hi_d) + \
            lo_s + _stirling_correction(hi_d) - _stirling_correction(lo_s + hi_d)
        by_series = lax.lgamma(lo) + diff
    if _any_lane(~series):
        by_plain = lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)
    out = jnp.where(series, by_plain if by_series is None else by_series,
                    by_series if by_plain is None else by_plain)
    # both >= 10: Stirling for all three (lgamma(lo) would cancel against diff)
    both = lo >= 10
    if _any_lane(both):
        hi_s = jnp.where(big, hi, 10.0)
        lo_b = jnp.where(both, lo, 10.0)
        # (a Python float: a NumPy float64 scalar is strongly typed and would promote
        # float16/bfloat16 and weak inputs to float32)
        stirling = float(0.5 * np.log(2 * np.pi)) - 0.5 * jnp.log(lo_b + hi_s) - \
            (lo_b - 0.5) * jnp.log1p(hi_s / lo_b) - (hi_s - 0.5) * jnp.log1p(lo_b / hi_s) + \
            _stirling_correction(lo_b) + _stirling_correction(hi_s) - \
            _stirling_correction(lo_b + hi_s)
        out = jnp.where(both, stirling, out)
    # B(a, b) ~ Gamma(a) b**-a as b -> inf: 0 for finite a > 0, infinite for finite a <= 0
    # (SciPy's limits)
    inf_hi = (hi == np.inf) & jnp.isfinite(lo)
    out = jnp.where(inf_hi, jnp.where(lo > 0, -np.inf, np.inf), out)
    # both +inf: Gamma(a + b) overflows with Gamma(a) and Gamma(b), and SciPy and JAX
    # give NaN (inf * inf / inf), not the limit 0 of finite a and b
    return jnp.where(lo == np.inf, np.nan, out)


def betainc(a, b, x):
    """Regularized incomplete beta function I_x(a, b); differentiable in ``x`` only,
    as in JAX."""
    a, b, x = _inexact("betainc", a, b, x)
    return lax.betainc(a, b, x)


def gammainc(a, x):
    """Regularized lower incomplete gamma function P(a, x)."""
    a, x = _inexact("gammainc", a, x)
    return lax.igamma(a, x)


def gammaincc(a, x):
    """Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), accurate where
    P rounds to 1."""
    a, x = _inexact("gammaincc", a, x)
    return lax.igammac(a, x)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (a static int):
    ``d(d-1)/4 log(pi) + sum_{j<d} gammaln(a - j/2)``."""
    d = static_index(d, "d", "multigammaln")
    if d < 1:
        raise ValueError(f"multigammaln: d must be a positive int, got {d}")
    (a,) = _inexact("multigammaln", a)
    js = jnp.arange(d, dtype=a.dtype) * 0.5
    terms = lax.lgamma(jnp.expand_dims(a, -1) - js)
    return jnp.sum(terms, axis=-1) + float(d * (d - 1) / 4 * np.log(np.pi))


def factorial(n, exact=False):
    """``Gamma(n + 1)``, 0 for negative n (SciPy's and JAX's ``exact=False``; through
    ``gamma``, not JAX's ``exp(gammaln(n + 1))``, which is ~1000 ulps off at n = 160)."""
    if exact:
        raise NotImplementedError("factorial: exact=True is not supported (as in JAX); "
                                  "use math.factorial on Python ints")
    (n,) = _inexact("factorial", n)
    g = gamma(n + 1)  # (gamma's result is strong; factorial keeps n's weak type, as JAX)
    if getattr(n, "weak_type", False):
        g = lax.convert_element_type(g, g.dtype, weak_type=True)
    return jnp.where(n < 0, 0, g)


def zeta(x, q=None):
    """Hurwitz zeta ``sum_k (k + q)**-x`` for x > 1 (NaN below, as SciPy);
    differentiable in ``q`` only, as in JAX. With ``q`` None (SciPy's one-argument
    form; JAX has none): the Riemann zeta function on the whole real line: the Hurwitz
    series for x > 1, Borwein's alternating-series algorithm for the Dirichlet eta
    function on (0, 1), and the reflection formula
    ``zeta(x) = 2**x pi**(x-1) sin(pi x / 2) Gamma(1 - x) zeta(1 - x)`` for x <= 0, with
    sin's argument reduced exactly (x/2 minus the nearest integer) so that the trivial
    zeros at the negative even integers are exactly 0, as SciPy's."""
    if q is not None:
        x, q = _inexact("zeta", x, q)
        return lax.zeta(x, q)
    (x,) = _inexact("zeta", x)
    if jnp.finfo(x.dtype).bits < 32:
        # float16/bfloat16 in float32: the reflection's logs (~100 in size) rounded to 8
        # bits put bfloat16 zeta(-50.5) at 1.47e24, true 2.40e24
        return zeta(x.astype(jnp.float32)).astype(x.dtype)
    one = jnp.ones_like(x)
    # (eagerly, each region's formula only where some lane is in it: the selects below
    # drop the others; the placeholder is x itself, strong as the reflection's gamma)
    direct = lax.zeta(jnp.where(x > 1, x, 2.0), one) if _any_lane(x > 1) else x
    reflected = _zeta_reflected(x, one) if _any_lane(x < 0) else \
        lax.convert_element_type(x, x.dtype, weak_type=False)
    between = (x > 0) & (x < 1)
    middle = _zeta_borwein(jnp.where(between, x, 0.5)) if _any_lane(between) else x
    out = jnp.where(x > 1, direct, jnp.where(x < 0, reflected, middle))
    # where 1 - x rounds to 1 (|x| < eps/2) the reflection meets sin(0) * zeta(1) = 0 * inf;
    # there zeta(x) = -1/2 - x log(2 pi)/2 to within rounding
    tiny = jnp.abs(x) < 0.5 * float(jnp.finfo(x.dtype).eps)
    out = jnp.where(tiny, -0.5 - float(0.5 * np.log(2 * np.pi)) * x, out)
    return jnp.where(x == 1, np.inf, jnp.where(jnp.isnan(x), np.nan, out))


def _zeta_reflected(x, one):
    """The Riemann zeta function for x < 0 by the reflection formula (lanes x >= 0 are
    computed at r = 2 and dropped by the caller)."""
    r = jnp.where(x < 0, 1 - x, 2.0)  # 1 - x > 1 on the reflected side
    s = 1 - r
    # sin(pi s/2) with its argument reduced exactly (sinpi): the trivial zeros come out
    # exactly 0 (rounding pi * s/2 first left zeta(-88) = 6.7e49 and zeta(-2) = -2.4e-18,
    # true 0)
    sin_part = sinpi(0.5 * s)
    # 2**s pi**(s-1) Gamma(r); where the factors over- and underflow (float32 x = -101:
    # 2**-100 pi**-101 = 0, Gamma(102) = inf: NaN, true -inf) as one exp of their logs
    scale = 2.0 ** s * np.pi ** (s - 1) * gamma(r)
    log_scale = s * float(np.log(2.0)) + (s - 1) * float(np.log(np.pi)) + lax.lgamma(r)
    scale = jnp.where(jnp.isfinite(scale) & (scale != 0), scale, jnp.exp(log_scale))
    zeta_r = lax.zeta(r, one)
    reflected = jnp.where(sin_part == 0, 0.0, sin_part * scale * zeta_r)
    # x <= -1: the factors at x itself, not at s = 1 - (1 - x) (x's rounding moved near
    # the trivial zeros cost 33 float64 / 25 float32 ulps at x = -15.74): (2 pi)**x / pi
    # with x log(2 pi) exact, Gamma(1 - x) as -x Gamma(-x); zeta(1 - x) >= 1 barely
    # moves with its argument's rounding there
    far = x <= -1
    if not _any_lane(far):
        return reflected
    xf = jnp.where(far, x, -2.0)
    # (Gamma(-x) as two factors: float32 Gamma overflows from -x = 35.04 on)
    g_a, g_b = _gamma_factors(jnp.minimum(-xf, _gamma_factors_limit(xf.dtype)))
    exact_scale = _two_pi_pow(xf) * float(1 / np.pi) * -xf * g_a * g_b
    exact_sin = sinpi(0.5 * xf)
    exact = jnp.where(exact_sin == 0, 0.0,
                      exact_sin * exact_scale * zeta_r)  # (r = 1 - x)
    good = jnp.isfinite(exact) & (exact_scale != 0) & (-xf <= _gamma_factors_limit(xf.dtype))
    return jnp.where(far & good, exact, reflected)


def _borwein_weights(n=24):
    """Borwein (1991), algorithm 2: eta(s) ~ -1/d_n sum_k (-1)**k (d_k - d_n) (k+1)**-s,
    error below 3 / (3 + sqrt 8)**n (1e-18 for n = 24)."""
    from math import factorial
    terms = [n * factorial(n + i - 1) * 4 ** i / (factorial(n - i) * factorial(2 * i))
             for i in range(n + 1)]
    d = np.cumsum(terms)
    k = np.arange(n)
    return (-1.0) ** k * (d[:n] - d[n]) / -d[n], np.log(k + 1.0)


_BORWEIN_W, _BORWEIN_LOGK = _borwein_weights()


def _zeta_borwein(s):
    """Riemann zeta(s) = eta(s) / (1 - 2**(1 - s)) for 0 < s < 1."""
    powers = jnp.exp(-jnp.expand_dims(s, -1) * _BORWEIN_LOGK.astype(s.dtype))
    eta = jnp.sum(powers * _BORWEIN_W.astype(s.dtype), axis=-1)
    return eta / -jnp.expm1((1 - s) * float(np.log(2.0)))


# -- Bessel functions -------------------------------------------------------------------------
def i0e(x):
    """``exp(-|x|) I0(x)``."""
    return lax.bessel_i0e(*_inexact("i0e", x))


def i1e(x):
    """``exp(-|x|) I1(x)``."""
    return lax.bessel_i1e(*_inexact("i1e", x))


def i0(x):
    """Modified Bessel function of order 0 (inf where it overflows)."""
    return _i0(*_inexact("i0", x))


def i1(x):
    """Modified Bessel function of order 1 (+-inf where it overflows)."""
    return _i1(*_inexact("i1", x))


def _times_exp_abs(x, v):
    """v exp(|x|) as v exp(|x|/2) exp(|x|/2): exp(|x|) overflows (|x| > 88.7 in float32)
    where the product is still finite (I0(89.7) = 3.9e37)."""
    half = jnp.exp(0.5 * jnp.abs(x))
    return half * v * half


# i0 and i1 differentiate by their own slopes: through exp(|x|) i_e(x) the product rule adds
# sign(x) i_e(x) to i_e'(x), which holds -sign(x) i_e(x): float32 grad(i0)(1e-8) gave 0,
# true 5e-9, grad(i0)(0) 1, true 0 (JAX shares both), and at 89.3, -inf, true 2.6e37
@custom_jvp
def _i0(x):
    return _times_exp_abs(x, lax.bessel_i0e(x))


@custom_jvp
def _i1(x):
    return _times_exp_abs(x, lax.bessel_i1e(x))


@_i0.defjvp
def _i0_jvp(primals, tangents):  # I0' = I1
    (x,), (t,) = primals, tangents
    return _i0(x), t * _i1(x)


@_i1.defjvp
def _i1_jvp(primals, tangents):  # I1' = I0 - I1/x = exp(|x|) (i0e - i1e/x)
    (x,), (t,) = primals, tangents
    small = jnp.abs(x) < 1
    safe = jnp.where(small, 1.0, x)
    far = _times_exp_abs(x, lax.bessel_i0e(x) - lax.bessel_i1e(safe) / safe)
    # below 1 its Maclaurin series, whose terms (and their derivatives: grad of grad) share
    # one sign; the derivative of I0 - I1/x cancels there (float32 grad(grad(i1))(1e-3)
    # was 2.86e-4, true 3.75e-4, up to sqrt(eps) where the series took over before)
    u = jnp.where(small, x * x, 0.0)
    series = jnp.zeros_like(u) + _I1_SLOPE_SERIES[-1]
    for c in _I1_SLOPE_SERIES[-2::-1]:
        series = series * u + c
    return _i1(x), t * jnp.where(small, series, far)


# -- information theory: x log y and the entropies ------------------------------------------
@custom_jvp
def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (even for y = 0; NaN for NaN y, as SciPy).
    Derivatives are JAX's: ``log(y)`` in x and ``x / y`` in y, everywhere."""
    x, y = _inexact("xlogy", x, y)
    return jnp.where((x != 0) | jnp.isnan(y), x * jnp.log(y), jnp.zeros_like(x))


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    x, y = _inexact("xlogy", x, y)
    # y_dot * (x / y): as (y_dot * x) / y the transpose divides by y first, and 1/y overflows
    # at subnormal y (float32 grad in y of xlogy(1e-20, 4e-45) was inf, true 2.4e24; JAX shares)
    return xlogy(x, y), x_dot * jnp.log(y) + y_dot * (x / y)


@custom_jvp
def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` (NaN for NaN y); derivatives ``log1p(y)``
    and ``x / (1 + y)`` (JAX's)."""
    x, y = _inexact("xlog1py", x, y)
    return jnp.where((x != 0) | jnp.isnan(y), x * jnp.log1p(y), jnp.zeros_like(x))


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    x, y = _inexact("xlog1py", x, y)
    return xlog1py(x, y), x_dot * jnp.log1p(y) + y_dot * (x / (1 + y))  # (as xlogy's)


@custom_jvp
def _xlogx(x):
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (jnp.log(x) + 1)


def entr(x):
    """Elementwise entropy ``-x log x``: 0 at 0, -inf for x < 0."""
    (x,) = _inexact("entr", x)
    return jnp.where(x < 0, -np.inf, -_xlogx(x))


def _p_log_p_over_q(name, p, q, p_zero_value):
    """``p log(p / q)`` for p, q > 0 (``p_zero_value`` at p = 0 <= q, inf for other
    negative or zero arguments, NaN for NaN). log(p / q) keeps full accuracy where p is
    close to q; log p - log q is used where p / q over- or underflows."""
    p, q = _inexact(name, p, q)
    both_pos = (p > 0) & (q > 0)
    sp, sq = jnp.where(both_pos, p, 1.0), jnp.where(both_pos, q, 1.0)
    ratio = sp / sq
    ok = (ratio > 0) & jnp.isfinite(ratio)
    log_ratio = jnp.where(ok, jnp.log(jnp.where(ok, ratio, 1.0)), jnp.log(sp) - jnp.log(sq))
    # JAX's lax._const typing: strong unless p is a weak scalar, and so is the result
    inf = _constant_like(p, np.inf)
    out = jnp.where(both_pos, sp * log_ratio,
                    jnp.where((p == 0) & (q >= 0), p_zero_value(q), inf))
    return p, q, both_pos, jnp.where(jnp.isnan(p) | jnp.isnan(q), np.nan, out)


def rel_entr(p, q):
    """``p log(p / q)`` for p, q > 0; 0 for p = 0, q >= 0; inf otherwise (SciPy)."""
    return _p_log_p_over_q("rel_entr", p, q, jnp.zeros_like)[-1]


def kl_div(p, q):
    """``p log(p / q) - p + q`` for p, q > 0; q for p = 0, q >= 0; inf otherwise."""
    p, q, both_pos, out = _p_log_p_over_q("kl_div", p, q, lambda q: q)
    # p - q first: exact where p and q are close (Sterbenz), where the result cancels
    return jnp.where(both_pos, out - (p - q), out)


# -- the gamma family's helpers (JAX's definitions) -------------------------------------
@custom_jvp
def beta(a, b):
    """The beta function ``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``, as
    ``gammasgn(a) gammasgn(b) gammasgn(a + b) exp(betaln(a, b))`` (JAX's formula).

    Args:
      a, b: real arrays.

    Returns:
      ``B(a, b)`` in the promoted inexact dtype.
    """
    a, b = _inexact("beta", a, b)
    ab = a + b
    # a + b at a pole of Gamma (a and b not): 1 / Gamma(a + b) = 0, so B is a signed zero
    # (SciPy); gammasgn's NaN there would make it NaN (by_log below)
    pole_ab = (ab <= 0) & (ab == jnp.floor(ab)) & jnp.isfinite(ab)
    # Where the gammas are finite (and Gamma(a + b) normal): their ratio, with a + b's
    # rounding e put back, 1/Gamma(ab + e) = (1 - digamma(ab) e) / Gamma(ab); exp(betaln)
    # carried |betaln| eps (float32 beta(-13.63, -5.4) 190 ulps, JAX the same)
    b_part = ab - a
    e = (a - (ab - b_part)) + (b - b_part)
    slope = jnp.where(e == 0, jnp.zeros_like(e), digamma(ab) * e)
    g_a, g_b, g_ab = gamma(a), gamma(b), gamma(ab)
    direct = g_a / g_ab * g_b * (1 - slope)
    ok = jnp.isfinite(g_a) & jnp.isfinite(g_b) & jnp.isfinite(direct) & (direct != 0) & \
        (jnp.abs(g_ab) >= float(jnp.finfo(ab.dtype).tiny))
    use_direct = ok & ~pole_ab
    if not _any_lane(~use_direct):
        return direct
    # a, b > 0, one >= 10 (Gamma(a + b) overflows): exp of log B as a pair (_special_dd);
    # exp of betaln carried |log B| eps (float64 beta(251, 251) 141 ulps)
    large = ~use_direct & (jnp.minimum(a, b) > 0) & (jnp.maximum(a, b) >= 10) & \
        (jnp.maximum(a, b) < _dd.exact_below(a.dtype))
    by_log = by_large = None
    if _any_lane(~use_direct & ~large):
        sign_ab = jnp.where(pole_ab, jnp.ones_like(ab), gammasgn(ab))
        by_log = gammasgn(a) * gammasgn(b) * sign_ab * jnp.exp(betaln(a, b))
    if _any_lane(large):
        lo = jnp.where(large, jnp.minimum(a, b), 1.0)
        hi = jnp.where(large, jnp.maximum(a, b), 10.0)
        by_large = _dd.beta_large(lo, hi)
        by_log = by_large if by_log is None else jnp.where(large, by_large, by_log)
    return jnp.where(use_direct, direct, by_log)


@beta.defjvp
def _beta_jvp(primals, tangents):
    # dB/da = B (digamma(a) - digamma(a + b)): differentiating the branches gave NaN where
    # a gamma overflowed (0 * inf in the unselected branch; grad beta(12, 200)) and a
    # wrong sign through the direct branch's rounding correction (float64
    # d/da beta(40.5, 100) 3.9e-37, true -1.3e-37)
    a, b = _inexact("beta", *primals)
    da, db = tangents
    out = beta(a, b)
    psi_ab = digamma(a + b)
    tangent = (digamma(a) - psi_ab) * jnp.asarray(da, out.dtype) + \
        (digamma(b) - psi_ab) * jnp.asarray(db, out.dtype)
    return out, out * tangent


@custom_jvp
def poch(z, m):
    """The Pochhammer symbol ``(z)_m = Gamma(z + m) / Gamma(z)`` (1 where ``m == 0``).

    Args:
      z, m: real arrays.

    Returns:
      ``(z)_m`` in the promoted inexact dtype.
    """
    z, m = _inexact("poch", z, m)
    zm = z + m
    # z + m's rounding e (TwoSum), put back to first order: Gamma(zm + e) = Gamma(zm)
    # (1 + digamma(zm) e); Gamma's slope made it ~150 ulps at poch(78.04, 21.7)
    m_part = zm - z
    e = (z - (zm - m_part)) + (m - m_part)
    slope = jnp.where(e == 0, jnp.zeros_like(e), digamma(zm) * e)
    gamma_zm, gamma_z = gamma(zm), gamma(z)
    direct = gamma_zm / gamma_z * (1 + slope)
    # Where a gamma overflows (inf / inf; float32 poch(51.4, -20.4) was finite / inf = 0,
    # true 1.8e-33) or Gamma(z + m) underflows (float32 poch(-24.3, -15.4) was 0, true
    # -6e-24), |Gamma(z + m) / Gamma(z)| is
    # |Gamma(m)| / |B(z, m)|, with betaln's Stirling differences: lgamma(z + m) - lgamma(z)
    # itself keeps no digit at z = 1e30. (Not at a pole of Gamma(m), z or z + m.)
    def pole(x):
        return (x <= 0) & (x == jnp.floor(x))
    lost = ~jnp.isfinite(direct) | ~jnp.isfinite(gamma_z) | \
        (jnp.abs(gamma_zm) < float(jnp.finfo(z.dtype).tiny))
    by_beta = lost & jnp.isfinite(z) & jnp.isfinite(m) & \
        ~pole(m) & ~pole(z) & ~pole(zm)
    if not _any_lane(by_beta):
        return jnp.where(m == 0, jnp.ones_like(z), direct)
    log_abs = lax.lgamma(m) - betaln(z, m)
    by_log = gammasgn(zm) * gammasgn(z) * jnp.exp(log_abs)
    # z, z + m >= 10: Stirling's ratio with its powers taken apart, ((z + m)/z)**(z - 1/2)
    # = exp((z - 1/2) log1p(m/z)) (no z + m rounded in it) times (z + m)**m (pow, with the
    # sum's rounding put back) times exp(-m + d(z + m) - d(z)): error ~|m| eps where
    # exp(log_abs) had ~|log poch| eps (float32 poch(199.5, -10.4) 148 ulps, float64
    # poch(199.5, 34.9) 187)
    # (that log as a pair, _special_dd: as a plain sum it carried ~|m| eps, 28 ulps at
    # float64 poch(199.5, 34.9)). z, z + m <= -10: the reflection of both gammas,
    # (z sin(pi z) / (zm sin(pi zm))) / ((-z)_(-m)), the latter by the same ratio;
    # exp(log_abs) had 70 ulps at float32 poch(-20.3, -20.4)
    big = by_beta & (z >= 10) & (zm >= 10)
    neg = by_beta & (z <= -10) & (zm <= -10)
    if not _any_lane(big | neg):
        out = jnp.where(by_beta, by_log, direct)
        return jnp.where(m == 0, jnp.ones_like(z), out)
    sign = jnp.where(neg, -1.0, 1.0)   # (z, m, zm, e) -> (-z, -m, -zm, -e) on neg lanes
    ratio_lanes = big | neg
    z_s, m_s = jnp.where(ratio_lanes, sign * z, 10.0), jnp.where(ratio_lanes, sign * m, 1.0)
    zm_s, e_s = jnp.where(ratio_lanes, sign * zm, 11.0), jnp.where(ratio_lanes, sign * e, 0.0)
    stirling = _dd.poch_large(z_s, m_s, zm_s, e_s)
    if _any_lane(neg):
        # zm sin(pi zm) at the exact z + m = zm + e: its log's slope 1/zm + pi cot(pi zm)
        z_n, zm_n = jnp.where(neg, z, -10.5), jnp.where(neg, zm, -10.5)
        s_zm = sinpi(zm_n)
        slope_n = jnp.where(e == 0, 0.0, e * (1 / zm_n + np.pi * sinpi(zm_n + 0.5) / s_zm))
        reflected = (z_n * sinpi(z_n)) / (zm_n * s_zm) * (1 - slope_n) / stirling
        stirling = jnp.where(neg, reflected, stirling)
    use = ratio_lanes & jnp.isfinite(stirling) & (stirling != 0)
    out = jnp.where(by_beta, jnp.where(use, stirling, by_log), direct)
    return jnp.where(m == 0, jnp.ones_like(z), out)


@poch.defjvp
def _poch_jvp(primals, tangents):
    # JAX's rule: d/dz = (digamma(z + m) - digamma(z)) poch, d/dm = digamma(z + m) poch
    z, m = _inexact("poch", *primals)
    dz, dm = tangents
    out = poch(z, m)
    dz = jnp.asarray(dz, out.dtype)
    dm = jnp.asarray(dm, out.dtype)
    tz = (digamma(z + m) - digamma(z)) * out * dz
    tm = digamma(z + m) * out * dm
    return out, tz + tm


def comb(N, k, *, repetition=False):
    """The number of combinations of ``N`` things taken ``k`` at a time, through
    gammaln (JAX: no ``exact``); 0 where ``N < 0``, ``k < 0`` or ``k > N``.

    Args:
      N, k: real arrays.
      repetition: count combinations with repetition (``comb(N + k - 1, k)``; 1 where
        ``k == 0`` and ``N >= 0``).

    Returns:
      ``N choose k`` in the promoted inexact dtype.
    """
    N, k = _inexact("comb", N, k)
    if repetition:
        out = comb(N + k - 1, k)
        return jnp.where((k == 0) & (N >= 0), jnp.ones_like(out), out)
    return _comb(N, k)


@custom_jvp
def _comb(N, k):
    ok = (k <= N) & (N >= 0) & (k >= 0)
    n_, k_ = jnp.where(ok, N, 0), jnp.where(ok, k, 0)
    # JAX's exp(gammaln(N + 1) - gammaln(k + 1) - gammaln(N + 1 - k)) cancels: 1e6 ulps
    # at comb(1e5, 1) = 99999.99999. Instead: a product of k (or N - k) exact factors
    # where that is an integer <= _COMB_PRODUCT; a ratio of accurate gammas where they
    # are finite; else exp of a log kept as a pair (below).
    small = jnp.minimum(jnp.where(k_ == jnp.floor(k_), k_, np.inf),
                        jnp.where(n_ - k_ == jnp.floor(n_ - k_), n_ - k_, np.inf))
    by_product = small <= _COMB_PRODUCT
    top = jnp.where(by_product, n_ - small, 0)
    product = jnp.ones_like(n_)
    # (eagerly, the steps up to the largest count taken: later factors are all 1)
    steps = _COMB_PRODUCT if isinstance(small, Tracer) else \
        int(np.max(np.where(np.asarray(by_product), np.asarray(small), 0), initial=0))
    for i in range(1, steps + 1):
        product = product * jnp.where(small >= i, (top + i) / i, 1.0)
    by_gamma = n_ + 1 <= float(_GAMMA_FINITE_BELOW[jnp.finfo(n_.dtype).bits])
    rest = product      # (a lane no product takes reads one of the branches below)
    # the rest: 1 / ((N + 1) B(k + 1, N - k + 1)) with the log as a pair (_special_dd):
    # exp of betaln's sum carried |log comb| eps (float64 comb(1000, 500) 607 ulps,
    # comb(1e12, 7.5) 161); NaN for N = inf, as SciPy
    large = ~by_product & ~by_gamma & jnp.isfinite(n_)
    infinite = ~by_product & ~by_gamma & ~jnp.isfinite(n_)
    if _any_lane(large):
        by_large = _dd.comb_large(jnp.where(large, n_, 18.0), jnp.where(large, k_, 1.0))
        rest = jnp.where(large, by_large, rest)
    if _any_lane(infinite):
        rest = jnp.where(infinite, np.nan, rest)
    if _any_lane(~by_product & by_gamma):
        n_g = jnp.where(by_gamma, n_, 0)
        k_g = jnp.where(by_gamma, k_, 0)
        ratio = gamma(n_g + 1) / gamma(k_g + 1) / gamma(n_g - k_g + 1)
        rest = jnp.where(by_gamma, ratio, rest)
    elif getattr(rest, "weak_type", False):   # (gamma's result is strong: so is comb's)
        rest = lax.convert_element_type(rest, rest.dtype, weak_type=False)
    out = jnp.where(by_product, product, rest)
    return jnp.where(ok, out, jnp.zeros_like(out))


@_comb.defjvp
def _comb_jvp(primals, tangents):
    # the slope of exp(gammaln(N + 1) - gammaln(k + 1) - gammaln(N + 1 - k)) (JAX's), not
    # of the integer-k product, which is not the continuation's; 0 where comb is
    N, k = primals
    dN, dk = tangents
    out = _comb(N, k)
    ok = (k <= N) & (N >= 0) & (k >= 0)
    n_, k_ = jnp.where(ok, N, 0), jnp.where(ok, k, 0)
    rest = digamma(n_ - k_ + 1)
    slope = (digamma(n_ + 1) - rest) * jnp.asarray(dN, out.dtype) + \
        (rest - digamma(k_ + 1)) * jnp.asarray(dk, out.dtype)
    return out, jnp.where(ok, out * slope, jnp.zeros_like(out))


_COMB_PRODUCT = 20  # k (or N - k) up to this: the product, ~k/2 ulps at worst
# N + 1 up to these (per float bits): Gamma(N + 1) finite
_GAMMA_FINITE_BELOW = {16: 9.0, 32: 35.0, 64: 171.0}  # (float16: Gamma(10) > 65504)


def loggamma(x):
    """The principal branch of ``log(Gamma(x))`` for real ``x``: ``gammaln(x)`` where
    ``x > 0``, NaN elsewhere (JAX's definition for real inputs).

    Args:
      x: a real array (complex inputs are not supported in tjit).

    Returns:
      ``log(Gamma(x))`` in the promoted inexact dtype.
    """
    (x,) = promote_args_inexact("loggamma", x)
    if jnp.iscomplexobj(x):
        raise NotImplementedError("loggamma: complex inputs (the analytic continuation) "
                                  "are not supported in tjit; pass a real array")
    return jnp.where(x > 0, lax.lgamma(x), jnp.full_like(x, np.nan))


def _boxcox_from_log(log_x, lmbda):
    zero = lmbda == 0
    safe = jnp.where(zero, jnp.ones_like(lmbda), lmbda)
    return jnp.where(zero, log_x, jnp.expm1(safe * log_x) / safe)


def boxcox(x, lmbda):
    """The Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log(x)`` where ``lmbda == 0``),
    as ``expm1(lmbda log x) / lmbda``; NaN for ``x < 0``.

    Args:
      x: a positive real array.
      lmbda: a real array.

    Returns:
      The transform in the promoted inexact dtype.
    """
    x, lmbda = _inexact("boxcox", x, lmbda)
    return _boxcox_from_log(jnp.log(x), lmbda)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of ``1 + x``, accurate for small ``x`` (through log1p).

    Args:
      x: a real array greater than -1.
      lmbda: a real array.

    Returns:
      The transform in the promoted inexact dtype.
    """
    x, lmbda = _inexact("boxcox1p", x, lmbda)
    return _boxcox_from_log(jnp.log1p(x), lmbda)


def bernoulli(n):
    """The Bernoulli numbers ``B_0 .. B_n`` (``B_1 = -1/2``), by JAX's algorithm (Chowla
    and Hartung: the even ones from a cumulative product and zeta), with zeta itself
    where JAX truncates its series (JAX's B_4 is off by 2.5e-6 relative).

    Args:
      n: a static non-negative int.

    Returns:
      A float array of ``n + 1`` numbers.
    """
    if isinstance(n, Tracer):
        raise ConcretizationTypeError("bernoulli: n must be a static Python int (the result "
                                      "has n + 1 entries), got a traced value; mark it "
                                      "static (static_argnums)")
    n = static_index(n, "n", "bernoulli")
    if n < 0:
        raise ValueError(f"bernoulli: n must be a non-negative integer, got {n}")
    b3 = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return b3[:n + 1]
    bn = jnp.zeros(n + 1).at[:3].set(b3)
    m = jnp.arange(4, n + 1, 2, dtype=bn.dtype)
    q1 = (1. / np.pi ** 2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
    # B_m = q1 zeta(m): JAX sums k**-m for k < 50 instead, which leaves 2.5e-6 of B_4 out
    return bn.at[4::2].set(q1 * zeta(m, jnp.ones_like(m)))


from tjit.scipy._special_integrals import (  # noqa: E402,F401  (re-exported)
    dawsn, erfcx, exp1, expi, expn, sici, spence)

from tjit.scipy._special_hypergeometric import (  # noqa: E402,F401  (re-exported)
    fresnel, hyp1f1, hyp2f1, owens_t, wofz)
from tjit.scipy._special_orthogonal import (  # noqa: E402,F401
    bessel_jn, lpmn, lpmn_values, sph_harm_y)

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), submodules=())  # tab completion lists the public API only
from tjit._docs import add_module_examples as _add_examples  # noqa: E402
_add_examples(globals())  # checked against SciPy's (python -m tjit._docs)
