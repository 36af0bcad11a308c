"""The function ``vjp`` returns, as a first-class value (JAX's "VJP objects"): called
with an output cotangent it runs the backward pass; as a pytree its leaves are the
residuals the forward pass saved, so it can be returned from one jitted function and
passed into another (forward and backward passes compiled apart and run on a schedule
of one's own), stored in a pytree, or mapped over with ``tree.map``."""

from tjit.tracing.tree_util import register_pytree_node


class VJP:
    """``vjp``'s backward function: ``f_vjp(cotangent)`` -> the input cotangents.

    Attributes:
      residuals: the values the backward pass reads (the pytree's leaves).
    """

    __slots__ = ("_backward", "residuals")

    def __init__(self, backward, residuals):
        self._backward = backward   # backward(residuals, cotangent); the tree's aux data
        self.residuals = list(residuals)

    def __call__(self, cotangent):
        return self._backward(self.residuals, cotangent)

    def __repr__(self):
        return f"<VJP function with {len(self.residuals)} residual(s)>"


register_pytree_node(VJP, lambda v: (v.residuals, v._backward),
                     lambda backward, residuals: VJP(backward, residuals))

__all__ = ["VJP"]
