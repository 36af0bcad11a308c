"""Logs of the regularized incomplete gamma functions in their far tails, where P(a, x)
(x well below a) or Q(a, x) (x well above a) underflows though its log is finite.

Both are a prefactor ``x**a e**-x / Gamma(.)``, summed in logs, times a factor near
1/|x - a| that never under- or overflows: the power series of P (Numerical Recipes'
``gser``) and the continued fraction of Q (modified Lentz, NR's ``gcf``).
"""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.scipy import special

_MAX_TERMS = 2000  # the tails used have x/(a+n) or the fraction's ratio well below 1


def _eps(x):
    return jnp.finfo(x.dtype).eps


def log_lower_series(a, x, active):
    """``log P(a, x)`` for ``x < a`` (where ``active``; other elements get a cheap dummy).

    P = x**a e**-x / Gamma(a + 1) * sum_n x**n / ((a + 1) ... (a + n)).
    """
    a = jnp.where(active, a, 1.0)
    x = jnp.where(active, x, 0.5)
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
    return special.xlogy(a, x) - x - special.gammaln(a + 1) + jnp.log(total)


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
    return jnp.where(at_inf, -np.inf, special.xlogy(a, x) - x - special.gammaln(a) + jnp.log(h))
