"""JAX's ``jax.experimental`` names that tjit provides: ``shard_map.shard_map``,
``multihost_utils.process_allgather`` and ``io_callback``."""

from tjit.host_callbacks import io_callback  # noqa: F401
