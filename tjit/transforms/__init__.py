"""Transformations of jaxprs (jvp, vjp, vmap, checkpoint) and IR clean-up passes."""
