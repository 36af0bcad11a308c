"""``jax.sharding``'s mode switches, on tjit's one-device computation: ``auto_axes`` and
``explicit_axes`` (run a function with some mesh axes in another mode, laying out its
result or arguments as given), ``use_abstract_mesh`` and ``get_mesh``.

tjit computes every axis as ``Auto`` does (a value's layout is not part of its type), so
the modes change what ``get_abstract_mesh()`` reports inside the function and the layout
of the result (``x.sharding``), never the values.
"""

import contextlib
import functools

from tjit.lax._annotations import with_sharding_constraint
from tjit.sharding import AbstractMesh, AxisType, abstract_mesh_stack, current_mesh


@contextlib.contextmanager
def use_abstract_mesh(mesh):
    """Make ``mesh`` (an AbstractMesh) what ``get_abstract_mesh()`` returns inside the
    block, as ``jax.sharding.use_abstract_mesh``."""
    if not isinstance(mesh, AbstractMesh):
        raise TypeError(f"use_abstract_mesh: expected a jax.sharding.AbstractMesh (e.g. "
                        f"mesh.abstract_mesh), got {type(mesh).__name__} {mesh!s:.60}")
    stack = abstract_mesh_stack()
    stack.append(mesh)
    try:
        yield mesh
    finally:
        stack.pop()


def get_mesh():
    """The concrete mesh of ``set_mesh``, as ``jax.sharding.get_mesh``; outside one, the
    empty mesh (an empty AbstractMesh: ``.empty`` is True, no axes)."""
    mesh = current_mesh()
    return AbstractMesh((), ()) if mesh is None else mesh


def _with_axes_as(kind, axes, where):
    """The current abstract mesh with ``axes`` (default: every axis) of type ``kind``."""
    mesh = current_mesh()
    if mesh is None:
        raise ValueError(f"{where} needs a mesh: call it under `jax.set_mesh(mesh)`")
    names = mesh.axis_names if axes is None else (axes,) if isinstance(axes, str) else axes
    unknown = [n for n in names if n not in mesh.axis_names]
    if unknown:
        raise ValueError(f"{where}: axes {unknown} are not axes of {mesh!s}")
    types = tuple(kind if n in names else t for n, t in zip(mesh.axis_names, mesh.axis_types))
    return AbstractMesh(mesh.axis_sizes, mesh.axis_names, types)


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """``f`` run with ``axes`` (default: all of the mesh's) in Auto mode, its result laid
    out as ``out_sharding`` (given here or per call), as ``jax.sharding.auto_axes``."""
    if f is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def run(*args, out_sharding=out_sharding, **kwargs):
        if out_sharding is None:
            raise TypeError("Missing required keyword argument: 'out_sharding'")
        with use_abstract_mesh(_with_axes_as(AxisType.Auto, axes, "auto_axes")):
            out = f(*args, **kwargs)
        return with_sharding_constraint(out, out_sharding)
    return run


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """``f`` run with ``axes`` (default: all of the mesh's) in Explicit mode on its
    arguments laid out as ``in_sharding`` (a pytree prefix of the positional arguments,
    given here or per call), as ``jax.sharding.explicit_axes``."""
    if f is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def run(*args, in_sharding=in_sharding, **kwargs):
        if in_sharding is None:
            raise TypeError("Missing required keyword argument: 'in_sharding'")
        args = with_sharding_constraint(args, in_sharding)
        with use_abstract_mesh(_with_axes_as(AxisType.Explicit, axes, "explicit_axes")):
            return f(*args, **kwargs)
    return run
