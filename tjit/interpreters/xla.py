"""``tjit.interpreters.xla`` (as ``jax.interpreters.xla``): ``apply_primitive``, which
user code passes to ``def_impl`` (``p.def_impl(partial(xla.apply_primitive, p))``) so that
eager calls run the primitive's compiled lowering."""

import threading

from tjit.api import jit

_running = threading.local()


def apply_primitive(prim, *args, **params):
    """``prim.bind(*args, **params)`` compiled with ``jit``, which lowers ``prim`` by its
    registered ``mlir.lower_fun``."""
    if prim.lowering is None:
        raise NotImplementedError(
            f"xla.apply_primitive('{prim.name}'): the primitive has no lowering to compile; "
            f"register one with mlir.register_lowering({prim.name}_p, mlir.lower_fun(fn)), "
            f"or give def_impl a function of NumPy values")
    active = getattr(_running, "prims", None)
    if active is None:
        active = _running.prims = set()
    if prim in active:   # its lowering left this target to the impl: that is this call
        raise NotImplementedError(
            f"xla.apply_primitive('{prim.name}'): no lowering of the primitive applies to "
            f"this platform (register mlir.lower_fun for platform=None), and its impl is "
            f"apply_primitive itself")
    active.add(prim)
    try:
        return _compiled(prim, params)(*args)
    finally:
        active.discard(prim)


def _compiled(prim, params):
    """The jitted ``bind`` of ``prim`` with ``params`` (kept on the primitive per hashable
    params, so repeated eager calls reuse one compiled program)."""
    try:
        key = tuple(sorted(params.items()))
        hash(key)
    except TypeError:
        return jit(lambda *a: prim.bind(*a, **params))
    cache = prim.__dict__.setdefault("_apply_primitive_jits", {})
    fn = cache.get(key)
    if fn is None:
        fn = cache[key] = jit(lambda *a: prim.bind(*a, **params))
    return fn


__all__ = ["apply_primitive"]

from tjit._namespace import publish as _publish  # noqa: E402
_publish(globals(), entry_points=False)  # tab completion lists __all__ only
