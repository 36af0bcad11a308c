"""``jax._src.lax``: JAX's tutorials import ``from jax._src.lax import lax``."""
