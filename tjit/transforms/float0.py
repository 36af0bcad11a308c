"""Tangents of integer and boolean values where they cross the public API (JAX's float0).

An integer or boolean value has no tangent space. Inside tjit's transformations its
tangent is always a symbolic :class:`~tjit.primitives.rules.Zero`; where tangents enter
or leave (``jvp``/``linearize`` tangents, ``vjp`` cotangents, ``grad(allow_int=True)``,
the tangents custom rules see and return) they are NumPy arrays of dtype ``float0``, as
JAX's are: a shape and no data. This module converts between the two, and checks what
the user passes with JAX's rules and messages.
"""

import numpy as np

from tjit.tracing import dtypes
from tjit.tracing.core import get_aval
from tjit.tracing.dtypes import float0_zeros
from tjit.tracing.tree_util import register_pytree_node, tree_map
from tjit.primitives.rules import Zero, instantiate, tangent_aval


def tangent_dtype(dt):
    """The dtype of a tangent of a value of dtype ``dt`` (float0 for ints and bools)."""
    return dt if dtypes.has_tangent_space(dt) else dtypes.float0


def _shape_and_dtype(x):
    if dtypes.is_float0(x):
        return tuple(np.shape(x)), dtypes.float0
    a = get_aval(x)
    return tuple(a.shape), a.dtype


def tangent_in(primal_aval, t, i, what, to_array):
    """The user's tangent ``t`` for a primal of ``primal_aval`` (argument ``i`` of
    ``what``), checked as JAX's jvp does: an inexact primal needs a tangent of its dtype,
    an integer or boolean one a float0 tangent, both of the primal's shape. Returns the
    tangent as tjit carries it (a Zero for float0)."""
    if not dtypes.is_float0(t):
        t = to_array(t)
    shape, dt = _shape_and_dtype(t)
    if tuple(primal_aval.shape) != shape:
        raise ValueError(f"{what}: primal and tangent arguments must have equal shapes, got "
                         f"{primal_aval.str_short()} and a tangent of shape {shape} for "
                         f"argument {i}")
    want = tangent_dtype(primal_aval.dtype)
    if dt != want:
        fix = (f"pass np.zeros({shape}, tjit.dtypes.float0) as its tangent"
               if want == dtypes.float0 else f"cast the tangent with .astype({want.name})")
        raise TypeError(f"{what}: primal and tangent arguments do not match for argument "
                        f"{i}; dtypes must be equal, or in case of int/bool primal dtype "
                        f"the tangent dtype must be float0. Got primal dtype "
                        f"{primal_aval.dtype} and so expected tangent dtype {want}, but got "
                        f"tangent dtype {dt} instead; {fix}")
    return Zero(tangent_aval(primal_aval)) if want == dtypes.float0 else t


def tangent_out(primal_aval, t):
    """A tangent (maybe a Zero) as the API returns it: float0 zeros for an integer or
    boolean primal, an array otherwise."""
    if not dtypes.has_tangent_space(primal_aval.dtype):
        return float0_zeros(primal_aval.shape)
    return instantiate(t) if type(t) is Zero else t


def cotangent_in(out_aval, ct, i, what, to_array):
    """The user's cotangent ``ct`` for an output of ``out_aval``, checked: for an integer
    or boolean output any value of the output's shape is accepted (float0 included, as
    JAX does) and dropped (None is returned); others must have the output's type."""
    if not dtypes.has_tangent_space(out_aval.dtype):
        shape = _shape_and_dtype(ct if dtypes.is_float0(ct) else to_array(ct))[0]
        if shape != tuple(out_aval.shape):
            raise ValueError(f"{what}: cotangent {i} has shape {shape} but the output has "
                             f"shape {out_aval.str_short()}")
        return None
    if dtypes.is_float0(ct):
        raise TypeError(f"{what}: cotangent {i} has dtype float0 but the output has dtype "
                        f"{out_aval.dtype}; float0 cotangents are for integer or boolean "
                        f"outputs only")
    ct = to_array(ct)
    ca = get_aval(ct)
    if tuple(ca.shape) != tuple(out_aval.shape):
        raise ValueError(f"{what}: cotangent {i} has shape {ca.str_short()} but the output "
                         f"has shape {out_aval.str_short()}")
    if ca.dtype != out_aval.dtype:
        raise TypeError(f"{what}: cotangent {i} has dtype {ca.dtype} but the output has "
                        f"dtype {out_aval.dtype}; cast the cotangent")
    return ct


def rule_tangent_in(primal_aval, t):
    """What a custom rule sees for a zero tangent or cotangent ``t`` (a Zero) of a value
    of ``primal_aval``: float0 zeros for integer or boolean values (as in JAX), else
    zeros of the value's type."""
    if not dtypes.has_tangent_space(primal_aval.dtype):
        return float0_zeros(primal_aval.shape)
    return instantiate(t)


class _Float0Node:
    """A float0 output leaf as a pytree node without children (``shape`` is its aux
    data): a traced program's outputs keep it in their structure, not as a value."""

    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = tuple(int(d) for d in shape)


register_pytree_node(_Float0Node, lambda n: ((), n.shape),
                     lambda shape, _: float0_zeros(shape))


def hide_float0(tree):
    """``tree`` with its float0 leaves moved into its structure: flattening it gives the
    other leaves, unflattening that structure makes the float0 arrays again (so jit can
    return them from a program that holds no float0 value)."""
    return tree_map(lambda x: _Float0Node(np.shape(x)) if dtypes.is_float0(x) else x, tree)


__all__ = [
    "cotangent_in",
    "float0_zeros",
    "hide_float0",
    "rule_tangent_in",
    "tangent_dtype",
    "tangent_in",
    "tangent_out",
]
