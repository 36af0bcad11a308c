"""Elementwise primitives: op records (eager vs NumPy, jaxpr typing, jit, interpreters)
over shapes (0-d, (5,), (3,4), empty), dtypes and rank-0 scalar broadcasting, plus the
XLA semantics where they differ from NumPy (checked against Python-int references):
truncating integer division, remainder signs, out-of-range shifts, saturating float->int
conversion, round half away from zero, NaN-propagating max/min, a stable logistic,
negative integer_pow exponents; no NumPy warnings leak from impls; eager and jit
reject the same bad operands."""

import math
import warnings

import numpy as np
import pytest
import scipy.special

import tjit
import tjit.numpy as jnp
from tjit import lax
from tjit.primitives import complex_square
from tjit.primitives import elementwise as ew
from tjit.tracing.errors import ShapeError
from tests.primitives.harness import OpRecord, check_record, make_arg

F16, F32, F64, C64, C128 = "float16", "float32", "float64", "complex64", "complex128"
I8, I32, I64, U8, U32, U64, BOOL = "int8", "int32", "int64", "uint8", "uint32", "uint64", "bool"
SHAPES = [(), (5,), (3, 4), (0, 3)]
PAIRS = [(s, s) for s in SHAPES] + [((), (3, 4)), ((3, 4), ())]  # rank-0 broadcasts

RECORDS = []      # run with x64 off
X64_RECORDS = []  # run under the x64 fixture


def rec(name, fn, ref, args, prims, x64=False, **kw):
    (X64_RECORDS if x64 else RECORDS).append(
        OpRecord(name, fn, ref, tuple(args), tuple(prims), **kw))


# -- value domains (callables get (rng, shape)) -------------------------------------------
def uniform(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def ints(lo, hi):
    return lambda rng, shape: rng.integers(lo, hi, shape, endpoint=True)


def cplx(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def specials(rng, shape):
    """Finite values mixed with inf, -inf and NaN."""
    v = rng.standard_normal(shape) * 3
    pick = rng.integers(0, 5, shape)
    return np.where(pick == 0, np.inf, np.where(pick == 1, -np.inf,
                                                np.where(pick == 2, np.nan, v)))


def halves(rng, shape):
    """Exact halves (ties) mixed with arbitrary values."""
    return np.where(rng.random(shape) < 0.5, rng.integers(-8, 8, shape) / 2,
                    rng.uniform(-4, 4, shape))


def _wide(dt):
    """The dtype a float reference is computed in."""
    dt = np.dtype(dt)
    if dt.kind == "c":
        return np.complex128
    return np.float64 if dt.kind == "f" else dt


def f64ref(fn, out=None):
    """Reference computed in float64/complex128 and rounded to the result dtype ``out``
    (default: the first input's dtype)."""
    def ref(*xs):
        r = np.asarray(fn(*[np.asarray(x).astype(_wide(x.dtype)) for x in xs]))
        return r.astype(out or xs[0].dtype)
    return ref


def _complex_sign(z):
    a = np.abs(z)
    return np.where(a == 0, 0, z / np.where(a == 0, 1, a))


def _round_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)  # exact in float64 for these inputs


def _real_of(dt):
    return {C64: F32, C128: F64}.get(dt, dt)


# -- unary ops: (primitive, lax fn, reference, [(dtype, domain)], rtol) -------------------
N, P, UNIT, GT1 = "normal", "positive", "unit", "gt1"
FLOAT_C = [(F32, N), (C64, N)]
UNARY = [
    ("neg", lax.neg, f64ref(np.negative), [(F32, N), (I32, N), (U8, N), (C64, N)], 1e-6),
    ("sign", lax.sign, f64ref(lambda x: _complex_sign(x) if x.dtype.kind == "c"
                              else np.sign(x)), [(F32, N), (I32, N), (U32, N), (C64, N)],
     1e-6),
    ("floor", lax.floor, f64ref(np.floor), [(F32, N), (F16, N)], 1e-6),
    ("ceil", lax.ceil, f64ref(np.ceil), [(F32, N)], 1e-6),
    ("round", lax.round, f64ref(_round_away), [(F32, halves)], 1e-6),
    ("exp", lax.exp, f64ref(np.exp), FLOAT_C, 2e-6),
    ("exp2", lax.exp2, f64ref(np.exp2), FLOAT_C, 2e-6),
    ("expm1", lax.expm1, f64ref(np.expm1), FLOAT_C, 2e-6),
    ("log", lax.log, f64ref(np.log), [(F32, P), (C64, N)], 2e-6),
    ("log1p", lax.log1p, f64ref(np.log1p), [(F32, uniform(-0.9, 3)), (C64, N)], 2e-6),
    ("sqrt", lax.sqrt, f64ref(np.sqrt), [(F32, P), (C64, N)], 2e-6),
    ("rsqrt", lax.rsqrt, f64ref(lambda x: 1 / np.sqrt(x)), [(F32, P), (C64, N)], 2e-6),
    ("cbrt", lax.cbrt, f64ref(np.cbrt), [(F32, N)], 2e-6),
    ("tanh", lax.tanh, f64ref(np.tanh), FLOAT_C, 2e-6),
    ("logistic", lax.logistic, f64ref(lambda x: 1 / (1 + np.exp(-x))), FLOAT_C, 2e-6),
    ("sin", lax.sin, f64ref(np.sin), FLOAT_C, 2e-6),
    ("cos", lax.cos, f64ref(np.cos), FLOAT_C, 2e-6),
    ("tan", lax.tan, f64ref(np.tan), [(F32, uniform(-1.2, 1.2)), (C64, N)], 4e-6),
    ("asin", lax.asin, f64ref(np.arcsin), [(F32, UNIT), (C64, N)], 2e-6),
    ("acos", lax.acos, f64ref(np.arccos), [(F32, UNIT), (C64, N)], 2e-6),
    ("atan", lax.atan, f64ref(np.arctan), FLOAT_C, 2e-6),
    ("sinh", lax.sinh, f64ref(np.sinh), FLOAT_C, 2e-6),
    ("cosh", lax.cosh, f64ref(np.cosh), FLOAT_C, 2e-6),
    ("asinh", lax.asinh, f64ref(np.arcsinh), FLOAT_C, 2e-6),
    ("acosh", lax.acosh, f64ref(np.arccosh), [(F32, GT1), (C64, N)], 2e-6),
    ("atanh", lax.atanh, f64ref(np.arctanh), [(F32, UNIT), (C64, N)], 2e-6),
    ("erf", lax.erf, f64ref(scipy.special.erf), [(F32, N)], 2e-6),
    ("erfc", lax.erfc, f64ref(scipy.special.erfc), [(F32, N)], 2e-6),
    ("erf_inv", lax.erf_inv, f64ref(scipy.special.erfinv), [(F32, UNIT)], 4e-6),
    ("lgamma", lax.lgamma, f64ref(scipy.special.gammaln), [(F32, P)], 4e-6),
    ("digamma", lax.digamma, f64ref(scipy.special.digamma), [(F32, P)], 4e-6),
    ("not", lax.bitwise_not, np.invert, [(I32, N), (U8, N), (BOOL, N)], 0),
]
# ops whose result dtype differs from the operand's
UNARY_OUT = [
    ("abs", lax.abs, [(F32, N), (I32, N), (C64, N)], np.abs),
    ("is_finite", lax.is_finite, [(F32, specials)], np.isfinite),
    ("real", lax.real, [(C64, N)], np.real),
    ("imag", lax.imag, [(C64, N)], np.imag),
]

for prim, fn, ref, cases, tol in UNARY:
    for dt, dom in cases:
        for shape in SHAPES:
            rec(f"{prim}_{dt}_{shape}", fn, ref, [(shape, dt, dom)], [prim], rtol=tol,
                atol=tol)
        if dt in (F32, C64):  # float64 / complex128 under x64, tighter tolerance
            wide = F64 if dt == F32 else C128
            rec(f"{prim}_{wide}", fn, ref, [((5,), wide, dom)], [prim], x64=True,
                rtol=1e-12, atol=1e-12)
for prim, fn, cases, ref in UNARY_OUT:
    for dt, dom in cases:
        out = _real_of(dt) if prim != "is_finite" else BOOL
        for shape in SHAPES:
            rec(f"{prim}_{dt}_{shape}", fn, f64ref(ref, out), [(shape, dt, dom)], [prim])
rec("conj_c64", lax.conj, np.conj, [((3, 4), C64)], ["conj"])
# (lax.conj of a real array is complex, as JAX's; jnp.conj keeps it real, as NumPy's)
rec("conj_f32", lax.conj, lambda x: np.conj(x.astype(np.complex64)), [((5,), F32)], ["conj"])
# complex lax.square is its own primitive (complex_square.py), (a - b)(a + b) + 2abj
rec("square_c64", lax.square, f64ref(np.square), [((3, 4), C64)], ["square"])
rec("round_to_even", lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
    np.rint, [((3, 4), F32, lambda rng, s: rng.integers(-8, 8, s) / 2)], ["round"])
rec("population_count_i32", lax.population_count,
    lambda x: np.array([bin(int(v) & 0xFFFFFFFF).count("1") for v in x.ravel()],
                       np.int32).reshape(x.shape),
    [((3, 4), I32, ints(-2**31, 2**31 - 1))], ["population_count"])
rec("population_count_u8", lax.population_count,
    lambda x: np.array([bin(int(v)).count("1") for v in x.ravel()], np.uint8).reshape(x.shape),
    [((5,), U8, ints(0, 255))], ["population_count"])
for y in (0, 1, 2, 3, 5, -1, -2):
    for dt in (F32, C64) + ((I32,) if y >= 0 else ()):
        rec(f"integer_pow_{dt}_{y}", lambda x, y=y: lax.integer_pow(x, y),
            f64ref(lambda x, y=y: x ** float(y) if x.dtype.kind != "i" else x ** y),
            [((3, 4), dt, "nonzero")], ["integer_pow"], rtol=4e-6, atol=1e-6)
rec("integer_pow_0d", lambda x: lax.integer_pow(x, 3), f64ref(lambda x: x ** 3),
    [((), F32)], ["integer_pow"])
# complex square is its own primitive ((a - b)(a + b) + 2abj, as JAX's chlo.square)
for shape in SHAPES:
    rec(f"square_c64_{shape}", lax.square, f64ref(np.square), [(shape, C64, cplx)], ["square"],
        rtol=4e-6, atol=1e-6)
rec("square_c128", lax.square, f64ref(np.square), [((5,), C128, cplx)], ["square"], x64=True,
    rtol=1e-12, atol=1e-12)


# -- binary ops ---------------------------------------------------------------------------
def _py_int_ref(fn, out=None):
    """Elementwise reference on Python ints, wrapped to the dtype's width."""
    def ref(x, y):
        x, y = np.broadcast_arrays(x, y)
        dt = np.dtype(out or x.dtype)
        vals = [fn(int(a), int(b), x.dtype) for a, b in zip(x.ravel(), y.ravel())]
        return np.array([_wrap_int(v, dt) for v in vals], dt).reshape(x.shape)
    return ref


def _wrap_int(v, dt):
    if dt == np.bool_:
        return bool(v)
    bits = dt.itemsize * 8
    v %= 2 ** bits
    return v - 2 ** bits if dt.kind == "i" and v >= 2 ** (bits - 1) else v


def _xla_div(a, b, dt):
    if b == 0:
        return -1  # all bits set: -1 signed, the max unsigned (after wrapping)
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _xla_rem(a, b, dt):
    return a if b == 0 else a - b * _xla_div(a, b, dt)


def _bits(dt):
    return np.dtype(dt).itemsize * 8


def _shl(a, s, dt):
    return 0 if not 0 <= s < _bits(dt) else a << s


def _shr_logical(a, s, dt):
    return 0 if not 0 <= s < _bits(dt) else (a % 2 ** _bits(dt)) >> s


def _shr_arith(a, s, dt):
    signed = _wrap_int(a, np.dtype(f"i{np.dtype(dt).itemsize}"))  # the bits, read signed
    return signed >> min(s, _bits(dt) - 1) if s >= 0 else signed >> (_bits(dt) - 1)


def _nan_max(fn):
    return lambda x, y: np.where(np.isnan(x) | np.isnan(y), np.nan, fn(x, y))


SMALL = ints(-3, 3)   # equal values are likely: exercises ==, <=, ...
BINARY = [
    # prim, fn, ref, [(dtype, lhs domain, rhs domain)], rtol
    ("add", lax.add, f64ref(np.add), [(F32, N, N), (I32, N, N), (U8, N, N), (C64, N, N),
                                       (BOOL, N, N)], 1e-6),
    ("sub", lax.sub, f64ref(np.subtract), [(F32, N, N), (I32, N, N), (U8, N, N),
                                            (C64, N, N)], 1e-6),
    ("mul", lax.mul, f64ref(np.multiply), [(F32, N, N), (I32, N, N), (U32, N, N),
                                            (C64, N, N), (BOOL, N, N)], 1e-6),
    ("div", lax.div, f64ref(np.true_divide), [(F32, N, "nonzero"), (C64, N, N)], 1e-6),
    ("div", lax.div, _py_int_ref(_xla_div), [(I32, ints(-20, 20), ints(-6, 6)),
                                             (U8, ints(0, 255), ints(0, 9))], 0),
    ("rem", lax.rem, f64ref(np.fmod), [(F32, N, "nonzero")], 1e-6),
    ("rem", lax.rem, _py_int_ref(_xla_rem), [(I32, ints(-20, 20), ints(-6, 6)),
                                             (U8, ints(0, 255), ints(0, 9))], 0),
    ("pow", lax.pow, f64ref(np.power), [(F32, P, N), (C64, N, N)], 4e-6),
    ("max", lax.max, f64ref(np.maximum), [(F32, specials, N), (I32, N, N), (U8, N, N),
                                           (BOOL, N, N)], 0),
    ("min", lax.min, f64ref(np.minimum), [(F32, N, specials), (I32, N, N), (U8, N, N),
                                           (BOOL, N, N)], 0),
    ("atan2", lax.atan2, f64ref(np.arctan2), [(F32, N, N)], 2e-6),
    ("nextafter", lax.nextafter, np.nextafter, [(F32, N, N), (F16, N, N)], 0),
    ("and", lax.bitwise_and, np.bitwise_and, [(I32, N, N), (U8, N, N), (BOOL, N, N)], 0),
    ("or", lax.bitwise_or, np.bitwise_or, [(I32, N, N), (U8, N, N), (BOOL, N, N)], 0),
    ("xor", lax.bitwise_xor, np.bitwise_xor, [(I32, N, N), (U8, N, N), (BOOL, N, N)], 0),
    ("shift_left", lax.shift_left, _py_int_ref(_shl),
     [(I32, ints(-2**31, 2**31 - 1), ints(-3, 35)), (U8, ints(0, 255), ints(0, 11))], 0),
    ("shift_right_logical", lax.shift_right_logical, _py_int_ref(_shr_logical),
     [(I32, ints(-2**31, 2**31 - 1), ints(-3, 35)), (U8, ints(0, 255), ints(0, 11))], 0),
    ("shift_right_arithmetic", lax.shift_right_arithmetic, _py_int_ref(_shr_arith),
     [(I32, ints(-2**31, 2**31 - 1), ints(-3, 35)), (U8, ints(0, 255), ints(0, 11))], 0),
]
COMPARISONS = [("eq", lax.eq, np.equal), ("ne", lax.ne, np.not_equal),
               ("lt", lax.lt, np.less), ("le", lax.le, np.less_equal),
               ("gt", lax.gt, np.greater), ("ge", lax.ge, np.greater_equal)]

for prim, fn, ref, cases, tol in BINARY:
    for dt, d1, d2 in cases:
        for s1, s2 in PAIRS:
            rec(f"{prim}_{dt}_{s1}_{s2}", fn, ref, [(s1, dt, d1), (s2, dt, d2)], [prim],
                rtol=tol, atol=tol)
        if dt in (F32, C64, I32):
            wide = {F32: F64, C64: C128, I32: I64}[dt]
            rec(f"{prim}_{wide}", fn, ref, [((5,), wide, d1), ((5,), wide, d2)], [prim],
                x64=True, rtol=1e-12, atol=1e-12)
for prim, fn, ref in COMPARISONS:
    for dt, dom in [(F32, SMALL), (I32, SMALL), (U8, ints(0, 3)), (BOOL, N)]:
        for s1, s2 in PAIRS:
            rec(f"{prim}_{dt}_{s1}_{s2}", fn, ref, [(s1, dt, dom), (s2, dt, dom)], [prim])
    rec(f"{prim}_nan", fn, ref, [((3, 4), F32, specials), ((3, 4), F32, specials)], [prim])
for prim, fn, ref in COMPARISONS[:2]:
    rec(f"{prim}_c64", fn, ref, [((5,), C64, cplx), ((5,), C64, cplx)], [prim])
for s1, s2 in PAIRS:
    rec(f"complex_{s1}_{s2}", lax.complex, f64ref(lambda x, y: x + 1j * y, C64),
        [(s1, F32), (s2, F32)], ["complex"])
rec("complex_f64", lax.complex, f64ref(lambda x, y: x + 1j * y, C128),
    [((5,), F64), ((5,), F64)], ["complex"], x64=True)
rec("shift_left_u64", lax.shift_left, _py_int_ref(_shl),
    [((7,), U64, lambda rng, s: rng.integers(0, 2**64 - 1, s, np.uint64, endpoint=True)),
     ((7,), U64, ints(0, 70))], ["shift_left"], x64=True)
rec("div_i64", lax.div, _py_int_ref(_xla_div),
    [((9,), I64, ints(-2**63, 2**63 - 1)), ((9,), I64, ints(-3, 3))], ["div"], x64=True)


# -- select_n, clamp ------------------------------------------------------------------------
def _choose(which, *cases):
    return np.choose(which.astype(np.int64), np.broadcast_arrays(*cases))


for s_which, s_case in [((), ()), ((5,), (5,)), ((3, 4), (3, 4)), ((), (3, 4)),
                        ((0, 3), (0, 3)), ((3, 4), ())]:
    rec(f"select_n_bool_{s_which}_{s_case}", lambda p, a, b: lax.select_n(p, a, b),
        lambda p, a, b: np.where(p, b, a) + np.zeros(np.broadcast_shapes(p.shape, a.shape),
                                                    a.dtype),
        [(s_which, BOOL), (s_case, F32), (s_case, F32)], ["select_n"])
for dt in (I32, BOOL, C64):
    rec(f"select_{dt}", lax.select, lambda p, a, b: np.where(p, a, b),
        [((3, 4), BOOL), ((3, 4), dt), ((3, 4), dt)], ["select_n"])
rec("select_n_int_3", lambda w, a, b, c: lax.select_n(w, a, b, c), _choose,
    [((3, 4), I32, ints(0, 2)), ((3, 4), F32), ((3, 4), F32), ((3, 4), F32)], ["select_n"])
rec("select_n_int_scalar_which", lambda w, a, b, c: lax.select_n(w, a, b, c), _choose,
    [((), I32, lambda rng, s: np.asarray(2)), ((5,), I32), ((5,), I32), ((5,), I32)],
    ["select_n"])
rec("select_n_one_case", lambda w, a: lax.select_n(w, a), lambda w, a: a,
    [((3,), BOOL), ((3,), F32)], ["select_n"])
for s_lo, s_x in [((), ()), ((), (5,)), ((3, 4), (3, 4)), ((), (0, 3))]:
    for dt in (F32, I32):
        rec(f"clamp_{dt}_{s_lo}_{s_x}", lambda lo, x, hi: lax.clamp(lo, x, hi),
            lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
            [(s_lo, dt, uniform(-2, -0.5) if dt == F32 else ints(-5, -1)), (s_x, dt),
             (s_lo, dt, uniform(0.5, 2) if dt == F32 else ints(1, 5))], ["clamp"])
rec("clamp_python_bounds", lambda x: lax.clamp(-0.5, x, 0.5), lambda x: np.clip(x, -0.5, 0.5),
    [((3, 4), F32)], ["clamp"])
rec("clamp_nan", lambda x: lax.clamp(-1.0, x, 1.0),
    lambda x: np.where(np.isnan(x), np.nan, np.clip(x, -1, 1)), [((3, 4), F32, specials)],
    ["clamp"])


# -- conversions -----------------------------------------------------------------------------
def _saturate(dt):
    """float -> int reference: NaN -> 0, clamp to the range, truncate toward zero."""
    info = np.iinfo(dt)

    def ref(x):
        out = [0 if math.isnan(v) else info.max if v >= info.max else
               info.min if v <= info.min else int(v) for v in x.astype(np.float64).ravel()]
        return np.array(out, dt).reshape(x.shape)
    return ref


def _wild(rng, shape):
    v = rng.standard_normal(shape) * 10 ** rng.integers(0, 12, shape)
    return np.where(rng.integers(0, 6, shape) == 0, np.nan, v)


CONVERSIONS = [
    (F32, I32, _wild, _saturate(np.int32)), (F32, U8, _wild, _saturate(np.uint8)),
    (F32, I8, specials, _saturate(np.int8)), (F16, I32, specials, _saturate(np.int32)),
    (F32, U32, _wild, _saturate(np.uint32)),
    (I32, F32, ints(-10**6, 10**6), lambda x: x.astype(np.float32)),
    (I32, U8, ints(-1000, 1000), lambda x: x.astype(np.uint8)),   # integers wrap
    (U8, I32, N, lambda x: x.astype(np.int32)),
    (F32, BOOL, specials, lambda x: x != 0), (I32, BOOL, ints(-2, 2), lambda x: x != 0),
    (BOOL, F32, N, lambda x: x.astype(np.float32)), (BOOL, I32, N, lambda x: x.astype(np.int32)),
    (C64, F32, N, lambda x: x.real.copy()), (F32, C64, N, lambda x: x.astype(np.complex64)),
    (F32, F16, N, lambda x: x.astype(np.float16)),
]
for src, dst, dom, ref in CONVERSIONS:
    for shape in ((), (7,), (0, 3)):
        rec(f"convert_{src}_{dst}_{shape}", lambda x, d=dst: lax.convert_element_type(x, d),
            ref, [(shape, src, dom)], ["convert_element_type"])
rec("convert_f64_i64", lambda x: lax.convert_element_type(x, I64), _saturate(np.int64),
    [((9,), F64, lambda rng, s: np.array([1e19, -1e19, np.nan, np.inf, -np.inf, 2.0**63,
                                          -2.0**63, 3.7, -3.7]))], ["convert_element_type"],
    x64=True)
rec("convert_f64_u64", lambda x: lax.convert_element_type(x, U64), _saturate(np.uint64),
    [((5,), F64, lambda rng, s: np.array([2e19, -1.0, np.nan, 2.0**64, 12.9]))],
    ["convert_element_type"], x64=True)
for src, dst, shape in [(F32, I32, (3, 4)), (I32, F32, (5,)), (F32, U8, (3, 4)),
                        (U8, F32, (3, 4)), (I32, "int16", (2, 3)), (F32, U32, ())]:
    rec(f"bitcast_{src}_{dst}_{shape}", lambda x, d=dst: lax.bitcast_convert_type(x, d),
        lambda x, d=dst: x.view(d).reshape(
            x.shape[:-1] if np.dtype(d).itemsize > x.dtype.itemsize else
            x.shape + ((x.dtype.itemsize // np.dtype(d).itemsize,)
                       if np.dtype(d).itemsize < x.dtype.itemsize else ())),
        [((shape[:-1] + (4,)) if (src, dst) == (U8, F32) else shape, src)],
        ["bitcast_convert_type"])


# -- running the records ----------------------------------------------------------------------
def _check_dtypes(rec_, closed):
    """The result dtype is the reference's (check_record casts before comparing)."""
    rng = np.random.default_rng(0)
    refs = rec_.ref(*[make_arg(s, rng) for s in rec_.args])
    refs = refs if isinstance(refs, (list, tuple)) else [refs]
    for r, aval in zip(refs, closed.out_avals):
        assert np.asarray(r).dtype == aval.dtype, f"{rec_.name}: {aval} vs {np.asarray(r).dtype}"


@pytest.mark.parametrize("record", RECORDS, ids=str)
def test_record(record):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # impls must not warn
        closed = check_record(record)
    _check_dtypes(record, closed)


@pytest.mark.parametrize("record", X64_RECORDS, ids=str)
def test_record_x64(record, x64):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        closed = check_record(record)
    _check_dtypes(record, closed)


def test_every_elementwise_primitive_has_records():
    covered = {p for r in RECORDS for p in r.primitives}
    # (elementwise primitives kept in modules of their own count too)
    defined = {v.name for mod in (ew, complex_square) for v in vars(mod).values()
               if isinstance(v, tjit.tracing.core.Primitive)}
    assert defined - covered == set()


# -- XLA semantics, spelled out ---------------------------------------------------------------
def _eager_and_jit(fn, *args):
    """fn on tjit Arrays eagerly and under jit; both results as NumPy arrays."""
    xs = [jnp.asarray(a) for a in args]
    return np.asarray(fn(*xs)), np.asarray(tjit.jit(fn)(*xs))


def _assert_both(fn, args, expected, dtype=None):
    for out in _eager_and_jit(fn, *args):
        if dtype is not None:
            assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(out, expected)


def test_round_half_away_from_zero():
    x = np.array([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 8388609.0,
                  -8388609.0, 1e30, np.inf, -np.inf, np.nan, -0.0, -0.2], np.float32)
    want = np.array([1, -1, 2, -2, 3, -3, 0, -0.0, 8388609, -8388609, 1e30, np.inf, -np.inf,
                     np.nan, -0.0, -0.0], np.float32)
    for out in _eager_and_jit(lax.round, x):
        np.testing.assert_array_equal(out, want)
        assert np.array_equal(np.signbit(out), np.signbit(want))  # -0.0 stays -0.0
    _assert_both(lambda v: lax.round(v, lax.ROUND_TO_NEAREST_EVEN), [x[:6]],
                 np.array([0, -0.0, 2, -2, 2, -2], np.float32))


def test_integer_division_truncates_and_divide_by_zero_is_defined():
    imin = np.iinfo(np.int32).min
    x = np.array([7, -7, 7, -7, 5, -5, 0, imin, imin, imin], np.int32)
    y = np.array([2, 2, -2, -2, 0, 0, 0, -1, 3, 0], np.int32)
    _assert_both(lax.div, [x, y], [3, -3, -3, 3, -1, -1, -1, imin, -715827882, -1], I32)
    _assert_both(lax.rem, [x, y], [1, -1, 1, -1, 5, -5, 0, 0, -2, imin], I32)
    u = np.array([7, 200, 0], np.uint8)
    _assert_both(lax.div, [u, np.array([2, 0, 0], np.uint8)], [3, 255, 255], U8)
    _assert_both(lax.rem, [u, np.array([2, 0, 0], np.uint8)], [1, 200, 0], U8)


def test_float_division_by_zero_is_silent():
    x = np.array([1.0, -1.0, 0.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _assert_both(lax.div, [x, np.zeros(3, np.float32)], [np.inf, -np.inf, np.nan])
        _assert_both(lax.rem, [x, np.zeros(3, np.float32)], [np.nan] * 3)


def test_shifts_out_of_range():
    x = np.array([1, -8, -8, 5, -1, 3], np.int32)
    s = np.array([32, 1, 40, -1, 31, 0], np.int32)
    _assert_both(lax.shift_left, [x, s], [0, -16, 0, 0, -2**31, 3])
    _assert_both(lax.shift_right_logical, [x, s], [0, 0x7FFFFFFC, 0, 0, 1, 3])
    _assert_both(lax.shift_right_arithmetic, [x, s], [0, -4, -1, 0, -1, 3])
    u = np.array([0x80, 0x80, 0xFF], np.uint8)
    _assert_both(lax.shift_right_arithmetic, [u, np.array([1, 9, 3], np.uint8)],
                 [0xC0, 0xFF, 0xFF], U8)  # the top bit is the sign bit


def test_float_to_int_saturates_and_nan_is_zero():
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.9, -2.9, 2147483520.0], np.float32)
    _assert_both(lambda v: lax.convert_element_type(v, np.int32), [x],
                 [0, 2**31 - 1, -2**31, 2**31 - 1, -2**31, 2, -2, 2147483520], I32)
    _assert_both(lambda v: lax.convert_element_type(v, np.uint8), [x],
                 [0, 255, 0, 255, 0, 2, 0, 255], U8)


@pytest.mark.parametrize("src", [np.float16, np.float32, np.float64])
def test_float_to_int_inside_and_at_the_range_ends(src):
    """Arrays wholly inside the int's range truncate in one pass (eager); one value at or
    past an end, or a NaN, sends the whole array through the saturating path."""
    old = tjit.config.enable_x64
    tjit.config.update("enable_x64", True)
    try:
        for dst in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                    np.uint64):
            info = np.iinfo(dst)
            with np.errstate(over="ignore"):
                ends = np.array([info.min, info.max], np.float64).astype(src)
            inner = [np.nextafter(ends[0], src(np.inf)), np.nextafter(ends[1], src(-np.inf)),
                     src(0.75), src(-0.75), src(1.5)]
            inner = np.array([v for v in inner if info.min <= v <= info.max], src)
            for extra in ([], [ends[0]], [ends[1]], [src(np.nan)], [src(np.inf)]):
                x = np.concatenate([inner, np.array(extra, src)])
                want = _saturate(dst)(x)
                got = lax.convert_element_type(x, dst)
                assert got.dtype == dst
                np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{dst} {extra}")
    finally:
        tjit.config.update("enable_x64", old)


def test_max_min_propagate_nan():
    x = np.array([np.nan, 1.0, np.nan, -np.inf], np.float32)
    y = np.array([1.0, np.nan, np.nan, 2.0], np.float32)
    _assert_both(lax.max, [x, y], [np.nan, np.nan, np.nan, 2.0])
    _assert_both(lax.min, [x, y], [np.nan, np.nan, np.nan, -np.inf])


def test_logistic_is_stable_for_large_inputs():
    x = np.array([-100, 100, -1000, 1000, 0, -88.5], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for out in _eager_and_jit(lax.logistic, x):
            assert np.all(np.isfinite(out))
            np.testing.assert_allclose(out, scipy.special.expit(x.astype(np.float64)),
                                       rtol=2e-6, atol=1e-44)  # exp(-100) is subnormal


def test_integer_pow_negative_exponent():
    x = np.array([2.0, -4.0, 0.5, 0.0], np.float32)
    _assert_both(lambda v: lax.integer_pow(v, -2), [x], [0.25, 0.0625, 4.0, np.inf])
    with pytest.raises(TypeError, match="integer_pow: integers cannot be raised to negative"):
        lax.integer_pow(jnp.asarray(np.arange(3, dtype=np.int32)), -1)
    with pytest.raises(TypeError, match="integers cannot be raised to negative powers"):
        tjit.jit(lambda v: lax.integer_pow(v, -1))(np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="integer_pow: exponent y must be an integer"):
        lax.integer_pow(jnp.asarray(x), 2.5)


def test_complex_keeps_infinite_parts():
    out = np.asarray(lax.complex(jnp.asarray(np.float32([0, np.inf, 1])),
                                 jnp.asarray(np.float32([np.inf, 0, np.nan]))))
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(out.real, [0, np.inf, 1])
    np.testing.assert_array_equal(out.imag, [np.inf, 0, np.nan])


BAD_INPUTS = np.array([-1.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 2.0],
                      np.float32)


@pytest.mark.parametrize("prim,fn", [(u[0], u[1]) for u in UNARY if u[3][0][0] == F32] +
                         [("logistic_c", lambda x: lax.logistic(lax.complex(x, x)))])
def test_no_warnings_on_invalid_values(prim, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eager, jitted = _eager_and_jit(fn, BAD_INPUTS)
    # the compiled path uses tjit's own math functions (trig with a full-range argument
    # reduction): equal up to a few ulp, with the same inf/nan pattern
    np.testing.assert_allclose(jitted, eager, rtol=4e-7, atol=0)


@pytest.mark.parametrize("fn", [lax.div, lax.rem, lax.pow, lax.atan2, lax.sub, lax.mul,
                                lax.add, lax.nextafter])
def test_no_warnings_binary(fn):
    x, y = np.meshgrid(BAD_INPUTS, BAD_INPUTS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eager, jitted = _eager_and_jit(fn, x, y)
        _eager_and_jit(lambda a, b: lax.integer_pow(a, -3), x, y)
        _eager_and_jit(lambda a: lax.convert_element_type(a, np.int8), x)
        _eager_and_jit(lambda a: lax.convert_element_type(a * 1e30, np.float16), x)
    np.testing.assert_allclose(jitted, eager, rtol=2.5e-7, atol=0)


# -- eager and jit reject the same operands ------------------------------------------------------
BAD_CALLS = [
    (lambda: lax.add(jnp.asarray(np.ones(3, np.int32)), jnp.asarray(np.ones(3, np.float32))),
     TypeError, r"add: operand dtypes must be equal, got int32, float32"),
    (lambda: lax.mul(jnp.asarray(np.ones((3, 1), np.float32)),
                     jnp.asarray(np.ones((3, 4), np.float32))),
     ShapeError, r"mul: operand shapes must be equal, got \(3, 1\), \(3, 4\)"),
    (lambda: lax.exp(jnp.asarray(np.ones(3, np.int32))),
     TypeError, r"exp: operand must have a floating-point or complex dtype, got int32"),
    (lambda: lax.sub(jnp.asarray(np.ones(3, bool)), jnp.asarray(np.ones(3, bool))),
     TypeError, r"sub: lhs must have a numeric \(non-bool\) dtype"),
    (lambda: lax.bitwise_and(jnp.asarray(np.ones(3, np.float32)),
                             jnp.asarray(np.ones(3, np.float32))),
     TypeError, r"and: lhs must have an integer or bool dtype"),
    (lambda: lax.floor(jnp.asarray(np.ones(3, np.complex64))),
     TypeError, r"floor: operand must have a real floating-point dtype"),
    (lambda: lax.atan2(jnp.asarray(np.ones(3, np.int32)), jnp.asarray(np.ones(3, np.int32))),
     TypeError, r"atan2: lhs must have a real floating-point dtype"),
    (lambda: lax.select_n(jnp.asarray(np.ones(3, np.float32)),
                          jnp.asarray(np.ones(3)), jnp.asarray(np.ones(3))),
     TypeError, r"select_n: `which` must be bool or int32, got float32"),
    (lambda: lax.select_n(jnp.asarray(np.ones(3, bool)), *[jnp.asarray(np.ones(3))] * 3),
     TypeError, r"select_n: a bool `which` selects among at most 2 cases"),
    (lambda: lax.select(jnp.asarray(np.ones(3, bool)), jnp.asarray(np.ones(3, np.float32)),
                        jnp.asarray(np.ones(3, np.int32))),
     TypeError, r"select_n: operand dtypes must be equal"),
    (lambda: lax.select(jnp.asarray(np.ones(4, bool)), jnp.asarray(np.ones(3)),
                        jnp.asarray(np.ones(3))),
     ShapeError, r"select_n: operand shapes must be equal, got \(4,\), \(3,\), \(3,\)"),
    (lambda: lax.clamp(jnp.asarray(np.zeros(2, np.float32)), jnp.asarray(np.ones(3)), 1.0),
     TypeError, r"clamp: min must be a scalar or have the operand's shape f32\[3\]"),
    (lambda: lax.clamp(*[jnp.asarray(np.ones(3, bool))] * 3),
     TypeError, r"clamp: operand must have a numeric \(non-bool\) dtype, got bool"),
]


@pytest.mark.parametrize("i", range(len(BAD_CALLS)))
def test_bad_operands_eager_and_jit(i):
    fn, exc, match = BAD_CALLS[i]
    with pytest.raises(exc, match=match):
        fn()
    with pytest.raises(exc, match=match):
        tjit.jit(fn)()


def test_lax_python_scalars_are_weak_and_checked():
    x16 = jnp.asarray(np.ones(3, np.float16))
    assert lax.add(x16, 2).dtype == np.float16
    assert lax.mul(x16, 2.5).dtype == np.float16
    xi8 = jnp.asarray(np.ones(3, np.int8))
    assert lax.add(xi8, 3).dtype == np.int8
    with pytest.raises(TypeError, match=r"Python float 1.5 cannot be used with an operand "
                                        r"of dtype int8 without losing information"):
        lax.add(xi8, 1.5)
    with pytest.raises(OverflowError, match="Python int 300 too large to convert to int8"):
        lax.add(xi8, 300)
    with pytest.raises(TypeError, match="operand dtypes must be equal, got int32, float32"):
        lax.add(1, 2.0)
    w = lax.add(1.0, 2.0)
    assert w.weak_type and w.dtype == np.float32


def test_weak_type_rules():
    weak = lax.add(jnp.asarray(1.0), 2.0)
    strong = jnp.asarray(np.ones(3, np.float32))
    assert weak.weak_type
    assert not lax.add(strong, weak).weak_type
    assert lax.lt(weak, weak).weak_type                # comparisons: weak iff both (JAX)
    assert not lax.lt(weak, strong).weak_type
    zc = lax.complex(weak, weak)
    assert zc.weak_type and zc.dtype == np.complex64
    assert lax.abs(zc).weak_type and lax.abs(zc).dtype == np.float32
    assert lax.convert_element_type(strong, np.float32, weak_type=True).weak_type
    jaxpr = tjit.make_jaxpr(lambda a: lax.mul(a, 2.0))(weak)
    assert jaxpr.out_avals[0].weak_type


def test_symbolic_shapes():
    def f(x, y):
        return lax.select(lax.gt(x, y), lax.exp(x), lax.integer_pow(y, 2))
    closed = tjit.make_jaxpr(f, polymorphic_shapes=["(b, 3)", "(b, 3)"])(
        np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    (out,) = closed.out_avals
    assert str(out.shape[0]) == "b" and out.shape[1] == 3
    with pytest.raises(ShapeError, match=r"add: operand shapes \(b, 3\), \(c, 3\) may differ"):
        tjit.make_jaxpr(lax.add, polymorphic_shapes=["(b, 3)", "(c, 3)"])(
            np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    # rank-0 operands broadcast against symbolic shapes
    closed = tjit.make_jaxpr(lambda x: lax.add(x, 1.0), polymorphic_shapes=["(b,)"])(
        np.ones(4, np.float32))
    assert str(closed.out_avals[0].shape[0]) == "b"
    jitted = tjit.jit(f, polymorphic_shapes=["(b, 3)", "(b, 3)"])
    for n in (1, 4):
        x = np.linspace(-1, 1, 3 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_allclose(np.asarray(jitted(x, x[::-1])),
                                   np.where(x > x[::-1], np.exp(x), x[::-1] ** 2), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nextafter_of_equal_values_is_y_on_every_dtype(dtype, x64):
    """C99's and JAX's rule: nextafter(x, y) = y when x == y, so nextafter(0, -0) = -0.
    NumPy's float16 loop returned x there before NumPy 2.5, which made the reference
    semantics (and so every backend's tests) depend on the NumPy version."""
    import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy)
    x = np.array([0.0, -0.0, 1.5, -np.inf], dtype)
    y = np.array([-0.0, 0.0, 1.5, -np.inf], dtype)
    want = np.signbit(y.astype(np.float32))
    for run in (lax.nextafter, tjit.jit(lax.nextafter),
                tjit.jit(lax.nextafter, backend="interpreter")):
        got = np.asarray(run(x, y))
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got.astype(np.float32), y.astype(np.float32))
        np.testing.assert_array_equal(np.signbit(got.astype(np.float32)), want)
