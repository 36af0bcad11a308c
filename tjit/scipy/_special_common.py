"""Helpers shared by tjit.scipy.special's modules."""

import numpy as np

from tjit import numpy as jnp
from tjit.numpy._core import promote_args_inexact
from tjit.numpy._ufuncs import _two_square
from tjit.tracing.core import Tracer

EULER_GAMMA = 0.57721566490153286061


def any_lane(mask):
    """Whether a branch of a select must be computed: always under a trace; eagerly only
    where some lane takes it (the select drops the others' values, so skipping it leaves
    the result bit for bit; an eager call on a few elements costs ~5 us per operation)."""
    return isinstance(mask, Tracer) or bool(np.any(np.asarray(mask)))


def real_args(name, *args):
    """``args`` promoted to a common inexact dtype; complex inputs refused, naming
    ``name``."""
    out = promote_args_inexact(name, *args)
    for a in out:
        if jnp.iscomplexobj(a):
            raise TypeError(f"{name}: complex inputs are not supported; pass real arrays")
    return out


def exp_square_times(x, sign, m):
    """``m * exp(sign * x**2)`` (sign +-1 or +-1/2) with ``x**2`` taken as an exact pair
    ``p + e`` (Dekker's product): ``exp(sign p) * (m + m sign e)``. ``exp`` of the rounded
    square alone is off by ``|x|**2 eps`` relative (~500 float64 ulps at |x| = 26).
    ``|x|`` must stay below ~1e150 (float64) / ~1e19 (float32), where the split's
    products are finite; callers clip (beyond, ``exp`` over- or underflows anyway).
    Plain multiplies and adds: eager and jit give the same bits."""
    p, e = square_pair(x)
    return jnp.exp(sign * p) * (m + m * (sign * e))


def square_pair(x):
    """``(x*x, its rounding error)`` exactly (Dekker), for |x| below ~1e150 (float64) /
    ~1e19 (float32)."""
    return _two_square(x)
