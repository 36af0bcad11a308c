"""Special functions for mathlib: erfc, lgamma, digamma as straight-line LLVM IR.

The same rules as ``mathlib`` (branch-free, ``select`` for regions and special cases,
only intrinsics with vector forms), built on its IR helpers, ``exp`` core and ``log``.
Every region is computed and the right one selected, so the loops vectorize and a result
never depends on its neighbours or the thread count. float64 is computed in float64;
float32 lgamma and digamma in float64 and rounded once (float32 inputs: products like
x^2 are exact), float32 erfc in float32 (in double it took 1.9-2.8x XLA's CPU time;
in float32 0.4x).
(lgamma and digamma stay in double: next to their zeros on the negative axis two terms
of size ~1 cancel, and a float32 result within a few ulp there needs them to ~1e-14;
even double with polynomials fitted to 1e-10 gave 38 ulp at x = -1.5735 for digamma.
The same code evaluated in float32 ran 2.4x (lgamma) and 1.9x (digamma) faster, one
thread, but was 3.1 ulp off for x > 0 and ~1e6 next to the negative zeros for lgamma,
5e4 ulp for digamma at x > 0; in double: 4.3 and 2.5 ns an element, 0.5
ulp, and jit(lax.lgamma) takes ~0.4x JAX's CPU time on 1M float32.)
Long polynomials run as four interleaved Horner chains (``_poly``): their latency,
not their operations, set the speed of a loop this long.

Algorithms (polynomials fitted for this module with mpmath's ``chebyfit``, lowest power
first in the tables; the asymptotic series' coefficients are Bernoulli numbers):

* ``erfc``: |x| < 0.6: ``(1 - x) - x * (P(x^2) - 1)`` (mathlib's erf series); up to 6:
  ``exp(-x^2) H(x)``, H = exp(x^2) erfc(x) by one of three polynomials (on [0.6, 1.5],
  [1.5, 3], [3, 6]); beyond: ``exp(-x^2) / x * G(1/x^2)``. ``x^2`` is split into
  ``hi + lo`` (an fma gives ``lo``) and ``exp`` takes both, so the large-x tail keeps
  its accuracy (``x^2`` rounded costs up to 16 ulp at x = 6), and the 2^n scaling comes
  after the last product (gradual underflow rounds once). x < 0: ``2 - erfc(-x)``.
  float32: the series below 0.6, ``H(x)`` by one polynomial on [0.6, 2] and ``G(1/x^2)
  / x`` beyond, all in float32, their constant terms as float32 pairs; ``exp(-hi - lo)
  * H = H + H * expm1(...)`` in one fma.
* ``lgamma`` (``log|Gamma(x)|``, as ``lax.lgamma``): y >= 8: Stirling's series; y in
  [0.75, 1.5): ``s (s - 1) Q1(s)``, s = y - 1; other 0 < y < 8: shifted by m in {-2..6}
  to ``z = y - m`` in [1.5, 2.5) (the shift is exact), ``lgamma(z) = s (s + 1) Q(s)``,
  s = z - 2, plus or minus ``log`` of the shift's product (of one sign with lgamma(z)).
  The zeros of lgamma at 1 and 2 are factors: no cancellation there. x < 0:
  ``log(pi / |sin(pi x)|) - lgamma(1 - x)`` with ``sin(pi r)``, r = x - round(x) exact
  (scaled by 2^600 where it would be denormal). Poles (x = 0, -1, -2, ...) give +inf.
* ``digamma``: y >= 10: the asymptotic series; 0 < y < 10: shifted to z in [1, 2) by
  ``psi(y) = psi(z) + sum 1/(y - i)`` (terms of one sign), ``psi(z) = (z - x0) R(z)``
  with x0 = 1.4616... (the positive zero, as a double-double). x < 0: ``psi(1 - x) -
  pi cot(pi x)``, ``cot(pi r) = sin(pi (1/2 - |r|)) / sin(pi |r|)`` (no cancellation at
  r = 1/2). Negative integers and -inf give NaN.

Special values are the reference semantics' (``kernel_semantics``: the primitives'
impls, SciPy): digamma(+-0) = -+inf (``jax.lax.digamma``: NaN), lgamma(-inf) = -inf
(JAX: +inf). lgamma of a denormal is its true value, -log|x| (SciPy gives +inf below
1/DBL_MAX and XLA's CPU lgamma flushes denormals to the pole at 0: +inf).

Max error in ulps of the result; float32 over ~1.4M points (erfc: ~3.4M, with every
float32 in [-11, 11] at spacing 1e-5) against SciPy in float64
(bound 1: within the rounding of an exact result), float64 over ~64k points per
function against mpmath (every exponent of both signs, dense ranges, negative halves,
the poles' and zeros' neighbourhoods, denormals); the tests assert the bounds, over
fewer points. On the negative axis lgamma and digamma are computed by reflection,
f(x) = f(1 - x) - g(x), and their error is stated in ulps of the larger of |f(x)| and
|f(1 - x)|: it stays bounded next to the zeros there (x ~ -2.457, -2.747, ... for
lgamma, -0.504, -1.573, ... for digamma), where the relative error cannot be (as in C
libraries and XLA).

    function   float32        float64        notes
    erfc       3    (2.50)    3.5  (3.02)    all x; float32 in float32
    lgamma     1    (0.50)    3    (2.56)    f64, x < 0: 5 (4.38) ulp of the larger term
    digamma    1    (0.50)    3    (2.78)    f64, x < 0: 6 (5.37) ulp of the larger term

"""

from llvmlite import ir

from tjit.lower.llvm.mathlib import (_ERF_SM1, _EXP_P, LOG2E, _LN2, _PI, _log, _Ops, _rnd,
                                     _split)
# digamma's and sin(pi r)'s tables: shared with digamma's eager reference implementation
from tjit.xla_like.gamma_tables import BERNOULLI as _BERNOULLI, DIGAMMA_A as _DIGAMMA_A
from tjit.xla_like.gamma_tables import DIGAMMA_R as _DIGAMMA_R, DIGAMMA_X0 as _DIGAMMA_X0
from tjit.xla_like.gamma_tables import SINPI_S as _SINPI_S

__all__ = ["UNARY"]

#: erfc(x) = exp(-x^2) H(x - c) on [0.6, 1.5], [1.5, 3], [3, 6] (c: the middle;
#: relative error <= 1e-17)
_ERFC_H = [
    (1.05, [
        0.4142992306757269, -0.25835078267648615, 0.1430309088654164, -0.07211221891186592,
        0.03365653950398239, -0.014709140973076386, 0.006070647160557416,
        -0.0023814175583161215, 0.0008925396859954893, -0.00032094464424865733,
        0.00011110949174600998, -3.7141727384221495e-05, 1.2019034685906111e-05,
        -3.772828604029289e-06, 1.1482054521700028e-06, -3.41120137554429e-07,
        1.0633013468010894e-07, -2.9968406357923425e-08]),
    (2.25, [
        0.23108725873039188, -0.08848650280874916, 0.03199262741070587, -0.011002060756439959,
        0.0036189953543767483, -0.0011437284836579198, 0.00034853542170552886,
        -0.0001027210810813699, 2.9353250462341522e-05, -8.150283936965526e-06,
        2.203006148039637e-06, -5.806298566444485e-07, 1.4948034958257032e-07,
        -3.7612103166965675e-08, 9.178735686798168e-09, -2.216644094827292e-09,
        6.055280430567816e-10, -1.400353262582745e-10]),
    (4.5, [
        0.12248480427384142, -0.026015928630939815, 0.005413125434612243,
        -0.0011045761167898063, 0.00022126645452910632, -4.355082856362615e-05,
        8.429241997255949e-06, -1.605497021221106e-06, 3.0112635165396946e-07,
        -5.565076555906247e-08, 1.0139578803242563e-08, -1.8222995652604997e-09,
        3.232083984420906e-10, -5.6596850934384384e-11, 9.786216048986349e-12,
        -1.6724938058681623e-12, 2.839539786520554e-13, -4.741463520175449e-14,
        7.360554557819427e-15, -1.2062562097030926e-15, 2.836850639772886e-16,
        -4.5150512884022386e-17])]
#: float32: erfc(x) = (1 - x) - x P(x^2), |x| < 0.6 (P: erf(x)/x - 1; abs. error 1e-10)
_ERFC_SMALL32 = [0.12837916612625122, -0.37612637877464294, 0.11283718794584274,
                 -0.026857459917664528, 0.00517670763656497, -0.0007348930812440813]
#: float32: erfc(x) = exp(-x^2) H(x - 1.3) on [0.6, 2] (relative error 1e-9); the
#: constant term as a float32 pair (rounded to one float32 it would cost 0.9 ulp)
_ERFC_MID32 = ((0.35764268040657043, -1.1320480552967638e-08), [
    -0.19850823283195496, 0.09958197176456451, -0.04603423923254013, 0.01986853778362274,
    -0.00808439776301384, 0.003121323185041547, -0.0011395126348361373,
    0.0004031393909826875, -0.00015921416343189776, 5.1802337111439556e-05])
#: float32: erfc(x) = exp(-x^2) / x * G(1/x^2), x >= 2 (relative error 2e-9; constant
#: term as a pair)
_ERFC_TAIL32 = ((0.5641895532608032, 2.9124178624329033e-08), [
    -0.2820938527584076, 0.4230130910873413, -1.0506972074508667, 3.490267753601074,
    -12.751933097839355, 41.71002960205078, -101.8346939086914, 155.0394287109375,
    -107.49739074707031])
#: erfc(x) = exp(-x^2) / x * G(1/x^2) for x >= 6 (relative error 3e-19)
_ERFC_G = [0.5641895835477563, -0.28209479177387614, 0.423142187657374, -1.0578554668150224,
           3.7024933181454154, -16.66105108654937, 91.61360141116079, -593.5689246859926,
           4340.881806994268, -32664.532813267168, 207801.1890951126, -755374.7157046796]
#: lgamma(2 + s) = s (s + 1) Q(s), |s| <= 1/2 (absolute error 7e-20)
_LGAMMA_Q = [0.42278433509846713, -0.10031730167435392, 0.032965000621155864,
             -0.012384192193371297, 0.00499864116469194, -0.0021081308339532027,
             0.0009153769225258352, -0.0004057073976405256, 0.00018255263198029055,
             -8.309512288139664e-05, 3.816899450869808e-05, -1.7661727092640293e-05,
             8.221243547899526e-06, -3.846868630984396e-06, 1.813340925941714e-06,
             -8.554745925302383e-07, 3.863844148542206e-07, -1.8333634733806836e-07,
             1.2211977636940668e-07, -5.832930129320894e-08]
#: lgamma(1 + s) = s (s - 1) Q1(s), -1/4 <= s <= 1/2 (absolute error 2e-20)
_LGAMMA_Q1 = [0.5772156649015329, -0.24525136852258037, 0.15543426586395107,
             -0.11514654256383258, 0.09223900846484291, -0.0773181685327748, 0.06673172823629706,
             -0.05877794126670415, 0.05255632453872151, -0.047543134130410745,
             0.04341088844994324, -0.03994292110899201, 0.0369893685110919, -0.0344438399310564,
             0.03222988937639812, -0.03027757815565164, 0.028493414277401544,
             -0.026876357937470393, 0.025829922130378973, -0.02570972913877036,
             0.024867953719415553, -0.019756610137342877, 0.0103808055472216,
             -0.002566252313892053]
#: lgamma(y) = (y - 1/2)(log y - 1) + (log(2 pi) - 1)/2 + S(1/y^2) / y, y >= 8
_STIRLING = [float(b / (2 * k * (2 * k - 1))) for k, b in enumerate(_BERNOULLI, 1)]
_HALF_LOG_2PI_M_HALF = 0.4189385332046727
_LOG_PI = 1.1447298858494002


def _in_double(fn):
    """float64 ``fn``; on float32, evaluated in float64 and rounded once."""
    def emit(o, x):
        if o.is64:
            return fn(o, x)
        d = _Ops(o.b, ir.DoubleType())
        return o.b.fptrunc(fn(d, o.b.fpext(x, d.ty)), o.ty)
    emit.__name__ = fn.__name__
    return emit


def _poly(o, t, coeffs, ways=4):
    """sum coeffs[k] t^k (floats or IR values) as ``ways`` Horner chains in t^ways, side
    by side, joined by Horner in t. One 24-term chain is ~100 cycles of fma latency: a
    loop body that long cannot overlap its iterations (float64 lgamma ran 4x slower than
    its op count says); four chains cut the latency to ~9 fmas."""
    if len(coeffs) <= 2 * ways:
        ways = 1
    tk = t
    for _ in range(ways.bit_length() - 1):       # ways: a power of 2
        tk = o.mul(tk, tk)
    chains = []
    for j in range(ways):
        part = coeffs[j::ways]
        acc = o._v(part[-1])
        for c in reversed(part[:-1]):
            acc = o.fma(acc, tk, c)
        chains.append(acc)
    acc = chains[-1]
    for c in reversed(chains[:-1]):
        acc = o.fma(acc, t, c)
    return acc


def _and(o, *conds):
    out = conds[0]
    for c in conds[1:]:
        out = o.b.and_(out, c)
    return out


def _exp_times(o, hi, lo, factor):
    """exp(hi + lo) * factor, the 2^n scaling last (one rounding into the denormal
    range); hi is clamped to exp's range here, lo is a small correction."""
    hi = o.clamp(hi, -746.0, 710.0) if o.is64 else o.clamp(hi, -104.0, 89.0)
    nf, n = o.round_mul(hi, LOG2E)
    ln2_hi, ln2_lo = _split(_LN2, 2, o.is64)
    r = o.add(o.fma(nf, -ln2_lo, o.fma(nf, -ln2_hi, hi)), lo)
    q = o.fma(o.mul(r, r), o.horner(r, _EXP_P[o.is64]), r)
    return o.scale2(o.fma(factor, q, factor), n)


def _sinpi(o, r):
    """sin(pi r) for |r| <= 1/2."""
    return o.mul(r, o.horner(o.mul(r, r), _SINPI_S))


def _sinpi_scaled(o, a):
    """(sin(pi a) * 2^k, k) for 0 <= a <= 1/2: k = 600 where sin(pi a) would be near the
    denormal range (it keeps all its bits), else 0."""
    tiny = o.cmp("<", a, 2.0 ** -500)
    s = o.mul(o.sel(tiny, o.mul(a, 2.0 ** 600), a), o.horner(o.mul(a, a), _SINPI_S))
    return s, tiny


def _reduce_half(o, x):
    """x - round(x) (exact; x + 1/2 is exact below 2^52, and beyond every x is an
    integer: 0) and its absolute value."""
    r = o.sub(x, o.floor(o.add(x, 0.5)))
    r = o.sel(o.cmp(">=", o.fabs(x), 2.0 ** 52), 0.0, r)
    return r, o.fabs(r)


# ----------------------------------------------------------------------------------------
# erfc

def _horner_select(o, t, tables, picks):
    """The polynomial ``tables[i]`` at t, for the first i whose ``picks[i]`` holds (the
    last table where none does): one Horner chain, its coefficients chosen by selects,
    so every lane runs the same code."""
    width = max(len(c) for c in tables)
    coefs = []
    for k in range(width):
        coef = o.c(tables[-1][k] if k < len(tables[-1]) else 0.0)
        for table, pick in zip(reversed(tables[:-1]), reversed(picks)):
            coef = o.sel(pick, table[k] if k < len(table) else 0.0, coef)
        coefs.append(coef)
    return _poly(o, t, coefs)


def _erfc_mid(o, ax):
    """exp(x^2) erfc(x) for x in [0.6, 6]: one of three polynomials."""
    picks = [o.cmp("<", ax, 1.5), o.cmp("<", ax, 3.0)]
    (c1, p1), (c2, p2), (c3, p3) = _ERFC_H
    center = o.sel(picks[0], c1, o.sel(picks[1], c2, c3))
    return _horner_select(o, o.sub(ax, center), [p1, p2, p3], picks)


def _erfc32(o, x):
    """float32 erfc in float32 (the float64 one, evaluated in double, took 1.6x
    XLA's time): the same regions, with two float32 polynomials above 0.6."""
    ax = o.fabs(x)
    small = o.fma(o.neg(x), o.horner(o.mul(x, x), _ERFC_SMALL32), o.sub(1.0, x))
    ax = o.sel(o.cmp(">", ax, 12.0), 12.0, ax)        # erfc(10.1) = 0 in float32
    hi = o.mul(ax, ax)
    lo = o.fma(ax, ax, o.neg(hi))                      # x^2 = hi + lo exactly
    mid = o.cmp("<", ax, 2.0)
    inv = o.div(1.0, ax)
    t = o.sel(mid, o.sub(ax, 1.3), o.mul(inv, inv))
    (mid_hi, mid_lo), mid_rest = _ERFC_MID32
    (tail_hi, tail_lo), tail_rest = _ERFC_TAIL32
    q = _horner_select(o, t, [mid_rest, tail_rest], [mid])
    p = o.add(o.fma(t, q, o.sel(mid, mid_lo, tail_lo)), o.sel(mid, mid_hi, tail_hi))
    big = _exp_times(o, o.neg(hi), o.neg(lo), o.sel(mid, p, o.div(p, ax)))
    big = o.sel(o.cmp("<", x, 0.0), o.sub(2.0, big), big)
    r = o.sel(o.cmp("<", ax, 0.6), small, big)
    return o.sel(o.isnan(x), x, r)


def _erfc(o, x):
    if not o.is64:
        return _erfc32(o, x)
    ax = o.fabs(x)
    small = o.fma(o.neg(x), o.horner(o.mul(x, x), _ERF_SM1), o.sub(1.0, x))
    ax = o.sel(o.cmp(">", ax, 30.0), 30.0, ax)        # erfc(30) = 0: no overflow of x^2
    hi = o.mul(ax, ax)
    lo = o.fma(ax, ax, o.neg(hi))                      # x^2 = hi + lo exactly
    mid = _erfc_mid(o, ax)
    u = o.div(1.0, hi)
    tail = o.div(_poly(o, u, _ERFC_G), ax)
    big = _exp_times(o, o.neg(hi), o.neg(lo), o.sel(o.cmp(">", ax, 6.0), tail, mid))
    big = o.sel(o.cmp("<", x, 0.0), o.sub(2.0, big), big)
    r = o.sel(o.cmp("<", ax, 0.6), small, big)
    return o.sel(o.isnan(x), x, r)


# ----------------------------------------------------------------------------------------
# lgamma

def _lgamma_positive(o, y):
    """lgamma(y) for y > 0 (y = +-0: +inf; y = inf: inf)."""
    m = o.clamp(o.floor(o.sub(y, 1.5)), -2.0, 6.0)
    near1 = _and(o, o.cmp(">=", y, 0.75), o.cmp("<", y, 1.5))   # Q1 directly, no shift
    s = o.sel(near1, o.sub(y, 1.0), o.sub(y, o.add(m, 2.0)))    # exact
    up = o.sel(o.cmp("<", m, -1.5), o.mul(y, o.add(y, 1.0)), y)
    down = o.c(1.0)
    for i in range(1, 7):
        down = o.mul(down, o.sel(o.cmp(">=", m, float(i)), o.sub(y, float(i)), 1.0))
    big = o.cmp(">=", y, 8.0)
    shifted = o.sel(o.cmp("<", m, -0.5), up, down)
    log = _log(o, o.sel(big, y, o.sel(near1, 1.0, shifted)))
    zeros = o.mul(s, o.sel(near1, o.sub(s, 1.0), o.add(s, 1.0)))
    poly = o.mul(zeros, _horner_select(o, s, [_LGAMMA_Q1, _LGAMMA_Q], [near1]))
    shift_log = o.sel(o.cmp("<", m, -0.5), o.neg(log), log)
    near = o.add(poly, o.sel(near1, 0.0, shift_log))     # (+0 at y = 1, not -0)
    inv = o.div(1.0, y)
    series = o.mul(inv, _poly(o, o.mul(inv, inv), _STIRLING, 2))
    far = o.add(o.fma(o.sub(y, 0.5), o.sub(log, 1.0), _HALF_LOG_2PI_M_HALF), series)
    return o.sel(o.ucmp(">=", y, 8.0), far, near)


def _reflection_parts(o, x, positive):
    """For f(x) = f(1 - x) - g(x) at x < 0 (lgamma's and digamma's reflection): whether
    x < 0, f at max(x, 1 - x) by ``positive``, x reduced to [-1/2, 1/2] (r, |r|), and
    sin(pi |r|) scaled by 2^600 where it would be denormal (with that flag)."""
    neg = o.cmp("<", x, 0.0)
    pos = positive(o, o.sel(neg, o.sub(1.0, x), x))
    r, ar = _reduce_half(o, x)
    sin, tiny = _sinpi_scaled(o, ar)
    return neg, pos, r, ar, sin, tiny


@_in_double
def _lgamma(o, x):
    neg, pos, r, ar, sin, tiny = _reflection_parts(o, x, _lgamma_positive)
    log_sin = o.sub(_log(o, sin), o.sel(tiny, _rnd(600 * _LN2, True), 0.0))
    reflected = o.sub(o.sub(_LOG_PI, log_sin), pos)
    pole = o.cmp("==", r, 0.0)
    res = o.sel(neg, o.sel(pole, float("inf"), reflected), pos)
    # SciPy's value, the reference semantics: lgamma(-inf) = -inf. Denormal x gets its
    # true value, -log|x| (XLA's CPU lgamma flushes it to a pole: +inf)
    res = o.sel(o.cmp("==", x, float("-inf")), float("-inf"), res)
    return o.sel(o.isnan(x), x, res)


# ----------------------------------------------------------------------------------------
# digamma

def _recip_pair(o, a, b, use_a, use_b):
    """1/a + 1/b, 1/a or 0 as the flags say (use_b implies use_a): one division."""
    num = o.sel(use_b, o.add(a, b), 1.0)
    den = o.sel(use_b, o.mul(a, b), a)
    return o.sel(use_a, o.div(num, den), 0.0)


def _digamma_positive(o, y):
    """digamma(y) for y > 0 (y = inf: inf)."""
    m = o.clamp(o.sub(o.floor(y), 1.0), -1.0, 8.0)
    z = o.sub(y, m)                                    # in [1, 2): exact for y >= 1
    t = o.sub(z, 1.5)
    x0_hi, x0_lo = _DIGAMMA_X0
    near = o.mul(o.sub(o.sub(z, x0_hi), x0_lo), _poly(o, t, _DIGAMMA_R))
    corr = o.sel(o.cmp("<", m, 0.0), o.div(-1.0, y), 0.0)
    for i in (1, 3, 5, 7):
        corr = o.add(corr, _recip_pair(o, o.sub(y, float(i)), o.sub(y, float(i + 1)),
                                       o.cmp(">=", m, float(i)),
                                       o.cmp(">=", m, float(i + 1))))
    near = o.add(near, corr)
    inv = o.div(1.0, y)
    u = o.mul(inv, inv)
    far = o.sub(o.fma(inv, -0.5, _log(o, y)), o.mul(u, o.horner(u, _DIGAMMA_A)))
    return o.sel(o.ucmp(">=", y, 10.0), far, near)


@_in_double
def _digamma(o, x):
    neg, pos, r, ar, sin, tiny = _reflection_parts(o, x, _digamma_positive)
    cot = o.div(_sinpi(o, o.sub(0.5, ar)), sin)
    cot = o.copysign(o.mul(cot, o.sel(tiny, 2.0 ** 600, 1.0)), r)
    reflected = o.fma(o.neg(cot), _rnd(_PI, True), pos)
    pole = _and(o, neg, o.cmp("==", r, 0.0))          # negative integers and -inf
    res = o.sel(pole, float("nan"), o.sel(neg, reflected, pos))
    # +-0: -+inf (SciPy's values, the reference semantics; jax.lax.digamma gives NaN)
    zero = o.cmp("==", x, 0.0)
    return o.sel(o.isnan(x), x, o.sel(zero, o.copysign(float("inf"), o.neg(x)), res))


#: name -> emitter ``f(ops, x)`` (``mathlib.emit_math`` dispatches to these)
UNARY = {"erfc": _erfc, "lgamma": _lgamma, "digamma": _digamma}
