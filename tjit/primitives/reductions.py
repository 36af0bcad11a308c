"""Reduction, cumulative, arg-reduction and sorting primitives.

* ``reduce_sum/prod/max/min/and/or/xor`` (param ``axes``: a tuple of dims): reducing an
  empty dim gives the identity (0, 1, -inf / the int minimum, +inf / the int maximum,
  all-ones, 0). Integer sums and products wrap as in XLA. Max/min propagate NaN and
  order -0.0 below +0.0, as the elementwise ``max``/``min`` (IEEE 754-2019).
* ``argmax/argmin`` (params ``axes=(axis,)``, ``index_dtype``): the first index of the
  extreme value; a NaN counts as the extreme, so the first NaN's index is returned.
* ``cumsum/cumprod/cummax/cummin`` (params ``axis``, ``reverse``).
* ``sort`` (multiple results): sorts all operands together along ``dimension``, ordered
  lexicographically by the first ``num_keys`` operands. The order is NumPy's: NaNs last,
  ``-0.0`` equal to ``0.0``; the sort is always stable.

Transformation rules (end of file): reduce_sum and cumsum are linear; reduce_max/min share
the tangent equally among ties (JAX's rule); reduce_prod multiplies each tangent by the
product of the other elements (exclusive cumulative products: exact with zeros); cumprod
scans (product, tangent) pairs in log depth, exact to all orders with zeros; cummax/cummin
differentiate the same scan of max/min pairs, splitting ties as JAX does; sort permutes the tangents
with a second sort and transposes by sorting the cotangents back; integer-valued ops have
zero derivatives. Every primitive batches by renumbering its axes around the batch dim.
"""

from typing import NamedTuple

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import never_weak
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import definitely_equal, shape_str
from tjit.primitives import ieee_minmax, sort_fast, ufunc_methods
from tjit.primitives.elementwise import _quiet
from tjit.primitives.base import (
    ANY, INT_OR_BOOL, NUMBER, as_dtype_out, check_dtype_kind, new_primitive)


def _check_axes(name, x, axes):
    if len(set(axes)) != len(axes) or any(
            type(a) is not int or not 0 <= a < x.ndim for a in axes):
        raise ShapeError(f"{name}: axes {axes} must be unique ints in [0, {x.ndim}) for an "
                         f"operand of shape {shape_str(x.shape)}")


def _reduced_shape(shape, axes):
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _is_empty_reduction(x, axes):
    return any(x.shape[a] == 0 for a in axes)


# -- identities --------------------------------------------------------------------------
def _lowest(dt):
    if dtypes.is_bool(dt):
        return False
    return dtypes.lowest(dt)


def _highest(dt):
    if dtypes.is_bool(dt):
        return True
    return dtypes.highest(dt)


def _all_ones(dt):
    if dtypes.is_bool(dt):
        return True
    return dtypes.iinfo(dt).max if dtypes.is_unsigned(dt) else -1


# -- reductions -----------------------------------------------------------------------------
# float16, bfloat16 and the float8/6/4s are summed in float32, as XLA on CPU (bfloat16
# alone stalls: 32 + 0.1 is 32; a float8 sum of forty 10s stalls at 256)
def _sum_impl(xp, x, axes):
    if dtypes.computes_in_float32(x.dtype):
        return xp.sum(x, axis=axes, dtype=np.float32)
    return xp.sum(x, axis=axes, dtype=x.dtype)


def _prod_impl(xp, x, axes):
    if dtypes.computes_in_float32(x.dtype):
        return xp.prod(x, axis=axes, dtype=np.float32)
    return xp.prod(x, axis=axes, dtype=x.dtype)


def _extreme(fn, identity):
    def impl(xp, x, axes):
        if _is_empty_reduction(x, axes):
            return xp.full(_reduced_shape(x.shape, axes), identity(x.dtype), dtype=x.dtype)
        return fn(xp)(x, axis=axes)
    return impl


def _bitwise(ufunc_name, logical_name, identity):
    def impl(xp, x, axes):
        if _is_empty_reduction(x, axes):
            return xp.full(_reduced_shape(x.shape, axes), identity(x.dtype), dtype=x.dtype)
        name = logical_name if dtypes.is_bool(x.dtype) else ufunc_name
        for a in sorted(axes, reverse=True):  # one axis at a time: indices stay valid
            x = ufunc_methods.reduce(xp, name, x, a)   # (CuPy's reduce: add/multiply only)
        return x
    return impl


def _reduction(name, impl, kind):
    p = new_primitive(name)

    def abstract_eval(x, *, axes):
        check_dtype_kind(name, kind, x)
        _check_axes(name, x, axes)
        return ShapedArray(_reduced_shape(x.shape, axes), x.dtype)

    def full_impl(xp, x, *, axes):
        x = xp.asarray(x)
        return as_dtype_out(xp, impl(xp, x, tuple(axes)), x.dtype)

    p.def_abstract_eval(abstract_eval)
    p.def_impl(_quiet(full_impl))  # inf - inf, overflow: NaN/inf without a warning (JAX)
    return p


reduce_sum_p = _reduction("reduce_sum", _sum_impl, NUMBER)
reduce_prod_p = _reduction("reduce_prod", _prod_impl, NUMBER)
# max/min order -0.0 below +0.0 (IEEE 754-2019), so the sign of a zero result does not
# depend on the order the elements are visited in (see primitives/ieee_minmax.py)
reduce_max_p = _reduction("reduce_max", _extreme(
    lambda xp: lambda x, axis: ieee_minmax.reduce(xp, x, axis, True), _lowest), ANY)
reduce_min_p = _reduction("reduce_min", _extreme(
    lambda xp: lambda x, axis: ieee_minmax.reduce(xp, x, axis, False), _highest), ANY)
reduce_and_p = _reduction("reduce_and", _bitwise("bitwise_and", "logical_and", _all_ones),
                          INT_OR_BOOL)
reduce_or_p = _reduction("reduce_or", _bitwise("bitwise_or", "logical_or",
                                               lambda dt: 0), INT_OR_BOOL)
reduce_xor_p = _reduction("reduce_xor", _bitwise("bitwise_xor", "logical_xor",
                                                 lambda dt: 0), INT_OR_BOOL)


# -- argmax / argmin ------------------------------------------------------------------------
def _arg_reduction(name, np_name):
    p = new_primitive(name)

    def abstract_eval(x, *, axes, index_dtype):
        _check_axes(name, x, axes)
        if len(axes) != 1:
            raise ShapeError(f"{name}: reduces exactly one axis, got axes {axes}")
        if not dtypes.is_int(index_dtype):
            raise TypeError(f"{name}: index_dtype must be an integer dtype, got "
                            f"{index_dtype}")
        if x.shape[axes[0]] == 0:
            raise ShapeError(f"{name}: the reduced dimension {axes[0]} of shape "
                             f"{shape_str(x.shape)} is empty; {name} needs at least one "
                             f"element (there is no identity for an index)")
        return ShapedArray(_reduced_shape(x.shape, axes), index_dtype)

    def impl(xp, x, *, axes, index_dtype):
        # NumPy's argmax/argmin already return the first NaN when one is present.
        return as_dtype_out(xp, getattr(xp, np_name)(xp.asarray(x), axis=axes[0]),
                            index_dtype)

    p.def_abstract_eval(abstract_eval)
    p.def_impl(impl)
    p.def_weak_type(never_weak)
    p.not_differentiable = True  # integer output
    return p


argmax_p = _arg_reduction("argmax", "argmax")
argmin_p = _arg_reduction("argmin", "argmin")


# -- cumulative ops -------------------------------------------------------------------------
def _cumulative(name, scan, kind):
    p = new_primitive(name)

    def abstract_eval(x, *, axis, reverse):
        check_dtype_kind(name, kind, x)
        if type(axis) is not int or not 0 <= axis < x.ndim:
            raise ShapeError(f"{name}: axis {axis} is out of range for an operand of shape "
                             f"{shape_str(x.shape)} (cumulative ops need rank >= 1)")
        return ShapedArray(x.shape, x.dtype)

    def impl(xp, x, *, axis, reverse):
        x = xp.asarray(x)
        if reverse:
            x = xp.flip(x, axis=axis)
        out = as_dtype_out(xp, scan(xp, x, axis), x.dtype)
        return xp.flip(out, axis=axis) if reverse else out

    p.def_abstract_eval(abstract_eval)
    p.def_impl(_quiet(impl))
    return p


def _acc_dtype(x):
    return np.float32 if dtypes.computes_in_float32(x.dtype) else x.dtype


cumsum_p = _cumulative("cumsum", lambda xp, x, a: xp.cumsum(x, axis=a, dtype=_acc_dtype(x)),
                       NUMBER)
cumprod_p = _cumulative("cumprod", lambda xp, x, a: xp.cumprod(x, axis=a,
                                                               dtype=_acc_dtype(x)), NUMBER)
cummax_p = _cumulative("cummax", lambda xp, x, a: ieee_minmax.accumulate(xp, x, a, True), ANY)
cummin_p = _cumulative("cummin", lambda xp, x, a: ieee_minmax.accumulate(xp, x, a, False), ANY)


# -- sort -----------------------------------------------------------------------------------
sort_p = new_primitive("sort", multiple_results=True)


@sort_p.def_abstract_eval
def _sort_abstract(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise ShapeError("sort: needs at least one operand")
    s0 = operands[0].shape
    shapes = ", ".join(shape_str(o.shape) for o in operands)
    for o in operands[1:]:
        if o.ndim != len(s0) or not all(definitely_equal(a, b) for a, b in zip(o.shape, s0)):
            raise ShapeError(f"sort: all operands must have the same shape, got {shapes}")
    if not 0 <= dimension < len(s0):
        raise ShapeError(f"sort: dimension {dimension} is out of range for operands of shape "
                         f"{shape_str(s0)} (sort needs rank >= 1)")
    if type(num_keys) is not int or not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys must be between 1 and the number of operands "
                         f"({len(operands)}), got {num_keys}")
    return [ShapedArray(o.shape, o.dtype) for o in operands]


@sort_p.def_impl
def _sort_impl(xp, *operands, dimension, is_stable, num_keys):
    operands = [xp.asarray(o) for o in operands]
    if num_keys == 1:
        fast = sort_fast.sort_one_key(xp, operands, dimension)
        if fast is not None:
            return fast
    # Least significant key first: each stable argsort keeps the order of the previous
    # pass among ties, which yields the lexicographic order over all keys.
    perm = None
    for key in reversed(operands[:num_keys]):
        if perm is not None:
            key = xp.take_along_axis(key, perm, axis=dimension)
        if key.dtype in dtypes.ML_FLOATS:
            # ml_dtypes' sort of bfloat16/float8 stops at a NaN ([3, nan, -1] stays so);
            # float32 holds their values exactly and NumPy sorts its NaNs last
            key = key.astype(np.float32)
        order = xp.argsort(key, axis=dimension, kind="stable")
        perm = order if perm is None else xp.take_along_axis(perm, order, axis=dimension)
    return [xp.take_along_axis(o, perm, axis=dimension) for o in operands]


sort_p.def_weak_type(lambda *weak, **_: list(weak))  # each output keeps its operand's


# -- top_k ----------------------------------------------------------------------------------
# The k largest entries along ``dimension`` and their int32 indices, largest first; ties
# (and -0.0 beside 0.0) keep the lower index first, NaNs count as largest. A selection, not
# a sort: the k-th largest key per row comes from a partition (linear time), so a (1024,
# 1024) top-8 costs a few passes over the data instead of a stable argsort of every row.
top_k_p = new_primitive("top_k", multiple_results=True)


@top_k_p.def_abstract_eval
def _top_k_abstract(operand, *, k, dimension):
    if not 0 <= dimension < operand.ndim:
        raise ShapeError(f"top_k: dimension {dimension} is out of range for an operand of "
                         f"shape {shape_str(operand.shape)} (top_k needs rank >= 1)")
    n = operand.shape[dimension]
    if type(k) is not int or k < 0 or (type(n) is int and k > n):
        raise ValueError(f"top_k: k={k} must be an int between 0 and the size {n} of "
                         f"dimension {dimension} of the operand of shape "
                         f"{shape_str(operand.shape)}")
    if dtypes.is_complex(operand.dtype):
        raise TypeError(f"top_k: complex operands have no order ({operand.str_short()})")
    shape = operand.shape[:dimension] + (k,) + operand.shape[dimension + 1:]
    return [ShapedArray(shape, operand.dtype), ShapedArray(shape, np.dtype(np.int32))]


def _top_k_key(xp, x):
    """Values ordered as ``x`` in top_k's order (NaN above +inf, -0.0 equal to 0.0) that
    partition and compare directly: ``x`` itself unless it holds NaNs (then the IEEE bits
    as integers, every NaN the largest) or is bool or a narrow float (widened)."""
    if x.dtype == np.bool_:
        return x.view(np.int8)
    if dtypes.is_int(x.dtype) or x.dtype in (np.float32, np.float64):
        f = x
    else:
        f = x.astype(np.float32)       # float16/bfloat16: exact in float32
    if dtypes.is_int(f.dtype) or not bool(xp.isnan(f).any()):
        return f
    int_t = np.dtype(np.int64 if f.dtype == np.float64 else np.int32).type
    bits = (f + 0.0).view(int_t)      # -0.0 + 0.0 is +0.0
    # negative floats' bits count down as the value does: flip their magnitude bits
    bits = bits ^ ((bits >> (8 * bits.itemsize - 1)) & int_t(np.iinfo(int_t).max))
    return xp.where(xp.isnan(f), int_t(np.iinfo(int_t).max), bits)


#: Rows at least this long, with k at most a quarter of their blocks, select among the
#: blocks that can hold the top k first (``_top_k_candidates``); TOP_K_BLOCK elements a block.
TOP_K_MIN_ROW = 256
TOP_K_BLOCK = 16


#: Rows at most this long are ordered by one stable sort (a partition and its tie
#: bookkeeping cost more NumPy calls than sorting a short row does)
TOP_K_SORT_ROW = 128


def _descending(key):
    """Keys whose ascending order is ``key``'s descending one (ints: ~, no overflow)."""
    return ~key if dtypes.is_int(key.dtype) else -key


def _along_last(xp, a, idx):
    """``take_along_axis(a, idx, axis=-1)``; a 1-D row indexes directly (NumPy's
    take_along_axis builds its index grid in Python)."""
    return a[idx] if a.ndim == 1 else xp.take_along_axis(a, idx, axis=-1)


def _top_k_order(xp, key, k):
    """Indices of the k largest of each row of ``key`` (0 < k), largest first, ties in
    ascending index order."""
    n, batch = key.shape[-1], key.shape[:-1]
    if n <= TOP_K_SORT_ROW:   # that order is the stable sort's, descending
        return xp.argsort(_descending(key), axis=-1, kind="stable")[..., :k]
    if k == n:
        idx = xp.broadcast_to(xp.arange(k), key.shape)
    else:   # everything above the k-th largest key, then its ties by index
        kth = xp.partition(key, n - k, axis=-1)[..., n - k:n - k + 1]
        above, tied = key > kth, key == kth
        room = k - above.sum(axis=-1, keepdims=True)
        if not bool((tied.sum(axis=-1, keepdims=True) == room).all()):
            tied &= xp.cumsum(tied, axis=-1) <= room    # too many ties: the first ones
        idx = xp.nonzero((above | tied).reshape(-1, n))[1].reshape(batch + (k,))
    picked = _along_last(xp, key, idx)
    return _along_last(xp, idx, xp.argsort(_descending(picked), axis=-1, kind="stable"))


def _top_k_candidates(xp, key, k):
    """Ascending indices, per row, of a few blocks that hold the row's k largest, or None.

    Block b of a row is ``{b, b + nb, b + 2 nb, ...}`` (one strided max reduces them all).
    At least k keys reach the k-th largest block maximum M (the maxima of the top k
    blocks), so every top-k key is >= M and lies in a block whose maximum is >= M: those
    blocks (and, to give every row as many, a few more) hold the answer. None when ties
    make them more than half the row."""
    n, batch = key.shape[-1], key.shape[:-1]
    nb = n // TOP_K_BLOCK
    block_max = key.reshape(batch + (TOP_K_BLOCK, nb)).max(axis=-2)
    m = xp.partition(block_max, nb - k, axis=-1)[..., nb - k:nb - k + 1]
    holds = block_max >= m
    c = int(holds.sum(axis=-1).max())
    if 2 * c > nb:
        return None
    blocks = xp.argsort(~holds, axis=-1, kind="stable")[..., :c]     # those first
    pos = blocks[..., None] + nb * xp.arange(TOP_K_BLOCK)
    return xp.sort(pos.reshape(batch + (c * TOP_K_BLOCK,)), axis=-1)


@top_k_p.def_impl
def _top_k_impl(xp, operand, *, k, dimension):
    x = xp.asarray(operand)
    last = dimension in (-1, x.ndim - 1)   # (moveaxis costs ~2 us a call even then)
    if not last:
        x = xp.moveaxis(x, dimension, -1)
    n = x.shape[-1]
    key = _top_k_key(xp, x)
    pos = None
    if 0 < k and 4 * k * TOP_K_BLOCK <= n and n >= TOP_K_MIN_ROW and \
            n % TOP_K_BLOCK == 0 and x.size:
        pos = _top_k_candidates(xp, key, k)
    if k == 0:
        idx = xp.zeros(x.shape[:-1] + (0,), np.int64)
    elif pos is None:
        idx = _top_k_order(xp, key, k)
    else:
        sub = _top_k_order(xp, _along_last(xp, key, pos), k)
        idx = _along_last(xp, pos, sub)
    vals, idx = _along_last(xp, x, idx), idx.astype(np.int32)
    if last:
        return [vals, idx]
    return [xp.moveaxis(vals, -1, dimension), xp.moveaxis(idx, -1, dimension)]


top_k_p.def_weak_type(lambda weak, **_: [weak, False])  # the indices are never weak


__all__ = ["reduce_sum_p", "reduce_prod_p", "reduce_max_p", "reduce_min_p", "reduce_and_p",
           "reduce_or_p", "reduce_xor_p", "argmax_p", "argmin_p", "cumsum_p", "cumprod_p",
           "cummax_p", "cummin_p", "sort_p", "top_k_p"]


# -- transformation rules -------------------------------------------------------------------
# (jvp / transpose / batching; see primitives/rules.py for the helpers' contracts)
from tjit.tracing.core import get_aval as _aval  # noqa: E402
from tjit.primitives import rules as _r  # noqa: E402
from tjit.primitives.elementwise import (  # noqa: E402
    _balanced_eq, add_p, convert_element_type_p, div_p, eq_p, max_p, min_p, mul_p, select_n_p)
from tjit.primitives.structural import broadcast_in_dim_p, iota_p  # noqa: E402


def _shape(x):
    return tuple(_aval(x).shape)


def _convert(x, dtype):
    return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=False)


def _kept_dims(ndim, axes):
    return tuple(i for i in range(ndim) if i not in axes)


def _unreduce(y, shape, axes):
    """Broadcast a reduction's result ``y`` back over the reduced ``axes`` of ``shape``."""
    return broadcast_in_dim_p.bind(y, shape=tuple(shape),
                                   broadcast_dimensions=_kept_dims(len(shape), axes))


def _has_empty_axis(shape, axes):
    return any(type(shape[a]) is int and shape[a] == 0 for a in axes)


# Batching: a reduction's axes are renumbered around the batch dim, which survives.
def _reduction_batch(prim):
    def rule(args, dims, *, axes, **params):
        (x,), (d,) = args, dims
        new_axes = tuple(a + (a >= d) for a in axes)
        out_dim = d - sum(1 for a in new_axes if a < d)
        return prim.bind(x, axes=new_axes, **params), out_dim
    prim.batch = rule
    return rule


for _p in (reduce_sum_p, reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p,
           reduce_or_p, reduce_xor_p, argmax_p, argmin_p):
    _reduction_batch(_p)

# Integer/bool-valued results: nothing to differentiate.
for _p in (reduce_and_p, reduce_or_p, reduce_xor_p, argmax_p, argmin_p):
    _r.defjvp_zero(_p)
    _p.not_differentiable = True


# reduce_sum: linear; its transpose broadcasts the cotangent back over the reduced axes.
def _reduce_sum_transpose(ct, x, *, axes):
    if type(ct) is _r.Zero:
        return [_r.Zero(x.aval)]
    return [_unreduce(ct, x.aval.shape, axes)]


_r.deflinear(reduce_sum_p, _reduce_sum_transpose)


# reduce_max / reduce_min: JAX's rule. The tangent is the mean of the tangents at the
# positions attaining the extreme (ties share it equally).
def _chooser_jvp(prim):
    def rule(primals, tangents, *, axes):
        (x,), (g,) = primals, tangents
        ans = prim.bind(x, axes=axes)
        if type(g) is _r.Zero:
            return ans, _r.Zero.from_value(ans)
        shape = _shape(x)
        if _has_empty_axis(shape, axes):  # the identity does not depend on x
            return ans, _r.Zero.from_value(ans)
        where = _convert(eq_p.bind(x, _unreduce(ans, shape, axes)), _aval(x).dtype)
        counts = reduce_sum_p.bind(where, axes=axes)
        return ans, div_p.bind(reduce_sum_p.bind(mul_p.bind(g, where), axes=axes), counts)
    prim.jvp = rule
    return rule


_chooser_jvp(reduce_max_p)
_chooser_jvp(reduce_min_p)


# reduce_prod: d prod / d x_i is the product of all the *other* reduced elements, which
# we build from exclusive cumulative products (no division), so the rule is exact with
# any number of zeros; so are its higher derivatives (they go through cumprod's jvp, exact
# to all orders).
def _shifted(x, axis, amount, dtype):
    """``x`` shifted by ``amount`` (+1: towards higher indices) along ``axis``, the
    vacated end filled with 1."""
    from tjit.primitives.slicing import pad_p
    cfg = tuple((amount, -amount, 0) if i == axis else (0, 0, 0)
                for i in range(len(_shape(x))))
    return pad_p.bind(x, np.ones((), dtype), padding_config=cfg)


def _exclusive_prod(x, axis):
    """out[..., i, ...] = product of x along ``axis`` over every index except i."""
    dt = _aval(x).dtype
    before = cumprod_p.bind(_shifted(x, axis, 1, dt), axis=axis, reverse=False)
    after = cumprod_p.bind(_shifted(x, axis, -1, dt), axis=axis, reverse=True)
    return mul_p.bind(before, after)


def _prod_of_others(x, axes):
    """Per element: the product over the reduced ``axes`` (sorted) of every other element.
    Splits on the first axis: other rows of it (whole) times other elements of this row."""
    first, rest = axes[0], axes[1:]
    if not rest:
        return _exclusive_prod(x, first)
    rows = reduce_prod_p.bind(x, axes=rest)  # ``first`` keeps its position (rest > first)
    other_rows = _unreduce(_exclusive_prod(rows, first), _shape(x), rest)
    return mul_p.bind(other_rows, _prod_of_others(x, rest))


def _reduce_prod_jvp(primals, tangents, *, axes):
    (x,), (g,) = primals, tangents
    ans = reduce_prod_p.bind(x, axes=axes)
    if type(g) is _r.Zero:
        return ans, _r.Zero.from_value(ans)
    if not axes:
        return ans, g
    others = _prod_of_others(x, tuple(sorted(axes)))
    return ans, reduce_sum_p.bind(mul_p.bind(g, others), axes=axes)


reduce_prod_p.jvp = _reduce_prod_jvp


# -- cumulative ops -----------------------------------------------------------------------
def _cumulative_batch(prim):
    def rule(args, dims, *, axis, reverse):
        (x,), (d,) = args, dims
        return prim.bind(x, axis=axis + (axis >= d), reverse=reverse), d
    prim.batch = rule
    return rule


for _p in (cumsum_p, cumprod_p, cummax_p, cummin_p):
    _cumulative_batch(_p)


# cumsum: linear; the transpose accumulates the cotangent from the other end.
def _cumsum_transpose(ct, x, *, axis, reverse):
    if type(ct) is _r.Zero:
        return [_r.Zero(x.aval)]
    return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


_r.deflinear(cumsum_p, _cumsum_transpose)


def _cumprod_tangent_first_order(x, g, params):
    """cumprod's tangent where the scanned axis has symbolic size (no log-depth scan): with
    z_k zeros among the elements scanned up to k and x' = x with zeros replaced by 1,
    y'_k = cumprod(x')_k:
      z_k = 0: dy_k = y_k * sum_{j<=k} g_j / x_j     (= y'_k * cumsum(g / x')_k)
      z_k = 1: dy_k = g_zero * y'_k                  (only the zero's own term survives)
      z_k >= 2: dy_k = 0.
    Exact to first order with any number of zeros; its own derivative is exact only where
    the prefix holds no zero (the zero-count masks are piecewise constant)."""
    dt = _aval(x).dtype
    is_zero = eq_p.bind(x, np.zeros((), dt))
    ones = broadcast_in_dim_p.bind(np.ones((), dt), shape=_shape(x), broadcast_dimensions=())
    x1 = select_n_p.bind(is_zero, x, ones)
    y1 = cumprod_p.bind(x1, **params)
    zeros_seen = cumsum_p.bind(_convert(is_zero, np.int32), **params)
    none_yet = _convert(eq_p.bind(zeros_seen, np.zeros((), np.int32)), dt)
    one_so_far = _convert(eq_p.bind(zeros_seen, np.ones((), np.int32)), dt)
    no_zero_part = mul_p.bind(cumsum_p.bind(div_p.bind(g, x1), **params), none_yet)
    one_zero_part = mul_p.bind(cumsum_p.bind(mul_p.bind(g, _convert(is_zero, dt)), **params),
                               one_so_far)
    return mul_p.bind(y1, add_p.bind(no_zero_part, one_zero_part))


def _cumprod_jvp(primals, tangents, *, axis, reverse):
    """dy_k = sum_{j<=k} g_j prod_{i<=k, i!=j} x_i, as the inclusive scan of the pairs
    (x_j, g_j) under (a, da) . (b, db) = (a b, da b + a db) (``_product_scan``: slices,
    products, sums and pads, with no division and no zero masks), so the rule and all
    of its own derivatives are exact with any number of zeros. Along an axis of symbolic
    size the scan's depth is unknown, and the closed form of
    ``_cumprod_tangent_first_order`` (exact to first order only) is used instead."""
    (x,), (g,) = primals, tangents
    params = dict(axis=axis, reverse=reverse)
    y = cumprod_p.bind(x, **params)
    if type(g) is _r.Zero:
        return y, _r.Zero.from_value(y)
    if not isinstance(_shape(x)[axis], (int, np.integer)):  # (the scan's depth: unknown)
        return y, _cumprod_tangent_first_order(x, g, params)
    return y, _scanned_tangent(x, g, axis, reverse, _product_pair)


def _product_pair(a, da, b, db):  # a before b
    return mul_p.bind(a, b), add_p.bind(mul_p.bind(da, b), mul_p.bind(a, db))


def _scanned_tangent(x, g, axis, reverse, combine):
    """The tangent of the inclusive scan of (x, g) pairs under ``combine`` along ``axis``
    (of constant length), from the end when ``reverse``."""
    from tjit.primitives.slicing import rev_p
    if reverse:
        x, g = rev_p.bind(x, dimensions=(axis,)), rev_p.bind(g, dimensions=(axis,))
    tan = _product_scan(x, g, axis, _shape(x)[axis], _aval(x).dtype, combine)[1]
    return rev_p.bind(tan, dimensions=(axis,)) if reverse else tan


def _product_scan(prod, tan, axis, n, dt, combine=_product_pair):
    """Inclusive scan along ``axis`` (length ``n``) of (value, tangent) pairs under
    ``combine`` (default (a, da) . (b, db) = (a b, da b + a db)), by odd-even recursion
    (combine neighbours, scan the half, fix up the rest; the tree of JAX's
    associative_scan): O(n) combines in 2 log2(n) levels."""
    from tjit.primitives.slicing import concatenate_p, pad_p, slice_p
    if n < 2:
        return prod, tan
    nd = len(_shape(prod))

    def take(v, start, stop, stride=1):
        lo, hi, st = [0] * nd, list(_shape(v)), [1] * nd
        lo[axis], hi[axis], st[axis] = start, stop, stride
        return slice_p.bind(v, start_indices=tuple(lo), limit_indices=tuple(hi),
                            strides=tuple(st))

    half = n // 2
    # pairs (0, 1), (2, 3), ...: their scan is the scan at the odd positions
    odd = _product_scan(*combine(take(prod, 0, 2 * half, 2), take(tan, 0, 2 * half, 2),
                                 take(prod, 1, 2 * half, 2), take(tan, 1, 2 * half, 2)),
                        axis, half, dt, combine)
    # even positions 2i (i >= 1): the scan up to 2i - 1 combined with element 2i
    n_even = (n - 1) // 2
    even = combine(take(odd[0], 0, n_even), take(odd[1], 0, n_even),
                   take(prod, 2, n, 2), take(tan, 2, n, 2))
    even = [concatenate_p.bind(take(v, 0, 1), e, dimension=axis)
            for v, e in zip((prod, tan), even)]

    def interleave(ev, od):  # ev at 0, 2, 4, ...; od at 1, 3, ...; zeros elsewhere
        zero = np.zeros((), dt)
        cfg = lambda lo, count: tuple(
            (lo, n - lo - (2 * count - 1), 1) if i == axis else (0, 0, 0) for i in range(nd))
        return add_p.bind(pad_p.bind(ev, zero, padding_config=cfg(0, n - half)),
                          pad_p.bind(od, zero, padding_config=cfg(1, half)))
    return interleave(even[0], odd[0]), interleave(even[1], odd[1])


cumprod_p.jvp = _cumprod_jvp


def _take_along(g, idx, axis):
    """``g`` indexed along ``axis`` by the integer array ``idx``, shaped as ``g`` but for
    its length along ``axis`` (``take_along_axis``), as a gather batched over every other
    dim."""
    from tjit.primitives.indexing import GatherDimensionNumbers, GatherScatterMode, gather_p
    shape = _shape(idx)
    nd = len(shape)
    others = tuple(i for i in range(nd) if i != axis)
    starts = broadcast_in_dim_p.bind(idx, shape=shape + (1,),
                                     broadcast_dimensions=tuple(range(nd)))
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                start_index_map=(axis,), operand_batching_dims=others,
                                start_indices_batching_dims=others)
    return gather_p.bind(g, starts, dimension_numbers=dn, slice_sizes=(1,) * nd,
                         mode=GatherScatterMode.CLIP, fill_value=None,
                         indices_are_sorted=False, unique_indices=False)


def _cum_chooser_jvp(prim):
    """The tangent of a running max/min is the tangent of the element it came from: the
    latest position (in scan order) up to k where x equals the running extreme. On ties
    that is the latest tied element (JAX, deriving the rule from a scan, splits ties)."""
    def rule(primals, tangents, *, axis, reverse):
        (x,), (g,) = primals, tangents
        y = prim.bind(x, axis=axis, reverse=reverse)
        if type(g) is _r.Zero:
            return y, _r.Zero.from_value(y)
        shape = _shape(x)
        pos = iota_p.bind(dtype=np.dtype(np.int32), shape=shape, dimension=axis)
        hit = eq_p.bind(x, y)
        # Scan start always hits (except NaN); elsewhere the fill loses the running pick.
        fill = np.asarray(np.iinfo(np.int32).max if reverse else 0, np.int32)
        fill = broadcast_in_dim_p.bind(fill, shape=shape, broadcast_dimensions=())
        marks = select_n_p.bind(hit, fill, pos)
        source = (cummin_p if reverse else cummax_p).bind(marks, axis=axis, reverse=reverse)
        return y, _take_along(g, source, axis)
    return rule


def _cum_extreme_jvp(prim, extreme_p):
    """JAX's rule (loops.py ``_cumulative_jvp_rule``): the tangent of the associative
    scan of ``lax.max``/``lax.min``, whose own jvp splits a tie's tangent equally, so tied
    elements share it in the proportions of the scan's odd-even tree (the tree of JAX's
    associative_scan, shared with cumprod's rule). Along an axis of symbolic size, whose
    tree is unknown, the tangent of the latest tied element (``_cum_chooser_jvp``)."""
    chooser = _cum_chooser_jvp(prim)

    def pair(a, da, b, db):  # a before b
        v = extreme_p.bind(a, b)
        return v, add_p.bind(mul_p.bind(da, _balanced_eq(a, v, b)),
                             mul_p.bind(db, _balanced_eq(b, v, a)))

    def rule(primals, tangents, *, axis, reverse):
        (x,), (g,) = primals, tangents
        n = _shape(x)[axis]
        if type(g) is _r.Zero or not isinstance(n, (int, np.integer)):
            return chooser(primals, tangents, axis=axis, reverse=reverse)
        return (prim.bind(x, axis=axis, reverse=reverse),
                _scanned_tangent(x, g, axis, reverse, pair))
    prim.jvp = rule


_cum_extreme_jvp(cummax_p, max_p)
_cum_extreme_jvp(cummin_p, min_p)


# -- sort --------------------------------------------------------------------------------------
# jvp: the tangents are sorted along with the keys (a second sort, so that the primal
# results stay known values under linearize). Transpose (linear in the non-key operands,
# with known keys): undo the permutation by sorting the cotangents by the permutation.
def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    params = dict(dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    out = sort_p.bind(*primals, **params)
    live = [i for i, t in enumerate(tangents) if type(t) is not _r.Zero]
    t_out = [_r.Zero.from_value(o) for o in out]
    if live:
        moved = sort_p.bind(*primals[:num_keys], *[tangents[i] for i in live], **params)
        for i, t in zip(live, moved[num_keys:]):
            t_out[i] = t
    return out, t_out


def _sort_transpose(cts, *operands, dimension, is_stable, num_keys):
    keys = operands[:num_keys]
    if any(_r.is_undefined_primal(k) for k in keys):
        raise ValueError("sort: cannot transpose with respect to the sort keys (sort is "
                         "linear only in its non-key operands)")
    res = [None] * len(operands)
    live = [i for i in range(num_keys, len(operands))
            if _r.is_undefined_primal(operands[i]) and type(cts[i]) is not _r.Zero]
    for i in range(num_keys, len(operands)):
        if _r.is_undefined_primal(operands[i]) and type(cts[i]) is _r.Zero:
            res[i] = cts[i]
    if not live:
        return res
    shape = _shape(keys[0])
    iota = iota_p.bind(dtype=np.dtype(np.int32), shape=shape, dimension=dimension)
    perm = sort_p.bind(*keys, iota, dimension=dimension, is_stable=True,
                       num_keys=num_keys)[-1]
    back = sort_p.bind(perm, *[cts[i] for i in live], dimension=dimension, is_stable=True,
                       num_keys=1)
    for i, c in zip(live, back[1:]):
        res[i] = c
    return res


sort_p.jvp = _sort_jvp
sort_p.transpose = _sort_transpose


def _sort_batch(args, dims, *, dimension, is_stable, num_keys):
    size = next(_shape(a)[d] for a, d in zip(args, dims) if d is not None)
    ops = [_r.bdim_at_front(a, d, size) for a, d in zip(args, dims)]
    out = sort_p.bind(*ops, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return out, [0] * len(out)


sort_p.batch = _sort_batch


# top_k: the values' tangent is the tangent at the chosen indices (ties: the first
# index's, as JAX's gather-based rule); the indices are integers.
def _top_k_jvp(primals, tangents, *, k, dimension):
    (x,), (g,) = primals, tangents
    vals, idx = top_k_p.bind(x, k=k, dimension=dimension)
    t = _r.Zero.from_value(vals) if type(g) is _r.Zero else _take_along(g, idx, dimension)
    return [vals, idx], [t, _r.Zero.from_value(idx)]


def _top_k_batch(args, dims, *, k, dimension):
    (x,), (d,) = args, dims
    out = top_k_p.bind(_r.bdim_at_front(x, d, None), k=k, dimension=dimension + 1)
    return out, [0, 0]


top_k_p.jvp = _top_k_jvp
top_k_p.batch = _top_k_batch


# -- lowerings to the HLO-like graph (ctx: xla_like.hlo.Builder) ----------------------------
def _reduce_lowering(monoid, bool_only=False):
    def rule(ctx, x, *, axes):
        if bool_only and x.dtype != np.bool_:
            return NotImplemented  # bitwise and/or on integers: library call
        return ctx.add("reduce", (x,), ctx.avals_out[0].shape, x.dtype,
                       axes=tuple(sorted(axes)), monoid=monoid)
    return rule


reduce_sum_p.lowering = _reduce_lowering("sum")
reduce_prod_p.lowering = _reduce_lowering("prod")
reduce_max_p.lowering = _reduce_lowering("max")
reduce_min_p.lowering = _reduce_lowering("min")
reduce_and_p.lowering = _reduce_lowering("and", bool_only=True)
reduce_or_p.lowering = _reduce_lowering("or", bool_only=True)


# argmax / argmin as two fusable reductions (no index-carrying monoid needed, so every
# backend renders them): m = max/min(x) along the axis (NaN-propagating), then the least
# index i where x[i] == m, or where x[i] is NaN (then m is NaN and no x[i] == m, so this
# is the first NaN). -0.0 == +0.0, so signed zeros tie by first index, as NumPy and JAX.
def _arg_lowering(monoid):
    def rule(ctx, x, *, axes, index_dtype):
        (axis,), idx_dt = axes, np.dtype(index_dtype)
        n, top = x.shape[axis], np.iinfo(idx_dt).max
        if isinstance(n, (int, np.integer)) and n > top:
            return NotImplemented  # indices do not fit index_dtype: library call
        out_shape = ctx.avals_out[0].shape
        kept = _kept_dims(x.ndim, axes)
        m = ctx.add("reduce", (x,), out_shape, x.dtype, axes=axes, monoid=monoid)
        hit = ctx.elementwise("eq", [x, ctx.broadcast(m, x.shape, kept)])
        if dtypes.is_float(x.dtype):
            hit = ctx.elementwise("or", [hit, ctx.elementwise("ne", [x, x])])
        pos = ctx.add("iota", (), x.shape, idx_dt, dimension=axis)
        # ``top`` where x is not the extreme: never the least, as some index always hits
        miss = ctx.broadcast(ctx.constant(top, idx_dt), x.shape, ())
        cand = ctx.add("select", (hit, pos, miss), x.shape, idx_dt)
        return ctx.add("reduce", (cand,), out_shape, idx_dt, axes=axes, monoid="min")
    return rule


argmax_p.lowering = _arg_lowering("max")
argmin_p.lowering = _arg_lowering("min")


def _top_k_lowering(ctx, x, *, k, dimension):
    """top_k along the last axis: a library call whose function says so
    (``fn.top_k_rows`` = k), which the CPU runs as one compiled selection pass per row
    (``devices/cpu_top_k.py``); other runtimes, and other axes, run the NumPy/CuPy impl."""
    if dimension != x.ndim - 1:
        return NotImplemented
    fn = ctx.rebuildable(_top_k_rows_fn, k)
    return ctx.library("top_k", fn, (x,), [(a.shape, a.dtype) for a in ctx.avals_out],
                       primitive=top_k_p, params={"k": k, "dimension": dimension})


def _top_k_rows_fn(k):
    def fn(xp, env, x):
        return _top_k_impl(xp, x, k=k, dimension=x.ndim - 1)
    fn.top_k_rows = k
    return fn


top_k_p.lowering = _top_k_lowering


class Cumulative(NamedTuple):
    """What a cumulative op's library call computes, for a runtime with a compiled form
    of it: the primitive's ``name`` (cumsum, cumprod, cummax, cummin), ``axis`` and
    ``reverse``."""
    name: str
    axis: int
    reverse: bool


def _cumulative_lowering(prim):
    """A library call running ``prim``'s impl, marked with its :class:`Cumulative`
    (``fn.cumulative``): the CPU runs it as a compiled scan (``devices/cpu_cumulative``),
    the other runtimes run the impl."""
    def rule(ctx, x, *, axis, reverse):
        fn = ctx.rebuildable(_cumulative_fn, prim, axis, reverse)
        return ctx.library(prim.name, fn, (x,), [(x.shape, x.dtype)], primitive=prim,
                           params={"axis": axis, "reverse": reverse})[0]
    return rule


def _cumulative_fn(prim, axis, reverse):
    impl = prim.impl

    def fn(xp, env, x):
        return [impl(xp, x, axis=axis, reverse=reverse)]
    fn.cumulative = Cumulative(prim.name, axis, reverse)
    return fn


for _p in (cumsum_p, cumprod_p, cummax_p, cummin_p):
    _p.lowering = _cumulative_lowering(_p)
