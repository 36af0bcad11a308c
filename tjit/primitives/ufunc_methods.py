"""``ufunc.reduce`` and ``ufunc.accumulate`` on any array namespace.

NumPy's ufuncs all have these methods; CuPy's ``reduce`` covers only ``add`` and
``multiply`` and its ``accumulate`` only ``add`` (cupy/cupy#7082), so impls that run on
CuPy (library steps and eager ops on the CUDA backend) call these instead for the other
ufuncs: NumPy's methods on NumPy, else a fold or scan of plain ufunc calls, exact for
the associative and commutative ufuncs they are used with (bitwise and/or/xor, logical
and/or/xor, maximum, minimum: the grouping does not change a bit of the result).
"""

import numpy as np


def reduce(xp, ufunc_name, x, axis):
    """``getattr(xp, ufunc_name).reduce(x, axis=axis)`` for a non-empty ``axis``: on
    another namespace than NumPy, ceil(log2 n) rounds of the ufunc on halves of the
    remaining rows."""
    ufunc = getattr(xp, ufunc_name)
    if xp is np:
        return ufunc.reduce(x, axis=axis)
    x = xp.moveaxis(x, axis, 0)
    while x.shape[0] > 1:
        half = x.shape[0] // 2
        folded = ufunc(x[:half], x[half:2 * half])
        x = folded if x.shape[0] % 2 == 0 else xp.concatenate([folded, x[2 * half:]])
    return x[0]


def accumulate(xp, ufunc_name, x, axis):
    """``getattr(xp, ufunc_name).accumulate(x, axis=axis)``: on another namespace than
    NumPy, an inclusive scan of ceil(log2 n) steps (Hillis-Steele: element i combines
    with the partial result 2^k before it)."""
    ufunc = getattr(xp, ufunc_name)
    if xp is np:
        return ufunc.accumulate(x, axis=axis)
    r = xp.moveaxis(x, axis, 0).copy()
    shift = 1
    while shift < r.shape[0]:
        r[shift:] = ufunc(r[shift:], r[:-shift])    # (the right side is a new array)
        shift *= 2
    return xp.moveaxis(r, 0, axis)
