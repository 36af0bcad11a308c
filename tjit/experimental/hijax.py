"""``tjit.experimental.hijax`` (as ``jax.experimental.hijax``): ``VJPHiPrimitive``, an
operation defined by a class with its own derivative and batching rules, and the helpers
that derive one rule from another. The machinery is in ``tjit/hijax.py``."""

from tjit.hijax import (
    GradAccum,
    NullAccum,
    RefAccum,
    ShapedArray,
    ValAccum,
    VJPHiPrimitive,
    Zero,
    instantiate_zeros,
    jvp_from_lin,
    linearize_from_jvp,
    vjp_from_jvp,
    vjp_from_lin,
)

__all__ = [
    "GradAccum",
    "NullAccum",
    "RefAccum",
    "ShapedArray",
    "VJPHiPrimitive",
    "ValAccum",
    "Zero",
    "instantiate_zeros",
    "jvp_from_lin",
    "linearize_from_jvp",
    "vjp_from_jvp",
    "vjp_from_lin",
]
