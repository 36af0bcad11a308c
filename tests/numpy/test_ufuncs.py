"""Every elementwise ``tjit.numpy`` function against NumPy (float64 references compared
at float32 tolerance), eagerly and under ``tjit.jit``: broadcasting, Python-scalar
operands, integer/bool/complex inputs, special values (inf, NaN, -0.0, subnormals),
and the places where tjit follows JAX/XLA rather than NumPy (integer division by zero,
negative integer powers)."""

import warnings

import numpy as np
import pytest

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.numpy import _ufuncs

RNG = np.random.default_rng(1234)
F32 = RNG.standard_normal((3, 4)).astype(np.float32)
F32_ROW = RNG.standard_normal((4,)).astype(np.float32)
POS = RNG.uniform(0.1, 4.0, (3, 4)).astype(np.float32)
UNIT = RNG.uniform(-0.95, 0.95, (3, 4)).astype(np.float32)
GT1 = RNG.uniform(1.05, 5.0, (3, 4)).astype(np.float32)
I32 = RNG.integers(-9, 10, (3, 4)).astype(np.int32)
I32_NZ = np.where(I32 == 0, 3, I32).astype(np.int32)
U8 = RNG.integers(0, 256, (3, 4)).astype(np.uint8)
C64 = (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))).astype(np.complex64)
BOOL = RNG.random((3, 4)) < 0.5
SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-40, -3e38],
                   np.float32)
EMPTY = np.zeros((0, 3), np.float32)


def _wide(a):
    """float64/complex128 copy of a float input (the reference's precision)."""
    if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
        return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    return a


def _jax_dtype(args, inexact=False):
    """The result dtype JAX gives: promote (weak Python scalars), x64 off."""
    dt = jnp.result_type(*args)
    if inexact and not np.issubdtype(dt, np.inexact):
        return np.dtype(np.float32)
    return np.dtype(dt)


def check(name, *args, ref=None, rtol=2e-6, atol=1e-6, dtype="auto", inexact=None,
          wide=True, static=()):
    """jnp.<name>(*args), eager and jitted (``static``: static_argnums), against ``ref``
    (default np.<name>) on float64 copies, rounded to the result dtype; the result
    dtype follows JAX (``dtype`` to override)."""
    fn = getattr(jnp, name)
    ref = ref or getattr(np, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the NumPy reference may warn; tjit may not
        expected = ref(*[_wide(a) if wide else a for a in args])
    expected = expected if isinstance(expected, tuple) else (expected,)
    if dtype == "auto" and all(np.asarray(e).dtype == np.bool_ for e in expected):
        dtype = np.dtype(np.bool_)  # predicates and comparisons
    elif dtype == "auto":
        if inexact is None:
            inexact = any(isinstance(e, np.ndarray) and e.dtype.kind in "fc" or
                          isinstance(e, float) for e in expected)
        dtype = _jax_dtype(args, inexact)
        if np.asarray(expected[0]).dtype.kind == "f" and dtype.kind == "c":
            dtype = np.dtype(np.float32)  # real, imag, abs, angle of complex
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tjit never warns
        eager = fn(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        jitted = tjit.jit(fn, static_argnums=static)(*args)
    for got in (eager, jitted):
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert isinstance(g, jnp.ndarray)
            e = np.asarray(e)
            if dtype is not None and len(expected) == 1:
                assert g.dtype == dtype, f"{name}: dtype {g.dtype}, expected {dtype}"
            g = np.asarray(g)
            assert g.shape == e.shape, f"{name}: shape {g.shape} vs {e.shape}"
            if e.dtype.kind in "biu":
                np.testing.assert_array_equal(g, e, err_msg=name)
            else:
                if g.dtype.kind in "fc" and e.dtype.kind == g.dtype.kind:
                    with np.errstate(over="ignore"):
                        e = e.astype(g.dtype)  # round the reference (1e-80 -> 0)
                np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, equal_nan=True,
                                           err_msg=name)


# -- unary float functions -------------------------------------------------------------------
UNARY_FLOAT = {  # name: (domain, complex ok)
    "exp": (F32, True), "exp2": (F32, True), "expm1": (F32, True), "log": (POS, True),
    "log1p": (POS, True), "log2": (POS, True), "log10": (POS, True), "sqrt": (POS, True),
    "cbrt": (F32, False), "sin": (F32, True), "cos": (F32, True), "tan": (UNIT, True),
    "arcsin": (UNIT, True), "arccos": (UNIT, True), "arctan": (F32, True),
    "sinh": (F32, True), "cosh": (F32, True), "tanh": (F32, True),
    "arcsinh": (F32, True), "arccosh": (GT1, True), "arctanh": (UNIT, True),
    "deg2rad": (F32, False), "rad2deg": (F32, False), "radians": (F32, False),
    "degrees": (F32, False), "sinc": (F32, True), "fabs": (F32, False),
    "i0": (F32 * 5, False),
}
ALIASES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
           "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2", "mod": "remainder",
           "pow": "power", "divide": "true_divide", "conj": "conjugate", "abs": "absolute",
           "bitwise_not": "invert", "bitwise_invert": "invert", "fix": "trunc",
           "around": "round", "round_": "round", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift"}


@pytest.mark.parametrize("name", sorted(UNARY_FLOAT))
def test_unary_float(name):
    dom, cplx = UNARY_FLOAT[name]
    rtol = 1e-5 if name in ("i0", "tan") else 2e-6
    check(name, dom, rtol=rtol)
    check(name, dom[0, 0], rtol=rtol)                    # 0-d
    check(name, EMPTY)
    ints = np.abs(I32) + (1 if dom is GT1 else 0) if dom is not UNIT else I32 * 0
    check(name, ints.astype(np.int32), rtol=rtol)        # ints promote to float32
    check(name, float(dom[0, 1]), rtol=rtol)             # Python scalar -> weak f32
    if cplx:
        check(name, C64 * 0.5, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("alias,name", sorted(ALIASES.items()))
def test_aliases(alias, name):
    assert getattr(jnp, alias) is getattr(jnp, name)


def test_every_ufunc_is_tested():
    tested = set(UNARY_FLOAT) | set(ALIASES) | set(BINARY) | {
        "abs", "absolute", "negative", "positive", "sign", "square", "reciprocal", "floor",
        "ceil", "trunc", "rint", "round", "isfinite", "isnan", "isinf", "isposinf",
        "isneginf", "signbit", "real", "imag", "conjugate", "angle", "invert",
        "logical_not", "frexp", "ldexp", "modf", "gcd", "lcm", "divmod", "floor_divide",
        "remainder", "fmod", "power", "float_power", "left_shift", "right_shift",
        "logaddexp", "logaddexp2", "hypot", "copysign", "sinc", "heaviside", "fmax", "fmin",
        "true_divide", "nextafter", "iscomplex", "isreal"}
    assert set(_ufuncs.__all__) - tested == set()


@pytest.mark.parametrize("x", [np.array([1 + 0j, 1 + 2j, 0j, -3j], np.complex64),
                               np.array([1.0, -2.0], np.float32), np.array([True]),
                               np.array([3, 0], np.int32)])
def test_iscomplex_isreal(x):
    for name in ("iscomplex", "isreal"):
        want = getattr(np, name)(x)
        for got in (getattr(jnp, name)(x), tjit.jit(getattr(jnp, name))(x)):
            assert got.dtype == np.bool_
            np.testing.assert_array_equal(got, want)


# -- binary functions: broadcasting, scalars, mixed dtypes ------------------------------------
BINARY = {
    "add": [(F32, F32_ROW), (I32, 3), (U8, U8), (BOOL, BOOL), (C64, 2.0), (I32, F32)],
    "subtract": [(F32, F32_ROW), (I32, -7), (2.5, F32), (C64, C64)],
    "multiply": [(F32, F32_ROW), (I32, I32), (BOOL, BOOL), (U8, 3), (C64, F32)],
    "true_divide": [(F32, POS), (I32, I32_NZ), (7, F32_ROW + 10)],
    "maximum": [(F32, F32_ROW), (I32, 0), (SPECIAL, 0.5), (BOOL, BOOL)],
    "minimum": [(F32, F32_ROW), (U8, U8), (SPECIAL, SPECIAL[::-1])],
    "arctan2": [(F32, F32_ROW), (I32, I32_NZ), (SPECIAL, SPECIAL[::-1])],
    "nextafter": [(F32, F32_ROW), (SPECIAL, np.float32(0))],
    "equal": [(I32, I32.T.reshape(3, 4)), (F32, 0.0), (SPECIAL, SPECIAL), (C64, C64)],
    "not_equal": [(I32, 1), (SPECIAL, SPECIAL)],
    "less": [(F32, F32_ROW), (I32, 2.5), (U8, 100)],
    "less_equal": [(I32, I32[::-1]), (SPECIAL, 1.5)],
    "greater": [(F32, F32_ROW), (BOOL, BOOL[::-1])],
    "greater_equal": [(I32, -1), (SPECIAL, SPECIAL[::-1])],
    "bitwise_and": [(I32, I32[::-1]), (U8, 0x0F), (BOOL, BOOL[::-1])],
    "bitwise_or": [(I32, -2), (U8, U8[::-1]), (BOOL, True)],
    "bitwise_xor": [(I32, I32[::-1]), (BOOL, BOOL[::-1])],
    "logical_and": [(I32, F32), (BOOL, BOOL[::-1])],
    "logical_or": [(I32, 0), (F32, BOOL)],
    "logical_xor": [(I32, I32[::-1]), (SPECIAL, 0.0)],
    "fmax": [(SPECIAL, SPECIAL[::-1]), (F32, np.float32(np.nan)), (I32, 2)],
    "fmin": [(SPECIAL, SPECIAL[::-1]), (np.float32(np.nan), F32)],
    "copysign": [(F32, SPECIAL[:4].reshape(4)), (SPECIAL, -1.0), (I32, F32)],
    "heaviside": [(F32, 0.5), (np.array([-1.0, 0.0, -0.0, 2.0], np.float32), F32_ROW)],
    "hypot": [(F32, F32_ROW), (I32, 4), (np.float32(3e30), np.float32(4e30)),
              (SPECIAL, SPECIAL[::-1]), (SPECIAL, np.float32(np.nan))],
    "logaddexp": [(F32, F32_ROW), (SPECIAL, SPECIAL[::-1]), (SPECIAL, -np.inf),
                  (np.float32(100), np.float32(100))],
    "logaddexp2": [(F32, F32_ROW), (SPECIAL, SPECIAL[::-1]), (SPECIAL, np.inf)],
}


@pytest.mark.parametrize("name,i", [(n, i) for n, cases in BINARY.items()
                                    for i in range(len(cases))])
def test_binary(name, i):
    x, y = BINARY[name][i]
    check(name, x, y, rtol=4e-6 if name.startswith("logaddexp") else 2e-6,
          wide=name != "nextafter")  # nextafter is defined per dtype


def test_logaddexp_infinities():
    x = np.float32([-np.inf, np.inf, np.inf, -np.inf, np.nan, 3.0])
    y = np.float32([-np.inf, np.inf, -np.inf, 2.0, 1.0, np.inf])
    for f in (jnp.logaddexp, tjit.jit(jnp.logaddexp)):
        np.testing.assert_array_equal(np.asarray(f(x, y)), [-np.inf, np.inf, np.inf, 2.0,
                                                              np.nan, np.inf])


def test_hypot_no_overflow_and_inf():
    np.testing.assert_allclose(np.asarray(jnp.hypot(np.float32(3e30), np.float32(4e30))),
                               5e30, rtol=1e-6)
    assert float(jnp.hypot(np.float32(np.inf), np.float32(np.nan))) == np.inf
    assert float(jnp.hypot(0.0, 0.0)) == 0.0


def test_signbit_and_copysign_of_negative_zero():
    x = np.float32([-0.0, 0.0, -1.0, np.inf, -np.inf, np.nan, -np.nan])
    for f in (jnp.signbit, tjit.jit(jnp.signbit)):
        np.testing.assert_array_equal(np.asarray(f(x)), np.signbit(x))
    np.testing.assert_array_equal(np.asarray(jnp.signbit(np.int32([-3, 0, 3]))),
                                  [True, False, False])
    out = np.asarray(jnp.copysign(np.float32([1.0, 2.0, 0.0]), np.float32([-0.0, 0.0, -1.0])))
    np.testing.assert_array_equal(np.signbit(out), [True, False, True])
    with pytest.raises(TypeError, match="signbit: not supported for complex"):
        jnp.signbit(C64)


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isposinf", "isneginf"])
def test_predicates(name):
    check(name, SPECIAL, dtype=np.bool_)
    check(name, I32, dtype=np.bool_)
    check(name, BOOL, dtype=np.bool_)
    check(name, EMPTY, dtype=np.bool_)
    if name in ("isnan", "isinf", "isfinite"):
        z = np.array([complex(np.inf, 0), complex(0, np.nan), 1 + 1j, complex(np.nan, np.inf)],
                     np.complex64)
        check(name, z, dtype=np.bool_)


def test_sinc_at_zero():
    for f in (jnp.sinc, tjit.jit(jnp.sinc)):
        np.testing.assert_array_equal(np.asarray(f(np.float32([0.0, -0.0]))), [1.0, 1.0])
        np.testing.assert_allclose(np.asarray(f(np.float32([1.0, 0.5]))), [0.0, 2 / np.pi],
                                   atol=1e-7)


# -- integer arithmetic -------------------------------------------------------------------------
NEG_INTS = np.array([-7, -7, 7, 7, -6, 6, 0, -1], np.int32)
NEG_DIVS = np.array([2, -2, 2, -2, 3, -3, 5, 7], np.int32)


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "divmod"])
def test_integer_division_family(name):
    check(name, NEG_INTS, NEG_DIVS)
    check(name, I32, I32_NZ)
    check(name, U8, np.uint8(7))
    check(name, NEG_INTS, 3)
    # Python's own operators as the reference
    ref = {"floor_divide": lambda a, b: a // b, "remainder": lambda a, b: a % b,
           "divmod": lambda a, b: divmod(a, b),
           "fmod": lambda a, b: int(np.fmod(a, b))}[name]
    got = getattr(jnp, name)(NEG_INTS, NEG_DIVS)
    got = got if isinstance(got, tuple) else (got,)
    for k, (a, b) in enumerate(zip(NEG_INTS.tolist(), NEG_DIVS.tolist())):
        want = ref(a, b)
        want = want if isinstance(want, tuple) else (want,)
        assert tuple(int(np.asarray(g)[k]) for g in got) == want


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "divmod"])
def test_float_division_family(name):
    check(name, F32, POS * np.sign(F32_ROW))
    check(name, np.float32([1.0, -1.0, 7.5, -7.5, 0.3]), np.float32([0.1, 0.1, -2, 2, 0.1]))
    check(name, SPECIAL, np.float32(2.0))
    check(name, np.float32([1.0, -1.0, 0.0]), np.float32([0.0, 0.0, 0.0]))  # inf / nan


def test_floor_divide_matches_python_on_floats():
    # floor(1.0 / 0.1) would be 10: the remainder-based quotient gives Python's 9.
    assert float(jnp.floor_divide(1.0, 0.1)) == 1.0 // 0.1 == 9.0
    q, r = jnp.divmod(np.float32(-7.5), np.float32(2.0))
    assert (float(q), float(r)) == divmod(-7.5, 2.0)


def test_integer_division_by_zero_is_defined_and_silent():
    x = np.array([5, -5, 0], np.int32)
    zero = np.zeros(3, np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for f in (lambda a, b: a // b, jnp.floor_divide, tjit.jit(jnp.floor_divide)):
            # JAX's values: lax.div's -1, stepped down to -2 where x != 0 (rem(x, 0) = x)
            np.testing.assert_array_equal(np.asarray(f(jnp.asarray(x), zero)), [-2, -2, -1])
        # x % 0 is 0 for integers, as in NumPy and JAX (lax.rem alone gives x)
        for f in (jnp.remainder, jnp.fmod, jnp.mod, lambda a, b: a % b,
                  tjit.jit(jnp.remainder), tjit.jit(jnp.fmod), lambda a, b: jnp.divmod(a, b)[1]):
            np.testing.assert_array_equal(np.asarray(f(jnp.asarray(x), zero)), [0, 0, 0])
        for dt in (np.int8, np.uint8, np.int64, np.uint32):
            v = np.array([7, 0, 3], dt)
            d = np.array([0, 0, 2], dt)
            np.testing.assert_array_equal(np.asarray(jnp.remainder(v, d)), [0, 0, 1])
        np.testing.assert_array_equal(np.asarray(jnp.floor_divide(np.uint8([9]), np.uint8(0))),
                                      [255])


def test_power():
    check("power", NEG_INTS, np.abs(NEG_DIVS))            # negative bases, int exponents
    check("power", POS, F32)
    check("power", F32, 3)                                  # static int: integer_pow
    check("power", F32, -2)
    check("power", I32, 2)
    check("power", U8, np.uint8(3))
    check("power", np.int32([-1, -1, 2, 0, 3]), np.int32([2**30 + 1, 2**30, 30, 0, 0]))
    check("power", 2, np.int32([0, 1, 10]))
    check("power", C64, 2.5, rtol=1e-5)
    check("power", np.float32(-8), np.float32(1 / 3))      # nan, silently
    check("float_power", I32, np.abs(I32), rtol=1e-5)
    check("float_power", POS, F32)


def test_power_negative_integer_exponents():
    # XLA's integer pow: x ** -n is the truncated 1 / x**n (0 unless |x| == 1); NumPy raises.
    x = np.int32([1, -1, -1, 2, -3, 0])
    n = np.int32([-5, -3, -2, -1, -2, -1])
    want = [1, -1, 1, 0, 0, 0]
    for f in (jnp.power, tjit.jit(jnp.power)):
        np.testing.assert_array_equal(np.asarray(f(x, n)), want)
    with pytest.raises(TypeError, match="integers cannot be raised to negative powers"):
        jnp.power(np.int32([2, 3]), -1)
    # bools are raised as the default int, as in JAX (NumPy: int8)
    got = jnp.power(BOOL, BOOL)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(got), np.power(BOOL, BOOL))


@pytest.mark.parametrize("name", ["left_shift", "right_shift"])
def test_shifts(name):
    check(name, I32, np.abs(I32) % 8)
    check(name, np.int32([-8, -1, 1, 5, -8]), np.int32([1, 31, 31, 40, 33]))  # >= bits
    check(name, U8, np.uint8([0, 1, 7, 8]))
    check(name, np.int8([-128, 64]), 3)


def test_gcd_lcm():
    # TODO(H8): needs lax.while_loop (another helper's work); runs once it exists.
    if not hasattr(lax, "while_loop"):
        pytest.skip("lax.while_loop is not available yet")
    a = np.int32([12, -18, 0, 7, 0, 100, -9])
    b = np.int32([18, 12, 5, 13, 0, -75, -6])
    check("gcd", a, b)
    check("lcm", a, b)
    check("gcd", a, 6)


# -- one-input functions on every dtype -----------------------------------------------------------
@pytest.mark.parametrize("x", [F32, I32, U8, C64, SPECIAL, np.float32(-2.5), EMPTY],
                         ids=["f32", "i32", "u8", "c64", "special", "0d", "empty"])
def test_sign_abs_negative_square(x):
    check("absolute", x, dtype=np.float32 if x.dtype == np.complex64 else None)
    check("negative", x)
    check("positive", x)
    check("square", x, rtol=4e-6)
    if x.dtype != np.complex64:  # NumPy 2's complex sign is z/|z|: same as tjit's
        check("sign", x)
    else:
        check("sign", x, ref=lambda z: z / np.abs(z), rtol=1e-6)


def test_bool_inputs():
    check("absolute", BOOL)
    with pytest.raises(TypeError, match="sign: bool"):  # as NumPy and JAX: no bool loop
        jnp.sign(BOOL)
    check("logical_not", BOOL)
    check("logical_not", I32)
    check("invert", BOOL)
    check("invert", I32)
    check("invert", U8)
    with pytest.raises(TypeError, match="invert: not supported for dtype float32"):
        jnp.invert(F32)
    with pytest.raises(TypeError, match="negative: not supported for bool"):
        jnp.negative(BOOL)


def test_reciprocal():
    check("reciprocal", POS)
    # integer and bool inputs become the default float first, as in JAX
    got = jnp.reciprocal(np.int32([1, -1, 2, -3, 0]))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(got), np.float32([1, -1, 0.5, -1 / 3, np.inf]))
    assert jnp.reciprocal(np.array([True, False])).dtype == np.float32
    check("reciprocal", C64, rtol=1e-5)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "rint"])
def test_rounding(name):
    halves = np.float32([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.2, 3.7])
    check(name, halves)
    check(name, SPECIAL)
    if name == "rint":   # JAX: integer inputs become the default float dtype
        got = jnp.rint(I32)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(got), I32.astype(np.float32))
    else:
        check(name, I32, ref=lambda v: v)    # integers are returned unchanged (JAX)
    check(name, EMPTY)


def test_round_decimals():
    x = np.float32([1.2345, -2.5, 0.125, 1234.5, 2.675])
    for d in (0, 1, 2, -1, -2):
        # NumPy scales in the input's precision too: 2.675f * 100 rounds to 267.5 -> 2.68
        check("round", x, d, ref=lambda v, dd: np.round(v, dd), rtol=1e-6, static=(1,),
              wide=False)
    check("round", np.float16([1.25, 2.5, -3.75]), 1, ref=lambda v, dd: np.round(v, dd),
          static=(1,))
    check("round", C64, 1, ref=lambda v, dd: np.round(v, dd), rtol=1e-6, static=(1,))
    check("round", I32, 0, ref=lambda v, dd: v, static=(1,))
    # integers round to tens as NumPy's (JAX refuses them)
    check("round", I32, -1, ref=lambda v, dd: np.round(v, dd), static=(1,))


def test_complex_parts():
    for x in (C64, F32, I32):
        check("real", x)
        check("imag", x)
        check("conjugate", x)
        check("angle", x)
    check("angle", C64, True, ref=lambda z, deg: np.angle(z, deg), static=(1,))
    check("angle", np.float32([-1.0, 1.0, 0.0]))


def test_frexp_ldexp_modf():
    x = np.float32([0.0, -0.0, 1.0, -2.0, 3.0, 0.75, 1e-40, -1e-45, 1e38, np.inf, -np.inf,
                    np.nan, 2.0**-126, 2.0**127, 65504.0])
    check("frexp", x, wide=False)   # (float32 mantissa, int32 exponent), as NumPy's
    check("frexp", I32, dtype=None)
    m, e = jnp.frexp(x)
    assert m.dtype == np.float32 and e.dtype == np.int32
    exps = np.int32([0, 0, 1, -1, 2, 200, -200, 127, -126, 128, -149, -160, 5, -5, 0])
    check("ldexp", x, exps, wide=False)
    check("ldexp", np.float32(0.75), np.int32([-150, -149, -140, 0, 120, 128, 129]), wide=False)
    check("ldexp", I32, 3, wide=False)
    with pytest.raises(TypeError, match="ldexp: the exponent must have an integer dtype"):
        jnp.ldexp(F32, F32)
    check("modf", np.float32([-2.5, -2.0, 2.0, 3.75, -0.0, np.inf, -np.inf, np.nan, 1e-40]),
          wide=False)
    frac, _ = jnp.modf(np.float32([-2.0, np.inf, -np.inf]))
    np.testing.assert_array_equal(np.signbit(np.asarray(frac)), [True, False, True])
    check("modf", I32, dtype=None)


def test_frexp_ldexp_float16_and_float64(x64):
    x16 = np.float16([0.0, 1.0, -3.5, 6e-8, 65504.0, np.inf])
    check("frexp", x16, wide=False)
    check("ldexp", x16, np.int32([3, -2, 10, -30, 1, 0]), wide=False)
    x64_ = np.array([1e-310, 1e300, -5.5, 0.1], np.float64)
    check("frexp", x64_, wide=False)
    check("ldexp", x64_, np.int64([100, 30, -1074, 1020]), wide=False)


def test_complex_unsupported_errors():
    for name in ("floor_divide", "remainder", "fmod", "logaddexp", "hypot", "ldexp"):
        with pytest.raises(TypeError, match=f"{name}: not supported for complex"):
            getattr(jnp, name)(C64, C64) if name != "ldexp" else jnp.ldexp(C64, 1)
    for name in ("frexp", "modf", "i0"):
        with pytest.raises(TypeError, match=f"{name}: not supported for complex"):
            getattr(jnp, name)(C64)


def test_shapes_must_broadcast():
    with pytest.raises(ValueError, match=r"add.*\(3, 4\).*\(3,\)"):
        jnp.add(F32, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="add requires ndarray or scalar arguments, got list"):
        jnp.add(F32, [1, 2, 3, 4])
