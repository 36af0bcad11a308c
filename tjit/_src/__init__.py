"""The few names of JAX's private ``jax._src`` that JAX's own tutorials import, so that
those programs port by changing imports (docs/notebooks/Writing_custom_interpreters_in_Jax
imports ``jax._src.util.safe_map``). Nothing in tjit uses this package."""
