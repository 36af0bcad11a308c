"""JAX's ``jax.experimental`` names that tjit provides: ``shard_map.shard_map``,
``multihost_utils.process_allgather``, ``io_callback``, the ``checkify`` module, the
``jet`` module (Taylor-mode AD: ``from tjit.experimental.jet import jet``) and the
``sparse`` package (BCOO/BCSR arrays, ``sparsify``; ``from tjit.experimental import
sparse``, imported on demand as JAX's)."""

from tjit.host_callbacks import io_callback  # noqa: F401

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), submodules=(  # tab completion lists the public API only
    "checkify", "compilation_cache", "hijax", "jet", "mesh_utils", "multihost_utils", "ode",
    "shard_map", "sparse"), entry_points=False)
