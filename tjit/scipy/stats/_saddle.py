"""Loader's saddle-point form of the Poisson and binomial log pmfs ("Fast and accurate
computation of binomial probabilities", C. Loader, 2000), as R's and SciPy's dpois/dbinom:
``log k!`` and ``k log mu - mu`` are each ~k in size and cancel to the ~log(k)-sized log
pmf (float32 poisson.logpmf(1e6, 1e6) gave -7, true -7.8267); written with Stirling's
error term and the deviance ``bd0``, nothing of size k is subtracted."""

import numpy as np

from tjit import numpy as jnp

#: stirlerr(n) = log n! - (n + 1/2) log n + n - log(2 pi)/2 for n = 1..15 (mpmath, 40 digits)
_STIRLERR = [0.08106146679532726, 0.0413406959554093, 0.02767792568499834,
             0.020790672103765093, 0.016644691189821193, 0.013876128823070748,
             0.01189670994589177, 0.010411265261972096, 0.009255462182712733,
             0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
             0.006408994188004207, 0.0059513701127588475, 0.005554733551962801]


def stirlerr(n):
    """Stirling's error term at integers n >= 1: the table to 15, beyond its series
    1/(12n) - 1/(360n^3) + ... - 691/(360360 n^11) (absolute error < 4e-18 at 16)."""
    table = jnp.asarray(_STIRLERR, n.dtype)[jnp.clip(n, 1, 15).astype(np.int32) - 1]
    big = jnp.maximum(n, 16.0)
    inv = 1 / big
    inv2 = inv * inv
    series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (
        1 / 1680 - inv2 * (1 / 1188 - inv2 * (691 / 360360))))))
    return jnp.where(n <= 15, table, series)


def bd0(k, m):
    """The deviance ``k log(k/m) + m - k`` (>= 0) for k > 0, m >= 0: for k/m in (1/3, 3)
    ``(k - m) v + 2 k sum_j v^(2j+1)/(2j+1)``, v = (k - m)/(k + m), 28 terms (|v| < 1/2:
    the next is < 1e-18 of the sum), where the direct form's terms cancel up to ~5-fold
    (float32 at k = 3e4, m = 42170: 9 ulps) and to nothing at k = m; the direct form
    beyond (at most ~2.5-fold)."""
    m = jnp.where(m == 0, 0.0, m)   # +0: k log(k / -0) is NaN (poisson.logpmf(9, -0) was NaN)
    s = k + m
    near = jnp.abs(k - m) < 0.5 * s
    v = jnp.where(near, (k - m) / jnp.where(near, s, 1), 0)
    v2 = v * v
    tail = jnp.zeros_like(v)
    for j in range(28, 0, -1):
        tail = v2 * (1 / (2 * j + 1) + tail)
    series = (k - m) * v + 2 * k * v * tail
    direct = k * jnp.log(k / m) + m - k
    return jnp.where(near, series, direct)


def poisson_logpmf(k, mu):
    """log(mu^k e^-mu / k!) for integers k >= 1, mu >= 0 (-inf at mu = 0)."""
    return -stirlerr(k) - bd0(k, mu) - 0.5 * jnp.log(2 * np.pi * k)


def binom_logpmf(k, n, p):
    """log(C(n, k) p^k (1 - p)^(n - k)) for integers 1 <= k <= n - 1."""
    q = 1 - p   # (exact for p >= 1/2; for small p it is 1 - p rounded, as in log1p(-p))
    return (stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(k, n * p) - bd0(n - k, n * q)
            + 0.5 * jnp.log(n / (2 * np.pi * k * (n - k))))
