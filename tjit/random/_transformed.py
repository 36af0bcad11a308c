"""Distributions of ``tjit.random`` that transform other samplers, as ``jax.random`` does.

Each follows JAX's algorithm and key use step for step, so those built only on
``uniform``, ``normal``, ``exponential`` and ``rademacher`` (pareto, maxwell,
double_sided_maxwell, weibull_min, lognormal, triangular, wald, rayleigh, geometric)
give JAX's values up to the ulps of those samplers and of log/exp/sqrt/pow; those built
on ``gamma``/``loggamma`` (t, chisquare, f, generalized_normal, ball) have JAX's
distribution but not its values (tjit's gamma sampler is vectorized, see ``_gamma``).
"""


import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.numpy._core import check_arraylike
from tjit.random._discrete import rademacher
from tjit.random._gamma import gamma, loggamma
from tjit.random._keys import check_key, check_shape
from tjit.random._samplers import (
    as_param,
    check_param_shapes,
    check_real,
    check_safe_cast,
    exponential,
    float_dtype,
    param_array,
    normal_,
    split2,
    uniform_,
)
from tjit.tracing import dtypes
from tjit.tracing.errors import static_index
from tjit.tracing.shapes import broadcast_shapes


def _params(name, shape, dtype, *params):
    """Parameters as ``dtype`` arrays and the result shape (default: their broadcast)."""
    params = [as_param(p, dtype, name) for p in params]
    if shape is None:
        shape = broadcast_shapes(*[tuple(p.shape) for p in params], op=name)
    else:
        shape = check_shape(name, shape)
        check_param_shapes(name, shape, *[p.shape for p in params])
    return params, tuple(shape)


def _start(name, key, dtype, allow_complex=False):
    return check_key(name, key), float_dtype(name, dtype, allow_complex)


def _uncast(name, *params):
    """Parameters that enter the samples' arithmetic as they are, as in JAX
    (``double_sided_maxwell``, ``weibull_min``, ``generalized_normal``, ``ball``): they
    promote with the samples by jnp's rules (a complex one gives complex values, a
    float64 one float64 under x64; under strict promotion other dtypes are errors)
    instead of being converted to ``dtype``."""
    check_arraylike(name, *params)
    return [p if isinstance(p, (int, float, complex)) else param_array(p, name)
            for p in params]


def pareto(key, b, shape=None, dtype=None):
    """Pareto(b) random values on ``[1, inf)``: ``exp(e / b)`` for ``e`` ~ Exponential(1).

    Args:
      key: a PRNG key.
      b: shape parameter(s) > 0, broadcast-compatible with ``shape``.
      shape: result shape (default ``b.shape``).
      dtype: a float dtype (default float32, float64 with x64).
    """
    key, dtype = _start("pareto", key, dtype)
    check_safe_cast("pareto", dtype, b)
    (b,), shape = _params("pareto", shape, dtype, b)
    return jnp.exp(jnp.divide(exponential(key, shape, dtype), b))


def t(key, df, shape=None, dtype=None):
    """Student's t random values with ``df`` degrees of freedom:
    ``n * sqrt(df/2 / g)`` for ``n`` normal and ``g`` ~ Gamma(df/2).

    Args:
      key: a PRNG key.
      df: degrees of freedom > 0, broadcast-compatible with ``shape``.
      shape: result shape (default ``df.shape``).
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("t", key, dtype)
    check_safe_cast("t", dtype, df)
    (df,), shape = _params("t", shape, dtype, df)
    key_n, key_g = split2(key)
    n = normal_(key_n, shape, dtype)
    half_df = jnp.divide(df, np.array(2, dtype))
    g = gamma(key_g, half_df, shape, dtype)
    return jnp.multiply(n, jnp.sqrt(jnp.divide(half_df, g)))


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square random values with ``df`` degrees of freedom: ``2 * Gamma(df/2)``
    (sampled in log space, so small ``df`` does not underflow early).

    Args:
      key: a PRNG key.
      df: degrees of freedom > 0, broadcast-compatible with ``shape``.
      shape: result shape (default ``df.shape``).
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("chisquare", key, dtype)
    check_safe_cast("chisquare", dtype, df)
    (df,), shape = _params("chisquare", shape, dtype, df)
    return _chisquare(key, df, shape, dtype)


def _chisquare(key, df, shape, dtype):
    two = np.array(2, dtype)
    log_g = loggamma(key, jnp.divide(df, two), shape, dtype)
    return jnp.multiply(jnp.exp(log_g), two)


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distribution random values: ``(X1 / dfnum) / (X2 / dfden)`` for independent
    chi-square values ``X1``, ``X2`` with ``dfnum`` and ``dfden`` degrees of freedom
    (JAX's key use: the first half of ``split(key)`` draws ``X2``).

    Args:
      key: a PRNG key.
      dfnum, dfden: the numerator's and denominator's degrees of freedom (> 0),
        broadcast-compatible with ``shape``.
      shape: result shape (default: the broadcast shape of ``dfnum`` and ``dfden``).
      dtype: a float dtype (default float32, float64 with x64).

    Example::

        >>> jax.random.f(jax.random.key(0), 2.0, 5.0, (3,))
        Array([4.4124765, 0.5110049, 1.1935134], dtype=float32)
    """
    key, dtype = _start("f", key, dtype)
    check_safe_cast("f", dtype, dfnum, dfden)
    (dfnum, dfden), shape = _params("f", shape, dtype, dfnum, dfden)
    key_den, key_num = split2(key)
    num = jnp.divide(_chisquare(key_num, dfnum, shape, dtype), dfnum)
    den = jnp.divide(_chisquare(key_den, dfden, shape, dtype), dfden)
    return jnp.divide(num, den)


def maxwell(key, shape=(), dtype=None):
    """One-sided Maxwell random values: the norm of three standard normals.

    Args:
      key: a PRNG key.
      shape: result shape. Default ``()``.
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("maxwell", key, dtype)
    shape = check_shape("maxwell", shape)
    return _maxwell(key, shape, dtype)


def _maxwell(key, shape, dtype):
    z = normal_(key, tuple(shape) + (3,), dtype)
    return jnp.sqrt(jnp.sum(jnp.multiply(z, z), axis=-1))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Double-sided Maxwell random values ``loc + scale * s * m`` (``m`` one-sided
    Maxwell, ``s`` a random sign).

    Args:
      key: a PRNG key.
      loc, scale: location and scale parameters.
      shape: batch shape put before the parameters' broadcast shape ``P``: the result
        has shape ``shape + P``, or ``P + P`` when ``shape`` is empty (JAX's rule).
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("double_sided_maxwell", key, dtype)
    shape = check_shape("double_sided_maxwell", shape)
    loc, scale = _uncast("double_sided_maxwell", loc, scale)
    params_shape = broadcast_shapes(np.shape(loc), np.shape(scale),
                                    op="double_sided_maxwell")
    full = (tuple(shape) or params_shape) + params_shape
    maxwell_key, sign_key = split2(key)
    m = _maxwell(maxwell_key, full, dtype)
    sign = rademacher(sign_key, full, dtype)
    return jnp.add(jnp.multiply(jnp.multiply(sign, m), scale), loc)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull random values by the inverse CDF: ``scale * (-log1p(-u))**(1/c)``.

    Args:
      key: a PRNG key.
      scale: scale parameter(s) > 0.
      concentration: concentration parameter(s) ``c`` > 0.
      shape: shape of the uniforms drawn; the result broadcasts it with the
        parameters' shapes (as JAX does). Default ``()``.
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("weibull_min", key, dtype)
    shape = check_shape("weibull_min", shape)
    scale, concentration = _uncast("weibull_min", scale, concentration)
    u = uniform_(key, shape, dtype)
    e = jnp.negative(jnp.log1p(jnp.negative(u)))
    return jnp.multiply(jnp.power(e, jnp.divide(1.0, concentration)), scale)


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal random values (density ∝ ``exp(-|x|**p)``):
    ``s * g**(1/p)`` for ``g`` ~ Gamma(1/p) and ``s`` a random sign.

    Args:
      key: a PRNG key.
      p: the shape parameter > 0 (a scalar, or an array broadcast-compatible with
        ``shape``).
      shape: result shape. Default ``()``.
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("generalized_normal", key, dtype)
    shape = check_shape("generalized_normal", shape)
    (p,) = _uncast("generalized_normal", p)
    return _generalized_normal(key, p, shape, dtype)


def _generalized_normal(key, p, shape, dtype):
    key_g, key_s = split2(key)
    inv_p = jnp.divide(1, p)  # (JAX's 1 / p: an int p is fine under strict promotion)
    g = gamma(key_g, _real(inv_p), shape, dtype)
    return jnp.multiply(rademacher(key_s, shape, dtype), jnp.power(g, inv_p))


def _real(x):
    """Gamma's shape parameter is converted to ``dtype`` (JAX drops an imaginary part)."""
    return jnp.real(x) if jnp.iscomplexobj(x) else x


def ball(key, d, p=2, shape=(), dtype=None):
    """Points uniformly distributed in the unit L``p`` ball of dimension ``d``
    (Barthe et al., arXiv:math/0503650).

    Args:
      key: a PRNG key.
      d: the dimension (a static non-negative int).
      p: the ``p`` of the Lp norm (> 0). Default 2.
      shape: batch shape. Default ``()``.
      dtype: a float dtype (default float32).

    Returns:
      An array of shape ``(*shape, d)``.
    """
    key, dtype = _start("ball", key, dtype)
    shape = check_shape("ball", shape)
    d = static_index(d, "d (the dimension)", "ball")
    if d < 0:
        raise ValueError(f"ball: d must be non-negative, got {d}")
    (p,) = _uncast("ball", p)
    key_g, key_e = split2(key)
    g = _generalized_normal(key_g, p, tuple(shape) + (d,), dtype)
    e = exponential(key_e, shape, dtype)
    radius = jnp.power(jnp.add(jnp.sum(jnp.power(jnp.abs(g), p), axis=-1), e),
                       jnp.divide(1, p))
    return jnp.divide(g, jnp.expand_dims(radius, -1))


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh random values ``scale * sqrt(-2 log u)``.

    Args:
      key: a PRNG key.
      scale: scale parameter(s) > 0, broadcast-compatible with ``shape``.
      shape: result shape (default ``scale.shape``).
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("rayleigh", key, dtype)
    check_safe_cast("rayleigh", dtype, scale)
    (scale,), shape = _params("rayleigh", shape, dtype, scale)
    u = uniform_(key, shape, dtype)
    root = jnp.sqrt(jnp.multiply(jnp.log(u), np.array(-2, dtype)))
    return jnp.multiply(jnp.broadcast_to(scale, shape), root)


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian, scale 1) random values by Michael, Schucany and Haas's
    transformation of a normal and a uniform, as JAX does.

    Args:
      key: a PRNG key.
      mean: mean(s) > 0, broadcast-compatible with ``shape``.
      shape: result shape (default ``mean.shape``).
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("wald", key, dtype)
    check_safe_cast("wald", dtype, mean)
    (mean,), shape = _params("wald", shape, dtype, mean)
    k1, k2 = split2(key)
    mean = jnp.broadcast_to(mean, shape)
    v = normal_(k1, shape, dtype)
    z = uniform_(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    mean_sq = lax.integer_pow(mean, 2)
    root = jnp.sqrt(4 * mean * y + mean_sq * lax.integer_pow(y, 2))
    x = mean + mean_sq * y / 2 - mean / 2 * root
    return jnp.where(z <= mean / (mean + x), x, mean_sq / x)


def geometric(key, p, shape=None, dtype=None):
    """Geometric random values on ``{1, 2, ...}``: trials until the first success of
    probability ``p``, ``floor(log(u) / log1p(-p)) + 1``.

    Args:
      key: a PRNG key.
      p: success probability (0 < p < 1), broadcast-compatible with ``shape``; its
        float dtype (float32 for ints and Python scalars) sets the uniforms' precision.
      shape: result shape (default ``p.shape``).
      dtype: an int dtype (default int32, int64 with x64).
    """
    key = check_key("geometric", key)
    dt = dtypes.default_int() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, "geometric")
    if not dtypes.is_int(dt) or dtypes.is_bool(dt):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dt}")
    check_real("geometric", p=p)
    p = param_array(p, "geometric", "p")
    float_dt = p.dtype if dtypes.is_float(p.dtype) else dtypes.default_float()
    (p,), shape = _params("geometric", shape, float_dt, p)
    u = uniform_(key, shape, float_dt)
    u = jnp.where(u == 0, np.array(1, float_dt), u)  # JAX maps u == 0 to 1 (no -inf)
    g = jnp.floor(jnp.divide(jnp.log(u), jnp.broadcast_to(jnp.log1p(-p), shape))) + 1
    return lax.convert_element_type(g, dt)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular random values on ``[left, right]`` with peak at ``mode``, by the
    inverse CDF.

    Args:
      key: a PRNG key.
      left, mode, right: parameters with ``left <= mode <= right`` and
        ``left < right``, broadcast-compatible with ``shape``.
      shape: result shape (default: the parameters' broadcast shape).
      dtype: a float dtype (default float32).
    """
    key, dtype = _start("triangular", key, dtype)
    check_safe_cast("triangular", dtype, left, mode, right)
    params, shape = _params("triangular", shape, dtype, left, mode, right)
    left, mode, right = [jnp.broadcast_to(q, shape) for q in params]
    fc = (mode - left) / (right - left)
    u = uniform_(key, shape, dtype)
    out1 = left + jnp.sqrt(u * (right - left) * (mode - left))
    out2 = right - jnp.sqrt((1 - u) * (right - left) * (right - mode))
    return jnp.where(u < fc, out1, out2)


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """Log-normal random values ``exp(sigma * n)`` for ``n`` standard normal.

    Args:
      key: a PRNG key.
      sigma: standard deviation(s) of the underlying normal. Default 1.
      shape: result shape (default ``sigma.shape``).
      dtype: a float or complex dtype (default float32).
    """
    key, dtype = _start("lognormal", key, dtype, allow_complex=True)
    check_safe_cast("lognormal", dtype, sigma)
    (sigma,), shape = _params("lognormal", shape, dtype, sigma)
    return jnp.exp(jnp.multiply(normal_(key, shape, dtype), sigma))


__all__ = [
    "ball",
    "chisquare",
    "double_sided_maxwell",
    "f",
    "generalized_normal",
    "geometric",
    "lognormal",
    "maxwell",
    "pareto",
    "rayleigh",
    "t",
    "triangular",
    "wald",
    "weibull_min",
]
