"""The eager fast lane of a binary ``tjit.numpy`` function with one Python-number operand
(``a * 2.0``, ``1 - a``, ``a / 2``, ``a > 0.5``, ``i & 3``, ``2.0 ** a``).

The first call of a signature (the array's shape, dtype and weak flag, the number's
Python type and its side) takes the general path: JAX's weak-type promotion
(``promote_args``), the primitive's shape/dtype rule and its weak-type rule. Promotion
depends on that signature only, never on the number's value, so the outcome is kept as
a :func:`plan`: the dtype the array is cast to (``int32 * 2.0`` computes in float32), the
dtype the number becomes, and the primitive's fast-lane call. Later calls replay it. What
depends on the value is redone each call, as the general path does it: a Python int
must fit the integer dtype it becomes (OverflowError), and a float that overflows its
dtype becomes inf silently (``scalar_as``).
"""

import math

import numpy as np

from tjit.config import config
from tjit.tracing.core import Array, fast_runner2, quiet_ufunc_runner
from tjit.numpy._core import check_int_fits, scalar_as


def is_number_type(t):
    """Whether ``t`` is a Python number type the scalar lane serves (bool is not: it is
    a strong bool in JAX's promotion, like a NumPy bool)."""
    return t is float or t is int or t is complex


def plan(run, promoted, array_dtype, number_type, side):
    """``replay(array_value, number) -> Array`` (or None: take the general path) for
    later calls of the signature whose first call promoted its operands to ``promoted``
    (two Arrays; the number is at ``side``, 0 or 1) and computed ``run(x, y)`` on their
    values (a primitive's fast-lane call, :func:`prim_run`, or :func:`ufunc_run`); None
    when there is no fast lane for it (no ``run``, or the cast is not a plain
    widening)."""
    if run is None:
        return None
    dt = promoted[1 - side]._value.dtype     # the array's dtype after promotion
    sdt = promoted[side]._value.dtype        # the number's
    if array_dtype == dt:
        cast = None
    elif _is_widening(array_dtype, dt):
        cast = dt
    else:
        return None
    check = number_type is int and sdt.kind in "iu"
    consts = {}  # number -> its 0-d array of sdt (converting costs as much as the op)
    zeros = {}   # a float zero's sign (+-1.0) -> its 0-d array: 0.0 == -0.0 as keys

    def as_array(v):
        s = consts.get(v)
        if s is None:
            if number_type is float and not v:  # (maximum(x, 0.0): common)
                sign = math.copysign(1.0, v)
                s = zeros.get(sign)
                if s is None:
                    s = zeros[sign] = scalar_as(v, sdt)
                return s
            if check:
                check_int_fits(v, sdt)
            s = scalar_as(v, sdt)
            if v or number_type is int:  # 1-0j == 1+0j: complex numbers are made anew
                if len(consts) > 64:
                    consts.clear()
                consts[v] = s
        return s

    get = consts.get
    if cast is None and not promoted[1 - side]._weak:
        # the array's dtype absorbs the number's, with or without x64
        if side == 1:
            def replay(vx, v):
                s = get(v)
                return run(vx, as_array(v) if s is None else s)
        else:
            def replay(vx, v):
                s = get(v)
                return run(as_array(v) if s is None else s, vx)
        return replay
    # the result's dtype came from a default one (int32 * 2.0 -> float32, bool + 1 ->
    # int32): the plan holds while the x64 switch is as it was (else None: general path)
    x64 = config.enable_x64

    def replay(vx, v):
        if config.enable_x64 is not x64:
            return None
        if cast is not None:
            vx = vx.astype(cast)
        s = get(v)
        if s is None:
            s = as_array(v)
        return run(vx, s) if side else run(s, vx)
    return replay


def _is_widening(src, dst):
    """Whether converting ``src`` to ``dst`` is ``astype`` exactly (promotion only widens:
    bool/int to int/float/complex, float to float/complex; convert_element_type's impl is
    astype there)."""
    if src.kind == "b":
        return dst.kind in "iufc"
    if src.kind in "iu":
        return dst.kind in "iufc"
    return src.kind == "f" and dst.kind in "fc"


def prim_run(prim, promoted):
    """The fast-lane call of ``prim`` on the ``promoted`` Arrays' signature (known once
    the general path bound it), or None."""
    if not all(type(p) is Array for p in promoted):
        return None
    return fast_runner2(prim, *promoted)


def ufunc_run(ufunc, weak):
    """``run(x, y) -> Array``: NumPy's ``ufunc`` with its floating-point warnings off,
    for a jnp function whose result it gives bit for bit (``floor_divide`` of floats:
    ``npy_divmod``); ``weak``: the result's weak flag on the general path."""
    return quiet_ufunc_runner(ufunc, weak)


def remember(table, key, run, promoted, array, number_type, side):
    """Keep the plan of a call that just ran the general path in ``table`` (a function's
    own, bounded) under ``key``."""
    if type(array._value) is not np.ndarray or not all(type(p) is Array for p in promoted):
        return
    replay = plan(run, promoted, array._value.dtype, number_type, side)
    if replay is not None:
        if len(table) > 512:
            table.clear()
        table[key] = replay
