"""tjit.scipy: SciPy's API on tjit arrays, as ``jax.scipy``.

    from tjit.scipy import special, stats
    from tjit.scipy.stats import norm

Each submodule is its own file (or package), imported on first use as JAX's are
(``tjit.scipy.special`` as an attribute, or an import statement): ``import tjit`` does
not pay for them. Each adds its stored docstring examples itself (``_docs.add_module_examples``).
"""

import importlib

from tjit._namespace import publish as _publish

_SUBMODULES = ("special", "stats", "linalg", "optimize", "signal", "integrate", "ndimage",
               "fft", "interpolate", "cluster", "spatial", "sparse")


def __getattr__(name):  # (PEP 562: a submodule not imported yet)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")  # (sets the attribute)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_publish(globals(), submodules=_SUBMODULES)  # tab completion lists the public API only
