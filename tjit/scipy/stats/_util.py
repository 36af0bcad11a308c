"""Helpers shared by the distribution modules: argument promotion and the loc/scale
standardization every continuous family uses."""

import functools
import inspect

import numpy as np

from tjit import numpy as jnp
from tjit.numpy._core import promote_args_inexact


def promote(name, *args):
    """Real inexact arrays of one dtype and broadcast shape (as ``jax.scipy.stats``)."""
    out = promote_args_inexact(name, *args)
    for a in out:
        if jnp.iscomplexobj(a):
            raise TypeError(f"{name}: complex inputs are not supported; pass real arrays")
    return out


def standardize(x, loc, scale):
    """``(x - loc) / scale``."""
    return (x - loc) / scale


def integral_shift(k, loc):
    """Whether ``k - loc`` is an integer, as SciPy decides it in exact arithmetic: in
    float32 ``k - loc`` rounds (-1e-8 + 53 is 53.0), so where ``loc`` is an integer
    ``k`` itself must be one."""
    y = k - loc
    return (y == jnp.floor(y)) & ((k == jnp.floor(k)) | (loc != jnp.floor(loc)))


def log_diff_exp(a, b):
    """``log(exp(a) - exp(b))`` for a >= b, without cancelling: a + log1mexp(a - b)."""
    d = a - b
    small = d < np.log(2.0)
    # log(-expm1(-d)) near 0, log1p(-exp(-d)) beyond (Maechler 2012); -inf where a == b
    out = a + jnp.where(small, jnp.log(-jnp.expm1(-d)), jnp.log1p(-jnp.exp(-d)))
    # a = b = -inf (both masses underflow, e.g. a bound of -1e30): -inf, not -inf - -inf
    return jnp.where(a == -np.inf, a, out)


def cast_inexact(name, *arrays):
    """The arrays as tjit arrays of their common real inexact dtype, shapes unchanged."""
    arrays = [jnp.asarray(a) for a in arrays]
    # (zeros_like keeps a Python scalar's weak type: x64's float64 must not win over float32)
    dt = promote(name, *[jnp.zeros_like(a, shape=()) for a in arrays])[0].dtype
    return [a.astype(dt) for a in arrays]


_DISTRIBUTION_FUNCTIONS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf",
                           "logpmf", "pmf")


def nan_outside_parameter_domain(namespace, valid):
    """Wrap a distribution module's functions (logpdf, cdf, ppf, ...) so that where the
    distribution's parameters are outside their domain (``valid(**arguments)`` False,
    e.g. ``scale <= 0``) the result is NaN, as SciPy's, instead of a number computed
    from a formula that does not apply there. ``valid`` takes the bound arguments by
    name (defaults applied) and ignores the ones it does not need (``**_``)."""
    for name in _DISTRIBUTION_FUNCTIONS:
        if name in namespace:
            namespace[name] = _guarded(namespace[name], valid)


def _guarded(fn, valid):
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def guarded(*args, **kwargs):
        out = fn(*args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        ok = valid(**{k: jnp.asarray(v) for k, v in bound.arguments.items()})
        return jnp.where(ok, out, jnp.asarray(np.nan, out.dtype))
    return guarded
