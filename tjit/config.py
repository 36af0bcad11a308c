"""Global switches, set through ``tjit.config.update(name, value)`` as in JAX."""

import os


class _Config:
    def __init__(self):
        self.enable_x64 = os.environ.get("TJIT_ENABLE_X64", "0").lower() in ("1", "true")
        self.version = 0  # bumped on every change so caches keyed on config invalidate

    def update(self, name, value):
        """Set a config option, e.g. ``update("enable_x64", True)``."""
        name = name.replace("jax_", "", 1) if name.startswith("jax_") else name
        if not hasattr(self, name) or name == "version":
            raise ValueError(f"tjit.config.update: unknown option {name!r}; known: enable_x64")
        setattr(self, name, bool(value) if name == "enable_x64" else value)
        self.version += 1

    def read(self, name):
        return getattr(self, name)

    @property
    def x64_enabled(self):
        return self.enable_x64


config = _Config()
