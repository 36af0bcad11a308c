"""Public-name listing for tjit's namespaces, so tab completion shows the API only.

Each public namespace ends with ``publish(globals(), submodules=(...))``: it sets
``__all__`` (when the module has none) to the names a user is meant to reach and
installs a module ``__dir__`` (PEP 562) returning it. Attribute access is unchanged;
only ``dir()`` -- what IPython and Jupyter complete from -- is narrowed.
"""

import types

from tjit.tracing.traceback_util import wrap_class_methods, wrap_entry_points


def public_names(namespace, submodules=()):
    """Sorted names of ``namespace`` a user should see: no ``_``-names, no ``*_p``
    primitives, no imported modules other than the listed public ``submodules``."""
    names = []
    for name, value in namespace.items():
        if name.startswith("_") or name.endswith("_p"):
            continue
        if isinstance(value, types.ModuleType) and name not in submodules:
            continue
        names.append(name)
    return sorted(names)


def publish(namespace, submodules=(), entry_points=True):
    """Give the module whose globals are ``namespace`` an ``__all__`` (kept if it has
    one; public ``submodules`` added) and a ``__dir__`` listing exactly it.

    ``entry_points``: its listed functions, and the public methods of its listed classes,
    become eager entry points (tracing/traceback_util.py): what they raise when a user
    calls them has a traceback that ends in the user's code."""
    if "__all__" in namespace:  # primitives stay reachable as attributes, not listed
        listed = [n for n in namespace["__all__"] if not n.endswith("_p")]
    else:
        listed = public_names(namespace, submodules)
    # a submodule imported after its parent (tjit.numpy.random) is listed all the same
    listed += [s for s in submodules if s not in listed]
    namespace["__all__"] = listed
    shown = sorted(set(listed))
    namespace["__dir__"] = lambda: list(shown)
    if entry_points:
        _make_entry_points(namespace, listed)
    return listed


def _make_entry_points(namespace, listed):
    prefix = call_prefix(namespace["__name__"])
    wrap_entry_points(namespace, listed, prefix)
    for name in listed:
        value = namespace.get(name)
        if isinstance(value, type) and value.__module__.startswith("tjit."):
            wrap_class_methods(value, prefix)


def call_prefix(module_name):
    """How a user spells a function of module ``module_name`` up to its name: ``lax.``
    for tjit.lax, ``jnp.linalg.`` for tjit.numpy.linalg (JAX's usual imports)."""
    parts = module_name.split(".")[1:]
    if parts[:1] == ["numpy"]:
        parts[0] = "jnp"
    return "".join(p + "." for p in parts)
