"""Helpers shared by tjit.scipy.special's modules."""

import functools

import numpy as np

from tjit import numpy as jnp
from tjit.numpy._core import promote_args_inexact

EULER_GAMMA = 0.57721566490153286061


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
    ~1e19 (float32). The steps of ``tjit.numpy._ufuncs._two_square`` (the same bits), with
    the split factor a Python number cached per dtype: an eager call on a few elements
    is mostly dispatch, and a filled constant array per call cost a third of ndtr's."""
    split = _dekker_split(np.dtype(x.dtype))
    t = jnp.multiply(x, split)
    hi = jnp.subtract(t, jnp.subtract(t, x))
    lo = jnp.subtract(x, hi)
    p = jnp.multiply(x, x)
    err = jnp.add(jnp.add(jnp.subtract(jnp.multiply(hi, hi), p),
                          jnp.multiply(jnp.add(hi, hi), lo)), jnp.multiply(lo, lo))
    return p, err


@functools.lru_cache(maxsize=None)
def _dekker_split(dtype):
    """2**ceil(p/2) + 1 for dtype's p-bit significand."""
    return float(2 ** ((jnp.finfo(dtype).nmant + 2) // 2) + 1)   # (bfloat16 too)
