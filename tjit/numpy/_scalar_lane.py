"""The eager fast lane of a binary ``tjit.numpy`` function with one Python-number operand
(``a * 2.0``, ``1 - a``, ``a / 2``, ``a > 0.5``, ``i & 3``, ``2.0 ** a``).

The first call of a signature (the array's dtype and weak flag, the number's Python
type and its side; any shape, which the number broadcasts to) takes the general path:
JAX's weak-type promotion (``promote_args``), the primitive's shape/dtype rule and its
weak-type rule. Promotion depends on that signature only, never on the number's value,
so the outcome is kept as a :func:`plan`: the dtype the array is cast to (``int32 *
2.0`` computes in float32), the dtype the number becomes, and the primitive's fast-lane
call. Later calls replay it. What depends on the value is redone for each new number,
as the general path does it: a Python int must fit the default int dtype and the
integer dtype it becomes (OverflowError), and a float that overflows its dtype becomes inf silently
(``scalar_as``); the number's 0-d array is then kept with its call. Plans live in
:mod:`tjit.numpy._lane_tables`'s tables, emptied when the x64 switch changes.
"""

import math
from math import copysign

import numpy as np

from tjit.tracing.core import Array, fast_runner2, quiet_ufunc_runner
from tjit.tracing.fp_quiet import quiet_call, quiet_run
from tjit.numpy._core import check_operand_int, scalar_as

_ndarray, _asarray = np.ndarray, np.asarray
#: ``o = new_array(Array)``, then all slots set (``o._value``, ``o._weak``, ``o._sig``):
#: an Array without its __init__'s Python call, for the results the fast lanes wrap
new_array = Array.__new__


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
    widening). Where ``run`` is one NumPy call (its ``direct`` parts), the replay makes
    that call itself: one Python call less, and per number whether NumPy's warnings
    must be switched off around it (:func:`_cannot_warn`)."""
    if run is None:
        return None
    dt = promoted[1 - side]._value.dtype     # the array's dtype after promotion
    sdt = promoted[side]._value.dtype        # the number's
    if array_dtype == dt:
        cast = None
    elif is_widening(array_dtype, dt):
        cast = dt
    else:
        return None
    # (a result dtype that came from a default one, int32 * 2.0 -> float32, holds while
    # the x64 switch is as it was: the tables are emptied when it changes, _lane_tables)
    direct = getattr(run, "direct", None)
    entry = _entries(direct, array_dtype, dt, sdt, number_type, side)
    consts = entry.consts
    get = consts.get
    if direct is None:
        def replay(vx, v):
            if cast is not None:
                vx = vx.astype(cast)
            e = get(v)
            if e is None or (not v and copysign(1.0, v) < 0):  # (-0.0 == 0.0 as keys)
                e = entry(v)
            return run(vx, e[0]) if side else run(e[0], vx)
        return replay
    weak = direct.weak

    def replay(vx, v):
        if cast is not None:
            vx = vx.astype(cast)
        e = get(v)
        if e is None or (not v and copysign(1.0, v) < 0):  # (-0.0 == 0.0 as keys)
            e = entry(v)
        s, fn, quiet = e
        if not quiet:
            out = fn(vx, s) if side else fn(s, vx)
        elif side:
            try:
                out = quiet_run(fn, vx, s)
            except RuntimeError:  # its context in use (fp_quiet.quiet_run)
                out = quiet_call(fn, vx, s)
        else:
            try:
                out = quiet_run(fn, s, vx)
            except RuntimeError:
                out = quiet_call(fn, s, vx)
        o = new_array(Array)
        o._value = out if type(out) is _ndarray else _asarray(out)
        o._weak = weak
        o._sig = None  # (any shape: its signature id is looked up if a lane needs it)
        return o
    return replay


class _entries:
    """``entry(number) -> (0-d array of sdt, fn, quiet)``: the number converted (as the
    general path converts it: a Python int must fit an integer ``sdt``), with the call
    and warning switch-off the replay makes for it; kept in ``consts`` (bounded) where
    the number's value is its key's (not -0.0, whose key is 0.0's, nor a complex number
    with a zero part, 1-0j == 1+0j). Converting costs as much as the op itself."""

    def __init__(self, direct, array_dtype, dt, sdt, number_type, side):
        self.direct, self.array_dtype, self.dt, self.sdt = direct, array_dtype, dt, sdt
        self.side = side
        self.check = number_type is int  # (it must fit the default int, and sdt if an int)
        self.consts, self.neg_zero = {}, None

    def __call__(self, v):
        neg_zero = type(v) is float and not v and copysign(1.0, v) < 0
        if neg_zero and self.neg_zero is not None:
            return self.neg_zero
        if self.check:
            check_operand_int(v, self.sdt)
        s = scalar_as(v, self.sdt)
        e = (s,) + self._call_for(v, s)
        if neg_zero:
            self.neg_zero = e
        elif type(v) is not complex or (v.real and v.imag):
            if len(self.consts) > 64:
                self.consts.clear()
            self.consts[v] = e
        return e

    def _call_for(self, v, s):
        """``(fn, quiet)`` of the number ``v`` (as ``s``); (None, None) without parts."""
        d = self.direct
        if d is None:
            return None, None
        fn = d.fn
        plain = getattr(fn, "without_zeros", None)  # IEEE max/min (primitives/elementwise)
        if plain is not None and s.dtype.kind != "c" and s != 0:  # (1e-50 is 0 in float32)
            fn = plain
        quiet = d.quiet and not _cannot_warn(fn, self.array_dtype, self.dt, s, self.side)
        return fn, quiet


#: ufuncs that raise no floating-point flag for a finite number with any array values
#: (NumPy's comparisons do not warn on NaN, by policy, and its max/min clear the flags
#: of NaN operands)
_FINITE_SILENT = frozenset([np.maximum, np.minimum, np.equal, np.not_equal, np.less,
                            np.less_equal, np.greater, np.greater_equal])


def _cannot_warn(fn, array_dtype, dt, s, side):
    """Whether ``fn(x, s)`` (``side`` 1; 0: ``fn(s, x)``) cannot raise a floating-point
    flag (so needs no warning switch-off) for any array ``x`` of dtype ``array_dtype``
    cast to the float dtype ``dt``, with ``s`` the number as a 0-d array of ``dt``."""
    if dt.kind != "f" or s.dtype != dt or array_dtype.kind not in "biuf":
        return False
    a = abs(float(s))
    if not math.isfinite(a):
        return False
    if fn in _FINITE_SILENT or getattr(fn, "without_zeros", None) is not None:
        return True
    info = np.finfo(dt)
    if fn is np.add or fn is np.subtract:
        # under a quarter of max's ulp, x + s rounds back to at most max (no overflow);
        # sums are exact near zero (no underflow); inf and NaN stay themselves silently
        return a < 2.0 ** (info.maxexp - 3 - info.nmant)
    if array_dtype.kind == "f":
        return False
    # integers and bools: finite values, at most m in magnitude and at least 1 unless 0
    big, tiny = float(info.max) / 4, float(info.smallest_normal) * 4
    m = 1.0 if array_dtype.kind == "b" else float(max(-int(np.iinfo(array_dtype).min),
                                                      int(np.iinfo(array_dtype).max)))
    if fn is np.multiply:
        return a * m < big and (a == 0 or a >= tiny)
    if fn is np.true_divide and side:  # |x / s| between 1 / |s| and m / |s| (or 0)
        return a >= tiny and m / a < big and 1 / a >= tiny
    return False


def is_widening(src, dst):
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
