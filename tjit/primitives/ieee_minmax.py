"""Float maximum/minimum with IEEE 754-2019 semantics for the reference impls.

tjit's ``max``/``min`` (elementwise, reductions, cumulative, clamp) propagate NaN and
order -0.0 below +0.0, so max(+0, -0) = +0 and min(+0, -0) = -0 in either operand order.
NumPy's ``maximum`` instead returns its second operand at a tie of zeros, which makes a
reduction's sign of zero depend on the order the elements are visited (vector lanes,
threads); the compiled kernels use ``llvm.maximum``/``llvm.minimum``, and these helpers
give the reference impls the same answers. Non-float dtypes go straight to NumPy.
"""

import numpy as np

from tjit.primitives import ufunc_methods
from tjit.tracing import dtypes


def _is_float(x):
    return dtypes.is_float(np.dtype(x.dtype))  # (bfloat16 included: its kind is "V")


def _zeros_signed(xp, r, neg):
    """``r`` with its zeros set to -0.0 where ``neg`` (a callable: computed only when ``r``
    has zeros), else +0.0."""
    if xp is np and np.count_nonzero(r) == r.size:  # (a third of ``(r == 0).any()``)
        return r
    zero = r == 0
    if not zero.any():
        return r
    z = r.dtype.type(0)
    return xp.where(zero, xp.where(neg(), -z, z), r)


def maximum(xp, x, y):
    r = xp.maximum(x, y)
    if not _is_float(r):
        return r
    # a zero maximum is -0 only if both operands carry the sign (-0 and -0, or -0 and < 0)
    return _zeros_signed(xp, r, lambda: xp.signbit(x) & xp.signbit(y))


def minimum(xp, x, y):
    r = xp.minimum(x, y)
    if not _is_float(r):
        return r
    return _zeros_signed(xp, r, lambda: xp.signbit(x) | xp.signbit(y))


def _signed_zero(xp, r, has_pos, dt):
    """Zeros of ``r`` set to +0 where ``has_pos`` else -0."""
    zero = dt.type(0)
    return xp.where(r == 0, xp.where(has_pos, zero, -zero), r)


def reduce(xp, x, axes, is_max):
    """max/min of ``x`` over ``axes`` (non-empty); zeros signed as by :func:`maximum`."""
    if xp is np:  # (np.max's own call, without its Python wrapper)
        r = (np.maximum if is_max else np.minimum).reduce(x, axis=axes)
    else:
        r = (xp.max if is_max else xp.min)(x, axis=axes)
    if not _is_float(x) or not (r == 0).any():
        return r
    neg = xp.signbit(x)
    has_pos = ((x == 0) & ~neg).any(axis=axes) if is_max else ~((x == 0) & neg).any(axis=axes)
    return _signed_zero(xp, r, has_pos, x.dtype)


def fold(xp, parts, is_max):
    """max/min of the same-shape arrays ``parts`` (non-empty), elementwise, zeros signed
    as by :func:`maximum`: one NumPy ``maximum``/``minimum`` per part, and the sign of a
    zero result fixed in one more pass over the parts' bits only where there is one."""
    parts = list(parts)
    op = xp.maximum if is_max else xp.minimum
    r = parts[0]
    for p in parts[1:]:
        r = op(r, p)          # (NaN propagates)
    if len(parts) == 1 or not _is_float(r):
        return r
    zero = r == 0
    if not zero.any():
        return r
    # where the result is zero every part is <= 0 (max) / >= 0 (min); as signed ints
    # of the same width +0 is 0 and every negative float (-0 included) is negative, so
    # the integer max is 0 exactly where a +0 is present, the integer min is negative
    # exactly where a -0 is present
    ints = np.dtype(f"i{r.dtype.itemsize}")
    bits = parts[0].view(ints)
    for p in parts[1:]:
        bits = op(bits, p.view(ints))
    neg = bits != 0 if is_max else bits < 0
    z = r.dtype.type(0)
    return xp.where(zero, xp.where(neg, -z, z), r)


def accumulate(xp, x, axis, is_max):
    """Running max/min along ``axis``, zeros signed as by :func:`maximum`."""
    r = ufunc_methods.accumulate(xp, "maximum" if is_max else "minimum", x, axis)
    if not _is_float(x) or not (r == 0).any():
        return r
    neg = xp.signbit(x)
    if is_max:
        has_pos = ufunc_methods.accumulate(xp, "logical_or", (x == 0) & ~neg, axis)
    else:
        has_pos = ~ufunc_methods.accumulate(xp, "logical_or", (x == 0) & neg, axis)
    return _signed_zero(xp, r, has_pos, x.dtype)


def combiner(xp, ufunc_name):
    """The elementwise combine of a scatter whose NumPy ufunc is ``ufunc_name``."""
    if ufunc_name == "maximum":
        return lambda x, y: maximum(xp, x, y)
    if ufunc_name == "minimum":
        return lambda x, y: minimum(xp, x, y)
    return getattr(xp, ufunc_name)


def ufunc_at(xp, ufunc_name, out, flat, values):
    """``ufunc.at(out, flat, values)`` in place, zeros of a max/min signed as by
    :func:`maximum`: the sign of a zero does not depend on the order of the updates."""
    if ufunc_name not in ("maximum", "minimum") or not _is_float(out):
        ufunc_methods.at(xp, ufunc_name, out, flat, values)
        return
    want_neg = ufunc_name == "minimum"  # the zero that wins: +0 for max, -0 for min
    winner = (out == 0) & (xp.signbit(out) == want_neg)
    ufunc_methods.at(xp, ufunc_name, out, flat, values)
    ufunc_methods.at(xp, "logical_or", winner, flat,
                     (values == 0) & (xp.signbit(values) == want_neg))
    zero = out.dtype.type(0)
    win, lose = (-zero, zero) if want_neg else (zero, -zero)
    out[...] = xp.where(out == 0, xp.where(winner, win, lose), out)
