"""``tjit.interpreters`` (as ``jax.interpreters``): where a primitive's rules are
registered, JAX's way: ``ad`` (jvp and transpose rules), ``batching`` (vmap rules),
``mlir`` (lowerings), and ``xla.apply_primitive``. The tables write the rules onto the
primitive object itself, where tjit's transformations read them."""

from tjit.interpreters import ad, batching, mlir, xla

__all__ = ["ad", "batching", "mlir", "xla"]
