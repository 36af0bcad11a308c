"""Vectorizable math functions emitted inline as straight-line LLVM IR.

``emit_math(builder, name, args, ty)`` writes the IR of one scalar math function at the
builder's position. Every function is branch-free (``select`` for special cases, ordered
compare-and-select clamps so NaN passes through), uses only intrinsics with vector forms
(``llvm.fma``, ``llvm.fabs``, ``llvm.floor``, ``llvm.copysign``) and integer bit tricks
for 2^k scaling and exponent/mantissa splitting, so LLVM's loop vectorizer turns the loop
around it into SIMD code (float64 sin/cos/tan also load from a constant table of 2/pi's
bits: gathers). No fast-math flags are used. Algorithms: Cody-Waite argument reduction
plus minimax polynomials or rationals (fitted for this module with a Remez exchange in
mpmath; the fits live in the coefficient tables below); sin/cos/tan switch to a
Payne-Hanek reduction for large arguments (see the trigonometric section).

Guaranteed max error in ulps of the result. float32: measured exhaustively over all 2^32
inputs against float64 NumPy/SciPy; float64: ~5M random points against 80-bit long double
(mpmath for erf; sin/cos/tan: 16M more beyond 2^36, and the inputs of every exponent
closest to a multiple of pi/2 against mpmath). pow and atan2, both precisions: 17M-34M
pairs of both arguments' bit patterns, of close and of unrelated exponents over the whole
range (denormals, overflowing |x| + |y|), and pow's hard regions (results near overflow,
underflow and in the denormal range; |x| near 1). Measured maxima in brackets; the tests
assert the bounds.

    function   float32        float64        notes
    exp        1.02 (1.014)   1    (0.99)
    exp2       1    (0.95)    1    (0.98)
    expm1      1.6  (1.59)    2    (1.77)
    log        1    (0.92)    1    (0.81)    f64 log/log1p use one division
    log1p      1.5  (1.47)    1.5  (1.34)    f32: polynomial, no division
    tanh       5.5  (5.45)    3    (2.49)    f32: rational, |x| >= 9 gives exactly +-1;
                                             f64: expm1(-2|x|) / (2 + expm1(-2|x|))
    logistic   2    (1.97)    2.5  (1.98)
    sin, cos   1.6  (1.55)    2    (1.50)    all finite x: Cody-Waite up to 2^18 (f32) /
    tan        3.6  (3.53)    3.5  (3.03)    2^36 (f64), Payne-Hanek beyond
    erf        1    (0.54)    2    (1.66)    f32: rational evaluated in double
    pow        1    (0.51)    2    (1.16)    f32 in double; f64 via double-double log
    atan2      2.5  (2.12)    3    (2.32)
    cbrt       1    (0.59)    1    (0.50)
    atan       2.5  (2.03)    2.5  (2.10)    composed of the functions above
    asin       3    (2.68)    3    (2.37)    (module mathlib_inverse)
    acos       3.5  (2.79)    3.5  (2.77)
    sinh       3    (2.32)    3    (2.52)
    cosh       3    (2.32)    3    (2.52)
    asinh      2.5  (1.74)    2.5  (1.72)
    acosh      3    (2.41)    3    (2.39)
    atanh      2.5  (1.69)    2.5  (1.60)

The inverse trigonometric and hyperbolic functions (composed of the ones above) live in
``mathlib_inverse``; erfc, lgamma and digamma in ``mathlib_special`` (with their own
accuracy table); ``emit_math`` serves them all.

Special values follow C99/IEEE: NaN in gives NaN out (except pow(x, 0) = pow(1, y) = 1),
exp/exp2/expm1 overflow to inf and underflow gradually (denormal results are rounded,
not flushed); log(0) = -inf, log(x < 0) = NaN, log(inf) = inf; sin/cos/tan(+-inf) = NaN;
tanh(+-inf) = erf(+-inf) = +-1, logistic(-inf) = 0, logistic(inf) = 1; pow follows C's
pow special cases; atan2 follows C's signed-zero/infinity cases; odd functions keep the
sign of zero; denormal inputs are handled (log, cbrt, ...); asin/acos/atanh outside
[-1, 1] and acosh below 1 give NaN, atanh(+-1) = +-inf, sinh/cosh overflow to inf. Exact
powers come out exact, and float32 pow rounds exact ties to even (pow(2, -150) = 0,
4097^2 = 16785408); float64 pow may round an exact tie either way (as C's pow does).
"""

import functools
import importlib
from fractions import Fraction

import numpy as np
from llvmlite import ir

__all__ = ["MATH_FUNCTIONS", "arity", "emit_math"]

_PI = Fraction("3.14159265358979323846264338327950288419716939937510582097494459230781")
_LN2 = Fraction("0.693147180559945309417232121458176568075500134360255254120680009493393")
LOG2E = 1.4426950408889634073599246810018921


def _rnd(value, is64):
    d = float(value)
    return d if is64 else float(np.float32(d))


@functools.cache
def _split(value, parts, is64):
    """value as a sum of `parts` floats (Cody-Waite constants); each part is the rounded
    remainder of the previous ones."""
    out, rest = [], Fraction(value)
    for _ in range(parts):
        out.append(_rnd(rest, is64))
        rest -= Fraction(out[-1])
    return out


# ----------------------------------------------------------------------------------------
# Coefficient tables (lowest power first), keyed by precision: False = f32, True = f64.

#: exp(r) = 1 + r + r^2 * P(r), |r| <= ln2/2
_EXP_P = {False: [0.4999999337002234, 0.1666651947970606, 0.04166840163998314,
                  0.008368856453976892, 0.0013814307265274657],
          True: [0.5000000000000011, 0.16666666666666408, 0.04166666666652802,
                 0.008333333333497027, 0.001388888894427432, 0.00019841269502578229,
                 2.4801492359506046e-05, 2.755758851098889e-06, 2.7630534585771823e-07,
                 2.499984773637373e-08]}
#: lower-precision exp(r) polynomial (rel. err 2^-34) used in double by float32 pow
_EXP_P_MID = [0.5000000068463546, 0.1666666585937361, 0.041666292061787305,
              0.008333498393323825, 0.0013944876920675463, 0.00019790126452076602]
#: expm1(r) = r + r^2 * Q(r), |r| <= ln2/2
_EXPM1_Q = {False: [0.4999999813210492, 0.16666542647230667, 0.04166720410141486,
                    0.008366651853082517, 0.0013882494872943815],
            True: [0.5, 0.16666666666666677, 0.041666666666666505, 0.008333333333321506,
                   0.0013888888888963539, 0.00019841269886498365, 2.4801587171002577e-05,
                   2.755724378077907e-06, 2.75574033029483e-07, 2.5109203968449395e-08,
                   2.0875324647149534e-09]}
#: 2^r = 1 + r * Q(r), |r| <= 1/2
_EXP2_Q = {False: [0.6931472029849044, 0.24022647896894345, 0.05550332163059381,
                   0.009618438600418068, 0.0013399003419875205, 0.0001535325804578605],
           True: [0.6931471805599453, 0.24022650695910133, 0.05550410866482007,
                  0.009618129107593845, 0.0013333558146777396, 0.00015403530457493806,
                  1.5252733491259305e-05, 1.3215435076693802e-06, 1.0178200026213451e-07,
                  7.07382090910657e-09, 4.434749801385974e-10]}
#: float32 log1p(f) = f + f^2 * P(f), f in [sqrt(1/2) - 1, sqrt(2) - 1] (no division)
_LOG1P_P32 = [-0.49999988335886625, 0.3333332568375869, -0.25001584072257443,
              0.20001975327426563, -0.16609054047569427, 0.14181777299613113,
              -0.13243194997622054, 0.12904853108094058, -0.07621772531743369]
#: log1p(f) = 2s + s*z*R(z), s = f/(2+f), z = s^2 (float64 log; R_MID: 2^-37 for f32 pow)
_LOG_R64 = [0.6666666666666734, 0.39999999999413965, 0.28571428742562177,
            0.22222198553784375, 0.1818356540723795, 0.15314021120125906,
            0.14796261145333067]
#: pow's double-double log: log1p(f) = 2s + (2/3)s^3 + s^3*z*R(z) (to 2^-66)
_LOG_R_DD = [0.40000000000002256, 0.2857142857009842, 0.22222222520131585,
             0.18181784348576016, 0.1538675819934815, 0.13256797204354942,
             0.13196522427869387]
_LOG_R_MID = [0.6666666564462503, 0.40000335396356734, 0.2853729450515402,
              0.23582434810652134]
#: float32 tanh(x) = x * P(x^2) / Q(x^2) on |x| <= 9 (P(0) = Q(0) = 1: exact near 0)
_TANH_P32 = [1.0, 0.1368246283350273, 0.003871495701470742, 2.8069894180987557e-05,
             3.072921925458111e-08, -1.2305057592022388e-11]
_TANH_Q32 = [1.0, 0.4701579533881754, 0.02725749624366903, 0.0003944163709186156,
             1.2916495669375508e-06]
#: sin(r) = r + r^3 * S(r^2), cos(r) = 1 - r^2/2 + r^4 * C(r^2), |r| <= pi/4 (f32: <= 0.8)
_SIN_S = {False: [-0.1666665319228766, 0.00833207088595885, -0.00019503068989413103],
          True: [-0.1666666666666663, 0.008333333333322108, -0.00019841269829580163,
                 2.7557313618016297e-06, -2.505074721801919e-08, 1.5896197625040754e-10]}
_COS_C = {False: [0.041666643182903244, -0.0013887194230423274, 2.4419196787087057e-05],
          True: [0.041666666666666595, -0.001388888888887304, 2.4801587288841394e-05,
                 -2.7557314176238337e-07, 2.087570041588058e-09, -1.1358513941922858e-11]}
#: atan(t) = t + t^3 * P(t^2), |t| <= tan(pi/8)
_ATAN_P = {False: [-0.33333315021606685, 0.19998460469147905, -0.14243311007471265,
                   0.10592078261001497, -0.06073610513486808],
           True: [-0.3333333333333319, 0.19999999999952386, -0.1428571428007559,
                  0.1111111077741986, -0.09090897584311404, 0.07692057133733182,
                  -0.06663069040229394, 0.058476344752289716, -0.05038155287068479,
                  0.03803531280080311, -0.017875118965324337]}
#: cbrt(m) ~ P(m) on [1, 2) (seed for one/two Newton steps)
_CBRT_P = {False: [0.5528234092466799, 0.5871143109221731, -0.16296968538327103,
                   0.02310496712214483],
           True: [0.5069793558067026, 0.7181539885155969, -0.30061160045566027,
                  0.08609136183601122, -0.010603898509090529]}
#: float32 erf(x) = x * P(x^2) / Q(x^2) on |x| <= 4, evaluated in double (in float32 the
#: rounding of P and Q costs ~6 ulp; double costs about what a division-free piecewise
#: float32 version does)
_ERF_P32 = [1.12837916946623, 0.1851994487952626, 0.054317032117754176,
            0.003849534876596067, 0.0003796325129697637, 4.6855100968526255e-06,
            -1.3205780398593668e-08]
_ERF_Q32 = [1.0, 0.49746215288479795, 0.11395740560552882, 0.015462024541181847,
            0.0013075854907508475, 6.31174601348705e-05]
#: float64 erf: x * P(x^2) for |x| < 0.6; else 1 - exp(-x^2) * N(x) / D(x) (|x| <= 6)
_ERF_S64 = [1.1283791670955126, -0.37612638903183704, 0.11283791670950459,
            -0.026866170643478984, 0.005223977595684037, -0.0008548323939429677,
            0.00012055137959986763, -1.4917991458711601e-05, 1.627921022902824e-06,
            -1.3911397581751795e-07]
_ERF_SM1 = [float(Fraction(_ERF_S64[0]) - 1)] + _ERF_S64[1:]
_ERFC_N64 = [1.000000000159594, 1.5098303528105903, 1.1357182730978153, 0.5127903484787394,
             0.14475866427825868, 0.02417784446299247, 0.0018871251097176123]
_ERFC_D64 = [1.0, 2.638209522377665, 3.112618918543206, 2.1390480297314145,
             0.9303971532298791, 0.25824381971820115, 0.04285450552807872,
             0.003344830966509535]


# ----------------------------------------------------------------------------------------
# IR helpers bound to one builder and one float type.

class _Ops:
    def __init__(self, builder, ty):
        self.b = builder
        self.ty = ty
        self.is64 = isinstance(ty, ir.DoubleType)
        self.width = 64 if self.is64 else 32
        self.ity = ir.IntType(self.width)
        self.mant = 52 if self.is64 else 23
        self.bias = 1023 if self.is64 else 127
        self.emax = self.bias  # largest unbiased exponent of a finite number

    # constants
    def c(self, v):
        return ir.Constant(self.ty, float(v))

    def i(self, v):
        v = int(v) & ((1 << self.width) - 1)
        return ir.Constant(self.ity, v - (1 << self.width) if v >> (self.width - 1) else v)

    # float arithmetic
    def _v(self, v):
        return v if isinstance(v, ir.Value) else self.c(v)

    def add(self, a, b):
        return self.b.fadd(self._v(a), self._v(b))

    def sub(self, a, b):
        return self.b.fsub(self._v(a), self._v(b))

    def mul(self, a, b):
        return self.b.fmul(self._v(a), self._v(b))

    def div(self, a, b):
        return self.b.fdiv(self._v(a), self._v(b))

    def fma(self, a, b, c):
        return self.b.fma(self._v(a), self._v(b), self._v(c))

    def neg(self, a):
        return self.b.fneg(a)

    def horner(self, x, coeffs):
        acc = self.c(coeffs[-1])
        for k in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, k)
        return acc

    def _intr(self, name, *args):
        fnty = ir.FunctionType(self.ty, [self.ty] * len(args))
        fn = self.b.module.declare_intrinsic(name, [self.ty], fnty)
        return self.b.call(fn, [self._v(a) for a in args])

    def fabs(self, x):
        return self._intr("llvm.fabs", x)

    def floor(self, x):
        return self._intr("llvm.floor", x)

    def sqrt(self, x):
        return self._intr("llvm.sqrt", x)

    def copysign(self, mag, sgn):
        return self._intr("llvm.copysign", mag, sgn)

    # comparisons and selects (ordered: false when either side is NaN)
    def cmp(self, op, a, b):
        return self.b.fcmp_ordered(op, self._v(a), self._v(b))

    def ucmp(self, op, a, b):
        return self.b.fcmp_unordered(op, self._v(a), self._v(b))

    def isnan(self, x):
        return self.b.fcmp_unordered("uno", x, x)

    def sel(self, cond, a, b):
        return self.b.select(cond, self._v(a), self._v(b))

    def clamp(self, x, lo, hi):
        """min(max(x, lo), hi) that lets NaN through."""
        x = self.sel(self.cmp(">", x, hi), hi, x)
        return self.sel(self.cmp("<", x, lo), lo, x)

    # integer views
    def bits(self, x):
        return self.b.bitcast(x, self.ity)

    def fbits(self, n):
        return self.b.bitcast(n, self.ty)

    def iadd(self, a, b):
        return self.b.add(a, b if isinstance(b, ir.Value) else self.i(b))

    def isub(self, a, b):
        return self.b.sub(a if isinstance(a, ir.Value) else self.i(a),
                          b if isinstance(b, ir.Value) else self.i(b))

    def icmp(self, op, a, b):
        return self.b.icmp_signed(op, a, b if isinstance(b, ir.Value) else self.i(b))

    def tofloat(self, n):
        return self.b.sitofp(n, self.ty)

    def pow2(self, n):
        """2.0**n for an integer n in the normal exponent range."""
        return self.fbits(self.b.shl(self.iadd(n, self.bias), self.i(self.mant)))

    def scale2(self, p, n):
        """p * 2**n in two exact steps, so overflow gives inf and results in the denormal
        range are rounded once (gradual underflow)."""
        n1 = self.b.ashr(n, self.i(1))
        return self.mul(self.mul(p, self.pow2(n1)), self.pow2(self.b.sub(n, n1)))

    def round_mul(self, x, k):
        """(n as float, n as int) with n = round(x * k); |n| < 2^(mantissa-1). Adding
        1.5 * 2^mantissa leaves n in the low bits (no fptosi: no poison on NaN)."""
        shifter = 1.5 * 2.0 ** self.mant
        t = self.fma(x, k, shifter)
        return self.sub(t, shifter), self.isub(self.bits(t), self.bits(self.c(shifter)))

    def sign_bits(self, x):
        return self.b.and_(self.bits(x), self.i(1 << (self.width - 1)))

    def xor_sign(self, x, sbits):
        return self.fbits(self.b.xor(self.bits(x), sbits))


# ----------------------------------------------------------------------------------------
# exp family: x = n*ln2 + r (Cody-Waite), exp(x) = 2^n * exp(r).

def _ln2_parts(o):
    return _split(_LN2, 2, o.is64)


def _exp_core(o, x, coeffs, extra=None, grid=None):
    """exp(x + extra) for x already clamped to the finite range; extra is a small
    correction term (double-double input of pow) or None. grid (float32 pow in double):
    exp(r) is rounded to a multiple of 2^-grid, and 2^n, a normal number there, scales it
    in one product."""
    nf, n = o.round_mul(x, LOG2E)
    hi, lo = _ln2_parts(o)
    r = o.fma(nf, -lo, o.fma(nf, -hi, x))     # x - n*hi is exact
    if extra is not None:
        r = o.add(r, extra)
    q = o.fma(o.mul(r, r), o.horner(r, coeffs), r)
    if grid is None:
        return o.scale2(o.add(q, 1.0), n)
    shifter = 1.5 * 2.0 ** (o.mant - grid)      # ulp 2^-grid: q + 1 rounds to the grid
    return o.mul(o.sub(o.add(q, shifter + 1.0), shifter), o.pow2(n))


def _exp(o, x):
    lo, hi = (-746.0, 710.0) if o.is64 else (-104.0, 89.0)
    return _exp_core(o, o.clamp(x, lo, hi), _EXP_P[o.is64])


def _exp2(o, x):
    lo, hi = (-1080.0, 1030.0) if o.is64 else (-152.0, 130.0)
    x = o.clamp(x, lo, hi)
    nf, n = o.round_mul(x, 1.0)
    r = o.sub(x, nf)                          # exact
    return o.scale2(o.fma(r, o.horner(r, _EXP2_Q[o.is64]), 1.0), n)


def _expm1(o, x):
    # expm1(x) = 2^n * expm1(r) + (2^n - 1) in one fma: exact 2^n - 1 for small n, and
    # n = 0 gives expm1(r) itself (tiny x stays accurate). For n = emax + 1 (x just below
    # the overflow threshold, 2^n is not finite) it uses 2^(n-1) and doubles the result:
    # 2^n (1 + p) - 2 differs from the exact value far below an ulp there.
    lo, hi = (-60.0, 710.0) if o.is64 else (-30.0, 89.0)
    xc = o.clamp(x, lo, hi)
    nf, n = o.round_mul(xc, LOG2E)
    h, l = _ln2_parts(o)
    r = o.fma(nf, -l, o.fma(nf, -h, xc))
    p = o.fma(o.mul(r, r), o.horner(r, _EXPM1_Q[o.is64]), r)
    big = o.icmp(">", n, o.emax)
    s = o.pow2(o.b.sub(n, o.b.zext(big, o.ity)))
    res = o.mul(o.fma(s, p, o.sub(s, 1.0)), o.sel(big, 2.0, 1.0))
    return o.sel(o.cmp("==", x, 0.0), x, res)   # keeps the sign of zero


def _logistic(o, x):
    # 1/(1+e^-x) for x >= 0, e^x/(1+e^x) for x < 0: e = exp(-|x|) never overflows and
    # denormal results for very negative x are kept.
    # The rounding error c of d = 1 + e is compensated: num/(d+c) = r - r*c/d, where
    # 1/d = r (x >= 0) or 1 - r (x < 0).
    e = _exp(o, o.neg(o.fabs(x)))
    neg = o.cmp("<", x, 0.0)
    d = o.add(e, 1.0)
    c = o.add(o.sub(1.0, d), e)                     # exact
    r = o.div(o.sel(neg, e, 1.0), d)
    return o.fma(o.neg(o.mul(r, c)), o.sel(neg, o.sub(1.0, r), r), r)


# ----------------------------------------------------------------------------------------
# log family: x = 2^k * m, m in [sqrt(1/2), sqrt(2)), log(x) = k*ln2 + log1p(m - 1).

_SQRTH_BITS = {False: 0x3F3504F3, True: 0x3FE6A09E667F3BCD}


def _log_split(o, x, denormals=True):
    """(k, m) with x = m * 2^k, m in [sqrt(1/2), sqrt(2)), for finite x > 0."""
    if denormals:
        tiny = o.cmp("<", x, 2.0 ** (1 - o.bias))
        x = o.sel(tiny, o.mul(x, 2.0 ** o.mant), x)
    sq = _SQRTH_BITS[o.is64]
    ix = o.isub(o.bits(x), sq)
    k = o.b.ashr(ix, o.i(o.mant))
    m = o.fbits(o.iadd(o.b.and_(ix, o.i((1 << o.mant) - 1)), sq))
    if denormals:
        k = o.b.sub(k, o.b.select(tiny, o.i(o.mant), o.i(0)))
    return k, m


def _ln2_hi32():
    """ln2 rounded to 32 significant bits (k * hi is exact for |k| < 2^21) and the rest."""
    hi = Fraction(round(_LN2 * 2 ** 32), 2 ** 32)
    return float(hi), float(_LN2 - hi)


def _log_kernel(o, k, f):
    """k*ln2 + log1p(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]."""
    dk = o.tofloat(k)
    if not o.is64:      # polynomial, no division
        y = o.fma(o.mul(f, f), o.horner(f, _LOG1P_P32), f)
        h, l = _ln2_parts(o)
        return o.fma(dk, h, o.fma(dk, l, y))
    # fdlibm's form: log1p(f) = f - (f^2/2 - s*(f^2/2 + R)), s = f/(2+f)
    s = o.div(f, o.add(f, 2.0))
    z = o.mul(s, s)
    big_r = o.mul(z, o.horner(z, _LOG_R64))
    hfsq = o.mul(o.mul(f, f), 0.5)
    h, l = _ln2_hi32()
    t = o.fma(s, o.add(hfsq, big_r), o.mul(dk, l))
    return o.add(o.mul(dk, h), o.sub(f, o.sub(hfsq, t)))


def _log(o, x):
    k, m = _log_split(o, x)
    r = _log_kernel(o, k, o.sub(m, 1.0))
    r = o.sel(o.cmp("==", x, float("inf")), x, r)
    r = o.sel(o.cmp("==", x, 0.0), float("-inf"), r)
    return o.sel(o.ucmp("<", x, 0.0), float("nan"), r)     # x < 0 or NaN


def _log1p(o, x):
    # u = 1 + x = 2^k * m; f = 2^-k * (1 + x) - 1 = fma(2^-k, x, 2^-k - 1) recovers the
    # rounding error of 1 + x (2^-k is not a normal number for k >= emax: use m - 1).
    u = o.add(x, 1.0)
    k, m = _log_split(o, u, denormals=False)
    s = o.fbits(o.b.shl(o.isub(o.bias, k), o.i(o.mant)))
    f = o.sel(o.icmp("<", k, o.emax), o.fma(s, x, o.sub(s, 1.0)), o.sub(m, 1.0))
    r = _log_kernel(o, k, f)
    r = o.sel(o.cmp("==", x, float("inf")), x, r)
    r = o.sel(o.cmp("==", x, -1.0), float("-inf"), r)
    r = o.sel(o.ucmp("<", x, -1.0), float("nan"), r)
    return o.sel(o.cmp("==", x, 0.0), x, r)


def _tanh(o, x):
    if not o.is64:      # rational on |x| < 9, exactly 1 beyond, never above 1
        ax = o.fabs(x)
        big = o.cmp(">=", ax, 9.0)                  # false for NaN
        ax = o.sel(big, 9.0, ax)
        t = o.mul(ax, ax)
        r = o.div(o.mul(ax, o.horner(t, _TANH_P32)), o.horner(t, _TANH_Q32))
        return o.copysign(o.sel(o.b.or_(big, o.cmp(">", r, 1.0)), 1.0, r), x)
    # tanh|x| = -em / (2 + em), em = expm1(-2|x|) in (-1, 0]: no cancellation, no overflow
    em = _expm1(o, o.mul(o.fabs(x), -2.0))
    return o.copysign(o.div(o.neg(em), o.add(em, 2.0)), x)


# ----------------------------------------------------------------------------------------
# Trigonometric functions: |x| = q*pi/2 + r, |r| <= pi/4. Up to 2^18 (f32) / 2^36 (f64):
# 3-part Cody-Waite with fma. Beyond: Payne-Hanek, an exact integer product of x's mantissa
# with the window of 2/pi's bits that matters at x's exponent. Both reductions run for
# every element (the loop is vectorized, no branch can skip one), a select picks q and r,
# and the polynomials run once. The Payne-Hanek part is most of the work: measured on
# AVX-512, a sin loop's compute grew ~2.7x (f32) / ~4.4x (f64), jnp.sin on 2^24 elements
# 1.7x / 1.3x; results for |x| up to the threshold are bit-identical to Cody-Waite alone.

#: Payne-Hanek is used for |x| > 2^this
_PH_THRESHOLD_EXP = {False: 18, True: 36}


def _arctan_inv(n, one):
    """atan(1/n) * one in integer fixed point (each term truncated)."""
    total, term, k = 0, one // n, 1
    while term:
        total += term // k if k % 4 == 1 else -(term // k)
        term //= n * n
        k += 2
    return total


@functools.cache
def two_over_pi_bits(nbits):
    """floor(2/pi * 2^nbits), from Machin's formula pi = 16 atan(1/5) - 4 atan(1/239) in
    integer arithmetic with 64 guard bits (no digits copied from elsewhere; the tests
    compare it with mpmath)."""
    guard = 64
    one = 1 << (nbits + guard)
    pi = 4 * (4 * _arctan_inv(5, one) - _arctan_inv(239, one))
    return (one << (nbits + guard + 1)) // pi >> guard


def _pio2_words(first, count, width):
    """`count` words of `width` bits of 2/pi, the first starting at bit number `first` after
    the binary point (bits at numbers <= 0 are 0), as signed integers (LLVM constants)."""
    nbits = 1024 * ((first + count * width) // 1024 + 2)     # few distinct sizes to cache
    g = two_over_pi_bits(nbits)
    words = []
    for k in range(count):
        w = (g >> (nbits - first - (k + 1) * width + 1)) & ((1 << width) - 1)
        words.append(w - (1 << width) if w >> (width - 1) else w)
    return words


def _ph_exponent(o, ax, clamp):
    """(bits of ax, t as i32) with t = biased exponent - that of 2^threshold. For x with
    t, the first bit of 2/pi that matters is number t + _ph_first_bit() (earlier bits add
    multiples of 4 to x * 2/pi). clamp: limit t to [0, emax - threshold] (for table
    indices; lanes outside are not used)."""
    b, i32 = o.b, ir.IntType(32)
    bits = o.bits(ax)
    eb = b.lshr(bits, o.i(o.mant))
    eb = b.trunc(eb, i32) if o.is64 else eb
    lo = ir.Constant(i32, o.bias + _PH_THRESHOLD_EXP[o.is64])
    if clamp:
        hi = ir.Constant(i32, 2 * o.bias)
        eb = b.select(b.icmp_signed("<", eb, lo), lo, eb)
        eb = b.select(b.icmp_signed(">", eb, hi), hi, eb)
    return bits, b.sub(eb, lo)


def _ph_first_bit(is64):
    """Bit number of 2/pi that the window starts at for t = 0 (x * 2/pi = M * 2/pi *
    2^(e - mant), M < 2^(mant + 1): bits before e - mant - 1 give multiples of 4)."""
    return _PH_THRESHOLD_EXP[is64] - (52 if is64 else 23) - 1


def _ph_window32(o, ax):
    """float32: (m, [w0, w1, w2]) as i32: x's integer mantissa and the 96 bits of 2/pi
    from the first that matters, so that x * 2/pi = m * W * 2^-94 (mod 4). t < 128, so
    the 7 words that can be needed are constants: selected by t >> 5 and funnel-shifted
    by t & 31 (no loads; unused lanes may have any t)."""
    b = o.b
    bits, t = _ph_exponent(o, ax, clamp=False)
    u = _pio2_words(_ph_first_bit(False), 7, 32)
    b0 = b.icmp_signed("!=", b.and_(t, o.i(32)), o.i(0))
    b1 = b.icmp_signed("!=", b.and_(t, o.i(64)), o.i(0))
    a = [b.select(b0, o.i(u[i + 1]), o.i(u[i])) for i in range(6)]
    uu = [b.select(b1, a[j + 2], a[j]) for j in range(4)]
    s = b.and_(t, o.i(31))
    rs = b.sub(o.i(31), s)                          # (v >> 1) >> (31 - s): no shift by 32
    w = [b.or_(b.shl(uu[j], s), b.lshr(b.lshr(uu[j + 1], o.i(1)), rs)) for j in range(3)]
    return b.or_(b.and_(bits, o.i((1 << 23) - 1)), o.i(1 << 23)), w


#: words per row of the float64 window table
_PH_NCOL64 = ((1023 - _PH_THRESHOLD_EXP[True]) >> 6) + 3


@functools.cache
def _pio2_rows64():
    """Row s (0..63) holds 64-bit words of 2/pi from bit number _ph_first_bit + s on; the
    window for t is row t & 63, words t >> 6 .. + 2 (9 KB)."""
    return [v for s in range(64) for v in _pio2_words(_ph_first_bit(True) + s, _PH_NCOL64, 64)]


def _pio2_table64(module):
    """The float64 window table: a constant global, made once per module."""
    name = "tjit.mathlib.two_over_pi.f64"
    tab = module.globals.get(name)
    if tab is None:
        words = _pio2_rows64()
        aty = ir.ArrayType(ir.IntType(64), len(words))
        tab = ir.GlobalVariable(module, aty, name)
        tab.global_constant, tab.linkage, tab.unnamed_addr = True, "internal", True
        tab.initializer = ir.Constant(aty, words)
    return tab


def _ph_window64(o, ax):
    """float64: (m, [w0..w5]) as i64: x's integer mantissa and the 192 bits of 2/pi from
    the first that matters (x * 2/pi = m * W * 2^-190 mod 4) as 32-bit words, loaded as
    three 64-bit words (LLVM makes gathers) from rows of pre-shifted bits."""
    b, i32, i64 = o.b, ir.IntType(32), ir.IntType(64)
    bits, t = _ph_exponent(o, ax, clamp=True)
    tab = _pio2_table64(b.module)
    base = b.add(b.mul(b.and_(t, ir.Constant(i32, 63)), ir.Constant(i32, _PH_NCOL64)),
                 b.lshr(t, ir.Constant(i32, 6)))
    w = []
    for j in range(3):
        idx = b.zext(b.add(base, ir.Constant(i32, j)), i64)
        v = b.load(b.gep(tab, [ir.Constant(i64, 0), idx], inbounds=True))
        w += [b.lshr(v, o.i(32)), b.and_(v, o.i(0xFFFFFFFF))]
    return b.or_(b.and_(bits, o.i((1 << 52) - 1)), o.i(1 << 52)), w


def _ph_split(d, h):
    """Quadrant and fraction from the top 64 bits h of the fixed-point product (2 bits of
    quadrant, 62 of fraction), rounded to the nearest quadrant: (q in 0..3, f) with f in
    [-2^61, 2^61) the fraction in units of 2^-62 (i64 values)."""
    h = d.b.add(h, d.i(1 << 61))
    return d.b.lshr(h, d.i(62)), d.b.sub(d.b.and_(h, d.i((1 << 62) - 1)), d.i(1 << 61))


def _payne_hanek32(o, ax):
    """(q, r) for float32 ax > 2^18. Before r is rounded to float32 its error is below
    2^-61 + 2^-51 |r|, so below 2^-32 |r| (the smallest |r| of any float32 is 2^-29.2)."""
    b, d, i64 = o.b, _Ops(o.b, ir.DoubleType()), ir.IntType(64)
    m, w = _ph_window32(o, ax)
    m, (w0, w1, w2) = b.zext(m, i64), [b.zext(v, i64) for v in w]
    # bits 32..95 of m * W, exactly: m*w0 << 32 + m*w1 + floor(m*w2 / 2^32) (mod 2^64);
    # the dropped bits are worth < 2^-62
    h = b.add(b.add(b.shl(b.mul(m, w0), d.i(32)), b.mul(m, w1)),
              b.lshr(b.mul(m, w2), d.i(32)))
    q, f = _ph_split(d, h)
    r = d.mul(b.sitofp(f, d.ty), float(_PI / 2) * 2.0 ** -62)     # two roundings
    return b.trunc(q, o.ity), b.fptrunc(r, o.ty)


def _exact_double(d, n, k):
    """n * 2^(k - 52) as a double, for an i64 n in [0, 2^52): exact, no int conversion."""
    return d.sub(d.fbits(d.b.or_(n, d.bits(d.c(2.0 ** k)))), 2.0 ** k)


def _ph_product64(o, m, w):
    """Bits 128..191 and 64..127 of m * W (m = mh 2^32 + ml; W = six 32-bit words, most
    significant first), as i64 (h, rest), by 32-bit columns with carries. Columns above 5
    only add multiples of 4; column 0 (ml * w5) is left out: rest may be short by 1."""
    b, m32 = o.b, o.i(0xFFFFFFFF)
    ml, mh = b.and_(m, m32), b.lshr(m, o.i(32))
    pl = [b.mul(ml, wj) for wj in w[:5]]              # ml * w[j]: column 5 - j
    ph = [None] + [b.mul(mh, wj) for wj in w[1:]]     # mh * w[j]: column 6 - j
    lo, hi = (lambda v: b.and_(v, m32)), (lambda v: b.lshr(v, o.i(32)))

    def total(*vs):
        return functools.reduce(b.add, vs)
    x1 = total(lo(pl[4]), lo(ph[5]))                  # columns 1..3, each < 2^35
    x2 = total(lo(pl[3]), lo(ph[4]), hi(pl[4]), hi(ph[5]), hi(x1))
    x3 = total(lo(pl[2]), lo(ph[3]), hi(pl[3]), hi(ph[4]), hi(x2))
    h = total(b.shl(b.add(pl[0], ph[1]), o.i(32)), pl[1], ph[2], hi(pl[2]), hi(ph[3]), hi(x3))
    return h, b.or_(b.shl(x3, o.i(32)), lo(x2))


def _payne_hanek64(o, ax):
    """(q, r) for float64 ax > 2^36. Before r is rounded its error is below 2^-124 +
    2^-100 |r|, so below 2^-63 |r| (the smallest |r| of any double is 2^-60.9, at
    6381956970095103 * 2^797)."""
    b = o.b
    h, rest = _ph_product64(o, *_ph_window64(o, ax))
    q, f = _ph_split(o, h)
    # fraction = f 2^-62 + rest 2^-126 as three exact doubles, then a double-double
    ad = o.mul(b.sitofp(b.ashr(f, o.i(10)), o.ty), 2.0 ** -52)            # 2^-1 .. 2^-52
    bd = _exact_double(o, b.or_(b.shl(b.and_(f, o.i(1023)), o.i(42)),
                                b.lshr(rest, o.i(22))), -52)              # .. 2^-104
    cd = _exact_double(o, b.shl(b.and_(rest, o.i((1 << 22) - 1)), o.i(30)), -104)  # 2^-126
    fh = o.add(ad, bd)                                # Fast2Sum: |ad| >= |bd| unless ad = 0
    fl = o.add(o.sub(bd, o.sub(fh, ad)), cd)
    p1, p2 = _split(_PI / 2, 2, True)
    rh = o.mul(fh, p1)
    return q, o.add(rh, o.fma(fh, p2, o.fma(fl, p1, o.fma(fh, p1, o.neg(rh)))))


def _trig(o, ax):
    """(q, sin r, cos r) for ax = |x|."""
    nf, q = o.round_mul(ax, float(2 / _PI))
    p1, p2, p3 = _split(_PI / 2, 3, o.is64)
    r = o.fma(nf, -p3, o.fma(nf, -p2, o.fma(nf, -p1, ax)))
    qb, rb = (_payne_hanek64 if o.is64 else _payne_hanek32)(o, ax)
    big = o.b.and_(o.cmp(">", ax, 2.0 ** _PH_THRESHOLD_EXP[o.is64]),
                   o.cmp("<", ax, float("inf")))      # inf, NaN: r = NaN from Cody-Waite
    q, r = o.b.select(big, qb, q), o.sel(big, rb, r)
    z = o.mul(r, r)
    s = o.fma(o.mul(r, z), o.horner(z, _SIN_S[o.is64]), r)
    c = o.fma(z, o.fma(z, o.horner(z, _COS_C[o.is64]), -0.5), 1.0)
    return q, s, c


def _quadrant_select(o, q, s, c, sbits):
    """sin(r + q*pi/2) from sin r, cos r; sign bits sbits are xored in."""
    v = o.sel(o.b.trunc(q, ir.IntType(1)), c, s)
    neg = o.b.shl(o.b.and_(q, o.i(2)), o.i(o.width - 2))
    return o.xor_sign(v, o.b.xor(neg, sbits))


def _sin(o, x):
    q, s, c = _trig(o, o.fabs(x))
    return _quadrant_select(o, q, s, c, o.sign_bits(x))


def _cos(o, x):
    q, s, c = _trig(o, o.fabs(x))
    return _quadrant_select(o, o.iadd(q, 1), s, c, o.i(0))


def _tan(o, x):
    q, s, c = _trig(o, o.fabs(x))
    odd = o.b.trunc(q, ir.IntType(1))
    v = o.div(o.sel(odd, o.neg(c), s), o.sel(odd, s, c))
    return o.xor_sign(v, o.sign_bits(x))


def _atan2(o, y, x):
    # t = min/max of |x|, |y| folded to |t| <= tan(pi/8) (t -> (t-1)/(t+1) with the same
    # single division), atan(t) by polynomial, then angle = k*pi/4 + sgn*atan(t).
    inf = float("inf")
    ax, ay = o.fabs(x), o.fabs(y)
    swap = o.cmp(">", ay, ax)
    mn, mx = o.sel(swap, ax, ay), o.sel(swap, ay, ax)
    # Denormal mx: scale both up (exactly), or the fold test's product mx * 0.414 rounds
    # and picks the wrong side (t beyond the polynomial's interval).
    up = 2.0 ** (o.bias // 2)
    sc = o.sel(o.cmp("<", mx, 2.0 / up), up, 1.0)
    mn, mx = o.mul(mn, sc), o.mul(mx, sc)
    big = o.cmp(">", mn, o.mul(mx, 0.41421356))
    # folded: (mn - mx) / (mn + mx) as halves (exact, one rounding each): mn + mx itself
    # overflows for mx >= 2^emax
    h = o.mul(mx, 0.5)
    num = o.sel(big, o.fma(mn, 0.5, o.neg(h)), mn)
    den = o.sel(big, o.fma(mn, 0.5, h), mx)
    # den is 0 (both zero: t = 0) or >= 2^(bias // 2 - bias - mant), where adding a
    # quarter of its ulp leaves it unchanged
    t = o.div(num, o.add(den, 2.0 ** (o.bias // 2 - o.bias - 2 * o.mant - 2)))
    z = o.mul(t, t)
    a = o.fma(o.mul(t, z), o.horner(z, _ATAN_P[o.is64]), t)
    # angle = k*pi/4 +- a: k = big (+ swap: 2 - k) (+ x < 0: 4 - k), - for swap xor x < 0
    negx = o.icmp("!=", o.sign_bits(x), 0)
    k = o.sel(big, 1.0, 0.0)
    k = o.sel(swap, o.sub(2.0, k), k)
    k = o.sel(negx, o.sub(4.0, k), k)
    a = o.sel(o.b.xor(swap, negx), o.neg(a), a)
    hi, lo = _split(_PI / 4, 2, o.is64)
    res = o.fma(k, hi, o.fma(k, lo, a))
    # both infinite: t was NaN; the angle is pi/4 or 3pi/4 (off the critical path)
    both_inf = o.b.and_(o.cmp("==", ax, inf), o.cmp("==", ay, inf))
    res = o.sel(both_inf, o.sel(negx, _rnd(3 * _PI / 4, o.is64), _rnd(_PI / 4, o.is64)), res)
    return o.copysign(res, y)


# ----------------------------------------------------------------------------------------
# erf, cbrt

def _erf(o, x):
    if not o.is64:
        d = _Ops(o.b, ir.DoubleType())
        xd = d.clamp(o.b.fpext(x, d.ty), -3.95, 3.95)   # erf = +-1 in float32 beyond
        t = d.mul(xd, xd)
        r = d.div(d.mul(xd, d.horner(t, _ERF_P32)), d.horner(t, _ERF_Q32))
        return o.b.fptrunc(r, o.ty)
    ax = o.fabs(x)
    # small |x|: x + x * (P(x^2) - 1) (rounding P near 1 would cost an ulp)
    small = o.fma(x, o.horner(o.mul(x, x), _ERF_SM1), x)
    axc = o.sel(o.cmp(">", ax, 6.0), 6.0, ax)
    e = _exp(o, o.neg(o.mul(axc, axc)))
    ratio = o.div(o.horner(axc, _ERFC_N64), o.horner(axc, _ERFC_D64))
    big = o.copysign(o.fma(o.neg(e), ratio, 1.0), x)
    return o.sel(o.cmp("<", ax, 0.6), small, big)


def _cbrt(o, x):
    # |x| = m * 2^(3q + r), m in [1, 2): cbrt = 2^q * cbrt(m * 2^r); seed by polynomial
    # times cbrt(2^r), then Newton steps y -= (y^3 - v) / (3 y^2).
    ax = o.fabs(x)
    tiny = o.cmp("<", ax, 2.0 ** (1 - o.bias))
    sc = 8 if not o.is64 else 18                    # denormals: scale by 2^(3*sc)
    axs = o.sel(tiny, o.mul(ax, 2.0 ** (3 * sc)), ax)
    bits = o.bits(axs)
    e = o.isub(o.b.lshr(bits, o.i(o.mant)), o.bias)
    m = o.fbits(o.b.or_(o.b.and_(bits, o.i((1 << o.mant) - 1)), o.i(o.bias << o.mant)))
    ef = o.tofloat(e)
    qf = o.floor(o.mul(o.add(ef, 0.5), 1.0 / 3.0))
    rf = o.fma(qf, -3.0, ef)                        # 0, 1 or 2
    r1, r2 = o.cmp(">", rf, 0.5), o.cmp(">", rf, 1.5)
    v = o.mul(m, o.sel(r1, o.sel(r2, 4.0, 2.0), 1.0))
    y = o.mul(o.horner(m, _CBRT_P[o.is64]),
              o.sel(r1, o.sel(r2, 4.0 ** (1 / 3), 2.0 ** (1 / 3)), 1.0))
    if o.is64:
        y2 = o.mul(y, y)
        y = o.sub(y, o.div(o.fma(y2, y, o.neg(v)), o.mul(y2, 3.0)))
    y2 = o.mul(y, y)                                # last step: y^3 - v with y^2 exact
    y2l = o.fma(y, y, o.neg(y2))
    resid = o.fma(y2l, y, o.fma(y2, y, o.neg(v)))
    y = o.sub(y, o.div(resid, o.mul(y2, 3.0)))
    q = o.b.fptosi(qf, o.ity)
    q = o.b.sub(q, o.b.select(tiny, o.i(sc), o.i(0)))
    res = o.copysign(o.mul(y, o.pow2(q)), x)
    finite_nonzero = o.b.icmp_unsigned("<", o.isub(o.bits(ax), 1),
                                       o.i((o.bias * 2 + 1 << o.mant) - 1))
    return o.sel(finite_nonzero, res, x)


# ----------------------------------------------------------------------------------------
# pow(x, y) = 2^(y * log2|x|) with extra precision in the logarithm, plus C's special cases.

def _log_specials(o, ax, lh):
    lh = o.sel(o.cmp("==", ax, 0.0), float("-inf"), lh)
    lh = o.sel(o.cmp("==", ax, float("inf")), ax, lh)
    return o.sel(o.isnan(ax), ax, lh)


#: float32 pow rounds exp(r) to a multiple of 2^-_POW32_GRID before float32; exp(r) is
#: in [0.7, 1.42], so half a step is a relative 2^-32.5..2^-31.5: above the error of the
#: double computation in exact cases (2^-33.9), below a float32 half-ulp (>= 2^-25)
_POW32_GRID = 31


def _pow_core32(o, ax, y):
    """|x|^y for float32, computed in double (relative error 2^-31, measured 2^-31.0;
    2^-33.9 in exact cases, where |y| is small) and rounded to float32 in two steps: to a
    multiple of 2^(n - _POW32_GRID), then to float32. An exact tie (pow(2, -150), 4097^2:
    a midpoint between two float32s, normal or denormal) comes out of the first step as
    the midpoint itself and rounds to even, as the exact value does, not to the side of
    the double's error. Elsewhere the first step costs at most 2^-7.5 ulp (0.506 ulp)."""
    d = _Ops(o.b, ir.DoubleType())
    axd, yd = o.b.fpext(ax, d.ty), o.b.fpext(y, d.ty)
    k, m = _log_split(d, axd, denormals=False)      # float32 values are normal doubles
    f = d.sub(m, 1.0)
    s = d.div(f, d.add(f, 2.0))
    z = d.mul(s, s)
    lg = d.fma(d.tofloat(k), float(_LN2),
               d.fma(d.mul(s, z), d.horner(z, _LOG_R_MID), d.add(s, s)))
    lg = _log_specials(d, axd, lg)
    # beyond the clamp the float32 result is 0 or inf
    e = _exp_core(d, d.clamp(d.mul(yd, lg), -110.0, 100.0), _EXP_P_MID, grid=_POW32_GRID)
    return o.b.fptrunc(e, o.ty)


def _log_dd(o, ax):
    """log(ax) as a double-double (hi, lo), relative error ~2^-60."""
    k, m = _log_split(o, ax)
    f = o.sub(m, 1.0)
    a_hi = o.add(f, 2.0)
    a_lo = o.sub(f, o.sub(a_hi, 2.0))               # exact rounding error of 2 + f
    inv = o.div(1.0, a_hi)
    sh = o.mul(f, inv)                              # s = f / (2 + f) = sh + sl
    rem = o.fma(o.neg(sh), a_lo, o.fma(o.neg(sh), a_hi, f))
    sl = o.mul(rem, inv)
    # log1p(f) = 2s + (2/3)s^3 + s^3*(R(s^2) - 2/3): 2s exact, (2/3)s^3 as a
    # double-double (rounding it in double would cost pow up to ~10 ulp), the rest and
    # the sl terms (2 sl (1 + s^2 + s^4)) in double
    z = o.mul(sh, sh)
    zl = o.fma(sh, sh, o.neg(z))
    ch = o.mul(z, sh)
    cl = o.fma(zl, sh, o.fma(z, sh, o.neg(ch)))
    th = o.mul(ch, _TWO3[0])
    tl = o.fma(ch, _TWO3[1], o.fma(cl, _TWO3[0], o.fma(ch, _TWO3[0], o.neg(th))))
    rest = o.mul(o.mul(ch, z), o.horner(z, _LOG_R_DD))
    sl2 = o.add(sl, sl)
    h, l = _ln2_hi32()
    dk = o.tofloat(k)
    small = o.add(o.fma(dk, l, rest), o.add(tl, o.fma(sl2, o.fma(z, z, z), sl2)))
    a, b = o.mul(dk, h), o.add(sh, sh)              # exact; |a| >= |b| unless a == 0
    hh = o.add(a, b)                                # Fast2Sum twice: hh + th
    hh2 = o.add(hh, th)
    low = o.add(o.add(o.sub(b, o.sub(hh, a)), o.sub(th, o.sub(hh2, hh))), small)
    lh = o.add(hh2, low)
    return lh, o.sub(low, o.sub(lh, hh2))


_TWO3 = _split(Fraction(2, 3), 2, True)


def _pow_core64(o, ax, y):
    lh, ll = _log_dd(o, ax)
    lh = _log_specials(o, ax, lh)
    zh = o.mul(y, lh)
    zl = o.fma(y, ll, o.fma(y, lh, o.neg(zh)))
    zl = o.sel(o.cmp("<", o.fabs(zh), 750.0), zl, 0.0)  # inf/NaN zh: no correction
    return _exp_core(o, o.clamp(zh, -746.0, 710.0), _EXP_P[True], extra=zl)


def _pow(o, x, y):
    inf = float("inf")
    core = (_pow_core64 if o.is64 else _pow_core32)(o, o.fabs(x), y)
    is_int = o.cmp("==", o.floor(y), y)             # false for NaN, true for +-inf
    hy = o.mul(y, 0.5)
    odd = o.b.and_(is_int, o.cmp("!=", o.floor(hy), hy))
    neg_x = o.icmp("!=", o.sign_bits(x), 0)
    r = o.sel(o.b.and_(neg_x, odd), o.neg(core), core)
    # both NaN: y's NaN (quieted), whatever operand order the code generator gives the
    # core's multiply (vectorized and scalar builds used to differ in the payload)
    r = o.sel(o.b.and_(o.isnan(x), o.isnan(y)), o.add(y, y), r)
    neg_finite = o.b.and_(o.cmp("<", x, 0.0), o.cmp(">", x, -inf))
    r = o.sel(o.b.and_(neg_finite, o.b.not_(is_int)), float("nan"), r)
    r = o.sel(o.b.or_(o.cmp("==", y, 0.0), o.cmp("==", x, 1.0)), 1.0, r)
    return o.sel(o.b.and_(o.cmp("==", x, -1.0), o.cmp("==", o.fabs(y), inf)), 1.0, r)


# ----------------------------------------------------------------------------------------
# Entry point.

_UNARY = {"exp": _exp, "exp2": _exp2, "expm1": _expm1, "log": _log, "log1p": _log1p,
          "tanh": _tanh, "logistic": _logistic, "sin": _sin, "cos": _cos, "tan": _tan,
          "erf": _erf, "cbrt": _cbrt}
_BINARY = {"pow": _pow, "atan2": _atan2}
#: unary functions of the modules built on this one (imported on first use, as they
#: import this module): name -> module
_ELSEWHERE = {**dict.fromkeys(("atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh",
                               "atanh"), "mathlib_inverse"),
              **dict.fromkeys(("erfc", "lgamma", "digamma"), "mathlib_special")}

#: names emit_math accepts
MATH_FUNCTIONS = frozenset(_UNARY) | frozenset(_BINARY) | frozenset(_ELSEWHERE)


def arity(name):
    """The number of arguments of math function ``name``."""
    return 2 if name in _BINARY else 1


def emit_math(builder, name, args, ty):
    """Emit the IR of math function ``name`` applied to scalar ``args``.

    Args:
      builder: an ``llvmlite.ir.IRBuilder`` positioned inside a function.
      name: one of ``MATH_FUNCTIONS`` (``pow(x, y)``, ``atan2(y, x)``: arguments in
        that order).
      args: list of scalar ``ir.Value`` of type ``ty``.
      ty: ``ir.FloatType()`` or ``ir.DoubleType()``.

    Returns:
      An ``ir.Value`` of type ``ty``. The emitted code is straight-line (no branches, no
      calls other than vectorizable intrinsics); see the module docstring for accuracy.
    """
    if not isinstance(ty, (ir.FloatType, ir.DoubleType)):
        raise TypeError(f"emit_math({name!r}): type {ty} is not supported; pass "
                        "ir.FloatType() or ir.DoubleType() (convert other dtypes first)")
    if name in _UNARY:
        fn, nargs = _UNARY[name], 1
    elif name in _BINARY:
        fn, nargs = _BINARY[name], 2
    elif name in _ELSEWHERE:
        module = importlib.import_module(f"tjit.lower.llvm.{_ELSEWHERE[name]}")
        fn, nargs = module.UNARY[name], 1
    else:
        raise ValueError(f"emit_math: unknown math function {name!r}; known: "
                         f"{', '.join(sorted(MATH_FUNCTIONS))}")
    args = list(args)
    if len(args) != nargs:
        raise ValueError(f"emit_math({name!r}) takes {nargs} argument(s), got {len(args)}")
    for a in args:
        if a.type != ty:
            raise TypeError(f"emit_math({name!r}): argument of type {a.type} does not match "
                            f"the requested type {ty}; convert the arguments first")
    return fn(_Ops(builder, ty), *args)
