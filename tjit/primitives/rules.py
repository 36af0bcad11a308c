"""The vocabulary primitives use to state their transformation rules.

A primitive's file fills these slots on the primitive object:

* ``prim.jvp(primals, tangents, **params) -> (primal_out, tangent_out)``. A tangent may
  be :class:`Zero` (symbolic zero: nothing is computed for it). Helpers: :func:`defjvp`
  (one function per input, contributions summed), :func:`defjvp2` (functions also see
  the output), :func:`deflinear` (the jvp is the primitive itself), :func:`defjvp_zero`
  (piecewise-constant or integer-valued ops).
* ``prim.transpose(ct, *args, **params) -> [ct_arg or None per arg]`` for linear
  primitives; linear inputs arrive as :class:`UndefinedPrimal`, the others as values.
  ``ct`` may be :class:`Zero` only when the caller cannot avoid it.
* ``prim.batch(args, dims, **params) -> (out, out_dim)`` (lists for multiple results);
  ``dims[i]`` is the batched axis of ``args[i]`` or ``None`` (not batched).
  Helpers: :func:`defvectorized`, :func:`defbroadcasting` (built on
  :func:`broadcast_batched_args`, usable by rules with extra constraints).

Rules are written with ``tjit.lax``-level primitives binding under the current trace,
so a rule applied inside another transformation is itself transformed.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.avals import ShapedArray
from tjit.tracing.core import get_aval

not_mapped = None


class Zero:
    """A symbolic zero tangent or cotangent with the abstract value ``aval``."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    @staticmethod
    def from_value(x):
        a = get_aval(x)
        return Zero(ShapedArray(a.shape, a.dtype))

    def __repr__(self):
        return f"Zero({self.aval.str_short()})"


class UndefinedPrimal:
    """A linear input of a primitive being transposed (its value is not known)."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined_primal(x):
    return type(x) is UndefinedPrimal


def zeros_like_aval(aval):
    from tjit.primitives.structural import broadcast_in_dim_p
    z = np.zeros((), aval.dtype)
    from tjit.tracing.core import Array
    if aval.shape == ():
        return Array(z, False)
    return broadcast_in_dim_p.bind(Array(z, False), shape=tuple(aval.shape),
                                   broadcast_dimensions=())


def instantiate(t):
    """A concrete array for a tangent that may be symbolic."""
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def add_tangents(a, b):
    """a + b where either may be a symbolic Zero."""
    if type(a) is Zero:
        return b
    if type(b) is Zero:
        return a
    from tjit.primitives.elementwise import add_p
    return add_p.bind(a, b)


def is_differentiable_dtype(dt):
    return dtypes.is_inexact(dt)


def tangent_aval(aval):
    # (the primal's weak type kept, as JAX's to_tangent_aval: a convert_element_type
    # transpose gives a promoted weak primal's cotangent its weak type back)
    return ShapedArray(aval.shape, aval.dtype, getattr(aval, "weak_type", False))


# -- jvp helpers ----------------------------------------------------------------------------
def defjvp(prim, *jvp_fns):
    """``jvp_fns[i](g, *primals, **params)`` is input i's contribution to the output
    tangent (None: that input does not affect the tangent)."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        t_out = Zero.from_value(out)
        for fn, t in zip(jvp_fns, tangents):
            if fn is None or type(t) is Zero:
                continue
            t_out = add_tangents(t_out, _like_out(fn(t, *primals, **params), out))
        return out, t_out
    prim.jvp = rule
    return rule


def _like_out(t, out):
    """``t`` broadcast to ``out``'s shape: a contribution computed from rank-0 operands
    only (an elementwise op's scalar broadcasting) is rank-0 while the output is not."""
    if type(t) is Zero:
        return t
    shape = tuple(get_aval(out).shape)
    if not shape or tuple(get_aval(t).shape) == shape:
        return t
    from tjit.primitives.structural import broadcast_in_dim_p
    return broadcast_in_dim_p.bind(t, shape=shape, broadcast_dimensions=())


def defjvp2(prim, *jvp_fns):
    """Like :func:`defjvp` but each function is ``fn(g, ans, *primals, **params)``."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        t_out = Zero.from_value(out)
        for fn, t in zip(jvp_fns, tangents):
            if fn is None or type(t) is Zero:
                continue
            t_out = add_tangents(t_out, _like_out(fn(t, out, *primals, **params), out))
        return out, t_out
    prim.jvp = rule
    return rule


def deflinear(prim, transpose_rule):
    """A primitive linear in all of its inputs: its jvp applies it to the tangents."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if all(type(t) is Zero for t in tangents):
            return out, (tuple(Zero.from_value(o) for o in out) if prim.multiple_results
                         else Zero.from_value(out))
        return out, prim.bind(*[instantiate(t) for t in tangents], **params)
    prim.jvp = rule
    prim.transpose = transpose_rule
    return rule


def defjvp_zero(prim):
    """Outputs do not vary (to first order) with the inputs: integer- or bool-valued or
    piecewise constant ops (floor, sign, comparisons, argmax, ...)."""
    def rule(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        if prim.multiple_results:
            return out, [Zero.from_value(o) for o in out]
        return out, Zero.from_value(out)
    prim.jvp = rule
    return rule


# -- batching helpers -----------------------------------------------------------------------
def moveaxis(x, src, dst):
    """Move axis ``src`` of ``x`` to ``dst`` (a transpose, or nothing)."""
    from tjit.primitives.structural import transpose_p
    if src == dst:
        return x
    nd = len(get_aval(x).shape)
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return transpose_p.bind(x, permutation=tuple(perm))


def bdim_at_front(x, bdim, size):
    """``x`` with its batch axis first; broadcasts an unbatched ``x`` to ``size``."""
    from tjit.primitives.structural import broadcast_in_dim_p
    if bdim is None:
        shape = tuple(get_aval(x).shape)
        return broadcast_in_dim_p.bind(x, shape=(size,) + shape,
                                       broadcast_dimensions=tuple(range(1, len(shape) + 1)))
    return moveaxis(x, bdim, 0)


def defvectorized(prim):
    """Batching for one-input elementwise ops: apply as is, the batch axis stays put."""
    def rule(args, dims, **params):
        out = prim.bind(*args, **params)
        if prim.multiple_results:
            return out, [dims[0]] * len(out)
        return out, dims[0]
    prim.batch = rule
    return rule


def broadcast_batched_args(args, dims):
    """The operands of an n-input elementwise op (equal shapes, rank-0 operands
    broadcast) rewritten so that the op applies to the batched values: every batched
    operand gets its batch axis first, at full rank; unbatched scalars keep broadcasting
    and unbatched arrays are broadcast along the batch axis. Returns the new operands
    (the result's batch axis is 0)."""
    from tjit.primitives.structural import broadcast_in_dim_p
    shapes = [tuple(get_aval(a).shape) for a in args]
    size = next(s[d] for s, d in zip(shapes, dims) if d is not None)
    unbatched = [s if d is None else s[:d] + s[d + 1:] for s, d in zip(shapes, dims)]
    full = max(unbatched, key=len)
    new = []
    for a, d, s in zip(args, dims, unbatched):
        if d is None and not s:
            new.append(a)  # scalars keep broadcasting
        elif d is None:
            new.append(bdim_at_front(a, None, size))
        elif not s and full:  # a batched scalar among arrays
            new.append(broadcast_in_dim_p.bind(moveaxis(a, d, 0), shape=(size,) + full,
                                               broadcast_dimensions=(0,)))
        else:
            new.append(moveaxis(a, d, 0))
    return new


def defbroadcasting(prim):
    """Batching for n-input elementwise ops (equal shapes, rank-0 operands broadcast):
    see :func:`broadcast_batched_args`."""
    def rule(args, dims, **params):
        out = prim.bind(*broadcast_batched_args(args, dims), **params)
        if prim.multiple_results:
            return out, [0] * len(out)
        return out, 0
    prim.batch = rule
    return rule
