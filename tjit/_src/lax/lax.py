"""``jax._src.lax.lax`` (imported by JAX's "How JAX primitives work" page as
``from jax._src.lax import lax``): tjit.lax's public functions."""

from tjit.lax import *  # noqa: F403
from tjit.lax import __all__  # noqa: F401
