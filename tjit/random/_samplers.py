"""Continuous distributions of ``tjit.random``, following ``jax.random``'s algorithms.

``uniform`` fills the mantissa of a float in [1, 2) with random bits and subtracts 1
(bit-identical to JAX for the default bounds; with other bounds XLA fuses
``u * (max - min) + min`` into an FMA, so JAX can differ by one ulp); the other samplers transform uniforms as JAX does (``normal``
is ``sqrt(2) * erf_inv(u)`` for ``u`` uniform in (-1, 1); ``truncated_normal`` inverts
the normal CDF between the bounds; ``gumbel``, ``exponential``, ``laplace``,
``logistic`` and ``cauchy`` invert their CDFs). Samplers whose only transcendental is
a log/log1p/tan match JAX up to the last ulp of those functions; ``normal`` and
``truncated_normal`` go through ``erf_inv``, whose reference implementation (SciPy)
differs from XLA's polynomial by a few ulps, so they agree with JAX to ~1e-6 relative,
not bit for bit.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import Array, Tracer
from tjit.tracing.errors import static_index
from tjit.tracing.shapes import broadcast_shapes, shape_str
from tjit import lax
from tjit import numpy as jnp
from tjit.numpy import linalg as jla
from tjit.numpy._core import (broadcast_to_shape, dtype_and_weak, host_numpy_array,
                              promote_dtypes_inexact)
from tjit.random._keys import (
    UINT_DTYPES, check_key, check_shape, random_bits, split_key)
from tjit.random._normal_tail import right_tail_sample


# -- helpers shared by the samplers ---------------------------------------------------------
def float_dtype(name, dtype, allow_complex=False):
    """The canonical float dtype asked for (default float32, or float64 with x64)."""
    dt = dtypes.default_float() if dtype is None else \
        dtypes.canonicalize_user_dtype(dtype, name)
    ok = dtypes.is_inexact(dt) if allow_complex else dtypes.is_float(dt)
    if not ok:
        kind = "a float or complex" if allow_complex else "a float"
        raise ValueError(f"dtype argument to `{name}` must be {kind} dtype, got {dt}")
    return dt


def as_param(x, dtype, name="tjit.random", what=None):
    """A distribution parameter as an array of ``dtype`` (not weakly typed); a list that
    is no array (ragged) is refused naming the sampler ``name``."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return jnp.asarray(np.asarray(x, dtype))  # a literal constant, no conversion op
    if isinstance(x, (list, tuple)):
        host_numpy_array(x, name, what)
    if not isinstance(x, (Array, Tracer)):
        x = jnp.asarray(x)
    return lax.convert_element_type(x, dtype)


def param_array(x, name, what=None):
    """A sampler's array argument as a tjit array; a ragged list is refused naming the
    sampler (not asarray, nor NumPy's "inhomogeneous shape")."""
    if isinstance(x, (list, tuple)):
        host_numpy_array(x, name, what)
    return x if isinstance(x, (Array, Tracer)) else jnp.asarray(x)


def check_safe_cast(name, dtype, *params):
    """JAX's check on the parameters of ``beta``, ``chisquare``, ``f``, ``lognormal``,
    ``pareto``, ``rayleigh``, ``t``, ``triangular`` and ``wald``: each must promote to
    ``dtype`` itself (a complex one to a float ``dtype`` does not, nor, under
    ``numpy_dtype_promotion="strict"``, an int or a float of another width)."""
    for p in params:
        dt, weak = dtype_and_weak(host_numpy_array(p, name) if isinstance(p, (list, tuple))
                                  else p)
        if dt != dtype and dtypes.result_type((dt, weak), (dtype, False))[0] != dtype:
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type {dt} to "
                f"{dtype}; convert it explicitly (e.g. jnp.real(x) or x.astype({dtype}))")


def check_real(name, **params):
    """Complex parameters are refused where JAX fails on them, not silently made real."""
    for what, x in params.items():
        dt = dtype_and_weak(host_numpy_array(x, name, what) if isinstance(x, (list, tuple))
                            else x)[0]
        if dtypes.is_complex(dt):
            raise TypeError(f"{name}: {what} must be real, got {dt}; pass jnp.real({what}) "
                            f"if the imaginary part is meant to be dropped")


def check_param_shapes(name, shape, *param_shapes):
    """Parameters must broadcast to exactly ``shape`` (JAX's rule)."""
    if not param_shapes:
        return
    try:
        out = broadcast_shapes(tuple(shape), *[tuple(s) for s in param_shapes], op=name)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{name}: parameter shapes "
                         f"{', '.join(shape_str(s) for s in param_shapes)} are not "
                         f"broadcast-compatible with shape {shape_str(shape)}: {e}") from None
    if tuple(out) != tuple(shape):
        raise ValueError(
            f"{name} parameter shapes must be broadcast-compatible with shape argument, and "
            f"the result of broadcasting the shapes must equal the shape argument, but got "
            f"result {shape_str(out)} for shape argument {shape_str(shape)}; pass "
            f"shape={shape_str(out)} or leave shape=None")


def bcast(x, shape):
    """Broadcast a parameter to ``shape``; rank-0 values stay scalars (lax ops take them)."""
    if x.ndim == 0 or tuple(x.shape) == tuple(shape):
        return x
    return broadcast_to_shape(x, tuple(shape))


def take0(x):
    """``x[0]`` along the leading axis (static index)."""
    return _index0(x, 0)


def take1(x):
    return _index0(x, 1)


def _index0(x, i):
    rest = tuple(x.shape[1:])
    sl = lax.slice(x, (i,) + (0,) * len(rest), (i + 1,) + rest)
    return lax.reshape(sl, rest)


def split2(key):
    """``key, subkey = split(key)`` without re-checking the key."""
    keys = split_key(key, (2,))
    return take0(keys), take1(keys)


# -- uniform family -------------------------------------------------------------------------
def uniform(key, shape=(), dtype=None, minval=0., maxval=1.):
    """Uniform random values in ``[minval, maxval)``.

    Args:
      key: a PRNG key.
      shape: result shape (tuple of ints). Default ``()``.
      dtype: a float dtype (default float32, float64 with x64).
      minval, maxval: bounds, scalars or arrays broadcast-compatible with ``shape``.

    Returns:
      An array of ``shape`` and ``dtype``; the same bits as ``jax.random.uniform``
      (up to one ulp of XLA's fused multiply-add when the bounds are not [0, 1)).
    """
    key = check_key("uniform", key)
    dtype = float_dtype("uniform", dtype)
    return uniform_(key, check_shape("uniform", shape), dtype, minval, maxval)


def uniform_(key, shape, dtype, minval=0., maxval=1., name="uniform"):
    """:func:`uniform` without argument checks (shape and dtype already canonical)."""
    minval = as_param(minval, dtype, name, "minval")
    maxval = as_param(maxval, dtype, name, "maxval")
    check_param_shapes(name, shape, minval.shape, maxval.shape)
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    if nbits not in UINT_DTYPES:   # (float4_e2m1fn, float6_*: as JAX's, which refuses too)
        raise TypeError(f"random.{name}: takes 8-, 16-, 32- or 64-bit floats, got "
                        f"{np.dtype(dtype).name} ({nbits} bits); draw float32 values and "
                        f"cast them with .astype")
    if np.isnan(np.asarray(0.0).astype(dtype)):   # (JAX returns all NaN)
        raise TypeError(f"random.{name}: {np.dtype(dtype).name} has no zero (it holds "
                        f"powers of two only), so it cannot hold uniform values; draw "
                        f"float32 values and cast them with .astype")
    # JAX draws 8 bits for mantissas shorter than 8 bits (bfloat16's 7)
    rng_bits = 8 if nmant < 8 else nbits
    bits = random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, UINT_DTYPES[nbits])
    one_bits = int(np.array(1.0, dtype).view(UINT_DTYPES[nbits]))
    # Random mantissa with the exponent of 1.0: a float uniform in [1, 2), minus 1.
    float_bits = lax.bitwise_or(lax.shift_right_logical(bits, rng_bits - nmant), one_bits)
    floats = lax.sub(lax.bitcast_convert_type(float_bits, dtype), 1.0)
    lo, hi = bcast(minval, shape), bcast(maxval, shape)
    # lo and hi are rank-0 or of the full shape, so lax's scalar broadcasting suffices.
    return lax.max(lo, lax.add(lax.mul(floats, lax.sub(hi, lo)), lo))


def normal(key, shape=(), dtype=None):
    """Standard normal random values (complex dtypes: real and imaginary parts each
    have variance 1/2).

    Args:
      key: a PRNG key.
      shape: result shape. Default ``()``.
      dtype: a float or complex dtype (default float32).

    Returns:
      An array of ``shape`` and ``dtype``.
    """
    key = check_key("normal", key)
    dtype = float_dtype("normal", dtype, allow_complex=True)
    return normal_(key, check_shape("normal", shape), dtype)


def normal_(key, shape, dtype):
    if dtypes.is_complex(dtype):
        real = dtypes.float64 if dtype == dtypes.complex128 else dtypes.float32
        k_re, k_im = split2(key)
        re, im = _normal_real(k_re, shape, real), _normal_real(k_im, shape, real)
        z = lax.complex(re, im)
        return lax.div(z, np.array(np.sqrt(2), dtype))
    return _normal_real(key, shape, dtype)


def _normal_real(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = uniform_(key, shape, dtype, lo, 1.0, name="normal")
    return lax.mul(np.array(np.sqrt(2), dtype), lax.erf_inv(u))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal values truncated to the open interval ``(lower, upper)``.

    Args:
      key: a PRNG key.
      lower, upper: bounds (floats or arrays broadcast-compatible with ``shape``).
      shape: result shape; default: the broadcast shape of ``lower`` and ``upper``.
      dtype: a float dtype (default float32).

    Returns:
      An array of ``shape`` and ``dtype`` with values in ``(lower, upper)``: JAX's values
      (to a few ulps) unless the interval lies beyond +-2, where JAX's erf formula loses
      its digits and the normal CDF of the tail is inverted instead.
    """
    key = check_key("truncated_normal", key)
    dtype = float_dtype("truncated_normal", dtype)
    lower = as_param(lower, dtype, "truncated_normal", "lower")
    upper = as_param(upper, dtype, "truncated_normal", "upper")
    if shape is None:
        shape = broadcast_shapes(tuple(lower.shape), tuple(upper.shape),
                                 op="truncated_normal")
    else:
        shape = check_shape("truncated_normal", shape)
        check_param_shapes("truncated_normal", shape, lower.shape, upper.shape)
    sqrt2 = np.array(np.sqrt(2), dtype)
    lo_b, hi_b = bcast(lower, shape), bcast(upper, shape)
    right = lax.ge(lo_b, np.array(_TAIL, dtype))
    tail = lax.bitwise_or(right, lax.le(hi_b, np.array(-_TAIL, dtype)))
    # JAX's formula off the tails; (-1, 1) on them keeps erf_inv (and its gradient) finite
    a = lax.erf(lax.div(_unless(tail, lo_b, -1.0), sqrt2))
    b = lax.erf(lax.div(_unless(tail, hi_b, 1.0), sqrt2))
    u = uniform_(key, shape, dtype, a, b, name="truncated_normal")
    out = lax.mul(sqrt2, lax.erf_inv(u))
    out = lax.select(tail, _truncated_normal_tail(key, lo_b, hi_b, right, tail, shape), out)
    # Clamp into the open interval: rounding (or u == a) could land on a bound.
    # (Under AD, lower/upper here take lax.stop_gradient, as in JAX.)
    lo = bcast(lax.nextafter(lower, np.inf), shape)
    hi = bcast(lax.nextafter(upper, -np.inf), shape)
    return lax.min(lax.max(out, lo), hi)


_TAIL = 2.0  # beyond this many standard deviations erf(x / sqrt 2) has too few digits


def _unless(mask, x, value):
    """``x`` where ``mask`` is False, ``value`` where it is True."""
    return lax.select(mask, lax.full_like(x, value), x)


def _truncated_normal_tail(key, lo, hi, right, tail, shape):
    """Truncated normal values for intervals beyond +-_TAIL (``tail``; those on the
    left are mirrored to the right, ``right`` marks the others), in at least float32.
    JAX's ``erf_inv(U(erf(lower/sqrt 2), erf(upper/sqrt 2)))`` rounds erf to +-1 there:
    on (5, 6) float32 gave 10 distinct values, on (10, 12) only ``upper``; the tail's own
    inversion (``_normal_tail``) holds as far out as the float range goes.
    Other entries get the interval (_TAIL, _TAIL + 1): no NaN/inf into gradients."""
    dtype = lo.dtype
    work = dtypes.float32 if dtypes.finfo(dtype).bits < 32 else dtype
    lo, hi = (broadcast_to_shape(lax.convert_element_type(v, work), tuple(shape))
              for v in (lo, hi))
    a, b = lax.select(right, lo, lax.neg(hi)), lax.select(right, hi, lax.neg(lo))
    off = lax.bitwise_not(tail)
    a, b = _unless(off, a, _TAIL), _unless(off, b, _TAIL + 1)
    x = right_tail_sample(uniform_(key, shape, work, name="truncated_normal"), a, b)
    return lax.convert_element_type(lax.select(right, x, lax.neg(x)), dtype)


# -- CDF inversions -------------------------------------------------------------------------
def _simple(name, doc):
    """Decorator for samplers ``f(key, shape, dtype)`` over float dtypes."""
    def wrap(body):
        def sampler(key, shape=(), dtype=None):
            key = check_key(name, key)
            dtype = float_dtype(name, dtype)
            return body(key, check_shape(name, shape), dtype)
        sampler.__name__ = name
        sampler.__qualname__ = name
        sampler.__doc__ = doc + """

    Args:
      key: a PRNG key.
      shape: result shape (tuple of ints). Default ``()``.
      dtype: a float dtype (default float32, float64 with x64).

    Returns:
      An array of ``shape`` and ``dtype``."""
        return sampler
    return wrap


@_simple("exponential", "Exponential(1) random values: ``-log1p(-u)``.")
def exponential(key, shape, dtype):
    u = uniform_(key, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))  # 1 - u lies in (0, 1]: log is finite


@_simple("laplace", "Laplace(0, 1) random values.")
def laplace(key, shape, dtype):
    u = uniform_(key, shape, dtype, -1.0 + dtypes.finfo(dtype).epsneg, 1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


@_simple("logistic", "Logistic(0, 1) random values: ``log(u) - log1p(-u)``.")
def logistic(key, shape, dtype):
    u = uniform_(key, shape, dtype, dtypes.finfo(dtype).tiny, 1.0)
    return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


@_simple("cauchy", "Standard Cauchy random values: ``tan(pi * (u - 1/2))``.")
def cauchy(key, shape, dtype):
    u = uniform_(key, shape, dtype, dtypes.finfo(dtype).eps, 1.0)
    return lax.tan(lax.mul(lax.sub(u, 0.5), np.array(np.pi, dtype)))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel random values: ``-log(-log(u))``.

    Args:
      key: a PRNG key.
      shape: result shape. Default ``()``.
      dtype: a float dtype (default float32).
      mode: ``"low"`` (default) or ``"high"``: "high" uses two uniforms per value so
        the largest attainable value grows from ~16 to ~32 in float32.

    Returns:
      An array of ``shape`` and ``dtype``.
    """
    key = check_key("gumbel", key)
    dtype = float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in ("low", "high"):
        raise ValueError(f"gumbel: mode must be 'low' or 'high', got {mode!r}")
    return gumbel_(key, check_shape("gumbel", shape), dtype, mode)


def gumbel_(key, shape, dtype, mode="low"):
    info = dtypes.finfo(dtype)
    if mode == "high":
        both = uniform_(key, (2,) + tuple(shape), dtype)
        high, low = take0(both), take1(both)
        fine = lax.add(lax.add(high, lax.mul(low, float(2.0 ** -info.nmant))),
                       float(info.tiny))
        x = lax.select(lax.ge(high, 0.5), high, fine)
        return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
    u = uniform_(key, shape, dtype, info.tiny, 1.0, name="gumbel")
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Multivariate normal values ``mean + L @ z`` with ``L L^T = cov``.

    Args:
      key: a PRNG key.
      mean: mean vectors, shape ``(..., n)``.
      cov: covariance matrices, shape ``(..., n, n)`` (positive definite for
        ``method="cholesky"``; "eigh" and "svd" accept semi-definite ones).
      shape: batch shape of the result (default: broadcast of the batch shapes).
      dtype: float dtype (default: that of ``mean``/``cov``).
      method: "cholesky", "eigh" or "svd".

    Returns:
      An array of shape ``shape + mean.shape[-1:]``.
    """
    key = check_key("multivariate_normal", key)
    check_real("multivariate_normal", mean=mean, cov=cov)
    mean, cov = promote_dtypes_inexact(jnp.asarray(mean), jnp.asarray(cov))  # (as JAX)
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("multivariate_normal: method must be one of 'svd', 'eigh', "
                         f"'cholesky', got {method!r}")
    dtype = mean.dtype if dtype is None else float_dtype("multivariate_normal", dtype)
    if mean.ndim < 1 or cov.ndim < 2:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1 and cov.ndim >= 2, "
                         f"got mean {shape_str(mean.shape)} and cov {shape_str(cov.shape)}")
    n = mean.shape[-1]
    if tuple(cov.shape[-2:]) != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {shape_str(cov.shape)}")
    if shape is None:
        shape = broadcast_shapes(tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    else:
        shape = check_shape("multivariate_normal", shape)
        check_param_shapes("multivariate_normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = jla.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jla.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = jla.cholesky(cov)
    z = normal_(key, tuple(shape) + (n,), dtype)
    return mean + jnp.einsum("...ij,...j->...i", factor, z)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Random matrices with orthonormal columns (or rows), uniformly (Haar)
    distributed: the Q of a QR of a normal matrix, with the signs fixed by diag(R).

    Args:
      key: a PRNG key.
      n: number of rows.
      shape: batch shape. Default ``()``.
      dtype: a float or complex dtype (default float32).
      m: number of columns (default ``n``).

    Returns:
      An array of shape ``(*shape, n, m)``.
    """
    key = check_key("orthogonal", key)
    dtype = float_dtype("orthogonal", dtype, allow_complex=True)
    shape = check_shape("orthogonal", shape)
    n = static_index(n, "n", "random.orthogonal")
    m = n if m is None else static_index(m, "m", "random.orthogonal")
    z = normal_(key, tuple(shape) + (max(n, m), min(n, m)), dtype)
    q, r = jla.qr(z)
    d = jnp.diagonal(r, axis1=-2, axis2=-1)
    phase = lax.div(d, lax.convert_element_type(lax.abs(d), dtype))  # sign(d) when real
    x = jnp.multiply(q, jnp.expand_dims(phase, -2))
    return jnp.swapaxes(x, -1, -2) if n < m else x


__all__ = ["uniform", "normal", "truncated_normal", "exponential", "laplace", "logistic",
           "cauchy", "gumbel", "multivariate_normal", "orthogonal"]
