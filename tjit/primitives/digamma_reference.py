"""digamma on NumPy arrays by the compiled kernels' algorithm (``lower/llvm/
mathlib_special``, tables in ``xla_like/gamma_tables``): the reference implementation of
the ``digamma`` primitive, so that eager values and jit agree (as JAX's do), within the
last-bit differences of fused multiply-adds and of the log.

SciPy's digamma, used before, loses the relative accuracy next to the negative poles:
up to 8.6e8 float64 ulps at -3 + 1e-9 and 15 ulps of the larger reflection term at
-19.989 (measured against mpmath). This is within 3.7 float64 ulps for x > 0 (2.2 away from the zero at 1.4616)
and 5.1 ulps of the larger reflection term below (against mpmath, ~2000 points); float32
(computed in float64, rounded once) within 0.5 and the kernels' bits. Small arrays pay
NumPy's per-call cost per op: ~14-70 us for 8 elements (SciPy's 1 us).

Algorithm: y >= 10: the asymptotic series; 0 < y < 10: shifted to z in [1, 2) by
``psi(y) = psi(z) + sum 1/(y - i)`` (terms of one sign), ``psi(z) = (z - x0) R(z - 3/2)``
with x0 the positive zero as hi + lo. x < 0: ``psi(1 - x) - pi cot(pi x)``, ``cot(pi r) =
sin(pi (1/2 - |r|)) / sin(pi |r|)`` with r = x - round(x) exact. Negative integers and
-inf give NaN, +-0 give -+inf (SciPy's values)."""

import numpy as np

from tjit.xla_like.gamma_tables import DIGAMMA_A, DIGAMMA_R, DIGAMMA_X0, PI, SINPI_S


def _horner(t, coeffs):
    acc = t * coeffs[-1]    # (= a fill of coeffs[-1] times t: the product commutes)
    acc += coeffs[-2]
    for c in reversed(coeffs[:-2]):
        acc *= t
        acc += c
    return acc


def _any(mask):
    return bool(np.logical_or.reduce(mask, axis=None))


def _chains(coeffs):
    """The four Horner chains of :func:`_poly4` (coefficients k = j mod 4), coefficient
    by coefficient as (4, 1) columns, built once per table."""
    key = id(coeffs)
    cols = _CHAINS.get(key)
    if cols is None:
        chains = np.array([coeffs[j::4] for j in range(4)])
        cols = _CHAINS[key] = (coeffs, [chains[:, k].reshape(4, 1)
                                        for k in range(chains.shape[1])])
    return cols[1]


_CHAINS = {}   # id(table) -> (table, its columns): the tables are module constants


def _poly4(t, coeffs):
    """sum coeffs[k] t^k as the kernels' ``_poly`` evaluates it: four Horner chains in
    t^4 (coefficients k = j mod 4), side by side in one 2-D array, joined by Horner in t."""
    cols = _chains(coeffs)
    flat = t.reshape(-1)
    t4 = flat * flat
    t4 *= t4
    acc = np.empty((4, flat.size))
    acc[...] = cols[-1]
    for col in reversed(cols[:-1]):
        acc *= t4
        acc += col
    out = acc[3]
    for j in (2, 1, 0):
        out = out * flat + acc[j]
    return out.reshape(t.shape)


def _recip_pair(a, b, use_a, use_b):
    """1/a + 1/b, 1/a or 0 as the flags say (use_b implies use_a): one division."""
    num = np.where(use_b, a + b, 1.0)
    den = np.where(use_b, a * b, a)
    return np.where(use_a, num / den, 0.0)


def _near(y):
    """digamma(y) for 0 < y < 10: shifted to z in [1, 2)."""
    m = np.asarray(np.floor(y) - 1.0)           # (0-d: floor returns a scalar, not `out`-able)
    np.maximum(m, -1.0, out=m)                  # (clip's values, NaN kept, at ufunc cost)
    np.minimum(m, 8.0, out=m)
    z = y - m                                   # in [1, 2): exact for y >= 1
    x0_hi, x0_lo = DIGAMMA_X0
    near = ((z - x0_hi) - x0_lo) * _poly4(z - 1.5, DIGAMMA_R)
    corr = np.where(m < 0, -1.0 / y, 0.0)
    # the largest shift of a lane that has one (fmax skips NaN lanes): terms of y below
    # i are all 0 when no lane reaches i
    top = np.fmax.reduce(m, axis=None) if m.size else -1.0
    shifts = [i for i in (1.0, 3.0, 5.0, 7.0) if i == 1 or top >= i]
    if len(shifts) == 1:
        corr += _recip_pair(y - 1.0, y - 2.0, m >= 1.0, m >= 2.0)
    else:   # the pairs of all shifts at once (a NumPy call per step, not per shift)
        at = np.array(shifts).reshape((-1,) + (1,) * y.ndim)
        for term in _recip_pair(y - at, y - (at + 1.0), m >= at, m >= at + 1.0):
            corr += term                        # (added in the shifts' order)
    return near + corr


def _far(y):
    """digamma(y) for y >= 10 (y = inf: inf): the asymptotic series."""
    inv = 1.0 / y
    u = inv * inv
    return (np.log(y) - 0.5 * inv) - u * _horner(u, DIGAMMA_A)


def _digamma_positive(y):
    """digamma(y) for y > 0; other lanes get a harmless value. Each region is computed
    only where some lane needs it (small arrays pay NumPy's per-call cost per op)."""
    if not y.size or not np.fmin.reduce(y, axis=None) < 10.0:
        return _far(y)      # every lane 10 or more, or NaN (fmin skips NaN lanes)
    if np.maximum.reduce(y, axis=None) < 10.0:
        return _near(y)     # every lane below 10 (a NaN would spread to the maximum)
    return np.where((y >= 10.0) | np.isnan(y), _far(y), _near(y))


def _cot_pi(r):
    """cot(pi r) for r = x - round(x) in [-1/2, 1/2]: sin(pi (1/2 - |r|)) / sin(pi |r|),
    sin(pi |r|) scaled by 2^600 where it would lose bits as a denormal."""
    ar = np.abs(r)
    tiny = ar < 2.0 ** -500
    some_tiny = _any(tiny)   # (else the scalings are exact no-ops, skipped)
    half = 0.5 - ar
    # both sines' series in one Horner pass (rows, flat: a 0-d row would be a scalar)
    flat_ar, flat_half = ar.reshape(-1), half.reshape(-1)
    squares = np.empty((2, flat_ar.size))
    np.multiply(flat_ar, flat_ar, out=squares[0])
    np.multiply(flat_half, flat_half, out=squares[1])
    series = _horner(squares, SINPI_S)
    sin = (np.where(tiny, ar * 2.0 ** 600, ar) if some_tiny else ar) * \
        series[0].reshape(ar.shape)
    cot = half * series[1].reshape(ar.shape) / sin
    if some_tiny:
        cot = cot * np.where(tiny, 2.0 ** 600, 1.0)
    return np.copysign(cot, r)


def digamma(x):
    """digamma of a float32/float64 NumPy array (float32 computed in float64)."""
    with np.errstate(all="ignore"):
        x64 = np.asarray(x, np.float64)
        neg = x64 < 0
        if not _any(neg):
            res = _digamma_positive(x64)
        else:
            pos = _digamma_positive(np.where(neg, 1.0 - x64, x64))
            r = x64 - np.floor(x64 + 0.5)
            r = np.where(np.abs(x64) >= 2.0 ** 52, 0.0, r)   # (beyond, x is an integer)
            res = np.where(neg, pos - _cot_pi(r) * PI, pos)
            res = np.where(neg & (r == 0), np.nan, res)     # negative integers and -inf
        zero = x64 == 0
        if _any(zero):
            res = np.where(zero, np.copysign(np.inf, -x64), res)
        res = np.where(np.isnan(x64), x64, res)
    return res.astype(np.asarray(x).dtype)
