"""``jax.scipy.special.bessel_jn`` (Bessel functions of the first kind of orders 0..v) and
``sph_harm_y`` (spherical harmonics), as compositions of ``tjit.numpy``/``lax`` (so ``jit``,
``vmap`` and ``grad`` go through them): recurrences run as ``fori_loop``s over elementwise
carries."""


import numpy as np

from tjit import lax
from tjit import numpy as jnp
from tjit.numpy._core import promote_args_inexact
from tjit.tracing.core import Tracer
from tjit.tracing.errors import ConcretizationTypeError, static_index


def _static_int(name, what, value, hint):
    if isinstance(value, Tracer):
        raise ConcretizationTypeError(f"{name}: {what} must be a static Python int, got a "
                                      f"traced value; {hint}")
    return static_index(value, what, name)


def bessel_jn(z, *, v, n_iter=50):
    """Bessel functions of the first kind ``J_0(z) .. J_v(z)`` of real ``z`` (JAX's
    signature), by Miller's backward recurrence ``J_{k-1} = 2k/z J_k - J_{k+1}`` started at
    order ``n_iter`` and normalized by ``J_0 + 2 (J_2 + J_4 + ...) = 1``. The carry is
    rescaled whenever it grows past 1e10 (JAX's overflows to NaN for small ``z`` in
    float32), and below ``2 eps**(1/4)`` the two leading terms of the power series are
    used (exact at ``z = 0``, where JAX gives NaN).

    Args:
      z: a real array.
      v: the highest order (a static non-negative int).
      n_iter: the starting order of the recurrence (static, > v); accurate while it is
        well above ``|z|`` (JAX's rule of thumb: the smallest n with
        ``0.5 log10(6.28 + n) - n log10(1.36 + |z| / n) > 20``).

    Returns:
      An array of shape ``(v + 1, *z.shape)`` of ``z``'s promoted inexact dtype.
    """
    hint = "mark it static (static_argnames)"
    v = _static_int("bessel_jn", "v", v, hint)
    n_iter = _static_int("bessel_jn", "n_iter", n_iter, hint)
    if v < 0:
        raise ValueError(f"bessel_jn: v must be a non-negative int, got {v}")
    if n_iter <= v:
        raise ValueError(f"bessel_jn: n_iter ({n_iter}) must exceed v ({v}): the recurrence "
                         f"starts at order n_iter; pass a larger n_iter")
    (z,) = promote_args_inexact("bessel_jn", z)
    if jnp.iscomplexobj(z):
        raise ValueError("bessel_jn: complex input not supported; pass a real array")
    dt = z.dtype
    zc = z if dt in (np.float32, np.float64) else z.astype(np.float32)
    small = jnp.abs(zc) < 2 * float(np.finfo(zc.dtype).eps) ** 0.25
    miller = _bessel_jn_miller(jnp.where(small, jnp.ones_like(zc), zc), v, n_iter)
    series = _bessel_jn_series(jnp.where(small, zc, jnp.zeros_like(zc)), v)
    out = jnp.where(small, series, miller)
    # NaN at +-inf, as SciPy's jv (JAX's recurrence gives NaN and -inf there)
    out = jnp.where(jnp.isinf(zc), jnp.full_like(out, np.nan), out)
    return out.astype(dt)


def _bessel_jn_miller(z, v, n_iter):
    rows = jnp.arange(v + 1).reshape((v + 1,) + (1,) * z.ndim)
    big = 1e10

    def step(i, carry):  # f_{k+2}, f_{k+1} -> f_{k+1}, f_k with k = n_iter - i
        f_next, f_cur, norm, out = carry
        k = n_iter - i
        f = 2 * (k + 1).astype(z.dtype) / z * f_cur - f_next
        weight = jnp.where(k == 0, 1, jnp.where(k % 2 == 0, 2, 0)).astype(z.dtype)
        norm = norm + weight * f
        out = jnp.where(rows == k, f, out)
        scale = jnp.where(jnp.abs(f) > big, 1 / big, 1).astype(z.dtype)
        return f_cur * scale, f * scale, norm * scale, out * scale

    zeros = jnp.zeros_like(z)
    init = (zeros, jnp.ones_like(z), zeros, jnp.zeros((v + 1,) + z.shape, z.dtype))
    _, _, norm, out = lax.fori_loop(0, n_iter + 1, step, init)
    return out / norm


def _bessel_jn_series(z, v):
    """J_k(z) ~ (z/2)^k / k! (1 - (z/2)^2 / (k + 1)) for small z (next term ~ (z/2)^4)."""
    half = z / 2
    k = jnp.arange(1, v + 1, dtype=z.dtype).reshape((v,) + (1,) * z.ndim)
    factors = jnp.concatenate([jnp.ones((1,) + z.shape, z.dtype), half / k])
    lead = jnp.cumprod(factors, axis=0)
    order = jnp.arange(v + 1, dtype=z.dtype).reshape((v + 1,) + (1,) * z.ndim)
    return lead * (1 - half * half / (order + 1))


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """Spherical harmonics ``Y_n^m(theta, phi)`` with the Condon-Shortley phase (SciPy's
    ``sph_harm_y``): ``theta`` the polar angle, ``phi`` the azimuth. The normalized
    associated Legendre function comes from the stable three-term recurrence in the
    degree, per element.

    Args:
      n: integer degrees (``n >= 0``).
      m: integer orders (``|m| <= n``; 0 where ``|m| > n``).
      theta, phi: real arrays; all four broadcast together.
      diff_n: not supported (as in JAX).
      n_max: the largest degree, static (JAX's extra argument; default ``max(n)``, which
        needs a concrete ``n``); degrees above it give the values at ``n_max``, as JAX.

    Returns:
      Complex values of the broadcast shape (complex128 for float64 angles, else
      complex64).
    """
    if diff_n is not None:
        raise NotImplementedError("sph_harm_y: the diff_n argument is not supported (as in "
                                  "JAX)")
    if n_max is None:
        if isinstance(n, Tracer):
            raise ConcretizationTypeError(
                "sph_harm_y: n_max must be given statically when n is traced (inside jit, "
                "vmap or grad): pass n_max=<the largest degree>")
        n_max = int(np.max(np.asarray(n)))
    n_max = _static_int("sph_harm_y", "n_max", n_max, "pass a Python int")
    theta, phi = promote_args_inexact("sph_harm_y", theta, phi)
    if jnp.iscomplexobj(theta):
        raise TypeError("sph_harm_y: theta and phi must be real")
    n, m = jnp.asarray(n), jnp.asarray(m)
    for name, a in (("n", n), ("m", m)):
        if not jnp.issubdtype(a.dtype, jnp.integer):
            raise TypeError(f"sph_harm_y: {name} must be an integer array, got {a.dtype}")
    n, m, theta, phi = jnp.broadcast_arrays(n, m, theta, phi)
    dt = theta.dtype
    ma = jnp.abs(m)
    legendre = _normalized_legendre(jnp.minimum(n, n_max).astype(dt), ma.astype(dt),
                                    jnp.cos(theta), jnp.abs(jnp.sin(theta)), n_max)
    legendre = jnp.where(ma > n, jnp.zeros_like(legendre), legendre)
    angle = ma.astype(dt) * phi
    cdt = np.complex128 if dt == np.float64 else np.complex64
    y = lax.complex(legendre * jnp.cos(angle), legendre * jnp.sin(angle))
    neg = jnp.where(ma % 2 == 0, 1, -1).astype(dt)
    return jnp.where(m < 0, neg * jnp.conj(y), y).astype(cdt)


def _normalized_legendre(n, m, x, sin_abs, n_max):
    """The orthonormal ``P_n^m(x)`` (with ``(-1)^m``): ``P_m^m = (-1)^m sqrt((2m + 1)!! /
    (4 pi (2m)!!)) sin^m`` as a product, ``P_{m+1}^m = sqrt(2m + 3) x P_m^m``, then
    ``P_l^m = a_l (x P_{l-1}^m - b_l P_{l-2}^m)`` up to ``l = n``."""
    def diagonal(j, p):  # P_j^j = -sqrt(1 + 1/(2j)) sin P_{j-1}^{j-1}
        jf = jnp.asarray(j).astype(x.dtype)
        factor = -jnp.sqrt(1 + 0.5 / jf) * sin_abs
        return jnp.where(jf <= m, factor * p, p)

    p_mm = lax.fori_loop(1, n_max + 1, diagonal, jnp.full_like(x, 0.5 / np.sqrt(np.pi)))
    p_m1 = jnp.sqrt(2 * m + 3) * x * p_mm

    def degree(j, carry):  # l = m + j
        p2, p1 = carry
        l_ = m + jnp.asarray(j).astype(x.dtype)
        active = l_ <= n
        a = jnp.sqrt((4 * l_ * l_ - 1) / jnp.where(active, l_ * l_ - m * m, 1))
        lm1 = l_ - 1
        b = jnp.sqrt((lm1 * lm1 - m * m) / (4 * lm1 * lm1 - 1))
        p = a * (x * p1 - b * p2)
        return jnp.where(active, p1, p2), jnp.where(active, p, p1)

    _, p_n = lax.fori_loop(2, n_max + 1, degree, (p_mm, p_m1))
    return jnp.where(n == m, p_mm, jnp.where(n == m + 1, p_m1, p_n))
