"""JAX's ``jax.experimental`` names that tjit provides: ``shard_map.shard_map`` and
``multihost_utils.process_allgather``."""
