"""Values made on first use, once: the runtime's native helpers (compiled or loaded from
the disk cache when first needed).

``Lazy(make).get()`` returns ``make()``'s value, computing it on the first call only;
``LazyByKey(make).get(key)`` returns ``make(key)``'s, once per key (the compiled
routines of ``lower/llvm`` that exist per dtype or op).
Threads that call while another computes wait for its value instead of seeing a
half-made state (or making a second one that replaces the first under the other's
feet). In a forked child the locks start free again: a thread of the parent that held
one does not exist there.
"""

import os
import threading
import weakref

_UNSET = object()
_ALL = weakref.WeakSet()


class Lazy:
    """A value made by ``make()`` on first use, by one thread."""

    def __init__(self, make):
        self._make = make
        self._value = _UNSET
        self._lock = threading.Lock()
        _ALL.add(self)

    def made(self):
        """Whether the value is made (``get`` would not make it)."""
        return self._value is not _UNSET

    def get(self):
        value = self._value
        if value is _UNSET:
            with self._lock:
                if self._value is _UNSET:
                    self._value = self._make()
                value = self._value
        return value


class LazyByKey:
    """Values made by ``make(key)`` on the first use of each key, by one thread."""

    def __init__(self, make):
        self._make = make
        self._values = {}
        self._lock = threading.Lock()
        _ALL.add(self)

    def made(self, key):
        """Whether the value of ``key`` is made (``get`` would not make it)."""
        return key in self._values

    def get(self, key):
        value = self._values.get(key, _UNSET)
        if value is _UNSET:
            with self._lock:
                value = self._values.get(key, _UNSET)
                if value is _UNSET:
                    value = self._values[key] = self._make(key)
        return value


def _after_fork_in_child():
    for lazy in list(_ALL):
        lazy._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
