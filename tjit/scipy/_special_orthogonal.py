"""``jax.scipy.special.bessel_jn`` (Bessel functions of the first kind of orders 0..v),
``sph_harm_y`` (spherical harmonics) and ``lpmn``/``lpmn_values`` (associated Legendre
functions on a grid of orders and degrees), as compositions of ``tjit.numpy``/``lax`` (so ``jit``,
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


def _legendre_args(name, m, n, z):
    m = _static_int(name, "m", m, "pass the largest order as a Python int")
    n = _static_int(name, "n", n, "pass the largest degree as a Python int")
    if m < 0 or n < 0:
        raise ValueError(f"{name}: the largest order m and degree n must be >= 0, got "
                         f"m={m}, n={n}")
    z = jnp.asarray(z)
    if z.dtype not in (np.float32, np.float64):
        raise TypeError(f"{name}: z must be a float32 or float64 array (as JAX's), got "
                        f"{z.dtype}; convert it with z.astype(jnp.float32)")
    if z.ndim != 1:
        raise ValueError(f"{name}: z must be a 1-D array of sample points, got shape "
                         f"{z.shape}; pass z.ravel() and reshape the last axis")
    return m, n, z


def _legendre_grid(order, degree, z, normalized):
    """``P_l^k(z)`` (with ``(-1)^k``) for ``k <= order``, ``l <= degree``: shape
    ``(order + 1, degree + 1, len(z))``, 0 where ``k > l``. The diagonal ``P_k^k`` is a
    cumulative product over k; then a scan over the degree runs the three-term recurrence
    for all orders at once (SciPy's and JAX's; orthonormal on the sphere when
    ``normalized``: ``sqrt((2l + 1) (l - k)! / (4 pi (l + k)!))`` times)."""
    big = max(order, degree)
    k = jnp.arange(big + 1, dtype=z.dtype)[:, None]
    sin = jnp.sqrt(1 - z * z)[None, :]
    if normalized:  # P_k^k = -sqrt(1 + 1/(2k)) sin P_{k-1}^{k-1}, P_0^0 = 1/sqrt(4 pi)
        step = -jnp.sqrt(1 + 0.5 / jnp.maximum(k, 1)) * sin
        first = 0.5 / np.sqrt(np.pi)
    else:           # P_k^k = -(2k - 1) sin P_{k-1}^{k-1}, P_0^0 = 1
        step = -(2 * k - 1) * sin
        first = 1.0
    diag = first * jnp.cumprod(jnp.where(k == 0, 1.0, step), axis=0)
    next_diag = (jnp.sqrt(2 * k + 3) if normalized else 2 * k + 1) * z * diag  # P_{k+1}^k

    def degree_step(carry, l_):
        p2, p1 = carry   # P_{l-2}, P_{l-1} for every order
        if normalized:
            a = jnp.sqrt((4 * l_ * l_ - 1) / jnp.maximum(l_ * l_ - k * k, 1))
            lm1 = l_ - 1
            b = jnp.sqrt(jnp.maximum(lm1 * lm1 - k * k, 0) / jnp.maximum(4 * lm1 * lm1 - 1, 1))
            general = a * (z * p1 - b * p2)
        else:
            general = ((2 * l_ - 1) * z * p1 - (l_ + k - 1) * p2) / jnp.maximum(l_ - k, 1)
        p = jnp.where(k == l_, diag, jnp.where(k == l_ - 1, next_diag,
                                               jnp.where(k < l_, general, 0.0)))
        return (p1, p), p

    zeros = jnp.zeros((big + 1, z.shape[0]), z.dtype)
    _, by_degree = lax.scan(degree_step, (zeros, zeros), jnp.arange(big + 1, dtype=z.dtype))
    return jnp.moveaxis(by_degree, 0, 1)[:order + 1, :degree + 1]


def _legendre_derivatives(p, z):
    """``d/dz P_l^k(z)`` from ``P_l^k`` and ``P_{l-1}^k``: ``(l z P_l^k - (l + k)
    P_{l-1}^k) / (z^2 - 1)``; at ``z = +-1`` the limits SciPy's lpmn gives (finite for
    k = 0 and 2, infinite for k = 1, 0 beyond)."""
    order, degree = p.shape[0] - 1, p.shape[1] - 1
    k = jnp.arange(order + 1, dtype=z.dtype)[:, None, None]
    l_ = jnp.arange(degree + 1, dtype=z.dtype)[None, :, None]
    below = jnp.concatenate([jnp.zeros_like(p[:, :1]), p[:, :-1]], axis=1)   # P_{l-1}
    edge = jnp.abs(z) == 1
    inner = (l_ * z * p - (l_ + k) * below) / jnp.where(edge, -1.0, z * z - 1)
    sign = jnp.where(z < 0, -1.0, 1.0)
    power = sign ** (l_ + 1)    # the limits' parity at z = -1
    at_edge = jnp.where(k == 0, 0.5 * l_ * (l_ + 1) * power,
                        jnp.where(k == 1, jnp.where(l_ >= 1, np.inf * sign * power, 0.0),
                                  jnp.where(k == 2, -0.25 * (l_ + 2) * (l_ + 1) * l_ * (l_ - 1)
                                            * power, 0.0)))
    return jnp.where(edge, at_edge, inner).astype(z.dtype)


def lpmn(m, n, z):
    """Associated Legendre functions of the first kind ``P_l^k(z)`` (with the
    Condon-Shortley phase ``(-1)^k``) and their derivatives in ``z``, for every order
    ``k <= m`` and degree ``l <= n`` (SciPy's ``lpmn``).

    Args:
      m, n: the largest order and degree, static ints. JAX supports ``m == n`` only;
        tjit gives SciPy's result for any ``m, n >= 0``.
      z: a 1-D float32 or float64 array of points in ``[-1, 1]``.

    Returns:
      ``(values, derivatives)``, each of shape ``(m + 1, n + 1, len(z))`` and z's dtype,
      indexed ``[k, l]``; 0 where ``k > l``. At ``z = +-1`` the derivatives are SciPy's
      limits (infinite for ``k = 1``).
    """
    m, n, z = _legendre_args("lpmn", m, n, z)
    p = _legendre_grid(m, n, z, normalized=False)
    return p, _legendre_derivatives(p, z)


def lpmn_values(m, n, z, is_normalized):
    """The values of :func:`lpmn` (``P_l^k(z)`` for ``k <= m``, ``l <= n``, shape
    ``(m + 1, n + 1, len(z))``); with ``is_normalized`` each times ``sqrt((2l + 1)
    (l - k)! / (4 pi (l + k)!))``, the factor that makes the spherical harmonics
    orthonormal (computed by its own recurrence, so large degrees do not overflow).
    JAX supports ``m == n`` only; tjit any ``m, n >= 0``."""
    m, n, z = _legendre_args("lpmn_values", m, n, z)
    if isinstance(is_normalized, Tracer):
        raise ConcretizationTypeError(
            "lpmn_values: is_normalized must be a static Python bool, got a traced value; "
            "pass it as a Python bool (or mark it static in jit)")
    return _legendre_grid(m, n, z, normalized=bool(is_normalized))
