"""JAX's ``jax.experimental`` names that tjit provides: ``shard_map.shard_map``,
``multihost_utils.process_allgather``, ``io_callback`` and the ``checkify`` module."""

from tjit.host_callbacks import io_callback  # noqa: F401
