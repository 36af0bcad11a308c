"""Logs of the regularized incomplete gamma functions P(a, x) and Q(a, x), finite in
the far tails where P (x well below a) or Q (x well above a) underflows.

There both are a prefactor ``x**a e**-x / Gamma(.)``, summed in logs, times a factor near
1/|x - a| that never under- or overflows: the power series of P (Numerical Recipes'
``gser``) and the continued fraction of Q (modified Lentz, NR's ``gcf``).
"""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy._special_gamma import stirling_correction

_MAX_TERMS = 2000  # the tails used have x/(a+n) or the fraction's ratio well below 1


def _eps(x):
    return jnp.finfo(x.dtype).eps


def _log_prefactor(a, x):
    """``a log(x) - x - lgamma(a)``. For a >= 10 its terms (~a log a) cancel to a result
    ~|x - a|, so it is formed as ``a (log(x/a) + 1 - x/a)`` (x/a - 1 taken exactly as
    (x - a)/a) plus Stirling's ``log(a/(2 pi))/2 - stirlerr(a)``: the rounding error
    drops from ~eps a log(x) to ~eps max(a, |x - a|) (float32 logsf(316, a=100) was 4.7
    ulp off, now 1)."""
    direct = special.xlogy(a, x) - x - special.gammaln(a)
    big = a >= 10
    a_big = jnp.where(big, a, 10.0)
    t = (x - a_big) / a_big
    near = jnp.abs(t) < 0.5
    ratio = x / a_big  # rounded once: log(ratio) is off by ~eps, unless it is subnormal
    log_ratio = jnp.where(near, jnp.log1p(jnp.where(near, t, 0.0)),
                          jnp.where(ratio >= jnp.finfo(ratio.dtype).tiny, jnp.log(ratio),
                                    jnp.log(x) - jnp.log(a_big)))
    # lgamma(a) - ((a - 1/2) log a - a + log(2 pi)/2) by 8 terms of Stirling's series,
    # 1e-18 from a = 10 (4 terms left 8e-13: 7 ulps of logsf(800, a=10))
    stirlerr = stirling_correction(a_big)
    stirling = a_big * (log_ratio - t) + 0.5 * jnp.log(a_big / (2 * np.pi)) - stirlerr
    return jnp.where(big, stirling, direct)


def log_lower_series(a, x, active):
    """``log P(a, x)`` for ``x < a`` (where ``active``; other elements get a cheap dummy).

    P = x**a e**-x / Gamma(a + 1) * sum_n x**n / ((a + 1) ... (a + n)).
    """
    a_inf = active & jnp.isposinf(a) & jnp.isfinite(x)  # P(inf, x) = 0: log -inf (the
    active = active & ~a_inf                             # prefactor's (x - a)/a is NaN)
    a = jnp.where(active, a, 1.0)
    x = jnp.where(active, x, 0.0)  # the dummy converges at once (every term 0)
    eps = _eps(x)

    def unconverged(carry):
        n, term, total = carry
        return (n < _MAX_TERMS) & jnp.any(term > eps * total)

    def step(carry):
        n, term, total = carry
        term = term * x / (a + n)
        return n + 1, term, total + term

    one = jnp.ones_like(x)
    _, _, total = lax.while_loop(unconverged, step, (1.0, one, one))
    return jnp.where(a_inf, -jnp.inf, _log_prefactor(a, x) - jnp.log(a) + jnp.log(total))


def log_upper_fraction(a, x, active):
    """``log Q(a, x)`` for ``x > a`` (where ``active``; other elements get a cheap dummy).

    Q = x**a e**-x / Gamma(a) * 1/(x+1-a - 1(1-a)/(x+3-a - 2(2-a)/(x+5-a - ...))).
    """
    at_inf = jnp.isinf(x)  # Q(a, inf) = 0: log -inf, not the fraction's inf/inf
    active = active & ~at_inf
    a = jnp.where(active, a, 1.0)
    x = jnp.where(active, x, 4.0)
    eps = _eps(x)
    tiny = jnp.finfo(x.dtype).tiny / eps  # keeps the Lentz ratios off zero

    def nonzero(v):
        return jnp.where(jnp.abs(v) < tiny, tiny, v)

    def unconverged(carry):
        i, _, _, _, _, delta = carry
        return (i < _MAX_TERMS) & jnp.any(jnp.abs(delta - 1) > eps)

    def step(carry):
        i, b, c, d, h, _ = carry
        an = -i * (i - a)
        b = b + 2
        d = 1 / nonzero(an * d + b)
        c = nonzero(b + an / c)
        delta = d * c
        return i + 1, b, c, d, h * delta, delta

    b = x + 1 - a
    d = 1 / nonzero(b)
    c = jnp.full_like(x, 1 / tiny)
    init = (1.0, b, c, d, d, jnp.full_like(x, np.inf))
    h = lax.while_loop(unconverged, step, init)[4]
    return jnp.where(at_inf, -np.inf, _log_prefactor(a, x) + jnp.log(h))


def log_gammainc(a, x):
    """``log P(a, x)`` (x >= 0): the series in logs where P underflows, ``log P`` below
    1/2, ``log1p(-Q)`` above."""
    p = special.gammainc(a, x)
    underflows = (p < jnp.finfo(p.dtype).tiny) & (x < a)
    return _pick_log(underflows, log_lower_series(a, x, underflows),
                     p, lambda: special.gammaincc(a, x))


def log_gammaincc(a, x):
    """``log Q(a, x)`` (x >= 0): the continued fraction in logs where Q underflows,
    ``log Q`` below 1/2, ``log1p(-P)`` above."""
    q = special.gammaincc(a, x)
    underflows = (q < jnp.finfo(q.dtype).tiny) & (x > a)
    return _pick_log(underflows, log_upper_fraction(a, x, underflows),
                     q, lambda: special.gammainc(a, x))


def _pick_log(underflows, log_tail, p, complement):
    """``log_tail`` where ``p`` underflows, ``log(p)`` below 1/2, else
    ``log1p(-complement)``. Each unused branch sees a harmless 1/4, as log's slope at 0
    (or log1p's at -1) would turn the gradient to NaN."""
    small = p < 0.5
    log_p = jnp.log(jnp.where(small & ~underflows, p, 0.25))
    log1m = jnp.log1p(-jnp.where(small, 0.25, complement()))
    return jnp.where(underflows, log_tail, jnp.where(small, log_p, log1m))
