"""The eager fast lane of a binary ``tjit.numpy`` function on two Arrays that need
promotion or broadcasting (``float32 * int32``, ``m + row``, ``int32 / int32``).

The first call of a signature (both operands' shapes, dtypes and weak flags) takes the
general path: JAX's promotion (``promote_args``), broadcasting and the primitive's rules.
Its outcome depends on that signature only, so it is kept as a :func:`plan`: the dtype
each operand is cast to and the one NumPy call the primitive's fast lane makes (which
broadcasts as the general path did). Later calls replay it; a plan made under one x64
setting sends calls under the other back to the general path (a default dtype may have
changed).
"""

import numpy as np

from tjit.config import config
from tjit.numpy._scalar_lane import is_widening, new_array
from tjit.tracing.core import Array
from tjit.tracing.fp_quiet import quiet_off, quiet_on

_ndarray, _asarray = np.ndarray, np.asarray


def plan(run, promoted, x, y, general, narrow=True):
    """``replay(vx, vy) -> Array`` for later calls of the signature of Arrays ``x`` and
    ``y``, whose first call promoted them to ``promoted`` and ran ``run`` (the
    primitive's fast-lane call on those, :func:`tjit.tracing.core.fast_runner2`);
    ``general(x, y)`` is the general path, taken when the x64 switch changed. None when
    there is no such lane (no ``run``; a cast that is not a plain widening; operands of
    other shapes for a call that is not one NumPy call, which may not broadcast).
    ``narrow``: the general path gives the operands' dtype under either x64 setting
    (False for 64-bit dtypes, which it narrows without x64)."""
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
    if direct is not None and cast_x is None and cast_y is None and narrow and \
            not (wx and wy):
        # a broadcast of one dtype (m + row): the result's dtype is the operands' (no
        # default dtype involved unless both are weak) under either x64 setting, and the
        # one ufunc call broadcasts, so the same-shape call serves as it is
        return run
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
    fn, quiet, weak = direct

    def replay(vx, vy):
        if config.enable_x64 is not x64:
            return general(Array(vx, wx), Array(vy, wy))
        if cast_x is not None:
            vx = vx.astype(cast_x)
        if cast_y is not None:
            vy = vy.astype(cast_y)
        if quiet:
            token = quiet_on()
            try:
                out = fn(vx, vy)
            finally:
                quiet_off(token)
        else:
            out = fn(vx, vy)
        o = new_array(Array)
        o._value = out if type(out) is _ndarray else _asarray(out)
        o._weak = weak
        return o
    return replay
