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
x64, float64 with it) holds under the x64 setting it was made under; calls under the
other take the general path again.

The records are plain tuples the function unpacks inline (one Python call less per
eager operation than a replay closure); each carries its result's signature id, so the
next operation on the result finds its plan without hashing a shape.
"""

import typing

import numpy as np

from tjit.config import config
from tjit.numpy._scalar_lane import is_widening
from tjit.tracing.core import Array, signature

_ndarray = np.ndarray


class Lane(typing.NamedTuple):
    """One NumPy call on the operands as they are: ``fn(vx, vy)``, with NumPy's warnings
    off where ``quiet``, wrapped as an Array of weak flag ``weak`` and signature id
    ``sig``."""
    fn: object
    quiet: bool
    weak: bool
    sig: int


class CastLane(typing.NamedTuple):
    """:class:`Lane` on operands first cast with ``astype`` (None: as they are), served
    while the x64 switch is ``x64`` (None: under either setting)."""
    fn: object
    quiet: bool
    weak: bool
    sig: int
    cast_x: object
    cast_y: object
    x64: object


def lane(run, out):
    """The record of a fast-lane call ``run`` (:func:`tjit.tracing.core.fast_runner2`)
    whose first result was the Array ``out``: a :class:`Lane` where it is one NumPy call,
    else ``run`` itself (called as ``run(vx, vy)``); None when ``out`` is not NumPy-backed."""
    sig = signature(out)
    if sig is None:
        return None
    direct = getattr(run, "direct", None)
    if direct is None:
        return run
    return Lane(direct.fn, direct.quiet, direct.weak, sig)


def plan(run, promoted, x, y, out, general, narrow=True):
    """The record for later calls of the signature of Arrays ``x`` and ``y``, whose first
    call promoted them to ``promoted`` and ran ``run`` (the primitive's fast-lane call on
    those, :func:`tjit.tracing.core.fast_runner2`) with result ``out``: a :class:`Lane`
    or :class:`CastLane`, or a ``replay(vx, vy) -> Array`` where ``run`` is not one NumPy
    call (``general(x, y)`` is the general path, which it takes when the x64 switch
    changed). None when there is no such lane (no ``run``; a cast that is not a plain
    widening; operands of other shapes for a call that is not one NumPy call, which may
    not broadcast). ``narrow``: the general path gives the operands' dtype under either
    x64 setting (False for 64-bit dtypes, which it narrows without x64)."""
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
    x64, wx, wy = config.enable_x64, x._weak, y._weak
    direct = getattr(run, "direct", None)
    if direct is None:
        if x._value.shape != promoted[0]._value.shape or \
                y._value.shape != promoted[1]._value.shape:
            return None

        def replay(vx, vy):
            if config.enable_x64 is not x64:
                return general(Array(vx, wx), Array(vy, wy))
            return run(vx if cast_x is None else vx.astype(cast_x),
                       vy if cast_y is None else vy.astype(cast_y))
        return replay
    sig = signature(out)
    if sig is None:
        return None
    if cast_x is None and cast_y is None and narrow and not (wx and wy):
        # a broadcast of one dtype (m + row): the result's dtype is the operands' (no
        # default dtype involved unless both are weak) under either x64 setting, and the
        # one NumPy call broadcasts
        return Lane(direct.fn, direct.quiet, direct.weak, sig)
    return CastLane(direct.fn, direct.quiet, direct.weak, sig, cast_x, cast_y, x64)
