"""Double-double logs and exps for the special functions' large-argument paths.

``exp(L)`` turns an absolute error of ``L`` into a relative error of the result: with
``L ~ 700`` (float64 ``comb(1000, 500) = exp(689)``) a log-sum rounded to working
precision carries ``|L| eps / 2``, hundreds of ulps after ``exp``. Here such sums are
kept as unevaluated pairs ``hi + lo`` (``lo`` within an ulp of ``hi``):

* ``log_pair(xh, xl)``: ``log(xh + xl)`` within ``eps / 2**15`` of ``max(|log|, 0.3)``
  (float64 ``2**-67``, where ``log`` itself is within ``2**-53``), from ``x = 2**k m``
  (``m`` in ``[1/sqrt 2, sqrt 2)``, exact), ``k log 2`` with a short leading part of ``log 2``
  (an exact product) and ``log m = 2 atanh(f)``, ``f = (m - 1) / (m + 1)`` as a pair
  by one fma; the series' three leading terms as pairs and the rest (below
  ``1.3e-6``) in working precision.
* products by exact factors through ``primitives.fma.product_error``, sums by TwoSum;
* ``exp_pair(h, l) = exp(h) (1 + l)``.

Plain jnp operations and the fma primitive: eager and jit evaluate the same formula.
"""

import functools

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.primitives.fma import product_error
from tjit.scipy._special_common import any_lane
from tjit.scipy._special_gamma import gamma_accurate, stirling_correction
from tjit.tracing.core import Tracer

# log 2 = _LN2[size][0] + [1]: the leading part with enough trailing zero bits that
# k * it is exact for every exponent k of the dtype (float64: 32 bits, float32: 16)
_LN2 = {8: (6.93147180369123816490e-01, 1.90821492927058770002e-10),
        4: (0.693145751953125, 1.4286068203094173e-06)}
# log(2 pi) / 2 as a pair per float width
_HALF_LOG_2PI = {8: (0.91893853320467278, -3.8782941580672414e-17),
                 4: (0.9189385175704956, 1.563417661998301e-08)}
# 2 / (2j + 1), j = 3..: log m's series past f**5, to f**25 (float64) / f**17 (float32):
# |f| <= 0.172, so the first term left out is below eps**2 of log m
_ATANH_TAIL = {8: tuple(2.0 / (2 * j + 1) for j in range(3, 13)),
               4: tuple(2.0 / (2 * j + 1) for j in range(3, 9))}
_SQRT_2 = 1.41421356237309504880


def exact_below(dtype):
    """Where the pair formulas here apply (float32/float64 ``dtype``): below it ``x - 1/2``
    and ``x + 1`` are exact for integers, and sums of two arguments stay finite."""
    return float(2.0 ** jnp.finfo(dtype).nmant)


def _size(x):
    return jnp.finfo(x.dtype).bits // 8


def two_sum(a, b):
    """``(s, e)``: ``s = a + b`` rounded and its exact error ``e`` (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _renormalize(h, l):
    """``(h, l)`` as ``h + l`` rounded and its error (``|h| >= |l|`` or ``h == 0``)."""
    s = h + l
    return s, l - (s - h)


def add_pairs(*pairs):
    """The sum of pairs ``(h, l)`` (or plain arrays) as one pair: the leading parts
    accumulated by TwoSum, every error and trailing part summed apart."""
    h, lo = None, None
    for p in pairs:
        ph, pl = p if isinstance(p, tuple) else (p, None)
        if h is None:
            h, lo = ph, pl
            continue
        h, e = two_sum(h, ph)
        lo = e if lo is None else lo + e
        if pl is not None:
            lo = lo + pl
    return _renormalize(h, jnp.zeros_like(h) if lo is None else lo)


def _const(c, like):
    return jnp.asarray(c, like.dtype) if isinstance(c, float) else c


def scale_pair(c, pair):
    """``c (h + l)`` as a pair, for ``c`` exact or itself a pair: the product's error by
    one fma."""
    h, l = pair
    c, cl = c if isinstance(c, tuple) else (_const(c, h), None)
    p = c * h
    lo = product_error(c, h, p) + c * l
    return _renormalize(p, lo if cl is None else lo + cl * h)


def divide(a, b):
    """``a / b`` as a pair ``(q, r)`` for plain ``a`` and ``b`` (``a - q b`` exact)."""
    q = a / b
    return q, -product_error(q, b, a) / b


def _split_exponent(x):
    """``(m, k)`` with ``x = 2**k m`` exactly, ``m`` in ``[1/sqrt 2, sqrt 2)`` and ``k``
    a float, for ``x`` positive, finite and normal: read from the bits (frexp's zero,
    subnormal and infinity handling cost ~10x this eagerly)."""
    info = jnp.finfo(x.dtype)
    itype = np.dtype(f"i{x.dtype.itemsize}")
    bits = lax.bitcast_convert_type(x, itype)
    biased = lax.shift_right_logical(bits, lax.full_like(bits, info.nmant))
    one_bits = lax.full_like(bits, (-info.minexp + 1) << info.nmant)  # the bits of 1.0
    mantissa = lax.bitwise_and(bits, lax.full_like(bits, (1 << info.nmant) - 1))
    m = lax.bitcast_convert_type(lax.bitwise_or(mantissa, one_bits), x.dtype)  # [1, 2)
    high = m > _SQRT_2
    k = (biased + (info.minexp - 1)).astype(x.dtype) + jnp.where(high, 1.0, 0.0)
    return jnp.where(high, 0.5 * m, m), k


def _twice_over(h, l, d):
    """``2 (h + l) / d`` as a pair (``d`` a small integer): the quotient's remainder
    exact by one fma."""
    q = 2 * h / d
    return q, (2 * l - product_error(q, _const(d, q), 2 * h)) / d


def log_pair(xh, xl=None):
    """``log(xh + xl)`` as a pair, for ``xh`` positive, finite and normal and ``xl``
    (optional) below an ulp of it."""
    size = _size(xh)
    m, kf = _split_exponent(xh)
    # f = (m - 1) / (m + 1) as fh + fl: m - 1 is exact, m + 1 = b + bl (b - 1 exact)
    a = m - 1
    b = m + 1
    bl = m - (b - 1)
    fh = a / b
    fl = (-product_error(fh, b, a) - fh * bl) / b
    # f**2, f**3, f**5 as pairs; (2/3) f**3 and (2/5) f**5 as pairs (2 f**n divided with
    # its remainder); the rest of the series, below 0.3 f**7, in working precision
    sh = fh * fh
    sl = product_error(fh, fh, sh) + 2 * fh * fl
    th = sh * fh
    tl = product_error(sh, fh, th) + (sl * fh + sh * fl)
    ph = th * sh
    pl = product_error(th, sh, ph) + (tl * sh + th * sl)
    q3h, q3l = _twice_over(th, tl, 3.0)
    q5h, q5l = _twice_over(ph, pl, 5.0)
    tail_coeffs = _ATANH_TAIL[size]
    tail = jnp.zeros_like(sh) + tail_coeffs[-1]
    for c in tail_coeffs[-2::-1]:
        tail = tail * sh + c
    tail = tail * (ph * sh)
    ln2_hi, ln2_lo = _LN2[size]
    s, e1 = two_sum(kf * ln2_hi, 2 * fh)
    s, e2 = two_sum(s, q3h)
    s, e3 = two_sum(s, q5h)
    lo = (e1 + e2 + e3) + kf * ln2_lo + 2 * fl + (q3l + q5l) + tail
    if xl is not None:
        lo = lo + xl / xh   # log(xh + xl) = log(xh) + log1p(xl / xh), to first order
    return _renormalize(s, lo)


def batched(f, *calls):
    """``[f(*args) for args in calls]`` for an elementwise ``f`` (returning an array or
    a tuple of arrays); eagerly in one call on the arguments laid end to end: ``f``'s
    operations dispatch once (~5 us each on a few elements), not per call, and each
    element's arithmetic is the same, so its bits are."""
    if any(isinstance(v, Tracer) for args in calls for v in args):
        return [f(*args) for args in calls]
    shape = jnp.broadcast_shapes(*(jnp.shape(v) for args in calls for v in args))
    size = int(np.prod(shape))
    joined = f(*(jnp.concatenate([jnp.broadcast_to(args[i], shape).ravel() for args in calls])
                 for i in range(len(calls[0]))))

    def part(out, j):
        return out[j * size:(j + 1) * size].reshape(shape)
    return [tuple(part(o, j) for o in joined) if isinstance(joined, tuple) else part(joined, j)
            for j in range(len(calls))]


def exp_pair(pair):
    """``exp(h + l) = exp(h) (1 + l)`` (``|l|`` within an ulp of ``|h|``)."""
    h, l = pair
    return jnp.exp(h) * (1 + l)


def ratio(num_pair, den):
    """``num / den`` as a pair, for a pair ``num`` and plain ``den``."""
    nh, nl = num_pair
    q, r = divide(nh, den)
    return q, r + nl / den


def log_beta_large(lo, hi, *more_logs):
    """``(L, g)`` with ``B(lo, hi) = g exp(L)``, ``L`` a pair, for ``0 < lo <= hi``,
    ``hi >= 10`` (``hi - 1/2`` exact: below ``exact_below``): Stirling's series for
    ``Gamma(hi) / Gamma(lo + hi)``, ``-(hi - 1/2) log((lo + hi) / hi) + d(hi) -
    d(lo + hi)``, and for ``lo >= 10`` for ``Gamma(lo)`` too (``g = 1``), its large
    terms beside the former's as ``-(lo - 1/2) log((lo + hi) / lo) - log(lo + hi) / 2 +
    log(2 pi) / 2 + d(lo)``; below 10 ``g = Gamma(lo)`` and ``-lo log(lo + hi) + lo``.
    ``lo + hi`` and ``x - 1/2`` kept as pairs; the logs of the pairs ``more_logs``
    (computed with these) follow."""
    size = _size(lo)
    small = lo < 10
    lo_big = jnp.where(small, 10.0, lo)
    total = two_sum(lo, hi)
    log_lo, log_hi, log_total, *more = batched(
        log_pair, ratio(total, lo_big), ratio(total, hi), total, *more_logs)
    d_lo, d_hi, d_total = batched(stirling_correction, (lo_big,), (hi,), (total[0],))
    # (eagerly, the lo < 10 and lo >= 10 parts only where some lane takes them)
    part = scale = None
    if any_lane(~small):
        half_log_2pi = tuple(jnp.full_like(lo, c) for c in _HALF_LOG_2PI[size])
        part = add_pairs(half_log_2pi, scale_pair(two_sum(0.5, -lo_big), log_lo),
                         scale_pair(-0.5, log_total), d_lo)
        scale = jnp.ones_like(lo)
    if any_lane(small):
        small_part = add_pairs(scale_pair(-lo, log_total), lo)
        part = small_part if part is None else \
            tuple(jnp.where(small, s, b) for s, b in zip(small_part, part))
        small_scale = gamma_accurate(jnp.where(small, lo, 1.0))
        scale = small_scale if scale is None else jnp.where(small, small_scale, scale)
    log_beta = add_pairs(part, scale_pair(two_sum(0.5, -hi), log_hi), d_hi - d_total)
    return (log_beta, scale, *more) if more_logs else (log_beta, scale)


def _in_float32_if_narrow(f):
    """``f`` computed in float32 for float16/bfloat16 arguments (the fma takes float32
    and float64 only), its result in the first argument's dtype and weak type (the
    branch it fills must not change the select's type)."""
    @functools.wraps(f)
    def wrapped(*args):
        like = args[0]
        if jnp.finfo(like.dtype).bits < 32:
            args = tuple(a.astype(jnp.float32) for a in args)
        return lax.convert_element_type(f(*args), like.dtype,
                                        weak_type=getattr(like, "weak_type", False))
    return wrapped


@_in_float32_if_narrow
def beta_large(lo, hi):
    """``B(lo, hi)`` for ``0 < lo <= hi``, ``hi >= 10``, from its log as a pair."""
    log_beta, scale = log_beta_large(lo, hi)
    return exp_pair(log_beta) * scale


@_in_float32_if_narrow
def comb_large(n, k):
    """``n choose k = 1 / ((n + 1) B(k + 1, n - k + 1))`` for ``0 <= k <= n``,
    ``n >= 18`` (below ``exact_below``: integer sums exact), from its log as a pair."""
    lo, hi = jnp.minimum(k, n - k) + 1, jnp.maximum(k, n - k) + 1
    log_beta, scale, log_n1 = log_beta_large(lo, hi, two_sum(n, 1.0))
    return exp_pair(add_pairs((-log_n1[0], -log_n1[1]), (-log_beta[0], -log_beta[1]))) / scale


@_in_float32_if_narrow
def poch_large(z, m, zm, e):
    """``Gamma(z + m) / Gamma(z)`` for ``z >= 10`` and ``z + m = zm + e >= 10`` (``zm``
    the sum rounded, ``e`` its error): Stirling's ratio ``((z + m) / z)**(z - 1/2)
    exp(-m + d(z + m) - d(z))`` with its log as a pair, times ``(z + m)**m`` by ``pow``
    (exact base and exponent, the base's error put back to first order)."""
    log_power = add_pairs(scale_pair(two_sum(z, -0.5), log_pair(*ratio((zm, e), z))), -m,
                          stirling_correction(zm) - stirling_correction(z))
    return exp_pair(log_power) * (jnp.power(zm, m) * (1 + m * (e / zm)))
