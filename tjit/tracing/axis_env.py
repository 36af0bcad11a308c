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
"""

import contextlib
import threading


class _Scopes(threading.local):
    def __init__(self):
        self.sizes = []          # [(name, size)], innermost last
        self.comms = []          # [{name or tuple of names: communicator}], innermost last


_scopes = _Scopes()


def unbound_axis_error(name):
    return NameError(f"unbound axis name: {name}. The axis name must be bound by an "
                     f"enclosing vmap(..., axis_name={name!r}) or pmap(..., "
                     f"axis_name={name!r}) (or a communicator bound with "
                     f"tjit.devices.collectives.bind_axis at run time)")


@contextlib.contextmanager
def extend_axis_env(name, size):
    """Bind ``name`` to ``size`` while tracing (vmap, pmap)."""
    _scopes.sizes.append((name, size))
    try:
        yield
    finally:
        _scopes.sizes.pop()


def axis_size(name):
    """The size bound to ``name`` (innermost binding); NameError when unbound."""
    for n, size in reversed(_scopes.sizes):
        if n == name:
            return size
    comm = _find_comm(name)
    if comm is not None:
        return comm.size
    raise unbound_axis_error(name)


def axes_size(names):
    """The product of the sizes of ``names`` (a tuple)."""
    out = 1
    for n in names:
        out *= axis_size(n)
    return out


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


# Process-wide communicators, for programs that no thread binds when they run: shard_map
# over a mesh of processes traced into jit registers its mesh axes here. A thread's own
# bindings come first; a name may serve one group of processes only (no silent rebinding).
_process_comms = {}          # name or tuple of names -> (owner, communicator)
_process_lock = threading.Lock()


def bind_process_communicators(mapping, owner):
    """Bind names (or tuples of names) to communicators for every thread of this process,
    for ``owner`` (e.g. a mesh). ValueError if a name already serves another owner."""
    with _process_lock:
        for key in mapping:
            got = _process_comms.get(key)
            if got is not None and got[0] != owner:
                raise ValueError(
                    f"axis name {key!r} already names the processes of {got[0]!r} in this "
                    f"process; across processes under jit a mesh axis name must mean one "
                    f"group of processes: give the axes of {owner!r} other names")
        for key, comm in mapping.items():
            _process_comms.setdefault(key, (owner, comm))


def _find_comm(key):
    for frame in reversed(_scopes.comms):
        if key in frame:
            return frame[key]
    got = _process_comms.get(key)
    return None if got is None else got[1]


def communicators_for(names, where, allow_split=False):
    """The communicator(s) serving collective ``where`` over ``names`` in this thread:
    ``[comm]`` bound to the whole tuple (or the single name), else, when ``allow_split``
    (reductions, which compose), one per name. NameError names an unbound axis."""
    key = names[0] if len(names) == 1 else names
    comm = _find_comm(key)
    if comm is not None:
        return [comm]
    if len(names) > 1:
        comms = [_find_comm(n) for n in names]
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
