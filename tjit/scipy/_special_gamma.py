"""Gamma(x) without ``exp(lgamma(x))``, and Stirling's correction series.

``exp`` turns an absolute error of ``lgamma`` into a relative error of the result:
``lgamma(170) = 701`` carries ~``701 eps / 2``, so ``exp(lgamma(x))`` was hundreds to
thousands of ulps off for large ``|x|``. Here (as Cephes' ``gamma`` and ``stirf``):

* ``x >= 10``: Stirling's formula with the power taken exactly,
  ``x**(x - 1/2) e**-x sqrt(2 pi) exp(d(x))``; ``x - 1/2`` is exact, so only ``pow``'s
  own rounding enters. Where ``x**(x - 1/2)`` would overflow though Gamma does not,
  ``v * (v e**-x)`` with ``v = x**(x/2 - 1/4)`` (exact exponent too).
* ``-1 < x < 10``: ``Gamma(t)`` on ``t`` in ``[1, 2)`` (where ``lgamma`` is at most
  0.13 in size, so ``exp`` keeps its accuracy), times the exact arguments
  ``(x - 1) (x - 2) ...`` (subtracting integers from ``x >= 1`` is exact), or divided by
  ``x`` (and ``x + 1``) below 1.
* ``x <= -1``: the reflection ``Gamma(x) = -pi / (x sin(pi x) Gamma(-x))``: ``-x`` is
  exact (``1 - x`` is not, and ``Gamma(1 - x)``'s slope would amplify its rounding), and
  ``sin(pi x)`` takes its argument reduced exactly.

Plain jnp operations: eager and jit evaluate the same formula.
"""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.primitives.fma import product_error
from tjit.scipy._special_common import any_lane

# B_2k / (2k (2k - 1)), k = 1..8: d(x) = sum_k c_k / x**(2k - 1), for x >= 10 within 1e-18
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156,
             -3617 / 122400)
STIRLING_FROM = 10.0  # where the 8 terms of d(x) reach float64's precision

_SQRT_2PI = float(np.sqrt(2 * np.pi))
# per dtype (float32, float64): x above which x**(x - 1/2) overflows (so the split form);
# x above which Gamma(x) overflows; u such that Gamma(x) underflows to 0 for x <= -u, even
# next to a pole (|Gamma(x)| <= 1 / (|x| sin(pi x) Gamma(-x)), sin(pi x) >= |x| eps)
_SPLIT_ABOVE = {4: 25.0, 8: 140.0}
_OVERFLOW_ABOVE = {4: 35.0401, 8: 171.6244}
_UNDERFLOW_BELOW = {4: 44.0, 8: 190.0}


def factors_limit(dtype):
    """The largest argument ``gamma_factors`` takes for float32/float64 ``dtype``."""
    return _UNDERFLOW_BELOW[jnp.finfo(dtype).bits // 8]


def stirling_correction(x, terms=len(_STIRLING)):
    """``d(x) = lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)``, for ``x >= 10``
    (4 terms: within 1e-12 there, enough for float32)."""
    inv = 1 / x
    inv2 = inv * inv
    acc = jnp.zeros_like(x) + _STIRLING[terms - 1]
    for c in _STIRLING[terms - 2::-1]:
        acc = acc * inv2 + c
    return acc * inv


def sinpi(x):
    """``sin(pi x)`` with ``x`` reduced exactly to ``r = x - n`` in ``[-1/2, 1/2]``: exact
    zeros at the integers, and no rounding of ``pi x`` for large ``x``."""
    n = jnp.round(x)
    odd = n - 2.0 * jnp.floor(0.5 * n)
    return (1.0 - 2.0 * odd) * jnp.sin(np.pi * (x - n))


def gamma_factors(x):
    """``(a, b)`` with ``Gamma(x) = a * b`` for ``-1 < x <= 190`` (float64) / ``44``
    (float32): finite where ``Gamma(x)`` is somewhat beyond the range (the reflection
    divides by them one at a time)."""
    size = jnp.finfo(x.dtype).bits // 8
    big = x >= STIRLING_FROM
    # (eagerly, a branch no lane takes is skipped: the selects would drop it)
    if not any_lane(~big):
        return _stirling_factors(x, big, size)
    small = _recurrence_factor(x, big)
    if not any_lane(big):
        return jnp.ones_like(small), small
    a, b_big = _stirling_factors(x, big, size)
    return a, jnp.where(big, b_big, small)


def _stirling_factors(x, big, size):
    """Stirling's branch (x >= 10; other lanes see 10): ``(a, b)``, a = 1 unless the
    power is split."""
    xs = jnp.where(big, x, STIRLING_FROM)
    split = xs > _SPLIT_ABOVE[size]
    v = jnp.power(xs, jnp.where(split, 0.5 * xs - 0.25, xs - 0.5))
    d = stirling_correction(xs, 4 if size == 4 else len(_STIRLING))
    b_big = v * jnp.exp(-xs) * (_SQRT_2PI * jnp.exp(d))
    return jnp.where(big & split, v, 1.0), b_big


def _recurrence_factor(x, big):
    """(-1, 10): Gamma(t), t = x - n in [1, 2), times (x - 1) ... (x - n) or over x
    (x + 1) (the big lanes see 1.5)."""
    xm = jnp.where(big, 1.5, x)
    n = jnp.floor(xm) - 1.0  # -2 .. 8
    small = jnp.exp(lax.lgamma(xm - n))
    for k in range(1, int(STIRLING_FROM) - 1):
        small = small * jnp.maximum(xm - k, 1.0)  # (x - k where n >= k, i.e. x - k >= 1)
    return small / (jnp.where(n < 0, xm, 1.0) * jnp.where(n < -1, xm + 1.0, 1.0))


def gamma_accurate(x):
    """Gamma(x) for an inexact array ``x`` (float32 or float64 arithmetic; narrower
    floats computed in float32): a few ulps, where ``exp(lgamma(x))`` lost up to
    ``|lgamma(x)| eps``. NaN at the poles 0 > x integer and at -inf and NaN; ``+-inf``
    at ``+-0``, inf above the range; ``+-0`` below it."""
    narrow = jnp.finfo(x.dtype).bits < 32
    xw = x.astype(jnp.float32) if narrow else x
    size = jnp.finfo(xw.dtype).bits // 8
    reflect = xw <= -1
    q = jnp.where(reflect, -xw, xw)
    q = jnp.minimum(q, _UNDERFLOW_BELOW[size])  # beyond: the limits set below
    a, b = gamma_factors(q)
    if any_lane(reflect):
        s = sinpi(xw)
        reflected = (-np.pi / (xw * s)) / a / b
        out = jnp.where(reflect, reflected, a * b)
        out = jnp.where(xw > _OVERFLOW_ABOVE[size], np.inf, out)
        out = jnp.where(reflect & (-xw >= _UNDERFLOW_BELOW[size]), 0.0 * jnp.sign(s), out)
        pole = reflect & ((s == 0) | jnp.isinf(xw))  # the negative integers and -inf
        out = jnp.where(pole | jnp.isnan(xw), np.nan, out)
    else:   # (eagerly, no lane reflected: the reflection's selects would keep a * b)
        out = jnp.where(xw > _OVERFLOW_ABOVE[size], np.inf, a * b)
        out = jnp.where(jnp.isnan(xw), np.nan, out)
    # (astype: a strong result for a weak x, as JAX's gammasgn(x) * exp(gammaln(x)))
    return out.astype(x.dtype)


# log(2 pi) as a pair per float width: the leading part in that dtype and the rest
_LOG_2PI = {4: (1.8378770351409912, 3.126835427262316e-08),
            8: (1.8378770664093456, -7.756588316134483e-17)}


def two_pi_pow(x):
    """``(2 pi)**x`` for a float32/float64 ``x``: ``exp(p) (1 + t)`` where ``p + t =
    x log(2 pi)`` to about eps**2 (the exact error of ``x`` times the constant's leading
    part, by one fma, plus ``x`` times its rest). ``pow`` of the rounded constant was
    off by ``|x|`` times its rounding (~20 float32 ulps at x = -40)."""
    hi, lo = _LOG_2PI[jnp.finfo(x.dtype).bits // 8]
    c = jnp.asarray(hi, x.dtype)
    p = x * c
    err = product_error(x, c, p)
    return jnp.exp(p) * (1 + (err + x * lo))
