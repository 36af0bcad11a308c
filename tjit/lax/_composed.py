"""``lax`` functions that JAX makes primitives and tjit composes from existing ones:
``clz`` (bit smearing and a population count), ``cumlogsumexp`` (a log-depth
Hillis-Steele scan of a stable logaddexp) and ``associative_scan`` (the same scan of a
user's associative function). As compositions they need no backend code and take jvp,
transpose and batching rules from their parts.
"""

import numpy as np

from tjit.lax import _elementwise as ew
from tjit.lax._elementwise import asarray_for_lax
from tjit.lax._slicing import concatenate, rev, slice_in_dim
from tjit.lax._structural import full_like
from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import is_symbolic, normalize_axis
from tjit.tracing.tree_util import tree_flatten, tree_unflatten


def clz(x):
    """Number of leading zero bits of each element of an integer array (the bit width
    for 0), in ``x``'s dtype, as ``jax.lax.clz``."""
    x = asarray_for_lax(x)
    if not dtypes.is_int(x.dtype) or dtypes.is_bool(x.dtype):
        raise TypeError(f"clz: takes integer arrays, got dtype {x.dtype}; convert with "
                        f"lax.convert_element_type(x, jnp.int32) first")
    if dtypes.is_small(x.dtype):
        # int4...: no unsigned type of their width to bitcast to; the clz of their bit
        # pattern in int32, less the 32 - bits leading zeros int32 adds
        bits = dtypes.bit_width(x.dtype)
        pattern = ew.bitwise_and(ew.convert_element_type(x, np.int32),
                                 np.array((1 << bits) - 1, np.int32))
        return ew.convert_element_type(ew.sub(clz(pattern), np.array(32 - bits, np.int32)),
                                       x.dtype)
    nbits = np.dtype(x.dtype).itemsize * 8
    u = ew.bitcast_convert_type(x, np.dtype(f"uint{nbits}"))
    # Smear the highest set bit into every lower position; the set bits then number
    # nbits - clz(x).
    shift = 1
    while shift < nbits:
        u = ew.bitwise_or(u, ew.shift_right_logical(u, np.array(shift, u.dtype)))
        shift *= 2
    zeros = ew.sub(np.array(nbits, u.dtype), ew.population_count(u))
    return ew.bitcast_convert_type(zeros, x.dtype)


def _logaddexp(a, b):
    """``log(exp(a) + exp(b))`` for floats: the larger plus ``log1p(exp(smaller - larger))``,
    with the larger and smaller *selected* from ``a`` and ``b`` (at a tie, ``a`` is the
    larger), so the expression is ``a + log1p(exp(b - a))`` or its mirror: analytic where
    it is used (exact second derivatives at ties; first derivatives 1/2 each), and the
    difference never meets -inf - (-inf) or inf - inf, so a -inf operand gives slopes 1
    and 0, not NaN. Equal infinities give themselves, with slopes 1/2 each; NaNs
    propagate."""
    a_larger = ew.ge(a, b)
    equal_infinities = ew.bitwise_and(ew.eq(a, b), ew.bitwise_not(ew.is_finite(a)))
    larger = ew.select(a_larger, a, b)
    smaller = ew.select(a_larger, b, a)
    larger = ew.select(equal_infinities, ew.mul(ew.add(a, b), full_like(a, 0.5)), larger)
    gap = ew.select(equal_infinities, full_like(a, 0), ew.sub(smaller, larger))
    return ew.add(larger, ew.log1p(ew.exp(gap)))


def cumlogsumexp(operand, axis=0, reverse=False):
    """Cumulative ``log(sum(exp(x)))`` along ``axis`` (from the end if ``reverse``),
    computed without overflow or early underflow, as ``jax.lax.cumlogsumexp``.

    Args:
      operand: a real floating array of rank >= 1.
      axis: the axis to accumulate along.
      reverse: accumulate from the last element towards the first.

    Returns:
      An array of ``operand``'s shape and dtype.
    """
    x = asarray_for_lax(operand)
    if x.ndim == 0:
        raise ShapeError("cumlogsumexp: needs an operand of rank >= 1, got shape ()")
    if not dtypes.is_float(x.dtype):
        raise TypeError(f"cumlogsumexp: takes real floating arrays, got dtype {x.dtype}; "
                        f"convert integers with lax.convert_element_type(x, jnp.float32)")
    axis = normalize_axis(axis, x.ndim, "cumlogsumexp")
    n = x.shape[axis]
    if is_symbolic(n):
        raise NotImplementedError(
            f"cumlogsumexp: the accumulated axis {axis} has symbolic size {n}; the scan's "
            f"depth depends on it, so trace with a concrete size along that axis")
    if reverse:
        x = rev(x, (axis,))
    # After the step with offset s, y[k] is the logsumexp of x[max(0, k-2s+1)..k].
    shift = 1
    while shift < n:
        head = slice_in_dim(x, 0, shift, axis=axis)
        combined = _logaddexp(slice_in_dim(x, shift, n, axis=axis),
                              slice_in_dim(x, 0, n - shift, axis=axis))
        x = concatenate([head, combined], axis)
        shift *= 2
    return rev(x, (axis,)) if reverse else x


def _scan_length(name, flat, axis):
    lengths = {x.shape[axis] for x in flat}
    if len(lengths) != 1:
        raise ShapeError(f"{name}: every array of elems needs the same size along axis "
                         f"{axis}, got shapes {[tuple(x.shape) for x in flat]}")
    (n,) = lengths
    if is_symbolic(n):
        raise NotImplementedError(
            f"{name}: the scanned axis {axis} has symbolic size {n}; the scan's depth "
            f"depends on it, so trace with a concrete size along that axis")
    return n


def associative_scan(fn, elems, reverse=False, axis=0):
    """Inclusive scan of an associative binary function, as ``jax.lax.associative_scan``:
    ``out[k] = fn(... fn(fn(e[0], e[1]), e[2]) ..., e[k])`` along ``axis`` (from the end
    if ``reverse``), in log depth (Hillis-Steele: ``ceil(log2 n)`` calls of ``fn``).

    Args:
      fn: ``fn(a, b)`` on two pytrees shaped as ``elems`` (slices along ``axis``, any
        length), elementwise along ``axis``; ``a`` holds the earlier elements. It must be
        associative; it need not be commutative.
      elems: a pytree of arrays of one size along ``axis``.
      reverse: scan from the last element towards the first.
      axis: the scanned axis.

    Returns:
      A pytree shaped as ``elems``.
    """
    flat, tree = tree_flatten(elems)
    if not flat:
        raise ValueError("associative_scan: elems must hold at least one array")
    flat = [asarray_for_lax(x) for x in flat]
    if any(x.ndim == 0 for x in flat):
        raise ShapeError(f"associative_scan: elems must be arrays of rank >= 1, got shapes "
                         f"{[tuple(x.shape) for x in flat]}")
    axis = normalize_axis(axis, flat[0].ndim, "associative_scan")
    n = _scan_length("associative_scan", flat, axis)

    def combine(a, b):
        out, out_tree = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        if out_tree != tree:
            raise TypeError(f"associative_scan: fn must return the structure of elems "
                            f"({tree}), got {out_tree}")
        return [asarray_for_lax(o) for o in out]

    if reverse:
        flat = [rev(x, (axis,)) for x in flat]
    # After the step with offset s, x[k] combines elements max(0, k-2s+1)..k.
    shift = 1
    while shift < n:
        done = combine([slice_in_dim(x, 0, n - shift, axis=axis) for x in flat],
                       [slice_in_dim(x, shift, n, axis=axis) for x in flat])
        flat = [concatenate([slice_in_dim(x, 0, shift, axis=axis), d.astype(x.dtype)], axis)
                for x, d in zip(flat, done)]
        shift *= 2
    if reverse:
        flat = [rev(x, (axis,)) for x in flat]
    return tree_unflatten(tree, flat)


__all__ = ["associative_scan", "clz", "cumlogsumexp"]
