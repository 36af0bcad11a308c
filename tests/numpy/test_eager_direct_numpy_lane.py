"""The eager fast lane's direct NumPy calls of shifts and max/min (``eager_numpy``).

A signature's first eager call runs the primitive's impl; later calls run NumPy's own
loop (``np.left_shift`` on signed operands, ``np.maximum`` plus the signed-zero fix).
Each case is called twice, so both paths are checked, against Python integers (shifts:
amounts outside [0, bits), negative ones included, give 0 or the sign fill) and against
a Python reference of IEEE 754-2019 maximum/minimum (NaN propagates, -0 < +0).
"""

import math

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax

#: JAX never warns: a direct call that needed NumPy's warnings off would fail here
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
              np.uint64]


@pytest.fixture(autouse=True)
def x64():
    """64-bit dtypes as they are (the lane's int64/uint64/float64 signatures)."""
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    yield
    tjit.config.update("enable_x64", old)


def _edges(dt):
    info = np.iinfo(dt)
    vals = {info.min, info.min + 1, -1, 0, 1, 2, 0x55, info.max - 1, info.max}
    return np.array(sorted(v for v in vals if info.min <= v <= info.max), dt)


def _amounts(dt):
    bits = np.dtype(dt).itemsize * 8
    vals = {0, 1, 3, bits - 1, bits, bits + 1, 2 * bits, np.iinfo(dt).max, -1, -bits,
            np.iinfo(dt).min}
    info = np.iinfo(dt)
    return np.array(sorted(v for v in vals if info.min <= v <= info.max), dt)


def _wrap(v, dt):
    """Python int ``v`` as a value of integer dtype ``dt`` (two's complement)."""
    bits = np.dtype(dt).itemsize * 8
    v &= (1 << bits) - 1
    if np.dtype(dt).kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _reference(op, x, y, dt):
    bits = np.dtype(dt).itemsize * 8
    signed = _wrap(x, np.dtype(f"i{np.dtype(dt).itemsize}"))
    if not 0 <= y < bits:
        return _wrap(-1, dt) if op == "arithmetic" and signed < 0 else 0
    if op == "left":
        return _wrap(x << y, dt)
    if op == "logical":
        return _wrap((x & ((1 << bits) - 1)) >> y, dt)
    return _wrap(signed >> y, dt)


def _grid(dt):
    xs, ys = np.meshgrid(_edges(dt), _amounts(dt), indexing="ij")
    return xs.ravel(), ys.ravel()


@pytest.mark.parametrize("dt", INT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["left", "logical", "arithmetic"])
def test_lax_shifts_against_python_integers(op, dt):
    fn = {"left": lax.shift_left, "logical": lax.shift_right_logical,
          "arithmetic": lax.shift_right_arithmetic}[op]
    xs, ys = _grid(dt)
    want = np.array([_reference(op, int(x), int(y), dt) for x, y in zip(xs, ys)], dt)
    x, y = jnp.asarray(xs), jnp.asarray(ys)
    for call in ("first", "fast lane"):
        got = fn(x, y)
        assert got.dtype == dt, call
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{op} {call}")


@pytest.mark.parametrize("dt", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_jnp_shift_operators_against_python_integers(dt):
    xs, ys = _grid(dt)
    right = "arithmetic" if np.dtype(dt).kind == "i" else "logical"
    x, y = jnp.asarray(xs), jnp.asarray(ys)
    for op, fn in (("left", lambda a, b: a << b), (right, lambda a, b: a >> b)):
        want = np.array([_reference(op, int(a), int(b), dt) for a, b in zip(xs, ys)], dt)
        for call in ("first", "fast lane"):
            np.testing.assert_array_equal(np.asarray(fn(x, y)), want,
                                          err_msg=f"{op} {call}")
    # a Python-int amount takes the array's dtype (weak), 3 and 0 both in range
    for amount in (3, 0):
        want = np.array([_reference("left", int(a), amount, dt) for a in xs], dt)
        for call in ("first", "fast lane"):
            got = x << amount
            assert got.dtype == dt and not got.weak_type
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=call)


_SPECIAL = [math.nan, -math.inf, -1.5, -0.0, 0.0, 1e-30, 2.0, math.inf]


def _ieee(is_max, a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:  # -0 < +0
        neg = (math.copysign(1, a) < 0) and (math.copysign(1, b) < 0) if is_max else \
            (math.copysign(1, a) < 0) or (math.copysign(1, b) < 0)
        return -0.0 if neg else 0.0
    return max(a, b) if is_max else min(a, b)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_signed_zeros_and_nan(name, dt):
    a, b = (np.array(v, dt) for v in zip(*[(p, q) for p in _SPECIAL for q in _SPECIAL]))
    want = np.array([_ieee(name == "maximum", float(p), float(q)) for p, q in zip(a, b)],
                    dt)
    fn = getattr(jnp, name)
    x, y = jnp.asarray(a), jnp.asarray(b)
    for call in ("first", "fast lane"):
        got = np.asarray(fn(x, y))
        assert got.dtype == dt
        # bit for bit: NaN where NaN, and the sign of every zero
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=call)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=call)
        np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)],
                                      err_msg=call)
    # no zero in the result: the lane's early return, same values as NumPy
    nz_a, nz_b = a[(a != 0) & (b != 0)], b[(a != 0) & (b != 0)]
    ref = getattr(np, name)(nz_a, nz_b)
    for call in ("first", "fast lane"):
        np.testing.assert_array_equal(np.asarray(fn(jnp.asarray(nz_a), jnp.asarray(nz_b))),
                                      ref, err_msg=call)


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint16, np.int32, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_maximum_minimum_integers(dt):
    vals = np.array([0, 1], dt) if dt is np.bool_ else _edges(dt)
    a, b = (v.ravel() for v in np.meshgrid(vals, vals))
    for name, ref in (("maximum", max), ("minimum", min)):
        want = np.array([ref(p, q) for p, q in zip(a.tolist(), b.tolist())], dt)
        for call in ("first", "fast lane"):
            got = getattr(jnp, name)(jnp.asarray(a), jnp.asarray(b))
            assert got.dtype == dt
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{name} {call}")


def _floor_div_reference(a, b, dt):
    """Python's floor division, wrapped; x // 0 is JAX's value: the max unsigned, or for
    signed dtypes -1 for 0 // 0 and -2 otherwise (lax.div's -1 with the floor step)."""
    if b == 0:
        return _wrap(-1 if a == 0 or np.dtype(dt).kind == "u" else -2, dt)
    return _wrap(a // b, dt)


@pytest.mark.parametrize("dt", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_integer_floor_divide_against_python_integers(dt):
    """Including x // 0 and INT_MIN // -1, on the composite's first call and the NumPy
    lane's later ones; a Python-int divisor on either side too."""
    vals = _edges(dt)
    a, b = (v.ravel() for v in np.meshgrid(vals, vals))
    want = np.array([_floor_div_reference(p, q, dt)
                     for p, q in zip(a.tolist(), b.tolist())], dt)
    x, y = jnp.asarray(a), jnp.asarray(b)
    for call in ("first", "fast lane"):
        got = x // y
        assert got.dtype == dt
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=call)
    for number in (2, -3, 0):
        if number < 0 and np.dtype(dt).kind == "u":
            continue
        right = np.array([_floor_div_reference(p, number, dt) for p in a.tolist()], dt)
        left = np.array([_floor_div_reference(number, p, dt) for p in a.tolist()], dt)
        for call in ("first", "fast lane"):
            got = x // number
            assert got.dtype == dt and not got.weak_type
            np.testing.assert_array_equal(np.asarray(got), right, err_msg=f"// {number}")
            np.testing.assert_array_equal(np.asarray(number // x), left,
                                          err_msg=f"{number} //")


@pytest.mark.parametrize("name", ["multiply", "maximum", "minimum", "add"])
def test_signed_zero_numbers_alternating(name):
    """A Python 0.0 and -0.0 keep their signs on the scalar lane's replays, called in
    turns (the lane keeps one constant per sign of zero)."""
    a = np.array([-2.0, -0.0, 0.0, 3.0], np.float32)
    x = jnp.asarray(a)
    fn = getattr(jnp, name)
    for v in (0.0, -0.0, 0.0, -0.0, 0.0):
        want = np.array([_ieee(name == "maximum", float(p), v) for p in a], np.float32) \
            if name in ("maximum", "minimum") else getattr(np, name)(a, np.float32(v))
        for got in (np.asarray(fn(x, v)), np.asarray(fn(v, x))):
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=str(v))
            np.testing.assert_array_equal(got, want)
