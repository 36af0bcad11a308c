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


#: ufuncs whose ``at`` every namespace tjit runs impls on has (CuPy's: add, maximum,
#: minimum and the bitwise ones)
_NATIVE_AT = frozenset({"add", "maximum", "minimum"})


def at(xp, ufunc_name, out, index, values):
    """``getattr(xp, ufunc_name).at(out, index, values)`` in place, for a 1-D ``out``, a
    1-D integer ``index`` and ``values`` of its length (or broadcasting to it); the
    ufunc associative and commutative, or ``subtract``. On another namespace than NumPy,
    for ufuncs without a native ``at`` there: the updates sorted by target and each
    target's combined by a segmented scan of ceil(log2 n) steps, then applied once per
    target. (That groups a target's updates otherwise than NumPy's sequential order: the
    float bits of a product can differ, as the order of XLA's GPU scatters is
    unspecified.)"""
    if xp is np or ufunc_name in _NATIVE_AT:
        getattr(xp, ufunc_name).at(out, index, values)
        return
    if ufunc_name == "subtract":    # (x - a - b is x + -a + -b: IEEE, and modular ints)
        at(xp, "add", out, index, -xp.asarray(values))
        return
    n = index.shape[0]
    if n == 0:
        return
    ufunc = getattr(xp, ufunc_name)
    order = xp.argsort(index)
    keys = index[order]
    vals = xp.broadcast_to(xp.asarray(values), (n,))[order]     # (a copy: fancy index)
    shift = 1
    while shift < n:   # vals[i]: the combination of its segment's last 2 * shift values
        same = keys[shift:] == keys[:-shift]     # (sorted: the same target all between)
        vals[shift:] = xp.where(same, ufunc(vals[:-shift], vals[shift:]), vals[shift:])
        shift *= 2
    last = xp.ones(n, bool)
    last[:-1] = keys[1:] != keys[:-1]
    targets = keys[last]
    out[targets] = ufunc(out[targets], vals[last])
