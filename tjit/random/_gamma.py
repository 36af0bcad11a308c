"""Gamma-family samplers of ``tjit.random``: gamma, loggamma, beta, dirichlet.

Marsaglia & Tsang's rejection method ("A simple method for generating gamma
variables", 2000), as in JAX, but vectorized: every round draws a normal and a uniform
for all elements and keeps the first accepted proposal of each, inside one
``lax.while_loop`` that runs until all are accepted (acceptance is >= 95% per round,
so a few rounds suffice). JAX instead loops per element under vmap, so the values
differ from JAX's for the same key; the distribution is the same. Shape parameters
below 1 use the boost ``Gamma(a) = Gamma(a + 1) * U**(1/a)``, computed in log space.
Gradients in the shape parameters are JAX's implicit reparameterization
(``lax.random_gamma_grad``), which beta, dirichlet and the samplers built on gamma inherit.
"""

import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.random._keys import check_key, check_shape, split_key
from tjit.random._samplers import (
    as_param,
    check_param_shapes,
    check_safe_cast,
    float_dtype,
    normal_,
    split2,
    take0,
    uniform_,
)
from tjit.tracing import dtypes
from tjit.tracing.shapes import broadcast_shapes
from tjit.transforms.custom_derivatives import custom_jvp


@custom_jvp
def _log_gamma(key, alpha):
    """log of Gamma(alpha, 1) samples of ``alpha``'s (full) shape and dtype.
    Differentiable in ``alpha`` (see :func:`_log_gamma_jvp`)."""
    # alpha <= 0, inf or NaN never passes the rejection test: sample at alpha = 1 there
    # (so the loop ends) and give the limits: log(0) at 0, inf at inf, NaN otherwise
    valid = lax.bitwise_and(lax.gt(alpha, 0.0), lax.lt(alpha, np.inf))
    log_x = _log_gamma_valid(key, lax.select(valid, alpha, lax.full_like(alpha, 1.0)))
    limit = lax.select(lax.eq(alpha, 0.0), lax.full_like(alpha, -np.inf),
                       lax.select(lax.eq(alpha, np.inf), alpha, lax.full_like(alpha, np.nan)))
    return lax.select(valid, log_x, limit)


def _log_gamma_valid(key, alpha):
    """:func:`_log_gamma` for finite ``alpha > 0``."""
    shape, dtype = tuple(alpha.shape), alpha.dtype
    key, boost_key = split2(key)
    boost_mask = lax.ge(alpha, 1.0)
    a = lax.select(boost_mask, alpha, lax.add(alpha, 1.0))
    d = lax.sub(a, np.array(1.0 / 3.0, dtype))
    c = lax.div(np.array(1.0 / 3.0, dtype), lax.sqrt(d))
    all_axes = tuple(range(len(shape)))

    def cond(state):
        _, done, _ = state
        return lax.reduce_or(lax.bitwise_not(done), all_axes)

    def body(state):
        key, done, log_v = state
        keys = split_key(key, (3,))
        key, kx, ku = take0(keys), _row(keys, 1), _row(keys, 2)
        x = normal_(kx, shape, dtype)
        u = uniform_(ku, shape, dtype)
        v = lax.add(1.0, lax.mul(x, c))
        v3 = lax.mul(lax.mul(v, v), v)
        positive = lax.gt(v, 0.0)
        log_v3 = lax.log(lax.select(positive, v3, lax.full_like(v3, 1.0)))
        # accept iff log(u) < x^2/2 + d - d*v^3 + d*log(v^3)
        bound = lax.add(lax.mul(lax.mul(x, x), 0.5),
                        lax.mul(d, lax.add(lax.sub(1.0, v3), log_v3)))
        accept = lax.bitwise_and(positive, lax.lt(lax.log(u), bound))
        fresh = lax.bitwise_and(accept, lax.bitwise_not(done))
        return key, lax.bitwise_or(done, accept), lax.select(fresh, log_v3, log_v)

    init = (key, lax.full(shape, False, np.bool_), lax.full(shape, 0.0, dtype))
    _, _, log_v = lax.while_loop(cond, body, init)
    # log(1 - u) lies in (-inf, 0]; a zero keeps the unboosted sample, as in JAX
    log_u = lax.log1p(lax.neg(uniform_(boost_key, shape, dtype)))
    boost = lax.select(boost_mask, lax.full_like(log_u, 0.0), lax.div(log_u, alpha))
    return lax.add(lax.add(lax.log(d), log_v), boost)


@_log_gamma.defjvp
def _log_gamma_jvp(primals, tangents):
    """Implicit reparameterization (as JAX's gamma): the sample moves with ``alpha`` so
    that its CDF value stays fixed, d x / d alpha = random_gamma_grad(alpha, x).
    Differentiating the rejection sampler's accepted proposal instead gives a biased
    gradient (its acceptance depends on alpha)."""
    key, alpha = primals
    log_x = _log_gamma(key, alpha)
    return log_x, lax.mul(tangents[1], _dlog_sample_dalpha(alpha, log_x))


def _dlog_sample_dalpha(alpha, log_x):
    """d log(x) / d alpha for Gamma(alpha, 1) samples given in logs. Where x underflows
    (tiny alpha), P(alpha, x) ~ x**alpha / Gamma(alpha + 1) gives
    -(log x - digamma(alpha + 1)) / alpha."""
    x = lax.exp(log_x)
    normal = lax.ge(x, float(dtypes.finfo(x.dtype).tiny))
    safe_x = lax.select(normal, x, lax.full_like(x, 1.0))
    exact = lax.div(lax.random_gamma_grad(alpha, safe_x), safe_x)
    small = lax.div(lax.sub(lax.digamma(lax.add(alpha, 1.0)), log_x), alpha)
    return lax.select(normal, exact, small)


def _row(x, i):
    return lax.reshape(lax.slice_in_dim(x, i, i + 1, axis=0), tuple(x.shape[1:]))


def _alpha(name, a, shape, dtype):
    a = as_param(a, dtype, name, "a")
    if shape is None:
        shape = tuple(a.shape)
    else:
        shape = check_shape(name, shape)
        check_param_shapes(name, shape, a.shape)
    return jnp.broadcast_to(a, shape), shape


def loggamma(key, a, shape=None, dtype=None):
    """log of Gamma(a, 1) random values, accurate for small ``a`` (where gamma
    samples underflow to 0).

    Args:
      key: a PRNG key.
      a: shape parameter(s), positive, broadcast-compatible with ``shape``.
      shape: result shape (default ``a.shape``).
      dtype: a float dtype (default float32).
    """
    key = check_key("loggamma", key)
    dtype = float_dtype("loggamma", dtype)
    a, shape = _alpha("loggamma", a, shape, dtype)
    return _log_gamma(key, a)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) random values (density ``x**(a-1) e**-x / Gamma(a)``).

    Args:
      key: a PRNG key.
      a: shape parameter(s), positive, broadcast-compatible with ``shape``.
      shape: result shape (default ``a.shape``).
      dtype: a float dtype (default float32).
    """
    key = check_key("gamma", key)
    dtype = float_dtype("gamma", dtype)
    a, shape = _alpha("gamma", a, shape, dtype)
    return lax.exp(_log_gamma(key, a))


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) random values, as ``Ga / (Ga + Gb)`` of two gamma samples (in log
    space, so small parameters do not give 0/0).

    Args:
      key: a PRNG key.
      a, b: positive parameters broadcast-compatible with ``shape``.
      shape: result shape (default: broadcast of ``a`` and ``b``).
      dtype: a float dtype (default float32).
    """
    key = check_key("beta", key)
    dtype = float_dtype("beta", dtype)
    check_safe_cast("beta", dtype, a, b)
    a, b = as_param(a, dtype, "beta", "a"), as_param(b, dtype, "beta", "b")
    if shape is None:
        shape = broadcast_shapes(tuple(a.shape), tuple(b.shape), op="beta")
    else:
        shape = check_shape("beta", shape)
        check_param_shapes("beta", shape, a.shape, b.shape)
    key_a, key_b = split2(key)
    la = _log_gamma(key_a, jnp.broadcast_to(a, shape))
    lb = _log_gamma(key_b, jnp.broadcast_to(b, shape))
    log_max = lax.max(la, lb)
    ga, gb = lax.exp(lax.sub(la, log_max)), lax.exp(lax.sub(lb, log_max))
    return lax.div(ga, lax.add(ga, gb))


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) random vectors (last axis sums to 1).

    Args:
      key: a PRNG key.
      alpha: concentration parameters, shape ``(..., k)``.
      shape: batch shape (default ``alpha.shape[:-1]``).
      dtype: a float dtype (default float32).

    Returns:
      An array of shape ``shape + alpha.shape[-1:]``.
    """
    key = check_key("dirichlet", key)
    dtype = float_dtype("dirichlet", dtype)
    alpha = as_param(alpha, dtype, "dirichlet", "alpha")
    if alpha.ndim < 1:
        raise ValueError(f"dirichlet: alpha must have at least one dimension, got shape "
                         f"{tuple(alpha.shape)}")
    if shape is None:
        shape = tuple(alpha.shape[:-1])
    else:
        shape = check_shape("dirichlet", shape)
        check_param_shapes("dirichlet", shape, alpha.shape[:-1])
    full = tuple(shape) + tuple(alpha.shape[-1:])
    lg = _log_gamma(key, jnp.broadcast_to(alpha, full))
    # normalize in log space (a softmax over the last axis)
    m = lax.reduce_max(lg, (len(full) - 1,))
    e = lax.exp(jnp.subtract(lg, lax.expand_dims(m, (len(full) - 1,))))
    total = lax.reduce_sum(e, (len(full) - 1,))
    return jnp.divide(e, lax.expand_dims(total, (len(full) - 1,)))


__all__ = ["beta", "dirichlet", "gamma", "loggamma"]
