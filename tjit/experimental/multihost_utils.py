"""``jax.experimental.multihost_utils``'s helpers for multi-process programs."""

from tjit.distributed.arrays import process_allgather  # noqa: F401
