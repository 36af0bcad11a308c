"""Devices: backends (``backend.py``: the registry), executables that run compiled
programs, and their caches.

``tjit.devices()`` lists the default backend's devices, as ``jax.devices()``: the
name is both this package and that function, so the package is made callable (its
module class gets a ``__call__``) rather than the function hiding the package.
"""

import sys
import types

from tjit.devices import backend as _backend


class _CallableModule(types.ModuleType):
    def __call__(self, backend=None):
        """The devices of ``backend`` (a name; None: the default backend)."""
        return _backend.devices(backend)


sys.modules[__name__].__class__ = _CallableModule
