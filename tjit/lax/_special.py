"""``tjit.lax`` special functions (``jax.lax.igamma``, ``betainc``, ``zeta``, ...): thin
wrappers binding the primitives of ``primitives/special.py``; like the rest of ``lax``
they neither broadcast nor promote (Python scalars take the array operand's dtype)."""

from tjit.lax._elementwise import _scalars_like_arrays, asarray_for_lax
from tjit.primitives import special as sp

__all__ = [
    "bessel_i0e",
    "bessel_i1e",
    "betainc",
    "igamma",
    "igamma_grad_a",
    "igammac",
    "polygamma",
    "random_gamma_grad",
    "zeta",
]


def _bind(prim, *args):
    return prim.bind(*_scalars_like_arrays(*args))


def igamma(a, x):
    """Regularized lower incomplete gamma function P(a, x)."""
    return _bind(sp.igamma_p, a, x)


def igammac(a, x):
    """Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _bind(sp.igammac_p, a, x)


def igamma_grad_a(a, x):
    """d/da P(a, x)."""
    return _bind(sp.igamma_grad_a_p, a, x)


def random_gamma_grad(a, x):
    """d x / d a of samples ``x`` of Gamma(a, 1) (implicit reparameterization: the
    derivative that keeps the sample's CDF value ``igamma(a, x)`` fixed).

    Example::

        >>> lax.random_gamma_grad(jnp.asarray([0.5, 2.0, 4.5]), jnp.asarray([1.0, 1.5, 3.0]))
        Array([1.8782473, 0.9366391, 0.8412221], dtype=float32)
    """
    return _bind(sp.random_gamma_grad_p, a, x)


def betainc(a, b, x):
    """Regularized incomplete beta function I_x(a, b)."""
    return _bind(sp.betainc_p, a, b, x)


def zeta(x, q):
    """Hurwitz zeta function sum_k (k + q)**-x."""
    return _bind(sp.zeta_p, x, q)


def polygamma(m, x):
    """The m-th derivative of digamma at x (m a non-negative integer value)."""
    return _bind(sp.polygamma_p, m, x)


def bessel_i0e(x):
    """Exponentially scaled modified Bessel function of order 0: exp(-|x|) I0(x)."""
    return sp.bessel_i0e_p.bind(asarray_for_lax(x))


def bessel_i1e(x):
    """Exponentially scaled modified Bessel function of order 1: exp(-|x|) I1(x)."""
    return sp.bessel_i1e_p.bind(asarray_for_lax(x))
