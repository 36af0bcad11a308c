"""``tjit.custom_derivatives`` (as ``jax.custom_derivatives``): user-defined derivative
rules, ``custom_jvp``, ``custom_vjp`` and ``custom_gradient``, ``closure_convert``
(closed-over traced values made arguments) and ``linear_call``, a linear function with a
stated transpose. Re-exports; the machinery is in ``tjit/transforms/``."""

from tjit.transforms.custom_derivatives import (
    CustomVJPPrimal,
    SymbolicZero,
    custom_jvp,
    custom_vjp,
    zero_from_primal,
)
from tjit.transforms.custom_gradient import custom_gradient
from tjit.transforms.linear_call import linear_call
from tjit.transforms.closure_convert import closure_convert

__all__ = ["CustomVJPPrimal", "SymbolicZero", "closure_convert", "custom_gradient",
           "custom_jvp", "custom_vjp",
           "linear_call",
           "zero_from_primal"]
