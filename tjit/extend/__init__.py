"""``tjit.extend`` (as ``jax.extend``): tjit's IR types for code that reads and
interprets jaxprs (``from tjit.extend import core``)."""

from tjit.extend import core

__all__ = ["core"]
