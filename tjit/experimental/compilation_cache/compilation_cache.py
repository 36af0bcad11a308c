"""``jax.experimental.compilation_cache.compilation_cache`` for tjit: where compiled
kernels are kept on disk (tjit caches by default, in the user's cache folder or
``$TJIT_CACHE_DIR``; see ``tjit/devices/disk_cache.py``).

>>> from tjit.experimental.compilation_cache import compilation_cache as cc
>>> cc.set_cache_dir("/tmp/tjit-cache-example")
>>> import tjit; tjit.config.compilation_cache_dir
'/tmp/tjit-cache-example'
>>> cc.set_cache_dir(None)
"""

from tjit.config import config
from tjit.devices import disk_cache


def set_cache_dir(path):
    """Keep compiled kernels in folder ``path`` from now on (the
    ``compilation_cache_dir`` option; ``None`` goes back to the default folder)."""
    config.update("compilation_cache_dir", None if path is None else str(path))


def reset_cache():
    """Forget the folders resolved and the per-folder state (a folder found unwritable is
    tried again), as JAX's ``reset_cache`` returns its cache to the uninitialized state.
    Kernels already on disk stay there."""
    disk_cache.reset()


__all__ = ["set_cache_dir", "reset_cache"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
