"""``jax.scipy.special``'s hypergeometric functions, Owen's T, the Fresnel integrals and
Faddeeva's function: thin wrappers that promote and broadcast as JAX does and bind the
SciPy-backed primitives of ``primitives/special.py`` (float64 inside, rounded to the
promoted dtype), which carry the derivative rules."""

import numpy as np

from tjit import numpy as jnp
from tjit.numpy._core import promote_args_inexact
from tjit.primitives import special as _sp
from tjit.scipy._special_common import real_args as _inexact


def _bind_broadcast(prim, *args, **params):
    return prim.bind(*jnp.broadcast_arrays(*args), **params)


def _real_no_complex(name, *args):
    """As :func:`real_args`, but complex inputs raise JAX's ValueError."""
    out = promote_args_inexact(name, *args)
    if any(jnp.iscomplexobj(a) for a in out):
        raise ValueError(f"{name}: complex-valued inputs are not supported; pass real arrays")
    return out


def hyp1f1(a, b, x):
    """The confluent hypergeometric function ``1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!``.

    JAX's conventions: 1 where ``a == 0`` (also at ``b == 0``, where SciPy gives inf), inf
    where ``b == 0`` and ``a != 0``. Differentiable in all three arguments (``x``: the closed
    form ``a / b 1F1(a + 1; b + 1; x)``; ``a``, ``b``: a float64 central difference).
    Arguments beyond 1e6 in magnitude or non-finite give NaN (SciPy's routine, evaluated
    inside, crashes on some extreme arguments).

    Args:
      a, b, x: real arrays (broadcast together).

    Returns:
      ``1F1(a; b; x)`` in the promoted inexact dtype.
    """
    return _bind_broadcast(_sp.hyp1f1_p, *_real_no_complex("hyp1f1", a, b, x))


def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function ``2F1(a, b; c; x)`` for real ``x <= 1``.

    JAX's conventions where the real function has no value: 1 where ``x == 0`` or ``a`` or
    ``b`` is 0 (``c != 0``), inf where ``c`` is a non-positive integer, where ``x > 1``
    and at ``x == 1`` when ``c - a - b <= 0``. Differentiable in all four arguments.
    Other arguments beyond 1e6 in magnitude or non-finite give NaN (as :func:`hyp1f1`).

    Args:
      a, b, c, x: real arrays (broadcast together).

    Returns:
      ``2F1(a, b; c; x)`` in the promoted inexact dtype.
    """
    return _bind_broadcast(_sp.hyp2f1_p, *_real_no_complex("hyp2f1", a, b, c, x))


def owens_t(h, a):
    """Owen's T function ``T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt``,
    with JAX's derivatives in ``h`` and ``a``.

    Args:
      h, a: real arrays (broadcast together).

    Returns:
      ``T(h, a)`` in the promoted inexact dtype.
    """
    return _bind_broadcast(_sp.owens_t_p, *_inexact("owens_t", h, a))


def fresnel(x):
    """The Fresnel integrals ``S(x) = int_0^x sin(pi t^2 / 2) dt`` and
    ``C(x) = int_0^x cos(pi t^2 / 2) dt`` (SciPy's order: ``(S, C)``).

    Args:
      x: a real array (complex inputs raise NotImplementedError, as in JAX).

    Returns:
      ``(S, C)``, two arrays of ``x``'s promoted inexact dtype.
    """
    (x,) = promote_args_inexact("fresnel", x)
    if jnp.iscomplexobj(x):
        raise NotImplementedError("fresnel: complex-valued inputs are not supported (as in "
                                  "JAX); pass a real array")
    return _sp.fresnel_sin_p.bind(x), _sp.fresnel_cos_p.bind(x)


def wofz(z):
    """Faddeeva's function ``w(z) = exp(-z^2) erfc(-i z)``; ``w'(z) = 2i / sqrt(pi) - 2 z w(z)``.

    Args:
      z: a real or complex array (real inputs become complex: float64 -> complex128,
        other real dtypes -> complex64, as JAX's ``promote_args_complex``).

    Returns:
      ``w(z)``, complex.
    """
    (z,) = promote_args_inexact("wofz", z)
    if not jnp.iscomplexobj(z):
        z = z.astype(np.complex128 if z.dtype == np.float64 else np.complex64)
    return _sp.wofz_p.bind(z)
