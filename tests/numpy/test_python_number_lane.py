"""Binary operators with a Python number (``a * 2.0``, ``1 - a``, ``a > 0.5``, ``2.0 **
a``) on the eager fast lane (tjit/numpy/_scalar_lane.py): every call, the first (general
path) and the replays after it, gives JAX's documented promotion (the table of
tests/numpy/test_promotion.py), the reference interpreter's bits, dtype and weak flag,
NumPy's values, and the general path's errors."""

import json
import operator
import os
import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tests.numpy.test_promotion import TABLE

_RNG = np.random.default_rng(7)
_ARRAYS = {
    "b1": np.array([True, False, True, True]),
    "u1": np.array([0, 3, 7, 250], np.uint8),
    "i1": np.array([-128, -3, 5, 127], np.int8),
    "i2": np.array([-300, -3, 5, 3000], np.int16),
    "u4": np.array([0, 3, 7, 4000000000], np.uint32),
    "i4": np.array([-70000, -3, 5, 2**31 - 1], np.int32),
    "f2": _RNG.uniform(0.5, 3, 4).astype(np.float16),
    "f4": _RNG.uniform(0.5, 3, 4).astype(np.float32),
    "c8": (_RNG.uniform(0.5, 3, 4) + 1j * _RNG.uniform(-1, 1, 4)).astype(np.complex64),
}
_NUMBERS = {"i*": 3, "f*": 1.5, "c*": 0.5 - 1j}
_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "**": operator.pow, "//": operator.floordiv, "%": operator.mod,
        "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge, "&": operator.and_, "|": operator.or_,
        "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift}
_ARITH = {"+", "-", "*"}  # the table's join is the result dtype
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_DTYPE = {"b1": np.bool_, "u1": np.uint8, "i1": np.int8, "i2": np.int16, "u4": np.uint32,
          "i4": np.int32, "f2": np.float16, "f4": np.float32, "c8": np.complex64}
_WEAK = {"i*": np.int32, "f*": np.float32, "c*": np.complex64}  # x64 off


def _interp(fn, arr, number, side):
    """``fn`` by the reference interpreter, the number kept a Python constant."""
    if side:
        return tjit.jit(lambda a: fn(a, number), backend="interpreter")(arr)
    return tjit.jit(lambda a: fn(number, a), backend="interpreter")(arr)


def _table_dtype(a, k):
    """JAX's documented result of ``a``-array op ``k``-number for +, -, *."""
    join = TABLE[a, k]
    return (np.dtype(_WEAK[join]), True) if join in _WEAK else (np.dtype(_DTYPE[join]), False)


@pytest.mark.parametrize("op", sorted(_OPS))
@pytest.mark.parametrize("kind", sorted(_NUMBERS))
def test_number_operands_match_jax_table_interpreter_and_numpy(op, kind):
    fn, number = _OPS[op], _NUMBERS[kind]
    for a, value in _ARRAYS.items():
        arr = jnp.asarray(value)
        for side in (1, 0):
            call = ((lambda arr=arr: fn(arr, number)) if side else
                    (lambda arr=arr: fn(number, arr)))
            try:
                want = _interp(fn, arr, number, side)
            except (TypeError, OverflowError) as e:  # refused: the same error every call
                for _ in range(3):
                    with pytest.raises(type(e)) as info:
                        call()
                    assert str(info.value) == str(e)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no NumPy warning (inf/NaN are silent)
                outs = [call() for _ in range(3)]  # general path, then its replays
            for got in outs:
                where = (a, op, kind, side)
                assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), where
                assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), where
            got = outs[-1]
            if op in _ARITH:
                assert (got.dtype, got.weak_type) == _table_dtype(a, kind), (a, op, kind)
            elif op in _COMPARE:
                assert got.dtype == np.bool_
            if op in _ARITH | _COMPARE | {"/"} and np.dtype(_DTYPE[a]).kind in "fc":
                # NumPy's value in float64 / complex128 (the array's numbers, exactly)
                wide = value.astype(np.complex128 if kind == "c*" or a == "c8" else
                                    np.float64)
                ref = fn(wide, number) if side else fn(number, wide)
                tol = 1e-3 if a == "f2" else 1e-6
                np.testing.assert_allclose(np.asarray(got), ref, rtol=tol, err_msg=str(
                    (a, op, kind, side)))


def test_int_that_does_not_fit_is_refused_on_every_call():
    u8 = jnp.asarray(np.array([1, 2, 250], np.uint8))
    np.testing.assert_array_equal(u8 - 1, np.array([0, 1, 249], np.uint8))  # plan kept
    for _ in range(2):
        with pytest.raises(OverflowError, match="Python int 300 too large.*uint8"):
            u8 - 300
        with pytest.raises(OverflowError, match="Python int -1 too large.*uint8"):
            -1 + u8
    assert (u8 - 255).dtype == np.uint8  # in range again: the plan still serves


def test_plans_follow_the_x64_switch():
    b = jnp.asarray(np.array([True, False]))
    i = jnp.asarray(np.array([1, 2], np.int32))
    for _ in range(2):
        assert (b + 1).dtype == np.int32 and (i * 2.0).dtype == np.float32
        assert (i / 2).dtype == np.float32
    tjit.config.update("enable_x64", True)
    try:
        for _ in range(2):
            assert (b + 1).dtype == np.int64 and (i * 2.0).dtype == np.float64
            # true division of int32 is float32 even under x64 (JAX's to_inexact_dtype)
            assert (i / 2).dtype == np.float32
    finally:
        tjit.config.update("enable_x64", False)
    assert (b + 1).dtype == np.int32 and (i * 2.0).dtype == np.float32


def test_signed_zeros_and_nan_numbers_keep_their_bits():
    a = jnp.asarray(np.array([1.0, -2.0], np.float32))
    for number in (0.0, -0.0, 0.0, -0.0, float("nan"), 1.0):
        want = np.asarray(a).astype(np.float32) * np.float32(number)
        for _ in range(2):
            np.testing.assert_array_equal(np.signbit(np.asarray(a * number)),
                                          np.signbit(want))
    c = jnp.asarray(np.array([1 + 1j], np.complex64))
    for number in (complex(0.0, 1.0), complex(-0.0, 1.0)):
        np.testing.assert_array_equal(np.signbit(np.asarray(c + number).real),
                                      np.signbit((np.complex64(1 + 1j) + number).real))


def test_float16_overflow_is_inf_without_a_warning():
    h = jnp.asarray(np.array([1.0, 2.0], np.float16))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for number in (2.0, 1e6, 3.0, 1e6):
            out = h * number
            assert out.dtype == np.float16
        assert np.isinf(np.asarray(out)).all()


def test_tracing_is_untouched_by_eager_plans():
    a = jnp.asarray(np.ones(3, np.float32))
    a * 2.0, a * 2.0  # a plan exists
    jaxpr = tjit.make_jaxpr(lambda x: x * 2.0)(a)
    assert "mul" in str(jaxpr)
    np.testing.assert_array_equal(tjit.jit(lambda x: x * 2.0)(a), np.full(3, 2.0))


_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.1, -7.5, 1e-30, 3e4, np.inf, -np.inf, np.nan,
                   1.0, -131569.83, 5.0, 2.0 ** 24 + 2])


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_floor_divide_and_remainder_lane_gives_the_composites_bits(op, dtype):
    """On floats, // and % call NumPy's ufunc after a signature's first call; every
    pair of edge values (signed zeros, inf, NaN, huge quotients) gives the composite's
    bits, as the interpreter runs it, on arrays and with Python numbers."""
    fn = _OPS[op]
    with np.errstate(all="ignore"):
        x = jnp.asarray(np.repeat(_EDGES, len(_EDGES)).astype(dtype))
        y = jnp.asarray(np.tile(_EDGES, len(_EDGES)).astype(dtype))
    want = tjit.jit(fn, backend="interpreter")(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            got = fn(x, y)
            assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
        for number in (2.0, -0.0, 0.3, 7, float("inf")):
            for side in (1, 0):
                want = _interp(fn, x, number, side)
                for _ in range(2):
                    got = fn(x, number) if side else fn(number, x)
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), number


@pytest.mark.parametrize("a", ["f2", "f4", "c8", "i1", "u1", "i4"])
def test_integer_exponents_replay_the_interpreters_bits(a):
    """x ** n for a Python int n keeps its signature's call (n == 2: NumPy's multiply,
    the impl's chain x * x); every call gives the interpreter's bits and errors."""
    x = jnp.asarray(_ARRAYS[a])
    for n in (2, 3, -1, 0, 1, 5, -2, 2):
        try:
            want = _interp(operator.pow, x, n, 1)
        except TypeError as e:  # integers to negative powers: refused on every call
            for _ in range(2):
                with pytest.raises(TypeError, match="negative powers") as info:
                    x ** n
                assert str(info.value) == str(e)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(3):
                got = x ** n
                assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), (a, n)
                assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (a, n)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32])
def test_integer_remainder_lane_gives_the_composites_values(dtype):
    """Integer % calls NumPy's remainder after the first call: every pair of edge values
    (zero divisors, the minimum by -1, the extremes) as the interpreter computes it."""
    info = np.iinfo(dtype)
    edges = {0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1}
    edges |= {-1, -2, -7} if info.min < 0 else set()
    e = np.array(sorted(edges), dtype)
    x, y = jnp.asarray(np.repeat(e, len(e))), jnp.asarray(np.tile(e, len(e)))
    want = tjit.jit(operator.mod, backend="interpreter")(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            got = x % y
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_every_operator_dtype_and_number_kind_as_jax():
    """dtype, weak flag or error of ``array op number`` / ``number op array`` for 9
    dtypes x 3 number kinds x 18 operators x 2 sides as JAX gives them (stored by
    tests/numpy/data/make_jax_number_operands.py), on the general path and its replays."""
    from tests.numpy.data.make_jax_number_operands import outcomes
    path = os.path.join(os.path.dirname(__file__), "data", "jax_number_operands.json")
    with open(path) as f:
        want = json.load(f)["outcomes"]
    for _ in range(2):
        got = outcomes(jnp)
        assert len(got) == len(want) == 972
        assert {k: (got[k], v) for k, v in want.items() if got[k] != v} == {}
