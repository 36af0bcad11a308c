"""JAX's key-reuse checker (``jax_debug_key_reuse``, ``tjit.debug_key_reuse()``).

While the option is on, a typed key (``tjit.random.key(seed)``) is consumed by the first
random function that draws from it (the samplers, ``split``, ``bits``...) and a second
use raises :class:`KeyReuseError`, as in JAX. ``fold_in``, ``key_data``, ``clone``,
``key_impl`` and ``wrap_key_data`` read a key without consuming it (JAX's signatures);
``clone(key)`` gives a copy that may be consumed once more. Raw ``uint32[2]`` keys
(``PRNGKey``) are not checked, as in JAX.

How, compared with JAX: JAX checks each jaxpr statically, from a key-reuse signature per
primitive. In tjit a typed key is a Python object over raw data (``random/_key_array.py``)
and its jaxpr holds only that data, so tjit tracks keys as they are used: eagerly each
key object carries a consumed flag; inside a ``jit`` trace the function sees fresh key
objects (the pytree rebuilt from tracers), so using one twice in a traced function raises
while it is traced; and a jitted call consumes the caller's key arguments that its trace
consumed (recorded per argument structure and static arguments when it traced:
:func:`checked_call`). A key consumed inside a ``jit`` nested in a transformation
(``vmap(jit(f))``) is checked within that trace only.
"""

import contextlib
import threading

from tjit.tracing.errors import JAXTypeError
from tjit.tracing.extended_dtypes import ExtendedArray
from tjit.tracing.tree_util import tree_flatten

#: the random functions that read a key without consuming it (JAX's)
NOT_CONSUMING = frozenset({"fold_in", "key_data", "clone", "key_impl", "wrap_key_data"})

_state = threading.local()   # .found: the collector of the jit trace running here


class KeyReuseError(JAXTypeError):
    """A typed PRNG key used a second time while ``debug_key_reuse`` is on (JAX's
    ``jax.errors.KeyReuseError``, a ``TypeError``)."""


def _fix():
    return ("Split a key into as many as you need (`k1, k2 = tjit.random.split(key)`) and "
            "use each once, or `tjit.random.clone(key)` where a copy is meant")


def consume(name, key):
    """``key`` (a typed key array) is used by the random function ``name``: raise when
    it was consumed before, else mark it consumed (unless ``name`` only reads it)."""
    if name in NOT_CONSUMING:
        return
    if getattr(key, "_consumed", False):
        raise KeyReuseError(f"Previously-consumed key passed to {name}. {_fix()}")
    key._consumed = True


def _is_key(x):
    return isinstance(x, ExtendedArray)


def note_trace(dyn_args_and_kwargs):
    """(Jitted's trace) After the function ran on the traced arguments: record which of
    their key leaves it consumed, for the :func:`checked_call` waiting on this trace."""
    found = getattr(_state, "found", None)
    if found is None:
        return
    leaves, _ = tree_flatten(dyn_args_and_kwargs, is_leaf=_is_key)
    found.append(tuple(i for i, x in enumerate(leaves)
                       if _is_key(x) and getattr(x, "_consumed", False)))


@contextlib.contextmanager
def _collecting():
    old = getattr(_state, "found", None)
    _state.found = found = []
    try:
        yield found
    finally:
        _state.found = old


def checked_call(jitted, dyn_args, dyn_kwargs, statics, call):
    """``call()`` (a jitted call on these arguments) with the key-reuse checks: a key
    argument consumed before raises; the keys the function consumes are consumed."""
    leaves, treedef = tree_flatten((dyn_args, dyn_kwargs), is_leaf=_is_key)
    keys = [(i, x) for i, x in enumerate(leaves) if _is_key(x)]
    for i, k in keys:
        if getattr(k, "_consumed", False):
            raise KeyReuseError(f"Previously-consumed key passed to jit({jitted.__name__}) "
                                f"at index {i}. {_fix()}")
    if not keys:
        return call()
    with _collecting() as found:
        out = call()
    record = jitted.__dict__.setdefault("_consumed_key_args", {})
    where = (treedef, statics)
    if found:     # (it traced: the last record is the outermost function's)
        record[where] = found[-1]
    for i in record.get(where, ()):
        leaves[i]._consumed = True
    return out
