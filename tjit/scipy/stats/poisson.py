"""The Poisson distribution (``jax.scipy.stats.poisson``)."""

import numpy as np

from tjit import numpy as jnp
from tjit.scipy import special
from tjit.scipy.stats._saddle import poisson_logpmf as _poisson_logpmf
from tjit.scipy.stats._util import (
    integral_shift as _integral_shift,
    nan_outside_parameter_domain as _nan_outside_parameter_domain,
    promote as _promote,
)


def logpmf(k, mu, loc=0):
    """``k log mu - mu - log k!`` for integer k >= 0 (shifted by ``loc``), -inf else;
    from k = 1 on in Loader's saddle-point form (``_saddle``), whose terms do not cancel."""
    k, mu, loc = _promote("poisson.logpmf", k, mu, loc)
    y = k - loc
    finite = y < np.inf   # (the saddle-point form's inf - inf at k = inf; the pmf is 0 there)
    inner = (y >= 1) & finite
    log_probs = jnp.where(inner, _poisson_logpmf(jnp.where(inner, y, 1), mu),
                          jnp.where(finite, -mu, -np.inf))
    return jnp.where((y >= 0) & _integral_shift(k, loc), log_probs,
                     jnp.where(jnp.isnan(y), np.nan, -np.inf))  # (NaN k or loc)


def pmf(k, mu, loc=0):
    """Probability mass function."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    """``Q(floor(k) + 1, mu)`` (the upper regularized gamma), 0 below ``loc``."""
    k, mu, loc = _promote("poisson.cdf", k, mu, loc)
    y = jnp.floor(k - loc)
    return jnp.where(y < 0, 0.0, special.gammaincc(jnp.maximum(y, 0) + 1, mu))

def entropy(mu, loc=0):
    """Shannon entropy ``-sum_k pmf(k) log pmf(k)`` (``loc`` shifts, so does not change
    it): the sum over k < 250 for mu < 100 (the mass beyond is below 1e-30), and the
    asymptotic series ``log(2 pi e mu) / 2 - 1/(12 mu) - 1/(24 mu^2) - 19/(360 mu^3)``
    (relative error under 4e-10) above. 0 at mu = 0, NaN for mu < 0."""
    mu, loc = _promote("poisson.entropy", mu, loc)
    small = mu < 100
    m = jnp.where(small, mu, 1.0)[..., None]  # the sum's mu, kept finite where unused
    k = jnp.arange(250, dtype=mu.dtype)
    log_p = special.xlogy(k, m) - special.gammaln(k + 1) - m
    by_sum = -jnp.sum(jnp.exp(log_p) * log_p, axis=-1)
    big = jnp.where(small, 100.0, mu)
    by_series = (0.5 * jnp.log(2 * np.pi * np.e * big) - 1 / (12 * big)
                 - 1 / (24 * big ** 2) - 19 / (360 * big ** 3))
    out = jnp.where(small, by_sum, by_series)
    return jnp.where(mu > 0, out, jnp.where(mu == 0, 0.0, np.nan))


# SciPy's parameter domain; NaN outside it.
_nan_outside_parameter_domain(globals(), lambda mu, **_: mu >= 0)

from tjit._namespace import publish as _publish
_publish(globals(), submodules=())  # tab completion lists the public API only
