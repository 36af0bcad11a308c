"""``lax.reduce`` and ``lax.reduce_window`` with any computation, one operand or several
(XLA's variadic Reduce / ReduceWindow), e.g. an argmax carried as (value, index) pairs.

They are compositions of existing primitives, so jit, grad and vmap need no rules of
their own: the values to combine are laid side by side (the reduced dims moved last and
flattened; a window's elements as one strided slice per window offset) and combined
pairwise in a log-depth tree of calls to ``computation``, each pair adjacent, so an
associative computation that is not commutative (first-index tie breaks) keeps its
order. ``computation`` is called on whole arrays of equal shape, so it must act
elementwise, as every composition of lax's elementwise functions does.
"""

import itertools

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.errors import ShapeError
from tjit.tracing.shapes import normalize_axes, shape_str
from tjit.tracing.tree_util import tree_flatten, tree_unflatten
from tjit.primitives.conv import conv_out_dim
from tjit.lax._elementwise import asarray_for_lax, select
from tjit.lax._slicing import pad, slice as lax_slice, slice_in_dim
from tjit.lax._structural import broadcast_in_dim, reshape, transpose


def flatten_operands(operands, init_values, name):
    """Leaves of ``operands`` and of ``init_values`` (same tree; each init a scalar of
    its operand's dtype) and the tree structure."""
    ops, tree = tree_flatten(operands)
    inits, init_tree = tree_flatten(init_values)
    if init_tree != tree:
        raise ValueError(f"{name}: operands and init_values must have the same structure, "
                         f"got {tree} and {init_tree}")
    ops = [asarray_for_lax(x) for x in ops]
    shapes = {tuple(x.shape) for x in ops}
    if len(shapes) > 1:
        raise ShapeError(f"{name}: all operands must have the same shape, got "
                         f"{', '.join(shape_str(x.shape) for x in ops)}")
    inits = [asarray_for_lax(i, dtypes.canonicalize(x.dtype)) for x, i in zip(ops, inits)]
    for x, i in zip(ops, inits):
        if i.shape != () or i.dtype != x.dtype:
            raise TypeError(f"{name}: each init value must be a scalar of its operand's "
                            f"dtype, got {_short(i)} for an operand of dtype "
                            f"{x.dtype}")
    return ops, inits, tree


def _short(x):
    return f"{np.dtype(x.dtype).name}{list(x.shape)}"


def _combiner(computation, tree, name):
    """(list a, list b) -> list: ``computation`` on the trees, its result checked."""
    def combine(a, b):
        out = computation(tree_unflatten(tree, a), tree_unflatten(tree, b))
        leaves, out_tree = tree_flatten(out)
        if out_tree != tree:
            raise TypeError(f"{name}: computation must return the structure of its "
                            f"arguments ({tree}), got {out_tree}")
        leaves = [asarray_for_lax(v) for v in leaves]
        for got, want in zip(leaves, a):
            if got.dtype != want.dtype or tuple(got.shape) != tuple(want.shape):
                raise TypeError(f"{name}: computation must return values of its "
                                f"arguments' dtypes and shapes, got {_short(got)} for "
                                f"{_short(want)}")
        return leaves
    return combine


def _filled(init, shape):
    return broadcast_in_dim(init, tuple(shape), ())


def _tree_reduce_last(xs, inits, combine):
    """Reduce each array of ``xs`` over its last dim by combining adjacent pairs."""
    n = xs[0].shape[-1]
    while n > 1:
        if n % 2:  # one more init on the right: the identity keeps the pairing
            cfg = [(0, 0, 0)] * (xs[0].ndim - 1) + [(0, 1, 0)]
            xs = [pad(x, i, cfg) for x, i in zip(xs, inits)]
            n += 1
        axis = xs[0].ndim - 1
        xs = combine([slice_in_dim(x, 0, n, 2, axis) for x in xs],
                     [slice_in_dim(x, 1, n, 2, axis) for x in xs])
        n //= 2
    return [reshape(x, tuple(x.shape[:-1])) for x in xs]


def _tree_reduce_list(groups, combine):
    """Combine a list of equal-shaped value lists pairwise, adjacent first."""
    while len(groups) > 1:
        pairs = [combine(groups[k], groups[k + 1]) for k in range(0, len(groups) - 1, 2)]
        groups = pairs + ([groups[-1]] if len(groups) % 2 else [])
    return groups[0]


def general_reduce(operands, init_values, computation, dimensions):
    """``lax.reduce`` for any computation (see the module docstring)."""
    ops, inits, tree = flatten_operands(operands, init_values, "lax.reduce")
    combine = _combiner(computation, tree, "lax.reduce")
    nd = ops[0].ndim
    dims = tuple(sorted(normalize_axes(tuple(dimensions), nd, "lax.reduce")))
    kept = tuple(d for d in range(nd) if d not in dims)
    shape = ops[0].shape
    size = int(np.prod([shape[d] for d in dims], dtype=np.int64)) if dims else 1
    flat = [reshape(transpose(x, kept + dims), tuple(shape[d] for d in kept) + (size,))
            for x in ops]
    if size == 0:  # nothing to combine: the init values, as XLA
        return tree_unflatten(tree, [_filled(i, f.shape[:-1]) for i, f in zip(inits, flat)])
    reduced = _tree_reduce_last(flat, inits, combine)
    out = combine([_filled(i, r.shape) for i, r in zip(inits, reduced)], reduced)
    return tree_unflatten(tree, out)


def general_reduce_window(operands, init_values, computation, params):
    """``lax.reduce_window`` for any computation; ``params`` as ``_window_params``."""
    ops, inits, tree = flatten_operands(operands, init_values, "lax.reduce_window")
    combine = _combiner(computation, tree, "lax.reduce_window")
    k, strides = params["window_dimensions"], params["window_strides"]
    pads, base, wdil = params["padding"], params["base_dilation"], params["window_dilation"]
    nd = ops[0].ndim
    if not all(len(p) == nd for p in (k, strides, pads, base, wdil)):
        raise ShapeError(f"lax.reduce_window: window_dimensions, window_strides, padding, "
                         f"base_dilation and window_dilation need one entry per dim of the "
                         f"operand of shape {shape_str(ops[0].shape)}")
    # Padding and base-dilation holes are skipped, as XLA's kernels (and so JAX) do: the
    # init enters each window once, and a window of holes only is the init. (They are
    # filled with the init here only to keep the slices rectangular; masks drop them.)
    out_shape = tuple(conv_out_dim(*a) for a in zip(ops[0].shape, k, strides, pads, base,
                                                   wdil))  # (the windowed primitives' rule)
    if any(d == 0 for d in out_shape) or any(kd == 0 for kd in k):
        # (before padding: a crop past the operand has no windows, as JAX, not an error)
        return tree_unflatten(tree, [_filled(i, out_shape) for i in inits])
    cfg = [(lo, hi, b - 1) for (lo, hi), b in zip(pads, base)]
    padded = [pad(x, i, cfg) for x, i in zip(ops, inits)]
    groups = []
    for offset in itertools.product(*(range(kd) for kd in k)):
        start = [o * wd for o, wd in zip(offset, wdil)]
        limit = [s + (m - 1) * st + 1 for s, m, st in zip(start, out_shape, strides)]
        mask = _real_elements(ops[0].shape, out_shape, start, strides, pads, base)
        if mask.any():
            groups.append(([lax_slice(x, start, limit, strides) for x in padded], mask))
    filled = [_filled(i, out_shape) for i in inits]
    if not groups:
        return tree_unflatten(tree, filled)
    reduced, mask = _tree_reduce_list(groups, _masked(combine))
    out = combine(filled, reduced)
    if not mask.all():
        out = [select(mask, o, f) for o, f in zip(out, filled)]
    return tree_unflatten(tree, out)


def _real_elements(shape, out_shape, start, strides, pads, base):
    """Static bool mask over the output: where one window offset (its element at
    ``start`` + output index * stride of the padded, dilated operand) reads an element
    of the operand rather than padding or a dilation hole."""
    mask = np.ones(out_shape, bool)
    for d, (n, m, s0, st, (lo, _), b) in enumerate(zip(shape, out_shape, start, strides,
                                                       pads, base)):
        c = np.arange(m) * st + s0 - lo          # in the dilated, unpadded operand
        ok = (c >= 0) & (c < (n - 1) * b + 1) & (c % b == 0)
        mask &= ok.reshape((-1,) + (1,) * (len(shape) - d - 1))
    return mask


def _masked(combine):
    """``combine`` on (values, static mask) pairs: where only one side holds real
    elements that side is kept, so skipped positions never meet the computation."""
    def combine_masked(a, b):
        (va, ma), (vb, mb) = a, b
        both = combine(va, vb)
        if ma.all() and mb.all():
            return both, ma
        out = [select(mb, select(ma, c, y), x) for c, x, y in zip(both, va, vb)]
        return out, ma | mb
    return combine_masked
