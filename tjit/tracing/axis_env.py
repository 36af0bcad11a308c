"""Named axes: which axis names are bound, to what size, and (at run time) to which
communicator.

Two thread-local scopes, both pushed by the code that binds a name:

* the *axis environment* (name -> size) while a function is traced or batched:
  ``vmap(f, axis_name="i")`` and ``pmap`` push it, so a collective's shape rule can read
  the size (``all_gather``) and a name bound nowhere fails as in JAX
  (``NameError: unbound axis name: i``);
* the *communicator binding* (name -> communicator) while a compiled per-device program
  runs: the collective steps of the plan look their names up here when they run, so one
  compiled program serves every device thread or process (``devices/collectives.py``
  defines the communicators; tracing only stores them).

A mesh of processes traced into an enclosing ``jit`` (``shard_map`` across processes)
binds its names together with a :class:`CommunicatorTable`; every collective traced
while that binding is innermost carries the table in its ``comms`` param, so it (and
the transposes ``grad`` traces after the shard_map returned) finds its sizes and
communicators by (mesh, name) without any binding left in force. Nothing is bound
process-wide: outside every scope a name is unbound.
"""

import contextlib
import threading


class _Scopes(threading.local):
    def __init__(self):
        self.sizes = []          # [(name, size, CommunicatorTable or None)], innermost last
        self.comms = []          # [{name or tuple of names: communicator}], innermost last


_scopes = _Scopes()


class CommunicatorTable:
    """The communicators of the named axes of one group of processes (a mesh), for the
    collectives traced inside it: ``sizes`` {name: size} and ``communicators`` {name or
    tuple of names: communicator}. Compared by identity (a jaxpr param; one per mesh)."""

    def __init__(self, owner, sizes, communicators):
        self.owner = owner
        self.sizes = dict(sizes)
        self.communicators = dict(communicators)

    def __repr__(self):
        return f"<communicators of {self.owner!r}>"


def unbound_axis_error(name):
    return NameError(f"unbound axis name: {name}. The axis name must be bound by an "
                     f"enclosing vmap(..., axis_name={name!r}), pmap(..., "
                     f"axis_name={name!r}) or shard_map over a mesh with that axis (or a "
                     f"communicator bound with tjit.devices.collectives.bind_axis at run "
                     f"time)")


@contextlib.contextmanager
def extend_axis_env(name, size, comms=None):
    """Bind ``name`` to ``size`` while tracing (vmap, pmap); ``comms``: the
    :class:`CommunicatorTable` that serves it (a mesh of processes traced into jit)."""
    _scopes.sizes.append((name, size, comms))
    try:
        yield
    finally:
        _scopes.sizes.pop()


def axis_size(name, comms=None):
    """The size of ``name``: from ``comms`` (a collective's table) when it names it, else
    the innermost binding, else a communicator bound to this thread; NameError when
    unbound."""
    if comms is not None and name in comms.sizes:
        return comms.sizes[name]
    for n, size, _ in reversed(_scopes.sizes):
        if n == name:
            return size
    comm = thread_communicator(name)
    if comm is not None:
        return comm.size
    raise unbound_axis_error(name)


def axes_size(names, comms=None):
    """The product of the sizes of ``names`` (a tuple)."""
    out = 1
    for n in names:
        out *= axis_size(n, comms)
    return out


def bound_axes():
    """Every binding in force here, outermost first, as ``(name, size, table)`` tuples (a
    trace done here depends on them: what reuses one keys it by them)."""
    return tuple(_scopes.sizes)


def mesh_bindings():
    """The names whose innermost binding here is served by a :class:`CommunicatorTable`,
    as bindings to re-enter with :func:`rebind` where a rule runs later, outside this
    scope (a custom_vjp's bwd: Megatron's identity-forward, psum-backward operator)."""
    seen, out = set(), []
    for binding in reversed(_scopes.sizes):
        if binding[0] not in seen:
            seen.add(binding[0])
            if binding[2] is not None:
                out.append(binding)
    return tuple(reversed(out))


@contextlib.contextmanager
def rebind(bindings):
    """Re-enter ``bindings`` (from :func:`mesh_bindings`) as the innermost ones."""
    depth = len(_scopes.sizes)
    _scopes.sizes.extend(bindings)
    try:
        yield
    finally:
        del _scopes.sizes[depth:]


def table_of(names, where):
    """The :class:`CommunicatorTable` of the innermost bindings of ``names`` (None when a
    vmap or pmap binds them): what a collective over ``names`` traced here carries."""
    tables = []
    for name in names:
        for n, _, comms in reversed(_scopes.sizes):
            if n == name:
                if comms is not None and all(t is not comms for t in tables):
                    tables.append(comms)
                break
    if len(tables) > 1:
        raise NotImplementedError(
            f"{where} over the axes {names}: they name the processes of different meshes "
            f"({', '.join(repr(t.owner) for t in tables)}); a collective runs over the "
            f"axes of one mesh")
    return tables[0] if tables else None


def canonical_axes(axis_name, where):
    """``axis_name`` (a name or a tuple/list of names) as a non-empty tuple of names."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    if not names:
        raise ValueError(f"{where}: axis_name is empty; name at least one mapped axis")
    for n in names:
        if isinstance(n, int) or n is None:
            raise TypeError(f"{where}: axis_name must be a name (e.g. a string) or a tuple "
                            f"of names bound by vmap/pmap, got {n!r}; positional axes are "
                            f"not supported here, use a reduction such as sum(axis=...)")
        hash(n)
    if len(set(names)) != len(names):
        raise ValueError(f"{where}: axis_name {names} names an axis twice")
    return names


# -- run time: communicators -------------------------------------------------------------------
@contextlib.contextmanager
def bind_communicators(mapping):
    """Bind names (or tuples of names) to communicators in this thread while a compiled
    program runs; see ``tjit.devices.collectives.bind_axis``."""
    _scopes.comms.append(dict(mapping))
    try:
        yield
    finally:
        _scopes.comms.pop()


def thread_communicator(key):
    """The communicator bound to ``key`` (a name or tuple of names) in this thread, or
    None."""
    for frame in reversed(_scopes.comms):
        comm = frame.get(key)
        if comm is not None:
            return comm
    return None


def _find_comm(key, table):
    if table is not None:
        comm = table.communicators.get(key)
        if comm is not None:
            return comm
    return thread_communicator(key)


def communicators_for(names, where, allow_split=False, table=None):
    """The communicator(s) serving collective ``where`` over ``names``: from ``table``
    (the collective's ``comms`` param), else those bound to this thread. ``[comm]`` bound
    to the whole tuple (or the single name), else, when ``allow_split`` (reductions,
    which compose), one per name. NameError names an unbound axis."""
    key = names[0] if len(names) == 1 else names
    comm = _find_comm(key, table)
    if comm is not None:
        return [comm]
    if len(names) > 1:
        comms = [_find_comm(n, table) for n in names]
        missing = [n for n, c in zip(names, comms) if c is None]
        if missing:
            raise unbound_axis_error(missing[0])
        if allow_split:
            return comms
        raise NotImplementedError(
            f"{where} over the axes {names} at run time needs one communicator bound to "
            f"the tuple {names} (bind_axes({{{names!r}: comm}})); only psum/pmax/pmin "
            f"compose per-axis communicators")
    raise unbound_axis_error(names[0])
