"""``jax.scipy.special``'s error-function relatives and integrals for real inputs, as JAX
computes them: ``erfcx``, the exponential integrals ``exp1``, ``expi``, ``expn``, Spence's
function, Dawson's integral and the sine/cosine integrals. Series and continued fractions
run as ``fori_loop``s (kernels stay small); derivatives are JAX's ``custom_jvp`` rules."""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.numpy._core import promote_args_inexact
from tjit.scipy._special_common import EULER_GAMMA as _EULER_GAMMA
from tjit.scipy._special_common import exp_square_times
from tjit.scipy._special_common import real_args as _inexact
from tjit.scipy._special_hypergeometric import wofz
from tjit.transforms.custom_derivatives import custom_jvp

# erfcx(x) ~ P(1/x^2) / (sqrt(pi) x) for large x, P's coefficients (-1)^k (2k-1)!! / 2^k
# highest degree first (JAX's table); float32 uses the last 5, float64 all 9
_ERFCX_ASYMPTOTIC = [7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875,
                     .75, -.5, 1.]


def _poly(coeffs, v):
    """The polynomial with ``coeffs`` (highest power first) at ``v``, in ``v``'s dtype."""
    return jnp.polyval(jnp.asarray(coeffs, v.dtype), v)


def erfcx(x):
    """The scaled complementary error function ``exp(x**2) erfc(x)``. Real ``x`` as JAX
    computes it: directly below ``sqrt(log(float max))`` (where ``exp(x**2)`` would
    overflow), by the asymptotic series above it (float16/bfloat16 in float32). Complex
    ``x``: Faddeeva's function ``wofz(i x)``, as JAX.

    Args:
      x: a real or complex array.

    Returns:
      ``erfcx(x)`` in the promoted inexact dtype.
    """
    (x,) = promote_args_inexact("erfcx", x)
    if jnp.iscomplexobj(x):
        return wofz(lax.complex(-jnp.imag(x), jnp.real(x)))
    return _erfcx_real(x)


@custom_jvp
def _erfcx_real(x):
    dt = x.dtype
    xc = x if dt in (np.float32, np.float64) else x.astype(np.float32)
    f64 = xc.dtype == np.float64
    # The series from 20 (float64; its next term is < 3e-19 there) / 9 (float32: < 1e-8),
    # not from sqrt(log(max)) as JAX: erfc(x) is subnormal (relative accuracy lost) just
    # below that. Below, erfc(x) exp(x**2) with x**2 as an exact pair: exp of the rounded
    # square is off by x**2 eps relative (294 float64 ulps at x = -25; JAX shares it).
    large = xc > (20.0 if f64 else 9.0)
    # erfcx(x < -27 / -9.5) = 2 exp(x**2) overflows: the clip keeps the pair finite
    safe = jnp.where(large, jnp.ones_like(xc), jnp.maximum(xc, -27.0 if f64 else -9.5))
    direct = exp_square_times(safe, 1.0, lax.erfc(safe))
    return jnp.where(large, erfcx_asymptotic(xc), direct).astype(dt)


def erfcx_asymptotic(x):
    """erfcx's asymptotic series alone (float32 / float64 ``x``): 9 terms for float64, 5
    for float32, the next term's relative size ``(2n+1)!! / (2 x**2)**(n+1)``: below eps
    from x = 20 / 8.5, as erfcx uses it (a caller whose x never drops below that skips
    erfcx's erfc lane, which every lane computes)."""
    nterms = 9 if x.dtype == np.float64 else 5
    t = 1 / (x * x)
    # 1/(x sqrt(pi)) as two divisions: x sqrt(pi) overflows for float32 x > 1.9e38
    return _poly(_ERFCX_ASYMPTOTIC[-nterms:], t) / x / float(np.sqrt(np.pi))


@_erfcx_real.defjvp
def _erfcx_jvp(primals, tangents):  # d/dx erfcx = 2 x erfcx(x) - 2 / sqrt(pi)
    (x,), (dx,) = primals, tangents
    out = _erfcx_real(x)
    # JAX's 2 x erfcx - 2/sqrt(pi) cancels for large x (the slope is ~ -1/(sqrt(pi) x^2)):
    # float32 at 1e5 gave -1.19e-7 (true -5.64e-11). From 2 on it is -2 r(x) erfcx(x), r the
    # tail of erfc's continued fraction (see _erfc_cf_tail), with no subtraction.
    far = x >= 2
    # a Python float, weakly typed: np.float64 would promote a float32 tangent
    near = 2 * x * out - float(2 / np.sqrt(np.pi))
    xc = x if x.dtype in (np.float32, np.float64) else x.astype(np.float32)
    tail = _erfc_cf_tail(jnp.where(far, xc, 2)).astype(x.dtype)
    return out, jnp.where(far, -2 * tail * out, near) * dx


def _erfc_cf_tail(x):
    """r in sqrt(pi) erfcx(x) = 1 / (x + r), r = (1/2) / (x + 1 / (x + (3/2) / (x + ...)))
    (coefficients k/2), 64 levels: relative error < 1e-16 for x >= 2, less as x grows; the
    levels add positives only. Then erfcx' = 2 x erfcx - 2/sqrt(pi) = -2 r erfcx exactly."""
    d = x
    for k in range(64, 1, -1):
        d = x + (k / 2) / d
    return 0.5 / d


# -- exponential integrals --------------------------------------------------------------------
def _exp1_small(x):
    """E1 for 0 < x <= 1: -gamma - log x - sum_k (-x)^k / (k k!), 25 terms (< 1e-28)."""
    def step(k, carry):  # term = (-x)^k / k!
        term, total = carry
        term = -term * x / k.astype(x.dtype)
        return term, total + term / k.astype(x.dtype)
    total = lax.fori_loop(1, 26, step, (jnp.ones_like(x), jnp.zeros_like(x)))[1]
    return -_EULER_GAMMA - jnp.log(x) - total


def _exp1_large(x):
    """E1 for x > 1: exp(-x) / (x + 1 - 1/(x + 3 - 4/(x + 5 - ...))), the continued
    fraction evaluated from its 120th level up (slowest just above 1, where 60 leave
    6e-13). Bottom-up, each level damps the rounding of those below; the forward (Lentz)
    product h * c * d compounded 240 roundings: float32 E1(2.7188) was 34 ulps off, float64
    E1(3.0705) 9.6."""
    def step(k, t):
        i = (120 - k).astype(x.dtype)
        return x + (2 * i - 1) - i * i / t
    t = lax.fori_loop(0, 120, step, x + 241)
    return jnp.exp(-x) / t


def _exp1_positive(x):
    small = x <= 1
    return jnp.where(small, _exp1_small(jnp.where(small, x, 1)),
                     _exp1_large(jnp.where(small, 2, x)))


@custom_jvp
def exp1(x):
    """The exponential integral ``E1(x) = int_1^inf exp(-x t) / t dt`` for real ``x``:
    a power series up to 1, a continued fraction beyond; inf at 0, NaN below (SciPy).

    Args:
      x: a real array.

    Returns:
      ``E1(x)`` in the promoted inexact dtype.
    """
    (x,) = _inexact("exp1", x)
    pos = x > 0
    out = _exp1_positive(jnp.where(pos, x, 1))
    out = jnp.where(pos, out, jnp.where(x == 0, np.inf, np.nan).astype(x.dtype))
    return jnp.where(jnp.isinf(x) & pos, jnp.zeros_like(x), out)


@exp1.defjvp
def _exp1_jvp(primals, tangents):  # JAX's: d/dx E1(x) = -exp(-x) / x
    (x,), (dx,) = primals, tangents
    return exp1(x), -jnp.exp(-x) / x * dx


#: x e^-x Ei(x) on [a, 2a], a = 2, 4, 8, 16, 32: Chebyshev coefficients in s = (x - 1.5a) / (a/2)
#: (mpmath at 50 digits, 48 nodes; the 25th is ~1e-19; float32 uses the first 14: < 1e-9)
_EI_CHEB = [
    [1.4376586290511293, 0.03909377122824879, -0.04707737189187475, 0.00948805837626918,
     -0.001000923180704082, 4.120491612497998e-05, 6.128693771002947e-06,
     -1.6952745129803853e-06, 2.588514280461473e-07, -3.2825492771468743e-08,
     3.932730985591191e-09, -4.75475606604279e-10, 5.974442590083626e-11,
     -7.840671028269198e-12, 1.0677809784338984e-12, -1.4961830844532642e-13,
     2.1423410076749846e-14, -3.119756394208668e-15, 4.605342025108993e-16,
     -6.875562055134835e-17, 1.0363740428888087e-17, -1.5751240401486292e-18,
     2.4112876176131847e-19, -3.714932727431334e-20, 5.755941518065814e-21],
    [1.295469556667719, -0.12953671050220272, 0.015619178993026518, 0.001081056182690445,
     -0.0010131141268412127, 0.00026966786425212204, -4.711058963902617e-05,
     5.954379044165381e-06, -5.07953236603907e-07, 1.1438367968421183e-08,
     5.957005844551373e-09, -1.556132167909376e-09, 2.674726196156546e-10,
     -3.895910801746529e-11, 5.246906188762711e-12, -6.859041066759816e-13,
     8.975409058736508e-14, -1.1965035351110518e-14, 1.6363274167997702e-15,
     -2.295537361907299e-16, 3.292157063863795e-17, -4.807130879442303e-18,
     7.121307877303298e-19, -1.0673764309561656e-19, 1.6154177820516142e-20],
    [1.1144740847193884, -0.05192969196396013, 0.01204901972001835, -0.002724424682650376,
     0.000561834705727686, -9.730739774113749e-05, 1.1985603421364367e-05,
     -2.393643632037028e-07, -4.048858904478838e-07, 1.5090854885368983e-07,
     -3.6845767071859496e-08, 7.1733801269563855e-09, -1.1734140667702304e-09,
     1.628317553407634e-10, -1.8660323726782263e-11, 1.5663317983352395e-12,
     -3.393560925431082e-14, -2.2199342064911206e-14, 6.4823811741975605e-15,
     -1.2770377987365327e-15, 2.140340486544039e-16, -3.2816348084131046e-17,
     4.775371993148473e-18, -6.754279312116656e-19, 9.446326883636011e-20],
    [1.049135077074725, -0.018738391008657387, 0.003601178189587646, -0.0006987766576406,
     0.00013722595447169367, -2.734556685784662e-05, 5.540692614217974e-06,
     -1.1411600009436787e-06, 2.3785999850381753e-07, -4.970040906425455e-08,
     1.0264020911084718e-08, -2.058602867554637e-09, 3.9284825871578467e-10,
     -6.95165739255429e-11, 1.0956628568285235e-11, -1.406209618249368e-12,
     1.0071255638729923e-13, 1.6276946806977994e-14, -9.676871999046342e-15,
     2.8960401035461566e-15, -6.895596207182392e-16, 1.4332148335712534e-16,
     -2.6900275037437816e-17, 4.6259753338926556e-18, -7.323800253084149e-19],
    [1.0232190239053947, -0.008357023270078935, 0.001505857704895349, -0.00027170942428822925,
     4.909658124382302e-05, -8.885156428985922e-06, 1.6106180775614807e-06,
     -2.924731150572782e-07, 5.3211379727585146e-08, -9.700995363800463e-09,
     1.772557268415755e-09, -3.246755022063428e-10, 5.963145402861342e-11,
     -1.0985330915720424e-11, 2.0306200691021284e-12, -3.7681295863921964e-13,
     7.023472083947541e-14, -1.3158216760883086e-14, 2.4796025751926046e-15,
     -4.703550646832943e-16, 8.986424390242093e-17, -1.7297332350786665e-17,
     3.3532802317974446e-18, -6.5400724977597975e-19, 1.28064494720058e-19],
]
#: x e^-x Ei(x) for x >= 64: a polynomial in s = 128/x - 1, lowest power first (relative
#: error 3e-22; mpmath's chebyfit)
_EI_TAIL = [1.00793752440814, 0.008065599833803217, 0.0001312274086310246, 3.257198003197771e-06,
            1.096831234646813e-07, 4.699935890723274e-09, 2.4614697818504115e-10,
            1.5326778443486108e-11, 1.1121508928942491e-12, 9.263257212054462e-14,
            8.741754461468953e-15, 9.277630911620798e-16, 1.179211355826418e-16,
            1.572219019811837e-17]

#: Ei's positive zero x0 = 0.37250741078136663446..., as float64 and float32 pairs
_EI_ROOT = {np.dtype(np.float64): (0.3725074107813666, 1.3140183414386028e-17),
            np.dtype(np.float32): (0.3725074231624603, -1.2381093483782024e-08)}
_LOG_EI_ROOT = -0.9874983466453419


def _expi_positive(x):
    """Ei for x > 0: up to 2 the series gamma + log x + sum_k x^k / (k k!) taken relative
    to its value 0 at the root x0: ``Ei(x) = log(x / x0) + (x - x0) sum_k r_k / k``,
    r_k = (x^k - x0^k) / ((x - x0) k!) (40 terms, all positive: no cancellation; as
    gamma + log x + sum it cancelled to nothing near x0, float32 Ei(0.37250742) 5e6 ulps
    off, SciPy 3.7e6 float64 ulps). Beyond, ``exp(x)/x g(x)`` with g = x e^-x Ei(x) from
    Chebyshev series on [2, 4], ..., [32, 64] and a polynomial in 1/x above (the series to
    40 and the asymptotic series beyond compounded their terms' roundings: up to 10
    float32 / 12 float64 ulps from 6 on)."""
    series = _expi_series(jnp.where(x <= 2, x, 1))
    mid = x < 64
    g = jnp.where(mid, _ei_scaled_mid(jnp.where(mid, jnp.maximum(x, 2), 2)),
                  _ei_scaled_tail(jnp.maximum(x, 64)))
    # exp(x) / x, split in halves where exp(x) alone overflows (Ei stays finite a little
    # further: float64 to 716, float32 to 93.6)
    big = x > (700.0 if x.dtype == np.float64 else 85.0)
    half = jnp.exp(jnp.where(big, x, 0) / 2)
    scale = jnp.where(big, half * (half / x), jnp.exp(jnp.where(big, 0, x)) / x)
    return jnp.where(x <= 2, series, jnp.where(x == np.inf, x, scale * g))  # (inf/inf)


def _expi_series(x):
    """Ei for 0 < x <= 2, relative to its root (see _expi_positive)."""
    root_hi, root_lo = _EI_ROOT[np.dtype(x.dtype)]
    d = (x - root_hi) - root_lo                    # x - root_hi is exact near the root

    def series_step(k, carry):  # r_k = (x r_{k-1} + x0^(k-1) / (k-1)!) / k
        r, s, total = carry
        kf = k.astype(x.dtype)
        r = (x * r + s) / kf
        return r, s * root_hi / kf, total + r / kf
    zero, one = jnp.zeros_like(x), jnp.ones_like(x)
    total = lax.fori_loop(1, 41, series_step, (zero, one, zero))[2]  # 2^40/40! < 1e-35
    # log(x / x0): log1p near the root (x / x0 = 1 + d / x0 exactly), a difference of logs
    # elsewhere (d / x0 rounds to -1 for tiny x)
    near = jnp.abs(d) < 0.5 * root_hi
    log_ratio = jnp.where(near, jnp.log1p(d / root_hi), jnp.log(x) - _LOG_EI_ROOT)
    return log_ratio + d * total


def _ei_scaled_mid(x):
    """x e^-x Ei(x) for 2 <= x < 64: the Chebyshev series of x's octave (Clenshaw)."""
    octave = ((x >= 4).astype(np.int32) + (x >= 8).astype(np.int32)
              + (x >= 16).astype(np.int32) + (x >= 32).astype(np.int32))
    a = jnp.asarray([2.0, 4.0, 8.0, 16.0, 32.0], x.dtype)[octave]
    s = (x - 1.5 * a) / (0.5 * a)                  # both steps exact (Sterbenz, a power of 2)
    terms = 25 if x.dtype == np.float64 else 14
    coefs = jnp.asarray(_EI_CHEB, x.dtype)[:, :terms][octave]
    b1, b2 = jnp.zeros_like(x), jnp.zeros_like(x)
    for k in range(terms - 1, 0, -1):
        b1, b2 = 2 * s * b1 - b2 + coefs[..., k], b1
    return s * b1 - b2 + coefs[..., 0]


def _ei_scaled_tail(x):
    """x e^-x Ei(x) for x >= 64: a polynomial in 128/x - 1."""
    return _poly(_EI_TAIL[::-1], 128 / x - 1)


@custom_jvp
def expi(x):
    """The exponential integral ``Ei(x)`` (principal value of ``int_-inf^x e^t / t dt``)
    for real ``x``: ``-E1(-x)`` below 0, ``-inf`` at 0, series and asymptotic expansion
    above.

    Args:
      x: a real array.

    Returns:
      ``Ei(x)`` in the promoted inexact dtype.
    """
    (x,) = _inexact("expi", x)
    # float16/bfloat16 in float32 (the series' root is kept for float32/float64 only)
    xc = x if x.dtype in (np.float32, np.float64) else x.astype(np.float32)
    pos = xc > 0
    out = jnp.where(pos, _expi_positive(jnp.where(pos, xc, 1)), -exp1(jnp.where(pos, 1, -xc)))
    return jnp.where(xc == 0, -np.inf, out).astype(x.dtype)


@expi.defjvp
def _expi_jvp(primals, tangents):  # JAX's: d/dx Ei(x) = exp(x) / x
    (x,), (dx,) = primals, tangents
    # exp(x/2) (exp(x/2) / x): exp(x) overflows first (float32 grad at 89.3 was inf, true 7e36)
    half = jnp.exp(x / 2)
    return expi(x), half * (half / x) * dx


def _expn_series(n, x):
    """E_n for 0 < x <= 1 and integer n >= 1 (Numerical Recipes' expint series, 40 terms):
    the term i == n - 1 carries log(x) and digamma(n)."""
    nm1 = n - 1
    first = jnp.where(nm1 != 0, 1 / jnp.where(nm1 != 0, nm1, 1), -jnp.log(x) - _EULER_GAMMA)
    psi = lax.digamma(jnp.maximum(n, 1))

    def step(i, carry):
        fact, total = carry
        i = i.astype(x.dtype)
        fact = fact * -x / i
        at_n = i == nm1
        term = jnp.where(at_n, fact * (-jnp.log(x) + psi), -fact / jnp.where(at_n, 1, i - nm1))
        return fact, total + term
    return lax.fori_loop(1, 41, step, (jnp.ones_like(x), first))[1]


def _expn_fraction(n, x):
    """E_n for x > 1: exp(-x) times its continued fraction (modified Lentz, 120 steps)."""
    tiny = np.finfo(np.dtype(x.dtype)).tiny

    def step(i, carry):
        b, c, d, h = carry
        i = i.astype(x.dtype)
        an = -i * (n - 1 + i)
        b = b + 2
        d = 1 / (an * d + b)
        c = b + an / c
        return b, c, d, h * c * d
    b = x + n
    h = lax.fori_loop(1, 121, step, (b, jnp.full_like(x, 1 / tiny), 1 / b, 1 / b))[3]
    return h * jnp.exp(-x)


def _expn(n, x):
    n, x = jnp.broadcast_arrays(n, x)
    pos = x > 0
    ok = (n >= 1) & pos
    nn, xx = jnp.where(ok, n, 1), jnp.where(ok, x, 1)
    small = xx <= 1
    out = jnp.where(small, _expn_series(nn, jnp.where(small, xx, 1)),
                    _expn_fraction(nn, jnp.where(small, 2, xx)))
    out = jnp.where((n == 0) & pos, jnp.exp(-x) / jnp.where(pos, x, 1), out)
    at_zero = jnp.where(n >= 2, 1 / jnp.where(n >= 2, n - 1, 1), np.inf)
    out = jnp.where(x == 0, at_zero, out)
    bad = (n < 0) | (x < 0) | (n != jnp.floor(n)) | jnp.isnan(x) | jnp.isnan(n)
    return jnp.where(bad, np.nan, out).astype(x.dtype)


@custom_jvp
def expn(n, x):
    """The generalized exponential integral ``E_n(x) = int_1^inf exp(-x t) / t^n dt``
    for integer ``n >= 0`` and real ``x >= 0`` (a series up to 1, a continued fraction
    beyond); ``1/(n-1)`` or inf at 0; NaN for negative or non-integer ``n`` and negative
    ``x`` (JAX: non-integer ``n`` is NaN).

    Args:
      n: integer-valued array (not differentiated).
      x: a real array.

    Returns:
      ``E_n(x)`` in the promoted inexact dtype.
    """
    n, x = _inexact("expn", n, x)
    return _expn(n, x)


@expn.defjvp
def _expn_jvp(primals, tangents):  # JAX's: d/dx E_n(x) = -E_{n-1}(x); n has none
    n, x = _inexact("expn", *primals)
    out = _expn(n, x)
    return out, -_expn(n - 1, x) * jnp.asarray(tangents[1], out.dtype)


# -- Spence's function (Cephes' rational approximation, as JAX) ------------------------------
_SPENCE_A = [4.65128586073990045278E-5, 7.31589045238094711071E-3, 1.33847639578309018650E-1,
             8.79691311754530315341E-1, 2.71149851196553469920E0, 4.25697156008121755724E0,
             3.29771340985225106936E0, 1.00000000000000000126E0]
_SPENCE_B = [6.90990488912553276999E-4, 2.54043763932544379113E-2, 2.82974860602568089943E-1,
             1.41172597751831069617E0, 3.63800533345137075418E0, 5.03278880143316990390E0,
             3.54771340985225096217E0, 9.99999999999999998740E-1]


def spence(x):
    """Spence's function ``int_1^x log(t) / (1 - t) dt`` for real ``x >= 0`` (SciPy's
    convention; the dilogarithm ``Li2(1 - x)``), by Cephes' rational approximation on
    ``[0.5, 1.5]`` and its reflection and inversion formulas; NaN below 0.

    Args:
      x: a float32 or float64 array (as JAX, other dtypes are refused).

    Returns:
      ``spence(x)`` of ``x``'s dtype.
    """
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"spence: x.dtype={x.dtype} is not supported; pass float32 or "
                        f"float64 (x.astype(jnp.float32))")
    return _spence(x)


@custom_jvp  # (spence itself stays a plain function: its docstring carries the stored example)
def _spence(x):
    ok = x > 0
    xs = jnp.where(ok, x, 1)
    big = xs > 2
    xs = jnp.where(big, 1 / xs, xs)
    above = xs > 1.5
    below = xs < 0.5
    inverted = big | above
    w = jnp.where(above, 1 / xs - 1, jnp.where(below, -xs, xs - 1))
    y = -w * _poly(_SPENCE_A, w) / _poly(_SPENCE_B, w)
    safe_1mx = jnp.where(below, 1 - xs, 0.5)
    y = jnp.where(below, np.pi ** 2 / 6 - jnp.log(jnp.where(below, xs, 0.5)) *
                  jnp.log(safe_1mx) - y, y)
    y = jnp.where(inverted, -0.5 * jnp.log(xs) ** 2 - y, y)
    y = jnp.where(x == 0, np.pi ** 2 / 6, y)
    y = jnp.where(x == 1, 0, y)
    return jnp.where((x < 0) | jnp.isnan(x), np.nan, y).astype(x.dtype)


#: -log1p(t)/t = -sum_k (-t)^k / (k + 1), highest power first: 28 terms leave < 4e-19 at
#: |t| = 1/4, and differentiate (grad of grad) without the cancellation of the ratio
_SPENCE_SLOPE_NEAR_1 = [-(-1.0) ** k / (k + 1) for k in range(27, -1, -1)]


def _spence_slope(x):
    """spence'(x) = log(x) / (1 - x): near x = 1 (|x - 1| < 1/4, x - 1 exact) the series of
    -log1p(t)/t in t = x - 1, which is -1 at x = 1; -inf at 0, NaN below."""
    t = x - 1
    near = jnp.abs(t) < 0.25
    far = jnp.log(jnp.where(near, 2.0, x)) / (1 - jnp.where(near, 2.0, x))
    return jnp.where(near, _poly(_SPENCE_SLOPE_NEAR_1, jnp.where(near, t, 0.0)), far)


# Differentiating the rational approximation instead gave float64 spence'(1e-20) -47.05
# (true log(x) / (1 - x) = -46.05), spence'(1) 0 (true -1), NaN from 1e20 (JAX: the same,
# NaN on (1, 2] and 0 from 1e20)
_spence.defjvps(lambda g, ans, x: g * _spence_slope(x))

# -- Dawson's integral (Cody, Paciorek and Thacher 1970, as JAX) -------------------------------
# |x| < 3.25: |x| P(x^2) / Q(x^2); 3.25 <= |x| < 6.25 and beyond: (1 + t P(t) / Q(t)) / (2|x|)
# with t = 1/x^2 (coefficients highest degree first)
_DAWSN_AN = [1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
             9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
             -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2,
             9.99999999999999994612e-1]
_DAWSN_AD = [2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
             1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
             3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
             5.74918629489320327824e-1, 1.00000000000000000539e0]
_DAWSN_BN = [5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
             -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
             3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
             -2.40274520828250956942e-9, 3.59233385440928410398e-11]
_DAWSN_BD = [1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
             -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
             7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
             -4.91324691331920606875e-9, 7.18466403235734541950e-11]
_DAWSN_CN = [-5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
             1.64837047825189632310e-2, -4.86827613020462700845e-4]
_DAWSN_CD = [1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
             -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4]


def _dawsn_impl(x):
    ax = jnp.abs(x)
    r1 = ax < 3.25
    r2 = (ax >= 3.25) & (ax < 6.25)
    a1 = jnp.where(r1, ax, 1)  # each region sees only its own range (no inf / inf)
    v1 = a1 * _poly(_DAWSN_AN, a1 * a1) / _poly(_DAWSN_AD, a1 * a1)
    a = jnp.where(r1, 1, ax)
    vtail = 0.5 / a * (1 + _dawsn_tail_correction(a))
    return jnp.sign(x) * jnp.where(r1, v1, vtail)


#: (2n+1)!! / 2^n, n = 9 .. 0 (highest power first): 2c / t in 1/t = a^2
_DAWSN_ASYMPTOTIC = [float(np.prod(np.arange(1, 2 * n + 2, 2)) / 2 ** n) for n in range(9, -1, -1)]


def _dawsn_tail_correction(a):
    """c in dawsn(a) = (1 + c) / (2 a) for a >= 3.25 (Cody's rationals in 1/a^2; ~1/(2 a^2)).
    It is also -dawsn'(a) = 2 a dawsn(a) - 1 there, without the subtraction."""
    r2 = a < 6.25
    y = 1 / a
    t = y * y  # (1 / (a * a) overflows to 1/inf = 0 for float32 a > 1.8e19: c would be 0)

    def rational(mask, num, den):
        tm = jnp.where(mask, t, 0.01)  # each rational sees only its own range
        ym = jnp.where(mask, y, 0.1)
        return ym * (ym * _poly(num, tm) / _poly(den, tm))
    # Cody's rationals make 1 + c good to an ulp, but c itself only to ~1e-14 (float64) as
    # a -> inf (the slope -c at 1e5 was 74 ulps off); from 20 on the asymptotic series
    # c = sum (2n-1)!! / (2 a^2)^n, 10 terms, is good to < 1e-17
    far = a >= 20
    tf = jnp.where(far, t, 1 / 400)
    series = 0.5 * jnp.where(far, y, 0.05) ** 2 * _poly(_DAWSN_ASYMPTOTIC, tf)
    return jnp.where(far, series, jnp.where(r2, rational(r2, _DAWSN_BN, _DAWSN_BD),
                                            rational(~r2, _DAWSN_CN, _DAWSN_CD)))


@custom_jvp
def dawsn(x):
    """Dawson's integral ``exp(-x**2) int_0^x exp(t**2) dt`` for real ``x``, by Cody,
    Paciorek and Thacher's rational approximations (JAX's; half precision in float32).

    Args:
      x: a real array.

    Returns:
      ``dawsn(x)`` in the promoted inexact dtype.
    """
    (x,) = _inexact("dawsn", x)
    if x.dtype in (np.float32, np.float64):
        return _dawsn_impl(x)
    return _dawsn_impl(x.astype(np.float32)).astype(x.dtype)


@dawsn.defjvp
def _dawsn_jvp(primals, tangents):  # d/dx dawsn = 1 - 2 x dawsn(x)
    (x,), (dx,) = primals, tangents
    out = dawsn(x)
    # 1 - 2 x dawsn cancels for large |x| (the slope is ~ -1/(2 x^2)); from |x| = 3.25 on,
    # where dawsn = (1 + c) / (2|x|), the slope is -c, from the same rationals
    ax = jnp.abs(x)
    far = ax >= 3.25
    xc = ax if x.dtype in (np.float32, np.float64) else ax.astype(np.float32)
    c = _dawsn_tail_correction(jnp.where(far, xc, 3.25)).astype(x.dtype)
    return out, jnp.where(far, -c, 1 - 2 * x * out) * dx

# -- sine and cosine integrals (Cephes' sici, as JAX) ----------------------------------------
# |x| <= 4: rational series in x^2; 4 < |x| <= 1e9: auxiliary functions f, g from rational
# approximations in 1/x^2 (one pair below 8, one above); beyond, their leading terms
_SICI_SN = [-8.39167827910303881427E-11, 4.62591714427012837309E-8, -9.75759303843632795789E-6,
            9.76945438170435310816E-4, -4.13470316229406538752E-2, 1.00000000000000000302E0]
_SICI_SD = [2.03269266195951942049E-12, 1.27997891179943299903E-9, 4.41827842801218905784E-7,
            9.96412122043875552487E-5, 1.42085239326149893930E-2, 9.99999999999999996984E-1]
_SICI_CN = [2.02524002389102268789E-11, -1.35249504915790756375E-8, 3.59325051419993077021E-6,
            -4.74007206873407909465E-4, 2.89159652607555242092E-2, -1.00000000000000000080E0]
_SICI_CD = [4.07746040061880559506E-12, 3.06780997581887812692E-9, 1.23210355685883423679E-6,
            3.17442024775032769882E-4, 5.10028056236446052392E-2, 4.00000000000000000080E0]
_SICI_FN4 = [4.23612862892216586994E0, 5.45937717161812843388E0, 1.62083287701538329132E0,
             1.67006611831323023771E-1, 6.81020132472518137426E-3, 1.08936580650328664411E-4,
             5.48900223421373614008E-7]
_SICI_FD4 = [1, 8.16496634205391016773E0, 7.30828822505564552187E0, 1.86792257950184183883E0,
             1.78792052963149907262E-1, 7.01710668322789753610E-3, 1.10034357153915731354E-4,
             5.48900252756255700982E-7]
_SICI_GN4 = [8.71001698973114191777E-2, 6.11379109952219284151E-1, 3.97180296392337498885E-1,
             7.48527737628469092119E-2, 5.38868681462177273157E-3, 1.61999794598934024525E-4,
             1.97963874140963632189E-6, 7.82579040744090311069E-9]
_SICI_GD4 = [1, 1.64402202413355338886E0, 6.66296701268987968381E-1, 9.88771761277688796203E-2,
             6.22396345441768420760E-3, 1.73221081474177119497E-4, 2.02659182086343991969E-6,
             7.82579218933534490868E-9]
_SICI_FN8 = [4.55880873470465315206E-1, 7.13715274100146711374E-1, 1.60300158222319456320E-1,
             1.16064229408124407915E-2, 3.49556442447859055605E-4, 4.86215430826454749482E-6,
             3.20092790091004902806E-8, 9.41779576128512936592E-11, 9.70507110881952024631E-14]
_SICI_FD8 = [1.0, 9.17463611873684053703E-1, 1.78685545332074536321E-1,
             1.22253594771971293032E-2, 3.58696481881851580297E-4, 4.92435064317881464393E-6,
             3.21956939101046018377E-8, 9.43720590350276732376E-11, 9.70507110881952025725E-14]
_SICI_GN8 = [6.97359953443276214934E-1, 3.30410979305632063225E-1, 3.84878767649974295920E-2,
             1.71718239052347903558E-3, 3.48941165502279436777E-5, 3.47131167084116673800E-7,
             1.70404452782044526189E-9, 3.85945925430276600453E-12, 3.14040098946363334640E-15]
_SICI_GD8 = [1.0, 1.68548898811011640017E0, 4.87852258695304967486E-1,
             4.67913194259625806320E-2, 1.90284426674399523638E-3, 3.68475504442561108162E-5,
             3.57043223443740838771E-7, 1.72693748966316146736E-9, 3.87830166023954706752E-12,
             3.14040098946363335242E-15]


def _sici_positive(x):
    """(Si, Ci) for x > 0."""
    small = x <= 4
    xs = jnp.where(small, x, 1)
    t = xs * xs
    si_s = xs * _poly(_SICI_SN, t) / _poly(_SICI_SD, t)
    ci_s = _EULER_GAMMA + jnp.log(xs) + t * _poly(_SICI_CN, t) / _poly(_SICI_CD, t)
    mid = (x > 4) & (x <= 1e9)
    xm = jnp.where(mid, x, 5)
    z = 1 / (xm * xm)
    below8 = xm < 8
    f = jnp.where(below8, _poly(_SICI_FN4, z) / (xm * _poly(_SICI_FD4, z)),
                  _poly(_SICI_FN8, z) / (xm * _poly(_SICI_FD8, z)))
    g = jnp.where(below8, z * _poly(_SICI_GN4, z) / _poly(_SICI_GD4, z),
                  z * _poly(_SICI_GN8, z) / _poly(_SICI_GD8, z))
    s, c = jnp.sin(xm), jnp.cos(xm)
    si_m, ci_m = np.pi / 2 - f * c - g * s, f * s - g * c
    xl = jnp.where(small | mid, 1e10, x)
    finite = jnp.isfinite(xl)
    si_l = jnp.where(finite, np.pi / 2 - jnp.cos(xl) / xl, np.pi / 2)
    ci_l = jnp.where(finite, jnp.sin(xl) / xl, 0)
    si = jnp.where(small, si_s, jnp.where(mid, si_m, si_l))
    ci = jnp.where(small, ci_s, jnp.where(mid, ci_m, ci_l))
    return si, ci


@custom_jvp
def sici(x):
    """The sine and cosine integrals ``Si(x) = int_0^x sin(t)/t dt`` and
    ``Ci(x) = gamma + log|x| + int_0^x (cos(t) - 1)/t dt`` for real ``x`` (Cephes' method,
    as SciPy and JAX; Ci of a negative ``x`` is Ci(|x|), -inf at 0, NaN at -inf).

    Args:
      x: a real array.

    Returns:
      The pair ``(Si(x), Ci(x))``.
    """
    (x,) = _inexact("sici", x)
    ax = jnp.abs(x)
    si, ci = _sici_positive(jnp.where(ax > 0, ax, 1))
    si = jnp.where(ax == 0, 0, jnp.sign(x) * si).astype(x.dtype)
    ci = jnp.where(ax == 0, -np.inf, jnp.where(x == -np.inf, np.nan, ci)).astype(x.dtype)
    nan = jnp.isnan(x)
    return jnp.where(nan, np.nan, si), jnp.where(nan, np.nan, ci)


@sici.defjvp
def _sici_jvp(primals, tangents):  # JAX's: (sin(x)/x, cos(x)/x) times the tangent
    (x,), (dx,) = primals, tangents
    out = sici(x)
    return out, (jnp.sinc(x / np.pi) * dx, jnp.cos(x) / x * dx)


__all__ = ["dawsn", "erfcx", "exp1", "expi", "expn", "sici", "spence"]
