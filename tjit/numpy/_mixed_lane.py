"""The eager fast lane of a binary ``tjit.numpy`` function on two NumPy-backed Arrays.

A function keeps, per pair of operand signatures (:func:`tjit.tracing.core.signature`:
shape, dtype and weak flag), what its first call of that pair did, and later calls
replay it. Where the operands need nothing (``a + b``) that is the primitive's fast-lane
call. Where they need promotion or broadcasting (``float32 * int32``, ``m + row``,
``int32 / int32``) the first call takes the general path: JAX's promotion
(``promote_args``), broadcasting and the primitive's rules. Its outcome depends on the
signatures only, so it is kept as a :func:`plan`: the dtype each operand is cast to and
the one NumPy call the primitive's fast lane makes (which broadcasts as the general path
did). A plan whose dtypes came from a default one (``int32 / int32`` is float32 without
x64, float64 with it) holds under the x64 setting it was made under: the tables are
emptied when it changes (:mod:`tjit.numpy._lane_tables`).

A record is an exact tuple ``(fn, quiet, weak, sig, casts)`` that the function unpacks
inline (one Python call less per eager operation than a replay closure, and CPython
unpacks an exact tuple faster than a named one): ``fn(vx, vy)`` is the one NumPy call,
made with NumPy's warnings off where ``quiet``, its result wrapped as an Array of weak
flag ``weak`` and signature id ``sig`` (so the next operation on the result finds its
plan without hashing a shape); ``casts`` is None, or ``(cast_x, cast_y)``: the dtypes
the operands are first cast to with ``astype`` (None: as they are), or :data:`REPLAY`:
``fn(vx, vy)`` makes the result Array itself (a call that is not one NumPy call).
"""

import numpy as np

from tjit.numpy._scalar_lane import is_widening
from tjit.tracing.core import Array, signature

_ndarray = np.ndarray

#: a record's ``casts`` when its ``fn`` returns the Array itself
REPLAY = object()


def lane(run, out):
    """The record of a fast-lane call ``run`` (:func:`tjit.tracing.core.fast_runner2`)
    whose first result was the Array ``out``; None when ``out`` is not NumPy-backed."""
    sig = signature(out)
    if sig is None:
        return None
    direct = getattr(run, "direct", None)
    if direct is None:
        return (run, None, None, None, REPLAY)
    return (direct.fn, direct.quiet, direct.weak, sig, None)


def plan(run, promoted, x, y, out):
    """The record for later calls of the signature of Arrays ``x`` and ``y``, whose first
    call promoted them to ``promoted`` and ran ``run`` (the primitive's fast-lane call on
    those, :func:`tjit.tracing.core.fast_runner2`) with result ``out``. None when there is
    no such lane (no ``run``; a cast that is not a plain widening; operands of other
    shapes for a call that is not one NumPy call, which may not broadcast)."""
    if run is None or not all(type(p) is Array and type(p._value) is _ndarray
                              for p in promoted):
        return None
    casts = []
    for a, p in zip((x, y), promoted):
        src, dst = a._value.dtype, p._value.dtype
        if src == dst:
            casts.append(None)
        elif is_widening(src, dst):
            casts.append(dst)
        else:
            return None
    cast_x, cast_y = casts
    direct = getattr(run, "direct", None)
    if direct is None:
        if x._value.shape != promoted[0]._value.shape or \
                y._value.shape != promoted[1]._value.shape:
            return None

        def replay(vx, vy):
            return run(vx if cast_x is None else vx.astype(cast_x),
                       vy if cast_y is None else vy.astype(cast_y))
        return (replay, None, None, None, REPLAY)
    sig = signature(out)
    if sig is None:
        return None
    return (direct.fn, direct.quiet, direct.weak, sig,
            None if cast_x is None and cast_y is None else (cast_x, cast_y))
