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

:func:`static_key` is what a call with static arguments pays each time: the key and its
hash, remembered for the same object when nothing inside it can change (a tuple or frozen
dataclass of numbers, strings and such), so passing one constant again costs a lookup.
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
    if t is tuple:   # (plain elements inline: no call per element)
        return (t, tuple([(type(e), e) if type(e) in _PLAIN else typed_key(e) for e in v]))
    if isinstance(v, tuple):    # (namedtuples too)
        return (t, tuple(map(typed_key, v)))
    names = _dataclass_fields(t)
    if names is not None:
        hash(v)   # (an unhashable dataclass stays an error, as any unhashable static)
        return (t, tuple([typed_key(getattr(v, n)) for n in names]))
    if isinstance(v, frozenset):
        return (t, frozenset(map(typed_key, v)))
    hash(v)
    if isinstance(v, (float, np.floating)) and v == 0:
        return (t, v, math.copysign(1.0, v))
    if isinstance(v, (complex, np.complexfloating)) and (v.real == 0 or v.imag == 0):
        return (t, v, math.copysign(1.0, v.real), math.copysign(1.0, v.imag))
    return (t, v)


_PLAIN = frozenset([int, bool, str, bytes, type(None)])
# the types whose key is ``(type(v), v)`` (jit's static fast path builds those inline)
KEYED_AS_IS = _PLAIN
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


def static_key(v):
    """``(typed_key(v), its hash)``; for the same unchangeable object again (by identity),
    the pair computed the first time."""
    t = type(v)
    if t in _PLAIN:
        key = (t, v)
        return key, hash(key)
    hit = _MEMO.get(id(v))
    if hit is not None and hit[0] is v:   # (the entry holds v: its id is not reused)
        return hit[1], hit[2]
    key = typed_key(v)
    h = hash(key)
    if _unchangeable(v):
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[id(v)] = (v, key, h)
    return key, h


_MEMO = {}        # id(v) -> (v, its typed key, the key's hash), for _unchangeable v
_MEMO_SIZE = 256
_LEAVES = _PLAIN | {float, complex}


def _unchangeable(v, depth=0):
    """Whether ``v``'s typed key cannot change while ``v`` lives: a tuple or frozen
    dataclass of Python or NumPy numbers, strings, bytes and None (nested a few levels at
    most); not a mutable dataclass, nor an object keyed by its own ``__eq__``."""
    t = type(v)
    if t in _LEAVES or isinstance(v, (np.number, np.bool_)):
        return True
    if depth > 3:
        return False
    if isinstance(v, tuple):   # (its key is its elements', whatever the subclass holds)
        return all(_unchangeable(e, depth + 1) for e in v)
    names = _dataclass_fields(t)
    if names is not None and t.__dataclass_params__.frozen:
        return all(_unchangeable(getattr(v, n), depth + 1) for n in names)
    return False
