"""``jax._src.api``'s transformations, which JAX's "How JAX primitives work" page calls
as ``api.jit``, ``api.grad``, ``api.jvp``, ``api.vmap``: tjit's public ones."""

from tjit import grad, jit, jvp, make_jaxpr, value_and_grad, vjp, vmap

__all__ = ["grad", "jit", "jvp", "make_jaxpr", "value_and_grad", "vjp", "vmap"]
