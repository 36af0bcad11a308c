"""Cache keys for Python values a trace depends on: static arguments, jitted callables.

Python's ``==`` ignores the types inside containers: ``(2, 3) == (2.0, 3)``,
``(np.int32(2),) == (np.float32(2),)`` and ``Conf(k=2) == Conf(k=2.0)`` (a dataclass)
all hold, with equal hashes, yet a trace reads those types (``x + t[0]`` is int32 for one
and float32 for the other). A cache keyed by ``==`` alone then serves the first value's
program for the second: a silent wrong answer that depends on the call order (JAX's jit
has this defect; tjit keys by :func:`typed_key` instead).

:func:`typed_key` is the value with every number, tuple, frozenset and ``eq``-dataclass
inside it paired with its type, recursively (a zero float with its sign: ``1 / s`` is
``inf`` or ``-inf``); other objects stand for themselves (their
own ``__eq__`` and ``__hash__`` are their contract). Equal values of equal types still
share one key, so equal-but-new objects (a new tuple, enum member, string or frozen
dataclass each call) hit the cache.
"""

import dataclasses
import math

import numpy as np


def typed_key(v):
    """A hashable key of ``v`` equal for two values only when they are equal and of the
    same types all the way down (raises TypeError where ``v`` is unhashable)."""
    t = type(v)
    if t in _PLAIN:        # (the common statics first: a jit call with statics keys them)
        return (t, v)
    if t is float:
        return (t, v, math.copysign(1.0, v)) if v == 0 else (t, v)
    if isinstance(v, tuple):    # (namedtuples too)
        return (t, tuple(map(typed_key, v)))
    names = _dataclass_fields(t)
    if names is not None:
        hash(v)   # (an unhashable dataclass stays an error, as any unhashable static)
        return (t, tuple(typed_key(getattr(v, n)) for n in names))
    if isinstance(v, frozenset):
        return (t, frozenset(map(typed_key, v)))
    hash(v)
    if isinstance(v, (float, np.floating)) and v == 0:
        return (t, v, math.copysign(1.0, v))
    if isinstance(v, (complex, np.complexfloating)) and (v.real == 0 or v.imag == 0):
        return (t, v, math.copysign(1.0, v.real), math.copysign(1.0, v.imag))
    return (t, v)


_PLAIN = frozenset([int, bool, str, bytes, type(None)])
_NOT_DATACLASS = object()
_DATACLASS_FIELDS = {}   # type -> names of the fields its == compares, or _NOT_DATACLASS


def _dataclass_fields(t):
    """The fields ``==`` of an eq-dataclass type compares (None for other types)."""
    names = _DATACLASS_FIELDS.get(t)
    if names is None:
        if dataclasses.is_dataclass(t) and t.__dataclass_params__.eq:
            names = tuple(f.name for f in dataclasses.fields(t) if f.compare)
        else:
            names = _NOT_DATACLASS
        _DATACLASS_FIELDS[t] = names
    return None if names is _NOT_DATACLASS else names
